// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading BTF from raw files or from an ELF file's .BTF section, with the
 * sanity checks that libbpf 1.1 leaves out (type ids and name offsets).
 */
#define _GNU_SOURCE	/* memfd_create() */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/btf_ids.h"
#include "lib/btf_load.h"
#include "lib/btf_view.h"
#include "lib/libbpf_compat.h"
#include "lib/log.h"

/*
 * What the checks of one BTF need: it, its file, its type count, and the
 * end of its strings (its base's included).
 */
struct btf_check {
	const struct btf *btf;
	const char *path;
	uint32_t cnt;
	uint64_t str_end;
};

/*
 * Reports a failed check, unless the path is NULL: then a cache entry is
 * being checked, and its failure is only a cache miss.
 */
#define btf_check__err(c, ...)				\
	do {						\
		if ((c)->path)				\
			pr_err(__VA_ARGS__);		\
	} while (0)

/*
 * Checks every type id and name offset that type ID holds, and a decl
 * tag's component index, as the largest of each (btf_ids.h).  Returns 0
 * or -EINVAL (reported, see above: the name first, then the id).
 */
static int btf_check__validate_type(const struct btf_check *c, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(c->btf, id);
	struct btf_refs_max m = { 0 };

	if (!t) {
		btf_check__err(c, "%s: type [%u] missing", c->path, id);
		return -EINVAL;
	}
	btf_type__refs_max(t, &m);
	if (m.name >= c->str_end) {
		btf_check__err(c, "%s: type [%u]: bad name offset %u", c->path,
			       id, m.name);
		return -EINVAL;
	}
	if (m.id >= c->cnt) {
		btf_check__err(c, "%s: type [%u]: bad type id %u", c->path, id,
			       m.id);
		return -EINVAL;
	}
	if (m.bad_component) {
		btf_check__err(c, "%s: type [%u]: bad component_idx %d",
			       c->path, id, btf_decl_tag(t)->component_idx);
		return -EINVAL;
	}
	return 0;
}

/*
 * The offsets libbpf gives a string for are those below the end of the
 * strings, the base's and then the split BTF's own, one range: the end is
 * found with 32 look-ups, and each name is then checked against it rather
 * than looked up (a third of the checks' time in a module's process).
 */
static uint64_t btf_check__str_end(const struct btf *btf)
{
	uint64_t lo = 0, hi = (uint64_t)UINT32_MAX + 1;

	/* lo is known to be a string's offset or 0; hi is known not to be. */
	if (!btf__name_by_offset(btf, 0))
		return 0;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (btf__name_by_offset(btf, mid))
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

int btf_load__validate(const struct btf *btf, const char *path)
{
	const struct btf *base = btf__base_btf(btf);
	struct btf_check c = {
		.btf = btf, .path = path, .cnt = btf__type_cnt(btf),
		.str_end = btf_check__str_end(btf),
	};
	uint32_t id = base ? btf__type_cnt(base) : 1;
	int err;

	for (; id < c.cnt; id++) {
		err = btf_check__validate_type(&c, id);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Does split BTF look like a standalone file read as split?  libbpf gives
 * split BTF no empty string of its own (offset 0 is the base's), so a
 * string table of its own that starts with one means that a standalone
 * file was read as split: its references would silently point into the
 * base.  The raw header may be in either byte order.
 */
static bool looks_standalone(const struct btf *btf)
{
	const struct btf_header *h;
	const char *raw;
	uint32_t size, hdr_len, str_off, str_len;
	bool swap;

	raw = btf__raw_data(btf, &size);
	if (!raw || size < sizeof(*h))
		return false;
	h = (const struct btf_header *)raw;
	swap = h->magic != BTF_MAGIC;
	hdr_len = swap ? __builtin_bswap32(h->hdr_len) : h->hdr_len;
	str_off = swap ? __builtin_bswap32(h->str_off) : h->str_off;
	str_len = swap ? __builtin_bswap32(h->str_len) : h->str_len;
	if (!str_len || (__u64)hdr_len + str_off + str_len > size)
		return false;
	return raw[hdr_len + str_off] == '\0';
}

/*
 * Parses raw (split) BTF from memory.  libbpf 1.1 has no
 * btf__new_split(), so the bytes go through an anonymous file (memfd),
 * which leaves nothing on disk.  Returns the BTF, or NULL with a negative
 * errno in *E.
 */
static struct btf *parse_memory(const void *raw, size_t size,
				struct btf *base, long *e)
{
	char path[64];
	struct btf *btf;
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = memfd_create("dwarf2btf-btf", MFD_CLOEXEC);
	if (fd < 0) {
		*e = -errno;
		return NULL;
	}
	while (done < size) {
		n = write(fd, (const char *)raw + done, size - done);
		if (n <= 0) {
			*e = n < 0 ? -errno : -EIO;
			close(fd);
			return NULL;
		}
		done += n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	btf = btf__parse_raw_split(path, base);
	close(fd);
	*e = libbpf_get_error(btf);
	return *e ? NULL : btf;
}

struct btf *btf_load__raw_split(const void *raw, size_t size,
				struct btf *base, int *err)
{
	struct btf *btf;
	long e = 0;

	/* The weak symbol is NULL where libbpf lacks it (libbpf_compat.h). */
	if (btf__new_split) {	/* libbpf >= 1.3 */
		btf = btf__new_split(raw, size, base);
		e = btf ? 0 : (errno ? -errno : -EINVAL);
	} else {
		btf = parse_memory(raw, size, base, &e);
	}
	*err = e;
	return btf;
}

/*
 * Checks the 32-byte header of the layout feature (uapi linux/btf.h since
 * 6.19): is the section it names between the types and the strings, and
 * do the strings end within the SIZE bytes of the file?
 */
static bool layout_fits(const unsigned char *raw, size_t size, bool swap)
{
	uint32_t w[6], i;

	if (size < 32)
		return false;
	memcpy(w, raw + 8, sizeof(w));
	for (i = 0; swap && i < 6; i++)
		w[i] = __builtin_bswap32(w[i]);
	/*
	 * The six words after magic, version, flags and hdr_len are
	 * type_off, type_len, str_off, str_len, layout_off and layout_len.
	 */
	return (uint64_t)w[0] + w[1] <= w[4] &&
	       (uint64_t)w[4] + w[5] <= w[2] &&
	       (uint64_t)w[2] + w[3] <= size - 32;
}

/*
 * The BTF of @size raw bytes at @raw, copied once: by btf__new() for a
 * standalone file, btf_load__raw_split() over @base.
 */
static struct btf *parse_raw(const void *raw, size_t size, struct btf *base,
			     long *e)
{
	struct btf *btf;
	int err = 0;

	if (size > UINT32_MAX) {
		*e = -E2BIG;
		return NULL;
	}
	if (base) {
		btf = btf_load__raw_split(raw, size, base, &err);
		*e = err;
		return btf;
	}
	btf = btf__new(raw, size);
	*e = btf ? 0 : (errno ? -errno : -EINVAL);
	return btf;
}

/*
 * Reads a raw BTF file through a private mapping, so that libbpf's copy
 * is the only one (libbpf's own reading copies it twice; a module's
 * process reads its base so).  A header longer than libbpf 1.1's is made
 * one of its length in place: the 24 bytes that end where the long one
 * ends are written over (the offsets count from the header's end, so
 * nothing moves), which copies only the mapping's first page.  The extra
 * bytes are zero (pahole 1.31 with libbpf 1.7 writes 32 bytes), or they
 * name a layout section (the layout feature), which then stays where it
 * is, unread, between the types and the strings.  libbpf 1.1 takes a
 * longer header only in the host's byte order.  Returns NULL with *@e 0
 * when the file is not raw BTF (an ELF file), or is one libbpf is to read
 * as it is and report on, and NULL with a negative errno in *@e on
 * failure.
 */
static struct btf *parse_raw_mapped(const char *path, size_t size,
				    struct btf *base, long *e)
{
	struct btf_header h;
	struct btf *btf = NULL;
	unsigned char *map, *start;
	uint32_t hdr_len, i;
	bool swap;
	int fd;

	*e = 0;
	if (size < sizeof(h))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	memcpy(&h, map, sizeof(h));
	swap = h.magic == __builtin_bswap16(BTF_MAGIC);
	hdr_len = swap ? __builtin_bswap32(h.hdr_len) : h.hdr_len;
	if ((h.magic != BTF_MAGIC && !swap) || hdr_len < sizeof(h) ||
	    hdr_len > size)
		goto out;
	for (i = sizeof(h); i < hdr_len; i++)
		if (map[i])
			break;
	if (i < hdr_len && !(hdr_len == 32 && layout_fits(map, size, swap)))
		goto out;
	start = map + (hdr_len - sizeof(h));
	h.hdr_len = swap ? __builtin_bswap32(sizeof(h)) : sizeof(h);
	memcpy(start, &h, sizeof(h));
	btf = parse_raw(start, size - (hdr_len - sizeof(h)), base, e);
out:
	munmap(map, size);
	return btf;
}

/*
 * An ELF file opened read-only through a mapping, and its section of one
 * name: the last of that name, as libbpf's btf__parse_split() takes it.
 */
struct elf_sec {
	int fd;
	Elf *elf;
	Elf_Scn *scn;		/* NULL: there is none */
	GElf_Shdr sh;
};

/*
 * elf_sec__open() opens @path and finds its section @name, and says in
 * *@has_also (when not NULL) whether a section named @also is there too.
 * A section without a name ends the search with no section found.
 * Returns 0 (s->scn NULL when none was found), -ENOEXEC when the file is
 * not ELF, or another negative errno; elf_sec__close() ends it in every
 * case.
 */
static int elf_sec__open(struct elf_sec *s, const char *path,
			 const char *name, const char *also, bool *has_also)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	*s = (struct elf_sec){ .fd = open(path, O_RDONLY | O_CLOEXEC) };
	if (has_also)
		*has_also = false;
	if (s->fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(s->elf, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(s->elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, &sh) ||
		    !(n = elf_strptr(s->elf, shstrndx, sh.sh_name))) {
			s->scn = NULL;
			return 0;
		}
		if (also && has_also && !strcmp(n, also))
			*has_also = true;
		if (!strcmp(n, name)) {
			s->scn = scn;
			s->sh = sh;
		}
	}
	return 0;
}

static void elf_sec__close(struct elf_sec *s)
{
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
}

/*
 * Reads the .BTF section of ELF file @path through a read-only mapping, so
 * that its bytes are copied once, by btf__new().  libbpf's
 * btf__parse_split() has libelf read the section into memory first and
 * then copies that: for a vmlinux's 6 MB, a quarter of what a small
 * module's run costs goes to loading its base (perf).  Returns NULL with
 * *@e 0 when libbpf is to read the file: not ELF, no .BTF or a compressed
 * one, split BTF (@base given, or a .BTF.base beside it, which libbpf
 * from 1.5 reads as split BTF over it); and NULL with a negative errno in
 * *@e on failure, also for a .BTF without bytes in the file, on which
 * libbpf 1.1 copies from NULL.
 */
static struct btf *parse_elf_mapped(const char *path, struct btf *base,
				    long *e)
{
	struct btf *btf = NULL;
	struct elf_sec s;
	Elf_Data *data;
	bool distilled;

	*e = 0;
	if (elf_sec__open(&s, path, ".BTF", ".BTF.base", &distilled) ||
	    !s.scn)
		goto out;
	/*
	 * A SHT_NOBITS section has no bytes whatever its flags say; libbpf
	 * 1.1 copies from NULL there, compressed flag or not.
	 */
	if (s.sh.sh_type == SHT_NOBITS) {
		*e = -ENODATA;
		goto out;
	}
	if (s.sh.sh_flags & SHF_COMPRESSED)
		goto out;
	data = elf_getdata(s.scn, NULL);
	if (!data || !data->d_buf) {
		*e = -ENODATA;
		goto out;
	}
	if (base || distilled)
		goto out;
	btf = btf__new(data->d_buf, data->d_size);
	*e = libbpf_get_error(btf);
	if (*e) {
		btf = NULL;
		goto out;
	}
	/* As btf__parse_split() does: pointers are as wide as the class. */
	if (gelf_getclass(s.elf) == ELFCLASS32)
		btf__set_pointer_size(btf, 4);
	else if (gelf_getclass(s.elf) == ELFCLASS64)
		btf__set_pointer_size(btf, 8);
out:
	elf_sec__close(&s);
	return btf;
}

/*
 * Checks the file itself first, then reads it as a raw file, or an ELF
 * file's standalone .BTF, through a mapping, else through libbpf's
 * btf__parse_split() (raw or ELF), then
 * refuses a standalone file given a base, then validates every type.
 */
struct btf *btf_load__file(const char *path, struct btf *base, int *err)
{
	char msg[128];
	struct btf *btf;
	struct stat st;
	long e;

	/*
	 * libbpf's errors for a missing file, a directory or an ELF file
	 * without .BTF are unclear (-ENOENT, -EIO): look at the file first.
	 */
	if (stat(path, &st) || access(path, R_OK)) {
		e = -errno;
		pr_err("%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size) {
		e = -EINVAL;
		pr_err("%s: %s", path,
		       S_ISDIR(st.st_mode) ? "is a directory" :
		       S_ISREG(st.st_mode) ? "empty file" : "not a regular file");
		goto fail;
	}
	btf = parse_raw_mapped(path, st.st_size, base, &e);
	if (!btf && !e)
		btf = parse_elf_mapped(path, base, &e);
	if (!btf && !e) {
		btf = btf__parse_split(path, base);
		e = libbpf_get_error(btf);
	}
	if (e) {
		if (e == -ENOENT) {
			pr_err("%s: no .BTF section", path);
		} else {
			libbpf_strerror((int)e, msg, sizeof(msg));
			pr_err("%s: cannot read BTF: %s%s",
			       path, msg, e == -EINVAL && !base ?
			       " (split BTF without its base?)" : "");
		}
		goto fail;
	}
	if (base && looks_standalone(btf)) {
		pr_err("%s: not split BTF, but a base was given", path);
		btf__free(btf);
		e = -EINVAL;
		goto fail;
	}
	e = btf_load__validate(btf, path);
	if (e) {
		btf__free(btf);
		goto fail;
	}
	return btf;
fail:
	if (err)
		*err = (int)e;
	return NULL;
}

/*
 * Views the .BTF section of ELF file @path at its offset in @map, the
 * file mapped whole: 0, or -EINVAL where parse_elf_mapped() would leave
 * the section to libbpf or report it (no .BTF, no bytes, compressed, a
 * .BTF.base beside it, not 4-aligned in the file).
 */
static int view_elf(const char *path, const unsigned char *map, size_t size,
		    struct btf_view *v)
{
	struct elf_sec s;
	bool distilled;
	int err = -EINVAL;

	Elf_Data *data;

	/*
	 * Only a section whose bytes libelf gives as they are in the file:
	 * of another type it may convert them, or give none.
	 */
	if (!elf_sec__open(&s, path, ".BTF", ".BTF.base", &distilled) &&
	    s.scn && !distilled && s.sh.sh_type == SHT_PROGBITS &&
	    !(s.sh.sh_flags & SHF_COMPRESSED) && s.sh.sh_offset <= size &&
	    s.sh.sh_size <= size - s.sh.sh_offset && s.sh.sh_offset % 4 == 0 &&
	    (data = elf_getdata(s.scn, NULL)) && data->d_buf &&
	    data->d_size == s.sh.sh_size)
		err = btf_view__from_raw(v, map + s.sh.sh_offset, s.sh.sh_size);
	elf_sec__close(&s);
	return err;
}

int btf_load__view(const char *path, struct btf_view *v)
{
	unsigned char *map;
	struct stat st;
	int fd, err;

	memset(v, 0, sizeof(*v));
	/* A FIFO would block the open, and is no file for the view. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct btf_header)) {
		close(fd);
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	if (!memcmp(map, ELFMAG, SELFMAG))
		err = view_elf(path, map, st.st_size, v);
	else
		err = btf_view__from_raw(v, map, st.st_size);
	if (err) {
		btf_view__free(v);
		munmap(map, st.st_size);
		return err;
	}
	v->map = map;
	v->map_len = st.st_size;
	return 0;
}

/*
 * Returns a malloc()ed copy of the ELF section @name of @path, its size
 * in *@size, or NULL with *@size 0: *@e is 0 when there is no such
 * section, else a negative errno (-ENOEXEC: not ELF; -EINVAL: no data).
 * The copy lets the ELF file be closed before the BTF is parsed.
 */
static void *elf_section(const char *path, const char *name, size_t *size,
			 long *e)
{
	Elf_Data *data = NULL;
	void *copy = NULL;
	struct elf_sec s;

	*size = 0;
	*e = elf_sec__open(&s, path, name, NULL, NULL);
	if (*e || !s.scn)
		goto out;
	data = elf_getdata(s.scn, NULL);
	if (!data || !data->d_buf || !data->d_size) {
		*e = -EINVAL;
		goto out;
	}
	copy = malloc(data->d_size);
	if (!copy) {
		*e = -ENOMEM;
		goto out;
	}
	memcpy(copy, data->d_buf, data->d_size);
	*size = data->d_size;
out:
	elf_sec__close(&s);
	return copy;
}

/* Copies the section out of the ELF file, then parses and validates it. */
struct btf *btf_load__elf_section(const char *path, const char *name,
				  int *err)
{
	size_t size;
	struct btf *btf = NULL;
	void *raw;
	long e;

	raw = elf_section(path, name, &size, &e);
	if (!raw) {
		if (!e)
			e = -ENOENT;
		pr_err("%s: %s%s", path,
		       e == -ENOENT ? "no section " : "",
		       e == -ENOENT ? name : strerror(-e));
		goto fail;
	}
	btf = btf__new(raw, size);
	free(raw);
	e = libbpf_get_error(btf);
	if (e) {
		pr_err("%s: cannot read BTF of %s: %s",
		       path, name, strerror(-e));
		btf = NULL;
		goto fail;
	}
	e = btf_load__validate(btf, path);
	if (e) {
		btf__free(btf);
		btf = NULL;
		goto fail;
	}
	return btf;
fail:
	if (err)
		*err = (int)e;
	return NULL;
}

unsigned char *btf_load__raw_new(size_t types_len, size_t str_len,
				 unsigned char **types)
{
	struct btf_header *h;
	unsigned char *buf;

	if (types_len > UINT32_MAX || str_len > UINT32_MAX - types_len ||
	    sizeof(*h) + types_len + str_len > UINT32_MAX)
		return NULL;
	buf = malloc(sizeof(*h) + types_len + str_len);
	if (!buf)
		return NULL;
	h = (struct btf_header *)buf;
	*h = (struct btf_header){
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(*h), .type_off = 0, .type_len = types_len,
		.str_off = types_len, .str_len = str_len,
	};
	*types = buf + sizeof(*h);
	return buf;
}

int btf_load__raw(unsigned char *buf, unsigned int ptr_size,
		  struct btf **out)
{
	const struct btf_header *h = (const struct btf_header *)buf;
	struct btf *btf = btf__new(buf, sizeof(*h) + h->type_len + h->str_len);
	int err = -errno;

	free(buf);
	if (!btf)
		return err ? err : -EINVAL;
	btf__set_pointer_size(btf, ptr_size);
	*out = btf;
	return 0;
}
