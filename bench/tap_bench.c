// SPDX-License-Identifier: GPL-2.0
/*
 * tap_bench.c - frames per second through one tap device, three ways, in
 * one boot (run inside the VM rig by bench/run):
 *
 *   write()/read()  one system call per frame on the tap fd
 *   vhost-net       /dev/vhost-net on the same tap, driven from user space
 *                   (VHOST_SET_OWNER, identity memory table, eventfd
 *                   kick/call), ring of 256
 *   vringfd bN      a vring fd attached to the tap, N chains per write() /
 *                   N buffers posted per read()
 *   vringfd b64 MSG_MORE  TX only: the module's tx_batch=0 mode (one
 *                   sendmsg per frame) instead of TUN_MSG_PTR batches
 *   vringfd-table b64  the same as vringfd b64 with a memory table
 *                   (VRINGFD_SET_MEM_TABLE, one identity region over the
 *                   arena): descriptor addresses translated, as the
 *                   daemon's rings of a guest are
 *   vringfd-mem b64 the same as vringfd b64 on a ring of memory
 *                   (VRINGFD_SET_MEM_FILES over the arena's memfd): the
 *                   module copies through the pages it holds, not through
 *                   this process's address space
 *   vringfd kick    a ring of memory in kick mode (VRINGFD_SET_KICK),
 *                   driven exactly as vhost-net: kick when the ring asks,
 *                   wait on the call eventfd; the module's worker serves
 *                   the ring.  sys/frame counts the front-end's kicks and
 *                   waits; no other process runs
 *
 * The arena (rings and buffers, for all methods) is a sealed memfd mapped
 * shared.
 *
 * TX (ring -> tap -> stack): frames to the broadcast address with a local
 * ethertype; the stack counts them in the tap's rx_packets and drops them
 * (no handler).  RX (stack -> tap -> ring): pktgen on the tap sends as fast
 * as it can; what the reader does not take in time tun drops (the tap's
 * tx_dropped).  Every frame carries a 12-byte virtio-net header (the tap has
 * IFF_VNET_HDR), for all three methods.
 *
 * The cells run interleaved (a b c a b c ...), BENCH_REPS times (default 5)
 * for BENCH_SECS seconds each (default 1.5); the table shows medians and
 * totals.  BENCH_FULL=1 adds vringfd batch sizes 1, 8 and 256.
 *
 * BENCH_MODE=icount (bench/run's default, with scripts/vm-run --icount: one
 * vCPU, QEMU -icount shift=0,sleep=off, so the guest's clock advances 1 ns
 * per guest instruction): every cell moves a fixed BENCH_FRAMES frames
 * (default 4096) and the elapsed CLOCK_MONOTONIC time of the loop is the
 * number of instructions the one CPU executed for them: this process, the
 * kernel work of its system calls, softirqs, and for vhost-net the worker
 * thread.  No pktgen: for RX the tap's queue (txqueuelen raised above
 * BENCH_FRAMES) is filled untimed from an AF_PACKET socket bound to the tap,
 * then only the consumer draining it is timed.  Output in that mode:
 *   dir size method instr/frame x_write x_vhost sys/frame spread% sent
 *   received dropped
 * instr/frame: median over the repetitions (BENCH_REPS, default 3);
 * x_write/x_vhost: the write()/read() (vhost-net) row's instr/frame divided
 * by this row's (above 1: fewer instructions); spread%: (max - min) / median
 * of the repetitions; sent: TX frames posted / RX frames the AF_PACKET
 * socket handed to the tap; received: TX the tap's rx_packets / RX frames
 * the reader got; dropped: the difference.  Batch sizes 1, 8 and 64 always.
 *
 * The driver side of the ring methods (vringfd, vhost-net) posts with
 * libvringfd's vringfd_ring_add_many() (one publish per batch) and collects
 * with vringfd_ring_get_used_many() (used->idx read once per collect);
 * BENCH_LIB=single uses one vringfd_ring_add() / vringfd_ring_get_used()
 * per chain instead, for comparison.
 *
 * BENCH_PROFILE=LIST (bench/profile, with the kprof QEMU plugin): run only
 * the cells named in LIST (comma-separated, e.g. "TX 64 vringfd b64,RX 64
 * read()"), once each, and print "# kp window: CELL x FRAMES" before each
 * measured loop, which runs between the marker functions kp_start() and
 * kp_stop().
 *
 * Output (wall mode): one line per cell:
 *   dir size method frames/s x_write x_vhost frames/cpus x_write x_vhost
 *   sys/frame sent received dropped
 * frames/cpus: frames per CPU second of the consumer side (this process,
 * plus the vhost worker thread for vhost-net): the fair figure when the
 * source (pktgen, RX) is slower than every reader; x_write/x_vhost after
 * each: the ratio of that column to the write()/read() and vhost-net rows.
 * sent: frames handed to the tap (TX), or frames the stack gave the tap
 * (RX: its tx_packets + tx_dropped, pktgen being faster than any reader);
 * received: frames the stack got (TX: tap rx_packets) or the reader got
 * (RX); dropped: sent - received (RX: tun's queue overflowing, counted by
 * the tap as tx_dropped, plus at most its 1000 queued frames).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>

#include "vringfd.h"

#define BT_TAP		"vbt0"
#define BT_HDR		12
#define BT_RING		256
#define BT_BUFSZ	2048
#define BT_MAXREP	15
#define BT_ARENA	(8UL << 20)

enum bt_method { BT_WRITE, BT_VHOST, BT_KICK, BT_VRFD, BT_VRFD_MORE, BT_VRFD_TABLE, BT_VRFD_MEM };

/**
 * struct bt_cell - one row of the table
 * @tx: TX (else RX)
 * @size: frame bytes (header excluded)
 * @method: enum bt_method
 * @batch: vringfd batch size
 * @fps: frames/s of each repetition
 * @nrep: repetitions done
 * @frames: frames moved, all repetitions
 * @sent: see the file comment
 * @received: see the file comment
 * @syscalls: system calls made by the benchmark loop
 * @fpc: frames per consumer CPU second, of each repetition
 * @ring_drops: vringfd: the ring's drop counters (all reasons), summed
 * @ipf: icount mode: instructions per frame of each repetition
 */
struct bt_cell {
	int tx;
	unsigned int size;
	enum bt_method method;
	unsigned int batch;
	double fps[BT_MAXREP];
	int nrep;
	unsigned long long frames, sent, received, syscalls;
	double fpc[BT_MAXREP];
	unsigned long long ring_drops;
	double ipf[BT_MAXREP];
};

static int bt_tap = -1;
static uint8_t *bt_arena;	/* rings and buffers; one vhost memory region */
static int bt_arena_fd = -1;	/* the sealed memfd bt_arena maps */
static double bt_secs = 1.5;
static double bt_t0, bt_t1;	/* start and end of the last measuring loop */
static double bt_c0, bt_c1;	/* consumer CPU seconds at those times */
static int bt_worker = -1;	/* pid of our vhost worker thread, if any */
static bool bt_icount;		/* BENCH_MODE=icount: fixed frame counts */
static unsigned long long bt_frames = 4096;	/* icount: frames per cell */
static const char *bt_profile;	/* BENCH_PROFILE: the cells to profile */
static const char *bt_title;	/* the cell being run, for kp window titles */
static int bt_pkt = -1;		/* icount RX: AF_PACKET socket on the tap */
static bool bt_single;		/* BENCH_LIB=single: per-chain libvringfd calls */

void kp_start(const char *w);
void kp_stop(const char *w);

/**
 * kp_start() - marker: the kprof plugin starts counting when this runs
 * @w: window name (kept in a register so the call is not optimised away)
 */
__attribute__((noinline, aligned(64), used)) void kp_start(const char *w)
{
	asm volatile("" : : "r"(w) : "memory");
}

/**
 * kp_stop() - marker: the kprof plugin writes the window when this runs
 * @w: window name
 */
__attribute__((noinline, aligned(64), used)) void kp_stop(const char *w)
{
	asm volatile("" : : "r"(w) : "memory");
}

/**
 * bt_now() - monotonic time in seconds
 *
 * Return: seconds.
 */
static double bt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * bt_cpu() - CPU seconds used so far by this process and its vhost worker
 *
 * The consumer side of every method: this process (system calls and the
 * kernel work they do), plus for vhost-net its worker thread.
 * Return: seconds.
 */
static double bt_cpu(void)
{
	unsigned long long ut = 0, st = 0;
	struct rusage ru;
	char path[64];
	double s;
	FILE *f;

	getrusage(RUSAGE_SELF, &ru);
	s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if (bt_worker > 0) {
		snprintf(path, sizeof(path), "/proc/%d/stat", bt_worker);
		f = fopen(path, "r");
		if (f) {
			/* pid (comm) state ppid ... utime(14) stime(15) */
			if (fscanf(f, "%*d (%*[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				   &ut, &st) == 2)
				s += (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
			fclose(f);
		}
	}
	return s;
}

/**
 * bt_mark() - record the start (@end false) or end of a measuring loop
 * @end: which
 *
 * Return: the time now.
 */
static double bt_mark(bool end)
{
	double now;

	/* the CPU-time reads stay outside the window the clock measures */
	if (end) {
		kp_stop("end");
		now = bt_t1 = bt_now();
		if (!bt_icount)
			bt_c1 = bt_cpu();
	} else {
		if (!bt_icount)
			bt_c0 = bt_cpu();
		if (bt_profile) {
			printf("# kp window: %s x %llu\n", bt_title, bt_frames);
			fflush(stdout);
		}
		now = bt_t0 = bt_now();
		kp_start("start");
	}
	return now;
}

/**
 * bt_more() - does the measuring loop go on
 * @n: frames moved so far
 * @end: wall mode: when the loop ends (bt_now() seconds)
 *
 * Return: icount mode: fewer than bt_frames frames moved; wall mode: @end
 * not reached.
 */
static bool bt_more(unsigned long long n, double end)
{
	return bt_icount ? n < bt_frames : bt_now() < end;
}

/**
 * bt_ifstat() - a counter of the benchmark tap
 * @counter: statistics file name
 *
 * Return: the value, 0 when unreadable.
 */
static unsigned long long bt_ifstat(const char *counter)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/" BT_TAP "/statistics/%s", counter);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/**
 * bt_pktgen() - write one pktgen control line
 * @file: /proc/net/pktgen/FILE
 * @line: the command
 *
 * Return: 0 or -1.
 */
static int bt_pktgen(const char *file, const char *line)
{
	char path[128];
	FILE *f;
	int r;

	snprintf(path, sizeof(path), "/proc/net/pktgen/%s", file);
	f = fopen(path, "w");
	if (!f)
		return -1;
	/* pktgen drops the last byte of every write: end with a newline */
	r = fprintf(f, "%s\n", line) < 0 ? -1 : 0;
	if (fclose(f))
		r = -1;
	return r;
}

/**
 * bt_pktgen_start() - start pktgen on the tap with @size-byte frames
 * @size: frame bytes
 *
 * Return: the pid of the process blocked in "start", or -1.
 */
static pid_t bt_pktgen_start(unsigned int size)
{
	char cmd[64];
	pid_t pid;

	if (bt_pktgen("kpktgend_0", "rem_device_all") ||
	    bt_pktgen("kpktgend_0", "add_device " BT_TAP))
		return -1;
	snprintf(cmd, sizeof(cmd), "pkt_size %u", size + 4);	/* pktgen counts the FCS */
	if (bt_pktgen(BT_TAP, "count 0") || bt_pktgen(BT_TAP, cmd) ||
	    bt_pktgen(BT_TAP, "clone_skb 0") || bt_pktgen(BT_TAP, "delay 0") ||
	    bt_pktgen(BT_TAP, "dst_mac ff:ff:ff:ff:ff:ff"))
		return -1;
	pid = fork();
	if (pid == 0) {
		bt_pktgen("pgctrl", "start");
		_exit(0);
	}
	usleep(500000);
	if (getenv("BENCH_DEBUG"))
		system("cat /proc/net/pktgen/" BT_TAP " >&2; ip -s link show " BT_TAP " >&2");
	return pid;
}

/**
 * bt_pktgen_stop() - stop pktgen and reap the starter
 * @pid: from bt_pktgen_start()
 */
static void bt_pktgen_stop(pid_t pid)
{
	bt_pktgen("pgctrl", "stop");
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/**
 * bt_frame() - header + frame of @size bytes at @p
 * @p: buffer
 * @size: frame bytes
 */
static void bt_frame(uint8_t *p, unsigned int size)
{
	memset(p, 0, BT_HDR);
	memset(p + BT_HDR, 0xff, 6);
	memcpy(p + BT_HDR + 6, "\x02\x00\x00\x00\x00\x07", 6);
	p[BT_HDR + 12] = 0x88;
	p[BT_HDR + 13] = 0xb5;
	memset(p + BT_HDR + 14, 0x5a, size - 14);
}

/**
 * bt_buf() - the @i-th buffer of the arena (after the ring area)
 * @i: index
 *
 * Return: pointer to BT_BUFSZ bytes.
 */
static uint8_t *bt_buf(unsigned int i)
{
	return bt_arena + (1UL << 20) + (size_t)(i % 2048) * BT_BUFSZ;
}

/* ---- (a) write()/read() per frame ---------------------------------------- */

/**
 * bt_run_write() - one repetition of the per-frame method
 * @c: the cell
 *
 * Return: frames moved.
 */
static unsigned long long bt_run_write(struct bt_cell *c)
{
	unsigned long long n = 0, tries = 0;
	double end;
	struct pollfd p = { .fd = bt_tap, .events = POLLIN };
	unsigned int i;
	uint8_t *b;

	/* the same 256 buffers the ring methods cycle through */
	for (i = 0; i < BT_RING; i++)
		bt_frame(bt_buf(i), c->size);
	end = bt_mark(false) + bt_secs;
	while (1) {
		if (bt_icount ? n >= bt_frames : !(tries & 63) && bt_now() >= end)
			break;
		b = bt_buf((unsigned int)(tries++ % BT_RING));
		if (c->tx) {
			c->syscalls++;
			if (write(bt_tap, b, BT_HDR + c->size) > 0)
				n++;
		} else {
			c->syscalls++;
			if (read(bt_tap, b, BT_BUFSZ) > 0) {
				n++;
			} else if (bt_icount) {
				break;	/* the filled queue is empty */
			} else if (errno == EAGAIN) {
				c->syscalls++;
				poll(&p, 1, 100);
			}
		}
	}
	bt_mark(true);
	return n;
}

/* ---- (b) vhost-net ---------------------------------------------------------- */

/**
 * struct bt_vhost - a vhost-net device with one virtqueue in use
 * @fd: /dev/vhost-net
 * @kick: kick eventfd
 * @call: call eventfd
 * @r: the ring (in the arena)
 */
struct bt_vhost {
	int fd, kick, call;
	struct vringfd_ring r;
};

/**
 * bt_pin_vhost_worker() - put our vhost worker thread on CPU 1, with us
 *
 * pktgen's thread owns CPU 0; the consumer side (this process and, for
 * vhost-net, its worker "vhost-PID") shares CPU 1, so that every method
 * gets the same CPU.
 */
static void bt_pin_vhost_worker(void)
{
	char path[300], comm[32], want[32];
	struct dirent *de;
	cpu_set_t set;
	DIR *d;
	FILE *f;

	snprintf(want, sizeof(want), "vhost-%d\n", (int)getpid());
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want)) {
			bt_worker = atoi(de->d_name);
			sched_setaffinity(bt_worker, sizeof(set), &set);
		}
		fclose(f);
	}
	if (d)
		closedir(d);
}

/**
 * bt_vhost_open() - vhost-net on the tap, virtqueue @idx (0 RX, 1 TX)
 * @v: filled in
 * @idx: virtqueue
 *
 * Return: 0, or -1 (message printed).
 */
static int bt_vhost_open(struct bt_vhost *v, unsigned int idx)
{
	struct vhost_memory *mem;
	struct vhost_vring_state st = { .index = idx };
	struct vhost_vring_addr addr = { .index = idx };
	struct vhost_vring_file vf = { .index = idx };
	uint64_t features;

	v->fd = open("/dev/vhost-net", O_RDWR);
	v->kick = eventfd(0, EFD_CLOEXEC);
	v->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (v->fd < 0 || ioctl(v->fd, VHOST_SET_OWNER) < 0 ||
	    ioctl(v->fd, VHOST_GET_FEATURES, &features) < 0)
		goto err;
	features &= 1ULL << VIRTIO_F_VERSION_1;
	if (ioctl(v->fd, VHOST_SET_FEATURES, &features) < 0)
		goto err;
	mem = calloc(1, sizeof(*mem) + sizeof(mem->regions[0]));
	mem->nregions = 1;
	mem->regions[0].guest_phys_addr = (uintptr_t)bt_arena;
	mem->regions[0].memory_size = BT_ARENA;
	mem->regions[0].userspace_addr = (uintptr_t)bt_arena;
	if (ioctl(v->fd, VHOST_SET_MEM_TABLE, mem) < 0) {
		free(mem);
		goto err;
	}
	free(mem);
	if (vringfd_ring_init(&v->r, bt_arena, BT_RING, 4096, 0) < 0)
		goto err;
	st.num = BT_RING;
	if (ioctl(v->fd, VHOST_SET_VRING_NUM, &st) < 0)
		goto err;
	st.num = 0;
	if (ioctl(v->fd, VHOST_SET_VRING_BASE, &st) < 0)
		goto err;
	addr.desc_user_addr = (uintptr_t)v->r.vr.desc;
	addr.avail_user_addr = (uintptr_t)v->r.vr.avail;
	addr.used_user_addr = (uintptr_t)v->r.vr.used;
	if (ioctl(v->fd, VHOST_SET_VRING_ADDR, &addr) < 0)
		goto err;
	vf.fd = v->kick;
	if (ioctl(v->fd, VHOST_SET_VRING_KICK, &vf) < 0)
		goto err;
	vf.fd = v->call;
	if (ioctl(v->fd, VHOST_SET_VRING_CALL, &vf) < 0)
		goto err;
	vf.fd = bt_tap;
	if (ioctl(v->fd, VHOST_NET_SET_BACKEND, &vf) < 0)
		goto err;
	bt_pin_vhost_worker();
	return 0;
err:
	fprintf(stderr, "tap_bench: vhost-net setup: %s\n", strerror(errno));
	return -1;
}

/**
 * bt_vhost_close() - release the vhost device (the tap is free again)
 * @v: the device
 */
static void bt_vhost_close(struct bt_vhost *v)
{
	close(v->fd);
	close(v->kick);
	close(v->call);
	vringfd_ring_fini(&v->r);
}

static int bt_set_mem_files(int fd, const struct vringfd_ring *r);

/**
 * bt_kick_open() - a ring of memory over the arena on the tap, in kick mode
 * @v: filled in (@v->fd: the vring fd); inside the arena, so that the
 *	driver state (last_used) is in the memfd too
 * @tx: TX (else RX)
 *
 * Driven as vhost-net is (bt_run_vhost()): kick when the ring asks, wait
 * on the call eventfd; the module's worker serves the ring.
 * Return: 0, or -1 (message printed).
 */
static int bt_kick_open(struct bt_vhost *v, int tx)
{
	struct vringfd_tap a;
	int32_t efd;

	memset(v, 0, sizeof(*v));
	v->kick = eventfd(0, EFD_CLOEXEC);
	v->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	v->fd = -1;
	if (vringfd_ring_init(&v->r, bt_arena, BT_RING, 4096, 0) < 0)
		goto err;
	v->fd = vringfd_create(BT_RING, v->r.vr.desc, v->r.vr.avail, v->r.vr.used,
			       &v->r.last_used, 0);
	memset(&a, 0, sizeof(a));
	a.tap_fd = bt_tap;
	a.dir = tx ? VRINGFD_DIR_TX : VRINGFD_DIR_RX;
	a.vnet_hdr_len = BT_HDR;
	efd = v->kick;
	if (v->kick < 0 || v->call < 0 || v->fd < 0 ||
	    bt_set_mem_files(v->fd, &v->r) < 0 || vringfd_attach_tap_ex(v->fd, &a) < 0 ||
	    vringfd_set_call_fd(v->fd, v->call) < 0 || ioctl(v->fd, VRINGFD_SET_KICK, &efd) < 0)
		goto err;
	return 0;
err:
	fprintf(stderr, "tap_bench: kick mode setup: %s\n", strerror(errno));
	return -1;
}

/**
 * bt_vhost_kick() - kick vhost when the ring asks for it
 * @v: the device
 * @c: the cell (syscall count)
 */
static void bt_vhost_kick(struct bt_vhost *v, struct bt_cell *c)
{
	uint64_t one = 1;

	if (vringfd_ring_need_kick(&v->r)) {
		c->syscalls++;
		if (write(v->kick, &one, sizeof(one)) < 0)
			perror("tap_bench: kick");
	}
}

/**
 * bt_vhost_wait() - wait for vhost's call
 * @v: the device
 * @c: the cell (syscall count)
 *
 * Return: false when no call came within 100 ms.
 */
static bool bt_vhost_wait(struct bt_vhost *v, struct bt_cell *c)
{
	struct pollfd p = { .fd = v->call, .events = POLLIN };
	uint64_t cnt;

	c->syscalls++;
	if (read(v->call, &cnt, sizeof(cnt)) < 0 && errno == EAGAIN) {
		c->syscalls += 2;
		if (poll(&p, 1, 100) <= 0)
			return false;
		if (read(v->call, &cnt, sizeof(cnt)) < 0)
			cnt = 0;
	}
	return true;
}

/**
 * bt_post() - post one-segment chains and publish them
 * @r: the ring
 * @iov: the segments; each chain's token is its iov_base
 * @n: how many
 * @writable: device-writable (RX buffers), else device-readable (TX frames)
 *
 * libvringfd's batch call vringfd_ring_add_many(), or with BENCH_LIB=single
 * one vringfd_ring_add() per chain and a vringfd_ring_publish().
 * Return: chains posted.
 */
static unsigned int bt_post(struct vringfd_ring *r, const struct iovec *iov, unsigned int n,
			    bool writable)
{
	unsigned int i;
	int k;

	if (!bt_single) {
		k = vringfd_ring_add_many(r, iov, n, writable, NULL);
		return k < 0 ? 0 : (unsigned int)k;
	}
	for (i = 0; i < n; i++)
		if (vringfd_ring_add(r, writable ? NULL : &iov[i], !writable, writable ? &iov[i] : NULL,
				     writable, iov[i].iov_base) < 0)
			break;
	vringfd_ring_publish(r);
	return i;
}

/**
 * bt_collect() - collect up to @max used entries
 * @r: the ring
 * @toks: where their tokens go
 * @max: at most this many
 *
 * vringfd_ring_get_used_many(), or with BENCH_LIB=single one
 * vringfd_ring_get_used() per entry.
 * Return: entries collected.
 */
static unsigned int bt_collect(struct vringfd_ring *r, void **toks, unsigned int max)
{
	unsigned int n = 0;
	void *t;

	if (!bt_single)
		return vringfd_ring_get_used_many(r, toks, NULL, max);
	while (n < max && (t = vringfd_ring_get_used(r, NULL)))
		toks[n++] = t;
	return n;
}

/**
 * bt_run_vhost() - one repetition through vhost-net, or through a vring fd
 * in kick mode (BT_KICK), driven the same way
 * @c: the cell
 *
 * Return: frames moved.
 */
static unsigned long long bt_run_vhost(struct bt_cell *c)
{
	unsigned long long n = 0, posted = 0;
	uint32_t seg = c->tx ? BT_HDR + c->size : BT_BUFSZ;
	struct iovec iov[BT_RING];
	void *toks[BT_RING];
	struct bt_vhost vs, *v = &vs;
	unsigned int i, np;
	double end;

	/* kick mode: a ring of memory, its driver state in the arena too */
	if (c->method == BT_KICK)
		v = (struct bt_vhost *)(bt_arena + (512UL << 10));
	if (c->method == BT_KICK ? bt_kick_open(v, c->tx) : bt_vhost_open(v, c->tx ? 1 : 0)) {
		if (c->method == BT_KICK)
			bt_vhost_close(v);
		return 0;
	}
	if (c->tx)
		for (i = 0; i < BT_RING; i++)
			bt_frame(bt_buf(i), c->size);
	/* the first kick may run the worker at once: start the clock first */
	end = bt_mark(false) + bt_secs;
	np = BT_RING;
	if (bt_icount && c->tx && np > bt_frames)
		np = (unsigned int)bt_frames;	/* icount TX: exactly bt_frames frames */
	for (i = 0; i < np; i++) {
		iov[i].iov_base = bt_buf(i);
		iov[i].iov_len = seg;
	}
	posted += bt_post(&v->r, iov, np, !c->tx);
	bt_vhost_kick(v, c);
	while (bt_more(n, end)) {
		unsigned int got = bt_collect(&v->r, toks, BT_RING);

		n += got;
		if (!got) {
			if (!bt_vhost_wait(v, c) && bt_icount)
				break;	/* RX: the filled queue is empty */
			continue;
		}
		np = got;
		if (bt_icount && c->tx && np > bt_frames - posted)
			np = (unsigned int)(bt_frames - posted);
		for (i = 0; i < np; i++) {
			iov[i].iov_base = toks[i];
			iov[i].iov_len = seg;
		}
		if (np) {
			posted += bt_post(&v->r, iov, np, !c->tx);
			bt_vhost_kick(v, c);
		}
	}
	bt_mark(true);
	bt_vhost_close(v);
	bt_worker = -1;
	return n;
}

/* ---- (c) vringfd ------------------------------------------------------------- */

/**
 * bt_set_mem_files() - make @fd a ring of memory: the whole arena's memfd,
 * guest addresses = this process's addresses
 * @fd: the vring fd
 * @r: its driver state (inside the arena: last_used must be in the memfd)
 *
 * Return: the ioctl's answer.
 */
static int bt_set_mem_files(int fd, const struct vringfd_ring *r)
{
	struct {
		struct vringfd_mem_files h;
		struct vringfd_mem_file_region reg[1];
	} t;

	memset(&t, 0, sizeof(t));
	t.h.nregions = 1;
	t.h.desc_addr = (uintptr_t)r->vr.desc;
	t.h.avail_addr = (uintptr_t)r->vr.avail;
	t.h.used_addr = (uintptr_t)r->vr.used;
	t.h.last_used_addr = (uintptr_t)&r->last_used;
	t.reg[0].guest_addr = (uintptr_t)bt_arena;
	t.reg[0].size = BT_ARENA;
	t.reg[0].fd = bt_arena_fd;
	return ioctl(fd, VRINGFD_SET_MEM_FILES, &t);
}

/**
 * bt_set_mem_table() - one identity region over the arena
 * @fd: the vring fd
 *
 * Return: vringfd_set_mem_table()'s answer.
 */
static int bt_set_mem_table(int fd)
{
	struct vringfd_mem_region reg = {
		.guest_addr = (uintptr_t)bt_arena,
		.size = BT_ARENA,
		.user_addr = (uintptr_t)bt_arena,
	};

	return vringfd_set_mem_table(fd, &reg, 1);
}

/**
 * bt_run_vringfd() - one repetition through a vring fd
 * @c: the cell
 *
 * BT_VRFD_TABLE: the same with an identity memory table.  BT_VRFD_MEM: on
 * a ring of memory (VRINGFD_SET_MEM_FILES): the module reaches ring and
 * buffers through the pages it holds.
 * Return: frames moved.
 */
static unsigned long long bt_run_vringfd(struct bt_cell *c)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	unsigned long long n = 0, posted = 0;
	struct iovec iov[BT_RING];
	void *toks[BT_RING];
	struct vringfd_ring rs, *r = &rs;
	struct vringfd_tap a;
	unsigned int i;
	double end;
	char dummy;
	int fd;

	/* a ring of memory: the driver state (last_used) in the arena too */
	if (c->method == BT_VRFD_MEM)
		r = (struct vringfd_ring *)(bt_arena + (512UL << 10));
	if (vringfd_ring_init(r, bt_arena, BT_RING, 4096, 0) < 0)
		return 0;
	fd = vringfd_create(BT_RING, r->vr.desc, r->vr.avail, r->vr.used, &r->last_used, 0);
	if (fd >= 0 && ((c->method == BT_VRFD_MEM && bt_set_mem_files(fd, r) < 0) ||
			(c->method == BT_VRFD_TABLE && bt_set_mem_table(fd) < 0))) {
		fprintf(stderr, "tap_bench: a memory table: %s\n", strerror(errno));
		close(fd);
		vringfd_ring_fini(r);
		return 0;
	}
	memset(&a, 0, sizeof(a));
	a.tap_fd = bt_tap;
	a.dir = c->tx ? VRINGFD_DIR_TX : VRINGFD_DIR_RX;
	a.vnet_hdr_len = BT_HDR;
	if (fd < 0 || vringfd_attach_tap_ex(fd, &a) < 0) {
		fprintf(stderr, "tap_bench: vringfd: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		vringfd_ring_fini(r);
		return 0;
	}
	p.fd = fd;
	for (i = 0; i < BT_RING; i++)
		bt_frame(bt_buf(i), c->size);
	end = bt_mark(false) + bt_secs;
	if (!c->tx) {
		for (i = 0; i < c->batch; i++) {
			iov[i].iov_base = bt_buf(i);
			iov[i].iov_len = BT_BUFSZ;
		}
		bt_post(r, iov, c->batch, true);
	}
	while (bt_more(n, end)) {
		ssize_t k;

		if (c->tx) {
			unsigned int nb = c->batch;

			/* icount: exactly bt_frames frames are posted */
			if (bt_icount && nb > bt_frames - posted)
				nb = (unsigned int)(bt_frames - posted);
			for (i = 0; i < nb; i++) {
				iov[i].iov_base = bt_buf((unsigned int)(posted++ % BT_RING));
				iov[i].iov_len = BT_HDR + c->size;
			}
			if (nb)
				bt_post(r, iov, nb, false);
			c->syscalls++;
			k = write(fd, "", 1);
			/* the write completed its chains: one collect takes them */
			bt_collect(r, toks, BT_RING);
			if (bt_icount && k == 0 && !nb)
				break;	/* nothing left to consume */
		} else {
			unsigned int got;

			/* read() pulls; if nothing was queued, wait in poll(),
			 * which pulls too: count what lands in the used ring */
			c->syscalls++;
			k = read(fd, &dummy, 0);
			if (k == 0 && !bt_icount) {
				c->syscalls++;
				poll(&p, 1, 100);
			}
			got = bt_collect(r, toks, BT_RING);
			for (i = 0; i < got; i++) {
				iov[i].iov_base = toks[i];
				iov[i].iov_len = BT_BUFSZ;
			}
			if (got)
				bt_post(r, iov, got, true);
			if (k >= 0)
				k = got;
			if (bt_icount && !got)
				break;	/* the filled queue is empty */
		}
		if (k < 0) {
			fprintf(stderr, "tap_bench: vringfd %s: %s\n", c->tx ? "write" : "read",
				strerror(errno));
			break;
		}
		n += (unsigned long long)k;
	}
	bt_mark(true);
	{
		struct vringfd_stats st;

		if (vringfd_get_stats(fd, &st) == 0)
			c->ring_drops += st.drop_bad_chain + st.drop_too_big + st.drop_bad_hdr +
					 st.drop_bad_addr + st.drop_tap;
	}
	close(fd);
	vringfd_ring_fini(r);
	return n;
}

/**
 * bt_set_tx_batch() - the module's tx_batch parameter
 * @on: TUN_MSG_PTR batches (1) or one sendmsg per frame (0)
 */
static void bt_set_tx_batch(int on)
{
	FILE *f = fopen("/sys/module/vringfd/parameters/tx_batch", "w");

	if (f) {
		fputs(on ? "Y" : "N", f);
		fclose(f);
	}
}

/**
 * bt_name() - the method column of a cell
 * @c: the cell
 * @buf: at least 32 bytes
 *
 * Return: @buf.
 */
static const char *bt_name(const struct bt_cell *c, char *buf)
{
	switch (c->method) {
	case BT_WRITE:
		return c->tx ? "write()" : "read()";
	case BT_VHOST:
		return "vhost-net";
	case BT_KICK:
		return "vringfd kick";
	case BT_VRFD:
		snprintf(buf, 32, "vringfd b%u", c->batch);
		return buf;
	case BT_VRFD_TABLE:
		snprintf(buf, 32, "vringfd-table b%u", c->batch);
		return buf;
	case BT_VRFD_MEM:
		snprintf(buf, 32, "vringfd-mem b%u", c->batch);
		return buf;
	default:
		snprintf(buf, 32, "vringfd b%u MSG_MORE", c->batch);
		return buf;
	}
}

/**
 * bt_fill() - icount RX: queue @count frames of @size bytes on the tap
 * @size: frame bytes
 * @count: frames
 *
 * The frames go out of the AF_PACKET socket bound to the tap, so tun puts
 * them in its queue for the reader (untimed: the consumer's drain is what
 * the cell measures).  Frames left from an earlier cell are read away first.
 *
 * Return: frames the socket handed to the tap.
 */
static unsigned long long bt_fill(unsigned int size, unsigned long long count)
{
	uint8_t f[BT_BUFSZ];
	unsigned long long i, ok = 0;

	while (read(bt_tap, f, sizeof(f)) > 0)
		;
	bt_frame(f, size);
	for (i = 0; i < count; i++)
		if (send(bt_pkt, f + BT_HDR, size, 0) == (ssize_t)size)
			ok++;
	return ok;
}

/**
 * bt_run() - one repetition of a cell, counters included
 * @c: the cell
 */
static void bt_run(struct bt_cell *c)
{
	unsigned long long rx0 = bt_ifstat("rx_packets");
	unsigned long long tx0 = bt_ifstat("tx_packets") + bt_ifstat("tx_dropped");
	unsigned long long n = 0, filled = 0;
	double dt;
	char name[32];

	bt_t0 = bt_t1 = bt_c0 = bt_c1 = 0;
	bt_title = NULL;
	if (bt_profile) {
		static char title[64];

		snprintf(title, sizeof(title), "%s %u %s", c->tx ? "TX" : "RX", c->size, bt_name(c, name));
		bt_title = title;
	}
	if (bt_icount && !c->tx)
		filled = bt_fill(c->size, bt_frames);

	switch (c->method) {
	case BT_WRITE:
		n = bt_run_write(c);
		break;
	case BT_VHOST:
	case BT_KICK:
		n = bt_run_vhost(c);
		break;
	case BT_VRFD:
	case BT_VRFD_TABLE:
	case BT_VRFD_MEM:
		n = bt_run_vringfd(c);
		break;
	case BT_VRFD_MORE:
		bt_set_tx_batch(0);
		n = bt_run_vringfd(c);
		bt_set_tx_batch(1);
		break;
	}
	dt = bt_t1 - bt_t0;
	if (bt_icount)
		fprintf(stderr, "# %s %u %s: %llu frames, %.0f instructions\n", c->tx ? "TX" : "RX",
			c->size, bt_name(c, name), n, dt * 1e9);
	else
		fprintf(stderr, "# %s %u %s: %llu frames in %.2f s\n", c->tx ? "TX" : "RX", c->size,
			bt_name(c, name), n, dt);
	c->ipf[c->nrep] = n ? dt * 1e9 / (double)n : 0;
	c->fpc[c->nrep] = bt_c1 > bt_c0 ? (double)n / (bt_c1 - bt_c0) : 0;
	c->fps[c->nrep++] = dt > 0 ? (double)n / dt : 0;
	c->frames += n;
	if (c->tx) {
		c->sent += n;
		c->received += bt_ifstat("rx_packets") - rx0;
	} else if (bt_icount) {
		c->sent += filled;
		c->received += n;
	} else {
		c->sent += bt_ifstat("tx_packets") + bt_ifstat("tx_dropped") - tx0;
		c->received += n;
	}
}

/**
 * bt_cmp() - order doubles (qsort)
 * @a: one
 * @b: other
 *
 * Return: <0, 0, >0.
 */
static int bt_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/**
 * bt_median() - median of a per-repetition value of a cell
 * @c: the cell
 * @vals: c->fps or c->fpc
 *
 * Return: the median.
 */
static double bt_median(const struct bt_cell *c, const double *vals)
{
	double v[BT_MAXREP];

	if (!c->nrep)
		return 0;
	memcpy(v, vals, sizeof(v[0]) * (size_t)c->nrep);
	qsort(v, (size_t)c->nrep, sizeof(v[0]), bt_cmp);
	return c->nrep & 1 ? v[c->nrep / 2] : (v[c->nrep / 2 - 1] + v[c->nrep / 2]) / 2;
}

/**
 * bt_wanted() - is the cell in the BENCH_PROFILE list (all cells without one)
 * @c: the cell
 *
 * Return: true to run it.
 */
static bool bt_wanted(const struct bt_cell *c)
{
	char name[32], full[64];
	const char *p;
	size_t l;

	if (!bt_profile)
		return true;
	l = (size_t)snprintf(full, sizeof(full), "%s %u %s", c->tx ? "TX" : "RX", c->size,
			     bt_name(c, name));
	for (p = bt_profile; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, full, l) && (p[l] == ',' || p[l] == '\0'))
			return true;
	return false;
}

/**
 * bt_icount_setup() - icount mode: AF_PACKET source and a deep tap queue
 *
 * Return: 0, or -1 (message printed).
 */
static int bt_icount_setup(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "ip link set " BT_TAP " txqueuelen %llu", bt_frames + 1024);
	bt_pkt = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	sll.sll_ifindex = (int)if_nametoindex(BT_TAP);
	if (bt_pkt < 0 || bind(bt_pkt, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		perror("tap_bench: AF_PACKET socket on " BT_TAP);
		return -1;
	}
	if (system(cmd)) {
		fprintf(stderr, "tap_bench: '%s' failed\n", cmd);
		return -1;
	}
	return 0;
}

/**
 * bt_print_icount() - the icount table
 * @cells: the cells
 * @ncell: how many
 * @reps: repetitions
 */
static void bt_print_icount(struct bt_cell *cells, int ncell, int reps)
{
	char name[32];
	int i, j, k;

	printf("%-3s %5s %-22s %11s %7s %7s %9s %7s %8s %8s %7s\n", "dir", "size", "method",
	       "instr/frame", "x_write", "x_vhost", "sys/frame", "spread%", "sent", "received",
	       "dropped");
	for (i = 0; i < ncell; i++) {
		struct bt_cell *c = &cells[i];
		double m = bt_median(c, c->ipf), a = 0, v = 0, lo = 0, hi = 0;

		for (k = 0; k < c->nrep; k++) {
			if (!k || c->ipf[k] < lo)
				lo = c->ipf[k];
			if (!k || c->ipf[k] > hi)
				hi = c->ipf[k];
		}
		for (j = 0; j < ncell; j++) {
			if (cells[j].tx != c->tx || cells[j].size != c->size)
				continue;
			if (cells[j].method == BT_WRITE)
				a = bt_median(&cells[j], cells[j].ipf);
			if (cells[j].method == BT_VHOST)
				v = bt_median(&cells[j], cells[j].ipf);
		}
		printf("%-3s %5u %-22s %11.1f %7.2f %7.2f %9.4f %7.2f %8llu %8llu %7llu\n",
		       c->tx ? "TX" : "RX", c->size, bt_name(c, name), m, m > 0 ? a / m : 0,
		       m > 0 ? v / m : 0, c->frames ? (double)c->syscalls / (double)c->frames : 0,
		       m > 0 ? 100 * (hi - lo) / m : 0, c->sent, c->received,
		       c->sent > c->received ? c->sent - c->received : 0);
	}
	for (i = 0; i < ncell; i++)
		if (cells[i].method >= BT_VRFD)
			printf("# ring drops %s %u %s: %llu\n", cells[i].tx ? "TX" : "RX",
			       cells[i].size, bt_name(&cells[i], name), cells[i].ring_drops);
	printf("# icount mode (1 ns = 1 guest instruction, one vCPU): %d repetitions of %llu frames per cell; instr/frame are medians\n",
	       reps, bt_frames);
}

int main(void)
{
	static struct bt_cell cells[64];
	unsigned int sizes[2] = { 64, 1500 }, batches[4] = { 64, 1, 8, 256 };
	int ncell = 0, reps = 5, full = 0, i, j, si, tx, first;
	unsigned int nb, b;
	struct ifreq ifr;
	int sz = BT_HDR;
	char name[32];
	pid_t pg;

	bt_icount = getenv("BENCH_MODE") && !strcmp(getenv("BENCH_MODE"), "icount");
	bt_profile = getenv("BENCH_PROFILE") && *getenv("BENCH_PROFILE") ? getenv("BENCH_PROFILE") : NULL;
	bt_single = getenv("BENCH_LIB") && !strcmp(getenv("BENCH_LIB"), "single");
	if (bt_icount)
		reps = 3;
	if (getenv("BENCH_REPS"))
		reps = atoi(getenv("BENCH_REPS"));
	if (reps < 1 || reps > BT_MAXREP)
		reps = bt_icount ? 3 : 5;
	if (bt_profile)
		reps = 1;
	if (getenv("BENCH_SECS"))
		bt_secs = atof(getenv("BENCH_SECS"));
	if (bt_secs <= 0)
		bt_secs = 1.5;
	if (getenv("BENCH_FRAMES"))
		bt_frames = strtoull(getenv("BENCH_FRAMES"), NULL, 0);
	if (bt_frames < 1 || bt_frames > 1000000)
		bt_frames = 4096;
	full = getenv("BENCH_FULL") && atoi(getenv("BENCH_FULL"));
	/* icount mode: batch 64, 1 and 8 always (the cost of a cell is small) */
	nb = full ? 4 : bt_icount ? 3 : 1;
	signal(SIGPIPE, SIG_IGN);
	if (!bt_icount) {
		/* pktgen's thread runs on CPU 0: keep the reader off it */
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
			sched_setaffinity(0, sizeof(set), &set);
	}

	bt_tap = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), BT_TAP);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (bt_tap < 0 || ioctl(bt_tap, TUNSETIFF, &ifr) < 0 ||
	    ioctl(bt_tap, TUNSETVNETHDRSZ, &sz) < 0 ||
	    system("ip link set " BT_TAP " up && sysctl -qw net.ipv6.conf." BT_TAP ".disable_ipv6=1")) {
		perror("tap_bench: tap");
		return 1;
	}
	if (bt_icount && bt_icount_setup())
		return 1;
	/* a sealed memfd: what a ring of memory needs (and vhost-net takes) */
	bt_arena_fd = memfd_create("tap_bench", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (bt_arena_fd < 0 || ftruncate(bt_arena_fd, BT_ARENA) < 0 ||
	    fcntl(bt_arena_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		perror("tap_bench: memfd");
		return 1;
	}
	bt_arena = mmap(NULL, BT_ARENA, PROT_READ | PROT_WRITE, MAP_SHARED, bt_arena_fd, 0);
	if (bt_arena == MAP_FAILED)
		return 1;
	memset(bt_arena, 0, BT_ARENA);

	for (tx = getenv("BENCH_RX_ONLY") ? 0 : 1; tx >= 0; tx--) {
		for (si = 0; si < 2; si++) {
			first = ncell;
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si], .method = BT_WRITE };
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si], .method = BT_VHOST };
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si], .method = BT_KICK };
			for (b = 0; b < nb; b++)
				cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si],
								   .method = BT_VRFD, .batch = batches[b] };
			if (tx)
				cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si],
								   .method = BT_VRFD_MORE, .batch = 64 };
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si],
							   .method = BT_VRFD_TABLE, .batch = 64 };
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si],
							   .method = BT_VRFD_MEM, .batch = 64 };
			if (bt_profile) {
				for (i = j = first; i < ncell; i++)
					if (bt_wanted(&cells[i]))
						cells[j++] = cells[i];
				ncell = j;
				if (ncell == first)
					continue;
			}
			pg = tx || bt_icount ? 0 : bt_pktgen_start(sizes[si]);
			if (pg < 0) {
				fprintf(stderr, "tap_bench: pktgen not available (modprobe pktgen)\n");
				return 1;
			}
			for (i = 0; i < reps; i++)		/* interleaved: a b c a b c */
				for (j = first; j < ncell; j++)
					bt_run(&cells[j]);
			if (!tx && !bt_icount)
				bt_pktgen_stop(pg);
		}
	}

	if (bt_icount) {
		bt_print_icount(cells, ncell, reps);
		return 0;
	}
	printf("%-3s %5s %-22s %10s %7s %7s %11s %7s %7s %9s %10s %10s %9s\n", "dir", "size",
	       "method", "frames/s", "x_write", "x_vhost", "frames/cpus", "x_write", "x_vhost",
	       "sys/frame", "sent", "received", "dropped");
	for (i = 0; i < ncell; i++) {
		struct bt_cell *c = &cells[i];
		double m = bt_median(c, c->fps), a = 0, v = 0;
		double mc = bt_median(c, c->fpc), ac = 0, vc = 0;

		for (j = 0; j < ncell; j++) {
			if (cells[j].tx != c->tx || cells[j].size != c->size)
				continue;
			if (cells[j].method == BT_WRITE) {
				a = bt_median(&cells[j], cells[j].fps);
				ac = bt_median(&cells[j], cells[j].fpc);
			}
			if (cells[j].method == BT_VHOST) {
				v = bt_median(&cells[j], cells[j].fps);
				vc = bt_median(&cells[j], cells[j].fpc);
			}
		}
		printf("%-3s %5u %-22s %10.0f %7.2f %7.2f %11.0f %7.2f %7.2f %9.4f %10llu %10llu %9llu\n",
		       c->tx ? "TX" : "RX", c->size, bt_name(c, name), m, a > 0 ? m / a : 0,
		       v > 0 ? m / v : 0, mc, ac > 0 ? mc / ac : 0, vc > 0 ? mc / vc : 0,
		       c->frames ? (double)c->syscalls / (double)c->frames : 0,
		       c->sent, c->received, c->sent > c->received ? c->sent - c->received : 0);
	}
	for (i = 0; i < ncell; i++)
		if (cells[i].method >= BT_VRFD)
			printf("# ring drops %s %u %s: %llu\n", cells[i].tx ? "TX" : "RX",
			       cells[i].size, bt_name(&cells[i], name), cells[i].ring_drops);
	printf("# %d repetitions of %.1f s per cell, interleaved; frames/s are medians\n", reps, bt_secs);
	return 0;
}
