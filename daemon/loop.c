// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop.c - the event loop on sd-event: io sources for fds, signal sources
 *	    for SIGHUP/SIGTERM/SIGINT, CLOCK_MONOTONIC time sources for
 *	    timers, sd-event's watchdog
 *
 * sd-event makes these system calls (the seccomp allow-list in sandbox.c
 * has them): epoll_create1, epoll_ctl, epoll_wait, signalfd4,
 * rt_sigprocmask, timerfd_create, timerfd_settime, clock_gettime, read (the
 * signalfd and timerfds) and, for the watchdog, socket(AF_UNIX) + sendmsg +
 * close (sd_notify()).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "log.h"
#include "loop.h"

/* Timers fire within a microsecond of their time, like the timerfds they
 * replace: sd-event's default accuracy (250 ms) would delay the deadlines
 * and the vhost-user poll timer. */
#define LOOP_TIMER_ACCURACY_US	1

static const int loop_signals[] = { SIGHUP, SIGTERM, SIGINT };
#define LOOP_NSIGNALS	(sizeof(loop_signals) / sizeof(loop_signals[0]))

/**
 * struct loop - the event loop
 * @ev: the sd-event loop
 * @sig: its signal sources, one per loop_signals[] entry
 * @on_signal: signal callback
 * @opaque: passed to @on_signal
 */
struct loop {
	sd_event *ev;
	sd_event_source *sig[LOOP_NSIGNALS];
	loop_signal_fn on_signal;
	void *opaque;
};

static const char *const loop_type_names[LOOP_REF_MAX] = {
	[LOOP_REF_TIMER] = "timer",
	[LOOP_REF_CONTROL] = "control",
	[LOOP_REF_CONTROL_CLIENT] = "control-client",
	[LOOP_REF_PORT_LISTEN] = "port-listen",
	[LOOP_REF_PORT_CONN] = "port-conn",
	[LOOP_REF_PORT_AUX] = "port-aux",
	[LOOP_REF_QUEUE_RX] = "queue-rx",
};

/**
 * loop_ref_type_name() - name of a ref type, for messages
 * @type: the type
 *
 * Return: a static string.
 */
const char *loop_ref_type_name(enum loop_ref_type type)
{
	if ((unsigned int)type >= LOOP_REF_MAX)
		return "?";
	return loop_type_names[type];
}

/**
 * loop_signal_cb() - sd-event signal callback
 * @s: the signal source
 * @si: what the signalfd read
 * @userdata: the loop
 *
 * Return: 0 (a negative value would make sd-event disable the source).
 */
static int loop_signal_cb(sd_event_source *s, const struct signalfd_siginfo *si,
			  void *userdata)
{
	struct loop *loop = userdata;

	if (loop->on_signal)
		loop->on_signal(loop, (int)si->ssi_signo, loop->opaque);
	return 0;
}

/**
 * loop_new() - create the loop and its signal sources
 * @on_signal: called for SIGHUP, SIGTERM and SIGINT (NULL: they are
 *	received and ignored)
 * @opaque: passed to @on_signal
 * @err: message buffer
 * @errlen: its size
 *
 * The three signals are blocked in the calling thread (call this before
 * creating threads; sd-event wants them blocked) and SIGPIPE is ignored: a
 * peer closing a socket gives EPIPE, not death.
 *
 * Return: the loop, or NULL with @err filled.
 */
struct loop *loop_new(loop_signal_fn on_signal, void *opaque,
		      char *err, size_t errlen)
{
	struct loop *loop = calloc(1, sizeof(*loop));
	unsigned int i;
	sigset_t set;
	int r;

	if (!loop) {
		snprintf(err, errlen, "event loop: %s", strerror(errno));
		return NULL;
	}
	r = sd_event_new(&loop->ev);
	if (r < 0) {
		snprintf(err, errlen, "sd_event_new: %s", strerror(-r));
		free(loop);
		return NULL;
	}
	loop->on_signal = on_signal;
	loop->opaque = opaque;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	for (i = 0; i < LOOP_NSIGNALS; i++)
		sigaddset(&set, loop_signals[i]);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0) {
		snprintf(err, errlen, "sigprocmask: %s", strerror(errno));
		loop_free(loop);
		return NULL;
	}
	for (i = 0; i < LOOP_NSIGNALS; i++) {
		r = sd_event_add_signal(loop->ev, &loop->sig[i], loop_signals[i],
					loop_signal_cb, loop);
		if (r < 0) {
			snprintf(err, errlen, "sd_event_add_signal(%s): %s",
				 strsignal(loop_signals[i]), strerror(-r));
			loop_free(loop);
			return NULL;
		}
	}
	return loop;
}

/**
 * loop_free() - destroy the loop
 * @loop: the loop, or NULL
 *
 * Every ref must have been deleted (loop_del(), loop_timer_fini()) before:
 * a source still attached keeps sd-event's loop (its epoll fd) alive.
 */
void loop_free(struct loop *loop)
{
	unsigned int i;

	if (!loop)
		return;
	for (i = 0; i < LOOP_NSIGNALS; i++)
		loop->sig[i] = sd_event_source_disable_unref(loop->sig[i]);
	sd_event_unref(loop->ev);
	free(loop);
}

/**
 * loop_ref_init() - fill a ref before loop_add()
 * @ref: the ref
 * @type: what it is
 * @fd: its fd
 * @handler: what to call when it is ready
 */
void loop_ref_init(struct loop_ref *ref, enum loop_ref_type type, int fd,
		   loop_handler_fn handler)
{
	ref->type = type;
	ref->fd = fd;
	ref->handler = handler;
	ref->events = 0;
	ref->registered = false;
	ref->loop = NULL;
	ref->src = NULL;
	ref->interval_us = 0;
	ref->expired = 0;
}

/**
 * loop_io_cb() - sd-event io callback: call the ref's handler
 * @s: the io source
 * @fd: its fd
 * @revents: the epoll events
 * @userdata: the ref
 *
 * The handler may delete and free the ref: nothing here touches it after.
 *
 * Return: 0 (a negative value would make sd-event disable the source).
 */
static int loop_io_cb(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct loop_ref *ref = userdata;

	ref->handler(ref->loop, ref, revents);
	return 0;
}

/**
 * loop_add() - start watching a ref's fd
 * @loop: the loop
 * @ref: an initialised ref
 * @events: EPOLLIN and/or EPOLLOUT (EPOLLHUP/EPOLLERR are implied)
 *
 * Return: 0, or -1 with errno set (EEXIST: the ref is watched already).
 */
int loop_add(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	int r;

	if (ref->registered) {
		errno = EEXIST;
		return -1;
	}
	r = sd_event_add_io(loop->ev, &ref->src, ref->fd, events, loop_io_cb, ref);
	if (r < 0) {
		ref->src = NULL;
		errno = -r;
		return -1;
	}
	ref->loop = loop;
	ref->events = events;
	ref->registered = true;
	return 0;
}

/**
 * loop_mod() - change the events of a registered ref (adds it if needed)
 * @loop: the loop
 * @ref: the ref
 * @events: the new set (0: keep it registered but silent, but for
 *	EPOLLHUP/EPOLLERR, which epoll always reports)
 *
 * Return: 0, or -1 with errno set.
 */
int loop_mod(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	int r;

	if (!ref->registered)
		return loop_add(loop, ref, events);
	if (ref->events == events)
		return 0;
	r = sd_event_source_set_io_events(ref->src, events);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	ref->events = events;
	return 0;
}

/**
 * loop_del() - stop watching a ref (safe on an unregistered ref)
 * @loop: the loop
 * @ref: the ref
 *
 * The fd leaves the epoll set now and an event of it that sd-event fetched
 * but did not dispatch yet is forgotten, so the caller may close the fd and
 * free the embedding object right after.
 */
void loop_del(struct loop *loop, struct loop_ref *ref)
{
	if (!ref->registered)
		return;
	ref->src = sd_event_source_disable_unref(ref->src);
	ref->registered = false;
}

/**
 * loop_quit() - make loop_run() return @status after the current handler
 * @loop: the loop
 * @status: loop_run()'s return value (0 or more)
 *
 * Events fetched and not dispatched yet are not dispatched.
 */
void loop_quit(struct loop *loop, int status)
{
	int r = sd_event_exit(loop->ev, status);

	if (r < 0)
		log_debug("sd_event_exit: %s", strerror(-r));
}

/**
 * loop_run() - wait and dispatch until loop_quit()
 * @loop: the loop
 *
 * Return: the status given to loop_quit(), or -1 when sd-event failed
 * (logged).
 */
int loop_run(struct loop *loop)
{
	int r = sd_event_loop(loop->ev);

	if (r < 0) {
		log_err("event loop: %s", strerror(-r));
		return -1;
	}
	return r;
}

/**
 * loop_watchdog() - send WATCHDOG=1 from the loop when systemd asks for it
 * @loop: the loop
 *
 * sd_event_set_watchdog(): with WATCHDOG_USEC set (and WATCHDOG_PID unset
 * or ours) sd-event sends WATCHDOG=1 now, then between a half and three
 * quarters of WATCHDOG_USEC after the last one, and at any wakeup of the
 * loop after a quarter of it; a loop that hangs stops sending.
 *
 * Return: 1 when the watchdog is on, 0 when systemd did not ask for it, a
 * negative errno on failure.
 */
int loop_watchdog(struct loop *loop)
{
	return sd_event_set_watchdog(loop->ev, 1);
}

/**
 * loop_timer_cb() - sd-event time callback: count, re-arm a periodic
 *		     timer, call the ref's handler
 * @s: the time source
 * @usec: the time it was due (CLOCK_MONOTONIC microseconds)
 * @userdata: the ref
 *
 * A periodic timer counts the periods that passed since @usec too (like a
 * timerfd's expiration count) and is re-armed on its grid, before the
 * handler, which may then disarm or delete it.
 *
 * Return: 0.
 */
static int loop_timer_cb(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct loop_ref *ref = userdata;

	ref->expired++;
	if (ref->interval_us) {
		uint64_t now, next = usec + ref->interval_us;

		if (sd_event_now(sd_event_source_get_event(s), CLOCK_MONOTONIC, &now) >= 0 &&
		    now >= next) {
			uint64_t missed = (now - usec) / ref->interval_us;

			ref->expired += missed;
			next = usec + (missed + 1) * ref->interval_us;
		}
		if (sd_event_source_set_time(s, next) < 0 ||
		    sd_event_source_set_enabled(s, SD_EVENT_ONESHOT) < 0)
			log_err("%s: cannot re-arm a periodic timer",
				loop_ref_type_name(ref->type));
	}
	ref->handler(ref->loop, ref, EPOLLIN);
	return 0;
}

/**
 * loop_timer_init() - create a (disarmed) timer
 * @loop: the loop
 * @ref: the timer's ref
 * @handler: called on expiry (with EPOLLIN); it should call loop_timer_ack()
 *
 * Return: 0, or -1 with errno set (@ref is then not registered).
 */
int loop_timer_init(struct loop *loop, struct loop_ref *ref,
		    loop_handler_fn handler)
{
	int r;

	loop_ref_init(ref, LOOP_REF_TIMER, -1, handler);
	r = sd_event_add_time(loop->ev, &ref->src, CLOCK_MONOTONIC, 0,
			      LOOP_TIMER_ACCURACY_US, loop_timer_cb, ref);
	if (r >= 0) {
		r = sd_event_source_set_enabled(ref->src, SD_EVENT_OFF);
		if (r < 0)
			ref->src = sd_event_source_unref(ref->src);
	}
	if (r < 0) {
		ref->src = NULL;
		errno = -r;
		return -1;
	}
	ref->loop = loop;
	ref->registered = true;
	return 0;
}

/**
 * loop_ns_to_us() - nanoseconds to microseconds, rounded up
 * @ns: nanoseconds
 *
 * Return: microseconds (never 0 for a nonzero @ns).
 */
static uint64_t loop_ns_to_us(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 != 0);
}

/**
 * loop_timer_set() - arm (or disarm) a timer
 * @ref: the timer
 * @first_ns: first expiry from now (0 disarms)
 * @interval_ns: period after that (0: one shot)
 *
 * Expirations not yet acknowledged are forgotten, as with timerfd_settime().
 * "Now" is the clock, not the time of the loop's last wakeup.
 *
 * Return: 0, or -1 with errno set.
 */
int loop_timer_set(struct loop_ref *ref, uint64_t first_ns, uint64_t interval_ns)
{
	struct timespec ts;
	int r;

	if (!ref->registered) {
		errno = EBADF;
		return -1;
	}
	ref->expired = 0;
	ref->interval_us = loop_ns_to_us(interval_ns);
	if (!first_ns)
		r = sd_event_source_set_enabled(ref->src, SD_EVENT_OFF);
	else if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return -1;
	else if ((r = sd_event_source_set_time(ref->src, (uint64_t)ts.tv_sec * 1000000ULL +
					       (uint64_t)ts.tv_nsec / 1000 +
					       loop_ns_to_us(first_ns))) >= 0)
		r = sd_event_source_set_enabled(ref->src, SD_EVENT_ONESHOT);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return 0;
}

/**
 * loop_timer_ack() - take a timer's expiry count
 * @ref: the timer
 *
 * Return: expirations since the last call (0 if none).
 */
uint64_t loop_timer_ack(struct loop_ref *ref)
{
	uint64_t n = ref->expired;

	ref->expired = 0;
	return n;
}

/**
 * loop_timer_fini() - delete a timer (safe on one that is not registered:
 *		       zero-filled or loop_ref_init()ed and never initialised,
 *		       its init failed, or finished already)
 * @loop: the loop
 * @ref: the timer
 */
void loop_timer_fini(struct loop *loop, struct loop_ref *ref)
{
	if (!ref->registered)
		return;
	ref->src = sd_event_source_disable_unref(ref->src);
	ref->registered = false;
	ref->expired = 0;
}
