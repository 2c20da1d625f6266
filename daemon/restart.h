/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * restart.h - systemctl restart keeps every connected front-end and peer
 *
 * restart_init() at start (before the sandbox), restart_live() once the
 * daemon runs (the store kept current for a crash), restart_keep() after the
 * loop left on SIGTERM (true: exit without teardown); in the next
 * instance restart_receive() before daemon_start() and restart_adopt()
 * after it.  The design is at the top of restart.c.
 */
#ifndef VRINGNET_RESTART_H
#define VRINGNET_RESTART_H

#include <stdbool.h>

struct daemon;
struct handover_state;

void restart_init(void);
void restart_live(struct daemon *d, bool successor);
bool restart_keep(struct daemon *d);
unsigned int restart_receive(struct handover_state *st);
void restart_adopt(struct daemon *d, struct handover_state *st);

#endif /* VRINGNET_RESTART_H */
