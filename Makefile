# vringnet - top-level Makefile (non-recursive for user space; Kbuild for kmod/)
#
#   make            build the module (against KDIR), libvringfd, vringnetd, vringnetctl
#   make modules-debug  the module for the VM rig's debug kernel (build/kmod-debug/)
#   make check      install missing test packages, then build (a sub-make) and
#                   run every test suite (CHECK_SUITES=PATTERN: only those)
#   make demo       run the daemon's main job in a private network namespace,
#                   then the kernel path (vringfd.ko) in the VM rig
#   make bench      benchmarks in the VM rig (icount: instructions per frame;
#                   BENCH_MODE=wall for frames/s; FULL=1 adds batch 256)
#   make bench-profile  per-function instructions per frame (kprof plugin)
#   make bench-workers  vringnetd's pump threads: workers = 1 against 2 (rig, 2 vCPUs)
#   make install    user space (no kernel headers needed): PREFIX=/usr/local DESTDIR=
#                   LIBDIR= UNITDIR= ...; the module: kmod/dkms-install
#   make asan       libvringfd, the daemon, vringnetctl and the unit tests with
#                   ASan+UBSan in build/asan/ (make tsan: ThreadSanitizer, build/tsan/,
#                   then the pump threads' unit tests and tests/suites/37-workers-host
#                   with that daemon, failing on any ThreadSanitizer report;
#                   any target: make SANITIZE=address|thread TARGET)
#
# Each directory owns a fragment (lib/lib.mk, daemon/daemon.mk, ...) that adds
# its targets to the lists below.

# The kernels to build for (scripts/kvers), never `uname -r` (a build machine
# may run a kernel without module support):
#   KVER   the default one: kmod/*.ko are built for it in place, and the VM
#          rig boots it without --kver.  Debian's linux-headers-amd64 names
#          it (Debian 12: 6.1), even when newer headers are installed.
#   KVERS  every kernel the modules are built for and tested in: the newest
#          installed headers of each supported series (6.1, 6.12); each one
#          but KVER is built in build/kmod/KVER/kmod/ (scripts/vm-run --kver
#          KVER takes the modules from there).
KVER ?= $(shell scripts/kvers --default 2>/dev/null)
KVERS ?= $(shell scripts/kvers 2>/dev/null)
KDIR ?= /lib/modules/$(KVER)/build

# The one version number of the project (daemon, vringnetctl, libvringfd.pc,
# kmod/dkms.conf -- tests/suites/12-install checks they agree).
VERSION := $(shell cat VERSION)

# Install directories.  Every one can be set on the command line; LIBDIR is
# multiarch when dpkg-architecture exists (Debian), UNITDIR and
# MODULESLOADDIR come from systemd.pc when pkg-config knows it.
PREFIX     ?= /usr/local
ifeq ($(origin MULTIARCH),undefined)
MULTIARCH  := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
endif
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
LIBDIR     ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/vringnet
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
SYSCONFDIR ?= /etc
SYSTEMD_UNITDIR := $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
UNITDIR    ?= $(if $(SYSTEMD_UNITDIR),$(SYSTEMD_UNITDIR),$(PREFIX)/lib/systemd/system)
DESTDIR    ?=

# CFLAGS, CPPFLAGS and LDFLAGS belong to the caller (make CFLAGS=...
# LDFLAGS=-Wl,-z,now, or dpkg-buildflags): what the build needs is added
# around them, never replaced by them.
CC      ?= cc
CFLAGS  ?= -O2 -g
LDFLAGS ?=
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-unused-parameter -Wformat=2 -Wundef
# DIR_CPPFLAGS: what a fragment adds for its directory (target-specific +=)
DIR_CPPFLAGS =
ALL_CPPFLAGS = -D_GNU_SOURCE -Iinclude -Iinclude/uapi -DVRINGNET_VERSION='"$(VERSION)"' \
               $(DIR_CPPFLAGS) $(CPPFLAGS)
ALL_CFLAGS = -std=gnu11 $(WARNINGS) -fPIC $(CFLAGS)

# SANITIZE=address (ASan+UBSan) or SANITIZE=thread (TSan): the same build
# with the sanitizer, in a build tree of its own (clang unless CC is set).
SANITIZE ?=
ifeq ($(SANITIZE),)
B := build
SANITIZE_FLAGS :=
else ifeq ($(SANITIZE),address)
B := build/asan
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifeq ($(SANITIZE),thread)
B := build/tsan
SANITIZE_FLAGS := -fsanitize=thread
else
$(error SANITIZE=$(SANITIZE): expected address or thread)
endif
ifneq ($(SANITIZE),)
ifeq ($(origin CC),default)
CC := clang
endif
ALL_CFLAGS += $(SANITIZE_FLAGS)
endif

# pkg_flags KIND,MODULES: `pkg-config --KIND MODULES`, for a recursive
# variable that a recipe expands (never at parse time: `make check` installs
# the -dev packages first, and a parse-time value would be empty on a fresh
# machine).  A module pkg-config does not find stops the build with its name
# and the Debian package that provides it -- never an empty flag set.
# pkg_lazy VAR,KIND,MODULES: VAR computed once, on first use.
PKG_DEB_libnl-3.0       := libnl-3-dev
PKG_DEB_libnl-route-3.0 := libnl-route-3-dev
PKG_DEB_libcap-ng       := libcap-ng-dev
PKG_DEB_libsystemd      := libsystemd-dev
PKG_DEB_libseccomp      := libseccomp-dev
PKG_DEB_check           := check
pkg_missing = $(foreach m,$(1),$(if $(shell pkg-config --exists '$(m)' 2>/dev/null && echo y),,$(m)))
pkg_debs = $(foreach m,$(1),$(or $(PKG_DEB_$(m)),$(m)))
pkg_flags = $(if $(shell command -v pkg-config),,$(error pkg-config is not installed (Debian package pkg-config): run `make deps` (scripts/install-deps)))$\
	$(foreach miss,$(call pkg_missing,$(2)),$(if $(miss),$(error pkg-config finds no $(miss) (Debian package $(call pkg_debs,$(miss))): run `make deps` (scripts/install-deps))))$\
	$(shell pkg-config --$(1) $(2))
pkg_lazy = $(eval $(1) := $(call pkg_flags,$(2),$(3)))$($(1))

# Filled in by the fragments.
ALL_TARGETS   :=
CHECK_DEPS    :=
INSTALL_RULES :=
UNINSTALL_RULES :=

.PHONY: all modules user check demo bench install install-user uninstall clean fuzz deps help FORCE
all: modules user

help:
	@sed -n '3,19p' Makefile

include lib/lib.mk
-include daemon/daemon.mk
-include ctl/ctl.mk
-include tests/tests.mk
-include fuzz/fuzz.mk
-include bench/bench.mk

user: $(ALL_TARGETS)

# The modules for KVER in kmod/, then for each other kernel of KVERS in
# build/kmod/KVER/kmod: Kbuild writes next to the sources, so they are copied
# there (timestamps kept: an unchanged file is not rebuilt) with include/uapi
# beside them, as kmod/Kbuild expects.
KMOD_SRCS = kmod/Kbuild $(wildcard kmod/*.h) $(filter-out %.mod.c,$(wildcard kmod/*.c))
modules:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "no kernel headers at $(KDIR): install linux-headers-amd64 or set KVER/KDIR" >&2; exit 1; fi
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules
	@set -e; for k in $(filter-out $(KVER),$(KVERS)); do \
		d=build/kmod/$$k; \
		[ -d "/lib/modules/$$k/build" ] || { echo "no kernel headers at /lib/modules/$$k/build (KVERS)" >&2; exit 1; }; \
		mkdir -p $$d/kmod $$d/include; \
		cp -p $(KMOD_SRCS) $$d/kmod/; \
		cp -pr include/uapi $$d/include/; \
		echo "modules: building for $$k in $$d/kmod"; \
		$(MAKE) -C /lib/modules/$$k/build M=$(CURDIR)/$$d/kmod modules; \
	done

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find $(B) -name '*.d' -type f 2>/dev/null)

deps:
	scripts/install-deps

# The sanitizer builds (SANITIZE above): what tests/suites/10-unit-lib and
# 11-unit-daemon run under ASan and TSan.
SANITIZED_TARGETS = $(LIBVRINGFD_A) $(B)/vringnetd $(B)/vringnetctl \
	$(B)/tests/unit/check_lib $(B)/tests/unit/check_daemon
.PHONY: asan tsan sanitized
asan:
	$(MAKE) SANITIZE=address sanitized
tsan:
	$(MAKE) SANITIZE=thread sanitized
	CK_RUN_SUITE=worker build/tsan/tests/unit/check_daemon
	WORKERS_DAEMON=build/tsan/vringnetd WORKERS_TSAN=1 tests/run-all 37-workers-host
ifneq ($(SANITIZE),)
sanitized: $(SANITIZED_TARGETS)
else
sanitized:
	@echo "make sanitized: set SANITIZE=address or thread (or: make asan, make tsan)" >&2; exit 1
endif

# The build runs in a sub-make after deps: the sub-make reads the Makefile
# (KVER, pkg-config) with the packages installed.  CHECK_SUITES=PATTERN runs
# only the suites whose name contains PATTERN (tests/run-all PATTERN).
.PHONY: check-build
check: deps
	$(MAKE) check-build
	tests/run-all $(CHECK_SUITES)
check-build: all $(CHECK_DEPS)

# The values generated files depend on: a file rewritten only when one of them
# changes, so "make install PREFIX=/usr" after "make" regenerates the .pc.
INSTALL_VARS := $(VERSION) $(PREFIX) $(LIBDIR) $(INCLUDEDIR)
$(B)/install-vars.stamp: FORCE
	@mkdir -p $(B)
	@echo '$(INSTALL_VARS)' | cmp -s - $@ || echo '$(INSTALL_VARS)' > $@

# The version is compiled into the daemon and vringnetctl.
$(B)/daemon/main.o $(B)/daemon/daemon_control.o $(B)/ctl/vringnetctl.o \
	$(B)/tests/unit/check_daemon_ctlclient.o: VERSION

# make install installs user space only (the module goes through DKMS,
# kmod/dkms-install, or make modules + insmod): no kernel headers needed.
install: install-user
install-user: user $(INSTALL_RULES)
uninstall: $(UNINSTALL_RULES)

clean:
	rm -rf $(B)
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean 2>/dev/null

# The module for the rig's debug kernel (scripts/vm-debug-kernel builds the
# kernel first when it is not cached: about 30 min).  Kbuild writes next to
# the sources, so they are copied (timestamps kept) to build/kmod-debug/kmod,
# with include/uapi beside it as the Kbuild file expects; boot it with
# scripts/vm-run --debug-kernel (which looks there).
.PHONY: modules-debug
modules-debug:
	@dk=$$(scripts/vm-debug-kernel) || exit 1; \
	mkdir -p $(B)/kmod-debug/kmod $(B)/kmod-debug/include && \
	cp -p kmod/Kbuild kmod/*.c kmod/*.h $(B)/kmod-debug/kmod/ && \
	cp -pr include/uapi $(B)/kmod-debug/include/ && \
	echo "modules-debug: building against $$dk/build" && \
	$(MAKE) -C $$dk/build M=$(CURDIR)/$(B)/kmod-debug/kmod modules

# An interactive shell in the VM rig, with the fresh module loaded
# (VM_SHELL_OPTS: more scripts/vm-run options, e.g. --echo --vhost --systemd).
.PHONY: vm-shell
vm-shell: modules
	scripts/vm-run --shell $(VM_SHELL_OPTS) -- bash -l
