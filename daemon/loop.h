/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loop.h - vringnetd's event loop: sd-event (libsystemd) underneath,
 *	    dispatch on a typed reference.
 *
 * Everything the daemon waits on is a struct loop_ref embedded in the object
 * that owns it (a port, a control client, a queue, a timer).  The ref holds
 * its sd-event source; when the fd is ready (or the timer expires) the loop
 * calls ref->handler(loop, ref, events), and the handler finds its object
 * with container_of().  @type says what the ref is (for messages and
 * debugging).
 *
 * Lifetime rule: call loop_del() (loop_timer_fini() for a timer) before
 * freeing the object that embeds the ref.  An event already fetched for that
 * ref and not yet dispatched is then forgotten, so a handler may tear down
 * any other object safely.
 *
 * Signals (SIGHUP, SIGTERM, SIGINT) are sd-event signal sources; timers are
 * CLOCK_MONOTONIC time sources (loop_timer_*); the systemd watchdog is
 * sd-event's own (loop_watchdog()).  Nothing here allocates per event.
 */
#ifndef VRINGNET_LOOP_H
#define VRINGNET_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

struct sd_event_source;

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

/* What a struct loop_ref belongs to. */
enum loop_ref_type {
	LOOP_REF_TIMER,		/* a timer (loop_timer_init()) */
	LOOP_REF_CONTROL,	/* the control socket's listening fd */
	LOOP_REF_CONTROL_CLIENT,/* one control connection */
	LOOP_REF_PORT_LISTEN,	/* a port's listening socket */
	LOOP_REF_PORT_CONN,	/* a port's connection (hypervisor socket) */
	LOOP_REF_PORT_AUX,	/* more fds of a port: kick eventfds, ... */
	LOOP_REF_QUEUE_RX,	/* an engine queue's rx_fd */
	LOOP_REF_MAX
};

struct loop;
struct loop_ref;

/**
 * loop_handler_fn - called when a ref's fd is ready
 * @loop: the loop
 * @ref: the ready ref
 * @events: EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR, ... (EPOLLIN for a timer)
 */
typedef void (*loop_handler_fn)(struct loop *loop, struct loop_ref *ref,
				uint32_t events);

/**
 * struct loop_ref - one fd or timer the loop watches
 * @type: what it is
 * @fd: the fd (owned by the embedding object, not by the loop); -1 for a
 *	timer
 * @handler: what to call
 * @events: the epoll events registered
 * @registered: watched (an fd: loop_add() done; a timer: it exists,
 *	loop_timer_init() done and loop_timer_fini() not yet)
 * @loop: the loop it is registered with
 * @src: its sd-event source (NULL when not registered)
 * @interval_us: a timer's period (0: one shot)
 * @expired: a timer's expirations not yet taken by loop_timer_ack()
 */
struct loop_ref {
	enum loop_ref_type type;
	int fd;
	loop_handler_fn handler;
	uint32_t events;
	bool registered;
	struct loop *loop;
	struct sd_event_source *src;
	uint64_t interval_us;
	uint64_t expired;
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
int loop_run(struct loop *loop);
void loop_quit(struct loop *loop, int status);
int loop_watchdog(struct loop *loop);
const char *loop_ref_type_name(enum loop_ref_type type);

int loop_timer_init(struct loop *loop, struct loop_ref *ref,
		    loop_handler_fn handler);
int loop_timer_set(struct loop_ref *ref, uint64_t first_ns, uint64_t interval_ns);
uint64_t loop_timer_ack(struct loop_ref *ref);
void loop_timer_fini(struct loop *loop, struct loop_ref *ref);

#endif /* VRINGNET_LOOP_H */
