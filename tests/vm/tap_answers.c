// SPDX-License-Identifier: GPL-2.0
/*
 * tap_answers.c - the answers of write(), read(), DETACH and attach when
 * the ring holds bad addresses, its used ring faults, or a walk is stuck
 * on ring memory (run in the VM: tests/vm/guest-run).
 *
 *   tx_bad_addr_then_good_*  64 TX chains with a kernel address followed
 *       by 46 good frames, without EVENT_IDX: one write() consumes all 110
 *       (64 in drop_bad_addr, 46 sent) and answers 110 (before: it
 *       answered 0 after the 64 dropped chains and left the good frames
 *       waiting for a kick).
 *   tx_bad_addr_only_*  300 bad-address chains: every write() answers the
 *       chains it consumed, never 0 while chains remain (at most the work
 *       bound per call), and all 300 are counted in drop_bad_addr.
 *   echo_bad_addr_then_good  The same pattern through the exported API
 *       (vrfd_get_buffer() in vringfd_echo.ko): 64 bad chains do not stop
 *       the echo of the good ones behind them.
 *   tx_used_ro_efault_*  The used ring made read-only after attach: write()
 *       answers EFAULT (batched and unbatched frames), then EIO, the ring
 *       is broken (before: write() answered 2, EIO only at the next call).
 *   rx_used_ro_efault  The same for read() on an RX ring.
 *   stuck_walker_*  A write() stuck on a userfaultfd page under a TX
 *       buffer; other processes then issue VRINGFD_DETACH, write(),
 *       and, sharing the mm, poll(): each must die on
 *       SIGKILL within 3 s, and the hung-task detector (its timeout
 *       lowered to 2 s for the test) must stay silent (before: all of them
 *       stayed in D state until the page was resolved).
 *   echo_stuck_pump_detach_killable  The echo's pump stuck on a
 *       userfaultfd page of its "to" ring: a DETACH of that ring from
 *       another process (which runs the echo's ->destroy, waiting for the
 *       pump) dies on SIGKILL.
 *   atomic_pin_*  Atomic mode pins the used ring long-term: a used ring in
 *       a shared mapping of a ramfs file (page cache of a file system that
 *       is neither shmem nor hugetlbfs) is refused with EOPNOTSUPP, one in
 *       a memfd is accepted (io_uring's rule for long-term pins).
 *   atomic_pin_uffd_missing_efault  The used ring's page missing under a
 *       userfaultfd: the pin answers EFAULT, it does not wait for the page
 *       with the ring's attach_sem held (a guard: 6.1's FOLL_LONGTERM pin
 *       never waited, also before the pin moved under the mmap lock; a pin
 *       that may retry its faults would wait, and fail this).
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/userfaultfd.h>

#include "tap_common.h"
#include "core_common.h"

#define TAPTX	"vrat0"
#define TAPRX	"vrat1"
#define BADADDR	0xffff888000000000ULL	/* a kernel address: access_ok() fails */
#define FLEN	60

/**
 * ring_stats() - a ring's counters
 * @fd: vring fd
 *
 * Return: the counters (zeroes on error).
 */
static struct vringfd_stats ring_stats(int fd)
{
	struct vringfd_stats s;

	memset(&s, 0, sizeof(s));
	vringfd_get_stats(fd, &s);
	return s;
}

/**
 * last_avail() - the ring's last_avail (VRINGFD_GET_STATE)
 * @fd: vring fd
 *
 * Return: last_avail, or -1.
 */
static int last_avail(int fd)
{
	struct vringfd_state st;

	if (vringfd_get_state(fd, &st))
		return -1;
	return st.last_avail;
}

/**
 * post_bad() - post a readable chain with a kernel address
 * @t: the ring
 */
static void post_bad(struct tring *t)
{
	unsigned int i = t->next_desc++ & (t->num - 1);

	tring_desc(t, i, BADADDR, FLEN, 0, 0);
	tring_avail(t, i);
}

/**
 * post_frame() - post a readable chain holding a test frame
 * @t: the ring
 * @len: frame bytes (<= the ring's buf_size)
 * @seq: pattern seed
 */
static void post_frame(struct tring *t, size_t len, unsigned int seq)
{
	unsigned int i = t->next_desc++ & (t->num - 1);
	uint8_t *b = t->bufs + (size_t)i * t->buf_size;

	tc_frame(b, len, seq);
	tring_desc(t, i, (uintptr_t)b, (uint32_t)len, 0, 0);
	tring_avail(t, i);
}

/**
 * tx_ring() - a TX ring attached to TAPTX
 * @t: filled in
 * @num: ring size
 * @buf_size: bytes per buffer
 *
 * Return: 0, or -1 with errno.
 */
static int tx_ring(struct tring *t, unsigned int num, size_t buf_size)
{
	int tap, r;

	if (tring_open(t, num, buf_size, 0))
		return -1;
	tap = tc_tap_open(TAPTX, IFF_TAP | IFF_NO_PI);
	if (tap < 0)
		return -1;
	r = tc_attach(t->fd, tap, VRINGFD_DIR_TX, 0, 0);
	close(tap);
	return r;
}

/**
 * test_tx_bad_then_good() - scenario: 64 bad chains, then 46 good ones
 */
static void test_tx_bad_then_good(void)
{
	struct vringfd_stats s0, s;
	struct tring t;
	long long rx0;
	int i, r, used;

	if (tx_ring(&t, 128, 2048)) {
		result_fail("tx_bad_addr_then_good_setup", "%s", strerror(errno));
		tring_close(&t);
		return;
	}
	s0 = ring_stats(t.fd);
	rx0 = tc_ifstat(TAPTX, "rx_packets");
	for (i = 0; i < 64; i++)
		post_bad(&t);
	for (i = 0; i < 46; i++)
		post_frame(&t, FLEN, (unsigned int)i);
	r = (int)write(t.fd, "", 1);
	s = ring_stats(t.fd);
	used = tring_used_pending(&t);
	result_check(r == 110, "tx_bad_addr_then_good_answer_110",
		     "write() = %d (errno %s), want 110", r, r < 0 ? strerror(errno) : "-");
	result_check(last_avail(t.fd) == 110 && used == 110,
		     "tx_bad_addr_then_good_all_consumed", "last_avail %d used %d, want 110 110",
		     last_avail(t.fd), used);
	result_check(s.drop_bad_addr - s0.drop_bad_addr == 64 && s.frames - s0.frames == 46 &&
		     tc_ifstat(TAPTX, "rx_packets") - rx0 == 46,
		     "tx_bad_addr_then_good_counted", "drop_bad_addr %llu frames %llu rx %lld, want 64 46 46",
		     (unsigned long long)(s.drop_bad_addr - s0.drop_bad_addr),
		     (unsigned long long)(s.frames - s0.frames), tc_ifstat(TAPTX, "rx_packets") - rx0);
	tring_close(&t);
}

/**
 * test_tx_bad_only() - 300 bad chains: each write() answers what it took
 */
static void test_tx_bad_only(void)
{
	struct vringfd_stats s0, s;
	int i, r, sum = 0, calls = 0, zero_early = 0;
	struct tring t;

	if (tx_ring(&t, 512, 64)) {
		result_fail("tx_bad_addr_only_setup", "%s", strerror(errno));
		tring_close(&t);
		return;
	}
	s0 = ring_stats(t.fd);
	for (i = 0; i < 300; i++)
		post_bad(&t);
	while (calls < 10 && last_avail(t.fd) != 300) {
		r = (int)write(t.fd, "", 1);
		calls++;
		printf("# tx_bad_addr_only: write() %d = %d\n", calls, r);
		if (r <= 0) {
			zero_early = 1;
			break;
		}
		sum += r;
	}
	s = ring_stats(t.fd);
	result_check(!zero_early && sum == 300 && calls >= 2 && calls <= 3,
		     "tx_bad_addr_only_never_zero_with_chains_left",
		     "%d calls answered %d in all%s (last_avail %d), want 300 in 2..3 calls",
		     calls, sum, zero_early ? ", one answered <= 0" : "", last_avail(t.fd));
	result_check(s.drop_bad_addr - s0.drop_bad_addr == 300 && tring_used_pending(&t) == 300,
		     "tx_bad_addr_only_counted", "drop_bad_addr %llu used %u, want 300 300",
		     (unsigned long long)(s.drop_bad_addr - s0.drop_bad_addr), tring_used_pending(&t));
	r = (int)write(t.fd, "", 1);
	result_check(r == 0, "tx_bad_addr_only_then_0", "write() = %d, want 0", r);
	tring_close(&t);
}

/**
 * test_echo_bad_then_good() - the exported API: bad chains do not stop it
 */
static void test_echo_bad_then_good(void)
{
	struct vringfd_stats s;
	struct tring from, to;
	int i, r, efd = -1;

	if (!echo_available()) {
		result_skip("echo_bad_addr_then_good", "vringfd_echo.ko not loaded");
		return;
	}
	if (tring_open(&from, 128, 256, 0) || tring_open(&to, 128, 256, 0) ||
	    echo_attach(from.fd, to.fd, 0, 0, &efd)) {
		result_fail("echo_bad_addr_then_good", "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 64; i++)
		post_bad(&from);
	for (i = 0; i < 10; i++)
		post_frame(&from, FLEN, (unsigned int)i);
	for (i = 0; i < 10; i++)
		tring_post(&to, 256, true, 0);
	r = (int)write(from.fd, "", 1);
	s = ring_stats(from.fd);
	result_check(r > 0 && tring_used_pending(&to) == 10 && tring_used_pending(&from) == 74 &&
		     s.drop_bad_addr == 64, "echo_bad_addr_then_good",
		     "write() = %d, to used %u (want 10), from used %u (want 74), drop_bad_addr %llu (want 64)",
		     r, tring_used_pending(&to), tring_used_pending(&from),
		     (unsigned long long)s.drop_bad_addr);
out:
	if (efd >= 0)
		close(efd);
	tring_close(&from);
	tring_close(&to);
}

/**
 * test_tx_used_ro() - the used ring read-only after attach: EFAULT
 * @name: test name
 * @len: frame length (> a page: the unbatched path)
 */
static void test_tx_used_ro(const char *name, size_t len)
{
	char then[96];
	struct tring t;
	int r, e;

	if (tx_ring(&t, 8, 16384)) {
		result_fail(name, "setup: %s", strerror(errno));
		tring_close(&t);
		return;
	}
	post_frame(&t, len, 1);
	post_frame(&t, len, 2);
	/* vring_init(.., 4096): the used ring starts on the second page */
	if (mprotect((uint8_t *)t.mem + 4096, t.size - 4096, PROT_READ)) {
		result_fail(name, "mprotect: %s", strerror(errno));
		tring_close(&t);
		return;
	}
	r = (int)write(t.fd, "", 1);
	e = errno;
	result_check(r == -1 && e == EFAULT, name, "write() = %d (%s), want -1 EFAULT",
		     r, r < 0 ? strerror(e) : "-");
	r = (int)write(t.fd, "", 1);
	e = errno;
	snprintf(then, sizeof(then), "%s_then_eio", name);
	result_check(r == -1 && e == EIO && tring_broken(&t), then,
		     "write() = %d (%s), broken %d, want -1 EIO, broken", r,
		     r < 0 ? strerror(e) : "-", tring_broken(&t));
	tring_close(&t);
}

/**
 * test_rx_used_ro() - RX: the used ring read-only after attach: EFAULT
 */
static void test_rx_used_ro(void)
{
	struct tring t;
	int tap, s = -1, r, e;

	tap = tc_tap_open(TAPRX, IFF_TAP | IFF_NO_PI);
	if (tap < 0 || tring_open(&t, 8, 2048, 0) ||
	    tc_attach(t.fd, tap, VRINGFD_DIR_RX, 0, 0) || !tc_wait_carrier(TAPRX) ||
	    (s = tc_packet_socket(TAPRX)) < 0) {
		result_fail("rx_used_ro_efault", "setup: %s", strerror(errno));
		goto out;
	}
	tring_post(&t, 2048, true, 0);
	tring_post(&t, 2048, true, 0);
	if (mprotect((uint8_t *)t.mem + 4096, t.size - 4096, PROT_READ)) {
		result_fail("rx_used_ro_efault", "mprotect: %s", strerror(errno));
		goto out;
	}
	{
		uint8_t f[FLEN];

		tc_frame(f, FLEN, 3);
		if (send(s, f, FLEN, 0) != FLEN) {
			result_fail("rx_used_ro_efault", "send: %s", strerror(errno));
			goto out;
		}
	}
	usleep(100000);
	r = (int)read(t.fd, NULL, 0);
	e = errno;
	result_check(r == -1 && e == EFAULT && tring_broken(&t), "rx_used_ro_efault",
		     "read() = %d (%s), broken %d, want -1 EFAULT, broken", r,
		     r < 0 ? strerror(e) : "-", tring_broken(&t));
out:
	if (s >= 0)
		close(s);
	if (tap >= 0)
		close(tap);
	tring_close(&t);
}

/* ---- a walker stuck on ring memory ------------------------------------- */

/**
 * struct stuck - a TX write() stuck on a userfaultfd page
 * @t: the ring
 * @page: the registered page (the frame buffer of the posted chain)
 * @uffd: the userfaultfd
 * @w: the write() (tc_writer_run())
 */
struct stuck {
	struct tring t;
	uint8_t *page;
	int uffd;
	struct tc_writer w;
};

/* the userfaultfd, closed first thing in the children */
static int child_uffd = -1;

/**
 * child_detach() - child body: VRINGFD_DETACH on @fd
 * @fd: vring fd
 */
static void child_detach(int fd)
{
	close(child_uffd);
	_exit(ioctl(fd, VRINGFD_DETACH) ? 1 : 0);
}

/**
 * child_write() - child body: write() on @fd (another mm: EPERM at most)
 * @fd: vring fd
 */
static void child_write(int fd)
{
	close(child_uffd);
	_exit(write(fd, "", 1) < 0 ? 1 : 0);
}

static int poll_child_fd;

/**
 * clone_poll() - clone(CLONE_VM) child body: poll() on the ring (same mm)
 * @arg: unused
 *
 * Return: never (exits).
 */
static int clone_poll(void *arg)
{
	struct pollfd p = { .fd = poll_child_fd, .events = POLLIN };

	(void)arg;
	close(child_uffd);
	syscall(SYS_exit, poll(&p, 1, 0) < 0 ? 1 : 0);
	return 0;
}

/**
 * spawn() - fork a child running @fn(@fd)
 * @fn: child body
 * @fd: its argument
 *
 * Return: the child's pid, or -1.
 */
static pid_t spawn(void (*fn)(int), int fd)
{
	pid_t p = fork();

	if (p == 0)
		fn(fd);
	return p;
}

/**
 * reaped_within() - wait up to @ms for @pid to exit
 * @pid: child
 * @ms: milliseconds
 *
 * Return: 1 when reaped.
 */
static int reaped_within(pid_t pid, int ms)
{
	int i, status;

	for (i = 0; i < ms / 20; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG | __WALL);

		if (r == pid || (r < 0 && errno == ECHILD))
			return 1;
		usleep(20000);
	}
	return 0;
}

/**
 * read_int_file() - read one integer from a /proc file
 * @path: the file
 *
 * Return: the value, or -1.
 */
static long read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/**
 * write_int_file() - write one integer to a /proc file
 * @path: the file
 * @v: the value
 *
 * Return: 0, or -1.
 */
static int write_int_file(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f)
		return -1;
	r = fprintf(f, "%ld\n", v) > 0 ? 0 : -1;
	if (fclose(f))
		r = -1;
	return r;
}

#define HUNG_TMO "/proc/sys/kernel/hung_task_timeout_secs"

/**
 * test_stuck_walker() - other callers behind a stuck walk die on SIGKILL
 */
static void test_stuck_walker(void)
{
	static const char *const names[] = {
		"stuck_walker_detach_killable", "stuck_walker_write_killable",
		"stuck_walker_poll_killable",
	};
	struct uffdio_register reg;
	struct pollfd up;
	struct stuck st;
	pid_t pid[3] = { -1, -1, -1 };
	struct uffdio_range zr;
	char *stack = NULL;
	long hung0 = read_int_file(HUNG_TMO);
	int i, blocked[3], reaped[3];
	pthread_t th;

	memset(&st, 0, sizeof(st));
	st.uffd = tc_uffd_open("stuck_walker");
	if (st.uffd < 0)
		return;
	if (tx_ring(&st.t, 8, 64)) {
		result_fail("stuck_walker", "setup: %s", strerror(errno));
		goto out;
	}
	st.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)st.page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (st.page == MAP_FAILED || ioctl(st.uffd, UFFDIO_REGISTER, &reg)) {
		result_fail("stuck_walker", "UFFDIO_REGISTER: %s", strerror(errno));
		goto out;
	}
	/* one chain whose frame is on the missing page */
	tring_desc(&st.t, 0, (uintptr_t)st.page, FLEN, 0, 0);
	tring_avail(&st.t, 0);
	if (hung0 > 0)
		write_int_file(HUNG_TMO, 2);
	tc_sh("dmesg | grep -c 'blocked for more than' > /tmp/tap_answers.hung0");
	st.w.fd = st.t.fd;
	pthread_create(&th, NULL, tc_writer_run, &st.w);
	up.fd = st.uffd;
	up.events = POLLIN;
	if (poll(&up, 1, 5000) != 1) {
		result_fail("stuck_walker", "write() did not fault on the registered page");
		close(st.uffd);
		st.uffd = -1;
		pthread_join(th, NULL);
		goto out;
	}
	/* the walker holds the ring now; line up the others behind it */
	child_uffd = st.uffd;
	pid[0] = spawn(child_detach, st.t.fd);
	usleep(300000);
	pid[1] = spawn(child_write, st.t.fd);
	stack = malloc(65536);
	poll_child_fd = st.t.fd;
	if (stack)
		pid[2] = clone(clone_poll, stack + 65536, CLONE_VM | SIGCHLD, NULL);
	usleep(500000);
	for (i = 0; i < 3; i++)
		blocked[i] = pid[i] > 0 && waitpid(pid[i], NULL, WNOHANG | __WALL) == 0;
	for (i = 0; i < 3; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGKILL);
	for (i = 0; i < 3; i++)
		reaped[i] = blocked[i] && reaped_within(pid[i], 3000);
	for (i = 0; i < 3; i++) {
		if (pid[i] <= 0)
			result_fail(names[i], "could not start the child: %s", strerror(errno));
		else if (!blocked[i])
			/* nothing to kill: the call did not wait for the walker */
			result_fail(names[i], "the call returned while the walker was stuck");
		else
			result_check(reaped[i], names[i], "still alive 3 s after SIGKILL");
	}
	/* let the walker go: the page is filled with zeroes */
	zr.start = (uintptr_t)st.page;
	zr.len = 4096;
	{
		struct uffdio_zeropage zp = { .range = zr };

		if (ioctl(st.uffd, UFFDIO_ZEROPAGE, &zp))
			result_fail("stuck_walker_release", "UFFDIO_ZEROPAGE: %s", strerror(errno));
	}
	pthread_join(th, NULL);
	for (i = 0; i < 3; i++)
		if (pid[i] > 0 && blocked[i] && !reaped[i])
			waitpid(pid[i], NULL, __WALL);
	result_check(st.w.ret >= 0 || st.w.err == EINTR, "stuck_walker_write_returns",
		     "the stuck write() answered %d (%s)", st.w.ret, strerror(st.w.err));
	result_check(tc_sh("test \"$(dmesg | grep -c 'blocked for more than')\" = "
			   "\"$(cat /tmp/tap_answers.hung0)\"") == 0,
		     "stuck_walker_no_hung_task", "the hung-task detector fired");
out:
	if (hung0 > 0)
		write_int_file(HUNG_TMO, hung0);
	free(stack);
	if (st.uffd >= 0)
		close(st.uffd);
	if (st.page && st.page != MAP_FAILED)
		munmap(st.page, 4096);
	tring_close(&st.t);
}

/**
 * echo_writer() - thread: write() on the echo's "from" ring
 * @arg: the vring fd (int *)
 *
 * Return: NULL.
 */
static void *echo_writer(void *arg)
{
	int fd = *(int *)arg;

	if (write(fd, "", 1) < 0)
		return NULL;
	return NULL;
}

/**
 * test_echo_stuck_pump() - DETACH of a ring behind a stuck echo pump
 *
 * The echo's pump holds its instance lock while it copies into the "to"
 * ring's buffer, here a userfaultfd page: a VRINGFD_DETACH of the "to"
 * ring from another process runs the echo's ->destroy, which waits for the
 * pump; it must die on SIGKILL.
 */
static void test_echo_stuck_pump(void)
{
	const char *name = "echo_stuck_pump_detach_killable";
	struct uffdio_register reg;
	struct tring from, to;
	int uffd, efd = -1, blocked, reaped;
	struct pollfd up;
	uint8_t *page;
	pthread_t th;
	pid_t pid;

	uffd = tc_uffd_open(name);
	if (uffd < 0)
		return;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)page;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (page == MAP_FAILED || tring_open(&from, 8, 256, 0) || tring_open(&to, 8, 256, 0) ||
	    echo_attach(from.fd, to.fd, 0, 0, &efd) || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		result_fail(name, "setup: %s", strerror(errno));
		close(uffd);
		return;
	}
	post_frame(&from, FLEN, 5);
	tring_desc(&to, 0, (uintptr_t)page, 256, VRING_DESC_F_WRITE, 0);
	tring_avail(&to, 0);
	pthread_create(&th, NULL, echo_writer, &from.fd);
	up.fd = uffd;
	up.events = POLLIN;
	if (poll(&up, 1, 5000) != 1) {
		result_fail(name, "the echo did not fault on the registered page");
		close(uffd);
		pthread_join(th, NULL);
		goto out;
	}
	child_uffd = uffd;
	pid = spawn(child_detach, to.fd);
	usleep(500000);
	blocked = pid > 0 && waitpid(pid, NULL, WNOHANG) == 0;
	if (pid > 0)
		kill(pid, SIGKILL);
	reaped = blocked && reaped_within(pid, 3000);
	if (pid <= 0)
		result_fail(name, "fork: %s", strerror(errno));
	else if (!blocked)
		result_fail(name, "DETACH returned while the pump was stuck");
	else
		result_check(reaped, name, "still alive 3 s after SIGKILL");
	{
		struct uffdio_zeropage zp = { .range = reg.range };

		if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp))
			result_fail(name, "UFFDIO_ZEROPAGE: %s", strerror(errno));
	}
	pthread_join(th, NULL);
	if (pid > 0 && blocked && !reaped)
		waitpid(pid, NULL, 0);
	close(uffd);
out:
	if (efd >= 0)
		close(efd);	/* the echo's release detaches what is left */
	tring_close(&from);
	tring_close(&to);
	munmap(page, 4096);
}

/* ---- atomic mode: long-term pins ---------------------------------------- */

/**
 * pin_case() - echo attach with atomic_use over a ring in @mem
 * @mem: two pages at least, any mapping
 * @want: expected errno (0: accepted)
 * @name: test name
 */
static void pin_case(void *mem, int want, const char *name)
{
	static uint16_t last_used[2];
	struct tring other;
	struct vring vr;
	int fd, efd = -1, r, e;

	memset(mem, 0, 8192);
	vring_init(&vr, 8, mem, 4096);
	fd = vringfd_create(8, vr.desc, vr.avail, vr.used, &last_used[0], 0);
	if (fd < 0 || tring_open(&other, 8, 64, 0)) {
		result_fail(name, "setup: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	r = echo_attach(fd, other.fd, 1, 0, &efd);
	e = errno;
	if (want)
		result_check(r == -1 && e == want, name, "echo attach (atomic) = %d (%s), want %s",
			     r, r ? strerror(e) : "-", strerror(want));
	else
		result_check(r == 0, name, "echo attach (atomic) = %d (%s), want 0", r,
			     r ? strerror(e) : "-");
	if (efd >= 0)
		close(efd);
	close(fd);
	tring_close(&other);
}

/**
 * struct pin_job - an atomic attach in a thread (it may wait on a fault)
 * @from: vring fd to attach atomically
 * @to: the other ring
 * @ret: echo_attach()'s answer
 * @err: its errno
 * @efd: the echo fd (closed by the caller)
 */
struct pin_job {
	int from, to, ret, err, efd;
};

/**
 * pin_thread() - thread: echo attach with atomic_use
 * @arg: struct pin_job
 *
 * Return: NULL.
 */
static void *pin_thread(void *arg)
{
	struct pin_job *j = arg;

	j->ret = echo_attach(j->from, j->to, 1, 0, &j->efd);
	j->err = errno;
	return NULL;
}

/**
 * test_atomic_pin_uffd() - the pin does not wait on a userfaultfd page
 *
 * The used ring's page is dropped after creation and registered with a
 * userfaultfd (missing mode): the long-term pin, made with the mmap lock
 * held, must fail with EFAULT rather than wait for the page while the
 * ring's attach_sem is held for writing.
 */
static void test_atomic_pin_uffd(void)
{
	const char *name = "atomic_pin_uffd_missing_efault";
	struct uffdio_register reg;
	struct pin_job j = { .from = -1, .to = -1, .efd = -1 };
	static uint16_t last_used;
	struct pollfd up;
	struct tring other;
	struct vring vr;
	pthread_t th;
	void *mem;
	int uffd;

	memset(&other, 0, sizeof(other));
	other.fd = -1;
	uffd = tc_uffd_open(name);
	if (uffd < 0)
		return;
	mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		result_fail(name, "mmap: %s", strerror(errno));
		close(uffd);
		return;
	}
	vring_init(&vr, 8, mem, 4096);
	j.from = vringfd_create(8, vr.desc, vr.avail, vr.used, &last_used, 0);
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)mem + 4096;
	reg.range.len = 4096;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (j.from < 0 || tring_open(&other, 8, 64, 0) ||
	    madvise((uint8_t *)mem + 4096, 4096, MADV_DONTNEED) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		result_fail(name, "setup: %s", strerror(errno));
		goto out;
	}
	j.to = other.fd;
	pthread_create(&th, NULL, pin_thread, &j);
	up.fd = uffd;
	up.events = POLLIN;
	if (poll(&up, 1, 2000) == 1) {
		struct uffdio_zeropage zp = { .range = reg.range };

		result_fail(name, "the attach waits on the userfaultfd page");
		ioctl(uffd, UFFDIO_ZEROPAGE, &zp);
		pthread_join(th, NULL);
	} else {
		pthread_join(th, NULL);
		result_check(j.ret == -1 && j.err == EFAULT, name,
			     "echo attach (atomic) = %d (%s), want -1 EFAULT", j.ret,
			     j.ret ? strerror(j.err) : "-");
	}
out:
	if (j.efd >= 0)
		close(j.efd);
	if (j.from >= 0)
		close(j.from);
	tring_close(&other);
	close(uffd);
	munmap(mem, 8192);
}

/**
 * test_atomic_pin() - file-backed used rings are not pinned long-term
 */
static void test_atomic_pin(void)
{
	const char *dir = "/tmp/tap_answers.ramfs";
	void *mem;
	int fd;

	if (!echo_available()) {
		result_skip("atomic_pin", "vringfd_echo.ko not loaded");
		return;
	}
	fd = memfd_create("vrat", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 8192) ||
	    (mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		result_fail("atomic_pin_memfd_accepted", "memfd: %s", strerror(errno));
	} else {
		pin_case(mem, 0, "atomic_pin_memfd_accepted");
		munmap(mem, 8192);
	}
	if (fd >= 0)
		close(fd);
	mkdir(dir, 0700);
	if (mount("none", dir, "ramfs", 0, NULL)) {
		result_skip("atomic_pin_ramfs_refused", "mount ramfs: %s", strerror(errno));
		return;
	}
	fd = open("/tmp/tap_answers.ramfs/ring", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 8192) ||
	    (mem = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		result_fail("atomic_pin_ramfs_refused", "ramfs file: %s", strerror(errno));
	} else {
		pin_case(mem, EOPNOTSUPP, "atomic_pin_ramfs_refused");
		munmap(mem, 8192);
	}
	if (fd >= 0)
		close(fd);
	umount(dir);
	rmdir(dir);
}

int main(void)
{
	if (access("/dev/vringfd", R_OK | W_OK) || access("/dev/net/tun", R_OK | W_OK)) {
		result_skip("tap_answers", "/dev/vringfd or /dev/net/tun missing");
		return 0;
	}
	if (tc_sh("ip tuntap add dev " TAPTX " mode tap && ip link set " TAPTX " up && "
		  "ip tuntap add dev " TAPRX " mode tap && ip link set " TAPRX " up")) {
		result_fail("tap_answers_setup", "ip tuntap add failed");
		return result_exit_status();
	}
	tc_wait_carrier(TAPTX);
	test_tx_bad_then_good();
	test_tx_bad_only();
	test_echo_bad_then_good();
	test_tx_used_ro("tx_used_ro_efault_batched", FLEN);
	test_tx_used_ro("tx_used_ro_efault_unbatched", 9000);
	test_rx_used_ro();
	test_atomic_pin();
	if (echo_available())
		test_atomic_pin_uffd();
	test_stuck_walker();
	if (echo_available())
		test_echo_stuck_pump();
	tc_sh("ip link del " TAPTX "; ip link del " TAPRX);
	return result_exit_status();
}
