// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bundled sample input for `make demo`: a little program with the
 * kinds of types and functions BTF describes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum shape_kind { SHAPE_CIRCLE, SHAPE_RECT, SHAPE_LAST = 0x7fffffff };

struct point {
	int x, y;
};

struct shape {
	enum shape_kind kind;
	unsigned int visible:1, filled:1, layer:6;
	struct point origin;
	union {
		struct { unsigned int r; } circle;
		struct { unsigned int w, h; } rect;
	};
	const char *name;
	struct shape *next;
};

typedef double (*area_fn)(const struct shape *s);

__attribute__((noinline)) double shape_area(const struct shape *s)
{
	switch (s->kind) {
	case SHAPE_CIRCLE:
		return 3.14159 * s->circle.r * s->circle.r;
	case SHAPE_RECT:
		return (double)s->rect.w * s->rect.h;
	default:
		return 0;
	}
}

__attribute__((noinline)) int shape_log(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vfprintf(stderr, fmt, ap);
	va_end(ap);
	return n;
}

area_fn area = shape_area;

int main(int argc, char **argv)
{
	struct shape s = {
		.kind = argc > 1 ? SHAPE_RECT : SHAPE_CIRCLE,
		.circle = { .r = (unsigned int)argc },
		.name = argv[0],
	};

	shape_log("%s: %.2f\n", s.name, area(&s));
	return EXIT_SUCCESS;
}
