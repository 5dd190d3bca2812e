#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Builds the example and runs it: the service in two versions, the BPF
# program compiled once against the first one's header, and loaded
# against each running version's BTF.
#
# usage: examples/uprobe-cxx/run.sh DWARF2BTF [OUTDIR]
# Needs g++, clang (BPF target), bpftool, libbpf's headers, and the right
# to load BPF programs and attach uprobes (root).  Prints one line per
# version, "v1: order serial=... id=..." and "v2: ...".  Exits 0 when both
# read their order, 1 on a failure, 77 when this machine cannot run it
# (a tool missing, or no right to load BPF).
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 DWARF2BTF [OUTDIR]" >&2; exit 2; }
bin=$(realpath "$1")
out=${2:-$(mktemp -d)}
mkdir -p "$out"

skip() { echo "skipped: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

for tool in g++ clang bpftool cc; do
	command -v "$tool" >/dev/null || skip "$tool not installed"
done
[ -e /usr/include/bpf/libbpf.h ] || skip "libbpf's headers not installed"
[ "$(id -u)" = 0 ] || skip "not root: cannot load BPF programs"
[ -e /sys/bus/event_source/devices/uprobe/type ] ||
	skip "the kernel has no uprobe events"

for v in v1 v2; do
	def=
	[ $v = v2 ] && def=-DSERVICE_V2
	g++ -g -O1 $def -o "$out/service-$v" "$here/service.cc" ||
		fail "g++ $v"
	"$bin" -o "$out/service-$v.btf" "$out/service-$v" ||
		fail "dwarf2btf on service-$v"
done
# The program knows the first version's layout only.
bpftool btf dump file "$out/service-v1.btf" format c >"$out/service.h" ||
	fail "bpftool btf dump"
clang -g -O2 -target bpf -I"$out" -I/usr/include/"$(uname -m)"-linux-gnu \
	-c "$here/order.bpf.c" -o "$out/order.bpf.o" || fail "clang -target bpf"
cc -O2 -Wall -o "$out/loader" "$here/loader.c" -lbpf || fail "loader"

func=$(nm "$out/service-v1" | awk '$3 ~ /process/ { print $3 }')
[ -n "$func" ] || fail "no symbol for shop::process"
for v in v1 v2; do
	"$out/service-$v" &
	pid=$!
	res=$("$out/loader" "$out/order.bpf.o" "$out/service-$v.btf" \
		"$out/service-$v" "$func" "$pid" 2>"$out/loader-$v.err")
	rc=$?
	kill "$pid"
	wait "$pid" 2>/dev/null
	if [ $rc -ne 0 ]; then
		if grep -q "Operation not permitted" "$out/loader-$v.err"; then
			skip "loading BPF is not permitted here"
		fi
		cat "$out/loader-$v.err" >&2
		fail "loader on $v"
	fi
	echo "$v: $res"
done
