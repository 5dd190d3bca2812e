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

# The kernel source package the checks build: $KBUILD_SRC_PKG, else the
# package named by $KBUILD_SRC_DEB's file name (linux-source-7.2_7.2.13-1_all.deb:
# linux-source-7.2), else $1 (the default).
kernel_source_pkg() {
	local deb=${KBUILD_SRC_DEB:-}

	if [ -n "${KBUILD_SRC_PKG:-}" ]; then
		echo "$KBUILD_SRC_PKG"
	elif [ -n "$deb" ]; then
		deb=$(basename "$deb")
		echo "${deb%%_*}"
	else
		echo "$1"
	fi
}

# Debian source package $1 (linux-source-6.12) unpacked into $2/src-$1
# once.  The .deb: $KBUILD_SRC_DEB when set, else one cached in $2, else
# apt-get download (the system's Debian), else, for a package only
# Debian unstable has (linux-source-7.2), `sid.sh download` of the
# shared tools ($KBUILD_SID, default ../shared/tools/sid.sh beside the
# repository), cached in $2.  The tree is unpacked again when another
# .deb of $1 is given (one of another package is not $1's).
kernel_source() {
	local pkg=$1 dir=$2 src=$2/src-$1 deb=${KBUILD_SRC_DEB:-} sid f
	sid=${KBUILD_SID:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." &&
		pwd)/../shared/tools/sid.sh}

	mkdir -p "$dir" && cd "$dir" || return 1
	case $(basename "$deb") in "$pkg"_*) ;; *) deb= ;; esac
	if [ -n "$deb" ]; then
		[ -f "$deb" ] || { echo "no $deb (KBUILD_SRC_DEB)" >&2; return 1; }
		deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")
	else
		for f in "$pkg"_*.deb; do [ -f "$f" ] && deb=$dir/$f; done
	fi
	if [ -d "$src/.unpacked" ] &&
	   { [ -z "$deb" ] || [ ! -f "$src/.unpacked/deb" ] ||
	     [ "$(cat "$src/.unpacked/deb")" = "$(basename "$deb")" ]; }; then
		return 0
	fi
	if [ -z "$deb" ]; then
		if ! apt-get download "$pkg" >&2; then
			[ -x "$sid" ] || {
				echo "$pkg: not in apt, and no $sid (KBUILD_SID)" >&2
				return 1
			}
			echo "$pkg: not in the system's apt; from Debian unstable ($sid)" >&2
			"$sid" download "$pkg" >&2 || return 1
		fi
		for f in "$pkg"_*.deb; do [ -f "$f" ] && deb=$dir/$f; done
	fi
	[ -n "$deb" ] || return 1
	rm -rf "$src" deb && mkdir -p "$src" deb
	dpkg -x "$deb" deb || return 1
	tar -C "$src" --strip-components=1 -xf deb/usr/src/"$pkg".tar.* ||
		return 1
	rm -rf deb
	mkdir -p "$src/.unpacked"
	basename "$deb" > "$src/.unpacked/deb"
}
