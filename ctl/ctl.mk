# ctl/ctl.mk - vringnetctl, the administration client
#
# vringnetctl is ctl/vringnetctl.c plus the daemon's control protocol codec
# (daemon/ctlproto.c) and configuration parser (DAEMON_CONFIG_SRCS of
# daemon/daemon.mk: --config finds the control socket with the daemon's own
# parser).
VRINGNETCTL_SRCS := ctl/vringnetctl.c daemon/ctlproto.c $(DAEMON_CONFIG_SRCS)

$(B)/ctl/%.o: DIR_CPPFLAGS += -Idaemon

ALL_TARGETS += $(B)/vringnetctl
$(B)/vringnetctl: $(VRINGNETCTL_SRCS:%.c=$(B)/%.o)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^
