/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdnotify.h - talking to systemd (sd-daemon): readiness, status, watchdog,
 *		socket activation
 */
#ifndef VRINGNET_SDNOTIFY_H
#define VRINGNET_SDNOTIFY_H

#include <stdint.h>

uint64_t sdn_watchdog_interval_ns(void);
void sdn_ready(const char *status);
void sdn_reloading(void);
void sdn_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sdn_stopping(void);
void sdn_watchdog(void);
int sdn_listen_fd(const char *path);

#endif /* VRINGNET_SDNOTIFY_H */
