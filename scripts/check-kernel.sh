#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make check-kernel`: encode a real Debian kernel with dwarf2btf and check
# the result against what is known to be right.
#
# usage: check-kernel.sh BIN
#
#   encode   BIN -j2 -o OUT/vmlinux.btf VMLINUX succeeds
#   types    named types equal the .BTF Debian's build put in the vmlinux
#            (BIN diff --kinds=types finds nothing); for another kernel
#            without one, the reference's
#            (with --flat-arrays when that .BTF holds no array of arrays:
#            pahole up to 1.31 wrote int[2][3] as int[6], 1.32 as we do)
#   funcs    FUNC names vs upstream pahole's reference: only-ours plus
#            only-reference at most 0.5% of the reference's functions
#   vars     the same for VAR names
#   tags     the same for decl and type tags (dwarf2btf diff --kinds=tags)
#   verbose  with PAHOLE_REF: our --verbose lines ("foo : skipping BTF
#            encoding of function due to ...") vs the reference's, the
#            same 0.5%
#   threads  -j1, -j2 and -j5 outputs are byte-identical
#   vmlinux.h  bpftool dumps a vmlinux.h that a CO-RE BPF program compiles
#            against (clang -target bpf), and bpftool gen min_core_btf
#            resolves that program's relocations in our BTF
#   plain    the reference path (--plain-dedup) gives the same BTF by meaning
#   global_var  with global_var added to the flags every VAR is in
#            exactly one DATASEC, functions unchanged
#   true_signature  with true_signature added every FUNC
#            named like a clone (foo.isra.0) is an ELF function symbol, every
#            default FUNC is there under its name or its clone's, and
#            nothing but functions changes
#   hub      a copy in which one CU names its struct list_head otherwise
#            (scripts/lib/dwarf-edit.py --rename): the batches cannot decide
#            the declarations of the structs that reach it, the run made
#            again gives way to one dedup of everything, and the output is
#            the bytes --plain-dedup gives for the copy
#   layout   every struct, class and union of the DWARF is in the BTF at
#            the DWARF's layout (BIN layout VMLINUX OUT exits 0; with the
#            flags' --lang or --lang_exclude)
#   load     the kernel's BTF verifier accepts it (BPF_BTF_LOAD; skipped
#            without the privilege, and for a kernel of the other byte order
#            or pointer size than the running one)
#
# env:
#   DWARF2BTF_CHECK_OUT=FILE  check FILE instead of running BIN to encode
#                             (e.g. pahole's output); threads is skipped
#   DWARF2BTF_CHECK_DIR=DIR   work folder (default <repo>/build/check-kernel)
#   DWARF2BTF_REFERENCE=PATH  reference vmlinux.btf, or a folder holding it
#                             (default <repo>/../shared/reference/
#                             linux-6.12.117-cloud-amd64/vmlinux.btf)
#   DWARF2BTF_KERNEL_PKG=PKG  Debian package to fetch (see fetch-kernel.sh),
#                             e.g. linux-image-6.12.117+deb12-cloud-arm64-dbg:arm64;
#                             the default reference is then not used
#   PAHOLE_REF=PAHOLE         without a reference, make one with this (an
#                             upstream pahole: -J -j2 DWARF2BTF_CHECK_FLAGS)
#   DWARF2BTF_CHECK_FLAGS=... the encoding flags of BIN and PAHOLE_REF
#                             (default --btf_features=default); a kernel
#                             build's, e.g. 7.x's: --btf_features=encode_force,
#                             var,float,enum64,decl_tag,type_tag,optimized_func,
#                             consistent_func,decl_tag_kfuncs
#                             --btf_features=attributes --btf_features=layout
#                             --lang_exclude=rust
#   DWARF2BTF_TYPES_VS=reference  compare the types with the reference
#                             instead of Debian's .BTF (flags other than
#                             the build's: 7.x without --lang_exclude=rust
#                             encodes the Rust units Debian's left out)
#   DWARF2BTF_TIMEOUT=SEC     limit for one BIN run (default 900)
#
# Ends with 'N passed, N failed[, N skipped]'; exits 1 if any check failed.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
ref_name=linux-6.12.117-cloud-amd64

if [ $# -ne 1 ]; then
	echo "usage: $0 BIN" >&2
	exit 2
fi
bin=$1
case $bin in
/*) ;;
*) bin=$PWD/$bin ;;
esac

work=${DWARF2BTF_CHECK_DIR:-$repo/build/check-kernel}
tmo=${DWARF2BTF_TIMEOUT:-900}
max_pct=0.5
# shellcheck disable=SC2206
flags=(${DWARF2BTF_CHECK_FLAGS:---btf_features=default})
# BIN's own besides: Rust enums as pahole encodes them (Linux 7.x's Rust
# units, without --lang_exclude=rust, are compared with pahole's BTF).
ours=(--rust-enums=pahole)
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"
info() { echo "     $*"; }

# The first lines of a log, indented under the FAIL line.
show() {
	sed -n "1,${2:-20}s/^/     | /p" "$1"
	local n
	n=$(wc -l < "$1")
	[ "$n" -le "${2:-20}" ] || info "... ($n lines in $1)"
}

finish() {
	local s=
	[ "$nskip" = 0 ] || s=", $nskip skipped"
	echo "$npass passed, $nfail failed$s"
	[ "$nfail" = 0 ]
	exit
}

bin_ok() { [ -x "$bin" ] && [ -f "$bin" ]; }

# Run BIN under a time limit, reporting wall time and peak RSS.
# usage: encode NAME LOG ARGS...
encode() {
	local name=$1 log=$2 tf=$work/$1.time
	shift 2
	# time(1) outside timeout(1): timeout must signal BIN itself, and
	# the rusage of timeout includes BIN's.
	/usr/bin/time -f '%e %U %S %M' -o "$tf" \
		timeout "$tmo" "$bin" "${ours[@]}" "$@" > "$log" 2>&1
	local rc=$?
	if [ -s "$tf" ]; then
		# On failure time(1) writes "Command exited..." first.
		tail -n 1 "$tf" | awk -v n="$name" '{
			printf "     %s: %.2f s wall, %.2f s CPU, %.0f MB peak RSS\n",
			       n, $1, $2 + $3, $4 / 1024 }'
	fi
	return $rc
}

mkdir -p "$work" || exit 2
rm -f "$work/verbose.ref"

for tool in bpftool clang python3 objcopy readelf timeout /usr/bin/time; do
	command -v "$tool" > /dev/null ||
		{ echo "check-kernel: $tool not found (scripts/install-deps.sh)" >&2
		  exit 2; }
done

# Inputs ---------------------------------------------------------------

vmlinux=$("$here/fetch-kernel.sh" ${DWARF2BTF_KERNEL_PKG:+"$DWARF2BTF_KERNEL_PKG"} | tail -n 1)
if [ -z "$vmlinux" ] || [ ! -f "$vmlinux" ]; then
	fail "fetch: no vmlinux from scripts/fetch-kernel.sh"
	finish
fi
info "vmlinux: $vmlinux"

# The bundled reference is of the default kernel only.
ref=${DWARF2BTF_REFERENCE:-}
[ -n "$ref" ] || [ -n "${DWARF2BTF_KERNEL_PKG:-}" ] ||
	ref=$(dirname "$repo")/shared/reference/$ref_name/vmlinux.btf
if [ -d "$ref" ]; then
	for f in "$ref/vmlinux.btf" "$ref/$ref_name/vmlinux.btf" \
		 "$ref/reference/$ref_name/vmlinux.btf"; do
		[ -f "$f" ] && { ref=$f; break; }
	done
fi
[ -z "$ref" ] || [ -f "$ref" ] || { info "no reference BTF at $ref"; ref=; }
if [ -z "$ref" ] && [ -n "${PAHOLE_REF:-}" ]; then
	ref=$work/pahole-ref.btf
	info "making the reference with $PAHOLE_REF"
	# --verbose also prints every type: keep only the skip lines.
	if ! timeout "$tmo" "$PAHOLE_REF" -J -j2 "${flags[@]}" --verbose \
			--btf_encode_detached="$ref" "$vmlinux" \
			2> "$work/pahole-ref.log" |
		{ grep -a 'skipping BTF encoding of function' || true; } |
		LC_ALL=C sort > "$work/verbose.ref" || [ ! -s "$ref" ]; then
		info "PAHOLE_REF failed"
		show "$work/pahole-ref.log"
		ref=
		rm -f "$work/verbose.ref"
	fi
fi
# pahole 1.31's header is longer than libbpf 1.1 (bpftool's) reads in the
# other byte order (btf_header.py says why): a copy without the extra bytes.
if [ -n "$ref" ] && python3 "$here/lib/btf_header.py" "$ref" "$work/ref.btf"; then
	ref=$work/ref.btf
fi
[ -z "$ref" ] || info "reference: $ref"

# Debian's .BTF as a raw file, so that diff reads both sides the same way.
# The host's objcopy may not know another machine's ELF (arm64 on x86-64);
# diff then reads the .BTF section of the vmlinux itself.
deb_btf=$work/debian.btf
if ! objcopy -O binary --only-section=.BTF "$vmlinux" "$deb_btf" \
		2> /dev/null || [ ! -s "$deb_btf" ]; then
	# grep -c reads to the end: -q would stop early, and readelf's
	# SIGPIPE fail the pipeline (pipefail).
	if readelf -SW "$vmlinux" 2> /dev/null | grep -c ' \.BTF ' > /dev/null
	then
		deb_btf=$vmlinux
	else
		info "no .BTF section in $vmlinux"
		deb_btf=
	fi
fi

# The BPF program below reads registers as the kernel's machine has them.
case $(readelf -h "$vmlinux" 2> /dev/null | sed -n 's/^ *Machine: *//p') in
AArch64) target_arch=arm64 ;;
ARM) target_arch=arm ;;
"IBM S/390") target_arch=s390 ;;
RISC-V) target_arch=riscv ;;
PowerPC*) target_arch=powerpc ;;
LoongArch) target_arch=loongarch ;;
*) target_arch=x86 ;;
esac

# encode ---------------------------------------------------------------

out=$work/vmlinux.btf
if [ -n "${DWARF2BTF_CHECK_OUT:-}" ]; then
	out=$DWARF2BTF_CHECK_OUT
	if [ -s "$out" ]; then
		skip "encode: checking $out (DWARF2BTF_CHECK_OUT)"
	else
		fail "encode: DWARF2BTF_CHECK_OUT=$out is missing or empty"
		finish
	fi
else
	rm -f "$out"
	if ! bin_ok; then
		fail "encode: $bin is not an executable"
		finish
	fi
	encode j2 "$work/encode.log" -j2 "${flags[@]}" -o "$out" "$vmlinux"
	rc=$?
	if [ $rc = 0 ] && [ -s "$out" ]; then
		pass "encode: $(stat -c %s "$out") bytes"
	else
		fail "encode: rc=$rc$([ $rc = 124 ] && echo ' (timeout)')"
		show "$work/encode.log"
		finish
	fi
fi

# types ----------------------------------------------------------------

# Not every Debian kernel has BTF (6.1's s390x has none): then the
# reference's types, if there is one.
types_vs=$deb_btf
types_what="Debian's .BTF"
if [ -z "$deb_btf" ] && [ -n "${DWARF2BTF_KERNEL_PKG:-}" ]; then
	types_vs=$ref
	types_what="the reference (no Debian .BTF)"
fi
if [ "${DWARF2BTF_TYPES_VS:-}" = reference ]; then
	types_vs=$ref
	types_what="the reference (DWARF2BTF_TYPES_VS)"
fi
if [ -z "$types_vs" ] && [ -n "${DWARF2BTF_KERNEL_PKG:-}" ]; then
	skip "types: no Debian .BTF and no reference to compare with"
elif [ -z "$types_vs" ]; then
	fail "types: no Debian .BTF to compare with"
elif ! bin_ok; then
	fail "types: $bin is not an executable (needed for diff)"
else
	# pahole up to 1.31 wrote int[2][3] as int[6]: a .BTF without any
	# array of arrays is compared so (bpftool: "[5] ARRAY '(anon)'
	# type_id=4 index_type_id=2 nr_elems=3").
	flat=
	if [ -f "$types_vs" ] && bpftool btf dump file "$types_vs" 2> /dev/null |
		awk '$2 == "ARRAY" { a[substr($1, 2, length($1) - 2)] = 1
				     sub(/type_id=/, "", $4); e[$4] = 1 }
		     END { for (i in e) if (i in a) exit 1 }'; then
		flat=--flat-arrays
		types_what="$types_what (--flat-arrays: it holds no array of arrays)"
	fi
	"$bin" diff --kinds=types $flat "$out" "$types_vs" > "$work/types.log" 2>&1
	rc=$?
	case $rc in
	0) pass "types: named types equal $types_what" ;;
	1) fail "types: named types differ from $types_what"
	   show "$work/types.log" ;;
	*) fail "types: diff failed (rc=$rc)"
	   show "$work/types.log" ;;
	esac
fi

# funcs, vars ----------------------------------------------------------

# What bpftool (libbpf 1.1) can read of BTF file $1: a copy with the
# 24-byte header when it has a longer one (pahole 1.31's, or ours with the
# layout feature: libbpf 1.1 reads those only in the host's byte order).
bt() {
	if python3 "$here/lib/btf_header.py" --no-layout "$1" "$1.bt" 2> /dev/null
	then
		echo "$1.bt"
	else
		echo "$1"
	fi
}

# Sorted unique names of one BTF kind, from bpftool's plain dump
# ("[12] FUNC 'name' type_id=11 linkage=static").
names() {
	bpftool btf dump file "$(bt "$1")" |
		awk -v k="$2" '/^\[/ && $2 == k {
			n = $3; gsub(/\047/, "", n); print n }' |
		LC_ALL=C sort -u
}

# usage: compare_names CHECK KIND
compare_names() {
	local check=$1 kind=$2 a=$work/$1.ours b=$work/$1.ref
	if ! names "$out" "$kind" > "$a" || ! names "$ref" "$kind" > "$b"; then
		fail "$check: bpftool btf dump failed"
		return
	fi
	LC_ALL=C comm -23 "$a" "$b" > "$work/$check.only-ours"
	LC_ALL=C comm -13 "$a" "$b" > "$work/$check.only-ref"
	local na nb oa ob
	na=$(wc -l < "$a")
	nb=$(wc -l < "$b")
	oa=$(wc -l < "$work/$check.only-ours")
	ob=$(wc -l < "$work/$check.only-ref")
	local msg verdict
	msg=$(awk -v na="$na" -v nb="$nb" -v oa="$oa" -v ob="$ob" \
		  -v k="$kind" -v m="$max_pct" 'BEGIN {
		p = nb ? 100 * (oa + ob) / nb : (oa + ob ? 100 : 0)
		printf "%s %d ours, %d reference; only ours %d, only " \
		       "reference %d = %.2f%% (max %s%%)\n",
		       k, na, nb, oa, ob, p, m
		exit !(p <= m) }')
	verdict=$?
	if [ $verdict = 0 ]; then
		pass "$check: $msg"
	else
		fail "$check: $msg"
		[ "$oa" = 0 ] || { info "only ours:"; show "$work/$check.only-ours" 10; }
		[ "$ob" = 0 ] || { info "only reference:"; show "$work/$check.only-ref" 10; }
	fi
	# Our own diff also compares prototypes; show its summary as a hint.
	if bin_ok; then
		"$bin" diff --kinds="$check" --summary "$out" "$ref" \
			> "$work/$check.diff" 2>&1
		info "dwarf2btf diff --kinds=$check --summary: rc=$?"
		show "$work/$check.diff" 8
	fi
}

# usage: compare_lines CHECK OURS REF WHAT: sorted lines, as compare_names
compare_lines() {
	local check=$1 a=$2 b=$3 what=$4 oa ob msg
	oa=$(LC_ALL=C comm -23 "$a" "$b" | tee "$work/$check.only-ours" | wc -l)
	ob=$(LC_ALL=C comm -13 "$a" "$b" | tee "$work/$check.only-ref" | wc -l)
	if msg=$(awk -v na="$(wc -l < "$a")" -v nb="$(wc -l < "$b")" \
		     -v oa="$oa" -v ob="$ob" -v k="$what" -v m="$max_pct" 'BEGIN {
		p = nb ? 100 * (oa + ob) / nb : (oa + ob ? 100 : 0)
		printf "%s %d ours, %d reference; only ours %d, only " \
		       "reference %d = %.2f%% (max %s%%)\n",
		       k, na, nb, oa, ob, p, m
		exit !(p <= m) }'); then
		pass "$check: $msg"
	else
		fail "$check: $msg"
		[ "$oa" = 0 ] || { info "only ours:"; show "$work/$check.only-ours" 10; }
		[ "$ob" = 0 ] || { info "only reference:"; show "$work/$check.only-ref" 10; }
	fi
}

# Decl and type tags: ours and the reference's, from dwarf2btf diff.
compare_tags() {
	local line n
	if ! bin_ok; then
		fail "tags: $bin is not an executable (needed for diff)"
		return
	fi
	"$bin" diff --kinds=tags "$out" "$ref" > "$work/tags.diff" 2>&1
	line=$(tail -n 1 "$work/tags.diff")
	grep -a '^- ' "$work/tags.diff" | LC_ALL=C sort > "$work/tags.only-ours"
	grep -a '^+ ' "$work/tags.diff" | LC_ALL=C sort > "$work/tags.only-ref"
	n=$(bpftool btf dump file "$(bt "$ref")" | grep -c -E "^\[[0-9]+\] (DECL|TYPE)_TAG")
	awk -v n="$n" -v oa="$(wc -l < "$work/tags.only-ours")" \
	    -v ob="$(wc -l < "$work/tags.only-ref")" -v m="$max_pct" 'BEGIN {
		p = n ? 100 * (oa + ob) / n : (oa + ob ? 100 : 0)
		printf "%d in the reference; only ours %d, only reference " \
		       "%d = %.2f%% (max %s%%)\n", n, oa, ob, p, m
		exit !(p <= m) }' > "$work/tags.msg"
	if [ $? = 0 ]; then
		pass "tags: $(cat "$work/tags.msg")"
	else
		fail "tags: $(cat "$work/tags.msg")"
		info "$line"
		show "$work/tags.diff" 10
	fi
}

if [ -z "$ref" ]; then
	skip "funcs: no reference BTF (DWARF2BTF_REFERENCE, PAHOLE_REF)"
	skip "vars: no reference BTF (DWARF2BTF_REFERENCE, PAHOLE_REF)"
	skip "tags: no reference BTF (DWARF2BTF_REFERENCE, PAHOLE_REF)"
else
	compare_names funcs FUNC
	compare_names vars VAR
	compare_tags
fi
if [ ! -s "$work/verbose.ref" ]; then
	skip "verbose: no reference --verbose lines (made with PAHOLE_REF)"
elif [ -n "${DWARF2BTF_CHECK_OUT:-}" ]; then
	skip "verbose: BIN not run (DWARF2BTF_CHECK_OUT)"
else
	if ! timeout "$tmo" "$bin" "${ours[@]}" -j2 "${flags[@]}" --verbose \
			-o "$work/vmlinux-v.btf" "$vmlinux" > "$work/verbose.raw" \
			2> "$work/verbose.log"; then
		fail "verbose: BIN --verbose failed"
		show "$work/verbose.log"
	else
		LC_ALL=C sort "$work/verbose.raw" > "$work/verbose.ours"
		compare_lines verbose "$work/verbose.ours" "$work/verbose.ref" \
			"--verbose lines"
	fi
fi

# threads --------------------------------------------------------------

if [ -n "${DWARF2BTF_CHECK_OUT:-}" ]; then
	skip "threads: BIN not run (DWARF2BTF_CHECK_OUT)"
else
	bad=
	for j in 1 5; do
		o=$work/vmlinux-j$j.btf
		rm -f "$o"
		if ! encode j$j "$work/encode-j$j.log" -j$j "${flags[@]}" \
				-o "$o" "$vmlinux"; then
			bad="$bad -j$j failed;"
			show "$work/encode-j$j.log" 5
		elif ! cmp "$out" "$o" > "$work/cmp-j$j.log" 2>&1; then
			bad="$bad -j$j differs from -j2 ($(head -n 1 "$work/cmp-j$j.log"));"
		fi
	done
	if [ -z "$bad" ]; then
		pass "threads: -j1, -j2, -j5 byte-identical"
	else
		fail "threads:$bad"
	fi
fi

# vmlinux.h ------------------------------------------------------------

# A CO-RE program touching common kernel types through both CO-RE reads
# and typed fentry arguments.
cat > "$work/probe.bpf.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0-only
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, pid_t);
	__type(value, u64);
} counts SEC(".maps");

SEC("fentry/vfs_read")
int BPF_PROG(probe_read, struct file *file, char *buf, size_t count,
	     loff_t *pos)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	pid_t ppid = BPF_CORE_READ(task, real_parent, tgid);
	u64 ino = BPF_CORE_READ(file, f_inode, i_ino);
	u64 *v = bpf_map_lookup_elem(&counts, &ppid);

	if (v)
		__sync_fetch_and_add(v, ino + count);
	return 0;
}

SEC("kprobe/do_sys_openat2")
int BPF_KPROBE(probe_open, int dfd, const char *name, struct open_how *how)
{
	u64 flags = BPF_CORE_READ(how, flags);

	bpf_printk("open %d %llx", dfd, flags);
	return 0;
}
EOF
if ! bpftool btf dump file "$(bt "$out")" format c > "$work/vmlinux.h" \
		2> "$work/vmlinux.h.log"; then
	fail "vmlinux.h: bpftool btf dump format c failed"
	show "$work/vmlinux.h.log"
elif ! clang -g -O2 -target bpf -D__TARGET_ARCH_$target_arch -I"$work" \
		-c "$work/probe.bpf.c" -o "$work/probe.bpf.o" \
		> "$work/clang.log" 2>&1; then
	fail "vmlinux.h: clang -target bpf failed"
	show "$work/clang.log"
elif ! bpftool gen min_core_btf "$(bt "$out")" "$work/probe.min.btf" \
		"$work/probe.bpf.o" > "$work/min_core.log" 2>&1; then
	fail "vmlinux.h: CO-RE relocations do not resolve (min_core_btf)"
	show "$work/min_core.log"
else
	pass "vmlinux.h: $(wc -l < "$work/vmlinux.h") lines; BPF program compiles and relocates"
fi

# plain ----------------------------------------------------------------
# The reference path (--plain-dedup) must mean the same as the fast one.

if [ -n "${DWARF2BTF_CHECK_OUT:-}" ] || ! bin_ok; then
	skip "plain: BIN not run"
elif ! encode plain "$work/plain.log" -j2 "${flags[@]}" --plain-dedup \
		-o "$work/vmlinux.plain.btf" "$vmlinux"; then
	fail "plain: encoding failed"
	show "$work/plain.log"
elif "$bin" diff --summary "$out" "$work/vmlinux.plain.btf" \
		> "$work/plain.diff" 2>&1; then
	pass "plain: --plain-dedup gives the same BTF by meaning"
else
	fail "plain: --plain-dedup differs"
	show "$work/plain.diff"
fi

# reuse ----------------------------------------------------------------
# A CU takes the types an earlier CU of its batch built under the same
# keys: the output must be the bytes of a run that builds every type
# (DWARF2BTF_NO_REUSE), and the keys the same whether the DIEs are read
# by their abbreviations' plans or through libdw (DWARF2BTF_LIBDW_ATTRS):
# a path that keyed some DIEs apart would show as more distinct keys.

if [ -n "${DWARF2BTF_CHECK_OUT:-}" ] || ! bin_ok; then
	skip "reuse: BIN not run"
elif ! DWARF2BTF_NO_REUSE=1 encode noreuse "$work/noreuse.log" -j2 \
		"${flags[@]}" -o "$work/vmlinux.noreuse.btf" "$vmlinux"; then
	fail "reuse: encoding without it failed"
	show "$work/noreuse.log"
elif ! cmp -s "$out" "$work/vmlinux.noreuse.btf"; then
	fail "reuse: not the bytes of a run that builds every type"
elif ! encode keys "$work/keys.log" -j2 "${flags[@]}" --stats=keys \
		-o "$work/vmlinux.keys.btf" "$vmlinux" ||
     ! DWARF2BTF_LIBDW_ATTRS=1 encode keys-libdw "$work/keys-libdw.log" \
		-j2 "${flags[@]}" --stats=keys \
		-o "$work/vmlinux.keys-libdw.btf" "$vmlinux"; then
	fail "reuse: --stats=keys failed"
	show "$work/keys.log"
elif [ "$(grep 'type keys' "$work/keys.log")" != \
       "$(grep 'type keys' "$work/keys-libdw.log")" ]; then
	fail "reuse: the keys differ with the DIEs read through libdw"
	grep 'type keys' "$work/keys.log" "$work/keys-libdw.log" | sed 's/^/     | /'
else
	pass "reuse: the bytes of a run that builds every type; keys as through libdw ($(grep -o '[0-9]* distinct keys' "$work/keys.log"))"
fi

# The vmlinux again with FEATURE added to the flags, into
# $work/vmlinux.NAME.btf; false, the check counted, when that cannot be.
# usage: encode_feature NAME FEATURE
encode_feature() {
	if [ -n "${DWARF2BTF_CHECK_OUT:-}" ] || ! bin_ok; then
		skip "$2: BIN not run"
		return 1
	fi
	if ! encode "$1" "$work/$1.log" -j2 "${flags[@]}" --btf_features="$2" \
			-o "$work/vmlinux.$1.btf" "$vmlinux"; then
		fail "$2: encoding failed"
		show "$work/$1.log"
		return 1
	fi
}

# The verdict on feature $2 (output $1): the script's check ended with $3,
# and the default output must equal it in the kinds $4; $5 says what held.
feature_verdict() {
	"$bin" diff --kinds="$4" --summary "$out" "$work/vmlinux.$1.btf" \
		> "$work/$1.diff" 2>&1
	local rc2=$?
	if [ "$3" = 0 ] && [ $rc2 = 0 ]; then
		pass "$2: $5"
	else
		fail "$2: $5 (diff rc=$rc2)"
		show "$work/$1.diff"
	fi
}

# global_var -----------------------------------------------------------
# With global_var every variable with an address must appear once, in the
# DATASEC of its section, and the functions must not change.  (Aliases,
# two variables at one address, share a slot, as in pahole's output.
# diff counts anonymous types nothing refers to as items, and VARs now
# refer to some: so only functions are compared.)

if encode_feature gv global_var; then
	res=$(bpftool btf dump file "$(bt "$work/vmlinux.gv.btf")" | python3 -c '
import re, sys
vars_, where, sec = {}, {}, None
for ln in sys.stdin:
    m = re.match(r"\[(\d+)\] VAR \x27([^\x27]*)\x27", ln)
    if m:
        vars_[int(m.group(1))] = m.group(2)
        continue
    m = re.match(r"\[\d+\] DATASEC \x27([^\x27]*)\x27", ln)
    if m:
        sec = m.group(1)
        continue
    m = re.match(r"\s+type_id=(\d+) offset=(\d+) size=(\d+)", ln)
    if m and sec:
        where.setdefault(int(m.group(1)), []).append((sec, int(m.group(2))))
bad = [v for v in vars_ if len(where.get(v, [])) != 1]
slots = [w[0] for w in where.values()]
dups = len(slots) - len(set(slots))
print("%d VARs in %d DATASECs, each exactly once (%d not); %d aliases"
      % (len(vars_), len({w[0][0] for w in where.values()}), len(bad), dups))
sys.exit(1 if bad or not vars_ else 0)')
	feature_verdict gv global_var $? funcs "$res; functions unchanged"
fi

# true_signature -------------------------------------------------------
# Clones (foo.constprop.0) are emitted under their own symbol, functions
# with optimized-away parameters are no longer left out.  Its exact output
# was compared with pahole 1.31's (docs/functions.md); here what must hold
# whatever pahole does.

if encode_feature ts true_signature; then
	res=$(python3 - "$(bt "$out")" "$(bt "$work/vmlinux.ts.btf")" "$vmlinux" <<'PY'
import re, subprocess, sys

def funcs(path):
    out = subprocess.run(["bpftool", "btf", "dump", "file", path],
                         capture_output=True, text=True, check=True).stdout
    return {m.group(1) for m in re.finditer(r"\] FUNC '([^']*)'", out)}

dflt, ts = funcs(sys.argv[1]), funcs(sys.argv[2])
nm = subprocess.run(["nm", sys.argv[3]], capture_output=True, text=True,
                    check=True).stdout
syms = {ln.split()[2] for ln in nm.splitlines()
        if len(ln.split()) == 3 and ln.split()[1] in "tTwW"}
clones = {f for f in ts if "." in f}
keys = {f.split(".")[0] for f in clones}
no_sym = sorted(clones - syms)
lost = sorted(f for f in dflt - ts if f not in keys)
print("%d FUNCs (default %d), %d under a clone symbol, %d clone names "
      "without a symbol, %d default FUNCs lost"
      % (len(ts), len(dflt), len(clones), len(no_sym), len(lost)))
for f in (no_sym + lost)[:10]:
    print("     |", f)
sys.exit(1 if no_sym or lost or not clones else 0)
PY
)
	feature_verdict ts true_signature $? types,vars \
		"$res; types and VARs unchanged"
fi

# hub ------------------------------------------------------------------
# A header's struct that one CU sees otherwise (docs/design.md, "A batch
# cannot always decide a declaration"): every struct that reaches it has
# two definitions, and a run that left their declarations to the final
# dedup would grow without end.

hub=$work/vmlinux.hub
if [ -n "${DWARF2BTF_CHECK_OUT:-}" ] || ! bin_ok; then
	skip "hub: BIN not run"
elif ! "$here/lib/dwarf-edit.py" --rename list_head "$vmlinux" "$hub" \
		> "$work/hub-edit.log" 2>&1; then
	skip "hub: no CU of this kernel to edit"
	show "$work/hub-edit.log"
elif ! encode hub "$work/hub.log" -j2 "${flags[@]}" --stats -o "$hub.btf" \
		"$hub"; then
	fail "hub: encoding failed (or took more than ${tmo} s)"
	show "$work/hub.log"
elif ! encode hub-plain "$work/hub-plain.log" -j2 "${flags[@]}" \
		--plain-dedup -o "$hub.plain.btf" "$hub"; then
	fail "hub: --plain-dedup failed (or took more than ${tmo} s)"
	show "$work/hub-plain.log"
elif ! grep -q "the last as one dedup of everything" "$work/hub.log"; then
	fail "hub: the run made again did not give way"
	show "$work/hub.log"
elif cmp -s "$hub.btf" "$hub.plain.btf"; then
	pass "hub: made again, then one dedup of everything: --plain-dedup's bytes"
else
	fail "hub: not the bytes of --plain-dedup"
	"$bin" diff --summary "$hub.plain.btf" "$hub.btf" \
		> "$work/hub.diff" 2>&1
	show "$work/hub.diff"
fi
rm -f "$hub"

# layout ---------------------------------------------------------------

# The CUs the encoding left out by language are left out here too.
langs=()
for f in "${flags[@]}"; do
	case $f in --lang=*|--lang_exclude=*) langs+=("$f") ;; esac
done
if ! bin_ok; then
	skip "layout: no BIN to run"
else
	# The subcommand comes first; BIN's own options (ours) after it.
	saved=("${ours[@]}")
	ours=(layout "${saved[@]}")
	if encode layout "$work/layout.log" "${langs[@]}" "$vmlinux" "$out"
	then
		pass "$(tail -n 1 "$work/layout.log")"
	else
		fail "layout: $(tail -n 1 "$work/layout.log")"
		show "$work/layout.log"
	fi
	ours=("${saved[@]}")
fi

# load -----------------------------------------------------------------

# The verifier sizes pointers as its own kernel does: a 32-bit kernel's
# BTF fails in a 64-bit one ("Member exceeds struct_size"), pahole's too.
bits=$(readelf -h "$vmlinux" 2> /dev/null | sed -n 's/^ *Class: *ELF//p')
if [ -n "$bits" ] && [ "$bits" != "$(getconf LONG_BIT)" ]; then
	res="skip: a $bits-bit kernel's BTF; this kernel is $(getconf LONG_BIT)-bit"
	rc=0
else
	res=$(python3 "$here/lib/btf-load.py" "$out" 2>&1)
	rc=$?
	# A kernel before 6.19 knows no layout section (the layout feature,
	# which 7.x's kbuild asks for): load the rest.
	case $res in
	*"Unsupported btf_header"*)
		if python3 "$here/lib/btf_header.py" --no-layout "$out" \
				"$work/no-layout.btf"; then
			res=$(python3 "$here/lib/btf-load.py" "$work/no-layout.btf" 2>&1)
			rc=$?
			res="$res (without its layout section, which this kernel predates)"
		fi ;;
	esac
fi
case $res in
loaded*)
	pass "load: kernel $(uname -r) accepts it${res#loaded}" ;;
skip:*)
	skip "load: ${res#skip: }" ;;
*)
	fail "load: rc=$rc"
	printf '%s\n' "$res" | sed 's/^/     | /' ;;
esac

finish
