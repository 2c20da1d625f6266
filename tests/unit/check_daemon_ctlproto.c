// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_ctlproto.c - the control protocol codec (daemon/ctlproto.c):
 * requests and replies that round-trip, and tables of malformed requests
 * and replies with the exact status and error text each must give.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlproto.h"
#include "unit/runner.h"
#include "unit/check_daemon.h"

/* ------------------------------------------------------------ bad requests */

/**
 * struct bad_request - a request the daemon must refuse
 * @name: test name
 * @msg: the message
 * @len: its length when it holds a NUL (0: strlen(@msg))
 * @status: the reply status it must get
 * @error: the exact error text
 */
static const struct bad_request {
	const char *name;
	const char *msg;
	size_t len;
	enum ctlproto_status status;
	const char *error;
} bad_requests[] = {
	{ "req_empty", "", 0, CTLPROTO_E_BAD_REQUEST, "malformed request: empty message" },
	{ "req_no_newline", "status version=1", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: message does not end with a newline" },
	{ "req_two_lines", "status version=1\nlist version=1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "a request is exactly one line, got 2" },
	{ "req_empty_line", "\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid record type" },
	{ "req_no_version", "status\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "the first key of a request must be 'version'" },
	{ "req_version_not_first", "stats port=a version=1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "the first key of a request must be 'version'" },
	{ "req_version_leading_zero", "status version=01\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "invalid version '01'" },
	{ "req_version_junk", "status version=1x\n", 0, CTLPROTO_E_BAD_REQUEST, "invalid version '1x'" },
	{ "req_version_empty", "status version=\n", 0, CTLPROTO_E_BAD_REQUEST, "invalid version ''" },
	{ "req_version_2", "status version=2\n", 0, CTLPROTO_E_VERSION,
	  "protocol version 2 is not supported (this daemon speaks 1)" },
	{ "req_unknown_command", "shutdown version=1\n", 0, CTLPROTO_E_UNKNOWN_COMMAND,
	  "unknown command 'shutdown'" },
	{ "req_upper_case", "STATUS version=1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid record type" },
	{ "req_unknown_key", "status version=1 verbose=yes\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "unknown key 'verbose' for command 'status'" },
	{ "req_port_on_list", "list version=1 port=vm1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "unknown key 'port' for command 'list'" },
	{ "req_port_with_slash", "stats version=1 port=a/b\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "invalid port name" },
	{ "req_port_with_space", "stats version=1 port=a%20b\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "invalid port name" },
	{ "req_port_empty", "stats version=1 port=\n", 0, CTLPROTO_E_BAD_REQUEST, "invalid port name" },
	{ "req_port_too_long", "stats version=1 port=abcdefghijklmnop\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "invalid port name" },
	{ "req_port_dotdot", "stats version=1 port=..\n", 0, CTLPROTO_E_BAD_REQUEST, "invalid port name" },
	{ "req_duplicate_key", "stats version=1 port=a port=b\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: duplicate key 'port'" },
	{ "req_double_space", "status  version=1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid key" },
	{ "req_trailing_space", "status version=1 \n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid key" },
	{ "req_leading_space", " status version=1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid record type" },
	{ "req_no_equals", "status version\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: expected '=' after key 'version'" },
	{ "req_bad_escape", "stats version=1 port=a%zz\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: bad %-escape in value of 'port'" },
	{ "req_lower_hex_escape", "stats version=1 port=a%2f\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: bad %-escape in value of 'port'" },
	{ "req_truncated_escape", "stats version=1 port=a%2\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: bad %-escape in value of 'port'" },
	{ "req_nul_escape", "stats version=1 port=a%00\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: NUL (%00) in value of 'port'" },
	{ "req_needless_escape", "stats version=1 port=%61\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: needless escape %61 in value of 'port'" },
	{ "req_raw_nul", "status\0version=1\n", 17, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: unexpected byte 0x00" },
	{ "req_raw_tab", "stats version=1 port=a\tb\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid byte 0x09 in value of 'port'" },
	{ "req_crlf", "status version=1\r\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid byte 0x0d in value of 'version'" },
	{ "req_high_byte", "stats version=1 port=\xff\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid byte 0xff in value of 'port'" },
	{ "req_binary", "\x01\x02\x03\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "malformed request: line 1: invalid record type" },
	{ "req_key_too_long", "status version=1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1\n", 0,
	  CTLPROTO_E_BAD_REQUEST, "malformed request: line 1: key longer than 31 bytes" },
	{ "req_type_too_long", "statusstatusstatusstatusstatusstatus version=1\n", 0,
	  CTLPROTO_E_BAD_REQUEST, "malformed request: line 1: record type longer than 31 bytes" },
	{ "req_queues_bad_value", "stats version=1 queues=1\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "queues must be yes or no" },
	{ "req_queues_not_stats", "status version=1 queues=yes\n", 0, CTLPROTO_E_BAD_REQUEST,
	  "unknown key 'queues' for command 'status'" },
};

#define N_BAD_REQ (sizeof(bad_requests) / sizeof(bad_requests[0]))

START_TEST(ctl_bad_request)
{
	const struct bad_request *c = &bad_requests[_i];
	struct ctlproto_request req;
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX], buf[1024], derr[CTLPROTO_ERROR_MAX];
	size_t len = c->len ? c->len : strlen(c->msg);
	int n;

	ck_assert_int_eq(ctlproto_decode_request(c->msg, len, &req, err, sizeof(err)), c->status);
	ck_assert_str_eq(err, c->error);
	/* and the error reply the daemon builds from it decodes to the same */
	n = ctlproto_reply_error(buf, sizeof(buf), c->status, "%s", err);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(!ctlproto_decode_reply(buf, (size_t)n, &rep, derr, sizeof(derr)), "%s", derr);
	ck_assert_int_eq(rep.status, c->status);
	ck_assert_str_eq(rep.error, c->error);
	ck_assert_uint_eq(rep.nrecords, 0);
	ctlproto_reply_free(&rep);
}
END_TEST

START_TEST(ctl_request_too_big)
{
	char msg[CTLPROTO_REQUEST_MAX + 2], err[CTLPROTO_ERROR_MAX];
	struct ctlproto_request req;

	memset(msg, 'a', sizeof(msg));
	ck_assert_int_eq(ctlproto_decode_request(msg, CTLPROTO_REQUEST_MAX + 1, &req, err, sizeof(err)),
			 CTLPROTO_E_TOO_BIG);
	ck_assert_str_eq(err, "request of 513 bytes exceeds the limit of 512");
	/* a huge length must not be read */
	ck_assert_int_eq(ctlproto_decode_request(msg, SIZE_MAX, &req, err, sizeof(err)),
			 CTLPROTO_E_TOO_BIG);
}
END_TEST

START_TEST(ctl_request_max_size)
{
	char msg[CTLPROTO_REQUEST_MAX + 1], err[CTLPROTO_ERROR_MAX];
	struct ctlproto_request req;

	/* exactly 512 bytes is read (and refused for its content only) */
	memset(msg, 'a', CTLPROTO_REQUEST_MAX);
	memcpy(msg, "status version=1 x=", 19);
	msg[CTLPROTO_REQUEST_MAX - 1] = '\n';
	ck_assert_int_eq(ctlproto_decode_request(msg, CTLPROTO_REQUEST_MAX, &req, err, sizeof(err)),
			 CTLPROTO_E_BAD_REQUEST);
	ck_assert_str_eq(err, "unknown key 'x' for command 'status'");
}
END_TEST

/* ------------------------------------------------------------ good requests */

START_TEST(ctl_request_roundtrip)
{
	static const enum ctlproto_cmd cmds[] = {
		CTLPROTO_CMD_STATUS, CTLPROTO_CMD_LIST, CTLPROTO_CMD_STATS, CTLPROTO_CMD_RELOAD,
	};
	static const char *const wire[] = {
		"status version=1\n", "list version=1\n", "stats version=1\n", "reload version=1\n",
	};
	struct ctlproto_request req, out;
	char buf[CTLPROTO_REQUEST_MAX], err[CTLPROTO_ERROR_MAX];
	unsigned int i;
	int n;

	for (i = 0; i < 4; i++) {
		memset(&req, 0, sizeof(req));
		req.cmd = cmds[i];
		n = ctlproto_encode_request(&req, buf, sizeof(buf));
		ck_assert_int_eq(n, (int)strlen(wire[i]));
		ck_assert_mem_eq(buf, wire[i], (size_t)n);
		ck_assert_int_eq(ctlproto_decode_request(buf, (size_t)n, &out, err, sizeof(err)), CTLPROTO_OK);
		ck_assert_int_eq(out.cmd, cmds[i]);
		ck_assert_uint_eq(out.version, CTLPROTO_VERSION);
		ck_assert_str_eq(out.port, "");
		/* the wire's first word is the command's name */
		ck_assert_int_eq(strncmp(wire[i], ctlproto_cmd_name(cmds[i]),
					 strlen(ctlproto_cmd_name(cmds[i]))), 0);
		ck_assert_int_eq(wire[i][strlen(ctlproto_cmd_name(cmds[i]))], ' ');
	}
	memset(&req, 0, sizeof(req));
	req.cmd = CTLPROTO_CMD_STATS;
	strcpy(req.port, "abcdefghijklmno");
	n = ctlproto_encode_request(&req, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen("stats version=1 port=abcdefghijklmno\n"));
	ck_assert_mem_eq(buf, "stats version=1 port=abcdefghijklmno\n", (size_t)n);
	ck_assert_int_eq(ctlproto_decode_request(buf, (size_t)n, &out, err, sizeof(err)), CTLPROTO_OK);
	ck_assert_str_eq(out.port, "abcdefghijklmno");

	/* '%' is legal in a port name and must survive the round trip. */
	memset(&req, 0, sizeof(req));
	req.cmd = CTLPROTO_CMD_STATS;
	strcpy(req.port, "vm1^r.%b");
	n = ctlproto_encode_request(&req, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen("stats version=1 port=vm1^r.%25b\n"));
	ck_assert_mem_eq(buf, "stats version=1 port=vm1^r.%25b\n", (size_t)n);
	ck_assert_int_eq(ctlproto_decode_request(buf, (size_t)n, &out, err, sizeof(err)), CTLPROTO_OK);
	ck_assert_str_eq(out.port, "vm1^r.%b");
	ck_assert(!out.queues);

	/* per-queue counters: queues=yes after the port, stats only */
	req.queues = true;
	n = ctlproto_encode_request(&req, buf, sizeof(buf));
	ck_assert_int_eq(n, (int)strlen("stats version=1 port=vm1^r.%25b queues=yes\n"));
	ck_assert_mem_eq(buf, "stats version=1 port=vm1^r.%25b queues=yes\n", (size_t)n);
	ck_assert_int_eq(ctlproto_decode_request(buf, (size_t)n, &out, err, sizeof(err)), CTLPROTO_OK);
	ck_assert_str_eq(out.port, "vm1^r.%b");
	ck_assert(out.queues);
	req.port[0] = '\0';
	n = ctlproto_encode_request(&req, buf, sizeof(buf));
	ck_assert_mem_eq(buf, "stats version=1 queues=yes\n", (size_t)n);
	ck_assert_int_eq(ctlproto_decode_request("stats version=1 queues=no\n", 26, &out, err,
						 sizeof(err)), CTLPROTO_OK);
	ck_assert(!out.queues);
	req.cmd = CTLPROTO_CMD_LIST;
	n = ctlproto_encode_request(&req, buf, sizeof(buf));
	ck_assert_mem_eq(buf, "list version=1\n", (size_t)n);
}
END_TEST

START_TEST(ctl_request_encode_errors)
{
	struct ctlproto_request req = { .cmd = (enum ctlproto_cmd)99 };
	char buf[CTLPROTO_REQUEST_MAX];

	ck_assert_int_eq(ctlproto_encode_request(&req, buf, sizeof(buf)), -EINVAL);
	req.cmd = CTLPROTO_CMD_STATS;
	strcpy(req.port, "a/b");
	ck_assert_int_eq(ctlproto_encode_request(&req, buf, sizeof(buf)), -EINVAL);
	strcpy(req.port, "a b");
	ck_assert_int_eq(ctlproto_encode_request(&req, buf, sizeof(buf)), -EINVAL);
	strcpy(req.port, "vm1");
	ck_assert_int_eq(ctlproto_encode_request(&req, buf, 10), -ENOSPC);
	/* port is ignored for commands other than stats */
	req.cmd = CTLPROTO_CMD_LIST;
	ck_assert_int_eq(ctlproto_encode_request(&req, buf, sizeof(buf)), 15);
}
END_TEST

START_TEST(ctl_names)
{
	ck_assert_str_eq(ctlproto_cmd_name(CTLPROTO_CMD_STATUS), "status");
	ck_assert_str_eq(ctlproto_cmd_name(CTLPROTO_CMD_RELOAD), "reload");
	ck_assert_str_eq(ctlproto_cmd_name(CTLPROTO_CMD_UPGRADE), "upgrade");
	ck_assert_str_eq(ctlproto_cmd_name((enum ctlproto_cmd)99), "?");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_OK), "ok");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_BAD_REQUEST), "bad-request");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_VERSION), "bad-version");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_TOO_BIG), "too-big");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_UNKNOWN_COMMAND), "unknown-command");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_NO_SUCH_PORT), "no-such-port");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_RELOAD_FAILED), "reload-failed");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_BUSY), "busy");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_INTERNAL), "internal");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_PERMISSION), "permission-denied");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_UPGRADE_FAILED), "upgrade-failed");
	ck_assert_str_eq(ctlproto_status_name(CTLPROTO_E_UPGRADE_DISABLED), "upgrade-disabled");
	ck_assert_str_eq(ctlproto_status_name((enum ctlproto_status)99), "internal");
}
END_TEST

/* ------------------------------------------------------------ replies */

static char big[CTLPROTO_REPLY_MAX + 16];

START_TEST(ctl_reply_status_roundtrip)
{
	struct ctlproto_daemon_info d = {
		.pid = 812, .version = "0.1", .engine = "user",
		.config = "/etc/vring net/%a=b\xc3\xa9.conf", .uptime = 3725,
		.caps = "cap_net_admin", .user = "root", .ntaps = 1, .nports = 1,
		.workers = 2, .worker_cpus = "3,1",
	};
	struct ctlproto_tap_info t = {
		.name = "vnet0", .ifindex = 7, .mtu = 1500, .state = "up", .queues = 2, .persist = true,
	};
	struct ctlproto_port_info p = {
		.name = "vm1", .type = "vhost-user", .tap = "vnet0",
		.socket = "/run/vringnetd/vm1.sock", .state = "listening", .connections = 1,
		.workers = "", .pair_workers = "1,-",
	};
	struct ctlproto_writer w;
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX];
	const struct ctlproto_record *r;
	int n;

	ctlproto_reply_init(&w, big, sizeof(big));
	ctlproto_reply_daemon(&w, &d);
	ctlproto_reply_tap(&w, &t);
	ctlproto_reply_port(&w, &p);
	n = ctlproto_reply_finish(&w);
	ck_assert_int_gt(n, 0);
	ck_assert_mem_eq(big, "reply version=1 status=ok error=\n"
			 "daemon pid=812 version=0.1 engine=user config=/etc/vring%20net/%25a=b%C3%A9.conf ",
			 108);
	ck_assert_msg(!ctlproto_decode_reply(big, (size_t)n, &rep, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(rep.status, CTLPROTO_OK);
	ck_assert_str_eq(rep.error, "");
	ck_assert_uint_eq(rep.nrecords, 3);
	r = &rep.records[0];
	ck_assert_str_eq(r->type, "daemon");
	ck_assert_str_eq(ctlproto_record_get(r, "pid"), "812");
	ck_assert_str_eq(ctlproto_record_get(r, "config"), d.config);
	ck_assert_str_eq(ctlproto_record_get(r, "uptime"), "3725");
	ck_assert_str_eq(ctlproto_record_get(r, "caps"), "cap_net_admin");
	ck_assert_ptr_null(ctlproto_record_get(r, "nothing"));
	ck_assert_str_eq(ctlproto_record_get(r, "workers"), "2");
	ck_assert_str_eq(ctlproto_record_get(r, "worker_cpus"), "3,1");
	r = &rep.records[1];
	ck_assert_str_eq(r->type, "tap");
	ck_assert_str_eq(ctlproto_record_get(r, "name"), "vnet0");
	ck_assert_str_eq(ctlproto_record_get(r, "ifindex"), "7");
	ck_assert_str_eq(ctlproto_record_get(r, "persist"), "yes");
	ck_assert_str_eq(ctlproto_record_get(r, "queues"), "2");
	r = &rep.records[2];
	ck_assert_str_eq(ctlproto_record_get(r, "socket"), "/run/vringnetd/vm1.sock");
	ck_assert_str_eq(ctlproto_record_get(r, "connections"), "1");
	ck_assert_str_eq(ctlproto_record_get(r, "workers"), "");
	ck_assert_str_eq(ctlproto_record_get(r, "pair_workers"), "1,-");
	ctlproto_reply_free(&rep);
	ctlproto_reply_free(&rep);	/* twice is harmless */
}
END_TEST

START_TEST(ctl_reply_stats_and_reload)
{
	struct engine_stats tx = { .frames = UINT64_MAX, .bytes = 2, .drop_bad_chain = 3,
				.drop_tap = 4, .notifies = 5 };
	struct ctlproto_reload_info rl = { .taps_added = 1, .ports_changed = 2 };
	struct ctlproto_writer w;
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX];
	const struct ctlproto_record *r;
	int n;

	ctlproto_reply_init(&w, big, sizeof(big));
	ctlproto_reply_stats(&w, "port", "vm1", &tx, NULL);
	ctlproto_reply_str(&w, "tap", "vnet0");
	ctlproto_reply_queue_stats(&w, "vm1", "vnet0", 1, &tx, &tx, true);
	ctlproto_reply_reload(&w, &rl);
	n = ctlproto_reply_finish(&w);
	ck_assert_msg(!ctlproto_decode_reply(big, (size_t)n, &rep, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(rep.nrecords, 3);
	r = &rep.records[1];
	ck_assert_str_eq(r->type, "stats");
	ck_assert_uint_eq(r->nkv, 25);
	ck_assert_str_eq(ctlproto_record_get(r, "of"), "queue");
	ck_assert_str_eq(ctlproto_record_get(r, "name"), "vm1");
	ck_assert_str_eq(ctlproto_record_get(r, "queue"), "1");
	ck_assert_str_eq(ctlproto_record_get(r, "tap"), "vnet0");
	ck_assert_str_eq(ctlproto_record_get(r, "rx_drop_tap"), "4");
	ck_assert_str_eq(ctlproto_record_get(r, "tx_drop_peer"), "0");
	r = &rep.records[0];
	ck_assert_uint_eq(r->nkv, 23);
	ck_assert_str_eq(ctlproto_record_get(r, "of"), "port");
	ck_assert_str_eq(ctlproto_record_get(r, "tx_frames"), "18446744073709551615");
	ck_assert_str_eq(ctlproto_record_get(r, "tx_drop_bad_chain"), "3");
	ck_assert_str_eq(ctlproto_record_get(r, "tx_drop_tap"), "4");
	ck_assert_str_eq(ctlproto_record_get(r, "tx_notifies"), "5");
	ck_assert_str_eq(ctlproto_record_get(r, "rx_frames"), "0");
	ck_assert_str_eq(ctlproto_record_get(r, "rx_drop_bad_addr"), "0");
	ck_assert_str_eq(ctlproto_record_get(r, "tap"), "vnet0");
	r = &rep.records[2];
	ck_assert_str_eq(r->type, "reload");
	ck_assert_str_eq(ctlproto_record_get(r, "taps_added"), "1");
	ck_assert_str_eq(ctlproto_record_get(r, "ports_changed"), "2");
	ctlproto_reply_free(&rep);
}
END_TEST

START_TEST(ctl_reply_full_stats_fit)
{
	/* stats of the most ports a configuration may have, every counter at
	 * its largest, fit in one reply */
	struct engine_stats s;
	struct ctlproto_writer w;
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX], name[CFG_NAME_MAX];
	int i, n;

	memset(&s, 0xff, sizeof(s));
	ctlproto_reply_init(&w, big, CTLPROTO_REPLY_MAX);
	for (i = 0; i < CFG_MAX_PORTS; i++) {
		snprintf(name, sizeof(name), "port%011d", i);
		ctlproto_reply_stats(&w, "port", name, &s, &s);
	}
	n = ctlproto_reply_finish(&w);
	ck_assert_msg(!ctlproto_decode_reply(big, (size_t)n, &rep, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(rep.status, CTLPROTO_OK);
	ck_assert_uint_eq(rep.nrecords, CFG_MAX_PORTS);
	ctlproto_reply_free(&rep);
}
END_TEST

START_TEST(ctl_reply_overflow_becomes_error)
{
	struct ctlproto_tap_info t = { .name = "vnet0", .state = "up" };
	struct ctlproto_writer w;
	struct ctlproto_reply rep;
	char buf[4096], err[CTLPROTO_ERROR_MAX];
	int i, n;

	ctlproto_reply_init(&w, buf, sizeof(buf));
	for (i = 0; i < 1000; i++)
		ctlproto_reply_tap(&w, &t);
	n = ctlproto_reply_finish(&w);
	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, (int)sizeof(buf));
	ck_assert_msg(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)), "%s", err);
	ck_assert_int_eq(rep.status, CTLPROTO_E_INTERNAL);
	ck_assert_str_eq(rep.error, "reply too large (over 4096 bytes) or malformed");
	ck_assert_uint_eq(rep.nrecords, 0);
	ctlproto_reply_free(&rep);
}
END_TEST

START_TEST(ctl_reply_writer_misuse)
{
	struct ctlproto_writer w;
	struct ctlproto_reply rep;
	char buf[4096], err[CTLPROTO_ERROR_MAX], longv[CTLPROTO_VALUE_MAX + 2];
	int n;

	/* invalid record type */
	ctlproto_reply_init(&w, buf, sizeof(buf));
	ctlproto_reply_record(&w, "Bad Type");
	n = ctlproto_reply_finish(&w);
	ck_assert(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_int_eq(rep.status, CTLPROTO_E_INTERNAL);
	ctlproto_reply_free(&rep);
	/* invalid key */
	ctlproto_reply_init(&w, buf, sizeof(buf));
	ctlproto_reply_record(&w, "tap");
	ctlproto_reply_str(&w, "na me", "x");
	n = ctlproto_reply_finish(&w);
	ck_assert(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_int_eq(rep.status, CTLPROTO_E_INTERNAL);
	ctlproto_reply_free(&rep);
	/* value over CTLPROTO_VALUE_MAX */
	memset(longv, 'v', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	ctlproto_reply_init(&w, big, sizeof(big));
	ctlproto_reply_record(&w, "tap");
	ctlproto_reply_str(&w, "name", longv);
	n = ctlproto_reply_finish(&w);
	ck_assert(!ctlproto_decode_reply(big, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_int_eq(rep.status, CTLPROTO_E_INTERNAL);
	ctlproto_reply_free(&rep);
	/* a buffer too small for anything */
	ctlproto_reply_init(&w, buf, 100);
	ck_assert_int_eq(ctlproto_reply_finish(&w), -ENOSPC);
	ck_assert_int_eq(ctlproto_reply_error(buf, 127, CTLPROTO_E_BUSY, "x"), -ENOSPC);
}
END_TEST

START_TEST(ctl_reply_error_text)
{
	struct ctlproto_reply rep;
	char buf[CTLPROTO_REPLY_MAX], err[CTLPROTO_ERROR_MAX], text[1000];
	int n;

	n = ctlproto_reply_error(buf, sizeof(buf), CTLPROTO_E_RELOAD_FAILED,
				 "%s:%d: mtu: '%s' is out of range", "/etc/v.conf", 3, "1\n");
	{
		static const char want[] = "reply version=1 status=reload-failed "
			"error=/etc/v.conf:3:%20mtu:%20'1%0A'%20is%20out%20of%20range\n";

		ck_assert_int_eq(n, (int)sizeof(want) - 1);
		ck_assert_mem_eq(buf, want, sizeof(want) - 1);
	}
	ck_assert(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_str_eq(rep.error, "/etc/v.conf:3: mtu: '1\n' is out of range");
	ctlproto_reply_free(&rep);
	/* long text is cut to CTLPROTO_ERROR_MAX - 1 bytes */
	memset(text, 'e', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	n = ctlproto_reply_error(buf, sizeof(buf), CTLPROTO_E_BUSY, "%s", text);
	ck_assert(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_uint_eq(strlen(rep.error), CTLPROTO_ERROR_MAX - 1);
	ctlproto_reply_free(&rep);
	/* a 128-byte buffer still gives a valid, shortened reply */
	memset(text, ' ', sizeof(text) - 1);
	n = ctlproto_reply_error(buf, 128, CTLPROTO_E_BUSY, "%s", text);
	ck_assert_int_le(n, 128);
	ck_assert(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_int_eq(rep.status, CTLPROTO_E_BUSY);
	ctlproto_reply_free(&rep);
	/* an invalid status becomes internal */
	n = ctlproto_reply_error(buf, sizeof(buf), (enum ctlproto_status)77, "x");
	ck_assert(!ctlproto_decode_reply(buf, (size_t)n, &rep, err, sizeof(err)));
	ck_assert_int_eq(rep.status, CTLPROTO_E_INTERNAL);
	ctlproto_reply_free(&rep);
}
END_TEST

/**
 * struct bad_reply - a reply the client must refuse
 * @name: test name
 * @msg: the message
 * @error: the exact error
 */
static const struct bad_reply {
	const char *name;
	const char *msg;
	const char *error;
} bad_replies[] = {
	{ "rep_empty", "", "empty message" },
	{ "rep_no_newline", "reply version=1 status=ok error=", "message does not end with a newline" },
	{ "rep_no_header", "tap name=a\n", "line 1: expected a 'reply' header" },
	{ "rep_header_no_version", "reply status=ok error=\n", "line 1: the header lacks 'version'" },
	{ "rep_header_no_status", "reply version=1 error=\n", "line 1: the header lacks 'status'" },
	{ "rep_header_no_error", "reply version=1 status=ok\n", "line 1: the header lacks 'error'" },
	{ "rep_version_2", "reply version=2 status=ok error=\n",
	  "line 1: unsupported protocol version '2'" },
	{ "rep_version_junk", "reply version=one status=ok error=\n",
	  "line 1: unsupported protocol version 'one'" },
	{ "rep_unknown_status", "reply version=1 status=great error=\n",
	  "line 1: unknown status 'great'" },
	{ "rep_ok_with_error", "reply version=1 status=ok error=x\n",
	  "line 1: error text with status ok" },
	{ "rep_error_without_text", "reply version=1 status=busy error=\n",
	  "line 1: error status without error text" },
	{ "rep_data_after_error", "reply version=1 status=busy error=x\ntap name=a\n",
	  "line 2: data after an error status" },
	{ "rep_unknown_record", "reply version=1 status=ok error=\nfoo a=b\n",
	  "line 2: unknown record type 'foo'" },
	{ "rep_tap_without_name", "reply version=1 status=ok error=\ntap mtu=1\n",
	  "line 2: 'tap' record lacks 'name'" },
	{ "rep_daemon_without_pid", "reply version=1 status=ok error=\ndaemon version=1\n",
	  "line 2: 'daemon' record lacks 'pid'" },
	{ "rep_empty_line", "reply version=1 status=ok error=\n\n", "line 2: invalid record type" },
	{ "rep_duplicate_key", "reply version=1 status=ok error=\ntap name=a name=b\n",
	  "line 2: duplicate key 'name'" },
	{ "rep_bad_escape", "reply version=1 status=ok error=\ntap name=%G0\n",
	  "line 2: bad %-escape in value of 'name'" },
	{ "rep_raw_space_in_value", "reply version=1 status=ok error=\ntap name=a b\n",
	  "line 2: expected '=' after key 'b'" },
	{ "rep_nul", "reply version=1 status=ok error=\ntap name=%00\n",
	  "line 2: NUL (%00) in value of 'name'" },
};

#define N_BAD_REP (sizeof(bad_replies) / sizeof(bad_replies[0]))

START_TEST(ctl_bad_reply)
{
	const struct bad_reply *c = &bad_replies[_i];
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX];

	ck_assert_int_eq(ctlproto_decode_reply(c->msg, strlen(c->msg), &rep, err, sizeof(err)),
			 -EPROTO);
	ck_assert_str_eq(err, c->error);
	ck_assert_ptr_null(rep.store);
	ck_assert_uint_eq(rep.nrecords, 0);
}
END_TEST

START_TEST(ctl_bad_reply_sizes)
{
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX];
	size_t pos;
	int i;

	/* over CTLPROTO_REPLY_MAX */
	memset(big, 'a', sizeof(big));
	ck_assert_int_eq(ctlproto_decode_reply(big, CTLPROTO_REPLY_MAX + 1, &rep, err, sizeof(err)),
			 -EMSGSIZE);
	ck_assert_str_eq(err, "reply of 196609 bytes exceeds the limit of 196608");
	/* error text over CTLPROTO_ERROR_MAX - 1 */
	pos = (size_t)sprintf(big, "reply version=1 status=busy error=");
	memset(big + pos, 'e', CTLPROTO_ERROR_MAX);
	big[pos + CTLPROTO_ERROR_MAX] = '\n';
	ck_assert_int_eq(ctlproto_decode_reply(big, pos + CTLPROTO_ERROR_MAX + 1, &rep, err, sizeof(err)),
			 -EPROTO);
	ck_assert_str_eq(err, "line 1: error text longer than 255 bytes");
	/* a value over CTLPROTO_VALUE_MAX */
	pos = (size_t)sprintf(big, "reply version=1 status=ok error=\ntap name=");
	memset(big + pos, 'n', CTLPROTO_VALUE_MAX + 1);
	big[pos + CTLPROTO_VALUE_MAX + 1] = '\n';
	ck_assert_int_eq(ctlproto_decode_reply(big, pos + CTLPROTO_VALUE_MAX + 2, &rep, err, sizeof(err)),
			 -EPROTO);
	ck_assert_str_eq(err, "line 2: value of 'name' longer than 4096 bytes");
	/* more than CTLPROTO_RECORD_KEYS_MAX keys */
	pos = (size_t)sprintf(big, "reply version=1 status=ok error=\ntap name=a");
	for (i = 0; i < CTLPROTO_RECORD_KEYS_MAX; i++)
		pos += (size_t)sprintf(big + pos, " k%d=1", i);
	big[pos++] = '\n';
	ck_assert_int_eq(ctlproto_decode_reply(big, pos, &rep, err, sizeof(err)), -EPROTO);
	ck_assert_str_eq(err, "line 2: too many keys");
}
END_TEST

START_TEST(ctl_reply_unknown_keys_ignored)
{
	static const char msg[] = "reply version=1 status=ok error= extra=1\n"
				  "tap name=a future_key=x\n";
	struct ctlproto_reply rep;
	char err[CTLPROTO_ERROR_MAX];

	ck_assert_msg(!ctlproto_decode_reply(msg, sizeof(msg) - 1, &rep, err, sizeof(err)), "%s", err);
	ck_assert_uint_eq(rep.nrecords, 1);
	ck_assert_str_eq(ctlproto_record_get(&rep.records[0], "future_key"), "x");
	ctlproto_reply_free(&rep);
}
END_TEST

/**
 * add_table() - one TCase per table entry, named after it
 * @s: the suite
 * @fn: the loop test
 * @names: first name, then every @stride bytes
 * @stride: size of a table entry
 * @n: entries
 */
static void add_table(Suite *s, const TTest *fn, const char *const *names, size_t stride,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const char *name = *(const char *const *)((const char *)names + i * stride);
		TCase *tc = tcase_create(name);

		tcase_add_loop_test(tc, fn, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
}

/**
 * ctlproto_suite() - the control protocol's tests
 *
 * Return: the suite.
 */
Suite *ctlproto_suite(void)
{
	Suite *s = runner_suite_create("ctlproto");

	add_table(s, ctl_bad_request, &bad_requests[0].name, sizeof(bad_requests[0]), N_BAD_REQ);
	add_table(s, ctl_bad_reply, &bad_replies[0].name, sizeof(bad_replies[0]), N_BAD_REP);
	RUNNER_ADD_TEST(s, ctl_request_too_big);
	RUNNER_ADD_TEST(s, ctl_request_max_size);
	RUNNER_ADD_TEST(s, ctl_request_roundtrip);
	RUNNER_ADD_TEST(s, ctl_request_encode_errors);
	RUNNER_ADD_TEST(s, ctl_names);
	RUNNER_ADD_TEST(s, ctl_reply_status_roundtrip);
	RUNNER_ADD_TEST(s, ctl_reply_stats_and_reload);
	RUNNER_ADD_TEST(s, ctl_reply_full_stats_fit);
	RUNNER_ADD_TEST(s, ctl_reply_overflow_becomes_error);
	RUNNER_ADD_TEST(s, ctl_reply_writer_misuse);
	RUNNER_ADD_TEST(s, ctl_reply_error_text);
	RUNNER_ADD_TEST(s, ctl_bad_reply_sizes);
	RUNNER_ADD_TEST(s, ctl_reply_unknown_keys_ignored);
	return s;
}
