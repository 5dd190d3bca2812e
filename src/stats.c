// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stats are the wall-clock time of each phase and the counts of one
 * run, printed by --stats.  A phase's time runs from the previous mark to
 * stats__phase_end(), so the phases must end in the order they run.
 */
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "stats.h"

/* These names are printed by --stats, one line for each phase. */
static const char *const phase_names[PHASE__MAX] = {
	[PHASE_ELF] = "elf+symbols",
	[PHASE_ENCODE] = "encode+merge",
	[PHASE_FUNCS] = "functions",
	[PHASE_DEDUP] = "dedup",
	[PHASE_BASE] = "base match",
	[PHASE_WRITE] = "write",
	[PHASE_STORES] = "cache stores",
};

/* clock_seconds() reads clock @id in seconds, or returns 0 on failure. */
static double clock_seconds(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double stats__now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double stats__thread_cpu(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

void stats__start(struct stats *st)
{
	memset(st, 0, sizeof(*st));
	st->start = st->mark = stats__now();
}

void stats__phase_end(struct stats *st, enum stats_phase phase)
{
	double now = stats__now();

	st->phase[phase] += now - st->mark;
	st->mark = now;
}

/*
 * stats__print_verdicts() prints how many function names were encoded,
 * and why the others were not.
 */
static void stats__print_verdicts(const struct stats *st, FILE *f)
{
	const char *sep;
	size_t left = 0;
	int v;

	for (v = FUNC_SKIP_BAD_REG; v < FUNC_VERDICT__MAX; v++)
		left += st->func_verdicts[v];
	fprintf(f, "stats: function names %zu encoded", st->func_verdicts[FUNC_ENCODED] +
		st->func_verdicts[FUNC_ENCODED_CLONE]);
	if (st->func_verdicts[FUNC_ENCODED_CLONE])
		fprintf(f, " (%zu as clones)", st->func_verdicts[FUNC_ENCODED_CLONE]);
	fprintf(f, ", %zu left out", left);
	sep = ":";
	for (v = FUNC_SKIP_BAD_REG; v < FUNC_VERDICT__MAX; v++) {
		if (!st->func_verdicts[v])
			continue;
		fprintf(f, "%s %zu %s", sep, st->func_verdicts[v],
			func_verdict__name(v));
		sep = ",";
	}
	fputc('\n', f);
}

/*
 * stats__print() prints the stats to @f.  The wall time runs until now,
 * and the CPU times and the peak RSS are those of the whole process
 * (getrusage()), not of this run alone.
 */
void stats__print(const struct stats *st, FILE *f)
{
	struct rusage ru;
	int i;

	getrusage(RUSAGE_SELF, &ru);
	for (i = 0; i < PHASE__MAX; i++)
		fprintf(f, "stats: phase %-13s %8.3f s\n", phase_names[i],
			st->phase[i]);
	fprintf(f, "stats: of encode+merge, in-order merging (one thread) %.3f s\n",
		st->merge_serial);
	fprintf(f, "stats: total wall         %8.3f s\n",
		stats__now() - st->start);
	fprintf(f, "stats: cpu user/sys       %8.3f / %.3f s\n",
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	fprintf(f, "stats: peak rss           %8.1f MB\n", ru.ru_maxrss / 1024.0);
	fprintf(f, "stats: jobs %d, CUs %zu, libdw epochs %zu (%zu on a unit view)\n",
		st->jobs, st->nr_cus, st->nr_epochs, st->nr_epoch_views);
	if (st->nr_batches)
		fprintf(f, "stats: batches %zu, of %zu CUs at most\n",
			st->nr_batches, st->batch_cus);
	fprintf(f, "stats: CUs read in place %zu\n", st->nr_cus_in_place);
	fprintf(f, "stats: types %zu before dedup, %zu after\n",
		st->nr_types_in, st->nr_types);
	fprintf(f, "stats: merged types deduplicated %zu times while merging\n",
		st->nr_merge_dedups);
	fprintf(f, "stats: functions %zu encoded of %zu candidates\n",
		st->nr_funcs, st->nr_func_cands);
	stats__print_verdicts(st, f);
	fprintf(f, "stats: variables %zu\n", st->nr_vars);
	fprintf(f, "stats: output %zu bytes\n", st->out_bytes);
	if (st->base_cached)
		fprintf(f, "stats: base index read from the cache\n");
	if (st->batch_cache)
		fprintf(f, "stats: batch cache: %zu of %zu batches read back, %zu stored, %zu without a key\n",
			st->batches_reused, st->nr_batches, st->batches_stored,
			st->batches_no_key);
	if (st->batch_cache_first)
		fprintf(f, "stats: batch cache: the build's first run here, noted; nothing stored\n");
	if (st->batch_cache)
		fprintf(f, "stats: batch cache CPU (all workers): digests %.3f s, reading back %.3f s, stores %.3f s\n",
			st->cache_cpu.digest, st->cache_cpu.load,
			st->cache_cpu.store);
	if (st->type_keys) {
		const struct type_key_tally *k = &st->keys;

		fprintf(f, "stats: type keys: %zu types, %zu without a key; %zu distinct keys; %.1f%% of the keyed types repeat one met before\n",
			k->types, k->unkeyed, k->distinct,
			k->types > k->unkeyed ?
			100.0 * (k->types - k->unkeyed - k->distinct) /
			(k->types - k->unkeyed) : 0.0);
		fprintf(f, "stats: type keys: %zu members of keyed structs and unions, %zu distinct; %.1f%% repeat\n",
			k->members, k->distinct_members, k->members ?
			100.0 * (k->members - k->distinct_members) / k->members : 0.0);
		fprintf(f, "stats: type keys: %zu struct and union names defined, %zu of them more than one way\n",
			k->names, k->names_twice);
	}
	if (st->nr_reruns)
		fprintf(f, "stats: runs again %zu (batches resolved declarations of names defined twice)%s\n",
			st->nr_reruns, st->rerun_outgrown ?
			"; the last as one dedup of everything, the batches of the one before having outgrown the first run's" :
			"");
}

/*
 * stats__add() adds one file's stats to a file set's sum.  The batch
 * counts (nr_batches, batches_*) are not added.
 */
void stats__add(struct stats *sum, const struct stats *st)
{
	int i;

	for (i = 0; i < PHASE__MAX; i++)
		sum->phase[i] += st->phase[i];
	sum->merge_serial += st->merge_serial;
	sum->cache_cpu.digest += st->cache_cpu.digest;
	sum->cache_cpu.load += st->cache_cpu.load;
	sum->cache_cpu.store += st->cache_cpu.store;
	sum->nr_cus += st->nr_cus;
	sum->nr_epochs += st->nr_epochs;
	sum->nr_epoch_views += st->nr_epoch_views;
	sum->nr_types_in += st->nr_types_in;
	sum->nr_cus_in_place += st->nr_cus_in_place;
	sum->nr_types += st->nr_types;
	sum->nr_funcs += st->nr_funcs;
	sum->nr_func_cands += st->nr_func_cands;
	sum->nr_vars += st->nr_vars;
	sum->out_bytes += st->out_bytes;
	sum->nr_reruns += st->nr_reruns;
	sum->rerun_outgrown |= st->rerun_outgrown;
	/* Keys recur within a file: a set's figures are its files' sums. */
	sum->type_keys |= st->type_keys;
	sum->keys.types += st->keys.types;
	sum->keys.unkeyed += st->keys.unkeyed;
	sum->keys.distinct += st->keys.distinct;
	sum->keys.members += st->keys.members;
	sum->keys.distinct_members += st->keys.distinct_members;
	sum->keys.names += st->keys.names;
	sum->keys.names_twice += st->keys.names_twice;
	for (i = 0; i < FUNC_VERDICT__MAX; i++)
		sum->func_verdicts[i] += st->func_verdicts[i];
}
