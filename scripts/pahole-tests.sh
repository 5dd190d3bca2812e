#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Upstream pahole's own test suite (dwarves' tests/*.sh) with dwarf2btf as
# the BTF encoder, side by side with pahole itself.  A `pahole` first on
# PATH sends every encoding run (-J, --btf_encode, --btf_encode_detached)
# to dwarf2btf, and everything else (pretty-printing, -F btf, ...) to the
# real pahole; pfunct and the rest are the real ones.  Each test runs
# twice, once with the real pahole encoding, once with ours, and a table
# says which passed.  Nothing of dwarves is copied into this repository:
# give it a checkout, built.
#
# usage: scripts/pahole-tests.sh DWARVES_SRC DWARVES_BUILD [BIN [TEST...]]
#   DWARVES_SRC    a dwarves (pahole) source tree: its tests/ are run
#   DWARVES_BUILD  where its pahole and pfunct were built (cmake), e.g.
#                  `make pahole pfunct` in DWARVES_SRC/build
#   BIN            our binary (default build/dwarf2btf)
#   TEST           tests/*.sh names to run (default all)
# env:
#   VMLINUX        the vmlinux the tests that need one read (default: the
#                  Debian 6.12 one, scripts/fetch-kernel.sh)
#   KEEP=1         keep the logs' folder (printed) instead of removing it
#   CLANG_FOR_TESTS  the clang the tests call (default: clang-19, whose
#                  DWARF has DW_CC_nocall; Debian 12's clang 14 has none)
# gawk, when installed, is the tests' awk (two tests' scripts need it).
# scripts/install-deps.sh pahole-tests installs clang-19, gawk and cmake.
#
# Exit status: 0 when every test that passes with pahole passes with ours.
set -u

here=$(cd "$(dirname "$0")" && pwd)
die() { echo "pahole-tests: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: $0 DWARVES_SRC DWARVES_BUILD [BIN [TEST...]]"
src=$(cd "$1" && pwd) || die "no $1"
build=$(cd "$2" && pwd) || die "no $2"
bin=$(realpath "${3:-$here/../build/dwarf2btf}") || die "no binary"
shift $(( $# >= 3 ? 3 : 2 ))
[ -d "$src/tests" ] || die "$src has no tests/"
for t in pahole pfunct; do
	[ -x "$build/$t" ] || die "no $build/$t (make $t in $build)"
done
[ -x "$bin" ] || die "no $bin"
vmlinux=${VMLINUX:-$("$here/fetch-kernel.sh" | tail -n 1)} ||
	die "no vmlinux (set VMLINUX)"

tmp=$(mktemp -d)
mkdir -p "$tmp/tools"
# The clang tests need a clang that marks changed signatures DW_CC_nocall
# (clang >= 15; Debian 12's clang is 14): CLANG_FOR_TESTS, else clang-19.
clang_for=${CLANG_FOR_TESTS:-$(command -v clang-19)}
[ -n "$clang_for" ] && ln -s "$clang_for" "$tmp/tools/clang"
# btf_type_tag_order.sh's awk script is gawk's
command -v gawk > /dev/null && ln -s "$(command -v gawk)" "$tmp/tools/awk"
if [ "${KEEP:-}" = 1 ]; then
	echo "logs in $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

# One folder per encoder with a `pahole` in it.  Ours is reached through
# a link named pahole, so that the process is called pahole (the
# reproducible_build test counts the threads of processes of that name).
mkdir -p "$tmp/pahole-enc" "$tmp/ours-enc/.enc"
ln -s "$bin" "$tmp/ours-enc/.enc/pahole"
for enc in pahole ours; do
	if [ "$enc" = ours ]; then
		encoder="$tmp/ours-enc/.enc/pahole"
	else
		encoder="$build/pahole"
	fi
	cat > "$tmp/$enc-enc/pahole" <<EOF
#!/bin/sh
# encoding runs go to $encoder, the rest to the real pahole
for a in "\$@"; do
	case "\$a" in
	-J|--btf_encode|--btf_encode_detached=*|--btf_encode_detached)
		exec "$encoder" "\$@" ;;
	esac
done
exec "$build/pahole" "\$@"
EOF
	chmod +x "$tmp/$enc-enc/pahole"
done

if [ $# -eq 0 ]; then
	set -- $(cd "$src/tests" && ls ./*.sh | sed 's|^\./||' |
		 grep -v '^test_lib\.sh$')
fi

status() {
	case $1 in
	0) echo pass ;;
	2) echo skip ;;
	*) echo "fail($1)" ;;
	esac
}

printf '%-34s %-10s %-10s\n' test pahole dwarf2btf
worse=0
for t in "$@"; do
	[ -f "$src/tests/$t" ] || die "no test $t"
	declare -A rc=()
	for enc in pahole ours; do
		(cd "$src/tests" &&
		 VERBOSE=1 PATH="$tmp/$enc-enc:$tmp/tools:$build:$PATH" \
			LD_LIBRARY_PATH="$build" \
			timeout 3600 bash "./$t" "$vmlinux") \
			> "$tmp/$t.$enc.log" 2>&1
		rc[$enc]=$?
	done
	printf '%-34s %-10s %-10s\n' "$t" "$(status "${rc[pahole]}")" \
		"$(status "${rc[ours]}")"
	# btf_functions.sh: how many skip lines its checks went through
	for enc in pahole ours; do
		n=$(sed -n 's/.*Skipped encoding \([0-9]*\) functions.*/\1/p' \
			"$tmp/$t.$enc.log" | head -n 1)
		[ -n "$n" ] && echo "    $enc: $n skip lines checked"
	done
	if [ "${rc[pahole]}" = 0 ] && [ "${rc[ours]}" != 0 ]; then
		worse=$((worse + 1))
		tail -n 5 "$tmp/$t.ours.log" | sed 's/^/    /'
	fi
done
echo "$worse tests pass with pahole and not with dwarf2btf"
[ "$worse" = 0 ]
