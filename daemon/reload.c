// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reload.c - compute what changed between two configurations (reload.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reload.h"

/**
 * reload_addr_eq() - whether two interface addresses are the same
 * @a: one
 * @b: the other
 *
 * Return: true if family, prefix length and address are equal.
 */
static bool reload_addr_eq(const struct config_address *a, const struct config_address *b)
{
	if (a->family != b->family || a->prefixlen != b->prefixlen)
		return false;
	if (a->family == AF_INET)
		return a->addr.in.s_addr == b->addr.in.s_addr;
	return !memcmp(&a->addr.in6, &b->addr.in6, sizeof(a->addr.in6));
}

/**
 * reload_addr_in() - whether an address is among a tap's addresses
 * @a: the address
 * @t: the tap
 *
 * Return: true if @t lists @a.
 */
static bool reload_addr_in(const struct config_address *a, const struct config_tap *t)
{
	unsigned int i;

	for (i = 0; i < t->naddresses; i++)
		if (reload_addr_eq(a, &t->addresses[i]))
			return true;
	return false;
}

/**
 * reload_tap_compare() - fill the attributes of a tap present in both files
 * @d: the entry (@d->old_tap and @d->new_tap set)
 *
 * Addresses are compared as sets: reordering them changes nothing.
 */
static void reload_tap_compare(struct reload_tap_diff *d)
{
	const struct config_tap *o = d->old_tap, *n = d->new_tap;
	unsigned int i;

	d->attrs = 0;
	d->nadd = d->ndel = 0;
	if (o->mtu != n->mtu)
		d->attrs |= RELOAD_TAP_MTU;
	if (memcmp(o->mac, n->mac, sizeof(o->mac)))
		d->attrs |= RELOAD_TAP_MAC;
	if (strcmp(o->bridge, n->bridge))
		d->attrs |= RELOAD_TAP_BRIDGE;
	if (o->owner_uid != n->owner_uid)
		d->attrs |= RELOAD_TAP_OWNER;
	if (o->group_gid != n->group_gid)
		d->attrs |= RELOAD_TAP_GROUP;
	if (o->persist != n->persist)
		d->attrs |= RELOAD_TAP_PERSIST;
	if (o->queues != n->queues)
		d->attrs |= RELOAD_TAP_QUEUES;
	if (o->ring_size != n->ring_size)
		d->attrs |= RELOAD_TAP_RING_SIZE;
	for (i = 0; i < n->naddresses && i < CFG_MAX_ADDRESSES; i++)
		if (!reload_addr_in(&n->addresses[i], o))
			d->add[d->nadd++] = (unsigned char)i;
	for (i = 0; i < o->naddresses && i < CFG_MAX_ADDRESSES; i++)
		if (!reload_addr_in(&o->addresses[i], n))
			d->del[d->ndel++] = (unsigned char)i;
	if (d->nadd || d->ndel)
		d->attrs |= RELOAD_TAP_ADDRESSES;
	d->change = d->attrs ? RELOAD_CHANGED : RELOAD_UNCHANGED;
}

/**
 * reload_port_compare() - fill the attributes of a port present in both files
 * @d: the entry (@d->old_port and @d->new_port set)
 * @taps: the tap entries of the same diff (for RELOAD_PORT_TAP_RECREATED)
 * @ntaps: their number
 */
static void reload_port_compare(struct reload_port_diff *d, const struct reload_tap_diff *taps,
			    unsigned int ntaps)
{
	const struct config_port *o = d->old_port, *n = d->new_port;
	unsigned int i;

	d->attrs = 0;
	if (strcmp(o->tap, n->tap))
		d->attrs |= RELOAD_PORT_TAP;
	if (o->type != n->type)
		d->attrs |= RELOAD_PORT_TYPE;
	if (strcmp(o->listen, n->listen))
		d->attrs |= RELOAD_PORT_LISTEN;
	if (strcmp(o->connect, n->connect))
		d->attrs |= RELOAD_PORT_CONNECT;
	if (strcmp(o->peer, n->peer))
		d->attrs |= RELOAD_PORT_PEER;
	if (o->socket_mode != n->socket_mode)
		d->attrs |= RELOAD_PORT_SOCKET_MODE;
	if (o->socket_uid != n->socket_uid || o->socket_gid != n->socket_gid)
		d->attrs |= RELOAD_PORT_SOCKET_OWNER;
	if (o->reconnect != n->reconnect)
		d->attrs |= RELOAD_PORT_RECONNECT;
	if (o->kernel_rings != n->kernel_rings)
		d->attrs |= RELOAD_PORT_KERNEL_RINGS;
	if (o->workers != n->workers)
		d->attrs |= RELOAD_PORT_WORKERS;
	for (i = 0; i < ntaps; i++)
		if (taps[i].change == RELOAD_CHANGED && (taps[i].attrs & RELOAD_TAP_RECREATE) &&
		    !strcmp(taps[i].name, n->tap))
			d->attrs |= RELOAD_PORT_TAP_RECREATED;
	d->change = d->attrs ? RELOAD_CHANGED : RELOAD_UNCHANGED;
}

/**
 * reload_diff() - compute the difference of two valid configurations
 * @old_cfg: the running configuration
 * @new_cfg: the configuration to switch to
 * @diff: the result; free with reload_diff_free()
 *
 * Return: 0, or -ENOMEM (@diff is then empty).
 */
int reload_diff(const struct config *old_cfg, const struct config *new_cfg,
	    struct reload_diff *diff)
{
	unsigned int i, n;

	memset(diff, 0, sizeof(*diff));
	diff->taps = calloc((size_t)old_cfg->ntaps + new_cfg->ntaps + 1, sizeof(*diff->taps));
	diff->ports = calloc((size_t)old_cfg->nports + new_cfg->nports + 1,
			     sizeof(*diff->ports));
	if (!diff->taps || !diff->ports) {
		reload_diff_free(diff);
		return -ENOMEM;
	}

	if (strcmp(old_cfg->control_socket, new_cfg->control_socket))
		diff->daemon_attrs |= RELOAD_DAEMON_CONTROL_SOCKET;
	if (old_cfg->control_mode != new_cfg->control_mode)
		diff->daemon_attrs |= RELOAD_DAEMON_CONTROL_MODE;
	if (old_cfg->control_gid != new_cfg->control_gid)
		diff->daemon_attrs |= RELOAD_DAEMON_CONTROL_GROUP;
	if (old_cfg->engine != new_cfg->engine)
		diff->daemon_attrs |= RELOAD_DAEMON_ENGINE;
	if (old_cfg->log_level != new_cfg->log_level)
		diff->daemon_attrs |= RELOAD_DAEMON_LOG_LEVEL;
	if (strcmp(old_cfg->user, new_cfg->user))
		diff->daemon_attrs |= RELOAD_DAEMON_USER;

	n = 0;
	for (i = 0; i < old_cfg->ntaps; i++) {
		const struct config_tap *t = &old_cfg->taps[i];

		if (config_find_tap(new_cfg, t->name))
			continue;
		diff->taps[n].name = t->name;
		diff->taps[n].change = RELOAD_REMOVED;
		diff->taps[n].old_tap = t;
		diff->taps_removed++;
		n++;
	}
	for (i = 0; i < new_cfg->ntaps; i++) {
		struct reload_tap_diff *d = &diff->taps[n++];

		d->new_tap = &new_cfg->taps[i];
		d->name = d->new_tap->name;
		d->old_tap = config_find_tap(old_cfg, d->name);
		if (!d->old_tap) {
			d->change = RELOAD_ADDED;
			diff->taps_added++;
			continue;
		}
		reload_tap_compare(d);
		if (d->change == RELOAD_CHANGED)
			diff->taps_changed++;
	}
	diff->ntaps = n;

	n = 0;
	for (i = 0; i < old_cfg->nports; i++) {
		const struct config_port *p = &old_cfg->ports[i];

		if (config_find_port(new_cfg, p->name))
			continue;
		diff->ports[n].name = p->name;
		diff->ports[n].change = RELOAD_REMOVED;
		diff->ports[n].old_port = p;
		diff->ports_removed++;
		n++;
	}
	for (i = 0; i < new_cfg->nports; i++) {
		struct reload_port_diff *d = &diff->ports[n++];

		d->new_port = &new_cfg->ports[i];
		d->name = d->new_port->name;
		d->old_port = config_find_port(old_cfg, d->name);
		if (!d->old_port) {
			d->change = RELOAD_ADDED;
			diff->ports_added++;
			continue;
		}
		reload_port_compare(d, diff->taps, diff->ntaps);
		if (d->change == RELOAD_CHANGED)
			diff->ports_changed++;
	}
	diff->nports = n;
	return 0;
}

/**
 * reload_diff_free() - release a diff
 * @diff: the diff (may be zeroed or freed already)
 */
void reload_diff_free(struct reload_diff *diff)
{
	free(diff->taps);
	free(diff->ports);
	memset(diff, 0, sizeof(*diff));
}

/**
 * reload_diff_empty() - whether a reload would change nothing
 * @diff: the diff
 *
 * Return: true if no tap, port or daemon setting differs.
 */
bool reload_diff_empty(const struct reload_diff *diff)
{
	return !diff->daemon_attrs && !diff->taps_added && !diff->taps_removed &&
	       !diff->taps_changed && !diff->ports_added && !diff->ports_removed &&
	       !diff->ports_changed;
}

/**
 * reload_change_name() - name of a change, for logs
 * @change: the change
 *
 * Return: "unchanged", "added", "removed", "changed" ("?" for a bad value).
 */
const char *reload_change_name(enum reload_change change)
{
	switch (change) {
	case RELOAD_UNCHANGED:
		return "unchanged";
	case RELOAD_ADDED:
		return "added";
	case RELOAD_REMOVED:
		return "removed";
	case RELOAD_CHANGED:
		return "changed";
	}
	return "?";
}

/**
 * reload_format() - write the names of set bits, comma-separated
 * @attrs: the bits
 * @names: name of each bit, NULL-terminated
 * @buf: output (always NUL-terminated if @len > 0)
 * @len: its size
 *
 * Return: the length the full text has (as snprintf()).
 */
static size_t reload_format(unsigned int attrs, const char *const *names, char *buf,
			size_t len)
{
	size_t pos = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	for (i = 0; names[i]; i++) {
		int r;

		if (!(attrs & (1u << i)))
			continue;
		r = snprintf(buf + (pos < len ? pos : len), pos < len ? len - pos : 0,
			     "%s%s", pos ? "," : "", names[i]);
		if (r > 0)
			pos += (size_t)r;
	}
	return pos;
}

/**
 * reload_tap_attrs_format() - RELOAD_TAP_* bits as text, e.g. "mtu,addresses"
 * @attrs: the bits
 * @buf: output
 * @len: its size
 *
 * Return: the length of the full text.
 */
size_t reload_tap_attrs_format(unsigned int attrs, char *buf, size_t len)
{
	static const char *const names[] = {
		"mtu", "mac", "addresses", "bridge", "owner", "group", "persist",
		"queues", "ring-size", NULL,
	};

	return reload_format(attrs, names, buf, len);
}

/**
 * reload_port_attrs_format() - RELOAD_PORT_* bits as text, e.g. "listen,socket-mode"
 * @attrs: the bits
 * @buf: output
 * @len: its size
 *
 * Return: the length of the full text.
 */
size_t reload_port_attrs_format(unsigned int attrs, char *buf, size_t len)
{
	static const char *const names[] = {
		"tap", "type", "listen", "connect", "peer", "socket-mode",
		"socket-owner", "reconnect", "tap-recreated", "kernel-rings", "workers", NULL,
	};

	return reload_format(attrs, names, buf, len);
}
