// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config.c - parse and validate vringnetd.conf (see vringnetd.conf(5)).
 *
 * One pass over the lines; each key is parsed by its handler into the
 * current section; a section is checked when it ends (missing keys, keys
 * that contradict each other), the whole file at the end (references
 * between sections).  The first error stops the parse and is reported as
 * "FILE:LINE: message".  Nothing is left allocated after an error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

enum config_section { CONFIG_SEC_NONE, CONFIG_SEC_DAEMON, CONFIG_SEC_TAP, CONFIG_SEC_PORT };

/**
 * struct config_parser - state of one parse
 * @file: file name for messages
 * @cfg: the configuration being filled
 * @err: error buffer
 * @errlen: its size
 * @line: current line number
 * @sec: current section
 * @sec_line: line of its header
 * @daemon_line: line of the [daemon] header, 0 if none yet
 * @key_line: line of each key (index into config_keys) in the current section
 * @tap_cap: allocated entries of @cfg->taps
 * @port_cap: allocated entries of @cfg->ports
 * @port_tap_line: for each port, line of its tap key
 * @port_listen_line: for each port, line of its listen key
 * @tap_bridge_line: for each tap, line of its bridge key
 */
struct config_parser {
	const char *file;
	struct config *cfg;
	char *err;
	size_t errlen;
	unsigned int line;
	enum config_section sec;
	unsigned int sec_line;
	unsigned int daemon_line;
	unsigned int key_line[32];
	unsigned int tap_cap;
	unsigned int port_cap;
	unsigned int port_tap_line[CFG_MAX_PORTS];
	unsigned int port_listen_line[CFG_MAX_PORTS];
	unsigned int tap_bridge_line[CFG_MAX_TAPS];
};

/**
 * config_err() - format "FILE:LINE: message" into the error buffer
 * @p: the parser
 * @line: line number
 * @fmt: printf format of the message
 *
 * Return: -EINVAL, for "return config_err(...)".
 */
static int __attribute__((format(printf, 3, 4)))
config_err(struct config_parser *p, unsigned int line, const char *fmt, ...)
{
	char msg[CFG_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->err && p->errlen)
		snprintf(p->err, p->errlen, "%s:%u: %s", p->file, line, msg);
	return -EINVAL;
}

/**
 * config_cur_tap() - the tap of the current [tap] section
 * @p: the parser
 *
 * Return: the last tap added.
 */
static struct config_tap *config_cur_tap(struct config_parser *p)
{
	return &p->cfg->taps[p->cfg->ntaps - 1];
}

/**
 * config_cur_port() - the port of the current [port] section
 * @p: the parser
 *
 * Return: the last port added.
 */
static struct config_port *config_cur_port(struct config_parser *p)
{
	return &p->cfg->ports[p->cfg->nports - 1];
}

/* ------------------------------------------------------------ value parsers */

/**
 * config_name_problem() - why a string is not a valid interface/port name
 * @s: the name
 *
 * Return: NULL if valid, else a short reason.
 */
static const char *config_name_problem(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0)
		return "empty";
	if (n >= CFG_NAME_MAX)
		return "longer than 15 bytes";
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return "'.' and '..' are reserved";
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/')
			return "contains '/'";
		if (c == ':')
			return "contains ':'";
		if (c <= 0x20 || c >= 0x7f)
			return "contains whitespace or a non-printable byte";
	}
	return NULL;
}

/**
 * config_uint() - parse a canonical decimal number in a range
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @min: smallest allowed
 * @max: largest allowed
 * @out: the result
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_uint(struct config_parser *p, const char *key, const char *v,
		    unsigned long min, unsigned long max, unsigned int *out)
{
	unsigned long long n = 0;
	size_t i;

	if (!v[0] || (v[0] == '0' && v[1]) || strspn(v, "0123456789") != strlen(v))
		return config_err(p, p->line, "%s: '%s' is not a number", key, v);
	for (i = 0; v[i]; i++) {
		n = n * 10 + (unsigned int)(v[i] - '0');
		if (n > max)
			break;
	}
	if (n < min || n > max)
		return config_err(p, p->line, "%s: '%s' is out of range %lu..%lu", key,
			       v, min, max);
	*out = (unsigned int)n;
	return 0;
}

/**
 * config_mode() - parse an octal permission mode 0..0777
 * @p: the parser
 * @key: key name, for messages
 * @v: the text (1..4 octal digits)
 * @out: the result
 *
 * Return: 0, or -EINVAL.
 */
static int config_mode(struct config_parser *p, const char *key, const char *v,
		    mode_t *out)
{
	unsigned long m;
	char *end;

	if (!v[0] || strlen(v) > 4 || strspn(v, "01234567") != strlen(v))
		goto bad;
	m = strtoul(v, &end, 8);
	if (*end || m > 0777)
		goto bad;
	*out = (mode_t)m;
	return 0;
bad:
	return config_err(p, p->line, "%s: '%s' is not an octal mode 0..0777", key, v);
}

/**
 * config_bool() - parse yes/no
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @out: the result
 *
 * Return: 0, or -EINVAL.
 */
static int config_bool(struct config_parser *p, const char *key, const char *v, bool *out)
{
	if (!strcmp(v, "yes"))
		*out = true;
	else if (!strcmp(v, "no"))
		*out = false;
	else
		return config_err(p, p->line, "%s: '%s' is not yes or no", key, v);
	return 0;
}

/**
 * config_path() - check and copy a unix socket path
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @out: destination, CFG_PATH_MAX bytes
 *
 * Return: 0, or -EINVAL (not absolute, too long, non-printable bytes).
 */
static int config_path(struct config_parser *p, const char *key, const char *v, char *out)
{
	size_t i, n = strlen(v);

	if (v[0] != '/')
		return config_err(p, p->line, "%s: '%s' is not an absolute path", key, v);
	if (n >= CFG_PATH_MAX)
		return config_err(p, p->line, "%s: path longer than %zu bytes (a unix socket's limit)",
			       key, CFG_PATH_MAX - 1);
	if (v[n - 1] == '/')
		return config_err(p, p->line, "%s: '%s' names a directory", key, v);
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] == 0x7f)
			return config_err(p, p->line, "%s: control character in path", key);
	memcpy(out, v, n + 1);
	return 0;
}

/**
 * config_numeric_id() - parse a numeric uid/gid
 * @v: the text
 * @out: the result
 *
 * Return: true if @v is a canonical decimal below 4294967295.
 */
static bool config_numeric_id(const char *v, unsigned int *out)
{
	unsigned long long n = 0;
	size_t i;

	if (!v[0] || (v[0] == '0' && v[1]) || strlen(v) > 10 ||
	    strspn(v, "0123456789") != strlen(v))
		return false;
	for (i = 0; v[i]; i++)
		n = n * 10 + (unsigned int)(v[i] - '0');
	if (n >= 4294967295ULL)
		return false;
	*out = (unsigned int)n;
	return true;
}

/**
 * config_user() - look up a user by name or number
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @uid: the uid
 * @gid: the user's primary group (may be NULL)
 * @need_entry: a number must also exist in the user database
 *
 * Return: 0, or -EINVAL ("unknown user").
 */
static int config_user(struct config_parser *p, const char *key, const char *v,
		    uid_t *uid, gid_t *gid, bool need_entry)
{
	struct passwd pw, *res = NULL;
	size_t size = 4096;
	unsigned int n = 0;
	bool numeric = config_numeric_id(v, &n);
	char *buf = NULL;
	int e;

	/* Retry with a larger buffer while the database says ERANGE. */
	do {
		char *nb = realloc(buf, size);

		if (!nb) {
			free(buf);
			return config_err(p, p->line, "%s: out of memory", key);
		}
		buf = nb;
		if (numeric)
			e = getpwuid_r((uid_t)n, &pw, buf, size, &res);
		else
			e = getpwnam_r(v, &pw, buf, size, &res);
		size *= 4;
	} while (e == ERANGE && size <= (1u << 22));
	if (e || !res) {
		free(buf);
		if (numeric && !need_entry) {
			*uid = (uid_t)n;
			if (gid)
				*gid = (gid_t)-1;
			return 0;
		}
		return config_err(p, p->line, "%s: unknown user '%s'", key, v);
	}
	*uid = res->pw_uid;
	if (gid)
		*gid = res->pw_gid;
	free(buf);
	return 0;
}

/**
 * config_group() - look up a group by name or number
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @gid: the result
 *
 * Return: 0, or -EINVAL ("unknown group").
 */
static int config_group(struct config_parser *p, const char *key, const char *v, gid_t *gid)
{
	struct group gr, *res = NULL;
	size_t size = 16384;
	char *buf = NULL;
	unsigned int n;
	int e;

	if (config_numeric_id(v, &n)) {
		*gid = (gid_t)n;
		return 0;
	}
	/* Groups with many members need more than the first buffer. */
	do {
		char *nb = realloc(buf, size);

		if (!nb) {
			free(buf);
			return config_err(p, p->line, "%s: out of memory", key);
		}
		buf = nb;
		e = getgrnam_r(v, &gr, buf, size, &res);
		size *= 4;
	} while (e == ERANGE && size <= (1u << 24));
	if (e || !res) {
		free(buf);
		return config_err(p, p->line, "%s: unknown group '%s'", key, v);
	}
	*gid = res->gr_gid;
	free(buf);
	return 0;
}

/**
 * config_mac() - parse xx:xx:xx:xx:xx:xx, refusing multicast and zero
 * @p: the parser
 * @v: the text
 * @mac: the result
 *
 * Return: 0, or -EINVAL.
 */
static int config_mac(struct config_parser *p, const char *v, uint8_t mac[6])
{
	static const char hex[] = "0123456789abcdefABCDEF";
	unsigned int i;

	if (strlen(v) != 17)
		goto bad;
	for (i = 0; i < 6; i++) {
		const char *h = v + 3 * i;

		if (!strchr(hex, h[0]) || !strchr(hex, h[1]) || (i < 5 && h[2] != ':'))
			goto bad;
		mac[i] = (uint8_t)strtoul((char[]){ h[0], h[1], 0 }, NULL, 16);
	}
	if (mac[0] & 1)
		return config_err(p, p->line, "mac: '%s' is a multicast address", v);
	if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return config_err(p, p->line, "mac: '%s' is the zero address", v);
	return 0;
bad:
	return config_err(p, p->line, "mac: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", v);
}

/**
 * config_address() - parse ADDRESS/PREFIX (IPv4 or IPv6)
 * @p: the parser
 * @v: the text
 * @a: the result
 *
 * Return: 0, or -EINVAL.
 */
static int config_address(struct config_parser *p, const char *v, struct config_address *a)
{
	char host[INET6_ADDRSTRLEN + 8];
	const char *slash = strrchr(v, '/');
	unsigned int max, plen = 0;
	size_t i, n;

	memset(a, 0, sizeof(*a));
	if (!slash)
		return config_err(p, p->line, "address: '%s' lacks a /prefix", v);
	n = (size_t)(slash - v);
	if (n >= sizeof(host))
		goto bad;
	memcpy(host, v, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, &a->addr.in) == 1) {
		a->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, host, &a->addr.in6) == 1) {
		a->family = AF_INET6;
		max = 128;
	} else {
		goto bad;
	}
	slash++;
	if (!slash[0] || (slash[0] == '0' && slash[1]) || strlen(slash) > 3 ||
	    strspn(slash, "0123456789") != strlen(slash))
		goto bad_prefix;
	for (i = 0; slash[i]; i++)
		plen = plen * 10 + (unsigned int)(slash[i] - '0');
	if (plen < 1 || plen > max)
		goto bad_prefix;
	a->prefixlen = plen;
	if (a->family == AF_INET) {
		uint32_t h = ntohl(a->addr.in.s_addr);

		if (h == 0)
			return config_err(p, p->line, "address: '%s' is the unspecified address", v);
		if ((h & 0xf0000000u) == 0xe0000000u)
			return config_err(p, p->line, "address: '%s' is a multicast address", v);
		if (h == 0xffffffffu)
			return config_err(p, p->line, "address: '%s' is the broadcast address", v);
	} else {
		if (IN6_IS_ADDR_UNSPECIFIED(&a->addr.in6))
			return config_err(p, p->line, "address: '%s' is the unspecified address", v);
		if (IN6_IS_ADDR_MULTICAST(&a->addr.in6))
			return config_err(p, p->line, "address: '%s' is a multicast address", v);
	}
	return 0;
bad:
	return config_err(p, p->line, "address: '%s' is not an IPv4 or IPv6 address", v);
bad_prefix:
	return config_err(p, p->line, "address: '%s' has a bad prefix length (1..%u)", v,
		       a->family == AF_INET ? 32 : 128);
}

/* ------------------------------------------------------------ key handlers */

/**
 * config_key_control_socket() - handle the 'control-socket' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_control_socket(struct config_parser *p, const char *k, const char *v)
{
	return config_path(p, k, v, p->cfg->control_socket);
}

/**
 * config_key_control_mode() - handle the 'control-mode' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_control_mode(struct config_parser *p, const char *k, const char *v)
{
	p->cfg->control_mode_set = true;
	return config_mode(p, k, v, &p->cfg->control_mode);
}

/**
 * config_key_control_group() - handle the 'control-group' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_control_group(struct config_parser *p, const char *k, const char *v)
{
	return config_group(p, k, v, &p->cfg->control_gid);
}

/**
 * config_key_engine() - handle the 'engine' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_engine(struct config_parser *p, const char *k, const char *v)
{
	if (!strcmp(v, "auto"))
		p->cfg->engine = CONFIG_ENGINE_AUTO;
	else if (!strcmp(v, "kernel"))
		p->cfg->engine = CONFIG_ENGINE_KERNEL;
	else if (!strcmp(v, "user"))
		p->cfg->engine = CONFIG_ENGINE_USER;
	else
		return config_err(p, p->line, "engine: '%s' is not auto, kernel or user", v);
	return 0;
}

static const char *const config_log_names[] = {
	[CONFIG_LOG_ERR] = "err",
	[CONFIG_LOG_WARNING] = "warning",
	[CONFIG_LOG_NOTICE] = "notice",
	[CONFIG_LOG_INFO] = "info",
	[CONFIG_LOG_DEBUG] = "debug",
};

/**
 * config_key_log_level() - handle the 'log-level' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_log_level(struct config_parser *p, const char *k, const char *v)
{
	unsigned int i;

	for (i = 0; i < sizeof(config_log_names) / sizeof(config_log_names[0]); i++) {
		if (!strcmp(v, config_log_names[i])) {
			p->cfg->log_level = (enum config_log_level)i;
			return 0;
		}
	}
	return config_err(p, p->line,
		       "log-level: '%s' is not err, warning, notice, info or debug", v);
}

/**
 * config_key_user() - handle the 'user' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_user(struct config_parser *p, const char *k, const char *v)
{
	if (strlen(v) >= sizeof(p->cfg->user))
		return config_err(p, p->line, "user: name longer than %zu bytes",
			       sizeof(p->cfg->user) - 1);
	if (config_user(p, k, v, &p->cfg->uid, &p->cfg->gid, true))
		return -EINVAL;
	strcpy(p->cfg->user, v);
	return 0;
}

/**
 * config_key_mtu() - handle the 'mtu' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_mtu(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 68, 65535, &config_cur_tap(p)->mtu);
}

/**
 * config_key_mac() - handle the 'mac' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_mac(struct config_parser *p, const char *k, const char *v)
{
	struct config_tap *t = config_cur_tap(p);

	if (config_mac(p, v, t->mac))
		return -EINVAL;
	t->mac_set = true;
	return 0;
}

/**
 * config_key_address() - handle the 'address' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_address(struct config_parser *p, const char *k, const char *v)
{
	struct config_tap *t = config_cur_tap(p);
	struct config_address a;
	unsigned int i;

	if (config_address(p, v, &a))
		return -EINVAL;
	for (i = 0; i < t->naddresses; i++) {
		const struct config_address *b = &t->addresses[i];

		if (b->family == a.family && b->prefixlen == a.prefixlen &&
		    !memcmp(&b->addr, &a.addr, a.family == AF_INET ?
			    sizeof(a.addr.in) : sizeof(a.addr.in6)))
			return config_err(p, p->line, "address: '%s' is listed twice", v);
	}
	if (t->naddresses >= CFG_MAX_ADDRESSES)
		return config_err(p, p->line, "address: too many addresses (max %d)",
			       CFG_MAX_ADDRESSES);
	t->addresses[t->naddresses++] = a;
	return 0;
}

/**
 * config_key_bridge() - handle the 'bridge' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_bridge(struct config_parser *p, const char *k, const char *v)
{
	const char *why = config_name_problem(v);

	if (why)
		return config_err(p, p->line, "bridge: invalid interface name '%s': %s", v, why);
	strcpy(config_cur_tap(p)->bridge, v);
	p->tap_bridge_line[p->cfg->ntaps - 1] = p->line;
	return 0;
}

/**
 * config_key_queues() - handle the 'queues' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_queues(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 1, CFG_MAX_QUEUES, &config_cur_tap(p)->queues);
}

/**
 * config_key_ring_size() - handle the 'ring-size' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_ring_size(struct config_parser *p, const char *k, const char *v)
{
	unsigned int n;

	if (!v[0] || (v[0] == '0' && v[1]) || strspn(v, "0123456789") != strlen(v))
		return config_err(p, p->line, "%s: '%s' is not a number", k, v);
	if (strlen(v) > 5 || config_uint(p, k, v, 1, 32768, &n) || (n & (n - 1)))
		return config_err(p, p->line, "%s: '%s' is not a power of two in 1..32768", k, v);
	config_cur_tap(p)->ring_size = n;
	return 0;
}

/**
 * config_key_owner() - handle the 'owner' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_owner(struct config_parser *p, const char *k, const char *v)
{
	return config_user(p, k, v, &config_cur_tap(p)->owner_uid, NULL, false);
}

/**
 * config_key_group() - handle the 'group' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_group(struct config_parser *p, const char *k, const char *v)
{
	return config_group(p, k, v, &config_cur_tap(p)->group_gid);
}

/**
 * config_key_persist() - handle the 'persist' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_persist(struct config_parser *p, const char *k, const char *v)
{
	return config_bool(p, k, v, &config_cur_tap(p)->persist);
}

/**
 * config_key_tap() - handle the 'tap' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_tap(struct config_parser *p, const char *k, const char *v)
{
	const char *why = config_name_problem(v);

	if (why)
		return config_err(p, p->line, "tap: invalid tap name '%s': %s", v, why);
	strcpy(config_cur_port(p)->tap, v);
	p->port_tap_line[p->cfg->nports - 1] = p->line;
	return 0;
}

/**
 * config_key_type() - handle the 'type' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_type(struct config_parser *p, const char *k, const char *v)
{
	static const char *const names[] = {
		[CONFIG_PORT_VHOST_USER] = "vhost-user",
		[CONFIG_PORT_STREAM] = "stream",
		[CONFIG_PORT_DGRAM] = "dgram",
		[CONFIG_PORT_RINGFD] = "ringfd",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(v, names[i])) {
			config_cur_port(p)->type = (enum config_port_type)i;
			return 0;
		}
	}
	return config_err(p, p->line,
		       "type: '%s' is not vhost-user, stream, dgram or ringfd", v);
}

/**
 * config_key_listen() - handle the 'listen' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_listen(struct config_parser *p, const char *k, const char *v)
{
	p->port_listen_line[p->cfg->nports - 1] = p->line;
	return config_path(p, k, v, config_cur_port(p)->listen);
}

/**
 * config_key_connect() - handle the 'connect' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_connect(struct config_parser *p, const char *k, const char *v)
{
	return config_path(p, k, v, config_cur_port(p)->connect);
}

/**
 * config_key_peer() - handle the 'peer' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_peer(struct config_parser *p, const char *k, const char *v)
{
	return config_path(p, k, v, config_cur_port(p)->peer);
}

/**
 * config_key_socket_mode() - handle the 'socket-mode' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_socket_mode(struct config_parser *p, const char *k, const char *v)
{
	return config_mode(p, k, v, &config_cur_port(p)->socket_mode);
}

/**
 * config_key_socket_owner() - handle the 'socket-owner' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_socket_owner(struct config_parser *p, const char *k, const char *v)
{
	return config_user(p, k, v, &config_cur_port(p)->socket_uid, NULL, false);
}

/**
 * config_key_socket_group() - handle the 'socket-group' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_socket_group(struct config_parser *p, const char *k, const char *v)
{
	return config_group(p, k, v, &config_cur_port(p)->socket_gid);
}

/**
 * config_key_reconnect() - handle the 'reconnect' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_reconnect(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 1, 3600, &config_cur_port(p)->reconnect);
}

/**
 * config_key_handshake_timeout() - handle the 'handshake-timeout' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_handshake_timeout(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 1, 3600, &p->cfg->handshake_timeout);
}

/**
 * config_key_boot_timeout() - handle the 'boot-timeout' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_boot_timeout(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 1, 86400, &p->cfg->boot_timeout);
}

/**
 * config_key_message_timeout() - handle the 'message-timeout' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_message_timeout(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 1, 3600, &p->cfg->message_timeout);
}

/**
 * config_key_control_per_uid() - handle the 'control-clients-per-uid' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_control_per_uid(struct config_parser *p, const char *k, const char *v)
{
	return config_uint(p, k, v, 1, 15, &p->cfg->control_per_uid);
}

static const char *const config_seccomp_names[] = {
	[CONFIG_SECCOMP_ON] = "on",
	[CONFIG_SECCOMP_OFF] = "off",
	[CONFIG_SECCOMP_LOG] = "log",
};

/**
 * config_key_seccomp() - handle the 'seccomp' key
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_key_seccomp(struct config_parser *p, const char *k, const char *v)
{
	unsigned int i;

	for (i = 0; i < sizeof(config_seccomp_names) / sizeof(config_seccomp_names[0]); i++) {
		if (!strcmp(v, config_seccomp_names[i])) {
			p->cfg->seccomp = (enum config_seccomp)i;
			return 0;
		}
	}
	return config_err(p, p->line, "seccomp: '%s' is not on, off or log", v);
}

/**
 * config_seccomp_name() - a seccomp mode as written in the file
 * @mode: the mode
 *
 * Return: "on", "off" or "log" ("?" for a bad value).
 */
const char *config_seccomp_name(enum config_seccomp mode)
{
	if ((unsigned int)mode < sizeof(config_seccomp_names) / sizeof(config_seccomp_names[0]))
		return config_seccomp_names[mode];
	return "?";
}

/**
 * struct config_key - a known key
 * @name: as written in the file
 * @sec: the section it belongs to
 * @repeat: may appear more than once
 * @parse: handler
 */
static const struct config_key {
	const char *name;
	enum config_section sec;
	bool repeat;
	int (*parse)(struct config_parser *p, const char *key, const char *value);
} config_keys[] = {
	{ "control-socket", CONFIG_SEC_DAEMON, false, config_key_control_socket },
	{ "control-mode", CONFIG_SEC_DAEMON, false, config_key_control_mode },
	{ "control-group", CONFIG_SEC_DAEMON, false, config_key_control_group },
	{ "engine", CONFIG_SEC_DAEMON, false, config_key_engine },
	{ "log-level", CONFIG_SEC_DAEMON, false, config_key_log_level },
	{ "user", CONFIG_SEC_DAEMON, false, config_key_user },
	{ "handshake-timeout", CONFIG_SEC_DAEMON, false, config_key_handshake_timeout },
	{ "boot-timeout", CONFIG_SEC_DAEMON, false, config_key_boot_timeout },
	{ "message-timeout", CONFIG_SEC_DAEMON, false, config_key_message_timeout },
	{ "control-clients-per-uid", CONFIG_SEC_DAEMON, false, config_key_control_per_uid },
	{ "seccomp", CONFIG_SEC_DAEMON, false, config_key_seccomp },
	{ "mtu", CONFIG_SEC_TAP, false, config_key_mtu },
	{ "mac", CONFIG_SEC_TAP, false, config_key_mac },
	{ "address", CONFIG_SEC_TAP, true, config_key_address },
	{ "bridge", CONFIG_SEC_TAP, false, config_key_bridge },
	{ "queues", CONFIG_SEC_TAP, false, config_key_queues },
	{ "ring-size", CONFIG_SEC_TAP, false, config_key_ring_size },
	{ "owner", CONFIG_SEC_TAP, false, config_key_owner },
	{ "group", CONFIG_SEC_TAP, false, config_key_group },
	{ "persist", CONFIG_SEC_TAP, false, config_key_persist },
	{ "tap", CONFIG_SEC_PORT, false, config_key_tap },
	{ "type", CONFIG_SEC_PORT, false, config_key_type },
	{ "listen", CONFIG_SEC_PORT, false, config_key_listen },
	{ "connect", CONFIG_SEC_PORT, false, config_key_connect },
	{ "peer", CONFIG_SEC_PORT, false, config_key_peer },
	{ "socket-mode", CONFIG_SEC_PORT, false, config_key_socket_mode },
	{ "socket-owner", CONFIG_SEC_PORT, false, config_key_socket_owner },
	{ "socket-group", CONFIG_SEC_PORT, false, config_key_socket_group },
	{ "reconnect", CONFIG_SEC_PORT, false, config_key_reconnect },
};

#define CONFIG_NKEYS (sizeof(config_keys) / sizeof(config_keys[0]))

_Static_assert(CONFIG_NKEYS <= 32, "key_line[] too small");

/**
 * config_key_index() - index of a key of the current section in config_keys
 * @sec: the section
 * @name: the key
 *
 * Return: the index, or -1.
 */
static int config_key_index(enum config_section sec, const char *name)
{
	unsigned int i;

	for (i = 0; i < CONFIG_NKEYS; i++)
		if (config_keys[i].sec == sec && !strcmp(config_keys[i].name, name))
			return (int)i;
	return -1;
}

/**
 * config_line_of() - line of a key in the current section
 * @p: the parser
 * @name: the key
 *
 * Return: its line, 0 if it was not given.
 */
static unsigned int config_line_of(struct config_parser *p, const char *name)
{
	int i = config_key_index(p->sec, name);

	return i < 0 ? 0 : p->key_line[i];
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
	struct config_port *port;
	unsigned int l_listen, l_connect, l;

	if (p->sec == CONFIG_SEC_TAP) {
		struct config_tap *t = config_cur_tap(p);

		if (!t->mac_set)
			config_default_mac(t->name, t->mac);
		return 0;
	}
	if (p->sec != CONFIG_SEC_PORT)
		return 0;
	port = config_cur_port(p);
	if (!config_line_of(p, "tap"))
		return config_err(p, p->sec_line, "port '%s': missing key 'tap'", port->name);
	if (!config_line_of(p, "type"))
		return config_err(p, p->sec_line, "port '%s': missing key 'type'", port->name);
	l_listen = config_line_of(p, "listen");
	l_connect = config_line_of(p, "connect");
	if (!l_listen && !l_connect)
		return config_err(p, p->sec_line, "port '%s': needs listen or connect",
			       port->name);
	if (l_listen && l_connect)
		return config_err(p, l_listen > l_connect ? l_listen : l_connect,
			       "port '%s': listen and connect are exclusive", port->name);
	l = config_line_of(p, "peer");
	if (l && port->type != CONFIG_PORT_DGRAM)
		return config_err(p, l, "peer: only valid for type dgram");
	if (l_connect && port->type == CONFIG_PORT_RINGFD)
		return config_err(p, l_connect, "connect: a ringfd port only listens");
	l = config_line_of(p, "reconnect");
	if (l && !l_connect)
		return config_err(p, l, "reconnect: only valid with connect");
	if (!l_listen) {
		static const char *const only_listen[] = {
			"socket-mode", "socket-owner", "socket-group",
		};
		unsigned int i;

		for (i = 0; i < 3; i++) {
			l = config_line_of(p, only_listen[i]);
			if (l)
				return config_err(p, l, "%s: only valid with listen",
					       only_listen[i]);
		}
	}
	return 0;
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
	unsigned int i;
	const char *why;

	if (!close)
		return config_err(p, p->line, "unterminated section header");
	rest = close + 1;
	rest += strspn(rest, " \t");
	if (*rest && *rest != '#')
		return config_err(p, p->line, "trailing garbage after ']'");
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
	if (!strcmp(type, "daemon")) {
		if (*name)
			return config_err(p, p->line, "section [daemon] takes no name");
		if (p->daemon_line)
			return config_err(p, p->line, "duplicate section [daemon] (first at line %u)",
				       p->daemon_line);
		p->daemon_line = p->line;
		p->sec = CONFIG_SEC_DAEMON;
		return 0;
	}
	if (strcmp(type, "tap") && strcmp(type, "port"))
		return config_err(p, p->line, "unknown section [%s]", type);
	if (!*name)
		return config_err(p, p->line, "section [%s] needs a name", type);
	why = config_name_problem(name);
	if (why)
		return config_err(p, p->line, "invalid %s name '%s': %s", type, name, why);
	if (!strcmp(type, "tap")) {
		struct config_tap *t;

		for (i = 0; i < cfg->ntaps; i++)
			if (!strcmp(cfg->taps[i].name, name))
				return config_err(p, p->line, "duplicate tap '%s' (first at line %u)",
					       name, cfg->taps[i].line);
		if (cfg->ntaps >= CFG_MAX_TAPS)
			return config_err(p, p->line, "too many taps (max %d)", CFG_MAX_TAPS);
		if (config_grow((void **)&cfg->taps, &p->tap_cap, cfg->ntaps, sizeof(*t)))
			return config_err(p, p->line, "out of memory");
		t = &cfg->taps[cfg->ntaps++];
		memset(t, 0, sizeof(*t));
		strcpy(t->name, name);
		t->line = p->line;
		t->queues = 1;
		t->ring_size = 256;
		t->owner_uid = (uid_t)-1;
		t->group_gid = (gid_t)-1;
		p->tap_bridge_line[cfg->ntaps - 1] = 0;
		p->sec = CONFIG_SEC_TAP;
	} else {
		struct config_port *port;

		for (i = 0; i < cfg->nports; i++)
			if (!strcmp(cfg->ports[i].name, name))
				return config_err(p, p->line, "duplicate port '%s' (first at line %u)",
					       name, cfg->ports[i].line);
		if (cfg->nports >= CFG_MAX_PORTS)
			return config_err(p, p->line, "too many ports (max %d)", CFG_MAX_PORTS);
		if (config_grow((void **)&cfg->ports, &p->port_cap, cfg->nports, sizeof(*port)))
			return config_err(p, p->line, "out of memory");
		port = &cfg->ports[cfg->nports++];
		memset(port, 0, sizeof(*port));
		strcpy(port->name, name);
		port->line = p->line;
		port->socket_mode = 0660;
		port->socket_uid = (uid_t)-1;
		port->socket_gid = (gid_t)-1;
		port->reconnect = 1;
		p->port_tap_line[cfg->nports - 1] = 0;
		p->port_listen_line[cfg->nports - 1] = 0;
		p->sec = CONFIG_SEC_PORT;
	}
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
	static const char *const sec_names[] = { "", "daemon", "tap", "port" };
	char *eq = strchr(s, '='), *key = s, *v, *c;
	size_t n;
	int i;

	if (!eq)
		return config_err(p, p->line, "expected 'key = value'");
	for (n = (size_t)(eq - key); n > 0 && (key[n - 1] == ' ' || key[n - 1] == '\t'); n--)
		;
	key[n] = '\0';
	if (n == 0 || strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
		return config_err(p, p->line, "expected 'key = value'");
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
	if (p->sec == CONFIG_SEC_NONE)
		return config_err(p, p->line, "key '%s' outside of a section", key);
	i = config_key_index(p->sec, key);
	if (i < 0) {
		if (p->sec == CONFIG_SEC_DAEMON)
			return config_err(p, p->line, "unknown key '%s' in [daemon]", key);
		return config_err(p, p->line, "unknown key '%s' in [%s %s]", key,
			       sec_names[p->sec], p->sec == CONFIG_SEC_TAP ?
			       config_cur_tap(p)->name : config_cur_port(p)->name);
	}
	if (p->key_line[i] && !config_keys[i].repeat)
		return config_err(p, p->line, "duplicate key '%s' (first at line %u)", key,
			       p->key_line[i]);
	if (!*v)
		return config_err(p, p->line, "missing value for '%s'", key);
	if (!p->key_line[i])
		p->key_line[i] = p->line;
	return config_keys[i].parse(p, key, v);
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

	if (config_end_section(p))
		return -EINVAL;
	for (i = 0; i < cfg->ntaps; i++) {
		const struct config_tap *t = &cfg->taps[i];

		if (t->bridge[0] && config_find_tap(cfg, t->bridge))
			return config_err(p, p->tap_bridge_line[i],
				       "bridge: '%s' is a tap of this file", t->bridge);
	}
	for (i = 0; i < cfg->nports; i++) {
		const struct config_port *port = &cfg->ports[i];

		if (!config_find_tap(cfg, port->tap))
			return config_err(p, p->port_tap_line[i], "tap: no tap '%s' in this file",
				       port->tap);
		for (j = 0; j < i; j++) {
			if (!strcmp(cfg->ports[j].tap, port->tap))
				return config_err(p, p->port_tap_line[i],
					       "tap: '%s' is already used by port '%s' (line %u)",
					       port->tap, cfg->ports[j].name, cfg->ports[j].line);
			if (port->listen[0] && !strcmp(cfg->ports[j].listen, port->listen))
				return config_err(p, p->port_listen_line[i],
					       "listen: '%s' is already used by port '%s' (line %u)",
					       port->listen, cfg->ports[j].name,
					       cfg->ports[j].line);
		}
		if (port->listen[0] && !strcmp(port->listen, cfg->control_socket))
			return config_err(p, p->port_listen_line[i],
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
	cfg->engine = CONFIG_ENGINE_AUTO;
	cfg->log_level = CONFIG_LOG_INFO;
	cfg->uid = (uid_t)-1;
	cfg->gid = (gid_t)-1;
	cfg->handshake_timeout = CFG_DEFAULT_HANDSHAKE_TIMEOUT;
	cfg->boot_timeout = CFG_DEFAULT_BOOT_TIMEOUT;
	cfg->message_timeout = CFG_DEFAULT_MESSAGE_TIMEOUT;
	cfg->control_per_uid = CFG_DEFAULT_CONTROL_PER_UID;
	cfg->seccomp = CONFIG_SECCOMP_ON;
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
			ret = config_err(p, p->line, "line too long (over %d bytes)", CFG_LINE_MAX);
			break;
		}
		if (memchr(text + pos, '\0', n)) {
			ret = config_err(p, p->line, "NUL byte in line");
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

/**
 * config_engine_name() - name of an engine setting
 * @engine: the setting
 *
 * Return: "auto", "kernel" or "user" ("?" for a bad value).
 */
const char *config_engine_name(enum config_engine engine)
{
	switch (engine) {
	case CONFIG_ENGINE_AUTO:
		return "auto";
	case CONFIG_ENGINE_KERNEL:
		return "kernel";
	case CONFIG_ENGINE_USER:
		return "user";
	}
	return "?";
}

/**
 * config_port_type_name() - name of a port type
 * @type: the type
 *
 * Return: "vhost-user", "stream", "dgram" or "ringfd" ("?" for a bad value).
 */
const char *config_port_type_name(enum config_port_type type)
{
	switch (type) {
	case CONFIG_PORT_VHOST_USER:
		return "vhost-user";
	case CONFIG_PORT_STREAM:
		return "stream";
	case CONFIG_PORT_DGRAM:
		return "dgram";
	case CONFIG_PORT_RINGFD:
		return "ringfd";
	}
	return "?";
}

/**
 * config_log_level_name() - name of a log level
 * @level: the level
 *
 * Return: "err", "warning", "notice", "info" or "debug" ("?" for a bad value).
 */
const char *config_log_level_name(enum config_log_level level)
{
	if ((unsigned int)level >= sizeof(config_log_names) / sizeof(config_log_names[0]))
		return "?";
	return config_log_names[level];
}

/**
 * config_default_mac() - the stable default MAC address of a tap
 * @name: the tap's name
 * @mac: the result: 02:xx:xx:xx:xx:xx (locally administered, unicast),
 *	the low five bytes from a 64-bit FNV-1a hash of "vringnetd:" + @name
 */
void config_default_mac(const char *name, uint8_t mac[6])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *s;
	unsigned int i;

	for (s = "vringnetd:"; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	for (s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	mac[0] = 0x02;
	for (i = 1; i < 6; i++)
		mac[i] = (uint8_t)(h >> (8 * (i - 1)));
}
