// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config_port.c - the [port NAME] section of vringnetd.conf: its keys, its
 * defaults, the checks between its keys, and the names of the port types.
 */
#include <errno.h>
#include <string.h>

#include "config_section.h"
#include "config_value.h"

static const struct config_enum config_port_types[] = {
	{ "vhost-user", CFG_PORT_VHOST_USER },
	{ "stream", CFG_PORT_STREAM },
	{ "dgram", CFG_PORT_DGRAM },
	{ "ringfd", CFG_PORT_RINGFD },
	{ NULL, 0 },
};

static const struct config_enum config_port_kernel_rings[] = {
	{ "process", CFG_KERNEL_RINGS_PROCESS },
	{ "memory", CFG_KERNEL_RINGS_MEMORY },
	{ "kick", CFG_KERNEL_RINGS_KICK },
	{ NULL, 0 },
};

/* Index of each key in config_port_keys[]. */
enum config_port_key {
	PORT_KEY_TAP,
	PORT_KEY_TYPE,
	PORT_KEY_LISTEN,
	PORT_KEY_CONNECT,
	PORT_KEY_PEER,
	PORT_KEY_SOCKET_MODE,
	PORT_KEY_SOCKET_OWNER,
	PORT_KEY_SOCKET_GROUP,
	PORT_KEY_RECONNECT,
	PORT_KEY_KERNEL_RINGS,
	PORT_KEY_WORKERS,
	PORT_NKEYS
};

static int config_port_workers(struct config_parser *p, const char *k, const char *v);

static const struct config_key config_port_keys[] = {
	[PORT_KEY_TAP] = CFG_NAME_KEY("tap", struct config_port, tap, "tap"),
	[PORT_KEY_TYPE] = CFG_ENUM_KEY("type", struct config_port, type, config_port_types),
	[PORT_KEY_LISTEN] = CFG_PATH_KEY("listen", struct config_port, listen),
	[PORT_KEY_CONNECT] = CFG_PATH_KEY("connect", struct config_port, connect),
	[PORT_KEY_PEER] = CFG_PATH_KEY("peer", struct config_port, peer),
	[PORT_KEY_SOCKET_MODE] = CFG_MODE_KEY("socket-mode", struct config_port, socket_mode),
	[PORT_KEY_SOCKET_OWNER] = CFG_USER_KEY("socket-owner", struct config_port, socket_uid),
	[PORT_KEY_SOCKET_GROUP] = CFG_GROUP_KEY("socket-group", struct config_port, socket_gid),
	[PORT_KEY_RECONNECT] = CFG_UINT_KEY("reconnect", struct config_port, reconnect, 1, 3600),
	[PORT_KEY_KERNEL_RINGS] = CFG_ENUM_KEY("kernel-rings", struct config_port, kernel_rings,
					       config_port_kernel_rings),
	[PORT_KEY_WORKERS] = CFG_FUNC_KEY("workers", config_port_workers),
};

_Static_assert(CFG_ENTRIES(config_port_keys) == PORT_NKEYS, "a [port] key without an entry");
_Static_assert(PORT_NKEYS <= CFG_SECTION_KEYS_MAX,
	       "struct config_parser's key_line[] is too small for [port]");

/**
 * config_port_current() - the port of the current [port] section
 * @p: the parser
 *
 * Return: the last port added.
 */
static struct config_port *config_port_current(struct config_parser *p)
{
	return &p->cfg->ports[p->cfg->nports - 1];
}

/**
 * config_port_object() - where the keys of the current [port] section are
 *	stored
 * @p: the parser
 *
 * Return: the last port added.
 */
static void *config_port_object(struct config_parser *p)
{
	return config_port_current(p);
}

/**
 * config_port_workers() - the 'workers' key: the indexes of the pump threads
 *	the port's queue pairs may run on (checked against [daemon] workers
 *	at the end of the file)
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_port_workers(struct config_parser *p, const char *k, const char *v)
{
	unsigned int idx[CFG_MAX_WORKERS], n, i;
	struct config_port *port = config_port_current(p);

	if (config_value_list(p, k, v, CFG_MAX_WORKERS - 1, CFG_MAX_WORKERS, idx, &n))
		return -EINVAL;
	port->workers = 0;
	for (i = 0; i < n; i++)
		port->workers |= UINT64_C(1) << idx[i];
	return 0;
}

/**
 * config_port_end() - checks when a [port] section ends: the required keys,
 *	keys that contradict each other or the type; the lines of its tap and
 *	listen keys for the checks across sections
 * @p: the parser
 *
 * Return: 0, or -EINVAL.
 */
static int config_port_end(struct config_parser *p)
{
	static const enum config_port_key only_listen[] = {
		PORT_KEY_SOCKET_MODE, PORT_KEY_SOCKET_OWNER, PORT_KEY_SOCKET_GROUP,
	};
	const struct config_port *port = config_port_current(p);
	unsigned int l_listen = p->key_line[PORT_KEY_LISTEN];
	unsigned int l_connect = p->key_line[PORT_KEY_CONNECT];
	unsigned int i, l;

	p->port_tap_line[p->cfg->nports - 1] = p->key_line[PORT_KEY_TAP];
	p->port_listen_line[p->cfg->nports - 1] = l_listen;
	p->port_workers_line[p->cfg->nports - 1] = p->key_line[PORT_KEY_WORKERS];
	if (!p->key_line[PORT_KEY_TAP])
		return config_value_err(p, p->sec_line, "port '%s': missing key 'tap'", port->name);
	if (!p->key_line[PORT_KEY_TYPE])
		return config_value_err(p, p->sec_line, "port '%s': missing key 'type'",
					port->name);
	if (!l_listen && !l_connect)
		return config_value_err(p, p->sec_line, "port '%s': needs listen or connect",
					port->name);
	if (l_listen && l_connect)
		return config_value_err(p, l_listen > l_connect ? l_listen : l_connect,
					"port '%s': listen and connect are exclusive", port->name);
	l = p->key_line[PORT_KEY_PEER];
	if (l && port->type != CFG_PORT_DGRAM)
		return config_value_err(p, l, "peer: only valid for type dgram");
	if (l_connect && port->type == CFG_PORT_RINGFD)
		return config_value_err(p, l_connect, "connect: a ringfd port only listens");
	l = p->key_line[PORT_KEY_KERNEL_RINGS];
	if (l && port->type != CFG_PORT_VHOST_USER)
		return config_value_err(p, l, "kernel-rings: only valid for type vhost-user");
	l = p->key_line[PORT_KEY_RECONNECT];
	if (l && !l_connect)
		return config_value_err(p, l, "reconnect: only valid with connect");
	if (l_listen)
		return 0;
	for (i = 0; i < CFG_ENTRIES(only_listen); i++) {
		l = p->key_line[only_listen[i]];
		if (l)
			return config_value_err(p, l, "%s: only valid with listen",
						config_port_keys[only_listen[i]].name);
	}
	return 0;
}

const struct config_section config_port_section = {
	.name = "port",
	.named = true,
	.keys = config_port_keys,
	.nkeys = PORT_NKEYS,
	.object = config_port_object,
	.end = config_port_end,
};

/**
 * config_port_init() - a new port with the defaults of an empty [port] section
 * @port: the port
 * @name: its name (valid, < CFG_NAME_MAX bytes)
 * @line: line of its section header
 */
void config_port_init(struct config_port *port, const char *name, unsigned int line)
{
	memset(port, 0, sizeof(*port));
	strcpy(port->name, name);
	port->line = line;
	port->socket_mode = 0660;
	port->socket_uid = (uid_t)-1;
	port->socket_gid = (gid_t)-1;
	port->reconnect = 1;
}

/**
 * config_port_type_name() - name of a port type
 * @type: the type
 *
 * Return: "vhost-user", "stream", "dgram" or "ringfd" ("?" for a bad value).
 */
const char *config_port_type_name(enum config_port_type type)
{
	return config_value_enum_name(config_port_types, (int)type);
}

/**
 * config_kernel_rings_name() - name of a kernel-rings setting
 * @rings: the setting
 *
 * Return: "process", "memory" or "kick".
 */
const char *config_kernel_rings_name(enum config_kernel_rings rings)
{
	return config_value_enum_name(config_port_kernel_rings, (int)rings);
}
