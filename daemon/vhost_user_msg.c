// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vhost_user_msg.c - framing and checking of vhost-user messages
 *
 * Bad input and the answer it gets (every case returns -errno with a message
 * in @err; the caller closes the connection):
 *   header version != 1, unknown flag bits, REPLY set   -EPROTO
 *   payload size > VUM_MAX_PAYLOAD                      -EMSGSIZE
 *   more than VUM_MAX_FDS fds, or a truncated cmsg      -E2BIG (fds closed)
 *   peer closes mid-message                             -EPIPE
 *   peer closes between messages                        -ENOTCONN
 *   payload size not what the request takes             -EBADMSG    (vhost_user_msg_check_size)
 *   fd missing, or an fd the request does not take      -EBADF      (vhost_user_msg_check_fds)
 * What each request takes is vhost_user.c's table of requests, which also
 * refuses requests it does not serve (-EOPNOTSUPP).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "vhost_user_msg.h"

static const char *const vhost_user_msg_names[VUM_REQUEST_MAX] = {
	[VUM_GET_FEATURES] = "GET_FEATURES",
	[VUM_SET_FEATURES] = "SET_FEATURES",
	[VUM_SET_OWNER] = "SET_OWNER",
	[VUM_RESET_OWNER] = "RESET_OWNER",
	[VUM_SET_MEM_TABLE] = "SET_MEM_TABLE",
	[VUM_SET_LOG_BASE] = "SET_LOG_BASE",
	[VUM_SET_LOG_FD] = "SET_LOG_FD",
	[VUM_SET_VRING_NUM] = "SET_VRING_NUM",
	[VUM_SET_VRING_ADDR] = "SET_VRING_ADDR",
	[VUM_SET_VRING_BASE] = "SET_VRING_BASE",
	[VUM_GET_VRING_BASE] = "GET_VRING_BASE",
	[VUM_SET_VRING_KICK] = "SET_VRING_KICK",
	[VUM_SET_VRING_CALL] = "SET_VRING_CALL",
	[VUM_SET_VRING_ERR] = "SET_VRING_ERR",
	[VUM_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
	[VUM_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
	[VUM_GET_QUEUE_NUM] = "GET_QUEUE_NUM",
	[VUM_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
	[VUM_SEND_RARP] = "SEND_RARP",
	[VUM_NET_SET_MTU] = "NET_SET_MTU",
	[VUM_SET_BACKEND_REQ_FD] = "SET_BACKEND_REQ_FD",
	[VUM_IOTLB_MSG] = "IOTLB_MSG",
	[VUM_SET_VRING_ENDIAN] = "SET_VRING_ENDIAN",
	[VUM_GET_CONFIG] = "GET_CONFIG",
	[VUM_SET_CONFIG] = "SET_CONFIG",
	[VUM_RESET_DEVICE] = "RESET_DEVICE",
	[VUM_GET_MAX_MEM_SLOTS] = "GET_MAX_MEM_SLOTS",
	[VUM_ADD_MEM_REG] = "ADD_MEM_REG",
	[VUM_REM_MEM_REG] = "REM_MEM_REG",
	[VUM_SET_STATUS] = "SET_STATUS",
	[VUM_GET_STATUS] = "GET_STATUS",
};

/**
 * vhost_user_msg_request_name() - printable name of a request
 * @request: request number from a header
 *
 * Return: "SET_MEM_TABLE" etc., or "UNKNOWN" for numbers we do not know.
 */
const char *vhost_user_msg_request_name(uint32_t request)
{
	if (request < VUM_REQUEST_MAX && vhost_user_msg_names[request])
		return vhost_user_msg_names[request];
	return "UNKNOWN";
}

/**
 * vhost_user_msg_fail() - format an error message and return an error code
 * @err: buffer for the message (may be NULL)
 * @errlen: its size
 * @ret: negative errno to return
 * @fmt: printf format
 *
 * Return: @ret.
 */
static int __attribute__((format(printf, 4, 5)))
vhost_user_msg_fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/**
 * vhost_user_msg_rx_init() - prepare a receiver for a new connection
 * @rx: receiver state
 */
void vhost_user_msg_rx_init(struct vhost_user_msg_rx *rx)
{
	memset(&rx->msg.hdr, 0, sizeof(rx->msg.hdr));
	rx->msg.nfds = 0;
	rx->got = 0;
}

/**
 * vhost_user_msg_close_fds() - close every fd still owned by a message
 * @msg: the message
 */
void vhost_user_msg_close_fds(struct vhost_user_msg *msg)
{
	unsigned int i;

	for (i = 0; i < msg->nfds; i++)
		if (msg->fds[i] >= 0)
			close(msg->fds[i]);
	msg->nfds = 0;
}

/**
 * vhost_user_msg_take_fd() - take ownership of one fd of a message
 * @msg: the message
 * @i: index in @msg->fds
 *
 * Return: the fd (the caller now closes it), or -1 if there is none.
 */
int vhost_user_msg_take_fd(struct vhost_user_msg *msg, unsigned int i)
{
	int fd;

	if (i >= msg->nfds)
		return -1;
	fd = msg->fds[i];
	msg->fds[i] = -1;
	return fd;
}

/**
 * vhost_user_msg_rx_reset() - forget the current message, closing fds nobody took
 * @rx: receiver state
 */
void vhost_user_msg_rx_reset(struct vhost_user_msg_rx *rx)
{
	vhost_user_msg_close_fds(&rx->msg);
	vhost_user_msg_rx_init(rx);
}

/**
 * vhost_user_msg_check_hdr() - validate a header as soon as it is complete
 * @hdr: the header
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -EPROTO / -EMSGSIZE.
 */
static int vhost_user_msg_check_hdr(const struct vhost_user_msg_hdr *hdr, char *err, size_t errlen)
{
	if ((hdr->flags & VUM_VERSION_MASK) != VUM_VERSION)
		return vhost_user_msg_fail(err, errlen, -EPROTO,
				"%s: protocol version %u, only version 1 is spoken",
				vhost_user_msg_request_name(hdr->request), hdr->flags & VUM_VERSION_MASK);
	if (hdr->flags & ~VUM_FLAGS_KNOWN)
		return vhost_user_msg_fail(err, errlen, -EPROTO, "%s: unknown header flags 0x%x",
				vhost_user_msg_request_name(hdr->request), hdr->flags & ~VUM_FLAGS_KNOWN);
	if (hdr->flags & VUM_FLAG_REPLY)
		return vhost_user_msg_fail(err, errlen, -EPROTO,
				"%s: a reply sent to the back-end", vhost_user_msg_request_name(hdr->request));
	if (hdr->size > VUM_MAX_PAYLOAD)
		return vhost_user_msg_fail(err, errlen, -EMSGSIZE, "%s: payload of %u bytes (at most %u)",
				vhost_user_msg_request_name(hdr->request), hdr->size, VUM_MAX_PAYLOAD);
	return 0;
}

/**
 * vhost_user_msg_collect_fds() - move the SCM_RIGHTS fds of one recvmsg() into a message
 * @m: the message being assembled
 * @mh: what recvmsg() filled
 *
 * Return: 0, or -E2BIG when more fds came than a message may carry (the
 * surplus is closed at once; the rest when the message is reset).
 */
static int vhost_user_msg_collect_fds(struct vhost_user_msg *m, struct msghdr *mh)
{
	struct cmsghdr *c;
	int ret = 0;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t i, n;
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (m->nfds < VUM_MAX_FDS) {
				m->fds[m->nfds++] = fd;
			} else {
				close(fd);
				ret = -E2BIG;
			}
		}
	}
	return ret;
}

/**
 * vhost_user_msg_recv() - read (more of) one message from a non-blocking stream socket
 * @fd: the connection
 * @rx: receiver state; the message is in @rx->msg when 1 is returned
 * @err: buffer for an error message
 * @errlen: its size
 *
 * Reads only what the current message still lacks, so a message that
 * arrives in pieces is assembled over several calls and the next message
 * stays in the socket.  After a return of 1 (or an error) the caller calls
 * vhost_user_msg_rx_reset() once it is done with the message.
 *
 * Return: 1 when a whole message is ready, 0 when the socket has no more
 * bytes for now, or a negative errno (see the table at the top of the file).
 */
int vhost_user_msg_recv(int fd, struct vhost_user_msg_rx *rx, char *err, size_t errlen)
{
	struct vhost_user_msg *m = &rx->msg;
	union {
		char buf[CMSG_SPACE(sizeof(int) * VUM_MAX_FDS)];
		struct cmsghdr align;
	} ctl;

	for (;;) {
		struct msghdr mh = { 0 };
		struct iovec iov;
		size_t want;
		ssize_t n;
		int ret;

		if (rx->got < VUM_HDR_SIZE) {
			iov.iov_base = (uint8_t *)&m->hdr + rx->got;
			want = VUM_HDR_SIZE - rx->got;
		} else {
			want = VUM_HDR_SIZE + m->hdr.size - rx->got;
			if (!want)
				return 1;
			iov.iov_base = m->payload.raw + (rx->got - VUM_HDR_SIZE);
		}
		iov.iov_len = want;
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);

		n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return log_buf_errno(err, errlen, errno, "receiving a message");
		}
		ret = vhost_user_msg_collect_fds(m, &mh);
		if (ret < 0 || (mh.msg_flags & MSG_CTRUNC))
			return vhost_user_msg_fail(err, errlen, -E2BIG,
					"more than %u file descriptors with one message",
					VUM_MAX_FDS);
		if (n == 0) {
			if (rx->got == 0 && m->nfds == 0)
				return vhost_user_msg_fail(err, errlen, -ENOTCONN,
						"front-end closed the connection");
			return vhost_user_msg_fail(err, errlen, -EPIPE,
					"front-end closed the connection in the middle of a message (%zu bytes received)",
					rx->got);
		}
		rx->got += (size_t)n;
		if (rx->got == VUM_HDR_SIZE) {
			ret = vhost_user_msg_check_hdr(&m->hdr, err, errlen);
			if (ret < 0)
				return ret;
		}
	}
}

/**
 * vhost_user_msg_check_size() - compare a complete message's payload size with its request's
 * @msg: the message
 * @size: the bytes its request takes (vhost_user.c's table knows it)
 * @err: buffer for an error message
 * @errlen: its size
 *
 * Return: 0, or -EBADMSG for a payload of another size.
 */
int vhost_user_msg_check_size(const struct vhost_user_msg *msg, uint32_t size, char *err, size_t errlen)
{
	if (msg->hdr.size != size)
		return vhost_user_msg_fail(err, errlen, -EBADMSG,
				"%s: payload of %u bytes, the request takes %u",
				vhost_user_msg_request_name(msg->hdr.request), msg->hdr.size, size);
	return 0;
}

/**
 * vhost_user_msg_check_fds() - compare a complete message's fd count with its request's
 * @msg: the message
 * @nfds: the fds its request takes
 * @err: buffer for an error message
 * @errlen: its size
 *
 * Return: 0, or -EBADF for fds missing or unexpected.
 */
int vhost_user_msg_check_fds(const struct vhost_user_msg *msg, unsigned int nfds, char *err, size_t errlen)
{
	const char *name = vhost_user_msg_request_name(msg->hdr.request);

	if (msg->nfds < nfds)
		return vhost_user_msg_fail(err, errlen, -EBADF,
				"%s: %u file descriptors missing (got %u, takes %u)",
				name, nfds - msg->nfds, msg->nfds, nfds);
	if (msg->nfds > nfds)
		return vhost_user_msg_fail(err, errlen, -EBADF,
				"%s: %u unexpected file descriptors (got %u, takes %u)",
				name, msg->nfds - nfds, msg->nfds, nfds);
	return 0;
}

/**
 * vhost_user_msg_send() - send a reply
 * @fd: the connection
 * @request: request being answered
 * @payload: reply payload
 * @size: its size (<= VUM_MAX_PAYLOAD)
 * @err: buffer for an error message
 * @errlen: its size
 *
 * A front-end that does not read its replies fills the socket; the reply is
 * then not queued but reported as an error, so the daemon never blocks.
 *
 * Return: 0, or a negative errno.
 */
int vhost_user_msg_send(int fd, uint32_t request, const void *payload, uint32_t size,
	     char *err, size_t errlen)
{
	struct vhost_user_msg_hdr hdr = {
		.request = request,
		.flags = VUM_VERSION | VUM_FLAG_REPLY,
		.size = size,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = size },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = size ? 2 : 1 };
	ssize_t n;

	if (size > VUM_MAX_PAYLOAD)
		return vhost_user_msg_fail(err, errlen, -EMSGSIZE, "reply to %s too large",
				vhost_user_msg_request_name(request));
	do {
		n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return log_buf_errno(err, errlen, errno, "sending the reply to %s",
				     vhost_user_msg_request_name(request));
	if ((size_t)n != sizeof(hdr) + size)
		return vhost_user_msg_fail(err, errlen, -EAGAIN,
				"sending the reply to %s: front-end not reading (short write)",
				vhost_user_msg_request_name(request));
	return 0;
}
