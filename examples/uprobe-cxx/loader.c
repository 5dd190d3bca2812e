// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loads order.bpf.o with libbpf, its CO-RE relocations resolved against
 * the service's BTF (btf_custom_path), attaches it to a function of the
 * running service by a uprobe, and prints the first order it reads.
 *
 * usage: loader PROG.bpf.o SERVICE.btf SERVICE FUNC PID
 * Exits 0 once an order is read, 1 if none comes within 5 s or a step
 * fails, 2 on misuse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "order.h"

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	LIBBPF_OPTS(bpf_uprobe_opts, uprobe_opts);
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct bpf_map *map;
	struct seen s = { 0 };
	int zero = 0, i, ret = 1;
	double total;
	char *end;
	long pid;

	if (argc != 6) {
		fprintf(stderr,
			"usage: %s PROG.bpf.o SERVICE.btf SERVICE FUNC PID\n",
			argv[0]);
		return 2;
	}
	pid = strtol(argv[5], &end, 10);
	if (*end || pid <= 0) {
		fprintf(stderr, "%s: not a process id\n", argv[5]);
		return 2;
	}
	/* The CO-RE relocations resolve against the service's types. */
	open_opts.btf_custom_path = argv[2];
	obj = bpf_object__open_file(argv[1], &open_opts);
	if (!obj) {
		fprintf(stderr, "%s: cannot open: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (bpf_object__load(obj)) {
		fprintf(stderr, "%s: cannot load: %s\n", argv[1], strerror(errno));
		goto out;
	}
	prog = bpf_object__next_program(obj, NULL);
	map = bpf_object__find_map_by_name(obj, "last");
	if (!prog || !map) {
		fprintf(stderr, "%s: no program or no map 'last'\n", argv[1]);
		goto out;
	}
	uprobe_opts.func_name = argv[4];
	link = bpf_program__attach_uprobe_opts(prog, pid, argv[3], 0,
					       &uprobe_opts);
	if (!link) {
		fprintf(stderr, "%s: cannot attach to %s: %s\n", argv[3],
			argv[4], strerror(errno));
		goto out;
	}
	for (i = 0; i < 50 && !s.id; i++) {
		usleep(100000);
		if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, &s))
			break;
	}
	bpf_link__destroy(link);
	if (!s.id) {
		fprintf(stderr, "no call of %s seen in 5 s\n", argv[4]);
		goto out;
	}
	memcpy(&total, &s.total_bits, sizeof(total));
	printf("order serial=%ld id=%d sku=%d quantity=%d total=%.2f customer=%s\n",
	       s.serial, s.id, s.sku, s.quantity, total, s.customer);
	ret = 0;
out:
	bpf_object__close(obj);
	return ret;
}
