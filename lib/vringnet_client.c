// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * vringnet_client.c - the client side of a vringnetd ring-fd port
 *
 * One queue pair in one sealed memfd, laid out as
 *   [tx desc | tx avail | tx used | rx desc | rx avail | rx used]  (64-byte
 *   aligned parts), then, page aligned, num tx buffers and num rx buffers
 *   of buf_size bytes each.
 * Descriptor addresses are offsets in the memfd (what the daemon expects),
 * so the driver helpers of ring_driver.c are given offsets, not pointers,
 * as iov_base; they never dereference them.
 *
 * vringnet_connect_rings() sends, instead of the memfd, two vring fds made
 * here: rings of memory over the whole memfd at guest address 0 (so the
 * same offsets are their guest addresses), with the used ring's idx as
 * the last_used word the module's poll() compares (as the daemon's kernel
 * engine does: the driver, not the device, consumes the used ring).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "vringfd.h"

#define VNC_HDR		VRINGNET_RFD_VNET_HDR_LEN
#define VNC_TIMEOUT_MS	5000

/**
 * struct vringnet_client - one connection to a ring-fd port
 * @sock: the SOCK_SEQPACKET socket
 * @memfd: the memfd
 * @mem: its mapping
 * @size: its size
 * @num: ring size
 * @buf_size: bytes per buffer
 * @buf_off: offset of the first buffer
 * @tx: tx ring
 * @rx: rx ring
 * @efd: tx kick, tx call, rx kick, rx call eventfds
 * @ring_fd: the tx and rx vring fds until the daemon answered
 *	(vringnet_connect_rings()), else -1
 * @tx_free: free tx buffer indexes (a stack)
 * @ntx_free: entries in @tx_free
 * @hung_up: the daemon closed the socket
 */
struct vringnet_client {
	int sock;
	int memfd;
	uint8_t *mem;
	size_t size;
	unsigned int num;
	unsigned int buf_size;
	size_t buf_off;
	struct vringfd_ring tx;
	struct vringfd_ring rx;
	int efd[4];
	int ring_fd[2];
	unsigned int *tx_free;
	unsigned int ntx_free;
	bool hung_up;
};

/**
 * vnc_align() - round up
 * @v: value
 * @a: power of two
 * Return: @v rounded up to @a.
 */
static size_t vnc_align(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/**
 * vnc_free() - release everything of a client
 * @c: client
 */
static void vnc_free(struct vringnet_client *c)
{
	unsigned int i;

	vringfd_ring_fini(&c->tx);
	vringfd_ring_fini(&c->rx);
	if (c->mem && c->mem != MAP_FAILED)
		munmap(c->mem, c->size);
	if (c->memfd >= 0)
		close(c->memfd);
	if (c->sock >= 0)
		close(c->sock);
	for (i = 0; i < 4; i++)
		if (c->efd[i] >= 0)
			close(c->efd[i]);
	for (i = 0; i < 2; i++)
		if (c->ring_fd[i] >= 0)
			close(c->ring_fd[i]);
	free(c->tx_free);
	free(c);
}

/**
 * vnc_post_rx() - post rx buffer @i
 * @c: client
 * @i: buffer index (0..num-1)
 * Return: the head or a negative errno.
 */
static int vnc_post_rx(struct vringnet_client *c, unsigned int i)
{
	struct iovec in = {
		.iov_base = (void *)(uintptr_t)(c->buf_off + (size_t)(c->num + i) * c->buf_size),
		.iov_len = c->buf_size,
	};

	return vringfd_ring_add(&c->rx, NULL, 0, &in, 1, (void *)(uintptr_t)(i + 1));
}

/**
 * vnc_layout() - create the memfd, rings and buffers
 * @c: client with @num and @buf_size set
 * @setup: filled with the ring offsets
 * @features: ring features
 * Return: 0 or a negative errno.
 */
static int vnc_layout(struct vringnet_client *c, struct vringnet_rfd_setup *setup,
		      uint64_t features)
{
	struct vringnet_rfd_ring *r[2] = { &setup->qp[0].tx, &setup->qp[0].rx };
	size_t off = 0, n = c->num;
	unsigned int i;
	int ret;

	for (i = 0; i < 2; i++) {
		r[i]->num = c->num;
		r[i]->desc = off;
		off = vnc_align(off + 16 * n, 64);
		r[i]->avail = off;
		off = vnc_align(off + 6 + 2 * n, 64);
		r[i]->used = off;
		off = vnc_align(off + 6 + 8 * n, 64);
	}
	c->buf_off = vnc_align(off, 4096);
	c->size = vnc_align(c->buf_off + 2 * n * c->buf_size, 4096);
	c->memfd = memfd_create("vringnet-client", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (c->memfd < 0)
		return -errno;
	if (ftruncate(c->memfd, (off_t)c->size) < 0 ||
	    fcntl(c->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0)
		return -errno;
	c->mem = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_SHARED, c->memfd, 0);
	if (c->mem == MAP_FAILED)
		return -errno;
	ret = vringfd_ring_init_parts(&c->tx, c->num, c->mem + r[0]->desc,
				      c->mem + r[0]->avail, c->mem + r[0]->used, features);
	if (ret)
		return ret;
	ret = vringfd_ring_init_parts(&c->rx, c->num, c->mem + r[1]->desc,
				      c->mem + r[1]->avail, c->mem + r[1]->used, features);
	if (ret)
		return ret;
	c->tx_free = calloc(c->num, sizeof(*c->tx_free));
	if (!c->tx_free)
		return -ENOMEM;
	for (i = 0; i < c->num; i++)
		c->tx_free[c->ntx_free++] = c->num - 1 - i;
	for (i = 0; i < c->num; i++) {
		ret = vnc_post_rx(c, i);
		if (ret < 0)
			return ret;
	}
	vringfd_ring_publish(&c->rx);
	return 0;
}

/**
 * vnc_ring_fd() - a vring fd over one ring of the memfd, made a ring of memory
 * @c: client with its memfd mapped
 * @r: where the ring lies (offsets = guest addresses)
 * @features: ring features
 *
 * The rx ring's buffers are posted already: the fd starts at avail
 * entry 0 (VRINGFD_CREATE_F_AVAIL_BASE), not at avail->idx.
 * Return: the fd, or a negative errno.
 */
static int vnc_ring_fd(struct vringnet_client *c, const struct vringnet_rfd_ring *r,
		       uint64_t features)
{
	struct vringfd_create cr = {
		.num = r->num,
		.flags = VRINGFD_CREATE_F_AVAIL_BASE,
		.features = features,
		.desc_addr = (uintptr_t)(c->mem + r->desc),
		.avail_addr = (uintptr_t)(c->mem + r->avail),
		.used_addr = (uintptr_t)(c->mem + r->used),
		.last_used_addr = (uintptr_t)(c->mem + r->used + 2),
	};
	struct vringfd_mem_files files = {
		.desc_addr = r->desc,
		.avail_addr = r->avail,
		.used_addr = r->used,
		.last_used_addr = r->used + 2,
	};
	struct vringfd_mem_file_region region = {
		.guest_addr = 0,
		.size = c->size,
		.offset = 0,
		.fd = c->memfd,
	};
	int fd, ret;

	fd = vringfd_create_ex(&cr);
	if (fd < 0)
		return -errno;
	if (vringfd_set_mem_files(fd, &files, &region, 1) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/**
 * vnc_make_rings() - the tx and rx vring fds of memory; SETUP then says so
 * @c: client after vnc_layout()
 * @setup: its SETUP: VRINGNET_RFD_F_RINGS set, ring offsets cleared
 * @features: ring features
 * @err: reason on failure
 * @errlen: its size
 * Return: 0 or a negative errno.
 */
static int vnc_make_rings(struct vringnet_client *c, struct vringnet_rfd_setup *setup,
			  uint64_t features, char *err, size_t errlen)
{
	struct vringnet_rfd_ring *r[2] = { &setup->qp[0].tx, &setup->qp[0].rx };
	struct vringfd_version ver;
	unsigned int i;
	int ret;

	if (vringfd_get_version(&ver) < 0) {
		ret = -errno;
		snprintf(err, errlen, "/dev/vringfd: %s", strerror(errno));
		return ret;
	}
	if (!(ver.caps & VRINGFD_CAP_MEM_FILES) || !(ver.caps & VRINGFD_CAP_AVAIL_BASE)) {
		snprintf(err, errlen, "this vringfd.ko makes no rings of memory (VRINGFD_CAP_MEM_FILES)");
		return -EOPNOTSUPP;
	}
	for (i = 0; i < 2; i++) {
		ret = vnc_ring_fd(c, r[i], features);
		if (ret < 0) {
			snprintf(err, errlen, "%s ring of memory: %s", i ? "rx" : "tx",
				 strerror(-ret));
			return ret;
		}
		c->ring_fd[i] = ret;
		r[i]->desc = r[i]->avail = r[i]->used = 0;
	}
	setup->flags |= VRINGNET_RFD_F_RINGS;
	return 0;
}

/**
 * vnc_handshake() - send SETUP with the fds, wait for the answer
 * @c: client
 * @setup: the message (VRINGNET_RFD_F_RINGS: the ring fds go instead of the memfd)
 * @len: its length
 * @err: the daemon's reason
 * @errlen: its size
 * Return: 0 or a negative errno.
 */
static int vnc_handshake(struct vringnet_client *c, const struct vringnet_rfd_setup *setup,
			 size_t len, char *err, size_t errlen)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(6 * sizeof(int))];
	} cb;
	bool rings = setup->flags & VRINGNET_RFD_F_RINGS;
	int memfd_fds[5] = { c->memfd, c->efd[0], c->efd[1], c->efd[2], c->efd[3] };
	int ring_fds[6] = { c->ring_fd[0], c->ring_fd[1],
			    c->efd[0], c->efd[1], c->efd[2], c->efd[3] };
	const int *fds = rings ? ring_fds : memfd_fds;
	size_t fds_len = rings ? sizeof(ring_fds) : sizeof(memfd_fds);
	struct iovec iov = { .iov_base = (void *)setup, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cb.b, .msg_controllen = sizeof(cb.b),
	};
	struct vringnet_rfd_reply reply;
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
	struct cmsghdr *cm;
	ssize_t n;
	int ret;

	memset(&cb, 0, sizeof(cb));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(fds_len);
	mh.msg_controllen = CMSG_SPACE(fds_len);
	memcpy(CMSG_DATA(cm), fds, fds_len);
	if (sendmsg(c->sock, &mh, MSG_NOSIGNAL) != (ssize_t)len)
		return -errno;
	do
		ret = poll(&pfd, 1, VNC_TIMEOUT_MS);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return -errno;
	if (ret == 0) {
		snprintf(err, errlen, "no answer from the daemon within %d ms", VNC_TIMEOUT_MS);
		return -ETIMEDOUT;
	}
	n = recv(c->sock, &reply, sizeof(reply), 0);
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(reply) || reply.hdr.magic != VRINGNET_RFD_MAGIC ||
	    reply.hdr.version != VRINGNET_RFD_VERSION || reply.hdr.size != sizeof(reply) ||
	    (reply.hdr.type != VRINGNET_RFD_OK && reply.hdr.type != VRINGNET_RFD_ERROR)) {
		snprintf(err, errlen, n == 0 ? "the daemon hung up without an answer" :
			 "malformed answer (%zd bytes)", n);
		return n == 0 ? -ECONNRESET : -EPROTO;
	}
	reply.text[sizeof(reply.text) - 1] = '\0';
	snprintf(err, errlen, "%s", reply.text);
	if (reply.hdr.type == VRINGNET_RFD_ERROR)
		return reply.error > 0 ? -reply.error : -EPROTO;
	return 0;
}

/**
 * vnc_connect() - vringnet_connect_err() and vringnet_connect_rings()
 * @path: the port's socket
 * @cfg: sizes
 * @out: the client
 * @rings: pass vring fds of memory instead of the memfd
 * @err: reason on failure
 * @errlen: its size
 * Return: 0 or a negative errno.
 */
static int vnc_connect(const char *path, const struct vringnet_client_config *cfg,
		       struct vringnet_client **out, bool rings, char *err, size_t errlen)
{
	struct {
		struct vringnet_rfd_setup s;
		struct vringnet_rfd_qp qp;
	} msg;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct vringnet_client *c;
	unsigned int num = cfg && cfg->num ? cfg->num : 256;
	unsigned int bs = cfg && cfg->buf_size ? cfg->buf_size : 2048;
	uint64_t features = cfg ? cfg->features : 0;
	char dummy[1];
	int ret, i;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	if (!path || !out || strlen(path) >= sizeof(sa.sun_path) ||
	    num > VRINGNET_RFD_MAX_NUM || (num & (num - 1)) || bs < 64 ||
	    bs > 65550 || (features & ~VRINGNET_RFD_FEATURES)) {
		snprintf(err, errlen, "invalid argument");
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->sock = c->memfd = -1;
	for (i = 0; i < 4; i++)
		c->efd[i] = -1;
	c->ring_fd[0] = c->ring_fd[1] = -1;
	c->num = num;
	c->buf_size = bs;
	memset(&msg, 0, sizeof(msg));
	ret = vnc_layout(c, &msg.s, features);
	for (i = 0; !ret && i < 4; i++) {
		c->efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (c->efd[i] < 0)
			ret = -errno;
	}
	if (ret) {
		snprintf(err, errlen, "setting up the rings: %s", strerror(-ret));
		goto fail;
	}
	msg.s.hdr.magic = VRINGNET_RFD_MAGIC;
	msg.s.hdr.version = VRINGNET_RFD_VERSION;
	msg.s.hdr.size = sizeof(msg);
	msg.s.hdr.type = VRINGNET_RFD_SETUP;
	msg.s.nqp = 1;
	msg.s.vnet_hdr_len = VNC_HDR;
	msg.s.features = features;
	if (rings) {
		ret = vnc_make_rings(c, &msg.s, features, err, errlen);
		if (ret)
			goto fail;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	c->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (c->sock < 0 || connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "connect to %s: %s", path, strerror(errno));
		goto fail;
	}
	ret = vnc_handshake(c, &msg.s, sizeof(msg), err, errlen);
	if (ret)
		goto fail;
	for (i = 0; i < 2; i++) {
		if (c->ring_fd[i] >= 0)
			close(c->ring_fd[i]);
		c->ring_fd[i] = -1;
	}
	*out = c;
	return 0;
fail:
	vnc_free(c);
	return ret;
}

/**
 * vringnet_connect_err() - see <vringfd.h>
 * @path: the port's socket
 * @cfg: sizes
 * @out: the client
 * @err: reason on failure
 * @errlen: its size
 * Return: 0 or a negative errno.
 */
int vringnet_connect_err(const char *path, const struct vringnet_client_config *cfg,
			 struct vringnet_client **out, char *err, size_t errlen)
{
	return vnc_connect(path, cfg, out, false, err, errlen);
}

/**
 * vringnet_connect_rings() - see <vringfd.h>
 * @path: the port's socket
 * @cfg: sizes
 * @out: the client
 * @err: reason on failure
 * @errlen: its size
 * Return: 0 or a negative errno.
 */
int vringnet_connect_rings(const char *path, const struct vringnet_client_config *cfg,
			   struct vringnet_client **out, char *err, size_t errlen)
{
	return vnc_connect(path, cfg, out, true, err, errlen);
}

/**
 * vringnet_connect() - see <vringfd.h>
 * @path: the port's socket
 * @cfg: sizes
 * @out: the client
 * Return: 0 or a negative errno.
 */
int vringnet_connect(const char *path, const struct vringnet_client_config *cfg,
		     struct vringnet_client **out)
{
	return vringnet_connect_err(path, cfg, out, NULL, 0);
}

/**
 * vringnet_tx_ring() - see <vringfd.h>
 * @c: client
 * Return: the tx ring.
 */
struct vringfd_ring *vringnet_tx_ring(struct vringnet_client *c)
{
	return &c->tx;
}

/**
 * vringnet_rx_ring() - see <vringfd.h>
 * @c: client
 * Return: the rx ring.
 */
struct vringfd_ring *vringnet_rx_ring(struct vringnet_client *c)
{
	return &c->rx;
}

/**
 * vringnet_mem() - see <vringfd.h>
 * @c: client
 * @size: its size
 * Return: the mapping.
 */
void *vringnet_mem(struct vringnet_client *c, size_t *size)
{
	if (size)
		*size = c->size;
	return c->mem;
}

/**
 * vringnet_rx_call_fd() - see <vringfd.h>
 * @c: client
 * Return: the rx call eventfd.
 */
int vringnet_rx_call_fd(struct vringnet_client *c)
{
	return c->efd[3];
}

/**
 * vringnet_kick() - see <vringfd.h>
 * @c: client
 * @rx: which ring
 * Return: 0 or -errno.
 */
int vringnet_kick(struct vringnet_client *c, bool rx)
{
	uint64_t one = 1;

	if (write(c->efd[rx ? 2 : 0], &one, sizeof(one)) != sizeof(one))
		return -errno;
	return 0;
}

/**
 * vnc_check_hup() - has the daemon closed the socket
 * @c: client
 * Return: true if so.
 */
static bool vnc_check_hup(struct vringnet_client *c)
{
	struct pollfd pfd = { .fd = c->sock, .events = POLLIN };

	if (!c->hung_up && poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLIN)))
		c->hung_up = true;
	return c->hung_up;
}

/**
 * vringnet_send() - see <vringfd.h>
 * @c: client
 * @frame: the frame
 * @len: its length
 * Return: 0 or a negative errno.
 */
int vringnet_send(struct vringnet_client *c, const void *frame, size_t len)
{
	struct iovec out;
	uint8_t *buf;
	unsigned int i;
	void *tok;
	int ret;

	if (!frame || len < 14 || len > c->buf_size - VNC_HDR)
		return -EINVAL;
	if (vnc_check_hup(c))
		return -EPIPE;
	while ((tok = vringfd_ring_get_used(&c->tx, NULL)))
		c->tx_free[c->ntx_free++] = (unsigned int)(uintptr_t)tok - 1;
	if (c->tx.broken)
		return -EIO;
	if (!c->ntx_free)
		return -EAGAIN;
	i = c->tx_free[--c->ntx_free];
	buf = c->mem + c->buf_off + (size_t)i * c->buf_size;
	memset(buf, 0, VNC_HDR);
	memcpy(buf + VNC_HDR, frame, len);
	out.iov_base = (void *)(uintptr_t)(buf - c->mem);
	out.iov_len = VNC_HDR + len;
	ret = vringfd_ring_add(&c->tx, &out, 1, NULL, 0, (void *)(uintptr_t)(i + 1));
	if (ret < 0) {
		c->tx_free[c->ntx_free++] = i;
		return ret;
	}
	vringfd_ring_publish(&c->tx);
	if (vringfd_ring_need_kick(&c->tx))
		return vringnet_kick(c, false);
	return 0;
}

/**
 * vringnet_recv() - see <vringfd.h>
 * @c: client
 * @buf: destination
 * @len: its size
 * @timeout_ms: wait
 * Return: frame length or a negative errno.
 */
ssize_t vringnet_recv(struct vringnet_client *c, void *buf, size_t len, int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = c->efd[3], .events = POLLIN },
		{ .fd = c->sock, .events = POLLIN },
	};
	uint64_t v;
	uint32_t used;
	void *tok;

	for (;;) {
		tok = vringfd_ring_get_used(&c->rx, &used);
		if (tok) {
			unsigned int i = (unsigned int)(uintptr_t)tok - 1;
			const uint8_t *b = c->mem + c->buf_off + (size_t)(c->num + i) * c->buf_size;
			size_t flen = used > VNC_HDR && used <= c->buf_size ? used - VNC_HDR : 0;
			int ret;

			if (flen)
				memcpy(buf, b + VNC_HDR, flen < len ? flen : len);
			ret = vnc_post_rx(c, i);
			if (ret < 0)
				return ret;
			vringfd_ring_publish(&c->rx);
			if (vringfd_ring_need_kick(&c->rx))
				vringnet_kick(c, true);
			if (flen)
				return (ssize_t)flen;
			continue;	/* an empty completion: nothing to give */
		}
		if (c->rx.broken)
			return -EIO;
		if (vnc_check_hup(c))
			return -EPIPE;
		if (!timeout_ms)
			return -EAGAIN;
		if (poll(pfd, 2, timeout_ms) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents)
			c->hung_up = true;
		if (!(pfd[0].revents & POLLIN) && !c->hung_up &&
		    !vringfd_ring_more_used(&c->rx))
			return -EAGAIN;
		if (read(c->efd[3], &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
		timeout_ms = 0;
		if (c->hung_up && !vringfd_ring_more_used(&c->rx))
			return -EPIPE;
	}
}

/**
 * vringnet_close() - see <vringfd.h>
 * @c: client
 */
void vringnet_close(struct vringnet_client *c)
{
	if (c)
		vnc_free(c);
}
