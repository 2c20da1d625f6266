// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netlink.c - configure taps with libnl-route-3
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/link/bridge.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "netlink.h"

/**
 * struct netlink - a route netlink socket
 * @sk: libnl socket, connected to NETLINK_ROUTE
 */
struct netlink {
	struct nl_sock *sk;
};

/**
 * netlink_open() - open a NETLINK_ROUTE socket
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the handle, or NULL with @err filled.
 */
struct netlink *netlink_open(char *err, size_t errlen)
{
	struct netlink *nl = calloc(1, sizeof(*nl));
	int ret;

	if (!nl) {
		snprintf(err, errlen, "netlink: %s", strerror(ENOMEM));
		return NULL;
	}
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		snprintf(err, errlen, "netlink: nl_socket_alloc failed");
		free(nl);
		return NULL;
	}
	ret = nl_connect(nl->sk, NETLINK_ROUTE);
	if (ret < 0) {
		snprintf(err, errlen, "netlink: connect NETLINK_ROUTE: %s",
			 nl_geterror(ret));
		nl_socket_free(nl->sk);
		free(nl);
		return NULL;
	}
	return nl;
}

/**
 * netlink_close() - close the socket
 * @nl: handle or NULL
 */
void netlink_close(struct netlink *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

/**
 * netlink_bridge_index() - find the bridge, creating it (up) when missing
 * @nl: handle
 * @tap: the tap's name (for messages)
 * @bridge: the bridge's name
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the bridge's ifindex, or -1 with @err filled.
 */
static int netlink_bridge_index(struct netlink *nl, const char *tap, const char *bridge,
			    char *err, size_t errlen)
{
	struct rtnl_link *link = NULL, *up;
	int ret, ifindex;

	ret = rtnl_link_get_kernel(nl->sk, 0, bridge, &link);
	if (ret == 0) {
		if (!rtnl_link_is_bridge(link)) {
			snprintf(err, errlen, "tap %s: bridge %s: exists and is not a bridge",
				 tap, bridge);
			rtnl_link_put(link);
			return -1;
		}
		ifindex = rtnl_link_get_ifindex(link);
		rtnl_link_put(link);
		return ifindex;
	}
	if (ret != -NLE_OBJ_NOTFOUND && ret != -NLE_NODEV) {
		/* not "no such link": creating it would hide the real error */
		snprintf(err, errlen, "tap %s: bridge %s: looking it up: %s", tap, bridge,
			 nl_geterror(ret));
		return -1;
	}
	link = rtnl_link_bridge_alloc();
	if (!link) {
		snprintf(err, errlen, "tap %s: bridge %s: out of memory", tap, bridge);
		return -1;
	}
	rtnl_link_set_name(link, bridge);
	rtnl_link_set_flags(link, IFF_UP);
	ret = rtnl_link_add(nl->sk, link, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(link);
	if (ret < 0) {
		snprintf(err, errlen, "tap %s: creating bridge %s: %s", tap, bridge,
			 nl_geterror(ret));
		return -1;
	}
	ifindex = (int)if_nametoindex(bridge);
	if (!ifindex) {
		snprintf(err, errlen, "tap %s: bridge %s vanished after creation", tap, bridge);
		return -1;
	}
	/* Some kernels ignore IFF_UP in RTM_NEWLINK for bridges: say it again. */
	ret = rtnl_link_get_kernel(nl->sk, ifindex, NULL, &link);
	if (ret == 0) {
		up = rtnl_link_alloc();
		if (up) {
			rtnl_link_set_flags(up, IFF_UP);
			rtnl_link_change(nl->sk, link, up, 0);
			rtnl_link_put(up);
		}
		rtnl_link_put(link);
	}
	log_info("bridge %s: created for tap %s", bridge, tap);
	return ifindex;
}

/**
 * netlink_same_addr() - compare two configured addresses
 * @a: one
 * @b: the other
 *
 * Return: true when family, prefix and address are equal.
 */
static bool netlink_same_addr(const struct config_address *a, const struct config_address *b)
{
	if (a->family != b->family || a->prefixlen != b->prefixlen)
		return false;
	if (a->family == AF_INET)
		return a->addr.in.s_addr == b->addr.in.s_addr;
	return !memcmp(&a->addr.in6, &b->addr.in6, sizeof(a->addr.in6));
}

/**
 * netlink_has_addr() - whether a section lists an address
 * @cfg: the section (NULL: none)
 * @a: the address
 *
 * Return: true if listed.
 */
static bool netlink_has_addr(const struct config_tap *cfg, const struct config_address *a)
{
	unsigned int i;

	if (!cfg)
		return false;
	for (i = 0; i < cfg->naddresses; i++)
		if (netlink_same_addr(&cfg->addresses[i], a))
			return true;
	return false;
}

/**
 * netlink_addr_text() - an address as "ADDR/PREFIX"
 * @a: the address
 * @buf: output
 * @len: its size (INET6_ADDRSTRLEN + 5 is enough)
 *
 * Return: @buf.
 */
static const char *netlink_addr_text(const struct config_address *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	inet_ntop(a->family, &a->addr, ip, sizeof(ip));
	snprintf(buf, len, "%s/%u", ip, a->prefixlen);
	return buf;
}

/**
 * netlink_addr() - add or delete one address
 * @nl: handle
 * @tap: the tap's name
 * @ifindex: the tap's index
 * @a: the address
 * @add: add (true) or delete (false)
 * @err: message buffer
 * @errlen: its size
 *
 * Adding an address that is already there (an adopted tap) succeeds;
 * deleting one that is gone succeeds.
 *
 * Return: 0, or -1 with @err filled.
 */
static int netlink_addr(struct netlink *nl, const char *tap, int ifindex,
		    const struct config_address *a, bool add, char *err, size_t errlen)
{
	struct rtnl_addr *ra = rtnl_addr_alloc();
	struct nl_addr *local;
	char text[INET6_ADDRSTRLEN + 8];
	int ret;

	if (!ra) {
		snprintf(err, errlen, "tap %s: out of memory", tap);
		return -1;
	}
	local = nl_addr_build(a->family, &a->addr,
			      a->family == AF_INET ? 4 : 16);
	if (!local) {
		rtnl_addr_put(ra);
		snprintf(err, errlen, "tap %s: out of memory", tap);
		return -1;
	}
	nl_addr_set_prefixlen(local, (int)a->prefixlen);
	rtnl_addr_set_ifindex(ra, ifindex);
	rtnl_addr_set_family(ra, a->family);
	ret = rtnl_addr_set_local(ra, local);
	if (ret == 0) {
		rtnl_addr_set_prefixlen(ra, (int)a->prefixlen);
		ret = add ? rtnl_addr_add(nl->sk, ra, 0) : rtnl_addr_delete(nl->sk, ra, 0);
	}
	nl_addr_put(local);
	rtnl_addr_put(ra);
	if (ret == -NLE_EXIST && add)
		ret = 0;
	if ((ret == -NLE_NOADDR || ret == -NLE_OBJ_NOTFOUND || ret == -NLE_NODEV) && !add)
		ret = 0;
	if (ret < 0) {
		snprintf(err, errlen, "tap %s: %s address %s: %s", tap,
			 add ? "adding" : "removing",
			 netlink_addr_text(a, text, sizeof(text)), nl_geterror(ret));
		return -1;
	}
	log_info("tap %s: address %s %s", tap, netlink_addr_text(a, text, sizeof(text)),
		 add ? "added" : "removed");
	return 0;
}

/**
 * netlink_apply() - bring a tap's link to its configuration
 * @nl: handle
 * @cfg: the wanted section
 * @old: the section it had (a reload), or NULL for a new tap
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled ("tap NAME: what: netlink error").
 */
int netlink_apply(struct netlink *nl, const struct config_tap *cfg,
	      const struct config_tap *old, char *err, size_t errlen)
{
	struct rtnl_link *link = NULL, *change = NULL;
	struct nl_addr *mac = NULL;
	uint8_t macbytes[6];
	int ret, ifindex, master = 0;
	unsigned int i;

	ret = rtnl_link_get_kernel(nl->sk, 0, cfg->name, &link);
	if (ret < 0) {
		snprintf(err, errlen, "tap %s: looking up the link: %s", cfg->name,
			 nl_geterror(ret));
		return -1;
	}
	ifindex = rtnl_link_get_ifindex(link);
	if (cfg->bridge[0]) {
		master = netlink_bridge_index(nl, cfg->name, cfg->bridge, err, errlen);
		if (master < 0)
			goto fail;
	}
	change = rtnl_link_alloc();
	if (!change) {
		snprintf(err, errlen, "tap %s: out of memory", cfg->name);
		goto fail;
	}
	if (cfg->mtu)
		rtnl_link_set_mtu(change, cfg->mtu);
	if (cfg->mac_set)
		memcpy(macbytes, cfg->mac, 6);
	else
		config_default_mac(cfg->name, macbytes);
	mac = nl_addr_build(AF_LLC, macbytes, 6);
	if (!mac) {
		snprintf(err, errlen, "tap %s: out of memory", cfg->name);
		goto fail;
	}
	rtnl_link_set_addr(change, mac);
	if (master)
		rtnl_link_set_master(change, master);
	else if (old && old->bridge[0])
		rtnl_link_set_master(change, 0);
	rtnl_link_set_flags(change, IFF_UP);
	ret = rtnl_link_change(nl->sk, link, change, 0);
	if (ret < 0) {
		snprintf(err, errlen, "tap %s: setting mtu %u, mac, %s%s and up: %s",
			 cfg->name, cfg->mtu, master ? "master " : "no master",
			 master ? cfg->bridge : "", nl_geterror(ret));
		goto fail;
	}
	if (old)
		for (i = 0; i < old->naddresses; i++)
			if (!netlink_has_addr(cfg, &old->addresses[i]) &&
			    netlink_addr(nl, cfg->name, ifindex, &old->addresses[i], false,
				     err, errlen) < 0)
				goto fail;
	for (i = 0; i < cfg->naddresses; i++)
		if (!netlink_has_addr(old, &cfg->addresses[i]) &&
		    netlink_addr(nl, cfg->name, ifindex, &cfg->addresses[i], true,
			     err, errlen) < 0)
			goto fail;
	nl_addr_put(mac);
	rtnl_link_put(change);
	rtnl_link_put(link);
	return 0;
fail:
	if (mac)
		nl_addr_put(mac);
	if (change)
		rtnl_link_put(change);
	rtnl_link_put(link);
	return -1;
}

/**
 * netlink_delete_link() - delete an interface by name (missing is fine)
 * @nl: handle
 * @name: interface name
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
int netlink_delete_link(struct netlink *nl, const char *name, char *err, size_t errlen)
{
	struct rtnl_link *link = rtnl_link_alloc();
	int ret;

	if (!link) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	rtnl_link_set_name(link, name);
	ret = rtnl_link_delete(nl->sk, link);
	rtnl_link_put(link);
	if (ret < 0 && ret != -NLE_NODEV && ret != -NLE_OBJ_NOTFOUND) {
		snprintf(err, errlen, "%s: deleting the link: %s", name, nl_geterror(ret));
		return -1;
	}
	return 0;
}

/**
 * netlink_link_info() - current state and counters of a link
 * @nl: handle
 * @name: interface name
 * @info: filled (zeroed when the link is missing)
 *
 * Return: 0, or -1 when the link does not exist or netlink failed.
 */
int netlink_link_info(struct netlink *nl, const char *name, struct netlink_link_info *info)
{
	struct rtnl_link *link = NULL;

	memset(info, 0, sizeof(*info));
	if (rtnl_link_get_kernel(nl->sk, 0, name, &link) < 0)
		return -1;
	info->ifindex = rtnl_link_get_ifindex(link);
	info->mtu = rtnl_link_get_mtu(link);
	info->up = rtnl_link_get_flags(link) & IFF_UP;
	info->rx_packets = rtnl_link_get_stat(link, RTNL_LINK_RX_PACKETS);
	info->rx_bytes = rtnl_link_get_stat(link, RTNL_LINK_RX_BYTES);
	info->tx_packets = rtnl_link_get_stat(link, RTNL_LINK_TX_PACKETS);
	info->tx_bytes = rtnl_link_get_stat(link, RTNL_LINK_TX_BYTES);
	info->tx_dropped = rtnl_link_get_stat(link, RTNL_LINK_TX_DROPPED);
	info->rx_dropped = rtnl_link_get_stat(link, RTNL_LINK_RX_DROPPED);
	rtnl_link_put(link);
	return 0;
}
