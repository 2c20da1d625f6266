// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tap.c - create, adopt and delete tap devices through /dev/net/tun
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdstore.h"
#include "log.h"
#include "tap.h"

#define TAP_TUN_DEVICE	"/dev/net/tun"

/**
 * tap_exists() - whether a network interface of this name exists
 * @name: interface name
 *
 * Return: true if it exists (of any kind).
 */
bool tap_exists(const char *name)
{
	return if_nametoindex(name) != 0;
}

/**
 * tap_get_mtu() - the device's current MTU
 * @tap: an open tap
 *
 * Read from the kernel each time (SIOCGIFMTU on a unix datagram socket, as
 * if_nametoindex() does), so a change made with ip link is seen.
 *
 * Return: the MTU, or a negative errno.
 */
int tap_get_mtu(const struct tap_dev *tap)
{
	struct ifreq ifr;
	int fd, ret;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", tap->name);
	ret = ioctl(fd, SIOCGIFMTU, &ifr) < 0 ? -errno : ifr.ifr_mtu;
	close(fd);
	return ret;
}

/**
 * tap_send_rarp() - send a RARP frame for @mac out of the tap's first queue
 * @tap: an open tap
 * @mac: the source MAC (a guest's)
 *
 * The frame QEMU and DPDK send to announce a migrated guest: broadcast,
 * EtherType 0x8035, a reverse request whose sender and target hardware
 * address are @mac, padded to 60 bytes; behind a zero virtio-net header.
 * It enters the host as if the guest had sent it.
 *
 * Return: 0, or a negative errno (write(): -EAGAIN when the tap's queue is
 * full, -EIO when the device is down).
 */
int tap_send_rarp(const struct tap_dev *tap, const uint8_t mac[6])
{
	uint8_t buf[TAP_VNET_HDR_LEN + 60] = { 0 };
	uint8_t *eth = buf + TAP_VNET_HDR_LEN;
	static const uint8_t arp_head[8] = {
		0x00, 0x01,	/* hardware: Ethernet */
		0x08, 0x00,	/* protocol: IPv4 */
		6, 4,		/* address lengths */
		0x00, 0x03,	/* operation: reverse request */
	};

	if (!tap->nqueues)
		return -ENODEV;
	memset(eth, 0xff, 6);
	memcpy(eth + 6, mac, 6);
	eth[12] = 0x80;
	eth[13] = 0x35;
	memcpy(eth + 14, arp_head, sizeof(arp_head));
	memcpy(eth + 22, mac, 6);	/* sender hardware address; IPv4 0 */
	memcpy(eth + 32, mac, 6);	/* target hardware address; IPv4 0 */
	if (write(tap->fds[0], buf, sizeof(buf)) < 0)
		return -errno;
	return 0;
}

/**
 * tap_set_vnet_hdr_len() - set a tap queue's virtio-net header size
 * @fd: the tap queue (IFF_VNET_HDR)
 * @len: 10 or 12 (TUNSETVNETHDRSZ)
 * @who: what asks, for the message ("tap vrn0", "user engine", ...)
 * @err: message buffer
 * @errlen: its size
 *
 * The one place the size is set: tap_open() (TAP_VNET_HDR_LEN) and the
 * engines before they start a queue (the rings' size, which vringfd.ko
 * takes as the tap's).
 * Return: 0, or -1 with @err filled.
 */
int tap_set_vnet_hdr_len(int fd, unsigned int len, const char *who, char *err, size_t errlen)
{
	int sz = (int)len;

	if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0) {
		log_buf_errno(err, errlen, errno, "%s: TUNSETVNETHDRSZ %d on the tap", who, sz);
		return -1;
	}
	return 0;
}

/**
 * tap_open_queue() - open /dev/net/tun and attach it to the device
 * @name: interface name
 * @flags: IFF_* flags for TUNSETIFF
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the fd, or -1 with @err filled.
 */
static int tap_open_queue(const char *name, short flags, char *err, size_t errlen)
{
	char who[CFG_NAME_MAX + 8];
	struct ifreq ifr;
	int fd;

	fd = open(TAP_TUN_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		log_buf_errno(err, errlen, errno, "tap %s: open %s", name, TAP_TUN_DEVICE);
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = flags;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		if (e == EINVAL && tap_exists(name))
			snprintf(err, errlen,
				 "tap %s: TUNSETIFF: %s (an interface of this name exists and is not a %s tap)",
				 name, strerror(e),
				 (flags & IFF_MULTI_QUEUE) ? "multi-queue" : "single-queue");
		else
			snprintf(err, errlen, "tap %s: TUNSETIFF: %s", name, strerror(e));
		close(fd);
		return -1;
	}
	snprintf(who, sizeof(who), "tap %s", name);
	if (tap_set_vnet_hdr_len(fd, TAP_VNET_HDR_LEN, who, err, errlen) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * tap_restore_check() - whether a stored queue fd is what its name says
 * @name: interface name
 * @fdname: its fd name, for the log
 * @fd: the fd
 * @flags: the IFF_* flags tap_open() would set
 * @persist: out: whether the device is persistent (IFF_PERSIST)
 *
 * TUNGETIFF must say it is still attached to a tap of @name with @flags (a
 * device deleted or re-created while the daemon was down is not); it then
 * gets the header size and O_NONBLOCK.  A refusal is logged.
 *
 * Return: true when @fd can serve as the queue.
 */
static bool tap_restore_check(const char *name, const char *fdname, int fd, short flags,
			      bool *persist)
{
	const short want = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | IFF_MULTI_QUEUE;
	char why[CFG_ERR_MAX];
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0) {
		log_notice_errno(errno, "tap %s: stored fd \"%s\" is no longer attached (TUNGETIFF); closing it",
				 name, fdname);
		return false;
	}
	if (strncmp(ifr.ifr_name, name, sizeof(ifr.ifr_name)) || (ifr.ifr_flags & want) != flags) {
		log_notice("tap %s: stored fd \"%s\" belongs to %.*s with flags 0x%x, not 0x%x; closing it",
			   name, fdname, (int)sizeof(ifr.ifr_name), ifr.ifr_name,
			   (unsigned int)(ifr.ifr_flags & want), (unsigned int)flags);
		return false;
	}
	if (tap_set_vnet_hdr_len(fd, TAP_VNET_HDR_LEN, fdname, why, sizeof(why)) < 0) {
		log_notice("%s; closing it", why);
		return false;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
		log_notice_errno(errno, "tap %s: stored fd \"%s\": O_NONBLOCK; closing it", name, fdname);
		return false;
	}
	*persist = ifr.ifr_flags & IFF_PERSIST;
	return true;
}

/**
 * tap_restore_queue() - take a queue fd of the tap from systemd's fd store
 * @name: interface name
 * @queue: queue index
 * @flags: the IFF_* flags tap_open() would set
 * @persist: out: whether the device is persistent (IFF_PERSIST)
 *
 * The first stored copy tap_restore_check() accepts is used (systemd may
 * pass more than one, fdstore_passed_twice()); a refused one is closed.
 * When copies were passed and none served, the name leaves the store.
 *
 * Return: the fd (non-blocking, header size TAP_VNET_HDR_LEN), or -1.
 */
static int tap_restore_queue(const char *name, unsigned int queue, short flags, bool *persist)
{
	char fdname[FDSTORE_NAME_MAX + 1];
	bool passed = false;
	int fd;

	if (fdstore_name_tap(fdname, sizeof(fdname), name, queue) < 0)
		return -1;
	while ((fd = fdstore_take(fdname)) >= 0) {
		if (tap_restore_check(name, fdname, fd, flags, persist))
			return fd;
		close(fd);
		passed = true;
	}
	if (passed)
		fdstore_remove(fdname);
	return -1;
}

/**
 * tap_store() - put every new queue fd into systemd's fd store ("tap.NAME.Q")
 * @tap: an open tap
 * @restored: which queues came from the store
 *
 * A restored queue is in the store already and is not stored again:
 * without kcmp(2) (a kernel without CONFIG_CHECKPOINT_RESTORE) systemd
 * cannot see that it holds the same file and keeps a second copy, which
 * the next start closes as unused -- and that start's FDSTOREREMOVE took
 * the kept copy with it, so the restart after lost the tap.  A queue
 * systemd passed twice (fdstore_passed_twice()) is removed and stored
 * once more, alone.
 */
static void tap_store(struct tap_dev *tap, const bool *restored)
{
	char fdname[FDSTORE_NAME_MAX + 1];
	unsigned int i;

	tap->stored = tap->nqueues > 0;
	for (i = 0; i < tap->nqueues; i++) {
		if (fdstore_name_tap(fdname, sizeof(fdname), tap->name, i) < 0) {
			tap->stored = false;
			continue;
		}
		if (restored[i] && !fdstore_passed_twice(fdname))
			continue;
		if (restored[i])
			fdstore_remove(fdname);
		if (!fdstore_put(fdname, tap->fds[i]))
			tap->stored = false;
	}
}

/**
 * tap_unstore() - remove the tap's queues from systemd's fd store
 * @tap: a tap (open or not)
 *
 * For a tap that leaves the configuration: once the daemon closes its
 * fds, nothing holds a non-persistent device any more.
 */
void tap_unstore(struct tap_dev *tap)
{
	char fdname[FDSTORE_NAME_MAX + 1];
	unsigned int i;

	tap->stored = false;
	for (i = 0; i < CFG_MAX_QUEUES; i++)
		if (fdstore_name_tap(fdname, sizeof(fdname), tap->name, i) == 0)
			fdstore_remove(fdname);
}

/**
 * tap_open() - create (or adopt) a tap as the configuration says
 * @tap: filled on success
 * @cfg: the [tap NAME] section
 * @err: message buffer
 * @errlen: its size
 *
 * Opens @cfg->queues queues, sets the persist flag and the owner/group.
 * A queue systemd passed back from its fd store (a restart) is used instead
 * of a new one; the queues end up in the store (tap_store()).
 * Link settings (MTU, MAC, addresses, bridge) are netlink's job (netlink.h).
 *
 * Return: 0, or -1 with @err filled and nothing left behind (a device we
 * created is gone again; an adopted one keeps its old persist flag).
 */
int tap_open(struct tap_dev *tap, const struct config_tap *cfg,
	     char *err, size_t errlen)
{
	short flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	unsigned int i, queues = cfg->queues ? cfg->queues : 1;
	bool restored[CFG_MAX_QUEUES] = { false };

	memset(tap, 0, sizeof(*tap));
	for (i = 0; i < CFG_MAX_QUEUES; i++)
		tap->fds[i] = -1;
	snprintf(tap->name, sizeof(tap->name), "%s", cfg->name);
	if (queues > CFG_MAX_QUEUES) {
		snprintf(err, errlen, "tap %s: %u queues (at most %d)", cfg->name,
			 queues, CFG_MAX_QUEUES);
		return -1;
	}
	if (queues > 1)
		flags |= IFF_MULTI_QUEUE;
	tap->adopted = tap_exists(cfg->name);
	/* An adopted tap was persistent (else it could not exist without
	 * an fd); it stays so until we say otherwise. */
	tap->persist = tap->adopted;
	for (i = 0; i < queues; i++) {
		tap->fds[i] = tap_restore_queue(cfg->name, i, flags, &tap->persist);
		if (tap->fds[i] >= 0) {
			tap->restored++;
			restored[i] = true;
		} else {
			tap->fds[i] = tap_open_queue(cfg->name, flags, err, errlen);
			if (tap->fds[i] < 0)
				goto fail;
		}
		tap->nqueues++;
	}
	/* a device kept alive by the fd store was created by us */
	if (tap->restored)
		tap->adopted = false;
	tap->ifindex = (int)if_nametoindex(cfg->name);
	if (tap_set_persist(tap, cfg->persist, err, errlen) < 0)
		goto fail;
	if (tap_set_owner(tap, cfg->owner_uid, cfg->group_gid, err, errlen) < 0)
		goto fail;
	tap_store(tap, restored);
	log_info("tap %s: %s, %u queue%s, ifindex %d%s", tap->name,
		 tap->restored ? "restored from the fd store" :
		 tap->adopted ? "adopted" : "created", tap->nqueues,
		 tap->nqueues == 1 ? "" : "s", tap->ifindex,
		 cfg->persist ? ", persistent" : "");
	return 0;
fail:
	/*
	 * Leave the device as we found it: a tap we created and already made
	 * persistent would outlive the close; an adopted one whose persist
	 * flag we already cleared would vanish with it.
	 */
	if (tap->persist != tap->adopted) {
		char why[CFG_ERR_MAX];

		if (tap_set_persist(tap, tap->adopted, why, sizeof(why)) < 0)
			log_warn("%s (undoing a failed open)", why);
	}
	tap_unstore(tap);
	tap_close(tap);
	return -1;
}

/**
 * tap_set_persist() - set or clear TUNSETPERSIST
 * @tap: an open tap
 * @persist: the wanted state
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
int tap_set_persist(struct tap_dev *tap, bool persist, char *err, size_t errlen)
{
	if (!tap->nqueues)
		return 0;
	if (ioctl(tap->fds[0], TUNSETPERSIST, (unsigned long)persist) < 0) {
		log_buf_errno(err, errlen, errno, "tap %s: TUNSETPERSIST %d", tap->name,
			 persist);
		return -1;
	}
	tap->persist = persist;
	return 0;
}

/**
 * tap_set_owner() - set the user and group allowed to use the device
 * @tap: an open tap
 * @uid: owner, (uid_t)-1 for none
 * @gid: group, (gid_t)-1 for none
 * @err: message buffer
 * @errlen: its size
 *
 * tun refuses an invalid id, so "none" cannot be set back on a device
 * that has an owner: (uid_t)-1 / (gid_t)-1 leave the device as it is.
 *
 * Return: 0, or -1 with @err filled.
 */
int tap_set_owner(struct tap_dev *tap, uid_t uid, gid_t gid,
		  char *err, size_t errlen)
{
	if (!tap->nqueues)
		return 0;
	if (uid != (uid_t)-1 && ioctl(tap->fds[0], TUNSETOWNER, (unsigned long)uid) < 0) {
		log_buf_errno(err, errlen, errno, "tap %s: TUNSETOWNER %ld", tap->name,
			 (long)(int)uid);
		return -1;
	}
	if (gid != (gid_t)-1 && ioctl(tap->fds[0], TUNSETGROUP, (unsigned long)gid) < 0) {
		log_buf_errno(err, errlen, errno, "tap %s: TUNSETGROUP %ld", tap->name,
			 (long)(int)gid);
		return -1;
	}
	return 0;
}

/**
 * tap_close() - close every queue; a non-persistent tap disappears
 * @tap: the tap (already closed is fine)
 *
 * Copies in systemd's fd store are left alone (a stop or crash keeps them
 * for the next instance); tap_unstore() removes them.
 */
void tap_close(struct tap_dev *tap)
{
	unsigned int i;

	for (i = 0; i < CFG_MAX_QUEUES; i++) {
		if (tap->fds[i] >= 0)
			close(tap->fds[i]);
		tap->fds[i] = -1;
	}
	tap->nqueues = 0;
}

/**
 * tap_destroy() - delete the device even if it is persistent (and drop it
 *		   from the fd store)
 * @tap: an open tap
 */
void tap_destroy(struct tap_dev *tap)
{
	char err[CFG_ERR_MAX];

	tap_unstore(tap);
	if (tap->persist && tap_set_persist(tap, false, err, sizeof(err)) < 0)
		log_warn("%s", err);
	tap_close(tap);
}
