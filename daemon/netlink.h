/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * netlink.h - link settings of the taps over rtnetlink (libnl-route-3)
 *
 * netlink_apply() brings a tap to what its [tap] section says: MTU, MAC,
 * master bridge (created when missing), addresses, link up.  Given the
 * previous section (a reload), it only changes what differs and removes
 * the addresses and the bridge membership the old section had and the new
 * one lacks.  Every error names the tap and carries nl_geterror()'s text.
 */
#ifndef VRINGNET_NETLINK_H
#define VRINGNET_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct netlink;

struct netlink *netlink_open(char *err, size_t errlen);
void netlink_close(struct netlink *nl);
int netlink_apply(struct netlink *nl, const struct config_tap *cfg,
	      const struct config_tap *old, char *err, size_t errlen);
/**
 * struct netlink_link_info - what the kernel says about a link now
 * @ifindex: interface index (0: the link does not exist)
 * @mtu: MTU
 * @up: IFF_UP is set
 * @rx_packets: frames the link received (for a tap: written to its fds)
 * @rx_bytes: bytes of those
 * @tx_packets: frames the link sent (for a tap: given to its fds)
 * @tx_bytes: bytes of those
 * @tx_dropped: frames the link dropped on send (a tap: nobody reading)
 * @rx_dropped: frames dropped on receive
 */
struct netlink_link_info {
	int ifindex;
	unsigned int mtu;
	bool up;
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes, tx_dropped, rx_dropped;
};

int netlink_link_info(struct netlink *nl, const char *name, struct netlink_link_info *info);
int netlink_delete_link(struct netlink *nl, const char *name, char *err, size_t errlen);

#endif /* VRINGNET_NETLINK_H */
