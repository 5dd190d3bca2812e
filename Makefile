# SPDX-License-Identifier: GPL-2.0-only
#
# dwarf2btf build.  `make` builds build/dwarf2btf and needs only the build
# dependencies (it installs nothing); `make test-deps` installs, on Debian,
# what building and testing need; `make check` (which calls test-deps)
# runs the self-contained tests; `make check-kernel` compares against real
# Debian kernels (downloads them into a cache once).

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
BUILD      ?= build
CC         ?= cc
PKG_CONFIG ?= pkg-config
SANITIZE   ?=

PKGS       := libbpf libdw libelf zlib
CFLAGS     ?= -O2 -g
CFLAGS     += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -pthread \
	      -Isrc -DDWARF2BTF_VERSION='"$(VERSION)"'
LDLIBS     += -pthread

ifneq ($(SANITIZE),)
CFLAGS     += -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
LDFLAGS    += -fsanitize=address,undefined
BUILD      := $(BUILD)-san
endif

DEPS_STAMP := $(BUILD)/.build-deps-ok
# src/ follows the pipeline: input/ -> cu/ -> merge/ -> decide/ -> output/,
# run from src/*.c; cache/ is what runs keep for later ones, diff/ the diff
# subcommand, layout/ the layout subcommand's check, lib/ what all share.
SRCS       := $(sort $(wildcard src/*.c src/*/*.c))
OBJS       := $(patsubst src/%.c,$(BUILD)/%.o,$(SRCS))
BIN        := $(BUILD)/dwarf2btf

all: $(BIN)

# The libraries must be there: a missing one is named, nothing installed.
# For check and demo, test-deps (which installs them) comes first.
$(DEPS_STAMP): | $(if $(filter check demo fuzz,$(MAKECMDGOALS)),test-deps)
	@PKG_CONFIG=$(PKG_CONFIG) ./scripts/lib/check-build-deps.sh $(PKGS)
	@mkdir -p $(BUILD)
	@touch $@

# On Debian: install what building and testing need (when missing).
test-deps:
	@./scripts/install-deps.sh

$(BUILD)/%.o: src/%.c | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS)) -MMD -MP -c -o $@ $<

$(BIN): $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs $(PKGS)) $(LDLIBS)

# The bundled sample: build it, encode its BTF, show it.
demo: test-deps $(BIN)
	$(CC) -g -O2 -o $(BUILD)/demo examples/demo.c
	$(BIN) --stats -o $(BUILD)/demo.btf $(BUILD)/demo
	bpftool btf dump file $(BUILD)/demo.btf

check: test-deps $(BIN)
	python3 tests/run.py --bin $(BIN)

check-kernel: $(BIN)
	./scripts/check-kernel.sh $(BIN)

bench: $(BIN)
	./bench/all.sh $(BIN)

# PAHOLE_LINK=1 also installs a "pahole" symlink, for kernel builds that
# call pahole by that name.
# libFuzzer targets (clang, ASan+UBSan), each run FUZZ_TIME seconds.
FUZZ_BUILD  := build-fuzz
FUZZ_TIME   ?= 60
FUZZ_SRCS   := $(filter-out src/main.c,$(SRCS))
FUZZ_FLAGS  := -g -O1 -std=gnu11 -Isrc -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=undefined -DDWARF2BTF_VERSION='"$(VERSION)"'

$(FUZZ_BUILD)/%: fuzz/%.c $(FUZZ_SRCS) | $(DEPS_STAMP)
	@mkdir -p $(FUZZ_BUILD)
	clang $(FUZZ_FLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS)) -o $@ $< \
		$(FUZZ_SRCS) $(shell $(PKG_CONFIG) --libs $(PKGS)) -pthread

FUZZ_TARGETS := encode btf cache digest relink layout

fuzz: $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus-$$t && \
		(cd $(FUZZ_BUILD) && ./fuzz_$$t -max_total_time=$(FUZZ_TIME) \
			-timeout=5 -rss_limit_mb=4096 -print_final_stats=1 \
			corpus-$$t ../fuzz/corpus/$$t) || exit 1; \
	done

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/dwarf2btf
	install -D -m 0644 man/dwarf2btf.1 $(DESTDIR)$(MANDIR)/man1/dwarf2btf.1
	if [ "$(PAHOLE_LINK)" = 1 ]; then ln -sf dwarf2btf $(DESTDIR)$(BINDIR)/pahole; fi

# What install put there, and our pahole link only if it is ours.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/dwarf2btf $(DESTDIR)$(MANDIR)/man1/dwarf2btf.1
	if [ "$$(readlink $(DESTDIR)$(BINDIR)/pahole 2>/dev/null)" = dwarf2btf ]; then \
		rm -f $(DESTDIR)$(BINDIR)/pahole; fi
	-rmdir -p --ignore-fail-on-non-empty $(DESTDIR)$(BINDIR) \
		$(DESTDIR)$(MANDIR)/man1 2>/dev/null

clean:
	rm -rf build build-san build-fuzz

.PHONY: all demo fuzz check check-kernel bench install uninstall test-deps clean

-include $(OBJS:.o=.d)
