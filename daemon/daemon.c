// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon.c - apply a configuration, reload it by difference, tear it down
 *
 * Reload diffs (reload.h) the new file against what is *running* (the
 * sections of the taps and ports that exist now), not against the previous
 * file: something that failed to come up last time is retried, and an
 * untouched tap or a connected port is never closed.  How a change is
 * applied:
 *   tap: queues or ring-size -> re-created (and its port with it); mtu, mac,
 *        addresses, bridge -> rtnetlink changes only; persist, owner, group
 *        -> ioctls on the open device;
 *   port: socket mode/owner/reconnect -> changed in place; anything else ->
 *        re-created.
 * A tap removed from the file is deleted unless it is persistent (then it
 * is left in place, closed, like at stop).
 *
 * Failures stay local: a tap that cannot be set up (its name taken by a
 * tun device or another process's tap, a netlink error, ...) or a port that
 * cannot open (its socket, its tap down) is logged, remembered with its
 * reason (struct daemon_failure) and shown in STATUS= and in the control
 * socket's status ("state=failed error=..."); every other tap and port is
 * brought up and serves.  Each reload retries what is down, since the
 * running set lacks it.  A reload that cannot apply everything applies what
 * it can and answers reload-failed with exactly what it applied and what
 * failed; its log line counts only what was done.
 *
 * struct daemon is in daemon_priv.h; control requests (status, list,
 * stats, reload) are answered by daemon_control.c, whose
 * daemon_control_serve() daemon_start() gives to control_open().
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "daemon_control.h"
#include "daemon_priv.h"
#include "deadline.h"
#include "engine.h"
#include "fdstore.h"
#include "guard.h"
#include "log.h"
#include "loop.h"
#include "netlink.h"
#include "port.h"
#include "privs.h"
#include "reload.h"
#include "sandbox.h"
#include "sdnotify.h"
#include "tap.h"
#include "vq.h"
#include "worker.h"

/**
 * daemon_now() - monotonic seconds
 *
 * Return: the time.
 */
static time_t daemon_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/**
 * daemon_uptime() - seconds since the daemon started
 * @d: daemon
 *
 * Return: the seconds.
 */
time_t daemon_uptime(const struct daemon *d)
{
	return daemon_now() - d->started;
}

/**
 * daemon_find_tap() - a running tap by name
 * @d: daemon
 * @name: tap name
 *
 * Return: its index in d->taps, or -1.
 */
int daemon_find_tap(struct daemon *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->ntaps; i++)
		if (!strcmp(d->taps[i]->cfg.name, name))
			return (int)i;
	return -1;
}

/**
 * daemon_find_port() - a running port by name
 * @d: daemon
 * @name: port name
 *
 * Return: its index in d->ports, or -1.
 */
int daemon_find_port(struct daemon *d, const char *name)
{
	unsigned int i;

	for (i = 0; i < d->nports; i++)
		if (!strcmp(d->ports[i]->cfg.name, name))
			return (int)i;
	return -1;
}

/**
 * daemon_fail_entry() - the failure recorded for a configured tap or port
 * @d: daemon
 * @is_port: look for a port (else a tap)
 * @name: its name
 *
 * Return: the entry, or NULL when none is recorded.
 */
static struct daemon_failure *daemon_fail_entry(struct daemon *d, bool is_port,
						 const char *name)
{
	unsigned int i;

	for (i = 0; i < d->nfails; i++)
		if (d->fails[i].is_port == is_port && !strcmp(d->fails[i].name, name))
			return &d->fails[i];
	return NULL;
}

/**
 * daemon_fail_find() - the reason a configured tap or port is down
 * @d: daemon
 * @is_port: look for a port (else a tap)
 * @name: its name
 *
 * Return: the error of its last attempt, or NULL when none is recorded.
 */
const char *daemon_fail_find(struct daemon *d, bool is_port, const char *name)
{
	const struct daemon_failure *f = daemon_fail_entry(d, is_port, name);

	return f ? f->why : NULL;
}

/**
 * daemon_fail() - record and log that a tap or port could not be set up
 * @d: daemon
 * @is_port: a port (else a tap)
 * @name: its name
 * @why: the error ("tap NAME: ..." or "port NAME: ...")
 *
 * The others keep running; the next reload retries it.
 */
static void daemon_fail(struct daemon *d, bool is_port, const char *name, const char *why)
{
	struct daemon_failure *f = daemon_fail_entry(d, is_port, name);

	log_obj(LOG_ERR, is_port ? name : NULL, is_port ? NULL : name,
		"%s (%s %s is down, the others run; a reload retries it)", why,
		is_port ? "port" : "tap", name);
	if (!f) {
		if (d->nfails >= sizeof(d->fails) / sizeof(d->fails[0]))
			return;
		f = &d->fails[d->nfails++];
	}
	f->is_port = is_port;
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->why, sizeof(f->why), "%s", why);
}

/**
 * daemon_ports_down() - configured ports that are not running
 * @d: daemon
 *
 * Return: the count.
 */
static unsigned int daemon_ports_down(const struct daemon *d)
{
	return d->cfg.nports > d->nports ? d->cfg.nports - d->nports : 0;
}

/**
 * daemon_taps_down() - configured taps that are not running
 * @d: daemon
 *
 * Return: the count.
 */
static unsigned int daemon_taps_down(const struct daemon *d)
{
	return d->cfg.ntaps > d->ntaps ? d->cfg.ntaps - d->ntaps : 0;
}

/**
 * daemon_status_text() - one line for STATUS=
 * @d: daemon
 * @buf: output
 * @len: its size
 *
 * "N taps up, M down; N ports up, M down; engine E", then the first
 * failure's reason when something is down.
 *
 * Return: @buf.
 */
static const char *daemon_status_text(struct daemon *d, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "%u tap%s up, %u down; %u port%s up, %u down; engine %s",
		     d->ntaps, d->ntaps == 1 ? "" : "s", daemon_taps_down(d),
		     d->nports, d->nports == 1 ? "" : "s", daemon_ports_down(d), d->eng->name);
	if (n > 0 && (size_t)n < len && d->nfails &&
	    (daemon_taps_down(d) || daemon_ports_down(d)))
		snprintf(buf + n, len - (size_t)n, "; failed: %s", d->fails[0].why);
	return buf;
}

/**
 * daemon_tap_up() - create a tap and configure its link
 * @d: daemon
 * @cfg: its section
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0 (added to d->taps), or -1 with @err filled and nothing left.
 */
static int daemon_tap_up(struct daemon *d, const struct config_tap *cfg, char *err, size_t errlen)
{
	struct daemon_tap *t;

	if (d->ntaps >= CFG_MAX_TAPS) {
		snprintf(err, errlen, "tap %s: more than %d taps", cfg->name, CFG_MAX_TAPS);
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "tap %s: %s", cfg->name, strerror(ENOMEM));
		return -1;
	}
	t->cfg = *cfg;
	if (tap_open(&t->dev, cfg, err, errlen) < 0) {
		free(t);
		return -1;
	}
	if (netlink_apply(d->nl, cfg, NULL, err, errlen) < 0) {
		if (t->dev.adopted) {
			tap_unstore(&t->dev);
			tap_close(&t->dev);	/* not ours to delete */
		}
		else
			tap_destroy(&t->dev);
		free(t);
		return -1;
	}
	d->taps[d->ntaps++] = t;
	return 0;
}

/**
 * daemon_tap_down() - close a running tap (deleted unless persistent)
 * @d: daemon
 * @i: its index; the array is compacted
 * @forget: also remove it from systemd's fd store (a reload removed it);
 *	    false at stop, where the store keeps it for a restart
 */
static void daemon_tap_down(struct daemon *d, unsigned int i, bool forget)
{
	struct daemon_tap *t = d->taps[i];

	if (forget)
		tap_unstore(&t->dev);
	if (t->dev.persist)
		log_tap(LOG_INFO, t->cfg.name, "tap %s: closed, kept (persistent)", t->cfg.name);
	else if (t->dev.stored)
		log_tap(LOG_INFO, t->cfg.name,
			"tap %s: closed, held by systemd's fd store until a restart or the stop",
			t->cfg.name);
	else
		log_tap(LOG_INFO, t->cfg.name, "tap %s: deleted", t->cfg.name);
	tap_close(&t->dev);
	free(t);
	memmove(&d->taps[i], &d->taps[i + 1], (d->ntaps - i - 1) * sizeof(d->taps[0]));
	d->ntaps--;
}

/**
 * daemon_port_up() - create a port for a section
 * @d: daemon
 * @cfg: its section
 * @connect_later: client mode: connect from the loop's first turn, not now
 *	(port_open(): an upgrade's successor, or the instance after
 *	systemctl restart, adopts the previous instance's connection first)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0 (added to d->ports), or -1 with @err filled.
 */
static int daemon_port_up(struct daemon *d, const struct config_port *cfg, bool connect_later,
			  char *err, size_t errlen)
{
	int ti = daemon_find_tap(d, cfg->tap);
	struct port *p;

	if (ti < 0) {
		snprintf(err, errlen, "port %s: tap %s is not running", cfg->name, cfg->tap);
		return -1;
	}
	if (d->nports >= CFG_MAX_PORTS) {
		snprintf(err, errlen, "port %s: more than %d ports", cfg->name, CFG_MAX_PORTS);
		return -1;
	}
	p = port_open(cfg, d->loop, &d->taps[ti]->dev, d->eng, connect_later, err, errlen);
	if (!p)
		return -1;
	d->ports[d->nports++] = p;
	return 0;
}

/**
 * daemon_port_down() - tear down a running port
 * @d: daemon
 * @i: its index; the array is compacted
 * @forget: also remove its listening socket from systemd's fd store (a
 *	    reload removed or re-created it); false at stop
 */
static void daemon_port_down(struct daemon *d, unsigned int i, bool forget)
{
	log_port(LOG_INFO, d->ports[i], "port %s: closed", d->ports[i]->cfg.name);
	port_close(d->ports[i], forget);
	memmove(&d->ports[i], &d->ports[i + 1], (d->nports - i - 1) * sizeof(d->ports[0]));
	d->nports--;
}

/**
 * daemon_teardown() - close every port, the control socket and every tap
 * @d: daemon
 *
 * What the fd store holds stays there: systemd passes it to the next
 * instance after a restart and closes it when the service stops for good.
 */
static void daemon_teardown(struct daemon *d)
{
	vq_rebalance_hold(true);	/* no moves while every pair goes */
	while (d->nports)
		daemon_port_down(d, d->nports - 1, false);
	control_close(d->ctrl);
	d->ctrl = NULL;
	while (d->ntaps)
		daemon_tap_down(d, d->ntaps - 1, false);
}

/**
 * daemon_on_signal() - SIGHUP reloads, SIGTERM/SIGINT stop
 * @loop: the loop
 * @signo: the signal
 * @opaque: the daemon
 */
static void daemon_on_signal(struct loop *loop, int signo, void *opaque)
{
	struct daemon *d = opaque;
	struct ctlproto_reload_info ri;
	char err[CFG_ERR_MAX];

	if (signo == SIGHUP) {
		log_info("SIGHUP: reloading %s", d->cfg.path);
		daemon_reload(d, &ri, err, sizeof(err));
		return;
	}
	log_info("%s: stopping", strsignal(signo));
	loop_quit(loop, 0);
}

/**
 * daemon_watchdog_fired() - WATCHDOG=1
 * @loop: the loop
 * @ref: the watchdog timer
 * @events: unused
 */
static void daemon_watchdog_fired(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	loop_timer_ack(ref);
	sdnotify_watchdog();
}

/**
 * daemon_needs_chown() - whether a socket is given to another owner or group
 * @cfg: the configuration the daemon starts with
 *
 * Return: true when a port has socket-owner/socket-group or the control
 * socket has control-group: CAP_CHOWN is then kept after the drop.
 */
static bool daemon_needs_chown(const struct config *cfg)
{
	unsigned int i;

	if (cfg->control_gid != (gid_t)-1)
		return true;
	for (i = 0; i < cfg->nports; i++)
		if (cfg->ports[i].socket_uid != (uid_t)-1 ||
		    cfg->ports[i].socket_gid != (gid_t)-1)
			return true;
	return false;
}

/**
 * daemon_workers() - how many pump threads workers = N (or auto) means
 * @cfg: the configuration
 *
 * auto: one per online CPU (per CPU of worker-cpus when given), at most
 * one per queue pair of the vhost-user and ring-fd ports (a tap's
 * queues); at least 1.
 * Return: 1 (no pump thread) .. CFG_MAX_WORKERS.
 */
static unsigned int daemon_workers(const struct config *cfg)
{
	unsigned int i, pairs = 0;
	long cpus;

	if (cfg->workers != CFG_WORKERS_AUTO)
		return cfg->workers;
	for (i = 0; i < cfg->nports; i++) {
		const struct config_tap *t = config_find_tap(cfg, cfg->ports[i].tap);

		if (t && (cfg->ports[i].type == CFG_PORT_VHOST_USER ||
			  cfg->ports[i].type == CFG_PORT_RINGFD))
			pairs += t->queues;
	}
	cpus = cfg->nworker_cpus ? (long)cfg->nworker_cpus : sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		cpus = 1;
	if ((unsigned long)cpus < pairs)
		pairs = (unsigned int)cpus;
	if (pairs > CFG_MAX_WORKERS)
		pairs = CFG_MAX_WORKERS;
	return pairs ? pairs : 1;
}

/**
 * daemon_check_port_workers() - warn of ports whose [port] workers name
 *	no running pump thread (workers = auto started fewer, or a reload
 *	asked for more than run)
 * @cfg: the configuration
 *
 * Their indexes of workers that do not run are ignored (worker_pick());
 * a port left with none runs its pairs on any worker.
 */
static void daemon_check_port_workers(const struct config *cfg)
{
	unsigned int n = worker_pool_size(), i;

	for (i = 0; i < cfg->nports; i++) {
		uint64_t beyond = n < CFG_MAX_WORKERS ? cfg->ports[i].workers >> n : 0;

		if (n > 1 && beyond)
			log_warn("port %s: workers: worker %u does not run (%u pump threads): ignored",
				 cfg->ports[i].name, n + (unsigned int)__builtin_ctzll(beyond), n);
	}
}

/**
 * daemon_start() - bring up everything a configuration describes
 * @cfg: the loaded configuration; taken over (the caller must not free it)
 * @successor: started by an upgrade (handover.c): taps and sockets come
 *	from the predecessor, and a failure undoes nothing (they are still
 *	the predecessor's)
 * @adopts: the caller adopts connections a previous instance kept once
 *	this returns (handover_adopt() in an upgrade's successor,
 *	restart_adopt() after systemctl restart): client-mode ports make
 *	their first connection attempt from the loop, not here
 *	(daemon_port_up()'s connect_later), so a port whose connection is
 *	adopted does not connect again; and READY=1 is not sent here but
 *	by the caller once the adopted connections run
 * @err: message buffer
 * @errlen: its size
 *
 * The fds systemd passed are loaded before (fdstore_load(), main.c).
 * Order: engine, netlink, taps, ports, control socket, capability drop,
 * timers, pump threads (workers), seccomp filter, READY=1.  A tap or port that cannot be set up is
 * logged and left down (daemon_fail()) while the others come up, unless no
 * tap at all came up; any other failure undoes what was done.
 *
 * Return: the daemon, or NULL with @err filled (@cfg freed).
 */
struct daemon *daemon_start(struct config *cfg, bool successor, bool adopts,
			    char *err, size_t errlen)
{
	struct daemon *d = calloc(1, sizeof(*d));
	char status[256];
	uint64_t wd;
	unsigned int i;
	int lfd;

	if (!d) {
		snprintf(err, errlen, "%s", strerror(ENOMEM));
		config_free(cfg);
		return NULL;
	}
	d->cfg = *cfg;
	memset(cfg, 0, sizeof(*cfg));
	d->started = daemon_now();
	d->watchdog.fd = -1;
	d->successor = successor;
	log_set_level(d->cfg.log_level);
	deadline_set_limits(d->cfg.handshake_timeout, d->cfg.boot_timeout,
			    d->cfg.message_timeout);
	d->eng = engine_select(d->cfg.engine, err, errlen);
	if (!d->eng)
		goto fail;
	/* Front-end memory can fault under us: guard.c catches that. */
	if (guard_init(err, errlen) < 0)
		goto fail;
	d->loop = loop_new(daemon_on_signal, d, err, errlen);
	if (!d->loop)
		goto fail;
	d->nl = netlink_open(err, errlen);
	if (!d->nl)
		goto fail;
	/* A tap or port that cannot come up stays down alone. */
	for (i = 0; i < d->cfg.ntaps; i++)
		if (daemon_tap_up(d, &d->cfg.taps[i], err, errlen) < 0)
			daemon_fail(d, false, d->cfg.taps[i].name, err);
	/* ... but a daemon with no tap at all has nothing to serve. */
	if (d->cfg.ntaps && !d->ntaps) {
		snprintf(err, errlen, "no tap could be set up: %s", d->fails[0].why);
		goto fail;
	}
	for (i = 0; i < d->cfg.nports; i++)
		if (daemon_port_up(d, &d->cfg.ports[i], adopts, err, errlen) < 0)
			daemon_fail(d, true, d->cfg.ports[i].name, err);
	err[0] = '\0';
	lfd = sdnotify_listen_fd(d->cfg.control_socket);
	if (lfd == -2) {
		snprintf(err, errlen, "socket activation: unusable file descriptors passed");
		goto fail;
	}
	/* under socket activation only a control-mode given in the file is
	 * applied on top of the unit's SocketMode= */
	d->ctrl = control_open(d->loop, lfd, d->cfg.control_socket,
			       lfd >= 0 && !d->cfg.control_mode_set ? (mode_t)-1 : d->cfg.control_mode,
			    d->cfg.control_gid, daemon_control_serve, d, err, errlen);
	if (!d->ctrl)
		goto fail;
	fdstore_close_unused();
	control_set_per_uid(d->ctrl, d->cfg.control_per_uid);
	if (privs_drop(d->cfg.user, d->cfg.uid, d->cfg.gid, daemon_needs_chown(&d->cfg),
		       d->cfg.upgrade, err, errlen) < 0)
		goto fail;
	privs_describe(d->caps, sizeof(d->caps));
	log_info("capabilities: %s%s%s", d->caps, d->cfg.user[0] ? ", user " : "",
		 d->cfg.user);
	wd = sdnotify_watchdog_interval_ns();
	if (wd) {
		if (loop_timer_init(d->loop, &d->watchdog, daemon_watchdog_fired) < 0 ||
		    loop_timer_set(&d->watchdog, wd, wd) < 0) {
			log_buf_errno(err, errlen, errno, "watchdog timerfd");
			goto fail;
		}
		log_info("watchdog: WATCHDOG=1 every %llu ms", (unsigned long long)(wd / 1000000));
		sdnotify_watchdog();
	}
	/* after the capability drop (threads start with their creator's
	 * capabilities), before the filter (installed on every thread) */
	if (worker_pool_start(daemon_workers(&d->cfg),
			      d->cfg.nworker_cpus ? d->cfg.worker_cpus : NULL, d->loop,
			      err, errlen) < 0)
		goto fail;
	daemon_check_port_workers(&d->cfg);
	if (sandbox_install(d->cfg.seccomp, d->cfg.upgrade, err, errlen) < 0)
		goto fail;
#ifdef VRINGNETD_TEST
	sandbox_test_forbidden();
#endif
	daemon_status_text(d, status, sizeof(status));
	log_info("ready: %s", status);
	if (!adopts)
		sdnotify_ready(status);
	return d;
fail:
	/* a successor's taps and sockets still serve in its predecessor */
	if (d->successor)
		return NULL;
	fdstore_close_unused();
	/* Undo: taps this start created go, even persistent ones. */
	for (i = 0; i < d->ntaps; i++)
		if (!d->taps[i]->dev.adopted)
			tap_destroy(&d->taps[i]->dev);
	daemon_stop(d);
	return NULL;
}

/**
 * daemon_tap_reconfigure() - bring a running tap to a changed section
 * @d: daemon
 * @i: the tap's index
 * @nc: its new section
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled (the tap keeps running as it was as
 * far as the failed step goes).
 */
static int daemon_tap_reconfigure(struct daemon *d, unsigned int i, const struct config_tap *nc,
			       char *err, size_t errlen)
{
	struct daemon_tap *t = d->taps[i];
	const struct config_tap *oc = &t->cfg;

	if (oc->persist != nc->persist &&
	    tap_set_persist(&t->dev, nc->persist, err, errlen) < 0)
		return -1;
	if ((oc->owner_uid != nc->owner_uid || oc->group_gid != nc->group_gid) &&
	    tap_set_owner(&t->dev, nc->owner_uid, nc->group_gid, err, errlen) < 0)
		return -1;
	if (netlink_apply(d->nl, nc, oc, err, errlen) < 0)
		return -1;
	log_info("tap %s: reconfigured", nc->name);
	t->cfg = *nc;
	return 0;
}

/**
 * struct daemon_reload_report - what a reload could not do
 * @failed: changes that failed
 * @text: their errors, "; "-separated (cut at its size)
 */
struct daemon_reload_report {
	unsigned int failed;
	char text[CFG_ERR_MAX];
};

/**
 * daemon_note() - count and log one failed change of a reload
 * @d: daemon
 * @rr: the reload's report
 * @is_port: a port (else a tap)
 * @name: its name
 * @msg: the error
 * @down: the tap or port is now down (remembered for status and retried
 *	by the next reload); else it runs on as far as the failed step goes
 */
static void daemon_note(struct daemon *d, struct daemon_reload_report *rr, bool is_port,
			const char *name, const char *msg, bool down)
{
	size_t n = strlen(rr->text);

	if (down)
		daemon_fail(d, is_port, name, msg);
	else
		log_err("reload: %s", msg);
	if (n < sizeof(rr->text) - 1)
		snprintf(rr->text + n, sizeof(rr->text) - n, "%s%s", n ? "; " : "", msg);
	rr->failed++;
}

/**
 * daemon_port_was_changed() - whether a reload diff names a port changed
 * @diff: the diff
 * @name: the port
 *
 * Return: true when @name is RELOAD_CHANGED in @diff.
 */
static bool daemon_port_was_changed(const struct reload_diff *diff, const char *name)
{
	unsigned int i;

	for (i = 0; i < diff->nports; i++)
		if (!strcmp(diff->ports[i].name, name))
			return diff->ports[i].change == RELOAD_CHANGED;
	return false;
}

/**
 * daemon_running_config() - a configuration holding what runs now
 * @d: daemon
 * @rc: filled; its arrays are allocated (free them with config_free())
 *
 * The [daemon] keys are the running file's; taps and ports are the
 * sections the running taps and ports were brought up with, so a section
 * that failed last time shows up as "added" again.
 *
 * Return: 0, or -1 when out of memory.
 */
static int daemon_running_config(struct daemon *d, struct config *rc)
{
	unsigned int i;

	*rc = d->cfg;
	rc->taps = calloc(d->ntaps + 1, sizeof(*rc->taps));
	rc->ports = calloc(d->nports + 1, sizeof(*rc->ports));
	if (!rc->taps || !rc->ports) {
		free(rc->taps);
		free(rc->ports);
		memset(rc, 0, sizeof(*rc));
		return -1;
	}
	for (i = 0; i < d->ntaps; i++)
		rc->taps[i] = d->taps[i]->cfg;
	rc->ntaps = d->ntaps;
	for (i = 0; i < d->nports; i++)
		rc->ports[i] = d->ports[i]->cfg;
	rc->nports = d->nports;
	return 0;
}

/**
 * daemon_port_resocket() - change mode/owner of a running port's socket,
 *	and take its settings for queue pairs started from now on
 * @p: the port
 * @np: its new section (only socket mode/owner, reconnect, kernel-rings
 *	and workers differ)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
static int daemon_port_resocket(struct port *p, const struct config_port *np,
			     char *err, size_t errlen)
{
	if (np->listen[0] && np->socket_mode != p->cfg.socket_mode &&
	    chmod(np->listen, np->socket_mode) < 0) {
		log_buf_errno(err, errlen, errno, "port %s: chmod %04o %s", np->name,
			 (unsigned int)np->socket_mode, np->listen);
		return -1;
	}
	if (np->listen[0] && (np->socket_uid != p->cfg.socket_uid ||
			      np->socket_gid != p->cfg.socket_gid) &&
	    chown(np->listen, np->socket_uid, np->socket_gid) < 0) {
		snprintf(err, errlen, "port %s: chown %s: %s%s", np->name, np->listen,
			 strerror(errno), errno == EPERM ?
			 " (socket-owner/socket-group need CAP_CHOWN, kept only when the file had them at start)" : "");
		return -1;
	}
	p->cfg = *np;
	log_info("port %s: settings changed", np->name);
	return 0;
}

/**
 * daemon_reload() - re-read the configuration file and apply the difference
 * @d: daemon
 * @info: out: what was done
 * @err: message buffer
 * @errlen: its size
 *
 * An invalid file changes nothing ("FILE:LINE: message" logged and
 * returned).  With a valid file the difference (reload_diff() of the running
 * sections and the new file) is applied in order: ports removed or to be
 * re-created closed, taps removed, re-created or reconfigured, new taps,
 * new and re-created ports.  Entries RELOAD_UNCHANGED are not touched.  Every
 * change is attempted; @info counts the changes that were made (a tap or
 * port that failed to come up is not counted as added), every failure is
 * logged, and a tap or port left down is remembered for status and retried
 * by the next reload.
 *
 * Return: 0, or -1 with @err filled: "applied: <counts>; N failed: <errors>".
 */
int daemon_reload(struct daemon *d, struct ctlproto_reload_info *info, char *err, size_t errlen)
{
	struct config nc, rc;
	struct reload_diff diff;
	struct daemon_reload_report rr = { 0 };
	char msg[CFG_ERR_MAX], status[CFG_ERR_MAX + 128];
	unsigned int i;
	int k, ret;

	memset(info, 0, sizeof(*info));
	err[0] = '\0';
	sdnotify_reloading();
	memset(&nc, 0, sizeof(nc));
	if (config_load(d->cfg.path, &nc, msg, sizeof(msg)) < 0) {
		snprintf(err, errlen, "%s", msg);
		log_err("reload: %s; keeping the running configuration", msg);
		config_free(&nc);
		sdnotify_ready(daemon_status_text(d, status, sizeof(status)));
		return -1;
	}
	if (daemon_running_config(d, &rc) < 0 || (ret = reload_diff(&rc, &nc, &diff)) < 0) {
		snprintf(err, errlen, "reload: out of memory; keeping the running configuration");
		log_err("%s", err);
		free(rc.taps);
		free(rc.ports);
		config_free(&nc);
		sdnotify_ready(daemon_status_text(d, status, sizeof(status)));
		return -1;
	}
	if (diff.daemon_attrs & RELOAD_DAEMON_ENGINE)
		log_warn("reload: engine = %s takes effect at the next start",
			 config_engine_name(nc.engine));
	if (diff.daemon_attrs & RELOAD_DAEMON_USER)
		log_warn("reload: user = %s takes effect at the next start", nc.user);
	if (nc.seccomp != d->cfg.seccomp)
		log_warn("reload: seccomp = %s takes effect at the next start",
			 config_seccomp_name(nc.seccomp));
	if (nc.upgrade != d->cfg.upgrade)
		log_warn("reload: upgrade = %s takes effect at the next start",
			 nc.upgrade ? "yes" : "no");
	if (nc.workers != d->cfg.workers) {
		char num[16] = "auto";

		if (nc.workers != CFG_WORKERS_AUTO)
			snprintf(num, sizeof(num), "%u", nc.workers);
		log_warn("reload: workers = %s takes effect at the next start", num);
	}
	if (nc.nworker_cpus != d->cfg.nworker_cpus ||
	    memcmp(nc.worker_cpus, d->cfg.worker_cpus, sizeof(nc.worker_cpus)))
		log_warn("reload: worker-cpus takes effect at the next start");
	if (diff.daemon_attrs & (RELOAD_DAEMON_CONTROL_SOCKET | RELOAD_DAEMON_CONTROL_MODE |
				 RELOAD_DAEMON_CONTROL_GROUP))
		log_warn("reload: control socket settings take effect at the next start");
	log_set_level(nc.log_level);
	deadline_set_limits(nc.handshake_timeout, nc.boot_timeout, nc.message_timeout);
	control_set_per_uid(d->ctrl, nc.control_per_uid);
	/* Everything down is retried below: forget the old reasons. */
	d->nfails = 0;

	/* 1. Ports removed, or changed so that they must be re-created. */
	for (i = 0; i < diff.nports; i++) {
		const struct reload_port_diff *pd = &diff.ports[i];

		k = daemon_find_port(d, pd->name);
		if (k < 0)
			continue;
		if (pd->change == RELOAD_REMOVED) {
			daemon_port_down(d, (unsigned int)k, true);
			info->ports_removed++;
		} else if (pd->change == RELOAD_CHANGED && (pd->attrs & RELOAD_PORT_RECREATE)) {
			daemon_port_down(d, (unsigned int)k, true);	/* counted when back up */
		} else if (pd->change == RELOAD_CHANGED) {
			if (daemon_port_resocket(d->ports[k], pd->new_port, msg, sizeof(msg)) < 0)
				daemon_note(d, &rr, true, pd->name, msg, false);
			else
				info->ports_changed++;
		}
	}
	/* 2. Taps removed, re-created, reconfigured; 3. taps added. */
	for (i = 0; i < diff.ntaps; i++) {
		const struct reload_tap_diff *td = &diff.taps[i];

		k = daemon_find_tap(d, td->name);
		switch (td->change) {
		case RELOAD_UNCHANGED:
			break;
		case RELOAD_REMOVED:
			if (k >= 0) {
				daemon_tap_down(d, (unsigned int)k, true);
				info->taps_removed++;
			}
			break;
		case RELOAD_CHANGED:
			if (k >= 0 && (td->attrs & RELOAD_TAP_RECREATE)) {
				log_info("tap %s: queues or ring size changed: re-creating",
					 td->name);
				tap_destroy(&d->taps[k]->dev);
				free(d->taps[k]);
				memmove(&d->taps[k], &d->taps[k + 1],
					(d->ntaps - k - 1) * sizeof(d->taps[0]));
				d->ntaps--;
				if (daemon_tap_up(d, td->new_tap, msg, sizeof(msg)) < 0)
					daemon_note(d, &rr, false, td->name, msg, true);
				else
					info->taps_changed++;
			} else if (k >= 0) {
				if (daemon_tap_reconfigure(d, (unsigned int)k, td->new_tap,
							   msg, sizeof(msg)) < 0)
					daemon_note(d, &rr, false, td->name, msg, false);
				else
					info->taps_changed++;
			}
			break;
		case RELOAD_ADDED:
			if (daemon_tap_up(d, td->new_tap, msg, sizeof(msg)) < 0)
				daemon_note(d, &rr, false, td->name, msg, true);
			else
				info->taps_added++;
			break;
		}
	}
	/* 4. Ports added or re-created (every new-file port not running). */
	for (i = 0; i < nc.nports; i++) {
		if (daemon_find_port(d, nc.ports[i].name) >= 0)
			continue;
		if (daemon_port_up(d, &nc.ports[i], false, msg, sizeof(msg)) < 0)
			daemon_note(d, &rr, true, nc.ports[i].name, msg, true);
		else if (daemon_port_was_changed(&diff, nc.ports[i].name))
			info->ports_changed++;
		else
			info->ports_added++;
	}
	info->failed = rr.failed;
	reload_diff_free(&diff);
	free(rc.taps);
	free(rc.ports);
	/* Keep the keys that only take effect at start. */
	snprintf(nc.control_socket, sizeof(nc.control_socket), "%s", d->cfg.control_socket);
	nc.control_mode = d->cfg.control_mode;
	nc.control_gid = d->cfg.control_gid;
	nc.engine = d->cfg.engine;
	nc.seccomp = d->cfg.seccomp;
	nc.upgrade = d->cfg.upgrade;
	nc.workers = d->cfg.workers;
	memcpy(nc.worker_cpus, d->cfg.worker_cpus, sizeof(nc.worker_cpus));
	nc.nworker_cpus = d->cfg.nworker_cpus;
	snprintf(nc.user, sizeof(nc.user), "%s", d->cfg.user);
	nc.uid = d->cfg.uid;
	nc.gid = d->cfg.gid;
	config_free(&d->cfg);
	d->cfg = nc;
	daemon_check_port_workers(&d->cfg);
	vq_rebalance();		/* ports gone, workers lists changed */
	snprintf(msg, sizeof(msg),
		 "taps %u added, %u removed, %u changed; ports %u added, %u removed, %u changed",
		 info->taps_added, info->taps_removed, info->taps_changed, info->ports_added,
		 info->ports_removed, info->ports_changed);
	if (rr.failed) {
		log_err("reload: %s; %u failed", msg, rr.failed);
		snprintf(err, errlen, "applied: %s; %u failed: %s", msg, rr.failed, rr.text);
	} else {
		log_info("reload: %s", msg);
	}
	sdnotify_ready(daemon_status_text(d, status, sizeof(status)));
	return rr.failed ? -1 : 0;
}

/**
 * daemon_run() - the event loop
 * @d: daemon
 *
 * Return: 0 after SIGTERM/SIGINT, -1 when the loop failed.
 */
int daemon_run(struct daemon *d)
{
	return loop_run(d->loop);
}

/**
 * daemon_handed_over() - whether a successor took everything over
 * @d: daemon
 *
 * Return: true after a successful upgrade: the process must exit without
 * daemon_stop() (the taps, sockets and front-ends are the successor's).
 */
bool daemon_handed_over(const struct daemon *d)
{
	return d->handed_over;
}

/**
 * daemon_stop() - STOPPING=1 and tear everything down
 * @d: daemon or NULL
 */
void daemon_stop(struct daemon *d)
{
	if (!d)
		return;
	sdnotify_stopping();
	daemon_teardown(d);
	/* every queue pair stopped: the pump threads have nothing left */
	worker_pool_stop();
	if (d->loop) {
		loop_timer_fini(d->loop, &d->watchdog);
	}
	netlink_close(d->nl);
	loop_free(d->loop);
	config_free(&d->cfg);
	free(d);
}
