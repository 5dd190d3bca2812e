# SPDX-License-Identifier: GPL-2.0-only
"""Functions (FUNC + FUNC_PROTO) and per-CPU variables (VAR + DATASEC).

Each test links tests/fixtures/funcs_*.c into a small program (gcc or
clang, DWARF 4 or 5, -O2; objects come from ctx.fixture's cache, the link
happens in ctx.tmp), runs "dwarf2btf -o OUT PROG" and compares what it
emitted with expectations written from the C source and the function and
variable rules of upstream pahole 1.31's defaults ("§1.4" refers to that
section of the project's notes on those rules: §1 functions, §2 per-CPU
variables).

Tests, each for gcc/clang and DWARF 4/5:
  funcs_basic      one CU: global, static, varargs, void, unused param,
                   struct by value, double param, fully inlined function
  funcs_clones     gcc .isra/.constprop clones
  funcs_multi      two CUs + one without DWARF: inconsistent prototypes,
                   duplicate static names, declarations
  funcs_last_key   the last ELF key is checked for ambiguity too (pahole
                   1.31 never flags it; we differ on purpose)
  funcs_percpu     VARs and the DATASEC of .data..percpu
  funcs_skip_vars  --skip_encoding_btf_vars
  funcs_jobs       -j1, -j2 and -j5 write the same bytes (all fixtures)

Every expectation is a case: (name, the canonical btfparse line that must
be emitted or None for "nothing of that name", the rule it checks).  A
test checks that exactly the expected FUNCs (VARs) are there and reports
every wrong case with its rule and a command line to reproduce it.

A case needs something of the compiler (a gcc .isra/.constprop clone, an
abstract inline DIE, a declaration DIE).  When the compiler did not make
it, that case is left out and the test ends as SKIP naming it, after all
the other cases were checked.  clang makes no .isra/.constprop clones, so
the clone tests always skip for clang.
"""

import difflib
import os
import re
import struct

import btfparse

CCS = ("gcc", "clang")
DWARFS = (4, 5)

# The default linker script puts ".data.*" input sections into .data;
# this one keeps .data..percpu an output section of its own, as in vmlinux.
PERCPU_LDS = ("SECTIONS\n{\n\t.data..percpu : { *(.data..percpu) }\n}\n"
              "INSERT BEFORE .data;\n")

STT_OBJECT = 1
STT_FUNC = 2
STB_LOCAL = 0
SHT_SYMTAB = 2


# ------------------------------------------------------------- helpers

class Elf:
    """Sections and .symtab symbols of a little-endian ELF64 file."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise AssertionError("%s: not a little-endian ELF64 file" % path)
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<3H", data, 0x3A)
        hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]

        def strz(base, off):
            end = data.index(b"\0", base + off)
            return data[base + off:end].decode("utf-8", "replace")

        shstr = hdrs[shstrndx][4]
        # (name, type, addr, size) by section index
        self.sections = [(strz(shstr, h[0]), h[1], h[3], h[5]) for h in hdrs]
        # (name, type, bind, shndx, value, size)
        self.symbols = []
        for h in hdrs:
            if h[1] != SHT_SYMTAB:
                continue
            strtab = hdrs[h[6]][4]
            for off in range(h[4] + h[9], h[4] + h[5], h[9]):
                name, info, _other, shndx, value, size = \
                    struct.unpack_from("<IBBHQQ", data, off)
                self.symbols.append((strz(strtab, name), info & 0xF,
                                     info >> 4, shndx, value, size))

    def section(self, name):
        """(index, addr, size) of section ``name``, or None."""
        for i, (sname, _typ, addr, size) in enumerate(self.sections):
            if sname == name:
                return i, addr, size
        return None

    def funcs(self, name=None, prefix=None):
        """(name, bind, addr) of STT_FUNC symbols named ``name`` or whose
        name starts with ``prefix``."""
        return [(s[0], s[2], s[4]) for s in self.symbols
                if s[1] == STT_FUNC and (s[0] == name or
                                         (prefix and s[0].startswith(prefix)))]

    def func_keys(self):
        """§1.1: the ELF function table's keys (name cut at the first '.',
        .cold/.part parts left out), sorted as strcmp does."""
        keys = set()
        for s in self.symbols:
            if s[1] != STT_FUNC:
                continue
            dot = s[0].find(".")
            if dot >= 0 and (".cold" in s[0][dot:] or ".part" in s[0][dot:]):
                continue
            keys.add(s[0] if dot < 0 else s[0][:dot])
        return sorted(keys, key=lambda k: k.encode())


_DIE_RE = re.compile(r"^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: \d+ "
                     r"\((DW_TAG_\w+)\)")
_ATTR_RE = re.compile(r"^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*: ?(.*)$")


def subprograms(ctx, path):
    """DW_TAG_subprogram DIEs of ``path`` as (name or None, set of
    attribute names), read with readelf."""
    p = ctx.run(["readelf", "--debug-dump=info", path])
    if p.returncode != 0:
        raise AssertionError("readelf --debug-dump=info %s failed:\n%s"
                             % (path, p.stderr))
    out = []
    cur = None
    for ln in p.stdout.splitlines():
        m = _DIE_RE.match(ln)
        if m:
            cur = None
            if m.group(3) == "DW_TAG_subprogram":
                cur = [None, set()]
                out.append(cur)
            continue
        if "Abbrev Number: 0" in ln:
            cur = None
            continue
        m = _ATTR_RE.match(ln)
        if m and cur is not None:
            cur[1].add(m.group(1))
            if m.group(1) == "DW_AT_name":
                v = m.group(2).strip()
                # "(indirect string, offset: 0x8f): name" or "name"
                cur[0] = v.rsplit("): ", 1)[-1] if v.startswith("(") else v
    return [(n, a) for n, a in out]


def _no_sanitizer(p, cmd):
    assert p.returncode >= 0, "%s: killed by signal %d" % (
        " ".join(cmd), -p.returncode)


def encode(ctx, prog, out, opts=()):
    """Run the encoder on ``prog`` into raw BTF ``out``; return the parsed
    BTF and the command."""
    cmd = [ctx.bin] + list(opts) + ["-o", out, prog]
    p = ctx.run(cmd)
    _no_sanitizer(p, cmd)
    if p.returncode != 0 or not os.path.exists(out):
        raise AssertionError("%s failed (exit %d):\n%s%s" % (
            " ".join(cmd), p.returncode, p.stdout, p.stderr))
    return ctx.btf(out), " ".join(cmd)


def link(ctx, cc, dwarf, parts, percpu=False, name="prog"):
    """Link the fixtures ``parts`` ([(fixture, extra flags)], in this order)
    into ctx.tmp/<name>; with ``percpu``, keep .data..percpu apart."""
    objs = [ctx.fixture(f, cc, dwarf, tuple(extra)) for f, extra in parts]
    exe = os.path.join(ctx.tmp, name)
    cmd = [cc] + objs + ["-o", exe]
    if percpu:
        lds = os.path.join(ctx.tmp, "percpu.ld")
        with open(lds, "w") as f:
            f.write(PERCPU_LDS)
        cmd.append("-Wl,-T," + lds)
    p = ctx.run(cmd)
    if p.returncode != 0:
        raise AssertionError("link failed: %s\n%s" % (" ".join(cmd),
                                                       p.stderr))
    return exe


def lines_of(btf, kind):
    """Canonical lines of kind ``kind`` ("func", "var", "datasec")."""
    return [ln for ln in btfparse.render(btf) if ln.startswith(kind + " ")]


def line_name(ln):
    return ln.split(" ", 2)[1]


def check_cases(what, btf, kind, cases, skipped, cmd):
    """Exactly the lines of the cases are emitted (among those of
    ``kind``), apart from the names in ``skipped`` (left out: the compiler
    did not make what the case needs)."""
    got = [ln for ln in lines_of(btf, kind)
           if line_name(ln) not in skipped]
    want = sorted(ln for _n, ln, _why in cases
                  if ln is not None and _n not in skipped)
    if sorted(got) == want:
        return
    errs = []
    by_name = {}
    for ln in got:
        by_name.setdefault(line_name(ln), []).append(ln)
    known = set()
    for n, ln, why in cases:
        if n in skipped:
            continue
        known.add(n)
        have = by_name.get(n, [])
        exp = [ln] if ln is not None else []
        if sorted(have) != sorted(exp):
            errs.append("  %s [%s]\n      expected: %s\n      got:      %s"
                        % (n, why, " | ".join(exp) or "not emitted",
                           " | ".join(have) or "not emitted"))
    for n in sorted(set(by_name) - known):
        errs.append("  %s [not expected at all]\n      got:      %s"
                    % (n, " | ".join(by_name[n])))
    diff = "\n".join(difflib.unified_diff(want, sorted(got), "expected",
                                          "got", lineterm=""))
    raise AssertionError("%s: %d %s case(s) wrong:\n%s\n%s\nreproduce: %s"
                         % (what, len(errs), kind, "\n".join(errs), diff,
                            cmd))


def finish(what, skipped):
    if skipped:
        raise SkipCases("%s: other cases passed; skipped: %s" % (
            what, "; ".join("%s (%s)" % (n, why)
                            for n, why in sorted(skipped.items()))))


class SkipCases(Exception):
    """Turned into ctx.Skip by the test wrappers."""


def _make(fn, cc, dwarf):
    def test(ctx):
        try:
            fn(ctx, cc, dwarf)
        except SkipCases as e:
            raise ctx.Skip(str(e))
    test.__name__ = "test_%s_%s_dwarf%d" % (fn.__name__.lstrip("_"), cc,
                                           dwarf)
    return test


# ------------------------------------------------------------- functions

MAIN = ("main", "func main static int(int argc, char **argv)",
        "§1.2/1.5: global function, params named")


def _funcs_basic(ctx, cc, dwarf):
    prog = ctx.link("funcs_basic", cc, dwarf)
    what = "funcs_basic (%s, DWARF %d)" % (cc, dwarf)
    elf = Elf(prog)
    assert not elf.funcs("basic_inlined"), \
        "%s: fixture broken: always_inline basic_inlined has a symbol" % what
    btf, cmd = encode(ctx, prog, os.path.join(ctx.tmp, "out.btf"))
    cases = [
        MAIN,
        ("basic_global",
         "func basic_global static int(int count, char const *name)",
         "§1.5: global function, DWARF param names and types, static "
         "linkage"),
        ("basic_static",
         "func basic_static static u32(struct point *p, u32 scale)",
         "§1.5: static function, typedef return and param types kept"),
        ("basic_log", "func basic_log static int(char const *fmt, ...)",
         "§1.5: varargs = last param with no name and type void"),
        ("basic_noargs", "func basic_noargs static void(void)",
         "§1.5: no params, void return (type 0)"),
        ("basic_unused",
         "func basic_unused static int(int used, int ignored)",
         "§1.4: a param without location drops only clones, not a plain "
         "function"),
        ("basic_byval",
         "func basic_byval static int(struct point pt, int k)",
         "§1.3: struct by value (8 bytes, one register) keeps k in rsi"),
        ("basic_double", None,
         "§1.3: double arrives in xmm0, not rdi: unexpected register"),
        ("basic_inlined", None,
         "§1.2 step 4: fully inlined static, no ELF symbol"),
    ]
    check_cases(what, btf, "func", cases, set(), cmd)


# The clone a case needs: symbol suffixes (after "name.") that will do.
_CLONES = {"isra": (".isra.",), "any": (".isra.", ".constprop.")}


def _funcs_clones(ctx, cc, dwarf):
    prog = ctx.link("funcs_clones", cc, dwarf)
    what = "funcs_clones (%s, DWARF %d)" % (cc, dwarf)
    elf = Elf(prog)
    btf, cmd = encode(ctx, prog, os.path.join(ctx.tmp, "out.btf"))
    cases = [
        MAIN,
        ("clone_dead", None,
         "§1.3/1.4 skip_opt: .constprop/.isra clone whose param 'unused' "
         "is in no register (optimized)"),
        ("clone_byref", None,
         "§1.3/1.4: IPA-SRA passes p->b for p: the clone's params are "
         "changed (reordered or optimized) and it is a clone"),
        ("clone_const", None,
         "§1.4 skip_opt: .constprop clone, 'mode' is a constant "
         "(DW_AT_const_value, no location)"),
        ("clone_keep", "func clone_keep static int(int a, int b)",
         "§1.4/1.5: .isra clone that only dropped its return value: params "
         "still in rdi/rsi, emitted under the key with the source "
         "prototype"),
    ]
    needs = {"clone_dead": "any", "clone_byref": "isra",
             "clone_const": "any", "clone_keep": "isra"}
    skipped = {}
    for n, kind in needs.items():
        syms = [s[0] for s in elf.funcs(prefix=n + ".")]
        clones = [s for s in syms if any(sfx in s[len(n):]
                                         for sfx in _CLONES[kind])]
        if not clones or elf.funcs(n):
            skipped[n] = "%s made no %s clone (symbols: %s)" % (
                cc, " or ".join(s.strip(".") for s in _CLONES[kind]),
                ", ".join([s[0] for s in elf.funcs(n)] + syms))
    check_cases(what, btf, "func", cases, set(skipped), cmd)
    finish(what, skipped)


MULTI_PARTS = [("funcs_multi_a", ()), ("funcs_multi_b", ()),
               ("funcs_nodebug", ("-g0",))]


def _multi_needs(ctx, prog, elf):
    """Which multi-CU cases the compiler gave what they need."""
    dies = subprograms(ctx, prog)
    skipped = {}
    for n in ("shape", "same_proto", "const_ptr", "typedef_name"):
        if not any(d[0] == n and "DW_AT_inline" in d[1] for d in dies):
            skipped[n] = "no abstract inline DIE for %s in CU A" % n
    for n in ("decl_mismatch", "nodebug_fn"):
        if not any(d[0] == n and "DW_AT_declaration" in d[1] for d in dies):
            skipped[n] = "no declaration DIE for %s" % n
    if any(d[0] == "nodebug_fn" and "DW_AT_declaration" not in d[1]
           for d in dies):
        raise AssertionError("fixture broken: funcs_nodebug.c has DWARF")
    for n in ("helper", "zz_dup"):
        addrs = set(s[2] for s in elf.funcs(n) if s[1] == STB_LOCAL)
        assert len(addrs) == 2, \
            "fixture broken: want two static %s, symbols: %s" % (
                n, elf.funcs(n))
    return skipped


def _funcs_multi(ctx, cc, dwarf):
    prog = link(ctx, cc, dwarf, MULTI_PARTS)
    what = "funcs_multi (%s, DWARF %d)" % (cc, dwarf)
    elf = Elf(prog)
    skipped = _multi_needs(ctx, prog, elf)
    skipped_names = set(skipped) | {"zz_dup"}   # its own test
    btf, cmd = encode(ctx, prog, os.path.join(ctx.tmp, "out.btf"))
    cases = [
        MAIN,
        ("multi_b_entry", "func multi_b_entry static int(int n)",
         "§1.2 step 1: CU A's declaration is no candidate, B's definition is "
         "emitted"),
        ("shape", None,
         "§1.4 consistent_func: A's inline int(int) and B's int(char *, "
         "char *) disagree"),
        ("same_proto", "func same_proto static int(int w)",
         "§1.4: names not compared; canonical = B's out-of-line state "
         "(its addr is a symbol), so param name w"),
        ("const_ptr", "func const_ptr static int(int *q)",
         "§1.4 types__match: a CONST on one side is dropped; canonical = B"),
        ("typedef_name", "func typedef_name static int(multi_len len)",
         "§1.4 types__match: typedefs match by name only (int vs long); "
         "canonical = B"),
        ("helper", None,
         "§1.1 ambiguous_addr: two static helper symbols at different "
         "addresses"),
        ("decl_mismatch", "func decl_mismatch static int(int a)",
         "§1.2 step 1: A's declaration with other params is not compared"),
        ("nodebug_fn", None,
         "§1.2 step 1: only a declaration DIE (definition has no DWARF)"),
    ]
    check_cases(what, btf, "func", cases, skipped_names, cmd)
    finish(what, skipped)


def _funcs_last_key(ctx, cc, dwarf):
    prog = link(ctx, cc, dwarf, MULTI_PARTS)
    what = "funcs_last_key (%s, DWARF %d)" % (cc, dwarf)
    elf = Elf(prog)
    _multi_needs(ctx, prog, elf)
    keys = elf.func_keys()
    if keys[-1] != "zz_dup":
        raise SkipCases("%s: zz_dup is not the last ELF function key (%s is)"
                        % (what, keys[-1]))
    btf, cmd = encode(ctx, prog, os.path.join(ctx.tmp, "out.btf"))
    # pahole 1.31 emits "func zz_dup static int(int a_arg)" here: its loop
    # never flags the alphabetically last key (docs/functions.md).  Two
    # static zz_dup at different addresses are ambiguous whatever their
    # name sorts as, so we leave it out.
    cases = [
        ("zz_dup", None,
         "ambiguous: two static zz_dup at different addresses, even as the "
         "alphabetically last ELF key"),
    ]
    got = [ln for ln in lines_of(btf, "func") if line_name(ln) == "zz_dup"]
    if got != ([cases[0][1]] if cases[0][1] else []):
        raise AssertionError(
            "%s: 1 func case(s) wrong:\n  zz_dup [%s]\n      expected: %s\n"
            "      got:      %s\nreproduce: %s"
            % (what, cases[0][2], cases[0][1], " | ".join(got) or
               "not emitted", cmd))


# ------------------------------------------------------------- variables

PERCPU_PARTS = [("funcs_percpu_a", ()), ("funcs_percpu_b", ()),
                ("funcs_nodebug", ("-g0",))]

# name -> (linkage, type, C size); pcpu_dup is defined in both CUs.
PERCPU_VARS = [
    # §2 rule 2, linkage: DW_AT_external -> global_allocated
    ("pcpu_counter", "global", "int", 4),
    # §2: static (no DW_AT_external) -> static, 1 byte
    ("pcpu_flag", "static", "char", 1),
    # §2 rule 8: size = struct byte size
    ("pcpu_stats", "global", "struct pcpu_stats", 16),
    # §2: no dedup across CUs: one VAR per defining DIE (CU A)
    ("pcpu_dup", "static", "unsigned int", 4),
    # §2: ... and the other static pcpu_dup (CU B)
    ("pcpu_dup", "static", "unsigned int", 4),
    # §2 rule 8: array size = elem size * nelems, typedef followed
    ("pcpu_big", "global", "u64[3]", 24),
    # §2: static typedef'd 2-byte variable
    ("pcpu_short", "static", "s16", 2),
    # §2: global 1-byte variable
    ("pcpu_last", "global", "char", 1),
]
# Not emitted: (name, rule).
PERCPU_ABSENT = [
    ("plain_global", "§2 rule 3: in .data, not .data..percpu"),
    ("other_section", "§2 rule 3: section .data.other"),
    ("pcpu_in_func", "§2 rule 2: function-scope static is not top level"),
    ("nodebug_percpu", "§2: no DWARF, no VAR"),
]


def _percpu_expect(elf, what):
    """Expected var lines and datasec line, offsets from the ELF symbols."""
    sec = elf.section(".data..percpu")
    assert sec is not None, "%s: fixture broken: no .data..percpu" % what
    shndx, sh_addr, sh_size = sec
    ents = []
    var_lines = []
    names = sorted(set(v[0] for v in PERCPU_VARS))
    for name in names:
        decl = [v for v in PERCPU_VARS if v[0] == name]
        syms = [s for s in elf.symbols if s[0] == name and
                s[1] == STT_OBJECT and s[3] == shndx]
        assert len(syms) == len(decl), \
            "%s: fixture broken: %d .data..percpu symbols %s, want %d" % (
                what, len(syms), name, len(decl))
        for (_n, link_, typ, size), s in zip(decl, sorted(syms)):
            assert s[5] == size, "%s: fixture broken: %s has size %d, C " \
                "says %d" % (what, name, s[5], size)
            # §2 rule 3: offset = address - section address
            ents.append((s[4] - sh_addr, name, size))
            var_lines.append("var %s %s %s" % (name, link_, typ))
    # §2 DATASEC: entries sorted by offset, size = last offset + last size
    ents.sort()
    ds_size = ents[-1][0] + ents[-1][2]
    ds = "datasec .data..percpu size=%d { %s}" % (
        ds_size,
        "".join("%s off=%d size=%d; " % (n, o, z) for o, n, z in ents))
    # funcs_nodebug.c's variable (no DWARF) is linked last, after the
    # VARs: the DATASEC must end before the section does.
    assert ds_size < sh_size, \
        "%s: fixture broken: the last VAR ends .data..percpu" % what
    return sorted(var_lines), ds, sh_size


def _percpu_diff(what, kind, want, got, cmd, why):
    diff = "\n".join(difflib.unified_diff(want, got, "expected", "got",
                                          lineterm=""))
    return AssertionError("%s: %s lines wrong [%s]:\n%s\nreproduce: %s"
                          % (what, kind, why, diff, cmd))


def _funcs_percpu(ctx, cc, dwarf):
    prog = link(ctx, cc, dwarf, PERCPU_PARTS, percpu=True)
    what = "funcs_percpu (%s, DWARF %d)" % (cc, dwarf)
    elf = Elf(prog)
    want_vars, want_ds, sh_size = _percpu_expect(elf, what)
    btf, cmd = encode(ctx, prog, os.path.join(ctx.tmp, "out.btf"))
    got_vars = lines_of(btf, "var")
    got_names = set(line_name(ln) for ln in got_vars)
    for name, why in PERCPU_ABSENT:
        if any(n == name or n.endswith("." + name) or
               n.startswith(name + ".") for n in got_names):
            raise AssertionError("%s: VAR %s emitted [%s]\nreproduce: %s"
                                 % (what, name, why, cmd))
    if got_vars != want_vars:
        raise _percpu_diff(what, "var", want_vars, got_vars, cmd,
                           "§2: names, linkage (global_allocated vs static),"
                           " types")
    got_ds = lines_of(btf, "datasec")
    if got_ds != [want_ds]:
        raise _percpu_diff(what, "datasec", [want_ds], got_ds, cmd,
                           "§2: one .data..percpu DATASEC, offset = addr - "
                           "sh_addr, size = type size, sorted by offset, "
                           "size = last offset + last size (sh_size is %d)"
                           % sh_size)
    # The functions of these CUs are plain and all emitted.
    cases = [
        MAIN,
        ("pcpu_local", "func pcpu_local static int(int x)",
         "§1.5: global function"),
        ("pcpu_b_entry", "func pcpu_b_entry static int(void)",
         "§1.5: global function, no params"),
        ("nodebug_fn", None, "§1.2: no DWARF at all"),
    ]
    check_cases(what, btf, "func", cases, set(), cmd)


def _funcs_skip_vars(ctx, cc, dwarf):
    prog = link(ctx, cc, dwarf, PERCPU_PARTS, percpu=True)
    what = "funcs_skip_vars (%s, DWARF %d)" % (cc, dwarf)
    full, _ = encode(ctx, prog, os.path.join(ctx.tmp, "full.btf"))
    btf, cmd = encode(ctx, prog, os.path.join(ctx.tmp, "novars.btf"),
                      ["--skip_encoding_btf_vars"])
    assert lines_of(full, "var"), "%s: no VAR without the option" % what
    left = lines_of(btf, "var") + lines_of(btf, "datasec")
    assert not left, "%s: --skip_encoding_btf_vars left:\n%s\nreproduce: %s" \
        % (what, "\n".join(left), cmd)
    # Only the VARs and the DATASEC go: types and functions stay.
    keep = [ln for ln in btfparse.render(full)
            if not ln.startswith(("var ", "datasec "))]
    got = btfparse.render(btf)
    if got != keep:
        raise _percpu_diff(what, "type/func", keep, got, cmd,
                           "--skip_encoding_btf_vars removes VARs and the "
                           "DATASEC only")


# ------------------------------------------------------------- threads

ALL_PARTS = [("funcs_multi_a", ()), ("funcs_multi_b", ()),
             ("funcs_nodebug", ("-g0",)),
             ("funcs_percpu_a", ("-Dmain=percpu_main",)),
             ("funcs_percpu_b", ()),
             ("funcs_basic", ("-Dmain=basic_main",)),
             ("funcs_clones", ("-Dmain=clones_main",))]


def _funcs_jobs(ctx, cc, dwarf):
    # Output is the same for any -j: CU results are merged in CU order and
    # function decisions are made after all CUs.
    prog = link(ctx, cc, dwarf, ALL_PARTS, percpu=True)
    what = "funcs_jobs (%s, DWARF %d)" % (cc, dwarf)
    outs = {}
    for j in (1, 2, 5):
        out = os.path.join(ctx.tmp, "j%d.btf" % j)
        btf, _ = encode(ctx, prog, out, ["-j%d" % j])
        with open(out, "rb") as f:
            outs[j] = f.read()
        if j == 1:
            nf, nv = len(lines_of(btf, "func")), len(lines_of(btf, "var"))
            # 6 CUs with DWARF: many functions and all 8 per-CPU VARs.
            assert nf >= 15 and nv == len(PERCPU_VARS), \
                "%s: expected >= 15 FUNCs and %d VARs, got %d and %d" % (
                    what, len(PERCPU_VARS), nf, nv)
    for j in (2, 5):
        if outs[j] != outs[1]:
            raise AssertionError(
                "%s: -j%d output differs from -j1 (%d vs %d bytes)\n"
                "reproduce: %s -j1 -o a.btf %s; %s -j%d -o b.btf %s; "
                "%s diff a.btf b.btf" % (what, j, len(outs[j]), len(outs[1]),
                                         ctx.bin, prog, ctx.bin, j, prog,
                                         ctx.bin))


for _fn in (_funcs_basic, _funcs_clones, _funcs_multi, _funcs_last_key,
            _funcs_percpu, _funcs_skip_vars, _funcs_jobs):
    for _cc in CCS:
        for _dwarf in DWARFS:
            _t = _make(_fn, _cc, _dwarf)
            globals()[_t.__name__] = _t
