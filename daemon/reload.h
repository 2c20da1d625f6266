/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reload.h - what changed between two configurations.
 *
 * On SIGHUP or "vringnetctl reload" the daemon parses the new file
 * (config_load()), and only if it is valid computes rl_diff(old, new) and
 * applies it: taps and ports RL_ADDED are created, RL_REMOVED ones torn
 * down, RL_CHANGED ones reconfigured (or re-created, see RL_TAP_RECREATE
 * and RL_PORT_RECREATE), RL_UNCHANGED ones are not touched.
 *
 * Entries are ordered for applying in one pass: first every removed entry
 * (in the old file's order), then the new file's entries in its order.
 * A diff points into both configurations: keep both alive while using it.
 */
#ifndef VRINGNET_RELOAD_H
#define VRINGNET_RELOAD_H

#include <stddef.h>

#include "config.h"

/**
 * enum rl_change - what happened to a tap or port
 * @RL_UNCHANGED: identical in both files
 * @RL_ADDED: only in the new file
 * @RL_REMOVED: only in the old file
 * @RL_CHANGED: in both, with different attributes (see the attrs bits)
 */
enum rl_change { RL_UNCHANGED, RL_ADDED, RL_REMOVED, RL_CHANGED };

/* struct rl_tap_diff.attrs: the attributes of a changed tap that differ */
#define RL_TAP_MTU		(1u << 0)	/* set with rtnetlink */
#define RL_TAP_MAC		(1u << 1)	/* set with rtnetlink */
#define RL_TAP_ADDRESSES	(1u << 2)	/* see add[] and del[] */
#define RL_TAP_BRIDGE		(1u << 3)	/* leave the old master, join the new */
#define RL_TAP_OWNER		(1u << 4)	/* TUNSETOWNER */
#define RL_TAP_GROUP		(1u << 5)	/* TUNSETGROUP */
#define RL_TAP_PERSIST		(1u << 6)	/* TUNSETPERSIST */
#define RL_TAP_QUEUES		(1u << 7)	/* needs the tap re-created */
#define RL_TAP_RING_SIZE	(1u << 8)	/* needs the tap's rings re-created */
/* Attributes that cannot be changed in place: tear the tap down, create it anew. */
#define RL_TAP_RECREATE		(RL_TAP_QUEUES | RL_TAP_RING_SIZE)

/* struct rl_port_diff.attrs */
#define RL_PORT_TAP		(1u << 0)
#define RL_PORT_TYPE		(1u << 1)
#define RL_PORT_LISTEN		(1u << 2)
#define RL_PORT_CONNECT		(1u << 3)
#define RL_PORT_PEER		(1u << 4)
#define RL_PORT_SOCKET_MODE	(1u << 5)	/* chmod of the listening socket */
#define RL_PORT_SOCKET_OWNER	(1u << 6)	/* chown (uid or gid) of it */
#define RL_PORT_RECONNECT	(1u << 7)	/* new retry interval */
/* The port's own tap is re-created (RL_TAP_RECREATE): its peer is cut. */
#define RL_PORT_TAP_RECREATED	(1u << 8)
/* Attributes that need the port closed and opened again. */
#define RL_PORT_RECREATE	(RL_PORT_TAP | RL_PORT_TYPE | RL_PORT_LISTEN | \
				 RL_PORT_CONNECT | RL_PORT_PEER | RL_PORT_TAP_RECREATED)

/* struct rl_diff.daemon_attrs: [daemon] settings that differ */
#define RL_DAEMON_CONTROL_SOCKET	(1u << 0)
#define RL_DAEMON_CONTROL_MODE		(1u << 1)
#define RL_DAEMON_CONTROL_GROUP		(1u << 2)
#define RL_DAEMON_ENGINE		(1u << 3)	/* needs a restart */
#define RL_DAEMON_LOG_LEVEL		(1u << 4)
#define RL_DAEMON_USER			(1u << 5)	/* needs a restart */
#define RL_DAEMON_RESTART		(RL_DAEMON_ENGINE | RL_DAEMON_USER)

/**
 * struct rl_tap_diff - one tap
 * @name: its name
 * @change: what happened to it
 * @old_tap: in the old configuration (NULL when RL_ADDED)
 * @new_tap: in the new configuration (NULL when RL_REMOVED)
 * @attrs: RL_TAP_* bits that differ (RL_CHANGED only)
 * @add: indices into @new_tap->addresses of the addresses to add
 * @nadd: entries in @add
 * @del: indices into @old_tap->addresses of the addresses to remove
 * @ndel: entries in @del
 */
struct rl_tap_diff {
	const char *name;
	enum rl_change change;
	const struct config_tap *old_tap;
	const struct config_tap *new_tap;
	unsigned int attrs;
	unsigned char add[CONFIG_MAX_ADDRESSES];
	unsigned int nadd;
	unsigned char del[CONFIG_MAX_ADDRESSES];
	unsigned int ndel;
};

/**
 * struct rl_port_diff - one port
 * @name: its name
 * @change: what happened to it
 * @old_port: in the old configuration (NULL when RL_ADDED)
 * @new_port: in the new configuration (NULL when RL_REMOVED)
 * @attrs: RL_PORT_* bits that differ (RL_CHANGED only)
 */
struct rl_port_diff {
	const char *name;
	enum rl_change change;
	const struct config_port *old_port;
	const struct config_port *new_port;
	unsigned int attrs;
};

/**
 * struct rl_diff - the difference of two configurations
 * @daemon_attrs: RL_DAEMON_* bits that differ
 * @taps: @ntaps entries, every tap of either file once
 * @ntaps: entries in @taps
 * @ports: @nports entries, every port of either file once
 * @nports: entries in @ports
 * @taps_added: count of RL_ADDED taps (likewise for the others)
 * @taps_removed: RL_REMOVED taps
 * @taps_changed: RL_CHANGED taps
 * @ports_added: RL_ADDED ports
 * @ports_removed: RL_REMOVED ports
 * @ports_changed: RL_CHANGED ports
 */
struct rl_diff {
	unsigned int daemon_attrs;
	struct rl_tap_diff *taps;
	unsigned int ntaps;
	struct rl_port_diff *ports;
	unsigned int nports;
	unsigned int taps_added, taps_removed, taps_changed;
	unsigned int ports_added, ports_removed, ports_changed;
};

int rl_diff(const struct config *old_cfg, const struct config *new_cfg,
	    struct rl_diff *diff);
void rl_diff_free(struct rl_diff *diff);
bool rl_diff_empty(const struct rl_diff *diff);
const char *rl_change_name(enum rl_change change);
size_t rl_tap_attrs_format(unsigned int attrs, char *buf, size_t len);
size_t rl_port_attrs_format(unsigned int attrs, char *buf, size_t len);

#endif /* VRINGNET_RELOAD_H */
