// SPDX-License-Identifier: GPL-2.0
/*
 * core_api.c - the exported in-kernel API as seen through vringfd_echo.ko:
 * attach errors (EBADF, EBUSY, EINVAL, EIO, EPERM), the echo round trip,
 * completions from atomic context (bh-off spinlock, irq_work), rings of
 * 32768 entries (used ring over 65 pages), notification rules and the call
 * eventfd, detach and close while attached.
 */
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "core_common.h"

#define F_EVENT_IDX	(1ULL << VIRTIO_RING_F_EVENT_IDX)

/**
 * echo_stats() - VRINGFD_ECHO_GET_STATS
 * @efd: echo fd
 *
 * Return: the counters (zero on failure).
 */
static struct vringfd_echo_stats echo_stats(int efd)
{
	struct vringfd_echo_stats st;

	memset(&st, 0, sizeof(st));
	ioctl(efd, VRINGFD_ECHO_GET_STATS, &st);
	return st;
}

/**
 * check_echoed() - take @n used entries of @to and check their data
 * @to: the "to" ring
 * @from: the "from" ring whose buffer i was filled with byte i & 0xff...
 * @n: entries expected
 * @len: length expected of each
 * @why: filled with the first mismatch
 * @whylen: bytes in @why
 *
 * The from buffers were posted with tring_post(fill = sequence number);
 * the to entries arrive in the same order.
 * Return: true when all matched.
 */
static bool check_echoed(struct tring *to, unsigned int n, uint32_t len,
			 unsigned int first_fill, char *why, size_t whylen)
{
	uint32_t id, l;
	unsigned int i;
	uint8_t *b;

	for (i = 0; i < n; i++) {
		if (!tring_take_used(to, &id, &l)) {
			snprintf(why, whylen, "only %u of %u used entries", i, n);
			return false;
		}
		if (id >= to->num || l != len) {
			snprintf(why, whylen, "entry %u: id %u len %u (want len %u)", i, id,
				 l, len);
			return false;
		}
		b = to->bufs + (size_t)id * to->buf_size;
		if (len && (b[0] != (uint8_t)(first_fill + i) ||
			    b[len - 1] != (uint8_t)(first_fill + i))) {
			snprintf(why, whylen, "entry %u: data %#x..%#x, want %#x", i, b[0],
				 b[len - 1], (uint8_t)(first_fill + i));
			return false;
		}
	}
	return true;
}

/**
 * test_attach_errors() - every error of VRINGFD_ECHO_ATTACH / vrfd_attach()
 */
static void test_attach_errors(void)
{
	struct tring a, b, c, d;
	int e1 = -1, e2 = -1, e3 = -1, null_fd, r;
	struct vringfd_echo_attach at;

	if (tring_open(&a, 8, 64, 0) || tring_open(&b, 8, 64, 0) ||
	    tring_open(&c, 8, 64, 0) || tring_open(&d, 8, 64, 0)) {
		result_check(false, "attach_errors", "setup: %s", strerror(errno));
		return;
	}
	null_fd = open("/dev/null", O_RDWR);
	core_expect_err("attach_not_a_vring_fd_ebadf",
			echo_attach(null_fd, b.fd, 0, 0, &e1), EBADF);
	core_expect_err("attach_closed_fd_ebadf", echo_attach(999, b.fd, 0, 0, &e1),
			EBADF);
	core_expect_err("attach_to_not_a_vring_fd_ebadf",
			echo_attach(a.fd, null_fd, 0, 0, &e1), EBADF);
	close(null_fd);
	core_expect_err("attach_same_fd_twice_einval", echo_attach(a.fd, a.fd, 0, 0, &e1),
			EINVAL);
	core_expect_err("attach_unknown_flag_einval",
			echo_attach(a.fd, b.fd, 0, 0x80, &e1), EINVAL);

	/* a, b attached; a again (as "to") from another echo: EBUSY. */
	r = echo_attach(a.fd, b.fd, 0, 0, &e1);
	result_check(r == 0, "attach_ok", "%s", strerror(errno));
	core_expect_err("attach_already_attached_ebusy",
			echo_attach(c.fd, a.fd, 0, 0, &e2), EBUSY);
	/* c was attached first and must have been released again. */
	r = echo_attach(c.fd, d.fd, 0, 0, &e3);
	result_check(r == 0, "attach_failed_pair_releases_first", "%s", strerror(errno));
	memset(&at, 0, sizeof(at));
	at.from_fd = c.fd;
	at.to_fd = d.fd;
	core_expect_err("attach_echo_fd_twice_ebusy",
			ioctl(e1, VRINGFD_ECHO_ATTACH, &at), EBUSY);
	{
		int dupfd = dup(a.fd), e4;

		core_expect_err("attach_dup_of_attached_ebusy",
				echo_attach(dupfd, d.fd, 0, 0, &e4), EBUSY);
		close(dupfd);
	}
	if (e1 >= 0)
		close(e1);
	if (e3 >= 0)
		close(e3);
	/* After the echo fd closed, the rings can be attached again. */
	r = echo_attach(a.fd, b.fd, 0, 0, &e1);
	result_check(r == 0, "attach_again_after_echo_closed", "%s", strerror(errno));
	if (e1 >= 0)
		close(e1);
	tring_close(&a);
	tring_close(&b);
	tring_close(&c);
	tring_close(&d);

	/* A broken ring refuses attachment. */
	if (!tring_open(&a, 256, 64, 0) && !tring_open(&b, 8, 64, 0)) {
		short rev;

		munmap(a.vr.used, 4096);
		poll_one(a.fd, 0, &rev);	/* faults: now broken */
		core_expect_err("attach_broken_ring_eio", echo_attach(a.fd, b.fd, 0, 0, &e1),
				EIO);
	}
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_other_mm() - a forked child uses the parent's rings
 */
static void test_other_mm(void)
{
	struct vringfd_state st;
	struct tring a, b;
	int efd = -1, status;
	pid_t pid;

	if (tring_open(&a, 8, 64, 0) || tring_open(&b, 8, 64, 0)) {
		result_check(false, "other_mm", "setup: %s", strerror(errno));
		return;
	}
	tring_post(&a, 64, false, 1);
	tring_post(&b, 64, true, 0);
	pid = fork();
	if (pid == 0) {
		int bad = 0, e;
		char c = 0;

		if (echo_attach(a.fd, b.fd, 1, 0, &e) != -1 || errno != EPERM)
			bad |= 1;
		if (echo_attach(a.fd, b.fd, 0, 0, &e) != 0)
			bad |= 2;
		else if (write(a.fd, &c, 1) != -1 || errno != EPERM)
			bad |= 4;
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	result_check(WIFEXITED(status) && !(WEXITSTATUS(status) & 1),
		    "other_mm_atomic_attach_eperm", "child status %#x", status);
	result_check(WIFEXITED(status) && !(WEXITSTATUS(status) & 6),
		    "other_mm_write_eperm", "child status %#x", status);
	tring_state(&a, &st);
	result_check(st.last_avail == 0 && tring_used_pending(&b) == 0 &&
		    !(st.flags & VRINGFD_STATE_BROKEN),
		    "other_mm_touches_nothing", "last_avail %u, to used %u, flags %#x",
		    st.last_avail, tring_used_pending(&b), st.flags);
	/* The child's echo fd closed when it exited: the parent can attach. */
	result_check(echo_attach(a.fd, b.fd, 0, 0, &efd) == 0 &&
		    write(a.fd, "", 1) == 1, "other_mm_owner_still_works", "%s",
		    strerror(errno));
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_roundtrip() - echo with and without atomic completions
 * @name: test name
 * @atomic_every: echo's atomic_every
 * @flags: echo's flags
 */
static void test_roundtrip(const char *name, unsigned int atomic_every,
			   unsigned int flags)
{
	struct vringfd_echo_stats es;
	struct vringfd_state st;
	struct tring a, b;
	char why[160] = "";
	int efd = -1, i, waited = 0, call;
	uint64_t cnt = 0;
	int32_t v;
	uint32_t id, len;
	long r;
	short rev;
	bool ok;

	if (tring_open(&a, 16, 256, 0) || tring_open(&b, 16, 256, 0) ||
	    echo_attach(a.fd, b.fd, atomic_every, flags, &efd)) {
		result_check(false, name, "setup: %s", strerror(errno));
		goto out;
	}
	call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	v = call;
	ioctl(b.fd, VRINGFD_SET_CALL_FD, &v);
	for (i = 0; i < 12; i++) {
		tring_post(&a, 100, false, 0x40 + i);
		tring_post(&b, 256, true, 0);
	}
	r = write(a.fd, "", 1);
	/* Deferred (irq_work) completions may land after write() returns. */
	while (tring_used_pending(&b) < 12 && waited++ < 100)
		poll_one(b.fd, 10, &rev);
	ok = r == 12 && check_echoed(&b, 12, 100, 0x40, why, sizeof(why));
	for (i = 0; ok && i < 12; i++)
		ok = tring_take_used(&a, &id, &len) && len == 0;
	es = echo_stats(efd);
	tring_state(&b, &st);
	if (ok && atomic_every && es.atomic_done != 24 / atomic_every) {
		ok = false;
		snprintf(why, sizeof(why), "atomic_done %llu, want %u",
			 (unsigned long long)es.atomic_done, 24 / atomic_every);
	}
	if (ok && (flags & VRINGFD_ECHO_F_IRQ_WORK) && !es.irq_done) {
		ok = false;
		snprintf(why, sizeof(why), "no completion in hard irq (atomic_done %llu)",
			 (unsigned long long)es.atomic_done);
	}
	if (ok && (st.last_avail != 12 || st.used_idx != 12)) {
		ok = false;
		snprintf(why, sizeof(why), "to state last_avail %u used_idx %u",
			 st.last_avail, st.used_idx);
	}
	if (ok && (read(call, &cnt, 8) != 8 || !cnt)) {
		ok = false;
		snprintf(why, sizeof(why), "call eventfd not signalled");
	}
	result_check(ok, name, "write %ld; %s", r, why);
	close(call);
out:
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_pull_and_truncate() - poll()/read() on "to" pull; short "to" buffers
 */
static void test_pull_and_truncate(void)
{
	struct tring a, b;
	char why[160] = "";
	int efd = -1, r;
	long w;
	short rev;

	if (tring_open(&a, 8, 128, 0) || tring_open(&b, 8, 128, 0) ||
	    echo_attach(a.fd, b.fd, 0, 0, &efd)) {
		result_check(false, "poll_pull_fills", "setup: %s", strerror(errno));
		goto out;
	}
	tring_post(&a, 100, false, 7);
	tring_post(&a, 100, false, 8);
	w = write(a.fd, "", 1);
	result_check(w == 0, "write_without_to_buffers_zero", "write %ld (%s)", w,
		    w < 0 ? strerror(errno) : "-");
	r = poll_one(b.fd, 0, &rev);
	result_check(r == 0, "poll_to_empty_zero", "poll %d revents %#x", r, rev);
	tring_post(&b, 128, true, 0);
	r = poll_one(b.fd, 0, &rev);
	result_check(r == 1 && (rev & POLLIN) && check_echoed(&b, 1, 100, 7, why, sizeof(why)),
		    "poll_pull_fills", "poll %d revents %#x %s", r, rev, why);
	b.vr.desc[0].len = 0;
	tring_desc(&b, 1, (uintptr_t)(b.bufs + 128), 50, VRING_DESC_F_WRITE, 0);
	tring_avail(&b, 1);
	w = read(b.fd, why, 1);
	result_check(w == 1 && check_echoed(&b, 1, 50, 8, why, sizeof(why)),
		    "read_pulls_and_truncates", "read %ld %s", w, why);
out:
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_big_ring() - 32768 entries, atomic completions through the used ring
 * mapped over 65 pages, and the used index wrapping the ring
 */
static void test_big_ring(void)
{
	const unsigned int num = 32768, extra = 300;
	unsigned int total = 0, calls = 0, maxcall = 0, i;
	struct vringfd_echo_stats es;
	struct tring a, b;
	char why[160] = "";
	int efd = -1;
	long r = 0;
	bool ok;

	if (tring_open(&a, num, 16, 0) || tring_open(&b, num, 16, 0) ||
	    echo_attach(a.fd, b.fd, 1, 0, &efd)) {
		result_check(false, "big_ring_32768_atomic", "setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < num; i++) {
		tring_post(&a, 16, false, (uint8_t)i);
		tring_post(&b, 16, true, 0);
	}
	while (total < num && calls < 4 * num) {
		r = write(a.fd, "", 1);
		if (r <= 0)
			break;
		total += r;
		calls++;
		if (r > (long)maxcall)
			maxcall = r;
	}
	ok = total == num && maxcall <= 256 &&
	     check_echoed(&b, num, 16, 0, why, sizeof(why));
	result_check(ok, "big_ring_32768_atomic",
		    "echoed %u in %u calls (max %u per call, last %ld %s) %s", total, calls,
		    maxcall, r, r < 0 ? strerror(errno) : "", why);
	/* Consume the from completions, then go round the ring once more. */
	a.last_used = a.vr.used->idx;
	for (i = 0; i < extra; i++) {
		tring_post(&a, 16, false, (uint8_t)(num + i));
		tring_post(&b, 16, true, 0);
	}
	total = 0;
	while (total < extra && (r = write(a.fd, "", 1)) > 0)
		total += r;
	es = echo_stats(efd);
	ok = total == extra && check_echoed(&b, extra, 16, (uint8_t)num, why, sizeof(why)) &&
	     es.atomic_done == 2ULL * (num + extra);
	result_check(ok, "big_ring_32768_used_idx_wraps",
		    "echoed %u, atomic_done %llu %s", total,
		    (unsigned long long)es.atomic_done, why);
out:
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_notify() - call eventfd, VRING_AVAIL_F_NO_INTERRUPT, EVENT_IDX
 */
static void test_notify(void)
{
	struct vringfd_state st;
	struct vringfd_stats vs;
	struct tring a, b;
	uint64_t cnt = 0;
	int efd = -1, call, r;
	int32_t v;
	uint16_t *used_event, *avail_event;

	if (tring_open(&a, 8, 64, 0) || tring_open(&b, 8, 64, F_EVENT_IDX) ||
	    echo_attach(a.fd, b.fd, 0, 0, &efd)) {
		result_check(false, "notify", "setup: %s", strerror(errno));
		goto out;
	}
	call = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	v = call;
	ioctl(b.fd, VRINGFD_SET_CALL_FD, &v);
	used_event = (uint16_t *)&b.vr.avail->ring[b.num];
	avail_event = (uint16_t *)&b.vr.used->ring[b.num];

	tring_post(&a, 10, false, 1);
	tring_post(&b, 64, true, 0);
	r = write(a.fd, "", 1);
	result_check(r == 1 && read(call, &cnt, 8) == 8 && cnt >= 1,
		    "notify_first_completion_signals_call_fd", "write %d count %llu", r,
		    (unsigned long long)cnt);
	result_check(*avail_event == 1, "notify_avail_event_written",
		    "avail_event %u, want 1", *avail_event);
	tring_state(&b, &st);
	result_check(st.flags & VRINGFD_STATE_NOTIFY, "notify_state_flag_set",
		    "flags %#x", st.flags);
	tring_state(&b, &st);
	result_check(!(st.flags & VRINGFD_STATE_NOTIFY), "notify_state_flag_cleared",
		    "flags %#x", st.flags);

	/* used_event far ahead: no interrupt wanted. */
	*used_event = 10;
	tring_post(&a, 10, false, 2);
	tring_post(&b, 64, true, 0);
	r = write(a.fd, "", 1);
	cnt = 0;
	result_check(r == 1 && read(call, &cnt, 8) == -1 && errno == EAGAIN,
		    "notify_event_idx_suppressed", "write %d count %llu", r,
		    (unsigned long long)cnt);
	/* used_event = 2: the third completion (used idx 2 -> 3) crosses it. */
	*used_event = 2;
	tring_post(&a, 10, false, 3);
	tring_post(&b, 64, true, 0);
	r = write(a.fd, "", 1);
	result_check(r == 1 && read(call, &cnt, 8) == 8,
		    "notify_event_idx_crossed_signals", "write %d", r);
	ioctl(b.fd, VRINGFD_GET_STATS, &vs);
	result_check(vs.notifies == 2, "notify_stats_count", "notifies %llu, want 2",
		    (unsigned long long)vs.notifies);

	/* Without EVENT_IDX: VRING_AVAIL_F_NO_INTERRUPT on "from". */
	v = call;
	ioctl(a.fd, VRINGFD_SET_CALL_FD, &v);
	a.vr.avail->flags = VRING_AVAIL_F_NO_INTERRUPT;
	tring_post(&a, 10, false, 4);
	tring_post(&b, 64, true, 0);
	read(call, &cnt, 8);
	r = write(a.fd, "", 1);
	ioctl(a.fd, VRINGFD_GET_STATS, &vs);
	result_check(r == 1 && vs.notifies == 0, "notify_no_interrupt_flag_suppresses",
		    "write %d notifies %llu", r, (unsigned long long)vs.notifies);
	a.vr.avail->flags = 0;
	tring_post(&a, 10, false, 5);
	tring_post(&b, 64, true, 0);
	r = write(a.fd, "", 1);
	ioctl(a.fd, VRINGFD_GET_STATS, &vs);
	result_check(r == 1 && vs.notifies == 1, "notify_without_flag_signals",
		    "write %d notifies %llu", r, (unsigned long long)vs.notifies);
	close(call);
out:
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_detach_close() - VRINGFD_DETACH and close() of an attached ring
 */
static void test_detach_close(void)
{
	struct vringfd_state st;
	struct tring a, b, c;
	int efd = -1, efd2 = -1, r;

	if (tring_open(&a, 8, 64, 0) || tring_open(&b, 8, 64, 0) ||
	    tring_open(&c, 8, 64, 0) || echo_attach(a.fd, b.fd, 0, 0, &efd)) {
		result_check(false, "detach", "setup: %s", strerror(errno));
		goto out;
	}
	tring_state(&a, &st);
	result_check(st.flags & VRINGFD_STATE_ATTACHED, "state_attached_flag", "flags %#x",
		    st.flags);
	r = ioctl(a.fd, VRINGFD_DETACH);
	result_check(r == 0, "detach_attached_ok", "%s", strerror(errno));
	core_expect_err("write_after_detach_einval", write(a.fd, "", 1), EINVAL);
	core_expect_err("other_side_after_detach_epipe", write(b.fd, "", 1), EPIPE);
	core_expect_err("detach_twice_enoent", ioctl(a.fd, VRINGFD_DETACH), ENOENT);
	r = echo_attach(a.fd, c.fd, 0, 0, &efd2);
	result_check(r == 0, "attach_after_detach_ok", "%s", strerror(errno));
	if (efd2 >= 0) {
		tring_post(&a, 10, false, 1);
		tring_post(&c, 64, true, 0);
		r = write(a.fd, "", 1);
		result_check(r == 1, "echo_after_reattach_works", "write %d", r);
	}
	/* Close "from" while attached: the other side stops. */
	close(a.fd);
	a.fd = -1;
	core_expect_err("close_attached_ring_other_side_epipe", write(c.fd, "", 1), EPIPE);
	close(efd2);
	efd2 = -1;
	core_expect_err("close_echo_fd_ring_unattached_einval", write(c.fd, "", 1), EINVAL);
out:
	if (efd >= 0)
		close(efd);
	if (efd2 >= 0)
		close(efd2);
	tring_close(&a);
	tring_close(&b);
	tring_close(&c);
}

/**
 * test_misuse() - vringfd.ko's answers to a client calling the API wrongly,
 * and a used ring that cannot be pinned for atomic use
 */
static void test_misuse(void)
{
	struct vringfd_echo_misuse m;
	struct tring a, b;
	int efd = -1, r;

	if (tring_open(&a, 8, 64, 0) || tring_open(&b, 8, 64, 0) ||
	    echo_attach(a.fd, b.fd, 0, 0, &efd)) {
		result_check(false, "api_misuse", "setup: %s", strerror(errno));
		goto out;
	}
	memset(&m, 0x55, sizeof(m));
	r = ioctl(efd, VRINGFD_ECHO_MISUSE, &m);
	result_check(r == 0 && m.id_zero == -EINVAL, "api_used_buffer_id_0_einval",
		    "r=%d result %d", r, m.id_zero);
	result_check(r == 0 && m.id_too_big == -EINVAL, "api_used_buffer_id_too_big_einval",
		    "r=%d result %d", r, m.id_too_big);
	result_check(r == 0 && m.not_in_flight == -EINVAL,
		    "api_used_buffer_not_in_flight_einval", "r=%d result %d", r,
		    m.not_in_flight);
	result_check(r == 0 && m.atomic_not_attached_atomic == -EINVAL,
		    "api_used_buffer_atomic_without_atomic_use_einval", "r=%d result %d", r,
		    m.atomic_not_attached_atomic);
	result_check(tring_used_pending(&a) == 0 && !tring_broken(&a),
		    "api_misuse_ring_untouched", "used %u", tring_used_pending(&a));

	/*
	 * Head 0 of "from" taken and waiting for a "to" buffer: completing
	 * head 1 (never handed out) is refused, and head 0 still completes.
	 */
	{
		uint32_t id = 99, len = 99;
		char c = 0;

		tring_post(&a, 16, false, 0);
		r = (int)write(a.fd, &c, 1);
		memset(&m, 0x55, sizeof(m));
		r = r >= 0 ? ioctl(efd, VRINGFD_ECHO_MISUSE, &m) : r;
		result_check(r == 0 && m.not_in_flight == -EINVAL && tring_used_pending(&a) == 0,
			    "api_used_buffer_other_head_in_flight_einval",
			    "r=%d result %d used %u", r, m.not_in_flight, tring_used_pending(&a));
		tring_post(&b, 64, true, 0);
		r = (int)write(b.fd, &c, 1);
		result_check(r >= 0 && tring_take_used(&a, &id, &len) && id == 0 &&
			    tring_used_pending(&a) == 0 && !tring_broken(&a),
			    "api_taken_head_still_completes", "write %d, used id %u", r, id);
	}
out:
	if (efd >= 0)
		close(efd);
	tring_close(&a);
	tring_close(&b);

	/* 1024 entries: the used ring spans 3 pages; unmap the middle one. */
	if (tring_open(&a, 1024, 0, 0) || tring_open(&b, 8, 64, 0)) {
		result_check(false, "api_atomic_attach_unpinnable_efault", "setup: %s",
			    strerror(errno));
	} else {
		munmap((char *)a.vr.used + 4096, 4096);
		core_expect_err("api_atomic_attach_unpinnable_efault",
				echo_attach(a.fd, b.fd, 1, 0, &efd), EFAULT);
		r = echo_attach(b.fd, a.fd, 0, 0, &efd);
		result_check(r == 0, "api_failed_atomic_attach_leaves_ring_free", "%s",
			    strerror(errno));
		if (efd >= 0)
			close(efd);
	}
	tring_close(&a);
	tring_close(&b);
}

/**
 * test_used_at_page_end() - separately allocated ring parts (virtio 1.x
 * style) with the used ring ending exactly where its mapping ends: fine
 * without EVENT_IDX (also pinned for atomic use); with EVENT_IDX the
 * avail_event field after it is missing, so creation says EFAULT
 */
static void test_used_at_page_end(void)
{
	const unsigned int num = 8;
	size_t used_len = 4 + 8 * num;
	struct tring b;
	uint8_t *parts, *upage;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t last_used = 0;
	int fd, efd = -1;
	long r;

	parts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	upage = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(upage + 4096, 4096);
	desc = (struct vring_desc *)parts;
	avail = (struct vring_avail *)(parts + 2048);
	used = (struct vring_used *)(upage + 4096 - used_len);
	fd = vringfd_create(num, desc, avail, used, &last_used, F_EVENT_IDX);
	core_expect_err("create_event_idx_avail_event_missing_efault", fd, EFAULT);
	if (fd >= 0)
		close(fd);
	fd = vringfd_create(num, desc, avail, used, &last_used, 0);
	result_check(fd >= 0, "create_used_ends_at_mapping_end_ok", "%s", strerror(errno));
	if (fd >= 0 && !tring_open(&b, 8, 64, 0)) {
		r = echo_attach(fd, b.fd, 1, 0, &efd);
		result_check(r == 0, "atomic_attach_used_ends_at_mapping_end_ok", "%s",
			    strerror(errno));
		if (!r) {
			static uint8_t msg[32] __attribute__((aligned(16)));

			desc[0] = (struct vring_desc){ (uintptr_t)msg, 32, 0, 0 };
			avail->ring[0] = 0;
			__atomic_thread_fence(__ATOMIC_RELEASE);
			avail->idx = 1;
			tring_post(&b, 64, true, 0);
			r = write(fd, "", 1);
			result_check(r == 1 && used->idx == 1 && used->ring[0].id == 0,
				    "atomic_echo_used_ends_at_mapping_end",
				    "write %ld used idx %u", r, used->idx);
		}
		if (efd >= 0)
			close(efd);
		tring_close(&b);
	}
	if (fd >= 0)
		close(fd);
	munmap(parts, 4096);
	munmap(upage, 4096);
}

/**
 * main() - run the API tests
 *
 * Return: 0 when no test failed.
 */
int main(void)
{
	if (!echo_available()) {
		result_skip("core_api", "/dev/vringfd_echo missing (vringfd_echo.ko not loaded)");
		return 0;
	}
	test_attach_errors();
	test_other_mm();
	test_roundtrip("echo_roundtrip", 0, 0);
	test_roundtrip("echo_roundtrip_atomic_bh", 2, 0);
	test_roundtrip("echo_roundtrip_atomic_irq_work", 1, VRINGFD_ECHO_F_IRQ_WORK);
	test_pull_and_truncate();
	test_big_ring();
	test_notify();
	test_detach_close();
	test_misuse();
	test_used_at_page_end();
	return result_exit_status();
}
