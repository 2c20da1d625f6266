# daemon/daemon.mk - vringnetd and vringnetctl
#
# vringnetd is every daemon/*.c but vringnetctl.c; vringnetctl is
# vringnetctl.c plus the control protocol codec.  New files join by existing.
DAEMON_PKGS   := libnl-3.0 libnl-route-3.0 libcap-ng libsystemd
DAEMON_CFLAGS := $(shell pkg-config --cflags $(DAEMON_PKGS) 2>/dev/null)
DAEMON_LIBS   := $(shell pkg-config --libs $(DAEMON_PKGS) 2>/dev/null)

VRINGNETD_SRCS   := $(filter-out daemon/vringnetctl.c,$(wildcard daemon/*.c))
VRINGNETD_OBJS   := $(VRINGNETD_SRCS:%.c=$(B)/%.o)
# Everything but main(): what unit tests and fuzzers link against.
DAEMON_LIB_OBJS  := $(filter-out $(B)/daemon/main.o,$(VRINGNETD_OBJS))
VRINGNETCTL_SRCS := $(wildcard daemon/vringnetctl.c daemon/ctlproto.c)

$(B)/daemon/%.o: CPPFLAGS += $(DAEMON_CFLAGS) -Idaemon

ifneq ($(wildcard daemon/main.c),)
ALL_TARGETS += $(B)/vringnetd
$(B)/vringnetd: $(VRINGNETD_OBJS) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(DAEMON_LIBS)
endif

ifneq ($(wildcard daemon/vringnetctl.c),)
ALL_TARGETS += $(B)/vringnetctl
$(B)/vringnetctl: $(VRINGNETCTL_SRCS:%.c=$(B)/%.o)
	$(CC) $(ALL_CFLAGS) -o $@ $^
endif
