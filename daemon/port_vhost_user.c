// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * port_vhost_user.c - the vhost-user port type: a front-end's rings on a tap
 *
 * One front-end at a time per port (server mode: a second connection is
 * refused while one is served; client mode: connect = PATH, reconnecting
 * every cfg.reconnect seconds while there is no connection).  The
 * connection's messages go to the vhost-user state machine (vhost_user.c);
 * when it reports a queue pair ready, the pair (the guest's memory table,
 * ring addresses, kick and call fds: vhost_user_dev_queue_config()) is handed to
 * the queue-pair pump (vq.c), which runs it on the engine until the
 * front-end stops it.
 *
 * A protocol error, a broken ring or a queue the engine cannot open closes
 * that connection (logged with the reason); the tap and other ports stay.
 * A ring set up without a kick fd (SET_VRING_KICK with the no-fd bit: the
 * front-end does not kick) is polled by the pump (vq.h).
 *
 * Every connection is bounded in time (deadline.h): closed (logged) when it
 * has not finished the vhost-user handshake (SET_OWNER, which QEMU sends
 * once it has read the features and set the protocol features) boot-timeout
 * seconds after it connected, or when a message it began is not complete
 * message-timeout seconds later.  A front-end past SET_OWNER is kept however
 * long its guest takes to start the rings (a VM started paused, a boot
 * menu, an installer without virtio drivers): it is the only connection of
 * its port (two during a migration), its messages stay bounded by
 * message-timeout and their size, its memory table by VUM_MAX_REGIONS
 * regions of the front-end's own files, its fds by the ring count, and only
 * who may open the port's socket (socket-mode, socket-owner, socket-group)
 * can hold it.  RESET_OWNER arms boot-timeout again.
 *
 * Live migration: a port serves two front-ends at once, the migration's
 * source and its destination (QEMU started with -incoming connects while
 * the source still runs; a third is refused).  A queue pair runs on one
 * connection at a time: the source stops its rings (GET_VRING_BASE) before
 * the destination starts them; a connection whose queue pair becomes
 * ready while the other connection runs it is closed (EBUSY).  While the
 * front-end has VHOST_F_LOG_ALL acked (the source, during the migration)
 * its queue pairs run on the user engine, which marks what it writes in
 * the dirty log (dirty_log.h); vringfd.ko does not log.  The features
 * change stops the pairs and starts them again on the other engine from
 * the same avail positions; when logging ends they return to the port's
 * engine.
 *
 * kernel-rings = memory: on the kernel engine the pairs' rings are rings
 * of memory over the memory table's fds (engine_queue_config.mem_files):
 * vringfd.ko reaches the guest's pages through the files it holds, not
 * through the daemon's mappings.  The daemon then does not map guest
 * memory at all (vhost_user_dev_map_lazily()) until a pair needs it: the
 * user engine of a migration's dirty logging, or a fall-back to rings of
 * the daemon's address space; once mapped, it stays mapped until the
 * memory table changes.  Each ring pins every page of the
 * table, charged to the daemon's RLIMIT_MEMLOCK once for all the rings
 * (the module shares the held pages); what the module refuses
 * (a hugetlbfs or tmpfs file, which cannot be sealed, a memfd that can
 * shrink, more than 1 GiB, the limit) falls
 * back to rings of the daemon's address space, logged once.
 *
 * kernel-rings = kick: the same rings of memory in kick mode
 * (VRINGFD_SET_KICK with the front-end's kick eventfds; the call eventfds
 * as always): vringfd.ko serves them by itself and the daemon is not woken
 * per frame; the pump then watches the ring fds for errors only (vq.h).
 * The daemon keeps the control plane: GET_VRING_BASE stops the pair, whose
 * engine queue leaves kick mode before its positions are read.  Dirty
 * logging (a migration's source) runs the pairs on the user engine, which
 * the daemon drives, and back in kick mode when logging ends; a hand-over
 * or restart pauses the pairs (their rings leave kick mode and are
 * closed) and the successor starts them in kick mode again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/virtio_ring.h>

#include "deadline.h"
#include "evfd.h"
#include "guard.h"
#include "handover_state.h"
#include "livestore.h"
#include "log.h"
#include "port.h"
#include "port_peer.h"
#include "vhost_user.h"
#include "vq.h"

/**
 * struct port_vhost_user_conn - one front-end connection
 * @port: the port
 * @fd: the socket
 * @ref: its loop ref
 * @dev: vhost-user state
 * @q: per queue pair (vq.h)
 * @hs: deadline for the end of the handshake (boot-timeout)
 * @msg: deadline for a message begun (message-timeout)
 * @closing: set once the connection is being torn down
 * @in_vu: inside vhost_user_dev_handle(): errors are deferred to @deferred
 * @deferred: an error found inside vhost_user_dev_handle(), "" for none
 */
struct port_vhost_user_conn {
	struct port *port;
	int fd;
	struct loop_ref ref;
	struct vhost_user_dev dev;
	struct vq q[VHOST_USER_MAX_QUEUE_PAIRS];
	struct deadline hs;
	struct deadline msg;
	bool closing;
	bool in_vu;
	char deferred[320];
};

/* a queue pair's counters live in the port's per-pair struct port_stats */
_Static_assert(VHOST_USER_MAX_QUEUE_PAIRS <= CFG_MAX_QUEUES, "queue pairs beyond port_stats");

static void port_vhost_user_conn_close(struct port_vhost_user_conn *c, const char *why);

/**
 * port_vhost_user_fail() - a queue found the connection unusable
 * @c: the connection
 * @why: reason
 *
 * Closes the connection now, or, when called from inside the vhost-user
 * state machine, as soon as it returns.
 */
static void port_vhost_user_fail(struct port_vhost_user_conn *c, const char *why)
{
	if (c->in_vu) {
		if (!c->deferred[0])
			snprintf(c->deferred, sizeof(c->deferred), "%s", why);
		return;
	}
	port_vhost_user_conn_close(c, why);
}

/**
 * port_vhost_user_probe_regions() - which region of guest memory no longer faults in
 * @c: the connection
 * @buf: filled with ": region N (...) ..." for the first region whose last
 *	byte faults, or "" when every one reads
 * @len: size of @buf
 *
 * Reads the last byte of each region mapped here under a guard scope of
 * its own (a truncated file faults there).  For the kernel engine's
 * EFAULT, which does not say where.
 */
static void port_vhost_user_probe_regions(struct port_vhost_user_conn *c, char *buf, size_t len)
{
	volatile unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < c->dev.nregions; i++) {
		const struct vhost_user_region *r = &c->dev.regions[i];
		struct guard_scope gs;
		char what[128];

		if (!r->host)
			continue;	/* not mapped here: vringfd.ko holds its pages */
		guard_enter(&gs, &c->dev);
		if (sigsetjmp(gs.jb, 0)) {
			r = &c->dev.regions[i];
			guard_fault_str(&gs.fault, what, sizeof(what));
			snprintf(buf, len, ": guest memory region %u (guest 0x%llx, 0x%llx bytes, fd offset 0x%llx): %s",
				 i, (unsigned long long)r->guest_addr, (unsigned long long)r->size,
				 (unsigned long long)r->mmap_offset, what);
			return;
		}
		(void)*(volatile const uint8_t *)((const uint8_t *)r->host + r->size - 1);
		guard_leave(&gs);
	}
}

/**
 * port_vhost_user_conn_of() - the connection of a queue pair
 * @vq: the pair
 *
 * Return: the connection (the pair's owner is its vhost-user state).
 */
static struct port_vhost_user_conn *port_vhost_user_conn_of(struct vq *vq)
{
	return container_of((struct vhost_user_dev *)vq->owner, struct port_vhost_user_conn, dev);
}

/**
 * port_vhost_user_vq_broken() - vq_ops.broken: close the connection
 * @vq: the pair
 * @why: reason
 */
static void port_vhost_user_vq_broken(struct vq *vq, const char *why)
{
	port_vhost_user_fail(port_vhost_user_conn_of(vq), why);
}

/**
 * port_vhost_user_vq_efault_where() - vq_ops.efault_where: which region is gone
 * @vq: the pair
 * @buf: out
 * @len: its size
 */
static void port_vhost_user_vq_efault_where(struct vq *vq, char *buf, size_t len)
{
	port_vhost_user_probe_regions(port_vhost_user_conn_of(vq), buf, len);
}

/**
 * port_vhost_user_vq_mem_fault() - vq_ops.mem_fault: guest memory faulted under a walk
 * @vq: the pair
 * @f: where (guard.c)
 * @buf: the reason out
 * @len: its size
 *
 * The front-end truncated the file behind a region, or the kernel had no
 * page to back it (hugetlbfs pool exhausted): the connection is closed with
 * the region named; other ports are not affected.
 */
static void port_vhost_user_vq_mem_fault(struct vq *vq, const struct guard_fault *f, char *buf,
			     size_t len)
{
	const struct vhost_user_dev *dev = &port_vhost_user_conn_of(vq)->dev;
	const struct vhost_user_region *r;
	char what[128];

	guard_fault_str(f, what, sizeof(what));
	if (f->index == VHOST_USER_GUARD_LOG) {
		snprintf(buf, len, "dirty log (0x%llx bytes): %s: the front-end shrank its log file",
			 (unsigned long long)f->size, what);
		return;
	}
	r = &dev->regions[f->index];
	snprintf(buf, len,
		 "guest memory region %u (guest 0x%llx, 0x%llx bytes, fd offset 0x%llx): %s (guest 0x%llx): the front-end shrank its memory file or its pages could not be allocated",
		 f->index, (unsigned long long)r->guest_addr, (unsigned long long)r->size,
		 (unsigned long long)r->mmap_offset, what,
		 (unsigned long long)(r->guest_addr + f->offset));
}

static const struct vq_ops port_vhost_user_vq_ops = {
	.broken = port_vhost_user_vq_broken,
	.mem_fault = port_vhost_user_vq_mem_fault,
	.efault_where = port_vhost_user_vq_efault_where,
};

/**
 * port_vhost_user_queue_stop() - stop a queue pair's pump
 * @c: the connection
 * @qp: queue pair
 *
 * Stores the engine's avail positions in the vhost-user state (for
 * GET_VRING_BASE) and its counters in the port's totals.
 */
static void port_vhost_user_queue_stop(struct port_vhost_user_conn *c, unsigned int qp)
{
	struct port_peer *pp = c->port->priv;
	uint16_t la[2];

	if (!vq_running(&c->q[qp]))
		return;
	vq_stop(&c->q[qp], &pp->gone.tx[qp], &pp->gone.rx[qp], la);
	vhost_user_dev_set_last_avail(&c->dev, 2 * qp + 1, la[ENGINE_TX]);
	vhost_user_dev_set_last_avail(&c->dev, 2 * qp, la[ENGINE_RX]);
	if (vhost_user_dev_logging(&c->dev))
		log_rl(&c->port->rl, LOG_INFO, "port %s: queue pair %u stopped (tx avail %u, rx avail %u; migrating: %llu dirty page marks so far, %llu beyond the log)",
		       c->port->cfg.name, qp, la[ENGINE_TX], la[ENGINE_RX],
		       (unsigned long long)c->dev.log.pages,
		       (unsigned long long)c->dev.log.beyond);
	else
		log_rl(&c->port->rl, LOG_INFO, "port %s: queue pair %u stopped (tx avail %u, rx avail %u)",
		       c->port->cfg.name, qp, la[ENGINE_TX], la[ENGINE_RX]);
}

/**
 * port_vhost_user_qp_taken() - whether another connection of the port runs a queue pair
 * @c: the connection asking
 * @qp: queue pair
 *
 * Return: true when the port's other front-end (a migration's source or
 * destination) has @qp running on the tap queue.
 */
static bool port_vhost_user_qp_taken(const struct port_vhost_user_conn *c, unsigned int qp)
{
	const struct port_peer *pp = c->port->priv;
	unsigned int i;

	for (i = 0; i < PORT_PEER_MAX; i++) {
		const struct port_vhost_user_conn *o = pp->conns[i];

		if (o && o != c && vq_running(&o->q[qp]))
			return true;
	}
	return false;
}

/**
 * port_vhost_user_queue_desc() - describe a ready queue pair for vq_start()
 * @c: the connection
 * @qp: queue pair
 * @d: filled
 */
static void port_vhost_user_queue_desc(struct port_vhost_user_conn *c, unsigned int qp,
				       struct vq_desc *d)
{
	struct port *p = c->port;

	memset(d, 0, sizeof(*d));
	vhost_user_dev_queue_config(&c->dev, qp, &d->cfg);
	d->eng = engine_for_queue(p->eng, vhost_user_dev_logging(&c->dev));
	/* a logging pair stays on the main thread: SET_LOG_BASE remaps the
	 * log under running pairs, and the main thread does that */
	d->main = vhost_user_dev_logging(&c->dev);
	d->cfg.tap_fd = p->tap->fds[qp];
	d->cfg.tap_ifindex = p->tap->ifindex;
	d->cfg.mem_files = p->cfg.kernel_rings != CFG_KERNEL_RINGS_PROCESS;
	d->cfg.kick_mode = p->cfg.kernel_rings == CFG_KERNEL_RINGS_KICK;
	d->tx_kick_fd = c->dev.vrings[2 * qp + 1].kick_fd;
	d->rx_kick_fd = c->dev.vrings[2 * qp].kick_fd;
	d->cfg.tx_kick_fd = d->tx_kick_fd;
	d->cfg.rx_kick_fd = d->rx_kick_fd;
}

/**
 * port_vhost_user_map() - map the guest's memory here for a queue pair that needs it
 * @c: the connection
 * @qp: queue pair
 * @why: what needs it, for the log
 *
 * Return: 0 (also when it was mapped already), or a negative errno
 * (c->dev.err says why).
 */
static int port_vhost_user_map(struct port_vhost_user_conn *c, unsigned int qp, const char *why)
{
	uint64_t total;
	int ret;

	if (vhost_user_dev_mapped(&c->dev))
		return 0;
	ret = vhost_user_dev_map(&c->dev, "mapping guest memory");
	vhost_user_dev_mapped_bytes(&c->dev, &total);
	if (ret == 0)
		log_info("port %s: guest memory mapped (%u regions, %llu KiB): queue pair %u: %s",
			 c->port->cfg.name, c->dev.nregions, (unsigned long long)(total >> 10), qp, why);
	return ret;
}

/**
 * port_vhost_user_queue_start() - hand a ready queue pair to the pump
 * @c: the connection
 * @qp: queue pair
 *
 * The pair runs on the port's engine, or on the user engine while the
 * front-end logs dirty pages (a migration's source).  Guest memory not
 * mapped yet (vhost_user_dev_map_lazily()) is mapped first unless the
 * pair runs on rings of memory of the kernel engine; when those cannot be
 * made over the unmapped memory (vringfd.ko refuses the files: memlock,
 * an older module), it is mapped and the pair opened again (the kernel
 * engine then falls back to rings of this process).
 * Return: 0 or a negative errno (the message is in c->dev.err).
 */
static int port_vhost_user_queue_start(struct port_vhost_user_conn *c, unsigned int qp)
{
	struct port *p = c->port;
	struct vq_desc d;
	char thread[32];
	int ret;

	if (qp >= p->tap->nqueues) {
		snprintf(c->dev.err, sizeof(c->dev.err),
			 "queue pair %u: tap %s has %u queues", qp, p->tap->name,
			 p->tap->nqueues);
		return -EINVAL;
	}
	if (port_vhost_user_qp_taken(c, qp)) {
		snprintf(c->dev.err, sizeof(c->dev.err),
			 "queue pair %u: the port's other front-end runs it (a migration's source must stop its rings before the destination starts them)",
			 qp);
		return -EBUSY;
	}
	port_vhost_user_queue_desc(c, qp, &d);
	if (d.eng != &engine_kernel_ops || !d.cfg.mem_files) {
		ret = port_vhost_user_map(c, qp, d.eng != &engine_kernel_ops ?
					  "the user engine walks the rings" :
					  "rings of this process (kernel-rings = process)");
		if (ret < 0)
			return ret;
		port_vhost_user_queue_desc(c, qp, &d);
	}
	ret = vq_start(&c->q[qp], p, qp, &d, &port_vhost_user_vq_ops, &c->dev, c->dev.err,
		       sizeof(c->dev.err));
	if (ret && !vhost_user_dev_mapped(&c->dev)) {
		char why[VHOST_USER_ERR_MAX + 64];

		snprintf(why, sizeof(why), "rings of memory over unmapped memory failed (%s)",
			 c->dev.err);
		c->dev.err[0] = '\0';
		ret = port_vhost_user_map(c, qp, why);
		if (ret < 0)
			return ret;
		port_vhost_user_queue_desc(c, qp, &d);
		ret = vq_start(&c->q[qp], p, qp, &d, &port_vhost_user_vq_ops, &c->dev, c->dev.err,
			       sizeof(c->dev.err));
	}
	if (ret)
		return ret;
	log_rl(&p->rl, LOG_INFO, "port %s: queue pair %u running (%s engine%s, %s, ring sizes tx %u rx %u, header %u, mergeable rx %s, event index %s%s%s, guest memory %s)",
		 p->cfg.name, qp, d.eng->name, c->q[qp].kicked ? " in kick mode" : "",
		 vq_thread_name(&c->q[qp], thread, sizeof(thread)),
		 d.cfg.tx.num, d.cfg.rx.num, d.cfg.vnet_hdr_len,
		 d.cfg.mrg_rxbuf ? "on" : "off",
		 c->dev.features & (1ULL << VU_RING_F_EVENT_IDX) ? "on" : "off",
		 vq_polled(&c->q[qp]) ? ", polled: a ring has no kick fd" : "",
		 !d.cfg.log ? "" : dirty_log_mapped(d.cfg.log) ?
		 ", migrating: dirty pages logged" : ", migrating: dirty logging on, no log yet",
		 vhost_user_dev_mapped(&c->dev) ? "mapped" : "not mapped");
	deadline_stop(&c->hs);
	/* Work queued before we watched the kicks. */
	vq_kick(&c->q[qp]);
	return 0;
}

/**
 * port_vhost_user_queue_state() - vhost_user_ops.queue_state: a queue pair starts or stops
 * @dev: the connection's state
 * @qp: queue pair
 * @ready: start or stop
 *
 * Return: 0 or a negative errno.
 */
static int port_vhost_user_queue_state(struct vhost_user_dev *dev, unsigned int qp, bool ready)
{
	struct port_vhost_user_conn *c = dev->opaque;

	if (!ready) {
		port_vhost_user_queue_stop(c, qp);
		return 0;
	}
	return port_vhost_user_queue_start(c, qp);
}

/**
 * port_vhost_user_live() - write a connection's state into the live store
 * @c: the connection (not closing)
 *
 * Under systemd the store holds every server-mode front-end's state at all
 * times, for a crash (livestore.c); one that cannot be saved now (a
 * migration runs) leaves it until it can.
 */
static void port_vhost_user_live(struct port_vhost_user_conn *c)
{
	char err[sizeof(c->dev.err)];
	struct hovs_vhost_user *v;

	if (!livestore_enabled() || c->closing || c->port->cfg.connect[0])
		return;
	v = malloc(sizeof(*v));
	memcpy(err, c->dev.err, sizeof(err));
	if (v && vhost_user_dev_save(&c->dev, v) == 0) {
		snprintf(v->port, sizeof(v->port), "%s", c->port->cfg.name);
		livestore_update(c->fd, v);
	} else {
		livestore_update(c->fd, NULL);
	}
	memcpy(c->dev.err, err, sizeof(err));
	free(v);
}

/**
 * port_vhost_user_changed() - vhost_user_ops.changed: write the state again
 * @dev: the connection's vhost-user state
 */
static void port_vhost_user_changed(struct vhost_user_dev *dev)
{
	port_vhost_user_live(dev->opaque);
}

/**
 * port_vhost_user_tap_mtu() - vhost_user_ops.tap_mtu: the port's tap's current MTU
 * @dev: the connection's vhost-user state
 *
 * Return: the MTU or a negative errno.
 */
static int port_vhost_user_tap_mtu(struct vhost_user_dev *dev)
{
	struct port_vhost_user_conn *c = dev->opaque;

	return tap_get_mtu(c->port->tap);
}

/**
 * port_vhost_user_announce() - vhost_user_ops.announce: a RARP for the guest out of the tap
 * @dev: the connection's vhost-user state
 * @mac: the guest's MAC (SEND_RARP)
 *
 * Return: 0 or a negative errno.
 */
static int port_vhost_user_announce(struct vhost_user_dev *dev, const uint8_t mac[6])
{
	struct port_vhost_user_conn *c = dev->opaque;
	int ret = tap_send_rarp(c->port->tap, mac);

	if (ret == 0)
		log_rl(&c->port->rl, LOG_INFO, "port %s: SEND_RARP: announced %02x:%02x:%02x:%02x:%02x:%02x on tap %s",
			 c->port->cfg.name, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5],
			 c->port->tap->name);
	return ret;
}

static const struct vhost_user_ops port_vhost_user_dev_ops = {
	.queue_state = port_vhost_user_queue_state,
	.tap_mtu = port_vhost_user_tap_mtu,
	.announce = port_vhost_user_announce,
	.changed = port_vhost_user_changed,
};

/**
 * port_vhost_user_conn_close() - end a connection: queues, mappings, fds, socket
 * @c: the connection
 * @why: reason for the log, NULL for a clean hang-up
 *
 * Its pairs leaving their workers, the others are evened out
 * (vq_rebalance()).
 */
static void port_vhost_user_conn_close(struct port_vhost_user_conn *c, const char *why)
{
	struct port *p = c->port;

	if (c->closing)
		return;
	c->closing = true;
	/* out of systemd's fd store first: its copy would keep it open */
	livestore_update(c->fd, NULL);
	if (why)
		log_rl_port(p, LOG_WARNING, "port %s: vhost-user connection closed: %s", p->cfg.name, why);
	else
		log_rl_port(p, LOG_INFO, "port %s: vhost-user front-end disconnected", p->cfg.name);
	vhost_user_dev_reset(&c->dev);
	deadline_fini(&c->hs);
	deadline_fini(&c->msg);
	loop_del(p->loop, &c->ref);
	close(c->fd);
	port_peer_closed(p, c, why);
	free(c);
	vq_rebalance();
}

/**
 * port_vhost_user_handshake_done() - whether boot-timeout no longer applies
 * @c: the connection
 *
 * Return: true once the front-end sent SET_OWNER (QEMU does at the end of
 * its handshake, also for a VM started paused), or, for a front-end that
 * skips it, mapped its memory or runs a queue pair.
 */
static bool port_vhost_user_handshake_done(const struct port_vhost_user_conn *c)
{
	unsigned int qp;

	if (c->dev.owner || c->dev.nregions)
		return true;
	for (qp = 0; qp < VHOST_USER_MAX_QUEUE_PAIRS; qp++)
		if (c->dev.active[qp])
			return true;
	return false;
}

/**
 * port_vhost_user_conn_ready() - the front-end sent something (or hung up)
 * @loop: the loop
 * @ref: the connection's ref
 * @events: epoll events
 */
static void port_vhost_user_conn_ready(struct loop *loop, struct loop_ref *ref, uint32_t events)
{
	struct port_vhost_user_conn *c = container_of(ref, struct port_vhost_user_conn, ref);
	int ret;

	c->in_vu = true;
	ret = vhost_user_dev_handle(&c->dev);
	c->in_vu = false;
	if (ret == 0 && c->deferred[0]) {
		char why[sizeof(c->deferred)];

		memcpy(why, c->deferred, sizeof(why));
		port_vhost_user_conn_close(c, why);
		return;
	}
	if (ret == -ENOTCONN) {
		port_vhost_user_conn_close(c, NULL);
		return;
	}
	if (ret < 0) {
		char why[VHOST_USER_ERR_MAX + 32];

		snprintf(why, sizeof(why), "%s", c->dev.err);
		port_vhost_user_conn_close(c, why);
		return;
	}
	if (c->dev.rx.got)
		deadline_arm(&c->msg, deadline_message_sec());
	else
		deadline_stop(&c->msg);
	/* boot-timeout bounds the handshake only: a front-end that owns the
	 * device may wait for its guest as long as it likes */
	if (port_vhost_user_handshake_done(c))
		deadline_stop(&c->hs);
	else if (!c->hs.armed)
		deadline_arm(&c->hs, deadline_boot_sec());
}

/**
 * port_vhost_user_hs_passed() - the handshake not finished within boot-timeout
 * @dl: the connection's @hs
 */
static void port_vhost_user_hs_passed(struct deadline *dl)
{
	struct port_vhost_user_conn *c = container_of(dl, struct port_vhost_user_conn, hs);
	char why[96];

	snprintf(why, sizeof(why), "handshake (SET_OWNER) not done within %u s (boot-timeout)",
		 deadline_boot_sec());
	port_vhost_user_conn_close(c, why);
}

/**
 * port_vhost_user_msg_passed() - a message begun was not finished within message-timeout
 * @dl: the connection's @msg
 */
static void port_vhost_user_msg_passed(struct deadline *dl)
{
	struct port_vhost_user_conn *c = container_of(dl, struct port_vhost_user_conn, msg);
	char why[96];

	snprintf(why, sizeof(why), "a message not finished within %u s (message-timeout)",
		 deadline_message_sec());
	port_vhost_user_conn_close(c, why);
}

/**
 * port_vhost_user_serve() - serve a connected socket
 * @p: the port
 * @fd: the socket (non-blocking; owned from here on)
 *
 * Return: the new connection, or NULL (refused or failed, @fd closed).
 */
static struct port_vhost_user_conn *port_vhost_user_serve(struct port *p, int fd)
{
	struct port_vhost_user_conn *c;
	unsigned int qps;

	if (port_peer_refuse(p, fd, "vhost-user front-end"))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		log_err("port %s: vhost-user connection closed: %s", p->cfg.name,
			strerror(ENOMEM));
		close(fd);
		return NULL;
	}
	c->port = p;
	c->fd = fd;
	qps = p->tap->nqueues;
	vhost_user_dev_init(&c->dev, fd, qps, &port_vhost_user_dev_ops, c);
	/* rings of memory: vringfd.ko reaches guest memory through its files */
	vhost_user_dev_map_lazily(&c->dev, p->eng == &engine_kernel_ops &&
				  p->cfg.kernel_rings != CFG_KERNEL_RINGS_PROCESS);
	loop_ref_init(&c->ref, LOOP_REF_PORT_CONN, fd, port_vhost_user_conn_ready);
	if (deadline_init(&c->hs, p->loop, port_vhost_user_hs_passed) < 0 ||
	    deadline_init(&c->msg, p->loop, port_vhost_user_msg_passed) < 0 ||
	    loop_add(p->loop, &c->ref, EPOLLIN) < 0) {
		log_err_errno(errno, "port %s: vhost-user connection closed: epoll/timerfd", p->cfg.name);
		deadline_fini(&c->hs);
		deadline_fini(&c->msg);
		close(fd);
		free(c);
		return NULL;
	}
	deadline_arm(&c->hs, deadline_boot_sec());
	port_peer_served(p, c, fd);
	return c;
}

/**
 * port_vhost_user_attach() - port_peer_ops.attach: serve a connected socket
 * @p: the port
 * @fd: the socket (non-blocking; owned from here on)
 */
static void port_vhost_user_attach(struct port *p, int fd)
{
	port_vhost_user_serve(p, fd);
}

/**
 * port_vhost_user_conn_stats() - port_peer_ops.conn_stats: the running queues' counters
 * @p: the port
 * @conn: the connection
 * @s: accumulator, per queue pair
 */
static void port_vhost_user_conn_stats(struct port *p, void *conn, struct port_stats *s)
{
	struct port_vhost_user_conn *c = conn;
	unsigned int qp;

	for (qp = 0; qp < VHOST_USER_MAX_QUEUE_PAIRS && qp < s->nqp; qp++) {
		struct engine_stats t, r;

		if (!vq_running(&c->q[qp]))
			continue;
		vq_get_stats(&c->q[qp], &t, &r);
		port_stats_add(&s->tx[qp], &t);
		port_stats_add(&s->rx[qp], &r);
	}
}

/**
 * port_vhost_user_conn_memory() - port_peer_ops.conn_memory: the memory table, what is mapped
 * @conn: the connection
 * @total: bytes of its memory table (out)
 * @mapped: of those, mapped in the daemon (out)
 */
static void port_vhost_user_conn_memory(void *conn, uint64_t *total, uint64_t *mapped)
{
	struct port_vhost_user_conn *c = conn;

	*mapped = vhost_user_dev_mapped_bytes(&c->dev, total);
}

/**
 * port_vhost_user_close_conn() - port_peer_ops.close
 * @conn: the connection
 * @why: reason for the log
 */
static void port_vhost_user_close_conn(void *conn, const char *why)
{
	port_vhost_user_conn_close(conn, why);
}

static const struct port_peer_ops port_vhost_user_peer_ops = {
	.attach = port_vhost_user_attach,
	.close = port_vhost_user_close_conn,
	.conn_stats = port_vhost_user_conn_stats,
	.conn_memory = port_vhost_user_conn_memory,
	.max_peers = PORT_PEER_MAX,	/* a migration's source and destination */
};

/**
 * port_vhost_user_accept() - port_ops.accept
 * @p: the port
 * @fd: the new connection
 */
static void port_vhost_user_accept(struct port *p, int fd)
{
	struct port_vhost_user_conn *c;

	if (!port_peer_of(p, &port_vhost_user_peer_ops)) {
		close(fd);
		return;
	}
	c = port_vhost_user_serve(p, fd);
	if (c)
		port_vhost_user_live(c);
}

/**
 * port_vhost_user_connect() - port_ops.connect: client mode
 * @p: the port
 * @later: the first attempt from the loop (port_peer_connect())
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0 (a failed attempt is retried), -1 when the timer cannot be made.
 */
static int port_vhost_user_connect(struct port *p, bool later, char *err, size_t errlen)
{
	return port_peer_connect(p, &port_vhost_user_peer_ops, later, err, errlen);
}

/**
 * port_vhost_user_handover_pause() - port_ops.handover_pause
 * @p: the port
 *
 * Every connection's queue pairs stop (their avail positions stored) and
 * its socket leaves the loop: messages wait in it for the successor.
 */
static void port_vhost_user_handover_pause(struct port *p)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	for (i = 0; pp && i < PORT_PEER_MAX; i++) {
		struct port_vhost_user_conn *c = pp->conns[i];

		if (!c)
			continue;
		vhost_user_dev_pause(&c->dev);
		loop_del(p->loop, &c->ref);
		deadline_stop(&c->hs);
		deadline_stop(&c->msg);
	}
}

/**
 * port_vhost_user_handover_resume() - port_ops.handover_resume
 * @p: the port
 *
 * The hand-over failed: each connection is watched again and its ready
 * queue pairs start from the stored positions (a connection that cannot
 * is closed, logged).
 */
static void port_vhost_user_handover_resume(struct port *p)
{
	struct port_peer *pp = p->priv;
	unsigned int i;

	for (i = 0; pp && i < PORT_PEER_MAX; i++) {
		struct port_vhost_user_conn *c = pp->conns[i];

		if (!c)
			continue;
		if (loop_add(p->loop, &c->ref, EPOLLIN) < 0) {
			port_vhost_user_conn_close(c, "epoll: watching it again after a failed hand-over");
			continue;
		}
		if (!port_vhost_user_handshake_done(c))
			deadline_arm(&c->hs, deadline_boot_sec());
		if (vhost_user_dev_resume(&c->dev) < 0) {
			char why[VHOST_USER_ERR_MAX + 32];

			snprintf(why, sizeof(why), "%s", c->dev.err);
			port_vhost_user_conn_close(c, why);
		}
	}
}

/**
 * port_vhost_user_handover_save() - port_ops.handover_save
 * @p: the port (paused)
 * @st: the state being written
 * @err: message buffer
 * @errlen: its size
 *
 * A client-mode (connect =) connection is saved like an accepted one, for
 * an upgrade and for systemctl restart (restart.c): the next instance
 * serves it and does not connect while it does (port_open()'s
 * connect_later).
 *
 * Return: 0, or -1 with @err filled.
 */
static int port_vhost_user_handover_save(struct port *p, struct handover_state *st, char *err,
					 size_t errlen)
{
	struct port_peer *pp = p->priv;
	struct hovs_vhost_user *v;
	unsigned int i;
	int ret = 0;

	if (!pp || !pp->nconns)
		return 0;
	v = malloc(sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "port %s: %s", p->cfg.name, strerror(ENOMEM));
		return -1;
	}
	for (i = 0; !ret && i < PORT_PEER_MAX; i++) {
		struct port_vhost_user_conn *c = pp->conns[i];

		if (!c)
			continue;
		if (vhost_user_dev_save(&c->dev, v) < 0) {
			snprintf(err, errlen, "port %s: %s", p->cfg.name, c->dev.err);
			ret = -1;
			break;
		}
		snprintf(v->port, sizeof(v->port), "%s", p->cfg.name);
		ret = handover_state_add_vhost_user(st, v);
		if (ret < 0)
			snprintf(err, errlen, "port %s: %s", p->cfg.name, strerror(-ret));
	}
	free(v);
	return ret < 0 ? -1 : 0;
}

/**
 * port_vhost_user_close_record() - close every fd of a record not adopted
 * @v: the record
 * @sock: its socket too
 */
static void port_vhost_user_close_record(const struct hovs_vhost_user *v, bool sock)
{
	unsigned int i;

	if (sock)
		close(v->sock);
	for (i = 0; i < v->nregions; i++)
		close(v->regions[i].fd);
	for (i = 0; i < v->nvrings; i++)
		handover_state_vring_close(&v->vrings[i]);
}

/**
 * port_vhost_user_handover_adopt() - port_ops.handover_adopt
 * @p: the port
 * @v: the predecessor's record of one front-end (fds taken)
 * @err: message buffer
 * @errlen: its size
 *
 * The connection is served as if just accepted, then the front-end's
 * state is replayed (vhost_user_dev_restore()) up to the rings' start:
 * port_vhost_user_handover_start() starts them where the predecessor
 * stopped.
 *
 * Return: 0, or -1 with @err filled (the connection is then closed here,
 * not on the front-end's side: the predecessor still holds it).
 */
static int port_vhost_user_handover_adopt(struct port *p, const struct hovs_vhost_user *v,
					  char *err, size_t errlen)
{
	struct port_peer *pp = port_peer_of(p, &port_vhost_user_peer_ops);
	struct port_vhost_user_conn *c;

	if (!pp || pp->nconns >= PORT_PEER_MAX) {
		snprintf(err, errlen, "port %s: no room for the front-end", p->cfg.name);
		port_vhost_user_close_record(v, true);
		return -1;
	}
	c = port_vhost_user_serve(p, v->sock);
	if (!c) {
		snprintf(err, errlen, "port %s: the front-end's connection could not be served",
			 p->cfg.name);
		port_vhost_user_close_record(v, false);	/* serve closed the socket */
		return -1;
	}
	c->in_vu = true;
	if (vhost_user_dev_restore(&c->dev, v) < 0 || c->deferred[0]) {
		snprintf(err, errlen, "port %s: %s", p->cfg.name,
			 c->deferred[0] ? c->deferred : c->dev.err);
		c->in_vu = false;
		port_vhost_user_conn_close(c, err);
		return -1;
	}
	c->in_vu = false;
	if (port_vhost_user_handshake_done(c))
		deadline_stop(&c->hs);
	return 0;
}

/**
 * port_vhost_user_handover_start() - port_ops.handover_start
 * @p: the port
 * @v: the record port_vhost_user_handover_adopt() rebuilt the connection
 *	from (its kick fds are taken, also on error)
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled (the connection is then closed here).
 */
static int port_vhost_user_handover_start(struct port *p, const struct hovs_vhost_user *v,
					  char *err, size_t errlen)
{
	struct port_peer *pp = p->priv;
	struct port_vhost_user_conn *c = NULL;
	unsigned int i;

	for (i = 0; pp && i < PORT_PEER_MAX && !c; i++)
		if (pp->conns[i] && ((struct port_vhost_user_conn *)pp->conns[i])->fd == v->sock)
			c = pp->conns[i];
	if (!c) {
		snprintf(err, errlen, "port %s: the front-end's connection is gone", p->cfg.name);
		return -1;
	}
	c->in_vu = true;
	if (vhost_user_dev_restore_kicks(&c->dev, v) < 0 || c->deferred[0]) {
		snprintf(err, errlen, "port %s: %s", p->cfg.name,
			 c->deferred[0] ? c->deferred : c->dev.err);
		c->in_vu = false;
		port_vhost_user_conn_close(c, err);
		return -1;
	}
	c->in_vu = false;
	port_vhost_user_live(c);
	log_info("port %s: vhost-user front-end taken over from the previous instance (%llu messages replayed)",
		 p->cfg.name, (unsigned long long)c->dev.messages);
	return 0;
}

const struct port_ops port_vhost_user_ops = {
	.name = "vhost-user",
	.sock_type = SOCK_STREAM,
	.multiqueue = true,
	.restart_keeps = true,
	.accept = port_vhost_user_accept,
	.connect = port_vhost_user_connect,
	.teardown = port_peer_teardown,
	.get_stats = port_peer_get_stats,
	.connections = port_peer_connections,
	.peer_info = port_peer_get_info,
	.handover_pause = port_vhost_user_handover_pause,
	.handover_resume = port_vhost_user_handover_resume,
	.handover_save = port_vhost_user_handover_save,
	.handover_adopt = port_vhost_user_handover_adopt,
	.handover_start = port_vhost_user_handover_start,
};
