// SPDX-License-Identifier: GPL-2.0
/*
 * tap.c - the tap attachment: a vring fd bound to one queue of a tun/tap
 * device (VRINGFD_ATTACH_TAP), through the socket that tun_get_socket() and
 * tap_get_socket() give (the symbols vhost-net uses).  This file attaches,
 * registers and ends; the directions are tap_tx.c (ring -> tap, write())
 * and tap_rx.c (tap -> ring, read()/poll()/write()), the state both share
 * is tap_dev.c's.
 *
 * The tap file is looked up once (fget) and kept until the attachment ends.
 * Accepted: any fd for which tun_get_socket() or tap_get_socket() gives a
 * socket (vhost-net's get_socket(), without raw sockets): /dev/net/tun
 * attached to a device, macvtap/ipvtap character devices.  As with
 * vhost-net, user space configures the tap (IFF_TAP, IFF_NO_PI,
 * IFF_VNET_HDR, TUNSETVNETHDRSZ, offloads); the module issues no ioctl on
 * it and reads none of its settings.  The ring's header length is the
 * caller's declaration of what the tap uses.  A tap configured otherwise
 * (IFF_TUN, packet information, another header size, changed after
 * attach) gives garbage frames or drops, never memory unsafety (tap_tx.c
 * and tap_rx.c say why for each direction).
 * The caller may name the device (@ifindex, looked up in its network
 * namespace, which the attachment holds with get_net()) for the
 * tap_rx_dropped stat; no device reference is held.
 *
 * Bad input of VRINGFD_ATTACH_TAP (see also the uapi header):
 *   tap_fd not open                         -EBADF
 *   not a tun/tap/macvtap fd                -EINVAL
 *   dir not TX/RX, vnet_hdr_len not 0/10/12, unknown flag, MRG_RXBUF
 *   without a 12-byte header, padding or reserved != 0, ifindex < 0
 *                                           -EINVAL
 *   header length differs from the one the other ring on the same queue
 *   declared                                -EINVAL
 *   tun fd not attached to a device         -ENODEV
 *   ifindex > 0 not found in the caller's network namespace
 *                                           -ENODEV
 *   ring already attached                   -EBUSY
 *   that queue already has a ring of @dir   -EBUSY
 *   IFF_TUN, no IFF_NO_PI, a header size other than declared
 *                                           accepted (see above)
 *
 * The tap going away (ip link del): write()/read() fail with EPIPE,
 * poll() reports EPOLLERR|EPOLLHUP, VRINGFD_STATE_HUP is set.  tun says so
 * itself (EBADFD, EPOLLERR); tap.ko (macvtap, ipvtap) says nothing (its
 * write() drops, its read() waits), so the device of a macvtap/ipvtap
 * queue is found at attach and watched with a netdevice notifier
 * (vrfd_tap_netdev_event()).  A macvtap/ipvtap fd whose device is gone
 * is refused at attach with -ENODEV.  Closing the
 * caller's tap fd changes nothing: the ring holds its own reference to the
 * file (as vhost-net), so the queue keeps working until detach.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/errno.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/if_tap.h>
#include <linux/if_tun.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/ptr_ring.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/virtio_net.h>
#include <net/net_namespace.h>
#include <linux/vringfd.h>
#include "kick.h"
#include "ring.h"
#include "tap.h"
#include "tap_dev.h"
#include "tap_rx.h"
#include "tap_tx.h"

/**
 * struct vrfd_tap_reg - registry entry: the rings attached to one tap queue
 * @node: in vrfd_tap_reg_list
 * @sock: the queue's socket (the key)
 * @tap: the attachment of each direction, or NULL
 * @hdr_len: virtio-net header length shared by both directions
 * @dev: macvtap/ipvtap: the queue's network device, found at attach under
 *	RTNL; never dereferenced, only compared with the device
 *	vrfd_tap_netdev_event() is told about (under vrfd_tap_reg_lock), and
 *	cleared there when it is unregistered.  NULL for tun, or once gone
 */
struct vrfd_tap_reg {
	struct list_head node;
	struct socket *sock;
	struct vrfd_tap *tap[2];
	unsigned int hdr_len;
	struct net_device *dev;
};

static LIST_HEAD(vrfd_tap_reg_list);
static DEFINE_MUTEX(vrfd_tap_reg_lock);

/* VRINGFD_CAP_TAP_IFINDEX carved ifindex and padding out of reserved[0]. */
static_assert(sizeof(struct vringfd_tap) == 32);
static_assert(offsetof(struct vringfd_tap, ifindex) == 16);
static_assert(offsetof(struct vringfd_tap, reserved) == 24);

/**
 * vrfd_tap_get_socket() - the socket of a tun or tap (macvtap/ipvtap) file
 * @file: any file
 * @is_tun: set to true for a tun file
 *
 * The symbols are looked up at run time so that vringfd.ko loads without
 * tun.ko and tap.ko; a file of either keeps its module loaded.
 * Return: the socket, ERR_PTR(-EINVAL) (neither), ERR_PTR(-ENODEV) (a tun
 * file not attached to a device).
 */
static struct socket *vrfd_tap_get_socket(struct file *file, bool *is_tun)
{
	struct socket *(*get)(struct file *file);
	struct socket *sock = ERR_PTR(-EINVAL);

	get = symbol_get(tun_get_socket);
	if (get) {
		sock = get(file);
		symbol_put(tun_get_socket);
		if (!IS_ERR(sock)) {
			*is_tun = true;
			return sock;
		}
		if (PTR_ERR(sock) == -EBADFD)
			return ERR_PTR(-ENODEV);
	}
	get = symbol_get(tap_get_socket);
	if (get) {
		sock = get(file);
		symbol_put(tap_get_socket);
		if (!IS_ERR(sock)) {
			*is_tun = false;
			return sock;
		}
		if (PTR_ERR(sock) == -EBADFD)
			return ERR_PTR(-ENODEV);
	}
	return ERR_PTR(-EINVAL);
}

/**
 * vrfd_tap_get_ring() - the tap's queue of frames for user space
 * @file: a tun or tap file (already recognised)
 * @is_tun: which
 *
 * Return: the ptr_ring, or NULL (then frames are taken one recvmsg() at a
 * time).
 */
static struct ptr_ring *vrfd_tap_get_ring(struct file *file, bool is_tun)
{
	struct ptr_ring *(*get)(struct file *file);
	struct ptr_ring *ring = NULL;

	if (is_tun) {
		get = symbol_get(tun_get_tx_ring);
		if (get) {
			ring = get(file);
			symbol_put(tun_get_tx_ring);
		}
	} else {
		get = symbol_get(tap_get_ptr_ring);
		if (get) {
			ring = get(file);
			symbol_put(tap_get_ptr_ring);
		}
	}
	return IS_ERR_OR_NULL(ring) ? NULL : ring;
}

/**
 * vrfd_tap_push() - write() on the ring
 * @data: the attachment
 *
 * TX: send every available chain.  RX: a kick: pull now.
 * Return: chains consumed / buffers used, or -errno.
 */
static int vrfd_tap_push(void *data)
{
	struct vrfd_tap *t = data;

	if (t->dir == VRINGFD_DIR_TX)
		return vrfd_tap_tx_push(t);
	return vrfd_tap_rx_pull(t, NULL);
}

/**
 * vrfd_tap_pull() - poll() and read() on the ring
 * @data: the attachment
 *
 * RX: fill posted buffers.  TX: nothing to pull (frames are sent by
 * write()), but a tap that went away is reported.
 * Return: buffers used, or -errno (-EPIPE: the tap went away).
 */
static int vrfd_tap_pull(void *data)
{
	struct vrfd_tap *t = data;

	if (t->dir == VRINGFD_DIR_RX)
		return vrfd_tap_rx_pull(t, NULL);
	return vrfd_tap_dev_check_gone(t) ? -EPIPE : 0;
}

/**
 * vrfd_tap_poll() - extra poll() events: EPOLLERR|EPOLLHUP once the tap is gone
 * @data: the attachment
 * @file: the vring fd's file
 * @wait: poll table (unused: our entry on the tap's wait queue wakes the
 *	ring's own queue)
 *
 * Return: EPOLLERR|EPOLLHUP or 0.
 */
static __poll_t vrfd_tap_poll(void *data, struct file *file, poll_table *wait)
{
	struct vrfd_tap *t = data;

	return vrfd_tap_dev_check_gone(t) ? EPOLLERR | EPOLLHUP : 0;
}

/**
 * vrfd_tap_wake() - the tap's wait queue was woken: wake the ring's waiters
 * @wait: our entry
 * @mode: unused
 * @sync: unused
 * @key: the events (the ring's poll() finds out; kick mode looks)
 *
 * In kick mode the worker serves the ring too (vrfd_kick_tap_woken()).
 * Context: any (the tap's wait queue lock is held).
 * Return: 0.
 */
static int vrfd_tap_wake(wait_queue_entry_t *wait, unsigned int mode, int sync,
			 void *key)
{
	struct vrfd_tap *t = container_of(wait, struct vrfd_tap, wait);

	/*
	 * tun deleted: tun_detach_all() sets RCV_SHUTDOWN and wakes with
	 * EPOLLIN only (never EPOLLERR/EPOLLHUP), which a watcher of errors
	 * alone, or an idle TX ring in kick mode, would not see: mark the
	 * tap gone here, so poll() reports it at once.
	 */
	if (t->is_tun && (READ_ONCE(t->sock->sk->sk_shutdown) & RCV_SHUTDOWN))
		vrfd_tap_dev_set_gone(t);
	vrfd_ring_wake(t->ring);
	vrfd_kick_tap_woken(t, key_to_poll(key));
	return 0;
}

/**
 * vrfd_tap_queue_proc() - poll table callback: join the tap's wait queue
 * @file: the tap file
 * @whead: its wait queue
 * @pt: our poll table
 */
static void vrfd_tap_queue_proc(struct file *file, wait_queue_head_t *whead,
				poll_table *pt)
{
	struct vrfd_tap *t = container_of(pt, struct vrfd_tap, pt);

	if (t->whead)
		return;
	t->whead = whead;
	add_wait_queue(whead, &t->wait);
}

/**
 * vrfd_tap_quiesce() - after this no wake-up of the tap reaches @t, no
 * kick-mode run of it is queued or running, and the frames it took from
 * tun's queue but did not deliver are back there (idempotent)
 * @t: the attachment
 */
static void vrfd_tap_quiesce(struct vrfd_tap *t)
{
	if (t->whead)
		remove_wait_queue(t->whead, &t->wait);
	t->whead = NULL;
	/* after the tap's wake-ups: none can queue the worker again */
	vrfd_kick_stop(t);
	vrfd_tap_rx_unbatch(t);
}

/**
 * vrfd_tap_free() - release everything an attachment holds (not the ring)
 * @t: the attachment (its registry entry already removed)
 */
static void vrfd_tap_free(struct vrfd_tap *t)
{
	vrfd_tap_quiesce(t);
	vrfd_tap_tx_free(t);
	if (t->file)
		fput(t->file);
	if (t->net)
		put_net(t->net);
	kvfree(t->bounce);
	kvfree(t->iov);
	kvfree(t);
}

/**
 * vrfd_tap_reg_remove() - take @t out of the registry
 * @t: the attachment
 */
static void vrfd_tap_reg_remove(struct vrfd_tap *t)
{
	struct vrfd_tap_reg *q = t->q;

	if (!q)
		return;
	mutex_lock(&vrfd_tap_reg_lock);
	q->tap[t->dir] = NULL;
	if (!q->tap[!t->dir]) {
		list_del(&q->node);
		kfree(q);
	}
	mutex_unlock(&vrfd_tap_reg_lock);
	t->q = NULL;
}

/**
 * vrfd_tap_reg_add() - register @t on its queue
 * @t: the attachment (sock, dir, hdr_len set)
 * @dev: macvtap/ipvtap: the queue's device (the caller holds RTNL, under
 *	which it was found registered), else NULL
 *
 * Return: 0, -EBUSY (the queue has a ring of this direction), -EINVAL (the
 * other direction uses another header length), -ENOMEM.
 */
static int vrfd_tap_reg_add(struct vrfd_tap *t, struct net_device *dev)
{
	struct vrfd_tap_reg *q;
	int err = 0;

	mutex_lock(&vrfd_tap_reg_lock);
	list_for_each_entry(q, &vrfd_tap_reg_list, node) {
		if (q->sock != t->sock)
			continue;
		if (q->tap[t->dir])
			err = -EBUSY;
		else if (q->hdr_len != t->hdr_len)
			err = -EINVAL;
		else
			q->tap[t->dir] = t;
		goto out;
	}
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		err = -ENOMEM;
		goto out;
	}
	q->sock = t->sock;
	q->hdr_len = t->hdr_len;
	q->dev = dev;
	q->tap[t->dir] = t;
	list_add(&q->node, &vrfd_tap_reg_list);
out:
	if (!err)
		t->q = q;
	mutex_unlock(&vrfd_tap_reg_lock);
	return err;
}

/**
 * vrfd_tap_destroy() - the vring fd is closed or detached: let the tap go
 * @data: the attachment
 */
static void vrfd_tap_destroy(void *data)
{
	struct vrfd_tap *t = data;
	struct vrfd_ring *ring = t->ring;

	/*
	 * The kick-mode worker ends before the queue is free for another
	 * ring: two rings never feed one tap queue, and frames an RX run
	 * took are back in tun's queue before a new ring reads it.
	 */
	vrfd_tap_quiesce(t);
	vrfd_tap_reg_remove(t);
	vrfd_tap_free(t);
	vrfd_ring_detach(ring);
}

static const struct vrfd_ops vrfd_tap_ops = {
	.destroy = vrfd_tap_destroy,
	.pull = vrfd_tap_pull,
	.push = vrfd_tap_push,
	.poll = vrfd_tap_poll,
	.mem_files = true,
};

/**
 * vrfd_tap_find_dev() - check the caller's @ifindex, keep it for the stats
 * @t: the attachment
 * @ifindex: struct vringfd_tap.ifindex (> 0)
 *
 * The device is looked up in the caller's network namespace, which the
 * attachment holds (get_net()): the caller's namespace may die (with the
 * device) while the ring lives.  No device reference is kept: the ifindex
 * is looked up again at each drop-counter refresh, and it is used for
 * nothing else.
 * Return: 0, or -ENODEV (no such device).
 */
static int vrfd_tap_find_dev(struct vrfd_tap *t, int ifindex)
{
	struct net *net = current->nsproxy->net_ns;
	struct net_device *dev;

	dev = dev_get_by_index(net, ifindex);
	if (!dev)
		return -ENODEV;
	dev_put(dev);
	t->net = get_net(net);
	t->ifindex = ifindex;
	return 0;
}

/**
 * vrfd_tap_match_devt() - device_find_child() match: the device numbered @data
 * @d: a child device
 * @data: the dev_t wanted
 *
 * Return: 1 when @d has that number.
 */
static int vrfd_tap_match_devt(struct device *d, void *data)
{
	return d->devt == *(dev_t *)data;
}

/**
 * vrfd_tap_vtap_dev() - the network device of a macvtap/ipvtap file
 * @file: the character device file (/dev/tapN)
 *
 * macvtap and ipvtap give each device a character device whose number is
 * the file's i_rdev, registered as a child of the network device's own
 * struct device (whatever its network namespace).  tap.ko keeps the
 * queue's device to itself and tells nothing when it goes, so the
 * attachment watches the device found here.
 * Context: RTNL held: the device found stays registered until it is
 * released (and vrfd_tap_netdev_event() runs before it goes).
 * Return: the device, or NULL (none: gone, or being unregistered).
 */
static struct net_device *vrfd_tap_vtap_dev(struct file *file)
{
	dev_t devt = file_inode(file)->i_rdev;
	struct net_device *dev, *found = NULL;
	struct device *child;
	struct net *net;

	ASSERT_RTNL();
	if (!S_ISCHR(file_inode(file)->i_mode))
		return NULL;
	down_read(&net_rwsem);
	for_each_net(net) {
		for_each_netdev(net, dev) {
			if (dev->reg_state != NETREG_REGISTERED)
				continue;
			child = device_find_child(&dev->dev, &devt,
						  vrfd_tap_match_devt);
			if (child) {
				put_device(child);
				found = dev;
				goto out;
			}
		}
	}
out:
	up_read(&net_rwsem);
	return found;
}

/**
 * vrfd_tap_netdev_event() - a macvtap/ipvtap device is unregistered: the
 * rings attached to its queues report the end
 * @nb: vrfd_tap_notifier
 * @event: NETDEV_*
 * @ptr: struct netdev_notifier_info
 *
 * Only a real unregistration counts (reg_state NETREG_UNREGISTERING): a
 * device moved to another network namespace gets NETDEV_UNREGISTER too,
 * and its queues keep working.
 * Context: RTNL held.
 * Return: NOTIFY_DONE.
 */
static int vrfd_tap_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct vrfd_tap_reg *q;
	unsigned int d;

	if (event != NETDEV_UNREGISTER || dev->reg_state != NETREG_UNREGISTERING)
		return NOTIFY_DONE;
	mutex_lock(&vrfd_tap_reg_lock);
	list_for_each_entry(q, &vrfd_tap_reg_list, node) {
		if (q->dev != dev)
			continue;
		q->dev = NULL;
		for (d = 0; d < ARRAY_SIZE(q->tap); d++)
			if (q->tap[d])
				vrfd_tap_dev_set_gone(q->tap[d]);
	}
	mutex_unlock(&vrfd_tap_reg_lock);
	return NOTIFY_DONE;
}

static struct notifier_block vrfd_tap_notifier = {
	.notifier_call = vrfd_tap_netdev_event,
};

/**
 * vrfd_tap_init() - start watching network devices (module init)
 *
 * Return: 0 or -errno.
 */
int vrfd_tap_init(void)
{
	return register_netdevice_notifier(&vrfd_tap_notifier);
}

/**
 * vrfd_tap_exit() - stop watching network devices (module exit; no
 * attachment is left: each vring fd holds the module)
 */
void vrfd_tap_exit(void)
{
	unregister_netdevice_notifier(&vrfd_tap_notifier);
}

/**
 * vrfd_tap_attach() - attach @ring to the tap queue described at @arg
 * @ring: an unattached vring
 * @arg: user pointer to struct vringfd_tap
 *
 * Return: 0, or -errno (see VRINGFD_ATTACH_TAP and the table at the top of
 * this file).
 */
long vrfd_tap_attach(struct vrfd_ring *ring, const struct vringfd_tap __user *arg)
{
	struct vringfd_tap a;
	struct vrfd_tap *t;
	long err;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	if (a.dir > VRINGFD_DIR_RX || a.padding || a.reserved || a.ifindex < 0 ||
	    (a.flags & ~VRINGFD_TAP_F_MRG_RXBUF))
		return -EINVAL;
	if (a.vnet_hdr_len != 0 && a.vnet_hdr_len != sizeof(struct virtio_net_hdr) &&
	    a.vnet_hdr_len != sizeof(struct virtio_net_hdr_v1))
		return -EINVAL;
	if ((a.flags & VRINGFD_TAP_F_MRG_RXBUF) &&
	    a.vnet_hdr_len != sizeof(struct virtio_net_hdr_v1))
		return -EINVAL;
	err = vrfd_ring_check(ring);
	if (err)
		return err;

	t = kvzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	t->ring = ring;
	t->dir = a.dir;
	t->hdr_len = a.vnet_hdr_len;
	t->mrg = a.flags & VRINGFD_TAP_F_MRG_RXBUF;
	t->drops_jiffies = jiffies - 1;
	init_waitqueue_func_entry(&t->wait, vrfd_tap_wake);
	init_poll_funcptr(&t->pt, vrfd_tap_queue_proc);
	vrfd_kick_init(t);

	t->file = fget(a.tap_fd);
	if (!t->file) {
		err = -EBADF;
		goto err_free;
	}
	t->sock = vrfd_tap_get_socket(t->file, &t->is_tun);
	if (IS_ERR(t->sock)) {
		err = PTR_ERR(t->sock);
		t->sock = NULL;
		goto err_free;
	}

	if (a.ifindex) {
		err = vrfd_tap_find_dev(t, a.ifindex);
		if (err)
			goto err_free;
	}

	if (t->dir == VRINGFD_DIR_RX)
		t->rxring = vrfd_tap_get_ring(t->file, t->is_tun);

	err = -ENOMEM;
	t->iov = kvmalloc_array(VRFD_TAP_MAX_IOV, sizeof(*t->iov), GFP_KERNEL_ACCOUNT);
	if (!t->iov)
		goto err_free;
	if (t->dir == VRINGFD_DIR_TX) {
		t->bounce = kvmalloc(VRFD_TAP_MAX_FRAME + t->hdr_len, GFP_KERNEL_ACCOUNT);
		if (!t->bounce)
			goto err_free;
	}

	/* join the tap's wait queue: its frames and its end wake our poll() */
	vfs_poll(t->file, &t->pt);
	if (!t->whead) {
		err = -ENODEV;	/* tun answers EPOLLERR at once: no device */
		goto err_free;
	}
	/*
	 * A macvtap/ipvtap queue: find its device and register the queue
	 * under RTNL, so that the device's unregistration, whenever it
	 * comes, finds the entry.
	 */
	if (!t->is_tun) {
		struct net_device *dev;

		rtnl_lock();
		dev = vrfd_tap_vtap_dev(t->file);
		err = dev ? vrfd_tap_reg_add(t, dev) : -ENODEV;
		rtnl_unlock();
	} else {
		err = vrfd_tap_reg_add(t, NULL);
	}
	if (err)
		goto err_free;
	err = vrfd_ring_attach(ring, &vrfd_tap_ops, t, false);
	if (err)
		goto err_unregister;
	return 0;

err_unregister:
	vrfd_tap_reg_remove(t);
err_free:
	vrfd_tap_free(t);
	/* tun answers EBADFD when its device goes away during the attach */
	return err == -EBADFD ? -ENODEV : err;
}

/**
 * vrfd_tap_set_kick() - VRINGFD_SET_KICK: kick mode of a ring of memory
 * attached to a tap
 * @ring: the ring
 * @arg: user pointer to a __s32 eventfd, or -1 to leave kick mode
 *
 * Under @attach_sem for writing: no callback, end or detach runs
 * meanwhile, and the attachment found stays until kick.c is done.
 * Return: 0, or -errno: -EFAULT, -EINTR (a fatal signal while waiting
 * for a running call), -EIO (broken or released), -EOPNOTSUPP (not a
 * ring of memory), -EINVAL (not attached to a tap; @arg not an eventfd),
 * -EBADF (@arg not an open fd).
 */
long vrfd_tap_set_kick(struct vrfd_ring *ring, const __s32 __user *arg)
{
	long err;
	s32 fd;

	if (get_user(fd, arg))
		return -EFAULT;
	if (down_write_killable(&ring->attach_sem))
		return -EINTR;
	if (READ_ONCE(ring->dead) || READ_ONCE(ring->broken))
		err = -EIO;
	else if (!READ_ONCE(ring->kmem))
		err = -EOPNOTSUPP;
	else if (ring->ops != &vrfd_tap_ops)	/* NULL once ended too */
		err = -EINVAL;
	else
		err = vrfd_kick_set(ring->data, fd);
	up_write(&ring->attach_sem);
	return err;
}
