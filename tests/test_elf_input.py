# SPDX-License-Identifier: GPL-2.0-only
"""ELF input: compressed debug sections, extended section numbering, other
architectures (both byte orders, 32 and 64 bits, relocatable objects whose
DWARF needs their relocations applied).
"""

import os

import btfparse

SAMPLE = r"""
struct sample {
	int i;
	long long ll;
	void *p;
	short s[3];
	struct sample *next;
} sample_v;
"""


def _compile(ctx, cc, args, src, name):
    c = os.path.join(ctx.tmp, name + ".c")
    with open(c, "w") as f:
        f.write(src)
    obj = os.path.join(ctx.tmp, name + ".o")
    p = ctx.run([cc, "-g", "-O2", "-c", c, "-o", obj] + list(args))
    if p.returncode != 0:
        raise ctx.Skip("%s %s cannot build: %s"
                       % (cc, " ".join(args), p.stderr.strip()[:200]))
    return obj


def _encode(ctx, obj):
    out = obj + ".btf"
    p = ctx.run([ctx.bin, "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError("%s failed: %s" % (obj, p.stderr))
    return out


def test_compressed_debug_sections(ctx):
    # SHF_COMPRESSED (zlib) .debug_* give the very same BTF.
    fx = os.path.join(ctx.root, "tests", "fixtures", "types_composite.c")
    src = open(fx).read()
    for cc in ("gcc", "clang"):
        plain = _encode(ctx, _compile(ctx, cc, [], src, cc + "-plain"))
        z = _compile(ctx, cc, ["-gz=zlib"], src, cc + "-z")
        p = ctx.run(["readelf", "-S", "-W", z])
        if " C " not in p.stdout and "C   " not in p.stdout:
            raise AssertionError("%s: no compressed section:\n%s"
                                 % (cc, p.stdout))
        zb = _encode(ctx, z)
        if open(plain, "rb").read() != open(zb, "rb").read():
            raise AssertionError("%s: -gz=zlib changed the BTF" % cc)


def test_relocatable_many_units(ctx):
    """A relocatable object is read into memory of ours, never a mapping
    of the file: no page of it may be given back (madvise), or what was
    on it reads as zeros.  64 units (ld -r) make a .debug_abbrev of
    several pages."""
    objs = []
    for i in range(1, 65):
        objs.append(_compile(
            ctx, "gcc", [],
            "struct s%d { int a; long b[%d]; struct s%d *n; };\n"
            "int f%d(struct s%d *p) { return p->a + (int)p->b[0]; }\n"
            % (i, i, i, i, i), "u%d" % i))
    big = os.path.join(ctx.tmp, "big.o")
    p = ctx.run(["ld", "-r", "-o", big] + objs)
    assert p.returncode == 0, p.stderr
    btf = ctx.btf(_encode(ctx, big))
    names = {t.name for t in btf.all_types() if t.kind == "struct"}
    assert names == {"s%d" % i for i in range(1, 65)}, sorted(names)


def test_extended_section_numbering(ctx):
    # 70000 sections: e_shnum is 0 and section 0 holds the count.
    lines = ["struct many { int a; long b; } many_v;"]
    lines += ['int v%d __attribute__((section(".s.%d"))) = %d;' % (i, i, i)
              for i in range(70000)]
    obj = _compile(ctx, "gcc", [], "\n".join(lines) + "\n", "many")
    p = ctx.run(["readelf", "-h", obj])
    if "0 (700" not in p.stdout:
        raise AssertionError("not an extended-numbering ELF:\n" + p.stdout)
    got = [ln for ln in btfparse.render(ctx.btf(_encode(ctx, obj)), "types")
           if ln.startswith("struct many ")]
    want = ["struct many size=16 { a int off=0; b long int off=64; }"]
    if got != want:
        raise AssertionError("got %s, want %s" % (got, want))


# target -> (byte order, pointer size)
TARGETS = {
    "x86_64-linux-gnu": ("little", 8),
    "i386-linux-gnu": ("little", 4),
    "aarch64-linux-gnu": ("little", 8),
    "riscv64-linux-gnu": ("little", 8),
    "arm-linux-gnueabi": ("little", 4),
    "powerpc64le-linux-gnu": ("little", 8),
    "powerpc64-linux-gnu": ("big", 8),
    "s390x-linux-gnu": ("big", 8),
}


def test_targets(ctx):
    # Relocatable objects of other architectures: their DWARF relocations
    # are applied, the layout is the target's, BTF is in its byte order.
    for target, (order, ptr) in sorted(TARGETS.items()):
        obj = _compile(ctx, "clang", ["--target=" + target], SAMPLE,
                       target)
        out = _encode(ctx, obj)
        magic = open(out, "rb").read(2)
        want_magic = b"\xeb\x9f" if order == "big" else b"\x9f\xeb"
        if magic != want_magic:
            raise AssertionError("%s: BTF magic %s, want %s byte order"
                                 % (target, magic.hex(), order))
        ll_align = 4 if target == "i386-linux-gnu" else 8
        off_ll = 32 if ll_align == 4 else 64
        off_p = off_ll + 64
        off_s = off_p + ptr * 8
        off_next = off_s + 48
        off_next += (-off_next) % (ptr * 8)
        size = (off_next + ptr * 8) // 8
        align = max(ll_align, ptr)
        size += (-size) % align
        want = ("struct sample size=%d { i int off=0; ll long long off=%d; "
                "p void * off=%d; s short[3] off=%d; "
                "next struct sample * off=%d; }"
                % (size, off_ll, off_p, off_s, off_next))
        got = [ln for ln in btfparse.render(ctx.btf(out), "types")
               if ln.startswith("struct sample ")]
        if got != [want]:
            raise AssertionError("%s:\n got  %s\n want %s"
                                 % (target, got, [want]))


def test_unknown_machine(ctx):
    # A relocatable object of a machine elfutils has no relocation support
    # for: a clear error, never BTF from unrelocated DWARF.
    obj = _compile(ctx, "gcc", [], SAMPLE, "sample")
    data = bytearray(open(obj, "rb").read())
    data[18:20] = (0x1234).to_bytes(2, "little")    # e_machine
    bad = os.path.join(ctx.tmp, "unknown.o")
    open(bad, "wb").write(bytes(data))
    out = os.path.join(ctx.tmp, "unknown.btf")
    p = ctx.run([ctx.bin, "-o", out, bad])
    if p.returncode != 1 or "machine" not in p.stderr or \
            len(p.stderr.strip().splitlines()) != 1:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    if os.path.exists(out) or open(bad, "rb").read() != bytes(data):
        raise AssertionError("output written or input changed")


def test_target_pointer_sizes(ctx):
    # A 32-bit machine's pointer is 4 bytes in the variables' sizes too.
    # libbpf guesses it from a "long" in the BTF and, without one yet,
    # took the host's 8 for good: i386 per-CPU pointers came out 8 bytes.
    src = ('void *pcpu_p __attribute__((section(".data..percpu")));\n'
           'char *pcpu_arr[4] __attribute__((section(".data..percpu")));\n')
    for target in ("i386-linux-gnu", "arm-linux-gnueabi", "x86_64-linux-gnu"):
        ptr = TARGETS[target][1]
        obj = _compile(ctx, "clang", ["--target=" + target], src,
                       "ptr-" + target)
        got = [ln for ln in btfparse.render(ctx.btf(_encode(ctx, obj)), "all")
               if ln.startswith("datasec ")]
        # x86-64 aligns the array to 16 bytes
        arr = 16 if ptr == 8 else ptr
        want = ["datasec .data..percpu size=%d { pcpu_p off=0 size=%d; "
                "pcpu_arr off=%d size=%d; }" % (arr + 4 * ptr, ptr, arr,
                                                4 * ptr)]
        if got != want:
            raise AssertionError("%s:\n got  %s\n want %s"
                                 % (target, got, want))


def test_elf_input_symbol_sort(ctx):
    """The symbol index's sort by name and address (radix on 8-byte
    chunks): elf_sym__cmp()'s order, stable (tests/unit/test_symtab_sort.c
    under ASan and UBSan)."""
    ctx.unit("test_symtab_sort", ["lib/grow.c", "input/elf_file.c",
                                 "lib/u32_map.c", "lib/str_arena.c"],
             ["-lelf"])
