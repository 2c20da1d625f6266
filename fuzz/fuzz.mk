# fuzz/fuzz.mk - libFuzzer targets, built with clang, ASan and UBSan
#
# fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput(); the sources it needs
# besides itself are listed in FUZZ_DEPS_NAME below (one line per target).
# tests/suites/40-fuzz runs each for a bounded time; seeds in fuzz/corpus/NAME/.
FUZZ_CC    ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
              -D_GNU_SOURCE -DVRINGNET_FUZZ -Iinclude -Iinclude/uapi -Idaemon
FUZZ_NAMES := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS  := $(FUZZ_NAMES:%=$(B)/fuzz/fuzz_%)
CHECK_DEPS += $(FUZZ_BINS)
.PHONY: fuzz
fuzz: $(FUZZ_BINS)

# FUZZ_DEPS_<name> := sources linked into fuzz_<name>
FUZZ_DEPS_config   := $(DAEMON_CONFIG_SRCS) daemon/reload.c
FUZZ_DEPS_ctlproto := daemon/ctlproto.c
FUZZ_DEPS_handover_state := daemon/handover_state.c
FUZZ_DEPS_vhost_user := daemon/vhost_user.c daemon/vhost_user_msg.c daemon/evfd.c daemon/guard.c \
                        daemon/dirty_log.c daemon/log.c daemon/handover_state.c
FUZZ_DEPS_frame_stream := daemon/frame_stream.c
FUZZ_DEPS_ring_device := lib/ring_device.c
FUZZ_DEPS_ring_driver := lib/ring_driver.c
FUZZ_DEPS_ringfd_proto := daemon/ringfd_proto.c daemon/log.c lib/vringfd.c

.SECONDEXPANSION:
$(B)/fuzz/fuzz_%: fuzz/fuzz_%.c $$(FUZZ_DEPS_$$*)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(DAEMON_CFLAGS) -o $@ $^ $(DAEMON_LIBS)
