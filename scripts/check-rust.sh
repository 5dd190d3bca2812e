#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A real Rust program: tests/fixtures/rust_std.rs (the standard library's
# HashMap, Vec<String>, an enum with data), built with Debian unstable's
# rustc 1.97 in the chroot of ../shared/tools/sid.sh root (SID_ROOT=
# another; as root).  A developer check, not part of make check.  The
# same PASS/FAIL lines as check-cxx.sh (scripts/lib/check-lib.sh's
# check_user_btf): encode, threads, libbpf, layout, header, kernel.
#
# usage: check-rust.sh BIN
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"

root=${SID_ROOT:-/srv/sid}
[ -x "$root/usr/bin/rustc" ] ||
	{ echo "check-rust: no rustc in $root (sid.sh root)" >&2; exit 2; }
work=$root/tmp/dwarf2btf-rust-std
rm -rf "$work"
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
cp "$here/../tests/fixtures/rust_std.rs" "$work/main.rs"
chroot "$root" sh -c 'cd /tmp/dwarf2btf-rust-std &&
	rustc --edition=2021 -g -C opt-level=1 -o main main.rs' 2>&1 |
	grep -v warning || true
[ -x "$work/main" ] || { echo "check-rust: rustc failed" >&2; exit 1; }
echo "INFO $(chroot "$root" rustc --version)"
check_user_btf "$bin" "$work/main"
check_summary
