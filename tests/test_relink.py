# SPDX-License-Identifier: GPL-2.0-only
"""The batch cache (src/cache/batch_cache.c, src/cache/cu_digest.c): a
library of 70 CUs (three batches) is encoded (the build's first run, which
only notes the build, then the run that stores), linked again with one CU
changed, and encoded again.  The batches whose CUs mean the same are read
back, those with the changed CU encoded, and the output is the bytes of a
run without cache: after code moved every address, after a variable moved
to another section with its DWARF the same, and whatever is in the cache
directory.
"""
import os
import re
import stat
import subprocess

from test_cache import _damage, _entries, _hash_bytes

NR_CUS = 70
NR_BATCHES = 3
HERE = os.path.dirname(os.path.abspath(__file__))
LD_SCRIPT = os.path.join(HERE, "fixtures", "relink-percpu.ld")


def _lib(ctx, cc, dwarf, name, changes=None):
    """The library linked from CUs 0..69, CU n built with changes[n]."""
    changes = changes or {}
    objs = [ctx.fixture("relink", cc, dwarf,
                        ["-fPIC", "-DCU=%d" % i] + changes.get(i, []))
            for i in range(NR_CUS)]
    lib = os.path.join(ctx.tmp, "%s.%s.%d.so" % (name, cc, dwarf))
    p = ctx.run([cc, "-shared", "-nostdlib", "-Wl,-T," + LD_SCRIPT, "-o",
                 lib] + objs)
    assert p.returncode == 0, p.stderr
    return lib


def _env(cache):
    env = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1",
               DWARF2BTF_CACHE_DIR=cache)
    env.pop("DWARF2BTF_NO_CACHE", None)
    return env


def _encode(ctx, lib, cache, extra=()):
    """LIB's BTF with CACHE, and how many batches were read back."""
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([ctx.bin, "--stats", "-o", out, lib] + list(extra),
                env=_env(cache))
    assert p.returncode == 0, p.stderr
    line = [l for l in p.stderr.splitlines() if "batch cache:" in l]
    assert len(line) == 1, p.stderr
    words = line[0].split()
    assert words[5] == str(NR_BATCHES), line
    cpu = [l for l in p.stderr.splitlines() if "batch cache CPU" in l]
    assert len(cpu) == 1 and re.fullmatch(
        r"stats: batch cache CPU \(all workers\): digests \d+\.\d{3} s, "
        r"reading back \d+\.\d{3} s, stores \d+\.\d{3} s", cpu[0]), p.stderr
    with open(out, "rb") as f:
        return f.read(), int(words[3])


def _note(ctx, lib, cache, extra=()):
    """The build's first run into CACHE: the bytes of a run without
    cache, the build noted and no batch stored."""
    before = [e for e in _entries(cache) if e.startswith("batch-")] \
        if os.path.isdir(cache) else []
    out = os.path.join(ctx.tmp, "note.btf")
    p = ctx.run([ctx.bin, "--stats", "-o", out, lib] + list(extra),
                env=_env(cache))
    assert p.returncode == 0, p.stderr
    line = [l for l in p.stderr.splitlines() if "batch cache" in l]
    assert line == ["stats: batch cache: the build's first run here, "
                    "noted; nothing stored"], p.stderr
    assert [e for e in _entries(cache) if e.startswith("batch-")] == \
        before, _entries(cache)
    with open(out, "rb") as f:
        assert f.read() == _want(ctx, lib, extra)


def _want(ctx, lib, extra=()):
    out = os.path.join(ctx.tmp, "want.btf")
    p = ctx.run([ctx.bin, "--no-cache", "-o", out, lib] + list(extra),
                env=_env(""))
    assert p.returncode == 0, p.stderr
    with open(out, "rb") as f:
        return f.read()


# (what changes, the CU, its flags, batches read back, encoder flags)
RELINKS = [
    # CU 0's code grows, and its per-CPU data: every address after it
    # moves, and every later per-CPU variable's offset
    ("code", 0, ["-DLONGER"], 2, []),
    # a member added: the types of one batch change
    ("member", 40, ["-DEXTRA"], 2, []),
    # gv_50 from .data to .bss, its DWARF the same: placed again
    ("section", 50, ["-DINIT=0"], 3, ["--btf_features=default,global_var"]),
    # a function more: only the batches whose CUs name it change
    ("function", 10, ["-DNEWFUNC"], 2, []),
    # pv_65 into .data..percpu, its DWARF the same: a VAR now, so the
    # batch's entry (which left it out) is not used
    ("percpu", 65, ["-DPERCPU"], 2, []),
]


def test_relink_reads_back_what_did_not_change(ctx):
    bad = []
    for cc in ("gcc", "clang"):
        for dwarf in (4, 5):
            cache = os.path.join(ctx.tmp, "cache-%s-%d" % (cc, dwarf))
            lib = _lib(ctx, cc, dwarf, "base")
            for extra in ([], ["--btf_features=default,global_var"]):
                want = _want(ctx, lib, extra)
                _note(ctx, lib, cache, extra)
                got, reused = _encode(ctx, lib, cache, extra)
                if got != want or reused != 0:
                    bad.append("%s %d %s cold: %d read back, same %s"
                               % (cc, dwarf, extra, reused, got == want))
                for j in ("-j1", "-j2"):
                    got, reused = _encode(ctx, lib, cache, extra + [j])
                    if got != want or reused != NR_BATCHES:
                        bad.append("%s %d %s warm %s: %d read back, same %s"
                                   % (cc, dwarf, extra, j, reused,
                                      got == want))
            for what, cu, flags, reads, extra in RELINKS:
                new = _lib(ctx, cc, dwarf, what, {cu: flags})
                want = _want(ctx, new, extra)
                if want == _want(ctx, lib, extra):
                    bad.append("%s %d %s: the change changes nothing"
                               % (cc, dwarf, what))
                got, reused = _encode(ctx, new, cache, extra)
                if got != want or reused != reads:
                    bad.append("%s %d %s: %d read back (want %d), same %s"
                               % (cc, dwarf, what, reused, reads,
                                  got == want))
    assert not bad, "\n".join(bad)


def _stored(ctx):
    cache = os.path.join(ctx.tmp, "cache")
    lib = _lib(ctx, "gcc", 5, "base")
    want = _want(ctx, lib)
    _note(ctx, lib, cache)
    got, reused = _encode(ctx, lib, cache)
    assert got == want and reused == 0
    entries = [e for e in _entries(cache) if e.startswith("batch-")]
    assert len(entries) == NR_BATCHES, entries
    return cache, lib, want, [os.path.join(cache, e) for e in entries]


def test_relink_cache_bound(ctx):
    """A run that stores batches leaves the directory within
    DWARF2BTF_CACHE_MAX: the oldest entries go, its own stay."""
    cache, lib, want, paths = _stored(ctx)
    total = sum(os.path.getsize(os.path.join(cache, e))
                for e in _entries(cache))
    for p in paths:
        os.unlink(p)
    old = []
    for i in range(8):
        o = os.path.join(cache, "old-%d.d2b" % i)
        with open(o, "wb") as f:
            f.write(bytes(total // 4 + 1))
        os.utime(o, (1000000 + i, 1000000 + i))
        old.append(o)
    env = dict(_env(cache), DWARF2BTF_CACHE_MAX=str(2 * total))
    out = os.path.join(ctx.tmp, "bound.btf")
    p = ctx.run([ctx.bin, "-o", out, lib], env=env)
    assert p.returncode == 0, p.stderr
    with open(out, "rb") as f:
        assert f.read() == want
    left = _entries(cache)
    size = sum(os.path.getsize(os.path.join(cache, e)) for e in left)
    assert size <= 2 * total, (size, total, left)
    assert all(os.path.exists(q) for q in paths), left
    kept = [o for o in old if os.path.exists(o)]
    # the oldest went first: what is kept is the newest
    assert kept == old[len(old) - len(kept):] and len(kept) < len(old), left


def test_relink_entries_same_bytes(ctx):
    """Two runs that store into two caches (each after the build's first
    run, which notes it) write the same entries, byte for byte: nothing
    of a run (padding, addresses) leaks into them.  The
    second run's new memory is filled with other bytes (glibc's
    MALLOC_PERTURB_), so that uninitialised bytes would differ."""
    bad = []
    for cc in ("gcc", "clang"):
        lib = _lib(ctx, cc, 5, "base")
        caches = [os.path.join(ctx.tmp, "same-%s-%d" % (cc, i))
                  for i in range(2)]
        for c, perturb in zip(caches, ("0", "165")):
            _note(ctx, lib, c)
            p = ctx.run([ctx.bin, "-j2", "-o", os.path.join(ctx.tmp, "o"),
                         lib], env=dict(_env(c), MALLOC_PERTURB_=perturb))
            assert p.returncode == 0, p.stderr
        names = sorted(e for e in _entries(caches[0])
                       if e.startswith("batch-"))
        if len(names) != NR_BATCHES or \
                names != sorted(e for e in _entries(caches[1])
                                if e.startswith("batch-")):
            bad.append("%s: entries %s" % (cc, names))
            continue
        for n in names:
            with open(os.path.join(caches[0], n), "rb") as a, \
                    open(os.path.join(caches[1], n), "rb") as b:
                if a.read() != b.read():
                    bad.append("%s: %s differs" % (cc, n))
    assert not bad, "\n".join(bad)


def _kinds(cache):
    """The cache's files by kind: batch, family, seen, staged (none must
    stay), temporary (nor those)."""
    files = os.listdir(cache) if os.path.isdir(cache) else []
    kinds = {}
    for f in files:
        kind = "temporary" if f.startswith(".") else f.split("-")[0]
        kinds.setdefault(kind, []).append(f)
    return kinds


def test_relink_keys_after_encoding(ctx):
    """The build's first run in a directory stores nothing and notes that
    it ran (seen).  Then, while no run of the input's family stored
    batches, the CUs' digests wait until the batches are encoded (staged
    meanwhile), and the family is noted.  With that note there, keys come
    first and every batch is looked for.  Each way, every batch is stored
    once and the bytes are those of a run without cache; no staged file
    stays, also after a failed run, which notes nothing."""
    cache = os.path.join(ctx.tmp, "cache")
    lib = _lib(ctx, "gcc", 5, "base")
    want = _want(ctx, lib)

    def run():
        out = os.path.join(ctx.tmp, "k.btf")
        p = ctx.run([ctx.bin, "--stats", "-o", out, lib], env=_env(cache))
        assert p.returncode == 0, p.stderr
        with open(out, "rb") as f:
            assert f.read() == want
        line = [l for l in p.stderr.splitlines() if "batch cache:" in l]
        assert "phase cache stores" in p.stderr, p.stderr
        return line[0].split("stats: batch cache: ")[1]

    counts = "0 of 3 batches read back, 3 stored, 0 without a key"
    noted = "the build's first run here, noted; nothing stored"
    assert run() == noted
    assert sorted(_kinds(cache)) == ["seen"], _kinds(cache)
    assert run() == counts
    kinds = _kinds(cache)
    assert sorted(kinds) == ["batch", "family", "seen"], kinds
    assert len(kinds["batch"]) == NR_BATCHES and len(kinds["family"]) == 1
    assert run() == "3 of 3 batches read back, 0 stored, 0 without a key"
    # the note, no batches: keys first, each looked for and stored
    for f in kinds["batch"]:
        os.unlink(os.path.join(cache, f))
    assert run() == counts
    assert sorted(_kinds(cache)) == ["batch", "family", "seen"]
    # batches, no note: nothing is looked for, all are stored again
    os.unlink(os.path.join(cache, kinds["family"][0]))
    assert run() == counts
    assert _kinds(cache) == kinds
    # nor that the build ran: noted again, nothing stored
    os.unlink(os.path.join(cache, kinds["family"][0]))
    os.unlink(os.path.join(cache, kinds["seen"][0]))
    assert run() == noted
    assert sorted(_kinds(cache)) == ["batch", "seen"], _kinds(cache)
    # a run that fails (a missing output directory) leaves no staged file
    # and notes nothing, whether it would have stored or not
    for seen in (False, True):
        subprocess.run(["rm", "-rf", cache])
        if seen:
            assert run() == noted
        p = ctx.run([ctx.bin, "-o", os.path.join(ctx.tmp, "no", "x.btf"),
                     lib], env=_env(cache))
        assert p.returncode == 1, p.stderr
        assert not {"staged", "temporary", "family"} & set(_kinds(cache)), \
            _kinds(cache)
        assert ("seen" in _kinds(cache)) == seen, _kinds(cache)


def _cu_dies(lib, cu):
    """LIB's bytes, its sections, scripts/lib/dwarf-edit.py as a module, and
    the DIEs of LIB's unit CU (dwarf-edit.py's dies(): value offsets from
    the start of .debug_info)."""
    import importlib.util
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts", "lib"))
    from elfsections import sections
    spec = importlib.util.spec_from_file_location(
        "dwarf_edit", os.path.join(os.path.dirname(HERE), "scripts", "lib",
                                   "dwarf-edit.py"))
    de = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(de)
    with open(lib, "rb") as f:
        data = bytearray(f.read())
    secs = sections(data)
    info_off, info_size, _ = secs[".debug_info"]
    abbrev_off, abbrev_size, _ = secs[".debug_abbrev"]
    info = bytes(data[info_off:info_off + info_size])
    abbrev = bytes(data[abbrev_off:abbrev_off + abbrev_size])
    return data, secs, de, de.dies(info, abbrev, de.cu_offsets(info)[cu])


def _edit_list(lib, out, cu, tag, name):
    """LIB copied to OUT with one expression of the location list of CU's
    DIE TAG NAME changed (its first register op names the next register):
    DWARF 5, DW_FORM_sec_offset.  False when there is no such list."""
    data, secs, de, dies = _cu_dies(lib, cu)
    info_off = secs[".debug_info"][0]
    lists_off = secs[".debug_loclists"][0]
    for _, t, vals, _ in dies:
        loc = vals.get(0x02)  # DW_AT_location
        n = vals.get(0x03)
        if t != tag or not loc or loc[0] != 0x17 or not n or \
                data[info_off + n[2]:info_off + n[2] + len(name)] != name:
            continue
        at = lists_off + loc[1]
        while data[at]:  # DW_LLE_end_of_list
            kind, at = data[at], at + 1
            if kind in (0x01,):  # base_addressx
                _, at = de.uleb(data, at)
                continue
            if kind == 0x06:  # base_address
                at += 8
                continue
            if kind in (0x02, 0x03, 0x04):
                _, at = de.uleb(data, at)
                _, at = de.uleb(data, at)
            elif kind == 0x07:
                at += 16
            elif kind == 0x08:
                at += 8
                _, at = de.uleb(data, at)
            elif kind != 0x05:
                return False
            size, at = de.uleb(data, at)
            op = data[at]
            if size and (0x50 <= op < 0x6f or 0x70 <= op < 0x8f):
                data[at] = op + 1
                with open(out, "wb") as f:
                    f.write(data)
                return True
            at += size
    return False


def test_relink_local_lists(ctx):
    """What a local variable's location list says is not read by the
    encoding (it takes only a global's address), so the digest leaves it
    out: a copy where one says otherwise encodes to the same bytes and
    every batch is read back.  A parameter's list is read: the same change
    to one re-encodes its batch."""
    cache = os.path.join(ctx.tmp, "cache")
    lib = _lib(ctx, "gcc", 5, "base")
    want = _want(ctx, lib)
    _note(ctx, lib, cache)
    got, reused = _encode(ctx, lib, cache)
    assert got == want and reused == 0
    local = os.path.join(ctx.tmp, "local.so")
    assert _edit_list(lib, local, 40, 0x34, b"r\0"), "no list of r in CU 40"
    assert _want(ctx, local) == want
    got, reused = _encode(ctx, local, cache)
    assert got == want and reused == NR_BATCHES, reused
    param = os.path.join(ctx.tmp, "param.so")
    assert _edit_list(lib, param, 40, 0x05, b"k\0"), "no list of k in CU 40"
    got, reused = _encode(ctx, param, cache)
    assert got == _want(ctx, param) and reused == NR_BATCHES - 1, reused


# Bytes of the fixed-size forms an attribute edit rewrites in place: data1,
# data2, data4, data8, strp (32-bit DWARF), strx1, strx2, sec_offset.
_FORM_BYTES = {0x0b: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x0e: 4, 0x25: 1,
               0x26: 2, 0x17: 4}


def _edit_attr(lib, out, cu, tag, attrs, change):
    """LIB copied to OUT with the first of ATTRS that CU's first DIE TAG
    with one of them in a fixed-size form has set to CHANGE(its value), in
    place; False when no DIE has one so."""
    data, secs, _, dies = _cu_dies(lib, cu)
    info_off = secs[".debug_info"][0]
    for _, t, vals, _ in dies:
        at = [a for a in attrs if a in vals and vals[a][0] in _FORM_BYTES]
        if t != tag or not at:
            continue
        form, v, where = vals[at[0]]
        n = _FORM_BYTES[form]
        at = info_off + where
        data[at:at + n] = change(v).to_bytes(n, "little")
        with open(out, "wb") as f:
            f.write(data)
        return True
    return False


# What the encoder reads of a DIE (cu/cu_die.c's attribute slots), one of
# each changed in CU 40 (the second batch): (what, tag, attributes,
# change); an array's length is clang's DW_AT_count, gcc's upper bound.
# The digest must take in all of it (cache/cu_digest.c), or a cached batch
# would give the BTF of the DWARF before the change.
READ_ATTRS = [
    ("a struct's size", 0x13, (0x0b,), lambda v: v + 8),
    ("a member's offset", 0x0d, (0x38,), lambda v: v + 1),
    ("an int's encoding", 0x24, (0x3e,), lambda v: 7 if v == 5 else 5),
    ("an array's length", 0x21, (0x2f, 0x37), lambda v: v + 1),
    ("a struct's name", 0x13, (0x03,), lambda v: v + 1),
]


def test_relink_digest_holds_what_the_encoder_reads(ctx):
    """One attribute the encoder reads, changed in place in one CU: the
    output changes, and so does that batch's key (the cache gives the
    bytes of a run without it, the other batches read back).  An
    attribute it never reads (the unit's DW_AT_stmt_list, which a relink
    moves) changes neither: every batch is read back."""
    bad = []
    for cc, dwarf in (("gcc", 4), ("gcc", 5), ("clang", 5)):
        cache = os.path.join(ctx.tmp, "cache-%s-%d" % (cc, dwarf))
        lib = _lib(ctx, cc, dwarf, "base")
        want = _want(ctx, lib)
        _note(ctx, lib, cache)
        got, reused = _encode(ctx, lib, cache)
        assert got == want and reused == 0
        edited = os.path.join(ctx.tmp, "edited.so")
        for what, tag, attrs, change in READ_ATTRS:
            assert _edit_attr(lib, edited, 40, tag, attrs, change), \
                "%s %d: no %s in CU 40" % (cc, dwarf, what)
            new = _want(ctx, edited)
            got, reused = _encode(ctx, edited, cache)
            if new == want:
                bad.append("%s %d %s: the output is the same" %
                           (cc, dwarf, what))
            if got != new or reused != NR_BATCHES - 1:
                bad.append("%s %d %s: %d read back (want %d), same %s" %
                           (cc, dwarf, what, reused, NR_BATCHES - 1,
                            got == new))
        assert _edit_attr(lib, edited, 40, 0x11, (0x10,), lambda v: v + 1), \
            "%s %d: no DW_AT_stmt_list in CU 40" % (cc, dwarf)
        got, reused = _encode(ctx, edited, cache)
        if got != want or reused != NR_BATCHES:
            bad.append("%s %d DW_AT_stmt_list: %d read back, same %s" %
                       (cc, dwarf, reused, got == want))
    assert not bad, "\n".join(bad)


def test_relink_damaged_entries(ctx):
    """A damaged entry is ignored and stored again; the output stays the
    bytes of a run without cache."""
    cache, lib, want, entries = _stored(ctx)
    for how in ("flip", "truncate", "header", "empty"):
        _damage(entries[1], how)
        got, reused = _encode(ctx, lib, cache)
        assert got == want and reused == NR_BATCHES - 1, (how, reused)
        got, reused = _encode(ctx, lib, cache)
        assert got == want and reused == NR_BATCHES, (how, reused)


def test_relink_foreign_entry(ctx):
    """Another batch's entry under this batch's name (a stale or foreign
    entry, its checksum right) is not used: the header holds its key."""
    cache, lib, want, entries = _stored(ctx)
    with open(entries[0], "rb") as f:
        data = f.read()
    with open(entries[2], "wb") as f:
        f.write(data)
    got, reused = _encode(ctx, lib, cache)
    assert got == want and reused == NR_BATCHES - 1


# struct entry_hdr (src/cache/batch_cache.c): 8 parts
_HDR = 8 + 4 + 4 + 16 + 8 + 8 + 8 + 4 + 4 + 8 * 8 * 2
_CHECKSUM_AT = 8 + 4 + 4 + 16 + 8
_COUNT_AT = _CHECKSUM_AT + 8 + 8 + 8
_OFF_AT = _COUNT_AT + 8 * 8
_FUNCS = 1


def _rewrite(path, change):
    """Apply CHANGE(data, off, count) to the entry at PATH, checksum kept
    right, so that only the checks of what is inside can reject it."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    old = int.from_bytes(data[_CHECKSUM_AT:_CHECKSUM_AT + 8], "little")
    assert _hash_bytes(bytes(data[_HDR:])) == old, "hash_bytes differs"

    def field(at, i):
        return int.from_bytes(data[at + 8 * i:at + 8 * i + 8], "little")
    change(data, [field(_OFF_AT, i) for i in range(8)],
           [field(_COUNT_AT, i) for i in range(8)])
    data[_CHECKSUM_AT:_CHECKSUM_AT + 8] = \
        _hash_bytes(bytes(data[_HDR:])).to_bytes(8, "little")
    with open(path, "wb") as f:
        f.write(data)


def test_relink_checked_beyond_checksum(ctx):
    """Indices that point outside an entry, with a right checksum, are
    rejected: a function's return type, its parameters, its key."""
    def ret_type(data, off, count):
        at = off[_FUNCS] + 4 * 4 + 8 + 12
        data[at:at + 4] = (0x7fffffff).to_bytes(4, "little")

    def params(data, off, count):
        at = off[_FUNCS] + 4 * 4 + 8 + 12 + 4 * 2
        data[at:at + 4] = (0xfffffff0).to_bytes(4, "little")

    def key(data, off, count):
        at = off[_FUNCS]
        data[at:at + 4] = (count[7] + 5).to_bytes(4, "little")

    def count(data, off, count):
        at = _COUNT_AT + 8 * _FUNCS
        data[at:at + 8] = (count[_FUNCS] + 1000).to_bytes(8, "little")

    for change in (ret_type, params, key, count):
        cache, lib, want, entries = _stored(ctx)
        _rewrite(entries[0], change)
        got, reused = _encode(ctx, lib, cache)
        assert got == want and reused == NR_BATCHES - 1, change.__name__
        subprocess.run(["rm", "-rf", cache])


def test_relink_cache_shared_and_read_only(ctx):
    """Four processes filling one cache at once (after the build's first
    run), then a read-only cache directory: the same bytes each time."""
    cache = os.path.join(ctx.tmp, "cache")
    lib = _lib(ctx, "clang", 5, "base")
    want = _want(ctx, lib)
    _note(ctx, lib, cache)
    outs = [os.path.join(ctx.tmp, "p%d.btf" % i) for i in range(4)]
    procs = [subprocess.Popen([ctx.bin, "-o", o, lib], env=_env(cache),
                              stderr=subprocess.PIPE) for o in outs]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    for o in outs:
        with open(o, "rb") as f:
            assert f.read() == want
    got, reused = _encode(ctx, lib, cache)
    assert got == want and reused == NR_BATCHES
    os.chmod(cache, stat.S_IRUSR | stat.S_IXUSR)
    try:
        new = _lib(ctx, "clang", 5, "member", {40: ["-DEXTRA"]})
        got, reused = _encode(ctx, new, cache)
        assert got == _want(ctx, new) and reused == NR_BATCHES - 1
    finally:
        os.chmod(cache, stat.S_IRWXU)


def test_relink_large_batches(ctx):
    """A large input's batches (lib/cu_batch.h; a test hook makes the
    70 CUs one batch of up to 128): after the build's first run, the
    next stores one entry, the next reads it back, and a changed CU has the whole batch encoded
    again; each run gives the bytes of a run without cache, which are
    those of batches of 32 by meaning."""
    cache = os.path.join(ctx.tmp, "cache-large")
    lib = _lib(ctx, "gcc", 5, "base")
    new = _lib(ctx, "gcc", 5, "member", {40: ["-DEXTRA"]})
    env = dict(_env(cache), DWARF2BTF_LARGE_BATCH_FROM="1")
    nocache = dict(_env(""), DWARF2BTF_LARGE_BATCH_FROM="1")

    def run(path, cache_env):
        out = os.path.join(ctx.tmp, "large.btf")
        args = [] if cache_env is env else ["--no-cache"]
        p = ctx.run([ctx.bin, "--stats", "-o", out, path] + args,
                    env=cache_env)
        assert p.returncode == 0, p.stderr
        m = re.search(r"batch cache: (\d+) of (\d+) batches read back, "
                      r"(\d+) stored", p.stderr)
        with open(out, "rb") as f:
            return f.read(), m and tuple(int(g) for g in m.groups())

    for path, steps in ((lib, (None, (0, 1, 1), (1, 1, 0))),
                        (new, ((0, 1, 1),))):
        want, _ = run(path, nocache)
        for counts in steps:
            got, said = run(path, env)
            assert said == counts, (path, said, counts)
            assert got == want, path
    small = _want(ctx, new)
    a = os.path.join(ctx.tmp, "small.btf")
    b = os.path.join(ctx.tmp, "large-want.btf")
    with open(a, "wb") as f:
        f.write(small)
    with open(b, "wb") as f:
        f.write(want)
    p = ctx.run([ctx.bin, "diff", a, b])
    assert p.returncode == 0, p.stdout


def test_relink_not_for_small_inputs(ctx):
    """Below the size where batches are deduplicated (one dedup of
    everything), and for `explain`, there is nothing to keep."""
    cache = os.path.join(ctx.tmp, "cache")
    lib = _lib(ctx, "gcc", 5, "base")
    env = _env(cache)
    env.pop("DWARF2BTF_BATCH_DEDUP")
    p = ctx.run([ctx.bin, "--stats", "-o", os.path.join(ctx.tmp, "o.btf"),
                 lib], env=env)
    assert p.returncode == 0 and "batch cache" not in p.stderr, p.stderr
    p = ctx.run([ctx.bin, "explain", "--all", lib], env=_env(cache))
    assert p.returncode == 0, p.stderr
    assert not [e for e in _entries(cache) if e.startswith("batch-")]


def test_relink_bad_dwarf(ctx):
    """A CU whose DWARF is broken gets no key: the run with the cache says
    what the run without it says (one line naming the CU, exit 1, nothing
    written), and stores nothing for that batch."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts", "lib"))
    from elfsections import sections
    for dwarf in (4, 5):
        lib = _lib(ctx, "gcc", dwarf, "base")
        bad = os.path.join(ctx.tmp, "bad.%d.so" % dwarf)
        with open(lib, "rb") as f:
            data = bytearray(f.read())
        off, size, _ = sections(data)[".debug_info"]
        at = 0
        for _ in range(40):  # CU 40, in the second batch
            at += 4 + int.from_bytes(data[off + at:off + at + 4], "little")
        # the unit DIE's abbreviation code, after the unit's header
        data[off + at + (12 if dwarf == 5 else 11)] = 0x7f
        with open(bad, "wb") as f:
            f.write(data)
        # the build's first run (the good library's) stores nothing, so
        # that the broken one's is a run that would store
        _note(ctx, lib, os.path.join(ctx.tmp, "cache"))
        said = []
        for env in (_env(""), _env(os.path.join(ctx.tmp, "cache"))):
            if not env["DWARF2BTF_CACHE_DIR"]:
                env["DWARF2BTF_NO_CACHE"] = "1"
            out = os.path.join(ctx.tmp, "bad.btf")
            p = ctx.run([ctx.bin, "-o", out, bad], env=env)
            assert p.returncode == 1 and not os.path.exists(out), p.stderr
            lines = p.stderr.strip().splitlines()
            assert len(lines) == 1 and "CU 0x" in lines[0], p.stderr
            said.append(lines[0])
        assert said[0] == said[1], said
        # the broken batch has no key, so it is never stored (the others
        # may be, as far as the workers got before the run stopped)
        stored = [e for e in _entries(os.path.join(ctx.tmp, "cache"))
                  if e.startswith("batch-")]
        assert len(stored) <= NR_BATCHES - 1, stored
        kinds = _kinds(os.path.join(ctx.tmp, "cache"))
        assert not {"staged", "temporary"} & set(kinds), kinds
        subprocess.run(["rm", "-rf", os.path.join(ctx.tmp, "cache")])
