# SPDX-License-Identifier: GPL-2.0-only
"""Packaging: plain `make` needs only the build dependencies, installs
nothing and names a missing library; `make install` / `make uninstall`
with DESTDIR and PREFIX leave nothing behind.
"""
import os
import stat

FAKES = ("apt-get", "dpkg-query", "sudo")


def _fake_path(ctx, missing):
    """A PATH whose package tools record that they ran, and whose
    pkg-config says @missing is not there."""
    d = os.path.join(ctx.tmp, "fakebin")
    os.makedirs(d)
    calls = os.path.join(ctx.tmp, "calls")
    for tool in FAKES:
        p = os.path.join(d, tool)
        with open(p, "w") as f:
            f.write("#!/bin/sh\necho %s \"$@\" >> %s\nexit 1\n" % (tool, calls))
        os.chmod(p, stat.S_IRWXU)
    p = os.path.join(d, "pkg-config")
    with open(p, "w") as f:
        f.write('#!/bin/sh\nfor a; do [ "$a" = "%s" ] && exit 1; done\n'
                'exec /usr/bin/pkg-config "$@"\n' % missing)
    os.chmod(p, stat.S_IRWXU)
    return d, calls


def test_build_names_missing_library(ctx):
    d, calls = _fake_path(ctx, "libbpf")
    env = dict(os.environ, PATH=d + ":" + os.environ["PATH"])
    build = os.path.join(ctx.tmp, "b")
    p = ctx.run(["make", "-C", str(ctx.root), "BUILD=" + build], env=env,
                timeout=300)
    assert p.returncode != 0, p.stdout
    assert "missing libraries: libbpf (libbpf-dev)" in p.stderr, p.stderr
    assert not os.path.exists(calls), open(calls).read()
    assert not os.path.exists(os.path.join(build, "dwarf2btf"))


def test_build_installs_nothing(ctx):
    """With every library there, plain make builds, and never asks a
    package manager."""
    d, calls = _fake_path(ctx, "no-such-module")
    env = dict(os.environ, PATH=d + ":" + os.environ["PATH"])
    build = os.path.join(ctx.tmp, "b")
    p = ctx.run(["make", "-C", str(ctx.root), "-j2", "BUILD=" + build],
                env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert os.access(os.path.join(build, "dwarf2btf"), os.X_OK)
    assert not os.path.exists(calls), open(calls).read()


def test_install_uninstall(ctx):
    dest = os.path.join(ctx.tmp, "dest")
    build = os.path.relpath(os.path.dirname(ctx.bin), str(ctx.root))
    args = ["make", "-C", str(ctx.root), "BUILD=" + build,
            "DESTDIR=" + dest, "PREFIX=/usr"]
    p = ctx.run(args + ["install", "PAHOLE_LINK=1"], timeout=300)
    assert p.returncode == 0, p.stderr
    files = sorted(os.path.relpath(os.path.join(t, f), dest)
                   for t, _, fs in os.walk(dest) for f in fs)
    assert files == ["usr/bin/dwarf2btf", "usr/bin/pahole",
                     "usr/share/man/man1/dwarf2btf.1"], files
    assert os.readlink(os.path.join(dest, "usr/bin/pahole")) == "dwarf2btf"
    p = ctx.run([os.path.join(dest, "usr/bin/dwarf2btf"), "--version"])
    assert p.returncode == 0 and p.stdout, p.stderr
    # a pahole that is not ours stays
    p = ctx.run(args + ["uninstall"], timeout=300)
    assert p.returncode == 0, p.stderr
    assert not os.path.exists(dest) or not any(
        fs for _, _, fs in os.walk(dest)), list(os.walk(dest))
    os.makedirs(os.path.join(dest, "usr/bin"), exist_ok=True)
    other = os.path.join(dest, "usr/bin/pahole")
    with open(other, "w") as f:
        f.write("#!/bin/sh\n")
    p = ctx.run(args + ["uninstall"], timeout=300)
    assert p.returncode == 0, p.stderr
    assert os.path.exists(other)
