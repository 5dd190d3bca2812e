// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding a stripped file's separate debug info (debug_file.h).  Each
 * candidate is opened and checked (an ELF file with DWARF; the build-id or
 * the debuglink CRC-32 it must have) before it is taken; what was tried is
 * said in the one error line when none fits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "input/debug_file.h"
#include "lib/leb128.h"
#include "lib/log.h"

/* The longest build-id (or .debug_sup checksum) that is taken. */
#define BUILD_ID_MAX	64

/*
 * What the search tried, for the error line; what does not fit in the
 * buffer is cut off.
 */
struct tried {
	char text[1024];
	size_t len;
};

/* Appends printf-style text to T, as much as fits, always NUL-terminated. */
__attribute__((format(printf, 2, 3)))
static void tried__add(struct tried *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->len >= sizeof(t->text) - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->text + t->len, sizeof(t->text) - t->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->len += (size_t)n < sizeof(t->text) - t->len ?
			  (size_t)n : sizeof(t->text) - t->len - 1;
}

/*
 * A .debug_info of type SHT_NOBITS or of size 0 holds no DWARF; an old
 * compressed .zdebug_info counts as one.
 */
bool elf_file__has_dwarf(const struct elf_file *ef)
{
	GElf_Shdr sh;

	if (elf_file__find_section(ef, ".debug_info", &sh) ||
	    elf_file__find_section(ef, ".zdebug_info", &sh))
		return sh.sh_type != SHT_NOBITS && sh.sh_size;
	return false;
}

/*
 * Looks through every SHT_NOTE section for the first note of type
 * NT_GNU_BUILD_ID named "GNU" (4 bytes with its NUL) whose build-id fits
 * in @size bytes.
 */
size_t elf_file__build_id(const struct elf_file *ef, unsigned char *id,
			  size_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		size_t off = 0, name_off, desc_off;
		Elf_Data *d;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off,
					   &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) ||
			    !nh.n_descsz || nh.n_descsz > size)
				continue;
			memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

/*
 * Reads @ef's .gnu_debuglink: a file name, its NUL, padding to 4 bytes,
 * then the CRC-32 in the file's byte order.  Stores the name (at most
 * @size bytes with its NUL) and the CRC; returns false without the
 * section, and also sets *@bad when the section is there but malformed
 * or names a path (with a '/') rather than a file name.
 */
static bool elf_file__debuglink(const struct elf_file *ef, char *name,
				size_t size, uint32_t *crc, bool *bad)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_file__find_section(ef, ".gnu_debuglink", &sh);
	const unsigned char *p;
	size_t len, crc_off;
	Elf_Data *d;

	*bad = false;
	if (!scn || sh.sh_type == SHT_NOBITS)
		return false;
	d = elf_getdata(scn, NULL);
	p = d ? d->d_buf : NULL;
	len = p ? strnlen((const char *)p, d->d_size) : 0;
	/* The CRC follows the NUL, at the next multiple of 4. */
	crc_off = (len + 4) & ~(size_t)3;
	if (!p || !len || len == d->d_size || len >= size ||
	    crc_off + 4 > d->d_size || memchr(p, '/', len)) {
		*bad = true;
		return false;
	}
	memcpy(name, p, len + 1);
	if (ef->big_endian)
		*crc = (uint32_t)p[crc_off] << 24 | p[crc_off + 1] << 16 |
		       p[crc_off + 2] << 8 | p[crc_off + 3];
	else
		*crc = (uint32_t)p[crc_off + 3] << 24 | p[crc_off + 2] << 16 |
		       p[crc_off + 1] << 8 | p[crc_off];
	return true;
}

/*
 * Computes the CRC-32 of a whole file into *@crc: zlib's crc32() is the
 * one that .gnu_debuglink uses.  Returns 0, -errno if it cannot be
 * opened, or -EIO if a read fails.
 */
static int file_crc32(const char *path, uint32_t *crc)
{
	unsigned char buf[65536];
	uLong c = crc32(0, NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c = crc32(c, buf, n);
	close(fd);
	if (n < 0)
		return -EIO;
	*crc = c;
	return 0;
}

/* Writes the @n bytes of @id as lowercase hex to @out (2n + 1 bytes). */
static void hex(char *out, const unsigned char *id, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

/*
 * Is @path a debug file with build-id @id (@id_len bytes; 0: any): an ELF
 * file with DWARF and, when both have one, that build-id?  Returns 0, or
 * -ENOENT (not there) or -EINVAL (not fit) with the reason in *@why.
 */
static int debug_file__check(const char *path, const unsigned char *id,
			     size_t id_len, const char **why)
{
	unsigned char other[BUILD_ID_MAX];
	struct elf_file df;
	size_t n;
	int err;

	*why = "no such file";
	if (access(path, R_OK))
		return -ENOENT;
	/*
	 * The file is opened quietly, because a candidate that does not
	 * fit is no error by itself: the search goes on.
	 */
	err = elf_file__open_quiet(&df, path);
	if (err) {
		*why = "not an ELF file";
		return -EINVAL;
	}
	err = 0;
	if (!elf_file__has_dwarf(&df)) {
		*why = "no DWARF in it";
		err = -EINVAL;
	} else if (id_len && (n = elf_file__build_id(&df, other,
						       sizeof(other))) &&
		   (n != id_len || memcmp(other, id, n))) {
		*why = "another build-id";
		err = -EINVAL;
	}
	elf_file__close(&df);
	return err;
}

/* Sets *@out to a malloc()ed copy of @path; 0 or -ENOMEM. */
static int debug_file__take(const char *path, char **out)
{
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

/*
 * Tries the candidates in the order that debug_file.h lists, each checked
 * by debug_file__check(), and records each failure for the one error
 * line.  A given file that does not fit ends the search: -ENOENT when it
 * is not there, else -ENODATA.  Returns -ENODATA when no candidate fits.
 */
int debug_file__find(const struct elf_file *ef, const char *given,
		     const char *root, char **out)
{
	unsigned char id[BUILD_ID_MAX];
	char idhex[2 * BUILD_ID_MAX + 1], link[NAME_MAX + 1];
	char cand[PATH_MAX], *real = NULL, *dir;
	struct tried t = { .len = 0 };
	size_t id_len = elf_file__build_id(ef, id, sizeof(id));
	const char *why;
	uint32_t crc, fcrc;
	bool bad = false;
	int err, i;

	*out = NULL;
	if (!root)
		root = DEBUG_FILE_ROOT;
	if (given) {
		err = debug_file__check(given, id, id_len, &why);
		if (!err)
			return debug_file__take(given, out);
		pr_err("%s: no DWARF; --debuginfo %s: %s", ef->path, given,
		       why);
		return err == -ENOENT ? -ENOENT : -ENODATA;
	}
	if (id_len) {
		hex(idhex, id, id_len);
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", root,
			 idhex, idhex + 2);
		if (!debug_file__check(cand, id, id_len, &why))
			return debug_file__take(cand, out);
		tried__add(&t, "build-id %s: %s: %s", idhex, cand, why);
	}
	if (elf_file__debuglink(ef, link, sizeof(link), &crc, &bad)) {
		real = realpath(ef->path, NULL);
		if (!real)
			return -errno;
		dir = dirname(real);
		tried__add(&t, "%sdebuglink %s (CRC %08x):", t.len ? "; " : "",
			   link, crc);
		/*
		 * The three places GDB looks: the input's folder, .debug/
		 * below it, and the input's folder below ROOT.  Only a file
		 * with the link's CRC is taken.
		 */
		for (i = 0; i < 3; i++) {
			static const char *const fmt[] = {
				"%s%s/%s", "%s%s/.debug/%s", "%s%s/%s",
			};
			const char *pre = i == 2 ? root : "";

			if ((size_t)snprintf(cand, sizeof(cand), fmt[i], pre,
					     dir, link) >= sizeof(cand))
				continue;
			err = debug_file__check(cand, NULL, 0, &why);
			if (!err && !file_crc32(cand, &fcrc) && fcrc != crc) {
				why = "another CRC";
				err = -EINVAL;
			}
			if (!err) {
				free(real);
				return debug_file__take(cand, out);
			}
			tried__add(&t, " %s: %s%s", cand, why, i < 2 ? "," : "");
		}
		free(real);
	} else if (bad) {
		tried__add(&t, "%sbad .gnu_debuglink", t.len ? "; " : "");
	}
	if (!t.len)
		pr_err("%s: no DWARF debug info, no build-id and no .gnu_debuglink to find it by (--debuginfo)",
		       ef->path);
	else
		pr_err("%s: no DWARF debug info, nor a debug file (%s)",
		       ef->path, t.text);
	return -ENODATA;
}

/*
 * Reads @ef's .gnu_debugaltlink (name, NUL, build-id) or else DWARF 5's
 * .debug_sup (a 2-byte version, is_supplementary, name, NUL, a ULEB128
 * length, the checksum).  *@sec names the section looked at.  Returns 1
 * with the name and build-id (or checksum), 0 without the section, or -1
 * if it is malformed.  *@is_sup says that @ef is the supplementary file
 * itself, whose .debug_sup may have an empty name.
 */
static int elf_file__sup_link(const struct elf_file *ef, const char **sec,
			      bool *is_sup, char *name, size_t size,
			      unsigned char *id, size_t *id_len)
{
	const unsigned char *p, *end;
	uint64_t n;
	size_t len;
	Elf_Scn *scn;
	GElf_Shdr sh;
	Elf_Data *d;
	bool sup;

	*is_sup = false;
	*sec = ".gnu_debugaltlink";
	scn = elf_file__find_section(ef, *sec, &sh);
	if (!scn) {
		*sec = ".debug_sup";
		scn = elf_file__find_section(ef, *sec, &sh);
	}
	if (!scn || sh.sh_type == SHT_NOBITS)
		return 0;
	sup = !strcmp(*sec, ".debug_sup");
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return -1;
	p = d->d_buf;
	end = p + d->d_size;
	if (sup) {
		if (end - p < 3)
			return -1;
		*is_sup = p[2];
		p += 3;
	}
	len = strnlen((const char *)p, end - p);
	if (p + len == end || len >= size || (!len && !*is_sup))
		return -1;
	memcpy(name, p, len + 1);
	p += len + 1;
	if (sup) {
		if (!uleb_read(&p, end, &n) || n > (uint64_t)(end - p))
			return -1;
	} else {
		n = end - p;
	}
	if (n > BUILD_ID_MAX)
		return -1;
	memcpy(id, p, n);
	*id_len = n;
	return 1;
}

/*
 * Is @path the supplementary file with build-id @id: an ELF file with
 * DWARF whose build-id note, or else .debug_sup checksum, is @id?  With no
 * @id (@id_len 0), any ELF file with DWARF is.  Returns 0 or -errno, with
 * the reason in *@why.
 */
static int alt_file__check(const char *path, const unsigned char *id,
			   size_t id_len, const char **why)
{
	unsigned char other[BUILD_ID_MAX];
	char name[PATH_MAX];
	struct elf_file df;
	const char *sec;
	size_t n;
	bool is_sup;
	int err = debug_file__check(path, NULL, 0, why);

	if (err || !id_len)
		return err;
	if (elf_file__open_quiet(&df, path))
		return -EINVAL;
	n = elf_file__build_id(&df, other, sizeof(other));
	if (!n && elf_file__sup_link(&df, &sec, &is_sup, name, sizeof(name),
				     other, &n) != 1)
		n = 0;
	if (n != id_len || memcmp(other, id, n)) {
		*why = n ? "another build-id" : "no build-id";
		err = -EINVAL;
	}
	elf_file__close(&df);
	return err;
}

/*
 * Tries the candidates in the order that debug_file.h gives, recording
 * each failure for the one error line; returns -ENODATA when none fits.
 */
int debug_file__find_alt(const struct elf_file *src, const char *given,
			 const char *root, char **out)
{
	unsigned char id[BUILD_ID_MAX];
	char idhex[2 * BUILD_ID_MAX + 1], name[PATH_MAX], cand[PATH_MAX];
	struct tried t = { .len = 0 };
	char *real, *dir;
	size_t id_len = 0;
	const char *sec, *why;
	bool is_sup;
	int i, link;

	*out = NULL;
	if (!root)
		root = DEBUG_FILE_ROOT;
	link = elf_file__sup_link(src, &sec, &is_sup, name, sizeof(name), id,
				  &id_len);
	if (link != 1 || is_sup)
		id_len = 0;
	if (given) {
		if (!alt_file__check(given, id, id_len, &why))
			return debug_file__take(given, out);
		pr_err("%s: --alt-file %s: %s", src->path, given, why);
		return -ENODATA;
	}
	if (link != 1 || is_sup) {
		pr_err("%s: its DWARF refers to a dwz supplementary file, but %s (--alt-file)",
		       src->path, link < 0 ? "its .gnu_debugaltlink or .debug_sup is malformed" :
		       "no .gnu_debugaltlink or .debug_sup names it");
		return -ENODATA;
	}
	hex(idhex, id, id_len);
	tried__add(&t, "%s %s, build-id %s:", sec, name, idhex);
	real = realpath(src->path, NULL);
	if (!real)
		return -errno;
	dir = dirname(real);
	/*
	 * Pass 0 tries a relative name in @src's folder (an absolute one as
	 * it is), pass 1 a relative name in the working folder, and pass 2
	 * the build-id below ROOT.
	 */
	for (i = 0; i < 3; i++) {
		int n;

		if (i == 0 && name[0] != '/')
			n = snprintf(cand, sizeof(cand), "%s/%s", dir, name);
		else if (i == 0 || (i == 1 && name[0] != '/'))
			n = snprintf(cand, sizeof(cand), "%s", name);
		else if (i == 2 && id_len)
			n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug",
				     root, idhex, idhex + 2);
		else
			continue;
		if (n < 0 || (size_t)n >= sizeof(cand))
			continue;
		if (!alt_file__check(cand, id, id_len, &why)) {
			free(real);
			return debug_file__take(cand, out);
		}
		tried__add(&t, " %s: %s%s", cand, why, i < 2 ? "," : "");
	}
	free(real);
	pr_err("%s: no dwz supplementary file (%s)", src->path, t.text);
	return -ENODATA;
}
