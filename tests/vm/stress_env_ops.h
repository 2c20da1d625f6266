/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress_env_ops.h - the random operations of tests/vm/stress.c around the
 * rings: tap devices (create, persist, delete, frames in and out, moved to
 * another network namespace, namespaces dying), eventfds, the echo
 * module's attachments, the ring memory (munmap/mprotect/mremap/madvise),
 * and fork with the fds used from the child.
 */
#ifndef STRESS_ENV_OPS_H
#define STRESS_ENV_OPS_H

#include <net/if.h>
#include <netpacket/packet.h>
#include <net/ethernet.h>
#include <arpa/inet.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/if_tun.h>
#include "stress_pool.h"
#include "stress_ring_ops.h"

static const int ok_echo_attach[] = { EBUSY, EBADF, EINVAL, EIO, EPERM, EFAULT, ENOMEM, 0 };
static const int ok_echo_misuse[] = { ENOTCONN, EBUSY, EFAULT, 0 };
static const int ok_child_rw[] = { EPERM, EINVAL, EIO, EPIPE, 0 };
static const int ok_child_ioctl[] = { EPERM, EIO, ENOENT, 0 };

/**
 * tap_open_dev() - open a queue of tap device @name (non-blocking)
 * @name: interface name
 * @flags: TUNSETIFF flags
 *
 * Return: the fd or -1.
 */
static int tap_open_dev(const char *name, int flags)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = (short)flags;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * if_up() - set IFF_UP on @name in the calling thread's network namespace
 * @name: interface
 */
static void if_up(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (!ioctl(s, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
}

/**
 * tap_flags() - random TUNSETIFF flags, mostly a multi-queue tap without PI
 *
 * Return: the flags.
 */
static int tap_flags(void)
{
	int f = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;

	if (chance(50))
		f |= IFF_VNET_HDR;
	if (chance(4))
		f &= ~IFF_NO_PI;
	return f;
}

/**
 * op_tap_open() - open a queue of a random tap device into a tap slot
 *	(sometimes persistent, sometimes an IFF_TUN device), and set it up
 */
static void op_tap_open(void)
{
	int dev = rndn(NTAPDEV), fd;
	char name[IFNAMSIZ];
	bool tun = chance(4);

	snprintf(name, sizeof(name), tun ? "vstun%d" : "vst%d", dev);
	OP_BEGIN("tap_open");
	fd = tap_open_dev(name, tun ? IFF_TUN | IFF_NO_PI : tap_flags());
	if (fd >= 0) {
		if (chance(30))
			ioctl(fd, TUNSETPERSIST, 1);
		if_up(name);
	}
	fslot_replace(&taps[rndn(NTAP)], fd, dev);
	OP_END();
}

/**
 * op_tap_gone() - close a tap slot, or delete a device (ip link del, or
 *	TUNSETPERSIST 0 and close), while rings may be attached to it
 */
static void op_tap_gone(void)
{
	struct fslot *t = &taps[rndn(NTAP)];
	char cmd[96];
	int dev;

	OP_BEGIN("tap_gone");
	switch (rndn(3)) {
	case 0:
		fslot_replace(t, -1, 0);
		break;
	case 1:
		pthread_rwlock_rdlock(&t->lk);
		if (t->fd >= 0)
			ioctl(t->fd, TUNSETPERSIST, 0);
		pthread_rwlock_unlock(&t->lk);
		fslot_replace(t, -1, 0);
		break;
	default:
		dev = (int)rndn(NTAPDEV);
		snprintf(cmd, sizeof(cmd), "vst%d", dev);
		if (!sys_ifindex(cmd))
			break;	/* (ip would make the kernel look for a module) */
		snprintf(cmd, sizeof(cmd), "ip link del vst%d >/dev/null 2>&1", dev);
		if (system(cmd) == -1)
			report_bad("tap_gone", "system(): %s", strerror(errno));
		break;
	}
	OP_END();
}

/**
 * op_tap_frames() - send a frame out of a tap device (so its RX rings get
 *	data), or drain a tap queue (what TX rings sent), or write a frame
 *	into a tap queue
 */
static void op_tap_frames(void)
{
	static __thread uint8_t fr[2048];
	struct sockaddr_ll sll;
	struct fslot *t;
	char name[IFNAMSIZ];
	size_t len = 14 + rndn(sizeof(fr) - 14);
	unsigned int idx;

	OP_BEGIN("tap_frames");
	rnd_fill(fr, len);
	memset(fr, 0xff, 6);
	if (chance(60)) {
		if (self->pkt < 0)
			self->pkt = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
		snprintf(name, sizeof(name), "vst%d", (int)rndn(NTAPDEV));
		idx = sys_ifindex(name);
		if (self->pkt >= 0 && idx) {
			memset(&sll, 0, sizeof(sll));
			sll.sll_family = AF_PACKET;
			sll.sll_ifindex = (int)idx;
			sll.sll_halen = 6;
			memset(sll.sll_addr, 0xff, 6);
			sendto(self->pkt, fr, len, MSG_DONTWAIT, (struct sockaddr *)&sll, sizeof(sll));
		}
	} else {
		t = &taps[rndn(NTAP)];
		pthread_rwlock_rdlock(&t->lk);
		if (t->fd >= 0) {
			if (chance(70)) {
				while (read(t->fd, argbuf, sizeof(argbuf)) > 0)
					;
			} else {
				if (write(t->fd, fr, len) < 0)
					errno = 0;	/* tun's answers are not the module's */
			}
		}
		pthread_rwlock_unlock(&t->lk);
	}
	OP_END();
}

/* The namespace holder: a child process alone in a new network namespace. */
static pthread_mutex_t ns_mtx = PTHREAD_MUTEX_INITIALIZER;
static pid_t ns_pid;

/**
 * ns_holder_start() - fork a child that unshares its network namespace and
 *	waits (call with ns_mtx held)
 *
 * Return: 0, or -1.
 */
static int ns_holder_start(void)
{
	int p[2];
	char c = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		c = unshare(CLONE_NEWNET) ? '0' : '1';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != '1') {
		close(p[0]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	close(p[0]);
	ns_pid = pid;
	return 0;
}

/**
 * ns_holder_stop() - kill the holder: its namespace dies (call with ns_mtx
 *	held)
 */
static void ns_holder_stop(void)
{
	if (ns_pid > 0) {
		kill(ns_pid, SIGKILL);
		waitpid(ns_pid, NULL, 0);
		ns_pid = 0;
	}
}

/**
 * sweep_rings() - GET_STATS (which reads the tap's own counters) and a kick
 *	on every ring, right after a namespace died
 */
static void sweep_rings(void)
{
	struct vringfd_stats st;
	int i;

	for (i = 0; i < NRING; i++) {
		pthread_rwlock_rdlock(&rings[i].lk);
		if (rings[i].fd >= 0) {
			check_ret("get_stats", ioctl(rings[i].fd, VRINGFD_GET_STATS, &st), ok_none);
			if (chance(50))
				check_ret("write", write(rings[i].fd, NULL, 0), ok_rw);
		}
		pthread_rwlock_unlock(&rings[i].lk);
	}
}

/**
 * op_netns() - namespaces: move a tap device into the holder's namespace
 *	(ip link set ... netns PID), let that namespace die (then GET_STATS
 *	and a kick on every ring), or open a tap
 *	inside a namespace this thread unshares and leaves again (setns back)
 */
static void op_netns(void)
{
	char cmd[128], name[IFNAMSIZ];
	int dev = rndn(NTAPDEV), fd;

	OP_BEGIN("netns");
	switch (rndn(4)) {
	case 0:
	case 1:
		snprintf(name, sizeof(name), "vst%d", dev);
		if (!sys_ifindex(name))
			break;
		pthread_mutex_lock(&ns_mtx);
		if (ns_pid > 0 || !ns_holder_start()) {
			snprintf(cmd, sizeof(cmd), "ip link set dev vst%d netns %d >/dev/null 2>&1",
				 dev, (int)ns_pid);
			if (system(cmd) == -1)
				report_bad("netns", "system(): %s", strerror(errno));
		}
		pthread_mutex_unlock(&ns_mtx);
		break;
	case 2:
		pthread_mutex_lock(&ns_mtx);
		ns_holder_stop();
		pthread_mutex_unlock(&ns_mtx);
		sweep_rings();
		break;
	default:
		if (unshare(CLONE_NEWNET))
			break;
		snprintf(name, sizeof(name), "vsn%d", dev);
		fd = tap_open_dev(name, tap_flags());
		if (fd >= 0)
			if_up(name);
		if (setns(init_netns, CLONE_NEWNET)) {
			report_bad("netns", "setns back to the first namespace: %s", strerror(errno));
			atomic_store(&stop_now, true);
		}
		fslot_replace(&taps[rndn(NTAP)], fd, dev);
		break;
	}
	OP_END();
}

/**
 * op_efd() - reopen an eventfd slot, or drain one
 */
static void op_efd(void)
{
	struct fslot *e = &efds[rndn(NEFD)];
	uint64_t v;

	OP_BEGIN("eventfd");
	if (chance(30)) {
		fslot_replace(e, chance(80) ? eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC) : -1, 0);
	} else {
		pthread_rwlock_rdlock(&e->lk);
		if (e->fd >= 0 && read(e->fd, &v, sizeof(v)) < 0)
			errno = 0;
		pthread_rwlock_unlock(&e->lk);
	}
	OP_END();
}

/**
 * op_mem() - unmap, protect, move or zero part of a memory slot (ring and
 *	buffers), or restore a whole slot
 *
 * munmap is followed at once by a MAP_FIXED_NOREPLACE mapping of the same
 * range most of the time; mremap moves the range to this thread's scratch
 * area and back.  Rings over the slot meanwhile see faults.
 */
static void op_mem(void)
{
	int i = rndn(NRING);
	uint8_t *base = slot_mem(i), *p, *scratch;
	size_t off = (size_t)rndn(SLOT_SZ / 4096) * 4096, len = (size_t)(1 + rndn(16)) * 4096;
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_WRITE };

	if (off + len > SLOT_SZ)
		len = SLOT_SZ - off;
	p = base + off;
	scratch = (uint8_t *)(uintptr_t)(ARENA_BASE + SCRATCH_OFF + (uint64_t)self->id * SLOT_SZ);
	OP_BEGIN("mem");
	switch (rndn(8)) {
	case 0:
		munmap(p, len);
		sched_yield();
		if (chance(70))
			mmap(p, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		break;
	case 1:
	case 2:
		mprotect(p, len, prots[rndn(4)]);
		break;
	case 3:
		if (mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, scratch) != MAP_FAILED) {
			sched_yield();
			mremap(scratch, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, p);
		}
		break;
	case 4:
		madvise(p, len, MADV_DONTNEED);
		break;
	case 5:
		mmap(base, SLOT_SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		     -1, 0);
		break;
	default:
		mprotect(base, SLOT_SZ, PROT_READ | PROT_WRITE);
		break;
	}
	OP_END();
}

/**
 * child_fail() - report an unexpected answer in a forked child
 * @what: the call
 * @e: errno, or -revents for poll
 *
 * A FAIL line in result.h's format, written with write(2): the child of a
 * threaded program must not take stdio's lock (another thread of the parent
 * may have held it at fork()), so not through tests/lib/result.h.
 */
static void child_fail(const char *what, int e)
{
	char msg[200];
	int n = snprintf(msg, sizeof(msg),
			 "FAIL: stress_fork_child: %s from another mm gave %d (seed %llu)\n",
			 what, e, (unsigned long long)opt.seed);

	if (write(1, msg, (size_t)n) < 0)
		_exit(4);
	_exit(3);
}

/**
 * fork_child() - in the child: use the parent's vring fds
 *
 * Asserted (README: "the ring belongs to the address space that made it"):
 * poll() reports POLLERR; write()/read() fail with EPERM (or EINVAL/EIO/
 * EPIPE: nothing attached, broken, tap gone); GET_STATE, SET_CALL_FD(-1)
 * and DETACH succeed or fail with EPERM/EIO/ENOENT.  No locks are taken:
 * the fd table was frozen by fork.
 */
static void fork_child(void)
{
	struct vringfd_state st;
	struct pollfd p;
	int k, fd, m = -1;
	long r;

	for (k = 0; k < 8; k++) {
		fd = rings[rndn(NRING)].fd;
		if (fd < 0)
			continue;
		switch (rndn(6)) {
		case 0:
			p.fd = fd;
			p.events = POLLIN;
			p.revents = 0;
			if (poll(&p, 1, 0) != 1 || !(p.revents & POLLERR))
				child_fail("poll (want POLLERR)", -p.revents);
			break;
		case 1:
			r = write(fd, NULL, 0);
			if (r >= 0 || !errno_in(ok_child_rw, errno))
				child_fail("write", r >= 0 ? 0 : errno);
			break;
		case 2:
			r = read(fd, NULL, 0);
			if (r >= 0 || !errno_in(ok_child_rw, errno))
				child_fail("read", r >= 0 ? 0 : errno);
			break;
		case 3:
			if (ioctl(fd, VRINGFD_GET_STATE, &st) && !errno_in(ok_child_ioctl, errno))
				child_fail("GET_STATE", errno);
			break;
		case 4:
			if (ioctl(fd, VRINGFD_SET_CALL_FD, &m) && !errno_in(ok_child_ioctl, errno))
				child_fail("SET_CALL_FD -1", errno);
			break;
		default:
			if (ioctl(fd, VRINGFD_DETACH) && !errno_in(ok_child_ioctl, errno))
				child_fail("DETACH", errno);
			break;
		}
	}
	_exit(0);
}

/**
 * op_fork() - fork; the child uses the vring fds, the parent waits
 *
 * All ring slots are read-locked around fork() so the child's fds are the
 * slots' fds.  Asserted: the child exits 0 (see fork_child()), and is not
 * killed by a signal.
 */
static void op_fork(void)
{
	static atomic_llong last_ms;
	long long t = now_ms();
	int i, st;
	pid_t pid;

	if (t - atomic_load(&last_ms) < 200)
		return;
	atomic_store(&last_ms, t);
	OP_BEGIN("fork");
	for (i = 0; i < NRING; i++)
		pthread_rwlock_rdlock(&rings[i].lk);
	pid = fork();
	if (pid == 0)
		fork_child();
	for (i = NRING - 1; i >= 0; i--)
		pthread_rwlock_unlock(&rings[i].lk);
	if (pid > 0 && waitpid(pid, &st, 0) == pid) {
		if (WIFSIGNALED(st))
			report_bad("fork", "child killed by signal %d", WTERMSIG(st));
		else if (WEXITSTATUS(st))
			report_bad("fork", "child exited %d", WEXITSTATUS(st));
	}
	OP_END();
}

/**
 * op_echo() - vringfd_echo: attach a random pair of rings (same ring twice,
 *	not-a-ring fds, atomic completions, irq_work, bad flags), close an
 *	echo fd, read its stats, or make its misuse calls
 */
static void op_echo(void)
{
	struct vringfd_echo_attach a;
	struct vringfd_echo_stats es;
	struct vringfd_echo_misuse em;
	struct fslot *e = &echos[rndn(NECHO)];
	int i = rndn(NRING), j = chance(5) ? i : (int)rndn(NRING), lo, hi, fd;
	long r;

	OP_BEGIN("echo");
	switch (rndn(6)) {
	case 0:
	case 1:
	case 2:
		fd = open("/dev/vringfd_echo", O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			report_bad("echo", "open /dev/vringfd_echo: %s", strerror(errno));
			break;
		}
		memset(&a, 0, sizeof(a));
		lo = i < j ? i : j;
		hi = i < j ? j : i;
		pthread_rwlock_rdlock(&rings[lo].lk);
		if (hi != lo)
			pthread_rwlock_rdlock(&rings[hi].lk);
		a.from_fd = chance(95) ? rings[i].fd : chance(50) ? -1 : fd;
		a.to_fd = rings[j].fd;
		a.atomic_every = chance(60) ? 0 : 1 + rndn(4);
		a.flags = chance(80) ? 0 : chance(80) ? VRINGFD_ECHO_F_IRQ_WORK : (uint32_t)rnd();
		if (chance(3))
			a.reserved[rndn(2)] = 1;
		r = ioctl(fd, VRINGFD_ECHO_ATTACH, chance(97) ? (void *)&a : bad_ptr());
		check_ret("echo_attach", r, ok_echo_attach);
		if (hi != lo)
			pthread_rwlock_unlock(&rings[hi].lk);
		pthread_rwlock_unlock(&rings[lo].lk);
		if (r == 0)
			fslot_replace(e, fd, 0);
		else
			close(fd);
		break;
	case 3:
		fslot_replace(e, -1, 0);
		break;
	case 4:
		pthread_rwlock_rdlock(&e->lk);
		if (e->fd >= 0)
			check_ret("echo_stats", ioctl(e->fd, VRINGFD_ECHO_GET_STATS, &es), ok_none);
		pthread_rwlock_unlock(&e->lk);
		break;
	default:
		pthread_rwlock_rdlock(&e->lk);
		if (e->fd >= 0)
			check_ret("echo_misuse", ioctl(e->fd, VRINGFD_ECHO_MISUSE, &em), ok_echo_misuse);
		pthread_rwlock_unlock(&e->lk);
		break;
	}
	OP_END();
}

#endif /* STRESS_ENV_OPS_H */
