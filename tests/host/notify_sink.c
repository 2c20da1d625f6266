// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * notify_sink.c - a NOTIFY_SOCKET for tests: print what sd_notify() sends
 *
 * Usage: notify_sink PATH SECONDS [--hold-fds]
 * Binds an AF_UNIX SOCK_DGRAM socket at PATH, prints every assignment of
 * every datagram on its own line (flushed), and exits 0 after SECONDS or on
 * SIGTERM; removes PATH on exit.
 *
 * The fds a message carries (FDSTORE=1, BARRIER=1) are closed as it is
 * read, unless --hold-fds: then every one stays open until the sink exits,
 * as systemd's fd store holds them until the next instance (FDSTOREREMOVE=1
 * is not honoured: nothing is closed before the exit), and a line
 * "# held N fds" follows the assignments of a message that carried N.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* sd_notify() sends at most SCM_MAX_FD (253) fds per message */
#define SINK_MAX_FDS	253

static volatile sig_atomic_t sink_stop;

/**
 * sink_on_term() - SIGTERM handler
 * @sig: unused
 */
static void sink_on_term(int sig)
{
	sink_stop = 1;
}

/**
 * sink_fds_held() - count the fds a received message carried (kept open)
 * @msg: the received message
 *
 * Return: the number of fds in its SCM_RIGHTS control messages.
 */
static unsigned int sink_fds_held(struct msghdr *msg)
{
	struct cmsghdr *cm;
	unsigned int n = 0;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
			n += (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
	return n;
}

/**
 * main() - bind, print, exit
 * @argc: 3 or 4
 * @argv: PATH SECONDS [--hold-fds]
 *
 * Return: 0, 1 on a setup error, 2 on usage.
 */
int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	union {
		char buf[CMSG_SPACE(SINK_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char buf[4097];
	bool hold;
	time_t end;
	int fd;

	hold = argc == 4 && !strcmp(argv[3], "--hold-fds");
	if ((argc != 3 && !hold) || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_sink PATH SECONDS [--hold-fds]\n");
		return 2;
	}
	signal(SIGTERM, sink_on_term);
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "notify_sink: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	end = time(NULL) + atoi(argv[2]);
	while (!sink_stop && time(NULL) < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
		struct msghdr msg = {
			.msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = hold ? ctl.buf : NULL,
			.msg_controllen = hold ? sizeof(ctl.buf) : 0,
		};
		unsigned int held;
		char *line, *save;
		ssize_t n;

		if (poll(&p, 1, 200) <= 0)
			continue;
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("%s\n", line);
		held = hold ? sink_fds_held(&msg) : 0;
		if (held)
			printf("# held %u fds\n", held);
		fflush(stdout);
	}
	unlink(argv[1]);
	return 0;
}
