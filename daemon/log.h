/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - vringnetd's messages: stderr, journald-friendly.
 *
 * Under systemd (JOURNAL_STREAM names our stderr) every line starts with a
 * "<N>" syslog priority prefix, which journald turns into the entry's
 * priority; on a terminal lines read "vringnetd: LEVEL: message".
 *
 * The _errno forms append ": " and strerror() of an errno and return the
 * negative errno; log_buf_errno() does the same into a caller's error
 * buffer, for the functions that report through one.
 */
#ifndef VRINGNET_LOG_H
#define VRINGNET_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

#include "config.h"

#define LOG_RL_BURST		10		/* lines per window */
#define LOG_RL_WINDOW_NS	5000000000ULL	/* 5 s */

/**
 * struct log_ratelimit - lines about one client (a port's peers, the
 *			  control socket's refusals): at most LOG_RL_BURST
 *			  per LOG_RL_WINDOW_NS, then one "N messages
 *			  suppressed" line when the next window opens
 * @what: who, for the suppressed line ("port vm1")
 * @window: start of the current window (CLOCK_MONOTONIC ns)
 * @count: lines logged in it
 * @suppressed: lines dropped since the last suppressed line
 */
struct log_ratelimit {
	char what[48];
	uint64_t window;
	unsigned int count;
	unsigned long suppressed;
};

void log_init(const char *ident);
void log_ratelimit_init(struct log_ratelimit *rl, const char *what);
bool log_ratelimit(struct log_ratelimit *rl);
void log_ratelimit_flush(struct log_ratelimit *rl);
void log_set_level(enum config_log_level level);
enum config_log_level log_get_level(void);
bool log_to_journal(void);
bool log_enabled(int prio);
void log_msg(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void log_obj(int prio, const char *port, const char *tap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int log_obj_errno(int prio, int err, const char *port, const char *tap, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
int log_buf_errno(char *buf, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define log_err(...)	log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_DEBUG, __VA_ARGS__)

/*
 * The same with ": " and strerror(@err) appended ("epoll_wait: Bad file
 * descriptor"); @err is an errno, positive or negative, and -|@err| is
 * returned: "return log_err_errno(errno, "...");".
 */
#define log_err_errno(err, ...)		log_obj_errno(LOG_ERR, (err), NULL, NULL, __VA_ARGS__)
#define log_warn_errno(err, ...)	log_obj_errno(LOG_WARNING, (err), NULL, NULL, __VA_ARGS__)
#define log_notice_errno(err, ...)	log_obj_errno(LOG_NOTICE, (err), NULL, NULL, __VA_ARGS__)
#define log_info_errno(err, ...)	log_obj_errno(LOG_INFO, (err), NULL, NULL, __VA_ARGS__)
#define log_debug_errno(err, ...)	log_obj_errno(LOG_DEBUG, (err), NULL, NULL, __VA_ARGS__)

/* A line about a port (and its tap): VRINGNET_PORT=/VRINGNET_TAP= in the journal. */
#define log_port(prio, p, ...)	log_obj((prio), (p)->cfg.name, (p)->cfg.tap, __VA_ARGS__)
/* A line about a tap: VRINGNET_TAP= in the journal. */
#define log_tap(prio, name, ...)	log_obj((prio), NULL, (name), __VA_ARGS__)
/* log_port() and log_tap() with ": strerror(@err)" appended; return -|@err|. */
#define log_port_errno(prio, p, err, ...) \
	log_obj_errno((prio), (err), (p)->cfg.name, (p)->cfg.tap, __VA_ARGS__)
#define log_tap_errno(prio, name, err, ...) \
	log_obj_errno((prio), (err), NULL, (name), __VA_ARGS__)

/* A line a client can cause about port @p: logged when its rate limit allows it. */
#define log_rl_port(p, prio, ...) \
	do { \
		if (log_enabled(prio) && log_ratelimit(&(p)->rl)) \
			log_port((prio), (p), __VA_ARGS__); \
	} while (0)

/* A line a client can cause: logged when @rl allows it. */
#define log_rl(rl, prio, ...) \
	do { \
		if (log_enabled(prio) && log_ratelimit(rl)) \
			log_msg((prio), __VA_ARGS__); \
	} while (0)

#endif /* VRINGNET_LOG_H */
