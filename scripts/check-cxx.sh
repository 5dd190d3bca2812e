#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A real C++ library: the debug build of libstdc++.so.6.0.30 from Debian's
# libstdc++6-12-dbg (downloaded with apt-get download into the cache, not
# installed).  A developer check, not part of make check.  Prints PASS/FAIL
# lines, INFO lines for what is not done yet, and the counts.
#
#   encode   BIN -o OUT LIB exits 0
#   threads  -j1 and -j2 give the same bytes
#   libbpf   bpftool dumps the BTF, with FUNCs under mangled names
#   layout   every struct, class and union of the DWARF is in the BTF at
#            the DWARF's layout (BIN layout LIB OUT: 0 mismatches)
#   header   the header that bpftool btf dump format c prints compiles
#            with clang as C, without an error (C++ names are C
#            identifiers, members of a class no unit defines are bytes)
#   kernel   the BTF loads into the running kernel (BPF_BTF_LOAD, through
#            lib/btf-load.py): SKIP when this process may not load BTF;
#            on FAIL, the verifier log's last line
#
# usage: check-cxx.sh BIN
# env: DWARF2BTF_CACHE_PKGS=DIR  where packages go
#                                (default ~/.cache/dwarf2btf/stdcxx)
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"

dir=${DWARF2BTF_CACHE_PKGS:-$HOME/.cache/dwarf2btf/stdcxx}
mkdir -p "$dir" || exit 1
lib=$dir/x/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30
if [ ! -f "$lib" ]; then
	(cd "$dir" && apt-get download libstdc++6-12-dbg >&2 &&
	 dpkg -x libstdc++6-12-dbg_*.deb x) || exit 1
fi
[ -f "$lib" ] || { echo "no $lib in the package"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if "$bin" -j2 -o "$tmp/j2.btf" "$lib"; then
	pass "encode: $(stat -c %s "$tmp/j2.btf") bytes"
else
	fail "encode"
fi
if "$bin" -j1 -o "$tmp/j1.btf" "$lib" && cmp -s "$tmp/j1.btf" "$tmp/j2.btf"
then
	pass "threads: -j1 and -j2 byte-identical"
else
	fail "threads"
fi
if bpftool btf dump file "$tmp/j2.btf" > "$tmp/dump" 2> "$tmp/err"; then
	nt=$(grep -c '^\[' "$tmp/dump")
	nf=$(grep -c "^\[[0-9]*\] FUNC '_Z" "$tmp/dump")
	if [ "$nf" -gt 0 ]; then
		pass "libbpf: $nt types, $nf FUNCs under mangled names"
	else
		fail "libbpf: no FUNC under a mangled name"
	fi
else
	fail "libbpf: $(head -1 "$tmp/err")"
fi
if "$bin" layout "$lib" "$tmp/j2.btf" > "$tmp/layout" 2>&1; then
	pass "$(tail -n 1 "$tmp/layout")"
else
	fail "$(tail -n 1 "$tmp/layout")"
	sed -n '1,10s/^/     | /p' "$tmp/layout"
fi
if bpftool btf dump file "$tmp/j2.btf" format c > "$tmp/h.h" 2> /dev/null
then
	nerr=$(clang -fsyntax-only -ferror-limit=0 -x c "$tmp/h.h" 2>&1 |
	       grep -c 'error:')
	if [ "$nerr" = 0 ]; then
		pass "header: compiles with clang (0 errors)"
	else
		fail "header: $nerr clang errors, the first:" \
		     "$(clang -fsyntax-only -x c "$tmp/h.h" 2>&1 |
			grep -m1 'error:')"
	fi
else
	fail "header: bpftool btf dump format c"
fi
res=$(python3 "$here/lib/btf-load.py" "$tmp/j2.btf" 2>&1)
case $res in
loaded) pass "kernel: loads into the running kernel" ;;
skip:*) skip "kernel: ${res#skip: }" ;;
*) fail "kernel: $(printf '%s\n' "$res" | head -1);" \
	"the verifier log's last line: $(printf '%s\n' "$res" | tail -1)" ;;
esac
check_summary
