/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * handover.h - "vringnetctl upgrade": hand every guest to a successor
 *
 * Predecessor: handover_init() at start, handover_upgrade() on request.
 * Successor (handover_is_successor()): handover_receive() before
 * daemon_start(), handover_adopt() after it.  The design is at the top of
 * handover.c.  restart.c keeps the front-ends over systemctl restart with
 * the same state and the same steps (handover_pause_all(),
 * handover_collect_connections(), handover_adopt_vu()).
 */
#ifndef VRINGNET_HANDOVER_H
#define VRINGNET_HANDOVER_H

#include <stdbool.h>
#include <stddef.h>

#include "ctlproto.h"

/* the successor finds "STATE_FD,STATUS_FD" here */
#define HANDOVER_ENV		"VRINGNETD_HANDOVER"
/* how long the predecessor waits for its successor's word */
#define HANDOVER_TIMEOUT_MS	10000u

struct daemon;
struct handover_state;

void handover_init(int argc, char **argv);
int handover_upgrade(struct daemon *d, struct ctlproto_upgrade_info *info, char *err,
		     size_t errlen);
bool handover_is_successor(void);
int handover_receive(struct handover_state *st, char *err, size_t errlen);
void handover_adopt(struct daemon *d, struct handover_state *st);
void handover_successor_fail(const char *why) __attribute__((noreturn));

/* shared with restart.c (systemctl restart keeps the front-ends) */
struct hovs_vhost_user;
struct hovs_peer;
struct hovs_ringfd;
struct handover_stream;
void handover_pause_all(struct daemon *d, bool resume, bool restart);
int handover_collect_connections(struct daemon *d, struct handover_state *st, bool restart,
				 char *err, size_t errlen);
int handover_adopt_vu(struct daemon *d, const struct hovs_vhost_user *v, bool start,
		      char *err, size_t errlen);
int handover_adopt_peer(struct daemon *d, const struct hovs_peer *peer, char *err,
			size_t errlen);
int handover_adopt_stream(struct daemon *d, const struct handover_stream *hs, bool start,
			  char *err, size_t errlen);
int handover_adopt_ringfd(struct daemon *d, const struct hovs_ringfd *rf, bool start,
			  char *err, size_t errlen);

#endif /* VRINGNET_HANDOVER_H */
