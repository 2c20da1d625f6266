/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deadline.h - per-connection deadlines: every peer is bounded in time.
 *
 * A peer that connects and then says nothing, or starts a message and
 * trickles it one byte a second, would hold its port (one peer at a time)
 * or a waiting slot forever.  Each connection embeds a struct deadline (a
 * one-shot timerfd in the event loop): armed when the connection starts its
 * handshake or a partial message, stopped when that completes, and when it
 * fires the owner's callback closes the connection with a log line.
 *
 * The limits are the configuration's handshake-timeout (a program's
 * handshake: ring-fd SETUP), boot-timeout (a guest's peer's: from its
 * hypervisor connecting until its vhost-user SET_OWNER or first stream
 * frame) and message-timeout
 * (vringnetd.conf(5)), set with deadline_set_limits() at start and reload;
 * a deadline armed before a reload keeps the value it was armed with.
 */
#ifndef VRINGNET_DEADLINE_H
#define VRINGNET_DEADLINE_H

#include <stdbool.h>

#include "loop.h"

struct deadline;

/**
 * deadline_fn - a deadline passed
 * @dl: the deadline (container_of() finds its connection)
 */
typedef void (*deadline_fn)(struct deadline *dl);

/**
 * struct deadline - one connection's deadline
 * @ref: the timerfd's loop ref (fd -1 before deadline_init())
 * @loop: the loop
 * @fn: called when it passes
 * @armed: counting down
 */
struct deadline {
	struct loop_ref ref;
	struct loop *loop;
	deadline_fn fn;
	bool armed;
};

void deadline_set_limits(unsigned int handshake_sec, unsigned int boot_sec,
			 unsigned int message_sec);
unsigned int deadline_handshake_sec(void);
unsigned int deadline_boot_sec(void);
unsigned int deadline_message_sec(void);
int deadline_init(struct deadline *dl, struct loop *loop, deadline_fn fn);
void deadline_arm(struct deadline *dl, unsigned int sec);
void deadline_stop(struct deadline *dl);
void deadline_fini(struct deadline *dl);

#endif /* VRINGNET_DEADLINE_H */
