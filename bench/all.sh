#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every speed and memory benchmark in one run, side by side with pahole: the
# vmlinux at -j1 and -j2 (bench/vmlinux.sh) and all its modules in one
# batch against pahole once per module, two at a time (bench/modules.sh).
# Prints medians and ratios, and draws them into OUT/bench.png.
#
# usage: bench/all.sh BIN
# env:   BENCH_RUNS=N (rounds, default 3), PAHOLE=PATH,
#        BENCH_OUT=DIR (default build/bench: results and the chart)
set -u -o pipefail

. "$(dirname "$0")/common.sh"
bench_bin "$@"
out=${BENCH_OUT:-$repo/build/bench}
export BENCH_RUNS=${BENCH_RUNS:-3}
mkdir -p "$out" || exit 1
rm -f "$out/vmlinux/results" "$out/modules/results"

BENCH_DIR=$out/vmlinux "$here/vmlinux.sh" "$bin" ||
	die "vmlinux benchmark failed"
BENCH_DIR=$out/modules "$here/modules.sh" "$bin" ||
	die "module benchmark failed"

"$repo/scripts/install-deps.sh" bench ||
	echo "bench: no python3-matplotlib, no chart" >&2
# Debian's python3 has matplotlib (python3-matplotlib); another python3
# first on PATH may not.
py=python3
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import matplotlib' 2> /dev/null; then
		py=$p
		break
	fi
done
"$py" "$here/chart.py" "$out/vmlinux/results" "$out/modules/results" \
	"$out/bench.png"
