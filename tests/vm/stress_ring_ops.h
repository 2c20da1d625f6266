/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress_ring_ops.h - the random operations of tests/vm/stress.c on vring
 * fds and /dev/vringfd: creation, ioctls (valid, malformed, random), tap
 * attach/detach, memory tables, call fds, write/read/poll, ring contents
 * (valid traffic and garbage), dup, and thousands of fds at once.
 *
 * Every operation picks its slots at random and takes their locks for
 * reading (so several threads use one fd at once); only installing or
 * closing an fd takes a slot's lock for writing.
 */
#ifndef STRESS_RING_OPS_H
#define STRESS_RING_OPS_H

#include <poll.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include "stress_pool.h"

/* Allowed errnos per operation (see the header comment of stress.c). */
static const int ok_create[] = { EINVAL, EFAULT, ENOMEM, EMFILE, ENFILE, 0 };
static const int ok_ioctl_any[] = { EINVAL, EFAULT, ENOTTY, EIO, EPERM, EBUSY, ENOENT,
				    EBADF, ENODEV, ENOMEM, EMFILE, ENFILE, 0 };
static const int ok_attach[] = { EBADF, EINVAL, EBUSY, ENODEV, EIO, EPERM, EFAULT, 0 };
static const int ok_detach[] = { ENOENT, EIO, EPERM, EFAULT, 0 };
static const int ok_memtab[] = { EINVAL, EFAULT, ENOMEM, EIO, EPERM, 0 };
static const int ok_callfd[] = { EBADF, EINVAL, EFAULT, EIO, EPERM, 0 };
static const int ok_get_bad[] = { EFAULT, 0 };
static const int ok_none[] = { 0 };
/* E2BIG: a ring attached to vringfd_echo, a chain longer than its array */
static const int ok_rw[] = { EINVAL, EPIPE, EIO, EFAULT, EPERM, EAGAIN, E2BIG, 0 };
static const int ok_poll[] = { ENOMEM, 0 };

/* Known ioctl numbers, for the random ioctl operation. */
static const unsigned long known_cmds[] = {
	VRINGFD_GET_VERSION, VRINGFD_CREATE, VRINGFD_ATTACH_TAP, VRINGFD_DETACH,
	VRINGFD_SET_MEM_TABLE, VRINGFD_GET_STATS, VRINGFD_GET_STATE,
	VRINGFD_SET_CALL_FD, VRINGFD_ECHO_ATTACH, VRINGFD_ECHO_GET_STATS,
	VRINGFD_ECHO_MISUSE,
};

/* A per-thread buffer for ioctl arguments, with room for a memory table. */
static __thread uint8_t argbuf[8192] __attribute__((aligned(16)));

/**
 * sys_ifindex() - the ifindex of @name in the first network namespace, from
 *	sysfs
 * @name: interface
 *
 * Not if_nametoindex(): SIOCGIFINDEX of a missing device asks for the
 * module "netdev-NAME" (a modprobe run, seconds under TCG over 9p).
 *
 * Return: the index, or 0 when the device does not exist there.
 */
static unsigned int sys_ifindex(const char *name)
{
	char path[96];
	unsigned int idx = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/ifindex", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%u", &idx) != 1)
		idx = 0;
	fclose(f);
	return idx;
}

/**
 * bad_ptr() - an argument pointer the kernel must refuse with EFAULT
 *
 * Return: NULL, a kernel address, or an unmapped arena neighbour.
 */
static void *bad_ptr(void)
{
	switch (rndn(3)) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)0xffff888000001000ULL;
	default:
		return (void *)(uintptr_t)(ARENA_BASE + ARENA_SZ + 4096);
	}
}

/**
 * rnd_num() - a ring size: mostly powers of two up to 1024, some from 2048
 *	to 32768 (unless --exclude big-rings), sometimes invalid
 * @valid: set when the size is a power of two in 1..32768
 *
 * Return: the size.
 */
static unsigned int rnd_num(bool *valid)
{
	unsigned int n;

	if (chance(85)) {
		n = chance(85) || excluded(EX_BIGRING) ? 1u << rndn(11) : 1u << (11 + rndn(5));
	} else {
		static const unsigned int bad[] = { 0, 3, 6, 100, 65536, 1u << 20, 0xffffffffu };

		n = chance(50) ? bad[rndn(7)] : (uint32_t)rnd();
	}
	*valid = n && n <= VRINGFD_MAX_NUM && !(n & (n - 1));
	return n;
}

/**
 * ctl_fd_get() - read-lock a random /dev/vringfd fd
 * @s: the slot locked (out; unlock with pthread_rwlock_unlock)
 *
 * Return: the fd (may be -1).
 */
static int ctl_fd_get(struct fslot **s)
{
	*s = &ctls[rndn(NCTL)];
	pthread_rwlock_rdlock(&(*s)->lk);
	return (*s)->fd;
}

/**
 * scribble_idx() - random avail->idx and used->idx before a creation (guarded)
 * @l: the layout
 */
static void __attribute__((noinline)) scribble_idx(struct lay *l)
{
	GUARDED(l->avail->idx = (uint16_t)rnd(); l->used->idx = (uint16_t)rnd());
}

/**
 * avail_idx_of() - read avail->idx (guarded)
 * @l: the layout
 *
 * Return: the index, or 0 when the memory faulted.
 */
static uint16_t __attribute__((noinline)) avail_idx_of(struct lay *l)
{
	static __thread volatile uint16_t v;

	v = 0;
	GUARDED(v = l->avail->idx);
	return v;
}

/**
 * op_create() - VRINGFD_CREATE with random size, addresses, flags, features
 *
 * Most creations use the standard layout in a random memory slot and land
 * in a ring slot (closing what was there); the others are random and are
 * closed at once if they succeed.  Asserted: an invalid num is refused
 * with EINVAL, never accepted.
 */
static void op_create(void)
{
	struct vringfd_create c;
	struct fslot *cs;
	bool valid, std;
	int memi = rndn(NRING), ctl, fd;
	void *arg = &c;
	struct lay l;

	memset(&c, 0, sizeof(c));
	c.num = rnd_num(&valid);
	if (chance(90))
		c.features = (chance(50) ? 1ULL << VIRTIO_RING_F_INDIRECT_DESC : 0) |
			     (chance(50) ? 1ULL << VIRTIO_RING_F_EVENT_IDX : 0) |
			     (chance(50) ? 1ULL << VIRTIO_F_VERSION_1 : 0);
	else
		c.features = rnd();
	if (chance(10)) {
		c.flags = chance(70) ? VRINGFD_CREATE_F_AVAIL_BASE : (uint32_t)rnd();
		c.avail_base = (uint16_t)rnd();
	}
	std = valid && chance(85);
	if (std) {
		layout(memi, c.num, &l);
		c.desc_addr = (uintptr_t)l.desc;
		c.avail_addr = (uintptr_t)l.avail;
		c.used_addr = (uintptr_t)l.used;
		c.last_used_addr = (uintptr_t)l.last_used;
		if (chance(20))
			scribble_idx(&l);
		if (c.flags == VRINGFD_CREATE_F_AVAIL_BASE && chance(70))
			c.avail_base = avail_idx_of(&l) - rndn(c.num + 1);
	} else {
		c.desc_addr = rnd_uaddr();
		c.avail_addr = rnd_uaddr();
		c.used_addr = rnd_uaddr();
		c.last_used_addr = rnd_uaddr();
		if (chance(50)) {
			c.desc_addr &= ~15ULL;
			c.avail_addr &= ~1ULL;
			c.used_addr &= ~3ULL;
			c.last_used_addr &= ~1ULL;
		}
	}
	if (chance(3))
		c.padding[rndn(3)] = (uint16_t)rnd() | 1;
	if (chance(3))
		c.reserved = rnd() | 1;
	if (chance(3))
		arg = bad_ptr();

	OP_BEGIN("create");
	ctl = ctl_fd_get(&cs);
	if (ctl < 0) {		/* only at teardown */
		pthread_rwlock_unlock(&cs->lk);
		OP_END();
		return;
	}
	fd = ioctl(ctl, VRINGFD_CREATE, arg);
	check_ret("create", fd, ok_create);
	if (fd < 0 && arg == &c && !valid && errno != EINVAL && errno != EINTR)
		report_bad("create_bad_num", "num %u refused with errno %d, want EINVAL",
			   c.num, errno);
	pthread_rwlock_unlock(&cs->lk);
	if (fd >= 0 && !valid)
		report_bad("create_bad_num", "num %u accepted", c.num);
	if (fd >= 0) {
		if (std || chance(30))
			rslot_replace(rndn(NRING), fd, valid ? c.num : 0, std ? memi : -1);
		else
			close(fd);
	}
	OP_END();
}

/**
 * sanitize_memtab() - make the user addresses of a random memory table safe
 * @buf: a struct vringfd_mem_table with room for 64 regions
 *
 * The kernel writes received frames through the table, so user_addr must
 * never point into the test's own heap or stack (see rnd_uaddr()).
 */
static void sanitize_memtab(void *buf)
{
	struct vringfd_mem_table *t = buf;
	int i;

	for (i = 0; i < VRINGFD_MAX_MEM_REGIONS; i++)
		t->regions[i].user_addr = rnd_uaddr();
}

/**
 * sanitize_create() - make the addresses of a random struct vringfd_create safe
 * @buf: the struct
 */
static void sanitize_create(void *buf)
{
	struct vringfd_create *c = buf;

	c->desc_addr = rnd_uaddr();
	c->avail_addr = rnd_uaddr();
	c->used_addr = rnd_uaddr();
	c->last_used_addr = rnd_uaddr();
}

/**
 * rnd_cmd() - a random ioctl number
 *
 * Known numbers, numbers of the module's magic with random direction,
 * number and size, or any number except the generic VFS/tty ones that act
 * on any file ('T', 'X', 'f', 0x94, type 0).
 *
 * Return: the number.
 */
static unsigned long rnd_cmd(void)
{
	unsigned long cmd;
	unsigned int type;

	switch (rndn(3)) {
	case 0:
		return known_cmds[rndn(sizeof(known_cmds) / sizeof(known_cmds[0]))];
	case 1:
		return _IOC(rndn(4), chance(70) ? VRINGFD_IOCTL_MAGIC : VRINGFD_ECHO_IOCTL_MAGIC,
			    rndn(64), rndn(1 << 14));
	default:
		do {
			cmd = (uint32_t)rnd();
			type = _IOC_TYPE(cmd);
		} while (type == 'T' || type == 'X' || type == 'f' || type == 0x94 || type == 0 ||
			 type == 'v');
		return cmd;
	}
}

/**
 * op_random_ioctl() - a random ioctl with random contents on a vring fd or
 *	/dev/vringfd
 *
 * Memory tables and creation structs in the random buffer get safe user
 * addresses (sanitize_*()); an fd created by chance is closed at once.
 */
static void op_random_ioctl(void)
{
	unsigned long cmd = rnd_cmd();
	struct rslot *s = NULL;
	struct fslot *cs = NULL;
	void *arg = argbuf;
	long r;
	int fd;

	rnd_fill(argbuf, 256 + rndn(sizeof(argbuf) - 256));
	if (_IOC_TYPE(cmd) == VRINGFD_IOCTL_MAGIC && _IOC_NR(cmd) == _IOC_NR(VRINGFD_SET_MEM_TABLE)) {
		if (chance(80))
			((struct vringfd_mem_table *)argbuf)->nregions = rndn(70);
		sanitize_memtab(argbuf);
	}
	if (_IOC_TYPE(cmd) == VRINGFD_IOCTL_MAGIC && _IOC_NR(cmd) == _IOC_NR(VRINGFD_CREATE))
		sanitize_create(argbuf);
	switch (rndn(10)) {
	case 0:
		arg = bad_ptr();
		break;
	case 1:
		arg = (void *)(uintptr_t)rndn(4096);	/* an integer argument */
		break;
	case 2:
		arg = (void *)(uintptr_t)rnd_uaddr();
		break;
	}
	OP_BEGIN("random_ioctl");
	if (chance(25)) {
		fd = ctl_fd_get(&cs);
	} else {
		s = &rings[rndn(NRING)];
		pthread_rwlock_rdlock(&s->lk);
		fd = s->fd;
	}
	if (fd >= 0) {
		r = ioctl(fd, cmd, arg);
		check_ret("random_ioctl", r, ok_ioctl_any);
		if (r > 0 && cmd == VRINGFD_CREATE)
			close((int)r);
	}
	pthread_rwlock_unlock(s ? &s->lk : &cs->lk);
	OP_END();
}

/**
 * ring_get() - read-lock a random ring slot
 *
 * Return: the slot (locked for reading; its fd may be -1).
 */
static struct rslot *ring_get(void)
{
	struct rslot *s = &rings[rndn(NRING)];

	pthread_rwlock_rdlock(&s->lk);
	return s;
}

/**
 * op_attach_tap() - VRINGFD_ATTACH_TAP with a random tap (or not-a-tap) fd
 *	and random direction, header length, flags, ifindex
 *
 * The module takes any tun/tap queue, whatever its configuration (IFF_TUN,
 * packet information, another header size than declared): those rings
 * then move garbage, which the traffic operations exercise.  A well-formed
 * attach configures the tap as a caller should (TUNSETVNETHDRSZ to the
 * declared length; racing with other threads, so not always true) and
 * half the time names the device (ifindex, found in this thread's
 * namespace: maybe another device, maybe none, ENODEV).
 */
static void op_attach_tap(void)
{
	static const unsigned int hdrs[] = { 0, 0, 0, 10, 12, 1, 16 };
	struct vringfd_tap a;
	struct fslot *ts = NULL;
	struct rslot *s;
	void *arg = &a;
	long r;

	bool good = chance(60);	/* a well-formed attach to a tap slot */
	struct ifreq ifr;

	memset(&a, 0, sizeof(a));
	a.dir = chance(95) ? rndn(2) : (uint32_t)rnd();
	if (!good) {
		a.vnet_hdr_len = hdrs[rndn(7)];
		a.flags = chance(80) ? 0 : chance(70) ? VRINGFD_TAP_F_MRG_RXBUF : (uint32_t)rnd();
		if (chance(3)) {
			if (chance(50))
				a.padding = rnd() | 1;
			else
				a.reserved = rnd() | 1;
		}
		if (chance(5))
			a.ifindex = chance(50) ? -(int)rndn(1000) - 1 : (int)rnd();
		if (chance(3))
			arg = bad_ptr();
	}
	OP_BEGIN("attach_tap");
	s = ring_get();
	switch (good ? 9 : rndn(10)) {
	case 0:
		a.tap_fd = chance(50) ? -1 : 65000;
		break;
	case 1:
		a.tap_fd = s->fd;	/* itself */
		break;
	case 2:
		ts = &efds[rndn(NEFD)];
		break;
	default:
		ts = &taps[rndn(NTAP)];
		break;
	}
	if (ts) {
		pthread_rwlock_rdlock(&ts->lk);
		a.tap_fd = ts->fd;
		if (good && ts->fd >= 0 && !ioctl(ts->fd, TUNGETIFF, &ifr)) {
			int sz = chance(50) ? 10 : 12;

			/* the header the tap has, set as a caller must */
			if ((ifr.ifr_flags & IFF_VNET_HDR) &&
			    !ioctl(ts->fd, TUNSETVNETHDRSZ, &sz))
				a.vnet_hdr_len = (unsigned int)sz;
			if (chance(50)) {
				ifr.ifr_name[IFNAMSIZ - 1] = 0;
				a.ifindex = (int)sys_ifindex(ifr.ifr_name);
			}
		}
	}
	if (s->fd >= 0) {
		r = ioctl(s->fd, VRINGFD_ATTACH_TAP, arg);
		check_ret("attach_tap", r, ok_attach);
		if (r == 0)
			s->dir = (int)a.dir;	/* benign race: a hint for traffic */
	}
	if (ts)
		pthread_rwlock_unlock(&ts->lk);
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_detach() - VRINGFD_DETACH on a random ring
 */
static void op_detach(void)
{
	struct rslot *s;

	OP_BEGIN("detach");
	s = ring_get();
	if (s->fd >= 0)
		check_ret("detach", ioctl(s->fd, VRINGFD_DETACH), ok_detach);
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_mem_table() - VRINGFD_SET_MEM_TABLE with random regions
 *
 * An identity table over memory slots (descriptors still translate), many
 * tiny regions over the ring's own buffers, mostly identity (unless
 * --exclude tiny-regions), random and
 * overlapping regions, too many regions, zero sizes, wrap-around,
 * non-zero reserved fields, or the empty table.
 */
static void op_mem_table(void)
{
	struct vringfd_mem_table *t = (void *)argbuf;
	struct vringfd_mem_region *rg = t->regions;
	unsigned int n, i, mode = rndn(10);
	uint64_t ga, ua;
	struct rslot *s;
	void *arg = t;

	OP_BEGIN("mem_table");
	s = ring_get();
	memset(argbuf, 0, sizeof(argbuf));
	if (mode == 0) {
		n = 0;
	} else if (mode <= 3) {		/* identity over random memory slots */
		n = 1 + rndn(4);
		for (i = 0; i < n; i++) {
			ua = (uintptr_t)slot_mem((int)(rndn(NRING / n) + i * (NRING / n)));
			rg[i].guest_addr = ua;
			rg[i].user_addr = ua;
			rg[i].size = SLOT_SZ;
		}
	} else if (mode <= 5 && !excluded(EX_TINY)) {	/* many tiny regions */
		n = 1 + rndn(VRINGFD_MAX_MEM_REGIONS);
		/* over the ring's own buffers, identity, so its traffic translates */
		ua = (uintptr_t)slot_mem(s->memi >= 0 ? s->memi : (int)rndn(NRING)) + BUF_OFF;
		ga = chance(70) ? ua : rnd() & 0xffffffffffULL;
		for (i = 0; i < n; i++) {
			rg[i].guest_addr = ga;
			rg[i].user_addr = ua;
			rg[i].size = chance(50) ? 1 : 1 + rndn(16);
			ga += rg[i].size + (chance(90) ? 0 : rndn(64));
			ua = ga;
		}
	} else {			/* random */
		n = chance(90) ? rndn(VRINGFD_MAX_MEM_REGIONS + 1) : VRINGFD_MAX_MEM_REGIONS + 1 + rndn(100);
		if (n > 160)
			n = 160;
		for (i = 0; i < n; i++) {
			rg[i].guest_addr = chance(50) ? rnd() : rnd() & 0xffffffffULL;
			rg[i].size = chance(10) ? 0 : chance(50) ? rnd() : 1 + rndn(1 << 20);
			rg[i].user_addr = rnd_uaddr();
		}
	}
	t->nregions = n;
	if (chance(3))
		t->padding = 1;
	if (n && chance(3))
		rg[rndn(n)].reserved = 1;
	if (chance(3))
		arg = bad_ptr();
	if (s->fd >= 0)
		check_ret("mem_table", ioctl(s->fd, VRINGFD_SET_MEM_TABLE, arg), ok_memtab);
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_call_fd() - VRINGFD_SET_CALL_FD with an eventfd, -1, a non-eventfd,
 *	a closed fd number, or a bad pointer
 */
static void op_call_fd(void)
{
	struct fslot *es = NULL;
	struct rslot *s;
	void *arg = argbuf;
	int32_t v = -1;

	if (chance(3))
		arg = bad_ptr();
	OP_BEGIN("call_fd");
	s = ring_get();
	switch (rndn(8)) {
	case 0:
		v = -1;
		break;
	case 1:
		v = 65001;	/* not open */
		break;
	case 2:
		v = s->fd;	/* not an eventfd */
		break;
	case 3:
		es = &taps[rndn(NTAP)];
		break;
	default:
		es = &efds[rndn(NEFD)];
		break;
	}
	if (es) {
		pthread_rwlock_rdlock(&es->lk);
		v = es->fd;
	}
	memcpy(argbuf, &v, sizeof(v));
	if (s->fd >= 0)
		check_ret("call_fd", ioctl(s->fd, VRINGFD_SET_CALL_FD, arg), ok_callfd);
	if (es)
		pthread_rwlock_unlock(&es->lk);
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_get_info() - GET_STATE / GET_STATS / GET_VERSION on a random ring
 *
 * Asserted: with a valid pointer they succeed (also on a broken ring), and
 * GET_STATE reports the ring size the ring was created with.
 */
static void op_get_info(void)
{
	struct vringfd_state st;
	struct vringfd_stats sts;
	struct vringfd_version v;
	struct rslot *s;
	bool bad = chance(5);
	long r;

	OP_BEGIN("get_info");
	s = ring_get();
	if (s->fd >= 0) {
		switch (rndn(3)) {
		case 0:
			r = ioctl(s->fd, VRINGFD_GET_STATE, bad ? bad_ptr() : &st);
			check_ret("get_state", r, bad ? ok_get_bad : ok_none);
			if (!r && !bad && s->num && st.num != s->num)
				report_bad("get_state", "num %u, ring was created with %u",
					   st.num, s->num);
			break;
		case 1:
			check_ret("get_stats", ioctl(s->fd, VRINGFD_GET_STATS, bad ? bad_ptr() : &sts),
				  bad ? ok_get_bad : ok_none);
			break;
		default:
			check_ret("get_version", ioctl(s->fd, VRINGFD_GET_VERSION, bad ? bad_ptr() : &v),
				  bad ? ok_get_bad : ok_none);
			break;
		}
	}
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_write_read() - write() or read() (a kick) on a random ring, with a
 *	random buffer and length (both ignored by the module)
 */
static void op_write_read(void)
{
	struct rslot *s;
	void *buf = chance(50) ? (void *)argbuf : chance(50) ? NULL : bad_ptr();
	size_t len = rndn(3) ? rndn(64) : rndn(sizeof(argbuf));
	bool w = chance(50);

	if (buf != argbuf && len > 0)
		len = rndn(64);
	OP_BEGIN(w ? "write" : "read");
	s = ring_get();
	if (s->fd >= 0) {
		if (w)
			check_ret("write", write(s->fd, buf, len), ok_rw);
		else
			check_ret("read", read(s->fd, buf, len), ok_rw);
	}
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_poll() - poll() up to four random rings (timeout 0..10 ms)
 *
 * Asserted: poll() does not fail (but for ENOMEM/EINTR) and never reports
 * POLLNVAL for an open vring fd.
 */
static void op_poll(void)
{
	struct pollfd p[4];
	int idx[4], n = 1 + rndn(4), i, j, k = 0, r;

	for (i = 0; i < n; i++) {
		idx[i] = rndn(NRING);
		for (j = 0; j < i; j++)
			if (idx[j] == idx[i])
				break;
		if (j < i)
			i--, n--;
	}
	/* lock in index order */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
			int x = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = x;
		}
	OP_BEGIN("poll");
	for (i = 0; i < n; i++) {
		pthread_rwlock_rdlock(&rings[idx[i]].lk);
		if (rings[idx[i]].fd >= 0) {
			p[k].fd = rings[idx[i]].fd;
			p[k].events = POLLIN | (chance(30) ? POLLOUT : 0);
			p[k].revents = 0;
			k++;
		}
	}
	if (k) {
		r = poll(p, k, rndn(3) * 5);
		check_ret("poll", r, ok_poll);
		for (i = 0; r > 0 && i < k; i++)
			if (p[i].revents & POLLNVAL)
				report_bad("poll", "POLLNVAL on open vring fd %d", p[i].fd);
	}
	for (i = n - 1; i >= 0; i--)
		pthread_rwlock_unlock(&rings[idx[i]].lk);
	OP_END();
}

/**
 * post_valid() - post up to 8 well-formed chains on a standard-layout ring
 * @s: the ring slot (read-locked, standard layout, num <= 16384)
 *
 * TX rings get readable chains holding an Ethernet frame, RX rings
 * writable ones, unknown rings either; chains have 1..3 descriptors
 * (sometimes indirect ones, which a ring without INDIRECT breaks on: that
 * is allowed garbage too).  The user's last_used follows used->idx.  Runs
 * guarded: the memory may vanish underneath.
 */
static void post_valid(struct rslot *s)
{
	struct lay l;
	unsigned int num = s->num, k = 1 + rndn(8), j, d, nd;
	volatile bool wr = s->dir == VRINGFD_DIR_RX ? true : s->dir == VRINGFD_DIR_TX ? false : chance(50);

	layout(s->memi, num, &l);
	GUARDED({
		uint16_t a = l.avail->idx;

		for (j = 0; j < k && j < num; j++) {
			unsigned int head = (a + j) & (num - 1);
			uint8_t *b = l.bufs + (size_t)((a + j) % NBUF) * BUF_SZ;
			uint32_t len = 60 + rndn(BUF_SZ - 60);

			nd = num >= 4 ? 1 + rndn(3) : 1;
			if (!wr) {
				memset(b, 0xff, 6);
				memcpy(b + 6, "\x02\x00\x00\x00\x00\x01\x88\xb5", 8);
			}
			for (d = 0; d < nd; d++) {
				unsigned int di = (head + d * (num / 4 ? num / 4 : 1)) & (num - 1);
				uint32_t part = d == nd - 1 ? len - (len / nd) * d : len / nd;

				l.desc[di].addr = (uintptr_t)(b + (len / nd) * d);
				l.desc[di].len = part;
				l.desc[di].flags = (wr ? VRING_DESC_F_WRITE : 0) |
						   (d < nd - 1 ? VRING_DESC_F_NEXT : 0);
				l.desc[di].next = (head + (d + 1) * (num / 4 ? num / 4 : 1)) & (num - 1);
			}
			l.avail->ring[(a + j) & (num - 1)] = head;
		}
		__atomic_thread_fence(__ATOMIC_RELEASE);
		l.avail->idx = a + j;
		if (chance(20))
			l.avail->flags = chance(50) ? VRING_AVAIL_F_NO_INTERRUPT : 0;
		*l.last_used = __atomic_load_n(&l.used->idx, __ATOMIC_ACQUIRE);
	});
}

/**
 * scribble() - write garbage into a ring's memory
 * @memi: memory slot
 * @num: ring size of the standard layout to aim at (or any)
 *
 * Random descriptors (safe addresses, huge lengths, random flags and next
 * indices, self loops, two-cycles), random avail entries, a random avail
 * idx, random used idx and event fields.  Guarded.
 */
static void scribble(int memi, unsigned int num)
{
	struct lay l;
	unsigned int n = 1 + rndn(16), i, di;
	static const uint32_t lens[] = { 0, 1, 14, 1500, 65536, 0x7fffffff, 0x80000000u, 0xffffffffu };

	layout(memi, num, &l);
	GUARDED({
		for (i = 0; i < n; i++) {
			di = rndn(num);
			switch (rndn(6)) {
			case 0:	/* loop to itself */
				l.desc[di].flags = VRING_DESC_F_NEXT | (chance(50) ? VRING_DESC_F_WRITE : 0);
				l.desc[di].next = (uint16_t)di;
				break;
			case 1:	/* random everything */
				l.desc[di].addr = rnd_uaddr();
				l.desc[di].len = (uint32_t)rnd();
				l.desc[di].flags = (uint16_t)rnd();
				l.desc[di].next = (uint16_t)rnd();
				break;
			case 2:	/* huge lengths, valid-looking flags */
				l.desc[di].addr = rnd_uaddr();
				l.desc[di].len = lens[rndn(8)];
				l.desc[di].flags = rndn(8);
				l.desc[di].next = (uint16_t)rndn(num);
				break;
			case 3:	/* indirect table somewhere in the arena */
				l.desc[di].addr = rnd_uaddr() & ~15ULL;
				l.desc[di].len = chance(50) ? 16 * (1 + rndn(64)) : (uint32_t)rnd();
				l.desc[di].flags = VRING_DESC_F_INDIRECT | (chance(20) ? VRING_DESC_F_NEXT : 0);
				break;
			case 4:
				l.avail->ring[rndn(num)] = chance(70) ? (uint16_t)rndn(num) : (uint16_t)rnd();
				break;
			default:
				l.avail->idx = chance(50) ? (uint16_t)(l.avail->idx + rndn(num + 2)) : (uint16_t)rnd();
				break;
			}
		}
		if (chance(10))
			l.used->idx = (uint16_t)rnd();
		if (chance(10))
			l.avail->ring[num] = (uint16_t)rnd();	/* used_event */
		if (chance(10))
			*l.last_used = (uint16_t)rnd();
	});
}

/**
 * long_chains() - make every avail entry a chain through the whole table
 * @memi: memory slot
 * @num: ring size
 *
 * desc[i] -> desc[i + 1] for all i, the last one ending the chain, all of
 * one direction (readable or writable at random: on an RX ring readable
 * chains are unusable and are skipped), and num such heads made available
 * at once: num * num descriptors to walk.  Only for rings up to 1024
 * entries with --exclude big-rings.  Guarded.
 */
static void long_chains(int memi, unsigned int num)
{
	struct lay l;
	unsigned int i;
	uint16_t f = chance(50) ? VRING_DESC_F_WRITE : 0;

	layout(memi, num, &l);
	GUARDED({
		for (i = 0; i < num; i++) {
			l.desc[i].addr = (uintptr_t)l.bufs + (i % NBUF) * BUF_SZ;
			l.desc[i].len = 1 + rndn(64);
			l.desc[i].flags = f | (i + 1 < num ? VRING_DESC_F_NEXT : 0);
			l.desc[i].next = (uint16_t)(i + 1);
		}
		for (i = 0; i < num; i++)
			l.avail->ring[i] = chance(80) ? 0 : (uint16_t)rndn(num);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		l.avail->idx += (uint16_t)num;
	});
}

/**
 * op_traffic() - valid chains (then a kick) or garbage on a random ring
 */
static void op_traffic(void)
{
	struct rslot *s;
	bool garbage = chance(25);

	OP_BEGIN(garbage ? "garbage" : "traffic");
	s = ring_get();
	if (s->memi >= 0 && s->num && (garbage || s->num <= 16384)) {
		if (garbage && chance(30) && (s->num <= 1024 || !excluded(EX_BIGRING)))
			long_chains(s->memi, s->num);
		else if (garbage)
			scribble(s->memi, s->num);
		else
			post_valid(s);
		if (s->fd >= 0 && chance(70)) {
			if (chance(50))
				check_ret("write", write(s->fd, NULL, 0), ok_rw);
			else
				check_ret("read", read(s->fd, NULL, 0), ok_rw);
		}
	} else if (garbage) {
		scribble(rndn(NRING), 1u << rndn(10));
	}
	pthread_rwlock_unlock(&s->lk);
	OP_END();
}

/**
 * op_dup_close() - close a ring slot, or dup one ring into another slot
 *	(two fds, one ring)
 */
static void op_dup_close(void)
{
	struct rslot *s;
	int i = rndn(NRING), d = -1, memi = -1;
	unsigned int num = 0;

	OP_BEGIN("dup_close");
	if (chance(50)) {
		s = ring_get();
		if (s->fd >= 0) {
			d = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
			num = s->num;
			memi = s->memi;
		}
		pthread_rwlock_unlock(&s->lk);
	}
	rslot_replace(i, d, num, memi);
	OP_END();
}

/* The bulk operation's fds (one bulk at a time). */
static pthread_mutex_t bulk_mtx = PTHREAD_MUTEX_INITIALIZER;
static int bulk_fds[6000];

/**
 * op_bulk() - thousands of vring fds over one small ring at once, a few
 *	used, then all closed
 *
 * Asserted: creation only fails with the creation errnos (EMFILE included
 * when the limit is reached).
 */
static void op_bulk(void)
{
	uint8_t *m = (uint8_t *)(uintptr_t)(ARENA_BASE + BULK_OFF);
	unsigned int n = 1000 + rndn(5000), i, made = 0;
	struct fslot *cs;
	struct vringfd_state st;
	int ctl;

	if (pthread_mutex_trylock(&bulk_mtx))
		return;
	OP_BEGIN("bulk");
	ctl = ctl_fd_get(&cs);
	for (i = 0; i < n && ctl >= 0 && !atomic_load(&stop_now); i++) {
		struct vringfd_create c = {
			.num = 1, .desc_addr = (uintptr_t)m, .avail_addr = (uintptr_t)(m + 16),
			.used_addr = (uintptr_t)(m + 4096), .last_used_addr = (uintptr_t)(m + 8192),
		};
		int fd = ioctl(ctl, VRINGFD_CREATE, &c);

		if (fd < 0) {
			check_ret("bulk_create", fd, ok_create);
			break;
		}
		bulk_fds[made++] = fd;
	}
	pthread_rwlock_unlock(&cs->lk);
	for (i = 0; i < 16 && made; i++)
		check_ret("bulk_get_state", ioctl(bulk_fds[rndn(made)], VRINGFD_GET_STATE, &st), ok_none);
	for (i = 0; i < made; i++)
		close(bulk_fds[i]);
	OP_END();
	pthread_mutex_unlock(&bulk_mtx);
}

#endif /* STRESS_RING_OPS_H */
