/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - vringnetd's messages: stderr, journald-friendly.
 *
 * Under systemd (JOURNAL_STREAM names our stderr) every line starts with a
 * "<N>" syslog priority prefix, which journald turns into the entry's
 * priority; on a terminal lines read "vringnetd: LEVEL: message".
 */
#ifndef VRINGNET_LOG_H
#define VRINGNET_LOG_H

#include <stdbool.h>
#include <syslog.h>

#include "config.h"

void log_init(const char *ident);
void log_set_level(enum cfg_log_level level);
enum cfg_log_level log_get_level(void);
bool log_to_journal(void);
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

#endif /* VRINGNET_LOG_H */
