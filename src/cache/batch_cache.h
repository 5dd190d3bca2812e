/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A batch's encoding (its deduplicated fragment) is kept in the cache
 * directory, keyed by what its CUs mean (cu_digest.h) and by all else
 * the encoding reads: this binary, the options, the ELF's machine, the
 * names of its function symbols.  After a relink in which one CU changed,
 * every other batch is read back instead of encoded again.
 *
 * What a relink moves is not in the key and not taken from the entry:
 * functions' addresses and DIE offsets come from this input's DIEs, and
 * each variable is placed again (section, offset, or why not) from its
 * address now.  A variable whose fate would change makes the entry a miss.
 * An entry is checked before use (header, sizes, checksum, every index and
 * string offset in it, the BTF parsed); one that fails is ignored, and the
 * batch encoded.  The output is the same bytes with and without the cache.
 */
#ifndef DWARF2BTF_BATCH_CACHE_H
#define DWARF2BTF_BATCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/cu_digest.h"
#include "cu/cu_encoder.h"

struct cache_dir;

#define BATCH_CACHE_MAGIC	"D2BTFBAT"
/* The version must change whenever the entry's layout or meaning changes. */
#define BATCH_CACHE_VERSION	4

/* An entry is this header, then its parts in this order, each 8-aligned. */
enum {
	BPART_BTF, BPART_FUNCS, BPART_PARAMS, BPART_VARS, BPART_NOTES, BPART_TAGS,
	BPART_FWDS, BPART_STRS, NR_BPARTS
};

/* The batch has C++ units (cu_fragment.cxx). */
#define BATCH_CXX	1u

struct batch_entry_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint64_t key[2];
	uint64_t file_size;
	uint64_t checksum;	/* hash_bytes() of what follows the header. */
	uint64_t nr_types_in;
	uint32_t nr_cus;
	uint32_t flags;		/* BATCH_CXX */
	/* These count items, but bytes for the BTF and the strings. */
	uint64_t count[NR_BPARTS];
	uint64_t off[NR_BPARTS];
};


struct batch_cache;

/*
 * batch_cache__new() makes the cache for a run over @env, whose CUs are
 * @cus, or sets *@out to NULL when the input or options are not ones it
 * keeps (see batch_cache.c).  It returns 0 or -ENOMEM.
 */
int batch_cache__new(const struct encode_env *env, const struct cache_dir *dir,
		     Dwarf_Die *cus, size_t nr_cus, struct batch_cache **out);
void batch_cache__free(struct batch_cache *bc);

/*
 * batch_cache__first() tells whether no run of this input's family (its
 * build: the options, the first CU's name, directory and producer) came
 * to this directory before.  Such a run, a build's first (and every run
 * on a fresh machine: kernel CI, package builders), stores nothing, so
 * that it costs what a run without cache costs, and only notes the
 * family once it succeeded (batch_cache__note()): the batches are stored
 * by the family's next run, a relink, and read back from the one after.
 * Storing costs the CUs' digests, a fifth of an encoding, and the stores
 * alone 3% of it: a run whose build is never linked again would pay that
 * for nothing.
 *
 * batch_cache__defer() tells whether no run of this input's family (its
 * build: the options, the first CU's name, directory and producer) has
 * stored batches here.  Then no batch can be read back, and the CUs'
 * digests, which make the keys, can wait until the batches are encoded:
 * batch_cache__pack() and batch_pack__stage() run then, and
 * batch_pack__seal() when a core is free.  batch_cache__mark() notes the
 * family after a run that stored batches.  batch_cache__trim() keeps the
 * directory within its bound after a run's stores (cache_dir__trim()).
 */
bool batch_cache__first(const struct batch_cache *bc);
void batch_cache__note(const struct batch_cache *bc);
bool batch_cache__defer(const struct batch_cache *bc);
void batch_cache__mark(const struct batch_cache *bc);
void batch_cache__trim(const struct batch_cache *bc);

/* A batch the cache keeps has at most this many CUs (see CU_BATCH_MAX). */
#define BATCH_MAX_CUS	128

/*
 * A probe holds one batch's key and the addresses of its CUs' DIEs; a
 * worker makes it and keeps it to itself.
 */
struct batch_probe {
	size_t nr_cus;
	uint64_t cu_off[BATCH_MAX_CUS];	/* The offsets in .debug_info. */
	/* CU i's addresses are addrs[first_addr[i] .. first_addr[i + 1]). */
	size_t first_addr[BATCH_MAX_CUS + 1];
	struct die_addr *addrs;
	size_t nr_addrs, cap_addrs;
	uint64_t key[2];
	bool ok;			/* Every CU has a digest. */
};

/*
 * batch_probe__make() makes the key of the CUs at @cu_off[0 .. @nr).
 * When probe->ok is false, the batch is not cacheable.  @done, unless
 * NULL, is called with @ctx and i once CU i is digested.
 */
int batch_probe__make(struct batch_probe *probe, const struct batch_cache *bc,
		      struct cu_digester *d, const uint64_t *cu_off, size_t nr,
		      void (*done)(void *ctx, size_t i), void *ctx);
void batch_probe__free(struct batch_probe *probe);

/*
 * batch_cache__load() reads the batch's fragment from its entry.  It
 * returns 0, -ENOENT for a miss, or -ENOMEM.
 */
int batch_cache__load(const struct batch_cache *bc,
		      const struct batch_probe *probe, struct cu_fragment *out);

/*
 * batch_cache__store() keeps @frag (the batch as encoded, with the
 * var_notes of place_notes) for later runs.  It returns 0 or -errno, and
 * no error fails the run.
 */
int batch_cache__store(const struct batch_cache *bc,
		       const struct batch_probe *probe,
		       const struct cu_fragment *frag);

/*
 * A pack is the store in steps, for a batch whose key is made after it
 * was encoded (batch_cache__defer()).  The entry is packed from @frag,
 * which may then go, and staged out of memory.  Later it is sealed with
 * the probe of the CUs at @cu_off, which checks the addresses a hit would
 * read, sets the key and writes the entry under it.  The functions return
 * 0 or -errno, and no error fails the run.
 */
struct batch_pack {
	void *buf;		/* The entry as in the file, key not set. */
	char *staged;		/* Or it is here (cache_dir__stage()). */
	uint64_t sum;		/* A staged entry must read back as this. */
	size_t len;
	uint64_t *func_addr;	/* Each function's address when encoded. */
	uint64_t cu_off[BATCH_MAX_CUS];
	size_t nr_cus;
};

int batch_cache__pack(const struct batch_cache *bc, const uint64_t *cu_off,
		      size_t nr_cus, const struct cu_fragment *frag,
		      struct batch_pack *out);
int batch_pack__stage(struct batch_pack *pack, const struct batch_cache *bc);
int batch_pack__seal(struct batch_pack *pack, const struct batch_cache *bc,
		     const struct batch_probe *probe);
void batch_pack__free(struct batch_pack *pack);

/*
 * batch_cache__read() is for fuzzing: it reads @map (@len bytes, 8-aligned)
 * as the entry of @probe in a run over @env, with or without its checksum
 * checked.  It returns 0, -ENOENT or -ENOMEM.
 */
int batch_cache__read(const struct encode_env *env,
		      const struct batch_probe *probe, const void *map,
		      size_t len, bool check_sum, struct cu_fragment *out);

#endif
