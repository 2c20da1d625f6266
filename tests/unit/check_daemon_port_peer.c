// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_port_peer.c - port_peer.c, the one-peer half of the port types
 *
 * A fake port type (its attach, close and conn_stats record their calls)
 * on a real event loop.  Bad input and the answer each case checks:
 *   a second peer while one is served   refused: fd closed, refused += 1
 *   cfg.connect has no listener         state "connecting", no attach, a
 *                                       retry that attaches once a listener
 *                                       exists (reconnect = 1 s)
 *   a peer closes                       conn cleared, state back to
 *                                       "listening" (server) / "connecting"
 *   a stale connection closes           the served one stays
 *   max_peers 2 (vhost-user migration)  two served, the third refused;
 *                                       one closing leaves "connected"
 *   connect later (upgrade successor)   nothing connects in the call; the
 *                                       loop's first turn connects once
 *   connect later, a peer served first  (a connection taken over) the loop
 *                                       does not connect; once it closes
 *                                       the retry connects
 * and that teardown closes the peer with "port closed" and frees port.priv,
 * that stats are the port's totals plus the live peer's, per queue pair.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "check_daemon.h"
#include "port_peer.h"

static int pp_attached = -1;	/* the fd the last attach got */
static int pp_closes;
static char pp_close_why[64];
static int pp_conn_token;

/**
 * pp_attach() - fake attach: keep the fd, serve a token, stop the loop
 * @p: the port
 * @fd: the socket
 */
static void pp_attach(struct port *p, int fd)
{
	pp_attached = fd;
	port_peer_served(p, &pp_conn_token, fd);
	loop_quit(p->loop, 0);
}

/**
 * pp_close() - fake close: record the reason, release the peer
 * @conn: the token
 * @why: reason
 */
static void pp_close(void *conn, const char *why)
{
	pp_closes++;
	snprintf(pp_close_why, sizeof(pp_close_why), "%s", why ? why : "");
	if (pp_attached >= 0)
		close(pp_attached);
	pp_attached = -1;
}

/**
 * pp_conn_stats() - fake live counters: 5 tx frames, 7 rx frames on pair 0,
 *	1 tx frame on pair 1
 * @p: the port
 * @conn: the token
 * @s: accumulator
 */
static void pp_conn_stats(struct port *p, void *conn, struct port_stats *s)
{
	s->tx[0].frames += 5;
	s->rx[0].frames += 7;
	if (s->nqp > 1)
		s->tx[1].frames += 1;
}

static const struct port_peer_ops pp_ops = {
	.attach = pp_attach,
	.close = pp_close,
	.conn_stats = pp_conn_stats,
};

/**
 * pp_quit() - safety timer: stop the loop with status 9
 * @loop: the loop
 * @ref: the timer
 * @events: epoll events
 */
static void pp_quit(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	loop_quit(loop, 9);
}

/**
 * pp_port() - a port of the fake type
 * @p: filled
 * @loop: its loop
 * @listen: cfg.listen ("" for client mode)
 * @connect: cfg.connect
 */
static void pp_port(struct port *p, struct loop *loop, const char *listen, const char *connect)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->cfg.name, sizeof(p->cfg.name), "pp");
	snprintf(p->cfg.listen, sizeof(p->cfg.listen), "%s", listen);
	snprintf(p->cfg.connect, sizeof(p->cfg.connect), "%s", connect);
	p->cfg.reconnect = 1;
	p->loop = loop;
	p->listen_fd = -1;
	p->state = listen[0] ? "listening" : "idle";
	pp_attached = -1;
	pp_closes = 0;
	pp_close_why[0] = 0;
}

START_TEST(pp_second_peer_refused)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct port p;
	struct port_peer *pp;
	int a[2], b[2];

	ck_assert_ptr_nonnull(l);
	pp_port(&p, l, "/nonexistent/pp.sock", "");
	pp = port_peer_of(&p, &pp_ops);
	ck_assert_ptr_nonnull(pp);
	ck_assert_ptr_eq(port_peer_of(&p, &pp_ops), pp);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
	ck_assert(!port_peer_refuse(&p, a[0], "test peer"));
	pp_attach(&p, a[0]);
	ck_assert_str_eq(p.state, "connected");
	ck_assert_uint_eq(port_peer_connections(&p), 1);
	ck_assert(port_peer_refuse(&p, b[0], "test peer"));
	ck_assert_int_eq(fcntl(b[0], F_GETFD), -1);
	ck_assert_int_eq(errno, EBADF);
	ck_assert_uint_eq(pp->refused, 1);
	ck_assert_uint_eq(pp->accepted, 1);
	ck_assert_int_ne(fcntl(a[0], F_GETFD), -1);
	/* a stale connection closing leaves the served one alone */
	port_peer_closed(&p, &pp_ops, "stale");
	ck_assert_ptr_eq(pp->conns[0], &pp_conn_token);
	ck_assert_uint_eq(pp->nconns, 1);
	ck_assert_uint_eq(pp->disconnects, 0);
	/* counters: the port's totals plus the live peer's */
	{
		struct port_stats s = { .nqp = 2 };
		struct engine_stats tx, rx;

		pp->gone.tx[0].frames = 100;
		pp->gone.rx[0].drop_tap = 3;
		pp->gone.tx[1].frames = 20;
		pp->gone.tx[2].frames = 1000;	/* beyond nqp: not counted */
		port_peer_get_stats(&p, &s);
		ck_assert_uint_eq(s.tx[0].frames, 105);
		ck_assert_uint_eq(s.tx[1].frames, 21);
		ck_assert_uint_eq(s.rx[0].frames, 7);
		ck_assert_uint_eq(s.rx[0].drop_tap, 3);
		ck_assert_uint_eq(s.rx[1].frames, 0);
		/* the port's figure is the sum of its pairs' */
		port_stats_sum(&s, &tx, &rx);
		ck_assert_uint_eq(tx.frames, 126);
		ck_assert_uint_eq(rx.frames, 7);
		ck_assert_uint_eq(rx.drop_tap, 3);
	}
	port_peer_teardown(&p);
	ck_assert_int_eq(pp_closes, 1);
	ck_assert_str_eq(pp_close_why, "port closed");
	ck_assert_ptr_null(p.priv);
	ck_assert_uint_eq(port_peer_connections(&p), 0);
	close(a[1]);
	close(b[1]);
	loop_free(l);
}
END_TEST

static const struct port_peer_ops pp_ops2 = {
	.attach = pp_attach,
	.close = pp_close,
	.conn_stats = pp_conn_stats,
	.max_peers = 2,
};

START_TEST(pp_two_peers_third_refused)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct port_stats s = { .nqp = 1 };
	static int src, dst;
	struct port_peer *pp;
	struct port p;
	int a[2], b[2], c[2];

	ck_assert_ptr_nonnull(l);
	pp_port(&p, l, "/nonexistent/pp.sock", "");
	pp = port_peer_of(&p, &pp_ops2);
	ck_assert_ptr_nonnull(pp);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, c), 0);
	ck_assert(!port_peer_refuse(&p, a[0], "test peer"));
	port_peer_served(&p, &src, a[0]);
	ck_assert(!port_peer_refuse(&p, b[0], "test peer"));
	port_peer_served(&p, &dst, b[0]);
	ck_assert_uint_eq(port_peer_connections(&p), 2);
	ck_assert(port_peer_refuse(&p, c[0], "test peer"));
	ck_assert_int_eq(fcntl(c[0], F_GETFD), -1);
	ck_assert_uint_eq(pp->refused, 1);
	port_peer_get_stats(&p, &s);
	ck_assert_uint_eq(s.tx[0].frames, 10);	/* both live peers */
	/* status: the newest peer's SO_PEERCRED (a socketpair: this process) */
	{
		struct port_peer_info pi = { .pid = -1, .uid = (uid_t)-1, .last_disconnect = "" };

		port_peer_get_info(&p, &pi);
		ck_assert_int_eq(pi.pid, getpid());
		ck_assert_uint_eq(pi.uid, getuid());
		ck_assert_uint_eq(pi.accepted, 2);
		ck_assert_uint_eq(pi.refused, 1);
		ck_assert_uint_eq(pi.disconnects, 0);
		ck_assert_str_eq(pi.last_disconnect, "");
	}
	/* the source goes: the destination stays, the port stays connected */
	port_peer_closed(&p, &src, "migrated away");
	ck_assert_uint_eq(port_peer_connections(&p), 1);
	ck_assert_str_eq(p.state, "connected");
	{
		struct port_peer_info pi = { .pid = -1, .uid = (uid_t)-1, .last_disconnect = "" };

		port_peer_get_info(&p, &pi);
		ck_assert_int_eq(pi.pid, getpid());	/* the destination's */
		ck_assert_uint_eq(pi.disconnects, 1);
		ck_assert_str_eq(pi.last_disconnect, "migrated away");
	}
	ck_assert(!port_peer_refuse(&p, c[1], "test peer"));
	port_peer_closed(&p, &dst, NULL);
	ck_assert_str_eq(p.state, "listening");
	ck_assert_uint_eq(port_peer_connections(&p), 0);
	{
		struct port_peer_info pi = { .pid = -1, .uid = (uid_t)-1, .last_disconnect = "" };

		port_peer_get_info(&p, &pi);
		ck_assert_int_eq(pi.pid, -1);		/* nobody connected */
		ck_assert_uint_eq(pi.disconnects, 2);
		ck_assert_str_eq(pi.last_disconnect, "hung up");
	}
	port_peer_teardown(&p);
	ck_assert_int_eq(pp_closes, 0);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	close(c[1]);
	loop_free(l);
}
END_TEST

START_TEST(pp_peer_closed_back_to_listening)
{
	char err[128];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct port p;
	int a[2];

	ck_assert_ptr_nonnull(l);
	pp_port(&p, l, "/nonexistent/pp.sock", "");
	ck_assert_ptr_nonnull(port_peer_of(&p, &pp_ops));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	pp_attach(&p, a[0]);
	pp_close(&pp_conn_token, NULL);
	port_peer_closed(&p, &pp_conn_token, NULL);
	ck_assert_str_eq(p.state, "listening");
	ck_assert_uint_eq(port_peer_connections(&p), 0);
	port_peer_teardown(&p);
	ck_assert_int_eq(pp_closes, 1);	/* no peer left to close */
	close(a[1]);
	loop_free(l);
}
END_TEST

START_TEST(pp_connect_retries_until_listener)
{
	char err[128], dir[] = "/tmp/pp-test.XXXXXX", path[108];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct loop_ref guard;
	struct port p;
	int ls, c;

	ck_assert_ptr_nonnull(l);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/peer.sock", dir);
	pp_port(&p, l, "", path);
	ck_assert_int_eq(port_peer_connect(&p, &pp_ops, false, err, sizeof(err)), 0);
	ck_assert_str_eq(p.state, "connecting");
	ck_assert_int_eq(pp_attached, -1);
	/* now a listener appears; the retry (1 s) must reach it */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ls = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(ls, 0);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(ls, 4), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, pp_quit), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 5000000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 0);
	ck_assert_int_ge(pp_attached, 0);
	ck_assert_str_eq(p.state, "connected");
	c = accept(ls, NULL, NULL);
	ck_assert_int_ge(c, 0);
	/* the peer goes: client mode goes back to connecting */
	pp_close(&pp_conn_token, "test");
	port_peer_closed(&p, &pp_conn_token, NULL);
	ck_assert_str_eq(p.state, "connecting");
	port_peer_teardown(&p);
	loop_timer_fini(l, &guard);
	close(c);
	close(ls);
	unlink(path);
	rmdir(dir);
	loop_free(l);
}
END_TEST

/**
 * pp_listener() - a listening socket at a fresh path
 * @dir: filled: a new directory (mkdtemp template "/tmp/pp-test.XXXXXX")
 * @path: filled: DIR/peer.sock
 * @pathlen: its size
 *
 * Return: the socket (non-blocking, so that accept() tells "none").
 */
static int pp_listener(char *dir, char *path, size_t pathlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int ls;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, pathlen, "%s/peer.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ls = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
	ck_assert_int_ge(ls, 0);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(ls, 4), 0);
	return ls;
}

/**
 * pp_pending() - how many connections wait in a listener's backlog
 * @ls: the listener (non-blocking); they are accepted and closed
 *
 * Return: the count.
 */
static int pp_pending(int ls)
{
	int n = 0, c;

	while ((c = accept(ls, NULL, NULL)) >= 0) {
		close(c);
		n++;
	}
	ck_assert_int_eq(errno, EAGAIN);
	return n;
}

START_TEST(pp_connect_later_from_loop)
{
	char err[128], dir[] = "/tmp/pp-test.XXXXXX", path[108];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct loop_ref guard;
	struct port p;
	int ls;

	ck_assert_ptr_nonnull(l);
	ls = pp_listener(dir, path, sizeof(path));
	pp_port(&p, l, "", path);
	ck_assert_int_eq(port_peer_connect(&p, &pp_ops, true, err, sizeof(err)), 0);
	/* nothing before the loop runs */
	ck_assert_int_eq(pp_attached, -1);
	ck_assert_str_eq(p.state, "connecting");
	ck_assert_int_eq(pp_pending(ls), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, pp_quit), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 5000000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 0);	/* pp_attach quits with 0 */
	ck_assert_int_ge(pp_attached, 0);
	ck_assert_str_eq(p.state, "connected");
	ck_assert_int_eq(pp_pending(ls), 1);
	port_peer_teardown(&p);
	loop_timer_fini(l, &guard);
	close(ls);
	unlink(path);
	rmdir(dir);
	loop_free(l);
}
END_TEST

static struct port *pp_drop_port;	/* pp_drop_peer()'s port */
static int pp_drop_ls = -1;		/* its listener */
static int pp_drop_pending = -1;	/* connections waiting when it ran */
static const char *pp_drop_state;	/* the port's state then */

/**
 * pp_drop_peer() - timer: note what the port did so far, close its peer
 * @loop: the loop
 * @ref: the timer
 * @events: epoll events
 */
static void pp_drop_peer(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	pp_drop_pending = pp_pending(pp_drop_ls);
	pp_drop_state = pp_drop_port->state;
	pp_close(&pp_conn_token, "test");
	port_peer_closed(pp_drop_port, &pp_conn_token, NULL);
}

START_TEST(pp_connect_later_keeps_served_peer)
{
	char err[128], dir[] = "/tmp/pp-test.XXXXXX", path[108];
	struct loop *l = loop_new(NULL, NULL, err, sizeof(err));
	struct loop_ref guard, drop;
	struct port p;
	int ls, a[2];

	ck_assert_ptr_nonnull(l);
	ls = pp_listener(dir, path, sizeof(path));
	pp_port(&p, l, "", path);
	ck_assert_int_eq(port_peer_connect(&p, &pp_ops, true, err, sizeof(err)), 0);
	/* a connection taken over from a predecessor is served first */
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
	pp_attached = a[0];
	port_peer_served(&p, &pp_conn_token, a[0]);
	/* the loop's first turns pass (the connect timer expires at once),
	 * then the peer closes; the reconnect timer (1 s) connects as usual */
	pp_drop_port = &p;
	pp_drop_ls = ls;
	ck_assert_int_eq(loop_timer_init(l, &drop, pp_drop_peer), 0);
	ck_assert_int_eq(loop_timer_set(&drop, 200000000ULL, 0), 0);
	ck_assert_int_eq(loop_timer_init(l, &guard, pp_quit), 0);
	ck_assert_int_eq(loop_timer_set(&guard, 5000000000ULL, 0), 0);
	ck_assert_int_eq(loop_run(l), 0);	/* pp_attach quits with 0 */
	ck_assert_int_eq(pp_drop_pending, 0);
	ck_assert_str_eq(pp_drop_state, "connected");
	ck_assert_int_ge(pp_attached, 0);
	ck_assert_str_eq(p.state, "connected");
	ck_assert_int_eq(pp_pending(ls), 1);
	port_peer_teardown(&p);
	loop_timer_fini(l, &guard);
	loop_timer_fini(l, &drop);
	close(a[1]);
	close(ls);
	unlink(path);
	rmdir(dir);
	loop_free(l);
}
END_TEST

/**
 * port_peer_suite() - the suite
 *
 * Return: it.
 */
Suite *port_peer_suite(void)
{
	Suite *s = suite_create("port_peer");
	TCase *tc = tcase_create("port_peer");

	tcase_set_timeout(tc, 20);
	tcase_add_test(tc, pp_second_peer_refused);
	tcase_add_test(tc, pp_peer_closed_back_to_listening);
	tcase_add_test(tc, pp_two_peers_third_refused);
	tcase_add_test(tc, pp_connect_retries_until_listener);
	tcase_add_test(tc, pp_connect_later_from_loop);
	tcase_add_test(tc, pp_connect_later_keeps_served_peer);
	suite_add_tcase(s, tc);
	return s;
}
