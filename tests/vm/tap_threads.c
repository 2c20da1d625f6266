// SPDX-License-Identifier: GPL-2.0
/*
 * tap_threads.c - rings driven from several threads at once (the module
 * side of multi-threaded pumping): rings of different threads run in
 * parallel in the kernel, and one ring used by two threads at once is
 * serialised correctly.
 *
 *   parallel_*   two TX rings on two taps, one thread each, bursts of
 *                write(): both threads are inside write() at the same time
 *                at least once (the highest count of threads between the
 *                two sides of a write(), kept in a shared atomic, reaches
 *                2 within a bounded number of calls), and every count is
 *                exact (write() answers, used entries, the ring's frames,
 *                the taps' rx_packets).  SKIP on a one-CPU guest.  This
 *                shows the calls overlap; stalled_* shows that they do
 *                not wait for each other.
 *   stalled_*    a TX write() stuck inside the module on a userfaultfd page
 *                under its frame (it holds everything a walk of its ring
 *                holds) does not stop write(), read(), poll() and GET_STATE
 *                on rings of another tap: no lock of the data path is
 *                shared between rings.  A shared lock hangs the test (the
 *                harness's timeout reports it).
 *   shared_*     one tap with a TX ring and an RX ring, both used by two
 *                threads at once: each thread posts seeded random bursts
 *                and calls write() on the TX ring and poll(), read() or
 *                write() (a kick) on the RX ring.  Every frame carries a
 *                sequence number: each TX frame reaches the tap exactly
 *                once (an AF_PACKET socket on the tap counts them), each
 *                injected RX frame lands in the RX ring exactly once and
 *                intact; each head is completed once (the driver ring
 *                checks every used id, the test every TX token); the kernel's
 *                indices (GET_STATE) end where the counts say; stats.calls
 *                of the TX ring equals the write() calls made; no call
 *                answers an error.
 *   shared_ctl_* the same, with a third thread issuing GET_STATE,
 *                GET_STATS and SET_MEM_TABLE (the same identity table
 *                again) on both rings all the while.
 *   shared_calls_counted  two threads calling write(), read() and poll()
 *                on one ring at once: stats.calls counts every call.
 *
 * Seeded (TAP_THREADS_SEED, default 1): the bursts, and the choice among
 * poll(), read() and write() on the RX ring, are drawn with rand_r(); the
 * interleaving of the threads is the scheduler's.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>

#include "tap_common.h"

#define TAPA "vrth0"
#define TAPB "vrth1"
#define TAPS "vrth2"

#define NUM 256			/* ring size */
#define SLOT 2048		/* bytes per frame buffer */
#define ETH_THREADS 0x88b5	/* the test ethertype (tc_frame()) */

/* parallel_*: bursts of a full ring per write() */
#define PAR_ROUNDS_MIN 16	/* rounds each thread makes at least */
#define PAR_ROUNDS_MAX 2000	/* the bound on retries for the overlap */

/* shared_*: frames per direction, the RX injector's window */
#define SH_TX 20000
#define SH_RX 10000
#define SH_WINDOW 128
#define SH_STALL 20000		/* calls without progress: give up */
#define SH_CALLS 50000		/* shared_calls_counted: rounds per thread */

/* ---- frames ------------------------------------------------------------- */

/**
 * frame_len() - the length of frame @seq of stream @stream
 * @stream: 'T' (TX ring) or 'R' (injected for the RX ring)
 * @seq: sequence number
 *
 * Return: 60..315 bytes.
 */
static size_t frame_len(char stream, uint32_t seq)
{
	return 60 + ((seq * 7u + (unsigned char)stream) & 255u);
}

/**
 * frame_build() - a test frame carrying its stream and sequence number
 * @buf: at least frame_len() bytes
 * @stream: 'T' or 'R'
 * @seq: sequence number
 *
 * tc_frame()'s pattern, then the sequence number (little-endian) at byte
 * 14 and the stream at byte 18.
 * Return: its length.
 */
static size_t frame_build(uint8_t *buf, char stream, uint32_t seq)
{
	size_t len = frame_len(stream, seq);

	tc_frame(buf, len, seq);
	buf[14] = (uint8_t)seq;
	buf[15] = (uint8_t)(seq >> 8);
	buf[16] = (uint8_t)(seq >> 16);
	buf[17] = (uint8_t)(seq >> 24);
	buf[18] = (uint8_t)stream;
	return len;
}

/**
 * frame_check() - is @buf an intact frame of @stream?
 * @buf: frame
 * @len: its length
 * @stream: 'T' or 'R'
 * @limit: sequence numbers go up to @limit - 1
 * @seq: set to its sequence number
 *
 * Return: 1 when intact, 0 when of another ethertype or stream (not ours),
 * -1 when ours but damaged.
 */
static int frame_check(const uint8_t *buf, size_t len, char stream,
		       uint32_t limit, uint32_t *seq)
{
	uint8_t ref[SLOT];

	if (len < 19 || buf[12] != 0x88 || buf[13] != 0xb5 || buf[18] != (uint8_t)stream)
		return 0;
	*seq = buf[14] | buf[15] << 8 | buf[16] << 16 | (uint32_t)buf[17] << 24;
	if (*seq >= limit || len != frame_len(stream, *seq))
		return -1;
	frame_build(ref, stream, *seq);
	return memcmp(ref, buf, len) ? -1 : 1;
}

/* ---- parallel_*: two rings, two threads --------------------------------- */

static atomic_int par_inside;	/* threads between the two sides of a write() */
static atomic_int par_max;	/* the most seen at once */

/**
 * struct par - one thread of parallel_*: a TX ring on its own tap
 * @t: the ring
 * @ifname: its tap
 * @bufs: NUM frame buffers
 * @th: the thread
 * @rounds: write() calls made (one full ring each)
 * @posted: frames posted
 * @answered: write() answers summed
 * @used: used entries collected
 * @err: first unexpected answer (errno), 0: none
 */
struct par {
	struct tc_ring t;
	const char *ifname;
	uint8_t *bufs;
	pthread_t th;
	int rounds;
	long posted, answered, used;
	int err;
};

/**
 * par_note() - keep the most threads seen inside write() at once
 * @in: threads inside, this one included, as it entered
 */
static void par_note(int in)
{
	int m = atomic_load(&par_max);

	while (in > m && !atomic_compare_exchange_weak(&par_max, &m, in))
		;
}

/**
 * par_thread() - post a full ring, write(), collect; until both threads
 * were seen inside write() at once and PAR_ROUNDS_MIN rounds were made, at
 * most PAR_ROUNDS_MAX rounds
 * @arg: struct par
 *
 * Return: NULL.
 */
static void *par_thread(void *arg)
{
	struct par *p = arg;
	struct iovec v;
	ssize_t r;
	int i;

	while (p->rounds < PAR_ROUNDS_MAX &&
	       (p->rounds < PAR_ROUNDS_MIN || atomic_load(&par_max) < 2)) {
		for (i = 0; i < NUM; i++) {
			v.iov_base = p->bufs + (size_t)i * SLOT;
			v.iov_len = frame_len('T', (uint32_t)i);
			if (vringfd_ring_add(&p->t.r, &v, 1, NULL, 0, v.iov_base) < 0)
				break;
			p->posted++;
		}
		vringfd_ring_publish(&p->t.r);
		par_note(atomic_fetch_add(&par_inside, 1) + 1);
		r = write(p->t.fd, "", 1);
		atomic_fetch_sub(&par_inside, 1);
		p->rounds++;
		if (r < 0 && !p->err)
			p->err = errno;
		if (r > 0)
			p->answered += r;
		p->used += tc_drain_used(&p->t, NULL);
	}
	return NULL;
}

/**
 * test_parallel() - two TX rings on two taps, one thread each, run in
 * write() at the same time; every count exact
 */
static void test_parallel(void)
{
	static const char *const ifs[2] = { TAPA, TAPB };
	struct vringfd_stats st;
	struct par p[2];
	long long rx0[2];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int i, tap, ok;

	if (ncpu < 2) {
		result_skip("parallel_two_rings_inside_write_at_once",
			    "the guest has %ld CPU (run with --smp 2 or more)", ncpu);
		result_skip("parallel_counts_exact", "the guest has %ld CPU", ncpu);
		return;
	}
	memset(p, 0, sizeof(p));
	for (i = 0; i < 2; i++) {
		p[i].ifname = ifs[i];
		p[i].t.fd = -1;
		p[i].bufs = mmap(NULL, (size_t)NUM * SLOT, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		tap = tc_tap_open(ifs[i], IFF_TAP | IFF_NO_PI);
		if (p[i].bufs == MAP_FAILED || tap < 0 || tc_ring_new(&p[i].t, NUM, 0) ||
		    tc_attach(p[i].t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
			result_fail("parallel_setup", "%s: %s", ifs[i], strerror(errno));
			goto out;
		}
		close(tap);
		for (int k = 0; k < NUM; k++)
			frame_build(p[i].bufs + (size_t)k * SLOT, 'T', (uint32_t)k);
		rx0[i] = tc_ifstat(ifs[i], "rx_packets");
	}
	for (i = 0; i < 2; i++)
		pthread_create(&p[i].th, NULL, par_thread, &p[i]);
	for (i = 0; i < 2; i++)
		pthread_join(p[i].th, NULL);
	printf("# parallel: rounds %d + %d, frames %ld + %ld, most threads inside write() at once %d\n",
	       p[0].rounds, p[1].rounds, p[0].posted, p[1].posted, atomic_load(&par_max));
	result_check(atomic_load(&par_max) == 2, "parallel_two_rings_inside_write_at_once",
		     "never both inside write() in %d + %d calls", p[0].rounds, p[1].rounds);
	ok = 1;
	for (i = 0; i < 2; i++) {
		memset(&st, 0, sizeof(st));
		vringfd_get_stats(p[i].t.fd, &st);
		if (p[i].err || p[i].answered != p[i].posted || p[i].used != p[i].posted ||
		    (long)st.frames != p[i].posted || (long)st.calls != p[i].rounds ||
		    tc_ifstat(ifs[i], "rx_packets") - rx0[i] != p[i].posted) {
			result_fail("parallel_counts_exact",
				    "%s: posted %ld write() answered %ld (errno %d) used %ld frames %llu calls %llu of %d rx_packets +%lld",
				    ifs[i], p[i].posted, p[i].answered, p[i].err, p[i].used,
				    (unsigned long long)st.frames, (unsigned long long)st.calls,
				    p[i].rounds, tc_ifstat(ifs[i], "rx_packets") - rx0[i]);
			ok = 0;
		}
	}
	if (ok)
		result_pass("parallel_counts_exact");
out:
	for (i = 0; i < 2; i++) {
		tc_ring_free(&p[i].t);
		if (p[i].bufs && p[i].bufs != MAP_FAILED)
			munmap(p[i].bufs, (size_t)NUM * SLOT);
	}
}

/* ---- stalled_*: a stuck walker of one ring, the others go on ------------ */

/**
 * test_stalled() - rings of other taps keep working while a walker of one
 * ring is stuck inside the module
 */
static void test_stalled(void)
{
	struct uffdio_register reg;
	struct uffdio_zeropage zp;
	struct tc_ring a, tx, rx;
	struct tc_writer w;
	struct iovec v;
	struct pollfd pf;
	struct vringfd_state state;
	uint8_t *page = MAP_FAILED, *bufs = MAP_FAILED;
	int uffd, tap, inj = -1, r, n, i, started = 0;
	pthread_t th;

	memset(&a, 0, sizeof(a));
	memset(&tx, 0, sizeof(tx));
	memset(&rx, 0, sizeof(rx));
	a.fd = tx.fd = rx.fd = -1;
	uffd = tc_uffd_open("stalled_other_rings_move");
	if (uffd < 0)
		return;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bufs = mmap(NULL, 64UL * SLOT, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (page == MAP_FAILED || bufs == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		result_fail("stalled_setup", "userfaultfd range: %s", strerror(errno));
		goto out;
	}
	/* ring A on TAPA: one chain whose frame is on the missing page */
	tap = tc_tap_open(TAPA, IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&a, 8, 0) || tc_attach(a.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("stalled_setup", "ring A: %s", strerror(errno));
		goto out;
	}
	close(tap);
	v.iov_base = page;
	v.iov_len = 60;
	vringfd_ring_add(&a.r, &v, 1, NULL, 0, page);
	vringfd_ring_publish(&a.r);
	/* on TAPB: a TX ring and an RX ring */
	tap = tc_tap_open(TAPB, IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&tx, 64, 0) || tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0) ||
	    tc_ring_new(&rx, 64, 0) || tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 0, 0)) {
		result_fail("stalled_setup", "rings B: %s", strerror(errno));
		goto out;
	}
	close(tap);
	tc_wait_carrier(TAPB);
	inj = tc_packet_socket(TAPB);
	if (inj < 0) {
		result_fail("stalled_setup", "packet socket: %s", strerror(errno));
		goto out;
	}

	w.fd = a.fd;
	pthread_create(&th, NULL, tc_writer_run, &w);
	started = 1;
	pf.fd = uffd;
	pf.events = POLLIN;
	if (poll(&pf, 1, 5000) != 1) {
		result_fail("stalled_other_rings_move", "write() on ring A did not fault on the page");
		goto release;
	}
	/* ring A's walker is in the module now, with its ring's locks held */
	for (i = 0; i < 32; i++) {
		v.iov_base = bufs + (size_t)i * SLOT;
		v.iov_len = frame_build(v.iov_base, 'T', (uint32_t)i);
		vringfd_ring_add(&tx.r, &v, 1, NULL, 0, v.iov_base);
	}
	vringfd_ring_publish(&tx.r);
	r = (int)write(tx.fd, "", 1);
	n = tc_drain_used(&tx, NULL);
	result_check(r == 32 && n == 32, "stalled_other_ring_write",
		     "write() on ring B answered %d (%s), %d used", r,
		     r < 0 ? strerror(errno) : "-", n);

	for (i = 32; i < 64; i++) {
		v.iov_base = bufs + (size_t)i * SLOT;
		v.iov_len = SLOT;
		vringfd_ring_add(&rx.r, NULL, 0, &v, 1, v.iov_base);
	}
	vringfd_ring_publish(&rx.r);
	{
		uint8_t f[SLOT];
		size_t fl = frame_build(f, 'R', 0);

		r = (int)send(inj, f, fl, 0);
	}
	/* the frame reaches the tap's queue from the stack; poll() waits for it */
	pf.fd = rx.fd;
	pf.events = POLLIN;
	n = 0;
	for (i = 0; i < 50 && !n; i++)
		if (poll(&pf, 1, 100) == 1 && (pf.revents & POLLIN))
			n = tc_drain_used(&rx, NULL);
	result_check(r > 0 && n == 1 && !(pf.revents & (POLLERR | POLLHUP)),
		     "stalled_other_ring_poll", "send %d, poll revents %#x, used %d",
		     r, pf.revents, n);
	r = (int)read(rx.fd, &n, 0);
	result_check(r == 0, "stalled_other_ring_read", "read() answered %d (%s)", r,
		     r < 0 ? strerror(errno) : "-");
	r = vringfd_get_state(tx.fd, &state);
	result_check(r == 0 && state.used_idx == 32, "stalled_other_ring_get_state",
		     "GET_STATE %d used_idx %u", r, r ? 0 : state.used_idx);
	result_pass("stalled_other_rings_move");

release:
	memset(&zp, 0, sizeof(zp));
	zp.range.start = (uintptr_t)page;
	zp.range.len = 4096;
	if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
		result_fail("stalled_release", "UFFDIO_ZEROPAGE: %s", strerror(errno));
	if (started) {
		pthread_join(th, NULL);
		result_check(w.ret == 1, "stalled_walker_returns",
			     "the stuck write() answered %d (%s)", w.ret, strerror(w.err));
	}
out:
	if (inj >= 0)
		close(inj);
	tc_ring_free(&tx);
	tc_ring_free(&rx);
	tc_ring_free(&a);
	close(uffd);
	if (page != MAP_FAILED)
		munmap(page, 4096);
	if (bufs != MAP_FAILED)
		munmap(bufs, 64UL * SLOT);
}

/* ---- shared_*: one ring, two threads ------------------------------------ */

/**
 * struct shring - a ring shared by the threads, its driver side under @mx
 * @t: the ring
 * @mx: serialises the driver side (add, publish, collect): the library's
 *	rule, one thread at a time per side; the vring fd calls are made
 *	without it
 * @free: RX: free frame slots (a stack of indices)
 * @nfree: RX: entries in @free
 */
struct shring {
	struct tc_ring t;
	pthread_mutex_t mx;
	unsigned int free[2 * NUM];
	unsigned int nfree;
};

/**
 * struct shared - the state of one shared_* run
 * @prefix: "shared" or "shared_ctl"
 * @tx: the TX ring
 * @rx: the RX ring
 * @txbufs: SH_TX frame buffers, one per sequence number
 * @rxbufs: 2 * NUM RX slots
 * @sock: AF_PACKET socket on the tap: injects RX frames, captures TX ones
 * @tx_next: next TX sequence number to post (under @tx.mx)
 * @tx_done: completions per TX sequence number (under @tx.mx)
 * @tx_completed: TX completions so far
 * @tx_answered: write() answers on the TX ring summed
 * @tx_calls: write() calls on the TX ring
 * @tx_seen: captures per TX sequence number (capture thread)
 * @tx_captured: TX frames captured
 * @rx_injected: RX frames sent into the tap
 * @rx_seen: deliveries per RX sequence number (under @rx.mx)
 * @rx_delivered: RX frames delivered
 * @rx_bad: RX frames of ours but damaged (under @rx.mx)
 * @rx_calls: poll(), read(), write() calls on the RX ring
 * @ctl_ops: ioctls made by the control thread
 * @ctl_bad: first bad control answer, as text ("" : none)
 * @bad_call: first unexpected answer of a call, as text ("": none)
 * @bad_mx: serialises the first writes of @bad_call and @ctl_bad
 * @done: the workers finished (or gave up)
 * @stalled: a worker gave up (SH_STALL calls without progress)
 * @region: the identity memory table (shared_ctl)
 * @seed: the seed
 * @nworkers: workers started (each seeds rand_r() with @seed and its number)
 */
struct shared {
	const char *prefix;
	struct shring tx, rx;
	uint8_t *txbufs, *rxbufs;
	int sock;
	uint32_t tx_next;
	uint8_t tx_done[SH_TX];
	atomic_long tx_completed, tx_answered, tx_calls;
	uint8_t tx_seen[SH_TX];
	atomic_long tx_captured;
	atomic_long rx_injected;
	uint8_t rx_seen[SH_RX];
	atomic_long rx_delivered;
	long rx_bad;
	atomic_long rx_calls;
	atomic_long ctl_ops;
	char ctl_bad[160];
	char bad_call[160];
	pthread_mutex_t bad_mx;
	atomic_int done, stalled;
	struct vringfd_mem_region region;
	unsigned int seed;
	atomic_uint nworkers;
};

/**
 * shared_bad() - record the first unexpected answer
 * @sh: the run
 * @what: the buffer to record into (@sh->bad_call or @sh->ctl_bad)
 * @fmt: printf format
 */
static void __attribute__((format(printf, 3, 4)))
shared_bad(struct shared *sh, char *what, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&sh->bad_mx);
	if (!what[0]) {
		va_start(ap, fmt);
		vsnprintf(what, 160, fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&sh->bad_mx);
}

/**
 * shared_tx_step() - collect TX completions, post a random burst, write()
 * @sh: the run
 * @seed: the thread's rand_r() state
 *
 * Return: 1 when something moved (posted, completed or consumed).
 */
static int shared_tx_step(struct shared *sh, unsigned int *seed)
{
	unsigned int burst = 1 + (unsigned int)rand_r(seed) % 64, i;
	struct iovec v;
	uint32_t len;
	uint8_t *b;
	int moved = 0;
	ssize_t r;

	pthread_mutex_lock(&sh->tx.mx);
	while ((b = vringfd_ring_get_used(&sh->tx.t.r, &len))) {
		uint32_t seq = (uint32_t)((b - sh->txbufs) / SLOT);

		sh->tx_done[seq]++;
		atomic_fetch_add(&sh->tx_completed, 1);
		moved = 1;
	}
	for (i = 0; i < burst && sh->tx_next < SH_TX; i++) {
		v.iov_base = sh->txbufs + (size_t)sh->tx_next * SLOT;
		v.iov_len = frame_len('T', sh->tx_next);
		if (vringfd_ring_add(&sh->tx.t.r, &v, 1, NULL, 0, v.iov_base) < 0)
			break;
		sh->tx_next++;
		moved = 1;
	}
	vringfd_ring_publish(&sh->tx.t.r);
	pthread_mutex_unlock(&sh->tx.mx);

	r = write(sh->tx.t.fd, "", 1);
	atomic_fetch_add(&sh->tx_calls, 1);
	if (r < 0)
		shared_bad(sh, sh->bad_call, "TX write(): %s", strerror(errno));
	else if (r > 0) {
		atomic_fetch_add(&sh->tx_answered, r);
		moved = 1;
	}
	return moved;
}

/**
 * shared_rx_collect() - collect RX completions, check and count each frame,
 * post every free slot
 * @sh: the run
 *
 * Context: @sh->rx.mx held.
 * Return: 1 when a frame was delivered.
 */
static int shared_rx_collect(struct shared *sh)
{
	struct iovec v;
	uint32_t len, seq;
	uint8_t *b;
	int moved = 0, c;

	while ((b = vringfd_ring_get_used(&sh->rx.t.r, &len))) {
		c = frame_check(b, len, 'R', SH_RX, &seq);
		if (c > 0) {
			sh->rx_seen[seq]++;
			atomic_fetch_add(&sh->rx_delivered, 1);
			moved = 1;
		} else if (c < 0) {
			sh->rx_bad++;
		}
		sh->rx.free[sh->rx.nfree++] = (unsigned int)((b - sh->rxbufs) / SLOT);
	}
	while (sh->rx.nfree) {
		v.iov_base = sh->rxbufs + (size_t)sh->rx.free[sh->rx.nfree - 1] * SLOT;
		v.iov_len = SLOT;
		if (vringfd_ring_add(&sh->rx.t.r, NULL, 0, &v, 1, v.iov_base) < 0)
			break;
		sh->rx.nfree--;
	}
	vringfd_ring_publish(&sh->rx.t.r);
	return moved;
}

/**
 * shared_rx_step() - collect RX completions, then one of poll(), read(),
 * write() on the RX ring
 * @sh: the run
 * @seed: the thread's rand_r() state
 *
 * Return: 1 when something moved.
 */
static int shared_rx_step(struct shared *sh, unsigned int *seed)
{
	struct pollfd pf = { .fd = sh->rx.t.fd, .events = POLLIN };
	int moved, how = rand_r(seed) % 3;
	ssize_t r;
	char c;

	pthread_mutex_lock(&sh->rx.mx);
	moved = shared_rx_collect(sh);
	pthread_mutex_unlock(&sh->rx.mx);
	if (how == 0) {
		r = poll(&pf, 1, 2);
		if (r < 0 || (r > 0 && (pf.revents & (POLLERR | POLLHUP | POLLNVAL))))
			shared_bad(sh, sh->bad_call, "RX poll(): %zd revents %#x (%s)", r,
				   pf.revents, r < 0 ? strerror(errno) : "-");
	} else {
		r = how == 1 ? read(sh->rx.t.fd, &c, 0) : write(sh->rx.t.fd, "", 1);
		if (r < 0)
			shared_bad(sh, sh->bad_call, "RX %s(): %s",
				   how == 1 ? "read" : "write", strerror(errno));
	}
	atomic_fetch_add(&sh->rx_calls, 1);
	return moved;
}

/**
 * shared_finished() - every TX frame completed and every RX frame delivered
 * @sh: the run
 *
 * Return: true when so.
 */
static bool shared_finished(struct shared *sh)
{
	return atomic_load(&sh->tx_completed) >= SH_TX &&
	       atomic_load(&sh->rx_delivered) >= SH_RX;
}

/**
 * shared_worker() - thread: TX and RX steps until everything moved
 * @arg: struct shared
 *
 * Gives up after SH_STALL steps in a row without progress (lost frames).
 * Return: NULL.
 */
static void *shared_worker(void *arg)
{
	struct shared *sh = arg;
	unsigned int seed = sh->seed * 2 + atomic_fetch_add(&sh->nworkers, 1);
	int idle = 0;

	while (!shared_finished(sh) && !atomic_load(&sh->stalled)) {
		int moved = shared_tx_step(sh, &seed);

		moved |= shared_rx_step(sh, &seed);
		idle = moved ? 0 : idle + 1;
		if (idle >= SH_STALL)
			atomic_store(&sh->stalled, 1);
	}
	return NULL;
}

/**
 * shared_injector() - thread: send the RX frames into the tap, at most
 * SH_WINDOW ahead of the deliveries (the tap's queue never overflows)
 * @arg: struct shared
 *
 * Return: NULL.
 */
static void *shared_injector(void *arg)
{
	struct shared *sh = arg;
	uint8_t f[SLOT];
	uint32_t seq;
	size_t len;

	for (seq = 0; seq < SH_RX && !atomic_load(&sh->stalled) && !atomic_load(&sh->done); ) {
		if (seq - atomic_load(&sh->rx_delivered) >= SH_WINDOW) {
			usleep(1000);
			continue;
		}
		len = frame_build(f, 'R', seq);
		if (send(sh->sock, f, len, 0) == (ssize_t)len) {
			atomic_fetch_add(&sh->rx_injected, 1);
			seq++;
		} else {
			usleep(1000);	/* ENOBUFS: the qdisc is full, try again */
		}
	}
	return NULL;
}

/**
 * shared_capture() - thread: count the TX frames that reach the tap
 * @arg: struct shared
 *
 * Return: NULL.
 */
static void *shared_capture(void *arg)
{
	struct shared *sh = arg;
	static uint8_t rb[SLOT];
	struct pollfd pf = { .fd = sh->sock, .events = POLLIN };
	uint32_t seq;
	ssize_t n;

	while (atomic_load(&sh->tx_captured) < SH_TX) {
		if (poll(&pf, 1, 100) != 1) {
			if (atomic_load(&sh->done))
				break;	/* the workers are gone: nothing more comes */
			continue;
		}
		while ((n = recv(sh->sock, rb, sizeof(rb), MSG_DONTWAIT)) > 0) {
			if (frame_check(rb, (size_t)n, 'T', SH_TX, &seq) > 0) {
				sh->tx_seen[seq]++;
				atomic_fetch_add(&sh->tx_captured, 1);
			}
		}
	}
	return NULL;
}

/**
 * shared_state_sane() - GET_STATE of a shared ring: not broken, indices
 * within one ring of each other
 * @sh: the run
 * @r: the ring
 * @name: "TX" or "RX"
 */
static void shared_state_sane(struct shared *sh, struct shring *r, const char *name)
{
	struct vringfd_state st;

	if (vringfd_get_state(r->t.fd, &st))
		shared_bad(sh, sh->ctl_bad, "%s GET_STATE: %s", name, strerror(errno));
	else if ((st.flags & VRINGFD_STATE_BROKEN) ||
		 (uint16_t)(st.last_avail - st.used_idx) > NUM)
		shared_bad(sh, sh->ctl_bad, "%s GET_STATE: flags %#x last_avail %u used_idx %u",
			   name, st.flags, st.last_avail, st.used_idx);
}

/**
 * shared_ctl() - thread: GET_STATE, GET_STATS and SET_MEM_TABLE (the same
 * identity table) on both rings while the workers run
 * @arg: struct shared
 *
 * Return: NULL.
 */
static void *shared_ctl(void *arg)
{
	struct shared *sh = arg;
	struct vringfd_stats st;
	struct shring *rings[2] = { &sh->tx, &sh->rx };
	int i;

	while (!atomic_load(&sh->done)) {
		for (i = 0; i < 2; i++) {
			shared_state_sane(sh, rings[i], i ? "RX" : "TX");
			if (vringfd_get_stats(rings[i]->t.fd, &st))
				shared_bad(sh, sh->ctl_bad, "GET_STATS: %s", strerror(errno));
			if (vringfd_set_mem_table(rings[i]->t.fd, &sh->region, 1))
				shared_bad(sh, sh->ctl_bad, "SET_MEM_TABLE: %s", strerror(errno));
			atomic_fetch_add(&sh->ctl_ops, 3);
		}
		sched_yield();
	}
	return NULL;
}

/**
 * shared_count() - how many entries of @seen are not exactly 1
 * @seen: counts per sequence number
 * @n: entries
 * @missing: set to the entries at 0
 *
 * Return: entries above 1 (duplicates).
 */
static long shared_count(const uint8_t *seen, long n, long *missing)
{
	long i, dup = 0;

	*missing = 0;
	for (i = 0; i < n; i++) {
		*missing += seen[i] == 0;
		dup += seen[i] > 1;
	}
	return dup;
}

/**
 * shared_check() - the verdicts of one run
 * @sh: the run (threads joined)
 */
static void shared_check(struct shared *sh)
{
	struct vringfd_state txs, rxs;
	struct vringfd_stats st;
	char name[64];
	long dup, miss;
	long i, twice = 0;

	memset(&txs, 0, sizeof(txs));
	memset(&rxs, 0, sizeof(rxs));
	memset(&st, 0, sizeof(st));
	vringfd_get_state(sh->tx.t.fd, &txs);
	vringfd_get_state(sh->rx.t.fd, &rxs);
	vringfd_get_stats(sh->tx.t.fd, &st);
	printf("# %s: seed %u, TX %ld frames in %ld write() calls, RX %ld frames in %ld calls, control ioctls %ld\n",
	       sh->prefix, sh->seed, atomic_load(&sh->tx_completed), atomic_load(&sh->tx_calls),
	       atomic_load(&sh->rx_delivered), atomic_load(&sh->rx_calls),
	       atomic_load(&sh->ctl_ops));

	snprintf(name, sizeof(name), "%s_no_call_error", sh->prefix);
	if (sh->bad_call[0])
		result_fail(name, "%s", sh->bad_call);
	else
		result_check(!atomic_load(&sh->stalled), name,
			     "no progress in %d steps in a row (frames lost)", SH_STALL);

	dup = shared_count(sh->tx_seen, SH_TX, &miss);
	snprintf(name, sizeof(name), "%s_tx_each_frame_once_at_tap", sh->prefix);
	result_check(!dup && !miss, name, "%ld of %d frames missing, %ld captured twice or more",
		     miss, SH_TX, dup);

	for (i = 0; i < SH_TX; i++)
		twice += sh->tx_done[i] != 1;
	snprintf(name, sizeof(name), "%s_tx_each_head_completed_once", sh->prefix);
	result_check(!twice && !sh->tx.t.r.broken && txs.used_idx == (uint16_t)SH_TX &&
		     txs.last_avail == (uint16_t)SH_TX && !(txs.flags & VRINGFD_STATE_BROKEN),
		     name, "%ld frames not completed exactly once, driver ring %s, kernel last_avail %u used_idx %u flags %#x, want %u",
		     twice, sh->tx.t.r.broken ? "broken" : "fine", txs.last_avail,
		     txs.used_idx, txs.flags, (uint16_t)SH_TX);

	snprintf(name, sizeof(name), "%s_tx_counts_exact", sh->prefix);
	result_check(atomic_load(&sh->tx_answered) == SH_TX && (long)st.frames == SH_TX &&
		     (long)st.calls == atomic_load(&sh->tx_calls), name,
		     "write() answered %ld, frames %llu, calls %llu of %ld, want %d frames",
		     atomic_load(&sh->tx_answered), (unsigned long long)st.frames,
		     (unsigned long long)st.calls, atomic_load(&sh->tx_calls), SH_TX);

	dup = shared_count(sh->rx_seen, SH_RX, &miss);
	snprintf(name, sizeof(name), "%s_rx_each_frame_once_intact", sh->prefix);
	result_check(!dup && !miss && !sh->rx_bad, name,
		     "%ld of %d frames missing, %ld delivered twice or more, %ld damaged (%ld injected)",
		     miss, SH_RX, dup, sh->rx_bad, atomic_load(&sh->rx_injected));

	snprintf(name, sizeof(name), "%s_rx_each_head_completed_once", sh->prefix);
	result_check(!sh->rx.t.r.broken && rxs.used_idx == sh->rx.t.r.last_used &&
		     rxs.last_avail == rxs.used_idx && !(rxs.flags & VRINGFD_STATE_BROKEN),
		     name, "driver ring %s, collected %u, kernel last_avail %u used_idx %u flags %#x",
		     sh->rx.t.r.broken ? "broken" : "fine", sh->rx.t.r.last_used,
		     rxs.last_avail, rxs.used_idx, rxs.flags);

	if (sh->region.size) {
		snprintf(name, sizeof(name), "%s_ioctls_answer", sh->prefix);
		result_check(!sh->ctl_bad[0] && atomic_load(&sh->ctl_ops) > 0, name,
			     "%s", sh->ctl_bad[0] ? sh->ctl_bad : "no ioctl made");
	}
}

/**
 * shared_ring() - a ring on the tap, shared by the threads
 * @r: filled in
 * @tap: the tap fd
 * @dir: VRINGFD_DIR_*
 * @region: identity memory table, or NULL
 *
 * Return: 0, or -1 with errno.
 */
static int shared_ring(struct shring *r, int tap, unsigned int dir,
		       const struct vringfd_mem_region *region)
{
	pthread_mutex_init(&r->mx, NULL);
	if (tc_ring_new(&r->t, NUM, 1ULL << VIRTIO_RING_F_EVENT_IDX))
		return -1;
	if (region && vringfd_set_mem_table(r->t.fd, region, 1))
		return -1;
	return tc_attach(r->t.fd, tap, dir, 0, 0);
}

/**
 * struct calls - one thread of shared_calls_counted
 * @fd: the vring fd (a TX ring with nothing posted)
 * @made: calls made
 * @bad: calls that answered an error
 */
struct calls {
	int fd;
	long made, bad;
};

/**
 * calls_thread() - thread: SH_CALLS rounds of write(), read() and poll()
 * (timeout 0: one run of the ring's poll each) on an empty TX ring
 * @arg: struct calls
 *
 * Return: NULL.
 */
static void *calls_thread(void *arg)
{
	struct calls *c = arg;
	struct pollfd pf = { .fd = c->fd, .events = POLLIN };
	char b;
	int i;

	for (i = 0; i < SH_CALLS; i++) {
		c->bad += write(c->fd, "", 1) != 0;
		c->bad += read(c->fd, &b, 0) != 0;
		c->bad += poll(&pf, 1, 0) < 0;
		c->made += 3;
	}
	return NULL;
}

/**
 * test_shared_calls() - stats.calls counts every call of two threads
 * calling on one ring at once (it was a plain increment outside the
 * ring's lock: increments were lost)
 */
static void test_shared_calls(void)
{
	struct vringfd_stats st;
	struct calls c[2];
	struct tc_ring t;
	pthread_t th[2];
	int tap, i;

	tap = tc_tap_open(TAPS, IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tc_ring_new(&t, NUM, 0) || tc_attach(t.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("shared_calls_counted", "setup: %s", strerror(errno));
		if (tap >= 0)
			close(tap);
		return;
	}
	close(tap);
	for (i = 0; i < 2; i++) {
		c[i].fd = t.fd;
		c[i].made = c[i].bad = 0;
		pthread_create(&th[i], NULL, calls_thread, &c[i]);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	memset(&st, 0, sizeof(st));
	vringfd_get_stats(t.fd, &st);
	result_check(!c[0].bad && !c[1].bad && (long)st.calls == c[0].made + c[1].made,
		     "shared_calls_counted", "stats.calls %llu after %ld calls (%ld errors)",
		     (unsigned long long)st.calls, c[0].made + c[1].made, c[0].bad + c[1].bad);
	tc_ring_free(&t);
}

/**
 * test_shared() - one TX and one RX ring, each used by two threads at once
 * @ctl: also run the control thread (shared_ctl_*)
 * @seed: the seed
 */
static void test_shared(int ctl, unsigned int seed)
{
	size_t txsz = (size_t)SH_TX * SLOT, rxsz = 2UL * NUM * SLOT;
	pthread_t w[2], inj, cap, ct;
	struct shared *sh;
	uint8_t *arena;
	int tap, i, one = 1, big = 64 << 20;

	sh = calloc(1, sizeof(*sh));
	arena = mmap(NULL, txsz + rxsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!sh || arena == MAP_FAILED) {
		result_fail(ctl ? "shared_ctl_setup" : "shared_setup", "memory: %s", strerror(errno));
		free(sh);
		return;
	}
	sh->prefix = ctl ? "shared_ctl" : "shared";
	sh->seed = seed;
	sh->tx.t.fd = sh->rx.t.fd = -1;
	pthread_mutex_init(&sh->bad_mx, NULL);
	sh->txbufs = arena;
	sh->rxbufs = arena + txsz;
	for (i = 0; i < SH_TX; i++)
		frame_build(sh->txbufs + (size_t)i * SLOT, 'T', (uint32_t)i);
	for (i = 0; i < 2 * NUM; i++)
		sh->rx.free[sh->rx.nfree++] = (unsigned int)i;
	if (ctl) {
		/* identity: descriptors keep holding user addresses */
		sh->region.guest_addr = (uintptr_t)arena;
		sh->region.user_addr = (uintptr_t)arena;
		sh->region.size = txsz + rxsz;
	}
	tap = tc_tap_open(TAPS, IFF_TAP | IFF_NO_PI);
	sh->sock = tc_packet_socket(TAPS);
	if (tap < 0 || sh->sock < 0 ||
	    shared_ring(&sh->tx, tap, VRINGFD_DIR_TX, ctl ? &sh->region : NULL) ||
	    shared_ring(&sh->rx, tap, VRINGFD_DIR_RX, ctl ? &sh->region : NULL)) {
		result_fail(ctl ? "shared_ctl_setup" : "shared_setup", "%s", strerror(errno));
		goto out;
	}
	close(tap);
	/* every TX frame must fit the capture socket's queue, whatever the scheduling */
	if (setsockopt(sh->sock, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		setsockopt(sh->sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(sh->sock, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	pthread_mutex_lock(&sh->rx.mx);
	shared_rx_collect(sh);
	pthread_mutex_unlock(&sh->rx.mx);

	pthread_create(&cap, NULL, shared_capture, sh);
	pthread_create(&inj, NULL, shared_injector, sh);
	if (ctl)
		pthread_create(&ct, NULL, shared_ctl, sh);
	for (i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, shared_worker, sh);
	for (i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	atomic_store(&sh->done, 1);
	pthread_join(inj, NULL);
	pthread_join(cap, NULL);
	if (ctl)
		pthread_join(ct, NULL);
	shared_check(sh);
out:
	if (sh->sock >= 0)
		close(sh->sock);
	tc_ring_free(&sh->tx.t);
	tc_ring_free(&sh->rx.t);
	munmap(arena, txsz + rxsz);
	free(sh);
}

/**
 * print_env() - say on how many CPUs the test runs and whether lockdep
 * (debug kernel) is on and still armed
 */
static void print_env(void)
{
	printf("# CPUs online: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	fflush(stdout);
	tc_sh("test -r /proc/lockdep_stats && "
	      "sed -n 's/^ *\\(debug_locks\\|dependency chains\\): */# lockdep \\1: /p' "
	      "/proc/lockdep_stats");
}

int main(void)
{
	const char *s = getenv("TAP_THREADS_SEED");
	unsigned int seed = s ? (unsigned int)strtoul(s, NULL, 0) : 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (tc_sh("for i in " TAPA " " TAPB " " TAPS "; do "
		  "ip tuntap add dev $i mode tap && ip link set $i up && "
		  "sysctl -qw net.ipv6.conf.$i.disable_ipv6=1 || exit 1; done")) {
		result_fail("tap_threads", "cannot create taps");
		return 1;
	}
	tc_wait_carrier(TAPS);
	print_env();
	test_parallel();
	test_stalled();
	test_shared(0, seed);
	test_shared(1, seed + 1);
	test_shared_calls();
	print_env();
	tc_sh("for i in " TAPA " " TAPB " " TAPS "; do ip link del $i; done");
	return result_exit_status();
}
