/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop.h - vringnetd's event loop: one epoll instance, dispatch on a typed
 *	    reference.
 *
 * Everything the daemon waits on is a struct loop_ref embedded in the object
 * that owns the fd (a port, a control client, a queue, a timer).  epoll's
 * data.ptr points at the ref; when the fd is ready the loop calls
 * ref->handler(loop, ref, events), and the handler finds its object with
 * container_of().  @type says what the ref is (for messages and debugging).
 *
 * Lifetime rule: call loop_del() before freeing the object that embeds the
 * ref.  loop_del() also forgets events already fetched for that ref in the
 * current batch, so a handler may tear down any other object safely.
 *
 * A handler that stopped at its share of work with work left calls
 * loop_requeue(): the loop calls it again (with events 0) after the fds
 * that are ready by then, without a system call to signal itself.
 *
 * Signals (SIGHUP, SIGTERM, SIGINT) arrive through a signalfd; timers are
 * timerfds (loop_timer_*).  Nothing here allocates per event.
 */
#ifndef VRINGNET_LOOP_H
#define VRINGNET_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* What a struct loop_ref belongs to. */
enum loop_ref_type {
	LOOP_REF_SIGNAL,	/* the signalfd */
	LOOP_REF_TIMER,		/* a timerfd */
	LOOP_REF_CONTROL,	/* the control socket's listening fd */
	LOOP_REF_CONTROL_CLIENT,/* one control connection */
	LOOP_REF_PORT_LISTEN,	/* a port's listening socket */
	LOOP_REF_PORT_CONN,	/* a port's connection (hypervisor socket) */
	LOOP_REF_PORT_AUX,	/* more fds of a port: kick eventfds, ... */
	LOOP_REF_QUEUE_RX,	/* an engine queue's rx_fd */
	LOOP_REF_WORKER,	/* a pump thread's mailbox eventfd (worker.c) */
	LOOP_REF_MAX
};

struct loop;
struct loop_ref;

/**
 * loop_handler_fn - called when a ref's fd is ready
 * @loop: the loop
 * @ref: the ready ref
 * @events: EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR, ...
 */
typedef void (*loop_handler_fn)(struct loop *loop, struct loop_ref *ref,
				uint32_t events);

/**
 * struct loop_ref - one fd the loop watches
 * @type: what it is
 * @fd: the fd (owned by the embedding object, not by the loop)
 * @handler: what to call
 * @events: the epoll events registered
 * @registered: the fd is in the epoll set
 * @queued: loop_requeue() put it on the loop's ready list
 * @round: the loop's round when it was queued
 * @next: the next ref on that list
 */
struct loop_ref {
	enum loop_ref_type type;
	int fd;
	loop_handler_fn handler;
	uint32_t events;
	bool registered;
	bool queued;
	unsigned long round;
	struct loop_ref *next;
};

/**
 * loop_signal_fn - called for each SIGHUP/SIGTERM/SIGINT received
 * @loop: the loop
 * @signo: the signal
 * @opaque: loop_new()'s @opaque
 */
typedef void (*loop_signal_fn)(struct loop *loop, int signo, void *opaque);

struct loop *loop_new(loop_signal_fn on_signal, void *opaque,
		      char *err, size_t errlen);
void loop_free(struct loop *loop);
void loop_ref_init(struct loop_ref *ref, enum loop_ref_type type, int fd,
		   loop_handler_fn handler);
int loop_add(struct loop *loop, struct loop_ref *ref, uint32_t events);
int loop_mod(struct loop *loop, struct loop_ref *ref, uint32_t events);
void loop_del(struct loop *loop, struct loop_ref *ref);
void loop_requeue(struct loop *loop, struct loop_ref *ref);
int loop_run(struct loop *loop);
void loop_quit(struct loop *loop, int status);
const char *loop_ref_type_name(enum loop_ref_type type);

int loop_timer_init(struct loop *loop, struct loop_ref *ref,
		    loop_handler_fn handler);
int loop_timer_set(struct loop_ref *ref, uint64_t first_ns, uint64_t interval_ns);
uint64_t loop_timer_ack(struct loop_ref *ref);
void loop_timer_fini(struct loop *loop, struct loop_ref *ref);

#endif /* VRINGNET_LOOP_H */
