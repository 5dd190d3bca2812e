// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/input/symtab.c's sort of symbols: the order of elf_sym__cmp() (name,
 * then address), stable for symbols equal in both, over names that share
 * long prefixes (past the 8-byte levels and the levels' bound), names of
 * 8 and 16 bytes, empty names' neighbours, bytes above 0x7f, and runs
 * large and small.  Prints "ok" and exits 0, else names the failed check
 * and exits 1.
 */
#include "input/symtab.c"
#include "check.h"

#define N	20000

static char names[N][160];

static int want_cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	int c = elf_sym__cmp(x, y);

	/* equal: the input order (st_size holds it) */
	return c ? c : (x->size > y->size) - (x->size < y->size);
}

int main(void)
{
	static const char *const stems[] = {
		"__pfx_", "__x64_sys_", "trace_event_raw_event_", "a", "",
		"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789ab",
		"\\xc3\\xa9t\\xc3\\xa9", "abcdefgh",
	};
	static struct elf_sym got[N], want[N];
	const char *name = "sort";
	unsigned int seed = 1;
	size_t i;

	for (i = 0; i < N; i++) {
		const char *stem = stems[rand_r(&seed) % 8];
		int len = rand_r(&seed) % 12;

		snprintf(names[i], sizeof(names[i]), "%s%.*s", stem, len,
			 "zzyxwvutsrqp" + rand_r(&seed) % 3);
		if (i % 7 == 0 && i)	/* the same name again */
			strcpy(names[i], names[i - 1]);
		got[i] = (struct elf_sym){
			.name = names[i],
			.addr = rand_r(&seed) % 4,	/* often equal too */
			.size = i,
		};
	}
	memcpy(want, got, sizeof(got));
	qsort(want, N, sizeof(*want), want_cmp);
	CHECK(!elf_syms__sort(got, N));
	for (i = 0; i < N; i++)
		CHECK(got[i].name == want[i].name && got[i].addr == want[i].addr &&
		      got[i].size == want[i].size);
	/* small: a run under the radix sort's */
	CHECK(!elf_syms__sort(got, 1) && !elf_syms__sort(got, 0));
	got[0] = (struct elf_sym){ .name = "b", .addr = 1 };
	got[1] = (struct elf_sym){ .name = "a", .addr = 2 };
	got[2] = (struct elf_sym){ .name = "a", .addr = 1 };
	CHECK(!elf_syms__sort(got, 3));
	CHECK(!strcmp(got[0].name, "a") && got[0].addr == 1 &&
	      !strcmp(got[1].name, "a") && got[1].addr == 2 &&
	      !strcmp(got[2].name, "b"));
	printf("ok\n");
	return 0;
}
