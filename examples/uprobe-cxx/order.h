/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What order.bpf.c reads of an order and keeps in its map, as loader.c
 * reads it back: the one layout both sides compile.
 */
#ifndef ORDER_H
#define ORDER_H

struct seen {
	long serial;
	int id;
	int sku;
	int quantity;
	unsigned long long total_bits;	/* the double's bits */
	char customer[40];
};

#endif
