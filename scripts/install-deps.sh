#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install the Debian packages dwarf2btf builds and tests with, when any is
# missing: `make test-deps`, which `make check` and `make demo` call, so a
# fresh machine needs nothing done by hand.  Plain `make` never runs it.  Set DWARF2BTF_NO_INSTALL=1 to only report what is missing.
# "install-deps.sh bench" adds what bench/all.sh draws its chart with,
# "install-deps.sh pahole-tests" what scripts/pahole-tests.sh needs,
# "install-deps.sh kbuild" what kernel-build.sh and boot-check.sh need.
set -eu

pkgs="gcc clang lld dwz make pkg-config python3 libelf-dev libdw-dev libbpf-dev
      zlib1g-dev libzstd-dev dwarves bpftool binutils time hyperfine"
[ "${1:-}" = bench ] && pkgs="$pkgs python3-matplotlib"
# scripts/pahole-tests.sh and scripts/check-explain.py: clang with
# DW_CC_nocall, llvm-dwarfdump, gawk, and cmake to build dwarves
[ "${1:-}" = pahole-tests ] && pkgs="$pkgs clang-19 llvm-19 gawk cmake"
# scripts/kernel-build.sh and boot-check.sh: Linux 7.x wants clang 17 or
# later (LLVM=-19), and the guest boots under QEMU with busybox
[ "${1:-}" = kbuild ] && pkgs="$pkgs clang-19 lld-19 llvm-19 bc bison flex
      libssl-dev qemu-system-x86 busybox-static cpio"

if ! command -v dpkg-query > /dev/null 2>&1; then
	echo "install-deps: not a Debian system (no dpkg-query); install by hand what these Debian packages hold:" $pkgs >&2
	exit 0
fi
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "install-deps: missing:$missing" >&2
if [ "${DWARF2BTF_NO_INSTALL:-0}" = 1 ]; then
	exit 1
fi
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
