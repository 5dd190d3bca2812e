#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Are the libraries dwarf2btf builds with there?  Asks pkg-config only
# (no package manager, nothing installed); names what is missing and the
# Debian package that has it.  `make test-deps` installs everything the
# build and the tests need, on Debian.
#
# usage: check-build-deps.sh [MODULE...]   (default: libbpf libdw libelf zlib)
# env:   PKG_CONFIG (default pkg-config)
set -u

pc=${PKG_CONFIG:-pkg-config}
if ! command -v "$pc" > /dev/null 2>&1; then
	echo "dwarf2btf build: no $pc (Debian: pkg-config)" >&2
	exit 1
fi
missing=
for m in ${*:-libbpf libdw libelf zlib}; do
	"$pc" --exists "$m" 2>/dev/null && continue
	case $m in
	zlib) deb=zlib1g-dev ;;
	*) deb=$m-dev ;;
	esac
	missing="$missing $m ($deb)"
done
if [ -n "$missing" ]; then
	echo "dwarf2btf build: missing libraries:$missing; on Debian: make test-deps, or apt-get install the packages named" >&2
	exit 1
fi
