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
	c->region = (struct engine_mem_region){ 0, c->mem_size, c->mem, c->fds[0], 0 };
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
	unsigned int i;
	int ret;

	ret = ringfd_proto_decode_setup(buf, len, c->nfds, &c->setup, why, sizeof(why));
	if (!ret)
		ret = c->setup.rings ? port_ringfd_check_passed(c, why, sizeof(why)) :
		      port_ringfd_check_memfd(c, why, sizeof(why));
	/* The eventfds are the client's: never block on them (evfd.h). */
	for (i = ringfd_proto_evfd_base(&c->setup); !ret && i < c->nfds; i++) {
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
	if (!ret && !c->setup.rings)
		ret = port_ringfd_map(c, why, sizeof(why));
	if (ret) {
		port_ringfd_refuse(c, ret, why);
		return;
	}
	c->active = true;
	deadline_stop(&c->dl);
	pp->active = c;
	pp->npending--;
	for (i = 0; i < c->setup.nqp; i++) {
		ret = port_ringfd_queue_start(c, i, why, sizeof(why));
		if (ret) {
			pp->refused++;
			log_rl(&p->rl, LOG_WARNING, "port %s: ring-fd SETUP refused: %s", p->cfg.name, why);
			ringfd_proto_send_reply(c->fd, -ret, 0, why);
			port_ringfd_conn_close(c, why);
			return;
		}
	}
	p->state = "connected";
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
	/* Work queued before we watched the kicks. */
	for (i = 0; i < c->setup.nqp; i++) {
		if (vq_kick(&c->q[i]) < 0)
			return;
	}
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
 * port_ringfd_accept() - port_ops.accept: a client connected
 * @p: the port
 * @fd: its socket (owned from here on)
 */
static void port_ringfd_accept(struct port *p, int fd)
{
	struct port_ringfd *pp = port_ringfd_alloc(p);
	struct port_ringfd_conn *c;
	unsigned int i;

	if (!pp || pp->npending >= PORT_RINGFD_MAX_PENDING) {
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
	for (i = 0; i < RINGFD_PROTO_MAX_FDS; i++)
		c->fds[i] = -1;
	if (deadline_init(&c->dl, p->loop, port_ringfd_deadline_passed) < 0) {
		log_err_errno(errno, "port %s: ring-fd client refused: timerfd", p->cfg.name);
		deadline_fini(&c->dl);
		close(fd);
		free(c);
		return;
	}
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, port_ringfd_conn_ready);
	if (loop_add(p->loop, &c->ref, EPOLLIN) < 0) {
		log_err_errno(errno, "port %s: epoll", p->cfg.name);
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
	.accept = port_ringfd_accept,
	.teardown = port_ringfd_teardown,
	.get_stats = port_ringfd_get_stats,
	.connections = port_ringfd_connections,
};
