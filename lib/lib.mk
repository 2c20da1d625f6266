# lib/lib.mk - libvringfd (static and shared)
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
LIBVRINGFD_A := $(B)/libvringfd.a
LIBVRINGFD_SO := $(B)/libvringfd.so.1
ALL_TARGETS += $(LIBVRINGFD_A) $(LIBVRINGFD_SO)

$(LIBVRINGFD_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIBVRINGFD_SO): $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libvringfd.so.1 -o $@ $^
	ln -sf libvringfd.so.1 $(B)/libvringfd.so

# pkg-config file (installed by install-lib-pc; the library and headers are
# installed by install-daemon)
LIBVRINGFD_VERSION := $(VERSION)
LIBVRINGFD_PC := $(B)/libvringfd.pc
ALL_TARGETS += $(LIBVRINGFD_PC)
INSTALL_RULES += install-lib-pc
UNINSTALL_RULES += uninstall-lib-pc

$(LIBVRINGFD_PC): lib/libvringfd.pc.in $(B)/install-vars.stamp
	@mkdir -p $(dir $@)
	sed -e 's,@PREFIX@,$(PREFIX),' -e 's,@LIBDIR@,$(LIBDIR),' \
	    -e 's,@INCLUDEDIR@,$(INCLUDEDIR),' -e 's,@VERSION@,$(LIBVRINGFD_VERSION),' $< > $@

.PHONY: install-lib-pc uninstall-lib-pc
install-lib-pc: $(LIBVRINGFD_PC)
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0644 $(LIBVRINGFD_PC) $(DESTDIR)$(LIBDIR)/pkgconfig/libvringfd.pc

uninstall-lib-pc:
	rm -f $(DESTDIR)$(LIBDIR)/pkgconfig/libvringfd.pc
