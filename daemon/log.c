// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c - vringnetd's messages on stderr, with syslog priority prefixes
 *	   when stderr is connected to the journal
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char *log_ident = "vringnetd";
static bool log_journal;
static int log_max_prio = LOG_INFO;

/**
 * log_stderr_is_journal() - whether stderr is the stream systemd gave us
 *
 * systemd sets JOURNAL_STREAM=DEV:INO for the stream it connected to
 * stdout/stderr; only when our stderr is that very file do we use "<N>"
 * prefixes (a redirected stderr gets plain text).
 *
 * Return: true when stderr is the journal stream.
 */
static bool log_stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

/**
 * log_init() - set up logging
 * @ident: program name used in front of plain-text lines
 */
void log_init(const char *ident)
{
	if (ident)
		log_ident = ident;
	log_journal = log_stderr_is_journal();
}

/**
 * log_to_journal() - whether lines carry "<N>" priority prefixes
 *
 * Return: true under systemd with stderr connected to the journal.
 */
bool log_to_journal(void)
{
	return log_journal;
}

/**
 * log_enabled() - whether a message of @prio would be written
 * @prio: LOG_ERR .. LOG_DEBUG
 *
 * Return: true when the level lets it through.
 */
bool log_enabled(int prio)
{
	/* read by the pump threads too (worker.h); set by the main thread */
	return prio <= __atomic_load_n(&log_max_prio, __ATOMIC_RELAXED);
}

/**
 * log_set_level() - messages less important than @level are dropped
 * @level: from the configuration's log-level
 */
void log_set_level(enum config_log_level level)
{
	static const int prio[] = {
		[CFG_LOG_ERR] = LOG_ERR, [CFG_LOG_WARNING] = LOG_WARNING,
		[CFG_LOG_NOTICE] = LOG_NOTICE, [CFG_LOG_INFO] = LOG_INFO,
		[CFG_LOG_DEBUG] = LOG_DEBUG,
	};

	if ((unsigned int)level < sizeof(prio) / sizeof(prio[0]))
		__atomic_store_n(&log_max_prio, prio[level], __ATOMIC_RELAXED);
}

/**
 * log_get_level() - the current level
 *
 * Return: the level as a configuration value.
 */
enum config_log_level log_get_level(void)
{
	switch (log_max_prio) {
	case LOG_ERR: return CFG_LOG_ERR;
	case LOG_WARNING: return CFG_LOG_WARNING;
	case LOG_NOTICE: return CFG_LOG_NOTICE;
	case LOG_DEBUG: return CFG_LOG_DEBUG;
	default: return CFG_LOG_INFO;
	}
}

/**
 * log_journal_send() - one entry with structured fields, straight to journald
 * @prio: LOG_ERR .. LOG_DEBUG
 * @port: VRINGNET_PORT= value, or NULL
 * @tap: VRINGNET_TAP= value, or NULL
 * @msg: the message
 *
 * Through sd_journal_sendv(): an AF_UNIX datagram to journald's socket
 * (socket() and sendmsg(), both in the daemon's seccomp allow-list).
 *
 * Return: 0, or a negative errno (the caller then writes to stderr).
 */
static int log_journal_send(int prio, const char *port, const char *tap, const char *msg)
{
	char f[5][1100];
	struct iovec iov[5];
	int n = 0;

	snprintf(f[n++], sizeof(f[0]), "MESSAGE=%s", msg);
	snprintf(f[n++], sizeof(f[0]), "PRIORITY=%d", prio);
	snprintf(f[n++], sizeof(f[0]), "SYSLOG_IDENTIFIER=%s", log_ident);
	if (port)
		snprintf(f[n++], sizeof(f[0]), "VRINGNET_PORT=%s", port);
	if (tap)
		snprintf(f[n++], sizeof(f[0]), "VRINGNET_TAP=%s", tap);
	for (int i = 0; i < n; i++) {
		iov[i].iov_base = f[i];
		iov[i].iov_len = strlen(f[i]);
	}
	return sd_journal_sendv(iov, n);
}

/**
 * log_obj() - a line about a port and/or tap, with journal fields
 * @prio: LOG_ERR .. LOG_DEBUG
 * @port: the port it is about, or NULL
 * @tap: the tap it is about, or NULL
 * @fmt: printf format
 *
 * Under systemd the entry goes to journald with VRINGNET_PORT= and
 * VRINGNET_TAP= fields (journalctl VRINGNET_PORT=vm1); elsewhere, or when
 * that fails, it is the same line as log_msg() writes.
 */
void log_obj(int prio, const char *port, const char *tap, const char *fmt, ...)
{
	char msg[1024];
	int saved = errno;
	va_list ap;

	if (!log_enabled(prio))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_journal && log_journal_send(prio, port, tap, msg) >= 0) {
		errno = saved;
		return;
	}
	log_msg(prio, "%s", msg);
	errno = saved;
}

/**
 * log_msg() - write one line to stderr
 * @prio: LOG_ERR .. LOG_DEBUG
 * @fmt: printf format, no trailing newline needed
 *
 * The line is built first and written with one write() so that lines of
 * concurrent writers never interleave.  errno is preserved.
 */
void log_msg(int prio, const char *fmt, ...)
{
	static const char *const names[] = {
		"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
	};
	char line[1024];
	int saved = errno, n;
	va_list ap;

	if (!log_enabled(prio))
		return;
	if (log_journal)
		n = snprintf(line, sizeof(line), "<%d>", prio);
	else
		n = snprintf(line, sizeof(line), "%s: %s: ", log_ident, names[prio & 7]);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = sizeof(line) - 2;
	if (n > 0 && line[n - 1] == '\n')
		n--;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0) {
		/* nowhere left to report it */
	}
	errno = saved;
}

/**
 * log_vformat_errno() - format a message and append ": " and strerror(@err)
 * @buf: output (may be NULL when @len is 0)
 * @len: its size
 * @err: errno, positive or negative
 * @fmt: printf format
 * @ap: its arguments
 *
 * errno is preserved.
 *
 * Return: -|@err|.
 */
static int __attribute__((format(printf, 4, 0)))
log_vformat_errno(char *buf, size_t len, int err, const char *fmt, va_list ap)
{
	int saved = errno, n;

	if (err < 0)
		err = -err;
	if (!buf || !len)
		return -err;
	n = vsnprintf(buf, len, fmt, ap);
	if (n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ": %s", strerror(err));
	errno = saved;
	return -err;
}

/**
 * log_buf_errno() - a reason into an error buffer, with ": strerror(@err)"
 * @buf: the caller's error buffer (may be NULL when @len is 0)
 * @len: its size
 * @err: errno, positive or negative
 * @fmt: printf format
 *
 * For the functions that fill an err buffer for their caller to log:
 * log_buf_errno(err, errlen, errno, "bind %s", path) writes what
 * snprintf(err, errlen, "bind %s: %s", path, strerror(errno)) would.
 * errno is preserved.
 *
 * Return: -|@err|.
 */
int log_buf_errno(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = log_vformat_errno(buf, len, err, fmt, ap);
	va_end(ap);
	return ret;
}

/**
 * log_obj_errno() - log_obj() or log_msg() with ": " and strerror(@err) appended
 * @prio: LOG_ERR .. LOG_DEBUG
 * @err: errno, positive or negative
 * @port: the port it is about, or NULL
 * @tap: the tap it is about, or NULL
 * @fmt: printf format
 *
 * About a port or tap the line goes out through log_obj(), so the journal
 * gets the same VRINGNET_PORT=/VRINGNET_TAP= fields; about neither (the
 * log_err_errno() family) through log_msg().  errno is preserved.
 *
 * Return: -|@err|.
 */
int log_obj_errno(int prio, int err, const char *port, const char *tap, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int ret;

	if (!log_enabled(prio))
		return err < 0 ? err : -err;
	va_start(ap, fmt);
	ret = log_vformat_errno(msg, sizeof(msg), err, fmt, ap);
	va_end(ap);
	if (port || tap)
		log_obj(prio, port, tap, "%s", msg);
	else
		log_msg(prio, "%s", msg);
	return ret;
}

/**
 * log_ratelimit_init() - a fresh rate limit
 * @rl: the limit
 * @what: who its lines are about, for the suppressed line
 */
void log_ratelimit_init(struct log_ratelimit *rl, const char *what)
{
	memset(rl, 0, sizeof(*rl));
	snprintf(rl->what, sizeof(rl->what), "%s", what);
}

/**
 * log_ratelimit_flush() - log "N messages suppressed" if lines were dropped
 * @rl: the limit
 */
void log_ratelimit_flush(struct log_ratelimit *rl)
{
	if (!rl->suppressed)
		return;
	log_msg(LOG_WARNING, "%s: %lu messages suppressed (more than %d in %llu s)",
		rl->what, rl->suppressed, LOG_RL_BURST,
		(unsigned long long)(LOG_RL_WINDOW_NS / 1000000000ULL));
	rl->suppressed = 0;
}

/**
 * log_ratelimit() - whether one more line about @rl's client may be logged
 * @rl: the limit
 *
 * The first call of a new window first logs how many lines the last ones
 * dropped.
 *
 * Return: true to log it; false when it is counted as suppressed.
 */
bool log_ratelimit(struct log_ratelimit *rl)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (!rl->count || now - rl->window >= LOG_RL_WINDOW_NS) {
		log_ratelimit_flush(rl);
		rl->window = now;
		rl->count = 0;
	}
	if (rl->count >= LOG_RL_BURST) {
		rl->suppressed++;
		return false;
	}
	rl->count++;
	return true;
}
