// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_ctlclient.c - vringnetctl's error paths and output, against
 * a fake server in this test (a socket that replies with canned bytes, or
 * not at all).  This is no test of the daemon: vringnetctl against a real
 * vringnetd is covered by the integration tests.
 *
 * The binary is $VRINGNETCTL or build/vringnetctl (run from the source tree).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctlproto.h"
#include "unit/runner.h"
#include "unit/check_daemon.h"

/* the version vringnetctl --version prints (the Makefile's -D from VERSION) */
#ifndef VRINGNET_VERSION
#define VRINGNET_VERSION "unknown"
#endif

static char dir[64], sock_path[128];
static pid_t server_pid;
static char out[CTLPROTO_REPLY_MAX], errout[4096];

/**
 * ctl_binary() - path of the vringnetctl under test
 *
 * Return: the path; the test is skipped if it is not there.
 */
static const char *ctl_binary(void)
{
	const char *bin = getenv("VRINGNETCTL") ? getenv("VRINGNETCTL") : "build/vringnetctl";

	if (access(bin, X_OK))
		runner_skip("%s not built (make build/vringnetctl)", bin);
	return bin;
}

/** client_setup() - a fresh directory for the socket */
static void client_setup(void)
{
	strcpy(dir, "/tmp/check-ctl.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	chmod(dir, 0755);
	snprintf(sock_path, sizeof(sock_path), "%s/control.sock", dir);
	server_pid = 0;
}

/** client_teardown() - stop the fake server, remove the directory */
static void client_teardown(void)
{
	char cmd[128];

	if (server_pid > 0) {
		kill(server_pid, SIGKILL);
		waitpid(server_pid, NULL, 0);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
}

enum fake_action {
	FAKE_REPLY,	/* send the canned reply */
	FAKE_CLOSE,	/* close without replying */
	FAKE_SILENT,	/* accept, read, never answer */
};

/**
 * listen_socket() - bind and listen on sock_path
 * @type: SOCK_SEQPACKET or SOCK_STREAM
 *
 * Return: the listening fd.
 */
static int listen_socket(int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type, 0);

	ck_assert_int_ge(fd, 0);
	strcpy(sa.sun_path, sock_path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	return fd;
}

/**
 * fake_server() - serve one connection in a child process
 * @action: what to do with the request
 * @reply: bytes to send for FAKE_REPLY
 * @len: their number
 *
 * The request received is written to DIR/request.
 */
static void fake_server(enum fake_action action, const void *reply, size_t len)
{
	int lfd = listen_socket(SOCK_SEQPACKET);

	server_pid = fork();
	ck_assert_int_ge(server_pid, 0);
	if (server_pid == 0) {
		char req[CTLPROTO_REQUEST_MAX + 1], path[160];
		int c = accept(lfd, NULL, NULL), f;
		ssize_t n;
		int sz = CTLPROTO_REPLY_MAX + 4096;

		if (c < 0)
			_exit(1);
		n = recv(c, req, sizeof(req), 0);
		snprintf(path, sizeof(path), "%s/request", dir);
		f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (f >= 0 && n > 0 && write(f, req, (size_t)n) != n)
			_exit(1);
		close(f);
		if (action == FAKE_REPLY) {
			setsockopt(c, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
			if (send(c, reply, len, 0) != (ssize_t)len)
				_exit(2);
		} else if (action == FAKE_SILENT) {
			sleep(30);
		}
		close(c);
		_exit(0);
	}
	close(lfd);
}

/**
 * read_file() - read a file of the test directory
 * @name: file name
 * @buf: where to
 * @len: its size (the result is NUL-terminated)
 */
static void read_file(const char *name, char *buf, size_t len)
{
	char path[160];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	buf[0] = '\0';
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

/**
 * run_ctl() - run vringnetctl with arguments, capturing stdout and stderr
 * @as_nobody: drop to uid/gid 65534 first (only when root)
 * @...: arguments, NULL-terminated (--socket is not added)
 *
 * Return: the exit status (128+signal if killed, 127 if exec failed).
 */
static int run_ctl(bool as_nobody, ...)
{
	const char *bin = ctl_binary(), *argv[16];
	char opath[160], epath[160];
	unsigned int n = 0;
	va_list ap;
	pid_t pid;
	int status;

	argv[n++] = bin;
	va_start(ap, as_nobody);
	while (n < 15 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	snprintf(opath, sizeof(opath), "%s/stdout", dir);
	snprintf(epath, sizeof(epath), "%s/stderr", dir);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int o = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
		int e = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (o < 0 || e < 0)
			_exit(126);
		dup2(o, 1);
		dup2(e, 2);
		if (as_nobody && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(126);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	read_file("stdout", out, sizeof(out));
	read_file("stderr", errout, sizeof(errout));
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/**
 * expect_err() - check stderr against a text
 * @tmpl: the expected text; its first "%s" stands for the socket path
 */
static void expect_err(const char *tmpl)
{
	const char *at = strstr(tmpl, "%s");
	char want[1024];

	if (at)
		snprintf(want, sizeof(want), "%.*s%s%s", (int)(at - tmpl), tmpl, sock_path, at + 2);
	else
		snprintf(want, sizeof(want), "%s", tmpl);
	ck_assert_str_eq(errout, want);
}

START_TEST(ctl_not_running_no_socket)
{
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 3);
	expect_err("vringnetctl: cannot connect to %s: No such file or directory "
		   "(is vringnetd running?)\n");
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(ctl_not_running_refused)
{
	/* the socket file of a daemon that is gone */
	close(listen_socket(SOCK_SEQPACKET));
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "list", NULL), 3);
	expect_err("vringnetctl: cannot connect to %s: Connection refused "
		   "(is vringnetd running?)\n");
}
END_TEST

START_TEST(ctl_permission_denied)
{
	int rc;

	fake_server(FAKE_CLOSE, NULL, 0);
	ck_assert_int_eq(chmod(sock_path, 0600), 0);
	if (getuid() == 0) {
		rc = run_ctl(true, "--socket", sock_path, "status", NULL);
		if (rc == 126 || rc == 127)
			runner_skip("cannot run %s as uid 65534", ctl_binary());
	} else {
		ck_assert_int_eq(chmod(sock_path, 0), 0);
		rc = run_ctl(false, "--socket", sock_path, "status", NULL);
	}
	ck_assert_int_eq(rc, 4);
	expect_err("vringnetctl: cannot connect to %s: Permission denied "
		   "(are you root or in the socket's group?)\n");
}
END_TEST

START_TEST(ctl_wrong_socket_type)
{
	int lfd = listen_socket(SOCK_STREAM);

	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 5);
	close(lfd);
	expect_err("vringnetctl: cannot connect to %s: Protocol wrong type for socket "
		   "(not a vringnetd control socket)\n");
}
END_TEST

START_TEST(ctl_closed_without_reply)
{
	fake_server(FAKE_CLOSE, NULL, 0);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 5);
	expect_err("vringnetctl: %s: the daemon closed the connection without a reply\n");
}
END_TEST

START_TEST(ctl_garbage_reply)
{
	fake_server(FAKE_REPLY, "hello", 5);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 5);
	expect_err("vringnetctl: %s: invalid reply from the daemon: message does not end "
		   "with a newline\n");
	ck_assert_str_eq(out, "");
}
END_TEST

START_TEST(ctl_garbage_reply_binary)
{
	static const char junk[] = "reply version=1 status=ok error=\n\x1b[2J\n";

	fake_server(FAKE_REPLY, junk, sizeof(junk) - 1);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 5);
	expect_err("vringnetctl: %s: invalid reply from the daemon: line 2: invalid record type\n");
}
END_TEST

START_TEST(ctl_reply_too_big)
{
	static char huge[CTLPROTO_REPLY_MAX + 1];

	memset(huge, 'x', sizeof(huge));
	fake_server(FAKE_REPLY, huge, sizeof(huge));
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 5);
	expect_err("vringnetctl: %s: reply of 196609 bytes exceeds the limit of 196608\n");
}
END_TEST

START_TEST(ctl_timeout)
{
	fake_server(FAKE_SILENT, NULL, 0);
	ck_assert_int_eq(run_ctl(false, "--timeout", "0.3", "--socket", sock_path, "status",
				 NULL), 6);
	expect_err("vringnetctl: cannot receive from %s: no answer within 0.3 s\n");
}
END_TEST

START_TEST(ctl_connect_timeout)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int lfd = listen_socket(SOCK_SEQPACKET), fds[64], n = 0, i;

	/* a daemon that never accepts: fill its backlog first */
	ck_assert_int_eq(listen(lfd, 0), 0);
	strcpy(sa.sun_path, sock_path);
	while (n < 64) {
		fds[n] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
		ck_assert_int_ge(fds[n], 0);
		if (connect(fds[n], (struct sockaddr *)&sa, sizeof(sa))) {
			ck_assert_int_eq(errno, EAGAIN);
			close(fds[n]);
			break;
		}
		n++;
	}
	ck_assert_int_lt(n, 64);
	ck_assert_int_eq(run_ctl(false, "--timeout", "0.2", "--socket", sock_path, "status",
				 NULL), 6);
	expect_err("vringnetctl: cannot connect to %s: no answer within 0.2 s\n");
	for (i = 0; i < n; i++)
		close(fds[i]);
	close(lfd);
}
END_TEST

START_TEST(ctl_error_reply)
{
	char reply[512];
	int n = ctlproto_reply_error(reply, sizeof(reply), CTLPROTO_E_RELOAD_FAILED,
				     "/etc/v.conf:3: mtu: '1' is out of range 68..65535");

	fake_server(FAKE_REPLY, reply, (size_t)n);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "reload", NULL), 1);
	ck_assert_str_eq(errout, "vringnetctl: reload failed: reload-failed: "
			 "/etc/v.conf:3: mtu: '1' is out of range 68..65535\n");
	ck_assert_str_eq(out, "");
	read_file("request", out, sizeof(out));
	ck_assert_str_eq(out, "reload version=1\n");
}
END_TEST

START_TEST(ctl_error_reply_json)
{
	char reply[512];
	int n = ctlproto_reply_error(reply, sizeof(reply), CTLPROTO_E_NO_SUCH_PORT,
				     "no port \"vm9\"");

	fake_server(FAKE_REPLY, reply, (size_t)n);
	ck_assert_int_eq(run_ctl(false, "--json", "--socket", sock_path, "stats", "vm9", NULL), 1);
	ck_assert_str_eq(out, "{\n  \"status\": \"no-such-port\",\n  \"error\": \"no port \\\"vm9\\\"\"\n}\n");
	read_file("request", errout, sizeof(errout));
	ck_assert_str_eq(errout, "stats version=1 port=vm9\n");
}
END_TEST

static const char status_reply[] =
	"reply version=1 status=ok error=\n"
	"daemon pid=812 version=0.1 engine=user config=/etc/vringnetd/vringnetd.conf "
	"uptime=3725 caps=cap_net_admin user=root taps=2 ports=1\n"
	"tap name=vnet0 ifindex=7 mtu=1500 state=up queues=1 persist=no\n"
	"tap name=vn%1B\"\\%C3%A9 ifindex=12 mtu=9000 state=down queues=16 persist=yes\n"
	"port name=vm1 type=vhost-user tap=vnet0 state=listening connections=1 "
	"socket=/run/vringnetd/vm1.sock\n";

/* the daemon record of status_reply and workers_reply, as printed */
#define STATUS_DAEMON_HUMAN						\
	"vringnetd\n"							\
	"  version:       0.1\n"					\
	"  pid:           812\n"					\
	"  engine:        user\n"					\
	"  uptime:        1h 2m 5s\n"					\
	"  config:        /etc/vringnetd/vringnetd.conf\n"		\
	"  user:          root\n"					\
	"  capabilities:  cap_net_admin\n"

START_TEST(ctl_status_human)
{
	fake_server(FAKE_REPLY, status_reply, sizeof(status_reply) - 1);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 0);
	ck_assert_str_eq(errout, "");
	/* aligned columns; control bytes and non-ASCII of names shown as '?' */
	ck_assert_str_eq(out,
			 STATUS_DAEMON_HUMAN
			 "\n"
			 "TAP      IFINDEX  MTU   STATE  QUEUES  PERSIST\n"
			 "vnet0    7        1500  up     1       no\n"
			 "vn?\"\\??  12       9000  down   16      yes\n"
			 "\n"
			 "PORT  TYPE        TAP    STATE      CONNECTIONS  SOCKET\n"
			 "vm1   vhost-user  vnet0  listening  1            /run/vringnetd/vm1.sock\n");
}
END_TEST

static const char workers_reply[] =
	"reply version=1 status=ok error=\n"
	"daemon pid=812 version=0.1 engine=user config=/etc/vringnetd/vringnetd.conf "
	"uptime=3725 caps=cap_net_admin user=root taps=1 ports=2 workers=2 worker_cpus=3,1\n"
	"port name=a type=vhost-user tap=t state=connected connections=1 socket=/a "
	"workers=1 pair_workers=1,-\n"
	"port name=b type=dgram tap=t state=listening connections=0 socket=/b "
	"workers= pair_workers=-\n";

START_TEST(ctl_status_workers)
{
	fake_server(FAKE_REPLY, workers_reply, sizeof(workers_reply) - 1);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 0);
	ck_assert_str_eq(errout, "");
	ck_assert_str_eq(out,
			 STATUS_DAEMON_HUMAN
			 "  workers:       2 (worker 0 on CPU 3, worker 1 on CPU 1)\n"
			 "\n"
			 "no taps\n"
			 "\n"
			 "PORT  TYPE        TAP  STATE      CONNECTIONS  SOCKET\n"
			 "a     vhost-user  t    connected  1            /a\n"
			 "b     dgram       t    listening  0            /b\n"
			 "\n"
			 "queue pairs (\"-\": main thread or not running):\n"
			 "  port a: workers 1; pair 0 on worker 1, pair 1 -\n"
			 "  port b: workers any; pair 0 -\n");
}
END_TEST

START_TEST(ctl_status_workers_json)
{
	fake_server(FAKE_REPLY, workers_reply, sizeof(workers_reply) - 1);
	ck_assert_int_eq(run_ctl(false, "-j", "--socket", sock_path, "status", NULL), 0);
	ck_assert_ptr_nonnull(strstr(out, "    \"workers\": 2,\n    \"worker_cpus\": [3, 1]\n"));
	ck_assert_ptr_nonnull(strstr(out, "      \"workers\": [1],\n      \"pair_workers\": [1, null]\n"));
	ck_assert_ptr_nonnull(strstr(out, "      \"workers\": [],\n      \"pair_workers\": [null]\n"));
}
END_TEST

START_TEST(ctl_status_json)
{
	fake_server(FAKE_REPLY, status_reply, sizeof(status_reply) - 1);
	ck_assert_int_eq(run_ctl(false, "-j", "--socket", sock_path, "status", NULL), 0);
	ck_assert_str_eq(out,
			 "{\n"
			 "  \"daemon\": {\n"
			 "    \"pid\": 812,\n"
			 "    \"version\": \"0.1\",\n"
			 "    \"engine\": \"user\",\n"
			 "    \"config\": \"/etc/vringnetd/vringnetd.conf\",\n"
			 "    \"uptime\": 3725,\n"
			 "    \"caps\": \"cap_net_admin\",\n"
			 "    \"user\": \"root\",\n"
			 "    \"taps\": 2,\n"
			 "    \"ports\": 1\n"
			 "  },\n"
			 "  \"taps\": [\n"
			 "    {\n"
			 "      \"name\": \"vnet0\",\n"
			 "      \"ifindex\": 7,\n"
			 "      \"mtu\": 1500,\n"
			 "      \"state\": \"up\",\n"
			 "      \"queues\": 1,\n"
			 "      \"persist\": false\n"
			 "    },\n"
			 "    {\n"
			 "      \"name\": \"vn\\u001b\\\"\\\\\xc3\xa9\",\n"
			 "      \"ifindex\": 12,\n"
			 "      \"mtu\": 9000,\n"
			 "      \"state\": \"down\",\n"
			 "      \"queues\": 16,\n"
			 "      \"persist\": true\n"
			 "    }\n"
			 "  ],\n"
			 "  \"ports\": [\n"
			 "    {\n"
			 "      \"name\": \"vm1\",\n"
			 "      \"type\": \"vhost-user\",\n"
			 "      \"tap\": \"vnet0\",\n"
			 "      \"state\": \"listening\",\n"
			 "      \"connections\": 1,\n"
			 "      \"socket\": \"/run/vringnetd/vm1.sock\"\n"
			 "    }\n"
			 "  ],\n"
			 "  \"stats\": []\n"
			 "}\n");
}
END_TEST

START_TEST(ctl_status_json_parses)
{
	char cmd[256];

	if (system("command -v jq >/dev/null 2>&1"))
		runner_skip("jq not installed");
	fake_server(FAKE_REPLY, status_reply, sizeof(status_reply) - 1);
	ck_assert_int_eq(run_ctl(false, "--json", "--socket", sock_path, "status", NULL), 0);
	/* a JSON parser accepts it and finds the escaped name */
	snprintf(cmd, sizeof(cmd), "jq -e '.taps[1].name == \"vn\\u001b\\\"\\\\\u00e9\" "
		 "and .daemon.pid == 812 and .taps[1].persist == true' %s/stdout >/dev/null", dir);
	ck_assert_msg(system(cmd) == 0, "jq refused or mismatched: %s", out);
}
END_TEST

START_TEST(ctl_json_after_command)
{
	fake_server(FAKE_REPLY, status_reply, sizeof(status_reply) - 1);
	/* the README's order: the command first, then --json */
	ck_assert_int_eq(run_ctl(false, "status", "--json", "--socket", sock_path, NULL), 0);
	ck_assert_msg(out[0] == '{', "not JSON: %s", out);
	ck_assert_str_eq(errout, "");
}
END_TEST

START_TEST(ctl_socket_from_config)
{
	char conf[160];
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/vringnetd.conf", dir);
	f = fopen(conf, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "[daemon]\ncontrol-socket = %s   # from the file\n", sock_path);
	fclose(f);
	fake_server(FAKE_REPLY, status_reply, sizeof(status_reply) - 1);
	/* no --socket: the default socket does not exist here, the file's does */
	ck_assert_int_eq(run_ctl(false, "--config", conf, "--json", "status", NULL), 0);
	ck_assert_msg(out[0] == '{', "not JSON: %s", out);
	ck_assert_int_eq(unlink(conf), 0);
}
END_TEST

START_TEST(ctl_json_invalid_utf8)
{
	static const char reply[] = "reply version=1 status=ok error=\n"
				    "tap name=a%FFb%C3 mtu=x1\n";

	fake_server(FAKE_REPLY, reply, sizeof(reply) - 1);
	ck_assert_int_eq(run_ctl(false, "--json", "--socket", sock_path, "list", NULL), 0);
	/* invalid UTF-8 becomes U+FFFD; a non-numeric "mtu" stays a string */
	ck_assert_str_eq(out, "{\n  \"taps\": [\n    {\n"
			 "      \"name\": \"a\\ufffdb\\ufffd\",\n"
			 "      \"mtu\": \"x1\"\n"
			 "    }\n  ],\n  \"ports\": []\n}\n");
}
END_TEST

START_TEST(ctl_stats_human)
{
	struct engine_stats tx = { .frames = 3, .bytes = 180, .drop_tap = 2 };
	struct ctlproto_writer w;
	static char reply[CTLPROTO_REPLY_MAX];
	int n;

	ctlproto_reply_init(&w, reply, sizeof(reply));
	ctlproto_reply_stats(&w, "port", "vm1", &tx, NULL);
	n = ctlproto_reply_finish(&w);
	fake_server(FAKE_REPLY, reply, (size_t)n);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "stats", "vm1", NULL), 0);
	ck_assert_str_eq(out,
			 "NAME  OF    DIR  FRAMES  BYTES  BATCHES  SYSCALLS  BAD_CHAIN  TOO_BIG  "
			 "BAD_HDR  BAD_ADDR  TAP_DROP  NOTIFIES  PEER_DROP\n"
			 "vm1   port  tx   3       180    0        0         0          0        "
			 "0        0         2         0         -\n"
			 "vm1   port  rx   0       0      0        0         0          0        "
			 "0        0         0         0         -\n");
	read_file("request", out, sizeof(out));
	ck_assert_str_eq(out, "stats version=1 port=vm1\n");
}
END_TEST

/**
 * queue_reply() - a stats reply of port vm1 with two queue pairs (asked with queues=yes)
 * @reply: buffer, CTLPROTO_REPLY_MAX bytes
 *
 * Return: its length.
 */
static int queue_reply(char *reply)
{
	struct engine_stats q0 = { .frames = 3, .bytes = 180 }, q1 = { .frames = 5, .bytes = 300 };
	struct engine_stats tx = { .frames = 8, .bytes = 480 };
	struct ctlproto_writer w;

	ctlproto_reply_init(&w, reply, CTLPROTO_REPLY_MAX);
	ctlproto_reply_stats(&w, "port", "vm1", &tx, NULL);
	ctlproto_reply_str(&w, "tap", "vnet0");
	ctlproto_reply_queue_stats(&w, "vm1", "vnet0", 0, &q0, NULL, false);
	ctlproto_reply_queue_stats(&w, "vm1", "vnet0", 1, &q1, NULL, false);
	return ctlproto_reply_finish(&w);
}

START_TEST(ctl_stats_queues_human)
{
	static char reply[CTLPROTO_REPLY_MAX];
	int n = queue_reply(reply);

	fake_server(FAKE_REPLY, reply, (size_t)n);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "--queues", "stats", "vm1", NULL), 0);
	ck_assert_msg(strstr(out, "\nvm1:0  queue  tx   3       180 ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nvm1:1  queue  tx   5       300 ") != NULL, "%s", out);
	ck_assert_msg(strstr(out, "\nvm1    port   tx   8       480 ") != NULL, "%s", out);
	read_file("request", out, sizeof(out));
	ck_assert_str_eq(out, "stats version=1 port=vm1 queues=yes\n");
}
END_TEST

START_TEST(ctl_stats_prometheus_queues)
{
	static char reply[CTLPROTO_REPLY_MAX];
	int n = queue_reply(reply);

	fake_server(FAKE_REPLY, reply, (size_t)n);
	/* one port asked for: one request (without, a list and a request per port) */
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "--prometheus", "stats", "vm1", NULL), 0);
	ck_assert_msg(strstr(out, "\nvringnet_port_frames_total{port=\"vm1\",tap=\"vnet0\",queue=\"0\",direction=\"tx\"} 3\n"),
		      "%s", out);
	ck_assert_msg(strstr(out, "\nvringnet_port_frames_total{port=\"vm1\",tap=\"vnet0\",queue=\"1\",direction=\"tx\"} 5\n"),
		      "%s", out);
	/* the port's own record (8 frames) is not a series: no double count */
	ck_assert_msg(!strstr(out, "} 8\n") && !strstr(out, "tap=\"vnet0\",direction"), "%s", out);
	read_file("request", out, sizeof(out));
	ck_assert_str_eq(out, "stats version=1 port=vm1 queues=yes\n");
}
END_TEST

START_TEST(ctl_status_with_stats)
{
	static const char reply[] = "reply version=1 status=ok error=\n"
				    "daemon pid=1\n"
				    "stats of=tap name=t0 tx_frames=7 rx_frames=9\n";

	fake_server(FAKE_REPLY, reply, sizeof(reply) - 1);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "status", NULL), 0);
	/* missing fields print as "-"; counters follow the tables */
	ck_assert_str_eq(out,
			 "vringnetd\n"
			 "  version:       -\n"
			 "  pid:           1\n"
			 "  engine:        -\n"
			 "  uptime:        -\n"
			 "  config:        -\n"
			 "  user:          -\n"
			 "  capabilities:  -\n"
			 "\n"
			 "no taps\n"
			 "\n"
			 "no ports\n"
			 "\n"
			 "NAME  OF   DIR  FRAMES  BYTES  BATCHES  SYSCALLS  BAD_CHAIN  TOO_BIG  "
			 "BAD_HDR  BAD_ADDR  TAP_DROP  NOTIFIES  PEER_DROP\n"
			 "t0    tap  tx   7       -      -        -         -          -        "
			 "-        -         -         -         -\n"
			 "t0    tap  rx   9       -      -        -         -          -        "
			 "-        -         -         -         -\n");
}
END_TEST

START_TEST(ctl_reload_human)
{
	struct ctlproto_reload_info r = { .taps_added = 1, .taps_changed = 2, .ports_removed = 3 };
	struct ctlproto_writer w;
	char reply[1024];
	int n;

	ctlproto_reply_init(&w, reply, sizeof(reply));
	ctlproto_reply_reload(&w, &r);
	n = ctlproto_reply_finish(&w);
	fake_server(FAKE_REPLY, reply, (size_t)n);
	ck_assert_int_eq(run_ctl(false, "--socket", sock_path, "reload", NULL), 0);
	ck_assert_str_eq(out, "reloaded: taps 1 added, 0 removed, 2 changed; "
			 "ports 0 added, 3 removed, 0 changed\n");
}
END_TEST

/**
 * struct usage_case - a command line vringnetctl must refuse (or answer
 * without a daemon)
 * @name: test name
 * @args: arguments (NULL-terminated)
 * @status: expected exit status
 * @err: expected stderr ("" for none); @out_prefix: expected start of stdout
 */
static const struct usage_case {
	const char *name;
	const char *args[6];
	int status;
	const char *err;
	const char *out_prefix;
} usage_cases[] = {
	{ "usage_no_command", { NULL }, 2,
	  "vringnetctl: no command given (status, list, stats, reload, upgrade, metrics-http)\nTry 'vringnetctl --help'.\n", "" },
	{ "usage_unknown_command", { "start", NULL }, 2,
	  "vringnetctl: unknown command 'start' (status, list, stats, reload, upgrade, metrics-http)\n", "" },
	{ "usage_extra_argument", { "status", "now", NULL }, 2,
	  "vringnetctl: unexpected argument 'now' after 'status'\n", "" },
	{ "usage_stats_two_ports", { "stats", "a", "b", NULL }, 2,
	  "vringnetctl: unexpected argument 'b' after 'stats'\n", "" },
	{ "usage_port_too_long", { "stats", "abcdefghijklmnop", NULL }, 2,
	  "vringnetctl: port name 'abcdefghijklmnop' is longer than 15 bytes\n", "" },
	{ "usage_bad_timeout", { "--timeout", "5s", "status", NULL }, 2,
	  "vringnetctl: --timeout: '5s' is not a number of seconds in 0.001..3600\n", "" },
	{ "usage_zero_timeout", { "--timeout", "0", "status", NULL }, 2,
	  "vringnetctl: --timeout: '0' is not a number of seconds in 0.001..3600\n", "" },
	{ "usage_nan_timeout", { "--timeout", "nan", "status", NULL }, 2,
	  "vringnetctl: --timeout: 'nan' is not a number of seconds in 0.001..3600\n", "" },
	{ "usage_socket_too_long", { "--socket",
	  "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  "status", NULL }, 2, "vringnetctl: socket path too long (max 107 bytes)\n", "" },
	{ "usage_unknown_option", { "--frobnicate", "status", NULL }, 2,
	  "vringnetctl: unknown option '--frobnicate'\nTry 'vringnetctl --help'.\n", "" },
	{ "usage_missing_argument", { "status", "--socket", NULL }, 2,
	  "vringnetctl: option '--socket' needs an argument\nTry 'vringnetctl --help'.\n", "" },
	{ "usage_extra_argument_after_option", { "status", "--json", "now", NULL }, 2,
	  "vringnetctl: unexpected argument 'now' after 'status'\n", "" },
	{ "usage_socket_and_config", { "--config", "/x.conf", "--socket", "/x.sock", "status", NULL }, 2,
	  "vringnetctl: --socket and --config both name the control socket: give one\n", "" },
	{ "usage_config_missing", { "status", "--config", "/nonexistent/vringnetd.conf", NULL }, 2,
	  "vringnetctl: --config: /nonexistent/vringnetd.conf: cannot open: No such file or directory\n", "" },
	{ "usage_option_without_value", { "--timeout", NULL }, 2,
	  "vringnetctl: option '--timeout' needs an argument\nTry 'vringnetctl --help'.\n", "" },
	{ "usage_queues_not_stats", { "--queues", "status", NULL }, 2,
	  "vringnetctl: --queues goes with stats\n", "" },
	{ "usage_metrics_http_json", { "metrics-http", "--json", NULL }, 2,
	  "vringnetctl: metrics-http takes no --json, --prometheus or --queues\n", "" },
	{ "usage_metrics_http_argument", { "metrics-http", "vm1", NULL }, 2,
	  "vringnetctl: unexpected argument 'vm1' after 'metrics-http'\n", "" },
	{ "usage_help", { "--help", NULL }, 0, "", "Usage: vringnetctl [OPTIONS] COMMAND [OPTIONS]\n" },
	{ "usage_version", { "--version", NULL }, 0, "", "vringnetctl " VRINGNET_VERSION " (control protocol 1)\n" },
};

START_TEST(ctl_usage)
{
	const struct usage_case *c = &usage_cases[_i];
	const char *a[6];
	unsigned int i;

	for (i = 0; i < 6; i++)
		a[i] = c->args[i];
	ck_assert_int_eq(run_ctl(false, a[0], a[1], a[2], a[3], a[4], NULL), c->status);
	ck_assert_str_eq(errout, c->err);
	ck_assert_int_eq(strncmp(out, c->out_prefix, strlen(c->out_prefix)), 0);
}
END_TEST

/**
 * add() - add a test with the client fixture, in a TCase of its own
 * @s: the suite
 * @fn: the test
 * @name: its name
 * @loop: table index for a loop test, -1 for a plain test
 */
static void add(Suite *s, const TTest *fn, const char *name, int loop)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, client_setup, client_teardown);
	tcase_set_timeout(tc, 20);
	if (loop >= 0)
		tcase_add_loop_test(tc, fn, loop, loop + 1);
	else
		tcase_add_test(tc, fn);
	suite_add_tcase(s, tc);
}

#define ADD(s, fn) add((s), (fn), #fn, -1)

/**
 * ctlclient_suite() - vringnetctl against a fake server
 *
 * Return: the suite.
 */
Suite *ctlclient_suite(void)
{
	Suite *s = runner_suite_create("ctlclient");
	unsigned int i;

	ADD(s, ctl_not_running_no_socket);
	ADD(s, ctl_not_running_refused);
	ADD(s, ctl_permission_denied);
	ADD(s, ctl_wrong_socket_type);
	ADD(s, ctl_closed_without_reply);
	ADD(s, ctl_garbage_reply);
	ADD(s, ctl_garbage_reply_binary);
	ADD(s, ctl_reply_too_big);
	ADD(s, ctl_timeout);
	ADD(s, ctl_connect_timeout);
	ADD(s, ctl_error_reply);
	ADD(s, ctl_error_reply_json);
	ADD(s, ctl_status_human);
	ADD(s, ctl_status_json);
	ADD(s, ctl_status_workers);
	ADD(s, ctl_status_workers_json);
	ADD(s, ctl_status_json_parses);
	ADD(s, ctl_json_invalid_utf8);
	ADD(s, ctl_json_after_command);
	ADD(s, ctl_socket_from_config);
	ADD(s, ctl_stats_human);
	ADD(s, ctl_stats_queues_human);
	ADD(s, ctl_stats_prometheus_queues);
	ADD(s, ctl_status_with_stats);
	ADD(s, ctl_reload_human);
	for (i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++)
		add(s, ctl_usage, usage_cases[i].name, (int)i);
	return s;
}
