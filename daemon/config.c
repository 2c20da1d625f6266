// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config.c - parse and validate vringnetd.conf (see vringnetd.conf(5)).
 *
 * One pass over the lines; each key is looked up in its section type's
 * table (config_section.h: config_daemon.c, config_tap.c, config_port.c)
 * and parsed into the current section by its type (config_value.c); a
 * section is checked when it ends (missing keys, keys that contradict each
 * other), the whole file at the end (references between sections).  The
 * first error stops the parse and is reported as "FILE:LINE: message".
 * Nothing is left allocated after an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config_section.h"
#include "config_value.h"

static const struct config_section *const config_sections[] = {
	&config_daemon_section, &config_tap_section, &config_port_section,
};

/**
 * config_section_of() - a section type by the name in its header
 * @type: "daemon", "tap" or "port"
 *
 * Return: the section type, or NULL.
 */
static const struct config_section *config_section_of(const char *type)
{
	unsigned int i;

	for (i = 0; i < CFG_ENTRIES(config_sections); i++)
		if (!strcmp(config_sections[i]->name, type))
			return config_sections[i];
	return NULL;
}

/**
 * config_key_index() - index of a key in the current section type's table
 * @sec: the section type
 * @name: the key
 *
 * Return: the index, or -1.
 */
static int config_key_index(const struct config_section *sec, const char *name)
{
	unsigned int i;

	for (i = 0; i < sec->nkeys; i++)
		if (!strcmp(sec->keys[i].name, name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------ sections */

/**
 * config_end_section() - checks when a section ends
 * @p: the parser
 *
 * Return: 0, or -EINVAL.
 */
static int config_end_section(struct config_parser *p)
{
	if (!p->sec || !p->sec->end)
		return 0;
	return p->sec->end(p);
}

/**
 * config_grow() - make room for one more entry of an array
 * @arr: the array pointer
 * @cap: its capacity
 * @n: entries used
 * @size: size of an entry
 *
 * Return: 0 or -ENOMEM.
 */
static int config_grow(void **arr, unsigned int *cap, unsigned int n, size_t size)
{
	unsigned int ncap;
	void *a;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	a = realloc(*arr, (size_t)ncap * size);
	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = ncap;
	return 0;
}

/**
 * config_begin_section() - handle a "[...]" line
 * @p: the parser
 * @s: the line, trimmed, starting with '['
 *
 * Return: 0, or -EINVAL/-ENOMEM.
 */
static int config_begin_section(struct config_parser *p, char *s)
{
	struct config *cfg = p->cfg;
	char *close = strchr(s, ']'), *type, *name, *rest;
	const struct config_section *sec;
	const char *why;

	if (!close)
		return config_value_err(p, p->line, "unterminated section header");
	rest = close + 1;
	rest += strspn(rest, " \t");
	if (*rest && *rest != '#')
		return config_value_err(p, p->line, "trailing garbage after ']'");
	*close = '\0';
	type = s + 1;
	type += strspn(type, " \t");
	name = type + strcspn(type, " \t");
	if (*name) {
		size_t e;

		*name++ = '\0';
		name += strspn(name, " \t");
		for (e = strlen(name); e > 0 && (name[e - 1] == ' ' || name[e - 1] == '\t'); e--)
			name[e - 1] = '\0';
	}
	if (config_end_section(p))
		return -EINVAL;
	memset(p->key_line, 0, sizeof(p->key_line));
	p->sec_line = p->line;
	sec = config_section_of(type);
	if (sec == &config_daemon_section) {
		if (*name)
			return config_value_err(p, p->line, "section [daemon] takes no name");
		if (p->daemon_line)
			return config_value_err(p, p->line,
						"duplicate section [daemon] (first at line %u)",
						p->daemon_line);
		p->daemon_line = p->line;
		p->sec = sec;
		p->sec_name[0] = '\0';
		return 0;
	}
	if (!sec)
		return config_value_err(p, p->line, "unknown section [%s]", type);
	if (!*name)
		return config_value_err(p, p->line, "section [%s] needs a name", type);
	why = config_value_name_problem(name);
	if (why)
		return config_value_err(p, p->line, "invalid %s name '%s': %s", type, name, why);
	if (sec == &config_tap_section) {
		const struct config_tap *dup = config_find_tap(cfg, name);

		if (dup)
			return config_value_err(p, p->line, "duplicate tap '%s' (first at line %u)",
						name, dup->line);
		if (cfg->ntaps >= CFG_MAX_TAPS)
			return config_value_err(p, p->line, "too many taps (max %d)", CFG_MAX_TAPS);
		if (config_grow((void **)&cfg->taps, &p->tap_cap, cfg->ntaps, sizeof(*cfg->taps)))
			return config_value_err(p, p->line, "out of memory");
		config_tap_init(&cfg->taps[cfg->ntaps++], name, p->line);
	} else {
		const struct config_port *dup = config_find_port(cfg, name);

		if (dup)
			return config_value_err(p, p->line,
						"duplicate port '%s' (first at line %u)", name, dup->line);
		if (cfg->nports >= CFG_MAX_PORTS)
			return config_value_err(p, p->line,
						"too many ports (max %d)", CFG_MAX_PORTS);
		if (config_grow((void **)&cfg->ports, &p->port_cap, cfg->nports,
				sizeof(*cfg->ports)))
			return config_value_err(p, p->line, "out of memory");
		config_port_init(&cfg->ports[cfg->nports++], name, p->line);
	}
	p->sec = sec;
	strcpy(p->sec_name, name);
	return 0;
}

/**
 * config_key_value() - handle a "key = value" line
 * @p: the parser
 * @s: the line, trimmed
 *
 * Return: 0, or -EINVAL.
 */
static int config_key_value(struct config_parser *p, char *s)
{
	char *eq = strchr(s, '='), *key = s, *v, *c;
	size_t n;
	int i;

	if (!eq)
		return config_value_err(p, p->line, "expected 'key = value'");
	for (n = (size_t)(eq - key); n > 0 && (key[n - 1] == ' ' || key[n - 1] == '\t'); n--)
		;
	key[n] = '\0';
	if (n == 0 || strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return config_value_err(p, p->line, "expected 'key = value'");
	v = eq + 1;
	/* A comment starts at a '#' at the start of the value or after a blank. */
	for (c = v; *c; c++) {
		if (*c == '#' && (c == v || c[-1] == ' ' || c[-1] == '\t')) {
			*c = '\0';
			break;
		}
	}
	v += strspn(v, " \t");
	for (n = strlen(v); n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--)
		v[n - 1] = '\0';
	if (!p->sec)
		return config_value_err(p, p->line, "key '%s' outside of a section", key);
	i = config_key_index(p->sec, key);
	if (i < 0) {
		if (!p->sec->named)
			return config_value_err(p, p->line, "unknown key '%s' in [%s]", key,
						p->sec->name);
		return config_value_err(p, p->line, "unknown key '%s' in [%s %s]", key,
					p->sec->name, p->sec_name);
	}
	if (p->key_line[i] && !p->sec->keys[i].repeat)
		return config_value_err(p, p->line, "duplicate key '%s' (first at line %u)", key,
					p->key_line[i]);
	if (!*v)
		return config_value_err(p, p->line, "missing value for '%s'", key);
	if (!p->key_line[i])
		p->key_line[i] = p->line;
	return config_value_set(p, &p->sec->keys[i], p->sec->object(p), v);
}

/**
 * config_end_workers() - checks between [daemon] workers, worker-cpus and
 *	each port's workers
 * @p: the parser
 *
 * worker-cpus names one CPU per pump thread: as many as workers = N, any
 * number with auto (which then starts at most that many), and none with
 * workers = 1 (no pump thread).  A port's workers are indexes below
 * workers = N (with auto, the ones that do not run are ignored at start).
 * Return: 0, or -EINVAL.
 */
static int config_end_workers(struct config_parser *p)
{
	const struct config *cfg = p->cfg;
	unsigned int i;

	if (p->worker_cpus_line && cfg->workers == 1)
		return config_value_err(p, p->worker_cpus_line,
					"worker-cpus: workers = 1 starts no pump thread to pin");
	if (p->worker_cpus_line && cfg->workers != CFG_WORKERS_AUTO &&
	    cfg->nworker_cpus != cfg->workers)
		return config_value_err(p, p->worker_cpus_line,
					"worker-cpus: lists %u CPUs, workers = %u (line %u) needs one per worker",
					cfg->nworker_cpus, cfg->workers, p->workers_line);
	if (cfg->workers == CFG_WORKERS_AUTO)
		return 0;
	for (i = 0; i < cfg->nports; i++) {
		uint64_t beyond = cfg->workers < CFG_MAX_WORKERS ?
				  cfg->ports[i].workers >> cfg->workers : 0;

		if (beyond)
			return config_value_err(p, p->port_workers_line[i],
						"workers: worker %u does not exist ([daemon] workers = %u: 0..%u)",
						cfg->workers + (unsigned int)__builtin_ctzll(beyond),
						cfg->workers, cfg->workers - 1);
	}
	return 0;
}

/**
 * config_end_file() - checks across sections
 * @p: the parser
 *
 * Return: 0, or -EINVAL.
 */
static int config_end_file(struct config_parser *p)
{
	struct config *cfg = p->cfg;
	unsigned int i, j;

	if (config_end_section(p) || config_end_workers(p))
		return -EINVAL;
	for (i = 0; i < cfg->ntaps; i++) {
		const struct config_tap *t = &cfg->taps[i];

		if (t->bridge[0] && config_find_tap(cfg, t->bridge))
			return config_value_err(p, p->tap_bridge_line[i],
						"bridge: '%s' is a tap of this file", t->bridge);
	}
	for (i = 0; i < cfg->nports; i++) {
		const struct config_port *port = &cfg->ports[i];

		if (!config_find_tap(cfg, port->tap))
			return config_value_err(p, p->port_tap_line[i],
						"tap: no tap '%s' in this file", port->tap);
		for (j = 0; j < i; j++) {
			const struct config_port *other = &cfg->ports[j];

			if (!strcmp(other->tap, port->tap))
				return config_value_err(p, p->port_tap_line[i],
							"tap: '%s' is already used by port '%s' (line %u)",
							port->tap, other->name, other->line);
			if (port->listen[0] && !strcmp(other->listen, port->listen))
				return config_value_err(p, p->port_listen_line[i],
							"listen: '%s' is already used by port '%s' (line %u)",
							port->listen, other->name, other->line);
		}
		if (port->listen[0] && !strcmp(port->listen, cfg->control_socket))
			return config_value_err(p, p->port_listen_line[i],
						"listen: '%s' is the control socket", port->listen);
	}
	return 0;
}

/**
 * config_defaults() - reset a configuration to the defaults of an empty file
 * @cfg: the configuration
 * @name: its file name
 */
static void config_defaults(struct config *cfg, const char *name)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->path, sizeof(cfg->path), "%s", name);
	strcpy(cfg->control_socket, CFG_DEFAULT_CONTROL);
	cfg->control_mode = 0660;
	cfg->control_gid = (gid_t)-1;
	cfg->engine = CFG_ENGINE_AUTO;
	cfg->log_level = CFG_LOG_INFO;
	cfg->uid = (uid_t)-1;
	cfg->gid = (gid_t)-1;
	cfg->handshake_timeout = CFG_DEFAULT_HANDSHAKE_TIMEOUT;
	cfg->boot_timeout = CFG_DEFAULT_BOOT_TIMEOUT;
	cfg->message_timeout = CFG_DEFAULT_MESSAGE_TIMEOUT;
	cfg->control_per_uid = CFG_DEFAULT_CONTROL_PER_UID;
	cfg->seccomp = CFG_SECCOMP_ON;
	cfg->upgrade = false;
	cfg->workers = 1;
}

/**
 * config_parse_buffer() - parse a configuration from memory
 * @name: file name used in messages and stored in @cfg->path
 * @text: the bytes (need not be NUL-terminated; a NUL byte is an error)
 * @len: their number
 * @cfg: the result; on success free it with config_free()
 * @err: "FILE:LINE: message" of the first error
 * @errlen: size of @err
 *
 * Return: 0, -EINVAL for an invalid file, -ENOMEM.  On error @cfg holds
 * nothing to free.
 */
int config_parse_buffer(const char *name, const char *text, size_t len,
		     struct config *cfg, char *err, size_t errlen)
{
	struct config_parser *p;
	char line[CFG_LINE_MAX + 1];
	size_t pos = 0;
	int ret = 0;

	if (err && errlen)
		err[0] = '\0';
	config_defaults(cfg, name);
	p = calloc(1, sizeof(*p));
	if (!p) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	p->file = name;
	p->cfg = cfg;
	p->err = err;
	p->errlen = errlen;
	while (pos < len && !ret) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
		char *s;
		size_t e;

		p->line++;
		if (n > CFG_LINE_MAX) {
			ret = config_value_err(p, p->line,
					       "line too long (over %d bytes)", CFG_LINE_MAX);
			break;
		}
		if (memchr(text + pos, '\0', n)) {
			ret = config_value_err(p, p->line, "NUL byte in line");
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += n + 1;
		s = line + strspn(line, " \t\r");
		for (e = strlen(s); e > 0 && (s[e - 1] == ' ' || s[e - 1] == '\t' ||
					      s[e - 1] == '\r'); e--)
			s[e - 1] = '\0';
		if (!*s || *s == '#')
			continue;
		if (*s == '[')
			ret = config_begin_section(p, s);
		else
			ret = config_key_value(p, s);
	}
	if (!ret)
		ret = config_end_file(p);
	free(p);
	if (ret) {
		config_free(cfg);
		return ret;
	}
	return 0;
}

/**
 * config_load() - read and parse a configuration file
 * @path: the file
 * @cfg: the result; on success free it with config_free()
 * @err: "FILE:LINE: message" (or "FILE: message" for a file that cannot be
 *	read: missing, not a regular file, over CFG_FILE_MAX bytes)
 * @errlen: size of @err
 *
 * Return: 0, -EINVAL for an invalid file, or -errno (@err set in all cases).
 */
int config_load(const char *path, struct config *cfg, char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, ret;

	config_defaults(cfg, "");
	if (strlen(path) >= sizeof(cfg->path)) {
		snprintf(err, errlen, "%.64s...: path too long", path);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, errlen, "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size > CFG_FILE_MAX) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s: file larger than %d bytes", path, CFG_FILE_MAX);
		goto out;
	}
	buf = malloc(CFG_FILE_MAX + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	/* Read until EOF: the file may have grown since fstat(). */
	for (;;) {
		ssize_t r = read(fd, buf + got, CFG_FILE_MAX + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > CFG_FILE_MAX) {
			ret = -EFBIG;
			snprintf(err, errlen, "%s: file larger than %d bytes", path,
				 CFG_FILE_MAX);
			goto out;
		}
	}
	ret = config_parse_buffer(path, buf, got, cfg, err, errlen);
out:
	free(buf);
	close(fd);
	return ret;
}

/**
 * config_free() - release a configuration's arrays
 * @cfg: the configuration (zeroed or parsed; may be freed twice)
 */
void config_free(struct config *cfg)
{
	free(cfg->taps);
	free(cfg->ports);
	cfg->taps = NULL;
	cfg->ports = NULL;
	cfg->ntaps = 0;
	cfg->nports = 0;
}

/**
 * config_find_tap() - a tap by name
 * @cfg: the configuration
 * @name: the tap's name
 *
 * Return: the tap, or NULL.
 */
const struct config_tap *config_find_tap(const struct config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->ntaps; i++)
		if (!strcmp(cfg->taps[i].name, name))
			return &cfg->taps[i];
	return NULL;
}

/**
 * config_find_port() - a port by name
 * @cfg: the configuration
 * @name: the port's name
 *
 * Return: the port, or NULL.
 */
const struct config_port *config_find_port(const struct config *cfg, const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->nports; i++)
		if (!strcmp(cfg->ports[i].name, name))
			return &cfg->ports[i];
	return NULL;
}
