// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small C++ service: it processes the same order every 100 ms, which
 * order.bpf.c reads from outside through a uprobe on shop::process().
 * Built with -DSERVICE_V2, its classes have fields the BPF program was
 * not compiled with, ahead of the ones it reads: CO-RE finds them at
 * their new offsets in this build's BTF.
 */
#include <string>
#include <unistd.h>

namespace shop {
struct Record {
	virtual ~Record() = default;
#ifdef SERVICE_V2
	int schema;
#endif
	long serial;
};

struct Item {
#ifdef SERVICE_V2
	char region[5];
#endif
	int sku;
	short quantity;
};

class Order : public Record {
public:
	Order(long serial, int id, double total, const char *customer)
		: id(id), total(total), customer(customer)
	{
		this->serial = serial;
	}
#ifdef SERVICE_V2
	long version = 2;
#endif
	int id;
	Item item;
	double total;
	std::string customer;
};

/* Not inlined, so that the uprobe has a function to attach to. */
__attribute__((noinline)) void process(const Order &o)
{
	asm volatile("" : : "r"(&o) : "memory");
}
} // namespace shop

int main()
{
	shop::Order o(900001, 4242, 99.5, "Ada Lovelace, Analytical Engines");

	o.item.sku = 77;
	o.item.quantity = 3;
	for (;;) {
		shop::process(o);
		usleep(100000);
	}
}
