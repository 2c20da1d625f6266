// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_livestore.c - livestore.c against a NOTIFY_SOCKET of the
 * test's own: what each change of a kept connection sends (and in which
 * order), the state it stores, nothing for a change that is none, and a
 * change's cost independent of the other connections kept
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "check_daemon.h"
#include "runner.h"
#include "handover_state.h"
#include "livestore.h"

/* what the "systemd" socket received since the last ls_drain() */
static char ls_log[8192];
static int ls_state_fd = -1;	/* the last state stored */

/**
 * ls_sink() - bind an abstract NOTIFY_SOCKET for this process
 *
 * Return: the socket, or -1.
 */
static int ls_sink(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[128];
	int ns;

	ns = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "vringnet-livestore-%d", (int)getpid());
	if (ns < 0 || bind(ns, (struct sockaddr *)&sa,
			   offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1)) < 0)
		return -1;
	snprintf(buf, sizeof(buf), "@%s", sa.sun_path + 1);
	setenv("NOTIFY_SOCKET", buf, 1);
	return ns;
}

/**
 * ls_drain() - read every message waiting, one line each into ls_log
 * @ns: the sink
 *
 * A message's lines are joined with ' '; the fd of a stored state is kept
 * in ls_state_fd, others are closed.
 *
 * Return: the number of messages.
 */
static int ls_drain(int ns)
{
	char buf[512], ctl[CMSG_SPACE(sizeof(int) * 4)];
	int n = 0;

	ls_log[0] = '\0';
	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };
		struct cmsghdr *c;
		ssize_t len = recvmsg(ns, &mh, 0);
		char *p;
		int fd = -1;

		if (len <= 0)
			return n;
		buf[len] = '\0';
		for (p = buf; (p = strchr(p, '\n')); )
			*p = ' ';
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
				memcpy(&fd, CMSG_DATA(c), sizeof(fd));
		if (fd >= 0 && strstr(buf, "FDNAME=" LIVESTORE_STATE_NAME)) {
			if (ls_state_fd >= 0)
				close(ls_state_fd);
			ls_state_fd = fd;
		} else if (fd >= 0) {
			close(fd);
		}
		snprintf(ls_log + strlen(ls_log), sizeof(ls_log) - strlen(ls_log), "%s|", buf);
		n++;
	}
}

/**
 * ls_before() - whether @a comes before @b in ls_log (both present)
 * @a: a message
 * @b: another
 *
 * Return: true when it does.
 */
static bool ls_before(const char *a, const char *b)
{
	const char *x = strstr(ls_log, a), *y = strstr(ls_log, b);

	return x && y && x < y;
}

/**
 * ls_child() - in a child: one connection's life as port_vhost_user.c
 *		reports it, the messages counted
 *
 * Return: 0, else the failed step.
 */
static int ls_child(void)
{
	struct hovs_vhost_user *v = calloc(1, sizeof(*v));
	int sv[2], mem, m1, m2, n1, n2, kick, ns, key;
	char want[96], want2[96], state[64], err[256];
	struct handover_state st;
	unsigned long before;
	size_t len;
	void *buf;

	ns = ls_sink();
	if (!v || ns < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return 10;
	mem = memfd_create("guest", MFD_CLOEXEC);
	if (mem < 0 || ftruncate(mem, 1 << 20) < 0)
		return 11;
	livestore_enable(0, false);
	if (!livestore_enabled())
		return 12;
	key = sv[1];
	snprintf(state, sizeof(state), "FDNAME=" LIVESTORE_STATE_NAME ".%d|", key);

	/* accept: the socket, then the connection's own state */
	snprintf(v->port, sizeof(v->port), "vm1");
	v->sock = sv[1];
	v->nvrings = 2;
	v->vrings[0].kick = v->vrings[0].call = v->vrings[0].err = -1;
	v->vrings[1].kick = v->vrings[1].call = v->vrings[1].err = -1;
	livestore_update(key, v);
	snprintf(want, sizeof(want), "FDSTORE=1 FDNAME=restart.fd.%d|", sv[1]);
	snprintf(want2, sizeof(want2), "FDSTORE=1 %s", state);
	if (ls_drain(ns) != 2 || livestore_messages() != 2 || !ls_before(want, want2) ||
	    strstr(ls_log, "FDSTOREREMOVE=1"))
		return 1;

	/* the same record again (GET_FEATURES, say): nothing */
	livestore_update(key, v);
	if (ls_drain(ns) != 0)
		return 2;

	/* SET_MEM_TABLE: two regions of one memfd share one name */
	m1 = dup(mem);
	m2 = dup(mem);
	v->nregions = 2;
	v->regions[0].fd = m1;
	v->regions[0].size = 4096;
	v->regions[1].fd = m2;
	v->regions[1].guest_addr = 4096;
	v->regions[1].size = 4096;
	before = livestore_messages();
	livestore_update(key, v);
	snprintf(want, sizeof(want), "FDSTORE=1 FDNAME=restart.fd.%d,%d|", m1, m2);
	if (ls_drain(ns) != 3 || livestore_messages() - before != 3 || !strstr(ls_log, want))
		return 3;

	/* SET_MEM_TABLE again, the same memfd under new numbers (as QEMU
	 * sends it): the old name leaves first, else systemd would drop the
	 * new copy of a file it holds */
	n1 = dup(mem);
	n2 = dup(mem);
	v->regions[0].fd = n1;
	v->regions[1].fd = n2;
	livestore_update(key, v);
	close(m1);
	close(m2);
	snprintf(want, sizeof(want), "FDSTOREREMOVE=1 FDNAME=restart.fd.%d,%d|", m1, m2);
	snprintf(want2, sizeof(want2), "FDSTORE=1 FDNAME=restart.fd.%d,%d|", n1, n2);
	if (ls_drain(ns) != 4 || !ls_before(want, want2))
		return 4;

	/* SET_VRING_KICK: one eventfd more */
	kick = eventfd(0, EFD_CLOEXEC);
	v->vrings[1].kick = kick;
	v->vrings[1].flags = HOVS_VRING_KICK_SET | HOVS_VRING_STARTED;
	livestore_update(key, v);
	snprintf(want, sizeof(want), "FDSTORE=1 FDNAME=restart.fd.%d|", kick);
	if (ls_drain(ns) != 3 || !strstr(ls_log, want))
		return 5;

	/* the state stored is this record, marked: positions from the rings */
	if (ls_state_fd < 0 || handover_state_from_memfd(ls_state_fd, &buf, &len, err, sizeof(err)) < 0 ||
	    handover_state_parse(buf, len, &st, err, sizeof(err)) < 0)
		return 6;
	free(buf);
	if (st.nvu != 1 || !(st.vu[0].flags & HOVS_VU_FROM_RINGS) || st.vu[0].sock != sv[1] ||
	    st.vu[0].nregions != 2 || st.vu[0].vrings[1].kick != kick || strcmp(st.vu[0].port, "vm1"))
		return 7;
	handover_state_free(&st);

	/* the connection closes: every name leaves, and the state, before
	 * the daemon closes anything; nothing is stored */
	livestore_update(key, NULL);
	if (ls_drain(ns) != 4 || strstr(ls_log, "FDSTORE=1"))
		return 8;
	snprintf(want, sizeof(want), "FDSTOREREMOVE=1 FDNAME=restart.fd.%d|", sv[1]);
	snprintf(want2, sizeof(want2), "FDSTOREREMOVE=1 FDNAME=restart.fd.%d|", kick);
	if (!strstr(ls_log, want) || !strstr(ls_log, want2) || !strstr(ls_log, state))
		return 9;
	free(v);
	return 0;
}

START_TEST(livestore_connection_life)
{
	runner_in_child(ls_child);
}
END_TEST

/**
 * ls_conn() - a kept connection's record: a socket, one memory region,
 *	       one call eventfd
 * @v: filled
 *
 * Return: 0, or -1.
 */
static int ls_conn(struct hovs_vhost_user *v)
{
	int sv[2], mem;

	memset(v, 0, sizeof(*v));
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	mem = memfd_create("guest", MFD_CLOEXEC);
	if (mem < 0 || ftruncate(mem, 1 << 20) < 0)
		return -1;
	snprintf(v->port, sizeof(v->port), "vm%d", sv[1]);
	v->sock = sv[1];
	v->nregions = 1;
	v->regions[0].fd = mem;
	v->regions[0].size = 4096;
	v->nvrings = 2;
	v->vrings[0].kick = v->vrings[0].call = v->vrings[0].err = -1;
	v->vrings[1].kick = v->vrings[1].err = -1;
	v->vrings[1].call = eventfd(0, EFD_CLOEXEC);
	return v->vrings[1].call < 0 ? -1 : 0;
}

/**
 * ls_new_call() - SET_VRING_CALL with a fresh eventfd, as a hostile
 *		   front-end loops it, and what it cost
 * @ns: the sink
 * @v: the connection's record (its call eventfd replaced)
 * @msgs: out: notify messages sent
 * @work: out: livestore_work() steps
 *
 * Return: 0, or -1.
 */
static int ls_new_call(int ns, struct hovs_vhost_user *v, unsigned long *msgs, unsigned long *work)
{
	unsigned long m0 = livestore_messages(), w0 = livestore_work();
	int old = v->vrings[1].call;

	v->vrings[1].call = eventfd(0, EFD_CLOEXEC);
	if (v->vrings[1].call < 0)
		return -1;
	livestore_update(v->sock, v);
	close(old);
	*msgs = livestore_messages() - m0;
	*work = livestore_work() - w0;
	return ls_drain(ns) == (int)*msgs ? 0 : -1;
}

/**
 * ls_child_cost() - in a child: one connection's change costs the same
 *		     with 1 and with 64 other connections kept
 *
 * Return: 0, else the failed step.
 */
static int ls_child_cost(void)
{
	struct hovs_vhost_user *v = calloc(65, sizeof(*v));
	unsigned long m1, w1, m64, w64;
	char want[96];
	int ns = ls_sink();
	unsigned int i;

	if (!v || ns < 0)
		return 10;
	livestore_enable(0, false);
	for (i = 0; i < 2; i++) {
		if (ls_conn(&v[i]) < 0)
			return 11;
		livestore_update(v[i].sock, &v[i]);
		ls_drain(ns);
	}
	if (ls_new_call(ns, &v[0], &m1, &w1) < 0)
		return 1;
	/* the old name leaves, the new one comes, the state is replaced */
	snprintf(want, sizeof(want), "FDSTORE=1 FDNAME=" LIVESTORE_STATE_NAME ".%d|", v[0].sock);
	if (m1 != 4 || w1 == 0)
		return 2;
	for (i = 2; i < 65; i++) {
		if (ls_conn(&v[i]) < 0)
			return 12;
		livestore_update(v[i].sock, &v[i]);
		ls_drain(ns);
	}
	if (ls_new_call(ns, &v[0], &m64, &w64) < 0 || !strstr(ls_log, want))
		return 3;
	printf("# live store: SET_VRING_CALL of one connection: %lu notify messages, %lu work steps with 1 other connection kept; %lu, %lu with 64\n",
	       m1, w1, m64, w64);
	fflush(stdout);
	if (m64 != m1 || w64 != w1)
		return 4;
	/* nothing of another connection was touched */
	snprintf(want, sizeof(want), "FDNAME=restart.fd.%d|", v[1].sock);
	if (strstr(ls_log, want))
		return 5;
	free(v);
	return 0;
}

START_TEST(livestore_cost_per_connection)
{
	runner_in_child(ls_child_cost);
}
END_TEST

/**
 * ls_child_reuse() - in a child: a closed connection's number taken by
 *		      the next one
 *
 * Return: 0, else the failed step.
 */
static int ls_child_reuse(void)
{
	struct hovs_vhost_user a, b;
	int ns = ls_sink(), sock;
	char want[96];

	if (ns < 0 || ls_conn(&a) < 0)
		return 10;
	livestore_enable(0, false);
	livestore_update(a.sock, &a);
	snprintf(want, sizeof(want), "FDSTORE=1 FDNAME=" LIVESTORE_STATE_NAME ".%d|", a.sock);
	if (ls_drain(ns) != 4 || !strstr(ls_log, want))
		return 1;
	/* closed: its names and state leave before its fds close */
	sock = a.sock;
	livestore_update(a.sock, NULL);
	if (ls_drain(ns) != 4 || strstr(ls_log, "FDSTORE=1"))
		return 2;
	handover_state_vu_close(&a);
	/* the next connection on the same socket number: stored afresh */
	if (ls_conn(&b) < 0 || dup2(b.sock, sock) != sock)
		return 11;
	close(b.sock);
	b.sock = sock;
	livestore_update(b.sock, &b);
	if (ls_drain(ns) != 4 || strstr(ls_log, "FDSTOREREMOVE=1") || !strstr(ls_log, want))
		return 3;
	return 0;
}

START_TEST(livestore_number_reused)
{
	runner_in_child(ls_child_reuse);
}
END_TEST

/**
 * ls_child_states() - in a child: the running states livestore_states()
 *		       counts, which restart.c makes room for
 *
 * Return: 0, else the failed step.
 */
static int ls_child_states(void)
{
	struct hovs_vhost_user a, b;
	int ns = ls_sink();

	if (ns < 0 || ls_conn(&a) < 0 || ls_conn(&b) < 0)
		return 10;
	if (livestore_states() != 0)
		return 1;	/* off: none */
	livestore_enable(0, false);
	livestore_update(a.sock, &a);
	livestore_update(b.sock, &b);
	ls_drain(ns);
	if (livestore_states() != 2)
		return 2;
	livestore_update(a.sock, NULL);
	ls_drain(ns);
	if (livestore_states() != 1)
		return 3;
	livestore_stop();
	ls_drain(ns);
	if (livestore_states() != 0)
		return 4;
	return 0;
}

START_TEST(livestore_states_counted)
{
	runner_in_child(ls_child_states);
}
END_TEST

/**
 * ls_child_successor() - in a child: an upgrade's successor replaces its
 *			  predecessor's states
 *
 * Return: 0, else the failed step.
 */
static int ls_child_successor(void)
{
	struct hovs_vhost_user a;
	int ns = ls_sink();
	char gone[96], come[96];

	if (ns < 0 || ls_conn(&a) < 0)
		return 10;
	/* the one state of an earlier version leaves */
	livestore_enable(0, true);
	if (ls_drain(ns) != 1 || !strstr(ls_log, "FDSTOREREMOVE=1 FDNAME=" LIVESTORE_STATE_NAME "|"))
		return 1;
	/* the state the predecessor stored under the socket it handed over
	 * leaves before this instance stores its own */
	livestore_update(a.sock, &a);
	snprintf(gone, sizeof(gone), "FDSTOREREMOVE=1 FDNAME=" LIVESTORE_STATE_NAME ".%d|", a.sock);
	snprintf(come, sizeof(come), "FDSTORE=1 FDNAME=" LIVESTORE_STATE_NAME ".%d|", a.sock);
	if (ls_drain(ns) != 5 || !ls_before(gone, come))
		return 2;
	return 0;
}

START_TEST(livestore_successor)
{
	runner_in_child(ls_child_successor);
}
END_TEST

/**
 * ls_child_budget() - in a child: FileDescriptorStoreMax= counted over
 *		       every connection's names and states
 *
 * Return: 0, else the failed step.
 */
static int ls_child_budget(void)
{
	struct hovs_vhost_user a, b;
	int ns = ls_sink();
	char want[96];

	if (ns < 0 || ls_conn(&a) < 0 || ls_conn(&b) < 0)
		return 10;
	/* room for one connection: socket, memory, call, state */
	livestore_enable(6, false);
	livestore_update(a.sock, &a);
	if (ls_drain(ns) != 4)
		return 1;
	/* the second does not fit: nothing of it is stored */
	livestore_update(b.sock, &b);
	if (ls_drain(ns) != 0)
		return 2;
	/* the first leaves: the second fits at its next change */
	livestore_update(a.sock, NULL);
	if (ls_drain(ns) != 4)
		return 3;
	b.mtu = 1500;
	livestore_update(b.sock, &b);
	snprintf(want, sizeof(want), "FDSTORE=1 FDNAME=" LIVESTORE_STATE_NAME ".%d|", b.sock);
	if (ls_drain(ns) != 4 || !strstr(ls_log, want))
		return 4;
	return 0;
}

START_TEST(livestore_budget_all_connections)
{
	runner_in_child(ls_child_budget);
}
END_TEST

/**
 * ls_child_off() - in a child: without NOTIFY_SOCKET nothing is kept
 *
 * Return: 0, else the failed step.
 */
static int ls_child_off(void)
{
	struct hovs_vhost_user v;

	unsetenv("NOTIFY_SOCKET");
	livestore_enable(0, false);
	if (livestore_enabled())
		return 1;
	memset(&v, 0, sizeof(v));
	v.sock = 0;
	livestore_update(0, &v);
	return livestore_messages() == 0 ? 0 : 2;
}

START_TEST(livestore_off_without_systemd)
{
	runner_in_child(ls_child_off);
}
END_TEST

/**
 * ls_child_full() - in a child: a store too small for anything
 *
 * Return: 0, else the failed step.
 */
static int ls_child_full(void)
{
	int ns = ls_sink();

	if (ns < 0)
		return 10;
	livestore_enable(1, false);
	return livestore_enabled() ? 1 : 0;
}

START_TEST(livestore_off_without_room)
{
	runner_in_child(ls_child_full);
}
END_TEST

/**
 * ls_names() - livestore_group() of an fd table, its names joined with ' '
 * @fds: the table
 * @n: its entries
 * @out: the names
 * @len: size of @out
 *
 * Return: livestore_group()'s answer.
 */
static int ls_names(const int *fds, unsigned int n, char *out, size_t len)
{
	struct {
		struct hovs_header h;
		uint32_t tab[16];
	} b;
	struct livestore_groups g;
	unsigned int i;
	size_t l = 0;
	int ret;

	memset(&b, 0, sizeof(b));
	b.h.nfds = n;
	for (i = 0; i < n; i++)
		b.tab[i] = (uint32_t)fds[i];
	ret = livestore_group(&b, &g);
	out[0] = '\0';
	for (i = 0; !ret && i < g.n; i++) {
		l += (size_t)snprintf(out + l, len - l, "%s%s", i ? " " : "", g.names[i]);
		if (g.firsts[i] < 0)
			ret = -1;
	}
	livestore_groups_free(&g);
	return ret;
}

/*
 * The names of a table holding copies: one eventfd passed twice (the call
 * fd of both rings of a ring-fd client) and once more under the same
 * number, a memfd, a dup of it and a second open of its inode; two
 * different eventfds and a socket pair stay apart.  systemd keeps one
 * copy of an open file (kcmp()), so each copy must share its first's name.
 */
START_TEST(livestore_group_copies)
{
	int e1, e1b, e2, m, mb, m2, sv[2];
	char want[1024], got[1024], path[64];

	if (syscall(SYS_kcmp, getpid(), getpid(), KCMP_FILE, 0, 0) < 0 && errno == ENOSYS)
		runner_skip("kcmp() unavailable (a kernel without CONFIG_CHECKPOINT_RESTORE)");
	e1 = eventfd(0, EFD_CLOEXEC);
	e2 = eventfd(0, EFD_CLOEXEC);
	m = memfd_create("guest", MFD_CLOEXEC);
	ck_assert(e1 >= 0 && e2 >= 0 && m >= 0);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	e1b = fcntl(e1, F_DUPFD_CLOEXEC, 3);
	mb = fcntl(m, F_DUPFD_CLOEXEC, 3);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", m);
	m2 = open(path, O_RDWR | O_CLOEXEC);
	ck_assert(e1b >= 0 && mb >= 0 && m2 >= 0);
	{
		int tab[] = { sv[0], e1, m, e2, e1b, mb, sv[1], m2, e1 };

		ck_assert_int_eq(ls_names(tab, 9, got, sizeof(got)), 0);
	}
	snprintf(want, sizeof(want),
		 "restart.fd.%d restart.fd.%d,%d,%d restart.fd.%d,%d,%d restart.fd.%d restart.fd.%d",
		 sv[0], e1, e1b, e1, m, mb, m2, e2, sv[1]);
	ck_assert_str_eq(got, want);
	/* no copies: a name each */
	{
		int tab[] = { e1, e2, sv[0], sv[1] };

		ck_assert_int_eq(ls_names(tab, 4, got, sizeof(got)), 0);
	}
	snprintf(want, sizeof(want), "restart.fd.%d restart.fd.%d restart.fd.%d restart.fd.%d",
		 e1, e2, sv[0], sv[1]);
	ck_assert_str_eq(got, want);
	close(e1);
	close(e1b);
	close(e2);
	close(m);
	close(mb);
	close(m2);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/**
 * livestore_suite() - the suite
 *
 * Return: it.
 */
Suite *livestore_suite(void)
{
	Suite *s = runner_suite_create("livestore");

	RUNNER_ADD_TEST(s, livestore_connection_life);
	RUNNER_ADD_TEST(s, livestore_cost_per_connection);
	RUNNER_ADD_TEST(s, livestore_number_reused);
	RUNNER_ADD_TEST(s, livestore_states_counted);
	RUNNER_ADD_TEST(s, livestore_successor);
	RUNNER_ADD_TEST(s, livestore_budget_all_connections);
	RUNNER_ADD_TEST(s, livestore_off_without_systemd);
	RUNNER_ADD_TEST(s, livestore_off_without_room);
	RUNNER_ADD_TEST(s, livestore_group_copies);
	return s;
}
