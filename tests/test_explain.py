# SPDX-License-Identifier: GPL-2.0-only
"""`dwarf2btf explain` and `--verbose` (src/explain/): for each reason a
function is left out, a fixture that has it (gcc and clang, DWARF 4 and
5, where the compiler makes the case), with the exact verdict and
evidence lines; pahole's --verbose lines; the JSON; the error paths.
CU paths and hex numbers (DIE offsets, addresses) are normalised.
"""
import json
import os
import shutil
import re

import test_funcs

WHY_TAIL = {
    "reg": ", where the calling convention puts it in rdi: a tracer would "
           "read the wrong register",
    "opt": ": callers do not pass what the prototype says (true_signature "
           "encodes the function as it is called)",
}

# fixture -> [(function, [lines of its explanation before "candidates"])]
CASES = {
    "funcs_basic": [
        ("basic_double", [
            "basic_double: left out: a parameter is not where the calling "
            "convention puts it",
            "  why: parameter #1 'scale' arrives in xmm0 (DWARF of "
            "funcs_basic.c, DIE 0x_)" + WHY_TAIL["reg"]]),
        ("basic_global", [
            "basic_global: encoded",
            "  why: encoded with the prototype of the candidate from "
            "funcs_basic.c"]),
    ],
    "multi": [
        ("helper", [
            "helper: left out: its name has several addresses",
            "  why: its ELF symbols sit at different addresses (two "
            "functions of that name, or a clone elsewhere): BTF has one "
            "prototype per name, and attaching by name could hit either"]),
        ("shape", [
            "shape: left out: its prototypes differ",
            "  why: the prototypes in funcs_multi_b.c and funcs_multi_a.c "
            "differ: 2 parameters against 1; BTF has one prototype per "
            "name"]),
    ],
    "funcs_packed": [
        ("pk7", [
            "pk7: left out: a packed struct is passed by value on the stack",
            "  why: parameter #7 's' (struct pk_packed) is a packed struct "
            "passed by value after the argument registers: where it sits "
            "on the stack is uncertain"]),
    ],
}

# gcc makes .constprop clones of these (test_funcs.py checks the BTF)
GCC_CLONES = [
    ("clone_const", [
        "clone_const: left out: a parameter was optimized away and the "
        "signature changed",
        "  why: parameter #2 'mode' is only a constant value, and the "
        "symbol at its address is clone_const.constprop.0, a clone gcc may "
        "have changed" + WHY_TAIL["opt"]]),
    ("clone_dead", [
        "clone_dead: left out: a parameter was optimized away and the "
        "signature changed",
        "  why: parameter #2 'unused' has a location, but in no argument "
        "register, and the symbol at its address is clone_dead.constprop.0, "
        "a clone gcc may have changed" + WHY_TAIL["opt"]]),
]

# gcc's partial inlining (funcs_reordered.c)
GCC_REORDERED = [
    ("reo", [
        "reo: left out: its parameters were reordered",
        "  why: in funcs_reordered.c (DIE 0x_) parameter #1 is parameter #2 "
        "of its abstract origin: the compiler dropped or moved parameters, "
        "so callers do not pass what the prototype says"]),
]

# clang 19 marks changed signatures DW_CC_nocall (tests/test_truesig.py)
CLANG19_NOCALL = [
    ("ts_const", [
        "ts_const: left out: a parameter was optimized away and the "
        "signature changed",
        "  why: parameter #2 'k' is only a constant value, and its calling "
        "convention is DW_CC_nocall (clang changed the signature)" +
        WHY_TAIL["opt"]]),
    ("ts_drop_mid", [
        "ts_drop_mid: left out: a parameter was optimized away and the "
        "signature changed",
        "  why: parameter #2 'unused' has no location (optimized out), and "
        "its calling convention is DW_CC_nocall (clang changed the "
        "signature)" + WHY_TAIL["opt"],
        "  also: a parameter is not where the calling convention puts "
        "it"]),
]


def _normal(ctx, text):
    text = text.replace(os.path.join(ctx.root, "tests", "fixtures") + "/",
                        "")
    return re.sub(r"0x[0-9a-f]+", "0x_", text)


def _explain(ctx, prog, names, extra=(), rc=0):
    p = ctx.run([ctx.bin, "explain"] + list(extra) + [prog] + names)
    assert p.returncode == rc, p.stdout + p.stderr
    return _normal(ctx, p.stdout)


def _heads(out):
    """Function -> its lines before "  candidates"."""
    got, cur = {}, None
    for line in out.splitlines():
        if not line.startswith(" ") and ": " in line and \
                not line.startswith("summary:"):
            cur = line.split(":")[0]
            got[cur] = [line]
        elif cur and line.startswith("  candidates"):
            cur = None
        elif cur:
            got[cur].append(line)
    return got


def _prog(ctx, fixture, cc, dwarf):
    if fixture == "multi":
        return test_funcs.link(ctx, cc, dwarf, test_funcs.MULTI_PARTS)
    if fixture == "funcs_packed":
        return ctx.fixture(fixture, cc, dwarf)
    return ctx.link(fixture, cc, dwarf)


def _check(ctx, prog, cases, what):
    got = _heads(_explain(ctx, prog, [n for n, _ in cases]))
    bad = []
    for name, want in cases:
        if got.get(name) != want:
            bad.append("%s %s:\n  want %s\n  got  %s" % (
                what, name, "\n       ".join(want),
                "\n       ".join(got.get(name, ["(nothing)"]))))
    return bad


def _reasons(ctx, cc, dwarf):
    bad = []
    for fixture, cases in CASES.items():
        bad += _check(ctx, _prog(ctx, fixture, cc, dwarf), cases,
                      "%s %s DWARF %d" % (fixture, cc, dwarf))
    if cc == "gcc":
        prog = ctx.link("funcs_clones", cc, dwarf)
        syms = {s[0] for s in test_funcs.Elf(prog).funcs(prefix="clone_")}
        if not {"clone_const.constprop.0",
                "clone_dead.constprop.0"} <= syms:
            raise ctx.Skip("gcc made no .constprop clones: %s" % sorted(syms))
        bad += _check(ctx, prog, GCC_CLONES, "funcs_clones gcc")
        obj = ctx.fixture("funcs_reordered", cc, dwarf)
        syms = {s[0] for s in test_funcs.Elf(obj).funcs(prefix="reo")}
        if "reo.part.0" not in syms:
            raise ctx.Skip("gcc split no reo.part.0: %s" % sorted(syms))
        bad += _check(ctx, obj, GCC_REORDERED, "funcs_reordered gcc")
    else:
        src = os.path.join(ctx.root, "tests", "fixtures",
                           "funcs_truesig_clang19_dwarf%d.s" % dwarf)
        obj = os.path.join(ctx.tmp, "ts.o")
        p = ctx.run(["clang", "-c", "-o", obj, src])
        assert p.returncode == 0, p.stderr
        bad += _check(ctx, obj, CLANG19_NOCALL, "clang19 nocall")
    if bad:
        raise AssertionError("\n".join(bad))


def test_explain_gcc_dwarf4(ctx):
    _reasons(ctx, "gcc", 4)


def test_explain_gcc_dwarf5(ctx):
    _reasons(ctx, "gcc", 5)


def test_explain_clang_dwarf4(ctx):
    _reasons(ctx, "clang", 4)


def test_explain_clang_dwarf5(ctx):
    _reasons(ctx, "clang", 5)


def test_explain_all_and_counts(ctx):
    """--all lists every function left out, no more; the summary counts
    per reason are those --stats prints; --json says the same."""
    prog = test_funcs.link(ctx, "gcc", 5, test_funcs.MULTI_PARTS)
    out = _explain(ctx, prog, [], ["--all"])
    heads = _heads(out)
    assert sorted(heads) == ["helper", "shape", "zz_dup"], sorted(heads)
    summary = out.splitlines()[-1]
    p = ctx.run([ctx.bin, "--stats", "-o", os.path.join(ctx.tmp, "o.btf"),
                 prog])
    stats = [ln for ln in p.stderr.splitlines()
             if ln.startswith("stats: function names")]
    m = re.match(r"stats: function names (\d+) encoded, (\d+) left out: "
                 r"(\d+) inconsistent, (\d+) ambiguous$", stats[0])
    assert m, stats
    want = ("summary: %s functions encoded (0 as clones), %s left out; %s "
            "inconsistent; %s ambiguous" % m.groups())
    assert summary == want, (summary, want)
    assert m.group(2) == "3", stats
    d = json.loads(ctx.run([ctx.bin, "explain", "--all", "--json",
                            prog]).stdout)
    assert [f["name"] for f in d["functions"]] == ["helper", "shape",
                                                   "zz_dup"], d
    shape = d["functions"][1]
    assert shape["verdict"] == "inconsistent" and \
        shape["pahole"] == "inconsistet prototype" and \
        shape["evidence"]["mismatch"] == 1 and \
        len(shape["candidates"]) == 2, shape
    assert d["summary"]["ambiguous"] == 2 and \
        d["summary"]["inconsistent"] == 1, d["summary"]


def test_verbose_pahole_lines(ctx):
    """--verbose prints pahole 1.31's lines, word for word (its typo
    included), to stdout: pahole's tests/gcc_optimized_default.sh greps
    for the first one."""
    src = os.path.join(ctx.tmp, "opt.c")
    with open(src, "w") as f:
        f.write("__attribute__((noinline)) int bar(int a, int b)\n"
                "{ return a + 1; }\n"
                "__attribute__((noinline)) static int foo(int a, int b, "
                "int c)\n{ return a * b - a - b; }\n"
                "int a, b, c;\n"
                "int main(void) { return bar(a, c) + foo(a, b, c); }\n")
    prog = os.path.join(ctx.tmp, "opt")
    p = ctx.run(["gcc", "-g", "-O2", "-o", prog, src])
    assert p.returncode == 0, p.stderr
    p = ctx.run([ctx.bin, "--btf_features=default", "-o",
                 os.path.join(ctx.tmp, "opt.btf"), "--verbose", prog])
    assert p.returncode == 0 and p.stdout == (
        "foo : skipping BTF encoding of function due to optimized "
        "parameters\n"), p.stdout + p.stderr
    prog = test_funcs.link(ctx, "clang", 4, test_funcs.MULTI_PARTS)
    p = ctx.run([ctx.bin, "-o", os.path.join(ctx.tmp, "m.btf"), "-V", prog])
    assert p.stdout.splitlines() == [
        "helper : skipping BTF encoding of function due to ambiguous "
        "address",
        "shape : skipping BTF encoding of function due to param count "
        "mismatch; 2 params != 1 params",
        "shape : skipping BTF encoding of function due to inconsistet "
        "prototype",
        "zz_dup : skipping BTF encoding of function due to ambiguous "
        "address"], p.stdout


def test_explain_long_name(ctx):
    """A FUNC name of 512 characters or more, which the kernel refuses
    (and with it the whole BTF), is left out as long-name; 511 are kept.
    pahole has no such rule, so there is no pahole line for it."""
    ok, long = "f" + "x" * 510, "g" + "y" * 511
    for cc in ("gcc", "clang"):
        obj = ctx.fixture("funcs_longname", cc, 5)
        out = os.path.join(ctx.tmp, "%s.btf" % cc)
        p = ctx.run([ctx.bin, "--stats", "-o", out, obj])
        assert p.returncode == 0, p.stderr
        assert "1 left out: 1 long-name" in p.stderr, p.stderr
        funcs = [t.name for t in ctx.btf(out).types if t.kind == "func"]
        assert funcs == [ok], [len(f) for f in funcs]
        d = json.loads(ctx.run([ctx.bin, "explain", "--json", obj,
                                long]).stdout)
        f = d["functions"][0]
        assert f["verdict"] == "long-name" and not f["encoded"] and \
            not f["pahole"], f
        out = _explain(ctx, obj, [long])
        assert "512 characters: the kernel takes at most 511" in out, out


def test_explain_errors(ctx):
    """A name that is no function: its line, exit 1.  No FILE or a bad
    option: usage, exit 2.  A FILE that cannot be read: one line, exit 1.
    Nothing is written beside the input either way."""
    prog = ctx.link("funcs_basic", "gcc", 4)
    p = ctx.run([ctx.bin, "explain", prog, "basic_global", "no_such_fn"])
    assert p.returncode == 1 and "no_such_fn: not found" in p.stdout \
        and "basic_global: encoded" in p.stdout, p.stdout
    p = ctx.run([ctx.bin, "explain"])
    assert p.returncode == 2 and "usage: dwarf2btf explain" in p.stderr
    p = ctx.run([ctx.bin, "explain", "--bogus", prog])
    assert p.returncode == 2, p.stderr
    missing = os.path.join(ctx.tmp, "missing")
    p = ctx.run([ctx.bin, "explain", missing, "f"])
    assert p.returncode == 1 and p.stdout == "" and \
        len(p.stderr.splitlines()) == 1 and missing in p.stderr, p.stderr
    # In a folder of its own: the fixtures' folder is written by other
    # tests running beside this one.
    alone = os.path.join(ctx.tmp, "alone")
    os.mkdir(alone)
    shutil.copy(prog, alone)
    before = sorted(os.listdir(alone))
    ctx.run([ctx.bin, "explain", "--all",
             os.path.join(alone, os.path.basename(prog))])
    assert sorted(os.listdir(alone)) == before
    # The encoding run's --lang_exclude (kbuild's "rust"): C is still
    # read; all its languages excluded, the function is not there.
    p = ctx.run([ctx.bin, "explain", "--lang_exclude=rust", prog,
                 "basic_global"])
    assert p.returncode == 0 and "basic_global: encoded" in p.stdout, \
        p.stdout + p.stderr
    p = ctx.run([ctx.bin, "explain", "--lang_exclude=c11,c99,c89,c,c17",
                 prog, "basic_global"])
    assert p.returncode == 1 and "basic_global: not found" in p.stdout, \
        p.stdout + p.stderr
    p = ctx.run([ctx.bin, "explain", "--lang=klingon", prog])
    assert p.returncode == 2 and "klingon" in p.stderr, p.stderr


def test_explain_variables(ctx):
    """A name that is a variable: each defining DIE, a VAR (its section and
    offset) or why not; declarations counted; with global_var, .data's
    too.  Per-CPU fixtures of tests/test_funcs.py."""
    for cc in ("gcc", "clang"):
        prog = test_funcs.link(ctx, cc, 4, test_funcs.PERCPU_PARTS,
                               percpu=True)
        out = _explain(ctx, prog, ["pcpu_dup", "plain_global",
                                   "pcpu_in_func"], rc=1)
        lines = [ln for ln in out.splitlines()
                 if not ln.startswith("summary:")]
        want = [
            "pcpu_dup: variable encoded: a VAR in .data..percpu at "
            "offset 0x_",
            "  funcs_percpu_a.c, DIE 0x_",
            "pcpu_dup: variable encoded: a VAR in .data..percpu at "
            "offset 0x_",
            "  funcs_percpu_b.c, DIE 0x_",
            "plain_global: variable left out: it is not in .data..percpu "
            "(the global_var feature encodes the variables of every data "
            "section)",
            "  funcs_percpu_a.c, DIE 0x_, in .data",
            "pcpu_in_func: not found: no DW_TAG_subprogram of that name "
            "with an ELF function symbol of that name (and parameters "
            "with names), and no top-level DW_TAG_variable"]
        assert lines == want, "%s:\n%s" % (cc, "\n".join(lines))
        out = _explain(ctx, prog, ["plain_global"],
                       ["--btf_features=default,global_var"])
        assert out.splitlines()[0] == (
            "plain_global: variable encoded: a VAR in .data at offset "
            "0x_"), out
        d = json.loads(ctx.run([ctx.bin, "explain", "--json", prog,
                                "plain_global"]).stdout)
        v = d["variables"][0]
        assert not v["encoded"] and v["section"] == ".data" and \
            v["name"] == "plain_global" and v["die"] > 0, v
