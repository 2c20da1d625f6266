// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sdnotify.c - sd_notify() messages and sd_listen_fds() socket activation
 *
 * Without NOTIFY_SOCKET every call here is a no-op, so the daemon runs the
 * same in a terminal.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "fdstore.h"
#include "log.h"
#include "sdnotify.h"

/**
 * sdnotify_watchdog_interval_ns() - how often to send WATCHDOG=1
 *
 * Return: half of WATCHDOG_USEC in nanoseconds, or 0 when the watchdog is
 * off (or WATCHDOG_PID names another process).
 */
uint64_t sdnotify_watchdog_interval_ns(void)
{
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) <= 0 || !usec)
		return 0;
	return usec * 1000ULL / 2;
}

/**
 * sdnotify_send() - send one notification, logging a failure at debug level
 * @msg: the message (newline-separated assignments)
 */
static void sdnotify_send(const char *msg)
{
	int ret = sd_notify(0, msg);

	if (ret < 0)
		log_debug("sd_notify(%s): %s", msg, strerror(-ret));
}

/**
 * sdnotify_ready() - READY=1 with a STATUS= line
 * @status: human-readable state (taps, ports, engine)
 */
void sdnotify_ready(const char *status)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", status);
	sdnotify_send(msg);
}

/**
 * sdnotify_mainpid() - MAINPID=<this process> (a hand-over's successor)
 *
 * systemd accepts it from a process other than the main one only with
 * NotifyAccess=all.  The barrier makes sure systemd read it before the
 * predecessor (the main process until then) exits.
 */
void sdnotify_mainpid(void)
{
	char msg[32];
	int ret;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	snprintf(msg, sizeof(msg), "MAINPID=%d", (int)getpid());
	sdnotify_send(msg);
	ret = sd_notify_barrier(0, 5 * 1000000ULL);
	if (ret < 0)
		log_warn_errno(ret, "sd_notify_barrier after MAINPID=");
}

/**
 * sdnotify_reloading() - RELOADING=1 (with MONOTONIC_USEC, which newer systemd
 *		     wants next to it)
 */
void sdnotify_reloading(void)
{
	struct timespec ts;
	char msg[128];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nSTATUS=reloading\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ULL + ts.tv_nsec / 1000);
	sdnotify_send(msg);
}

/**
 * sdnotify_status() - a STATUS= line
 * @fmt: printf format
 */
void sdnotify_status(const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n = snprintf(msg, sizeof(msg), "STATUS=");

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	va_end(ap);
	sdnotify_send(msg);
}

/**
 * sdnotify_stopping() - STOPPING=1
 */
void sdnotify_stopping(void)
{
	sdnotify_send("STOPPING=1\nSTATUS=stopping");
}

/**
 * sdnotify_watchdog() - WATCHDOG=1 (called from the event loop's timer, so it
 *		    only goes out while the loop runs)
 */
void sdnotify_watchdog(void)
{
	sdnotify_send("WATCHDOG=1");
}

/**
 * sdnotify_listen_fd() - the control socket passed by socket activation
 * @path: the configured control socket path
 *
 * Of the fds systemd passed (fdstore_load()), those not named as stored
 * taps or sockets come from socket activation: it accepts exactly one, an
 * AF_UNIX SOCK_SEQPACKET listening socket; if it is bound to another path
 * than @path, that is logged and the passed socket is used anyway (the
 * unit wins).
 *
 * Return: the fd, -1 when there was no socket activation, -2 when the
 * passed fds are not what we want (logged).
 */
int sdnotify_listen_fd(const char *path)
{
	int fd = -1, n = fdstore_take_other(&fd);

	if (!n)
		return -1;
	if (n > 1) {
		log_err("socket activation: %d fds passed, expected 1 (the control socket)", n);
		return -2;
	}
	if (sd_is_socket_unix(fd, SOCK_SEQPACKET, 1, NULL, 0) <= 0) {
		log_err("socket activation: fd %d is not a listening AF_UNIX SOCK_SEQPACKET socket", fd);
		close(fd);
		return -2;
	}
	if (sd_is_socket_unix(fd, SOCK_SEQPACKET, 1, path, 0) <= 0)
		log_notice("socket activation: the passed control socket is not bound to %s; using it anyway",
			   path);
	return fd;
}
