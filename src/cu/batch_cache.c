// SPDX-License-Identifier: GPL-2.0-only
/* A batch's encoding in the cache directory (batch_cache.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "cu/batch_cache.h"
#include "cu_queue.h"
#include "lib/btf_load.h"
#include "lib/cache_dir.h"
#include "lib/grow.h"
#include "lib/hash.h"

struct batch_cache {
	const struct encode_env *env;
	const struct cache_dir *dir;
	uint64_t key[2];	/* all but the CUs' digests */
};

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

int batch_cache__new(const struct encode_env *env, const struct cache_dir *dir,
		     struct batch_cache **out)
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

/* The CU of the batch holding absolute DIE offset @off, and where in it. */
static int probe__cu_of(const struct batch_probe *probe,
			const struct encode_env *env, uint64_t off,
			uint32_t *cu, uint64_t *rel)
{
	size_t i;

	for (i = probe->nr_cus; i-- > 0;)
		if (off >= probe->cu_off[i]) {
			uint64_t end = i + 1 < probe->nr_cus ?
				       probe->cu_off[i + 1] : env->sects.info_size;

			if (off >= end)
				return -ERANGE;
			*cu = i;
			*rel = off - probe->cu_off[i];
			return 0;
		}
	return -ERANGE;
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

int batch_cache__store(const struct batch_cache *bc,
		       const struct batch_probe *probe,
		       const struct cu_fragment *frag)
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
	const void *btf_raw = NULL;
	uint32_t btf_size = 0;
	const void *parts[2 * NR_BPARTS + 1];
	size_t lens[2 * NR_BPARTS + 1], at, k, nv = 0;
	static const uint64_t zero;
	char name[64];
	int err = -ENOMEM, i, np = 0;

	if (!probe->ok || !frag->btf)
		return -EINVAL;
	btf_raw = btf__raw_data(frag->btf, &btf_size);
	if (!btf_raw)
		return -ENOMEM;
	ef = calloc(frag->nr_funcs + 1, sizeof(*ef));
	ep = calloc(frag->nr_params + 1, sizeof(*ep));
	ev = calloc(frag->nr_vars + 1, sizeof(*ev));
	en = calloc(frag->nr_var_notes + 1, sizeof(*en));
	et = calloc(frag->nr_tags + 1, sizeof(*et));
	if (!ef || !ep || !ev || !en || !et)
		goto out;
	/* what a hit would compute again must come out as it is here */
	err = -ESTALE;
	for (k = 0; k < frag->nr_funcs; k++) {
		const struct func_cand *c = &frag->funcs[k];
		struct entry_func *e = &ef[k];
		uint64_t addr = 0;

		if (probe__cu_of(probe, env, c->die_off, &e->cu, &e->die_off))
			goto out;
		e->has_addr = !probe__addr(probe, e->cu, e->die_off, &addr);
		if (addr != c->addr)
			goto out;
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
		uint64_t addr, off;
		uint32_t shndx;

		if (!var_fate__placed(n->fate) ||
		    probe__cu_of(probe, env, n->die_off, &e->cu, &e->die_off) ||
		    probe__addr(probe, e->cu, e->die_off, &addr) ||
		    note__place(env, n->name, n->fate, n->offset, addr, &shndx,
				&off) || off != n->offset || shndx != n->shndx)
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
	h.key[0] = probe->key[0];
	h.key[1] = probe->key[1];
	h.nr_cus = probe->nr_cus;
	h.nr_types_in = frag->nr_types_in;
	h.count[BPART_BTF] = btf_size;
	h.count[BPART_FUNCS] = frag->nr_funcs;
	h.count[BPART_PARAMS] = frag->nr_params;
	h.count[BPART_VARS] = frag->nr_vars;
	h.count[BPART_NOTES] = frag->nr_var_notes;
	h.count[BPART_TAGS] = frag->nr_tags;
	h.count[BPART_FWDS] = frag->fwd_names.nr;
	h.count[BPART_STRS] = so.len;
	parts[np] = &h;
	lens[np++] = sizeof(h);
	at = sizeof(h);
	{
		const void *src[NR_BPARTS] = {
			btf_raw, ef, ep, ev, en, et, frag->fwd_names.keys,
			so.buf,
		};

		for (i = 0; i < NR_BPARTS; i++) {
			size_t len = h.count[i] * item_size[i];

			h.off[i] = at;
			parts[np] = src[i];
			lens[np++] = len;
			at += len;
			if (at % 8) {
				parts[np] = &zero;
				lens[np++] = 8 - at % 8;
				at += 8 - at % 8;
			}
		}
	}
	h.file_size = at;
	{
		/* the checksum covers the parts as they will be in the file */
		char *all = malloc(at - sizeof(h));
		size_t pos = 0;

		if (!all)
			goto out_nomem;
		for (i = 1; i < np; i++) {
			if (lens[i])
				memcpy(all + pos, parts[i], lens[i]);
			pos += lens[i];
		}
		h.checksum = hash_bytes(all, pos);
		free(all);
	}
	entry_name(probe, name, sizeof(name));
	err = cache_dir__store(bc->dir, name, parts, lens, np);
	goto out;
out_nomem:
	err = -ENOMEM;
out:
	free(ef);
	free(ep);
	free(ev);
	free(en);
	free(et);
	free(so.buf);
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
		    !var_fate__placed(e->fate) || e->fate > VAR_OFF ||
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
