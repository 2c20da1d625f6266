/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * port.h - ports: where guests and socket peers meet a tap
 *
 * A port is one [port NAME] section.  port_open() makes its socket (a
 * listening unix socket at cfg.listen with the configured owner and mode,
 * or, for client ports, asks the type to connect) and registers it with
 * the event loop; port_close() tears everything down.  What happens on the
 * socket is the port *type's* business, through struct port_ops:
 *
 *   bound     (optional) the socket at cfg.listen is there (bound now, or
 *             restored from systemd's fd store or a predecessor): set up
 *             what the type serves it with
 *   accept    a peer connected to the listening socket: the type owns the
 *             new fd from here on (it registers it, with LOOP_REF_PORT_CONN
 *             refs embedded in its per-connection data kept in port.priv)
 *   readable  datagram ports: the bound socket is readable
 *   connect   client ports (cfg.connect): start connecting; called once at
 *             open (retries every cfg.reconnect seconds are the type's,
 *             with a loop timer, see loop_timer_init())
 *   teardown  release every connection and port.priv (the listening socket
 *             is closed by port.c afterwards)
 *   get_stats counters of the port's queue pairs (struct port_stats)
 *   connections  peers connected now
 *
 * Types are provided by port_<type>.c files defining the const objects
 * declared below.
 */
#ifndef VRINGNET_PORT_H
#define VRINGNET_PORT_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "engine.h"
#include "log.h"
#include "loop.h"
#include "tap.h"

struct port;

/**
 * struct port_peer_info - a port's peers, for status
 * @pid: the newest connected peer's pid (SO_PEERCRED), -1 for none
 * @uid: its uid, (uid_t)-1 for none
 * @accepted: peers served since the port opened
 * @refused: peers refused because the port was full
 * @disconnects: peers gone since the port opened (hang-ups included)
 * @last_disconnect: why the last one went ("" for none; "hung up" when it
 *	closed the connection itself)
 * @memory: the peers shared guest memory (a vhost-user memory table):
 *	@memory_bytes and @memory_mapped are known
 * @memory_bytes: bytes of the connected peers' memory tables
 * @memory_mapped: of those, bytes the daemon has mapped
 */
struct port_peer_info {
	pid_t pid;
	uid_t uid;
	unsigned long accepted;
	unsigned long refused;
	unsigned long disconnects;
	const char *last_disconnect;
	bool memory;
	uint64_t memory_bytes;
	uint64_t memory_mapped;
};

struct handover_state;
struct handover_stream;
struct hovs_peer;
struct hovs_ringfd;
struct hovs_vhost_user;

/**
 * struct port_stats - a port's counters, per queue pair
 * @nqp: queue pairs counted: the tap's queues for a type that runs one pair
 *	per tap queue (port_ops.multiqueue), else 1
 * @tx: per queue pair, ring -> tap (the guest or peer sends)
 * @rx: per queue pair, tap -> ring
 *
 * Whoever runs a pair keeps its counters in plain structs of its own (the
 * engine queue, a connection's frame rings, the totals of peers gone); a
 * read adds them up here.  Nothing is counted for the port alone: its
 * figure is the sum over its pairs (port_stats_sum()), so the per-pair and
 * the per-port figures always agree.
 */
struct port_stats {
	unsigned int nqp;
	struct engine_stats tx[CFG_MAX_QUEUES];
	struct engine_stats rx[CFG_MAX_QUEUES];
};

/**
 * struct port_ops - one port type
 * @name: "vhost-user", "stream", "dgram", "ringfd"
 * @sock_type: SOCK_STREAM, SOCK_DGRAM or SOCK_SEQPACKET for the socket
 *	port.c creates at cfg.listen
 * @bound: the socket at cfg.listen is there (port.c made or restored it):
 *	set up the type's own state; 0, or -1 with @err filled
 * @accept: take ownership of a connected fd
 * @readable: a SOCK_DGRAM port's socket is readable
 * @connect: client mode: start connecting to cfg.connect, at once or, with
 *	@later, from the event loop's first turn (a successor adopts the
 *	predecessor's connection before that: handover.c)
 * @multiqueue: runs one queue pair per tap queue (else one pair, on the
 *	tap's first queue)
 * @teardown: free connections and priv
 * @get_stats: add the counters of each queue pair qp < s->nqp to
 *	s->tx[qp] and s->rx[qp] (NULL: zero)
 * @connections: connected peers (NULL: 0)
 * @peer_info: who is connected and how past peers left (NULL: nothing known)
 * @handover_pause: stop every connection's queues and stop reading its
 *	socket, for a hand-over to a successor (NULL: the type's connections
 *	are not handed over: an upgrade is refused while it has one)
 * @handover_resume: undo @handover_pause (the successor failed)
 * @handover_save: add every connection to @st (paused); 0, or -1 with
 *	@err saying which connection cannot be handed over now
 * @handover_adopt: rebuild one connection from a predecessor's record
 *	(its fds but the rings' start are taken, also on error), its queues
 *	not running yet; 0, or -1 with @err
 * @handover_start: start the queues of a connection @handover_adopt
 *	rebuilt from the same record; 0, or -1 with @err
 * @handover_peer: take a predecessor's learnt peer address (dgram); 0, or
 *	-1 with @err
 * @restart_keeps: systemctl restart keeps the type's connections
 *	(restart.c: vhost-user front-ends, a dgram port's learnt peer,
 *	stream peers, ring-fd clients) when the port is not in client mode;
 *	a type without it has its connections closed with the old instance
 * @handover_stream: @start false: whether the port can take a
 *	predecessor's stream peer (nothing taken); true: take it over and
 *	run it (its socket is taken, also on error); 0, or -1 with @err
 * @handover_ringfd: a predecessor's ring-fd client; @start false: take
 *	it (its socket and SETUP fds are taken, also on error), its SETUP
 *	checked and its memory mapped, its pairs not started; true: start
 *	the pairs of the client taken from the same record; 0, 1 (started,
 *	but a pair broke at its first kick: the client is closed, logged),
 *	or -1 with @err
 */
struct port_ops {
	const char *name;
	int sock_type;
	bool multiqueue;
	bool restart_keeps;
	int (*bound)(struct port *p, char *err, size_t errlen);
	void (*accept)(struct port *p, int fd);
	void (*readable)(struct port *p);
	int (*connect)(struct port *p, bool later, char *err, size_t errlen);
	void (*teardown)(struct port *p);
	void (*get_stats)(struct port *p, struct port_stats *s);
	unsigned int (*connections)(struct port *p);
	void (*peer_info)(struct port *p, struct port_peer_info *info);
	void (*handover_pause)(struct port *p);
	void (*handover_resume)(struct port *p);
	int (*handover_save)(struct port *p, struct handover_state *st, char *err, size_t errlen);
	int (*handover_adopt)(struct port *p, const struct hovs_vhost_user *v, char *err,
			      size_t errlen);
	int (*handover_start)(struct port *p, const struct hovs_vhost_user *v, char *err,
			      size_t errlen);
	int (*handover_peer)(struct port *p, const struct hovs_peer *peer, char *err,
			     size_t errlen);
	int (*handover_stream)(struct port *p, const struct handover_stream *hs, bool start,
			       char *err, size_t errlen);
	int (*handover_ringfd)(struct port *p, const struct hovs_ringfd *rf, bool start,
			       char *err, size_t errlen);
};

/**
 * struct port - one port
 * @cfg: its section
 * @ops: its type
 * @loop: the event loop
 * @tap: the tap it serves (owned by the daemon; valid while the port is)
 * @eng: the engine to move packets with
 * @listen_fd: the socket at cfg.listen, or -1
 * @listen_ref: its loop ref
 * @stored: @listen_fd is in systemd's fd store ("listen.NAME")
 * @state: "listening", "connected", "connecting", "idle", ... for status
 * @rl: rate limit of the lines its peers cause (log_rl())
 * @priv: the type's data
 */
struct port {
	struct config_port cfg;
	const struct port_ops *ops;
	struct loop *loop;
	struct tap_dev *tap;
	const struct engine_ops *eng;
	int listen_fd;
	struct loop_ref listen_ref;
	bool stored;
	const char *state;
	struct log_ratelimit rl;
	void *priv;
};

extern const struct port_ops port_vhost_user_ops;
extern const struct port_ops port_stream_ops;
extern const struct port_ops port_dgram_ops;
extern const struct port_ops port_ringfd_ops;

const struct port_ops *port_ops_of(enum config_port_type type);
struct port *port_open(const struct config_port *cfg, struct loop *loop,
		       struct tap_dev *tap, const struct engine_ops *eng, bool connect_later,
		       char *err, size_t errlen);
void port_close(struct port *p, bool forget);
unsigned int port_pairs(const struct port *p);
void port_get_stats(struct port *p, struct port_stats *s);
void port_stats_sum(const struct port_stats *s, struct engine_stats *tx, struct engine_stats *rx);
unsigned int port_connections(struct port *p);
void port_get_peer_info(struct port *p, struct port_peer_info *info);
void port_stats_add(struct engine_stats *to, const struct engine_stats *from);
void port_stats_merge(struct port_stats *to, const struct port_stats *from);
int port_unix_listen(const char *path, int type, mode_t mode, uid_t uid, gid_t gid,
		     int *fd, char *err, size_t errlen);
void port_unix_unlink(const char *path, int fd);
int port_listen_restore(struct port *p, const char *fdname);

#endif /* VRINGNET_PORT_H */
