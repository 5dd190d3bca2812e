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

# $vmlinux: $1 if given, else the Debian kernel scripts/fetch-kernel.sh
# fetches.
bench_vmlinux() {
	if [ $# = 1 ]; then
		vmlinux=$1
	else
		vmlinux=$("$repo/scripts/fetch-kernel.sh" | tail -n 1) ||
			die "scripts/fetch-kernel.sh failed"
	fi
	[ -f "$vmlinux" ] || die "no vmlinux at $vmlinux"
}

# $dir: BENCH_DIR, kept, or a temporary folder removed at the end.
bench_dir() {
	if [ -n "${BENCH_DIR:-}" ]; then
		dir=$BENCH_DIR
		mkdir -p "$dir" || exit 1
	else
		dir=$(mktemp -d "${TMPDIR:-/tmp}/dwarf2btf-$1.XXXXXX") || exit 1
		trap 'rm -rf "$dir"' EXIT
	fi
}

# $pahole (PAHOLE, else pahole on PATH) and $pahole_flags: pahole >= 1.26
# knows --btf_features; older ones get plain -J.
bench_pahole() {
	pahole=${PAHOLE:-pahole}
	command -v "$pahole" > /dev/null || die "no pahole ($pahole); set PAHOLE"
	[ -x /usr/bin/time ] || die "/usr/bin/time missing (Debian package time)"
	if "$pahole" --help 2>&1 | grep -c -- --btf_features > /dev/null; then
		pahole_flags=(--btf_features=default)
	else
		pahole_flags=()
	fi
}
