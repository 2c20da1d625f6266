/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config_section.h - the section types of vringnetd.conf as tables, and the
 * state of a parse (internal to the configuration parser).
 *
 * Each section type ([daemon], [tap NAME], [port NAME]) is a struct
 * config_section defined in a file of its own (config_daemon.c,
 * config_tap.c, config_port.c): a table of its keys and a check run when a
 * section of that type ends.  A key is parsed by its type (a number in a
 * range, a mode, a path, a name of an enum table, ...) and stored at an
 * offset into the section's structure; only a key whose value needs more
 * than its type (a MAC address, a repeated address, the daemon's user) has
 * a function of its own.
 *
 * The files call in one direction: config.c (lines, sections, the file)
 * reaches the section files through these tables; the section files and
 * config.c call config_value.c (values and errors), which calls none of
 * them.
 */
#ifndef VRINGNET_CONFIG_SECTION_H
#define VRINGNET_CONFIG_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"

#define CFG_SECTION_KEYS_MAX	16	/* keys of one section type */

struct config_section;

/**
 * struct config_parser - state of one parse
 * @file: file name for messages
 * @cfg: the configuration being filled
 * @err: error buffer
 * @errlen: its size
 * @line: current line number
 * @sec: type of the current section, NULL before the first header
 * @sec_name: NAME of the current [tap NAME] or [port NAME], "" for [daemon]
 * @sec_line: line of its header
 * @daemon_line: line of the [daemon] header, 0 if none yet
 * @key_line: line of each key of the current section (index into
 *	@sec->keys), 0 while not given
 * @tap_cap: allocated entries of @cfg->taps
 * @port_cap: allocated entries of @cfg->ports
 * @port_tap_line: for each port, line of its tap key
 * @port_listen_line: for each port, line of its listen key
 * @port_workers_line: for each port, line of its workers key
 * @workers_line: line of [daemon] workers, 0 while not given
 * @worker_cpus_line: line of [daemon] worker-cpus, 0 while not given
 * @tap_bridge_line: for each tap, line of its bridge key
 */
struct config_parser {
	const char *file;
	struct config *cfg;
	char *err;
	size_t errlen;
	unsigned int line;
	const struct config_section *sec;
	char sec_name[CFG_NAME_MAX];
	unsigned int sec_line;
	unsigned int daemon_line;
	unsigned int key_line[CFG_SECTION_KEYS_MAX];
	unsigned int tap_cap;
	unsigned int port_cap;
	unsigned int port_tap_line[CFG_MAX_PORTS];
	unsigned int port_listen_line[CFG_MAX_PORTS];
	unsigned int port_workers_line[CFG_MAX_PORTS];
	unsigned int workers_line;
	unsigned int worker_cpus_line;
	unsigned int tap_bridge_line[CFG_MAX_TAPS];
};

/**
 * enum config_key_type - how a key's value is parsed, and what it is stored in
 * @CFG_KEY_UINT: unsigned int: a decimal number in @min..@max
 * @CFG_KEY_MODE: mode_t: octal permission bits 0..0777
 * @CFG_KEY_BOOL: bool: yes or no
 * @CFG_KEY_PATH: char[CFG_PATH_MAX]: an absolute unix socket path
 * @CFG_KEY_NAME: char[CFG_NAME_MAX]: an interface name
 * @CFG_KEY_USER: uid_t: a user name, or any uid
 * @CFG_KEY_GROUP: gid_t: a group name, or any gid
 * @CFG_KEY_ENUM: an enum: one of the names of @names
 * @CFG_KEY_FUNC: @parse parses and stores it
 */
enum config_key_type {
	CFG_KEY_UINT,
	CFG_KEY_MODE,
	CFG_KEY_BOOL,
	CFG_KEY_PATH,
	CFG_KEY_NAME,
	CFG_KEY_USER,
	CFG_KEY_GROUP,
	CFG_KEY_ENUM,
	CFG_KEY_FUNC,
};

/**
 * struct config_enum - a name of an enum-valued key
 * @name: as written in the file; NULL ends a table
 * @value: the enum constant it stands for
 */
struct config_enum {
	const char *name;
	int value;
};

/**
 * struct config_key - a key of a section type
 * @name: as written in the file
 * @type: how its value is parsed and stored
 * @offset: where it is stored: offset into the section's structure (see
 *	struct config_section's @object); not for CFG_KEY_FUNC
 * @min: CFG_KEY_UINT: smallest value
 * @max: CFG_KEY_UINT: largest value
 * @names: CFG_KEY_ENUM: its names, ended by { NULL }
 * @noun: CFG_KEY_NAME: what the value names, for messages ("interface")
 * @repeat: may be given more than once in one section
 * @parse: CFG_KEY_FUNC: the handler (@key: the key's name; @value: its
 *	value, not empty); returns 0, or -EINVAL with the error set
 */
struct config_key {
	const char *name;
	enum config_key_type type;
	size_t offset;
	unsigned int min;
	unsigned int max;
	const struct config_enum *names;
	const char *noun;
	bool repeat;
	int (*parse)(struct config_parser *p, const char *key, const char *value);
};

/**
 * struct config_section - a section type
 * @name: as in the header: "daemon", "tap" or "port"
 * @named: the header carries a NAME ([tap NAME])
 * @keys: its keys
 * @nkeys: their number, at most CFG_SECTION_KEYS_MAX
 * @object: the structure the current section's keys are stored in (struct
 *	config, the current struct config_tap or struct config_port)
 * @end: checks when a section of this type ends: 0, or -EINVAL with the
 *	error set (NULL: none)
 */
struct config_section {
	const char *name;
	bool named;
	const struct config_key *keys;
	unsigned int nkeys;
	void *(*object)(struct config_parser *p);
	int (*end)(struct config_parser *p);
};

/* The entries of a key table, each with a compile-time check that the
 * field has the size its type stores (char[-1] stops the build if not). */
#define CFG_FIELD(st, f, size) \
	(offsetof(st, f) + 0 * sizeof(char[sizeof(((st *)0)->f) == (size) ? 1 : -1]))
#define CFG_UINT_KEY(key, st, f, lo, hi) \
	{ .name = (key), .type = CFG_KEY_UINT, \
	  .offset = CFG_FIELD(st, f, sizeof(unsigned int)), .min = (lo), .max = (hi) }
#define CFG_MODE_KEY(key, st, f) \
	{ .name = (key), .type = CFG_KEY_MODE, .offset = CFG_FIELD(st, f, sizeof(mode_t)) }
#define CFG_BOOL_KEY(key, st, f) \
	{ .name = (key), .type = CFG_KEY_BOOL, .offset = CFG_FIELD(st, f, sizeof(bool)) }
#define CFG_PATH_KEY(key, st, f) \
	{ .name = (key), .type = CFG_KEY_PATH, .offset = CFG_FIELD(st, f, CFG_PATH_MAX) }
#define CFG_NAME_KEY(key, st, f, what) \
	{ .name = (key), .type = CFG_KEY_NAME, .offset = CFG_FIELD(st, f, CFG_NAME_MAX), \
	  .noun = (what) }
#define CFG_USER_KEY(key, st, f) \
	{ .name = (key), .type = CFG_KEY_USER, .offset = CFG_FIELD(st, f, sizeof(uid_t)) }
#define CFG_GROUP_KEY(key, st, f) \
	{ .name = (key), .type = CFG_KEY_GROUP, .offset = CFG_FIELD(st, f, sizeof(gid_t)) }
#define CFG_ENUM_KEY(key, st, f, table) \
	{ .name = (key), .type = CFG_KEY_ENUM, .offset = CFG_FIELD(st, f, sizeof(int)), \
	  .names = (table) }
#define CFG_FUNC_KEY(key, fn) \
	{ .name = (key), .type = CFG_KEY_FUNC, .parse = (fn) }

/* Entries of a table (keys or enum names, the NULL end included). */
#define CFG_ENTRIES(table) (sizeof(table) / sizeof((table)[0]))

extern const struct config_section config_daemon_section;	/* config_daemon.c */
extern const struct config_section config_tap_section;		/* config_tap.c */
extern const struct config_section config_port_section;		/* config_port.c */

void config_tap_init(struct config_tap *t, const char *name, unsigned int line);
void config_port_init(struct config_port *port, const char *name, unsigned int line);

#endif /* VRINGNET_CONFIG_SECTION_H */
