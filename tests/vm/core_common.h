/* SPDX-License-Identifier: GPL-2.0 */
/*
 * core_common.h - shared helpers of the vringfd.ko core VM tests
 * (tests/vm/core_*.c): raw ring setup and posting (raw on
 * purpose: the tests write malicious rings), and the echo module.  Result
 * lines: tests/lib/result.h.
 *
 * Every helper is static: each test program includes this once.
 */
#ifndef CORE_COMMON_H
#define CORE_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>
#include <linux/vringfd.h>
#include <linux/vringfd_echo.h>
#include <vringfd.h>

#include "lib/result.h"

/**
 * core_expect_err() - check that a call failed with @err
 * @name: test name
 * @ret: the call's return value
 * @err: errno wanted
 *
 * Uses the current errno.
 */
static inline void core_expect_err(const char *name, long ret, int err)
{
	int e = errno;

	result_check(ret == -1 && e == err, name, "got %ld errno %d (%s), want -1 %s",
		    ret, ret == -1 ? e : 0, ret == -1 ? strerror(e) : "-",
		    strerror(err));
}

/**
 * struct tring - a test ring in its own anonymous mapping
 * @mem: mapping (legacy vring layout, page-aligned used ring)
 * @size: bytes mapped
 * @num: ring size
 * @vr: desc/avail/used pointers
 * @last_used: the user's last_used
 * @fd: vring fd, -1 before creation
 * @next_desc: next free descriptor for tring_post()
 * @bufs: data buffers, @buf_size bytes for each descriptor index
 * @buf_size: bytes per buffer
 */
struct tring {
	void *mem;
	size_t size;
	unsigned int num;
	struct vring vr;
	uint16_t last_used;
	int fd;
	unsigned int next_desc;
	uint8_t *bufs;
	size_t buf_size;
};

/**
 * tring_map() - map a ring of @num entries (no vring fd yet)
 * @t: filled in
 * @num: ring size
 * @buf_size: bytes of data buffer per descriptor (0: none)
 *
 * Return: 0, or -1 on mmap failure.
 */
static inline int tring_map(struct tring *t, unsigned int num, size_t buf_size)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->num = num;
	t->size = vring_size(num, 4096);
	t->mem = mmap(NULL, t->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->mem == MAP_FAILED)
		return -1;
	vring_init(&t->vr, num, t->mem, 4096);
	t->buf_size = buf_size;
	if (buf_size) {
		t->bufs = mmap(NULL, buf_size * num, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (t->bufs == MAP_FAILED)
			return -1;
	}
	return 0;
}

/**
 * tring_open() - map a ring and create its vring fd
 * @t: filled in
 * @num: ring size
 * @buf_size: bytes of data buffer per descriptor
 * @features: VRINGFD_CREATE features
 *
 * Return: 0, or -1 with errno.
 */
static inline int tring_open(struct tring *t, unsigned int num, size_t buf_size,
		      uint64_t features)
{
	if (tring_map(t, num, buf_size))
		return -1;
	t->fd = vringfd_create(num, t->vr.desc, t->vr.avail, t->vr.used,
			       &t->last_used, features);
	return t->fd < 0 ? -1 : 0;
}

/**
 * tring_close() - close the fd and unmap everything
 * @t: the ring
 */
static inline void tring_close(struct tring *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->mem && t->mem != MAP_FAILED)
		munmap(t->mem, t->size);
	if (t->bufs && t->bufs != MAP_FAILED)
		munmap(t->bufs, t->buf_size * t->num);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

/**
 * tring_desc() - set descriptor @i
 * @t: the ring
 * @i: index
 * @addr: buffer address
 * @len: length
 * @flags: VRING_DESC_F_*
 * @next: next index
 */
static inline void tring_desc(struct tring *t, unsigned int i, uint64_t addr,
		       uint32_t len, uint16_t flags, uint16_t next)
{
	t->vr.desc[i].addr = addr;
	t->vr.desc[i].len = len;
	t->vr.desc[i].flags = flags;
	t->vr.desc[i].next = next;
}

/**
 * tring_avail() - make chain @head available (one avail entry)
 * @t: the ring
 * @head: head index (may be out of range on purpose)
 */
static inline void tring_avail(struct tring *t, uint16_t head)
{
	uint16_t idx = t->vr.avail->idx;

	t->vr.avail->ring[idx & (t->num - 1)] = head;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	t->vr.avail->idx = idx + 1;
}

/**
 * tring_post() - post one single-descriptor buffer of the ring's own data
 * @t: the ring (descriptors used round-robin)
 * @len: bytes (<= buf_size)
 * @write: device-writable
 * @fill: byte to fill a readable buffer with (also its first byte's index)
 *
 * Return: the head index used.
 */
static inline uint16_t tring_post(struct tring *t, uint32_t len, bool write,
			   uint8_t fill)
{
	unsigned int i = t->next_desc++ & (t->num - 1);
	uint8_t *b = t->bufs + (size_t)i * t->buf_size;

	if (write)
		memset(b, 0xee, len);
	else
		memset(b, fill, len);
	tring_desc(t, i, (uintptr_t)b, len, write ? VRING_DESC_F_WRITE : 0, 0);
	tring_avail(t, i);
	return i;
}

/**
 * tring_used_pending() - used entries not yet consumed by the test
 * @t: the ring
 *
 * Return: used->idx - last_used.
 */
static inline uint16_t tring_used_pending(const struct tring *t)
{
	uint16_t idx = __atomic_load_n(&t->vr.used->idx, __ATOMIC_ACQUIRE);

	return idx - t->last_used;
}

/**
 * tring_take_used() - consume one used entry
 * @t: the ring
 * @id: its id (out)
 * @len: its length (out)
 *
 * Return: true when there was one.
 */
static inline bool tring_take_used(struct tring *t, uint32_t *id, uint32_t *len)
{
	struct vring_used_elem *e;

	if (!tring_used_pending(t))
		return false;
	e = &t->vr.used->ring[t->last_used & (t->num - 1)];
	*id = e->id;
	*len = e->len;
	t->last_used++;
	return true;
}

/**
 * tring_state() - VRINGFD_GET_STATE
 * @t: the ring
 * @st: filled in
 *
 * Return: 0 or -1 with errno.
 */
static inline int tring_state(const struct tring *t, struct vringfd_state *st)
{
	return ioctl(t->fd, VRINGFD_GET_STATE, st);
}

/**
 * tring_broken() - is the ring marked broken?
 * @t: the ring
 *
 * Return: true when VRINGFD_STATE_BROKEN is set.
 */
static inline bool tring_broken(const struct tring *t)
{
	struct vringfd_state st;

	if (tring_state(t, &st))
		return false;
	return st.flags & VRINGFD_STATE_BROKEN;
}

/**
 * echo_available() - is vringfd_echo.ko loaded?
 *
 * Return: true when /dev/vringfd_echo exists.
 */
static inline bool echo_available(void)
{
	return access("/dev/vringfd_echo", F_OK) == 0;
}

/**
 * echo_attach() - open /dev/vringfd_echo and attach {from, to}
 * @from: vring fd read
 * @to: vring fd filled
 * @atomic_every: see struct vringfd_echo_attach
 * @flags: VRINGFD_ECHO_F_*
 * @efd: the echo fd (out; -1 on failure)
 *
 * Return: 0, or -1 with errno from VRINGFD_ECHO_ATTACH (or open).
 */
static inline int echo_attach(int from, int to, unsigned int atomic_every,
		       unsigned int flags, int *efd)
{
	struct vringfd_echo_attach a;
	int fd, e;

	*efd = -1;
	fd = open("/dev/vringfd_echo", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.from_fd = from;
	a.to_fd = to;
	a.atomic_every = atomic_every;
	a.flags = flags;
	if (ioctl(fd, VRINGFD_ECHO_ATTACH, &a)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	*efd = fd;
	return 0;
}

/**
 * poll_one() - poll one fd for POLLIN
 * @fd: the fd
 * @timeout_ms: poll timeout
 * @revents: returned events (out)
 *
 * Return: poll()'s return value.
 */
static inline int poll_one(int fd, int timeout_ms, short *revents)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	*revents = p.revents;
	return r;
}

#endif /* CORE_COMMON_H */
