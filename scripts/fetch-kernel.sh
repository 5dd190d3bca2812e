#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Download a Debian kernel debug package (vmlinux and modules with DWARF
# and the .BTF Debian's pahole made) into a cache once, unpack it, and
# print the path of its vmlinux (or of its modules folder) as the last
# line on stdout.  Progress goes to stderr.
#
# usage: fetch-kernel.sh [-m|--modules] [-d|--dir] [PKG[:ARCH]]
#   PKG            default linux-image-6.12.117+deb12-cloud-amd64-dbg
#   :ARCH          another architecture's package (e.g.
#                  linux-image-6.12.117+deb12-cloud-arm64-dbg:arm64); apt
#                  is told of ARCH first (dpkg --add-architecture)
#                  A package the system's apt does not know (Debian
#                  unstable's, e.g. linux-image-7.2.13+deb14-cloud-amd64-dbg)
#                  comes through ../shared/tools/sid.sh when it is there.
#   -m, --modules  print the modules folder (lib/modules/<release>/)
#   -d, --dir      print the folder the package was unpacked into
# env:
#   XDG_CACHE_HOME cache root (default ~/.cache); files go to .../dwarf2btf/
#   FETCH_KERNEL_PRINT=vmlinux|modules|dir   same as the options
#
# Layout under the cache:
#   <pkg>_<version>_<arch>.deb   as apt-get download names it (kept)
#   <pkg>/                       dpkg -x of it
#   <pkg>/.unpacked              stamp: the .deb that was unpacked there
# A second run finds the stamp and only prints the path.
set -eu

die() {
	echo "fetch-kernel: $*" >&2
	exit 1
}

what=${FETCH_KERNEL_PRINT:-vmlinux}
pkg=
while [ $# -gt 0 ]; do
	case $1 in
	-m|--modules) what=modules ;;
	-d|--dir) what=dir ;;
	-h|--help) sed -n '3,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) die "unknown option $1" ;;
	*) [ -z "$pkg" ] || die "only one package"; pkg=$1 ;;
	esac
	shift
done
pkg=${pkg:-linux-image-6.12.117+deb12-cloud-amd64-dbg}
# PKG:ARCH is what apt downloads; the cache is named after PKG alone.
apt_pkg=$pkg
arch=
case $pkg in
*:*) arch=${pkg##*:}; pkg=${pkg%:*} ;;
esac
case $what in
vmlinux|modules|dir) ;;
*) die "FETCH_KERNEL_PRINT must be vmlinux, modules or dir" ;;
esac

cache=${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf
sid=$(cd "$(dirname "$0")/../.." && pwd)/shared/tools/sid.sh
dir=$cache/$pkg
stamp=$dir/.unpacked
mkdir -p "$cache"

# The first .deb of this package in the cache, if any (apt-get download
# names it <pkg>_<version>_<arch>.deb; the version may hold %3a for ':').
find_deb() {
	for f in "$cache/${pkg}"_*.deb; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}

fetch() {
	deb=$(find_deb)
	if [ -z "$deb" ]; then
		sudo=
		[ "$(id -u)" = 0 ] || sudo=sudo
		if [ -n "$arch" ] && [ "$arch" != "$(dpkg --print-architecture)" ] &&
		   ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
			echo "fetch-kernel: dpkg --add-architecture $arch" >&2
			$sudo dpkg --add-architecture "$arch" ||
				die "dpkg --add-architecture $arch failed"
		fi
		# apt knows the package only after an update on a fresh machine.
		if ! apt-cache show "$apt_pkg" >/dev/null 2>&1; then
			echo "fetch-kernel: apt-get update" >&2
			$sudo apt-get update -qq >&2 ||
				die "apt-get update failed"
		fi
		# Not the system's (Debian unstable's kernels): sid.sh's apt.
		get="apt-get download -q"
		if ! apt-cache show "$apt_pkg" >/dev/null 2>&1 && [ -x "$sid" ]; then
			get="$sid download"
			# its lists know a new architecture after an update
			[ -z "$arch" ] || rm -f "${SID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sid}/lists/.ok"
		fi
		echo "fetch-kernel: downloading $pkg" >&2
		tmp=$(mktemp -d "$cache/.dl.XXXXXX")
		# Download into a private folder and move the finished file, so
		# an interrupted download never looks like a cached .deb.  As
		# root, apt warns that _apt can't write here; that is harmless.
		# shellcheck disable=SC2086
		if ! (cd "$tmp" && $get "$apt_pkg" >&2); then
			rm -rf "$tmp"
			die "$get $apt_pkg failed"
		fi
		for f in "$tmp"/*.deb; do
			mv "$f" "$cache/"
		done
		rm -rf "$tmp"
		deb=$(find_deb)
		[ -n "$deb" ] || die "no .deb for $pkg after download"
	fi

	echo "fetch-kernel: unpacking $(basename "$deb")" >&2
	rm -rf "$dir" "$dir.tmp"
	mkdir -p "$dir.tmp"
	dpkg -x "$deb" "$dir.tmp" || die "dpkg -x $deb failed"
	basename "$deb" > "$dir.tmp/.unpacked"
	mv "$dir.tmp" "$dir"
}

# Two runs at once (make -j, two shells) must not unpack over each other.
if [ ! -f "$stamp" ]; then
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$cache/.lock-$pkg"
		flock 9
	fi
	[ -f "$stamp" ] || fetch
fi

case $what in
dir)
	echo "$dir"
	exit 0
	;;
vmlinux)
	for f in "$dir"/usr/lib/debug/boot/vmlinux-*; do
		[ -f "$f" ] && { echo "$f"; exit 0; }
	done
	die "no usr/lib/debug/boot/vmlinux-* in $dir"
	;;
modules)
	for f in "$dir"/usr/lib/debug/lib/modules/*/; do
		[ -d "$f" ] && { echo "${f%/}"; exit 0; }
	done
	die "no usr/lib/debug/lib/modules/*/ in $dir"
	;;
esac
