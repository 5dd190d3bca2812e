#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The relink after a one-line change, in a real kernel build: the gcc tree
# of scripts/kernel-build.sh linked again four times with dwarf2btf as
# its pahole and a cache of its own: with the cache empty (the build's
# first run, which notes the build), with nothing changed twice (the
# second run stores the batches, the third reads them back), and after
# one .c file was edited.  Each link step's BTF run is
# timed (and pahole's on the same file, for the ratio); the BTF the last
# build put in vmlinux must be the bytes of a run without cache.
#
# usage: kernel-relink.sh BIN
# env:   KBUILD_SRC_PKG   Debian source package (default linux-source-6.12)
#        KBUILD_JOBS      make -j (default nproc)
#        RELINK_FILE      the file edited (default kernel/sys.c)
#        PAHOLE_REF       pahole to compare the time with (default: pahole)
#        DWARF2BTF_CACHE  (default ${XDG_CACHE_HOME:-~/.cache}/dwarf2btf)
#
# Builds the tree first (scripts/kernel-build.sh, gcc only) when it is not
# there.  The edit appends a variable to RELINK_FILE and is taken back at
# the end.  Prints PASS/FAIL/SKIP lines and 'N passed, N failed, N skipped'.
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
pkg=${KBUILD_SRC_PKG:-linux-source-6.12}
jobs=${KBUILD_JOBS:-$(nproc)}
file=${RELINK_FILE:-kernel/sys.c}
ref=${PAHOLE_REF:-pahole}
cache=${DWARF2BTF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf}/kbuild
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"

src=$cache/src-$pkg
obj=$cache/build-$pkg-gcc
if [ ! -f "$obj/vmlinux" ]; then
	KBUILD_TOOLCHAINS=gcc "$here/kernel-build.sh" "$1" > /dev/null
fi
if [ ! -f "$obj/vmlinux" ] || [ ! -f "$src/$file" ]; then
	skip "no kernel tree at $obj (scripts/kernel-build.sh)"
	check_summary
	exit
fi

out=$cache/relink-gcc
rm -rf "$out" && mkdir -p "$out/tools" || exit 1
# The kernel's pahole: --version as the link named pahole answers it; an
# encoding run is ours with --stats, timed, its command line kept.
cat > "$out/tools/pahole" <<EOF
#!/usr/bin/env bash
case " \$* " in
*" -J "*)
	echo "\$*" > "$out/args"
	exec /usr/bin/time -f '%e %U %S %M' -o "$out/time" "$bin" --stats "\$@" \\
		2> "$out/stats"
	;;
esac
exec -a pahole "$bin" "\$@"
EOF
chmod +x "$out/tools/pahole"
export DWARF2BTF_CACHE_DIR=$out/cache
unset DWARF2BTF_NO_CACHE
mk=(make -C "$src" O="$obj" PAHOLE="$out/tools/pahole")

cp "$src/$file" "$out/file.orig" || exit 1
restore() {
	cp "$out/file.orig" "$src/$file"
}
trap restore EXIT

# usage: relink LABEL: link vmlinux again, keep the BTF step's figures.
relink() {
	rm -f "$obj/vmlinux" "$out/time" "$out/stats"
	if ! "${mk[@]}" -j"$jobs" vmlinux > "$out/$1.log" 2>&1 ||
	   [ ! -s "$out/time" ]; then
		tail -n 20 "$out/$1.log"
		fail "$1: make vmlinux"
		return 1
	fi
	if grep -v 'warning:' "$out/stats" | grep -c '^dwarf2btf:' > /dev/null; then
		cat "$out/stats"
		fail "$1: dwarf2btf failed inside kbuild"
		return 1
	fi
	read -r wall user sys rss < "$out/time"
	echo "$1 $wall $(echo "$user + $sys" | bc) $((rss / 1024))" >> "$out/results"
	pass "$1: link step's BTF in $wall s ($(grep 'batch cache:' "$out/stats" | sed 's/stats: //'))"
}

: > "$out/results"
relink "cache-empty" && relink "second-run" && relink "unchanged" ||
	{ check_summary; exit; }
printf '\n/* scripts/kernel-relink.sh */\nint dwarf2btf_relink_test = %d;\n' \
	"$$" >> "$src/$file"
relink "one-file-edited" || { check_summary; exit; }

# The BTF in vmlinux, against a run without cache on the file the last
# link step encoded (.tmp_vmlinux1, which kbuild keeps).
tmp=$obj/.tmp_vmlinux1
read -r -a args < "$out/args"
flags=("${args[@]:0:${#args[@]}-1}")
objcopy --dump-section .BTF="$out/vmlinux.BTF" "$obj/vmlinux" "$out/x" 2>/dev/null
DWARF2BTF_NO_CACHE=1 "$bin" "${flags[@]}" \
	--btf_encode_detached="$out/nocache.btf" "$tmp" > /dev/null 2>&1
if [ -s "$out/vmlinux.BTF" ] && cmp -s "$out/vmlinux.BTF" "$out/nocache.btf"; then
	pass "one-file-edited: vmlinux's .BTF is the bytes of a run without cache"
else
	fail "one-file-edited: vmlinux's .BTF differs from a run without cache"
fi

# Ours without cache and pahole, on the same file, the same flags.
for who in nocache pahole; do
	if [ "$who" = pahole ]; then
		command -v "$ref" > /dev/null || { skip "no $ref"; continue; }
		cmd=("$ref" "${flags[@]}" --btf_encode_detached="$out/p.btf" "$tmp")
	else
		cmd=(env DWARF2BTF_NO_CACHE=1 "$bin" "${flags[@]}"
		     --btf_encode_detached="$out/n.btf" "$tmp")
	fi
	/usr/bin/time -f '%e %U %S %M' -o "$out/time" "${cmd[@]}" > /dev/null 2>&1
	read -r wall user sys rss < "$out/time"
	echo "$who $wall $(echo "$user + $sys" | bc) $((rss / 1024))" >> "$out/results"
done
echo "link step's BTF run (${flags[*]}):"
awk '{ r[$1] = $2; c[$1] = $3; m[$1] = $4; n[NR] = $1 }
     END { for (i = 1; i <= NR; i++) {
		k = n[i]
		printf "  %-16s %6.2f s wall %6.2f s CPU %5d MB", k, r[k], c[k], m[k]
		if (r["pahole"] > 0)
			printf "  %.3f of pahole'"'"'s wall", r[k] / r["pahole"]
		printf "\n" } }' "$out/results"
check_summary
