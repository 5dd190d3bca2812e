// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building the immutable ELF symbol index.  Symbol names are not copied:
 * they stay in libelf's (mapped) string table, which lives as long as the
 * elf_file does.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "input/symtab.h"

static int elf_sym__cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/*
 * Sorting by name is most of the time the index takes (three sorts of
 * 100 k symbols on a vmlinux, before any worker can start), and kernel
 * names share long prefixes, so comparisons of whole names each read two
 * cold strings: the names are sorted by 8 bytes at a time, as integers.
 */
struct sym_ord {
	uint64_t prefix;	/* 8 bytes of the name, big-endian, NUL-padded */
	const struct elf_sym *sym;
};

static uint64_t name_prefix(const char *name)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8 && name[i]; i++)
		v |= (uint64_t)(unsigned char)name[i] << (56 - 8 * i);
	return v;
}

/* Names from byte @at on, then addresses. */
static int sym_ord__cmp_rest(const struct sym_ord *x, const struct sym_ord *y,
			     size_t at)
{
	int c = strcmp(x->sym->name + at, y->sym->name + at);

	if (c)
		return c;
	if (x->sym->addr != y->sym->addr)
		return x->sym->addr < y->sym->addr ? -1 : 1;
	return 0;
}

#define BY_PREFIX	0
#define BY_ADDR		SIZE_MAX

/*
 * Stable merge sort of @a[0 .. @n), @tmp as large: by prefix (BY_PREFIX),
 * by address (BY_ADDR: the names are equal), or by name from byte @at on
 * (which all have) and then address.
 */
static void sym_ord__msort(struct sym_ord *a, struct sym_ord *tmp, size_t n,
			   size_t at)
{
	size_t h = n / 2, i = 0, j = h, k = 0;

	if (n < 2)
		return;
	sym_ord__msort(a, tmp, h, at);
	sym_ord__msort(a + h, tmp, n - h, at);
	while (i < h && j < n)
		tmp[k++] = (at == BY_PREFIX ? a[j].prefix < a[i].prefix :
			    at == BY_ADDR ? a[j].sym->addr < a[i].sym->addr :
			    sym_ord__cmp_rest(&a[j], &a[i], at) < 0) ?
			   a[j++] : a[i++];
	while (i < h)
		tmp[k++] = a[i++];
	memcpy(a, tmp, k * sizeof(*a));
}

#define SORT_LEVELS	8	/* of 8 bytes; then strcmp(): bounded recursion */

/* Stable LSD radix sort by the prefixes, a byte a pass. */
static void sym_ord__radix(struct sym_ord *a, struct sym_ord *tmp, size_t n)
{
	struct sym_ord *src = a, *dst = tmp, *t;
	size_t count[256], i, sum;
	int shift;

	for (shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[src[i].prefix >> shift & 0xff]++;
		if (count[src[0].prefix >> shift & 0xff] == n)
			continue;	/* the same byte in all */
		for (i = 0, sum = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[src[i].prefix >> shift & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

/*
 * Sort @a (prefixes: the names' bytes from @at) as elf_sym__cmp() would,
 * stable: by those 8 bytes, then each run that shares them by the next 8
 * ("__pfx_", "__x64_sys_"), and names that ended by address.
 */
static void sym_ord__sort(struct sym_ord *a, struct sym_ord *tmp, size_t n,
			  size_t at)
{
	size_t i, j, k;

	if (n < 64)
		sym_ord__msort(a, tmp, n, BY_PREFIX);
	else
		sym_ord__radix(a, tmp, n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && a[j].prefix == a[i].prefix; j++)
			;
		if (j - i < 2)
			continue;
		if (!(a[i].prefix & 0xff)) {	/* the names ended: equal */
			sym_ord__msort(a + i, tmp, j - i, BY_ADDR);
			continue;
		}
		if (at >= SORT_LEVELS * 8) {	/* long: the rest compared */
			sym_ord__msort(a + i, tmp, j - i, at + 8);
			continue;
		}
		for (k = i; k < j; k++)
			a[k].prefix = name_prefix(a[k].sym->name + at + 8);
		sym_ord__sort(a + i, tmp, j - i, at + 8);
	}
}

/* Sort @syms by name, then address: what elf_sym__cmp() says, faster. */
static int elf_syms__sort(struct elf_sym *syms, size_t n)
{
	struct sym_ord *ord, *tmp;
	struct elf_sym *out;
	size_t i;

	if (n < 2)
		return 0;
	ord = malloc(n * sizeof(*ord));
	tmp = malloc(n * sizeof(*tmp));
	out = malloc(n * sizeof(*out));
	if (!ord || !tmp || !out) {
		free(ord);
		free(tmp);
		free(out);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ord[i].prefix = name_prefix(syms[i].name);
		ord[i].sym = &syms[i];
	}
	sym_ord__sort(ord, tmp, n, 0);
	for (i = 0; i < n; i++)
		out[i] = *ord[i].sym;
	memcpy(syms, out, n * sizeof(*out));
	free(ord);
	free(tmp);
	free(out);
	return 0;
}

static int elf_symtab__push(struct elf_sym **arr, size_t *nr, size_t *cap,
			    const struct elf_sym *s)
{
	if (grow_array((void **)arr, cap, *nr + 1, sizeof(**arr), 1024))
		return -ENOMEM;
	(*arr)[(*nr)++] = *s;
	return 0;
}

/* Gives back the room @arr of @nr entries has beyond them. */
static void elf_syms__fit(struct elf_sym **arr, size_t nr)
{
	struct elf_sym *p = nr ? realloc(*arr, nr * sizeof(**arr)) : NULL;

	if (p)
		*arr = p;
}

static bool func_suffix_skipped(const char *name)
{
	const char *dot = strchr(name, '.');

	return dot && (strstr(dot, ".cold") || strstr(dot, ".part"));
}

struct key_sym {
	const struct elf_sym *sym;
	size_t keylen;
};

static int key_sym__cmp(const void *a, const void *b)
{
	const struct key_sym *x = a, *y = b;
	size_t n = x->keylen < y->keylen ? x->keylen : y->keylen;
	int c = strncmp(x->sym->name, y->sym->name, n);

	if (c)
		return c;
	if (x->keylen != y->keylen)
		return x->keylen < y->keylen ? -1 : 1;
	return elf_sym__cmp(x->sym, y->sym);
}

/*
 * The keys point into the symbols' own names where a name is its key
 * ("foo", most of a vmlinux's), and into st->key_strs for the rest
 * ("foo" of "foo.isra.0"); key_syms holds indices into funcs.  On the
 * 6.12 vmlinux that is 8 MB less than copies of every key and of every
 * symbol.
 */
static int elf_symtab__build_keys(struct elf_symtab *st)
{
	struct elf_func_key *keys;
	struct key_sym *ks;
	size_t i, j, n = 0;

	ks = calloc(st->nr_funcs ? st->nr_funcs : 1, sizeof(*ks));
	st->key_syms = calloc(st->nr_funcs ? st->nr_funcs : 1,
			      sizeof(*st->key_syms));
	st->keys = calloc(st->nr_funcs ? st->nr_funcs : 1, sizeof(*st->keys));
	if (!ks || !st->key_syms || !st->keys) {
		free(ks);
		return -ENOMEM;
	}
	for (i = 0; i < st->nr_funcs; i++) {
		if (func_suffix_skipped(st->funcs[i].name))
			continue;
		ks[n].sym = &st->funcs[i];
		ks[n].keylen = strcspn(st->funcs[i].name, ".");
		n++;
	}
	/*
	 * Sorted by name, symbols are almost always in key order already
	 * ("foo", "foo.isra.0", "foo_bar"): only a name with a character
	 * below '.' right after a key ("foo-x") breaks it.
	 */
	for (i = 1; i < n && key_sym__cmp(&ks[i - 1], &ks[i]) <= 0; i++)
		;
	if (i < n)
		qsort(ks, n, sizeof(*ks), key_sym__cmp);
	for (i = 0; i < n; i = j) {
		struct elf_func_key *k = &st->keys[st->nr_keys];
		const char *name = ks[i].sym->name;
		uint64_t addr = 0;

		for (j = i; j < n && ks[j].keylen == ks[i].keylen &&
		     !strncmp(ks[j].sym->name, name, ks[i].keylen); j++) {
			st->key_syms[j] = ks[j].sym - st->funcs;
			if (!ks[j].sym->addr)
				continue;
			if (addr && addr != ks[j].sym->addr)
				k->ambiguous = true;
			addr = ks[j].sym->addr;
		}
		k->key = name;
		if (name[ks[i].keylen])
			k->key = str_arena__dupn(&st->key_strs, name,
						 ks[i].keylen);
		if (!k->key) {
			free(ks);
			return -ENOMEM;
		}
		k->first = i;
		k->nr = j - i;
		st->nr_keys++;
	}
	free(ks);
	keys = realloc(st->keys, (st->nr_keys ? st->nr_keys : 1) *
				 sizeof(*st->keys));
	if (keys)
		st->keys = keys;
	return 0;
}

/* A key's hash, nonzero as u32_map's keys are. */
static uint64_t key_hash_of(const char *key)
{
	return hash_name(key, strlen(key)) | 1;
}

/*
 * Every subprogram of every CU is looked up, most of them not functions
 * of the ELF: a hash, and a string compared only when the hashes match.
 */
static int elf_symtab__hash_keys(struct elf_symtab *st)
{
	size_t i;
	int err;

	for (i = 0; i < st->nr_keys; i++) {
		err = u32_map__add(&st->key_map, key_hash_of(st->keys[i].key),
				   i);
		if (err)
			return err;
	}
	return 0;
}

const struct elf_func_key *elf_symtab__find_key(const struct elf_symtab *st,
					       const char *key)
{
	const struct u32_map_slot *s = NULL;
	uint64_t kh = key_hash_of(key);

	while ((s = u32_map__next(&st->key_map, kh, s)))
		if (!strcmp(st->keys[s->val].key, key))
			return &st->keys[s->val];
	return NULL;
}

const struct elf_func_key *elf_symtab__find_key_prefix(const struct elf_symtab *st,
						      const char *prefix,
						      size_t *nr)
{
	size_t lo = 0, hi = st->nr_keys, len = strlen(prefix), i;

	/* The first key not below @prefix: the keys are in strcmp() order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(st->keys[mid].key, prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < st->nr_keys && !strncmp(st->keys[i].key, prefix, len);
	     i++)
		;
	*nr = i - lo;
	return *nr ? &st->keys[lo] : NULL;
}

/*
 * kfuncs: the kernel lists them as __BTF_ID__func__NAME__N entries (an id
 * and a flags word each) inside __BTF_ID__set8__* sets of .BTF_ids whose
 * own flags say BTF_SET8_KFUNCS.  Read once, with the symbol index.
 */
#define BTF_SET8_KFUNCS	(1u << 0)
#define BTF_ID_PREFIX	"__BTF_ID__"
#define SET8_PREFIX	BTF_ID_PREFIX "set8__"
#define FUNC_PREFIX	BTF_ID_PREFIX "func__"

struct btf_id_sym {
	const char *name;
	uint64_t addr, size;
};

static uint32_t elf_file__read_u32(const struct elf_file *ef, const Elf_Data *d,
			 uint64_t off)
{
	uint32_t v;

	memcpy(&v, (const char *)d->d_buf + off, 4);
	if (ef->big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		v = __builtin_bswap32(v);
	return v;
}

static int kfunc__cmp(const void *a, const void *b)
{
	return strcmp(((const struct elf_kfunc *)a)->name,
		      ((const struct elf_kfunc *)b)->name);
}

static int elf_symtab__collect_kfuncs(struct elf_symtab *st,
				      const struct elf_file *ef,
				      struct btf_id_sym *ids, size_t nr)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_file__find_section(ef, ".BTF_ids", &shdr);
	Elf_Data *d;
	size_t i, j;

	if (!scn || shdr.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf)
		return 0;
	st->kfuncs = calloc(nr ? nr : 1, sizeof(*st->kfuncs));
	if (!st->kfuncs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		uint64_t lo, hi;

		if (strncmp(ids[i].name, SET8_PREFIX, strlen(SET8_PREFIX)))
			continue;
		lo = ids[i].addr - shdr.sh_addr;
		if (ids[i].addr < shdr.sh_addr || lo + 8 > d->d_size ||
		    !(elf_file__read_u32(ef, d, lo + 4) & BTF_SET8_KFUNCS))
			continue;
		hi = lo + ids[i].size;
		for (j = 0; j < nr; j++) {
			const char *n = ids[j].name, *end;
			uint64_t off = ids[j].addr - shdr.sh_addr;
			struct elf_kfunc *k;

			if (strncmp(n, FUNC_PREFIX, strlen(FUNC_PREFIX)) ||
			    ids[j].addr < shdr.sh_addr || off < lo || off >= hi ||
			    off + 8 > d->d_size)
				continue;
			n += strlen(FUNC_PREFIX);
			end = strrchr(n, '_');
			/* NAME__N: the suffix after the last "__" goes. */
			if (!end || end - n < 2 || end[-1] != '_')
				continue;
			k = &st->kfuncs[st->nr_kfuncs];
			k->name = strndup(n, end - 1 - n);
			if (!k->name)
				return -ENOMEM;
			k->flags = elf_file__read_u32(ef, d, off + 4);
			st->nr_kfuncs++;
		}
	}
	qsort(st->kfuncs, st->nr_kfuncs, sizeof(*st->kfuncs), kfunc__cmp);
	return 0;
}

const struct elf_kfunc *elf_symtab__find_kfunc(const struct elf_symtab *st,
					      const char *name)
{
	struct elf_kfunc key = { .name = (char *)name };

	if (!st->nr_kfuncs)
		return NULL;
	return bsearch(&key, st->kfuncs, st->nr_kfuncs, sizeof(key), kfunc__cmp);
}

static int elf_symtab__push_id(struct btf_id_sym **ids, size_t *nr,
			       size_t *cap, const char *name, uint64_t addr,
			       uint64_t size)
{
	if (grow_array((void **)ids, cap, *nr + 1, sizeof(**ids), 256))
		return -ENOMEM;
	(*ids)[(*nr)++] = (struct btf_id_sym){ name, addr, size };
	return 0;
}

static int elf_symtab__collect_sections(struct elf_symtab *st,
					const struct elf_file *ef)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	st->secs = calloc(ef->shnum ? ef->shnum : 1, sizeof(*st->secs));
	if (!st->secs)
		return -ENOMEM;
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		struct elf_data_section *d;

		if (!gelf_getshdr(scn, &shdr) ||
		    (shdr.sh_type != SHT_PROGBITS && shdr.sh_type != SHT_NOBITS))
			continue;
		if (st->nr_secs >= ef->shnum)
			break;
		d = &st->secs[st->nr_secs++];
		d->name = elf_strptr(ef->elf, ef->shstrndx, shdr.sh_name);
		d->addr = shdr.sh_addr;
		d->size = shdr.sh_size;
		d->shndx = elf_ndxscn(scn);
		if (!d->name)
			st->nr_secs--;
	}
	return 0;
}

const struct elf_data_section *elf_symtab__section_of(const struct elf_symtab *st,
						     uint64_t addr)
{
	size_t i;

	for (i = 0; i < st->nr_secs; i++)
		if (addr >= st->secs[i].addr &&
		    addr - st->secs[i].addr < st->secs[i].size)
			return &st->secs[i];
	return NULL;
}

/*
 * Where .data..percpu lies: a variable is a per-CPU candidate when the
 * section its address falls in is this one (cu/cu_vars.c).  A file
 * without it has none.
 */
static void elf_symtab__find_percpu(struct elf_symtab *st,
				    const struct elf_file *ef)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;

	scn = elf_file__find_section(ef, ".data..percpu", &shdr);
	if (scn) {
		st->percpu_shndx = elf_ndxscn(scn);
		st->percpu_addr = shdr.sh_addr;
		st->percpu_size = shdr.sh_size;
	}
}

/* The symbol table's sections, as elf_symtab__read() reads them. */
struct symtab_data {
	Elf_Data *syms;		/* SHT_SYMTAB's entries */
	Elf_Data *xndx;		/* SHT_SYMTAB_SHNDX, NULL: none */
	size_t nr;		/* entries, the null symbol included */
	uint32_t strtab;	/* the string table's section index */
};

/*
 * Find @ef's SHT_SYMTAB, check that its string table can be read, and the
 * SHT_SYMTAB_SHNDX that holds the section numbers >= SHN_LORESERVE of its
 * symbols.  Returns 1 when @ef has no symbol table (a stripped file: no
 * function can be matched, types still can), 0 when @sd is filled, or
 * -EINVAL with the reason reported: a broken table is corrupt input.
 */
static int symtab_data__find(struct symtab_data *sd, const struct elf_file *ef)
{
	Elf_Scn *scn = NULL, *strscn, *xscn = NULL;
	GElf_Shdr shdr, strshdr, xs;

	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB)
			break;
	}
	if (!scn)
		return 1;
	sd->syms = elf_getdata(scn, NULL);
	if (!sd->syms || !shdr.sh_entsize) {
		pr_err("%s: unreadable .symtab", ef->path);
		return -EINVAL;
	}
	sd->nr = sd->syms->d_size / shdr.sh_entsize;
	sd->strtab = shdr.sh_link;
	strscn = elf_getscn(ef->elf, shdr.sh_link);
	if (!strscn || shdr.sh_link == elf_ndxscn(scn) ||
	    !gelf_getshdr(strscn, &strshdr) ||
	    strshdr.sh_type != SHT_STRTAB || !elf_getdata(strscn, NULL)) {
		pr_err("%s: .symtab has no valid string table", ef->path);
		return -EINVAL;
	}
	sd->xndx = NULL;
	while ((xscn = elf_nextscn(ef->elf, xscn)) != NULL) {
		if (gelf_getshdr(xscn, &xs) && xs.sh_type == SHT_SYMTAB_SHNDX &&
		    xs.sh_link == elf_ndxscn(scn)) {
			sd->xndx = elf_getdata(xscn, NULL);
			break;
		}
	}
	return 0;
}

/* The __BTF_ID__ symbols met while reading the table (btf_ids.h). */
struct btf_id_list {
	struct btf_id_sym *v;
	size_t nr, cap;
};

/*
 * Read every defined, named symbol of @sd: functions and objects into
 * @st's lists (unsorted), __BTF_ID__ symbols of any type into @ids.
 * Returns 0, -ENOMEM, or -EINVAL (reported) for a name outside the string
 * table.
 */
static int elf_symtab__read(struct elf_symtab *st, const struct elf_file *ef,
			    const struct symtab_data *sd,
			    struct btf_id_list *ids)
{
	size_t fcap = 0, vcap = 0, i;
	int err;

	for (i = 1; i < sd->nr; i++) {
		struct elf_sym s;
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		int type;

		if (!gelf_getsymshndx(sd->syms, sd->xndx, i, &sym, &xndx))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF)
			continue;
		s.shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		s.name = elf_strptr(ef->elf, sd->strtab, sym.st_name);
		if (!s.name) {
			pr_err("%s: .symtab: symbol %zu has a bad name", ef->path, i);
			return -EINVAL;
		}
		if (!*s.name)
			continue;
		if (!strncmp(s.name, BTF_ID_PREFIX, strlen(BTF_ID_PREFIX)) &&
		    elf_symtab__push_id(&ids->v, &ids->nr, &ids->cap, s.name,
					sym.st_value, sym.st_size))
			return -ENOMEM;
		if (type != STT_FUNC && type != STT_OBJECT)
			continue;
		s.addr = sym.st_value;
		s.size = sym.st_size;
		s.bind = GELF_ST_BIND(sym.st_info);
		s.type = type;
		if (type == STT_FUNC)
			err = elf_symtab__push(&st->funcs, &st->nr_funcs, &fcap, &s);
		else
			err = elf_symtab__push(&st->vars, &st->nr_vars, &vcap, &s);
		if (err)
			return err;
	}
	elf_syms__fit(&st->funcs, st->nr_funcs);
	elf_syms__fit(&st->vars, st->nr_vars);
	return 0;
}

/*
 * Once read, the symbol table's pages are given back when they are the
 * file's mapping: nothing reads them again, and a vmlinux's are 4.5 MB of
 * the peak.  The names stay: they are the index's.  A relocatable file's
 * are in our own copy, which libdwfl reads for its relocations.
 */
static void symtab_data__drop(const struct symtab_data *sd,
			      const struct elf_file *ef)
{
	const Elf_Data *parts[2] = { sd->syms, sd->xndx };
	size_t size, i;
	const char *file;

	if (ef->buf || !(file = elf_rawfile(ef->elf, &size)))
		return;
	for (i = 0; i < 2; i++)
		if (parts[i] && parts[i]->d_buf &&
		    (const char *)parts[i]->d_buf >= file &&
		    parts[i]->d_size <= size &&
		    (const char *)parts[i]->d_buf - file <=
		    (ptrdiff_t)(size - parts[i]->d_size))
			elf_file__drop_pages(parts[i]->d_buf, parts[i]->d_size);
}

/*
 * The index of @ef: its data sections, .data..percpu, its function and
 * variable symbols sorted, the functions' keys hashed, and the kfunc sets
 * of .BTF_ids (read from @contents when @ef's own sections are stripped,
 * NULL: @ef).  Built once, read-only afterwards.  Returns 0 with *@out
 * set, or a negative errno (reported where the input is at fault).
 */
int elf_symtab__new(const struct elf_file *ef, const struct elf_file *contents,
		    struct elf_symtab **out)
{
	struct btf_id_list ids = { 0 };
	struct symtab_data sd;
	struct elf_symtab *st;
	int err;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return -ENOMEM;
	err = elf_symtab__collect_sections(st, ef);
	if (err)
		goto fail;
	elf_symtab__find_percpu(st, ef);
	err = symtab_data__find(&sd, ef);
	if (err > 0) {
		*out = st;
		return 0;
	}
	if (!err) {
		err = elf_symtab__read(st, ef, &sd, &ids);
		symtab_data__drop(&sd, ef);
	}
	if (!err)
		err = elf_syms__sort(st->funcs, st->nr_funcs);
	if (!err)
		err = elf_syms__sort(st->vars, st->nr_vars);
	if (!err)
		err = elf_symtab__build_keys(st);
	if (!err)
		err = elf_symtab__hash_keys(st);
	if (!err)
		err = elf_symtab__collect_kfuncs(st, contents ? contents : ef,
						 ids.v, ids.nr);
	if (err)
		goto fail;
	free(ids.v);
	*out = st;
	return 0;
fail:
	free(ids.v);
	elf_symtab__free(st);
	return err;
}

void elf_symtab__free(struct elf_symtab *st)
{
	size_t i;

	if (!st)
		return;
	str_arena__free(&st->key_strs);
	for (i = 0; i < st->nr_kfuncs; i++)
		free(st->kfuncs[i].name);
	free(st->kfuncs);
	free(st->keys);
	free(st->secs);
	u32_map__free(&st->key_map);
	free(st->key_syms);
	free(st->funcs);
	free(st->vars);
	free(st);
}

const struct elf_sym *elf_symtab__find(const struct elf_sym *syms, size_t nr,
				       const char *name, size_t *nr_found)
{
	size_t lo = 0, hi = nr, end;

	/* lower bound */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(syms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < nr && !strcmp(syms[end].name, name); end++)
		;
	*nr_found = end - lo;
	return end > lo ? &syms[lo] : NULL;
}

const char *elf_symtab__section_name(const struct elf_symtab *st,
				     uint32_t shndx)
{
	size_t i;

	for (i = 0; i < st->nr_secs; i++)
		if (st->secs[i].shndx == shndx)
			return st->secs[i].name;
	return NULL;
}
