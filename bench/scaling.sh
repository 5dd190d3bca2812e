#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# How our cost grows with the input: a few modules of the Debian kernel
# (smallest to largest .debug_info) and its vmlinux, each encoded alone
# with -jJ (default 1) and --stats; prints input size, time, peak RSS and
# the phases, per MB of .debug_info.
#
# usage: bench/scaling.sh BIN
# env:   BENCH_JOBS=J
set -u -o pipefail
# Full runs: no cache (bench/relink.sh measures runs with one).
export DWARF2BTF_NO_CACHE=1

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
die() { echo "bench: $*" >&2; exit 1; }

[ $# = 1 ] || die "usage: $0 BIN"
bin=$1
[ -x "$bin" ] || die "$bin is not an executable"
jobs=${BENCH_JOBS:-1}
vmlinux=$("$repo/scripts/fetch-kernel.sh" | tail -n 1) || die "fetch failed"
mods=$(FETCH_KERNEL_PRINT=modules "$repo/scripts/fetch-kernel.sh" | tail -n 1)
dir=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-scaling.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

# .debug_info size of an ELF file, in bytes
info_size() {
	local hex

	hex=$(readelf -SW "$1" | awk '$2 == ".debug_info" { print $6 }')
	echo $((16#${hex:-0}))
}

find "$mods" -name '*.ko' | sort > "$dir/list"
while read -r ko; do
	echo "$(info_size "$ko") $ko"
done < "$dir/list" | sort -n > "$dir/sized"
n=$(wc -l < "$dir/sized")
# smallest, 25th, 50th, 90th percentile and largest module, then vmlinux
picks=$(for q in 1 $((n / 4)) $((n / 2)) $((n * 9 / 10)) "$n"; do
	sed -n "${q}p" "$dir/sized" | cut -d' ' -f2
done)

printf '%-22s %8s %6s %9s %8s %8s %7s   %s\n' input "info MB" CUs \
	"types in" "wall s" "RSS MB" "s/MB" "phases (s): elf encode funcs dedup base write"
for f in $picks "$vmlinux"; do
	base=()
	[ "$f" = "$vmlinux" ] || base=(--base "$vmlinux")
	cat "$f" > /dev/null
	"$bin" "${base[@]}" -j"$jobs" --stats -o "$dir/out.btf" "$f" \
		2> "$dir/stats" || die "failed on $f"
	mb=$(echo "$(info_size "$f")" | awk '{ printf "%.1f", $1 / 1048576 }')
	awk -v name="$(basename "$f")" -v mb="$mb" '
		/^stats: phase/ { ph = ph sprintf(" %.2f", $(NF - 1)); next }
		/^stats: total wall/ { wall = $4 }
		/^stats: peak rss/ { rss = $4 }
		/^stats: jobs/ { cus = $5; sub(",", "", cus) }
		/^stats: types/ { tin = $3 }
		END { per = mb > 0 ? wall / mb : 0
		      printf "%-22s %8s %6s %9s %8.2f %8.0f %7.3f  %s\n",
		      substr(name, 1, 22), mb, cus, tin, wall, rss, per, ph }' \
		"$dir/stats"
done
