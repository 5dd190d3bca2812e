#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two builds of dwarf2btf side by side on one input: did a change make it
# slower or bigger?  Each round runs OLD then NEW (alternating, so drift on
# the machine hits both alike); the table shows medians and NEW/OLD, and
# whether the two outputs are the same bytes.
#
# usage: bench/pair.sh OLD NEW [INPUT]
#   INPUT defaults to the Debian vmlinux scripts/fetch-kernel.sh fetches.
# env:
#   BENCH_RUNS=N   rounds (default 5)
#   BENCH_JOBS=J   -jJ (default 2)
set -u -o pipefail
# Full runs: no cache (bench/relink.sh measures runs with one).
export DWARF2BTF_NO_CACHE=1

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
die() { echo "bench: $*" >&2; exit 1; }

[ $# = 2 ] || [ $# = 3 ] || die "usage: $0 OLD NEW [INPUT]"
old=$1
new=$2
[ -x "$old" ] && [ -x "$new" ] || die "OLD and NEW must be executables"
runs=${BENCH_RUNS:-5}
jobs=${BENCH_JOBS:-2}
case $runs$jobs in *[!0-9]*) die "BENCH_RUNS, BENCH_JOBS: numbers" ;; esac
[ -x /usr/bin/time ] || die "/usr/bin/time missing (Debian package time)"
if [ $# = 3 ]; then
	input=$3
else
	input=$("$repo/scripts/fetch-kernel.sh" | tail -n 1) ||
		die "scripts/fetch-kernel.sh failed"
fi
[ -f "$input" ] || die "no input at $input"
dir=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-pair.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

cat "$input" > /dev/null
for i in $(seq 1 "$runs"); do
	for which in old new; do
		bin=$old
		[ "$which" = new ] && bin=$new
		rm -f "$dir/$which.btf"
		/usr/bin/time -f '%e %U %S %M' -o "$dir/time" \
			"$bin" -j"$jobs" -o "$dir/$which.btf" "$input" \
			> "$dir/log" 2>&1 || { cat "$dir/log" >&2; die "$bin failed"; }
		echo "$which $(tail -n 1 "$dir/time")" >> "$dir/results"
	done
	echo "bench: round $i/$runs" >&2
done
same=differ
cmp -s "$dir/old.btf" "$dir/new.btf" && same=same
python3 - "$dir/results" "$runs" "$jobs" "$(basename "$input")" "$same" <<'EOF'
import statistics
import sys

results, runs, jobs, name, same = sys.argv[1:6]
rows = {}
for line in open(results):
    which, wall, user, sys_, rss = line.split()
    rows.setdefault(which, []).append(
        (float(wall), float(user) + float(sys_), int(rss) / 1024))
med = {w: [statistics.median(r[k] for r in rows[w]) for k in range(3)]
       for w in rows}
print('%s, -j%s, median of %s rounds; outputs: %s bytes'
      % (name, jobs, runs, same))
print('%-8s %9s %9s %11s' % ('', 'wall s', 'CPU s', 'peak RSS MB'))
for w in ('old', 'new'):
    print('%-8s %9.2f %9.2f %11.0f' % ((w,) + tuple(med[w])))
print('%-8s %9.3f %9.3f %11.3f' %
      (('new/old',) + tuple(n / o if o else float('nan')
                            for n, o in zip(med['new'], med['old']))))
EOF
