/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress_pool.h - the shared state of tests/vm/stress.c: options, the
 * per-thread random generator, the memory arena the rings live in, the pools
 * of fds (vring fds, taps, eventfds, echo fds, /dev/vringfd fds) with their
 * locks, the fault guard for user-side ring writes, and the errno checks.
 *
 * Every helper is static: stress.c includes this once.
 */
#ifndef STRESS_POOL_H
#define STRESS_POOL_H

#include <errno.h>
#include <execinfo.h>
#include <ucontext.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <linux/vringfd.h>
#include <linux/vringfd_echo.h>

#define MAX_THREADS	16
#define NRING		48		/* vring fd slots (one memory slot each) */
#define NTAP		12		/* tap fd slots */
#define NTAPDEV		6		/* tap devices vst0..vst5 */
#define NEFD		4		/* eventfd slots */
#define NECHO		6		/* echo fd slots */
#define NCTL		2		/* /dev/vringfd fds */

/*
 * The arena: NRING memory slots of 1 MiB (ring at the start, data buffers
 * from BUF_OFF), one 1 MiB scratch area per thread (mremap target), and the
 * bulk ring.  It is mapped at a fixed address far below the mmap area, so
 * the holes that munmap/mremap punch in it are never chosen by the kernel
 * for another mapping (the top-down allocator takes the highest gap).
 */
#define ARENA_BASE	0x100000000000ULL
#define SLOT_SZ		(1UL << 20)
#define BUF_OFF		(512UL << 10)
#define BUF_SZ		2048UL
#define NBUF		((SLOT_SZ - BUF_OFF - 4096) / BUF_SZ)
#define SCRATCH_OFF	((uint64_t)NRING * SLOT_SZ)
#define BULK_OFF	(SCRATCH_OFF + (uint64_t)MAX_THREADS * SLOT_SZ)
#define ARENA_SZ	(BULK_OFF + 65536)

/* Scenario names for --exclude. */
enum {
	EX_NETNS = 1 << 0,	/* moving taps to other namespaces, namespaces dying */
	EX_TINY = 1 << 1,	/* memory tables with many 1..16-byte regions */
	EX_BIGRING = 1 << 2,	/* rings over 1024 entries */
	EX_FORK = 1 << 3,	/* fork and use the fds in the child */
	EX_ECHO = 1 << 4,	/* vringfd_echo attachments */
	EX_MEM = 1 << 5,	/* munmap/mprotect/mremap of ring memory */
	EX_TAPS = 1 << 6,	/* tap devices */
	EX_BULK = 1 << 7,	/* thousands of fds at once */
};

static const char *const ex_names[] = {
	"netns", "tiny-regions", "big-rings", "fork", "echo", "mem", "taps", "bulk",
};

/**
 * struct stress_opts - the command line
 * @seed: master seed
 * @seconds: how long the threads run
 * @threads: worker threads
 * @hang: seconds one operation may take before the watchdog fails the run
 * @rmmod: unload (and reload) the modules at the end
 * @exclude: EX_* scenarios left out
 * @slab_tol_kb: largest SUnreclaim growth accepted (kB)
 */
struct stress_opts {
	uint64_t seed;
	unsigned int seconds;
	unsigned int threads;
	unsigned int hang;
	bool rmmod;
	unsigned int exclude;
	long slab_tol_kb;
};

static struct stress_opts opt;

/**
 * struct rslot - one vring fd slot
 * @lk: read: an operation uses @fd; write: @fd is replaced or closed
 * @fd: the vring fd, or -1
 * @num: its ring size (0: unknown, made with random addresses)
 * @memi: memory slot whose standard layout the ring uses (-1: none)
 * @dir: direction of its last successful tap attach (-1: unknown)
 */
struct rslot {
	pthread_rwlock_t lk;
	int fd;
	unsigned int num;
	int memi;
	int dir;
};

/**
 * struct fslot - a slot of another fd kind (tap, eventfd, echo, control)
 * @lk: as in struct rslot
 * @fd: the fd, or -1
 * @dev: for taps, the device number (name vstN / vsnN)
 */
struct fslot {
	pthread_rwlock_t lk;
	int fd;
	int dev;
};

static struct rslot rings[NRING];
static struct fslot taps[NTAP], efds[NEFD], echos[NECHO], ctls[NCTL];
static atomic_bool stop_now;
static atomic_int unexpected;	/* errno or invariant failures */
static int init_netns = -1;	/* fd of the initial network namespace */
static bool have_echo;

/**
 * struct thr - one worker thread
 * @id: index
 * @th: pthread
 * @tid: kernel thread id (for /proc/.../stack)
 * @op: current operation's name (NULL: between operations)
 * @op_start_ms: when it started (CLOCK_MONOTONIC)
 * @ops: operations done
 * @pkt: AF_PACKET socket for sending frames out of the taps (-1: none yet)
 */
struct thr {
	int id;
	pthread_t th;
	atomic_int tid;
	_Atomic(const char *) op;
	atomic_llong op_start_ms;
	unsigned long ops;
	int pkt;
};

static struct thr thr[MAX_THREADS];

/* Per-thread random state and fault guard. */
static __thread uint64_t rng;
static __thread struct thr *self;
static __thread sigjmp_buf guard_jb;
static __thread volatile sig_atomic_t guard_armed;

/**
 * now_ms() - CLOCK_MONOTONIC in milliseconds
 *
 * Return: milliseconds.
 */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * splitmix() - derive a well-mixed 64-bit value (per-thread seeds)
 * @x: input
 *
 * Return: the mixed value, never 0.
 */
static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x ? x : 1;
}

/**
 * rnd() - next 64-bit random number of this thread (xorshift64*)
 *
 * Return: the number.
 */
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/**
 * rndn() - uniform-ish number below @n
 * @n: bound (0 gives 0)
 *
 * Return: 0..n-1.
 */
static uint32_t rndn(uint32_t n)
{
	return n ? (uint32_t)((rnd() >> 16) % n) : 0;
}

/**
 * chance() - true with probability @pct percent
 * @pct: 0..100
 *
 * Return: the draw.
 */
static bool chance(unsigned int pct)
{
	return rndn(100) < pct;
}

/**
 * excluded() - is scenario @ex left out by --exclude?
 * @ex: EX_* bit
 *
 * Return: true when excluded.
 */
static bool excluded(unsigned int ex)
{
	return opt.exclude & ex;
}

/**
 * slot_mem() - the memory of memory slot @i
 * @i: 0..NRING-1
 *
 * Return: its first byte.
 */
static uint8_t *slot_mem(int i)
{
	return (uint8_t *)(uintptr_t)(ARENA_BASE + (uint64_t)i * SLOT_SZ);
}

/**
 * struct lay - the standard ring layout in a memory slot
 * @desc: descriptor table at the slot's start
 * @avail: avail ring right after it
 * @used: used ring at the next 4 KiB boundary
 * @last_used: the user's last_used, 8 bytes before the slot's end
 * @bufs: data buffers (NBUF of BUF_SZ bytes)
 */
struct lay {
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t *last_used;
	uint8_t *bufs;
};

/**
 * layout() - compute the standard layout of a ring of @num in slot @memi
 * @memi: memory slot
 * @num: ring size (a power of two up to 32768; rings over 16384 overlap the
 *	buffers, which only makes their traffic garbage)
 * @l: filled in
 */
static void layout(int memi, unsigned int num, struct lay *l)
{
	uint8_t *b = slot_mem(memi);
	uintptr_t u;

	l->desc = (struct vring_desc *)b;
	l->avail = (struct vring_avail *)(b + 16UL * num);
	u = (uintptr_t)l->avail + 4 + 2UL * num + 2;
	u = (u + 4095) & ~(uintptr_t)4095;
	l->used = (struct vring_used *)u;
	l->last_used = (uint16_t *)(b + SLOT_SZ - 8);
	l->bufs = b + BUF_OFF;
}

/**
 * rnd_uaddr() - a random address that is safe to hand to the kernel
 *
 * The kernel may write to it (used rings, RX buffers), so it is never in
 * the test's own heap, stack or code: inside the arena (any alignment),
 * just past the arena (unmapped), near 0, a kernel address, a non-canonical
 * address, or one that wraps 2^64 with any length.
 *
 * Return: the address.
 */
static uint64_t rnd_uaddr(void)
{
	switch (rndn(12)) {
	case 0:
		return 0;
	case 1:
		return rndn(65536);
	case 2:
		return 0xffff888000000000ULL + (rnd() % (1ULL << 40));
	case 3:
		return 0x8000000000000000ULL | rnd();
	case 4:
		return ~0ULL - rndn(8192);
	case 5:
		return ARENA_BASE + ARENA_SZ + rndn(1 << 20);
	case 6:
		return ARENA_BASE + BUF_OFF + (uint64_t)rndn(NRING) * SLOT_SZ;
	default:
		return ARENA_BASE + rnd() % ARENA_SZ;
	}
}

/**
 * rnd_fill() - fill @len bytes with random data
 * @p: buffer
 * @len: bytes
 */
static void rnd_fill(void *p, size_t len)
{
	uint8_t *b = p;
	size_t i;
	uint64_t v = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			v = rnd();
		b[i] = (uint8_t)v;
		v >>= 8;
	}
}

/**
 * guard_handler() - SIGSEGV/SIGBUS: leave a guarded ring access
 * @sig: signal
 * @si: its information (the faulting address)
 * @uc: the interrupted context (the faulting pc)
 *
 * Ring memory may be unmapped or protected by another thread at any time;
 * user-side writes to it run between guard_on() and guard_off().  A fault
 * anywhere else is a crash of the test: the address and a backtrace are
 * printed on stderr, the default action is restored and the fault repeats.
 */
static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	char msg[160];
	void *bt[32];
	int n;

	if (guard_armed) {
		guard_armed = 0;
		siglongjmp(guard_jb, 1);
	}
	n = snprintf(msg, sizeof(msg), "# stress: signal %d at address %p outside the guard (pc %#llx, seed %llu):\n",
		     sig, si->si_addr, (unsigned long long)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP],
		     (unsigned long long)opt.seed);
	if (write(2, msg, (size_t)n) < 0)
		n = 0;
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
}

/*
 * Run BODY with faults on ring memory caught (the rest of BODY is skipped).
 * The signal fences keep the compiler from moving BODY's memory accesses
 * out of the armed window.
 */
#define GUARDED(BODY)						\
	do {							\
		if (!sigsetjmp(guard_jb, 1)) {			\
			guard_armed = 1;			\
			atomic_signal_fence(memory_order_seq_cst); \
			BODY;					\
			atomic_signal_fence(memory_order_seq_cst); \
		}						\
		guard_armed = 0;				\
	} while (0)

/**
 * errno_in() - is @e in the zero-terminated list @ok?
 * @ok: allowed errnos, 0-terminated
 * @e: errno
 *
 * Return: true when allowed.
 */
static bool errno_in(const int *ok, int e)
{
	for (; *ok; ok++)
		if (*ok == e)
			return true;
	return false;
}

/**
 * report_bad() - an unexpected result: print a FAIL line (the first 20)
 * @op: operation
 * @fmt: what happened (printf format)
 */
static void __attribute__((format(printf, 2, 3))) report_bad(const char *op, const char *fmt, ...)
{
	char msg[256], name[64];
	va_list ap;
	int n = atomic_fetch_add(&unexpected, 1);

	if (n >= 20)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(name, sizeof(name), "stress_%s", op);
	result_fail(name, "%s (seed %llu, thread %d)", msg, (unsigned long long)opt.seed,
		    self ? self->id : -1);
}

/* Outcome histogram per checked call: [0] successes, [e] failures with errno e. */
#define HIST_OPS	32
#define HIST_ERRS	134
static struct {
	const char *op;
	atomic_ulong n[HIST_ERRS];
} hist[HIST_OPS];
static pthread_mutex_t hist_mtx = PTHREAD_MUTEX_INITIALIZER;

/**
 * hist_count() - count one outcome of @op
 * @op: the call's name (a string literal: compared by address first)
 * @e: 0 for success, else the errno
 */
static void hist_count(const char *op, int e)
{
	int i;

	if (e < 0 || e >= HIST_ERRS)
		e = HIST_ERRS - 1;
	for (i = 0; i < HIST_OPS; i++) {
		const char *o = __atomic_load_n(&hist[i].op, __ATOMIC_ACQUIRE);

		if (!o) {
			pthread_mutex_lock(&hist_mtx);
			if (!hist[i].op)
				__atomic_store_n(&hist[i].op, op, __ATOMIC_RELEASE);
			o = hist[i].op;
			pthread_mutex_unlock(&hist_mtx);
		}
		if (o == op || !strcmp(o, op)) {
			atomic_fetch_add(&hist[i].n[e], 1);
			return;
		}
	}
}

/**
 * hist_print() - print the outcome histogram as comment lines
 */
static void hist_print(void)
{
	int i, e;

	for (i = 0; i < HIST_OPS && hist[i].op; i++) {
		printf("#   %-14s ok %lu", hist[i].op, atomic_load(&hist[i].n[0]));
		for (e = 1; e < HIST_ERRS; e++)
			if (atomic_load(&hist[i].n[e]))
				printf(", %s %lu", strerrorname_np(e) ? strerrorname_np(e) : "?",
				       atomic_load(&hist[i].n[e]));
		printf("\n");
	}
}

/**
 * check_ret() - judge a call that returns -1 with errno on failure
 * @op: operation (for the message)
 * @ret: return value
 * @ok: errnos allowed for this operation (EINTR is always allowed)
 *
 * Return: @ret unchanged (errno preserved).
 */
static long check_ret(const char *op, long ret, const int *ok)
{
	int e = errno;

	hist_count(op, ret < 0 ? e : 0);
	if (ret < 0 && e != EINTR && !errno_in(ok, e))
		report_bad("errno", "%s: unexpected errno %d (%s)", op, e, strerror(e));
	errno = e;
	return ret;
}

/* Operation bookkeeping for the watchdog. */
#define OP_BEGIN(name)							\
	do {								\
		atomic_store(&self->op_start_ms, now_ms());		\
		atomic_store(&self->op, (name));			\
	} while (0)
#define OP_END()							\
	do {								\
		atomic_store(&self->op, (const char *)NULL);		\
		self->ops++;						\
	} while (0)

/**
 * fslot_replace() - install @fd in slot @s, then close the old one
 *
 * The old fd is closed after the slot is unlocked (no operation can be
 * using it then: they hold the lock for reading): closing a tap queue
 * waits for the RTNL, which namespace teardown holds for long.
 * @s: slot
 * @fd: new fd or -1
 * @dev: device number to remember
 */
static void fslot_replace(struct fslot *s, int fd, int dev)
{
	int old;

	pthread_rwlock_wrlock(&s->lk);
	old = s->fd;
	s->fd = fd;
	s->dev = dev;
	pthread_rwlock_unlock(&s->lk);
	if (old >= 0)
		close(old);
}

/**
 * rslot_replace() - install vring fd @fd in ring slot @i, then close the
 *	old one (outside the lock, as fslot_replace())
 * @i: slot
 * @fd: new fd or -1
 * @num: its ring size (0: unknown)
 * @memi: memory slot of its standard layout, or -1
 */
static void rslot_replace(int i, int fd, unsigned int num, int memi)
{
	struct rslot *s = &rings[i];
	int old;

	pthread_rwlock_wrlock(&s->lk);
	old = s->fd;
	s->fd = fd;
	s->num = num;
	s->memi = memi;
	s->dir = -1;
	pthread_rwlock_unlock(&s->lk);
	if (old >= 0)
		close(old);
}

#endif /* STRESS_POOL_H */
