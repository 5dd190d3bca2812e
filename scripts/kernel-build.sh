#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a real kernel with dwarf2btf as its pahole, with gcc, with clang
# (LLVM=1) and with clang's ThinLTO (LLVM=1, CONFIG_LTO_CLANG_THIN: DWARF
# that refers across units), then check its BTF against what pahole makes
# of the same vmlinux and modules.
#
# usage: kernel-build.sh BIN
# env:   KBUILD_SRC_PKG     Debian source package (default linux-source-6.12;
#                           linux-source-7.2 for Linux 7.2)
#        KBUILD_SRC_DEB     that package's .deb, already downloaded (the
#                           package's name is then taken from the file's)
#        KBUILD_SID         Debian unstable's packages for a source package
#                           the system's apt does not have (default
#                           ../shared/tools/sid.sh beside the repository)
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
#                           functions whose signature the compiler changed.
#                           Linux 7.x: pahole 1.32 (Debian unstable's,
#                           `../shared/tools/sid.sh pahole`)
#        DWARF2BTF_CACHE    (default ${XDG_CACHE_HOME:-~/.cache}/dwarf2btf)
#
# e.g.   KBUILD_SRC_PKG=linux-source-7.2 KBUILD_TOOLCHAINS="gcc llvm" \
#        PAHOLE_REF=$(../shared/tools/sid.sh pahole) \
#        scripts/kernel-build.sh build/dwarf2btf
#
# The source comes from Debian's linux-source package (apt-get download,
# else Debian unstable's, cached); each toolchain builds out of tree (O=)
# from one unpacked copy.
# The configuration is tinyconfig plus what BTF needs (DEBUG_INFO_BTF,
# DEBUG_INFO_BTF_MODULES, BPF_SYSCALL) and a few small modules.  The build
# runs `make PAHOLE=<dwarf2btf run as "pahole">`, so the kernel's own
# scripts choose the pahole options (from our --version) and run
# resolve_btfids on the result (Linux 7.x: scripts/gen-btf.sh, pahole
# writes detached BTF that resolve_btfids changes, sorts and puts in
# place); each encoding call and kbuild's $PAHOLE_FLAGS are noted.  kbuild
# goes on after a failed pahole run in some versions (gen_btf runs in
# `if !`), so any "dwarf2btf:" line in the build log is a failure too.
# The comparison runs PAHOLE_REF and BIN with the flags kbuild gave, on
# the files kbuild encoded (.tmp_vmlinux1, the modules); with Linux 7.x
# also the BTF in the files against PAHOLE_REF's through the tree's own
# resolve_btfids.  Then an external module (make M=), which kbuild gives
# a distilled .BTF.base (6.x: pahole's distilled_base; 7.x: resolve_btfids
# --distill_base), relocated back onto vmlinux (dwarf2btf --relocate)
# against PAHOLE_REF's made by the same steps.
# Not part of make check: it takes minutes.  Prints PASS/FAIL/SKIP lines
# and 'N passed, N failed, N skipped'.
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
jobs=${KBUILD_JOBS:-$(nproc)}
toolchains=${KBUILD_TOOLCHAINS:-gcc llvm llvm-lto}
if [ -z "${KBUILD_LLVM:-}" ]; then
	KBUILD_LLVM=1
	command -v clang-19 > /dev/null && KBUILD_LLVM=-19
fi
cache=${DWARF2BTF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf}/kbuild
ref=${PAHOLE_REF:-pahole}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"
pkg=$(kernel_source_pkg linux-source-6.12)

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

# The kernel calls $(PAHOLE): BIN run as "pahole" answers --version as
# the pahole release we are compatible with.  Each encoding call is noted
# in $KBUILD_PAHOLE_CALLS: kbuild's $PAHOLE_FLAGS, the folder it ran in
# and the arguments, a tab between them.
mkdir -p tools && rm -f tools/pahole-noted && cat > tools/pahole-noted <<EOF
#!/usr/bin/env bash
case " \$* " in
*" -J "*) printf '%s\t%s\t%s\n' "\${PAHOLE_FLAGS:-}" "\$PWD" "\$*" \\
		>> "\${KBUILD_PAHOLE_CALLS:-/dev/null}" ;;
esac
exec -a pahole "$bin" "\$@"
EOF
chmod +x tools/pahole-noted
export PAHOLE="$cache/tools/pahole-noted"

# What pahole makes of the same files: a pahole with --btf_features is
# given kbuild's own flags; Debian 12's 1.24 predates it and picks
# functions by older rules, so with it functions are only shown.
# (grep -c, not -q, here and below: -q stops reading at the first match,
# and the writer's SIGPIPE would fail the pipeline under pipefail.)
have_ref=0
ref_feat=1
if command -v "$ref" > /dev/null; then
	have_ref=1
	if "$ref" --help 2>&1 | grep -c btf_features > /dev/null; then
		fkinds=types,funcs,vars,tags
	else
		ref_feat=0
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
	export KBUILD_PAHOLE_CALLS=$cache/build-$pkg-$tc.pahole
	: > "$KBUILD_PAHOLE_CALLS"
	# The CRC libraries are modules of their own up to 6.x; from 7.0 on
	# only what selects them can have them: binfmt_misc and configfs too.
	{
		"${mk[@]}" tinyconfig &&
		"$src"/scripts/config --file "$obj/.config" \
			--enable 64BIT --enable DEBUG_KERNEL \
			--enable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
			--enable BPF_SYSCALL --enable DEBUG_INFO_BTF \
			--enable DEBUG_INFO_BTF_MODULES --enable MODULES \
			--enable MODULE_UNLOAD --module CRC_CCITT \
			--module CRC_ITU_T --module CRC7 --module CRC8 \
			--module CRC4 --enable SYSFS --module BINFMT_MISC \
			--module CONFIGFS_FS "${lto[@]}" &&
		"${mk[@]}" olddefconfig &&
		{ [ "$tc" != llvm-lto ] ||
		  grep -c '^CONFIG_LTO_CLANG_THIN=y' "$obj/.config"; } &&
		grep -c '^CONFIG_DEBUG_INFO_BTF=y' "$obj/.config" &&
		grep -c '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$obj/.config" &&
		# a cached tree: link again, so that this BIN makes the BTF
		# (7.x: vmlinux is a copy of vmlinux.unstripped)
		rm -f "$obj/vmlinux" "$obj/vmlinux.unstripped" &&
		find "$obj" -name '*.ko' -type f -delete &&
		time "${mk[@]}" -j"$jobs" vmlinux modules
	} > "$log" 2>&1
}

# usage: same WHAT A B [BASE]: true when the BTF of A and B mean the same
# ($fkinds), else show the first lines of the difference.  With BASE,
# split BTF over it: the items A or B repeat from BASE are left out and
# added to $reps.  Prints the summary line for a vmlinux.
same() {
	local what=$1 a=$2 b=$3 base=${4:-} d r
	local opt=(--kinds="$fkinds")

	d=$out/$(basename "$b").diff
	if [ -n "$base" ]; then
		opt+=(--base "$base")
		"$bin" diff "${opt[@]}" "$a" "$b" > "$d.all" 2>&1
		r=$(grep -c '^[-+] ' "$d.all")
		reps=$((reps + r))
		opt+=(--no-base-dups)
	fi
	if "$bin" diff "${opt[@]}" "$a" "$b" > "$d" 2>&1; then
		[ -z "$base" ] && echo "  $what: $(tail -n 1 "$d")"
		return 0
	fi
	echo "  $what differ:"
	head -n 8 "$d" | sed 's/^/    /'
	return 1
}

# usage: kinds FILE: how many types raw BTF FILE has, and of some kinds.
kinds() {
	bpftool btf dump file "$1" 2>/dev/null | awk '/^\[/ { n++; k[$2]++ }
		END { printf "%d types, %d FUNC, %d VAR, %d DECL_TAG, %d TYPE_TAG\n",
		      n, k["FUNC"], k["VAR"], k["DECL_TAG"], k["TYPE_TAG"] }'
}

# The length of the layout section of raw BTF $1 (little-endian), 0
# without one.
layout_len() {
	local h

	h=$(od -An -tu4 -j4 -N4 "$1" | tr -d ' ')
	if [ "${h:-0}" -ge 32 ]; then
		od -An -tu4 -j28 -N4 "$1" | tr -d ' '
	else
		echo 0
	fi
}

# Compare the BTF of the build in $obj with what $ref makes of the same
# files with the same flags: each encoder's own output (BIN and $ref,
# detached), and, 7.x, what the build put in the files against $ref's
# put through the tree's own resolve_btfids.
compare() {
	local tc=$1 obj=$cache/build-$pkg-$1 out=$cache/check-$pkg-$1
	local calls=$cache/build-$pkg-$1.pahole n=0 bad=0 badk=0 reps=0
	local rbtf=$obj/tools/bpf/resolve_btfids/resolve_btfids
	local ko m in=$obj/.tmp_vmlinux1 flags rflags gen=0 r0

	rm -rf "$out" && mkdir -p "$out"
	[ -f "$src/scripts/gen-btf.sh" ] && gen=1
	[ -f "$in" ] || in=$obj/vmlinux
	read -r -a flags <<< "$(grep -m 1 'tmp_vmlinux1' "$calls" | cut -f 1)"
	[ "${#flags[@]}" = 0 ] && flags=(--btf_features=default)
	rflags=("${flags[@]}")
	[ "$ref_feat" = 0 ] && rflags=(--btf_gen_floats)
	echo "$tc: kbuild's flags: ${flags[*]}"

	"$ref" -J "${rflags[@]}" --btf_encode_detached="$out/vmlinux.pahole" \
		"$in" > "$out/vmlinux.pahole.log" 2>&1
	(exec -a pahole "$bin" -J "${flags[@]}" \
		--btf_encode_detached="$out/vmlinux.ours" "$in") \
		> "$out/vmlinux.ours.log" 2>&1
	if same "BIN and $ref on $(basename "$in")" "$out/vmlinux.ours" \
		"$out/vmlinux.pahole"; then
		pass "$tc vmlinux: $fkinds equal $ref's"
	else
		fail "$tc vmlinux: $fkinds differ from $ref's"
	fi
	echo "  BIN: $(kinds "$out/vmlinux.ours"); $ref: $(kinds "$out/vmlinux.pahole")"
	# Debian's pahole 1.32 writes no layout section: its libbpf cannot
	echo "  layout section: BIN's $(layout_len "$out/vmlinux.ours") bytes, $ref's $(layout_len "$out/vmlinux.pahole")"
	if [ "$gen" = 1 ]; then
		# resolve_btfids writes FILE.BTF (and FILE.BTF_ids) beside FILE
		cp "$in" "$out/vmlinux.ref"
		if ! "$rbtf" --btf "$out/vmlinux.pahole" "$out/vmlinux.ref" \
			> "$out/vmlinux.ref.log" 2>&1; then
			fail "$tc vmlinux: resolve_btfids on $ref's BTF: $(head -n 1 "$out/vmlinux.ref.log")"
		elif same "vmlinux's .BTF and $ref's after resolve_btfids" \
			"$obj/vmlinux" "$out/vmlinux.ref.BTF"; then
			pass "$tc vmlinux: its .BTF is $ref's after resolve_btfids"
		else
			fail "$tc vmlinux: its .BTF is not $ref's after resolve_btfids"
		fi
		rm -f "$out/vmlinux.ref"
	elif [ "$fkinds" = types ]; then
		"$bin" diff "$obj/vmlinux" "$out/vmlinux.pahole" --kinds=funcs \
			--summary
	fi
	# Upstream pahole repeats in each module typedefs the base already
	# has (u32, size_t, ...), and with clang the type tags on them
	# (__user u32); Debian's 1.24 and we do not.  Those are not counted.
	for ko in $(find "$obj" -name '*.ko' | sort); do
		n=$((n + 1))
		m=$(basename "$ko" .ko)
		"$ref" -J "${rflags[@]}" --btf_base "$obj/vmlinux" \
			--btf_encode_detached="$out/$m.pahole" "$ko" \
			> /dev/null 2>&1
		(exec -a pahole "$bin" -J "${flags[@]}" --btf_base "$obj/vmlinux" \
			--btf_encode_detached="$out/$m.ours" "$ko") > /dev/null 2>&1
		same "$m" "$out/$m.ours" "$out/$m.pahole" "$obj/vmlinux" ||
			bad=$((bad + 1))
		[ "$gen" = 1 ] || continue
		r0=$reps
		cp "$ko" "$out/$m.ref"
		if ! "$rbtf" --btf_base "$obj/vmlinux" --btf "$out/$m.pahole" \
			"$out/$m.ref" > "$out/$m.ref.log" 2>&1; then
			echo "  $m: resolve_btfids on $ref's BTF: $(head -n 1 "$out/$m.ref.log")"
			badk=$((badk + 1))
		elif ! same "$m's .BTF" "$ko" "$out/$m.ref.BTF" "$obj/vmlinux"
		then
			badk=$((badk + 1))
		fi
		reps=$r0
		rm -f "$out/$m.ref"
	done
	if [ "$n" -gt 0 ] && [ "$bad" = 0 ]; then
		pass "$tc modules: $n, $fkinds equal $ref's ($reps types and tags it repeats from the base not counted)"
	else
		fail "$tc modules: $bad of $n differ from $ref's"
	fi
	if [ "$gen" = 1 ] && [ "$n" -gt 0 ] && [ "$badk" = 0 ]; then
		pass "$tc modules: their .BTF is $ref's after resolve_btfids"
	elif [ "$gen" = 1 ]; then
		fail "$tc modules: the .BTF of $badk of $n is not $ref's after resolve_btfids"
	fi
}

# An external module (M=) gets a .BTF.base of its own, the base distilled
# (6.x: pahole's distilled_base; 7.x: resolve_btfids --distill_base).
# Build one in $cache/extmod-$pkg-$1; its BTF, relocated over vmlinux
# (dwarf2btf --relocate), against $ref's made by kbuild's same steps.
extmod() {
	local tc=$1 obj=$cache/build-$pkg-$1 ext=$cache/extmod-$pkg-$1
	local out=$cache/check-$pkg-$1 gen=0 ko args i dir
	local mk=(make -C "$src" O="$obj" PAHOLE="$PAHOLE" M="$ext")

	[ "$tc" != gcc ] && mk+=(LLVM="$KBUILD_LLVM")
	[ -f "$src/scripts/gen-btf.sh" ] && gen=1
	rm -rf "$ext" && mkdir -p "$ext" "$out" || return 1
	ko=$ext/d2b_ext.ko
	echo 'obj-m := d2b_ext.o' > "$ext/Kbuild"
	cat > "$ext/d2b_ext.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only
/* scripts/kernel-build.sh: an external module, with types of its own */
#include <linux/module.h>
#include <linux/fs.h>
#include <linux/list.h>

struct d2b_ext_item {
	struct list_head list;
	struct file *file;
	unsigned long seen;
};

static LIST_HEAD(d2b_ext_items);

static noinline int d2b_ext_count(struct d2b_ext_item *it,
				  const struct path *p)
{
	return it->file && &it->file->f_path == p ? ++it->seen : 0;
}

static int __init d2b_ext_init(void)
{
	struct d2b_ext_item *it;

	list_for_each_entry(it, &d2b_ext_items, list)
		d2b_ext_count(it, NULL);
	return 0;
}

static void __exit d2b_ext_exit(void)
{
}

module_init(d2b_ext_init);
module_exit(d2b_ext_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dwarf2btf: kernel-build.sh's external module");
EOF
	KBUILD_PAHOLE_CALLS=$ext/calls "${mk[@]}" modules > "$ext.log" 2>&1 || {
		tail -n 20 "$ext.log"
		fail "$tc external module: make M=, see $ext.log"
		return 1
	}
	if grep -v '^dwarf2btf: warning:' "$ext.log" |
	   grep -c '^dwarf2btf:' > /dev/null; then
		grep '^dwarf2btf:' "$ext.log" | head -n 5
		fail "$tc external module: dwarf2btf failed inside kbuild, see $ext.log"
		return 1
	fi
	if [ "$(readelf -S -W "$ko" | grep -c -e ' \.BTF ' -e ' \.BTF\.base ')" != 2 ]
	then
		fail "$tc external module: no .BTF and .BTF.base in $ko"
		return 1
	fi
	pass "$tc external module: .BTF and .BTF.base (a distilled base) in d2b_ext.ko"
	if [ "$have_ref" != 1 ] || [ "$ref_feat" != 1 ]; then
		skip "$tc external module: no $ref with --btf_features to compare with"
		return 0
	fi
	# $ref where kbuild ran BIN, on a copy without our sections
	dir=$(cut -f 2 "$ext/calls")
	read -r -a args <<< "$(cut -f 3 "$ext/calls")"
	objcopy --remove-section .BTF --remove-section .BTF.base "$ko" \
		"$out/d2b_ext.ref" || return 1
	args[${#args[@]}-1]=$out/d2b_ext.ref
	for i in "${!args[@]}"; do
		case ${args[i]} in
		--btf_encode_detached=*)
			args[i]=--btf_encode_detached=$out/d2b_ext.ref.BTF.1 ;;
		esac
	done
	if ! (cd "$dir" && LLVM_OBJCOPY=objcopy "$ref" "${args[@]}") \
		> "$out/d2b_ext.ref.log" 2>&1 ||
	   { [ "$gen" = 1 ] &&
	     ! { "$obj/tools/bpf/resolve_btfids/resolve_btfids" --btf_base \
			"$obj/vmlinux" --distill_base \
			--btf "$out/d2b_ext.ref.BTF.1" "$out/d2b_ext.ref" \
			>> "$out/d2b_ext.ref.log" 2>&1 &&
		 objcopy --add-section .BTF="$out/d2b_ext.ref.BTF" \
			--add-section .BTF.base="$out/d2b_ext.ref.BTF.base" \
			"$out/d2b_ext.ref"; }; } ||
	   ! "$bin" --relocate --base "$obj/vmlinux" -o "$out/d2b_ext.reloc" \
		"$ko" ||
	   ! "$bin" --relocate --base "$obj/vmlinux" \
		-o "$out/d2b_ext.ref.reloc" "$out/d2b_ext.ref"; then
		fail "$tc external module: $ref's BTF could not be made or relocated: $(tail -n 1 "$out/d2b_ext.ref.log")"
		return 1
	fi
	if "$bin" diff --kinds="$fkinds" --base "$obj/vmlinux" --no-base-dups \
		"$out/d2b_ext.reloc" "$out/d2b_ext.ref.reloc" \
		> "$out/d2b_ext.diff" 2>&1; then
		pass "$tc external module: its BTF over .BTF.base, relocated to vmlinux, is $ref's"
	else
		head -n 8 "$out/d2b_ext.diff"
		fail "$tc external module: its BTF differs from $ref's"
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
	extmod "$tc"
done
check_summary
