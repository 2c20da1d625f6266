// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_ringfd.c - the ring-fd port type: a client's memfd rings on a tap
 *
 * For programs and hypervisors that do not speak vhost-user.  A client
 * connects to the port's SOCK_SEQPACKET socket and sends one SETUP
 * (ringfd_proto.c, vringnetd-ringfd(7)) with a memfd holding its rings and
 * buffers and the kick/call eventfds of each queue pair.  The daemon maps
 * the memfd (MAP_SHARED), opens each queue pair on the engine (descriptor
 * addresses are memfd offsets: one region at guest address 0), answers OK
 * and from then on:
 *
 *   tx kick eventfd readable  -> eng tx()   (client -> tap)
 *   rx kick eventfd readable  -> eng rx()   (client posted rx buffers)
 *   engine rx_fd readable     -> eng rx()   (tap -> client); not polled
 *                                while the client has no rx buffer posted
 *
 * One client is served at a time; up to PRF_MAX_PENDING more may be
 * connected and waiting to send SETUP.  Bad input and the answer (the
 * connection is then closed, the port keeps serving):
 *
 *   anything ringfd_proto.c refuses     its ERROR (errno, reason)
 *   message over RFP_MAX_MSG bytes      EMSGSIZE
 *   more than RFP_MAX_FDS fds           EBADF (every fd closed)
 *   SETUP while a client is served      EBUSY
 *   more queue pairs than tap queues    ENXIO
 *   mmap or engine failure              EIO / the errno, with the reason
 *   any message after a good SETUP      EALREADY (the client is dropped)
 *   more than PRF_MAX_PENDING waiting   closed without an answer
 *   no SETUP within handshake-timeout   closed without an answer (logged)
 *   blocking or EFD_SEMAPHORE eventfds  made O_NONBLOCK (the loop never
 *                                       blocks on them)
 *   a call eventfd counter kept full    signals lost, nothing blocks
 *   a ring broken by the client         client dropped (logged)
 *   client hangs up or is killed        mappings, fds, queues released
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/virtio_ring.h>

#include "deadline.h"
#include "evfd.h"
#include "guard.h"
#include "log.h"
#include "port.h"
#include "ringfd_proto.h"

#define PRF_MAX_PENDING	8	/* connections waiting to send SETUP */
#define PRF_TX_ROUNDS	8	/* tx() calls per kick before yielding */

struct prf_conn;

/**
 * struct prf_queue - one queue pair of the served client
 * @conn: its connection
 * @qp: its index
 * @eq: the engine queue, or NULL
 * @tx_used: the tx ring's used ring (avail_event lives after it)
 * @rx_used: same for rx
 * @tx_avail: the tx ring's avail ring
 * @rx_avail: same for rx
 * @tx_num: tx ring size
 * @rx_num: rx ring size
 * @tx_kick: tx kick eventfd ref
 * @rx_kick: rx kick eventfd ref
 * @tap: the engine's rx_fd ref
 * @tap_polled: @tap is in the epoll set
 */
struct prf_queue {
	struct prf_conn *conn;
	unsigned int qp;
	struct eng_queue *eq;
	struct vring_used *tx_used, *rx_used;
	struct vring_avail *tx_avail, *rx_avail;
	unsigned int tx_num, rx_num;
	struct loop_ref tx_kick;
	struct loop_ref rx_kick;
	struct loop_ref tap;
	bool tap_polled;
};

/**
 * struct prf_conn - one client connection
 * @port: the port
 * @next: list of the port's connections
 * @fd: the socket
 * @ref: its loop ref
 * @dl: the deadline for SETUP (deadline.h)
 * @active: SETUP accepted: this is the served client
 * @fds: the SETUP's fds (owned while @active)
 * @nfds: their count
 * @mem: the memfd's mapping, or MAP_FAILED
 * @mem_size: its size
 * @region: the engines' view of it
 * @setup: the accepted SETUP
 * @q: its queue pairs
 */
struct prf_conn {
	struct port *port;
	struct prf_conn *next;
	int fd;
	struct loop_ref ref;
	struct deadline dl;
	bool active;
	int fds[RFP_MAX_FDS];
	unsigned int nfds;
	void *mem;
	size_t mem_size;
	struct eng_mem_region region;
	struct rfp_setup setup;
	struct prf_queue q[VRINGNET_RFD_MAX_QP];
};

/**
 * struct prf_port - per-port data (port.priv)
 * @conns: connections
 * @npending: connections not yet set up
 * @active: the served client, or NULL
 * @tx: counters of clients gone (client -> tap)
 * @rx: same, tap -> client
 * @refused: SETUPs answered with an error
 */
struct prf_port {
	struct prf_conn *conns;
	unsigned int npending;
	struct prf_conn *active;
	struct eng_stats tx;
	struct eng_stats rx;
	unsigned long refused;
};

/**
 * prf_queue_stop() - close a queue pair's engine queue
 * @q: the queue pair
 */
static void prf_queue_stop(struct prf_queue *q)
{
	struct port *p = q->conn->port;
	struct prf_port *pp = p->priv;
	struct eng_stats tx, rx;

	if (!q->eq)
		return;
	loop_del(p->loop, &q->tx_kick);
	loop_del(p->loop, &q->rx_kick);
	loop_del(p->loop, &q->tap);
	q->tap_polled = false;
	p->eng->get_stats(q->eq, &tx, &rx);
	port_stats_add(&pp->tx, &tx);
	port_stats_add(&pp->rx, &rx);
	p->eng->close(q->eq);
	q->eq = NULL;
}

/**
 * prf_conn_close() - drop a connection and everything it holds
 * @c: the connection
 * @why: reason logged (NULL: clean hang-up)
 */
static void prf_conn_close(struct prf_conn *c, const char *why)
{
	struct port *p = c->port;
	struct prf_port *pp = p->priv;
	struct prf_conn **pc;
	unsigned int i;

	if (c->active) {
		if (why)
			log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd client dropped: %s", p->cfg.name, why);
		else
			log_rl(&p->rl, LOG_INFO, "port %s: ring-fd client hung up", p->cfg.name);
		for (i = 0; i < c->setup.nqp; i++)
			prf_queue_stop(&c->q[i]);
		pp->active = NULL;
		p->state = "listening";
	} else {
		pp->npending--;
	}
	if (c->mem != MAP_FAILED) {
		guard_map_del(c->mem);
		munmap(c->mem, c->mem_size);
	}
	rfp_close_fds(c->fds, c->nfds);
	deadline_fini(&c->dl);
	loop_del(p->loop, &c->ref);
	close(c->fd);
	for (pc = &pp->conns; *pc; pc = &(*pc)->next) {
		if (*pc == c) {
			*pc = c->next;
			break;
		}
	}
	free(c);
}

/**
 * prf_refuse() - answer ERROR and drop the connection
 * @c: the connection
 * @ret: negative errno
 * @why: reason sent and logged
 */
static void prf_refuse(struct prf_conn *c, int ret, const char *why)
{
	struct prf_port *pp = c->port->priv;

	pp->refused++;
	log_rl(&c->port->rl, LOG_WARNING, "port %s: ring-fd SETUP refused: %s", c->port->cfg.name, why);
	rfp_send_reply(c->fd, -ret, 0, why);
	prf_conn_close(c, why);
}

/**
 * prf_publish_avail_event() - ask the client to kick for the next chain
 * @q: the queue pair
 * @rx: which ring
 * @last_avail: where the engine stopped reading it
 *
 * Return: true when chains were published meanwhile (walk again).
 */
static bool prf_publish_avail_event(struct prf_queue *q, bool rx, uint16_t last_avail)
{
	struct vring_used *used = rx ? q->rx_used : q->tx_used;
	struct vring_avail *avail = rx ? q->rx_avail : q->tx_avail;
	unsigned int num = rx ? q->rx_num : q->tx_num;
	uint16_t *ev = (uint16_t *)&used->ring[num];

	if (q->conn->setup.features & (1ULL << VIRTIO_RING_F_EVENT_IDX))
		__atomic_store_n(ev, htole16(last_avail), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return le16toh(__atomic_load_n(&avail->idx, __ATOMIC_ACQUIRE)) != last_avail;
}

/**
 * prf_tx_walk() - send what the client queued on the tx ring (unguarded)
 * @q: the queue pair
 *
 * Return: 0, or -EIO when the ring is broken (the client is dropped).
 */
static int prf_tx_walk(struct prf_queue *q)
{
	const struct eng_ops *eng = q->conn->port->eng;
	uint16_t la_tx, la_rx;
	unsigned int round;

	for (round = 0; round < PRF_TX_ROUNDS; round++) {
		if (eng->tx(q->eq) < 0) {
			prf_conn_close(q->conn, "tx ring broken (protocol violation by the client)");
			return -EIO;
		}
		eng->get_last_avail(q->eq, &la_tx, &la_rx);
		if (!prf_publish_avail_event(q, false, la_tx))
			return 0;
	}
	/* Still more: come back through the loop instead of starving others. */
	if (!evfd_signal(q->tx_kick.fd))
		log_debug("port %s: self-kick: %s", q->conn->port->cfg.name, strerror(errno));
	return 0;
}

/**
 * prf_rx_walk() - fill the client's rx buffers from the tap (unguarded)
 * @q: the queue pair
 *
 * While the client has no buffer posted the tap is not polled; its rx
 * kick brings it back.
 * Return: 0, or -EIO when the ring is broken (the client is dropped).
 */
static int prf_rx_walk(struct prf_queue *q)
{
	struct port *p = q->conn->port;
	uint16_t la_tx, la_rx;
	bool starved;

	for (;;) {
		if (p->eng->rx(q->eq, &starved) < 0) {
			prf_conn_close(q->conn, "rx ring broken (protocol violation by the client)");
			return -EIO;
		}
		if (!starved)
			break;
		p->eng->get_last_avail(q->eq, &la_tx, &la_rx);
		if (prf_publish_avail_event(q, true, la_rx))
			continue;
		if (q->tap_polled) {
			loop_del(p->loop, &q->tap);
			q->tap_polled = false;
		}
		return 0;
	}
	if (!q->tap_polled) {
		if (loop_add(p->loop, &q->tap, EPOLLIN) == 0)
			q->tap_polled = true;
		else
			log_warn("port %s: epoll on the tap: %s", p->cfg.name, strerror(errno));
	}
	return 0;
}

/**
 * prf_mem_fault() - the client's memfd faulted under a ring walk: drop it
 * @c: the connection
 * @f: where (guard.c)
 */
static void prf_mem_fault(struct prf_conn *c, const struct guard_fault *f)
{
	char why[256], what[128];

	guard_fault_str(f, what, sizeof(what));
	snprintf(why, sizeof(why),
		 "memfd (%llu bytes): %s: the client shrank its memfd or its pages could not be allocated",
		 (unsigned long long)c->mem_size, what);
	prf_conn_close(c, why);
}

/**
 * prf_guarded() - a ring walk with memfd faults caught
 * @q: the queue pair
 * @walk: prf_tx_walk or prf_rx_walk
 *
 * The jump buffer lives in this frame, which stays live for the whole walk.
 * Return: the walk's result, or -EIO when memfd faulted (the
 * connection is closed).
 */
static int prf_guarded(struct prf_queue *q, int (*walk)(struct prf_queue *q))
{
	struct prf_conn *c = q->conn;
	struct guard_scope gs;
	int ret;

	guard_enter(&gs, c);
	if (sigsetjmp(gs.jb, 0)) {
		prf_mem_fault(c, &gs.fault);
		return -EIO;
	}
	ret = walk(q);
	guard_leave(&gs);
	return ret;
}

/**
 * prf_do_tx() - the tx walk, guarded
 * @q: the queue pair
 *
 * Return: as prf_guarded().
 */
static int prf_do_tx(struct prf_queue *q)
{
	return prf_guarded(q, prf_tx_walk);
}

/**
 * prf_do_rx() - the rx walk, guarded
 * @q: the queue pair
 *
 * Return: as prf_guarded().
 */
static int prf_do_rx(struct prf_queue *q)
{
	return prf_guarded(q, prf_rx_walk);
}

/**
 * prf_tx_kick() - the client kicked its tx ring
 * @loop: the loop
 * @ref: the queue's tx_kick
 * @events: epoll events
 */
static void prf_tx_kick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct prf_queue *q = container_of(ref, struct prf_queue, tx_kick);

	evfd_consume(ref->fd);
	prf_do_tx(q);
}

/**
 * prf_rx_kick() - the client posted rx buffers
 * @loop: the loop
 * @ref: the queue's rx_kick
 * @events: epoll events
 */
static void prf_rx_kick(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct prf_queue *q = container_of(ref, struct prf_queue, rx_kick);

	evfd_consume(ref->fd);
	prf_do_rx(q);
}

/**
 * prf_tap_ready() - the tap has frames for the client
 * @loop: the loop
 * @ref: the queue's tap ref
 * @events: epoll events
 */
static void prf_tap_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	prf_do_rx(container_of(ref, struct prf_queue, tap));
}

/**
 * prf_queue_start() - open one queue pair on the engine
 * @c: the connection
 * @qp: queue pair
 * @why: reason on failure
 * @whylen: its size
 *
 * Return: 0 or a negative errno.
 */
static int prf_queue_start(struct prf_conn *c, unsigned int qp, char *why, size_t whylen)
{
	const struct vringnet_rfd_qp *r = &c->setup.qp[qp];
	struct prf_queue *q = &c->q[qp];
	struct port *p = c->port;
	struct eng_queue_config cfg;
	uint8_t *m = c->mem;
	char err[200];

	memset(&cfg, 0, sizeof(cfg));
	cfg.tap_fd = p->tap->fds[qp];
	cfg.vnet_hdr_len = VRINGNET_RFD_VNET_HDR_LEN;
	cfg.mrg_rxbuf = c->setup.mrg_rxbuf;
	cfg.ring_features = c->setup.features;
	cfg.regions = &c->region;
	cfg.nregions = 1;
	cfg.tx = (struct eng_ring){ r->tx.num, m + r->tx.desc, m + r->tx.avail,
				    m + r->tx.used, 0 };
	cfg.rx = (struct eng_ring){ r->rx.num, m + r->rx.desc, m + r->rx.avail,
				    m + r->rx.used, 0 };
	cfg.tx_call_fd = c->fds[1 + 4 * qp + 1];
	cfg.rx_call_fd = c->fds[1 + 4 * qp + 3];
	q->conn = c;
	q->qp = qp;
	q->tx_used = cfg.tx.used;
	q->rx_used = cfg.rx.used;
	q->tx_avail = cfg.tx.avail;
	q->rx_avail = cfg.rx.avail;
	q->tx_num = r->tx.num;
	q->rx_num = r->rx.num;
	q->eq = p->eng->open(&cfg, err, sizeof(err));
	if (!q->eq) {
		snprintf(why, whylen, "queue pair %u: %s engine: %s", qp, p->eng->name, err);
		return -EIO;
	}
	loop_ref_init(&q->tx_kick, LOOP_REF_PORT_AUX, c->fds[1 + 4 * qp], prf_tx_kick);
	loop_ref_init(&q->rx_kick, LOOP_REF_PORT_AUX, c->fds[1 + 4 * qp + 2], prf_rx_kick);
	loop_ref_init(&q->tap, LOOP_REF_QUEUE_RX, p->eng->rx_fd(q->eq), prf_tap_ready);
	q->tap_polled = false;
	if (loop_add(p->loop, &q->tx_kick, EPOLLIN) < 0 ||
	    loop_add(p->loop, &q->rx_kick, EPOLLIN) < 0) {
		snprintf(why, whylen, "queue pair %u: epoll: %s", qp, strerror(errno));
		prf_queue_stop(q);
		return -EIO;
	}
	return 0;
}

/**
 * prf_setup() - check a SETUP, map the memory, start the queues, answer
 * @c: a connection not yet set up
 * @buf: the message
 * @len: its length
 */
static void prf_setup(struct prf_conn *c, const void *buf, size_t len)
{
	struct port *p = c->port;
	struct prf_port *pp = p->priv;
	uint64_t size = 0;
	char why[256];
	unsigned int i;
	int ret;

	ret = rfp_decode_setup(buf, len, c->nfds, &c->setup, why, sizeof(why));
	if (!ret)
		ret = rfp_check_memfd(c->fds[0], &size, why, sizeof(why));
	if (!ret)
		ret = rfp_check_layout(&c->setup, size, why, sizeof(why));
	if (!ret)
		ret = rfp_check_eventfds(c->fds, c->setup.nqp, why, sizeof(why));
	/* The eventfds are the client's: never block on them (evfd.h). */
	for (i = 1; !ret && i < c->nfds; i++) {
		ret = evfd_adopt(c->fds[i]);
		if (ret)
			snprintf(why, sizeof(why), "fd %u: O_NONBLOCK: %s", i, strerror(-ret));
	}
	if (!ret && pp->active) {
		ret = -EBUSY;
		snprintf(why, sizeof(why), "port busy: it serves another client");
	}
	if (!ret && c->setup.nqp > p->tap->nqueues) {
		ret = -ENXIO;
		snprintf(why, sizeof(why), "%u queue pairs asked, tap %s has %u queues",
			 c->setup.nqp, p->tap->name, p->tap->nqueues);
	}
	if (!ret && (size == 0 || size > SIZE_MAX)) {
		ret = -ERANGE;
		snprintf(why, sizeof(why), "memfd of %llu bytes cannot be mapped",
			 (unsigned long long)size);
	}
	if (!ret) {
		c->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fds[0], 0);
		if (c->mem == MAP_FAILED) {
			ret = -errno;
			snprintf(why, sizeof(why), "mmap of the memfd (%llu bytes): %s",
				 (unsigned long long)size, strerror(errno));
		}
		c->mem_size = size;
	}
	if (!ret) {
		ret = guard_map_add(c->mem, size, c, 0);
		if (ret)
			snprintf(why, sizeof(why), "guard: %s", strerror(-ret));
	}
	if (ret) {
		prf_refuse(c, ret, why);
		return;
	}
	c->region = (struct eng_mem_region){ 0, size, c->mem };
	c->active = true;
	deadline_stop(&c->dl);
	pp->active = c;
	pp->npending--;
	for (i = 0; i < c->setup.nqp; i++) {
		ret = prf_queue_start(c, i, why, sizeof(why));
		if (ret) {
			pp->refused++;
			log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd SETUP refused: %s", p->cfg.name, why);
			rfp_send_reply(c->fd, -ret, 0, why);
			prf_conn_close(c, why);
			return;
		}
	}
	p->state = "connected";
	snprintf(why, sizeof(why), "%s", p->eng->name);
	if (rfp_send_reply(c->fd, 0, VRINGNET_RFD_FEATURES, why) < 0) {
		prf_conn_close(c, "cannot send the OK reply");
		return;
	}
	log_rl(&p->rl, LOG_INFO, "port %s: ring-fd client running (%s engine, %u queue pairs, %llu bytes of memory, event index %s)",
		 p->cfg.name, p->eng->name, c->setup.nqp, (unsigned long long)size,
		 c->setup.features & (1ULL << VIRTIO_RING_F_EVENT_IDX) ? "on" : "off");
	/* Work queued before we watched the kicks. */
	for (i = 0; i < c->setup.nqp; i++) {
		if (prf_do_tx(&c->q[i]) < 0 || prf_do_rx(&c->q[i]) < 0)
			return;
	}
}

/**
 * prf_conn_ready() - the connection is readable or hung up
 * @loop: the loop
 * @ref: the connection's ref
 * @events: epoll events
 */
static void prf_conn_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct prf_conn *c = container_of(ref, struct prf_conn, ref);
	uint8_t buf[RFP_MAX_MSG + 1];
	int fds[RFP_MAX_FDS];
	unsigned int nfds;
	char why[160];
	ssize_t n;

	n = rfp_recv(c->fd, buf, sizeof(buf), fds, &nfds, why, sizeof(why));
	if (n == -EAGAIN)
		return;
	if (n == 0) {
		prf_conn_close(c, NULL);
		return;
	}
	if (c->active) {
		rfp_close_fds(fds, nfds);
		if (n > 0)
			snprintf(why, sizeof(why), "a message after SETUP (only one is allowed)");
		rfp_send_reply(c->fd, n > 0 ? EALREADY : (int)-n, 0, why);
		prf_conn_close(c, why);
		return;
	}
	if (n < 0) {
		prf_refuse(c, (int)n, why);
		return;
	}
	memcpy(c->fds, fds, nfds * sizeof(int));
	c->nfds = nfds;
	prf_setup(c, buf, (size_t)n);
}

/**
 * prf_alloc() - the port's private data, created on first use
 * @p: the port
 *
 * Return: it, or NULL when out of memory.
 */
static struct prf_port *prf_alloc(struct port *p)
{
	if (!p->priv)
		p->priv = calloc(1, sizeof(struct prf_port));
	return p->priv;
}

/**
 * prf_deadline_passed() - a client did not send SETUP in time
 * @dl: its deadline
 */
static void prf_deadline_passed(struct deadline *dl)
{
	struct prf_conn *c = container_of(dl, struct prf_conn, dl);

	log_rl(&c->port->rl, LOG_WARNING, "port %s: ring-fd client closed: no SETUP within %u s (handshake-timeout)",
		 c->port->cfg.name, deadline_handshake_sec());
	prf_conn_close(c, "no SETUP in time");
}

/**
 * prf_accept() - port_ops.accept: a client connected
 * @p: the port
 * @fd: its socket (owned from here on)
 */
static void prf_accept(struct port *p, int fd)
{
	struct prf_port *pp = prf_alloc(p);
	struct prf_conn *c;
	unsigned int i;

	if (!pp || pp->npending >= PRF_MAX_PENDING) {
		if (pp)
			log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd client refused: %u connections wait for SETUP",
				 p->cfg.name, pp->npending);
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	c->port = p;
	c->fd = fd;
	c->mem = MAP_FAILED;
	for (i = 0; i < RFP_MAX_FDS; i++)
		c->fds[i] = -1;
	if (deadline_init(&c->dl, p->loop, prf_deadline_passed) < 0) {
		log_err("port %s: ring-fd client refused: timer: %s", p->cfg.name,
			strerror(errno));
		deadline_fini(&c->dl);
		close(fd);
		free(c);
		return;
	}
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, prf_conn_ready);
	if (loop_add(p->loop, &c->ref, EPOLLIN) < 0) {
		log_err("port %s: epoll: %s", p->cfg.name, strerror(errno));
		deadline_fini(&c->dl);
		close(fd);
		free(c);
		return;
	}
	deadline_arm(&c->dl, deadline_handshake_sec());
	c->next = pp->conns;
	pp->conns = c;
	pp->npending++;
}

/**
 * prf_teardown() - port_ops.teardown
 * @p: the port
 */
static void prf_teardown(struct port *p)
{
	struct prf_port *pp = p->priv;

	if (!pp)
		return;
	while (pp->conns)
		prf_conn_close(pp->conns, "port closed");
	free(pp);
	p->priv = NULL;
}

/**
 * prf_get_stats() - port_ops.get_stats
 * @p: the port
 * @tx: out
 * @rx: out
 */
static void prf_get_stats(struct port *p, struct eng_stats *tx, struct eng_stats *rx)
{
	struct prf_port *pp = p->priv;
	struct eng_stats t, r;
	unsigned int i;

	if (!pp)
		return;
	port_stats_add(tx, &pp->tx);
	port_stats_add(rx, &pp->rx);
	if (!pp->active)
		return;
	for (i = 0; i < pp->active->setup.nqp; i++) {
		if (!pp->active->q[i].eq)
			continue;
		p->eng->get_stats(pp->active->q[i].eq, &t, &r);
		port_stats_add(tx, &t);
		port_stats_add(rx, &r);
	}
}

/**
 * prf_connections() - port_ops.connections
 * @p: the port
 *
 * Return: 1 while a client is served.
 */
static unsigned int prf_connections(struct port *p)
{
	struct prf_port *pp = p->priv;

	return pp && pp->active ? 1 : 0;
}

const struct port_ops port_ringfd_ops = {
	.name = "ringfd",
	.sock_type = SOCK_SEQPACKET,
	.accept = prf_accept,
	.teardown = prf_teardown,
	.get_stats = prf_get_stats,
	.connections = prf_connections,
};
