/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * handover.h - "vringnetctl upgrade": hand every guest to a successor
 *
 * Predecessor: handover_init() at start, handover_upgrade() on request.
 * Successor (handover_is_successor()): handover_receive() before
 * daemon_start(), handover_adopt() after it.  The design is at the top of
 * handover.c.
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

#endif /* VRINGNET_HANDOVER_H */
