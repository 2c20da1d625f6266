// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_ringfd.c - the ring-fd port type: a client's rings on a tap
 *
 * For programs and hypervisors that do not speak vhost-user.  A client
 * connects to the port's SOCK_SEQPACKET socket and sends one SETUP
 * (ringfd_proto.c, vringnetd-ringfd(7)) with a memfd holding its rings and
 * buffers and the kick/call eventfds of each queue pair.  The daemon maps
 * the memfd (MAP_SHARED), hands each queue pair to the queue-pair pump
 * (vq.c; descriptor addresses are memfd offsets: one region at guest
 * address 0), answers OK, and the pump runs the rings from then on.
 *
 * Or, with VRINGNET_RFD_F_RINGS, the client passes ready rings: a tx and
 * an rx vring fd per queue pair, rings of memory (VRINGFD_SET_MEM_FILES)
 * that any process may drive, plus the same eventfds.  The kernel engine
 * attaches them to the tap queue as they are (engine_queue_config.ring_fds);
 * the daemon maps nothing of the client's.
 *
 * Hand-over ("vringnetctl upgrade", handover.c): every client is paused
 * (port_ringfd_pause(): a served one's queue pairs stop, where each
 * engine stopped in each avail ring stored; no socket is read any more)
 * and saved as a HOVS_REC_RINGFD record: a served client with its SETUP
 * as it sent it, the SETUP's fds and those positions; a pending one (no
 * SETUP yet) with its socket alone, whose SETUP then waits in the socket
 * for the successor.  The successor puts the SETUP through every check a
 * fresh one gets, maps the memfd again (or takes the passed rings, which
 * keep their positions themselves), starts each pair at the stored
 * positions and answers nothing: the client saw its OK from the
 * predecessor and never sees its socket close.  A pending client gets a
 * new handshake-timeout.  When the successor fails, every client resumes
 * here where it stopped.
 *
 * One client is served at a time; up to PORT_RINGFD_MAX_PENDING more may be
 * connected and waiting to send SETUP.  Bad input and the answer (the
 * connection is then closed, the port keeps serving):
 *
 *   anything ringfd_proto.c refuses     its ERROR (errno, reason)
 *   message over RINGFD_PROTO_MAX_MSG bytes      EMSGSIZE
 *   more than RINGFD_PROTO_MAX_FDS fds           EBADF (every fd closed)
 *   SETUP while a client is served      EBUSY
 *   more queue pairs than tap queues    ENXIO
 *   passed rings, the port's engine     ENODEV
 *     is the user engine
 *   passed rings the engine cannot      EIO, with the reason (e.g. one
 *     attach                            ring passed twice: ATTACH_TAP's EBUSY)
 *   mmap or engine failure              EIO / the errno, with the reason
 *   any message after a good SETUP      EALREADY (the client is dropped)
 *   more than PORT_RINGFD_MAX_PENDING waiting   closed without an answer
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
#include "handover_state.h"
#include "log.h"
#include "port.h"
#include "ringfd_proto.h"
#include "vq.h"

#define PORT_RINGFD_MAX_PENDING	8	/* connections waiting to send SETUP */

/**
 * struct port_ringfd_conn - one client connection
 * @port: the port
 * @next: list of the port's connections
 * @fd: the socket
 * @ref: its loop ref
 * @dl: the deadline for SETUP (deadline.h)
 * @active: SETUP accepted: this is the served client
 * @fds: the SETUP's fds (owned while @active)
 * @nfds: their count
 * @mem: the memfd's mapping, or MAP_FAILED (always, for passed rings)
 * @mem_size: its size
 * @region: the engines' view of it
 * @setup: the accepted SETUP
 * @msg: that SETUP as the client sent it (for a hand-over)
 * @msg_len: its bytes
 * @last_avail: per queue pair, where its tx ([0]) and rx ([1]) pair
 *	starts in the avail ring: 0 for a fresh client, where it stopped
 *	after a pause or in the predecessor
 * @paused: stopped for a hand-over (port_ringfd_pause())
 * @q: its queue pairs (vq.h)
 */
struct port_ringfd_conn {
	struct port *port;
	struct port_ringfd_conn *next;
	int fd;
	struct loop_ref ref;
	struct deadline dl;
	bool active;
	int fds[RINGFD_PROTO_MAX_FDS];
	unsigned int nfds;
	void *mem;
	size_t mem_size;
	struct engine_mem_region region;
	struct ringfd_proto_setup setup;
	uint8_t msg[RINGFD_PROTO_MAX_MSG];
	size_t msg_len;
	uint16_t last_avail[VRINGNET_RFD_MAX_QP][2];
	bool paused;
	struct vq q[VRINGNET_RFD_MAX_QP];
};

/* a queue pair's counters live in the port's per-pair struct port_stats */
_Static_assert(VRINGNET_RFD_MAX_QP <= CFG_MAX_QUEUES, "queue pairs beyond port_stats");

/**
 * struct port_ringfd - per-port data (port.priv)
 * @conns: connections
 * @npending: connections not yet set up
 * @active: the served client, or NULL
 * @gone: counters of clients gone, per queue pair
 * @refused: SETUPs answered with an error
 */
struct port_ringfd {
	struct port_ringfd_conn *conns;
	unsigned int npending;
	struct port_ringfd_conn *active;
	struct port_stats gone;
	unsigned long refused;
};

/**
 * port_ringfd_conn_close() - drop a connection and everything it holds
 * @c: the connection
 * @why: reason logged (NULL: clean hang-up)
 *
 * Its pairs leaving their workers, the others are evened out
 * (vq_rebalance()).
 */
static void port_ringfd_conn_close(struct port_ringfd_conn *c, const char *why)
{
	struct port *p = c->port;
	struct port_ringfd *pp = p->priv;
	struct port_ringfd_conn **pc;
	unsigned int i;

	if (c->active) {
		if (why)
			log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd client dropped: %s", p->cfg.name, why);
		else
			log_rl(&p->rl, LOG_INFO, "port %s: ring-fd client hung up", p->cfg.name);
		for (i = 0; i < c->setup.nqp; i++)
			vq_stop(&c->q[i], &pp->gone.tx[i], &pp->gone.rx[i], NULL);
		pp->active = NULL;
		p->state = "listening";
	} else {
		pp->npending--;
	}
	if (c->mem != MAP_FAILED) {
		guard_map_del(c->mem);
		munmap(c->mem, c->mem_size);
	}
	ringfd_proto_close_fds(c->fds, c->nfds);
	deadline_fini(&c->dl);
	if (!c->paused)
		loop_del(p->loop, &c->ref);
	close(c->fd);
	for (pc = &pp->conns; *pc; pc = &(*pc)->next) {
		if (*pc == c) {
			*pc = c->next;
			break;
		}
	}
	free(c);
	vq_rebalance();
}

/**
 * port_ringfd_refuse() - answer ERROR and drop the connection
 * @c: the connection
 * @ret: negative errno
 * @why: reason sent and logged
 */
static void port_ringfd_refuse(struct port_ringfd_conn *c, int ret, const char *why)
{
	struct port_ringfd *pp = c->port->priv;

	pp->refused++;
	log_rl(&c->port->rl, LOG_WARNING, "port %s: ring-fd SETUP refused: %s", c->port->cfg.name, why);
	ringfd_proto_send_reply(c->fd, -ret, 0, why);
	port_ringfd_conn_close(c, why);
}

/**
 * port_ringfd_vq_broken() - vq_ops.broken: drop the client
 * @vq: the pair
 * @why: reason
 */
static void port_ringfd_vq_broken(struct vq *vq, const char *why)
{
	port_ringfd_conn_close(vq->owner, why);
}

/**
 * port_ringfd_vq_mem_fault() - vq_ops.mem_fault: the client's memfd faulted
 * @vq: the pair
 * @f: where (guard.c)
 * @buf: the reason out
 * @len: its size
 */
static void port_ringfd_vq_mem_fault(struct vq *vq, const struct guard_fault *f, char *buf,
			     size_t len)
{
	struct port_ringfd_conn *c = vq->owner;
	char what[128];

	guard_fault_str(f, what, sizeof(what));
	snprintf(buf, len,
		 "memfd (%llu bytes): %s: the client shrank its memfd or its pages could not be allocated",
		 (unsigned long long)c->mem_size, what);
}

static const struct vq_ops port_ringfd_vq_ops = {
	.broken = port_ringfd_vq_broken,
	.mem_fault = port_ringfd_vq_mem_fault,
};

/**
 * port_ringfd_queue_start() - hand one queue pair to the pump
 * @c: the connection
 * @qp: queue pair
 * @why: reason on failure
 * @whylen: its size
 *
 * Return: 0 or a negative errno.
 */
static int port_ringfd_queue_start(struct port_ringfd_conn *c, unsigned int qp, char *why, size_t whylen)
{
	const struct vringnet_rfd_qp *r = &c->setup.qp[qp];
	const int *efd = &c->fds[ringfd_proto_evfd_base(&c->setup) + 4 * qp];
	struct port *p = c->port;
	struct vq_desc d;
	uint8_t *m = c->mem;

	memset(&d, 0, sizeof(d));
	d.cfg.tap_fd = p->tap->fds[qp];
	d.cfg.tap_ifindex = p->tap->ifindex;
	d.cfg.vnet_hdr_len = VRINGNET_RFD_VNET_HDR_LEN;
	d.cfg.mrg_rxbuf = c->setup.mrg_rxbuf;
	d.cfg.ring_features = c->setup.features;
	if (c->setup.rings) {
		d.cfg.ring_fds = &c->fds[2 * qp];
		d.cfg.tx.num = r->tx.num;
		d.cfg.rx.num = r->rx.num;
	} else {
		d.cfg.regions = &c->region;
		d.cfg.nregions = 1;
		d.cfg.tx = (struct engine_ring){ .num = r->tx.num, .desc = m + r->tx.desc,
					      .avail = m + r->tx.avail, .used = m + r->tx.used };
		d.cfg.rx = (struct engine_ring){ .num = r->rx.num, .desc = m + r->rx.desc,
					      .avail = m + r->rx.avail, .used = m + r->rx.used };
	}
	d.cfg.tx.last_avail = c->last_avail[qp][0];
	d.cfg.rx.last_avail = c->last_avail[qp][1];
	d.cfg.tx_call_fd = efd[1];
	d.cfg.rx_call_fd = efd[3];
	d.tx_kick_fd = efd[0];
	d.rx_kick_fd = efd[2];
	return vq_start(&c->q[qp], p, qp, &d, &port_ringfd_vq_ops, c, why, whylen);
}

/**
 * port_ringfd_check_memfd() - check the memfd, the rings in it and the eventfds
 * @c: a connection whose memfd SETUP was decoded
 * @why: reason on failure
 * @whylen: its size
 *
 * Return: 0 (@c->mem_size set) or a negative errno.
 */
static int port_ringfd_check_memfd(struct port_ringfd_conn *c, char *why, size_t whylen)
{
	uint64_t size = 0;
	int ret;

	ret = ringfd_proto_check_memfd(c->fds[0], &size, why, whylen);
	if (!ret)
		ret = ringfd_proto_check_layout(&c->setup, size, why, whylen);
	if (!ret)
		ret = ringfd_proto_check_eventfds(&c->setup, c->fds, why, whylen);
	if (!ret && (size == 0 || size > SIZE_MAX)) {
		snprintf(why, whylen, "memfd of %llu bytes cannot be mapped",
			 (unsigned long long)size);
		ret = -ERANGE;
	}
	c->mem_size = size;
	return ret;
}

/**
 * port_ringfd_check_passed() - check passed rings and that the engine can serve them
 * @c: a connection whose VRINGNET_RFD_F_RINGS SETUP was decoded
 * @why: reason on failure
 * @whylen: its size
 *
 * Return: 0 or a negative errno.
 */
static int port_ringfd_check_passed(struct port_ringfd_conn *c, char *why, size_t whylen)
{
	int ret;

	if (!c->port->eng->ring_fds) {
		snprintf(why, whylen, "passed rings need the kernel engine; port %s runs the %s engine",
			 c->port->cfg.name, c->port->eng->name);
		return -ENODEV;
	}
	ret = ringfd_proto_check_ring_fds(&c->setup, c->fds, why, whylen);
	if (!ret)
		ret = ringfd_proto_check_eventfds(&c->setup, c->fds, why, whylen);
	return ret;
}

/**
 * port_ringfd_map() - map the checked memfd and guard it
 * @c: a connection that passed port_ringfd_check_memfd()
 * @why: reason on failure
 * @whylen: its size
 *
 * Return: 0 or a negative errno.
 */
static int port_ringfd_map(struct port_ringfd_conn *c, char *why, size_t whylen)
{
	int ret;

	c->mem = mmap(NULL, c->mem_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fds[0], 0);
	if (c->mem == MAP_FAILED)
		return log_buf_errno(why, whylen, errno, "mmap of the memfd (%llu bytes)",
				(unsigned long long)c->mem_size);
	ret = guard_map_add(c->mem, c->mem_size, c, 0);
	if (ret) {
		snprintf(why, whylen, "guard: %s", strerror(-ret));
		return ret;
	}
	c->region = (struct engine_mem_region){ 0, c->mem_size, c->mem, c->fds[0], 0, 0 };
	return 0;
}

/**
 * port_ringfd_check_setup() - decode and check a SETUP, map its memory
 * @c: a connection not yet set up, @c->fds and @c->nfds the SETUP's
 * @buf: the message
 * @len: its length
 * @why: reason on failure
 * @whylen: its size
 *
 * The checks of every SETUP: a fresh one and a predecessor's (hand-over).
 *
 * Return: 0 (@c->setup decoded, the memfd mapped) or a negative errno.
 */
static int port_ringfd_check_setup(struct port_ringfd_conn *c, const void *buf, size_t len,
				   char *why, size_t whylen)
{
	struct port *p = c->port;
	struct port_ringfd *pp = p->priv;
	unsigned int i;
	int ret;

	ret = ringfd_proto_decode_setup(buf, len, c->nfds, &c->setup, why, whylen);
	if (!ret)
		ret = c->setup.rings ? port_ringfd_check_passed(c, why, whylen) :
		      port_ringfd_check_memfd(c, why, whylen);
	/* The eventfds are the client's: never block on them (evfd.h). */
	for (i = ringfd_proto_evfd_base(&c->setup); !ret && i < c->nfds; i++) {
		ret = evfd_adopt(c->fds[i]);
		if (ret)
			snprintf(why, whylen, "fd %u: O_NONBLOCK: %s", i, strerror(-ret));
	}
	if (!ret && pp->active) {
		ret = -EBUSY;
		snprintf(why, whylen, "port busy: it serves another client");
	}
	if (!ret && c->setup.nqp > p->tap->nqueues) {
		ret = -ENXIO;
		snprintf(why, whylen, "%u queue pairs asked, tap %s has %u queues",
			 c->setup.nqp, p->tap->name, p->tap->nqueues);
	}
	if (!ret && !c->setup.rings)
		ret = port_ringfd_map(c, why, whylen);
	if (!ret) {
		memcpy(c->msg, buf, len);
		c->msg_len = len;
	}
	return ret;
}

/**
 * port_ringfd_run() - make a checked connection the served client, start its pairs
 * @c: a connection that passed port_ringfd_check_setup()
 * @why: reason on failure
 * @whylen: its size
 *
 * Each pair starts at @c->last_avail.
 *
 * Return: 0 or a negative errno (@c is then served: close it).
 */
static int port_ringfd_run(struct port_ringfd_conn *c, char *why, size_t whylen)
{
	struct port *p = c->port;
	struct port_ringfd *pp = p->priv;
	unsigned int i;
	int ret;

	c->active = true;
	deadline_stop(&c->dl);
	pp->active = c;
	pp->npending--;
	for (i = 0; i < c->setup.nqp; i++) {
		ret = port_ringfd_queue_start(c, i, why, whylen);
		if (ret)
			return ret;
	}
	p->state = "connected";
	return 0;
}

/**
 * port_ringfd_kick_all() - walk every pair once: work queued before the kicks were watched
 * @c: a running client
 *
 * Return: 0, or -1 when a pair broke (@c is then gone).
 */
static int port_ringfd_kick_all(struct port_ringfd_conn *c)
{
	unsigned int i;

	for (i = 0; i < c->setup.nqp; i++)
		if (vq_kick(&c->q[i]) < 0)
			return -1;
	return 0;
}

/**
 * port_ringfd_setup() - check a SETUP, map the memory, start the queues, answer
 * @c: a connection not yet set up
 * @buf: the message
 * @len: its length
 */
static void port_ringfd_setup(struct port_ringfd_conn *c, const void *buf, size_t len)
{
	struct port *p = c->port;
	struct port_ringfd *pp = p->priv;
	char why[256], thread[32];
	int ret;

	ret = port_ringfd_check_setup(c, buf, len, why, sizeof(why));
	if (ret) {
		port_ringfd_refuse(c, ret, why);
		return;
	}
	ret = port_ringfd_run(c, why, sizeof(why));
	if (ret) {
		pp->refused++;
		log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd SETUP refused: %s", p->cfg.name, why);
		ringfd_proto_send_reply(c->fd, -ret, 0, why);
		port_ringfd_conn_close(c, why);
		return;
	}
	snprintf(why, sizeof(why), "%s", p->eng->name);
	if (ringfd_proto_send_reply(c->fd, 0, VRINGNET_RFD_FEATURES, why) < 0) {
		port_ringfd_conn_close(c, "cannot send the OK reply");
		return;
	}
	vq_thread_name(&c->q[0], thread, sizeof(thread));
	if (c->setup.rings)
		log_rl(&p->rl, LOG_INFO, "port %s: ring-fd client running (%s engine, queue pair 0 on %s, %u queue pairs of passed rings, no memory mapped, event index %s)",
			 p->cfg.name, p->eng->name, thread, c->setup.nqp,
			 c->setup.features & (1ULL << VIRTIO_RING_F_EVENT_IDX) ? "on" : "off");
	else
		log_rl(&p->rl, LOG_INFO, "port %s: ring-fd client running (%s engine, queue pair 0 on %s, %u queue pairs, %llu bytes of memory, event index %s)",
			 p->cfg.name, p->eng->name, thread, c->setup.nqp, (unsigned long long)c->mem_size,
			 c->setup.features & (1ULL << VIRTIO_RING_F_EVENT_IDX) ? "on" : "off");
	port_ringfd_kick_all(c);
}

/**
 * port_ringfd_conn_ready() - the connection is readable or hung up
 * @loop: the loop
 * @ref: the connection's ref
 * @events: epoll events
 */
static void port_ringfd_conn_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct port_ringfd_conn *c = container_of(ref, struct port_ringfd_conn, ref);
	uint8_t buf[RINGFD_PROTO_MAX_MSG + 1];
	int fds[RINGFD_PROTO_MAX_FDS];
	unsigned int nfds;
	char why[160];
	ssize_t n;

	n = ringfd_proto_recv(c->fd, buf, sizeof(buf), fds, &nfds, why, sizeof(why));
	if (n == -EAGAIN)
		return;
	if (n == 0) {
		port_ringfd_conn_close(c, NULL);
		return;
	}
	if (c->active) {
		ringfd_proto_close_fds(fds, nfds);
		if (n > 0)
			snprintf(why, sizeof(why), "a message after SETUP (only one is allowed)");
		ringfd_proto_send_reply(c->fd, n > 0 ? EALREADY : (int)-n, 0, why);
		port_ringfd_conn_close(c, why);
		return;
	}
	if (n < 0) {
		port_ringfd_refuse(c, (int)n, why);
		return;
	}
	memcpy(c->fds, fds, nfds * sizeof(int));
	c->nfds = nfds;
	port_ringfd_setup(c, buf, (size_t)n);
}

/**
 * port_ringfd_alloc() - the port's private data, created on first use
 * @p: the port
 *
 * Return: it, or NULL when out of memory.
 */
static struct port_ringfd *port_ringfd_alloc(struct port *p)
{
	if (!p->priv)
		p->priv = calloc(1, sizeof(struct port_ringfd));
	return p->priv;
}

/**
 * port_ringfd_deadline_passed() - a client did not send SETUP in time
 * @dl: its deadline
 */
static void port_ringfd_deadline_passed(struct deadline *dl)
{
	struct port_ringfd_conn *c = container_of(dl, struct port_ringfd_conn, dl);

	log_rl(&c->port->rl, LOG_WARNING, "port %s: ring-fd client closed: no SETUP within %u s (handshake-timeout)",
		 c->port->cfg.name, deadline_handshake_sec());
	port_ringfd_conn_close(c, "no SETUP in time");
}

/**
 * port_ringfd_conn_new() - a connection waiting for its SETUP
 * @p: the port
 * @fd: its socket (closed here on failure)
 * @limit: refused when this many connections wait for SETUP already
 *
 * Its socket is watched and its handshake-timeout runs.
 *
 * Return: the connection, or NULL (logged).
 */
static struct port_ringfd_conn *port_ringfd_conn_new(struct port *p, int fd, unsigned int limit)
{
	struct port_ringfd *pp = port_ringfd_alloc(p);
	struct port_ringfd_conn *c;
	unsigned int i;

	if (!pp || pp->npending >= limit) {
		if (pp)
			log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd client refused: %u connections wait for SETUP",
				 p->cfg.name, pp->npending);
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return NULL;
	}
	c->port = p;
	c->fd = fd;
	c->mem = MAP_FAILED;
	for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
		c->fds[i] = -1;
	if (deadline_init(&c->dl, p->loop, port_ringfd_deadline_passed) < 0) {
		log_err_errno(errno, "port %s: ring-fd client refused: timerfd", p->cfg.name);
		deadline_fini(&c->dl);
		close(fd);
		free(c);
		return NULL;
	}
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, port_ringfd_conn_ready);
	if (loop_add(p->loop, &c->ref, EPOLLIN) < 0) {
		log_err_errno(errno, "port %s: epoll", p->cfg.name);
		deadline_fini(&c->dl);
		close(fd);
		free(c);
		return NULL;
	}
	deadline_arm(&c->dl, deadline_handshake_sec());
	c->next = pp->conns;
	pp->conns = c;
	pp->npending++;
	return c;
}

/**
 * port_ringfd_accept() - port_ops.accept: a client connected
 * @p: the port
 * @fd: its socket (owned from here on)
 */
static void port_ringfd_accept(struct port *p, int fd)
{
	port_ringfd_conn_new(p, fd, PORT_RINGFD_MAX_PENDING);
}

/**
 * port_ringfd_pause() - stop a connection for a hand-over
 * @c: a connection not paused
 *
 * A served client's pairs stop (their counters go to the port's, where
 * each engine stopped in each avail ring into @c->last_avail: every entry
 * before it is used); no connection's socket is read, a pending one's
 * handshake-timeout stops.  What the client sends meanwhile waits in its
 * rings and its socket, the tap's frames in the tap's queue.
 */
static void port_ringfd_pause(struct port_ringfd_conn *c)
{
	struct port_ringfd *pp = c->port->priv;
	uint16_t la[2];
	unsigned int i;

	for (i = 0; c->active && i < c->setup.nqp; i++) {
		la[ENGINE_TX] = c->last_avail[i][0];
		la[ENGINE_RX] = c->last_avail[i][1];
		vq_stop(&c->q[i], &pp->gone.tx[i], &pp->gone.rx[i], la);
		c->last_avail[i][0] = la[ENGINE_TX];
		c->last_avail[i][1] = la[ENGINE_RX];
	}
	deadline_stop(&c->dl);
	loop_del(c->port->loop, &c->ref);
	c->paused = true;
}

/**
 * port_ringfd_take_back() - undo what a failed successor left on the rings
 * @c: a paused served connection
 *
 * A successor that failed after starting the pairs (a later front-end's
 * start failed, or it was too slow) may have moved the rings on.  Memfd
 * rings resume at their used index: at the pause every entry before the
 * stored position was used, so the used index is where the last instance
 * that ran them stopped (a chain it took but did not complete is done
 * again).  Passed rings keep their positions in the module, but the
 * successor's attachment to the tap outlives it: they are detached.
 */
static void port_ringfd_take_back(struct port_ringfd_conn *c)
{
	unsigned int i;

	if (c->setup.rings) {
		ringfd_proto_detach_ring_fds(&c->setup, c->fds);
		return;
	}
	for (i = 0; i < c->setup.nqp; i++) {
		const struct vringnet_rfd_qp *r = &c->setup.qp[i];

		/* struct vring_used: flags, idx; the memfd cannot shrink */
		c->last_avail[i][0] = __atomic_load_n((uint16_t *)((uint8_t *)c->mem + r->tx.used + 2),
						      __ATOMIC_ACQUIRE);
		c->last_avail[i][1] = __atomic_load_n((uint16_t *)((uint8_t *)c->mem + r->rx.used + 2),
						      __ATOMIC_ACQUIRE);
	}
}

/**
 * port_ringfd_resume() - run a paused connection again (the hand-over failed)
 * @c: a paused connection
 *
 * Return: 0, or -1 when it could not (then closed, logged).
 */
static int port_ringfd_resume(struct port_ringfd_conn *c)
{
	char why[256];
	unsigned int i;
	int ret = 0;

	if (loop_add(c->port->loop, &c->ref, EPOLLIN) < 0) {
		snprintf(why, sizeof(why), "epoll: %s", strerror(errno));
		ret = -1;
	}
	c->paused = !!ret;
	if (!c->active && !ret)
		deadline_arm(&c->dl, deadline_handshake_sec());
	if (c->active && !ret)
		port_ringfd_take_back(c);
	for (i = 0; c->active && !ret && i < c->setup.nqp; i++)
		ret = port_ringfd_queue_start(c, i, why, sizeof(why));
	if (ret) {
		port_ringfd_conn_close(c, why);
		return -1;
	}
	return c->active ? port_ringfd_kick_all(c) : 0;
}

/**
 * port_ringfd_handover_pause() - port_ops.handover_pause
 * @p: the port
 */
static void port_ringfd_handover_pause(struct port *p)
{
	struct port_ringfd *pp = p->priv;
	struct port_ringfd_conn *c;

	for (c = pp ? pp->conns : NULL; c; c = c->next)
		if (!c->paused)
			port_ringfd_pause(c);
}

/**
 * port_ringfd_handover_resume() - port_ops.handover_resume
 * @p: the port
 *
 * The hand-over failed: every paused connection runs again where it
 * stopped (one that cannot is closed, logged).
 */
static void port_ringfd_handover_resume(struct port *p)
{
	struct port_ringfd *pp = p->priv;
	struct port_ringfd_conn *c, *next;

	for (c = pp ? pp->conns : NULL; c; c = next) {
		next = c->next;
		if (c->paused)
			port_ringfd_resume(c);
	}
}

/**
 * port_ringfd_handover_save() - port_ops.handover_save
 * @p: the port (paused)
 * @st: the state being written
 * @err: message buffer
 * @errlen: its size
 *
 * Per connection its socket; for the served client also its SETUP as
 * sent, the SETUP's fds and where each ring stopped.
 *
 * Return: 0, or -1 with @err filled.
 */
static int port_ringfd_handover_save(struct port *p, struct handover_state *st, char *err,
				     size_t errlen)
{
	struct port_ringfd *pp = p->priv;
	struct port_ringfd_conn *c;
	struct hovs_ringfd rf;
	unsigned int i;
	int ret;

	for (c = pp ? pp->conns : NULL; c; c = c->next) {
		memset(&rf, 0, sizeof(rf));
		snprintf(rf.port, sizeof(rf.port), "%s", p->cfg.name);
		rf.sock = c->fd;
		for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
			rf.fds[i] = -1;
		if (c->active) {
			rf.nfds = c->nfds;
			memcpy(rf.fds, c->fds, c->nfds * sizeof(int));
			rf.msg_len = (uint32_t)c->msg_len;
			memcpy(rf.msg, c->msg, c->msg_len);
			memcpy(rf.last_avail, c->last_avail, sizeof(rf.last_avail));
		} else {
			rf.flags = HOVS_RINGFD_PENDING;
		}
		ret = handover_state_add_ringfd(st, &rf);
		if (ret < 0) {
			snprintf(err, errlen, "port %s: ring-fd client: %s", p->cfg.name, strerror(-ret));
			return -1;
		}
		if (c->active)
			log_info("port %s: ring-fd client handed over (%u queue pairs, queue pair 0 stopped at tx avail %u, rx avail %u)",
				 p->cfg.name, c->setup.nqp, c->last_avail[0][0], c->last_avail[0][1]);
	}
	return 0;
}

/**
 * port_ringfd_handover_take() - take a predecessor's client, its pairs not started
 * @p: the port
 * @rf: the record (its fds are taken, also on error)
 * @err: message buffer
 * @errlen: its size
 *
 * The socket is watched (a pending client waits for its SETUP here); a
 * served client's SETUP goes through the checks of a fresh one and its
 * memfd is mapped, everything that can fail but starting its pairs.
 *
 * Return: 0, or -1 with @err filled (the fds closed here, not the
 * predecessor's copies).
 */
static int port_ringfd_handover_take(struct port *p, const struct hovs_ringfd *rf, char *err,
				     size_t errlen)
{
	struct port_ringfd *pp = port_ringfd_alloc(p);
	bool pending = rf->flags & HOVS_RINGFD_PENDING;
	struct port_ringfd_conn *c;
	bool taken = false;
	char why[256];
	unsigned int i;
	int ret;

	for (c = pp ? pp->conns : NULL; c; c = c->next)
		taken |= c->msg_len != 0;	/* a served client already */
	/* the served one counts in npending until its pairs start: the
	 * pending ones are those but it, and at most MAX_PENDING + 1 in all */
	if (!pp || (!pending && taken) ||
	    (pending && pp->npending - taken >= PORT_RINGFD_MAX_PENDING)) {
		snprintf(err, errlen, "port %s: no room for the ring-fd client (one is served, %u wait for SETUP, or out of memory)",
			 p->cfg.name, pp ? pp->npending : 0);
		handover_state_ringfd_close(rf);
		return -1;
	}
	c = port_ringfd_conn_new(p, rf->sock, PORT_RINGFD_MAX_PENDING + 1);
	if (!c) {
		snprintf(err, errlen, "port %s: ring-fd client: cannot watch its socket", p->cfg.name);
		for (i = 0; i < rf->nfds; i++)	/* the socket is closed */
			close(rf->fds[i]);
		return -1;
	}
	if (pending)
		return 0;
	memcpy(c->fds, rf->fds, rf->nfds * sizeof(int));
	c->nfds = rf->nfds;
	ret = port_ringfd_check_setup(c, rf->msg, rf->msg_len, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "port %s: the ring-fd client's SETUP: %s", p->cfg.name, why);
		port_ringfd_conn_close(c, err);
		return -1;
	}
	if (!c->setup.rings)
		memcpy(c->last_avail, rf->last_avail, sizeof(c->last_avail));
	return 0;
}

/**
 * port_ringfd_handover_start() - start the pairs of a client taken from @rf
 * @p: the port
 * @rf: the record port_ringfd_handover_take() took
 * @err: message buffer
 * @errlen: its size
 *
 * Each pair starts where the predecessor stopped it; nothing is sent to
 * the client.
 *
 * Return: 0; 1 when the client was taken and started but a pair broke at
 * its first kick (the client is then closed, logged: not a failure of
 * the hand-over); or -1 with @err filled (the client is closed here).
 */
static int port_ringfd_handover_start(struct port *p, const struct hovs_ringfd *rf, char *err,
				      size_t errlen)
{
	struct port_ringfd *pp = p->priv;
	struct port_ringfd_conn *c;
	char why[256];
	int ret;

	if (rf->flags & HOVS_RINGFD_PENDING)
		return 0;
	for (c = pp ? pp->conns : NULL; c; c = c->next)
		if (c->fd == rf->sock && c->msg_len && !c->active)
			break;
	if (!c) {
		snprintf(err, errlen, "port %s: the ring-fd client was not taken", p->cfg.name);
		return -1;
	}
	ret = port_ringfd_run(c, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "port %s: the ring-fd client: %s", p->cfg.name, why);
		port_ringfd_conn_close(c, err);
		return -1;
	}
	if (c->setup.rings)
		log_info("port %s: ring-fd client taken over from the previous instance (%s engine, %u queue pairs of passed rings, at their own positions)",
			 p->cfg.name, p->eng->name, c->setup.nqp);
	else
		log_info("port %s: ring-fd client taken over from the previous instance (%s engine, %u queue pairs, queue pair 0 at tx avail %u, rx avail %u)",
			 p->cfg.name, p->eng->name, c->setup.nqp, c->last_avail[0][0], c->last_avail[0][1]);
	/* a pair that broke closed the client: logged there */
	return port_ringfd_kick_all(c) < 0 ? 1 : 0;
}

/**
 * port_ringfd_handover_ringfd() - port_ops.handover_ringfd
 * @p: the port
 * @rf: the predecessor's record of one client
 * @start: false: take the client, its pairs not started
 *	(port_ringfd_handover_take()); true: start them
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, 1 (started, then closed by its first kick), or -1 with @err
 * filled.
 */
static int port_ringfd_handover_ringfd(struct port *p, const struct hovs_ringfd *rf, bool start,
				       char *err, size_t errlen)
{
	if (start)
		return port_ringfd_handover_start(p, rf, err, errlen);
	return port_ringfd_handover_take(p, rf, err, errlen);
}

/**
 * port_ringfd_teardown() - port_ops.teardown
 * @p: the port
 */
static void port_ringfd_teardown(struct port *p)
{
	struct port_ringfd *pp = p->priv;

	if (!pp)
		return;
	while (pp->conns)
		port_ringfd_conn_close(pp->conns, "port closed");
	free(pp);
	p->priv = NULL;
}

/**
 * port_ringfd_get_stats() - port_ops.get_stats: clients gone plus the served one
 * @p: the port
 * @s: accumulator, per queue pair
 */
static void port_ringfd_get_stats(struct port *p, struct port_stats *s)
{
	struct port_ringfd *pp = p->priv;
	struct engine_stats t, r;
	unsigned int i;

	if (!pp)
		return;
	port_stats_merge(s, &pp->gone);
	if (!pp->active)
		return;
	for (i = 0; i < pp->active->setup.nqp && i < s->nqp; i++) {
		if (!vq_running(&pp->active->q[i]))
			continue;
		vq_get_stats(&pp->active->q[i], &t, &r);
		port_stats_add(&s->tx[i], &t);
		port_stats_add(&s->rx[i], &r);
	}
}

/**
 * port_ringfd_connections() - port_ops.connections
 * @p: the port
 *
 * Return: 1 while a client is served.
 */
static unsigned int port_ringfd_connections(struct port *p)
{
	struct port_ringfd *pp = p->priv;

	return pp && pp->active ? 1 : 0;
}

const struct port_ops port_ringfd_ops = {
	.name = "ringfd",
	.sock_type = SOCK_SEQPACKET,
	.multiqueue = true,
	.restart_keeps = true,
	.accept = port_ringfd_accept,
	.teardown = port_ringfd_teardown,
	.get_stats = port_ringfd_get_stats,
	.connections = port_ringfd_connections,
	.handover_pause = port_ringfd_handover_pause,
	.handover_resume = port_ringfd_handover_resume,
	.handover_save = port_ringfd_handover_save,
	.handover_ringfd = port_ringfd_handover_ringfd,
};
