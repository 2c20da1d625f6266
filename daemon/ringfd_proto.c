// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ringfd_proto.c - the ring-fd port's wire protocol
 *
 * A client sends one SETUP (struct vringnet_rfd_setup and its queue pairs)
 * with 1 + 4 * nqp fds (a memfd, then eventfds), or, with the flag
 * VRINGNET_RFD_F_RINGS, 6 * nqp fds (a tx and an rx vring fd per queue
 * pair, then the same eventfds); the daemon checks it in this order and
 * answers the first violation with ERROR (errno, text) and closes the
 * connection:
 *
 *   message shorter than the header     EBADMSG
 *   magic not VRINGNET_RFD_MAGIC         EPROTO
 *   version not 1                        EPROTONOSUPPORT
 *   type not SETUP                       EBADMSG
 *   header size != message length        EMSGSIZE
 *   nqp 0 or > 8                         EINVAL
 *   length != setup + nqp * qp           EMSGSIZE
 *   vnet_hdr_len != 12                   EINVAL
 *   unknown feature bits                 EOPNOTSUPP
 *   unknown flag bits                    EOPNOTSUPP
 *   fd count != 1 + 4 * nqp (RINGS: 6 * nqp)  EBADF
 *   num 0, not a power of two, > 32768   EINVAL
 *   a ring's reserved field not 0        EINVAL
 *   desc/avail/used misaligned           EINVAL
 *   RINGS: desc/avail/used not 0         EINVAL
 *   fd 0 not a memfd                     EBADF
 *   memfd without F_SEAL_SHRINK          EPERM
 *   a ring part outside the memfd        ERANGE
 *   two ring parts overlapping           EINVAL
 *   RINGS: a ring fd not a vring fd      EBADF
 *   RINGS: a ring fd broken              EIO
 *   RINGS: a ring of an address space    EPERM  (not VRINGFD_SET_MEM_FILES:
 *                                        the daemon could not drive it)
 *   RINGS: a ring already attached       EISCONN (to a tap, its own or any)
 *   RINGS: a ring's size != its num      EINVAL
 *   a kick/call fd not an eventfd        EBADF
 * (port_ringfd.c adds: message or fds truncated EMSGSIZE/EBADF, a second
 * SETUP EALREADY, port busy EBUSY, more queue pairs than the tap ENXIO,
 * engine refusal EIO.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "ringfd_proto.h"

_Static_assert(sizeof(struct vringnet_rfd_hdr) == 12, "wire header size");
_Static_assert(sizeof(struct vringnet_rfd_setup) == 32, "SETUP size");
_Static_assert(sizeof(struct vringnet_rfd_qp) == 64, "queue pair size");
_Static_assert(sizeof(struct vringnet_rfd_reply) == 184, "reply size");

static const char *const ringfd_proto_ring_names[2] = { "tx", "rx" };

/**
 * ringfd_proto_fail() - write a reason
 * @err: buffer
 * @errlen: its size
 * @ret: the negative errno to return
 * @fmt: printf format
 *
 * Return: @ret.
 */
static int __attribute__((format(printf, 4, 5)))
ringfd_proto_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * ringfd_proto_check_ring() - num, reserved and alignment of one ring
 * @r: the ring
 * @rings: VRINGNET_RFD_F_RINGS: the ring is passed, its offsets must be 0
 * @qp: its queue pair
 * @name: "tx" or "rx"
 * @err: reason
 * @errlen: its size
 *
 * Return: 0 or -EINVAL.
 */
static int ringfd_proto_check_ring(const struct vringnet_rfd_ring *r, bool rings,
			  unsigned int qp, const char *name, char *err, size_t errlen)
{
	if (!r->num || r->num > VRINGNET_RFD_MAX_NUM || (r->num & (r->num - 1)))
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"queue pair %u %s ring: num %u is not a power of two in 1..%u",
				qp, name, r->num, VRINGNET_RFD_MAX_NUM);
	if (r->reserved)
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"queue pair %u %s ring: reserved field not zero", qp, name);
	if (rings && (r->desc || r->avail || r->used))
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"queue pair %u %s ring: desc, avail and used must be 0 with passed rings",
				qp, name);
	if (r->desc % 16)
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"queue pair %u %s ring: desc offset 0x%llx not 16-byte aligned",
				qp, name, (unsigned long long)r->desc);
	if (r->avail % 2)
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"queue pair %u %s ring: avail offset 0x%llx not 2-byte aligned",
				qp, name, (unsigned long long)r->avail);
	if (r->used % 4)
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"queue pair %u %s ring: used offset 0x%llx not 4-byte aligned",
				qp, name, (unsigned long long)r->used);
	return 0;
}

/**
 * ringfd_proto_decode_setup() - decode and check a SETUP message (no fd looked at)
 * @buf: the message
 * @len: its length
 * @nfds: fds that came with it
 * @out: the decoded message
 * @err: reason on failure
 * @errlen: its size
 *
 * Checks everything in the table above up to the ring alignments.
 * Return: 0 or a negative errno.
 */
int ringfd_proto_decode_setup(const void *buf, size_t len, unsigned int nfds,
		     struct ringfd_proto_setup *out, char *err, size_t errlen)
{
	struct vringnet_rfd_setup s;
	size_t want;
	unsigned int i;
	int ret;

	if (len < sizeof(struct vringnet_rfd_hdr))
		return ringfd_proto_fail(err, errlen, -EBADMSG,
				"message of %zu bytes is shorter than the %zu-byte header",
				len, sizeof(struct vringnet_rfd_hdr));
	memcpy(&s.hdr, buf, sizeof(s.hdr));
	if (s.hdr.magic != VRINGNET_RFD_MAGIC)
		return ringfd_proto_fail(err, errlen, -EPROTO, "bad magic 0x%08x (want 0x%08x)",
				s.hdr.magic, VRINGNET_RFD_MAGIC);
	if (s.hdr.version != VRINGNET_RFD_VERSION)
		return ringfd_proto_fail(err, errlen, -EPROTONOSUPPORT,
				"protocol version %u not supported (this daemon speaks %u)",
				s.hdr.version, VRINGNET_RFD_VERSION);
	if (s.hdr.type != VRINGNET_RFD_SETUP)
		return ringfd_proto_fail(err, errlen, -EBADMSG, "message type %u is not SETUP (%u)",
				s.hdr.type, VRINGNET_RFD_SETUP);
	if (s.hdr.size != len)
		return ringfd_proto_fail(err, errlen, -EMSGSIZE,
				"header says %u bytes, the message has %zu", s.hdr.size, len);
	if (len < sizeof(s))
		return ringfd_proto_fail(err, errlen, -EMSGSIZE,
				"SETUP of %zu bytes is shorter than its %zu fixed bytes",
				len, sizeof(s));
	memcpy(&s, buf, sizeof(s));
	if (!s.nqp || s.nqp > VRINGNET_RFD_MAX_QP)
		return ringfd_proto_fail(err, errlen, -EINVAL, "nqp %u not in 1..%u", s.nqp,
				VRINGNET_RFD_MAX_QP);
	want = sizeof(s) + s.nqp * sizeof(struct vringnet_rfd_qp);
	if (len != want)
		return ringfd_proto_fail(err, errlen, -EMSGSIZE,
				"SETUP of %zu bytes for %u queue pairs (want %zu)",
				len, s.nqp, want);
	if (s.vnet_hdr_len != VRINGNET_RFD_VNET_HDR_LEN)
		return ringfd_proto_fail(err, errlen, -EINVAL, "vnet_hdr_len %u (must be %u)",
				s.vnet_hdr_len, VRINGNET_RFD_VNET_HDR_LEN);
	if (s.features & ~VRINGNET_RFD_FEATURES)
		return ringfd_proto_fail(err, errlen, -EOPNOTSUPP, "unknown features 0x%llx",
				(unsigned long long)(s.features & ~VRINGNET_RFD_FEATURES));
	if (s.flags & ~(VRINGNET_RFD_F_MRG_RXBUF | VRINGNET_RFD_F_RINGS))
		return ringfd_proto_fail(err, errlen, -EOPNOTSUPP, "unknown flags 0x%x",
				s.flags & ~(VRINGNET_RFD_F_MRG_RXBUF | VRINGNET_RFD_F_RINGS));
	memset(out, 0, sizeof(*out));
	out->nqp = s.nqp;
	out->features = s.features;
	out->mrg_rxbuf = s.flags & VRINGNET_RFD_F_MRG_RXBUF;
	out->rings = s.flags & VRINGNET_RFD_F_RINGS;
	if (nfds != ringfd_proto_nfds(out))
		return ringfd_proto_fail(err, errlen, -EBADF,
				"%u fds for %u queue pairs (want %u: %s, then tx kick, tx call, rx kick, rx call per pair)",
				nfds, s.nqp, ringfd_proto_nfds(out),
				out->rings ? "the tx and rx vring fd per pair" : "the memfd");
	memcpy(out->qp, (const uint8_t *)buf + sizeof(s),
	       s.nqp * sizeof(struct vringnet_rfd_qp));
	for (i = 0; i < out->nqp; i++) {
		ret = ringfd_proto_check_ring(&out->qp[i].tx, out->rings, i, "tx", err, errlen);
		if (!ret)
			ret = ringfd_proto_check_ring(&out->qp[i].rx, out->rings, i, "rx",
						      err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * struct ringfd_proto_area - one ring part, for the bounds and overlap checks
 * @start: offset
 * @len: bytes
 * @qp: queue pair
 * @ring: 0 tx, 1 rx
 * @part: "desc", "avail", "used"
 */
struct ringfd_proto_area {
	uint64_t start;
	uint64_t len;
	unsigned int qp;
	unsigned int ring;
	const char *part;
};

/**
 * ringfd_proto_check_layout() - every ring part inside the memfd, none overlapping
 * @s: a SETUP that passed ringfd_proto_decode_setup()
 * @mem_size: the memfd's size
 * @err: reason
 * @errlen: its size
 *
 * Return: 0, -ERANGE (outside) or -EINVAL (overlap).
 */
int ringfd_proto_check_layout(const struct ringfd_proto_setup *s, uint64_t mem_size,
		     char *err, size_t errlen)
{
	struct ringfd_proto_area a[VRINGNET_RFD_MAX_QP * 6];
	unsigned int n = 0, i, j;

	for (i = 0; i < s->nqp && i < VRINGNET_RFD_MAX_QP; i++) {
		for (j = 0; j < 2; j++) {
			const struct vringnet_rfd_ring *r = j ? &s->qp[i].rx : &s->qp[i].tx;
			uint64_t num = r->num;

			a[n++] = (struct ringfd_proto_area){ r->desc, 16 * num, i, j, "desc" };
			a[n++] = (struct ringfd_proto_area){ r->avail, 6 + 2 * num, i, j, "avail" };
			a[n++] = (struct ringfd_proto_area){ r->used, 6 + 8 * num, i, j, "used" };
		}
	}
	for (i = 0; i < n; i++) {
		if (a[i].start > mem_size || a[i].len > mem_size - a[i].start)
			return ringfd_proto_fail(err, errlen, -ERANGE,
					"queue pair %u %s ring: %s at 0x%llx+%llu is outside the memfd (%llu bytes)",
					a[i].qp, ringfd_proto_ring_names[a[i].ring], a[i].part,
					(unsigned long long)a[i].start,
					(unsigned long long)a[i].len,
					(unsigned long long)mem_size);
	}
	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			if (a[i].start < a[j].start + a[j].len &&
			    a[j].start < a[i].start + a[i].len)
				return ringfd_proto_fail(err, errlen, -EINVAL,
						"queue pair %u %s ring %s overlaps queue pair %u %s ring %s",
						a[i].qp, ringfd_proto_ring_names[a[i].ring], a[i].part,
						a[j].qp, ringfd_proto_ring_names[a[j].ring], a[j].part);
		}
	}
	return 0;
}

/**
 * ringfd_proto_fd_link() - what /proc/self/fd/@fd points to
 * @fd: the fd
 * @buf: result
 * @len: its size
 *
 * Return: 0, or -1 when it cannot be read.
 */
static int ringfd_proto_fd_link(int fd, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, len - 1);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/**
 * ringfd_proto_check_memfd() - the first fd is a memfd sealed against shrinking
 * @fd: the fd
 * @size: its size (fstat)
 * @err: reason
 * @errlen: its size
 *
 * A client truncating its memory under the daemon's mapping would make the
 * daemon fault, hence F_SEAL_SHRINK.
 * Return: 0, -EBADF (not a memfd) or -EPERM (not sealed).
 */
int ringfd_proto_check_memfd(int fd, uint64_t *size, char *err, size_t errlen)
{
	char link[256];
	struct stat st;
	int seals;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    ringfd_proto_fd_link(fd, link, sizeof(link)) < 0 || strncmp(link, "/memfd:", 7))
		return ringfd_proto_fail(err, errlen, -EBADF, "fd 0 is not a memfd");
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return ringfd_proto_fail(err, errlen, -EPERM,
				"memfd not sealed with F_SEAL_SHRINK (add it with F_ADD_SEALS)");
	*size = (uint64_t)st.st_size;
	return 0;
}

/**
 * ringfd_proto_check_ring_fd() - one passed ring: a free vring fd of memory of @num
 * @fd: the fd
 * @idx: its index in the SETUP's fds
 * @num: the size the SETUP gave
 * @err: reason
 * @errlen: its size
 *
 * VRINGFD_GET_STATE answers on any vring fd from any process and changes
 * nothing but the NOTIFY flag (which the daemon's call eventfd replaces).
 * Return: 0, -EBADF (not a vring fd), -EIO (broken), -EPERM (a ring of
 * an address space), -EISCONN (attached) or -EINVAL (another size).
 */
static int ringfd_proto_check_ring_fd(int fd, unsigned int idx, unsigned int num,
			     char *err, size_t errlen)
{
	const char *name = idx % 2 ? "rx" : "tx";
	struct vringfd_state st;
	char link[256];

	if (ringfd_proto_fd_link(fd, link, sizeof(link)) < 0 ||
	    strcmp(link, "anon_inode:[vringfd]") || vringfd_get_state(fd, &st) < 0)
		return ringfd_proto_fail(err, errlen, -EBADF,
				"fd %u (queue pair %u %s ring) is not a vring fd", idx, idx / 2, name);
	if (st.flags & VRINGFD_STATE_BROKEN)
		return ringfd_proto_fail(err, errlen, -EIO,
				"fd %u (queue pair %u %s ring): the ring is broken", idx, idx / 2, name);
	if (!(st.flags & VRINGFD_STATE_MEM_FILES))
		return ringfd_proto_fail(err, errlen, -EPERM,
				"fd %u (queue pair %u %s ring) is a ring of its creator's address space, not of memory files (VRINGFD_SET_MEM_FILES)",
				idx, idx / 2, name);
	if (st.flags & VRINGFD_STATE_ATTACHED)
		return ringfd_proto_fail(err, errlen, -EISCONN,
				"fd %u (queue pair %u %s ring) is already attached", idx, idx / 2, name);
	if (st.num != num)
		return ringfd_proto_fail(err, errlen, -EINVAL,
				"fd %u (queue pair %u %s ring) has %u entries, SETUP says %u",
				idx, idx / 2, name, st.num, num);
	return 0;
}

/**
 * ringfd_proto_check_ring_fds() - the passed rings of a VRINGNET_RFD_F_RINGS SETUP
 * @s: a SETUP that passed ringfd_proto_decode_setup() with @s->rings
 * @fds: its fds (the tx and rx vring fd of each queue pair first)
 * @err: reason
 * @errlen: its size
 *
 * Return: 0 or the negative errno of the first bad ring (see the table).
 */
int ringfd_proto_check_ring_fds(const struct ringfd_proto_setup *s, const int *fds,
		       char *err, size_t errlen)
{
	unsigned int i;
	int ret;

	for (i = 0; i < 2 * s->nqp; i++) {
		const struct vringnet_rfd_qp *qp = &s->qp[i / 2];

		ret = ringfd_proto_check_ring_fd(fds[i], i, i % 2 ? qp->rx.num : qp->tx.num,
					err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * ringfd_proto_detach_ring_fds() - detach the passed rings of a SETUP
 * @s: a checked SETUP with @s->rings
 * @fds: its fds (the tx and rx vring fd of each queue pair first)
 *
 * For a client taken back from a successor that failed after attaching
 * them: an attachment belongs to the ring, which the successor shared, so
 * it outlives that process.  A ring with nothing attached is left alone.
 */
void ringfd_proto_detach_ring_fds(const struct ringfd_proto_setup *s, const int *fds)
{
	unsigned int i;

	for (i = 0; i < 2 * s->nqp; i++)
		if (vringfd_detach(fds[i]) < 0 && errno != ENOENT)
			log_warn_errno(errno, "ring-fd: passed ring %u: VRINGFD_DETACH", i);
}

/**
 * ringfd_proto_check_eventfds() - the kick and call fds are eventfds
 * @s: a decoded SETUP
 * @fds: all its fds (the eventfds from ringfd_proto_evfd_base() on)
 * @err: reason
 * @errlen: its size
 *
 * Return: 0 or -EBADF.
 */
int ringfd_proto_check_eventfds(const struct ringfd_proto_setup *s, const int *fds,
			char *err, size_t errlen)
{
	static const char *const what[4] = { "tx kick", "tx call", "rx kick", "rx call" };
	unsigned int base = ringfd_proto_evfd_base(s), i;
	char link[256];

	for (i = base; i < ringfd_proto_nfds(s); i++) {
		if (ringfd_proto_fd_link(fds[i], link, sizeof(link)) < 0 ||
		    strcmp(link, "anon_inode:[eventfd]"))
			return ringfd_proto_fail(err, errlen, -EBADF,
					"fd %u (queue pair %u %s) is not an eventfd",
					i, (i - base) / 4, what[(i - base) % 4]);
	}
	return 0;
}

/**
 * ringfd_proto_close_fds() - close received fds
 * @fds: the fds
 * @nfds: their count
 */
void ringfd_proto_close_fds(int *fds, unsigned int nfds)
{
	unsigned int i;

	for (i = 0; i < nfds; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

/**
 * ringfd_proto_recv() - receive one message and its fds
 * @sock: the connection (SOCK_SEQPACKET)
 * @buf: message buffer
 * @len: its size (RINGFD_PROTO_MAX_MSG is enough for any valid SETUP)
 * @fds: RINGFD_PROTO_MAX_FDS entries; the fds received
 * @nfds: their count
 * @err: reason on failure
 * @errlen: its size
 *
 * A message longer than @len or with more than RINGFD_PROTO_MAX_FDS fds is an error
 * (the fds that came are closed; the kernel closes those that did not fit).
 * Return: the message length, 0 on hang-up, -EAGAIN, or a negative errno
 * with @err (-EMSGSIZE truncated message, -EBADF too many fds, or recvmsg's).
 */
ssize_t ringfd_proto_recv(int sock, void *buf, size_t len, int *fds, unsigned int *nfds,
		 char *err, size_t errlen)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(RINGFD_PROTO_MAX_FDS * sizeof(int))];
	} cb;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cb.b, .msg_controllen = sizeof(cb.b),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*nfds = 0;
	memset(cb.b, 0, sizeof(cb.b));
	n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return -EAGAIN;
		return log_buf_errno(err, errlen, errno, "recvmsg");
	}
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		unsigned int k, cnt;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		cnt = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (k = 0; k < cnt; k++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + k * sizeof(int), sizeof(fd));
			if (*nfds < RINGFD_PROTO_MAX_FDS)
				fds[(*nfds)++] = fd;
			else
				close(fd);
		}
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		ringfd_proto_close_fds(fds, *nfds);
		*nfds = 0;
		return ringfd_proto_fail(err, errlen, -EBADF, "more than %u fds (all closed)",
				RINGFD_PROTO_MAX_FDS);
	}
	if (mh.msg_flags & MSG_TRUNC) {
		ringfd_proto_close_fds(fds, *nfds);
		*nfds = 0;
		return ringfd_proto_fail(err, errlen, -EMSGSIZE, "message longer than %zu bytes", len);
	}
	return n;
}

/**
 * ringfd_proto_make_reply() - fill a reply
 * @r: the reply
 * @error: 0 (OK) or a positive errno
 * @features: OK: the features served
 * @text: reason or engine name (truncated to fit)
 */
void ringfd_proto_make_reply(struct vringnet_rfd_reply *r, int error, uint64_t features,
		    const char *text)
{
	memset(r, 0, sizeof(*r));
	r->hdr.magic = VRINGNET_RFD_MAGIC;
	r->hdr.version = VRINGNET_RFD_VERSION;
	r->hdr.size = sizeof(*r);
	r->hdr.type = error ? VRINGNET_RFD_ERROR : VRINGNET_RFD_OK;
	r->error = error;
	r->features = error ? 0 : features;
	snprintf(r->text, sizeof(r->text), "%s", text ? text : "");
}

/**
 * ringfd_proto_send_reply() - send a reply
 * @sock: the connection
 * @error: 0 or a positive errno
 * @features: as for ringfd_proto_make_reply()
 * @text: as for ringfd_proto_make_reply()
 *
 * Return: 0 or -errno of send().
 */
int ringfd_proto_send_reply(int sock, int error, uint64_t features, const char *text)
{
	struct vringnet_rfd_reply r;

	ringfd_proto_make_reply(&r, error, features, text);
	if (send(sock, &r, sizeof(r), MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(r))
		return -errno;
	return 0;
}
