// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_fdstore.c - fdstore.c: tap and port names map to valid,
 * distinct FDNAME= values; fds passed as systemd passes them (LISTEN_FDS,
 * LISTEN_FDNAMES) are handed out by name or name prefix, the rest closed
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check_daemon.h"
#include "runner.h"
#include "config.h"
#include "fdstore.h"

START_TEST(fdstore_name_plain)
{
	char buf[FDSTORE_NAME_MAX + 1];

	ck_assert_int_eq(fdstore_name_tap(buf, sizeof(buf), "vnet0", 3), 0);
	ck_assert_str_eq(buf, "tap.vnet0.3");
	ck_assert_int_eq(fdstore_name_listen(buf, sizeof(buf), "vm-1_a"), 0);
	ck_assert_str_eq(buf, "listen.vm-1_a");
	ck_assert(fdstore_is_stored_name("tap.vnet0.3"));
	ck_assert(fdstore_is_stored_name("listen.vm1"));
	ck_assert(fdstore_is_stored_name("restart.state"));
	ck_assert(fdstore_is_stored_name("restart.fd.12,15"));
	ck_assert(!fdstore_is_stored_name("vringnetd.socket"));
}
END_TEST

START_TEST(fdstore_name_escaped)
{
	char buf[FDSTORE_NAME_MAX + 1], other[FDSTORE_NAME_MAX + 1];

	/* ':' separates LISTEN_FDNAMES entries; '.' separates our fields */
	ck_assert_int_eq(fdstore_name_listen(buf, sizeof(buf), "a:b.c%d e\x01\xc3\xa9"), 0);
	ck_assert_str_eq(buf, "listen.a%3Ab%2Ec%25d%20e%01%C3%A9");
	ck_assert(fdstore_name_valid(buf));
	/* escaping is one-to-one: "a.0" queue 1 and "a" queue ... differ */
	ck_assert_int_eq(fdstore_name_tap(buf, sizeof(buf), "a.0", 1), 0);
	ck_assert_int_eq(fdstore_name_tap(other, sizeof(other), "a", 0), 0);
	ck_assert_str_ne(buf, other);
	ck_assert_int_eq(fdstore_name_listen(buf, sizeof(buf), "x%2E"), 0);
	ck_assert_int_eq(fdstore_name_listen(other, sizeof(other), "x."), 0);
	ck_assert_str_ne(buf, other);
}
END_TEST

START_TEST(fdstore_name_limits)
{
	char name[CFG_NAME_MAX], buf[FDSTORE_NAME_MAX + 1], small[12];

	/* the longest configurable name, every byte escaped, still fits */
	memset(name, ':', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	ck_assert_int_eq(fdstore_name_tap(buf, sizeof(buf), name, CFG_MAX_QUEUES - 1), 0);
	ck_assert(fdstore_name_valid(buf));
	ck_assert_int_eq(fdstore_name_listen(buf, sizeof(buf), name), 0);
	ck_assert(fdstore_name_valid(buf));
	/* a buffer too small is refused, not cut */
	ck_assert_int_eq(fdstore_name_tap(small, sizeof(small), "vnet0", 10), -1);
	ck_assert_int_eq(fdstore_name_listen(small, sizeof(small), "a:b"), -1);
	ck_assert_int_eq(fdstore_name_listen(small, sizeof(small), "abcd"), 0);
	/* what systemd refuses */
	ck_assert(!fdstore_name_valid(""));
	ck_assert(!fdstore_name_valid("a:b"));
	ck_assert(!fdstore_name_valid("a\nb"));
	memset(buf, 'x', FDSTORE_NAME_MAX);
	buf[FDSTORE_NAME_MAX] = '\0';
	ck_assert(fdstore_name_valid(buf));
	{
		char big[FDSTORE_NAME_MAX + 2];

		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		ck_assert(!fdstore_name_valid(big));
	}
}
END_TEST

/**
 * fc_child_passed() - in a child: fds 3..7 passed as systemd passes them
 *
 * Return: 0 when take/take_prefix/take_other/close_unused behave, else the
 * failed step.
 */
static int fc_child_passed(void)
{
	char name[FDSTORE_NAME_MAX + 1];
	int p[2], fd = -1, i;
	char pid[16];

	for (i = 0; i < 5; i++) {
		if (pipe(p) < 0 || dup2(p[0], 3 + i) < 0)
			return 10;
		close(p[1]);
		if (p[0] != 3 + i)
			close(p[0]);
	}
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "5", 1);
	setenv("LISTEN_FDNAMES",
	       "tap.vnet0.0:vringnetd.socket:tap.gone.0:restart.fd.9,12:restart.state", 1);
	unsetenv("NOTIFY_SOCKET");
	fdstore_load();
	if (getenv("LISTEN_FDS"))
		return 1;
	if (fdstore_take("tap.vnet0.1") != -1)
		return 2;
	if (fdstore_take("tap.vnet0.0") != 3 || fdstore_take("tap.vnet0.0") != -1)
		return 3;
	/* a restart's names are not socket activation's */
	if (fdstore_take_other(&fd) != 1 || fd != 4)
		return 4;
	if (fdstore_take_prefix("restart.fd.", name, sizeof(name)) != 6 ||
	    strcmp(name, "restart.fd.9,12") ||
	    fdstore_take_prefix("restart.fd.", name, sizeof(name)) != -1)
		return 7;
	fdstore_close_unused();
	if (fcntl(5, F_GETFD) != -1 || fcntl(7, F_GETFD) != -1 || fcntl(3, F_GETFD) < 0 ||
	    fcntl(4, F_GETFD) < 0 || fcntl(6, F_GETFD) < 0)
		return 5;
	if (fdstore_take("tap.gone.0") != -1)
		return 6;
	return 0;
}

START_TEST(fdstore_passed_fds)
{
	runner_in_child(fc_child_passed);
}
END_TEST

/**
 * fc_child_twice() - in a child: one name passed three times (fds 3, 5, 6)
 *
 * As systemd does on a kernel without kcmp() when a device fd was stored
 * again: the first copy is taken, the others are closed without
 * FDSTOREREMOVE=1 (it would drop the copy kept), while a name nothing
 * takes is closed and removed as before.
 * Return: 0, else the failed step.
 */
static int fc_child_twice(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char pid[16], buf[256];
	int p[2], ns, i, removes = 0;
	ssize_t n;

	for (i = 0; i < 4; i++) {
		if (pipe(p) < 0 || dup2(p[0], 3 + i) < 0)
			return 10;
		close(p[1]);
		if (p[0] != 3 + i)
			close(p[0]);
	}
	ns = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "vringnet-fdstore-%d", (int)getpid());
	if (ns < 0 || bind(ns, (struct sockaddr *)&sa,
			   offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1)) < 0)
		return 11;
	snprintf(buf, sizeof(buf), "@%s", sa.sun_path + 1);
	setenv("NOTIFY_SOCKET", buf, 1);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "4", 1);
	setenv("LISTEN_FDNAMES", "tap.vnet0.0:tap.x.0:tap.vnet0.0:tap.vnet0.0", 1);
	fdstore_load();
	if (!fdstore_passed_twice("tap.vnet0.0") || fdstore_passed_twice("tap.x.0"))
		return 1;
	if (fdstore_take("tap.vnet0.0") != 3)
		return 2;
	fdstore_close_unused();
	if (fcntl(3, F_GETFD) < 0 || fcntl(4, F_GETFD) != -1 || fcntl(5, F_GETFD) != -1 ||
	    fcntl(6, F_GETFD) != -1)
		return 3;
	while ((n = recv(ns, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = '\0';
		if (strstr(buf, "FDSTOREREMOVE=1") && strstr(buf, "FDNAME=tap.vnet0.0"))
			return 4;
		removes += strstr(buf, "FDSTOREREMOVE=1\nFDNAME=tap.x.0") != NULL;
	}
	return removes == 1 ? 0 : 5;
}

START_TEST(fdstore_passed_twice_keeps_one)
{
	runner_in_child(fc_child_twice);
}
END_TEST

/**
 * fdstore_suite() - the suite
 *
 * Return: it.
 */
Suite *fdstore_suite(void)
{
	Suite *s = runner_suite_create("fdstore");

	RUNNER_ADD_TEST(s, fdstore_name_plain);
	RUNNER_ADD_TEST(s, fdstore_name_escaped);
	RUNNER_ADD_TEST(s, fdstore_name_limits);
	RUNNER_ADD_TEST(s, fdstore_passed_fds);
	RUNNER_ADD_TEST(s, fdstore_passed_twice_keeps_one);
	return s;
}
