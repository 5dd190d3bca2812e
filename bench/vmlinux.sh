#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Benchmark dwarf2btf against pahole on a real vmlinux, side by side.
#
# usage: bench/vmlinux.sh BIN [VMLINUX]
#   VMLINUX defaults to the Debian kernel scripts/fetch-kernel.sh fetches.
# env:
#   BENCH_RUNS=N   rounds (default 3); each round runs every command once,
#                  alternating, so drift on the machine hits all alike
#   PAHOLE=PATH    pahole to compare with (default: pahole on PATH)
#   BENCH_J1=0     leave out the -j1 runs
#   BENCH_DIR=DIR  keep outputs and timings there (default: a temp folder,
#                  removed at the end)
#   BENCH_FLAGS="..."  the encoding flags of both tools (default: ours none,
#                  pahole --btf_features=default), e.g. a kernel build's;
#                  ours add --rust-enums=pahole
#   BENCH_CACHE=off|cold  our cache: off (the default, --no-cache), or on
#                  and emptied before each of our runs, as on a CI machine
#                  (the first run of a build, which notes the build and
#                  stores nothing)
#
# Each run is timed by /usr/bin/time (wall, user+sys CPU, peak RSS); the
# table shows the median of the rounds and the ratio ours/pahole.
set -u -o pipefail
# Full runs: no cache, or an empty one (bench/relink.sh measures runs with
# a warm one).
cache_mode=${BENCH_CACHE:-off}
case $cache_mode in
off) export DWARF2BTF_NO_CACHE=1 ;;
cold) unset DWARF2BTF_NO_CACHE ;;
*) echo "bench: BENCH_CACHE is off or cold" >&2; exit 1 ;;
esac

# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	die "usage: $0 BIN [VMLINUX]"
fi
bin=$1
[ -x "$bin" ] || die "$bin is not an executable"
runs=${BENCH_RUNS:-3}
case $runs in
''|*[!0-9]*|0) die "BENCH_RUNS must be a positive number" ;;
esac
bench_pahole
command -v python3 > /dev/null || die "python3 missing"
bench_vmlinux "${@:2}"
bench_dir bench
# The output is always detached: pahole -J alone would rewrite the vmlinux.
pahole_ver=$("$pahole" --version 2>/dev/null)

jobs=(2)
[ "${BENCH_J1:-1}" = 0 ] || jobs+=(1)
# Rust enums as pahole encodes them, so that both do the same work.
ours_flags=(--rust-enums=pahole)
if [ -n "${BENCH_FLAGS:-}" ]; then
	# shellcheck disable=SC2206
	pahole_flags=(${BENCH_FLAGS})
	ours_flags+=("${pahole_flags[@]}")
fi

results=$dir/results
: > "$results"

# usage: run LABEL OUTPUT CMD...
run() {
	local label=$1 out=$2 tf=$dir/time
	shift 2
	rm -f "$out"
	if ! /usr/bin/time -f '%e %U %S %M' -o "$tf" "$@" \
			> "$dir/log" 2>&1 || [ ! -s "$out" ]; then
		sed -n '1,20p' "$dir/log" >&2
		die "failed: $*"
	fi
	echo "$label $(tail -n 1 "$tf")" >> "$results"
	echo "$label $(stat -c %s "$out")" >> "$dir/sizes"
	echo "  $label: $(tail -n 1 "$tf")" >&2
}

echo "bench: $vmlinux" >&2
echo "bench: ours $bin; pahole $pahole $pahole_ver ${pahole_flags[*]}" >&2
# Page cache first, so that no command pays for the disk.
cat "$vmlinux" > /dev/null

for i in $(seq 1 "$runs"); do
	echo "bench: round $i/$runs  (wall user sys maxrss-KB)" >&2
	for j in "${jobs[@]}"; do
		rm -rf "$dir/cache"
		DWARF2BTF_CACHE_DIR=$dir/cache run "ours-j$j" "$dir/ours-j$j.btf" \
			"$bin" -j"$j" "${ours_flags[@]}" -o "$dir/ours-j$j.btf" \
			"$vmlinux"
		run "pahole-j$j" "$dir/pahole-j$j.btf" \
			"$pahole" -J -j"$j" "${pahole_flags[@]}" \
			--btf_encode_detached="$dir/pahole-j$j.btf" "$vmlinux"
	done
done

python3 - "$results" "$dir/sizes" "$runs" "$(basename "$vmlinux")" \
	"$pahole_ver" "$cache_mode" "${jobs[@]}" <<'EOF'
import statistics
import sys

results, sizes, runs, vmlinux, pver, cache = sys.argv[1:7]
jobs = sys.argv[7:]
rows = {}
for line in open(results):
    label, wall, user, sys_, rss = line.split()
    rows.setdefault(label, []).append(
        (float(wall), float(user) + float(sys_), int(rss) / 1024))
size = {}
for line in open(sizes):
    label, n = line.split()
    size[label] = int(n)


def med(label):
    return [statistics.median(r[k] for r in rows[label]) for k in range(3)]


print('%s, median of %s runs; pahole %s; our cache %s'
      % (vmlinux, runs, pver, cache))
print('%-14s %9s %9s %11s %11s' %
      ('', 'wall s', 'CPU s', 'peak RSS MB', 'output B'))
for j in jobs:
    o, p = med('ours-j' + j), med('pahole-j' + j)
    so, sp = size['ours-j' + j], size['pahole-j' + j]
    print('%-14s %9.2f %9.2f %11.0f %11d' % (('ours -j' + j,) + tuple(o) + (so,)))
    print('%-14s %9.2f %9.2f %11.0f %11d' % (('pahole -j' + j,) + tuple(p) + (sp,)))
    r = [a / b if b else float('nan') for a, b in zip(o, p)]
    print('%-14s %9.2f %9.2f %11.2f %11.3f' %
          (('ours/pahole',) + tuple(r) + (so / sp if sp else float('nan'),)))
EOF
