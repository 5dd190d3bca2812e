// SPDX-License-Identifier: GPL-2.0-only
/* This file keeps a batch's encoding in the cache directory (batch_cache.h). */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "cache/batch_cache.h"
#include "cache/cache_dir.h"
#include "lib/btf_load.h"
#include "lib/cu_batch.h"
#include "lib/grow.h"
#include "lib/hash.h"

/*
 * The batch cache is made by batch_cache__new() and only read afterwards,
 * so the workers share it without a lock.
 */
struct batch_cache {
	const struct encode_env *env;
	const struct cache_dir *dir;
	/* Every key holds this; a probe adds its CUs' digests. */
	uint64_t key[2];
	/* This is the key mixed with the first CU's names (see below). */
	uint64_t family[2];
	bool defer;
	bool first;		/* No run of the family came here before. */
};

/* This checks that every batch the queue makes fits a probe. */
_Static_assert(CU_BATCH_MAX <= BATCH_MAX_CUS, "CU_BATCH_MAX over BATCH_MAX_CUS");

/*
 * A family record is this magic followed by the family key: "family-KEY"
 * once a run of the family stored batches, "seen-KEY" once one ran here
 * without storing any (batch_cache__first()).
 */
#define FAMILY_MAGIC	"D2BTFFAM"

/* NO_STR stands for a string that is absent (a NULL name). */
#define NO_STR	UINT32_MAX

/*
 * The entry_* structs are the items of an entry's parts.  A mapped entry
 * is read in place, so their layout is part of the file format.
 */
struct entry_func {
	uint32_t key, cu_name;	/* Offsets in the entry's strings. */
	uint32_t cu, has_addr;
	/*
	 * The offset is relative to CU cu, because the same CU lies
	 * elsewhere in the .debug_info of a build whose other files changed.
	 */
	uint64_t die_off;
	struct func_why why;
	uint32_t ret_type, first_param, nr_params, flags, first_tag, nr_tags;
};

struct entry_param {
	uint32_t name, type_id;
};

struct entry_var {
	uint32_t name, size, type_id, first_tag, nr_tags, external;
};

struct entry_note {
	uint32_t name, cu;
	uint64_t die_off;
	uint64_t offset;
	uint32_t shndx, fate;
};

struct entry_tag {
	uint32_t value;
	int32_t component;
};

/*
 * This is the size of one item of each part; the header counts the BTF
 * and the strings in bytes.
 */
static const size_t item_size[NR_BPARTS] = {
	[BPART_BTF] = 1,
	[BPART_FUNCS] = sizeof(struct entry_func),
	[BPART_PARAMS] = sizeof(struct entry_param),
	[BPART_VARS] = sizeof(struct entry_var),
	[BPART_NOTES] = sizeof(struct entry_note),
	[BPART_TAGS] = sizeof(struct entry_tag),
	[BPART_FWDS] = sizeof(uint64_t),
	[BPART_STRS] = 1,
};

/* key_mix() mixes @v into the 128-bit key @k. */
static void key_mix(uint64_t *k, uint64_t v)
{
	hash128_mix(&k[0], &k[1], v);
}

/*
 * exe_hash() hashes this binary's bytes, which go into every key: an
 * encoding made by another build of dwarf2btf may differ, and no version
 * number is reliably changed by hand.
 */
static int exe_hash(uint64_t *h)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	for (;;) {
		if (grow_array((void **)&buf, &cap, len + 65536, 1, 1 << 20)) {
			close(fd);
			free(buf);
			return -ENOMEM;
		}
		n = read(fd, buf + len, cap - len);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return -EIO;
	}
	*h = hash_bytes(buf, len);
	free(buf);
	return 0;
}

/* A family record is named after the family key. */
static void family_name(const struct batch_cache *bc, const char *kind,
			char *buf, size_t len)
{
	snprintf(buf, len, "%s-%016" PRIx64 "%016" PRIx64, kind,
		 bc->family[0], bc->family[1]);
}

/* Whether the cache directory holds the family record @kind. */
static bool batch_cache__has_record(const struct batch_cache *bc,
				    const char *kind)
{
	char name[64];
	void *map;
	size_t len;

	family_name(bc, kind, name, sizeof(name));
	if (cache_dir__map(bc->dir, name, &map, &len))
		return false;
	cache_dir__unmap(map, len);
	return true;
}

static void batch_cache__write_record(const struct batch_cache *bc,
				      const char *kind)
{
	char name[64], rec[8 + sizeof(bc->family)];
	const void *parts[1] = { rec };
	size_t lens[1] = { sizeof(rec) };

	memcpy(rec, FAMILY_MAGIC, 8);
	memcpy(rec + 8, bc->family, sizeof(bc->family));
	family_name(bc, kind, name, sizeof(name));
	cache_dir__store(bc->dir, name, parts, lens, 1);
}

/*
 * batch_cache__family() computes the family key: what stays when a file
 * of a build is edited and the binary linked again.  That is the key's
 * options, and the first CU's name, directory and compiler.  Only the
 * first CU's DIE is read, because libdw would keep the abbreviations of
 * every unit it reads.  Whether a run of this family stored batches
 * decides when keys are made (bc->defer), and whether one came here at
 * all whether this run stores (bc->first).
 */
static void batch_cache__family(struct batch_cache *bc, Dwarf_Die *cus,
				size_t nr)
{
	static const unsigned int attrs[] = {
		DW_AT_name, DW_AT_comp_dir, DW_AT_producer,
	};
	size_t i;

	bc->family[0] = bc->key[0];
	bc->family[1] = bc->key[1];
	for (i = 0; nr && i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		Dwarf_Attribute a;
		const char *v = dwarf_attr(&cus[0], attrs[i], &a) ?
				dwarf_formstring(&a) : NULL;

		key_mix(bc->family, v ? hash_str(v) : 0);
	}
	bc->defer = !batch_cache__has_record(bc, "family");
	bc->first = bc->defer && !batch_cache__has_record(bc, "seen");
}

bool batch_cache__first(const struct batch_cache *bc)
{
	return bc->first;
}

void batch_cache__note(const struct batch_cache *bc)
{
	batch_cache__write_record(bc, "seen");
}

bool batch_cache__defer(const struct batch_cache *bc)
{
	return bc->defer;
}

void batch_cache__mark(const struct batch_cache *bc)
{
	batch_cache__write_record(bc, "family");
}

void batch_cache__trim(const struct batch_cache *bc)
{
	cache_dir__trim(bc->dir);
}

/*
 * batch_cache__new() decides whether the run can use the cache at all,
 * and makes the part of the key that every batch shares: the format
 * version, this binary, the ELF header's machine, type and flags, the
 * pointer size, the CUs of a batch, and every option that changes the
 * encoding.
 */
int batch_cache__new(const struct encode_env *env, const struct cache_dir *dir,
		     Dwarf_Die *cus, size_t nr_cus, struct batch_cache **out)
{
	const struct encode_opts *o = env->opts;
	struct batch_cache *bc;
	uint64_t exe = 0;
	size_t i;

	*out = NULL;
	/*
	 * An entry holds a batch deduplicated alone.  Its key is a digest of
	 * mapped, uncompressed sections read as little-endian, and a hit takes
	 * addresses from the DWARF as they are, which holds in linked files
	 * only.  A run that asks for more than the BTF (explanations, kept
	 * forwards, the types' keys) must encode, so it makes no entries
	 * either.
	 */
	if (!dir || !dir->path || !env->dwarf_reopen || !env->sects.info ||
	    !env->sects.abbrev || env->rel_addr || env->ef->big_endian ||
	    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ||
	    env->ef->ehdr.e_type == ET_REL || o->plain_dedup ||
	    o->defer_dedup || o->explain_names || o->type_keys ||
	    (o->keep_fwds && o->keep_fwds->nr) || exe_hash(&exe))
		return 0;
	bc = calloc(1, sizeof(*bc));
	if (!bc)
		return -ENOMEM;
	bc->env = env;
	bc->dir = dir;
	key_mix(bc->key, BATCH_CACHE_VERSION);
	key_mix(bc->key, exe);
	key_mix(bc->key, env->ef->ehdr.e_machine);
	key_mix(bc->key, env->ef->ehdr.e_type);
	key_mix(bc->key, env->ef->ehdr.e_flags);
	key_mix(bc->key, env->ef->ptr_size);
	key_mix(bc->key, env->batch_cus);
	key_mix(bc->key, (uint64_t)o->gen_floats | o->skip_enum64 << 1 |
		o->encode_vars << 2 | o->global_vars << 3 |
		o->attributes << 4 | o->skip_type_tags << 5 |
		o->skip_decl_tags << 6 | o->consistent_func << 7 |
		o->kfunc_tags << 8 | o->true_signature << 9 |
		o->langs_exclude << 10 |
		(uint64_t)(o->hooks && o->hooks->libdw_attrs) << 11 |
		(uint64_t)(o->hooks && o->hooks->batch_dedup) << 12 |
		(uint64_t)o->rust_enums_pahole << 13);
	key_mix(bc->key, o->nr_langs);
	for (i = 0; i < (size_t)o->nr_langs && i < MAX_LANGS; i++)
		key_mix(bc->key, o->langs[i]);
	/*
	 * Which subprograms are candidates is in the CUs' digests, not in
	 * this shared key.
	 */

	batch_cache__family(bc, cus, nr_cus);
	*out = bc;
	return 0;
}

void batch_cache__free(struct batch_cache *bc)
{
	free(bc);
}

/*
 * batch_probe__make() digests each CU of the batch and mixes the digests
 * into the shared key, and keeps the addresses of the CUs' DIEs for a hit.
 * A CU the digest cannot read leaves probe->ok false; only -ENOMEM is an
 * error.
 */
int batch_probe__make(struct batch_probe *probe, const struct batch_cache *bc,
		      struct cu_digester *d, const uint64_t *cu_off, size_t nr,
		      void (*done)(void *ctx, size_t i), void *ctx)
{
	size_t i;
	int err;

	probe->ok = false;
	probe->nr_cus = 0;
	probe->nr_addrs = 0;
	if (nr > sizeof(probe->cu_off) / sizeof(probe->cu_off[0]))
		return 0;
	probe->key[0] = bc->key[0];
	probe->key[1] = bc->key[1];
	key_mix(probe->key, nr);
	for (i = 0; i < nr; i++) {
		const struct die_addr *a;
		struct cu_digest dg;
		size_t n;

		err = cu_digester__run(d, &bc->env->sects, bc->env->syms,
				       cu_off[i], &dg, &a, &n);
		if (err == -ENOMEM)
			return err;
		if (err)
			/*
			 * The batch is not cacheable; the encoder reads the
			 * CU, or says why it cannot.
			 */
			return 0;
		key_mix(probe->key, dg.h[0]);
		key_mix(probe->key, dg.h[1]);
		probe->cu_off[i] = cu_off[i];
		probe->first_addr[i] = probe->nr_addrs;
		if (grow_array((void **)&probe->addrs, &probe->cap_addrs,
			       probe->nr_addrs + n, sizeof(*a), 4096))
			return -ENOMEM;
		memcpy(probe->addrs + probe->nr_addrs, a, n * sizeof(*a));
		probe->nr_addrs += n;
		if (done)
			done(ctx, i);
	}
	probe->first_addr[nr] = probe->nr_addrs;
	probe->nr_cus = nr;
	probe->ok = true;
	return 0;
}

void batch_probe__free(struct batch_probe *probe)
{
	free(probe->addrs);
	probe->addrs = NULL;
	probe->nr_addrs = probe->cap_addrs = 0;
}

/* An entry is named after its key. */
static void entry_name(const struct batch_probe *probe, char *buf, size_t len)
{
	snprintf(buf, len, "batch-%016" PRIx64 "%016" PRIx64, probe->key[0],
		 probe->key[1]);
}

/*
 * probe__addr() finds the address that the DIE at offset @rel in CU @cu
 * has in this input, from the probe's digests.
 */
static int probe__addr(const struct batch_probe *probe, uint32_t cu,
		       uint64_t rel, uint64_t *addr)
{
	size_t first = probe->first_addr[cu];

	return cu_digest__addr_of(probe->addrs + first,
				  probe->first_addr[cu + 1] - first, rel, addr);
}

/*
 * note__place() places the variable @name of a note again at @addr.  It
 * returns -ESTALE when the variable's fate would not be the one the entry
 * holds, and the entry is then a miss.
 */
static int note__place(const struct encode_env *env, const char *name,
		       uint32_t fate, uint64_t old_off, uint64_t addr,
		       uint32_t *shndx, uint64_t *off)
{
	const struct elf_data_section *sec;
	enum var_fate now = cu_vars__place(env, name, addr, &sec, off);

	*shndx = sec ? sec->shndx : 0;
	switch (fate) {
	case VAR_CANDIDATE:
		return now == VAR_CANDIDATE && *off <= UINT32_MAX ? 0 : -ESTALE;
	case VAR_NO_TYPE: case VAR_BAD_SIZE:
		/*
		 * Placing found a candidate and its type decided these fates.
		 * The type is the same on a hit, but an offset over 32 bits
		 * may have decided them instead, so the offset must stay on
		 * the same side of that limit.
		 */
		return now == VAR_CANDIDATE &&
		       (old_off > UINT32_MAX) == (*off > UINT32_MAX) ? 0 : -ESTALE;
	default:
		return now == (enum var_fate)fate ? 0 : -ESTALE;
	}
}

/*
 * A str_out holds the strings of an entry, appended as they are met.  A
 * string passed again right away, by the same pointer (the CU name of
 * each of a CU's functions), is stored once.
 */
struct str_out {
	char *buf;
	size_t len, cap;
	const char *last;
	uint32_t last_off;
};

/*
 * str_out__add() appends @str and sets *@off to its offset, or to NO_STR
 * when @str is NULL.  The offsets must stay below NO_STR.
 */
static int str_out__add(struct str_out *s, const char *str, uint32_t *off)
{
	size_t n;

	if (!str) {
		*off = NO_STR;
		return 0;
	}
	if (str == s->last) {
		*off = s->last_off;
		return 0;
	}
	n = strlen(str) + 1;
	if (s->len + n >= NO_STR)
		return -E2BIG;
	if (grow_array((void **)&s->buf, &s->cap, s->len + n, 1, 65536))
		return -ENOMEM;
	memcpy(s->buf + s->len, str, n);
	*off = s->len;
	s->last = str;
	s->last_off = s->len;
	s->len += n;
	return 0;
}

/*
 * cus__cu_of() finds the CU of the batch that holds the absolute DIE
 * offset @off, and the offset relative to that CU; it returns -ERANGE
 * when no CU of the batch holds it.
 */
static int cus__cu_of(const uint64_t *cu_off, size_t nr_cus,
		      const struct encode_env *env, uint64_t off,
		      uint32_t *cu, uint64_t *rel)
{
	size_t i;

	for (i = nr_cus; i-- > 0;)
		if (off >= cu_off[i]) {
			uint64_t end = i + 1 < nr_cus ? cu_off[i + 1] :
				       env->sects.info_size;

			if (off >= end)
				return -ERANGE;
			*cu = i;
			*rel = off - cu_off[i];
			return 0;
		}
	return -ERANGE;
}

/*
 * The entry_parts are the arrays of an entry as they are filled from a
 * fragment, before entry_parts__join() lays them out in one buffer.
 */
struct entry_parts {
	struct entry_func *funcs;
	uint64_t *func_addr;	/* Checked against the probe when sealed. */
	struct entry_param *params;
	struct entry_var *vars;
	struct entry_note *notes;
	struct entry_tag *tags;
	struct str_out strs;
};

/*
 * The arrays get one item more, because calloc() of zero items may return
 * NULL, which would read as out of memory.
 */
static int entry_parts__alloc(struct entry_parts *p,
			      const struct cu_fragment *frag)
{
	p->funcs = calloc(frag->nr_funcs + 1, sizeof(*p->funcs));
	p->func_addr = calloc(frag->nr_funcs + 1, sizeof(*p->func_addr));
	p->params = calloc(frag->nr_params + 1, sizeof(*p->params));
	p->vars = calloc(frag->nr_vars + 1, sizeof(*p->vars));
	p->notes = calloc(frag->nr_var_notes + 1, sizeof(*p->notes));
	p->tags = calloc(frag->nr_tags + 1, sizeof(*p->tags));
	if (!p->funcs || !p->func_addr || !p->params || !p->vars ||
	    !p->notes || !p->tags)
		return -ENOMEM;
	return 0;
}

static void entry_parts__free(struct entry_parts *p)
{
	free(p->funcs);
	free(p->func_addr);
	free(p->params);
	free(p->vars);
	free(p->notes);
	free(p->tags);
	free(p->strs.buf);
}

/*
 * entry_parts__add_funcs() adds the functions of @frag, each with its DIE
 * as a CU and an offset in it.  It returns -ESTALE when a DIE lies outside
 * the batch's CUs, because a hit could not find it again, so the fragment
 * is not stored.
 */
static int entry_parts__add_funcs(struct entry_parts *p,
				  const struct encode_env *env,
				  const uint64_t *cu_off, size_t nr_cus,
				  const struct cu_fragment *frag)
{
	size_t k;

	for (k = 0; k < frag->nr_funcs; k++) {
		const struct func_cand *c = &frag->funcs[k];
		struct entry_func *e = &p->funcs[k];

		if (cus__cu_of(cu_off, nr_cus, env, c->die_off, &e->cu,
			       &e->die_off))
			return -ESTALE;
		/*
		 * The address is kept only to be checked; has_addr is set
		 * when the entry is sealed.
		 */
		p->func_addr[k] = c->addr;
		if (str_out__add(&p->strs, c->key, &e->key) ||
		    str_out__add(&p->strs, c->cu_name, &e->cu_name))
			return -ENOMEM;
		e->why = c->why;
		e->ret_type = c->ret_type;
		e->first_param = c->first_param;
		e->nr_params = c->nr_params;
		e->flags = c->flags;
		e->first_tag = c->first_tag;
		e->nr_tags = c->nr_tags;
	}
	return 0;
}

/*
 * entry_parts__add_notes() adds the notes of @frag's variables.  A hit
 * places each variable again, so only placed ones can be stored, and the
 * candidates among them must be the fragment's variables in order; it
 * returns -ESTALE otherwise.
 */
static int entry_parts__add_notes(struct entry_parts *p,
				  const struct encode_env *env,
				  const uint64_t *cu_off, size_t nr_cus,
				  const struct cu_fragment *frag)
{
	size_t k, nv = 0;

	for (k = 0; k < frag->nr_var_notes; k++) {
		const struct var_note *n = &frag->var_notes[k];
		struct entry_note *e = &p->notes[k];

		if (!var_fate__placed(n->fate) ||
		    cus__cu_of(cu_off, nr_cus, env, n->die_off, &e->cu,
			       &e->die_off))
			return -ESTALE;
		if (n->fate == VAR_CANDIDATE &&
		    (nv >= frag->nr_vars || strcmp(frag->vars[nv++].name, n->name)))
			return -ESTALE;
		if (str_out__add(&p->strs, n->name, &e->name))
			return -ENOMEM;
		e->offset = n->offset;
		e->shndx = n->shndx;
		e->fate = n->fate;
	}
	return nv == frag->nr_vars ? 0 : -ESTALE;
}

/*
 * entry_parts__add_plain() copies the parameters, variables and tags of
 * @frag as they are.
 */
static int entry_parts__add_plain(struct entry_parts *p,
				  const struct cu_fragment *frag)
{
	size_t k;

	for (k = 0; k < frag->nr_params; k++) {
		if (str_out__add(&p->strs, frag->params[k].name,
				 &p->params[k].name))
			return -ENOMEM;
		p->params[k].type_id = frag->params[k].type_id;
	}
	for (k = 0; k < frag->nr_vars; k++) {
		const struct var_cand *v = &frag->vars[k];
		struct entry_var *e = &p->vars[k];

		if (str_out__add(&p->strs, v->name, &e->name))
			return -ENOMEM;
		e->size = v->size;
		e->type_id = v->type_id;
		e->first_tag = v->first_tag;
		e->nr_tags = v->nr_tags;
		e->external = v->external;
	}
	for (k = 0; k < frag->nr_tags; k++) {
		if (str_out__add(&p->strs, frag->tags[k].value,
				 &p->tags[k].value))
			return -ENOMEM;
		p->tags[k].component = frag->tags[k].component;
	}
	/* A reader checks that the strings end in a NUL, so there is one. */
	if (!p->strs.len && str_out__add(&p->strs, "", &(uint32_t){ 0 }))
		return -ENOMEM;
	return 0;
}

/*
 * entry_parts__join() makes the header of the entry and the buffer that
 * holds it and every part, each part at an offset aligned to 8 so that a
 * mapped entry is read in place.  The key and the checksum are set later,
 * by batch_pack__seal().
 */
static int entry_parts__join(const struct entry_parts *p,
			     const struct cu_fragment *frag, size_t nr_cus,
			     const void *btf_raw, uint32_t btf_size,
			     struct batch_pack *out)
{
	struct batch_entry_hdr h = { .version = BATCH_CACHE_VERSION,
				     .hdr_size = sizeof(h) };
	const void *src[NR_BPARTS] = {
		btf_raw, p->funcs, p->params, p->vars, p->notes, p->tags,
		frag->fwd_names.keys, p->strs.buf,
	};
	size_t at;
	char *buf;
	int i;

	memcpy(h.magic, BATCH_CACHE_MAGIC, 8);
	h.nr_cus = nr_cus;
	h.nr_types_in = frag->nr_types_in;
	h.flags = frag->cxx ? BATCH_CXX : 0;
	h.count[BPART_BTF] = btf_size;
	h.count[BPART_FUNCS] = frag->nr_funcs;
	h.count[BPART_PARAMS] = frag->nr_params;
	h.count[BPART_VARS] = frag->nr_vars;
	h.count[BPART_NOTES] = frag->nr_var_notes;
	h.count[BPART_TAGS] = frag->nr_tags;
	h.count[BPART_FWDS] = frag->fwd_names.nr;
	h.count[BPART_STRS] = p->strs.len;
	at = sizeof(h);
	for (i = 0; i < NR_BPARTS; i++) {
		h.off[i] = at;
		at += (h.count[i] * item_size[i] + 7) & ~(size_t)7;
	}
	h.file_size = at;
	buf = calloc(1, at);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < NR_BPARTS; i++) {
		size_t len = h.count[i] * item_size[i];

		if (len)
			memcpy(buf + h.off[i], src[i], len);
	}
	memcpy(buf, &h, sizeof(h));
	out->buf = buf;
	out->len = at;
	return 0;
}

/*
 * batch_cache__pack() lays @frag out as an entry without a key.  The
 * function addresses are kept in @out, to be checked against the digests
 * when the entry is sealed.
 */
int batch_cache__pack(const struct batch_cache *bc, const uint64_t *cu_off,
		      size_t nr_cus, const struct cu_fragment *frag,
		      struct batch_pack *out)
{
	struct entry_parts parts = { 0 };
	const void *btf_raw;
	uint32_t btf_size = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!frag->btf || !nr_cus || nr_cus > BATCH_MAX_CUS)
		return -EINVAL;
	btf_raw = btf__raw_data(frag->btf, &btf_size);
	if (!btf_raw)
		return -ENOMEM;
	/*
	 * What a hit would compute again must come out as it is here; the
	 * parts fail with -ESTALE where it would not.
	 */
	err = entry_parts__alloc(&parts, frag);
	if (!err)
		err = entry_parts__add_funcs(&parts, bc->env, cu_off, nr_cus,
					     frag);
	if (!err)
		err = entry_parts__add_notes(&parts, bc->env, cu_off, nr_cus,
					     frag);
	if (!err)
		err = entry_parts__add_plain(&parts, frag);
	if (!err)
		err = entry_parts__join(&parts, frag, nr_cus, btf_raw, btf_size,
					out);
	if (!err) {
		out->func_addr = parts.func_addr;
		parts.func_addr = NULL;
		memcpy(out->cu_off, cu_off, nr_cus * sizeof(*cu_off));
		out->nr_cus = nr_cus;
	}
	entry_parts__free(&parts);
	return err;
}

/*
 * batch_pack__stage() moves the packed entry out of memory into a staged
 * file, and keeps its hash, to check the file when it is read back.
 */
int batch_pack__stage(struct batch_pack *pack, const struct batch_cache *bc)
{
	const void *parts[1] = { pack->buf };
	size_t lens[1] = { pack->len };
	int err;

	if (!pack->buf)
		return -EINVAL;
	err = cache_dir__stage(bc->dir, parts, lens, 1, &pack->staged);
	if (err)
		return err;
	pack->sum = hash_bytes(pack->buf, pack->len);
	free(pack->buf);
	pack->buf = NULL;
	return 0;
}

/*
 * batch_pack__seal() reads a staged entry back, checks that what a hit
 * would read from the digests (the functions' addresses, the variables'
 * places) matches what was packed, then sets the key and the checksum and
 * stores the entry.  It returns -ESTALE when anything differs.
 */
int batch_pack__seal(struct batch_pack *pack, const struct batch_cache *bc,
		     const struct batch_probe *probe)
{
	struct batch_entry_hdr *h;
	struct entry_func *ef;
	const struct entry_note *en;
	const char *strs;
	const void *parts[1];
	size_t lens[1] = { pack->len };
	char name[64];
	size_t k;

	if (pack->staged) {
		int err = cache_dir__unstage(pack->staged, pack->len,
					     &pack->buf);

		pack->staged = NULL;
		if (err)
			return err;
		/*
		 * The file lies in a shared directory, so it is checked as
		 * entries are.
		 */
		if (hash_bytes(pack->buf, pack->len) != pack->sum)
			return -ESTALE;
	}
	h = pack->buf;
	parts[0] = pack->buf;
	if (!probe->ok || !h || probe->nr_cus != pack->nr_cus ||
	    memcmp(probe->cu_off, pack->cu_off,
		   pack->nr_cus * sizeof(pack->cu_off[0])))
		return -EINVAL;
	ef = (void *)((char *)pack->buf + h->off[BPART_FUNCS]);
	en = (const void *)((char *)pack->buf + h->off[BPART_NOTES]);
	strs = (const char *)pack->buf + h->off[BPART_STRS];
	/* A hit takes the addresses from the digests, so they must match. */
	for (k = 0; k < h->count[BPART_FUNCS]; k++) {
		uint64_t addr = 0;

		ef[k].has_addr = !probe__addr(probe, ef[k].cu, ef[k].die_off,
					      &addr);
		if (addr != pack->func_addr[k])
			return -ESTALE;
	}
	for (k = 0; k < h->count[BPART_NOTES]; k++) {
		const struct entry_note *e = &en[k];
		uint64_t addr, off;
		uint32_t shndx;

		if (probe__addr(probe, e->cu, e->die_off, &addr) ||
		    note__place(bc->env, strs + e->name, e->fate, e->offset,
				addr, &shndx, &off) ||
		    off != e->offset || shndx != e->shndx)
			return -ESTALE;
	}
	h->key[0] = probe->key[0];
	h->key[1] = probe->key[1];
	h->checksum = hash_bytes((char *)pack->buf + sizeof(*h),
				 pack->len - sizeof(*h));
	entry_name(probe, name, sizeof(name));
	return cache_dir__store(bc->dir, name, parts, lens, 1);
}

void batch_pack__free(struct batch_pack *pack)
{
	if (pack->staged)
		cache_dir__unstage(pack->staged, 0, NULL);
	free(pack->buf);
	free(pack->func_addr);
	memset(pack, 0, sizeof(*pack));
}

/* batch_cache__store() packs and seals at once, when the key is known. */
int batch_cache__store(const struct batch_cache *bc,
		       const struct batch_probe *probe,
		       const struct cu_fragment *frag)
{
	struct batch_pack pack;
	int err;

	if (!probe->ok)
		return -EINVAL;
	err = batch_cache__pack(bc, probe->cu_off, probe->nr_cus, frag, &pack);
	if (!err)
		err = batch_pack__seal(&pack, bc, probe);
	batch_pack__free(&pack);
	return err;
}

/*
 * str_ok() checks a string offset of an entry: it must lie in the strings
 * (which end in a NUL), or be NO_STR where a string may be absent.
 */
static bool str_ok(uint32_t off, size_t len, bool may_be_none)
{
	return off < len || (may_be_none && off == NO_STR);
}

/*
 * An entry_view points to an entry's parts where they lie in the mapping,
 * found through a header that entry_view__open() checked against the
 * mapping's length.
 */
struct entry_view {
	const struct batch_entry_hdr *h;
	const struct entry_func *funcs;
	const struct entry_param *params;
	const struct entry_var *vars;
	const struct entry_note *notes;
	const struct entry_tag *tags;
	const uint64_t *fwds;
	const char *strs;	/* Later, the fragment's copy. */
	size_t strs_len;
	size_t nr_types;	/* The types in the fragment's BTF. */
};

/*
 * entry_view__open() returns -ENOENT unless @map holds an entry for
 * @probe, made by this binary, whose parts all lie inside it.  A fuzzer
 * leaves the checksum unchecked to reach the checks behind it.
 */
static int entry_view__open(struct entry_view *v,
			    const struct batch_probe *probe, const void *map,
			    size_t len, bool check_sum)
{
	const struct batch_entry_hdr *h = map;
	const unsigned char *p = map;
	int i;

	if (len < sizeof(*h) || memcmp(h->magic, BATCH_CACHE_MAGIC, 8) ||
	    h->version != BATCH_CACHE_VERSION || h->hdr_size != sizeof(*h) ||
	    h->key[0] != probe->key[0] || h->key[1] != probe->key[1] ||
	    h->file_size != len || h->nr_cus != probe->nr_cus)
		return -ENOENT;
	for (i = 0; i < NR_BPARTS; i++)
		if (h->off[i] % 8 || h->off[i] < sizeof(*h) ||
		    h->off[i] > len ||
		    h->count[i] > (len - h->off[i]) / item_size[i])
			return -ENOENT;
	if (check_sum &&
	    hash_bytes(p + sizeof(*h), len - sizeof(*h)) != h->checksum)
		return -ENOENT;
	v->h = h;
	v->strs_len = h->count[BPART_STRS];
	v->strs = (const char *)p + h->off[BPART_STRS];
	/* The strings must end in a NUL, so that none reads past the part. */
	if (!v->strs_len || v->strs[v->strs_len - 1] ||
	    h->count[BPART_BTF] > UINT32_MAX)
		return -ENOENT;
	v->funcs = (const void *)(p + h->off[BPART_FUNCS]);
	v->params = (const void *)(p + h->off[BPART_PARAMS]);
	v->vars = (const void *)(p + h->off[BPART_VARS]);
	v->notes = (const void *)(p + h->off[BPART_NOTES]);
	v->tags = (const void *)(p + h->off[BPART_TAGS]);
	v->fwds = (const void *)(p + h->off[BPART_FWDS]);
	return 0;
}

/*
 * entry_view__read_btf() reads the entry's BTF as @f's; it returns -ENOENT
 * unless libbpf and our checks (btf_load__validate()) accept it.
 */
static int entry_view__read_btf(struct entry_view *v,
				const struct encode_env *env,
				struct cu_fragment *f)
{
	const unsigned char *p = (const void *)v->h;

	f->btf = btf__new(p + v->h->off[BPART_BTF], v->h->count[BPART_BTF]);
	if (!f->btf)
		return -ENOENT;
	if (btf_load__validate(f->btf, NULL)) {
		btf__free(f->btf);
		f->btf = NULL;
		return -ENOENT;
	}
	btf__set_pointer_size(f->btf, env->ef->ptr_size);
	v->nr_types = btf__type_cnt(f->btf);
	return 0;
}

/*
 * entry_view__alloc() allocates the arrays of @f, sized by the entry, and
 * copies its strings, because the names must live as long as the
 * fragment, not as long as the mapping.
 */
static int entry_view__alloc(struct entry_view *v, struct cu_fragment *f)
{
	const struct batch_entry_hdr *h = v->h;

	f->nr_types_in = h->nr_types_in;
	f->cxx = h->flags & BATCH_CXX;
	f->nr_funcs = h->count[BPART_FUNCS];
	f->nr_params = h->count[BPART_PARAMS];
	f->nr_vars = h->count[BPART_VARS];
	f->nr_tags = h->count[BPART_TAGS];
	f->funcs = calloc(f->nr_funcs + 1, sizeof(*f->funcs));
	f->params = calloc(f->nr_params + 1, sizeof(*f->params));
	f->vars = calloc(f->nr_vars + 1, sizeof(*f->vars));
	f->tags = calloc(f->nr_tags + 1, sizeof(*f->tags));
	v->strs = str_arena__copy(&f->strs, v->strs, v->strs_len);
	if (!f->funcs || !f->params || !f->vars || !f->tags || !v->strs)
		return -ENOMEM;
	return 0;
}

/*
 * entry_view__read_params_tags() reads the parameters and tags, each
 * checked against the strings and types.
 */
static int entry_view__read_params_tags(const struct entry_view *v,
					struct cu_fragment *f)
{
	size_t k;

	for (k = 0; k < f->nr_params; k++) {
		const struct entry_param *e = &v->params[k];

		if (!str_ok(e->name, v->strs_len, false) ||
		    e->type_id >= v->nr_types)
			return -ENOENT;
		f->params[k].name = v->strs + e->name;
		f->params[k].type_id = e->type_id;
	}
	for (k = 0; k < f->nr_tags; k++) {
		const struct entry_tag *e = &v->tags[k];

		if (!str_ok(e->value, v->strs_len, false) || e->component < -1)
			return -ENOENT;
		f->tags[k].value = v->strs + e->value;
		f->tags[k].component = e->component;
	}
	return 0;
}

/*
 * entry_view__read_funcs() reads the functions, each found again in this
 * input's symbol table and given the address its DIE has now (from the
 * probe's digests), because a relinked file moves functions without
 * changing their DWARF otherwise.  Every index is checked first.
 */
static int entry_view__read_funcs(const struct entry_view *v,
				  const struct encode_env *env,
				  const struct batch_probe *probe,
				  struct cu_fragment *f)
{
	size_t k;

	for (k = 0; k < f->nr_funcs; k++) {
		const struct entry_func *e = &v->funcs[k];
		struct func_cand *c = &f->funcs[k];
		const struct elf_func_key *key;
		uint64_t addr = 0;

		if (!str_ok(e->key, v->strs_len, false) ||
		    !str_ok(e->cu_name, v->strs_len, true) ||
		    e->cu >= v->h->nr_cus || e->ret_type >= v->nr_types ||
		    e->first_param > f->nr_params ||
		    e->nr_params > f->nr_params - e->first_param ||
		    e->first_tag > f->nr_tags ||
		    e->nr_tags > f->nr_tags - e->first_tag)
			return -ENOENT;
		key = elf_symtab__find_key(env->syms, v->strs + e->key);
		if (!key || (e->has_addr &&
			     probe__addr(probe, e->cu, e->die_off, &addr)))
			return -ENOENT;
		c->key = key->key;
		c->addr = addr;
		c->die_off = probe->cu_off[e->cu] + e->die_off;
		c->cu_name = e->cu_name == NO_STR ? NULL :
			     v->strs + e->cu_name;
		c->why = e->why;
		c->ret_type = e->ret_type;
		c->first_param = e->first_param;
		c->nr_params = e->nr_params;
		c->flags = e->flags;
		c->first_tag = e->first_tag;
		c->nr_tags = e->nr_tags;
	}
	return 0;
}

/*
 * entry_view__read_vars() reads the variables without their place, which
 * entry_view__place_vars() gives them.
 */
static int entry_view__read_vars(const struct entry_view *v,
				 struct cu_fragment *f)
{
	size_t k;

	for (k = 0; k < f->nr_vars; k++) {
		const struct entry_var *e = &v->vars[k];
		struct var_cand *c = &f->vars[k];

		if (!str_ok(e->name, v->strs_len, false) || !e->type_id ||
		    e->type_id >= v->nr_types || e->first_tag > f->nr_tags ||
		    e->nr_tags > f->nr_tags - e->first_tag)
			return -ENOENT;
		c->name = v->strs + e->name;
		c->size = e->size;
		c->type_id = e->type_id;
		c->first_tag = e->first_tag;
		c->nr_tags = e->nr_tags;
		c->external = e->external;
	}
	return 0;
}

/*
 * entry_view__place_vars() places every variable of a note again at its
 * address in this input.  It returns -ENOENT when one would now meet
 * another fate than the entry says, or when the candidates are not the
 * fragment's variables in order.
 */
static int entry_view__place_vars(const struct entry_view *v,
				  const struct encode_env *env,
				  const struct batch_probe *probe,
				  struct cu_fragment *f)
{
	size_t k, nv = 0;

	for (k = 0; k < v->h->count[BPART_NOTES]; k++) {
		const struct entry_note *e = &v->notes[k];
		uint64_t addr, off;
		uint32_t shndx;

		if (!str_ok(e->name, v->strs_len, false) ||
		    e->cu >= v->h->nr_cus || !var_fate__placed(e->fate) ||
		    e->fate > VAR_FATE_LAST ||
		    probe__addr(probe, e->cu, e->die_off, &addr) ||
		    note__place(env, v->strs + e->name, e->fate, e->offset,
				addr, &shndx, &off))
			return -ENOENT;
		if (e->fate != VAR_CANDIDATE)
			continue;
		if (nv >= f->nr_vars ||
		    strcmp(f->vars[nv].name, v->strs + e->name))
			return -ENOENT;
		f->vars[nv].shndx = shndx;
		f->vars[nv++].offset = off;
	}
	return nv == f->nr_vars ? 0 : -ENOENT;
}

/* This reads the declarations the batch's dedups resolved (fwd_names.h). */
static int entry_view__read_fwds(const struct entry_view *v,
				 struct cu_fragment *f)
{
	size_t k;

	for (k = 0; k < v->h->count[BPART_FWDS]; k++)
		if (key_set__add(&f->fwd_names, v->fwds[k]))
			return -ENOMEM;
	return 0;
}

/*
 * batch_cache__read() reads an entry in steps, each checking what it
 * reads; any failure frees what was read and makes the entry a miss.
 */
int batch_cache__read(const struct encode_env *env,
		      const struct batch_probe *probe, const void *map,
		      size_t len, bool check_sum, struct cu_fragment *out)
{
	struct entry_view v = { 0 };
	struct cu_fragment f = { 0 };
	int err;

	memset(out, 0, sizeof(*out));
	err = entry_view__open(&v, probe, map, len, check_sum);
	if (!err)
		err = entry_view__read_btf(&v, env, &f);
	if (err)
		return err;
	err = entry_view__alloc(&v, &f);
	if (!err)
		err = entry_view__read_params_tags(&v, &f);
	if (!err)
		err = entry_view__read_funcs(&v, env, probe, &f);
	if (!err)
		err = entry_view__read_vars(&v, &f);
	if (!err)
		err = entry_view__place_vars(&v, env, probe, &f);
	if (!err)
		err = entry_view__read_fwds(&v, &f);
	if (err) {
		cu_fragment__free(&f);
		return err;
	}
	*out = f;
	return 0;
}

/*
 * batch_cache__load() maps the probe's entry only while it is read, since
 * the fragment gets copies of everything it keeps.
 */
int batch_cache__load(const struct batch_cache *bc,
		      const struct batch_probe *probe, struct cu_fragment *out)
{
	char name[64];
	void *map;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	if (!probe->ok)
		return -ENOENT;
	entry_name(probe, name, sizeof(name));
	if (cache_dir__map(bc->dir, name, &map, &len))
		return -ENOENT;
	err = batch_cache__read(bc->env, probe, map, len, true, out);
	cache_dir__unmap(map, len);
	return err;
}
