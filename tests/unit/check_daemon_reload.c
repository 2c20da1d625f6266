// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_reload.c - reload_diff() (daemon/reload.c): what a reload must
 * add, remove, change and leave alone, attribute by attribute.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "reload.h"
#include "unit/runner.h"
#include "unit/check_daemon.h"

static const char base[] =
	"[tap t0]\nmtu = 1500\naddress = 10.0.0.1/24\naddress = fd00::1/64\n"
	"[tap t1]\n"
	"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n"
	"[port p1]\ntap = t1\ntype = stream\nconnect = /run/q1.sock\n";

static struct config old_cfg, new_cfg;
static struct reload_diff diff;

/**
 * diff_of() - parse two files and diff them into the globals
 * @a: the old file
 * @b: the new file
 */
static void diff_of(const char *a, const char *b)
{
	char err[CFG_ERR_MAX];

	ck_assert_msg(!config_parse_buffer("old.conf", a, strlen(a), &old_cfg, err, sizeof(err)),
		      "%s", err);
	ck_assert_msg(!config_parse_buffer("new.conf", b, strlen(b), &new_cfg, err, sizeof(err)),
		      "%s", err);
	ck_assert_int_eq(reload_diff(&old_cfg, &new_cfg, &diff), 0);
}

/** diff_teardown() - free the globals after each test */
static void diff_teardown(void)
{
	reload_diff_free(&diff);
	config_free(&old_cfg);
	config_free(&new_cfg);
}

/**
 * tap_entry() - the diff entry of a tap
 * @name: the tap
 *
 * Return: the entry (the test fails if there is none or more than one).
 */
static const struct reload_tap_diff *tap_entry(const char *name)
{
	const struct reload_tap_diff *found = NULL;
	unsigned int i;

	for (i = 0; i < diff.ntaps; i++) {
		if (strcmp(diff.taps[i].name, name))
			continue;
		ck_assert_msg(!found, "tap %s listed twice", name);
		found = &diff.taps[i];
	}
	ck_assert_msg(found != NULL, "tap %s not in the diff", name);
	return found;
}

/**
 * port_entry() - the diff entry of a port
 * @name: the port
 *
 * Return: the entry (the test fails if there is none or more than one).
 */
static const struct reload_port_diff *port_entry(const char *name)
{
	const struct reload_port_diff *found = NULL;
	unsigned int i;

	for (i = 0; i < diff.nports; i++) {
		if (strcmp(diff.ports[i].name, name))
			continue;
		ck_assert_msg(!found, "port %s listed twice", name);
		found = &diff.ports[i];
	}
	ck_assert_msg(found != NULL, "port %s not in the diff", name);
	return found;
}

START_TEST(reload_identical)
{
	diff_of(base, base);
	ck_assert(reload_diff_empty(&diff));
	ck_assert_uint_eq(diff.ntaps, 2);
	ck_assert_uint_eq(diff.nports, 2);
	ck_assert_int_eq(tap_entry("t0")->change, RELOAD_UNCHANGED);
	ck_assert_int_eq(tap_entry("t1")->change, RELOAD_UNCHANGED);
	ck_assert_int_eq(port_entry("p0")->change, RELOAD_UNCHANGED);
	ck_assert_int_eq(port_entry("p1")->change, RELOAD_UNCHANGED);
	ck_assert_uint_eq(diff.daemon_attrs, 0);
}
END_TEST

START_TEST(reload_comments_and_order_only)
{
	/* same content, other comments, addresses and sections reordered */
	diff_of(base,
		"# reordered\n[tap t1]\n"
		"[port p1]\ntap = t1\nconnect = /run/q1.sock\ntype = stream\n"
		"[tap t0]\naddress = fd00::1/64\naddress = 10.0.0.1/24 # same\nmtu = 1500\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n");
	ck_assert(reload_diff_empty(&diff));
}
END_TEST

START_TEST(reload_tap_added)
{
	diff_of(base, "[tap t2]\nmtu = 9000\n" "[tap t0]\nmtu = 1500\naddress = 10.0.0.1/24\n"
		"address = fd00::1/64\n[tap t1]\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n"
		"[port p1]\ntap = t1\ntype = stream\nconnect = /run/q1.sock\n");
	ck_assert_uint_eq(diff.taps_added, 1);
	ck_assert_uint_eq(diff.taps_removed, 0);
	ck_assert_uint_eq(diff.taps_changed, 0);
	ck_assert_int_eq(tap_entry("t2")->change, RELOAD_ADDED);
	ck_assert_ptr_null(tap_entry("t2")->old_tap);
	ck_assert_uint_eq(tap_entry("t2")->new_tap->mtu, 9000);
	ck_assert_int_eq(tap_entry("t0")->change, RELOAD_UNCHANGED);
	ck_assert(!reload_diff_empty(&diff));
}
END_TEST

START_TEST(reload_tap_and_port_removed)
{
	diff_of(base, "[tap t0]\nmtu = 1500\naddress = 10.0.0.1/24\naddress = fd00::1/64\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n");
	ck_assert_uint_eq(diff.taps_removed, 1);
	ck_assert_uint_eq(diff.ports_removed, 1);
	ck_assert_int_eq(tap_entry("t1")->change, RELOAD_REMOVED);
	ck_assert_ptr_null(tap_entry("t1")->new_tap);
	ck_assert_ptr_eq(tap_entry("t1")->old_tap, &old_cfg.taps[1]);
	ck_assert_int_eq(port_entry("p1")->change, RELOAD_REMOVED);
	/* removed entries come first, so one pass tears down before it creates */
	ck_assert_str_eq(diff.taps[0].name, "t1");
	ck_assert_str_eq(diff.ports[0].name, "p1");
	ck_assert_int_eq(port_entry("p0")->change, RELOAD_UNCHANGED);
}
END_TEST

START_TEST(reload_everything_removed)
{
	diff_of(base, "");
	ck_assert_uint_eq(diff.taps_removed, 2);
	ck_assert_uint_eq(diff.ports_removed, 2);
	ck_assert_uint_eq(diff.ntaps, 2);
	ck_assert_uint_eq(diff.nports, 2);
}
END_TEST

START_TEST(reload_mtu_changed)
{
	char buf[64];

	diff_of(base, "[tap t0]\nmtu = 9000\naddress = 10.0.0.1/24\naddress = fd00::1/64\n"
		"[tap t1]\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n"
		"[port p1]\ntap = t1\ntype = stream\nconnect = /run/q1.sock\n");
	ck_assert_uint_eq(diff.taps_changed, 1);
	ck_assert_int_eq(tap_entry("t0")->change, RELOAD_CHANGED);
	ck_assert_uint_eq(tap_entry("t0")->attrs, RELOAD_TAP_MTU);
	ck_assert_int_eq(tap_entry("t1")->change, RELOAD_UNCHANGED);
	/* an MTU change is done in place: the port is not disturbed */
	ck_assert_int_eq(port_entry("p0")->change, RELOAD_UNCHANGED);
	ck_assert_uint_eq(diff.ports_changed, 0);
	reload_tap_attrs_format(tap_entry("t0")->attrs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "mtu");
}
END_TEST

START_TEST(reload_addresses_changed)
{
	const struct reload_tap_diff *d;

	diff_of(base, "[tap t0]\nmtu = 1500\naddress = fd00::1/64\naddress = 10.1.0.1/24\n"
		"address = 10.0.0.1/16\n[tap t1]\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n"
		"[port p1]\ntap = t1\ntype = stream\nconnect = /run/q1.sock\n");
	d = tap_entry("t0");
	ck_assert_uint_eq(d->attrs, RELOAD_TAP_ADDRESSES);
	/* to add: 10.1.0.1/24 and 10.0.0.1/16 (indices in the new tap) */
	ck_assert_uint_eq(d->nadd, 2);
	ck_assert_uint_eq(d->add[0], 1);
	ck_assert_uint_eq(d->add[1], 2);
	ck_assert_uint_eq(d->new_tap->addresses[d->add[1]].prefixlen, 16);
	/* to remove: 10.0.0.1/24 (index in the old tap) */
	ck_assert_uint_eq(d->ndel, 1);
	ck_assert_uint_eq(d->del[0], 0);
	ck_assert_uint_eq(d->old_tap->addresses[d->del[0]].prefixlen, 24);
}
END_TEST

START_TEST(reload_tap_attrs_each)
{
	static const struct {
		const char *add;
		unsigned int attr;
	} cases[] = {
		{ "mac = 02:00:00:00:00:01\n", RELOAD_TAP_MAC },
		{ "bridge = br0\n", RELOAD_TAP_BRIDGE },
		{ "owner = 1\n", RELOAD_TAP_OWNER },
		{ "group = 1\n", RELOAD_TAP_GROUP },
		{ "persist = yes\n", RELOAD_TAP_PERSIST },
		{ "queues = 2\n", RELOAD_TAP_QUEUES },
		{ "ring-size = 512\n", RELOAD_TAP_RING_SIZE },
		{ "mtu = 1400\n", RELOAD_TAP_MTU },
	};
	char text[256];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[tap t1]\n%s", cases[i].add);
		diff_of("[tap t1]\n", text);
		ck_assert_int_eq(tap_entry("t1")->change, RELOAD_CHANGED);
		ck_assert_msg(tap_entry("t1")->attrs == cases[i].attr, "%s: attrs %#x",
			      cases[i].add, tap_entry("t1")->attrs);
		diff_teardown();
	}
}
END_TEST

START_TEST(reload_default_mac_is_stable)
{
	/* a default MAC derives from the name: a reload keeps it */
	diff_of("[tap t1]\n", "[tap t1]\n");
	ck_assert_int_eq(tap_entry("t1")->change, RELOAD_UNCHANGED);
	diff_teardown();
	/* writing the default explicitly changes nothing either */
	{
		uint8_t m[6];
		char text[64];

		config_default_mac("t1", m);
		snprintf(text, sizeof(text), "[tap t1]\nmac = %02x:%02x:%02x:%02x:%02x:%02x\n",
			 m[0], m[1], m[2], m[3], m[4], m[5]);
		diff_of("[tap t1]\n", text);
		ck_assert_int_eq(tap_entry("t1")->change, RELOAD_UNCHANGED);
	}
}
END_TEST

START_TEST(reload_queues_recreate_port)
{
	const struct reload_port_diff *p;
	char buf[64];

	diff_of(base, "[tap t0]\nmtu = 1500\naddress = 10.0.0.1/24\naddress = fd00::1/64\n"
		"queues = 4\n[tap t1]\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\n"
		"[port p1]\ntap = t1\ntype = stream\nconnect = /run/q1.sock\n");
	ck_assert(tap_entry("t0")->attrs & RELOAD_TAP_RECREATE);
	p = port_entry("p0");
	ck_assert_int_eq(p->change, RELOAD_CHANGED);
	ck_assert_uint_eq(p->attrs, RELOAD_PORT_TAP_RECREATED);
	ck_assert(p->attrs & RELOAD_PORT_RECREATE);
	ck_assert_int_eq(port_entry("p1")->change, RELOAD_UNCHANGED);
	reload_port_attrs_format(p->attrs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "tap-recreated");
}
END_TEST

START_TEST(reload_port_attrs)
{
	const struct reload_port_diff *p;
	char buf[128];

	diff_of(base, "[tap t0]\nmtu = 1500\naddress = 10.0.0.1/24\naddress = fd00::1/64\n"
		"[tap t1]\n"
		"[port p0]\ntap = t0\ntype = vhost-user\nlisten = /run/p0.sock\nsocket-mode = 0600\n"
		"kernel-rings = memory\nworkers = 0\n"
		"[port p1]\ntap = t1\ntype = vhost-user\nconnect = /run/q2.sock\nreconnect = 9\n");
	p = port_entry("p0");
	ck_assert_int_eq(p->change, RELOAD_CHANGED);
	ck_assert_uint_eq(p->attrs, RELOAD_PORT_SOCKET_MODE | RELOAD_PORT_KERNEL_RINGS |
			  RELOAD_PORT_WORKERS);
	/* a mode, kernel-rings or workers change does not need the port re-created */
	ck_assert(!(p->attrs & RELOAD_PORT_RECREATE));
	reload_port_attrs_format(p->attrs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "socket-mode,kernel-rings,workers");
	p = port_entry("p1");
	ck_assert_uint_eq(p->attrs, RELOAD_PORT_TYPE | RELOAD_PORT_CONNECT | RELOAD_PORT_RECONNECT);
	ck_assert_uint_eq(diff.ports_changed, 2);
	ck_assert_uint_eq(diff.taps_changed, 0);
	reload_port_attrs_format(p->attrs, buf, sizeof(buf));
	ck_assert_str_eq(buf, "type,connect,reconnect");
}
END_TEST

START_TEST(reload_port_moves_tap)
{
	diff_of("[tap a]\n[tap b]\n[port p]\ntap = a\ntype = stream\nlisten = /x\n",
		"[tap a]\n[tap b]\n[port p]\ntap = b\ntype = stream\nlisten = /x\n");
	ck_assert_uint_eq(port_entry("p")->attrs, RELOAD_PORT_TAP);
	ck_assert_int_eq(tap_entry("a")->change, RELOAD_UNCHANGED);
}
END_TEST

START_TEST(reload_daemon_attrs)
{
	diff_of("", "[daemon]\ncontrol-socket = /run/other.sock\ncontrol-mode = 0600\n"
		"control-group = 1\nengine = user\nlog-level = debug\nuser = daemon\n");
	ck_assert_uint_eq(diff.daemon_attrs,
			  RELOAD_DAEMON_CONTROL_SOCKET | RELOAD_DAEMON_CONTROL_MODE |
			  RELOAD_DAEMON_CONTROL_GROUP | RELOAD_DAEMON_ENGINE |
			  RELOAD_DAEMON_LOG_LEVEL | RELOAD_DAEMON_USER);
	ck_assert(diff.daemon_attrs & RELOAD_DAEMON_RESTART);
	ck_assert(!reload_diff_empty(&diff));
}
END_TEST

START_TEST(reload_rename_is_remove_and_add)
{
	diff_of("[tap old0]\nmtu = 1400\n", "[tap new0]\nmtu = 1400\n");
	ck_assert_int_eq(tap_entry("old0")->change, RELOAD_REMOVED);
	ck_assert_int_eq(tap_entry("new0")->change, RELOAD_ADDED);
	ck_assert_str_eq(diff.taps[0].name, "old0");
}
END_TEST

START_TEST(reload_names_and_format)
{
	char small[6];

	ck_assert_str_eq(reload_change_name(RELOAD_UNCHANGED), "unchanged");
	ck_assert_str_eq(reload_change_name(RELOAD_ADDED), "added");
	ck_assert_str_eq(reload_change_name(RELOAD_REMOVED), "removed");
	ck_assert_str_eq(reload_change_name(RELOAD_CHANGED), "changed");
	ck_assert_str_eq(reload_change_name((enum reload_change)9), "?");
	/* truncation is safe and reports the full length */
	ck_assert_uint_eq(reload_tap_attrs_format(RELOAD_TAP_MTU | RELOAD_TAP_MAC | RELOAD_TAP_RING_SIZE,
					      small, sizeof(small)), strlen("mtu,mac,ring-size"));
	ck_assert_str_eq(small, "mtu,m");
	ck_assert_uint_eq(reload_tap_attrs_format(0, small, sizeof(small)), 0);
	ck_assert_str_eq(small, "");
}
END_TEST

START_TEST(reload_free_twice)
{
	struct reload_diff d;

	diff_of(base, base);
	d = diff;
	memset(&diff, 0, sizeof(diff));
	reload_diff_free(&d);
	reload_diff_free(&d);
	ck_assert_ptr_null(d.taps);
}
END_TEST

/**
 * add() - add a test with the diff teardown, in a TCase of its own
 * @s: the suite
 * @fn: the test
 * @name: its name
 */
static void add(Suite *s, const TTest *fn, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, NULL, diff_teardown);
	tcase_add_test(tc, fn);
	suite_add_tcase(s, tc);
}

#define ADD(s, fn) add((s), (fn), #fn)

/**
 * reload_suite() - the reload diff's tests
 *
 * Return: the suite.
 */
Suite *reload_suite(void)
{
	Suite *s = runner_suite_create("reload");

	ADD(s, reload_identical);
	ADD(s, reload_comments_and_order_only);
	ADD(s, reload_tap_added);
	ADD(s, reload_tap_and_port_removed);
	ADD(s, reload_everything_removed);
	ADD(s, reload_mtu_changed);
	ADD(s, reload_addresses_changed);
	ADD(s, reload_tap_attrs_each);
	ADD(s, reload_default_mac_is_stable);
	ADD(s, reload_queues_recreate_port);
	ADD(s, reload_port_attrs);
	ADD(s, reload_port_moves_tap);
	ADD(s, reload_daemon_attrs);
	ADD(s, reload_rename_is_remove_and_add);
	ADD(s, reload_names_and_format);
	ADD(s, reload_free_twice);
	return s;
}
