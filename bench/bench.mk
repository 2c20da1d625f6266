# bench/bench.mk - the tap benchmark and the ring forwarder example
#
#   make bench          boot the VM rig once and print the tap table (bench/run),
#                       then once more for the daemon table (bench/daemon_run:
#                       a vhost-user front-end through vringnetd, user engine
#                       against kernel engine)
#   make bench FULL=1   also batch size 256 in the tap table
#   make bench BENCH_MODE=wall
#                       frames/s (wall clock, 2 vCPUs) instead of the default
#                       icount mode (instructions per frame, one vCPU, QEMU
#                       -icount: the same figures from run to run)
#   make bench-profile  per-function instructions per frame of the hot paths
#                       (bench/profile, the kprof QEMU plugin from KPROF_DIR;
#                       SKIP when absent)
#   make bench-workers  two vhost-user ports through vringnetd, workers = 1
#                       against workers = 2, wall clock, in one boot of the
#                       VM rig with two vCPUs (bench/workers_run; REPS=,
#                       FRAMES=, BENCH_ENGINE=user|kernel)
#
# build/bench/tap_bench runs inside the VM; build/examples/vringfd-forward
# is used by the forwarding test (tests/vm/tap_forward.c).
# build/bench/loop_wakeup: instructions per wakeup of the daemon's event loop
# (scripts/vm-run --icount --no-module -- build/bench/loop_wakeup).
BENCH_BIN   := $(B)/bench/tap_bench
FORWARD_BIN := $(B)/examples/vringfd-forward

ALL_TARGETS += $(FORWARD_BIN) $(if $(wildcard bench/tap_bench.c),$(BENCH_BIN))
CHECK_DEPS  += $(FORWARD_BIN)

$(B)/bench/%: $(B)/bench/%.o $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

LOOP_WAKEUP_BIN := $(B)/bench/loop_wakeup
ALL_TARGETS += $(if $(wildcard bench/loop_wakeup.c),$(LOOP_WAKEUP_BIN))
$(B)/bench/loop_wakeup.o: DIR_CPPFLAGS += -Idaemon
$(LOOP_WAKEUP_BIN): $(B)/bench/loop_wakeup.o $(B)/daemon/loop.o $(B)/daemon/log.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

$(B)/examples/%: $(B)/examples/%.o $(LIBVRINGFD_A)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^

bench: modules $(BENCH_BIN) user $(B)/tests/host/vu_frontend
	FULL=$(FULL) BENCH_MODE=$(or $(BENCH_MODE),icount) bench/run
	BENCH_MODE=$(or $(BENCH_MODE),icount) bench/daemon_run

.PHONY: bench-profile
bench-profile: modules
	bench/profile

.PHONY: bench-workers
bench-workers: modules user $(B)/tests/host/vu_frontend
	BENCH_ENGINE=$(or $(BENCH_ENGINE),user) bench/workers_run $(or $(REPS),5) $(or $(FRAMES),100000)
