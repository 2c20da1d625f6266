# daemon/daemon.mk - vringnetd
#
# vringnetd is every daemon/*.c; new files join by existing.  (vringnetctl,
# which shares ctlproto.c and the configuration parser, is built by ctl/ctl.mk.)
DAEMON_PKGS   := libnl-3.0 libnl-route-3.0 libcap-ng libsystemd libseccomp
# computed when a recipe first needs them (pkg_lazy in the top Makefile)
DAEMON_CFLAGS = $(call pkg_lazy,DAEMON_CFLAGS,cflags,$(DAEMON_PKGS))
DAEMON_LIBS   = $(call pkg_lazy,DAEMON_LIBS,libs,$(DAEMON_PKGS))

VRINGNETD_SRCS   := $(wildcard daemon/*.c)
# The configuration parser: config.c (lines, sections, the file), config_value.c
# (values) and one file per section type; vringnetctl and fuzz_config link it.
DAEMON_CONFIG_SRCS := daemon/config.c daemon/config_value.c daemon/config_daemon.c \
		      daemon/config_tap.c daemon/config_port.c
VRINGNETD_OBJS   := $(VRINGNETD_SRCS:%.c=$(B)/%.o)
# Everything but main(): what unit tests and fuzzers link against.
DAEMON_LIB_OBJS  := $(filter-out $(B)/daemon/main.o,$(VRINGNETD_OBJS))

$(B)/daemon/%.o: DIR_CPPFLAGS += $(DAEMON_CFLAGS) -Idaemon

ifneq ($(wildcard daemon/main.c),)
ALL_TARGETS += $(B)/vringnetd
$(B)/vringnetd: $(VRINGNETD_OBJS) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)
endif

# The test build: the same daemon compiled with -DVRINGNETD_TEST, which adds
# hidden triggers for tests (sandbox.c: a forbidden system call on demand).
# Never installed.
VRINGNETD_TEST_OBJS := $(VRINGNETD_SRCS:%.c=$(B)/test/%.o)
CHECK_DEPS += $(B)/test/vringnetd
$(B)/test/daemon/%.o: daemon/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CPPFLAGS) $(DAEMON_CFLAGS) -Idaemon -DVRINGNETD_TEST $(ALL_CFLAGS) -MMD -MP -c -o $@ $<
$(B)/test/vringnetd: $(VRINGNETD_TEST_OBJS) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)


# ---- install / uninstall (PREFIX, DESTDIR; see the top Makefile) ----------
# Binaries to SBINDIR/BINDIR, libvringfd and its headers, systemd units to
# UNITDIR (@SBINDIR@, @BINDIR@ replaced), the modules-load.d file, man pages, bash
# completions, the docs (README, NEWS, COPYING*, examples) to DOCDIR, the
# example configuration as $(SYSCONFDIR)/vringnetd/vringnetd.conf.example,
# and a default vringnetd.conf (no taps, valid: the service starts) only when
# there is none -- an existing vringnetd.conf is never touched, and uninstall
# removes it only while it is still the default.
SYSTEMD_MODULESLOADDIR := $(shell pkg-config --variable=modulesloaddir systemd 2>/dev/null)
MODULESLOADDIR ?= $(if $(SYSTEMD_MODULESLOADDIR),$(SYSTEMD_MODULESLOADDIR),/usr/lib/modules-load.d)
INSTALL        ?= install
INSTALL_RULES   += install-daemon
UNINSTALL_RULES += uninstall-daemon
DAEMON_MANPAGES := $(wildcard man/*.[1-8])
DAEMON_DOCS     := $(wildcard README.md NEWS COPYING COPYING.LGPL LICENSES/Linux-syscall-note examples/qemu-guests.md examples/vringnetd.conf)
DAEMON_COMPLETIONS := $(wildcard completions/vringnetd completions/vringnetctl)
CONF_DEFAULT    := systemd/vringnetd.conf.default
CONF_DIR         = $(DESTDIR)$(SYSCONFDIR)/vringnetd

.PHONY: install-daemon uninstall-daemon
install-daemon: $(ALL_TARGETS)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(UNITDIR) $(DESTDIR)$(MODULESLOADDIR) \
		$(CONF_DIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 0755 $(B)/vringnetd $(DESTDIR)$(SBINDIR)/vringnetd
	if [ -e $(B)/vringnetctl ]; then $(INSTALL) -m 0755 $(B)/vringnetctl $(DESTDIR)$(BINDIR)/vringnetctl; fi
	$(INSTALL) -m 0644 $(LIBVRINGFD_A) $(DESTDIR)$(LIBDIR)/libvringfd.a
	$(INSTALL) -m 0755 $(LIBVRINGFD_SO) $(DESTDIR)$(LIBDIR)/libvringfd.so.1
	ln -sf libvringfd.so.1 $(DESTDIR)$(LIBDIR)/libvringfd.so
	$(INSTALL) -m 0644 include/vringfd.h $(DESTDIR)$(INCLUDEDIR)/vringfd.h
	$(INSTALL) -m 0644 include/uapi/linux/vringfd.h $(DESTDIR)$(INCLUDEDIR)/linux/vringfd.h
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' systemd/vringnetd.service > $(DESTDIR)$(UNITDIR)/vringnetd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/vringnetd.service
	$(INSTALL) -m 0644 systemd/vringnetd.socket $(DESTDIR)$(UNITDIR)/vringnetd.socket
	sed -e 's|@BINDIR@|$(BINDIR)|g' 'systemd/vringnetd-exporter@.service' > '$(DESTDIR)$(UNITDIR)/vringnetd-exporter@.service'
	chmod 0644 '$(DESTDIR)$(UNITDIR)/vringnetd-exporter@.service'
	$(INSTALL) -m 0644 systemd/vringnetd-exporter.socket $(DESTDIR)$(UNITDIR)/vringnetd-exporter.socket
	$(INSTALL) -m 0644 systemd/vringfd.conf $(DESTDIR)$(MODULESLOADDIR)/vringfd.conf
	if [ -e examples/vringnetd.conf ]; then $(INSTALL) -m 0644 examples/vringnetd.conf \
		$(CONF_DIR)/vringnetd.conf.example; fi
	if [ ! -e $(CONF_DIR)/vringnetd.conf ]; then \
		$(INSTALL) -m 0644 $(CONF_DEFAULT) $(CONF_DIR)/vringnetd.conf; \
	else echo "install: $(CONF_DIR)/vringnetd.conf exists, left as it is"; fi
	for m in $(DAEMON_MANPAGES); do s=$${m##*.}; \
		$(INSTALL) -d $(DESTDIR)$(MANDIR)/man$$s && \
		$(INSTALL) -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/ || exit 1; done
	for f in $(DAEMON_DOCS); do $(INSTALL) -m 0644 $$f $(DESTDIR)$(DOCDIR)/ || exit 1; done
	for f in $(DAEMON_COMPLETIONS); do $(INSTALL) -m 0644 $$f $(DESTDIR)$(BASHCOMPDIR)/ || exit 1; done

uninstall-daemon:
	rm -f $(DESTDIR)$(SBINDIR)/vringnetd $(DESTDIR)$(BINDIR)/vringnetctl \
		$(DESTDIR)$(LIBDIR)/libvringfd.a $(DESTDIR)$(LIBDIR)/libvringfd.so.1 \
		$(DESTDIR)$(LIBDIR)/libvringfd.so $(DESTDIR)$(INCLUDEDIR)/vringfd.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/vringfd.h \
		$(DESTDIR)$(UNITDIR)/vringnetd.service $(DESTDIR)$(UNITDIR)/vringnetd.socket \
		'$(DESTDIR)$(UNITDIR)/vringnetd-exporter@.service' \
		$(DESTDIR)$(UNITDIR)/vringnetd-exporter.socket \
		$(DESTDIR)$(MODULESLOADDIR)/vringfd.conf \
		$(CONF_DIR)/vringnetd.conf.example
	if cmp -s $(CONF_DEFAULT) $(CONF_DIR)/vringnetd.conf; then rm -f $(CONF_DIR)/vringnetd.conf; fi
	for m in $(DAEMON_MANPAGES); do s=$${m##*.}; \
		rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done
	for f in $(DAEMON_DOCS); do rm -f $(DESTDIR)$(DOCDIR)/$${f##*/}; done
	for f in $(DAEMON_COMPLETIONS); do rm -f $(DESTDIR)$(BASHCOMPDIR)/$${f##*/}; done
	-rmdir $(CONF_DIR) $(DESTDIR)$(DOCDIR) 2>/dev/null

# ---- make demo: the daemon's main job in a private network namespace ------
# (user engine, a QEMU guest), then the kernel path in the VM rig
# (vringfd.ko, engine = kernel); make demo-kernel runs only the second part.
.PHONY: demo-kernel
demo:
	scripts/demo
	scripts/demo-kernel
demo-kernel:
	scripts/demo-kernel
