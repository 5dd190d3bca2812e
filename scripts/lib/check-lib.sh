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

# The checks of a user program's BTF (check-cxx.sh, check-rust.sh), each a
# PASS or FAIL line: BIN encodes FILE at -j2, the same bytes at -j1,
# libbpf dumps it (with FUNCs whose names start with FUNC_PREFIX, if
# given), every struct layout of the DWARF is in it (BIN layout), the C
# header bpftool prints compiles with clang (SKIP where the header has a
# _Float16 and that clang has none: before clang 15), and it loads into
# the running kernel (SKIP where this process may not load BTF).
# usage: check_user_btf BIN FILE [FUNC_PREFIX]
check_user_btf() {
	local bin=$1 file=$2 fprefix=${3:-} dir nt nf nerr res here cc=clang
	here=$(dirname "${BASH_SOURCE[0]}")
	# clang 19 knows x86-64's _Float16 (Rust's f16), clang 14 not.
	command -v clang-19 > /dev/null && cc=clang-19
	dir=$(mktemp -d) || return 1
	if "$bin" -j2 -o "$dir/j2.btf" "$file"; then
		pass "encode: $(stat -c %s "$dir/j2.btf") bytes"
	else
		fail "encode"
	fi
	if "$bin" -j1 -o "$dir/j1.btf" "$file" &&
	   cmp -s "$dir/j1.btf" "$dir/j2.btf"; then
		pass "threads: -j1 and -j2 byte-identical"
	else
		fail "threads"
	fi
	if bpftool btf dump file "$dir/j2.btf" > "$dir/dump" 2> "$dir/err"; then
		nt=$(grep -c '^\[' "$dir/dump")
		nf=$(grep -c "^\[[0-9]*\] FUNC '$fprefix" "$dir/dump")
		if [ -z "$fprefix" ] || [ "$nf" -gt 0 ]; then
			pass "libbpf: $nt types, $nf FUNCs${fprefix:+ under mangled names}"
		else
			fail "libbpf: no FUNC named $fprefix..."
		fi
	else
		fail "libbpf: $(head -1 "$dir/err")"
	fi
	if "$bin" layout "$file" "$dir/j2.btf" > "$dir/layout" 2>&1; then
		pass "$(tail -n 1 "$dir/layout")"
	else
		fail "$(tail -n 1 "$dir/layout")"
		sed -n '1,10s/^/     | /p' "$dir/layout"
	fi
	if ! bpftool btf dump file "$dir/j2.btf" format c > "$dir/h.h" \
		2> /dev/null; then
		fail "header: bpftool btf dump format c"
	elif grep -q '_Float16' "$dir/h.h" &&
	     ! echo '_Float16 x;' | $cc -fsyntax-only -x c - 2> /dev/null; then
		# An older clang cannot tell; the header is not at fault.
		skip "header: $cc has no _Float16 (clang-19: scripts/install-deps.sh pahole-tests)"
	else
		nerr=$($cc -fsyntax-only -ferror-limit=0 -x c "$dir/h.h" 2>&1 |
		       grep -c 'error:')
		if [ "$nerr" = 0 ]; then
			pass "header: compiles with $cc (0 errors)"
		else
			fail "header: $nerr $cc errors, the first:" \
			     "$($cc -fsyntax-only -x c "$dir/h.h" 2>&1 |
				grep -m1 'error:')"
		fi
	fi
	res=$(python3 "$here/btf-load.py" "$dir/j2.btf" 2>&1)
	case $res in
	loaded) pass "kernel: loads into the running kernel" ;;
	skip:*) skip "kernel: ${res#skip: }" ;;
	*) fail "kernel: $(printf '%s\n' "$res" | head -1);" \
		"the verifier log's last line: $(printf '%s\n' "$res" | tail -1)" ;;
	esac
	rm -rf "$dir"
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
