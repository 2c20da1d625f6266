// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctl_raw.c - raw client of vringnetd's control socket, for bad-input tests
 *
 * Usage:
 *   ctl_raw SOCKET send TEXT      send TEXT (\n escapes) as one message, print the reply
 *   ctl_raw SOCKET empty          send an empty message, print the reply or "closed"
 *   ctl_raw SOCKET oversize N     send N bytes of 'a', print the reply
 *   ctl_raw SOCKET flood N        send N requests without reading; print
 *                                 "dropped" if the daemon closed us, else "kept"
 *   ctl_raw SOCKET stall SECONDS  connect and send nothing for SECONDS
 *   ctl_raw SOCKET noread SECONDS send requests, never read replies, for SECONDS;
 *                                 print "dropped" or "kept"
 * Exit 0 when the exchange happened, 1 on a connection error.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/**
 * raw_connect() - connect to the control socket
 * @path: socket path
 *
 * Return: fd, or -1 (message printed).
 */
static int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "ctl_raw: connect %s: %s\n", path, strerror(errno));
		return -1;
	}
	return fd;
}

/**
 * raw_reply() - wait up to 5 s for one reply and print it
 * @fd: connection
 *
 * Return: 0 when a reply (or an orderly close, printed "closed") came.
 */
static int raw_reply(int fd)
{
	static char buf[262144];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, 5000) <= 0) {
		printf("timeout\n");
		return 1;
	}
	n = recv(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0) {
		printf("closed\n");
		return 0;
	}
	buf[n] = '\0';
	fputs(buf, stdout);
	return 0;
}

/**
 * raw_send_failed() - report a failed send: "closed" when the daemon hung up
 *
 * Return: 0 for a hang-up (EPIPE, ECONNRESET), else 1.
 */
static int raw_send_failed(void)
{
	if (errno == EPIPE || errno == ECONNRESET) {
		printf("closed\n");
		return 0;
	}
	fprintf(stderr, "ctl_raw: send: %s\n", strerror(errno));
	return 1;
}

/**
 * raw_unescape() - turn "\n" sequences into newlines, in place
 * @s: the text
 *
 * Return: its new length.
 */
static size_t raw_unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] == 'n') {
			*w++ = '\n';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/**
 * raw_closed() - whether the daemon closed the connection (within 3 s)
 * @fd: connection
 *
 * Return: true if recv() saw EOF/reset after draining replies.
 */
static int raw_closed(int fd)
{
	static char buf[262144];
	time_t end = time(NULL) + 3;

	while (time(NULL) <= end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 500) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 1;
	}
	return 0;
}

/**
 * main() - run one exchange
 * @argc: 3 or 4
 * @argv: SOCKET MODE [ARG]
 *
 * Return: 0 or 1.
 */
int main(int argc, char **argv)
{
	static const char req[] = "status version=1\n";
	int fd, i, n;
	char *big;

	if (argc < 3) {
		fprintf(stderr, "usage: ctl_raw SOCKET send|empty|oversize|flood|stall|noread [ARG]\n");
		return 2;
	}
	fd = raw_connect(argv[1]);
	if (fd < 0)
		return 1;
	n = argc > 3 ? atoi(argv[3]) : 0;
	if (!strcmp(argv[2], "send") && argc > 3) {
		size_t len = raw_unescape(argv[3]);

		if (send(fd, argv[3], len, MSG_NOSIGNAL) < 0)
			return raw_send_failed();
		return raw_reply(fd);
	}
	if (!strcmp(argv[2], "empty")) {
		if (send(fd, "", 0, MSG_NOSIGNAL) < 0)
			return raw_send_failed();
		return raw_reply(fd);
	}
	if (!strcmp(argv[2], "oversize")) {
		big = malloc((size_t)n);
		if (!big)
			return 1;
		memset(big, 'a', (size_t)n);
		if (send(fd, big, (size_t)n, MSG_NOSIGNAL) < 0)
			return raw_send_failed();
		free(big);
		return raw_reply(fd);
	}
	if (!strcmp(argv[2], "flood")) {
		for (i = 0; i < n; i++)
			if (send(fd, req, sizeof(req) - 1, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
			    errno != EAGAIN)
				break;
		printf("%s\n", raw_closed(fd) ? "dropped" : "kept");
		return 0;
	}
	if (!strcmp(argv[2], "stall")) {
		sleep((unsigned int)n);
		return 0;
	}
	if (!strcmp(argv[2], "noread")) {
		time_t end = time(NULL) + n;
		int closed = 0;

		while (time(NULL) < end && !closed) {
			if (send(fd, "list version=1\n", 15, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
				if (errno == EPIPE || errno == ECONNRESET)
					closed = 1;
				else
					usleep(10000);
			}
			usleep(2000);
		}
		printf("%s\n", closed ? "dropped" : "kept");
		return 0;
	}
	fprintf(stderr, "ctl_raw: unknown mode %s\n", argv[2]);
	return 2;
}
