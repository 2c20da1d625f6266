/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * livestore.h - keep systemd's fd store current while running, so that
 *		 the vhost-user front-ends survive a crash
 *
 * livestore_enable() once the daemon runs (under systemd only);
 * livestore_update() with the connection's socket number whenever a kept
 * connection's state may have changed (accept, each vhost-user message,
 * adoption) and, with NULL, before it is closed; livestore_stop() when
 * restart_keep() stored the exact state.
 * livestore_group() names a state's fds for the store (restart.c uses it
 * too).  The design is at the top of livestore.c.
 */
#ifndef VRINGNET_LIVESTORE_H
#define VRINGNET_LIVESTORE_H

#include <stdbool.h>

#include "fdstore.h"

/* the connection fds' names: "restart.fd.N" or "restart.fd.N,M,..." */
#define LIVESTORE_FD_PREFIX	FDSTORE_RESTART_PREFIX "fd."
/* the states of the running daemon (positions not exact: from the rings),
 * one per connection: "restart.live.K", K its socket's number (restart.c
 * reads every name that starts with this) */
#define LIVESTORE_STATE_NAME	FDSTORE_RESTART_PREFIX "live"
/* a buffer for one: ".K" of at most 10 digits, the NUL */
#define LIVESTORE_STATE_NAME_LEN	(sizeof(LIVESTORE_STATE_NAME) + 12)

struct hovs_vhost_user;

/**
 * struct livestore_groups - the fds of a state as stored: one per name
 * @n: names
 * @names: "restart.fd.N[,M...]": the fd numbers of one open file (regular
 *	    files of the same inode share one name)
 * @firsts: per name, the fd to store (the first number of the name)
 */
struct livestore_groups {
	unsigned int n;
	char (*names)[FDSTORE_NAME_MAX + 1];
	int *firsts;
};

int livestore_group(const void *buf, struct livestore_groups *g);
void livestore_groups_free(struct livestore_groups *g);
void livestore_enable(unsigned int budget, bool successor);
bool livestore_enabled(void);
void livestore_update(int sock, const struct hovs_vhost_user *v);
void livestore_stop(void);
unsigned int livestore_states(void);
unsigned long livestore_messages(void);
unsigned long livestore_work(void);

#endif /* VRINGNET_LIVESTORE_H */
