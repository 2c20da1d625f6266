# tests/tests.mk - test programs (run by tests/run-all through tests/suites/)
#
#   tests/unit/check_lib_*.c     -> build/tests/unit/check_lib    (Check, libvringfd)
#   tests/unit/check_daemon_*.c  -> build/tests/unit/check_daemon (Check, daemon code)
#   tests/vm/*.c                 -> build/tests/vm/NAME  (one program each, run in the VM)
#   tests/host/*.c               -> build/tests/host/NAME (helpers for host tests)
#   tests/lib/result.c           -> linked into all of them (PASS/FAIL/SKIP lines)
#   tests/lib/peer_server.c      -> linked into the host helpers (a peer that listens)
#   tests/lib/ringfd_msg.c       -> linked into the host helpers (SETUP by hand)
CHECK_CFLAGS = $(call pkg_lazy,CHECK_CFLAGS,cflags,check)
CHECK_LIBS   = $(call pkg_lazy,CHECK_LIBS,libs,check)

UNIT_LIB_SRCS    := $(wildcard tests/unit/check_lib*.c)
UNIT_DAEMON_SRCS := $(wildcard tests/unit/check_daemon*.c)
TEST_RESULT_OBJ  := $(B)/tests/lib/result.o
TEST_SERVER_OBJ  := $(B)/tests/lib/peer_server.o
TEST_RINGFD_OBJ  := $(B)/tests/lib/ringfd_msg.o
TEST_COMMON_SRCS := $(wildcard tests/unit/runner.c)
VM_TEST_SRCS     := $(wildcard tests/vm/*.c)
HOST_TEST_SRCS   := $(wildcard tests/host/*.c)

$(B)/tests/%.o: DIR_CPPFLAGS += $(CHECK_CFLAGS) -Itests -Idaemon $(DAEMON_CFLAGS)

ifneq ($(UNIT_LIB_SRCS),)
CHECK_DEPS += $(B)/tests/unit/check_lib
$(B)/tests/unit/check_lib: $(UNIT_LIB_SRCS:%.c=$(B)/%.o) $(TEST_COMMON_SRCS:%.c=$(B)/%.o) $(TEST_RESULT_OBJ) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS)
endif

ifneq ($(UNIT_DAEMON_SRCS),)
CHECK_DEPS += $(B)/tests/unit/check_daemon
$(B)/tests/unit/check_daemon: $(UNIT_DAEMON_SRCS:%.c=$(B)/%.o) $(TEST_COMMON_SRCS:%.c=$(B)/%.o) $(TEST_RESULT_OBJ) $(DAEMON_LIB_OBJS) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(DAEMON_LIBS)
endif

VM_TESTS := $(VM_TEST_SRCS:tests/vm/%.c=$(B)/tests/vm/%)
CHECK_DEPS += $(VM_TESTS)
$(B)/tests/vm/%: $(B)/tests/vm/%.o $(TEST_RESULT_OBJ) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

HOST_TESTS := $(HOST_TEST_SRCS:tests/host/%.c=$(B)/tests/host/%)
CHECK_DEPS += $(HOST_TESTS)
$(B)/tests/host/%: $(B)/tests/host/%.o $(TEST_RESULT_OBJ) $(TEST_SERVER_OBJ) $(TEST_RINGFD_OBJ) $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

# examples/ringfd-client (bench/bench.mk's rule; run by tests/suites/31-ringfd-host)
CHECK_DEPS += $(B)/examples/ringfd-client
