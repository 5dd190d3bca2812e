#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Makes the ELF seeds of corpus/btf/: an object whose .BTF holds BTF (read
# through a mapping, lib/btf_load.c), and the same with a .BTF.base beside
# it (left to libbpf, which from 1.5 reads it as split BTF).
#
# usage: fuzz/mkseed-btf-elf.sh BTF OUTDIR
set -eu
[ $# = 2 ] || { echo "usage: $0 BTF OUTDIR" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/empty.c"
gcc -c -o "$tmp/empty.o" "$tmp/empty.c"
objcopy --add-section .BTF="$1" "$tmp/empty.o" "$2/elf-btf.o"
objcopy --add-section .BTF="$1" --add-section .BTF.base="$1" \
	"$tmp/empty.o" "$2/elf-btf-base.o"
