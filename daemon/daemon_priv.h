/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon_priv.h - the daemon's state, for the files that serve it
 *
 * daemon.c owns struct daemon (start, run, reload, stop); daemon_control.c
 * reads it to answer control requests.  Only these lookups cross: the
 * control side never changes the running set except through
 * daemon_reload(), and daemon.c reaches daemon_control.c only through the
 * function pointer it gives control_open().
 */
#ifndef VRINGNET_DAEMON_PRIV_H
#define VRINGNET_DAEMON_PRIV_H

#include <stdbool.h>
#include <time.h>

#include "config.h"
#include "control.h"
#include "engine.h"
#include "loop.h"
#include "netlink.h"
#include "port.h"
#include "tap.h"

/**
 * struct daemon_tap - a running tap
 * @cfg: the section it runs with
 * @dev: the device
 */
struct daemon_tap {
	struct config_tap cfg;
	struct tap_dev dev;
};

/**
 * struct daemon_failure - a configured tap or port that is not running
 * @is_port: a port (else a tap)
 * @name: its name
 * @why: the error of its last attempt
 */
struct daemon_failure {
	bool is_port;
	char name[CFG_NAME_MAX];
	char why[CFG_ERR_MAX];
};

/**
 * struct daemon - the daemon
 * @cfg: the configuration it was started or last reloaded with
 * @loop: event loop
 * @nl: rtnetlink socket
 * @eng: engine in use
 * @taps: running taps (stable pointers: ports point at dev)
 * @ntaps: entries in @taps
 * @ports: running ports
 * @nports: entries in @ports
 * @ctrl: control server
 * @watchdog: WATCHDOG=1 timer
 * @started: CLOCK_MONOTONIC seconds at start
 * @caps: effective capabilities after the drop, as text
 * @fails: taps and ports of @cfg that failed to come up, with the reason
 * @nfails: entries in @fails
 * @successor: started by an upgrade (handover.c): no teardown if
 *	daemon_start() fails (READY=1 waits for handover_adopt(): its adopts)
 * @handed_over: a successor took everything over: exit without teardown
 */
struct daemon {
	struct config cfg;
	struct loop *loop;
	struct netlink *nl;
	const struct engine_ops *eng;
	struct daemon_tap *taps[CFG_MAX_TAPS];
	unsigned int ntaps;
	struct port *ports[CFG_MAX_PORTS];
	unsigned int nports;
	struct control *ctrl;
	struct loop_ref watchdog;
	time_t started;
	char caps[256];
	struct daemon_failure fails[CFG_MAX_TAPS + CFG_MAX_PORTS];
	unsigned int nfails;
	bool successor;
	bool handed_over;
};

int daemon_find_tap(struct daemon *d, const char *name);
int daemon_find_port(struct daemon *d, const char *name);
const char *daemon_fail_find(struct daemon *d, bool is_port, const char *name);
time_t daemon_uptime(const struct daemon *d);

#endif /* VRINGNET_DAEMON_PRIV_H */
