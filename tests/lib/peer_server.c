// SPDX-License-Identifier: GPL-2.0
/*
 * peer_server.c - the server side of a test peer (see peer_server.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "peer_server.h"

/**
 * peer_server_accept() - listen at a path and take one connection
 * @path: the socket path (an old socket there is removed first)
 * @listen_fd: out: the listener, non-blocking, left open for
 *	peer_server_more()
 * @timeout_ms: how long to wait for the connection
 *
 * Return: the connection (blocking, close-on-exec), or -1 with errno set
 * (ETIMEDOUT when nobody connected in time).
 */
int peer_server_accept(const char *path, int *listen_fd, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd = { .events = POLLIN };
	int r;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	*listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (*listen_fd < 0)
		return -1;
	if (bind(*listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(*listen_fd, 8) < 0)
		return -1;
	pfd.fd = *listen_fd;
	do
		r = poll(&pfd, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		if (!r)
			errno = ETIMEDOUT;
		return -1;
	}
	return accept4(*listen_fd, NULL, NULL, SOCK_CLOEXEC);
}

/**
 * peer_server_more() - connections made after the first one
 * @listen_fd: the listener of peer_server_accept()
 *
 * Each waiting connection is accepted and closed.
 *
 * Return: how many there were.
 */
int peer_server_more(int listen_fd)
{
	int n = 0, c;

	while ((c = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(c);
		n++;
	}
	return n;
}
