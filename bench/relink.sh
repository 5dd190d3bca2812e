#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The relink: a vmlinux encoded again with the cache warm, and a copy of
# it with one CU's DWARF changed (scripts/lib/dwarf-edit.py: a member's offset,
# a type's name) encoded with the cache of the original, side by side with
# pahole -j2, with our run without cache, with an empty cache (the build's
# first run, which only notes the build), and with the cache that run left
# (the build's second run, which stores every batch).
#
# usage: bench/relink.sh BIN [VMLINUX]
#   VMLINUX defaults to the Debian kernel scripts/fetch-kernel.sh fetches.
# env:
#   BENCH_RUNS=N   rounds (default 5); each round runs every command once
#   PAHOLE=PATH    pahole to compare with (default: pahole on PATH)
#   BENCH_JOBS=N   -j of every run (default 2)
#   BENCH_CU=N     the CU dwarf-edit.py changes (default: the middle one)
#   BENCH_DIR=DIR  keep outputs and timings there (default: a temp folder)
#   BENCH_BASE=BIN an older dwarf2btf run without cache in every round too
#                  (what "full cold runs must not get slower" compares with)
#
# Before each run of the changed copy the cache is put back as the
# original left it, so that every round re-encodes the changed batch.
# The outputs with cache must be the bytes of those without, or it fails.
set -u -o pipefail

# shellcheck source=bench/common.sh
. "$(dirname "$0")/common.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 BIN [VMLINUX]"
bin=$1
[ -x "$bin" ] || die "$bin is not an executable"
runs=${BENCH_RUNS:-5}
jobs=${BENCH_JOBS:-2}
case $runs$jobs in
*[!0-9]*) die "BENCH_RUNS and BENCH_JOBS must be numbers" ;;
esac
bench_pahole
bench_vmlinux "${@:2}"
bench_dir relink

edited=$dir/vmlinux.edited
"$repo/scripts/lib/dwarf-edit.py" ${BENCH_CU:+--cu "$BENCH_CU"} "$vmlinux" \
	"$edited" >&2 || die "scripts/lib/dwarf-edit.py failed"

: > "$dir/results"
# usage: run LABEL OUTPUT CMD...
run() {
	local label=$1 out=$2
	shift 2
	rm -f "$out"
	if ! /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" \
			> "$dir/log" 2>&1 || [ ! -s "$out" ]; then
		sed -n '1,20p' "$dir/log" >&2
		die "failed: $*"
	fi
	echo "$label $(tail -n 1 "$dir/time")" >> "$dir/results"
	echo "  $label: $(tail -n 1 "$dir/time")" >&2
}

# usage: ours CACHE OUTPUT INPUT [FLAGS...]: a command for run
ours() {
	echo env -u DWARF2BTF_NO_CACHE DWARF2BTF_CACHE_DIR="$1" "$bin" \
		--rust-enums=pahole -j"$jobs" -o "$2" "$3"
}

# What the runs with cache must equal, and the original's cache entries.
# Rust enums as pahole encodes them, so that both do the same work.
DWARF2BTF_NO_CACHE=1 "$bin" --rust-enums=pahole -j"$jobs" \
	-o "$dir/want.btf" "$vmlinux" ||
	die "no output for $vmlinux"
DWARF2BTF_NO_CACHE=1 "$bin" --rust-enums=pahole -j"$jobs" \
	-o "$dir/want-edited.btf" "$edited" ||
	die "no output for $edited"
cmp -s "$dir/want.btf" "$dir/want-edited.btf" &&
	die "the changed copy encodes as the original"
# The build's first run notes it, the second stores its batches.
rm -rf "$dir/cache-noted" "$dir/cache-original"
$(ours "$dir/cache-noted" "$dir/warm.btf" "$vmlinux") || die "no output"
cp -a "$dir/cache-noted" "$dir/cache-original"
$(ours "$dir/cache-original" "$dir/warm.btf" "$vmlinux") || die "no output"
cat "$vmlinux" "$edited" > /dev/null	# the page cache, for all alike

echo "bench: $vmlinux, -j$jobs; ours $bin; pahole $pahole" >&2
for i in $(seq 1 "$runs"); do
	echo "bench: round $i/$runs  (wall user sys maxrss-KB)" >&2
	run pahole "$dir/pahole.btf" "$pahole" -J -j"$jobs" \
		"${pahole_flags[@]}" --btf_encode_detached="$dir/pahole.btf" \
		"$vmlinux"
	run off "$dir/off.btf" env DWARF2BTF_NO_CACHE=1 "$bin" \
		--rust-enums=pahole -j"$jobs" -o "$dir/off.btf" "$vmlinux"
	[ -z "${BENCH_BASE:-}" ] ||
		run base "$dir/base.btf" env DWARF2BTF_NO_CACHE=1 \
			"$BENCH_BASE" -j"$jobs" -o "$dir/base.btf" "$vmlinux"
	rm -rf "$dir/cache"
	run cold "$dir/cold.btf" $(ours "$dir/cache" "$dir/cold.btf" \
		"$vmlinux")
	rm -rf "$dir/cache"
	cp -a "$dir/cache-noted" "$dir/cache"
	run second "$dir/second.btf" $(ours "$dir/cache" "$dir/second.btf" \
		"$vmlinux")
	run warm "$dir/warm.btf" $(ours "$dir/cache-original" \
		"$dir/warm.btf" "$vmlinux")
	rm -rf "$dir/cache"
	cp -a "$dir/cache-original" "$dir/cache"
	run changed "$dir/changed.btf" $(ours "$dir/cache" \
		"$dir/changed.btf" "$edited")
	cmp -s "$dir/cold.btf" "$dir/want.btf" &&
	cmp -s "$dir/second.btf" "$dir/want.btf" &&
	cmp -s "$dir/warm.btf" "$dir/want.btf" ||
		die "with cache, $vmlinux is not the bytes it is without"
	cmp -s "$dir/changed.btf" "$dir/want-edited.btf" ||
		die "with cache, $edited is not the bytes it is without"
done
rm -rf "$dir/cache"
cp -a "$dir/cache-original" "$dir/cache"
reused=$($(ours "$dir/cache" "$dir/x.btf" "$edited") --stats 2>&1 |
	grep 'batch cache:')

python3 - "$dir/results" "$runs" "$jobs" "$(basename "$vmlinux")" \
	"$reused" <<'EOF'
import statistics
import sys

results, runs, jobs, vmlinux, reused = sys.argv[1:6]
rows = {}
for line in open(results):
    label, wall, user, sys_, rss = line.split()
    rows.setdefault(label, []).append(
        (float(wall), float(user) + float(sys_), int(rss) / 1024))


def med(label):
    return [statistics.median(r[k] for r in rows[label]) for k in range(3)]


p = med("pahole")
rows_shown = (("pahole", "pahole"),
              ("base", "base (BENCH_BASE), no cache"),
              ("off", "ours, no cache"),
              ("cold", "ours, cache empty (notes)"),
              ("second", "ours, build's 2nd run (stores)"),
              ("warm", "ours, cache warm"),
              ("changed", "ours, one CU changed"))
print("%s, -j%s, median of %s rounds; outputs with cache = without"
      % (vmlinux, jobs, runs))
print("%-31s %8s %8s %8s %9s %9s" % ("", "wall s", "CPU s", "RSS MB",
                                     "wall/ph", "CPU/ph"))
for label, text in rows_shown:
    if label not in rows:
        continue
    m = med(label)
    print("%-31s %8.2f %8.2f %8.0f %9.3f %9.3f"
          % (text, m[0], m[1], m[2], m[0] / p[0], m[1] / p[1]))
if "base" in rows:
    # pairs of the same round: the machine's speed drifts between rounds
    ratio = statistics.median(c[0] / b[0] for c, b in zip(rows["cold"],
                                                          rows["base"]))
    print("cache empty / base, wall, median of the rounds' ratios: %.3f"
          % ratio)
print("one CU changed: %s" % reused.replace("stats: ", ""))
EOF
