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
 * Output: one line per cell:
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

enum bt_method { BT_WRITE, BT_VHOST, BT_VRFD, BT_VRFD_MORE };

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
};

static int bt_tap = -1;
static uint8_t *bt_arena;	/* rings and buffers; one vhost memory region */
static double bt_secs = 1.5;
static double bt_t0, bt_t1;	/* start and end of the last measuring loop */
static double bt_c0, bt_c1;	/* consumer CPU seconds at those times */
static int bt_worker = -1;	/* pid of our vhost worker thread, if any */

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
	double now = bt_now();

	if (end) {
		bt_t1 = now;
		bt_c1 = bt_cpu();
	} else {
		bt_t0 = now;
		bt_c0 = bt_cpu();
	}
	return now;
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
		if (!(tries & 63) && bt_now() >= end)
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
 */
static void bt_vhost_wait(struct bt_vhost *v, struct bt_cell *c)
{
	struct pollfd p = { .fd = v->call, .events = POLLIN };
	uint64_t cnt;

	c->syscalls++;
	if (read(v->call, &cnt, sizeof(cnt)) < 0 && errno == EAGAIN) {
		c->syscalls += 2;
		poll(&p, 1, 100);
		if (read(v->call, &cnt, sizeof(cnt)) < 0)
			cnt = 0;
	}
}

/**
 * bt_run_vhost() - one repetition through vhost-net
 * @c: the cell
 *
 * Return: frames moved.
 */
static unsigned long long bt_run_vhost(struct bt_cell *c)
{
	unsigned long long n = 0;
	struct bt_vhost v;
	struct iovec iov;
	unsigned int i;
	uint32_t len;
	double end;
	void *tok;

	if (bt_vhost_open(&v, c->tx ? 1 : 0))
		return 0;
	for (i = 0; i < BT_RING; i++) {
		iov.iov_base = bt_buf(i);
		iov.iov_len = c->tx ? BT_HDR + c->size : BT_BUFSZ;
		if (c->tx) {
			bt_frame(bt_buf(i), c->size);
			vringfd_ring_add(&v.r, &iov, 1, NULL, 0, bt_buf(i));
		} else {
			vringfd_ring_add(&v.r, NULL, 0, &iov, 1, bt_buf(i));
		}
	}
	vringfd_ring_publish(&v.r);
	bt_vhost_kick(&v, c);
	end = bt_mark(false) + bt_secs;
	while (bt_now() < end) {
		unsigned int got = 0;

		while ((tok = vringfd_ring_get_used(&v.r, &len))) {
			iov.iov_base = tok;
			iov.iov_len = c->tx ? BT_HDR + c->size : BT_BUFSZ;
			if (c->tx)
				vringfd_ring_add(&v.r, &iov, 1, NULL, 0, tok);
			else
				vringfd_ring_add(&v.r, NULL, 0, &iov, 1, tok);
			got++;
		}
		n += got;
		if (got) {
			vringfd_ring_publish(&v.r);
			bt_vhost_kick(&v, c);
		} else {
			bt_vhost_wait(&v, c);
		}
	}
	bt_mark(true);
	bt_vhost_close(&v);
	bt_worker = -1;
	return n;
}

/* ---- (c) vringfd ------------------------------------------------------------- */

/**
 * bt_run_vringfd() - one repetition through a vring fd
 * @c: the cell
 *
 * Return: frames moved.
 */
static unsigned long long bt_run_vringfd(struct bt_cell *c)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	unsigned long long n = 0;
	struct vringfd_ring r;
	struct vringfd_tap a;
	struct iovec iov;
	unsigned int i;
	uint32_t len;
	int fd, posted = 0;
	double end;
	void *tok;
	char dummy;

	if (vringfd_ring_init(&r, bt_arena, BT_RING, 4096, 0) < 0)
		return 0;
	fd = vringfd_create(BT_RING, r.vr.desc, r.vr.avail, r.vr.used, &r.last_used, 0);
	memset(&a, 0, sizeof(a));
	a.tap_fd = bt_tap;
	a.dir = c->tx ? VRINGFD_DIR_TX : VRINGFD_DIR_RX;
	a.vnet_hdr_len = BT_HDR;
	if (fd < 0 || vringfd_attach_tap_ex(fd, &a) < 0) {
		fprintf(stderr, "tap_bench: vringfd: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		vringfd_ring_fini(&r);
		return 0;
	}
	p.fd = fd;
	for (i = 0; i < BT_RING; i++)
		bt_frame(bt_buf(i), c->size);
	if (!c->tx) {
		for (i = 0; i < c->batch; i++) {
			iov.iov_base = bt_buf(i);
			iov.iov_len = BT_BUFSZ;
			vringfd_ring_add(&r, NULL, 0, &iov, 1, bt_buf(i));
		}
		vringfd_ring_publish(&r);
	}
	end = bt_mark(false) + bt_secs;
	while (bt_now() < end) {
		ssize_t k;

		if (c->tx) {
			for (i = 0; i < c->batch; i++) {
				iov.iov_base = bt_buf(posted++ % BT_RING);
				iov.iov_len = BT_HDR + c->size;
				vringfd_ring_add(&r, &iov, 1, NULL, 0, iov.iov_base);
			}
			vringfd_ring_publish(&r);
			c->syscalls++;
			k = write(fd, "", 1);
			while ((tok = vringfd_ring_get_used(&r, &len)))
				;
		} else {
			unsigned int got = 0;

			/* read() pulls; if nothing was queued, wait in poll(),
			 * which pulls too: count what lands in the used ring */
			c->syscalls++;
			k = read(fd, &dummy, 0);
			if (k == 0) {
				c->syscalls++;
				poll(&p, 1, 100);
			}
			while ((tok = vringfd_ring_get_used(&r, &len))) {
				iov.iov_base = tok;
				iov.iov_len = BT_BUFSZ;
				vringfd_ring_add(&r, NULL, 0, &iov, 1, tok);
				got++;
			}
			vringfd_ring_publish(&r);
			if (k >= 0)
				k = got;
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
	vringfd_ring_fini(&r);
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
	case BT_VRFD:
		snprintf(buf, 32, "vringfd b%u", c->batch);
		return buf;
	default:
		snprintf(buf, 32, "vringfd b%u MSG_MORE", c->batch);
		return buf;
	}
}

/**
 * bt_run() - one repetition of a cell, counters included
 * @c: the cell
 */
static void bt_run(struct bt_cell *c)
{
	unsigned long long rx0 = bt_ifstat("rx_packets");
	unsigned long long tx0 = bt_ifstat("tx_packets") + bt_ifstat("tx_dropped");
	unsigned long long n = 0;
	double dt;
	char name[32];

	bt_t0 = bt_t1 = bt_c0 = bt_c1 = 0;

	switch (c->method) {
	case BT_WRITE:
		n = bt_run_write(c);
		break;
	case BT_VHOST:
		n = bt_run_vhost(c);
		break;
	case BT_VRFD:
		n = bt_run_vringfd(c);
		break;
	case BT_VRFD_MORE:
		bt_set_tx_batch(0);
		n = bt_run_vringfd(c);
		bt_set_tx_batch(1);
		break;
	}
	dt = bt_t1 - bt_t0;
	fprintf(stderr, "# %s %u %s: %llu frames in %.2f s\n", c->tx ? "TX" : "RX", c->size,
		bt_name(c, name), n, dt);
	c->fpc[c->nrep] = bt_c1 > bt_c0 ? (double)n / (bt_c1 - bt_c0) : 0;
	c->fps[c->nrep++] = dt > 0 ? (double)n / dt : 0;
	c->frames += n;
	if (c->tx) {
		c->sent += n;
		c->received += bt_ifstat("rx_packets") - rx0;
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

	if (getenv("BENCH_REPS"))
		reps = atoi(getenv("BENCH_REPS"));
	if (reps < 1 || reps > BT_MAXREP)
		reps = 5;
	if (getenv("BENCH_SECS"))
		bt_secs = atof(getenv("BENCH_SECS"));
	if (bt_secs <= 0)
		bt_secs = 1.5;
	full = getenv("BENCH_FULL") && atoi(getenv("BENCH_FULL"));
	nb = full ? 4 : 1;
	signal(SIGPIPE, SIG_IGN);
	{
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
	bt_arena = mmap(NULL, BT_ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bt_arena == MAP_FAILED)
		return 1;
	memset(bt_arena, 0, BT_ARENA);

	for (tx = getenv("BENCH_RX_ONLY") ? 0 : 1; tx >= 0; tx--) {
		for (si = 0; si < 2; si++) {
			first = ncell;
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si], .method = BT_WRITE };
			cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si], .method = BT_VHOST };
			for (b = 0; b < nb; b++)
				cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si],
								   .method = BT_VRFD, .batch = batches[b] };
			if (tx)
				cells[ncell++] = (struct bt_cell){ .tx = tx, .size = sizes[si],
								   .method = BT_VRFD_MORE, .batch = 64 };
			pg = tx ? 0 : bt_pktgen_start(sizes[si]);
			if (pg < 0) {
				fprintf(stderr, "tap_bench: pktgen not available (modprobe pktgen)\n");
				return 1;
			}
			for (i = 0; i < reps; i++)		/* interleaved: a b c a b c */
				for (j = first; j < ncell; j++)
					bt_run(&cells[j]);
			if (!tx)
				bt_pktgen_stop(pg);
		}
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
		if (cells[i].method == BT_VRFD || cells[i].method == BT_VRFD_MORE)
			printf("# ring drops %s %u %s: %llu\n", cells[i].tx ? "TX" : "RX",
			       cells[i].size, bt_name(&cells[i], name), cells[i].ring_drops);
	printf("# %d repetitions of %.1f s per cell, interleaved; frames/s are medians\n", reps, bt_secs);
	return 0;
}
