// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_control.c - answer control requests from the daemon's running state
 *
 * status: the daemon's line (with its pump threads and their CPUs), then
 * what list gives, each running port with its [port] workers and the pump
 * thread of each queue pair; list: every running tap
 * and port, then every configured one that is down with the reason of its
 * last attempt; stats: a port's counters (or every port's) and its tap's;
 * reload: daemon_reload() and what it applied; upgrade: handover_upgrade()
 * for root or the daemon's uid.  Nothing here changes the running set
 * except through daemon_reload() and handover_upgrade().
 */
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "daemon_control.h"
#include "daemon_priv.h"
#include "handover.h"
#include "vq.h"
#include "worker.h"

/**
 * daemon_control_list() - numbers as a comma-separated list ("1,0,-")
 * @buf: output
 * @len: its size (a list that does not fit ends where it stops fitting)
 * @v: the numbers; a negative one is written "-"
 * @n: how many
 *
 * Return: @buf ("" for none).
 */
static const char *daemon_control_list(char *buf, size_t len, const int *v, unsigned int n)
{
	size_t pos = 0;
	unsigned int i;
	int k;

	buf[0] = '\0';
	for (i = 0; i < n && pos < len; i++) {
		if (v[i] < 0)
			k = snprintf(buf + pos, len - pos, "%s-", i ? "," : "");
		else
			k = snprintf(buf + pos, len - pos, "%s%d", i ? "," : "", v[i]);
		if (k < 0 || (size_t)k >= len - pos) {
			buf[pos] = '\0';
			break;
		}
		pos += (size_t)k;
	}
	return buf;
}

/**
 * daemon_control_daemon() - the daemon's own line of a status reply
 * @d: daemon
 * @w: the reply
 */
static void daemon_control_daemon(struct daemon *d, struct ctlproto_writer *w)
{
	char user[64], cpus[CFG_MAX_WORKERS * 12];
	struct ctlproto_daemon_info di = {
		.pid = getpid(), .version = VRINGNETD_VERSION,
		.engine = d->eng->name, .config = d->cfg.path,
		.uptime = (uint64_t)daemon_uptime(d), .caps = d->caps,
		.user = user, .ntaps = d->ntaps, .nports = d->nports,
		.workers = worker_pool_size(), .worker_cpus = cpus,
	};
	struct passwd *pw = getpwuid(geteuid());
	int v[CFG_MAX_WORKERS];
	unsigned int i;

	/* worker i is pinned to the i-th CPU of worker-cpus (read at start) */
	for (i = 0; i < di.workers && i < d->cfg.nworker_cpus && i < CFG_MAX_WORKERS; i++)
		v[i] = (int)d->cfg.worker_cpus[i];
	daemon_control_list(cpus, sizeof(cpus), v, i);

	if (pw)
		snprintf(user, sizeof(user), "%s", pw->pw_name);
	else
		snprintf(user, sizeof(user), "%ld", (long)geteuid());
	ctlproto_reply_daemon(w, &di);
}

/**
 * daemon_control_taps() - the taps of a list reply: running, then down
 * @d: daemon
 * @w: the reply
 */
static void daemon_control_taps(struct daemon *d, struct ctlproto_writer *w)
{
	struct netlink_link_info li;
	unsigned int i;

	for (i = 0; i < d->ntaps; i++) {
		struct daemon_tap *t = d->taps[i];
		struct ctlproto_tap_info ti = {
			.name = t->cfg.name, .queues = t->dev.nqueues,
			.persist = t->cfg.persist,
		};

		if (netlink_link_info(d->nl, t->cfg.name, &li) == 0) {
			ti.ifindex = li.ifindex;
			ti.mtu = li.mtu;
			ti.state = li.up ? "up" : "down";
		} else {
			ti.state = "missing";
		}
		ctlproto_reply_tap(w, &ti);
	}
	/* configured taps that are down, with the reason */
	for (i = 0; i < d->cfg.ntaps; i++) {
		const struct config_tap *c = &d->cfg.taps[i];
		const char *why = daemon_fail_find(d, false, c->name);
		struct ctlproto_tap_info ti = {
			.name = c->name, .state = "failed", .persist = c->persist,
			.error = why ? why : "not running",
		};

		if (daemon_find_tap(d, c->name) >= 0)
			continue;
		ctlproto_reply_tap(w, &ti);
	}
}

/**
 * daemon_control_workers() - a running port's pump threads, for status
 * @p: the port
 * @allowed: out: its [port] workers list, "" for any
 * @alen: its size
 * @pairs: out: the worker of each queue pair (vq_worker_of()), "-" for none
 * @plen: its size
 */
static void daemon_control_workers(const struct port *p, char *allowed, size_t alen,
				   char *pairs, size_t plen)
{
	int v[CFG_MAX_QUEUES > CFG_MAX_WORKERS ? CFG_MAX_QUEUES : CFG_MAX_WORKERS];
	unsigned int i, n = 0;

	for (i = 0; i < CFG_MAX_WORKERS; i++)
		if (p->cfg.workers & (1ULL << i))
			v[n++] = (int)i;
	daemon_control_list(allowed, alen, v, n);
	n = port_pairs(p);
	for (i = 0; i < n; i++)
		v[i] = vq_worker_of(p, i);
	daemon_control_list(pairs, plen, v, n);
}

/**
 * daemon_control_ports() - the ports of a list reply: running, then down
 * @d: daemon
 * @w: the reply
 * @workers: also each running port's workers and the worker of each of
 *	its queue pairs (status)
 */
static void daemon_control_ports(struct daemon *d, struct ctlproto_writer *w, bool workers)
{
	char allowed[CFG_MAX_WORKERS * 3 + 1], pairs[CFG_MAX_QUEUES * 3 + 1];
	unsigned int i;

	for (i = 0; i < d->nports; i++) {
		struct port *p = d->ports[i];
		struct port_peer_info ppi;
		struct ctlproto_port_info pi = {
			.name = p->cfg.name, .type = config_port_type_name(p->cfg.type),
			.tap = p->cfg.tap,
			.socket = p->cfg.listen[0] ? p->cfg.listen : p->cfg.connect,
			.state = p->state, .connections = port_connections(p),
		};

		port_get_peer_info(p, &ppi);
		pi.peer_pid = ppi.pid;
		pi.peer_uid = ppi.uid == (uid_t)-1 ? -1 : (long)ppi.uid;
		pi.peer_counts = p->ops->peer_info != NULL;
		pi.accepted = ppi.accepted;
		pi.refused = ppi.refused;
		pi.disconnects = ppi.disconnects;
		pi.last_disconnect = ppi.last_disconnect;
		if (workers) {
			daemon_control_workers(p, allowed, sizeof(allowed), pairs, sizeof(pairs));
			pi.workers = allowed;
			pi.pair_workers = pairs;
		}
		pi.memory = ppi.memory;
		pi.memory_bytes = ppi.memory_bytes;
		pi.memory_mapped = ppi.memory_mapped;

		ctlproto_reply_port(w, &pi);
	}
	/* configured ports that are down, with the reason */
	for (i = 0; i < d->cfg.nports; i++) {
		const struct config_port *c = &d->cfg.ports[i];
		const char *why = daemon_fail_find(d, true, c->name);
		struct ctlproto_port_info pi = {
			.name = c->name, .type = config_port_type_name(c->type),
			.tap = c->tap, .socket = c->listen[0] ? c->listen : c->connect,
			.state = "failed", .error = why ? why : "not running",
		};

		if (daemon_find_port(d, c->name) >= 0)
			continue;
		ctlproto_reply_port(w, &pi);
	}
}

/**
 * daemon_control_stats() - a stats reply: each port's counters and its tap's
 * @d: daemon
 * @w: the reply
 * @port: the one port asked for, or "" for every port
 * @queues: also a record per queue pair (stats queues=yes)
 */
static void daemon_control_stats(struct daemon *d, struct ctlproto_writer *w, const char *port,
				 bool queues)
{
	struct netlink_link_info li;
	struct engine_stats tx, rx;
	struct port_stats ps;
	unsigned int i, q;

	for (i = 0; i < d->nports; i++) {
		struct port *p = d->ports[i];
		int ti;

		if (port[0] && strcmp(port, p->cfg.name))
			continue;
		port_get_stats(p, &ps);
		port_stats_sum(&ps, &tx, &rx);
		ctlproto_reply_stats(w, "port", p->cfg.name, &tx, &rx);
		/* Only a dgram port has a peer to check senders against. */
		if (p->cfg.type == CFG_PORT_DGRAM)
			ctlproto_reply_u64(w, "tx_drop_peer", tx.drop_peer);
		ctlproto_reply_str(w, "tap", p->cfg.tap);
		/* The tap's own counters: ring -> tap is what the tap
		 * received from its fds, tap -> ring what it sent. */
		ti = daemon_find_tap(d, p->cfg.tap);
		if (ti >= 0 && netlink_link_info(d->nl, p->cfg.tap, &li) == 0) {
			memset(&tx, 0, sizeof(tx));
			memset(&rx, 0, sizeof(rx));
			tx.frames = li.rx_packets;
			tx.bytes = li.rx_bytes;
			tx.drop_tap = li.rx_dropped;
			rx.frames = li.tx_packets;
			rx.bytes = li.tx_bytes;
			rx.drop_tap = li.tx_dropped;
			ctlproto_reply_stats(w, "tap", p->cfg.tap, &tx, &rx);
		}
		for (q = 0; queues && q < ps.nqp; q++)
			ctlproto_reply_queue_stats(w, p->cfg.name, p->cfg.tap, q, &ps.tx[q],
						   &ps.rx[q], p->cfg.type == CFG_PORT_DGRAM);
	}
}

/**
 * daemon_control_upgrade() - an upgrade request: hand everything to a successor
 * @d: daemon
 * @req: the request (its peer_uid decides)
 * @buf: reply buffer
 * @len: its size
 *
 * Only root and the daemon's own uid may upgrade: the control socket's
 * group (control-group) may read and reload, not replace the daemon.  A
 * daemon started without upgrade = yes refuses: its seccomp filter and
 * capability sets do not let it start a successor.
 *
 * Return: reply length.
 */
static int daemon_control_upgrade(struct daemon *d, const struct ctlproto_request *req, char *buf,
				  size_t len)
{
	struct ctlproto_upgrade_info ui = { 0 };
	struct ctlproto_writer w;
	char err[CFG_ERR_MAX];

	if (req->peer_uid != 0 && req->peer_uid != geteuid()) {
		log_warn("upgrade refused: client uid %lu is neither root nor the daemon's uid",
			 (unsigned long)req->peer_uid);
		return ctlproto_reply_error(buf, len, CTLPROTO_E_PERMISSION,
					    "upgrade: uid %lu may not upgrade the daemon (root or uid %lu only)",
					    (unsigned long)req->peer_uid, (unsigned long)geteuid());
	}
	if (!d->cfg.upgrade) {
		log_notice("upgrade refused: the daemon was started with upgrade = no");
		return ctlproto_reply_error(buf, len, CTLPROTO_E_UPGRADE_DISABLED,
					    "set \"upgrade = yes\" in [daemon] and restart the daemon; the running instance keeps serving");
	}
	if (handover_upgrade(d, &ui, err, sizeof(err)) < 0)
		return ctlproto_reply_error(buf, len, CTLPROTO_E_UPGRADE_FAILED,
					    "%s; the running instance keeps serving", err);
	ctlproto_reply_init(&w, buf, len);
	ctlproto_reply_upgrade(&w, &ui);
	return ctlproto_reply_finish(&w);
}

/**
 * daemon_control_serve() - answer a control request (a control_serve_fn)
 * @opaque: the daemon
 * @req: the request
 * @buf: reply buffer
 * @len: its size
 *
 * Return: reply length.
 */
int daemon_control_serve(void *opaque, const struct ctlproto_request *req, char *buf, size_t len)
{
	struct daemon *d = opaque;
	struct ctlproto_writer w;
	struct ctlproto_reload_info ri;
	char err[CFG_ERR_MAX];

	if (req->cmd == CTLPROTO_CMD_RELOAD) {
		if (daemon_reload(d, &ri, err, sizeof(err)) < 0)
			return ctlproto_reply_error(buf, len, CTLPROTO_E_RELOAD_FAILED, "%s", err);
		ctlproto_reply_init(&w, buf, len);
		ctlproto_reply_reload(&w, &ri);
		return ctlproto_reply_finish(&w);
	}
	/* a request pipelined behind a successful upgrade: the successor serves */
	if (d->handed_over)
		return ctlproto_reply_error(buf, len, CTLPROTO_E_BUSY,
					    "this instance has handed over to its successor; ask again");
	if (req->cmd == CTLPROTO_CMD_UPGRADE)
		return daemon_control_upgrade(d, req, buf, len);
	if (req->cmd == CTLPROTO_CMD_STATS && req->port[0] && daemon_find_port(d, req->port) < 0)
		return ctlproto_reply_error(buf, len, CTLPROTO_E_NO_SUCH_PORT, "no port named %s",
					    req->port);
	ctlproto_reply_init(&w, buf, len);
	switch (req->cmd) {
	case CTLPROTO_CMD_STATUS:
		daemon_control_daemon(d, &w);
		/* fall through */
	case CTLPROTO_CMD_LIST:
		daemon_control_taps(d, &w);
		daemon_control_ports(d, &w, req->cmd == CTLPROTO_CMD_STATUS);
		break;
	case CTLPROTO_CMD_STATS:
		daemon_control_stats(d, &w, req->port, req->queues);
		break;
	case CTLPROTO_CMD_RELOAD:
	case CTLPROTO_CMD_UPGRADE:
		break;
	}
	return ctlproto_reply_finish(&w);
}
