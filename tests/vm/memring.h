// SPDX-License-Identifier: GPL-2.0
/*
 * memring.h - a ring of memory (VRINGFD_SET_MEM_FILES) for the VM tests:
 * a ring inside a sealed memfd with its vring fd, frames posted to it and
 * checked on the way out (a packet socket) or in (its used ring).  Used
 * by tap_memfiles.c and tap_kick.c.
 *
 * The memfd is mapped at some address A and its guest addresses are A as
 * well (guest address = user address in the process that made it), so
 * that the driver library's descriptors need no translation.
 */
#ifndef VRFD_TEST_MEMRING_H
#define VRFD_TEST_MEMRING_H

#include <poll.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include "tap_common.h"

#define NUM 256
#define MEMSZ (2UL << 20)	/* ring at the start, frame buffers after it */
#define BUFOFF (64UL << 10)
#define BUFSZ 2048

/**
 * struct mf_ring - a ring inside a sealed memfd, with its vring fd
 * @memfd: the memfd
 * @mem: its mapping (MEMSZ bytes, shared): the ring at the start, frame
 *	buffers from BUFOFF, the driver state (with last_used) in the page
 *	before BUFOFF
 * @fd: vring fd
 */
struct mf_ring {
	int memfd;
	uint8_t *mem;
	int fd;
};

/**
 * mf_state() - the driver state of @m (inside its memfd)
 * @m: the ring
 *
 * Return: the state.
 */
static inline struct vringfd_ring *mf_state(const struct mf_ring *m)
{
	return (struct vringfd_ring *)(m->mem + BUFOFF - 4096);
}

/**
 * mf_memfd_flags() - a memfd of @size bytes with @seals added
 * @size: bytes
 * @seals: F_SEAL_* to add (0: none)
 * @flags: more MFD_* flags (MFD_HUGETLB: a hugetlbfs memfd, @size a
 *	multiple of the huge page size)
 *
 * Return: the fd, or -1.
 */
static inline int mf_memfd_flags(size_t size, int seals, unsigned int flags)
{
	int fd = memfd_create("vrmf", MFD_CLOEXEC | MFD_ALLOW_SEALING | flags);

	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    (seals && fcntl(fd, F_ADD_SEALS, seals) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * mf_memfd() - a shmem memfd of @size bytes with @seals added
 * @size: bytes
 * @seals: F_SEAL_* to add (0: none)
 *
 * Return: the fd, or -1.
 */
static inline int mf_memfd(size_t size, int seals)
{
	return mf_memfd_flags(size, seals, 0);
}

/**
 * struct mf_table - a struct vringfd_mem_files with room for 4 regions
 * @h: the table
 * @r: its regions
 */
struct mf_table {
	struct vringfd_mem_files h;
	struct vringfd_mem_file_region r[4];
};

/**
 * mf_table_of() - the table of @m's ring parts and @n regions
 * @m: the ring (its parts' guest addresses are their user addresses)
 * @regs: regions (at most 4)
 * @n: number of regions
 * @t: filled in
 */
static inline void mf_table_of(const struct mf_ring *m, const struct vringfd_mem_file_region *regs,
			       unsigned int n, struct mf_table *t)
{
	const struct vringfd_ring *rs = mf_state(m);

	memset(t, 0, sizeof(*t));
	t->h.nregions = n;
	t->h.desc_addr = (uintptr_t)rs->vr.desc;
	t->h.avail_addr = (uintptr_t)rs->vr.avail;
	t->h.used_addr = (uintptr_t)rs->vr.used;
	t->h.last_used_addr = (uintptr_t)&rs->last_used;
	memcpy(t->r, regs, n * sizeof(*regs));
}

/**
 * mf_set() - VRINGFD_SET_MEM_FILES with the ring parts of @m and @n regions
 * @m: the ring (its parts' guest addresses are their user addresses)
 * @regs: regions
 * @n: number of regions
 *
 * Return: the ioctl's answer (-1 with errno).
 */
static inline int mf_set(const struct mf_ring *m, const struct vringfd_mem_file_region *regs,
		  unsigned int n)
{
	struct mf_table t;

	mf_table_of(m, regs, n, &t);
	return ioctl(m->fd, VRINGFD_SET_MEM_FILES, &t);
}

/**
 * mf_region() - the region covering the whole memfd of @m, identity-mapped
 * @m: the ring
 *
 * Return: the region.
 */
static inline struct vringfd_mem_file_region mf_region(const struct mf_ring *m)
{
	struct vringfd_mem_file_region r;

	memset(&r, 0, sizeof(r));
	r.guest_addr = (uintptr_t)m->mem;
	r.size = MEMSZ;
	r.offset = 0;
	r.fd = m->memfd;
	return r;
}

/**
 * mf_ring_new_in() - a ring in a new sealed memfd, its vring fd, no table yet
 * @m: filled in
 * @features: ring features
 * @memfd_flags: more MFD_* flags for the memfd (MFD_HUGETLB: one 2 MiB
 *	huge page)
 *
 * The last_used counter lives in the driver state, which must be inside
 * the memfd too: the state struct is placed in the page before BUFOFF.
 * Return: 0, or -1 with errno.
 */
static inline int mf_ring_new_in(struct mf_ring *m, uint64_t features, unsigned int memfd_flags)
{
	struct vringfd_ring *rs;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	m->mem = NULL;
	m->memfd = mf_memfd_flags(MEMSZ, F_SEAL_SHRINK, memfd_flags);
	if (m->memfd < 0)
		return -1;
	m->mem = mmap(NULL, MEMSZ, PROT_READ | PROT_WRITE, MAP_SHARED, m->memfd, 0);
	if (m->mem == MAP_FAILED)
		return -1;
	rs = mf_state(m);
	if (vringfd_ring_init(rs, m->mem, NUM, 4096, features) < 0) {
		errno = EINVAL;
		return -1;
	}
	m->fd = vringfd_create(NUM, rs->vr.desc, rs->vr.avail, rs->vr.used,
			       &rs->last_used, features);
	return m->fd < 0 ? -1 : 0;
}

/**
 * mf_ring_new() - a ring in a new sealed shmem memfd, its vring fd, no table
 * @m: filled in
 * @features: ring features
 *
 * Return: 0, or -1 with errno.
 */
static inline int mf_ring_new(struct mf_ring *m, uint64_t features)
{
	return mf_ring_new_in(m, features, 0);
}

/**
 * mf_set_whole() - VRINGFD_SET_MEM_FILES with the whole memfd of @m
 * @m: the ring
 *
 * Return: as mf_set().
 */
static inline int mf_set_whole(struct mf_ring *m)
{
	struct vringfd_mem_file_region r = mf_region(m);

	return mf_set(m, &r, 1);
}

/**
 * mf_ring_free() - close and unmap a ring from mf_ring_new()
 * @m: the ring
 */
static inline void mf_ring_free(struct mf_ring *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	if (m->mem && m->mem != MAP_FAILED) {
		if (m->fd >= 0 || mf_state(m)->tokens)
			vringfd_ring_fini(mf_state(m));
		munmap(m->mem, MEMSZ);
	}
	if (m->memfd >= 0)
		close(m->memfd);
	m->memfd = -1;
	m->mem = NULL;
}

/**
 * mf_buf() - the @i-th frame buffer inside the memfd
 * @m: the ring
 * @i: index (< 900)
 *
 * Return: BUFSZ bytes.
 */
static inline uint8_t *mf_buf(struct mf_ring *m, unsigned int i)
{
	return m->mem + BUFOFF + (size_t)i * BUFSZ;
}

/**
 * mf_post_tx() - post @n frames of @len bytes starting at buffer @first
 * @m: the ring
 * @first: first buffer
 * @n: frames
 * @len: bytes each
 * @seq0: pattern seed of the first
 */
static inline void mf_post_tx(struct mf_ring *m, unsigned int first, int n, size_t len,
		       unsigned int seq0)
{
	struct iovec v;
	int i;

	for (i = 0; i < n; i++) {
		v.iov_base = mf_buf(m, first + (unsigned int)i);
		v.iov_len = len;
		tc_frame(v.iov_base, len, seq0 + (unsigned int)i);
		vringfd_ring_add(mf_state(m), &v, 1, NULL, 0, v.iov_base);
	}
	vringfd_ring_publish(mf_state(m));
}

/**
 * mf_post_rx() - post @n writable buffers starting at buffer @first
 * @m: the ring
 * @first: first buffer
 * @n: buffers
 */
static inline void mf_post_rx(struct mf_ring *m, unsigned int first, int n)
{
	struct iovec v;
	int i;

	for (i = 0; i < n; i++) {
		v.iov_base = mf_buf(m, first + (unsigned int)i);
		v.iov_len = BUFSZ;
		vringfd_ring_add(mf_state(m), NULL, 0, &v, 1, v.iov_base);
	}
	vringfd_ring_publish(mf_state(m));
}

/**
 * capture() - count captured frames of the test pattern, in order
 * @s: packet socket
 * @want: frames expected
 * @len: length of each
 * @seq0: seed of the first
 *
 * Return: frames seen intact.
 */
static inline int capture(int s, int want, size_t len, unsigned int seq0)
{
	static uint8_t rb[10000], ref[10000];
	struct pollfd p = { .fd = s, .events = POLLIN };
	int got = 0;
	ssize_t n;

	while (got < want && poll(&p, 1, 3000) == 1) {
		n = recv(s, rb, sizeof(rb), 0);
		if (n < 14 || rb[12] != 0x88 || rb[13] != 0xb5)
			continue;
		tc_frame(ref, len, seq0 + (unsigned int)got);
		if ((size_t)n == len && !memcmp(rb, ref, len))
			got++;
	}
	return got;
}

/**
 * rx_pull() - read() until @want buffers were used (at most 3 s)
 * @fd: the RX vring fd
 * @want: buffers expected
 *
 * Return: buffers used.
 */
static inline int rx_pull(int fd, int want)
{
	int got = 0, r, i;
	char c;

	for (i = 0; i < 60 && got < want; i++) {
		r = (int)read(fd, &c, 0);
		if (r > 0)
			got += r;
		else
			usleep(50000);
	}
	return got;
}

/**
 * rx_check() - the used entries of @m hold frames seq0.. of @len bytes
 * @m: the ring
 * @n: entries expected
 * @len: bytes each
 * @seq0: seed of the first
 *
 * Return: true when all are there and intact.
 */
static inline bool rx_check(struct mf_ring *m, int n, size_t len, unsigned int seq0)
{
	uint8_t ref[2048];
	uint32_t ulen;
	uint8_t *b;
	int i;

	for (i = 0; i < n; i++) {
		b = vringfd_ring_get_used(mf_state(m), &ulen);
		tc_frame(ref, len, seq0 + (unsigned int)i);
		if (!b || ulen != len || memcmp(b, ref, len))
			return false;
	}
	return true;
}

/**
 * mf_drop_ipc_lock() - remove CAP_IPC_LOCK from this process's effective set
 *
 * Return: 0 or -1.
 */
static inline int mf_drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	return (int)syscall(SYS_capset, &h, d);
}

#endif /* VRFD_TEST_MEMRING_H */
