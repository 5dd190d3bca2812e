# SPDX-License-Identifier: GPL-2.0-only
"""examples/uprobe-cxx: a BPF program built against the header of a C++
service's BTF reads a running service's order through a uprobe, its CO-RE
relocations resolved against the BTF we wrote (libbpf's btf_custom_path).

The service runs in two versions whose classes differ in front of the
fields read; the program knows the first one's header only.  Both must
read the same values: the second only does if our BTF places every
field where the compiler did, the base class's (a class with a virtual
destructor, so a vtable pointer comes first) and a std::string's
character pointer included.
"""

import os

WANT = ("order serial=900001 id=4242 sku=77 quantity=3 total=99.50 "
        "customer=Ada Lovelace, Analytical Engines")


def test_example_uprobe_cxx(ctx):
    script = os.path.join(ctx.root, "examples", "uprobe-cxx", "run.sh")
    p = ctx.run([script, ctx.bin, os.path.join(ctx.tmp, "out")],
                timeout=300)
    if p.returncode == 77:
        raise ctx.Skip(p.stdout.strip())
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines() == ["v1: " + WANT, "v2: " + WANT], \
        p.stdout
