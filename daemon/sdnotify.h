/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdnotify.h - talking to systemd (sd-daemon): readiness, status, watchdog,
 *		socket activation
 */
#ifndef VRINGNET_SDNOTIFY_H
#define VRINGNET_SDNOTIFY_H

#include <stdint.h>

uint64_t sdnotify_watchdog_interval_ns(void);
void sdnotify_ready(const char *status);
void sdnotify_mainpid(void);
void sdnotify_reloading(void);
void sdnotify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sdnotify_stopping(void);
void sdnotify_watchdog(void);
int sdnotify_listen_fd(const char *path);

#endif /* VRINGNET_SDNOTIFY_H */
