/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon.h - vringnetd's running state: taps, ports, control socket
 *
 * daemon_start() applies a configuration from nothing (taps created and
 * configured, ports' sockets bound, control socket up, capabilities
 * dropped, READY=1); daemon_run() runs the event loop until SIGTERM/SIGINT;
 * daemon_reload() (SIGHUP, "vringnetctl reload") validates the file again and
 * applies only the difference to what is running; daemon_stop() tears down
 * (non-persistent taps deleted, persistent ones kept).
 */
#ifndef VRINGNET_DAEMON_H
#define VRINGNET_DAEMON_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "ctlproto.h"

/* VRINGNET_VERSION comes from the top-level VERSION file (the Makefile's -D) */
#ifndef VRINGNET_VERSION
#define VRINGNET_VERSION	"unknown"
#endif
#define VRINGNETD_VERSION	VRINGNET_VERSION

struct daemon;

struct daemon *daemon_start(struct config *cfg, bool successor, bool adopts,
			    char *err, size_t errlen);
int daemon_run(struct daemon *d);
bool daemon_handed_over(const struct daemon *d);
int daemon_reload(struct daemon *d, struct ctlproto_reload_info *info, char *err, size_t errlen);
void daemon_stop(struct daemon *d);

#endif /* VRINGNET_DAEMON_H */
