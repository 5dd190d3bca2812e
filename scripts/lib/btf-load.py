#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Load a raw BTF file into the running kernel with bpf(BPF_BTF_LOAD), the
# kernel's own BTF verifier being the strictest reader we have.
#
# usage: btf-load.py FILE
# Prints 'loaded' (exit 0), 'skip: <reason>' when this process may not
# load BTF, the kernel has no bpf(2) or the BTF is in the other byte order
# (exit 0), or 'FAIL: <reason>' and
# the kernel's verifier log (exit 1).  No C helper and no libbpf needed:
# ctypes calls syscall(2) directly.
import ctypes
import errno
import os
import platform
import sys

BPF_BTF_LOAD = 18
# BTF's magic 0xeb9f as a machine of the other byte order writes it
BTF_MAGIC_SWAPPED = (0xeb9f).to_bytes(2, 'big' if sys.byteorder == 'little'
                                      else 'little')

# __NR_bpf differs per architecture.
NR_BPF = {
    'x86_64': 321, 'aarch64': 280, 'riscv64': 280, 'loongarch64': 280,
    'i386': 357, 'i686': 357, 'armv7l': 386, 'ppc64le': 361, 's390x': 351,
}

LOG_SIZE = 16 << 20


class BtfLoadAttr(ctypes.Structure):
    # The BPF_BTF_LOAD member of union bpf_attr (include/uapi/linux/bpf.h).
    # Kernels that predate the later fields only require them to be zero.
    _fields_ = [
        ('btf', ctypes.c_uint64),
        ('btf_log_buf', ctypes.c_uint64),
        ('btf_size', ctypes.c_uint32),
        ('btf_log_size', ctypes.c_uint32),
        ('btf_log_level', ctypes.c_uint32),
        ('btf_log_true_size', ctypes.c_uint32),
        ('btf_flags', ctypes.c_uint32),
        ('btf_token_fd', ctypes.c_int32),
    ]


def btf_load(libc, nr, data, log):
    attr = BtfLoadAttr()
    attr.btf = ctypes.addressof(data)
    attr.btf_size = len(data)
    if log is not None:
        attr.btf_log_buf = ctypes.addressof(log)
        attr.btf_log_size = len(log)
        attr.btf_log_level = 1
    fd = libc.syscall(ctypes.c_long(nr), ctypes.c_int(BPF_BTF_LOAD),
                      ctypes.byref(attr),
                      ctypes.c_uint(ctypes.sizeof(attr)))
    return fd, ctypes.get_errno()


def main():
    if len(sys.argv) != 2:
        print('usage: btf-load.py FILE', file=sys.stderr)
        return 2
    path = sys.argv[1]
    nr = NR_BPF.get(platform.machine())
    if nr is None:
        print('skip: no bpf(2) number known for ' + platform.machine())
        return 0
    with open(path, 'rb') as f:
        raw = f.read()
    # The kernel reads BTF in its own byte order only (an s390x vmlinux's
    # BTF is big-endian); the other order says nothing about the BTF.
    if raw[:2] == BTF_MAGIC_SWAPPED:
        print('skip: BTF in the other byte order than this kernel\'s')
        return 0
    data = ctypes.create_string_buffer(raw, len(raw))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long

    # Without a log first: a verbose log can be larger than any buffer
    # and some kernels then fail the load with ENOSPC.
    fd, err = btf_load(libc, nr, data, None)
    if fd >= 0:
        os.close(fd)
        print('loaded')
        return 0
    if err in (errno.EPERM, errno.EACCES, errno.ENOSYS):
        print('skip: %s (%s)' % (errno.errorcode.get(err, err),
                                 os.strerror(err)))
        return 0

    log = ctypes.create_string_buffer(LOG_SIZE)
    fd2, err2 = btf_load(libc, nr, data, log)
    if fd2 >= 0:
        # Should not happen; report the first error anyway.
        os.close(fd2)
    print('FAIL: %s: BPF_BTF_LOAD: %s (%s)' %
          (path, errno.errorcode.get(err, err), os.strerror(err)))
    text = log.value.decode('utf-8', 'replace').rstrip()
    if text:
        # The error is at the end; the start repeats the header.
        lines = text.splitlines()
        if len(lines) > 60:
            print('\n'.join(lines[:10]))
            print('... (%d lines) ...' % (len(lines) - 60))
            lines = lines[-50:]
        print('\n'.join(lines))
    return 1


if __name__ == '__main__':
    sys.exit(main())
