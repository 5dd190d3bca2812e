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

check_user_btf "$bin" "$lib" "_Z"
check_summary
