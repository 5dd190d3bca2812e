// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF side of scripts/boot-check.sh, run inside a kernel whose BTF
 * dwarf2btf made: fentry on a vmlinux function and on a module's, CO-RE
 * reads (relocated against /sys/kernel/btf/vmlinux) and two kfuncs.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * A map, not global variables: libbpf probes for global data with a
 * socket filter, which a kernel without networking cannot load.
 */
struct result {
	int target_pid;
	int calls;
	int pid;	/* task->tgid, through a kfunc's reference */
	int module_calls;
	char name[64];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct result);
} results SEC(".maps");

/* generic kfuncs, registered for tracing programs first */
extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;

/* do_filp_open up to Linux 6.x, do_file_open from 7.0 on (boot-check.sh) */
#ifndef OPEN_FN
#define OPEN_FN do_filp_open
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

SEC("fentry/" STR(OPEN_FN))
int BPF_PROG(on_open, int dfd, struct filename *pathname)
{
	struct task_struct *task;
	struct result *r;
	const char *name;
	int key = 0;

	r = bpf_map_lookup_elem(&results, &key);
	if (!r || (bpf_get_current_pid_tgid() >> 32) != r->target_pid)
		return 0;
	name = BPF_CORE_READ(pathname, name);
	bpf_probe_read_kernel_str(r->name, sizeof(r->name), name);
	task = bpf_task_acquire(bpf_get_current_task_btf());
	if (task) {
		r->pid = BPF_CORE_READ(task, tgid);
		bpf_task_release(task);
	}
	r->calls++;
	return 0;
}

/* a module's function: every exec asks binfmt_misc */
SEC("fentry/load_misc_binary")
int BPF_PROG(on_misc, struct linux_binprm *bprm)
{
	struct result *r;
	int key = 0;

	r = bpf_map_lookup_elem(&results, &key);
	if (r)
		r->module_calls++;
	return 0;
}
