/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * port_peer.h - the one-peer-at-a-time half of a port type
 *
 * The vhost-user and stream port types serve one peer at a time on a
 * listening socket (a second one is refused and counted; vhost-user takes
 * two at once: a live migration's source and destination) or, in client
 * mode, connect to cfg.connect and retry every cfg.reconnect seconds while
 * no peer is served.  This is that shared half: port.priv is a struct
 * port_peer, created on first use; the type supplies how to serve a
 * connected socket, how to close a peer and the counters of a live peer.
 *
 *   accept:       the type's accept calls port_peer_of(), then, when
 *                 port_peer_refuse() says the port is free, builds its
 *                 connection and calls port_peer_served()
 *   connect:      port_peer_connect() (timer, first attempt now or from
 *                 the loop: an upgrade's successor serves the connection
 *                 it took over first, and then does not connect)
 *   peer closed:  the type's close calls port_peer_closed() (state, retry)
 *   teardown, get_stats, connections: port_peer_teardown(),
 *                 port_peer_get_stats(), port_peer_connections()
 */
#ifndef VRINGNET_PORT_PEER_H
#define VRINGNET_PORT_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "engine.h"
#include "loop.h"
#include "port.h"

/**
 * struct port_peer_ops - what the port type provides
 * @attach: serve a connected socket (owned from the call on)
 * @close: close a peer, with a reason for the log (NULL: clean hang-up)
 * @conn_stats: add the counters of a live peer's queue pairs to @s (NULL:
 *	none besides the port's)
 * @conn_memory: the guest memory a live peer shared: bytes of its table
 *	in *@total, of which mapped in the daemon in *@mapped (NULL: a type
 *	without shared memory)
 * @max_peers: peers served at once, 1..PORT_PEER_MAX (0 means 1)
 */
struct port_peer_ops {
	void (*attach)(struct port *p, int fd);
	void (*close)(void *conn, const char *why);
	void (*conn_stats)(struct port *p, void *conn, struct port_stats *s);
	void (*conn_memory)(void *conn, uint64_t *total, uint64_t *mapped);
	unsigned int max_peers;
};

#define PORT_PEER_MAX	2	/* a migration's source and destination */

/**
 * struct port_peer - per-port data of a one-peer port type (port.priv)
 * @port: the port
 * @ops: the type's part
 * @conns: the peers served (NULL: a free slot)
 * @nconns: peers served
 * @gone: counters of closed peers, and drops of frames that reached no
 *	ring, per queue pair
 * @accepted: peers served so far
 * @refused: peers refused while the port was full
 * @creds: SO_PEERCRED of each peer in @conns (pid 0: unknown)
 * @newest: the slot of the peer served last
 * @disconnects: peers gone so far
 * @last_why: why the last one went ("" for none)
 * @timer: reconnect timer (client mode)
 * @timer_ok: @timer was created
 */
struct port_peer {
	struct port *port;
	const struct port_peer_ops *ops;
	void *conns[PORT_PEER_MAX];
	unsigned int nconns;
	struct port_stats gone;
	unsigned long accepted;
	unsigned long refused;
	struct ucred creds[PORT_PEER_MAX];
	unsigned int newest;
	unsigned long disconnects;
	char last_why[160];
	struct loop_ref timer;
	bool timer_ok;
};

struct port_peer *port_peer_of(struct port *p, const struct port_peer_ops *ops);
bool port_peer_refuse(struct port *p, int fd, const char *what);
void port_peer_served(struct port *p, void *conn, int fd);
void port_peer_closed(struct port *p, const void *conn, const char *why);
void port_peer_get_info(struct port *p, struct port_peer_info *info);
int port_peer_connect(struct port *p, const struct port_peer_ops *ops, bool later, char *err,
		      size_t errlen);
void port_peer_teardown(struct port *p);
void port_peer_get_stats(struct port *p, struct port_stats *s);
unsigned int port_peer_connections(struct port *p);

#endif /* VRINGNET_PORT_PEER_H */
