#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Does a change keep the output byte for byte?  Runs two dwarf2btf binaries
# (e.g. before and after a refactor) on the same inputs and compares what
# they write.
#
# usage: same-output.sh [--kernel] OLD NEW
#   fixtures:  every tests/fixtures/*.c, gcc and clang, DWARF 4 and 5
#              (-O2 -c), at -j1 and -j2, with the default features and
#              with global_var and true_signature;
#   --kernel:  also Debian's 6.12 vmlinux (scripts/fetch-kernel.sh, cached)
#              at -j1 and -j2, and all its modules in one run over it.
# Prints one line per difference and 'N same, N differ'; exit 1 on any.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
kernel=0
[ "${1:-}" = --kernel ] && { kernel=1; shift; }
[ $# = 2 ] || { echo "usage: $0 [--kernel] OLD NEW" >&2; exit 2; }
old=$1
new=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
nsame=0
ndiff=0

# same NAME ARGS...: run both with ARGS plus -o, compare the files.
same() {
	local name=$1 a b
	shift
	a=$tmp/old.out
	b=$tmp/new.out
	rm -rf "$a" "$b"
	case " $* " in *" --files-from="*) mkdir "$a" "$b" ;; esac
	"$old" "$@" -o "$a" > /dev/null 2> "$tmp/old.err"
	echo "rc=$?" >> "$tmp/old.err"
	"$new" "$@" -o "$b" > /dev/null 2> "$tmp/new.err"
	echo "rc=$?" >> "$tmp/new.err"
	if cmp -s "$tmp/old.err" "$tmp/new.err" &&
	   { [ ! -e "$a" ] && [ ! -e "$b" ] || diff -r -q "$a" "$b" > /dev/null; }; then
		nsame=$((nsame + 1))
	else
		echo "differ: $name"
		ndiff=$((ndiff + 1))
	fi
}

for src in "$root"/tests/fixtures/*.c; do
	n=$(basename "$src" .c)
	for cc in gcc clang; do
		for dw in 4 5; do
			o=$tmp/$n.$cc.$dw.o
			"$cc" -g -gdwarf-$dw -O2 -c "$src" -o "$o" 2> /dev/null ||
				continue
			for j in 1 2; do
				same "$n $cc DWARF $dw -j$j" -j$j "$o"
				same "$n $cc DWARF $dw -j$j global_var,true_signature" \
					-j$j --btf_features=default,global_var,true_signature "$o"
			done
		done
	done
done

if [ "$kernel" = 1 ]; then
	vmlinux=$("$here"/fetch-kernel.sh) || exit 1
	mods=$("$here"/fetch-kernel.sh --modules) || exit 1
	for j in 1 2; do
		same "vmlinux -j$j" -j$j "$vmlinux"
	done
	find "$mods" -name '*.ko' | sort > "$tmp/kos"
	same "$(wc -l < "$tmp/kos") modules" --base "$vmlinux" \
		--files-from="$tmp/kos"
fi
echo "$nsame same, $ndiff differ"
[ "$ndiff" = 0 ]
