#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a real kernel with dwarf2btf as its pahole, with gcc, with clang
# (LLVM=1) and with clang's ThinLTO (LLVM=1, CONFIG_LTO_CLANG_THIN: DWARF
# that refers across units), then check its BTF against what pahole makes
# of the same vmlinux and modules.
#
# usage: kernel-build.sh BIN
# env:   KBUILD_SRC_PKG     Debian source package (default linux-source-6.12)
#        KBUILD_TOOLCHAINS  which builds, in order (default
#                           "gcc llvm llvm-lto")
#        KBUILD_LLVM        the LLVM= value (default -19 when clang-19 is
#                           installed, else 1)
#        KBUILD_JOBS        make -j (default nproc)
#        PAHOLE_REF         pahole to compare with (default: pahole on PATH).
#                           For the full comparison: upstream pahole as
#                           ../shared/reference was made with, master of
#                           July 2026 (1436dafff5c2, "v1.31"); the v1.31
#                           tag itself predates fb8328e74f03 and keeps
#                           functions whose signature the compiler changed
#        DWARF2BTF_CACHE    (default ${XDG_CACHE_HOME:-~/.cache}/dwarf2btf)
#
# The source comes from Debian's linux-source package (apt-get download,
# cached); each toolchain builds out of tree (O=) from one unpacked copy.
# The configuration is tinyconfig plus what BTF needs (DEBUG_INFO_BTF,
# DEBUG_INFO_BTF_MODULES, BPF_SYSCALL) and a few small modules.  The build
# runs `make PAHOLE=<a "pahole" link to BIN>`, so the kernel's own scripts
# choose the pahole options (from our --version) and run resolve_btfids on
# the result.  kbuild goes on after a failed pahole run (gen_btf runs in
# `if !`), so any "dwarf2btf:" line in the build log is a failure too.
# Not part of make check: it takes minutes.  Prints PASS/FAIL/SKIP lines
# and 'N passed, N failed, N skipped'.
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
pkg=${KBUILD_SRC_PKG:-linux-source-6.12}
jobs=${KBUILD_JOBS:-$(nproc)}
toolchains=${KBUILD_TOOLCHAINS:-gcc llvm llvm-lto}
if [ -z "${KBUILD_LLVM:-}" ]; then
	KBUILD_LLVM=1
	command -v clang-19 > /dev/null && KBUILD_LLVM=-19
fi
cache=${DWARF2BTF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf}/kbuild
ref=${PAHOLE_REF:-pahole}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/check-lib.sh
. "$here/check-lib.sh"

need="bc bison flex libssl-dev cpio kmod libelf-dev"
case " $toolchains " in
*" llvm "*|*" llvm-lto "*)
	[ "$KBUILD_LLVM" = 1 ] && need="$need clang lld llvm" ||
		need="$need clang$KBUILD_LLVM lld$KBUILD_LLVM llvm$KBUILD_LLVM"
esac
# shellcheck disable=SC2086
need_packages $need || exit 1

src=$cache/src-$pkg
kernel_source "$pkg" "$cache" || exit 1
cd "$cache" || exit 1

# The kernel calls $(PAHOLE); a link named "pahole" answers --version as
# the pahole release we are compatible with.
mkdir -p tools && ln -sf "$bin" tools/pahole
export PAHOLE="$cache/tools/pahole"

# What pahole makes of the final files: a pahole with --btf_features is
# given the kernel's own feature list; Debian 12's 1.24 predates it and
# picks functions by older rules, so with it functions are only shown.
# (grep -c, not -q, here and below: -q stops reading at the first match,
# and the writer's SIGPIPE would fail the pipeline under pipefail.)
have_ref=0
if command -v "$ref" > /dev/null; then
	have_ref=1
	if "$ref" --help 2>&1 | grep -c btf_features > /dev/null; then
		feat=--btf_features=default
		fkinds=types,funcs,vars,tags
	else
		feat=--btf_gen_floats
		fkinds=types
		echo "$ref $("$ref" --version) predates --btf_features: functions not compared"
	fi
fi

# Build with toolchain $1 (gcc or llvm) into $cache/build-$pkg-$1.
build() {
	local tc=$1 obj=$cache/build-$pkg-$1 log=$cache/build-$pkg-$1.log
	local mk=(make -C "$src" O="$obj" PAHOLE="$PAHOLE")
	local lto=(--enable LTO_NONE --disable LTO_CLANG_THIN)

	[ "$tc" != gcc ] && mk+=(LLVM="$KBUILD_LLVM")
	[ "$tc" = llvm-lto ] && lto=(--disable LTO_NONE --enable LTO_CLANG_THIN)
	mkdir -p "$obj"
	{
		"${mk[@]}" tinyconfig &&
		"$src"/scripts/config --file "$obj/.config" \
			--enable 64BIT --enable DEBUG_KERNEL \
			--enable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
			--enable BPF_SYSCALL --enable DEBUG_INFO_BTF \
			--enable DEBUG_INFO_BTF_MODULES --enable MODULES \
			--enable MODULE_UNLOAD --module CRC_CCITT \
			--module CRC_ITU_T --module CRC7 --module CRC8 \
			--module CRC4 "${lto[@]}" &&
		"${mk[@]}" olddefconfig &&
		{ [ "$tc" != llvm-lto ] ||
		  grep -c '^CONFIG_LTO_CLANG_THIN=y' "$obj/.config"; } &&
		grep -c '^CONFIG_DEBUG_INFO_BTF=y' "$obj/.config" &&
		grep -c '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$obj/.config" &&
		# a cached tree: link again, so that this BIN makes the BTF
		rm -f "$obj/vmlinux" "$obj"/lib/*.ko &&
		time "${mk[@]}" -j"$jobs" vmlinux modules
	} > "$log" 2>&1
}

# Compare the BTF the build embedded in $obj with what $ref makes of it.
compare() {
	local tc=$1 obj=$cache/build-$pkg-$1 out=$cache/check-$pkg-$1
	local n=0 bad=0 reps=0 ko m r

	rm -rf "$out" && mkdir -p "$out"
	"$ref" -J $feat --btf_encode_detached="$out/vmlinux.pahole" \
		"$obj/vmlinux" > /dev/null 2>&1
	if "$bin" diff "$obj/vmlinux" "$out/vmlinux.pahole" --kinds=$fkinds \
		--summary; then
		pass "$tc vmlinux: $fkinds equal $ref's"
	else
		fail "$tc vmlinux: $fkinds differ from $ref's"
	fi
	[ "$fkinds" = types ] &&
		"$bin" diff "$obj/vmlinux" "$out/vmlinux.pahole" --kinds=funcs \
			--summary
	# Upstream pahole 1.31 repeats in each module typedefs the base
	# already has (u32, size_t, ...); Debian's 1.24 and we do not.  Those
	# are not counted.
	for ko in $(find "$obj" -name '*.ko'); do
		n=$((n + 1))
		m=$(basename "$ko" .ko)
		"$ref" -J $feat --btf_base "$obj/vmlinux" \
			--btf_encode_detached="$out/$m.pahole" "$ko" \
			> /dev/null 2>&1
		"$bin" diff --base "$obj/vmlinux" --kinds=$fkinds "$ko" \
			"$out/$m.pahole" > "$out/$m.diff"
		r=$(grep -c '^+ typedef' "$out/$m.diff")
		reps=$((reps + r))
		if grep -v -e '^+ typedef' -e '^types:' "$out/$m.diff" |
		   grep -c . > /dev/null; then
			bad=$((bad + 1))
			head -n 5 "$out/$m.diff"
		fi
	done
	if [ "$n" -gt 0 ] && [ "$bad" = 0 ]; then
		pass "$tc modules: $n, $fkinds equal $ref's ($reps typedefs it repeats from the base not counted)"
	else
		fail "$tc modules: $bad of $n differ from $ref's"
	fi
}

for tc in $toolchains; do
	obj=$cache/build-$pkg-$tc
	log=$cache/build-$pkg-$tc.log
	case $tc in gcc|llvm|llvm-lto) ;;
	*) fail "unknown toolchain $tc"; continue ;;
	esac
	if ! build "$tc"; then
		tail -n 30 "$log"
		fail "$tc build: see $log"
		continue
	fi
	if grep -v '^dwarf2btf: warning:' "$log" | grep -c '^dwarf2btf:' > /dev/null; then
		grep '^dwarf2btf:' "$log" | head -n 5
		fail "$tc build: dwarf2btf failed inside kbuild, see $log"
		continue
	fi
	pass "$tc build: make PAHOLE=dwarf2btf vmlinux modules ($(grep -c ' BTF ' "$log") BTF steps)"
	grep -E '^(real|user|sys)' "$log" | tr '\n' ' '; echo
	# The BTF is really there, and type tags with clang (__user & co).
	nko=$(find "$obj" -name '*.ko' | wc -l)
	nbtf=0
	for ko in "$obj/vmlinux" $(find "$obj" -name '*.ko'); do
		readelf -S -W "$ko" 2>/dev/null | grep -c ' \.BTF ' > /dev/null &&
			nbtf=$((nbtf + 1))
	done
	if [ "$nbtf" = $((nko + 1)) ]; then
		pass "$tc .BTF: in vmlinux and $nko modules"
	else
		fail "$tc .BTF: in $nbtf of vmlinux and $nko modules"
	fi
	if [ "$tc" != gcc ]; then
		ntag=$(bpftool btf dump file "$obj/vmlinux" 2>/dev/null |
		       grep -c "TYPE_TAG 'user'")
		if grep -c '^CONFIG_PAHOLE_HAS_BTF_TAG=y' "$obj/.config" \
			> /dev/null && [ "$ntag" -gt 0 ]; then
			pass "$tc type tags: $ntag TYPE_TAG 'user' in vmlinux"
		else
			fail "$tc type tags: ${ntag:-0} TYPE_TAG 'user' in vmlinux"
		fi
	fi
	if [ "$have_ref" = 1 ]; then
		compare "$tc"
	else
		skip "$tc: no $ref to compare with (PAHOLE_REF)"
	fi
done
check_summary
