# SPDX-License-Identifier: GPL-2.0
#
# Purlin top-level Makefile: the module (through Kbuild), the purlinctl tool,
# installation, and the test entry points.  `make help` lists the targets.

VERSION := $(shell cat $(CURDIR)/VERSION)

# KVER: the running kernel if it has headers, else the newest installed
# kernel headers (the development machines run a kernel without headers).
KVER ?= $(shell r=$$(uname -r); \
	if [ -d /lib/modules/$$r/build ]; then echo $$r; else \
	ls -d /lib/modules/*/build 2>/dev/null | cut -d/ -f4 | sort -V | tail -n1; fi)
KDIR ?= /lib/modules/$(KVER)/build

PREFIX ?= /usr/local
DESTDIR ?=
MODDIR := $(DESTDIR)/lib/modules/$(KVER)/updates

# The module is always built with W=1; `make check` fails on any warning.
KBUILD_ARGS := -C $(KDIR) M=$(CURDIR) W=1 PURLIN_VERSION=$(VERSION)

.PHONY: all module tools install uninstall clean deps check unit vm-check \
	demo help modules_install

all: module tools

module:
	@test -d "$(KDIR)" || { echo "purlin: no kernel build tree at '$(KDIR)' (KVER='$(KVER)'); run 'make deps' or set KDIR" >&2; exit 1; }
	$(MAKE) $(KBUILD_ARGS) modules

tools:
	$(MAKE) -C tools/purlinctl PURLIN_VERSION=$(VERSION)

install: all
	install -d $(MODDIR)
	install -m 0644 purlin.ko $(MODDIR)/purlin.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); \
	else depmod -b $(DESTDIR) -a $(KVER) 2>/dev/null || true; fi
	$(MAKE) -C tools/purlinctl install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall:
	rm -f $(MODDIR)/purlin.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -C tools/purlinctl uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C tools/purlinctl clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm/kmod clean KDIR=$(KDIR)
	rm -rf build

deps:
	@scripts/deps.sh

unit: tools
	$(MAKE) -C tests/unit check

# Guest tests only (the module and tool must be built): `make vm-check T="a b"`
vm-check:
	tests/vm/run $(T)

check:
	@scripts/check.sh

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory -s all >/dev/null
	@tests/vm/run --demo

help:
	@echo "make            build purlin.ko (KVER=$(KVER)) and purlinctl"
	@echo "make install    install module (updates/) and purlinctl (PREFIX, DESTDIR)"
	@echo "make deps       install build/test dependencies (Debian packages)"
	@echo "make check      build, unit tests, guest test suite"
	@echo "make demo       boot a guest, export a RAM namespace, connect, run fio"
	@echo "make vm-check T='test ...'  run chosen guest tests (V=1 streams console)"
