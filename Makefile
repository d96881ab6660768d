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
	demo help dkms-install dkms-uninstall deb module-clean install-ocf uninstall-ocf

DKMS_SRC := $(DESTDIR)/usr/src/purlin-$(VERSION)
# What DKMS needs to build the module: Kbuild, the sources, the version.
DKMS_FILES := Makefile Kbuild VERSION LICENSE

all: module tools

module:
	@test -d "$(KDIR)" || { echo "purlin: no kernel build tree at '$(KDIR)' (KVER='$(KVER)'); run 'make deps' or set KDIR" >&2; exit 1; }
	@scripts/compat-probe.sh $(KDIR) drivers/compat-probed.h
	$(MAKE) $(KBUILD_ARGS) modules

# Remove the module's build output only (used by DKMS).
module-clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -f drivers/compat-probed.h

tools:
	$(MAKE) -C tools/purlinctl PURLIN_VERSION=$(VERSION)

install: all
	install -d $(MODDIR)
	install -m 0644 purlin.ko $(MODDIR)/purlin.ko
	@# Staged installs (DESTDIR) leave depmod to the package's scripts.
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -C tools/purlinctl install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) install-ocf DESTDIR=$(DESTDIR)

uninstall:
	rm -f $(MODDIR)/purlin.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -C tools/purlinctl uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) uninstall-ocf DESTDIR=$(DESTDIR)

# Pacemaker's OCF resource agents (Documentation/ha.md): always under
# /usr/lib/ocf, where Pacemaker looks for them, whatever PREFIX is.
OCF_AGENTS := purlin-config purlin-ana
OCF_DIR := $(DESTDIR)/usr/lib/ocf/resource.d/purlin

install-ocf:
	install -d $(OCF_DIR)
	install -m 0755 $(addprefix ha/ocf/,$(OCF_AGENTS)) $(OCF_DIR)/

uninstall-ocf:
	rm -f $(addprefix $(OCF_DIR)/,$(OCF_AGENTS))
	-rmdir $(OCF_DIR) 2>/dev/null

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C tools/purlinctl clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/vm/kmod clean KDIR=$(KDIR)
	rm -rf build

# Install the module source for DKMS and build it for KVER.
dkms-install:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	install -d $(DKMS_SRC)/drivers $(DKMS_SRC)/scripts/compat
	cp $(DKMS_FILES) $(DKMS_SRC)/
	cp $(filter-out drivers/compat-probed.h,$(wildcard drivers/*.c drivers/*.h)) $(DKMS_SRC)/drivers/
	cp scripts/compat-probe.sh $(DKMS_SRC)/scripts/
	cp scripts/compat/*.c $(DKMS_SRC)/scripts/compat/
	sed 's/@VERSION@/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	@if [ -z "$(DESTDIR)" ]; then \
		dkms add -m purlin -v $(VERSION) && \
		dkms build -m purlin -v $(VERSION) -k $(KVER) && \
		dkms install -m purlin -v $(VERSION) -k $(KVER); fi

dkms-uninstall:
	-dkms remove -m purlin -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# Debian packages purlin-dkms and purlinctl, built from a copy of the tree
# (the changelog takes its version from VERSION) into build/deb/.
deb:
	@scripts/make-deb.sh

deps:
	@scripts/deps.sh

unit: tools
	$(MAKE) -C tests/unit check

# Guest tests only (the module and tool must be built): `make vm-check T="a b"`
vm-check:
	tests/vm/run $(T)

# make check [KVER=6.12 | KVER=<installed release>]: the full suite on that
# kernel; by default the installed kernel, plus the interop core on 6.12.
check:
	@CHECK_KVER='$(if $(filter command line,$(origin KVER)),$(KVER))' scripts/check.sh

# make check-debug [T="test ..."]: the guest suite on a debug kernel built
# from Debian's 6.1 source (KASAN, lockdep, kmemleak, UBSAN; cached in
# /var/cache/purlin/debug-kernel/).  The first run builds the kernel (long).
.PHONY: check-debug
check-debug:
	@scripts/check-debug.sh

# make check-poll [T="test ..."]: the whole guest suite (or T) with every
# port the tests create serving its I/O queues polled (param_cq_mode=poll).
.PHONY: check-poll
check-poll: module
	@VM_APPEND="$${VM_APPEND:-} purlin_cq_mode=poll" tests/vm/run $(T)

# make check-ha: the three-guest Pacemaker cluster test (two Purlin nodes,
# one host; failover, failback, switchover under fio).  Not part of `make
# check`.  The first run debootstraps the guests' root (scripts/ha-root.sh,
# cached in /var/cache/purlin/ha-root/).  Documentation/ha.md, testing.md.
.PHONY: check-ha
check-ha: module tools
	@scripts/deps.sh
	@KVER=$(KVER) tests/vm/ha/run $(T)

demo:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory -s all >/dev/null
	@tests/vm/run --demo

# Packages and DKMS on Debian's newest kernel (sid chroot, cached in
# /var/cache/purlin), 6.1 and 6.12: scripts/dkms-check.sh, also run by `make check`.
.PHONY: check-dkms
check-dkms:
	@scripts/deps.sh
	@scripts/dkms-check.sh

# Purlin against nvmet-rdma and the raw transport in one guest boot (Documentation/benchmark.md)
.PHONY: bench
bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory -s all >/dev/null
	@bench/run

# Long randomized wire fuzzing in one guest boot (Documentation/testing.md);
# the module and tool must be built: make fuzz [FUZZ_COUNT=N] [FUZZ_SEED=S]
FUZZ_COUNT ?= 100000
.PHONY: fuzz
fuzz:
	VM_APPEND="$(VM_APPEND) FUZZ_COUNT=$(FUZZ_COUNT)$(if $(FUZZ_SEED), FUZZ_SEED=$(FUZZ_SEED))" \
		tests/vm/run purlin-fuzz-long

help:
	@echo "make            build purlin.ko (KVER=$(KVER)) and purlinctl"
	@echo "make install    install module (updates/), purlinctl (PREFIX, DESTDIR), OCF agents (/usr/lib/ocf)"
	@echo "make dkms-install / dkms-uninstall   module source under DKMS"
	@echo "make deb        Debian packages purlin-dkms and purlinctl (build/deb/)"
	@echo "make deps       install build/test dependencies (Debian packages)"
	@echo "make check      build, unit tests, guest test suite"
	@echo "make check-dkms packages + DKMS on sid's newest kernel (chroot), 6.1, 6.12"
	@echo "make check-debug  guest suite on a KASAN/lockdep/kmemleak/UBSAN 6.1 kernel (T='test ...')"
	@echo "make check-poll guest suite with polled I/O queues on every port (T='test ...')"
	@echo "make check-ha   two-node Pacemaker failover under I/O in three guests (not in check)"
	@echo "make demo       boot a guest, export a RAM namespace, connect, run fio"
	@echo "make bench      nvmet-rdma vs Purlin vs perftest in one guest boot -> bench/results/"
	@echo "make vm-check T='test ...'  run chosen guest tests (V=1 streams console)"
	@echo "make fuzz       long randomized wire fuzzing (FUZZ_COUNT=$(FUZZ_COUNT), FUZZ_SEED=date)"
