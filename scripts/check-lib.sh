# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Sourced by the developer checks (check-*.sh, kernel-build.sh): their
# PASS/FAIL/SKIP lines and counts, and Debian's kernel source unpacked.

npass=0
nfail=0
nskip=0
pass() { echo "PASS $*"; npass=$((npass + 1)); }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }
skip() { echo "SKIP $*"; nskip=$((nskip + 1)); }

# 'N passed, N failed, N skipped'; exits 0 when none failed.
check_summary() {
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
	exit
}

# The Debian packages named, installed with apt-get when missing (these
# checks are for developers' machines).
need_packages() {
	local p missing='' sudo=''

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -c 'ok installed' > /dev/null || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || sudo=sudo
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq $missing >&2
}

# Debian source package $1 (linux-source-6.12) unpacked into $2/src-$1
# once (apt-get download, cached in $2).
kernel_source() {
	local pkg=$1 dir=$2 src=$2/src-$1

	[ -d "$src/.unpacked" ] && return 0
	mkdir -p "$dir" && cd "$dir" || return 1
	ls "$pkg"_*.deb > /dev/null 2>&1 || apt-get download "$pkg" >&2 ||
		return 1
	rm -rf "$src" deb && mkdir -p "$src" deb
	dpkg -x "$(ls "$pkg"_*.deb | head -n 1)" deb || return 1
	tar -C "$src" --strip-components=1 -xf deb/usr/src/"$pkg".tar.* ||
		return 1
	rm -rf deb
	mkdir -p "$src/.unpacked"
}
