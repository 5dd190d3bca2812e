# SPDX-License-Identifier: GPL-2.0-only
"""Under the name pahole (make install PAHOLE_LINK=1) we encode (-J,
--btf_encode_detached) and answer --version; anything else, such as
`pahole FILE` or `pahole -C struct FILE`, goes to a real pahole found on
PATH after us or named by DWARF2BTF_PAHOLE, and never writes.
"""
import os
import stat


def _setup(ctx):
    ours = os.path.join(ctx.tmp, "ours")
    real = os.path.join(ctx.tmp, "real")
    os.makedirs(ours)
    os.makedirs(real)
    os.symlink(ctx.bin, os.path.join(ours, "pahole"))
    fake = os.path.join(real, "pahole")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\necho "real pahole: $*"\n')
    os.chmod(fake, stat.S_IRWXU)
    obj = ctx.fixture("types_composite", "gcc", 5)
    f = os.path.join(ctx.tmp, "t.o")
    with open(obj, "rb") as a, open(f, "wb") as b:
        b.write(a.read())
    return os.path.join(ours, "pahole"), ours, real, fake, f


def test_pahole_name_forwards(ctx):
    pahole, ours, real, fake, f = _setup(ctx)
    before = open(f, "rb").read()
    env = dict(os.environ, PATH=ours + ":" + real + ":" + os.environ["PATH"])
    env.pop("DWARF2BTF_PAHOLE", None)
    for args in ([f], ["-C", "s", f], ["--help"]):
        p = ctx.run([pahole] + args, env=env)
        assert p.returncode == 0 and \
            p.stdout == "real pahole: %s\n" % " ".join(args), (args, p)
    assert open(f, "rb").read() == before
    # named by the environment, even with another one on PATH
    other = os.path.join(ctx.tmp, "other-pahole")
    with open(other, "w") as o:
        o.write('#!/bin/sh\necho "other: $*"\n')
    os.chmod(other, stat.S_IRWXU)
    p = ctx.run([pahole, f], env=dict(env, DWARF2BTF_PAHOLE=other))
    assert p.stdout == "other: %s\n" % f, p


def test_pahole_name_without_real(ctx):
    pahole, ours, real, fake, f = _setup(ctx)
    before = open(f, "rb").read()
    # only ourselves on PATH, and our own binary named by the environment
    for env in (dict(os.environ, PATH=ours + ":/usr/bin:/bin"),
                dict(os.environ, PATH=ours, DWARF2BTF_PAHOLE=pahole)):
        if "DWARF2BTF_PAHOLE" not in env:
            env.pop("DWARF2BTF_PAHOLE", None)
            if os.path.exists("/usr/bin/pahole"):
                env["PATH"] = ours      # hide the system's pahole
        p = ctx.run([pahole, f], env=env)
        assert p.returncode == 2, p
        lines = p.stderr.splitlines()
        assert len(lines) == 1 and "DWARF2BTF_PAHOLE" in lines[0], p.stderr
        assert open(f, "rb").read() == before


def test_pahole_name_encodes(ctx):
    pahole, ours, real, fake, f = _setup(ctx)
    env = dict(os.environ, PATH=ours + ":" + real + ":" + os.environ["PATH"])
    p = ctx.run([pahole, "--version"], env=env)
    assert p.returncode == 0 and p.stdout == "v1.32\n", p
    out = os.path.join(ctx.tmp, "t.btf")
    p = ctx.run([pahole, "-J", "--btf_encode_detached=" + out, f], env=env)
    assert p.returncode == 0 and os.path.getsize(out) > 0, p
    p = ctx.run([pahole, "-J", f], env=env)
    assert p.returncode == 0 and not p.stdout, p
    p = ctx.run(["readelf", "-S", f])
    assert " .BTF " in p.stdout
