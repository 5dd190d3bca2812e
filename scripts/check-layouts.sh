#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# DWARF layouts of real builds, beyond make check's fixtures:
#   - libbpf (tools/lib/bpf of Debian's linux-source-6.12) built as a
#     shared library with gcc -flto and with clang -flto=thin: our BTF
#     against PAHOLE_REF's of the same file, and -j1 = -j2 byte for byte;
#   - dwz -m over three builds of libbpf.so (-O2, -O1, -Os with gcc): each
#     one's BTF after dwz equals its BTF before;
#   - with DWZ_VMLINUX=1, the Debian 6.12 vmlinux (scripts/fetch-kernel.sh)
#     after dwz in place: BTF equal to the one before (slow: dwz takes
#     minutes and gigabytes on it).
# The LTO kernel is scripts/kernel-build.sh's llvm-lto build; Debian's
# libc6-dbg is scripts/check-debugfile.sh.  A developer check, not part of
# make check (downloads the kernel source package).  Prints PASS/FAIL/SKIP
# lines and 'N passed, N failed, N skipped'.
#
# usage: check-layouts.sh BIN
# env:   PAHOLE_REF  pahole to compare with (default: pahole on PATH);
#                    upstream pahole 1.31 as ../shared/reference was made
#        DWZ_VMLINUX 1: also the vmlinux
#        DWARF2BTF_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/dwarf2btf)
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
ref=${PAHOLE_REF:-pahole}
cache=${DWARF2BTF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf}
pkg=linux-source-6.12
src=$cache/kbuild/src-$pkg
work=$cache/layouts
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"

kernel_source "$pkg" "$cache/kbuild" || exit 1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# libbpf.so built by $1 (a name) with make arguments $2...
libbpf() {
	local name=$1 out=$work/$1/

	shift
	mkdir -p "$out"
	make -s -C "$src/tools/lib/bpf" OUTPUT="$out" "$@" -j"$(nproc)" \
		"$out"libbpf.so > "$work/$name.log" 2>&1 &&
		readlink -f "$out"libbpf.so
}

# Our BTF of $1 equals $ref's, and -j1 = -j2.
against_ref() {
	local what=$1 so=$2 out=$work/$1

	"$ref" -J --btf_features=default --btf_encode_detached="$out.ref" \
		"$so" > /dev/null 2>&1
	"$bin" --btf_features=default -j1 -o "$out.j1" "$so" || {
		fail "$what: dwarf2btf failed"
		return
	}
	"$bin" --btf_features=default -j2 -o "$out.j2" "$so"
	cmp -s "$out.j1" "$out.j2" || fail "$what: -j1 and -j2 differ"
	if "$bin" diff "$out.ref" "$out.j1" > "$out.diff"; then
		pass "$what: equal to $ref's ($(tail -n 1 "$out.diff"))"
	else
		# pahole encodes, from gcc's LTO units, functions the file
		# calls but does not define (undefined ELF symbols), as
		# NAME(void): docs/functions.md.  Those are counted apart.
		local und=0 other=0 f
		while read -r f; do
			if readelf -sW "$so" | awk -v f="$f" \
				'$7 == "UND" && $8 == f' | grep -c . > /dev/null
			then
				und=$((und + 1))
			else
				other=$((other + 1))
			fi
		done < <(sed -n 's/^- func static [^(]*[ *]\([A-Za-z_0-9]*\)(void)$/\1/p' \
			"$out.diff")
		if [ "$(grep -c '^[-+]' "$out.diff")" = "$und" ]; then
			pass "$what: equal to $ref's but for $und functions it does not define that $ref encodes as (void)"
		else
			head -n 10 "$out.diff"
			fail "$what: differs from $ref's"
		fi
	fi
}

if command -v "$ref" > /dev/null &&
   "$ref" --help 2>&1 | grep -c btf_features > /dev/null; then
	if so=$(libbpf gcc-lto EXTRA_CFLAGS="-g -O2 -flto" LDFLAGS="-flto")
	then
		against_ref "libbpf.so gcc -flto" "$so"
	else
		fail "libbpf gcc -flto build: see $work/gcc-lto.log"
	fi
	llvm=-19
	command -v clang-19 > /dev/null || llvm=
	if so=$(libbpf clang-thinlto CC=clang$llvm LD=ld.lld$llvm \
		AR=llvm-ar$llvm EXTRA_CFLAGS="-g -O2 -flto=thin" \
		LDFLAGS="-flto=thin -fuse-ld=lld$llvm"); then
		against_ref "libbpf.so clang -flto=thin" "$so"
	else
		fail "libbpf clang -flto=thin build: see $work/clang-thinlto.log"
	fi
else
	skip "libbpf LTO: no $ref with --btf_features (PAHOLE_REF)"
fi

# dwz -m over several files: each file's BTF is what it was before.
if command -v dwz > /dev/null; then
	sos=()
	for o in O2 O1 Os; do
		so=$(libbpf "gcc-$o" EXTRA_CFLAGS="-g -$o") || {
			fail "libbpf -$o build: see $work/gcc-$o.log"
			continue
		}
		cp "$so" "$work/libbpf-$o.so"
		"$bin" -o "$work/libbpf-$o.before" "$work/libbpf-$o.so"
		sos+=("$work/libbpf-$o.so")
	done
	if dwz -m common.debug -M "$work/common.debug" "${sos[@]}" \
		> dwz.log 2>&1; then
		for so in "${sos[@]}"; do
			n=$(readelf --debug-dump=info "$so" 2>/dev/null |
			    grep -c 'DW_AT_import.*alt')
			if "$bin" -o "${so%.so}.after" "$so" &&
			   "$bin" diff "${so%.so}.before" "${so%.so}.after" \
				> "${so%.so}.diff"; then
				pass "dwz -m: $(basename "$so") ($n imports of common.debug) equal to before ($(tail -n 1 "${so%.so}.diff"))"
			else
				head -n 10 "${so%.so}.diff"
				fail "dwz -m: $(basename "$so") differs from before"
			fi
		done
	else
		cat dwz.log
		fail "dwz -m failed"
	fi
else
	skip "dwz not installed"
fi

# .debug_info size of $1 in MB
info_mb() {
	local hex

	hex=$(readelf -SW "$1" | awk '$2 == ".debug_info" { print $6 }')
	echo $((16#${hex:-0} / 1048576))
}

if [ "${DWZ_VMLINUX:-0}" = 1 ]; then
	vmlinux=$("$here/fetch-kernel.sh" | tail -n 1) || exit 1
	cp "$vmlinux" "$work/vmlinux"
	"$bin" -o "$work/vmlinux.before" "$work/vmlinux"
	before=$(info_mb "$work/vmlinux")
	# dwz's default limits leave a vmlinux as it is: none
	if /usr/bin/time -f '%e s, %M KB' dwz -L none -l none \
		"$work/vmlinux" > dwz-vmlinux.log 2>&1; then
		if "$bin" --stats -o "$work/vmlinux.after" "$work/vmlinux" \
			2> stats.log &&
		   "$bin" diff "$work/vmlinux.before" "$work/vmlinux.after" \
			> vmlinux.diff; then
			pass "dwz -L none -l none vmlinux (dwz: $(tail -n 1 dwz-vmlinux.log); .debug_info $before MB -> $(info_mb "$work/vmlinux") MB; ours: $(grep -E 'total wall|peak rss' stats.log | tr -s ' ' | cut -d' ' -f4- | tr '\n' ' ')): equal to before ($(tail -n 1 vmlinux.diff))"
		else
			head -n 10 vmlinux.diff stats.log
			fail "dwz vmlinux: differs from before"
		fi
	else
		tail -n 5 dwz-vmlinux.log
		fail "dwz on the vmlinux failed"
	fi
fi

check_summary
