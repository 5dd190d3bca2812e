#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark the module workload of a kernel build, side by side:
#   ours    one run:  BIN --base VMLINUX -j2 -o DIR --files-from LIST
#   pahole  once per module, two at a time (as make -j2 runs it):
#           pahole -J --btf_features=default --btf_base VMLINUX
#                  --btf_encode_detached=DIR/M.btf M.ko
# With BENCH_KBUILD=1 both run as scripts/Makefile.modfinal runs them:
# once per module, in place (on a fresh copy of the .ko), two at a time,
# with the flags of 6.12's scripts/Makefile.btf:
#           TOOL -J -j --btf_features=<kbuild's list> --lang_exclude=rust
#                --btf_base VMLINUX M.ko
#
# usage: bench/modules.sh BIN
# env:   BENCH_RUNS=N (default 1; each round runs both), PAHOLE=PATH,
#        BENCH_MODULES=N (only the first N modules, sorted by path),
#        BENCH_EVERY=K (every K-th module of those),
#        BENCH_ONLY=NAME (only the modules named NAME, e.g. amdgpu.ko),
#        BENCH_KBUILD=1 (ours as kbuild runs it too),
#        BENCH_CACHE=warm|cold|off (our cache, in the bench's folder: warm,
#        the default, is filled by an untimed run first; cold is emptied
#        before each round; off is not used),
#        BENCH_DIR=DIR (keep the timings there, in DIR/results),
#        BENCH_PKG=PKG (another kernel package, as scripts/fetch-kernel.sh
#        takes it: linux-image-7.2.13+deb14-cloud-amd64-dbg),
#        BENCH_OWN_BASE=1 (each tool's modules over the vmlinux BTF that
#        tool made, as in a kernel build, where the same encoder made the
#        vmlinux's: each first writes it, untimed, with kbuild's flags and
#        --btf_encode_detached; without it both read the package's .BTF,
#        which Debian 12's pahole wrote with its older rules)
# Each side is timed as a whole by /usr/bin/time (wall, user+sys CPU, and
# the largest peak RSS of one process); prints medians and ratios.
set -u -o pipefail

. "$(dirname "$0")/common.sh"
bench_bin "$@"
runs=${BENCH_RUNS:-1}
pahole=${PAHOLE:-pahole}
command -v "$pahole" > /dev/null || die "no pahole ($pahole); set PAHOLE"
[ -x /usr/bin/time ] || die "/usr/bin/time missing (Debian package time)"

pkg=()
[ -n "${BENCH_PKG:-}" ] && pkg=("$BENCH_PKG")
vmlinux=$("$repo/scripts/fetch-kernel.sh" "${pkg[@]}" | tail -n 1) ||
	die "fetch failed"
mods=$(FETCH_KERNEL_PRINT=modules "$repo/scripts/fetch-kernel.sh" "${pkg[@]}" |
	tail -n 1)
if [ -n "${BENCH_DIR:-}" ]; then
	# keep the timings (results), not the 2 x 1138 outputs
	dir=$BENCH_DIR
	mkdir -p "$dir" || exit 1
	trap 'rm -rf "$dir/ours" "$dir/pahole" "$dir"/*-ko' EXIT
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-bench-mod.XXXXXX") || exit 1
	trap 'rm -rf "$dir"' EXIT
fi
find "$mods" -name '*.ko' | sort > "$dir/list"
[ -n "${BENCH_MODULES:-}" ] && head -n "$BENCH_MODULES" "$dir/list" > "$dir/l2" &&
	mv "$dir/l2" "$dir/list"
[ -n "${BENCH_EVERY:-}" ] &&
	awk -v k="$BENCH_EVERY" 'NR % k == 1 || k == 1' "$dir/list" > "$dir/l2" &&
	mv "$dir/l2" "$dir/list"
[ -n "${BENCH_ONLY:-}" ] &&
	awk -v m="/$BENCH_ONLY" 'substr($0, length($0) - length(m) + 1) == m' \
		"$dir/list" > "$dir/l2" && mv "$dir/l2" "$dir/list"
n=$(wc -l < "$dir/list")
[ "$n" -gt 0 ] || die "no module to run"
kbuild=${BENCH_KBUILD:-0}
cache_mode=${BENCH_CACHE:-warm}
export DWARF2BTF_CACHE_DIR="$dir/cache"
case $cache_mode in
warm | cold) unset DWARF2BTF_NO_CACHE ;;
off) export DWARF2BTF_NO_CACHE=1 ;;
*) die "BENCH_CACHE is warm, cold or off" ;;
esac
rm -rf "$dir/cache"
flags=()
"$pahole" --help 2>&1 | grep -c -- --btf_features > /dev/null &&
	flags=(--btf_features=default)

# the flags scripts/Makefile.btf gives pahole >= 1.26 (6.12)
kflags="-j --btf_features=encode_force,var,float,enum64,decl_tag,type_tag,optimized_func,consistent_func,decl_tag_kfuncs --lang_exclude=rust"

# The base of each tool's modules: the package's vmlinux, or the BTF the
# tool itself made of it (BENCH_OWN_BASE), as the link step of a kernel
# build makes it before the modules.
base_ours=$vmlinux
base_pahole=$vmlinux
if [ "${BENCH_OWN_BASE:-0}" = 1 ]; then
	base_ours=$dir/ours-vmlinux.btf
	base_pahole=$dir/pahole-vmlinux.btf
	DWARF2BTF_NO_CACHE=1 "$bin" -J $kflags \
		--btf_encode_detached="$base_ours" "$vmlinux" ||
		die "ours failed on the vmlinux"
	"$pahole" -J $kflags --btf_encode_detached="$base_pahole" "$vmlinux" ||
		die "pahole failed on the vmlinux"
fi

# One pahole run per module, as a kernel build does.
cat > "$dir/pahole1" <<EOS
#!/bin/sh
exec "$pahole" -J ${flags[*]} --btf_base "$base_pahole" \\
	--btf_encode_detached="$dir/pahole/\$(basename "\$1" .ko).btf" "\$1"
EOS
chmod +x "$dir/pahole1"

# In place, as kbuild: each tool on its own copies of the modules.
for t in pahole ours; do
	if [ "$t" = ours ]; then
		tool=$bin base=$base_ours
	else
		tool=$pahole base=$base_pahole
	fi
	cat > "$dir/${t}-kbuild" <<EOS
#!/bin/sh
exec "$tool" -J $kflags --btf_base "$base" "\$1"
EOS
	chmod +x "$dir/${t}-kbuild"
done
copy_modules() {
	rm -rf "$dir/$1-ko"
	mkdir -p "$dir/$1-ko"
	awk -v d="$dir/$1-ko" '{ printf "%s\t%s/%d.ko\n", $0, d, NR }' \
		"$dir/list" > "$dir/$1-map"
	while IFS="$(printf '\t')" read -r from to; do
		cp "$from" "$to"
	done < "$dir/$1-map"
	cut -f2 "$dir/$1-map" > "$dir/$1-list"
}

# Page cache first, so that no command pays for the disk.
xargs cat < "$dir/list" > /dev/null
cat "$vmlinux" > /dev/null

: > "$dir/results"
for i in $(seq 1 "$runs"); do
	echo "bench: round $i/$runs, $n modules (wall user sys maxrss-KB)" >&2
	rm -rf "$dir/ours" "$dir/pahole"
	mkdir -p "$dir/pahole"
	if [ "$cache_mode" = cold ]; then
		rm -rf "$dir/cache"
	elif [ "$cache_mode" = warm ] && [ ! -d "$dir/cache" ]; then
		"$bin" --base "$base_ours" -o "$dir/warm.btf" \
			"$(head -n 1 "$dir/list")" || die "ours failed"
	fi
	if [ "$kbuild" = 1 ]; then
		copy_modules ours
		/usr/bin/time -f '%e %U %S %M' -o "$dir/t" \
			xargs -a "$dir/ours-list" -P2 -n1 "$dir/ours-kbuild" \
			|| die "ours failed"
	else
		/usr/bin/time -f '%e %U %S %M' -o "$dir/t" \
			"$bin" --base "$base_ours" -j2 -o "$dir/ours" \
			--files-from "$dir/list" || die "ours failed"
	fi
	echo "ours $(cat "$dir/t")" >> "$dir/results"
	echo "  ours: $(cat "$dir/t")" >&2
	if [ "$kbuild" = 1 ]; then
		copy_modules pahole
		/usr/bin/time -f '%e %U %S %M' -o "$dir/t" \
			xargs -a "$dir/pahole-list" -P2 -n1 "$dir/pahole-kbuild" \
			|| die "pahole failed"
	else
		/usr/bin/time -f '%e %U %S %M' -o "$dir/t" \
			xargs -a "$dir/list" -P2 -n1 "$dir/pahole1" || die "pahole failed"
	fi
	echo "pahole $(cat "$dir/t")" >> "$dir/results"
	echo "  pahole: $(cat "$dir/t")" >&2
done

python3 - "$dir/results" "$n" "$kbuild" "$cache_mode" "${BENCH_OWN_BASE:-0}" <<'PY'
import statistics
import sys

rows = {}
for line in open(sys.argv[1]):
    label, wall, user, sys_, rss = line.split()
    rows.setdefault(label, []).append(
        (float(wall), float(user) + float(sys_), int(rss) / 1024))
med = {k: [statistics.median(r[i] for r in v) for i in range(3)]
       for k, v in rows.items()}
print("%s modules%s, our cache %s%s, median of %d runs" % (
    sys.argv[2], ", each tool once per module in place (kbuild)"
    if sys.argv[3] == "1" else "", sys.argv[4],
    ", each over its own vmlinux BTF" if sys.argv[5] == "1" else "",
    len(rows["ours"])))
print("%-12s %9s %9s %14s" % ("", "wall s", "CPU s", "max RSS MB"))
for k in ("ours", "pahole"):
    print("%-12s %9.2f %9.2f %14.0f" % ((k,) + tuple(med[k])))
r = [a / b for a, b in zip(med["ours"], med["pahole"])]
print("%-12s %9.3f %9.3f %14.2f" % (("ours/pahole",) + tuple(r)))
PY
