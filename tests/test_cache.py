# SPDX-License-Identifier: GPL-2.0-only
"""The cache (src/cache/cache_dir.c, src/cache/base_cache.c): a module over
a base stores the base's index once and reads it back after; the output
is the same bytes with and without it, and whatever is in the cache
directory: an entry corrupted, cut short, of another base, or written by
two processes at once is detected and rebuilt; a read-only or missing
directory only costs time.
"""
import os
import stat
import subprocess

MODS = ("mod_a", "mod_b", "mod_c")


def _setup(ctx, cc="gcc", dwarf=5):
    base_obj = ctx.fixture("mod_base", cc, dwarf)
    base = os.path.join(ctx.tmp, "base.btf")
    p = ctx.run([ctx.bin, "--no-cache", "-o", base, base_obj])
    assert p.returncode == 0, p.stderr
    return base, [ctx.fixture(m, cc, dwarf) for m in MODS]


def _run(ctx, base, obj, out, cache, extra=()):
    env = dict(os.environ)
    env.pop("DWARF2BTF_NO_CACHE", None)
    env["DWARF2BTF_CACHE_DIR"] = cache
    p = ctx.run([ctx.bin, "--stats", "--base", base, "-o", out, obj] +
                list(extra), env=env)
    assert p.returncode == 0, p.stderr
    with open(out, "rb") as f:
        return f.read(), "base index read from the cache" in p.stderr


def _entries(cache):
    return sorted(f for f in os.listdir(cache) if f.endswith(".d2b")) \
        if os.path.isdir(cache) else []


def _want(ctx, base, objs):
    out = os.path.join(ctx.tmp, "nocache.btf")
    want = []
    for o in objs:
        p = ctx.run([ctx.bin, "--no-cache", "--base", base, "-o", out, o])
        assert p.returncode == 0, p.stderr
        with open(out, "rb") as f:
            want.append(f.read())
    return want


def test_cache_stores_then_reads(ctx):
    for cc in ("gcc", "clang"):
        base, objs = _setup(ctx, cc)
        want = _want(ctx, base, objs)
        cache = os.path.join(ctx.tmp, "cache-" + cc)
        out = os.path.join(ctx.tmp, "o.btf")
        got, hit = _run(ctx, base, objs[0], out, cache)
        assert got == want[0] and not hit
        assert len(_entries(cache)) == 1, _entries(cache)
        for o, w in zip(objs, want):
            got, hit = _run(ctx, base, o, out, cache)
            assert got == w and hit, (o, hit)
        mode = stat.S_IMODE(os.stat(cache).st_mode)
        assert mode == 0o700, oct(mode)


def test_cache_off(ctx):
    base, objs = _setup(ctx)
    cache = os.path.join(ctx.tmp, "cache")
    out = os.path.join(ctx.tmp, "o.btf")
    for extra, env in ((["--no-cache"], {}),
                       ([], {"DWARF2BTF_NO_CACHE": "1"})):
        e = dict(os.environ, DWARF2BTF_CACHE_DIR=cache, **env)
        p = ctx.run([ctx.bin, "--base", base, "-o", out, objs[0]] + extra,
                    env=e)
        assert p.returncode == 0, p.stderr
    assert not os.path.exists(cache)
    e = dict(os.environ, DWARF2BTF_CACHE_DIR=cache)
    e.pop("DWARF2BTF_NO_CACHE", None)
    alt = os.path.join(ctx.tmp, "alt")
    p = ctx.run([ctx.bin, "--cache-dir", alt, "--base", base, "-o", out,
                 objs[0]], env=e)
    assert p.returncode == 0 and _entries(alt) and not _entries(cache)


def _damage(path, how):
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if how == "flip":
            data[len(data) // 2] ^= 0x40
        elif how == "truncate":
            data = data[:len(data) // 3]
        elif how == "header":
            data[0:8] = b"XXXXXXXX"
        elif how == "empty":
            data = bytearray()
        f.seek(0)
        f.truncate()
        f.write(data)


def _stored(ctx):
    """A module over a base run once: its output without cache, the cache
    directory, an output path and the entry stored."""
    base, objs = _setup(ctx)
    want = _want(ctx, base, objs)[0]
    cache = os.path.join(ctx.tmp, "cache")
    out = os.path.join(ctx.tmp, "o.btf")
    _run(ctx, base, objs[0], out, cache)
    return base, objs, want, cache, out, \
        os.path.join(cache, _entries(cache)[0])


def test_cache_damaged_entries(ctx):
    """Each damaged entry is ignored (built again), never trusted: the
    output stays the bytes of a run without cache."""
    base, objs, want, cache, out, entry = _stored(ctx)
    for how in ("flip", "truncate", "header", "empty"):
        _damage(entry, how)
        got, hit = _run(ctx, base, objs[0], out, cache)
        assert got == want and not hit, how
        # rebuilt and stored again: the next run reads it
        got, hit = _run(ctx, base, objs[0], out, cache)
        assert got == want and hit, how


def test_cache_other_base(ctx):
    """An entry of another base (a stale one, after the vmlinux changed)
    is not used: the key is the base's bytes."""
    base, objs = _setup(ctx)
    cache = os.path.join(ctx.tmp, "cache")
    out = os.path.join(ctx.tmp, "o.btf")
    _run(ctx, base, objs[0], out, cache)
    other_obj = ctx.fixture("mod_base", "clang", 4)
    other = os.path.join(ctx.tmp, "other.btf")
    assert ctx.run([ctx.bin, "--no-cache", "-o", other,
                    other_obj]).returncode == 0
    got, hit = _run(ctx, other, objs[0], out, cache)
    assert not hit and len(_entries(cache)) == 2
    # an entry renamed to the name of the other base's
    names = _entries(cache)
    a, b = (os.path.join(cache, n) for n in names)
    os.replace(a, b)
    for bs in (base, other):
        want = _want(ctx, bs, objs[:1])[0]
        got, _ = _run(ctx, bs, objs[0], out, cache)
        assert got == want


def test_cache_read_only_and_missing(ctx):
    base, objs = _setup(ctx)
    want = _want(ctx, base, objs)[0]
    out = os.path.join(ctx.tmp, "o.btf")
    ro = os.path.join(ctx.tmp, "ro")
    os.mkdir(ro, 0o500)
    try:
        got, hit = _run(ctx, base, objs[0], out, ro)
        assert got == want and not hit
        # root writes to a read-only directory anyway
        assert os.geteuid() == 0 or not os.listdir(ro)
    finally:
        os.chmod(ro, 0o700)
    # a path under a file: the directory cannot exist
    f = os.path.join(ctx.tmp, "file")
    open(f, "w").close()
    got, hit = _run(ctx, base, objs[0], out, os.path.join(f, "cache"))
    assert got == want and not hit


def test_cache_two_processes(ctx):
    """Processes of one make -j fill one entry at once: each writes a
    temporary file and renames it, so all see a whole entry or none."""
    base, objs = _setup(ctx)
    want = _want(ctx, base, objs)
    cache = os.path.join(ctx.tmp, "cache")
    env = dict(os.environ, DWARF2BTF_CACHE_DIR=cache)
    env.pop("DWARF2BTF_NO_CACHE", None)
    for rnd in range(3):
        procs = []
        for i, o in enumerate(objs * 2):
            out = os.path.join(ctx.tmp, "p%d-%d.btf" % (rnd, i))
            procs.append((subprocess.Popen(
                [ctx.bin, "--base", base, "-o", out, o], env=env,
                stderr=subprocess.PIPE), out, want[i % len(objs)]))
        for p, out, w in procs:
            _, err = p.communicate(timeout=120)
            assert p.returncode == 0, err
            with open(out, "rb") as f:
                assert f.read() == w
        assert len(_entries(cache)) == 1, os.listdir(cache)
        assert not [f for f in os.listdir(cache) if f.startswith(".")]
        if rnd == 0:
            os.unlink(os.path.join(cache, _entries(cache)[0]))


def test_cache_bound(ctx):
    """DWARF2BTF_CACHE_MAX: the oldest entries go."""
    base, objs = _setup(ctx)
    cache = os.path.join(ctx.tmp, "cache")
    out = os.path.join(ctx.tmp, "o.btf")
    _run(ctx, base, objs[0], out, cache)
    size = os.path.getsize(os.path.join(cache, _entries(cache)[0]))
    other = os.path.join(ctx.tmp, "other.btf")
    assert ctx.run([ctx.bin, "--no-cache", "-o", other,
                    ctx.fixture("mod_base", "clang", 4)]).returncode == 0
    env = dict(os.environ, DWARF2BTF_CACHE_DIR=cache,
               DWARF2BTF_CACHE_MAX=str(size + size // 2))
    env.pop("DWARF2BTF_NO_CACHE", None)
    first = _entries(cache)[0]
    p = ctx.run([ctx.bin, "--base", other, "-o", out, objs[0]], env=env)
    assert p.returncode == 0, p.stderr
    assert len(_entries(cache)) == 1 and _entries(cache)[0] != first
    p = ctx.run([ctx.bin, "--base", other, "-o", out, objs[0]],
                env=dict(env, DWARF2BTF_CACHE_MAX="12Q"))
    assert p.returncode == 2 and "DWARF2BTF_CACHE_MAX" in p.stderr


def _hash_bytes(data):
    """src/lib/hash.h's hash_bytes()."""
    m = (1 << 64) - 1
    k = [0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9,
         0xd6e8feb86659fd93]
    a = list(k)
    n = len(data) // 32
    for i in range(n):
        for j in range(4):
            w = int.from_bytes(data[32 * i + 8 * j:32 * i + 8 * j + 8],
                               "little")
            a[j] = ((a[j] ^ w) * k[j]) & m
            a[j] = ((a[j] << 31) | (a[j] >> 33)) & m
    h = (len(data) * k[0]) & m
    for j in range(4):
        h = (((h ^ a[j]) * k[(j + 1) & 3]) & m) ^ (h >> 29)
    for b in data[32 * n:]:
        h = ((h ^ b) * 0x100000001b3) & m
    h ^= h >> 33
    h = (h * 0xff51afd7ed558ccd) & m
    return h ^ (h >> 33)


# struct base_cache_hdr (src/cache/base_cache.h)
_OFF_AT = 8 + 4 + 4 + 8 * 4 + 4 * 6
# then libbpf's table after the base: sizes, growths and their ids
_HDR = _OFF_AT + 8 * 7 + 8 * 2 + 4 * 2 + 4 * 40
_CHECKSUM_AT = 8 + 4 + 4 + 8 + 8
_TYPES_NEXT = 1


def test_cache_checked_beyond_checksum(ctx):
    """An entry with a right checksum whose chains loop (which would hang
    every lookup) is rejected by the check of its indices (fuzz_cache found
    the hang; fuzz/corpus/cache/chains-loop)."""
    base, objs, want, cache, out, entry = _stored(ctx)
    with open(entry, "rb") as f:
        data = bytearray(f.read())
    want_sum = int.from_bytes(data[_CHECKSUM_AT:_CHECKSUM_AT + 8], "little")
    assert _hash_bytes(bytes(data[_HDR:])) == want_sum, "hash_bytes differs"
    nxt = int.from_bytes(data[_OFF_AT + 8 * _TYPES_NEXT:
                              _OFF_AT + 8 * _TYPES_NEXT + 8], "little")
    # next[5] = 7: 7 -> ... may come back to 5
    data[nxt + 4 * 5:nxt + 4 * 5 + 4] = (7).to_bytes(4, "little")
    data[nxt + 4 * 7:nxt + 4 * 7 + 4] = (5).to_bytes(4, "little")
    _rewrite_rejected(ctx, entry, data, base, objs, want, cache, out)


def _rewrite_rejected(ctx, entry, data, base, objs, want, cache, out):
    """Writes @data as @entry with its checksum made right, and checks
    that a run rejects it: the output of no cache, the entry not read."""
    data[_CHECKSUM_AT:_CHECKSUM_AT + 8] = \
        _hash_bytes(bytes(data[_HDR:])).to_bytes(8, "little")
    with open(entry, "wb") as f:
        f.write(data)
    got, hit = _run(ctx, base, objs[0], out, cache)
    assert got == want and not hit


_STR_NB_AT = 8 + 4 + 4 + 8 * 4 + 4 * 4
_STR_SLOTS = 6


def test_cache_full_string_table(ctx):
    """An entry with a right checksum whose strings' table has no empty
    slot (a look-up of a name the base lacks would probe for ever) is
    rejected, and the index built again."""
    base, objs, want, cache, out, entry = _stored(ctx)
    with open(entry, "rb") as f:
        data = bytearray(f.read())
    nb = int.from_bytes(data[_STR_NB_AT:_STR_NB_AT + 4], "little")
    at = int.from_bytes(data[_OFF_AT + 8 * _STR_SLOTS:
                             _OFF_AT + 8 * _STR_SLOTS + 8], "little")
    assert nb >= 16 and at + 4 * nb <= len(data), (nb, at)
    # every slot the empty string's (offset 0, + 1)
    data[at:at + 4 * nb] = (1).to_bytes(4, "little") * nb
    _rewrite_rejected(ctx, entry, data, base, objs, want, cache, out)


def test_cache_staged_entries(ctx):
    """Staged entries (the first run's batches, before their keys): read
    back whole and removed; grown, cut short or gone is an error
    (tests/unit/test_cache_stage.c under ASan and UBSan)."""
    ctx.unit("test_cache_stage", ["cache/cache_dir.c"])
