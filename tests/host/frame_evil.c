// SPDX-License-Identifier: GPL-2.0
/*
 * frame_evil.c - malformed frames for a running vringnetd's stream/dgram port
 *
 * Usage: frame_evil stream SOCKET   (prints PASS/FAIL lines, exit 0 iff all pass)
 *        frame_evil dgram SOCKET [FROM]  (sends a zero-length, a 70000-byte
 *                                    and a 5-byte datagram, from an unbound
 *                                    socket or one bound at FROM, a stale
 *                                    file there removed first; the caller
 *                                    checks the port's drop counters)
 *        frame_evil stream-send SOCKET N   (N good 1000-byte frames, in
 *                                    writes that split frames anywhere; the
 *                                    caller counts them on the tap)
 *
 * Stream cases, each on a new connection: a length prefix of 0 and one of
 * 65536 must make the daemon close the connection; a peer hanging up in the
 * middle of a frame must leave the port serving the next peer.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/result.h"

/**
 * fe_connect() - connect to a unix socket
 * @path: where
 * @type: SOCK_STREAM or SOCK_DGRAM
 *
 * Return: the socket or -1.
 */
static int fe_connect(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/**
 * fe_expect_closed() - the daemon must close this connection
 * @fd: connection (closed here)
 * @name: test name
 */
static void fe_expect_closed(int fd, const char *name)
{
	char buf[256];
	ssize_t n;

	/* frames from the tap may arrive first: skip them until EOF */
	do
		n = recv(fd, buf, sizeof(buf), 0);
	while (n > 0);
	if (n == 0)
		result_pass(name);
	else
		result_fail(name, "connection not closed (%s)", strerror(errno));
	close(fd);
}

/**
 * fe_stream() - the stream cases
 * @path: the port's socket
 */
static void fe_stream(const char *path)
{
	static const uint8_t zero[4] = { 0, 0, 0, 0 };
	static const uint8_t big[4] = { 0, 1, 0, 0 };
	static const uint8_t partial[10] = { 0, 0, 0, 60, 1, 2, 3, 4, 5, 6 };
	struct timeval tv = { .tv_usec = 300000 };
	ssize_t n;
	char c;
	int fd;

	fd = fe_connect(path, SOCK_STREAM);
	if (fd < 0 || send(fd, zero, 4, MSG_NOSIGNAL) != 4) {
		result_fail("stream_zero_length", "cannot connect/send");
	} else {
		fe_expect_closed(fd, "stream_zero_length");
	}
	usleep(100000);
	fd = fe_connect(path, SOCK_STREAM);
	if (fd < 0 || send(fd, big, 4, MSG_NOSIGNAL) != 4) {
		result_fail("stream_length_65536", "cannot connect/send");
	} else {
		fe_expect_closed(fd, "stream_length_65536");
	}
	usleep(100000);
	fd = fe_connect(path, SOCK_STREAM);
	if (fd < 0 || send(fd, partial, sizeof(partial), MSG_NOSIGNAL) != sizeof(partial)) {
		result_fail("stream_hangup_mid_frame", "cannot connect/send");
		return;
	}
	close(fd);
	usleep(200000);
	/* the next peer is served: its connection stays open */
	fd = fe_connect(path, SOCK_STREAM);
	if (fd < 0) {
		result_fail("stream_hangup_mid_frame", "next peer cannot connect");
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, &c, 1, MSG_PEEK);
	/* served: nothing yet, or frames from the tap already; not EOF */
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))) {
		result_pass("stream_hangup_mid_frame");
	} else {
		result_fail("stream_hangup_mid_frame", "next peer not served");
	}
	close(fd);
}

/**
 * fe_dgram() - send the broken datagrams
 * @path: the port's socket
 * @from: address to send from (the port's peer), or NULL for none
 */
static void fe_dgram(const char *path, const char *from)
{
	static uint8_t big[70000];
	struct sockaddr_un to = { .sun_family = AF_UNIX }, me = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), sz = 1 << 20;

	snprintf(to.sun_path, sizeof(to.sun_path), "%s", path);
	if (fd >= 0 && from) {
		snprintf(me.sun_path, sizeof(me.sun_path), "%s", from);
		unlink(from);
		if (bind(fd, (struct sockaddr *)&me, sizeof(me)) < 0) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0 && connect(fd, (struct sockaddr *)&to, sizeof(to)) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		result_fail("dgram_send", "cannot connect to %s: %s", path,
		       strerror(errno));
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	if (send(fd, big, 0, 0) != 0 || send(fd, big, sizeof(big), 0) != sizeof(big) ||
	    send(fd, big, 5, 0) != 5) {
		result_fail("dgram_send", "%s", strerror(errno));
	}
	close(fd);
	if (from)
		unlink(from);
}

/**
 * fe_stream_send() - send @n good frames in odd-sized writes
 * @path: the port's socket
 * @n: frames
 *
 * Return: 0, or 1 on a send error.
 */
static int fe_stream_send(const char *path, unsigned long n)
{
	static uint8_t buf[1004 * 64];
	size_t len = 0, off, chunk;
	unsigned long i;
	int fd = fe_connect(path, SOCK_STREAM);

	if (fd < 0) {
		fprintf(stderr, "frame_evil: connect %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint8_t *f = buf + len;

		f[0] = 0;
		f[1] = 0;
		f[2] = 1000 >> 8;
		f[3] = 1000 & 0xff;
		memset(f + 4, 0xff, 6);
		memcpy(f + 10, "\x52\x54\x00\x99\x99\x98\x88\xb5", 8);
		memset(f + 18, (int)(i & 0xff), 1000 - 14);
		len += 1004;
		if (len == sizeof(buf) || i + 1 == n) {
			/* odd chunks: length prefixes and frames split across writes */
			for (off = 0; off < len; off += chunk) {
				chunk = 777 + (off % 5000);
				if (chunk > len - off)
					chunk = len - off;
				if (send(fd, buf + off, chunk, MSG_NOSIGNAL) != (ssize_t)chunk) {
					fprintf(stderr, "frame_evil: send: %s\n", strerror(errno));
					close(fd);
					return 1;
				}
			}
			len = 0;
		}
	}
	usleep(300000);
	close(fd);
	return 0;
}

/**
 * main() - run the cases of one port type
 * @argc: 3 or 4
 * @argv: program, "stream", "dgram" or "stream-send", socket path,
 *	[count (stream-send) or sender address (dgram)]
 *
 * Return: 0 iff every case passed.
 */
int main(int argc, char **argv)
{
	result_set_prefix("frame_evil/");
	if (argc == 4 && !strcmp(argv[1], "stream-send"))
		return fe_stream_send(argv[2], strtoul(argv[3], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "dgram")) {
		fe_dgram(argv[2], argv[3]);
		return result_exit_status();
	}
	if (argc != 3 || (strcmp(argv[1], "stream") && strcmp(argv[1], "dgram"))) {
		fprintf(stderr, "usage: %s stream|dgram SOCKET | dgram SOCKET FROM | stream-send SOCKET N\n",
			argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "stream"))
		fe_stream(argv[2]);
	else
		fe_dgram(argv[2], NULL);
	return result_exit_status();
}
