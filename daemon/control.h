/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * control.h - the control socket server (protocol: ctlproto.h)
 *
 * A SOCK_SEQPACKET unix socket, non-blocking, at most CONTROL_MAX_CLIENTS
 * clients: a uid other than root at most control-clients-per-uid of them
 * (SO_PEERCRED), and CONTROL_ROOT_SLOTS kept for root.  One request message gives one reply message.  A client is
 * dropped when it floods (more than CONTROL_MAX_RATE requests in a second),
 * stalls (its socket cannot take a reply now: the daemon never waits for
 * it) or stays idle longer than CONTROL_IDLE_SEC; one misbehaving client never
 * delays the loop or the other clients.
 */
#ifndef VRINGNET_CONTROL_H
#define VRINGNET_CONTROL_H

#include <stddef.h>
#include <sys/types.h>

#include "ctlproto.h"
#include "loop.h"

#define CONTROL_MAX_CLIENTS	16
#define CONTROL_MAX_RATE	200	/* requests per second per client */
#define CONTROL_PER_WAKEUP	8	/* requests served per client per wakeup */
#define CONTROL_TURN_AWAY_MS	200	/* control_turn_away(): wait for a request */
#define CONTROL_IDLE_SEC	30
#define CONTROL_ROOT_SLOTS	1	/* slots only root's clients may take */

/**
 * control_serve_fn - answer one decoded request
 * @opaque: control_open()'s @opaque
 * @req: the request
 * @buf: reply buffer
 * @len: its size (CTLPROTO_REPLY_MAX)
 *
 * Return: reply length in @buf (ctlproto_reply_finish()/_error()).
 */
typedef int (*control_serve_fn)(void *opaque, const struct ctlproto_request *req,
			     char *buf, size_t len);

struct control;

struct control *control_open(struct loop *loop, int listen_fd, const char *path,
		       mode_t mode, gid_t gid, control_serve_fn serve, void *opaque,
		       char *err, size_t errlen);
void control_close(struct control *c);
int control_listen_fd(const struct control *c);
void control_turn_away(struct control *c, const char *why);
void control_set_per_uid(struct control *c, unsigned int n);
unsigned int control_clients(const struct control *c);

#endif /* VRINGNET_CONTROL_H */
