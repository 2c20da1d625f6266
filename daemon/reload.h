/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reload.h - what changed between two configurations.
 *
 * On SIGHUP or "vringnetctl reload" the daemon parses the new file
 * (config_load()), and only if it is valid computes reload_diff(old, new) and
 * applies it: taps and ports RELOAD_ADDED are created, RELOAD_REMOVED ones torn
 * down, RELOAD_CHANGED ones reconfigured (or re-created, see RELOAD_TAP_RECREATE
 * and RELOAD_PORT_RECREATE), RELOAD_UNCHANGED ones are not touched.
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
 * enum reload_change - what happened to a tap or port
 * @RELOAD_UNCHANGED: identical in both files
 * @RELOAD_ADDED: only in the new file
 * @RELOAD_REMOVED: only in the old file
 * @RELOAD_CHANGED: in both, with different attributes (see the attrs bits)
 */
enum reload_change { RELOAD_UNCHANGED, RELOAD_ADDED, RELOAD_REMOVED, RELOAD_CHANGED };

/* struct reload_tap_diff.attrs: the attributes of a changed tap that differ */
#define RELOAD_TAP_MTU		(1u << 0)	/* set with rtnetlink */
#define RELOAD_TAP_MAC		(1u << 1)	/* set with rtnetlink */
#define RELOAD_TAP_ADDRESSES	(1u << 2)	/* see add[] and del[] */
#define RELOAD_TAP_BRIDGE	(1u << 3)	/* leave the old master, join the new */
#define RELOAD_TAP_OWNER	(1u << 4)	/* TUNSETOWNER */
#define RELOAD_TAP_GROUP	(1u << 5)	/* TUNSETGROUP */
#define RELOAD_TAP_PERSIST	(1u << 6)	/* TUNSETPERSIST */
#define RELOAD_TAP_QUEUES	(1u << 7)	/* needs the tap re-created */
#define RELOAD_TAP_RING_SIZE	(1u << 8)	/* needs the tap's rings re-created */
/* Attributes that cannot be changed in place: tear the tap down, create it anew. */
#define RELOAD_TAP_RECREATE		(RELOAD_TAP_QUEUES | RELOAD_TAP_RING_SIZE)

/* struct reload_port_diff.attrs */
#define RELOAD_PORT_TAP			(1u << 0)
#define RELOAD_PORT_TYPE		(1u << 1)
#define RELOAD_PORT_LISTEN		(1u << 2)
#define RELOAD_PORT_CONNECT		(1u << 3)
#define RELOAD_PORT_PEER		(1u << 4)
#define RELOAD_PORT_SOCKET_MODE		(1u << 5)	/* chmod of the listening socket */
#define RELOAD_PORT_SOCKET_OWNER	(1u << 6)	/* chown (uid or gid) of it */
#define RELOAD_PORT_RECONNECT		(1u << 7)	/* new retry interval */
/* The port's own tap is re-created (RELOAD_TAP_RECREATE): its peer is cut. */
#define RELOAD_PORT_TAP_RECREATED	(1u << 8)
#define RELOAD_PORT_KERNEL_RINGS	(1u << 9)	/* for queues started from now on */
#define RELOAD_PORT_WORKERS		(1u << 10)	/* for queues started from now on */
/* Attributes that need the port closed and opened again. */
#define RELOAD_PORT_RECREATE	(RELOAD_PORT_TAP | RELOAD_PORT_TYPE | RELOAD_PORT_LISTEN | \
				 RELOAD_PORT_CONNECT | RELOAD_PORT_PEER | RELOAD_PORT_TAP_RECREATED)

/* struct reload_diff.daemon_attrs: [daemon] settings that differ */
#define RELOAD_DAEMON_CONTROL_SOCKET	(1u << 0)
#define RELOAD_DAEMON_CONTROL_MODE	(1u << 1)
#define RELOAD_DAEMON_CONTROL_GROUP	(1u << 2)
#define RELOAD_DAEMON_ENGINE		(1u << 3)	/* needs a restart */
#define RELOAD_DAEMON_LOG_LEVEL		(1u << 4)
#define RELOAD_DAEMON_USER		(1u << 5)	/* needs a restart */
#define RELOAD_DAEMON_RESTART		(RELOAD_DAEMON_ENGINE | RELOAD_DAEMON_USER)

/**
 * struct reload_tap_diff - one tap
 * @name: its name
 * @change: what happened to it
 * @old_tap: in the old configuration (NULL when RELOAD_ADDED)
 * @new_tap: in the new configuration (NULL when RELOAD_REMOVED)
 * @attrs: RELOAD_TAP_* bits that differ (RELOAD_CHANGED only)
 * @add: indices into @new_tap->addresses of the addresses to add
 * @nadd: entries in @add
 * @del: indices into @old_tap->addresses of the addresses to remove
 * @ndel: entries in @del
 */
struct reload_tap_diff {
	const char *name;
	enum reload_change change;
	const struct config_tap *old_tap;
	const struct config_tap *new_tap;
	unsigned int attrs;
	unsigned char add[CFG_MAX_ADDRESSES];
	unsigned int nadd;
	unsigned char del[CFG_MAX_ADDRESSES];
	unsigned int ndel;
};

/**
 * struct reload_port_diff - one port
 * @name: its name
 * @change: what happened to it
 * @old_port: in the old configuration (NULL when RELOAD_ADDED)
 * @new_port: in the new configuration (NULL when RELOAD_REMOVED)
 * @attrs: RELOAD_PORT_* bits that differ (RELOAD_CHANGED only)
 */
struct reload_port_diff {
	const char *name;
	enum reload_change change;
	const struct config_port *old_port;
	const struct config_port *new_port;
	unsigned int attrs;
};

/**
 * struct reload_diff - the difference of two configurations
 * @daemon_attrs: RELOAD_DAEMON_* bits that differ
 * @taps: @ntaps entries, every tap of either file once
 * @ntaps: entries in @taps
 * @ports: @nports entries, every port of either file once
 * @nports: entries in @ports
 * @taps_added: count of RELOAD_ADDED taps (likewise for the others)
 * @taps_removed: RELOAD_REMOVED taps
 * @taps_changed: RELOAD_CHANGED taps
 * @ports_added: RELOAD_ADDED ports
 * @ports_removed: RELOAD_REMOVED ports
 * @ports_changed: RELOAD_CHANGED ports
 */
struct reload_diff {
	unsigned int daemon_attrs;
	struct reload_tap_diff *taps;
	unsigned int ntaps;
	struct reload_port_diff *ports;
	unsigned int nports;
	unsigned int taps_added, taps_removed, taps_changed;
	unsigned int ports_added, ports_removed, ports_changed;
};

int reload_diff(const struct config *old_cfg, const struct config *new_cfg,
	    struct reload_diff *diff);
void reload_diff_free(struct reload_diff *diff);
bool reload_diff_empty(const struct reload_diff *diff);
const char *reload_change_name(enum reload_change change);
size_t reload_tap_attrs_format(unsigned int attrs, char *buf, size_t len);
size_t reload_port_attrs_format(unsigned int attrs, char *buf, size_t len);

#endif /* VRINGNET_RELOAD_H */
