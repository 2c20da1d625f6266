// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_limits.c - the bounds on clients: log_ratelimit() (a burst,
 * then a "N messages suppressed" line) and deadline.c (fires once, is not
 * pushed back by re-arming, does not fire once stopped); and log.c's
 * _errno forms, whose lines must read as the strerror() ones they replace,
 * journal fields included.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_daemon.h"
#include "unit/runner.h"
#include "deadline.h"
#include "log.h"
#include "loop.h"
#include "port.h"

/**
 * lim_capture() - send stderr to a fresh temporary file
 * @saved: out: the old stderr
 *
 * Return: the file's fd (read it back with lim_read()).
 */
static int lim_capture(int *saved)
{
	char path[] = "/tmp/check_limits.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	*saved = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	return fd;
}

/**
 * lim_read() - restore stderr and read what was captured
 * @fd: lim_capture()'s file
 * @saved: the old stderr
 * @buf: out
 * @len: its size
 */
static void lim_read(int fd, int saved, char *buf, size_t len)
{
	ssize_t n;

	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

START_TEST(test_log_ratelimit_burst_then_suppressed)
{
	struct log_ratelimit rl;
	char out[4096];
	int i, allowed = 0, fd, saved;

	log_init("t");
	log_ratelimit_init(&rl, "port p0");
	for (i = 0; i < 30; i++)
		allowed += log_ratelimit(&rl);
	ck_assert_int_eq(allowed, LOG_RL_BURST);
	ck_assert_uint_eq(rl.suppressed, 30 - LOG_RL_BURST);
	/* the window is over: the next line comes after the count */
	rl.window -= LOG_RL_WINDOW_NS;
	fd = lim_capture(&saved);
	ck_assert(log_ratelimit(&rl));
	lim_read(fd, saved, out, sizeof(out));
	ck_assert_msg(strstr(out, "port p0: 20 messages suppressed"), "got '%s'", out);
	ck_assert_uint_eq(rl.suppressed, 0);
}
END_TEST

START_TEST(test_log_ratelimit_flush)
{
	struct log_ratelimit rl;
	char out[4096];
	int i, fd, saved;

	log_ratelimit_init(&rl, "control");
	fd = lim_capture(&saved);
	log_ratelimit_flush(&rl);	/* nothing suppressed: nothing said */
	for (i = 0; i < LOG_RL_BURST + 3; i++)
		log_ratelimit(&rl);
	log_ratelimit_flush(&rl);
	lim_read(fd, saved, out, sizeof(out));
	ck_assert_msg(!strncmp(strstr(out, "control:") ? strstr(out, "control:") : "",
			       "control: 3 messages suppressed", 30), "got '%s'", out);
}
END_TEST

START_TEST(test_log_errno_same_lines)
{
	struct port vm1 = { .cfg = { .name = "vm1", .tap = "tap0" } };
	char old[4096], got[4096];
	int fd, saved, ret;

	unsetenv("JOURNAL_STREAM");
	log_init("t");
	log_set_level(CFG_LOG_INFO);
	fd = lim_capture(&saved);
	log_err("epoll_wait: %s", strerror(EBADF));
	log_warn("port %s: accept: %s", "vm1", strerror(EMFILE));
	log_port(LOG_ERR, &vm1, "port %s: epoll: %s", "vm1", strerror(ENOMEM));
	lim_read(fd, saved, old, sizeof(old));

	fd = lim_capture(&saved);
	errno = EAGAIN;
	ret = log_err_errno(EBADF, "epoll_wait");
	ck_assert_int_eq(ret, -EBADF);
	ck_assert_int_eq(errno, EAGAIN);	/* errno is kept */
	ret = log_warn_errno(-EMFILE, "port %s: accept", "vm1");	/* either sign */
	ck_assert_int_eq(ret, -EMFILE);
	ret = log_port_errno(LOG_ERR, &vm1, ENOMEM, "port %s: epoll", "vm1");
	ck_assert_int_eq(ret, -ENOMEM);
	/* below the level: nothing written, the errno still returned */
	ck_assert_int_eq(log_debug_errno(EIO, "not shown"), -EIO);
	lim_read(fd, saved, got, sizeof(got));

	ck_assert_msg(strstr(got, "t: error: epoll_wait: Bad file descriptor\n"), "got '%s'", got);
	ck_assert_str_eq(got, old);
}
END_TEST

START_TEST(test_log_buf_errno)
{
	char want[64], buf[64], small[12];

	errno = EINTR;
	ck_assert_int_eq(log_buf_errno(buf, sizeof(buf), EACCES, "%s: bind", "/run/x.sock"),
			 -EACCES);
	ck_assert_int_eq(errno, EINTR);
	snprintf(want, sizeof(want), "%s: bind: %s", "/run/x.sock", strerror(EACCES));
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(log_buf_errno(buf, sizeof(buf), -ENOENT, "open"), -ENOENT);
	ck_assert_str_eq(buf, "open: No such file or directory");
	/* truncated like snprintf, always terminated */
	log_buf_errno(small, sizeof(small), ENOENT, "open");
	ck_assert_str_eq(small, "open: No su");
	log_buf_errno(small, sizeof(small), ENOENT, "a message longer than the buffer");
	ck_assert_str_eq(small, "a message l");
	/* no buffer: only the errno */
	ck_assert_int_eq(log_buf_errno(NULL, 0, EPERM, "nowhere"), -EPERM);
}
END_TEST

/**
 * lim_journal_child() - log one _errno line about a port under a fake journald
 * @out: pipe to write the received entry to
 *
 * Runs in a child of its own: a private mount namespace with a tmpfs on
 * /run/systemd, where a datagram socket at journal/socket stands in for
 * journald; JOURNAL_STREAM names our stderr, so log.c sends entries with
 * fields.  Exit status 77: the namespace could not be made.
 */
static void __attribute__((noreturn)) lim_journal_child(int out)
{
	struct port vm1 = { .cfg = { .name = "vm1", .tap = "tap0" } };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char entry[4096], env[64];
	struct stat st;
	ssize_t n;
	int sock;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", "/run/systemd", "tmpfs", 0, "mode=0755") < 0 ||
	    mkdir("/run/systemd/journal", 0755) < 0)
		_exit(77);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/systemd/journal/socket");
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || bind(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		_exit(2);
	if (fstat(STDERR_FILENO, &st) < 0)
		_exit(2);
	snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	setenv("JOURNAL_STREAM", env, 1);
	log_init("t");
	if (!log_to_journal())
		_exit(3);
	log_port_errno(LOG_ERR, &vm1, EBADF, "port %s: epoll", "vm1");
	n = recv(sock, entry, sizeof(entry) - 1, MSG_DONTWAIT);
	if (n <= 0)
		_exit(4);
	if (write(out, entry, (size_t)n) != n)
		_exit(2);
	_exit(0);
}

START_TEST(test_log_port_errno_journal_fields)
{
	char entry[4096];
	int p[2], status;
	ssize_t n;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		lim_journal_child(p[1]);
	}
	close(p[1]);
	n = read(p[0], entry, sizeof(entry) - 1);
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		runner_skip("no private mount namespace for a fake journald (unshare/mount: not root?)");
	ck_assert_msg(WEXITSTATUS(status) == 0, "child exit status %d", WEXITSTATUS(status));
	ck_assert_int_gt(n, 0);
	entry[n] = '\0';
	/* sd_journal_sendv(): one "FIELD=value\n" per field */
	ck_assert_msg(strstr(entry, "MESSAGE=port vm1: epoll: Bad file descriptor\n"), "got '%s'", entry);
	ck_assert_msg(strstr(entry, "VRINGNET_PORT=vm1\n"), "got '%s'", entry);
	ck_assert_msg(strstr(entry, "VRINGNET_TAP=tap0\n"), "got '%s'", entry);
	ck_assert_msg(strstr(entry, "PRIORITY=3\n"), "got '%s'", entry);
}
END_TEST

/**
 * struct lim_dl - a deadline and what happened to it
 * @dl: the deadline
 * @fired: times its callback ran
 * @loop: the loop to stop
 */
struct lim_dl {
	struct deadline dl;
	int fired;
	struct loop *loop;
};

/**
 * lim_fired() - deadline_fn: count and stop the loop
 * @dl: the deadline
 */
static void lim_fired(struct deadline *dl)
{
	struct lim_dl *d = container_of(dl, struct lim_dl, dl);

	d->fired++;
	loop_quit(d->loop, 1);
}

/**
 * lim_guard() - loop handler of the guard timer: stop the loop
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lim_guard(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	loop_quit(loop, 2);
}

static struct lim_dl *lim_rearm_dl;

/**
 * lim_rearm() - loop handler of a timer half-way: arm the deadline again
 * @loop: the loop
 * @ref: the timer
 * @events: unused
 */
static void lim_rearm(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	deadline_arm(&lim_rearm_dl->dl, 1);
}

START_TEST(test_deadline_fires_not_pushed_back)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct lim_dl d = { .loop = l };
	struct loop_ref guard, half;

	ck_assert_ptr_nonnull(l);
	lim_rearm_dl = &d;
	ck_assert_int_eq(deadline_init(&d.dl, l, lim_fired), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, lim_guard), 0);
	ck_assert_int_eq(loop_timer_init(l, &half, lim_rearm), 0);
	deadline_arm(&d.dl, 1);
	/* armed again after 0.6 s: a pushed-back deadline would pass at 1.6 s,
	 * after the guard at 1.4 s */
	ck_assert_int_eq(loop_timer_set(&half, 600000000ULL, 0), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 1400000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 1);
	ck_assert_int_eq(d.fired, 1);
	ck_assert(!d.dl.armed);
	loop_timer_fini(l, &half);
	loop_timer_fini(l, &guard);
	deadline_fini(&d.dl);
	loop_free(l);
}
END_TEST

START_TEST(test_deadline_stopped_does_not_fire)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct lim_dl d = { .loop = l };
	struct loop_ref guard;

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(deadline_init(&d.dl, l, lim_fired), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, lim_guard), 0);
	deadline_arm(&d.dl, 1);
	deadline_stop(&d.dl);
	ck_assert_int_eq(loop_timer_set(&guard, 1500000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 2);
	ck_assert_int_eq(d.fired, 0);
	loop_timer_fini(l, &guard);
	deadline_fini(&d.dl);
	loop_free(l);
}
END_TEST

/**
 * limits_suite() - log rate limits, deadlines, the _errno log forms
 *
 * Return: the suite.
 */
Suite *limits_suite(void)
{
	Suite *s = runner_suite_create("limits");

	RUNNER_ADD_TEST(s, test_log_ratelimit_burst_then_suppressed);
	RUNNER_ADD_TEST(s, test_log_ratelimit_flush);
	RUNNER_ADD_TEST(s, test_deadline_fires_not_pushed_back);
	RUNNER_ADD_TEST(s, test_deadline_stopped_does_not_fire);
	RUNNER_ADD_TEST(s, test_log_errno_same_lines);
	RUNNER_ADD_TEST(s, test_log_buf_errno);
	RUNNER_ADD_TEST(s, test_log_port_errno_journal_fields);
	return s;
}
