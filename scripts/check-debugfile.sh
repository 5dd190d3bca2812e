#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Separate debug info as a distribution ships it: Debian's libc6-dbg puts
# the DWARF of libc.so.6 under /usr/lib/debug/.build-id/.  A copy of the
# system's (stripped) libc.so.6 must get, found by its build-id, the very
# BTF encoded from the debug file directly; in place, the copy keeps
# loading.  With PAHOLE_REF (upstream pahole), its BTF of the debug file
# equals ours.  Installs libc6-dbg when missing (a developer check, not
# part of make check).  Prints PASS/FAIL lines and 'N passed, N failed'.
#
# usage: check-debugfile.sh BIN
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
npass=0
nfail=0
pass() { echo "PASS $*"; npass=$((npass + 1)); }
fail() { echo "FAIL $*"; nfail=$((nfail + 1)); }

if ! dpkg-query -W -f='${Status}' libc6-dbg 2>/dev/null |
	grep -c 'ok installed' > /dev/null; then
	sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
	$sudo apt-get install -y -qq libc6-dbg >&2 || exit 1
fi
libc=$(ldconfig -p | awk '/libc\.so\.6 .*x86-64|libc\.so\.6 \(libc6,/ {print $NF; exit}')
[ -f "$libc" ] || { echo "no libc.so.6 found"; exit 1; }
id=$(readelf -n "$libc" | awk '/Build ID/ {print $3; exit}')
debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
[ -f "$debug" ] || { echo "libc6-dbg has no $debug (versions differ?)"; exit 1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cp "$libc" "$tmp/libc.so.6"
if "$bin" -o "$tmp/direct.btf" "$debug" &&
   "$bin" -o "$tmp/found.btf" "$tmp/libc.so.6" &&
   cmp -s "$tmp/direct.btf" "$tmp/found.btf"; then
	pass "build-id: $(bpftool btf dump file "$tmp/found.btf" | grep -c "^\[") types, byte-identical to the debug file's ($debug)"
else
	fail "build-id: BTF of the stripped copy differs from the debug file's"
fi
"$bin" diff "$tmp/direct.btf" "$tmp/found.btf" --summary
if "$bin" "$tmp/libc.so.6" &&
   readelf -S -W "$tmp/libc.so.6" | grep -c ' \.BTF ' > /dev/null &&
   [ "$(LD_LIBRARY_PATH=$tmp /bin/echo loads)" = loads ]; then
	pass "in place: the copy has .BTF and still loads"
else
	fail "in place"
fi
# Against upstream pahole on the debug file (PAHOLE_REF: a pahole with
# --btf_features): the default path and --plain-dedup alike.
ref=${PAHOLE_REF:-}
if [ -n "$ref" ] && "$ref" --help 2>&1 | grep -c btf_features > /dev/null
then
	"$ref" -J --btf_features=default \
		--btf_encode_detached="$tmp/pahole.btf" "$debug" > /dev/null 2>&1
	# batches: glibc is small enough for one dedup; force the batches
	# that larger inputs take (they run again here: docs/design.md)
	for mode in default plain batches; do
		extra= force=
		[ "$mode" = plain ] && extra=--plain-dedup
		[ "$mode" = batches ] && force=DWARF2BTF_BATCH_DEDUP=1
		# shellcheck disable=SC2086
		if env $force "$bin" --btf_features=default $extra -o "$tmp/$mode.btf" \
			"$debug" && "$bin" diff "$tmp/pahole.btf" "$tmp/$mode.btf" \
			> "$tmp/$mode.diff"; then
			pass "pahole: $mode path equal to $ref's ($(tail -n 1 "$tmp/$mode.diff"))"
		else
			head -n 10 "$tmp/$mode.diff"
			fail "pahole: $mode path differs from $ref's"
		fi
	done
else
	echo "SKIP pahole: no PAHOLE_REF with --btf_features"
fi
echo "$npass passed, $nfail failed"
[ "$nfail" = 0 ]
