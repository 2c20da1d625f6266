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
	$(CC) -shared -Wl,-soname,libvringfd.so.1 -o $@ $^
	ln -sf libvringfd.so.1 $(B)/libvringfd.so
