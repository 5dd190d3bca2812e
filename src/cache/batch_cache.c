// SPDX-License-Identifier: GPL-2.0-only
/* A batch's encoding in the cache directory (batch_cache.h). */
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

struct batch_cache {
	const struct encode_env *env;
	const struct cache_dir *dir;
	uint64_t key[2];	/* all but the CUs' digests */
	uint64_t family[2];	/* batch_cache__family() */
	bool defer;
};

/* Every batch the queue makes fits a probe. */
_Static_assert(CU_BATCH <= BATCH_MAX_CUS, "CU_BATCH over BATCH_MAX_CUS");

#define FAMILY_MAGIC	"D2BTFFAM"

#define NO_STR	UINT32_MAX

struct entry_func {
	uint32_t key, cu_name;	/* string offsets */
	uint32_t cu, has_addr;
	uint64_t die_off;	/* in CU cu */
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

static void key_mix(uint64_t *k, uint64_t v)
{
	hash128_mix(&k[0], &k[1], v);
}

/*
 * This binary's bytes: an encoding made by another build of dwarf2btf may
 * differ, and no version number is bumped reliably by hand.
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

static void family_name(const struct batch_cache *bc, char *buf, size_t len)
{
	snprintf(buf, len, "family-%016" PRIx64 "%016" PRIx64, bc->family[0],
		 bc->family[1]);
}

/*
 * What stays when a file of a build is edited and the binary linked again:
 * the key's options, and the first CU's name, directory and compiler
 * (only the first CU's DIE is read: libdw would keep the abbreviations of
 * every unit it reads).  Whether a run of this family stored batches
 * decides when keys are made.
 */
static void batch_cache__family(struct batch_cache *bc, Dwarf_Die *cus,
				size_t nr)
{
	static const unsigned int attrs[] = {
		DW_AT_name, DW_AT_comp_dir, DW_AT_producer,
	};
	char name[64];
	void *map;
	size_t i, len;

	bc->family[0] = bc->key[0];
	bc->family[1] = bc->key[1];
	for (i = 0; nr && i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		Dwarf_Attribute a;
		const char *v = dwarf_attr(&cus[0], attrs[i], &a) ?
				dwarf_formstring(&a) : NULL;

		key_mix(bc->family, v ? hash_str(v) : 0);
	}
	family_name(bc, name, sizeof(name));
	bc->defer = true;
	if (!cache_dir__map(bc->dir, name, &map, &len)) {
		bc->defer = false;
		cache_dir__unmap(map, len);
	}
}

bool batch_cache__defer(const struct batch_cache *bc)
{
	return bc->defer;
}

void batch_cache__mark(const struct batch_cache *bc)
{
	char name[64], rec[8 + sizeof(bc->family)];
	const void *parts[1] = { rec };
	size_t lens[1] = { sizeof(rec) };

	memcpy(rec, FAMILY_MAGIC, 8);
	memcpy(rec + 8, bc->family, sizeof(bc->family));
	family_name(bc, name, sizeof(name));
	cache_dir__store(bc->dir, name, parts, lens, 1);
}

int batch_cache__new(const struct encode_env *env, const struct cache_dir *dir,
		     Dwarf_Die *cus, size_t nr_cus, struct batch_cache **out)
{
	const struct encode_opts *o = env->opts;
	struct batch_cache *bc;
	uint64_t exe = 0;
	size_t i;

	*out = NULL;
	/*
	 * Batches deduplicated alone, over mapped uncompressed sections that
	 * the digest reads little-endian, in a linked file whose addresses
	 * the DWARF holds as they are; nothing asked only of this run.
	 */
	if (!dir || !dir->path || !env->dwarf_reopen || !env->sects.info ||
	    !env->sects.abbrev || env->rel_addr || env->ef->big_endian ||
	    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ||
	    env->ef->ehdr.e_type == ET_REL || o->plain_dedup ||
	    o->defer_dedup || o->explain_names ||
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
	key_mix(bc->key, CU_BATCH);
	key_mix(bc->key, (uint64_t)o->gen_floats | o->skip_enum64 << 1 |
		o->encode_vars << 2 | o->global_vars << 3 |
		o->attributes << 4 | o->skip_type_tags << 5 |
		o->skip_decl_tags << 6 | o->consistent_func << 7 |
		o->kfunc_tags << 8 | o->true_signature << 9 |
		o->langs_exclude << 10 |
		(uint64_t)(o->hooks && o->hooks->libdw_attrs) << 11 |
		(uint64_t)(o->hooks && o->hooks->batch_dedup) << 12);
	key_mix(bc->key, o->nr_langs);
	for (i = 0; i < (size_t)o->nr_langs && i < MAX_LANGS; i++)
		key_mix(bc->key, o->langs[i]);
	/* which subprograms are candidates: in the CUs' digests */

	batch_cache__family(bc, cus, nr_cus);
	*out = bc;
	return 0;
}

void batch_cache__free(struct batch_cache *bc)
{
	free(bc);
}

int batch_probe__make(struct batch_probe *probe, const struct batch_cache *bc,
		      struct cu_digester *d, const uint64_t *cu_off, size_t nr)
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
			return 0;	/* the encoder reads it, or says why not */
		key_mix(probe->key, dg.h[0]);
		key_mix(probe->key, dg.h[1]);
		probe->cu_off[i] = cu_off[i];
		probe->first_addr[i] = probe->nr_addrs;
		if (grow_array((void **)&probe->addrs, &probe->cap_addrs,
			       probe->nr_addrs + n, sizeof(*a), 4096))
			return -ENOMEM;
		memcpy(probe->addrs + probe->nr_addrs, a, n * sizeof(*a));
		probe->nr_addrs += n;
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

static void entry_name(const struct batch_probe *probe, char *buf, size_t len)
{
	snprintf(buf, len, "batch-%016" PRIx64 "%016" PRIx64, probe->key[0],
		 probe->key[1]);
}

static int probe__addr(const struct batch_probe *probe, uint32_t cu,
		       uint64_t rel, uint64_t *addr)
{
	size_t first = probe->first_addr[cu];

	return cu_digest__addr_of(probe->addrs + first,
				  probe->first_addr[cu + 1] - first, rel, addr);
}

/*
 * The variable of note @n placed again at @addr: -ESTALE when its fate
 * would not be the one the entry holds (the entry is a miss then).
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
		/* decided by the type, unless by the offset's size */
		return now == VAR_CANDIDATE &&
		       (old_off > UINT32_MAX) == (*off > UINT32_MAX) ? 0 : -ESTALE;
	default:
		return now == (enum var_fate)fate ? 0 : -ESTALE;
	}
}

/* Strings of an entry: appended as met, the same pointer once in a row. */
struct str_out {
	char *buf;
	size_t len, cap;
	const char *last;
	uint32_t last_off;
};

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

/* The CU of the batch holding absolute DIE offset @off, and where in it. */
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

int batch_cache__pack(const struct batch_cache *bc, const uint64_t *cu_off,
		      size_t nr_cus, const struct cu_fragment *frag,
		      struct batch_pack *out)
{
	const struct encode_env *env = bc->env;
	struct batch_entry_hdr h = { .version = BATCH_CACHE_VERSION,
			       .hdr_size = sizeof(h) };
	struct str_out so = { 0 };
	struct entry_func *ef = NULL;
	struct entry_param *ep = NULL;
	struct entry_var *ev = NULL;
	struct entry_note *en = NULL;
	struct entry_tag *et = NULL;
	uint64_t *func_addr = NULL;
	const void *btf_raw = NULL;
	uint32_t btf_size = 0;
	size_t at, k, nv = 0;
	char *buf = NULL;
	int err = -ENOMEM, i;

	memset(out, 0, sizeof(*out));
	if (!frag->btf || !nr_cus || nr_cus > BATCH_MAX_CUS)
		return -EINVAL;
	btf_raw = btf__raw_data(frag->btf, &btf_size);
	if (!btf_raw)
		return -ENOMEM;
	ef = calloc(frag->nr_funcs + 1, sizeof(*ef));
	func_addr = calloc(frag->nr_funcs + 1, sizeof(*func_addr));
	ep = calloc(frag->nr_params + 1, sizeof(*ep));
	ev = calloc(frag->nr_vars + 1, sizeof(*ev));
	en = calloc(frag->nr_var_notes + 1, sizeof(*en));
	et = calloc(frag->nr_tags + 1, sizeof(*et));
	if (!ef || !func_addr || !ep || !ev || !en || !et)
		goto out;
	/* what a hit would compute again must come out as it is here */
	err = -ESTALE;
	for (k = 0; k < frag->nr_funcs; k++) {
		const struct func_cand *c = &frag->funcs[k];
		struct entry_func *e = &ef[k];

		if (cus__cu_of(cu_off, nr_cus, env, c->die_off, &e->cu,
			       &e->die_off))
			goto out;
		func_addr[k] = c->addr;	/* and has_addr: batch_pack__seal() */
		if (str_out__add(&so, c->key, &e->key) ||
		    str_out__add(&so, c->cu_name, &e->cu_name))
			goto out_nomem;
		e->why = c->why;
		e->ret_type = c->ret_type;
		e->first_param = c->first_param;
		e->nr_params = c->nr_params;
		e->flags = c->flags;
		e->first_tag = c->first_tag;
		e->nr_tags = c->nr_tags;
	}
	for (k = 0; k < frag->nr_var_notes; k++) {
		const struct var_note *n = &frag->var_notes[k];
		struct entry_note *e = &en[k];

		if (!var_fate__placed(n->fate) ||
		    cus__cu_of(cu_off, nr_cus, env, n->die_off, &e->cu,
			       &e->die_off))
			goto out;
		if (n->fate == VAR_CANDIDATE &&
		    (nv >= frag->nr_vars || strcmp(frag->vars[nv++].name, n->name)))
			goto out;
		if (str_out__add(&so, n->name, &e->name))
			goto out_nomem;
		e->offset = n->offset;
		e->shndx = n->shndx;
		e->fate = n->fate;
	}
	if (nv != frag->nr_vars)
		goto out;
	for (k = 0; k < frag->nr_params; k++)
		if (str_out__add(&so, frag->params[k].name, &ep[k].name))
			goto out_nomem;
		else
			ep[k].type_id = frag->params[k].type_id;
	for (k = 0; k < frag->nr_vars; k++) {
		const struct var_cand *v = &frag->vars[k];

		if (str_out__add(&so, v->name, &ev[k].name))
			goto out_nomem;
		ev[k].size = v->size;
		ev[k].type_id = v->type_id;
		ev[k].first_tag = v->first_tag;
		ev[k].nr_tags = v->nr_tags;
		ev[k].external = v->external;
	}
	for (k = 0; k < frag->nr_tags; k++)
		if (str_out__add(&so, frag->tags[k].value, &et[k].value))
			goto out_nomem;
		else
			et[k].component = frag->tags[k].component;
	if (!so.len && str_out__add(&so, "", &(uint32_t){ 0 }))
		goto out_nomem;

	memcpy(h.magic, BATCH_CACHE_MAGIC, 8);
	h.nr_cus = nr_cus;
	h.nr_types_in = frag->nr_types_in;
	h.count[BPART_BTF] = btf_size;
	h.count[BPART_FUNCS] = frag->nr_funcs;
	h.count[BPART_PARAMS] = frag->nr_params;
	h.count[BPART_VARS] = frag->nr_vars;
	h.count[BPART_NOTES] = frag->nr_var_notes;
	h.count[BPART_TAGS] = frag->nr_tags;
	h.count[BPART_FWDS] = frag->fwd_names.nr;
	h.count[BPART_STRS] = so.len;
	at = sizeof(h);
	for (i = 0; i < NR_BPARTS; i++) {
		h.off[i] = at;
		at += (h.count[i] * item_size[i] + 7) & ~(size_t)7;
	}
	h.file_size = at;
	buf = calloc(1, at);
	if (!buf)
		goto out_nomem;
	{
		const void *src[NR_BPARTS] = {
			btf_raw, ef, ep, ev, en, et, frag->fwd_names.keys,
			so.buf,
		};

		for (i = 0; i < NR_BPARTS; i++) {
			size_t len = h.count[i] * item_size[i];

			if (len)
				memcpy(buf + h.off[i], src[i], len);
		}
	}
	memcpy(buf, &h, sizeof(h));
	out->buf = buf;
	out->len = at;
	out->func_addr = func_addr;
	func_addr = NULL;
	memcpy(out->cu_off, cu_off, nr_cus * sizeof(*cu_off));
	out->nr_cus = nr_cus;
	err = 0;
	goto out;
out_nomem:
	err = -ENOMEM;
out:
	free(ef);
	free(func_addr);
	free(ep);
	free(ev);
	free(en);
	free(et);
	free(so.buf);
	return err;
}

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
		/* a file in a shared directory: checked as entries are */
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
	/* the addresses a hit would take from the digests */
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

static bool str_ok(uint32_t off, size_t len, bool may_be_none)
{
	return off < len || (may_be_none && off == NO_STR);
}

int batch_cache__read(const struct encode_env *env,
		      const struct batch_probe *probe, const void *map,
		      size_t len, bool check_sum, struct cu_fragment *out)
{
	const struct batch_entry_hdr *h = map;
	const unsigned char *p = map;
	const struct entry_func *ef;
	const struct entry_param *ep;
	const struct entry_var *ev;
	const struct entry_note *en;
	const struct entry_tag *et;
	const uint64_t *fw;
	const char *strs;
	size_t k, nv = 0, slen, ntypes;
	struct cu_fragment f = { 0 };
	int i, err = -ENOENT;

	memset(out, 0, sizeof(*out));
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
	slen = h->count[BPART_STRS];
	strs = (const char *)p + h->off[BPART_STRS];
	if (!slen || strs[slen - 1] || h->count[BPART_BTF] > UINT32_MAX)
		return -ENOENT;
	ef = (const void *)(p + h->off[BPART_FUNCS]);
	ep = (const void *)(p + h->off[BPART_PARAMS]);
	ev = (const void *)(p + h->off[BPART_VARS]);
	en = (const void *)(p + h->off[BPART_NOTES]);
	et = (const void *)(p + h->off[BPART_TAGS]);
	fw = (const void *)(p + h->off[BPART_FWDS]);

	f.btf = btf__new(p + h->off[BPART_BTF], h->count[BPART_BTF]);
	if (!f.btf)
		return -ENOENT;
	if (btf_load__validate(f.btf, NULL)) {
		btf__free(f.btf);
		return -ENOENT;
	}
	btf__set_pointer_size(f.btf, env->ef->ptr_size);
	ntypes = btf__type_cnt(f.btf);
	f.nr_types_in = h->nr_types_in;
	f.nr_funcs = h->count[BPART_FUNCS];
	f.nr_params = h->count[BPART_PARAMS];
	f.nr_vars = h->count[BPART_VARS];
	f.nr_tags = h->count[BPART_TAGS];
	f.funcs = calloc(f.nr_funcs + 1, sizeof(*f.funcs));
	f.params = calloc(f.nr_params + 1, sizeof(*f.params));
	f.vars = calloc(f.nr_vars + 1, sizeof(*f.vars));
	f.tags = calloc(f.nr_tags + 1, sizeof(*f.tags));
	/* the names live as long as the fragment's other copies */
	strs = str_arena__copy(&f.strs, strs, slen);
	if (!f.funcs || !f.params || !f.vars || !f.tags || !strs) {
		err = -ENOMEM;
		goto fail;
	}
	for (k = 0; k < f.nr_params; k++) {
		if (!str_ok(ep[k].name, slen, false) || ep[k].type_id >= ntypes)
			goto fail;
		f.params[k].name = strs + ep[k].name;
		f.params[k].type_id = ep[k].type_id;
	}
	for (k = 0; k < f.nr_tags; k++) {
		if (!str_ok(et[k].value, slen, false) || et[k].component < -1)
			goto fail;
		f.tags[k].value = strs + et[k].value;
		f.tags[k].component = et[k].component;
	}
	for (k = 0; k < f.nr_funcs; k++) {
		const struct entry_func *e = &ef[k];
		struct func_cand *c = &f.funcs[k];
		const struct elf_func_key *key;
		uint64_t addr = 0;

		if (!str_ok(e->key, slen, false) ||
		    !str_ok(e->cu_name, slen, true) || e->cu >= h->nr_cus ||
		    e->ret_type >= ntypes || e->first_param > f.nr_params ||
		    e->nr_params > f.nr_params - e->first_param ||
		    e->first_tag > f.nr_tags ||
		    e->nr_tags > f.nr_tags - e->first_tag)
			goto fail;
		key = elf_symtab__find_key(env->syms, strs + e->key);
		if (!key || (e->has_addr &&
			     probe__addr(probe, e->cu, e->die_off, &addr)))
			goto fail;
		c->key = key->key;
		c->addr = addr;
		c->die_off = probe->cu_off[e->cu] + e->die_off;
		c->cu_name = e->cu_name == NO_STR ? NULL : strs + e->cu_name;
		c->why = e->why;
		c->ret_type = e->ret_type;
		c->first_param = e->first_param;
		c->nr_params = e->nr_params;
		c->flags = e->flags;
		c->first_tag = e->first_tag;
		c->nr_tags = e->nr_tags;
	}
	for (k = 0; k < f.nr_vars; k++) {
		const struct entry_var *e = &ev[k];

		if (!str_ok(e->name, slen, false) || !e->type_id ||
		    e->type_id >= ntypes || e->first_tag > f.nr_tags ||
		    e->nr_tags > f.nr_tags - e->first_tag)
			goto fail;
		f.vars[k].name = strs + e->name;
		f.vars[k].size = e->size;
		f.vars[k].type_id = e->type_id;
		f.vars[k].first_tag = e->first_tag;
		f.vars[k].nr_tags = e->nr_tags;
		f.vars[k].external = e->external;
	}
	/* every variable placed again, at its address in this input */
	for (k = 0; k < h->count[BPART_NOTES]; k++) {
		const struct entry_note *e = &en[k];
		uint64_t addr, off;
		uint32_t shndx;

		if (!str_ok(e->name, slen, false) || e->cu >= h->nr_cus ||
		    !var_fate__placed(e->fate) || e->fate > VAR_FATE_LAST ||
		    probe__addr(probe, e->cu, e->die_off, &addr) ||
		    note__place(env, strs + e->name, e->fate, e->offset, addr,
				&shndx, &off))
			goto fail;
		if (e->fate != VAR_CANDIDATE)
			continue;
		if (nv >= f.nr_vars || strcmp(f.vars[nv].name, strs + e->name))
			goto fail;
		f.vars[nv].shndx = shndx;
		f.vars[nv++].offset = off;
	}
	if (nv != f.nr_vars)
		goto fail;
	for (k = 0; k < h->count[BPART_FWDS]; k++)
		if (key_set__add(&f.fwd_names, fw[k])) {
			err = -ENOMEM;
			goto fail;
		}
	*out = f;
	return 0;
fail:
	cu_fragment__free(&f);
	return err;
}

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
