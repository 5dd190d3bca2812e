// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reads the order shop::process() gets, in the service's memory, and
 * keeps the last one in a map for the loader.  service.h is the C header
 * bpftool prints from the service's BTF; its structs carry
 * preserve_access_index, so every field read below is a CO-RE
 * relocation, resolved at load time against the BTF the loader names
 * (btf_custom_path): that of the service actually running.
 */
#include <linux/bpf.h>
#include "service.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "order.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, int);
	__type(value, struct seen);
} last SEC(".maps");

/*
 * The registers at the probe, as x86-64's struct pt_regs lays them out:
 * the service's BTF has no kernel types, and this is all that is read.
 */
struct regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di;
};

SEC("uprobe")
int order_seen(struct regs *ctx)
{
	/* The first argument, a const Order &, is a pointer in rdi. */
	struct shop__Order *o = (struct shop__Order *)ctx->di;
	struct seen s = {};
	int zero = 0;
	double total;

	/* The base class Record is the member __base0. */
	s.serial = BPF_CORE_READ_USER(o, __base0.serial);
	s.id = BPF_CORE_READ_USER(o, id);
	s.sku = BPF_CORE_READ_USER(o, item.sku);
	s.quantity = BPF_CORE_READ_USER(o, item.quantity);
	total = BPF_CORE_READ_USER(o, total);
	__builtin_memcpy(&s.total_bits, &total, sizeof(total));
	/* A std::string: libstdc++ keeps the characters at _M_dataplus._M_p. */
	bpf_probe_read_user_str(s.customer, sizeof(s.customer),
				BPF_CORE_READ_USER(o, customer._M_dataplus._M_p));
	bpf_map_update_elem(&last, &zero, &s, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
