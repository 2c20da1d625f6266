// SPDX-License-Identifier: GPL-2.0
/*
 * vhost_user_evil.c - a malicious vhost-user front-end for a running vringnetd
 *
 * Usage: vhost_user_evil SOCKET
 *
 * Each case opens a new connection to the port's socket, sends one broken
 * message sequence and checks the answer: a REPLY_ACK of 1 where the request
 * asked for one, then the connection closed by the daemon.  One line per
 * case: "PASS: vhost_user_evil/NAME" or "FAIL: vhost_user_evil/NAME: why".
 * The kick, call and err cases pass a regular file where an eventfd belongs
 * and check afterwards that nothing was written to it.
 * Exits 0 iff every case passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "vhost_user_msg.h"
#include "lib/result.h"

static const char *ev_path;

/**
 * ev_connect() - a new connection to the port
 *
 * Return: the socket, or -1.
 */
static int ev_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ev_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/**
 * ev_send() - send one message with fds
 * @fd: connection
 * @req: request
 * @flags: flags (the version is added unless @raw)
 * @raw: send @flags as they are
 * @payload: payload
 * @size: size written in the header
 * @len: payload bytes actually sent
 * @fds: fds
 * @nfds: count
 *
 * Return: 0 or -1.
 */
static int ev_send(int fd, uint32_t req, uint32_t flags, bool raw, const void *payload,
		   uint32_t size, size_t len, const int *fds, unsigned int nfds)
{
	struct vhost_user_msg_hdr h = { .request = req, .flags = raw ? flags : flags | VUM_VERSION,
			     .size = size };
	char ctl[CMSG_SPACE(sizeof(int) * 16)];
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

	if (nfds) {
		struct cmsghdr *c;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)(sizeof(h) + len) ? 0 : -1;
}

/**
 * ev_expect() - read the daemon's answer: optional ack, then EOF
 * @fd: connection (closed here)
 * @name: case name
 * @ack: a REPLY_ACK with status 1 must come first
 */
static void ev_expect(int fd, const char *name, bool ack)
{
	struct vhost_user_msg_hdr h;
	uint64_t status;
	char c;
	ssize_t n;

	if (ack) {
		n = recv(fd, &h, sizeof(h), MSG_WAITALL);
		if (n != sizeof(h) || !(h.flags & VUM_FLAG_REPLY) || h.size != 8 ||
		    recv(fd, &status, 8, MSG_WAITALL) != 8) {
			result_fail(name, "no REPLY_ACK (recv %zd: %s)", n,
			       n < 0 ? strerror(errno) : "short");
			close(fd);
			return;
		}
		if (status != 1) {
			result_fail(name, "REPLY_ACK status %llu, want 1", (unsigned long long)status);
			close(fd);
			return;
		}
	}
	n = recv(fd, &c, 1, 0);
	if (n == 0)
		result_pass(name);
	else {
		result_fail(name, "connection not closed (recv %zd%s%s)", n,
			    n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
	}
	close(fd);
}

/**
 * ev_ack_on() - negotiate REPLY_ACK on a fresh connection
 * @fd: connection
 *
 * Return: 0 or -1.
 */
static int ev_ack_on(int fd)
{
	uint64_t pf = (1ULL << VUM_PROTOCOL_F_REPLY_ACK) | (1ULL << VUM_PROTOCOL_F_MQ);

	return ev_send(fd, VUM_SET_PROTOCOL_FEATURES, 0, false, &pf, 8, 8, NULL, 0);
}

/**
 * ev_case_start() - connect for a case
 * @name: case name (for the failure line)
 * @ack: negotiate REPLY_ACK
 *
 * Return: the socket, or -1 after printing the failure.
 */
static int ev_case_start(const char *name, bool ack)
{
	int fd;

	/* let the daemon see a connection this side closed before the next */
	usleep(100000);
	fd = ev_connect();

	if (fd < 0 || (ack && ev_ack_on(fd) < 0)) {
		result_fail(name, "cannot connect to %s: %s", ev_path,
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/**
 * main() - run every case
 * @argc: 2
 * @argv: program, socket path
 *
 * Return: 0 iff every case passed.
 */
int main(int argc, char **argv)
{
	struct vhost_user_msg_mem mem;
	struct vhost_user_msg_vring_state st;
	uint64_t v;
	int fd, memfd, fds[VUM_MAX_FDS + 1], i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SOCKET\n", argv[0]);
		return 2;
	}
	ev_path = argv[1];
	result_set_prefix("vhost_user_evil/");
	memfd = memfd_create("evil-guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, 1 << 20) < 0 ||
	    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK) < 0) {
		perror("memfd");
		return 2;
	}

	/* Sanity: the daemon speaks vhost-user to a well-behaved request. */
	fd = ev_case_start("good_get_features", false);
	if (fd >= 0) {
		struct vhost_user_msg_hdr h;

		ev_send(fd, VUM_GET_FEATURES, 0, false, NULL, 0, 0, NULL, 0);
		if (recv(fd, &h, sizeof(h), MSG_WAITALL) == sizeof(h) && h.size == 8 &&
		    recv(fd, &v, 8, MSG_WAITALL) == 8 && (v & (1ULL << 32))) {
			result_pass("good_get_features");
		} else {
			result_fail("good_get_features", "no features reply with VERSION_1");
		}
		close(fd);
	}

	/* kick/call/err fds that are not eventfds: refused, the file untouched */
	{
		static const char *const what[3] = { "kick", "call", "err" };
		static const uint32_t req[3] = { VUM_SET_VRING_KICK, VUM_SET_VRING_CALL,
						 VUM_SET_VRING_ERR };
		char name[64], tmpl[] = "/tmp/vhost_user_evil.XXXXXX", back[16];
		int k, file = mkstemp(tmpl);

		if (file < 0 || write(file, "untouched", 9) != 9) {
			perror("mkstemp");
			return 2;
		}
		unlink(tmpl);
		for (k = 0; k < 3; k++) {
			snprintf(name, sizeof(name), "%s_fd_regular_file", what[k]);
			fd = ev_case_start(name, true);
			if (fd < 0)
				continue;
			v = 1;	/* ring 1 */
			ev_send(fd, req[k], VUM_FLAG_NEED_REPLY, false, &v, 8, 8, &file, 1);
			ev_expect(fd, name, true);
		}
		if (pread(file, back, sizeof(back), 0) != 9 || memcmp(back, "untouched", 9)) {
			result_fail("regular_file_unchanged", "the file was written to");
		} else {
			result_pass("regular_file_unchanged");
		}
		close(file);
	}
	fd = ev_case_start("bad_version", false);
	if (fd >= 0) {
		ev_send(fd, VUM_GET_FEATURES, 0, true, NULL, 0, 0, NULL, 0);
		ev_expect(fd, "bad_version", false);
	}
	fd = ev_case_start("oversized_payload", false);
	if (fd >= 0) {
		ev_send(fd, VUM_SET_FEATURES, 0, false, NULL, 0x10000, 0, NULL, 0);
		ev_expect(fd, "oversized_payload", false);
	}
	fd = ev_case_start("unknown_request", true);
	if (fd >= 0) {
		ev_send(fd, 77, VUM_FLAG_NEED_REPLY, false, NULL, 0, 0, NULL, 0);
		ev_expect(fd, "unknown_request", true);
	}
	memset(&mem, 0, sizeof(mem));
	mem.nregions = 1;
	mem.regions[0].size = 1 << 20;
	mem.regions[0].user_addr = 0x7f0000000000ULL;
	fd = ev_case_start("mem_table_fd_missing", true);
	if (fd >= 0) {
		ev_send(fd, VUM_SET_MEM_TABLE, VUM_FLAG_NEED_REPLY, false, &mem, VUM_SIZE_MEM(1),
			VUM_SIZE_MEM(1), NULL, 0);
		ev_expect(fd, "mem_table_fd_missing", true);
	}
	fd = ev_case_start("mem_table_region_past_fd", true);
	if (fd >= 0) {
		mem.regions[0].mmap_offset = 4096;
		ev_send(fd, VUM_SET_MEM_TABLE, VUM_FLAG_NEED_REPLY, false, &mem, VUM_SIZE_MEM(1),
			VUM_SIZE_MEM(1), &memfd, 1);
		mem.regions[0].mmap_offset = 0;
		ev_expect(fd, "mem_table_region_past_fd", true);
	}
	/* An unsealed memfd is fine now (guarded); a directory is no memory. */
	fd = ev_case_start("mem_table_directory_fd", true);
	if (fd >= 0) {
		int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dir < 0) {
			perror("open /");
			return 2;
		}
		ev_send(fd, VUM_SET_MEM_TABLE, VUM_FLAG_NEED_REPLY, false, &mem, VUM_SIZE_MEM(1),
			VUM_SIZE_MEM(1), &dir, 1);
		close(dir);
		ev_expect(fd, "mem_table_directory_fd", true);
	}
	fd = ev_case_start("mem_table_nine_regions", true);
	if (fd >= 0) {
		static uint8_t b[VUM_SIZE_MEM(9)];
		uint32_t n9 = 9;

		memcpy(b, &n9, 4);
		ev_send(fd, VUM_SET_MEM_TABLE, VUM_FLAG_NEED_REPLY, false, b, sizeof(b), sizeof(b),
			NULL, 0);
		ev_expect(fd, "mem_table_nine_regions", true);
	}
	fd = ev_case_start("vring_num_not_power_of_two", true);
	if (fd >= 0) {
		st.index = 0;
		st.num = 1000;
		ev_send(fd, VUM_SET_VRING_NUM, VUM_FLAG_NEED_REPLY, false, &st, 8, 8, NULL, 0);
		ev_expect(fd, "vring_num_not_power_of_two", true);
	}
	fd = ev_case_start("vring_addr_outside_memory", true);
	if (fd >= 0) {
		struct vhost_user_msg_vring_addr a = { .index = 0, .desc = 0x1000, .avail = 0x2000,
					    .used = 0x3000 };

		ev_send(fd, VUM_SET_MEM_TABLE, 0, false, &mem, VUM_SIZE_MEM(1), VUM_SIZE_MEM(1),
			&memfd, 1);
		st.index = 0;
		st.num = 256;
		ev_send(fd, VUM_SET_VRING_NUM, 0, false, &st, 8, 8, NULL, 0);
		ev_send(fd, VUM_SET_VRING_ADDR, VUM_FLAG_NEED_REPLY, false, &a, sizeof(a),
			sizeof(a), NULL, 0);
		ev_expect(fd, "vring_addr_outside_memory", true);
	}
	fd = ev_case_start("vring_index_out_of_range", true);
	if (fd >= 0) {
		st.index = 200;
		st.num = 0;
		ev_send(fd, VUM_SET_VRING_BASE, VUM_FLAG_NEED_REPLY, false, &st, 8, 8, NULL, 0);
		ev_expect(fd, "vring_index_out_of_range", true);
	}
	fd = ev_case_start("too_many_fds", false);
	if (fd >= 0) {
		for (i = 0; i <= (int)VUM_MAX_FDS; i++)
			fds[i] = eventfd(0, EFD_CLOEXEC);
		ev_send(fd, VUM_GET_FEATURES, 0, false, NULL, 0, 0, fds, VUM_MAX_FDS + 1);
		for (i = 0; i <= (int)VUM_MAX_FDS; i++)
			close(fds[i]);
		ev_expect(fd, "too_many_fds", false);
	}
	fd = ev_case_start("kick_without_fd", true);
	if (fd >= 0) {
		v = 0;
		ev_send(fd, VUM_SET_VRING_KICK, VUM_FLAG_NEED_REPLY, false, &v, 8, 8, NULL, 0);
		ev_expect(fd, "kick_without_fd", true);
	}
	fd = ev_case_start("truncated_then_hangup", false);
	if (fd >= 0) {
		ev_send(fd, VUM_SET_FEATURES, 0, false, "abc", 8, 3, NULL, 0);
		close(fd);
		/* the daemon must take the next connection as usual */
		fd = ev_case_start("truncated_then_hangup", false);
		if (fd >= 0) {
			ev_send(fd, VUM_GET_QUEUE_NUM, 0, false, NULL, 0, 0, NULL, 0);
			{
				struct vhost_user_msg_hdr h;

				if (recv(fd, &h, sizeof(h), MSG_WAITALL) == sizeof(h) &&
				    h.request == VUM_GET_QUEUE_NUM && h.size == 8) {
					result_pass("truncated_then_hangup");
				} else {
					result_fail("truncated_then_hangup", "next connection not served");
				}
			}
			close(fd);
		}
	}
	/* two front-ends are served (a live migration's source and
	 * destination), a third is refused */
	fd = ev_case_start("third_front_end_refused", false);
	if (fd >= 0) {
		int fd2 = ev_connect();
		int fd3 = ev_connect();
		struct vhost_user_msg_hdr h;
		char c;

		usleep(200000);
		if (fd2 >= 0)
			ev_send(fd2, VUM_GET_QUEUE_NUM, 0, false, NULL, 0, 0, NULL, 0);
		if (fd2 < 0 || recv(fd2, &h, sizeof(h), MSG_WAITALL) != sizeof(h) ||
		    h.request != VUM_GET_QUEUE_NUM) {
			result_fail("third_front_end_refused",
				    "the second connection (a migration's destination) was not served");
		} else if (fd3 >= 0 && recv(fd3, &c, 1, 0) == 0) {
			result_pass("third_front_end_refused");
		} else {
			result_fail("third_front_end_refused", "third connection not closed");
		}
		if (fd3 >= 0)
			close(fd3);
		if (fd2 >= 0)
			close(fd2);
		close(fd);
	}
	close(memfd);
	return result_exit_status();
}
