// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest side of scripts/boot-check.sh (static, with Debian's
 * libbpf.a): loads and attaches probe.bpf.c, opens a file and runs a
 * program so that both probes fire, and prints one verdict line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "probe.skel.h"

#define PATH "/dwarf2btf-probe"
#ifndef OPEN_FN
#define OPEN_FN do_filp_open	/* do_file_open from Linux 7.0 on */
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

struct result {
	int target_pid;
	int calls;
	int pid;
	int module_calls;
	char name[64];
};

int main(void)
{
	struct probe_bpf *skel = probe_bpf__open_and_load();
	struct result r = { .target_pid = getpid() };
	int key = 0, fd, map;

	if (!skel) {
		printf("VERDICT FAIL: the kernel refused the programs\n");
		return 1;
	}
	map = bpf_map__fd(skel->maps.results);
	if (bpf_map_update_elem(map, &key, &r, 0) || probe_bpf__attach(skel)) {
		printf("VERDICT FAIL: cannot attach\n");
		return 1;
	}
	fd = open(PATH, O_RDONLY);
	if (fd >= 0)
		close(fd);
	if (system("/bin/true") != 0) {	/* an exec: binfmt_misc is asked */
		printf("VERDICT FAIL: cannot run /bin/true\n");
		return 1;
	}
	if (bpf_map_lookup_elem(map, &key, &r) || r.calls < 1 ||
	    strcmp(r.name, PATH) || r.pid != getpid() || r.module_calls < 1) {
		printf("VERDICT FAIL: fentry saw %d calls, name '%s', tgid %d; module %d calls\n",
		       r.calls, r.name, r.pid, r.module_calls);
		return 1;
	}
	printf("VERDICT PASS: fentry/" STR(OPEN_FN) " read pathname->name '%s' and, through kfuncs bpf_task_acquire()/bpf_task_release(), task->tgid %d, both by CO-RE; fentry/load_misc_binary (module binfmt_misc) saw %d exec(s)\n",
	       r.name, r.pid, r.module_calls);
	probe_bpf__destroy(skel);
	return 0;
}
