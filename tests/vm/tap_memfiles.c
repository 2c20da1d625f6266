// SPDX-License-Identifier: GPL-2.0
/*
 * tap_memfiles.c - rings of memory (VRINGFD_SET_MEM_FILES) in the VM: a
 * ring whose table names a sealed memfd moves frames to a tap and back;
 * its fd passed to another process (fork + SCM_RIGHTS) that has unmapped
 * the memory serves write(), read() and poll() there, also when that
 * process is in a user and network namespace of its own; every refusal gets
 * its errno; RLIMIT_MEMLOCK is charged and released; the file cannot be
 * truncated; a punched hole does not fault the module.
 *
 * The memfd is mapped at some address A and its guest addresses are A as
 * well (guest address = user address in this process), so that the
 * driver library's descriptors need no translation here; the module does
 * not use the mapping (the child process proves it).
 */
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <linux/falloc.h>
#include <linux/vringfd_echo.h>

#include "memring.h"

#define TXTAP "vrmf0"
#define RXTAP "vrmf1"
#define PLAINTAP "vrmf2"

/**
 * test_rx_hdr() - RX with a 12-byte header on a ring of memory: the module
 * writes num_buffers in place when the first segment holds it, and across
 * segments when it does not (a 6-byte first descriptor)
 * @inj: packet socket on RXTAP
 */
static void test_rx_hdr(int inj)
{
	struct virtio_net_hdr_v1 h;
	struct iovec v[2];
	struct mf_ring rx;
	uint8_t ref[2048];
	uint32_t ulen[2] = { 0, 0 };
	uint16_t nb[2] = { 0, 0 };
	bool data[2] = { false, false };
	uint8_t *b;
	int tap, n, r, i;

	tap = -1;
	if (mf_ring_new(&rx, 0) || mf_set_whole(&rx) ||
	    (tap = tc_tap_open(RXTAP, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR)) < 0 ||
	    tc_set_hdr(tap, 12) ||
	    tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 12, VRINGFD_TAP_F_MRG_RXBUF)) {
		result_fail("memfiles_rx_hdr", "setup: %s", strerror(errno));
		if (tap >= 0)
			close(tap);
		mf_ring_free(&rx);
		return;
	}
	close(tap);
	/* the tap was closed and opened again: frames sent before its carrier
	 * is back are dropped by the stack */
	tc_wait_carrier(RXTAP);
	memset(mf_buf(&rx, 0), 0xff, 2 * BUFSZ);	/* no num_buffers by chance */
	v[0].iov_base = mf_buf(&rx, 0);
	v[0].iov_len = BUFSZ;
	vringfd_ring_add(mf_state(&rx), NULL, 0, v, 1, v[0].iov_base);
	v[0].iov_base = mf_buf(&rx, 1);
	v[0].iov_len = 6;
	v[1].iov_base = mf_buf(&rx, 1) + 6;
	v[1].iov_len = BUFSZ - 6;
	vringfd_ring_add(mf_state(&rx), NULL, 0, v, 2, v[0].iov_base);
	vringfd_ring_publish(mf_state(&rx));
	n = tc_inject(inj, 2, 100, 40);
	r = rx_pull(rx.fd, 2);
	for (i = 0; i < 2; i++) {
		b = vringfd_ring_get_used(mf_state(&rx), &ulen[i]);
		if (!b)
			break;
		memcpy(&h, b, sizeof(h));
		nb[i] = le16toh(h.num_buffers);
		tc_frame(ref, 100, 40 + (unsigned int)i);
		data[i] = ulen[i] == 112 && !memcmp(b + 12, ref, 100);
	}
	result_check(n == 2 && r == 2 && nb[0] == 1 && data[0], "memfiles_rx_hdr_num_buffers_in_place",
		     "injected %d, read %d, len %u, num_buffers %u", n, r, ulen[0], nb[0]);
	result_check(n == 2 && r == 2 && nb[1] == 1 && data[1], "memfiles_rx_hdr_num_buffers_split",
		     "injected %d, read %d, len %u, num_buffers %u", n, r, ulen[1], nb[1]);
	mf_ring_free(&rx);
}

/**
 * test_txrx() - frames go ring -> tap and tap -> ring through the memfd
 * @cap: packet socket on TXTAP
 * @inj: packet socket on RXTAP
 */
static void test_txrx(int cap, int inj)
{
	struct mf_ring tx, rx;
	int tap, r, n;

	if (mf_ring_new(&tx, 0) || mf_set_whole(&tx)) {
		result_fail("memfiles_tx", "setup: %s", strerror(errno));
		mf_ring_free(&tx);
		return;
	}
	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0)) {
		result_fail("memfiles_tx", "attach: %s", strerror(errno));
		close(tap);
		mf_ring_free(&tx);
		return;
	}
	close(tap);
	mf_post_tx(&tx, 0, 100, 60, 0);
	r = (int)write(tx.fd, "", 1);
	n = capture(cap, 100, 60, 0);
	result_check(r == 100 && n == 100, "memfiles_tx_100x60",
		     "write %d, captured %d intact of 100", r, n);
	/* 1500 bytes at an offset that crosses a page boundary */
	{
		struct iovec v = { mf_buf(&tx, 1) + 1000, 1500 };

		tc_frame(v.iov_base, 1500, 500);
		vringfd_ring_add(mf_state(&tx), &v, 1, NULL, 0, v.iov_base);
		vringfd_ring_publish(mf_state(&tx));
		r = (int)write(tx.fd, "", 1);
		n = capture(cap, 1, 1500, 500);
		result_check(r == 1 && n == 1, "memfiles_tx_1500_across_pages",
			     "write %d, captured %d", r, n);
	}
	n = 0;
	while (vringfd_ring_get_used(mf_state(&tx), NULL))
		n++;
	result_check(n == 101, "memfiles_tx_completed", "%d used entries of 101", n);
	mf_ring_free(&tx);

	if (mf_ring_new(&rx, 0) || mf_set_whole(&rx)) {
		result_fail("memfiles_rx", "setup: %s", strerror(errno));
		mf_ring_free(&rx);
		return;
	}
	tap = tc_tap_open(RXTAP, IFF_TAP | IFF_NO_PI);
	if (tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 0, 0)) {
		result_fail("memfiles_rx", "attach: %s", strerror(errno));
		close(tap);
		mf_ring_free(&rx);
		return;
	}
	close(tap);
	tc_wait_carrier(RXTAP);
	mf_post_rx(&rx, 0, 20);
	n = tc_inject(inj, 10, 100, 0);
	r = rx_pull(rx.fd, 10);
	result_check(n == 10 && r == 10 && rx_check(&rx, 10, 100, 0),
		     "memfiles_rx_10_filled", "injected %d, read %d", n, r);
	mf_ring_free(&rx);
	test_rx_hdr(inj);
}

/**
 * send_fd() - pass @fd over the unix socket @s
 * @s: socket
 * @fd: descriptor
 *
 * Return: 0 or -1.
 */
static int send_fd(int s, int fd)
{
	char c = 'f', cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec v = { &c, 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(s, &m, 0) == 1 ? 0 : -1;
}

/**
 * recv_fd() - receive one descriptor over the unix socket @s
 * @s: socket
 *
 * Return: the descriptor, or -1.
 */
static int recv_fd(int s)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec v = { &c, 1 };
	struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(s, &m, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/*
 * What the child reports back, one byte per step (the value: 0 ok, else
 * the errno, capped at 255).
 */
enum { CH_TX_WRITE, CH_RX_POLL, CH_RX_READ, CH_PLAIN_WRITE, CH_NSTEPS };

/**
 * child_serve() - the other process: receive the rings' fds and drive them
 * @s: unix socket to the parent
 * @ns_flags: 0, or the namespaces to move to first (CLONE_NEWUSER,
 *	CLONE_NEWNET: the taps the rings are attached to stay in the parent's)
 *
 * Forked before the rings and their memfds existed: this process never
 * mapped their memory.
 * Never returns.
 */
static void __attribute__((noreturn)) child_serve(int s, int ns_flags)
{
	uint8_t rep[CH_NSTEPS];
	struct pollfd p;
	int txfd, rxfd, plainfd, r;
	char c;

	if (ns_flags && unshare(ns_flags))
		_exit(6);
	txfd = recv_fd(s);
	rxfd = recv_fd(s);
	plainfd = recv_fd(s);
	memset(rep, 0xff, sizeof(rep));
	if (txfd < 0 || rxfd < 0 || plainfd < 0)
		_exit(2);
	/* TX: the parent posted 10 frames */
	r = (int)write(txfd, "", 1);
	rep[CH_TX_WRITE] = r == 10 ? 0 : r < 0 ? (uint8_t)errno : 254;
	/* RX: the parent posted buffers and injects after our byte */
	if (write(s, "r", 1) != 1)
		_exit(3);
	p.fd = rxfd;
	p.events = POLLIN;
	r = poll(&p, 1, 5000);
	rep[CH_RX_POLL] = r == 1 && (p.revents & POLLIN) && !(p.revents & POLLERR) ?
			  0 : 253;
	/* poll() filled those; the parent injects 5 more for read() */
	if (write(s, "p", 1) != 1)
		_exit(3);
	r = rx_pull(rxfd, 5);
	rep[CH_RX_READ] = r >= 5 ? 0 : 252;
	/* an address-space ring stays its creator's */
	r = (int)write(plainfd, "", 1);
	rep[CH_PLAIN_WRITE] = r < 0 ? (uint8_t)errno : 251;
	if (read(s, &c, 1) != 1)	/* parent is done checking */
		_exit(4);
	_exit(write(s, rep, sizeof(rep)) == sizeof(rep) ? 0 : 5);
}

/**
 * ns_probe() - which namespaces a child can make here
 *
 * Return: CLONE_NEWUSER | CLONE_NEWNET, CLONE_NEWNET alone (a kernel
 * without user namespaces), or -1.
 */
static int ns_probe(void)
{
	int st;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(!unshare(CLONE_NEWUSER | CLONE_NEWNET) ? 0 : !unshare(CLONE_NEWNET) ? 1 : 2);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return -1;
	return WEXITSTATUS(st) ? CLONE_NEWNET : CLONE_NEWUSER | CLONE_NEWNET;
}

/**
 * test_other_process() - a ring fd passed over SCM_RIGHTS to a process that
 * never mapped the memory (it unmapped the parent's copy) serves write(),
 * poll() and read() there; an address-space ring answers EPERM
 * @cap: packet socket on TXTAP
 * @inj: packet socket on RXTAP
 * @other_ns: the process is in a user and network namespace of its own
 *	(made before it received the fds): the rings still move frames
 *	through the taps of this namespace, which they are attached to.  A
 *	kernel without user namespaces (the debug kernel) gets a network
 *	namespace only (said on a comment line)
 */
static void test_other_process(int cap, int inj, bool other_ns)
{
	static const char *const steps[CH_NSTEPS] = {
		"write_sends", "poll_pollin", "read_fills", "plain_ring_eperm",
	};
	const char *pfx = other_ns ? "memfiles_other_netns_userns" : "memfiles_other_process";
	char name[96];
	struct mf_ring tx, rx;
	struct tc_ring plain;
	uint8_t rep[CH_NSTEPS];
	int sv[2], tap, n, i, st;
	pid_t pid;
	char c;
	int ns_flags = 0;

	if (other_ns) {
		ns_flags = ns_probe();
		if (ns_flags < 0) {
			result_skip(pfx, "unshare(CLONE_NEWNET) fails here");
			return;
		}
		if (!(ns_flags & CLONE_NEWUSER))
			printf("# %s: no user namespaces in this kernel: a network namespace only\n", pfx);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		result_fail(pfx, "socketpair: %s", strerror(errno));
		return;
	}
	/* forked before any ring exists: the child inherits no ring fd nor memory */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child_serve(sv[1], ns_flags);
	}
	close(sv[1]);
	if (mf_ring_new(&tx, 0) || mf_set_whole(&tx) || mf_ring_new(&rx, 0) ||
	    mf_set_whole(&rx) || tc_ring_new(&plain, 64, 0)) {
		result_fail(pfx, "setup: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0);
	close(tap);
	tap = tc_tap_open(PLAINTAP, IFF_TAP | IFF_NO_PI);
	tc_attach(plain.fd, tap, VRINGFD_DIR_TX, 0, 0);
	close(tap);
	tap = tc_tap_open(RXTAP, IFF_TAP | IFF_NO_PI);
	tc_attach(rx.fd, tap, VRINGFD_DIR_RX, 0, 0);
	close(tap);
	mf_post_tx(&tx, 0, 10, 80, 40);
	mf_post_rx(&rx, 0, 10);
	if (send_fd(sv[0], tx.fd) || send_fd(sv[0], rx.fd) || send_fd(sv[0], plain.fd)) {
		result_fail(pfx, "sendmsg: %s", strerror(errno));
		kill(pid, SIGKILL);
	} else if (read(sv[0], &c, 1) == 1) {
		usleep(200000);		/* the child sits in poll() */
		tc_inject(inj, 5, 90, 60);
		if (read(sv[0], &c, 1) == 1)	/* poll() returned */
			tc_inject(inj, 5, 90, 65);
	}
	n = capture(cap, 10, 80, 40);
	snprintf(name, sizeof(name), "%s_frames_sent", pfx);
	result_check(n == 10, name, "captured %d of 10", n);
	if (write(sv[0], "d", 1) != 1 || read(sv[0], rep, sizeof(rep)) != sizeof(rep))
		memset(rep, 250, sizeof(rep));
	waitpid(pid, &st, 0);
	for (i = 0; i < CH_NSTEPS; i++) {
		int want = i == CH_PLAIN_WRITE ? EPERM : 0;

		snprintf(name, sizeof(name), "%s_%s", pfx, steps[i]);
		result_check(rep[i] == want, name, "child reported %u, want %d (child status %#x)",
			     rep[i], want, st);
	}
	snprintf(name, sizeof(name), "%s_rx_content", pfx);
	result_check(rx_check(&rx, 10, 90, 60), name,
		     "frames filled by the child's read() are not intact");
	close(sv[0]);
	tc_ring_free(&plain);
	mf_ring_free(&tx);
	mf_ring_free(&rx);
}

/**
 * test_creator_exits() - a ring outlives the process that made it: the
 * creator posts frames, passes the ring fd over SCM_RIGHTS and exits
 * (its mapping, memfd and address space gone); this process, which never
 * mapped the memory, attaches it to a tap and write() sends the frames
 * @cap: packet socket on TXTAP
 */
static void test_creator_exits(int cap)
{
	int sv[2], fd, tap, r, n, st;
	struct mf_ring m;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		result_fail("memfiles_creator_exits", "socketpair: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		if (mf_ring_new(&m, 0) || mf_set_whole(&m))
			_exit(2);
		mf_post_tx(&m, 0, 8, 70, 90);
		_exit(send_fd(sv[1], m.fd) ? 3 : 0);	/* exit closes and unmaps all */
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || fd < 0) {
		result_fail("memfiles_creator_exits", "creator status %#x, fd %d", st, fd);
		if (fd >= 0)
			close(fd);
		return;
	}
	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	r = tc_attach(fd, tap, VRINGFD_DIR_TX, 0, 0);
	close(tap);
	if (r < 0) {
		result_fail("memfiles_creator_exits", "attach: %s", strerror(errno));
		close(fd);
		return;
	}
	r = (int)write(fd, "", 1);
	n = capture(cap, 8, 70, 90);
	result_check(r == 8 && n == 8, "memfiles_creator_exits_ring_still_sends",
		     "write %d, captured %d of 8", r, n);
	close(fd);
}

/**
 * create_of_memory() - VRINGFD_CREATE_F_MEM_FILES over @t
 * @num: ring size
 * @flags: more VRINGFD_CREATE_F_* flags
 * @avail_base: with VRINGFD_CREATE_F_AVAIL_BASE
 * @t: the table, or NULL (a bad pointer)
 *
 * Return: the vring fd, or -1 with errno.
 */
static int create_of_memory(unsigned int num, unsigned int flags, uint16_t avail_base,
			    const struct mf_table *t)
{
	struct vringfd_create c;

	memset(&c, 0, sizeof(c));
	c.num = num;
	c.flags = VRINGFD_CREATE_F_MEM_FILES | flags;
	c.avail_base = avail_base;
	c.mem_files = t ? (uintptr_t)t : 8;
	return vringfd_create_ex(&c);
}

/**
 * test_create_of_memory() - VRINGFD_CREATE_F_MEM_FILES: a child that
 * unmapped the memfd makes a ring of memory from its table alone (no
 * address of its own), starting at avail entry 0 (AVAIL_BASE): the 6
 * chains posted before are sent; and the refusals of the flag
 * @cap: packet socket on TXTAP
 */
static void test_create_of_memory(int cap)
{
	struct vringfd_mem_file_region r;
	struct vringfd_version v;
	struct vringfd_create c;
	struct mf_table t;
	struct mf_ring m;
	int fd, n, st;
	pid_t pid;

	if (vringfd_get_version(&v) < 0 || !(v.caps & VRINGFD_CAP_CREATE_MEM_FILES)) {
		result_fail("memfiles_create_cap", "VRINGFD_CAP_CREATE_MEM_FILES not reported");
		return;
	}
	if (mf_ring_new(&m, 0)) {
		result_fail("memfiles_create", "setup: %s", strerror(errno));
		mf_ring_free(&m);
		return;
	}
	mf_post_tx(&m, 0, 6, 80, 300);
	r = mf_region(&m);
	mf_table_of(&m, &r, 1, &t);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int tap, w;

		/* nothing of the memfd is mapped here any more */
		if (munmap(m.mem, MEMSZ))
			_exit(10);
		fd = create_of_memory(NUM, VRINGFD_CREATE_F_AVAIL_BASE, 0, &t);
		if (fd < 0) {
			printf("# memfiles_create: VRINGFD_CREATE: %s\n", strerror(errno));
			fflush(stdout);
			_exit(11);
		}
		tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
		if (tc_attach(fd, tap, VRINGFD_DIR_TX, 0, 0))
			_exit(12);
		w = (int)write(fd, "", 1);
		_exit(w == 6 ? 0 : 13);
	}
	n = capture(cap, 6, 80, 300);
	st = -1;
	waitpid(pid, &st, 0);
	result_check(WIFEXITED(st) && !WEXITSTATUS(st) && n == 6,
		     "memfiles_create_unmapped_sends", "child status %#x (10 munmap, 11 create, "
		     "12 attach, 13 write not 6), captured %d of 6", st, n);
	/* the used ring the child's ring wrote is the memfd's */
	n = 0;
	while (vringfd_ring_get_used(mf_state(&m), NULL))
		n++;
	result_check(n == 6, "memfiles_create_used_in_the_file", "%d used entries of 6", n);

	/* one chain more: avail->idx 7, used->idx 6 in the file */
	mf_post_tx(&m, 6, 1, 80, 306);
	fd = create_of_memory(NUM, 0, 0, &t);
	tc_expect_err("memfiles_create_starts_at_avail_idx", fd, 0);
	if (fd >= 0) {
		struct vringfd_state s;

		if (ioctl(fd, VRINGFD_GET_STATE, &s) == 0)
			result_check(s.last_avail == 7 && s.used_idx == 6,
				     "memfiles_create_indices_from_the_file",
				     "last_avail %u used_idx %u (want 7 6)", s.last_avail,
				     s.used_idx);
		else
			result_fail("memfiles_create_indices_from_the_file", "GET_STATE: %s",
				    strerror(errno));
		close(fd);
	}
	tc_expect_err("memfiles_create_bad_pointer_efault",
		      create_of_memory(NUM, 0, 0, NULL), EFAULT);
	/* 6 chains posted: base 0 is 6 behind, more than a 4-entry ring holds;
	 * base 7 is ahead of avail->idx 6 (65535 behind) */
	{
		struct mf_ring small;

		if (mf_ring_new(&small, 0) == 0) {
			struct mf_table ts;
			struct vringfd_mem_file_region rs = mf_region(&small);

			mf_post_tx(&small, 0, 6, 60, 0);
			mf_table_of(&small, &rs, 1, &ts);
			tc_expect_err("memfiles_create_base_too_far_einval",
				      create_of_memory(4, VRINGFD_CREATE_F_AVAIL_BASE, 0, &ts),
				      EINVAL);
			tc_expect_err("memfiles_create_base_ahead_einval",
				      create_of_memory(NUM, VRINGFD_CREATE_F_AVAIL_BASE, 7, &ts),
				      EINVAL);
		} else {
			result_fail("memfiles_create_base_too_far_einval", "setup: %s",
				    strerror(errno));
		}
		mf_ring_free(&small);
	}
	memset(&c, 0, sizeof(c));
	c.num = NUM;
	c.flags = VRINGFD_CREATE_F_MEM_FILES;
	c.mem_files = (uintptr_t)&t;
	c.desc_addr = (uintptr_t)mf_state(&m)->vr.desc;
	tc_expect_err("memfiles_create_with_address_einval", vringfd_create_ex(&c), EINVAL);
	c.desc_addr = 0;
	c.flags = 0;
	tc_expect_err("memfiles_create_pointer_without_flag_einval", vringfd_create_ex(&c), EINVAL);
	r.fd = mf_memfd(MEMSZ, 0);
	mf_table_of(&m, &r, 1, &t);
	tc_expect_err("memfiles_create_unsealed_eperm", create_of_memory(NUM, 0, 0, &t), EPERM);
	if (r.fd >= 0)
		close(r.fd);
	r = mf_region(&m);
	r.size = 4096;		/* the ring parts are beyond it */
	mf_table_of(&m, &r, 1, &t);
	tc_expect_err("memfiles_create_ring_outside_einval", create_of_memory(NUM, 0, 0, &t),
		      EINVAL);
	mf_ring_free(&m);
}

/**
 * expect_set() - VRINGFD_SET_MEM_FILES on a fresh ring fails with @want
 * @name: test name
 * @r: the regions
 * @n: their number
 * @want: expected errno
 */
static void expect_set(const char *name, struct vringfd_mem_file_region *r,
		       unsigned int n, int want)
{
	struct mf_ring m;
	long ret;

	if (mf_ring_new(&m, 0)) {
		result_fail(name, "setup: %s", strerror(errno));
		mf_ring_free(&m);
		return;
	}
	ret = mf_set(&m, r, n);
	tc_expect_err(name, ret, want);
	mf_ring_free(&m);
}

/**
 * echo_attach_pair() - VRINGFD_ECHO_ATTACH of {@from, @to} on a new echo fd
 * @from: vring fd
 * @to: vring fd
 * @efd: the echo fd (out; -1 on failure)
 *
 * Return: 0, or -1 with errno.
 */
static int echo_attach_pair(int from, int to, int *efd)
{
	struct vringfd_echo_attach a = { .from_fd = from, .to_fd = to };
	int e;

	*efd = open("/dev/vringfd_echo", O_RDWR | O_CLOEXEC);
	if (*efd < 0)
		return -1;
	if (ioctl(*efd, VRINGFD_ECHO_ATTACH, &a) == 0)
		return 0;
	e = errno;
	close(*efd);
	*efd = -1;
	errno = e;
	return -1;
}

/**
 * test_echo_client() - rings of memory and an in-kernel client that takes
 * buffers as user addresses (vringfd_echo, vrfd_get_buffer()): neither
 * way round is allowed, so the client never meets a ring it cannot serve
 */
static void test_echo_client(void)
{
	struct mf_ring a, b;
	int efd;

	if (access("/dev/vringfd_echo", F_OK)) {
		result_skip("memfiles_echo_attached_set_ebusy", "vringfd_echo.ko not loaded");
		result_skip("memfiles_echo_attach_ring_of_memory_eopnotsupp",
			    "vringfd_echo.ko not loaded");
		return;
	}
	if (mf_ring_new(&a, 0) || mf_ring_new(&b, 0)) {
		result_fail("memfiles_echo_attached_set_ebusy", "setup: %s", strerror(errno));
		goto out;
	}
	/* an address-space ring attached to echo: SET_MEM_FILES refused */
	if (echo_attach_pair(a.fd, b.fd, &efd)) {
		result_fail("memfiles_echo_attached_set_ebusy", "echo attach: %s",
			    strerror(errno));
	} else {
		tc_expect_err("memfiles_echo_attached_set_ebusy", mf_set_whole(&a), EBUSY);
		close(efd);	/* detaches both */
	}
	/* a ring of memory: echo's attach refused, the other ring left free */
	if (mf_set_whole(&a)) {
		result_fail("memfiles_echo_attach_ring_of_memory_eopnotsupp",
			    "SET_MEM_FILES after the echo fd closed: %s", strerror(errno));
	} else {
		tc_expect_err("memfiles_echo_attach_ring_of_memory_eopnotsupp",
			      echo_attach_pair(b.fd, a.fd, &efd), EOPNOTSUPP);
		if (efd >= 0)
			close(efd);
	}
out:
	mf_ring_free(&a);
	mf_ring_free(&b);
}

/**
 * test_refusals() - each bad table gets its errno
 */
static void test_refusals(void)
{
	struct vringfd_mem_file_region r[2];
	struct mf_ring m;
	struct statfs sfs;
	int fd;

	if (mf_ring_new(&m, 0)) {
		result_fail("memfiles_refusals", "setup: %s", strerror(errno));
		return;
	}

	/* sanity: the whole memfd is accepted */
	r[0] = mf_region(&m);
	tc_expect_err("memfiles_sealed_memfd_accepted", mf_set(&m, r, 1), 0);
	/* a ring of memory refuses an address table */
	{
		struct vringfd_mem_region ar = { 0, 4096, (uintptr_t)m.mem, 0 };

		tc_expect_err("memfiles_then_mem_table_einval",
			      vringfd_set_mem_table(m.fd, &ar, 1), EINVAL);
	}
	/* the file cannot shrink any more */
	tc_expect_err("memfiles_truncate_refused_eperm",
		      ftruncate(m.memfd, 4096), EPERM);

	fd = mf_memfd(MEMSZ, 0);
	r[0].fd = fd;
	tc_expect_err("memfiles_unsealed_memfd_eperm", mf_set(&m, r, 1), EPERM);
	close(fd);
	fd = mf_memfd(MEMSZ, F_SEAL_GROW | F_SEAL_SEAL);
	r[0].fd = fd;
	tc_expect_err("memfiles_memfd_other_seals_eperm", mf_set(&m, r, 1), EPERM);
	close(fd);
	/* the module writes the pages: a write seal refuses it */
	fd = mf_memfd(MEMSZ, F_SEAL_SHRINK | F_SEAL_WRITE);
	r[0].fd = fd;
	tc_expect_err("memfiles_write_sealed_eperm", mf_set(&m, r, 1), EPERM);
	close(fd);
	fd = mf_memfd(MEMSZ, F_SEAL_SHRINK | F_SEAL_FUTURE_WRITE);
	r[0].fd = fd;
	tc_expect_err("memfiles_future_write_sealed_eperm", mf_set(&m, r, 1), EPERM);
	close(fd);
	/* ... and a read-only fd of the same memfd gives no right to write */
	{
		char path[64];
		int ro;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", m.memfd);
		ro = open(path, O_RDONLY | O_CLOEXEC);
		if (ro < 0) {
			result_fail("memfiles_read_only_fd_eacces", "open %s: %s", path,
				    strerror(errno));
		} else {
			r[0].fd = ro;
			tc_expect_err("memfiles_read_only_fd_eacces", mf_set(&m, r, 1), EACCES);
			close(ro);
		}
		r[0].fd = m.memfd;
	}
	/*
	 * A memfd this process never maps, held by the module as a second
	 * region: F_SEAL_WRITE is refused while the table holds it, and
	 * accepted once a table without it replaced that one.
	 */
	fd = mf_memfd(4096, F_SEAL_SHRINK);
	r[0] = mf_region(&m);
	memset(&r[1], 0, sizeof(r[1]));
	r[1].guest_addr = (uintptr_t)m.mem + 2 * MEMSZ;
	r[1].size = 4096;
	r[1].fd = fd;
	if (fd < 0 || mf_set(&m, r, 2) < 0) {
		result_fail("memfiles_held_write_seal_ebusy", "setup: %s", strerror(errno));
	} else {
		tc_expect_err("memfiles_held_write_seal_ebusy",
			      fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), EBUSY);
		if (mf_set(&m, r, 1) < 0)
			result_fail("memfiles_released_write_seal_ok", "set: %s", strerror(errno));
		else
			tc_expect_err("memfiles_released_write_seal_ok",
				      fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), 0);
	}
	if (fd >= 0)
		close(fd);

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstatfs(fd, &sfs) < 0) {
		result_fail("memfiles_regular_file_eopnotsupp", "open: %s", strerror(errno));
	} else {
		r[0].fd = fd;
		r[0].size = 4096;
		if (!tc_expect_err("memfiles_regular_file_eopnotsupp", mf_set(&m, r, 1),
				   EOPNOTSUPP))
			fprintf(stderr, "# file system type %#lx\n", (unsigned long)sfs.f_type);
		r[0].size = MEMSZ;
	}
	if (fd >= 0)
		close(fd);
	fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
	r[0].fd = fd;
	r[0].size = 4096;
	if (fd >= 0)
		tc_expect_err("memfiles_sysfs_file_eopnotsupp", mf_set(&m, r, 1), EOPNOTSUPP);
	else
		result_skip("memfiles_sysfs_file_eopnotsupp", "no sysfs file: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	r[0] = mf_region(&m);
	r[0].fd = 1000;
	tc_expect_err("memfiles_bad_fd_ebadf", mf_set(&m, r, 1), EBADF);

	r[0] = mf_region(&m);
	r[0].size = 0;
	tc_expect_err("memfiles_zero_size_einval", mf_set(&m, r, 1), EINVAL);
	r[0] = mf_region(&m);
	r[0].size = MEMSZ + 1;
	tc_expect_err("memfiles_beyond_file_einval", mf_set(&m, r, 1), EINVAL);
	r[0] = mf_region(&m);
	r[0].offset = 4096;
	tc_expect_err("memfiles_offset_plus_size_beyond_file_einval", mf_set(&m, r, 1), EINVAL);
	r[0] = mf_region(&m);
	r[0].offset = 100;
	r[0].size = 4096;
	tc_expect_err("memfiles_unaligned_offset_einval", mf_set(&m, r, 1), EINVAL);
	r[0] = mf_region(&m);
	r[1] = mf_region(&m);
	r[1].guest_addr += MEMSZ - 4096;	/* overlaps the last page */
	tc_expect_err("memfiles_overlap_einval", mf_set(&m, r, 2), EINVAL);
	r[1].guest_addr = UINT64_MAX - 4095;
	r[1].size = 8192;
	tc_expect_err("memfiles_wrap_einval", mf_set(&m, r, 2), EINVAL);
	r[0] = mf_region(&m);
	r[0].size = 4096;	/* the ring parts are beyond it */
	tc_expect_err("memfiles_ring_outside_table_einval", mf_set(&m, r, 1), EINVAL);
	r[0] = mf_region(&m);
	r[0].guest_addr -= 8;	/* the ring parts 8 bytes off in the file */
	tc_expect_err("memfiles_ring_misaligned_in_file_einval", mf_set(&m, r, 1), EINVAL);
	r[0] = mf_region(&m);
	r[0].reserved = 1;
	tc_expect_err("memfiles_reserved_einval", mf_set(&m, r, 1), EINVAL);
	tc_expect_err("memfiles_no_region_einval", mf_set(&m, r, 0), EINVAL);
	mf_ring_free(&m);

	/* more pages than the module holds per table (sparse file: no memory) */
	fd = mf_memfd((1UL << 30) + 4096, F_SEAL_SHRINK);
	if (fd < 0) {
		result_fail("memfiles_too_many_pages_e2big", "memfd: %s", strerror(errno));
	} else {
		r[0].guest_addr = 1UL << 40;
		r[0].size = (1UL << 30) + 4096;
		r[0].offset = 0;
		r[0].fd = fd;
		r[0].reserved = 0;
		expect_set("memfiles_too_many_pages_e2big", r, 1, E2BIG);
		close(fd);
	}
}

/**
 * ring_over() - another vring fd over the ring parts of @m (as each ring of
 * a guest lives in the guest's one memory)
 * @m: the ring
 *
 * Return: the vring fd, or -1 with errno.
 */
static int ring_over(struct mf_ring *m)
{
	struct vringfd_ring *rs = mf_state(m);

	return vringfd_create(NUM, rs->vr.desc, rs->vr.avail, rs->vr.used, &rs->last_used, 0);
}

/**
 * child_memlock_shared() - tables holding the same pages are charged once
 * @a: a ring whose table holds the first 1 MiB of its memfd (charged: 1 MiB
 *	of the child's 1.5 MiB)
 *
 * A second ring given the same 1 MiB of the same memfd shares the pages
 * held (not charged again); a ring of another memfd is still charged
 * (ENOMEM); after a hole is punched in the region, the file has other
 * pages: a third ring's table is charged anew (ENOMEM).  The pages stay
 * held while either ring holds them: closing @a's fd leaves the shared
 * charge, which the second ring's close returns.
 * Return: 1 when every case passed (its own lines printed), else 0.
 */
static int child_memlock_shared(struct mf_ring *a)
{
	struct vringfd_mem_file_region r = mf_region(a);
	struct mf_ring c;
	int ok = 1, fd2, fd3;

	r.size = 1UL << 20;
	fd2 = ring_over(a);
	fd3 = ring_over(a);
	if (fd2 < 0 || fd3 < 0 || mf_ring_new(&c, 0)) {
		result_fail("memfiles_memlock_same_pages_charged_once", "setup: %s", strerror(errno));
		return 0;
	}
	{
		struct mf_ring a2 = *a;

		a2.fd = fd2;
		ok &= tc_expect_err("memfiles_memlock_same_pages_charged_once",
				    mf_set(&a2, &r, 1), 0);
	}
	{
		struct vringfd_mem_file_region rc = mf_region(&c);

		rc.size = 1UL << 20;
		ok &= tc_expect_err("memfiles_memlock_other_file_charged", mf_set(&c, &rc, 1),
				    ENOMEM);
	}
	/* a punched hole: the region's pages are others now */
	if (fallocate(a->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 512UL << 10,
		      64UL << 10)) {
		result_fail("memfiles_memlock_punched_pages_charged", "fallocate: %s",
			    strerror(errno));
		ok = 0;
	} else {
		struct mf_ring a3 = *a;

		a3.fd = fd3;
		ok &= tc_expect_err("memfiles_memlock_punched_pages_charged",
				    mf_set(&a3, &r, 1), ENOMEM);
	}
	/* a's own table goes (its fd closed): the second ring still holds the pages */
	close(a->fd);
	a->fd = -1;
	{
		struct vringfd_mem_file_region rc = mf_region(&c);

		rc.size = 1UL << 20;
		ok &= tc_expect_err("memfiles_memlock_shared_kept_by_other_ring",
				    mf_set(&c, &rc, 1), ENOMEM);
		close(fd2);
		ok &= tc_expect_err("memfiles_memlock_shared_released_by_last",
				    mf_set(&c, &rc, 1), 0);
	}
	close(fd3);
	mf_ring_free(&c);
	return ok;
}

/**
 * child_memlock() - the RLIMIT_MEMLOCK cases, in a child without
 * CAP_IPC_LOCK and a 1 MiB + 512 KiB limit (the ring's table is 2 MiB)
 *
 * Return: 0 when every case passed (its own lines printed).
 */
static int child_memlock(void)
{
	struct rlimit rl = { 1536UL << 10, 1536UL << 10 };
	struct vringfd_mem_file_region r;
	struct mf_ring a, b;
	int ok = 1;

	if (mf_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl)) {
		result_fail("memfiles_memlock", "capset/setrlimit: %s", strerror(errno));
		fflush(stdout);
		return 1;
	}
	if (mf_ring_new(&a, 0) || mf_ring_new(&b, 0)) {
		result_fail("memfiles_memlock", "setup: %s", strerror(errno));
		fflush(stdout);
		return 1;
	}
	ok &= tc_expect_err("memfiles_memlock_exceeded_enomem", mf_set_whole(&a), ENOMEM);
	/* 1 MiB fits (the ring parts are in the first 64 KiB) */
	r = mf_region(&a);
	r.size = 1UL << 20;
	ok &= tc_expect_err("memfiles_memlock_within_limit", mf_set(&a, &r, 1), 0);
	/* replaced by 256 KiB: the 1 MiB charge is released after the swap */
	r.size = 256UL << 10;
	ok &= tc_expect_err("memfiles_memlock_replace", mf_set(&a, &r, 1), 0);
	r = mf_region(&b);
	r.size = 1UL << 20;
	ok &= tc_expect_err("memfiles_memlock_released_on_replace", mf_set(&b, &r, 1), 0);
	/* closing b releases its 1 MiB: a can have 1 MiB again (256 KiB + 1 MiB) */
	mf_ring_free(&b);
	r = mf_region(&a);
	r.size = 1UL << 20;
	ok &= tc_expect_err("memfiles_memlock_released_on_close", mf_set(&a, &r, 1), 0);
	ok &= child_memlock_shared(&a);
	mf_ring_free(&a);
	fflush(stdout);
	return ok ? 0 : 1;
}

/**
 * test_memlock() - RLIMIT_MEMLOCK charged, enforced and released
 */
static void test_memlock(void)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child_memlock());
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		result_fail("memfiles_memlock_child", "child status %#x (its lines say what failed)", st);
}

/**
 * test_punch_hole() - a hole punched under the buffers: the module keeps
 * the pages it holds, write() still sends (the old bytes), nothing faults
 * @cap: packet socket on TXTAP
 */
static void test_punch_hole(int cap)
{
	struct mf_ring tx;
	int tap, r, n;

	if (mf_ring_new(&tx, 0) || mf_set_whole(&tx)) {
		result_fail("memfiles_punch_hole", "setup: %s", strerror(errno));
		mf_ring_free(&tx);
		return;
	}
	tap = tc_tap_open(TXTAP, IFF_TAP | IFF_NO_PI);
	tc_attach(tx.fd, tap, VRINGFD_DIR_TX, 0, 0);
	close(tap);
	tc_frame(mf_buf(&tx, 0), 64, 70);
	if (fallocate(tx.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		      (off_t)BUFOFF, 1 << 20) < 0) {
		result_fail("memfiles_punch_hole", "fallocate: %s", strerror(errno));
		mf_ring_free(&tx);
		return;
	}
	/* the mapping now shows new zero pages; the module holds the old ones */
	mf_post_tx(&tx, 10, 5, 64, 80);
	r = (int)write(tx.fd, "", 1);
	n = capture(cap, 5, 64, 80);
	result_check(r == 5 && n == 0, "memfiles_punch_hole_old_pages_kept",
		     "write %d (want 5), %d frames with the new bytes (want 0)", r, n);
	mf_ring_free(&tx);
}

int main(void)
{
	struct vringfd_version v;
	int cap, inj;

	signal(SIGPIPE, SIG_IGN);
	if (vringfd_get_version(&v) < 0 || !(v.caps & VRINGFD_CAP_MEM_FILES)) {
		result_fail("memfiles_cap", "VRINGFD_CAP_MEM_FILES not reported: %s",
			    strerror(errno));
		return result_exit_status();
	}
	result_pass("memfiles_cap");
	if (tc_sh("ip tuntap add dev " TXTAP " mode tap && ip link set " TXTAP " up && "
		  "ip tuntap add dev " RXTAP " mode tap && ip link set " RXTAP " up && "
		  "ip tuntap add dev " PLAINTAP " mode tap && ip link set " PLAINTAP " up")) {
		result_fail("tap_memfiles", "cannot create taps");
		return 1;
	}
	tc_sh("for i in " TXTAP " " RXTAP "; do sysctl -qw net.ipv6.conf.$i.disable_ipv6=1; done");
	cap = tc_packet_socket(TXTAP);
	inj = tc_packet_socket(RXTAP);
	if (cap < 0 || inj < 0) {
		result_fail("tap_memfiles", "packet sockets: %s", strerror(errno));
		return 1;
	}
	test_txrx(cap, inj);
	test_other_process(cap, inj, false);
	test_other_process(cap, inj, true);
	test_creator_exits(cap);
	test_create_of_memory(cap);
	test_refusals();
	test_echo_client();
	test_memlock();
	test_punch_hole(cap);
	tc_sh("ip link del " TXTAP "; ip link del " RXTAP "; ip link del " PLAINTAP);
	return result_exit_status();
}
