#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a real kernel with dwarf2btf as its pahole, then check its BTF
# against what pahole makes of the same vmlinux and modules.
#
# usage: kernel-build.sh BIN
# env:   KBUILD_SRC_PKG (default linux-source-6.1), KBUILD_JOBS (nproc),
#        PAHOLE_REF=pahole to compare with (default: pahole on PATH),
#        DWARF2BTF_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/dwarf2btf)
#
# The source comes from Debian's linux-source package (apt-get download,
# cached).  The configuration is tinyconfig plus what BTF needs
# (DEBUG_INFO_BTF, DEBUG_INFO_BTF_MODULES, BPF_SYSCALL) and a few small
# modules.  The build runs `make PAHOLE=<a "pahole" link to BIN>`, so the
# kernel's own scripts choose the pahole options (from our --version) and
# run resolve_btfids on the result.  Not part of make check: it takes
# minutes.  Prints PASS/FAIL lines and 'N passed, N failed'.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
pkg=${KBUILD_SRC_PKG:-linux-source-6.1}
jobs=${KBUILD_JOBS:-$(nproc)}
cache=${DWARF2BTF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf}/kbuild
ref=${PAHOLE_REF:-pahole}
npass=0
nfail=0
pass() { echo "PASS $*"; npass=$((npass + 1)); }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }

need="bc bison flex libssl-dev cpio kmod libelf-dev"
missing=
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y -qq $missing >&2 || exit 1
fi

mkdir -p "$cache" && cd "$cache" || exit 1
if [ ! -d src/.unpacked ]; then
	ls "$pkg"_*.deb > /dev/null 2>&1 || apt-get download "$pkg" >&2 || exit 1
	rm -rf src deb && mkdir -p src deb
	dpkg -x "$(ls "$pkg"_*.deb | head -n 1)" deb || exit 1
	tar -C src --strip-components=1 -xf deb/usr/src/"$pkg".tar.xz || exit 1
	rm -rf deb
	mkdir -p src/.unpacked
fi

# The kernel calls $(PAHOLE); a link named "pahole" answers --version as
# the pahole release we are compatible with.
mkdir -p tools && ln -sf "$bin" tools/pahole
export PAHOLE="$cache/tools/pahole"
cd src || exit 1
log=$cache/build.log
{
	make tinyconfig PAHOLE="$PAHOLE" &&
	./scripts/config --enable 64BIT --enable DEBUG_KERNEL \
		--enable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--enable BPF_SYSCALL --enable DEBUG_INFO_BTF \
		--enable DEBUG_INFO_BTF_MODULES --enable MODULES \
		--enable MODULE_UNLOAD --module CRC_CCITT --module CRC_ITU_T \
		--module CRC7 --module CRC8 --module CRC4 &&
	make olddefconfig PAHOLE="$PAHOLE" &&
	grep -q '^CONFIG_DEBUG_INFO_BTF=y' .config &&
	grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' .config &&
	# a cached tree: link again, so that this BIN makes the BTF
	rm -f vmlinux &&
	time make -j"$jobs" PAHOLE="$PAHOLE" vmlinux modules
} > "$log" 2>&1
rc=$?
if [ $rc = 0 ]; then
	pass "build: make PAHOLE=dwarf2btf vmlinux modules ($(grep -c 'BTF' "$log") BTF lines in $log)"
else
	tail -n 30 "$log"
	fail "build: exit $rc, see $log"
	echo "$npass passed, $nfail failed"
	exit 1
fi
grep -E '^(real|user|sys)' "$log" | tr '\n' ' '; echo

# What pahole makes of the same files, compared with what is embedded now.
out=$cache/check && rm -rf "$out" && mkdir -p "$out"
if ! command -v "$ref" > /dev/null; then
	echo "no $ref to compare with"; echo "$npass passed, $nfail failed"; exit 1
fi
# A pahole without --btf_features (Debian 12's 1.24) picks functions by
# older rules: with it, functions are shown, not checked.  (grep -c, not
# -q, here and below: -q stops reading at the first match, and the
# writer's SIGPIPE would fail the pipeline under pipefail.)
if "$ref" --help 2>&1 | grep -c btf_features > /dev/null; then
	feat=--btf_features=default
	fkinds=types,funcs
else
	feat=--btf_gen_floats
	fkinds=types
	echo "$ref $("$ref" --version) predates --btf_features: functions not compared"
fi
"$ref" -J $feat --btf_encode_detached="$out/vmlinux.pahole" vmlinux > /dev/null 2>&1
if "$bin" diff vmlinux "$out/vmlinux.pahole" --kinds=types --summary; then
	pass "vmlinux: named types equal $ref's"
else
	fail "vmlinux: named types differ from $ref's"
fi
if [ "$fkinds" = types ]; then
	"$bin" diff vmlinux "$out/vmlinux.pahole" --kinds=funcs --summary
elif "$bin" diff vmlinux "$out/vmlinux.pahole" --kinds=funcs --summary; then
	pass "vmlinux: functions equal $ref's"
else
	fail "vmlinux: functions differ from $ref's"
fi
# Upstream pahole 1.31 repeats in each module typedefs the base already has
# (u32, size_t, ...); Debian's 1.24 and we do not.  Those are not counted.
n=0
bad=0
reps=0
for ko in $(find . -name '*.ko'); do
	n=$((n + 1))
	m=$(basename "$ko" .ko)
	"$ref" -J $feat --btf_base vmlinux --btf_encode_detached="$out/$m.pahole" "$ko" > /dev/null 2>&1
	"$bin" diff --base vmlinux --kinds=$fkinds "$ko" "$out/$m.pahole" \
		> "$out/$m.diff"
	r=$(grep -c '^+ typedef' "$out/$m.diff")
	reps=$((reps + r))
	if grep -v -e '^+ typedef' -e '^types:' "$out/$m.diff" |
	   grep -c . > /dev/null; then
		bad=$((bad + 1))
		head -n 5 "$out/$m.diff"
	fi
done
if [ "$n" -gt 0 ] && [ "$bad" = 0 ]; then
	pass "modules: $n, $fkinds equal $ref's ($reps typedefs it repeats from the base not counted)"
else
	fail "modules: $bad of $n differ from $ref's"
fi
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
