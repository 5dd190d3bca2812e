# SPDX-License-Identifier: GPL-2.0-only
"""pahole's --btf_features: each feature off and on, and what changes.

`--btf_features=LIST` turns the listed features on and every other off, as
in pahole; without the option the default set is on.  Each test encodes a
fixture with the feature's name removed from the default list and with the
full list, and checks the difference it makes.
"""

import os

import btfparse
from test_funcs import MULTI_PARTS, PERCPU_PARTS, link

DEFAULT = ["encode_force", "var", "float", "decl_tag", "type_tag", "enum64",
           "optimized_func", "consistent_func", "decl_tag_kfuncs"]


def _encode(ctx, path, features, name):
    out = os.path.join(ctx.tmp, name + ".btf")
    args = [ctx.bin, "-o", out, path]
    if features is not None:
        args.insert(1, "--btf_features=" + ",".join(features))
    p = ctx.run(args)
    if p.returncode != 0:
        raise AssertionError(" ".join(args) + ": " + p.stderr)
    return btfparse.render(ctx.btf(out))


def _off_on(ctx, path, feature):
    off = _encode(ctx, path, [f for f in DEFAULT if f != feature], "off")
    on = _encode(ctx, path, DEFAULT, "on")
    return off, on


def test_features_default_is_default(ctx):
    # No option, "default" and the full list all give the same BTF.
    obj = ctx.fixture("types_base", "gcc", 5)
    a = _encode(ctx, obj, None, "none")
    b = _encode(ctx, obj, ["default"], "default")
    c = _encode(ctx, obj, DEFAULT, "list")
    if not a == b == c:
        raise AssertionError("default sets differ")


def test_features_lists_add_up(ctx):
    # Linux 7.x passes three lists (the default names, "attributes",
    # "layout"): as in pahole, the first turns the rest off, later ones add.
    obj = ctx.fixture("types_enums", "gcc", 5)
    one = _encode(ctx, obj, ["enum64", "float"], "one")
    out = os.path.join(ctx.tmp, "two.btf")
    p = ctx.run([ctx.bin, "--btf_features=enum64", "--btf_features=float",
                 "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    two = btfparse.render(ctx.btf(out))
    if two != one or not any(ln.startswith("enum64 ") for ln in two):
        raise AssertionError("two lists: %s" % sorted(set(two) ^ set(one)))
    if _encode(ctx, obj, ["float"], "last") == one:
        raise AssertionError("the fixture does not tell the lists apart")


def test_feature_force_cu_merging(ctx):
    # pahole 1.32's force_cu_merging reads all CUs as one: known, no
    # warning, and the same bytes (cross-CU references resolve anyway).
    obj = ctx.link("funcs_basic", "gcc", 5)
    outs = []
    for feats in ("default", "default,force_cu_merging"):
        out = os.path.join(ctx.tmp, "%d.btf" % len(outs))
        p = ctx.run([ctx.bin, "--btf_features=" + feats, "-o", out, obj])
        if p.returncode != 0 or p.stderr:
            raise AssertionError("%s: %s" % (feats, p.stderr))
        outs.append(open(out, "rb").read())
    if outs[0] != outs[1]:
        raise AssertionError("force_cu_merging changed the output")


def test_feature_float(ctx):
    off, on = _off_on(ctx, ctx.fixture("types_base", "gcc", 5), "float")
    if "float double size=8" not in on:
        raise AssertionError("float on: %s" % [ln for ln in on if "double" in ln])
    if not any(ln.startswith("int double size=8") for ln in off) or \
            any(ln.startswith("float ") for ln in off):
        raise AssertionError("float off: doubles must be INTs: %s"
                             % [ln for ln in off if "double" in ln])


def test_feature_enum64(ctx):
    off, on = _off_on(ctx, ctx.fixture("types_enums", "gcc", 5), "enum64")
    if not any(ln.startswith("enum64 ") for ln in on):
        raise AssertionError("enum64 on: no ENUM64")
    if any(ln.startswith("enum64 ") for ln in off):
        raise AssertionError("enum64 off: ENUM64 still there")


def test_feature_tags(ctx):
    obj = ctx.fixture("types_tags", "clang", 5)
    off, on = _off_on(ctx, obj, "type_tag")
    if not any("type_tag(" in ln for ln in on) or \
            any("type_tag(" in ln for ln in off):
        raise AssertionError("type_tag does not switch TYPE_TAGs")
    off, on = _off_on(ctx, obj, "decl_tag")
    if not any(ln.startswith("decl_tag ") for ln in on) or \
            any(ln.startswith("decl_tag ") for ln in off):
        raise AssertionError("decl_tag does not switch DECL_TAGs")


def test_feature_var(ctx):
    prog = link(ctx, "gcc", 5, PERCPU_PARTS, percpu=True)
    off, on = _off_on(ctx, prog, "var")
    if not any(ln.startswith("var ") for ln in on) or \
            not any(ln.startswith("datasec ") for ln in on):
        raise AssertionError("var on: no VAR/DATASEC")
    if any(ln.startswith(("var ", "datasec ")) for ln in off):
        raise AssertionError("var off: VARs still there")


def test_feature_consistent_func(ctx):
    # 'shape' has an inline prototype in one CU and another out of line.
    prog = link(ctx, "gcc", 5, MULTI_PARTS)
    off, on = _off_on(ctx, prog, "consistent_func")
    shape_on = [ln for ln in on if ln.startswith("func shape ")]
    shape_off = [ln for ln in off if ln.startswith("func shape ")]
    if shape_on or len(shape_off) != 1:
        raise AssertionError("consistent_func: on %s, off %s"
                             % (shape_on, shape_off))


def test_feature_decl_tag_kfuncs(ctx):
    prog = ctx.link("kfuncs", "gcc", 5)
    off, on = _off_on(ctx, prog, "decl_tag_kfuncs")
    want = ["decl_tag bpf_fastcall on func kf_two",
            "decl_tag bpf_kfunc on func kf_arena",
            "decl_tag bpf_kfunc on func kf_one",
            "decl_tag bpf_kfunc on func kf_two"]
    got = sorted(ln for ln in on if ln.startswith("decl_tag "))
    if got != want:
        raise AssertionError("kfunc tags: %s, want %s" % (got, want))
    if any(ln.startswith("decl_tag ") for ln in off):
        raise AssertionError("decl_tag_kfuncs off: tags still there")


def test_feature_attributes(ctx):
    # kf_arena's set entry has KF_ARENA_RET | KF_ARENA_ARG1: with
    # attributes (and decl_tag_kfuncs) its result and first argument point
    # through an address_space(1) type attribute (a TYPE_TAG with
    # kind_flag), as pahole 1.31 encodes it; not without either feature.
    prog = ctx.link("kfuncs", "gcc", 5)
    plain = "func kf_arena static char *(char *p, long int *q)"
    arena = ("func kf_arena static char type_attr(address_space(1)) *"
             "(char type_attr(address_space(1)) *p, long int *q)")
    for feats, want in ((DEFAULT, plain),
                        (DEFAULT + ["attributes"], arena),
                        ([f for f in DEFAULT if f != "decl_tag_kfuncs"] +
                         ["attributes"], plain)):
        got = [ln for ln in _encode(ctx, prog, feats, "attr")
               if ln.startswith("func kf_arena ")]
        if got != [want]:
            raise AssertionError("%s: %s, want %s" % (feats, got, [want]))
        others = [ln for ln in _encode(ctx, prog, feats, "attr")
                  if ln.startswith("func kf_two ")]
        if others != ["func kf_two static int(int a, int b)"]:
            raise AssertionError("kf_two changed: %s" % others)


def test_features_strict_and_supported(ctx):
    p = ctx.run([ctx.bin, "--supported_btf_features"])
    names = p.stdout.strip().split(",")
    # what pahole 1.32 prints, in its order (scripts may compare it), and
    # layout, which it lists when its libbpf can write it
    if p.returncode != 0 or names != DEFAULT + [
            "reproducible_build", "distilled_base", "global_var",
            "attributes", "true_signature", "layout", "force_cu_merging"]:
        raise AssertionError("supported: %s" % p.stdout)
    obj = ctx.fixture("types_base", "gcc", 5)
    out = os.path.join(ctx.tmp, "x.btf")
    p = ctx.run([ctx.bin, "--btf_features=default,no_such_feature", "-o",
                 out, obj])
    if p.returncode != 0:
        raise AssertionError("an unknown feature must be ignored: "
                             + p.stderr)
    p = ctx.run([ctx.bin, "--btf_features_strict=default,no_such_feature",
                 "-o", out, obj])
    if p.returncode != 2 or "no_such_feature" not in p.stderr:
        raise AssertionError("strict: exit %d %s" % (p.returncode, p.stderr))


def test_lang_exclude(ctx):
    # Excluding C leaves nothing of a C fixture; another language, all.
    obj = ctx.fixture("types_base", "gcc", 5)
    out = os.path.join(ctx.tmp, "x.btf")
    p = ctx.run([ctx.bin, "--lang_exclude=c11,c99,c89,c,c17", "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    if btfparse.render(ctx.btf(out), "types"):
        raise AssertionError("C types encoded despite --lang_exclude")
    p = ctx.run([ctx.bin, "--lang_exclude=rust", "-o", out, obj])
    if p.returncode != 0 or not btfparse.render(ctx.btf(out), "types"):
        raise AssertionError("rust excluded, C lost: " + p.stderr)
    p = ctx.run([ctx.bin, "--lang_exclude=klingon", "-o", out, obj])
    if p.returncode != 2:
        raise AssertionError("unknown language accepted")


def test_lang_only(ctx):
    # --lang keeps only the listed languages (pahole's --lang; getopt must
    # not take it for an abbreviation of --lang_exclude); the last list
    # given counts; PAHOLE_LANG_EXCLUDE applies when neither is given.
    obj = ctx.fixture("types_base", "gcc", 5)
    out = os.path.join(ctx.tmp, "x.btf")
    clean = {k: v for k, v in os.environ.items()
             if k != "PAHOLE_LANG_EXCLUDE"}

    def types(args, env=clean):
        p = ctx.run([ctx.bin] + args + ["-o", out, obj], env=env)
        if p.returncode != 0:
            raise AssertionError("%s: %s" % (args, p.stderr))
        return btfparse.render(ctx.btf(out), "types")

    full = types([])
    c_all = "--lang=c89,c,c99,c11,c17"
    if not full or types([c_all]) != full:
        raise AssertionError("--lang=<C> left C types out")
    if types(["--lang=rust"]):
        raise AssertionError("--lang=rust kept C types")
    if types(["--lang=rust", "--lang_exclude=rust"]) != types([c_all]):
        raise AssertionError("the last language list must count")
    env = dict(os.environ, PAHOLE_LANG_EXCLUDE="c89,c,c99,c11,c17")
    if types([], env):
        raise AssertionError("PAHOLE_LANG_EXCLUDE ignored")
    if types(["--lang_exclude=rust"], env) != full:
        raise AssertionError("PAHOLE_LANG_EXCLUDE beat --lang_exclude")


def test_btf_attributes_option(ctx):
    # pahole's --btf_attributes: the attributes feature, even when
    # --btf_features does not list it.
    prog = ctx.link("kfuncs", "gcc", 5)
    out = os.path.join(ctx.tmp, "a.btf")
    p = ctx.run([ctx.bin, "--btf_attributes",
                 "--btf_features=" + ",".join(DEFAULT), "-o", out, prog])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    got = [ln for ln in btfparse.render(ctx.btf(out))
           if ln.startswith("func kf_arena ")]
    if got != [ln for ln in _encode(ctx, prog, DEFAULT + ["attributes"], "b")
               if ln.startswith("func kf_arena ")] or \
            "address_space(1)" not in " ".join(got):
        raise AssertionError("--btf_attributes: %s" % got)


GLOBALS = r"""
int g_data = 1;
long g_bss;
const int g_ro[4] = { 1, 2, 3, 4 };
static int s_data = 7;
int pcpu_v __attribute__((section(".data..percpu")));
void set_s(int v) { s_data = v; }
int *use(void) { static int fn_static; return s_data ? &fn_static : &g_data; }
int main(void) { return g_ro[g_bss] + pcpu_v + *use(); }
"""


def test_feature_global_var(ctx):
    # global_var: every variable with an address, a DATASEC per section;
    # without it only .data..percpu.  Function statics are not top level.
    src = os.path.join(ctx.tmp, "globals.c")
    with open(src, "w") as f:
        f.write(GLOBALS)
    lds = os.path.join(ctx.tmp, "p.ld")
    with open(lds, "w") as f:
        f.write("SECTIONS\n{\n\t.data..percpu : { *(.data..percpu) }\n}\n"
                "INSERT BEFORE .data;\n")
    prog = os.path.join(ctx.tmp, "globals")
    p = ctx.run(["gcc", "-g", "-O2", src, "-o", prog, "-Wl,-T," + lds])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    off = _encode(ctx, prog, DEFAULT, "off")
    on = _encode(ctx, prog, DEFAULT + ["global_var"], "on")
    secs_off = sorted(ln.split(" ")[1] for ln in off
                      if ln.startswith("datasec "))
    if secs_off != [".data..percpu"]:
        raise AssertionError("without global_var: %s" % secs_off)
    vars_on = sorted(ln.split(" ")[1] for ln in on if ln.startswith("var "))
    want = ["g_bss", "g_data", "g_ro", "pcpu_v", "s_data"]
    if vars_on != want:
        raise AssertionError("global_var VARs %s, want %s" % (vars_on, want))
    secs_on = sorted(ln.split(" ")[1] for ln in on
                     if ln.startswith("datasec "))
    for s in (".bss", ".data", ".data..percpu", ".rodata"):
        if s not in secs_on:
            raise AssertionError("no DATASEC %s: %s" % (s, secs_on))


MODULE_PERCPU = r"""
struct pcpu_stat { long hits; long misses; };
__attribute__((section(".data..percpu"))) struct pcpu_stat pcpu_stats;
__attribute__((section(".data..percpu"))) int pcpu_count;
int use(void) { return pcpu_count + (int)pcpu_stats.hits; }
"""

# A section that is not loaded, before .data..percpu and larger than the
# addresses libdwfl gives a relocatable file's loaded sections (Linux 7.x
# modules have their .debug_* sections there).
UNLOADED = (r'__asm__(".section .bigjunk,\"\",@progbits\n\t.zero 1048576'
            r'\n\t.previous");' "\n")


def test_feature_var_module_sections(ctx):
    # pahole looks a module variable's address up in the first section by
    # index that holds it, the sections libdwfl did not place at 0: with
    # such a section first, the per-CPU variables are not in .data..percpu
    # for it (left out), and global_var puts them in that section's DATASEC.
    for cc in ("gcc", "clang"):
        for junk in (False, True):
            name = "%s-%s" % (cc, "junk" if junk else "plain")
            src = os.path.join(ctx.tmp, name + ".c")
            with open(src, "w") as f:
                f.write((UNLOADED if junk else "") + MODULE_PERCPU)
            obj = os.path.join(ctx.tmp, name + ".o")
            p = ctx.run([cc, "-g", "-O2", "-c", src, "-o", obj])
            if p.returncode != 0:
                raise AssertionError(p.stderr)
            vars_ = [ln.split(" ")[1] for ln in _encode(ctx, obj, DEFAULT,
                                                         name)
                     if ln.startswith("var ") or ln.startswith("datasec ")]
            want = [] if junk else [".data..percpu", "pcpu_count",
                                    "pcpu_stats"]
            if sorted(vars_) != want:
                raise AssertionError("%s: %s, want %s" % (name, vars_, want))
            if not junk:
                continue
            secs = [ln.split(" ")[1] for ln in
                    _encode(ctx, obj, DEFAULT + ["global_var"], name + "-gv")
                    if ln.startswith("datasec ")]
            if ".bigjunk" not in secs or ".data..percpu" in secs:
                raise AssertionError("%s, global_var: %s" % (name, secs))
            p = ctx.run([ctx.bin, "explain", obj, "pcpu_count"])
            if "a section that is not loaded holds it first" not in p.stdout:
                raise AssertionError("%s, explain: %s" % (name, p.stdout))


# (info_sz, elem_sz, flags) per kind 0..19, as the kernel's uapi btf.h
# describes them: INT's u32, ARRAY's btf_array, members, enum values,
# params, VAR's linkage, secinfos, DECL_TAG's component, enum64 values.
LAYOUT = [(0, 0, 0), (4, 0, 0), (0, 0, 0), (12, 0, 0), (0, 12, 0),
          (0, 12, 0), (0, 8, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0),
          (0, 0, 0), (0, 0, 0), (0, 8, 0), (4, 0, 0), (0, 12, 0), (0, 0, 0),
          (4, 0, 0), (0, 0, 0), (0, 12, 0)]


def _layout_check(ctx, obj, order, base=None):
    """Encode OBJ with and without layout; returns the layout header."""
    import struct
    e = "<" if order == "little" else ">"
    outs = {}
    for feats in (DEFAULT, DEFAULT + ["layout"]):
        out = os.path.join(ctx.tmp, "layout%d.btf" % len(feats))
        args = [ctx.bin, "--btf_features=" + ",".join(feats), "-o", out, obj]
        if base:
            args[1:1] = ["--base", base]
        p = ctx.run(args)
        if p.returncode != 0:
            raise AssertionError(p.stderr)
        outs[len(feats) > len(DEFAULT)] = open(out, "rb").read()
    off, on = outs[False], outs[True]
    h0 = struct.unpack(e + "HBBIIIII", off[:24])
    if base:
        if on != off:
            raise AssertionError("split BTF got a layout section")
        return None
    h = struct.unpack(e + "HBBIIIIIII", on[:32])
    magic, _, _, hdr_len, type_off, type_len, str_off, str_len, lo, ll = h
    if (magic != 0xeb9f or hdr_len != 32 or type_off != 0 or
            type_len != h0[5] or lo != type_len or ll != 80 or
            str_off != type_len + 80 or str_len != h0[7]):
        raise AssertionError("layout header %s (without: %s)" % (h, h0))
    types = on[32:32 + type_len]
    if types != off[24 + h0[4]:24 + h0[4] + h0[5]]:
        raise AssertionError("types differ with layout")
    strs = on[32 + str_off:32 + str_off + str_len]
    if strs != off[24 + h0[6]:24 + h0[6] + h0[7]]:
        raise AssertionError("strings differ with layout")
    table = [struct.unpack(e + "BBH", on[32 + lo + 4 * i:36 + lo + 4 * i])
             for i in range(20)]
    if table != LAYOUT:
        raise AssertionError("layout table %s" % table)
    # scripts/lib/btf_header.py --no-layout (what check-kernel.sh loads into
    # a kernel before 6.19) gives back the bytes without the feature.
    copy = os.path.join(ctx.tmp, "no-layout.btf")
    p = ctx.run(["python3", os.path.join(ctx.root, "scripts", "lib",
                                         "btf_header.py"),
                 "--no-layout", os.path.join(ctx.tmp, "layout%d.btf"
                                             % (len(DEFAULT) + 1)), copy])
    if p.returncode != 0 or open(copy, "rb").read() != off:
        raise AssertionError("btf_header.py --no-layout: %d %s"
                             % (p.returncode, p.stderr))
    return h


def test_feature_layout(ctx):
    # The layout section between types and strings; the rest unchanged.
    # pahole 1.31 (built outside the repo) gives the same bytes for
    # types_base.c.
    _layout_check(ctx, ctx.fixture("types_base", "gcc", 5), "little")
    # big-endian BTF (an s390x object): header and table in its order
    from test_elf_input import _compile, SAMPLE
    obj = _compile(ctx, "clang", ["--target=s390x-linux-gnu"], SAMPLE,
                   "s390x")
    _layout_check(ctx, obj, "big")
    # split BTF has none (pahole: only for BTF without a base)
    base = os.path.join(ctx.tmp, "base.btf")
    p = ctx.run([ctx.bin, "-o", base, ctx.fixture("mod_base", "gcc", 5)])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    _layout_check(ctx, ctx.fixture("mod_a", "gcc", 5), "little", base)
