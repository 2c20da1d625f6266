/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * daemon_control.h - the daemon's answers to control requests
 *
 * daemon_start() gives daemon_control_serve() to control_open(): the control
 * server decodes a request and this file answers it from the running state
 * (status, list, stats) or by reloading (daemon_reload()).
 */
#ifndef VRINGNET_DAEMON_CONTROL_H
#define VRINGNET_DAEMON_CONTROL_H

#include <stddef.h>

#include "ctlproto.h"

int daemon_control_serve(void *opaque, const struct ctlproto_request *req, char *buf, size_t len);

#endif /* VRINGNET_DAEMON_CONTROL_H */
