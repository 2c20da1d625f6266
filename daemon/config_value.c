// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config_value.c - the values of vringnetd.conf (see vringnetd.conf(5)):
 * numbers, modes, booleans, paths, names, users, groups, MAC and IP
 * addresses, and one helper for every enum-valued key (a table of
 * {name, value}: parse a name, name a value).  config_value_set() stores
 * a key of a section table (config_section.h) by its type.  Every error is
 * reported as "FILE:LINE: message" through config_value_err().
 *
 * This file calls no other file of the parser.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_value.h"

/**
 * config_value_err() - format "FILE:LINE: message" into the error buffer
 * @p: the parser
 * @line: line number
 * @fmt: printf format of the message
 *
 * Return: -EINVAL, for "return config_value_err(...)".
 */
int config_value_err(struct config_parser *p, unsigned int line, const char *fmt, ...)
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
 * config_value_name_problem() - why a string is not a valid interface/port name
 * @s: the name
 *
 * Return: NULL if valid, else a short reason.
 */
const char *config_value_name_problem(const char *s)
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
 * config_value_uint() - parse a canonical decimal number in a range
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @min: smallest allowed
 * @max: largest allowed
 * @out: the result
 *
 * Return: 0, or -EINVAL with the error set.
 */
int config_value_uint(struct config_parser *p, const char *key, const char *v,
		      unsigned long min, unsigned long max, unsigned int *out)
{
	unsigned long long n = 0;
	size_t i;

	if (!v[0] || (v[0] == '0' && v[1]) || strspn(v, "0123456789") != strlen(v))
		return config_value_err(p, p->line, "%s: '%s' is not a number", key, v);
	for (i = 0; v[i]; i++) {
		n = n * 10 + (unsigned int)(v[i] - '0');
		if (n > max)
			break;
	}
	if (n < min || n > max)
		return config_value_err(p, p->line, "%s: '%s' is out of range %lu..%lu", key,
					v, min, max);
	*out = (unsigned int)n;
	return 0;
}

/**
 * config_value_list_number() - one number of a list: canonical decimal
 * @s: where it starts
 * @end: out: the first byte after it
 * @out: the result (at most 2^32 - 1; larger numbers saturate)
 *
 * Return: 0, or -1 when @s does not start with a number.
 */
static int config_value_list_number(const char *s, const char **end, unsigned int *out)
{
	unsigned long long n = 0;
	size_t len = strspn(s, "0123456789"), i;

	if (!len || (s[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len && n <= 0xffffffffULL; i++)
		n = n * 10 + (unsigned int)(s[i] - '0');
	*out = n > 0xffffffffULL ? 0xffffffffu : (unsigned int)n;
	*end = s + len;
	return 0;
}

/**
 * config_value_list() - parse a list of numbers: N or N-M, comma-separated
 *	("2,3", "2-5", "0,4-7"), each number once
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @max: largest number allowed (the smallest is 0)
 * @maxn: most numbers the list may hold
 * @out: the numbers, in the order written (@maxn entries)
 * @n: out: how many
 *
 * Return: 0, or -EINVAL with the error set (not a list, a range that goes
 * down, a number above @max, a number given twice, more than @maxn).
 */
int config_value_list(struct config_parser *p, const char *key, const char *v,
		      unsigned int max, unsigned int maxn, unsigned int *out, unsigned int *n)
{
	const char *s = v;
	unsigned int lo, hi, x, i;

	*n = 0;
	for (;;) {
		if (config_value_list_number(s, &s, &lo))
			goto bad;
		hi = lo;
		if (*s == '-' && config_value_list_number(s + 1, &s, &hi))
			goto bad;
		if (hi < lo)
			return config_value_err(p, p->line, "%s: range %u-%u goes down", key, lo, hi);
		if (hi > max)
			return config_value_err(p, p->line, "%s: %u is out of range 0..%u", key,
						hi, max);
		for (x = lo; x <= hi; x++) {
			for (i = 0; i < *n; i++)
				if (out[i] == x)
					return config_value_err(p, p->line, "%s: %u is listed twice",
								key, x);
			if (*n == maxn)
				return config_value_err(p, p->line, "%s: more than %u entries",
							key, maxn);
			out[(*n)++] = x;
		}
		if (!*s)
			return 0;
		if (*s++ != ',')
			goto bad;
	}
bad:
	return config_value_err(p, p->line, "%s: '%s' is not a list like 2,3 or 2-5", key, v);
}

/**
 * config_value_mode() - parse an octal permission mode 0..0777
 * @p: the parser
 * @key: key name, for messages
 * @v: the text (1..4 octal digits)
 * @out: the result
 *
 * Return: 0, or -EINVAL.
 */
int config_value_mode(struct config_parser *p, const char *key, const char *v,
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
	return config_value_err(p, p->line, "%s: '%s' is not an octal mode 0..0777", key, v);
}

/**
 * config_value_bool() - parse yes/no
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @out: the result
 *
 * Return: 0, or -EINVAL.
 */
static int config_value_bool(struct config_parser *p, const char *key, const char *v, bool *out)
{
	if (!strcmp(v, "yes"))
		*out = true;
	else if (!strcmp(v, "no"))
		*out = false;
	else
		return config_value_err(p, p->line, "%s: '%s' is not yes or no", key, v);
	return 0;
}

/**
 * config_value_path() - check and copy a unix socket path
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @out: destination, CFG_PATH_MAX bytes
 *
 * Return: 0, or -EINVAL (not absolute, too long, non-printable bytes).
 */
static int config_value_path(struct config_parser *p, const char *key, const char *v, char *out)
{
	size_t i, n = strlen(v);

	if (v[0] != '/')
		return config_value_err(p, p->line, "%s: '%s' is not an absolute path", key, v);
	if (n >= CFG_PATH_MAX)
		return config_value_err(p, p->line,
					"%s: path longer than %zu bytes (a unix socket's limit)",
					key, CFG_PATH_MAX - 1);
	if (v[n - 1] == '/')
		return config_value_err(p, p->line, "%s: '%s' names a directory", key, v);
	for (i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || (unsigned char)v[i] == 0x7f)
			return config_value_err(p, p->line, "%s: control character in path", key);
	memcpy(out, v, n + 1);
	return 0;
}

/**
 * config_value_numeric_id() - parse a numeric uid/gid
 * @v: the text
 * @out: the result
 *
 * Return: true if @v is a canonical decimal below 4294967295.
 */
static bool config_value_numeric_id(const char *v, unsigned int *out)
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
 * config_value_buffer() - (re)size the buffer of a user or group lookup
 * @p: the parser
 * @key: key name, for messages
 * @buf: the buffer (NULL at first); freed when it cannot grow
 * @size: the size it needs
 *
 * Return: 0, or -EINVAL ("out of memory").
 */
static int config_value_buffer(struct config_parser *p, const char *key, char **buf,
			       size_t size)
{
	char *nb = realloc(*buf, size);

	if (!nb) {
		free(*buf);
		*buf = NULL;
		return config_value_err(p, p->line, "%s: out of memory", key);
	}
	*buf = nb;
	return 0;
}

/**
 * config_value_user() - look up a user by name or number
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @uid: the uid
 * @gid: the user's primary group (may be NULL)
 * @need_entry: a number must also exist in the user database
 *
 * Return: 0, or -EINVAL ("unknown user").
 */
int config_value_user(struct config_parser *p, const char *key, const char *v,
		      uid_t *uid, gid_t *gid, bool need_entry)
{
	struct passwd pw, *res = NULL;
	size_t size = 4096;
	unsigned int n = 0;
	bool numeric = config_value_numeric_id(v, &n);
	char *buf = NULL;
	int e;

	/* Retry with a larger buffer while the database says ERANGE. */
	do {
		if (config_value_buffer(p, key, &buf, size))
			return -EINVAL;
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
		return config_value_err(p, p->line, "%s: unknown user '%s'", key, v);
	}
	*uid = res->pw_uid;
	if (gid)
		*gid = res->pw_gid;
	free(buf);
	return 0;
}

/**
 * config_value_group() - look up a group by name or number
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @gid: the result
 *
 * Return: 0, or -EINVAL ("unknown group").
 */
static int config_value_group(struct config_parser *p, const char *key, const char *v, gid_t *gid)
{
	struct group gr, *res = NULL;
	size_t size = 16384;
	char *buf = NULL;
	unsigned int n;
	int e;

	if (config_value_numeric_id(v, &n)) {
		*gid = (gid_t)n;
		return 0;
	}
	/* Groups with many members need more than the first buffer. */
	do {
		if (config_value_buffer(p, key, &buf, size))
			return -EINVAL;
		e = getgrnam_r(v, &gr, buf, size, &res);
		size *= 4;
	} while (e == ERANGE && size <= (1u << 24));
	if (e || !res) {
		free(buf);
		return config_value_err(p, p->line, "%s: unknown group '%s'", key, v);
	}
	*gid = res->gr_gid;
	free(buf);
	return 0;
}

/**
 * config_value_mac() - parse xx:xx:xx:xx:xx:xx, refusing multicast and zero
 * @p: the parser
 * @v: the text
 * @mac: the result
 *
 * Return: 0, or -EINVAL.
 */
int config_value_mac(struct config_parser *p, const char *v, uint8_t mac[6])
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
		return config_value_err(p, p->line, "mac: '%s' is a multicast address", v);
	if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return config_value_err(p, p->line, "mac: '%s' is the zero address", v);
	return 0;
bad:
	return config_value_err(p, p->line,
				"mac: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)", v);
}

/**
 * config_value_address() - parse ADDRESS/PREFIX (IPv4 or IPv6)
 * @p: the parser
 * @v: the text
 * @a: the result
 *
 * Return: 0, or -EINVAL.
 */
int config_value_address(struct config_parser *p, const char *v, struct config_address *a)
{
	char host[INET6_ADDRSTRLEN + 8];
	const char *slash = strrchr(v, '/');
	unsigned int max, plen = 0;
	size_t i, n;

	memset(a, 0, sizeof(*a));
	if (!slash)
		return config_value_err(p, p->line, "address: '%s' lacks a /prefix", v);
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
			return config_value_err(p, p->line,
						"address: '%s' is the unspecified address", v);
		if ((h & 0xf0000000u) == 0xe0000000u)
			return config_value_err(p, p->line,
						"address: '%s' is a multicast address", v);
		if (h == 0xffffffffu)
			return config_value_err(p, p->line,
						"address: '%s' is the broadcast address", v);
	} else {
		if (IN6_IS_ADDR_UNSPECIFIED(&a->addr.in6))
			return config_value_err(p, p->line,
						"address: '%s' is the unspecified address", v);
		if (IN6_IS_ADDR_MULTICAST(&a->addr.in6))
			return config_value_err(p, p->line,
						"address: '%s' is a multicast address", v);
	}
	return 0;
bad:
	return config_value_err(p, p->line, "address: '%s' is not an IPv4 or IPv6 address", v);
bad_prefix:
	return config_value_err(p, p->line, "address: '%s' has a bad prefix length (1..%u)", v,
				a->family == AF_INET ? 32 : 128);
}

/**
 * config_value_name() - check and copy an interface name
 * @p: the parser
 * @key: key name, for messages
 * @noun: what the name names, for messages ("tap": "invalid tap name")
 * @v: the text
 * @out: destination, CFG_NAME_MAX bytes
 *
 * Return: 0, or -EINVAL.
 */
static int config_value_name(struct config_parser *p, const char *key, const char *noun,
			     const char *v, char *out)
{
	const char *why = config_value_name_problem(v);

	if (why)
		return config_value_err(p, p->line, "%s: invalid %s name '%s': %s", key, noun,
					v, why);
	strcpy(out, v);
	return 0;
}

/**
 * config_value_enum() - parse the name of an enum value
 * @p: the parser
 * @key: key name, for messages
 * @v: the text
 * @names: the names the key takes, ended by { NULL }
 * @out: the value of the name
 *
 * Return: 0, or -EINVAL ("'x' is not a, b or c", the names in table order).
 */
static int config_value_enum(struct config_parser *p, const char *key, const char *v,
			     const struct config_enum *names, int *out)
{
	char list[CFG_ERR_MAX];
	size_t len = 0;
	unsigned int i;

	for (i = 0; names[i].name; i++) {
		if (!strcmp(v, names[i].name)) {
			*out = names[i].value;
			return 0;
		}
	}
	list[0] = '\0';
	for (i = 0; names[i].name && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					i == 0 ? "" : names[i + 1].name ? ", " : " or ",
					names[i].name);
	return config_value_err(p, p->line, "%s: '%s' is not %s", key, v, list);
}

/**
 * config_value_enum_name() - the name of an enum value, as in the file
 * @names: the names of the enum, ended by { NULL }
 * @value: the value
 *
 * Return: its name, "?" for a value the table does not name.
 */
const char *config_value_enum_name(const struct config_enum *names, int value)
{
	unsigned int i;

	for (i = 0; names[i].name; i++)
		if (names[i].value == value)
			return names[i].name;
	return "?";
}

/**
 * config_value_set() - parse a key's value and store it by the key's type
 * @p: the parser
 * @k: the key, from its section's table
 * @object: the structure its offset is into (the section's @object)
 * @v: the value, not empty
 *
 * Return: 0, or -EINVAL with the error set.
 */
int config_value_set(struct config_parser *p, const struct config_key *k, void *object,
		     const char *v)
{
	void *field = (char *)object + k->offset;

	switch (k->type) {
	case CFG_KEY_UINT:
		return config_value_uint(p, k->name, v, k->min, k->max, field);
	case CFG_KEY_MODE:
		return config_value_mode(p, k->name, v, field);
	case CFG_KEY_BOOL:
		return config_value_bool(p, k->name, v, field);
	case CFG_KEY_PATH:
		return config_value_path(p, k->name, v, field);
	case CFG_KEY_NAME:
		return config_value_name(p, k->name, k->noun, v, field);
	case CFG_KEY_USER:
		return config_value_user(p, k->name, v, field, NULL, false);
	case CFG_KEY_GROUP:
		return config_value_group(p, k->name, v, field);
	case CFG_KEY_ENUM:
		return config_value_enum(p, k->name, v, k->names, field);
	case CFG_KEY_FUNC:
		return k->parse(p, k->name, v);
	}
	return config_value_err(p, p->line, "%s: key of unknown type %d", k->name, (int)k->type);
}
