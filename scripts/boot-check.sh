#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot kernels whose BTF dwarf2btf made, and run BPF programs on them, as
# BPF CI does for the kernels it tests.  For each toolchain (gcc, and clang
# with LLVM=1): Debian's linux-source-6.12 (kernel-build.sh's copy; another
# with KBUILD_SRC_PKG), tinyconfig plus what BTF, a serial console, an
# initramfs and fentry need, modules configfs and binfmt_misc, built with
# `make PAHOLE=<dwarf2btf as pahole>`.  It boots under QEMU with an
# initramfs of Debian's busybox-static and scripts/lib/boot/probe (static,
# Debian's libbpf.a), which in the guest:
#   - loads the modules; /sys/kernel/btf/{vmlinux,configfs,binfmt_misc}
#     exist;
#   - attaches fentry to do_filp_open (vmlinux; do_file_open from 7.0 on)
#     and to load_misc_binary (binfmt_misc), reads a struct filename field
#     and task->tgid by CO-RE (relocated against the guest's
#     /sys/kernel/btf/vmlinux), the task through the kfuncs
#     bpf_task_acquire()/bpf_task_release();
#   - opens a file and runs a program, checks what the probes saw, and
#     prints one VERDICT line, which this script checks.
# A developer check, not part of make check (it downloads the kernel
# source and builds two kernels).  Prints PASS/FAIL lines and 'N passed,
# N failed, N skipped'.
#
# usage: boot-check.sh BIN
# env:   KBUILD_SRC_PKG   Debian source package (default linux-source-6.12;
#                         linux-source-7.2 for Linux 7.2)
#        KBUILD_SRC_DEB   that package's .deb, already downloaded
#        KBUILD_SID       Debian unstable's packages for a source package
#                         the system's apt does not have (default
#                         ../shared/tools/sid.sh beside the repository)
#        BOOT_TOOLCHAINS  default "gcc llvm"
#        BOOT_ACCEL       tcg (default) or kvm: under KVM these kernels
#                         hang before their first line on the machine
#                         this was written on (nested KVM); TCG boots them
#        KBUILD_LLVM      the LLVM= value (default -19 with clang-19)
#        BOOT_PAHOLE      for comparison: build the same kernels with this
#                         pahole instead (upstream pahole 1.31; 1.32 for
#                         7.x), in the same trees (only the BTF steps run
#                         again)
#        DWARF2BTF_CACHE  (default ${XDG_CACHE_HOME:-~/.cache}/dwarf2btf)
set -u -o pipefail

[ $# = 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/lib/check-lib.sh
. "$here/lib/check-lib.sh"
pkg=$(kernel_source_pkg linux-source-6.12)
cache=${DWARF2BTF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dwarf2btf}/kbuild
src=$cache/src-$pkg
accel=${BOOT_ACCEL:-tcg}
if [ -z "${KBUILD_LLVM:-}" ]; then
	KBUILD_LLVM=1
	command -v clang-19 > /dev/null && KBUILD_LLVM=-19
fi

need_packages busybox-static qemu-system-x86 libbpf-dev libelf-dev \
	zlib1g-dev libzstd-dev bpftool clang cpio bc bison flex libssl-dev ||
	exit 1
kernel_source "$pkg" "$cache" || exit 1
encoder=dwarf2btf
if [ -n "${BOOT_PAHOLE:-}" ]; then
	bin=$(command -v "$BOOT_PAHOLE") || { echo "no $BOOT_PAHOLE" >&2; exit 1; }
	encoder="$BOOT_PAHOLE $("$bin" --version)"
fi
mkdir -p "$cache/tools" && ln -sf "$bin" "$cache/tools/pahole"

# Build the boot kernel of toolchain $1 into $cache/boot-$pkg-$1.
build() {
	local tc=$1 obj=$cache/boot-$pkg-$1
	local mk=(make -C "$src" O="$obj" PAHOLE="$cache/tools/pahole")

	[ "$tc" = llvm ] && mk+=(LLVM="$KBUILD_LLVM")
	mkdir -p "$obj"
	"${mk[@]}" tinyconfig &&
	"$src"/scripts/config --file "$obj/.config" \
		--enable 64BIT --enable DEBUG_KERNEL \
		--enable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
		--enable BPF_SYSCALL --enable BPF_JIT --enable DEBUG_INFO_BTF \
		--enable DEBUG_INFO_BTF_MODULES --enable MODULES \
		--enable MODULE_UNLOAD --module CONFIGFS_FS --module BINFMT_MISC \
		--enable PRINTK --enable TTY --enable SERIAL_8250 \
		--enable SERIAL_8250_CONSOLE --enable BLK_DEV_INITRD \
		--enable RD_GZIP --enable BINFMT_ELF --enable BINFMT_SCRIPT \
		--enable DEVTMPFS --enable DEVTMPFS_MOUNT --enable PROC_FS \
		--enable SYSFS --enable KALLSYMS --enable FTRACE \
		--enable FUNCTION_TRACER --enable DYNAMIC_FTRACE \
		--enable HYPERVISOR_GUEST --enable PARAVIRT --enable KVM_GUEST \
		--enable MULTIUSER --enable FUTEX --enable SHMEM &&
	"${mk[@]}" olddefconfig &&
	grep -c '^CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y' "$obj/.config" &&
	# a cached tree: link again, so that this encoder makes the BTF
	# (7.x: vmlinux is a copy of vmlinux.unstripped)
	find "$obj" \( -name vmlinux -o -name vmlinux.unstripped \
		-o -name '*.ko' \) -type f -delete &&
	time "${mk[@]}" -j"$(nproc)" bzImage modules
}

# The guest: the probe built against the kernel's own BTF, busybox, the
# modules, and an init that prints what the script checks.  The open
# function the probe attaches to is do_filp_open up to 6.x, do_file_open
# from 7.0 on; 7.x's structs have anonymous members of a named struct
# type (struct filename's struct __filename_head), which vmlinux.h
# writes as C with -fms-extensions reads them.
initramfs() {
	local obj=$1 work=$2 a fn=do_filp_open

	rm -rf "$work" && mkdir -p "$work/root/bin" "$work/root/proc" \
		"$work/root/sys" "$work/root/dev" || return 1
	bpftool btf dump file "$obj/vmlinux" > "$work/vmlinux.txt" &&
	bpftool btf dump file "$obj/vmlinux" format c > "$work/vmlinux.h" ||
		return 1
	grep -c "FUNC 'do_file_open'" "$work/vmlinux.txt" > /dev/null &&
		fn=do_file_open
	clang -g -O2 -target bpf -fms-extensions -Wno-microsoft-anon-tag \
		-D__TARGET_ARCH_x86 -DOPEN_FN="$fn" -I"$work" \
		-c "$here/lib/boot/probe.bpf.c" -o "$work/probe.bpf.o" &&
	bpftool gen skeleton "$work/probe.bpf.o" > "$work/probe.skel.h" &&
	gcc -static -O2 -DOPEN_FN="$fn" -I"$work" "$here/lib/boot/probe.c" \
		-lbpf -lelf -lz -lzstd -o "$work/root/probe" 2> "$work/cc.log" ||
		return 1
	cp "$(command -v busybox)" "$work/root/bin/" || return 1
	for a in sh mount insmod dmesg grep ls reboot echo true tr; do
		ln -s busybox "$work/root/bin/$a"
	done
	cp "$(find "$obj" -name configfs.ko)" \
		"$(find "$obj" -name binfmt_misc.ko)" \
		"$work/root/" || return 1
	cat > "$work/root/init" <<'EOF'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sys /sys
insmod /configfs.ko || echo "VERDICT FAIL: insmod configfs"
insmod /binfmt_misc.ko || echo "VERDICT FAIL: insmod binfmt_misc"
echo "GUEST BTF: $(ls /sys/kernel/btf | tr '\n' ' ')"
dmesg | grep -i btf | grep -i -e error -e fail -e invalid |
	sed 's/^/GUEST BTF ERROR: /'
/probe
reboot -f
EOF
	chmod +x "$work/root/init"
	(cd "$work/root" && find . | cpio -o -H newc --quiet | gzip) \
		> "$work/initramfs.gz"
}

for tc in ${BOOT_TOOLCHAINS:-gcc llvm}; do
	obj=$cache/boot-$pkg-$tc
	work=$obj-guest
	log=$obj.log
	if ! build "$tc" > "$log" 2>&1; then
		tail -n 20 "$log"
		fail "$tc kernel build: see $log"
		continue
	fi
	if grep -v '^dwarf2btf: warning:' "$log" |
	   grep -c '^dwarf2btf:' > /dev/null; then
		fail "$tc kernel build: dwarf2btf failed inside kbuild"
		continue
	fi
	if ! initramfs "$obj" "$work"; then
		fail "$tc guest: the probe or the initramfs could not be made"
		continue
	fi
	opts=(-m 512M -nographic -no-reboot)
	[ "$accel" = kvm ] && opts+=(-enable-kvm)
	start=$(date +%s.%N)
	timeout 180 qemu-system-x86_64 "${opts[@]}" \
		-kernel "$obj/arch/x86/boot/bzImage" \
		-initrd "$work/initramfs.gz" \
		-append "console=ttyS0 panic=-1" > "$work/console.log" 2>&1
	secs=$(echo "$(date +%s.%N) - $start" | bc)
	btf=$(tr -d '\r' < "$work/console.log" | sed -n 's/^GUEST BTF: //p')
	verdict=$(tr -d '\r' < "$work/console.log" | grep '^VERDICT' | head -n 1)
	if tr -d '\r' < "$work/console.log" | grep -c '^GUEST BTF ERROR' \
		> /dev/null; then
		fail "$tc guest: BTF errors in the kernel log"
	elif [ "$btf" != "binfmt_misc configfs vmlinux " ]; then
		fail "$tc guest: /sys/kernel/btf has '$btf'"
	elif [ "${verdict#VERDICT PASS}" = "$verdict" ]; then
		fail "$tc guest: ${verdict:-no verdict} (see $work/console.log)"
	else
		pass "$tc guest, $(cat "$obj/include/config/kernel.release" 2>/dev/null), BTF by $encoder (built in $(sed -n 's/^real[[:space:]]*//p' "$log"); $accel, booted and done in ${secs%.*} s): /sys/kernel/btf: $btf; $verdict"
	fi
done
check_summary
