/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tap.h - tap devices made through /dev/net/tun
 *
 * Every tap is IFF_TAP | IFF_NO_PI | IFF_VNET_HDR with a 12-byte virtio-net
 * header (struct virtio_net_hdr_v1), IFF_MULTI_QUEUE when it has more than
 * one queue.  An engine that starts a queue sets the header size to the
 * rings' (TUNSETVNETHDRSZ: a vhost-user guest may use 10 bytes); vringfd.ko
 * sets nothing on a tap, it takes the engine's word for it.  An existing tap of the same name (a persistent one left by an
 * earlier run) is adopted, not duplicated.  Closing a tap whose persist flag
 * is off deletes the device.
 */
#ifndef VRINGNET_TAP_H
#define VRINGNET_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"

#define TAP_VNET_HDR_LEN	12

/**
 * struct tap_dev - one tap device held open by the daemon
 * @name: interface name
 * @fds: one non-blocking fd per queue
 * @nqueues: entries in @fds
 * @ifindex: interface index
 * @adopted: the device existed before we opened it
 * @persist: TUNSETPERSIST is on (the device outlives our fds)
 * @restored: queues taken from systemd's fd store (a restart), not opened
 * @stored: every queue was sent to systemd's fd store
 */
struct tap_dev {
	char name[CFG_NAME_MAX];
	int fds[CFG_MAX_QUEUES];
	unsigned int nqueues;
	int ifindex;
	bool adopted;
	bool persist;
	unsigned int restored;
	bool stored;
};

int tap_open(struct tap_dev *tap, const struct config_tap *cfg,
	     char *err, size_t errlen);
int tap_set_persist(struct tap_dev *tap, bool persist, char *err, size_t errlen);
int tap_set_owner(struct tap_dev *tap, uid_t uid, gid_t gid,
		  char *err, size_t errlen);
void tap_close(struct tap_dev *tap);
void tap_unstore(struct tap_dev *tap);
void tap_destroy(struct tap_dev *tap);
bool tap_exists(const char *name);
int tap_get_mtu(const struct tap_dev *tap);
int tap_set_vnet_hdr_len(int fd, unsigned int len, const char *who, char *err, size_t errlen);
int tap_send_rarp(const struct tap_dev *tap, const uint8_t mac[6]);

#endif /* VRINGNET_TAP_H */
