# SPDX-License-Identifier: GPL-2.0-only
# Sourced by the bench scripts: where things are, die, and BIN ($1) as an
# absolute path in $bin.
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
die() { echo "bench: $*" >&2; exit 1; }

bench_bin() {
	[ $# = 1 ] || die "usage: $0 BIN"
	bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	[ -x "$bin" ] || die "$1 is not an executable"
}
