// SPDX-License-Identifier: GPL-2.0
/*
 * ringfd_msg.c - a test client's side of the ring-fd protocol (see
 * ringfd_msg.h)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <vringfd.h>

#include "ringfd_msg.h"

/**
 * ringfd_msg_send() - connect to a ring-fd port and send one message
 * @path: the port's socket (SOCK_SEQPACKET)
 * @msg: the bytes
 * @len: their count
 * @fds: fds sent with it (SCM_RIGHTS), in this order
 * @nfds: their count, at most RINGFD_MSG_MAX_FDS (0: none)
 *
 * Return: the connected socket, or -1 with errno set (the failing call's,
 * EINVAL for too many fds).
 */
int ringfd_msg_send(const char *path, const void *msg, size_t len, const int *fds,
		    unsigned int nfds)
{
	char cb[CMSG_SPACE(RINGFD_MSG_MAX_FDS * sizeof(int))];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int s, e;

	if (nfds > RINGFD_MSG_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		goto fail;
	if (nfds) {
		memset(cb, 0, sizeof(cb));
		mh.msg_control = cb;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	if (sendmsg(s, &mh, MSG_NOSIGNAL) < 0)
		goto fail;
	return s;
fail:
	e = errno;
	close(s);
	errno = e;
	return -1;
}

/**
 * ringfd_msg_reply() - wait (5 s at most) for the daemon's answer
 * @s: the socket
 * @text: the answer's text (out)
 * @len: size of @text
 *
 * Return: 0 for OK, the positive errno of an ERROR, -1 for no answer or
 * a malformed one.
 */
int ringfd_msg_reply(int s, char *text, size_t len)
{
	struct vringnet_rfd_reply r;
	struct pollfd p = { .fd = s, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 5000) != 1)
		return -1;
	n = recv(s, &r, sizeof(r), 0);
	if (n != (ssize_t)sizeof(r) || r.hdr.magic != VRINGNET_RFD_MAGIC)
		return -1;
	r.text[sizeof(r.text) - 1] = '\0';
	snprintf(text, len, "%s", r.text);
	return r.hdr.type == VRINGNET_RFD_OK ? 0 : (int)r.error;
}
