// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * config_tap.c - the [tap NAME] section of vringnetd.conf: its keys, its
 * defaults, and the stable default MAC address of a tap.
 */
#include <errno.h>
#include <string.h>

#include "config_section.h"
#include "config_value.h"

/* Index of each key in config_tap_keys[]. */
enum config_tap_key {
	TAP_KEY_MTU,
	TAP_KEY_MAC,
	TAP_KEY_ADDRESS,
	TAP_KEY_BRIDGE,
	TAP_KEY_QUEUES,
	TAP_KEY_RING_SIZE,
	TAP_KEY_OWNER,
	TAP_KEY_GROUP,
	TAP_KEY_PERSIST,
	TAP_NKEYS
};

/**
 * config_tap_current() - the tap of the current [tap] section
 * @p: the parser
 *
 * Return: the last tap added.
 */
static struct config_tap *config_tap_current(struct config_parser *p)
{
	return &p->cfg->taps[p->cfg->ntaps - 1];
}

/**
 * config_tap_object() - where the keys of the current [tap] section are stored
 * @p: the parser
 *
 * Return: the last tap added.
 */
static void *config_tap_object(struct config_parser *p)
{
	return config_tap_current(p);
}

/**
 * config_tap_mac() - the 'mac' key: a unicast address, given in the file
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_tap_mac(struct config_parser *p, const char *k, const char *v)
{
	struct config_tap *t = config_tap_current(p);

	if (config_value_mac(p, v, t->mac))
		return -EINVAL;
	t->mac_set = true;
	return 0;
}

/**
 * config_tap_address() - the 'address' key (repeatable): one more address,
 *	not listed before, at most CFG_MAX_ADDRESSES
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_tap_address(struct config_parser *p, const char *k, const char *v)
{
	struct config_tap *t = config_tap_current(p);
	struct config_address a;
	unsigned int i;

	if (config_value_address(p, v, &a))
		return -EINVAL;
	for (i = 0; i < t->naddresses; i++) {
		const struct config_address *b = &t->addresses[i];

		if (b->family == a.family && b->prefixlen == a.prefixlen &&
		    !memcmp(&b->addr, &a.addr, a.family == AF_INET ?
			    sizeof(a.addr.in) : sizeof(a.addr.in6)))
			return config_value_err(p, p->line, "address: '%s' is listed twice", v);
	}
	if (t->naddresses >= CFG_MAX_ADDRESSES)
		return config_value_err(p, p->line, "address: too many addresses (max %d)",
					CFG_MAX_ADDRESSES);
	t->addresses[t->naddresses++] = a;
	return 0;
}

/**
 * config_tap_ring_size() - the 'ring-size' key: a power of two 1..32768
 * @p: the parser
 * @k: the key's name
 * @v: its value
 *
 * Return: 0, or -EINVAL with the error set.
 */
static int config_tap_ring_size(struct config_parser *p, const char *k, const char *v)
{
	unsigned int n;

	if (!v[0] || (v[0] == '0' && v[1]) || strspn(v, "0123456789") != strlen(v))
		return config_value_err(p, p->line, "%s: '%s' is not a number", k, v);
	if (strlen(v) > 5 || config_value_uint(p, k, v, 1, 32768, &n) || (n & (n - 1)))
		return config_value_err(p, p->line, "%s: '%s' is not a power of two in 1..32768",
					k, v);
	config_tap_current(p)->ring_size = n;
	return 0;
}

static const struct config_key config_tap_keys[] = {
	[TAP_KEY_MTU] = CFG_UINT_KEY("mtu", struct config_tap, mtu, 68, 65535),
	[TAP_KEY_MAC] = CFG_FUNC_KEY("mac", config_tap_mac),
	[TAP_KEY_ADDRESS] = { .name = "address", .type = CFG_KEY_FUNC, .repeat = true,
			      .parse = config_tap_address },
	[TAP_KEY_BRIDGE] = CFG_NAME_KEY("bridge", struct config_tap, bridge, "interface"),
	[TAP_KEY_QUEUES] = CFG_UINT_KEY("queues", struct config_tap, queues, 1, CFG_MAX_QUEUES),
	[TAP_KEY_RING_SIZE] = CFG_FUNC_KEY("ring-size", config_tap_ring_size),
	[TAP_KEY_OWNER] = CFG_USER_KEY("owner", struct config_tap, owner_uid),
	[TAP_KEY_GROUP] = CFG_GROUP_KEY("group", struct config_tap, group_gid),
	[TAP_KEY_PERSIST] = CFG_BOOL_KEY("persist", struct config_tap, persist),
};

_Static_assert(CFG_ENTRIES(config_tap_keys) == TAP_NKEYS, "a [tap] key without an entry");
_Static_assert(TAP_NKEYS <= CFG_SECTION_KEYS_MAX,
	       "struct config_parser's key_line[] is too small for [tap]");

/**
 * config_tap_end() - when a [tap] section ends: the default MAC address
 *	unless one was given; the line of its bridge for the checks across
 *	sections
 * @p: the parser
 *
 * Return: 0.
 */
static int config_tap_end(struct config_parser *p)
{
	struct config_tap *t = config_tap_current(p);

	if (!t->mac_set)
		config_default_mac(t->name, t->mac);
	p->tap_bridge_line[p->cfg->ntaps - 1] = p->key_line[TAP_KEY_BRIDGE];
	return 0;
}

const struct config_section config_tap_section = {
	.name = "tap",
	.named = true,
	.keys = config_tap_keys,
	.nkeys = TAP_NKEYS,
	.object = config_tap_object,
	.end = config_tap_end,
};

/**
 * config_tap_init() - a new tap with the defaults of an empty [tap] section
 * @t: the tap
 * @name: its name (valid, < CFG_NAME_MAX bytes)
 * @line: line of its section header
 */
void config_tap_init(struct config_tap *t, const char *name, unsigned int line)
{
	memset(t, 0, sizeof(*t));
	strcpy(t->name, name);
	t->line = line;
	t->queues = 1;
	t->ring_size = 256;
	t->owner_uid = (uid_t)-1;
	t->group_gid = (gid_t)-1;
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
