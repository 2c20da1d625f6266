// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * loop.c - one epoll loop with a signalfd and timerfds
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "log.h"
#include "loop.h"

#define LOOP_BATCH	64

/**
 * struct loop - the event loop
 * @epfd: the epoll instance
 * @sig: the signalfd's ref
 * @on_signal: signal callback
 * @opaque: passed to @on_signal
 * @quit: loop_run() returns after the current batch
 * @status: what loop_run() returns
 * @ev: the current batch of events
 * @nev: events in @ev
 * @ready: refs loop_requeue() queued, oldest first
 * @ready_tail: where the next one is linked
 * @round: loop_run()'s rounds (one epoll_wait() each) so far
 */
struct loop {
	int epfd;
	struct loop_ref sig;
	loop_signal_fn on_signal;
	void *opaque;
	bool quit;
	int status;
	struct epoll_event ev[LOOP_BATCH];
	int nev;
	struct loop_ref *ready;
	struct loop_ref **ready_tail;
	unsigned long round;
};

static const char *const loop_type_names[LOOP_REF_MAX] = {
	[LOOP_REF_SIGNAL] = "signal",
	[LOOP_REF_TIMER] = "timer",
	[LOOP_REF_CONTROL] = "control",
	[LOOP_REF_CONTROL_CLIENT] = "control-client",
	[LOOP_REF_PORT_LISTEN] = "port-listen",
	[LOOP_REF_PORT_CONN] = "port-conn",
	[LOOP_REF_PORT_AUX] = "port-aux",
	[LOOP_REF_QUEUE_RX] = "queue-rx",
	[LOOP_REF_WORKER] = "worker",
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
 * loop_signal_ready() - read pending signals from the signalfd
 * @loop: the loop
 * @ref: the signalfd's ref
 * @events: unused
 */
static void loop_signal_ready(struct loop *loop, struct loop_ref *ref,
			      uint32_t events)
{
	struct signalfd_siginfo si;

	while (read(ref->fd, &si, sizeof(si)) == sizeof(si)) {
		if (loop->on_signal)
			loop->on_signal(loop, (int)si.ssi_signo, loop->opaque);
	}
}

/**
 * loop_new() - create the loop and its signalfd
 * @on_signal: called for SIGHUP, SIGTERM and SIGINT; NULL: a loop without
 *	a signalfd (a pump thread's, worker.c: the signals are the main
 *	thread's, and a second signalfd would take them from it)
 * @opaque: passed to @on_signal
 * @err: message buffer
 * @errlen: its size
 *
 * The three signals are blocked in the calling thread (call this before
 * creating threads: they inherit the mask) and SIGPIPE is ignored: a peer
 * closing a socket gives EPIPE, not death.
 *
 * Return: the loop, or NULL with @err filled.
 */
struct loop *loop_new(loop_signal_fn on_signal, void *opaque,
		      char *err, size_t errlen)
{
	struct loop *loop = calloc(1, sizeof(*loop));
	sigset_t set;
	int sfd;

	if (!loop) {
		log_buf_errno(err, errlen, errno, "event loop");
		return NULL;
	}
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		log_buf_errno(err, errlen, errno, "epoll_create1");
		free(loop);
		return NULL;
	}
	loop_ref_init(&loop->sig, LOOP_REF_SIGNAL, -1, loop_signal_ready);
	if (!on_signal)
		return loop;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0 ||
	    (sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		log_buf_errno(err, errlen, errno, "signalfd");
		close(loop->epfd);
		free(loop);
		return NULL;
	}
	loop->on_signal = on_signal;
	loop->opaque = opaque;
	loop_ref_init(&loop->sig, LOOP_REF_SIGNAL, sfd, loop_signal_ready);
	if (loop_add(loop, &loop->sig, EPOLLIN) < 0) {
		log_buf_errno(err, errlen, errno, "epoll_ctl(signalfd)");
		close(sfd);
		close(loop->epfd);
		free(loop);
		return NULL;
	}
	return loop;
}

/**
 * loop_free() - destroy the loop (refs still registered are forgotten;
 *		 their fds stay open: they belong to their objects)
 * @loop: the loop, or NULL
 */
void loop_free(struct loop *loop)
{
	if (!loop)
		return;
	loop_del(loop, &loop->sig);
	if (loop->sig.fd >= 0)
		close(loop->sig.fd);
	close(loop->epfd);
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
	ref->queued = false;
	ref->next = NULL;
}

/**
 * loop_add() - start watching a ref's fd
 * @loop: the loop
 * @ref: an initialised ref
 * @events: EPOLLIN and/or EPOLLOUT (EPOLLHUP/EPOLLERR are implied)
 *
 * Return: 0, or -1 with errno set.
 */
int loop_add(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ref };

	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, ref->fd, &ev) < 0)
		return -1;
	ref->events = events;
	ref->registered = true;
	return 0;
}

/**
 * loop_mod() - change the events of a registered ref (adds it if needed)
 * @loop: the loop
 * @ref: the ref
 * @events: the new set (0: keep it registered but silent)
 *
 * Return: 0, or -1 with errno set.
 */
int loop_mod(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ref };

	if (!ref->registered)
		return loop_add(loop, ref, events);
	if (ref->events == events)
		return 0;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, ref->fd, &ev) < 0)
		return -1;
	ref->events = events;
	return 0;
}

/**
 * loop_unqueue() - take a ref off the ready list (nothing if it is not on it)
 * @loop: the loop
 * @ref: the ref
 */
static void loop_unqueue(struct loop *loop, struct loop_ref *ref)
{
	struct loop_ref **pp;

	if (!ref->queued)
		return;
	for (pp = &loop->ready; *pp; pp = &(*pp)->next) {
		if (*pp != ref)
			continue;
		*pp = ref->next;
		if (loop->ready_tail == &ref->next)
			loop->ready_tail = pp;
		break;
	}
	ref->queued = false;
	ref->next = NULL;
}

/**
 * loop_requeue() - call a ref's handler again after the fds ready by then
 * @loop: the loop
 * @ref: a registered ref whose handler stopped with work left (fair
 *	shares: vq.c); queued once however often it is called
 *
 * The handler is called with events 0.  loop_del() takes it off again.
 */
void loop_requeue(struct loop *loop, struct loop_ref *ref)
{
	if (ref->queued)
		return;
	ref->queued = true;
	ref->round = loop->round;
	ref->next = NULL;
	if (!loop->ready)
		loop->ready_tail = &loop->ready;
	*loop->ready_tail = ref;
	loop->ready_tail = &ref->next;
}

/**
 * loop_run_ready() - call the handlers of the refs queued before this round
 * @loop: the loop
 *
 * A handler that queues its ref again is called in the next round, after
 * epoll has been asked for the others.
 */
static void loop_run_ready(struct loop *loop)
{
	while (loop->ready && loop->ready->round != loop->round) {
		struct loop_ref *ref = loop->ready;

		loop_unqueue(loop, ref);
		ref->handler(loop, ref, 0);
	}
}

/**
 * loop_del() - stop watching a ref (safe on an unregistered ref)
 * @loop: the loop
 * @ref: the ref
 *
 * Events of the current batch that point at @ref are discarded, so the
 * caller may free the embedding object right after.
 */
void loop_del(struct loop *loop, struct loop_ref *ref)
{
	int i;

	loop_unqueue(loop, ref);
	if (!ref->registered)
		return;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_DEL, ref->fd, NULL) < 0)
		log_debug_errno(errno, "epoll_ctl(DEL, %s fd %d)",
			  loop_ref_type_name(ref->type), ref->fd);
	ref->registered = false;
	for (i = 0; i < loop->nev; i++)
		if (loop->ev[i].data.ptr == ref)
			loop->ev[i].data.ptr = NULL;
}

/**
 * loop_quit() - make loop_run() return @status after the current batch
 * @loop: the loop
 * @status: loop_run()'s return value
 */
void loop_quit(struct loop *loop, int status)
{
	loop->quit = true;
	loop->status = status;
}

/**
 * loop_run() - wait and dispatch until loop_quit()
 * @loop: the loop
 *
 * Return: the status given to loop_quit(), or -1 when epoll_wait() fails.
 */
int loop_run(struct loop *loop)
{
	while (!loop->quit) {
		int i, n = epoll_wait(loop->epfd, loop->ev, LOOP_BATCH, loop->ready ? 0 : -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_err_errno(errno, "epoll_wait");
			return -1;
		}
		loop->round++;
		loop->nev = n;
		/* after loop_quit() nothing more is served, not even the rest
		 * of this batch (a hand-over: those fds are the successor's) */
		for (i = 0; i < n && !loop->quit; i++) {
			struct loop_ref *ref = loop->ev[i].data.ptr;

			if (!ref)
				continue;
			/* served now: a requeued call would serve it twice */
			if (ref->queued && ref->round != loop->round)
				loop_unqueue(loop, ref);
			ref->handler(loop, ref, loop->ev[i].events);
		}
		loop->nev = 0;
		if (!loop->quit)
			loop_run_ready(loop);
	}
	return loop->status;
}

/**
 * loop_timer_init() - create a (disarmed) timerfd and watch it
 * @loop: the loop
 * @ref: the timer's ref
 * @handler: called on expiry; it should call loop_timer_ack()
 *
 * Return: 0, or -1 with errno set (@ref then has fd -1: loop_timer_fini()
 * accepts it).
 */
int loop_timer_init(struct loop *loop, struct loop_ref *ref,
		    loop_handler_fn handler)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	loop_ref_init(ref, LOOP_REF_TIMER, fd, handler);
	if (fd < 0)
		return -1;
	if (loop_add(loop, ref, EPOLLIN) < 0) {
		int e = errno;

		close(fd);
		ref->fd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

/**
 * loop_timer_set() - arm (or disarm) a timer
 * @ref: the timer
 * @first_ns: first expiry from now (0 disarms)
 * @interval_ns: period after that (0: one shot)
 *
 * Return: 0, or -1 with errno set.
 */
int loop_timer_set(struct loop_ref *ref, uint64_t first_ns, uint64_t interval_ns)
{
	struct itimerspec its = {
		.it_value = { first_ns / 1000000000ULL, first_ns % 1000000000ULL },
		.it_interval = { interval_ns / 1000000000ULL, interval_ns % 1000000000ULL },
	};

	return timerfd_settime(ref->fd, 0, &its, NULL);
}

/**
 * loop_timer_ack() - read a timer's expiry count
 * @ref: the timer
 *
 * Return: expirations since the last call (0 if none).
 */
uint64_t loop_timer_ack(struct loop_ref *ref)
{
	uint64_t n = 0;

	if (read(ref->fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

/**
 * loop_timer_fini() - stop watching and close a timer
 * @loop: the loop
 * @ref: the timer (fd -1 is accepted)
 */
void loop_timer_fini(struct loop *loop, struct loop_ref *ref)
{
	if (ref->fd < 0)
		return;
	loop_del(loop, ref);
	close(ref->fd);
	ref->fd = -1;
}
