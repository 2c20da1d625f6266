// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_config.c - the configuration parser (daemon/config.c):
 * good files with the values they must give, and a table of bad files,
 * each with the exact "FILE:LINE: message" it must be refused with.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "unit/runner.h"
#include "unit/check_daemon.h"

#define T_FILE "t.conf"

/**
 * parse() - parse a NUL-terminated text as file "t.conf"
 * @text: the file
 * @cfg: the result
 * @err: error buffer, CFG_ERR_MAX bytes
 *
 * Return: what config_parse_buffer() returned.
 */
static int parse(const char *text, struct config *cfg, char *err)
{
	return config_parse_buffer(T_FILE, text, strlen(text), cfg, err, CFG_ERR_MAX);
}

/**
 * parse_ok() - parse a text that must be valid
 * @text: the file
 * @cfg: the result
 */
static void parse_ok(const char *text, struct config *cfg)
{
	char err[CFG_ERR_MAX];
	int ret = parse(text, cfg, err);

	ck_assert_msg(ret == 0, "refused a good file: %s", err);
}

/* ------------------------------------------------------------ bad files */

/**
 * struct bad_case - a file that must be refused
 * @name: test name
 * @text: the file
 * @len: its length when it holds a NUL byte (0: strlen(@text))
 * @error: the exact error
 */
static const struct bad_case {
	const char *name;
	const char *text;
	size_t len;
	const char *error;
} bad_cases[] = {
	/* structure */
	{ "bad_unknown_section", "[foo]\n", 0, "t.conf:1: unknown section [foo]" },
	{ "bad_empty_section", "[]\n", 0, "t.conf:1: unknown section []" },
	{ "bad_key_outside_section", "# c\nmtu = 1500\n", 0,
	  "t.conf:2: key 'mtu' outside of a section" },
	{ "bad_unterminated_header", "[tap t0\n", 0, "t.conf:1: unterminated section header" },
	{ "bad_garbage_after_header", "[tap t0] x\n", 0, "t.conf:1: trailing garbage after ']'" },
	{ "bad_double_bracket", "[tap t0]]\n", 0, "t.conf:1: trailing garbage after ']'" },
	{ "bad_daemon_with_name", "[daemon main]\n", 0, "t.conf:1: section [daemon] takes no name" },
	{ "bad_tap_without_name", "[tap]\n", 0, "t.conf:1: section [tap] needs a name" },
	{ "bad_port_without_name", "[port  ]\n", 0, "t.conf:1: section [port] needs a name" },
	{ "bad_duplicate_daemon", "[daemon]\n\n[daemon]\n", 0,
	  "t.conf:3: duplicate section [daemon] (first at line 1)" },
	{ "bad_no_equals", "[daemon]\nengine user\n", 0, "t.conf:2: expected 'key = value'" },
	{ "bad_empty_key", "[daemon]\n= user\n", 0, "t.conf:2: expected 'key = value'" },
	{ "bad_key_charset", "[daemon]\nEngine = user\n", 0, "t.conf:2: expected 'key = value'" },
	{ "bad_key_with_space", "[daemon]\nlog level = info\n", 0, "t.conf:2: expected 'key = value'" },
	{ "bad_unknown_daemon_key", "[daemon]\nfoo = 1\n", 0, "t.conf:2: unknown key 'foo' in [daemon]" },
	{ "bad_unknown_tap_key", "[tap t0]\nlisten = /a\n", 0,
	  "t.conf:2: unknown key 'listen' in [tap t0]" },
	{ "bad_unknown_port_key", "[port p0]\nmtu = 1500\n", 0,
	  "t.conf:2: unknown key 'mtu' in [port p0]" },
	{ "bad_duplicate_key", "[tap t0]\nmtu = 1500\nmtu = 1400\n", 0,
	  "t.conf:3: duplicate key 'mtu' (first at line 2)" },
	{ "bad_missing_value", "[daemon]\nengine =\n", 0, "t.conf:2: missing value for 'engine'" },
	{ "bad_value_only_comment", "[daemon]\nengine = # auto\n", 0,
	  "t.conf:2: missing value for 'engine'" },
	{ "bad_nul_byte", "[daemon]\nengine = u\0ser\n", 24, "t.conf:2: NUL byte in line" },
	/* numbers */
	{ "bad_mtu_trailing_junk", "[tap t0]\nmtu = 1500x\n", 0, "t.conf:2: mtu: '1500x' is not a number" },
	{ "bad_mtu_inner_space", "[tap t0]\nmtu = 15 00\n", 0, "t.conf:2: mtu: '15 00' is not a number" },
	{ "bad_mtu_negative", "[tap t0]\nmtu = -1\n", 0, "t.conf:2: mtu: '-1' is not a number" },
	{ "bad_mtu_plus", "[tap t0]\nmtu = +1500\n", 0, "t.conf:2: mtu: '+1500' is not a number" },
	{ "bad_mtu_leading_zero", "[tap t0]\nmtu = 01500\n", 0, "t.conf:2: mtu: '01500' is not a number" },
	{ "bad_mtu_hex", "[tap t0]\nmtu = 0x5dc\n", 0, "t.conf:2: mtu: '0x5dc' is not a number" },
	{ "bad_mtu_low", "[tap t0]\nmtu = 67\n", 0, "t.conf:2: mtu: '67' is out of range 68..65535" },
	{ "bad_mtu_zero", "[tap t0]\nmtu = 0\n", 0, "t.conf:2: mtu: '0' is out of range 68..65535" },
	{ "bad_mtu_high", "[tap t0]\nmtu = 65536\n", 0, "t.conf:2: mtu: '65536' is out of range 68..65535" },
	{ "bad_mtu_overflow", "[tap t0]\nmtu = 18446744073709551617\n", 0,
	  "t.conf:2: mtu: '18446744073709551617' is out of range 68..65535" },
	{ "bad_queues_zero", "[tap t0]\nqueues = 0\n", 0, "t.conf:2: queues: '0' is out of range 1..16" },
	{ "bad_queues_17", "[tap t0]\nqueues = 17\n", 0, "t.conf:2: queues: '17' is out of range 1..16" },
	{ "bad_ring_not_pow2", "[tap t0]\nring-size = 100\n", 0,
	  "t.conf:2: ring-size: '100' is not a power of two in 1..32768" },
	{ "bad_ring_zero", "[tap t0]\nring-size = 0\n", 0,
	  "t.conf:2: ring-size: '0' is not a power of two in 1..32768" },
	{ "bad_ring_65536", "[tap t0]\nring-size = 65536\n", 0,
	  "t.conf:2: ring-size: '65536' is not a power of two in 1..32768" },
	{ "bad_ring_junk", "[tap t0]\nring-size = 256k\n", 0, "t.conf:2: ring-size: '256k' is not a number" },
	{ "bad_reconnect_zero", "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nconnect = /a\nreconnect = 0\n", 0,
	  "t.conf:6: reconnect: '0' is out of range 1..3600" },
	{ "bad_mode_digit", "[daemon]\ncontrol-mode = 0999\n", 0,
	  "t.conf:2: control-mode: '0999' is not an octal mode 0..0777" },
	{ "bad_mode_sticky", "[daemon]\ncontrol-mode = 1777\n", 0,
	  "t.conf:2: control-mode: '1777' is not an octal mode 0..0777" },
	{ "bad_mode_long", "[daemon]\ncontrol-mode = 00660\n", 0,
	  "t.conf:2: control-mode: '00660' is not an octal mode 0..0777" },
	/* words */
	{ "bad_engine", "[daemon]\nengine = fast\n", 0, "t.conf:2: engine: 'fast' is not auto, kernel or user" },
	{ "bad_engine_case", "[daemon]\nengine = User\n", 0, "t.conf:2: engine: 'User' is not auto, kernel or user" },
	{ "bad_handshake_timeout_zero", "[daemon]\nhandshake-timeout = 0\n", 0,
	  "t.conf:2: handshake-timeout: '0' is out of range 1..3600" },
	{ "bad_boot_timeout_big", "[daemon]\nboot-timeout = 86401\n", 0,
	  "t.conf:2: boot-timeout: '86401' is out of range 1..86400" },
	{ "bad_message_timeout_word", "[daemon]\nmessage-timeout = 1s\n", 0,
	  "t.conf:2: message-timeout: '1s' is not a number" },
	{ "bad_control_per_uid_16", "[daemon]\ncontrol-clients-per-uid = 16\n", 0,
	  "t.conf:2: control-clients-per-uid: '16' is out of range 1..15" },
	{ "bad_seccomp", "[daemon]\nseccomp = maybe\n", 0,
	  "t.conf:2: seccomp: 'maybe' is not on, off or log" },
	{ "bad_upgrade", "[daemon]\nupgrade = on\n", 0,
	  "t.conf:2: upgrade: 'on' is not yes or no" },
	{ "bad_workers_zero", "[daemon]\nworkers = 0\n", 0,
	  "t.conf:2: workers: '0' is out of range 1..64" },
	{ "bad_workers_big", "[daemon]\nworkers = 65\n", 0,
	  "t.conf:2: workers: '65' is out of range 1..64" },
	{ "bad_workers_word", "[daemon]\nworkers = all\n", 0,
	  "t.conf:2: workers: 'all' is not a number" },
	/* lists: [daemon] worker-cpus (checked for syntax before the CPUs) */
	{ "bad_worker_cpus_empty_item", "[daemon]\nworkers = 2\nworker-cpus = 0,,1\n", 0,
	  "t.conf:3: worker-cpus: '0,,1' is not a list like 2,3 or 2-5" },
	{ "bad_worker_cpus_word", "[daemon]\nworkers = 2\nworker-cpus = all\n", 0,
	  "t.conf:3: worker-cpus: 'all' is not a list like 2,3 or 2-5" },
	{ "bad_worker_cpus_open_range", "[daemon]\nworkers = 2\nworker-cpus = 1-\n", 0,
	  "t.conf:3: worker-cpus: '1-' is not a list like 2,3 or 2-5" },
	{ "bad_worker_cpus_leading_zero", "[daemon]\nworkers = 2\nworker-cpus = 01,2\n", 0,
	  "t.conf:3: worker-cpus: '01,2' is not a list like 2,3 or 2-5" },
	{ "bad_worker_cpus_trailing_comma", "[daemon]\nworkers = 2\nworker-cpus = 1,\n", 0,
	  "t.conf:3: worker-cpus: '1,' is not a list like 2,3 or 2-5" },
	{ "bad_worker_cpus_blank", "[daemon]\nworkers = 2\nworker-cpus = 1, 2\n", 0,
	  "t.conf:3: worker-cpus: '1, 2' is not a list like 2,3 or 2-5" },
	{ "bad_worker_cpus_down", "[daemon]\nworkers = 2\nworker-cpus = 5-2\n", 0,
	  "t.conf:3: worker-cpus: range 5-2 goes down" },
	{ "bad_worker_cpus_range", "[daemon]\nworkers = 2\nworker-cpus = 0,1024\n", 0,
	  "t.conf:3: worker-cpus: 1024 is out of range 0..1023" },
	{ "bad_worker_cpus_huge", "[daemon]\nworkers = 2\nworker-cpus = 99999999999999999999\n", 0,
	  "t.conf:3: worker-cpus: 4294967295 is out of range 0..1023" },
	{ "bad_worker_cpus_twice", "[daemon]\nworkers = 2\nworker-cpus = 3,3\n", 0,
	  "t.conf:3: worker-cpus: 3 is listed twice" },
	{ "bad_worker_cpus_twice_in_range", "[daemon]\nworkers = 3\nworker-cpus = 2-4,3\n", 0,
	  "t.conf:3: worker-cpus: 3 is listed twice" },
	{ "bad_worker_cpus_too_many", "[daemon]\nworkers = auto\nworker-cpus = 0-64\n", 0,
	  "t.conf:3: worker-cpus: more than 64 entries" },
	/* lists: [port] workers, and against [daemon] workers (either order) */
	{ "bad_port_workers_range",
	  "[daemon]\nworkers = 2\n[tap t0]\n[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 64\n", 0,
	  "t.conf:8: workers: 64 is out of range 0..63" },
	{ "bad_port_workers_twice",
	  "[daemon]\nworkers = 2\n[tap t0]\n[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 1,0-1\n", 0,
	  "t.conf:8: workers: 1 is listed twice" },
	{ "bad_port_workers_word",
	  "[daemon]\nworkers = 2\n[tap t0]\n[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = any\n", 0,
	  "t.conf:8: workers: 'any' is not a list like 2,3 or 2-5" },
	{ "bad_port_workers_beyond",
	  "[daemon]\nworkers = 2\n[tap t0]\n[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 0,2-3\n", 0,
	  "t.conf:8: workers: worker 2 does not exist ([daemon] workers = 2: 0..1)" },
	{ "bad_port_workers_beyond_daemon_after",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = ringfd\nlisten = /a\nworkers = 2\n[daemon]\nworkers = 3\n"
	  "[port p1]\ntap = t1\ntype = vhost-user\nlisten = /b\nworkers = 1,3\n[tap t1]\n", 0,
	  "t.conf:13: workers: worker 3 does not exist ([daemon] workers = 3: 0..2)" },
	{ "bad_port_workers_default_daemon",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 1\n", 0,
	  "t.conf:6: workers: worker 1 does not exist ([daemon] workers = 1: 0..0)" },
	{ "bad_log_level", "[daemon]\nlog-level = verbose\n", 0,
	  "t.conf:2: log-level: 'verbose' is not err, warning, notice, info or debug" },
	{ "bad_port_type", "[port p0]\ntype = tcp\n", 0,
	  "t.conf:2: type: 'tcp' is not vhost-user, stream, dgram or ringfd" },
	{ "bad_bool_true", "[tap t0]\npersist = true\n", 0, "t.conf:2: persist: 'true' is not yes or no" },
	{ "bad_bool_1", "[tap t0]\npersist = 1\n", 0, "t.conf:2: persist: '1' is not yes or no" },
	/* MAC */
	{ "bad_mac_short", "[tap t0]\nmac = 52:54:00:12:34\n", 0,
	  "t.conf:2: mac: '52:54:00:12:34' is not a MAC address (xx:xx:xx:xx:xx:xx)" },
	{ "bad_mac_hex", "[tap t0]\nmac = 52:54:00:12:34:zz\n", 0,
	  "t.conf:2: mac: '52:54:00:12:34:zz' is not a MAC address (xx:xx:xx:xx:xx:xx)" },
	{ "bad_mac_dashes", "[tap t0]\nmac = 52-54-00-12-34-56\n", 0,
	  "t.conf:2: mac: '52-54-00-12-34-56' is not a MAC address (xx:xx:xx:xx:xx:xx)" },
	{ "bad_mac_multicast", "[tap t0]\nmac = 01:00:5e:00:00:01\n", 0,
	  "t.conf:2: mac: '01:00:5e:00:00:01' is a multicast address" },
	{ "bad_mac_broadcast", "[tap t0]\nmac = ff:ff:ff:ff:ff:ff\n", 0,
	  "t.conf:2: mac: 'ff:ff:ff:ff:ff:ff' is a multicast address" },
	{ "bad_mac_zero", "[tap t0]\nmac = 00:00:00:00:00:00\n", 0,
	  "t.conf:2: mac: '00:00:00:00:00:00' is the zero address" },
	/* addresses */
	{ "bad_addr_no_prefix", "[tap t0]\naddress = 10.0.0.1\n", 0,
	  "t.conf:2: address: '10.0.0.1' lacks a /prefix" },
	{ "bad_addr_octet", "[tap t0]\naddress = 10.0.0.256/24\n", 0,
	  "t.conf:2: address: '10.0.0.256/24' is not an IPv4 or IPv6 address" },
	{ "bad_addr_three_octets", "[tap t0]\naddress = 10.0.1/24\n", 0,
	  "t.conf:2: address: '10.0.1/24' is not an IPv4 or IPv6 address" },
	{ "bad_addr_v6", "[tap t0]\naddress = fd00:::1/64\n", 0,
	  "t.conf:2: address: 'fd00:::1/64' is not an IPv4 or IPv6 address" },
	{ "bad_addr_prefix_33", "[tap t0]\naddress = 10.0.0.1/33\n", 0,
	  "t.conf:2: address: '10.0.0.1/33' has a bad prefix length (1..32)" },
	{ "bad_addr_prefix_0", "[tap t0]\naddress = 10.0.0.1/0\n", 0,
	  "t.conf:2: address: '10.0.0.1/0' has a bad prefix length (1..32)" },
	{ "bad_addr_prefix_junk", "[tap t0]\naddress = 10.0.0.1/24x\n", 0,
	  "t.conf:2: address: '10.0.0.1/24x' has a bad prefix length (1..32)" },
	{ "bad_addr_prefix_empty", "[tap t0]\naddress = 10.0.0.1/\n", 0,
	  "t.conf:2: address: '10.0.0.1/' has a bad prefix length (1..32)" },
	{ "bad_addr_v6_prefix_129", "[tap t0]\naddress = fd00::1/129\n", 0,
	  "t.conf:2: address: 'fd00::1/129' has a bad prefix length (1..128)" },
	{ "bad_addr_multicast", "[tap t0]\naddress = 224.0.0.1/24\n", 0,
	  "t.conf:2: address: '224.0.0.1/24' is a multicast address" },
	{ "bad_addr_v6_multicast", "[tap t0]\naddress = ff02::1/64\n", 0,
	  "t.conf:2: address: 'ff02::1/64' is a multicast address" },
	{ "bad_addr_unspecified", "[tap t0]\naddress = 0.0.0.0/8\n", 0,
	  "t.conf:2: address: '0.0.0.0/8' is the unspecified address" },
	{ "bad_addr_v6_unspecified", "[tap t0]\naddress = ::/64\n", 0,
	  "t.conf:2: address: '::/64' is the unspecified address" },
	{ "bad_addr_broadcast", "[tap t0]\naddress = 255.255.255.255/32\n", 0,
	  "t.conf:2: address: '255.255.255.255/32' is the broadcast address" },
	{ "bad_addr_twice", "[tap t0]\naddress = 10.0.0.1/24\naddress = 10.0.0.1/24\n", 0,
	  "t.conf:3: address: '10.0.0.1/24' is listed twice" },
	/* names */
	{ "bad_name_too_long", "[tap abcdefghijklmnop]\n", 0,
	  "t.conf:1: invalid tap name 'abcdefghijklmnop': longer than 15 bytes" },
	{ "bad_name_slash", "[tap a/b]\n", 0, "t.conf:1: invalid tap name 'a/b': contains '/'" },
	{ "bad_name_colon", "[port a:b]\n", 0, "t.conf:1: invalid port name 'a:b': contains ':'" },
	{ "bad_name_dot", "[tap .]\n", 0, "t.conf:1: invalid tap name '.': '.' and '..' are reserved" },
	{ "bad_name_dotdot", "[tap ..]\n", 0, "t.conf:1: invalid tap name '..': '.' and '..' are reserved" },
	{ "bad_name_space", "[tap a b]\n", 0,
	  "t.conf:1: invalid tap name 'a b': contains whitespace or a non-printable byte" },
	{ "bad_name_high_byte", "[tap t\xc3\xa9]\n", 0,
	  "t.conf:1: invalid tap name 't\xc3\xa9': contains whitespace or a non-printable byte" },
	{ "bad_bridge_name", "[tap t0]\nbridge = br/0\n", 0,
	  "t.conf:2: bridge: invalid interface name 'br/0': contains '/'" },
	{ "bad_port_tap_name", "[port p0]\ntap = abcdefghijklmnop\n", 0,
	  "t.conf:2: tap: invalid tap name 'abcdefghijklmnop': longer than 15 bytes" },
	{ "bad_duplicate_tap", "[tap t0]\n[tap t1]\n[tap t0]\n", 0,
	  "t.conf:3: duplicate tap 't0' (first at line 1)" },
	{ "bad_duplicate_port", "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nlisten = /a\n[port p0]\n", 0,
	  "t.conf:6: duplicate port 'p0' (first at line 2)" },
	/* paths */
	{ "bad_path_relative", "[daemon]\ncontrol-socket = run/x.sock\n", 0,
	  "t.conf:2: control-socket: 'run/x.sock' is not an absolute path" },
	{ "bad_path_directory", "[daemon]\ncontrol-socket = /run/\n", 0,
	  "t.conf:2: control-socket: '/run/' names a directory" },
	{ "bad_path_control_char", "[daemon]\ncontrol-socket = /run/a\x01" "b\n", 0,
	  "t.conf:2: control-socket: control character in path" },
	{ "bad_listen_relative", "[port p0]\nlisten = vm1.sock\n", 0,
	  "t.conf:2: listen: 'vm1.sock' is not an absolute path" },
	/* users and groups */
	{ "bad_unknown_user", "[daemon]\nuser = no-such-user-vrn\n", 0,
	  "t.conf:2: user: unknown user 'no-such-user-vrn'" },
	{ "bad_unknown_uid", "[daemon]\nuser = 4294960000\n", 0,
	  "t.conf:2: user: unknown user '4294960000'" },
	{ "bad_unknown_owner", "[tap t0]\nowner = no-such-user-vrn\n", 0,
	  "t.conf:2: owner: unknown user 'no-such-user-vrn'" },
	{ "bad_owner_with_group", "[tap t0]\nowner = root:root\n", 0,
	  "t.conf:2: owner: unknown user 'root:root'" },
	{ "bad_unknown_group", "[tap t0]\ngroup = no-such-group-vrn\n", 0,
	  "t.conf:2: group: unknown group 'no-such-group-vrn'" },
	{ "bad_unknown_control_group", "[daemon]\ncontrol-group = no-such-group-vrn\n", 0,
	  "t.conf:2: control-group: unknown group 'no-such-group-vrn'" },
	{ "bad_unknown_socket_owner", "[port p0]\nsocket-owner = no-such-user-vrn\n", 0,
	  "t.conf:2: socket-owner: unknown user 'no-such-user-vrn'" },
	/* ports: section checks */
	{ "bad_port_missing_tap", "[port p0]\ntype = stream\nlisten = /a\n", 0,
	  "t.conf:1: port 'p0': missing key 'tap'" },
	{ "bad_port_missing_type", "[tap t0]\n[port p0]\ntap = t0\nlisten = /a\n", 0,
	  "t.conf:2: port 'p0': missing key 'type'" },
	{ "bad_port_no_socket", "[tap t0]\n[port p0]\ntap = t0\ntype = stream\n[daemon]\n", 0,
	  "t.conf:2: port 'p0': needs listen or connect" },
	{ "bad_port_listen_and_connect",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nconnect = /b\nlisten = /a\n", 0,
	  "t.conf:6: port 'p0': listen and connect are exclusive" },
	{ "bad_peer_not_dgram", "[tap t0]\n[port p0]\ntap = t0\npeer = /b\ntype = stream\nlisten = /a\n", 0,
	  "t.conf:4: peer: only valid for type dgram" },
	{ "bad_ringfd_connect", "[tap t0]\n[port p0]\ntap = t0\ntype = ringfd\nconnect = /a\n", 0,
	  "t.conf:5: connect: a ringfd port only listens" },
	{ "bad_kernel_rings_value",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nkernel-rings = guest\n", 0,
	  "t.conf:6: kernel-rings: 'guest' is not process, memory or kick" },
	{ "bad_kernel_rings_not_vhost_user",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nlisten = /a\nkernel-rings = memory\n", 0,
	  "t.conf:6: kernel-rings: only valid for type vhost-user" },
	{ "bad_reconnect_with_listen",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nlisten = /a\nreconnect = 2\n", 0,
	  "t.conf:6: reconnect: only valid with connect" },
	{ "bad_socket_mode_with_connect",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nconnect = /a\nsocket-mode = 0600\n", 0,
	  "t.conf:6: socket-mode: only valid with listen" },
	{ "bad_socket_group_with_connect",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nconnect = /a\nsocket-group = root\n", 0,
	  "t.conf:6: socket-group: only valid with listen" },
	/* whole-file checks */
	{ "bad_port_names_missing_tap", "[tap t0]\n[port p0]\ntap = t9\ntype = stream\nlisten = /a\n", 0,
	  "t.conf:3: tap: no tap 't9' in this file" },
	{ "bad_two_ports_one_tap",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nlisten = /a\n"
	  "[port p1]\ntype = dgram\ntap = t0\nlisten = /b\n", 0,
	  "t.conf:8: tap: 't0' is already used by port 'p0' (line 2)" },
	{ "bad_two_ports_one_listen",
	  "[tap t0]\n[tap t1]\n[port p0]\ntap = t0\ntype = stream\nlisten = /a\n"
	  "[port p1]\ntype = dgram\nlisten = /a\ntap = t1\n", 0,
	  "t.conf:9: listen: '/a' is already used by port 'p0' (line 3)" },
	{ "bad_listen_is_control_socket",
	  "[tap t0]\n[port p0]\ntap = t0\ntype = stream\nlisten = /run/vringnetd/control.sock\n", 0,
	  "t.conf:5: listen: '/run/vringnetd/control.sock' is the control socket" },
	{ "bad_bridge_is_a_tap", "[tap t0]\nbridge = t1\n[tap t1]\n", 0,
	  "t.conf:2: bridge: 't1' is a tap of this file" },
	{ "bad_bridge_is_itself", "[tap t0]\nbridge = t0\n", 0,
	  "t.conf:2: bridge: 't0' is a tap of this file" },
	{ "bad_first_error_wins", "[tap t0]\nmtu = 1\nmac = x\n", 0,
	  "t.conf:2: mtu: '1' is out of range 68..65535" },
};

#define N_BAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

START_TEST(config_bad)
{
	const struct bad_case *c = &bad_cases[_i];
	struct config cfg;
	char err[CFG_ERR_MAX];
	size_t len = c->len ? c->len : strlen(c->text);
	int ret;

	memset(err, 'x', sizeof(err));
	ret = config_parse_buffer(T_FILE, c->text, len, &cfg, err, sizeof(err));
	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_str_eq(err, c->error);
	/* nothing left allocated, nothing to free */
	ck_assert_ptr_null(cfg.taps);
	ck_assert_ptr_null(cfg.ports);
	ck_assert_uint_eq(cfg.ntaps, 0);
	ck_assert_uint_eq(cfg.nports, 0);
}
END_TEST

START_TEST(config_bad_line_too_long)
{
	size_t n = 9 + 4097 + 1;
	char *text = malloc(n + 1), err[CFG_ERR_MAX];
	struct config cfg;

	memcpy(text, "[daemon]\n", 9);
	memset(text + 9, '#', 4097);
	text[n - 1] = '\n';
	text[n] = '\0';
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: line too long (over 4096 bytes)");
	/* exactly 4096 bytes is fine */
	text[9 + 4096] = '\n';
	text[9 + 4097] = '\0';
	ck_assert_int_eq(parse(text, &cfg, err), 0);
	config_free(&cfg);
	free(text);
}
END_TEST

START_TEST(config_bad_path_too_long)
{
	char text[512], path[CFG_PATH_MAX + 1], err[CFG_ERR_MAX];
	struct config cfg;

	/* 108 bytes: one more than sun_path can hold with its NUL */
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	snprintf(text, sizeof(text), "[daemon]\ncontrol-socket = %s\n", path);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: control-socket: path longer than 107 bytes (a unix socket's limit)");
	/* 107 bytes is the longest that fits */
	path[sizeof(path) - 2] = '\0';
	snprintf(text, sizeof(text), "[daemon]\ncontrol-socket = %s\n", path);
	ck_assert_int_eq(parse(text, &cfg, err), 0);
	ck_assert_str_eq(cfg.control_socket, path);
	config_free(&cfg);
}
END_TEST

START_TEST(config_bad_too_many_addresses)
{
	char text[4096], err[CFG_ERR_MAX];
	struct config cfg;
	size_t pos = 0;
	int i;

	pos += (size_t)snprintf(text + pos, sizeof(text) - pos, "[tap t0]\n");
	for (i = 0; i <= CFG_MAX_ADDRESSES; i++)
		pos += (size_t)snprintf(text + pos, sizeof(text) - pos,
					"address = 10.0.%d.1/24\n", i);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:34: address: too many addresses (max 32)");
}
END_TEST

START_TEST(config_bad_too_many_taps)
{
	size_t cap = 32 * (CFG_MAX_TAPS + 1), pos = 0;
	char *text = malloc(cap), err[CFG_ERR_MAX];
	struct config cfg;
	int i;

	for (i = 0; i <= CFG_MAX_TAPS; i++)
		pos += (size_t)snprintf(text + pos, cap - pos, "[tap t%d]\n", i);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:257: too many taps (max 256)");
	free(text);
}
END_TEST

/* ------------------------------------------------------------ files */

static char tmpdir[64];

/** tmpdir_setup() - make a fresh temporary directory for one test */
static void tmpdir_setup(void)
{
	strcpy(tmpdir, "/tmp/check-config.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/** tmpdir_teardown() - remove the test's temporary directory */
static void tmpdir_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", tmpdir);
}

/**
 * write_file() - create a file in the test directory
 * @name: file name
 * @data: contents
 * @len: their size
 * @path: the full path, 128 bytes
 */
static void write_file(const char *name, const void *data, size_t len, char *path)
{
	int fd;

	snprintf(path, 128, "%s/%s", tmpdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

START_TEST(config_file_missing)
{
	char path[128], err[CFG_ERR_MAX], want[256];
	struct config cfg;

	snprintf(path, sizeof(path), "%s/none.conf", tmpdir);
	ck_assert_int_eq(config_load(path, &cfg, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", path);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(config_file_directory)
{
	char err[CFG_ERR_MAX], want[256];
	struct config cfg;

	ck_assert_int_eq(config_load(tmpdir, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", tmpdir);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(config_file_device)
{
	char err[CFG_ERR_MAX];
	struct config cfg;

	ck_assert_int_eq(config_load("/dev/null", &cfg, err, sizeof(err)), -EINVAL);
	ck_assert_str_eq(err, "/dev/null: not a regular file");
}
END_TEST

START_TEST(config_file_fifo)
{
	char path[128], err[CFG_ERR_MAX], want[256];
	struct config cfg;

	snprintf(path, sizeof(path), "%s/fifo.conf", tmpdir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	/* must not block waiting for a writer */
	ck_assert_int_eq(config_load(path, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(config_file_too_big)
{
	size_t n = CFG_FILE_MAX + 1;
	char *data = malloc(n), path[128], err[CFG_ERR_MAX], want[256];
	struct config cfg;

	memset(data, '\n', n);
	write_file("big.conf", data, n, path);
	ck_assert_int_eq(config_load(path, &cfg, err, sizeof(err)), -EFBIG);
	snprintf(want, sizeof(want), "%s: file larger than 1048576 bytes", path);
	ck_assert_str_eq(err, want);
	/* exactly 1 MiB of blank lines is a valid (empty) file */
	write_file("max.conf", data, n - 1, path);
	ck_assert_int_eq(config_load(path, &cfg, err, sizeof(err)), 0);
	config_free(&cfg);
	free(data);
}
END_TEST

START_TEST(config_file_error_names_file)
{
	static const char text[] = "[daemon]\n\n# x\n[tap t0]\nmtu = big\n";
	char path[128], err[CFG_ERR_MAX], want[256];
	struct config cfg;

	write_file("bad.conf", text, sizeof(text) - 1, path);
	ck_assert_int_eq(config_load(path, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:5: mtu: 'big' is not a number", path);
	ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(config_file_example)
{
	char err[CFG_ERR_MAX];
	struct config cfg;
	const char *path = "examples/vringnetd.conf";

	if (access(path, R_OK))
		runner_skip("%s not found (run from the source tree)", path);
	ck_assert_msg(config_load(path, &cfg, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(cfg.path, path);
	ck_assert_uint_eq(cfg.ntaps, 2);
	ck_assert_uint_eq(cfg.nports, 2);
	ck_assert_str_eq(cfg.taps[0].name, "vnet0");
	ck_assert_uint_eq(cfg.taps[0].naddresses, 2);
	ck_assert_str_eq(cfg.taps[1].bridge, "br-vm");
	ck_assert_int_eq(cfg.ports[1].type, CFG_PORT_STREAM);
	config_free(&cfg);
}
END_TEST

/* ------------------------------------------------------------ good files */

/**
 * dump_id() - an id as text, "-" for (id_t)-1
 * @id: the id
 * @buf: output, 16 bytes
 *
 * Return: @buf.
 */
static const char *dump_id(unsigned int id, char *buf)
{
	if (id == (unsigned int)-1)
		return "-";
	snprintf(buf, 16, "%u", id);
	return buf;
}

/**
 * dump() - a canonical one-line-per-section text of a configuration
 * @cfg: the configuration
 * @out: output
 * @len: its size
 */
static void dump(const struct config *cfg, char *out, size_t len)
{
	size_t pos = 0;
	unsigned int i, j;
	char a[16], b[16];

#define OUT(...) (pos += (size_t)snprintf(out + pos, pos < len ? len - pos : 0, __VA_ARGS__))
	OUT("daemon socket=%s mode=%o group=%s engine=%s log=%s user=%s\n",
	    cfg->control_socket, (unsigned int)cfg->control_mode, dump_id(cfg->control_gid, a),
	    config_engine_name(cfg->engine), config_log_level_name(cfg->log_level),
	    cfg->user[0] ? cfg->user : "-");
	for (i = 0; i < cfg->ntaps; i++) {
		const struct config_tap *t = &cfg->taps[i];

		OUT("tap %s@%u mtu=%u", t->name, t->line, t->mtu);
		if (t->mac_set)
			OUT(" mac=%02x:%02x:%02x:%02x:%02x:%02x", t->mac[0], t->mac[1],
			    t->mac[2], t->mac[3], t->mac[4], t->mac[5]);
		else
			OUT(" mac=default");
		OUT(" addr=");
		for (j = 0; j < t->naddresses; j++) {
			char host[INET6_ADDRSTRLEN];

			inet_ntop(t->addresses[j].family, &t->addresses[j].addr, host, sizeof(host));
			OUT("%s%s/%u", j ? "," : "", host, t->addresses[j].prefixlen);
		}
		OUT(" bridge=%s queues=%u ring=%u owner=%s group=%s persist=%s\n",
		    t->bridge[0] ? t->bridge : "-", t->queues, t->ring_size,
		    dump_id(t->owner_uid, a), dump_id(t->group_gid, b), t->persist ? "yes" : "no");
	}
	for (i = 0; i < cfg->nports; i++) {
		const struct config_port *p = &cfg->ports[i];

		OUT("port %s@%u tap=%s type=%s listen=%s connect=%s peer=%s mode=%o owner=%s group=%s reconnect=%u\n",
		    p->name, p->line, p->tap, config_port_type_name(p->type),
		    p->listen[0] ? p->listen : "-", p->connect[0] ? p->connect : "-",
		    p->peer[0] ? p->peer : "-", (unsigned int)p->socket_mode,
		    dump_id(p->socket_uid, a), dump_id(p->socket_gid, b), p->reconnect);
	}
#undef OUT
}

#define D_DEFAULT "daemon socket=/run/vringnetd/control.sock mode=660 group=- engine=auto log=info user=-\n"

/**
 * struct good_case - a valid file and what it must give
 * @name: test name
 * @text: the file
 * @want: dump() of the result
 */
static const struct good_case {
	const char *name;
	const char *text;
	const char *want;
} good_cases[] = {
	{ "good_empty", "", D_DEFAULT },
	{ "good_comments_only", "# nothing\n\n   # here\n\t\n", D_DEFAULT },
	{ "good_no_final_newline", "[tap t0]\nmtu = 1500",
	  D_DEFAULT "tap t0@1 mtu=1500 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n" },
	{ "good_crlf", "[tap t0]\r\nmtu = 9000\r\n",
	  D_DEFAULT "tap t0@1 mtu=9000 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n" },
	{ "good_empty_daemon", "[daemon]\n", D_DEFAULT },
	{ "good_daemon_all", "[daemon]\ncontrol-socket=/run/c.sock\ncontrol-mode=0\ncontrol-group=0\n"
	  "engine=kernel\nlog-level=err\nuser=0\n",
	  "daemon socket=/run/c.sock mode=0 group=0 engine=kernel log=err user=0\n" },
	{ "good_log_levels", "[daemon]\nlog-level = notice # n\n",
	  "daemon socket=/run/vringnetd/control.sock mode=660 group=- engine=auto log=notice user=-\n" },
	{ "good_addresses_in_order", "[tap t0]\naddress = fd00::1/128\naddress = 10.0.0.1/32\n"
	  "address = 192.168.1.254/1\naddress = 2001:db8::/64\n",
	  D_DEFAULT "tap t0@1 mtu=0 mac=default addr=fd00::1/128,10.0.0.1/32,192.168.1.254/1,2001:db8::/64 "
	  "bridge=- queues=1 ring=256 owner=- group=- persist=no\n" },
	{ "good_mac_case", "[tap t0]\nmac = 02:AB:cd:Ef:00:ff\n",
	  D_DEFAULT "tap t0@1 mtu=0 mac=02:ab:cd:ef:00:ff addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n" },
	{ "good_tap_names", "[tap a]\n[tap A-b_c.d@e+1]\n[tap ...]\n",
	  D_DEFAULT
	  "tap a@1 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n"
	  "tap A-b_c.d@e+1@2 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n"
	  "tap ...@3 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n" },
	{ "good_port_before_tap", "[port p]\ntap=t\ntype=stream\nlisten=/l\n[tap t]\n",
	  D_DEFAULT "tap t@5 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n"
	  "port p@1 tap=t type=stream listen=/l connect=- peer=- mode=660 owner=- group=- reconnect=1\n" },
	{ "good_dgram_connect_peer", "[tap t]\n[port p]\ntap=t\ntype=dgram\nconnect=/c\npeer=/q\nreconnect=7\n",
	  D_DEFAULT "tap t@1 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n"
	  "port p@2 tap=t type=dgram listen=- connect=/c peer=/q mode=660 owner=- group=- reconnect=7\n" },
	{ "good_socket_perms", "[tap t]\n[port p]\ntap=t\ntype=ringfd\nlisten=/r\nsocket-mode=0\n"
	  "socket-owner=123456\nsocket-group=7\n",
	  D_DEFAULT "tap t@1 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n"
	  "port p@2 tap=t type=ringfd listen=/r connect=- peer=- mode=0 owner=123456 group=7 reconnect=1\n" },
	{ "good_path_with_hash_and_space", "[daemon]\ncontrol-socket = /run/a b#c.sock   # comment\n",
	  "daemon socket=/run/a b#c.sock mode=660 group=- engine=auto log=info user=-\n" },
	{ "good_value_with_equals", "[tap t]\n[port p]\ntap = t\ntype = stream\nlisten = /run/k=v.sock\n",
	  D_DEFAULT "tap t@1 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n"
	  "port p@2 tap=t type=stream listen=/run/k=v.sock connect=- peer=- mode=660 owner=- group=- reconnect=1\n" },
	{ "good_header_comment_no_blank", "[tap t]#c\n",
	  D_DEFAULT "tap t@1 mtu=0 mac=default addr= bridge=- queues=1 ring=256 owner=- group=- persist=no\n" },
	{ "good_bridge_and_persist", "[tap t]\nbridge = br-x\npersist = yes\nqueues = 3\nring-size = 4096\n",
	  D_DEFAULT "tap t@1 mtu=0 mac=default addr= bridge=br-x queues=3 ring=4096 owner=- group=- persist=yes\n" },
};

START_TEST(config_good)
{
	const struct good_case *c = &good_cases[_i];
	struct config cfg;
	char got[4096];

	parse_ok(c->text, &cfg);
	dump(&cfg, got, sizeof(got));
	ck_assert_str_eq(got, c->want);
	config_free(&cfg);
}
END_TEST


START_TEST(config_good_empty)
{
	struct config cfg;

	parse_ok("", &cfg);
	ck_assert_str_eq(cfg.path, T_FILE);
	ck_assert_str_eq(cfg.control_socket, "/run/vringnetd/control.sock");
	ck_assert_uint_eq(cfg.control_mode, 0660);
	ck_assert_uint_eq(cfg.control_gid, (gid_t)-1);
	ck_assert_int_eq(cfg.engine, CFG_ENGINE_AUTO);
	ck_assert_int_eq(cfg.log_level, CFG_LOG_INFO);
	ck_assert_str_eq(cfg.user, "");
	ck_assert_uint_eq(cfg.ntaps, 0);
	ck_assert_uint_eq(cfg.nports, 0);
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_daemon)
{
	struct config cfg;

	parse_ok("[daemon]\n"
		 "control-socket = /run/x/ctl.sock\n"
		 "control-mode = 600\n"
		 "control-group = root\n"
		 "engine = user\n"
		 "log-level = debug\n"
		 "user = daemon\n", &cfg);
	ck_assert_str_eq(cfg.control_socket, "/run/x/ctl.sock");
	ck_assert_uint_eq(cfg.control_mode, 0600);
	ck_assert_uint_eq(cfg.control_gid, 0);
	ck_assert_int_eq(cfg.engine, CFG_ENGINE_USER);
	ck_assert_int_eq(cfg.log_level, CFG_LOG_DEBUG);
	ck_assert_str_eq(cfg.user, "daemon");
	ck_assert_uint_eq(cfg.uid, 1);
	ck_assert_uint_eq(cfg.gid, 1);
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_tap_defaults)
{
	struct config cfg;
	uint8_t mac[6];
	const struct config_tap *t;

	parse_ok("[tap vnet0]\n", &cfg);
	ck_assert_uint_eq(cfg.ntaps, 1);
	t = &cfg.taps[0];
	ck_assert_str_eq(t->name, "vnet0");
	ck_assert_uint_eq(t->line, 1);
	ck_assert_uint_eq(t->mtu, 0);
	ck_assert(!t->mac_set);
	config_default_mac("vnet0", mac);
	ck_assert_mem_eq(t->mac, mac, 6);
	ck_assert_uint_eq(t->naddresses, 0);
	ck_assert_str_eq(t->bridge, "");
	ck_assert_uint_eq(t->queues, 1);
	ck_assert_uint_eq(t->ring_size, 256);
	ck_assert_uint_eq(t->owner_uid, (uid_t)-1);
	ck_assert_uint_eq(t->group_gid, (gid_t)-1);
	ck_assert(!t->persist);
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_tap_full)
{
	struct config cfg;
	const struct config_tap *t;
	struct in6_addr a6;

	parse_ok("[tap vnet0]\n"
		 "mtu = 9000\n"
		 "mac = 52:54:00:AB:cd:0e\n"
		 "address = 10.77.0.1/24\n"
		 "address = fd00:77::1/64\n"
		 "address = 10.77.0.1/16\n"
		 "bridge = br-vm\n"
		 "queues = 16\n"
		 "ring-size = 32768\n"
		 "owner = daemon\n"
		 "group = 2\n"
		 "persist = yes\n", &cfg);
	t = &cfg.taps[0];
	ck_assert_uint_eq(t->mtu, 9000);
	ck_assert(t->mac_set);
	ck_assert_mem_eq(t->mac, ((uint8_t[]){ 0x52, 0x54, 0x00, 0xab, 0xcd, 0x0e }), 6);
	ck_assert_uint_eq(t->naddresses, 3);
	ck_assert_int_eq(t->addresses[0].family, AF_INET);
	ck_assert_uint_eq(t->addresses[0].prefixlen, 24);
	ck_assert_uint_eq(t->addresses[0].addr.in.s_addr, inet_addr("10.77.0.1"));
	ck_assert_int_eq(t->addresses[1].family, AF_INET6);
	ck_assert_uint_eq(t->addresses[1].prefixlen, 64);
	ck_assert_int_eq(inet_pton(AF_INET6, "fd00:77::1", &a6), 1);
	ck_assert_mem_eq(&t->addresses[1].addr.in6, &a6, sizeof(a6));
	/* the same address with another prefix is another address */
	ck_assert_uint_eq(t->addresses[2].prefixlen, 16);
	ck_assert_str_eq(t->bridge, "br-vm");
	ck_assert_uint_eq(t->queues, 16);
	ck_assert_uint_eq(t->ring_size, 32768);
	ck_assert_uint_eq(t->owner_uid, 1);
	ck_assert_uint_eq(t->group_gid, 2);
	ck_assert(t->persist);
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_bounds)
{
	struct config cfg;

	parse_ok("[tap abcdefghijklmno]\nmtu = 68\nring-size = 1\nqueues = 1\n"
		 "[tap t1]\nmtu = 65535\nring-size = 2\nowner = 4000000000\n", &cfg);
	ck_assert_str_eq(cfg.taps[0].name, "abcdefghijklmno");
	ck_assert_uint_eq(cfg.taps[0].mtu, 68);
	ck_assert_uint_eq(cfg.taps[0].ring_size, 1);
	ck_assert_uint_eq(cfg.taps[1].mtu, 65535);
	/* a numeric owner need not exist in the user database */
	ck_assert_uint_eq(cfg.taps[1].owner_uid, 4000000000u);
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_limits)
{
	struct config cfg;

	parse_ok("[daemon]\n", &cfg);
	ck_assert_uint_eq(cfg.handshake_timeout, CFG_DEFAULT_HANDSHAKE_TIMEOUT);
	ck_assert_uint_eq(cfg.boot_timeout, CFG_DEFAULT_BOOT_TIMEOUT);
	ck_assert_uint_eq(cfg.message_timeout, CFG_DEFAULT_MESSAGE_TIMEOUT);
	ck_assert_uint_eq(cfg.control_per_uid, CFG_DEFAULT_CONTROL_PER_UID);
	ck_assert_int_eq(cfg.seccomp, CFG_SECCOMP_ON);
	ck_assert(!cfg.upgrade);
	ck_assert_uint_eq(cfg.workers, 1);
	config_free(&cfg);
	parse_ok("[daemon]\nhandshake-timeout = 2\nboot-timeout = 86400\nmessage-timeout = 1\n"
		 "control-clients-per-uid = 15\nseccomp = log\nupgrade = yes\nworkers = 64\n", &cfg);
	ck_assert(cfg.upgrade);
	ck_assert_uint_eq(cfg.workers, 64);
	ck_assert_uint_eq(cfg.handshake_timeout, 2);
	ck_assert_uint_eq(cfg.boot_timeout, 86400);
	ck_assert_uint_eq(cfg.message_timeout, 1);
	ck_assert_uint_eq(cfg.control_per_uid, 15);
	ck_assert_int_eq(cfg.seccomp, CFG_SECCOMP_LOG);
	ck_assert_str_eq(config_seccomp_name(cfg.seccomp), "log");
	config_free(&cfg);
	parse_ok("[daemon]\nworkers = auto\n", &cfg);
	ck_assert_uint_eq(cfg.workers, CFG_WORKERS_AUTO);
	config_free(&cfg);
}
END_TEST

/**
 * allowed_cpus() - the CPUs this process may run on (as the parser checks)
 * @c: out: the first two of them (-1 for none)
 * @off: out: the first CPU below 1024 it may not run on (-1 for none)
 *
 * Return: how many it may run on.
 */
static int allowed_cpus(int c[2], int *off)
{
	cpu_set_t set;
	int i, n = 0;

	c[0] = c[1] = *off = -1;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (i = 0; i <= CFG_MAX_CPU; i++) {
		if (!CPU_ISSET(i, &set)) {
			if (*off < 0)
				*off = i;
			continue;
		}
		if (n < 2)
			c[n] = i;
		n++;
	}
	return n;
}

START_TEST(config_worker_cpus)
{
	char text[256], err[CFG_ERR_MAX], want[128];
	struct config cfg;
	int c[2], off, n = allowed_cpus(c, &off);

	/* worker i on the i-th CPU, in the order written */
	if (n >= 2) {
		snprintf(text, sizeof(text), "[daemon]\nworkers = 2\nworker-cpus = %d,%d\n", c[1], c[0]);
		parse_ok(text, &cfg);
		ck_assert_uint_eq(cfg.nworker_cpus, 2);
		ck_assert_uint_eq(cfg.worker_cpus[0], (unsigned int)c[1]);
		ck_assert_uint_eq(cfg.worker_cpus[1], (unsigned int)c[0]);
		config_free(&cfg);
	}
	/* auto takes any number */
	snprintf(text, sizeof(text), "[daemon]\nworkers = auto\nworker-cpus = %d\n", c[0]);
	parse_ok(text, &cfg);
	ck_assert_uint_eq(cfg.nworker_cpus, 1);
	ck_assert_uint_eq(cfg.worker_cpus[0], (unsigned int)c[0]);
	config_free(&cfg);
	/* no pump thread to pin */
	snprintf(text, sizeof(text), "[daemon]\nworker-cpus = %d\n", c[0]);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: worker-cpus: workers = 1 starts no pump thread to pin");
	/* one CPU per worker */
	snprintf(text, sizeof(text), "[daemon]\nworkers = 3\nworker-cpus = %d\n", c[0]);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:3: worker-cpus: lists 1 CPUs, workers = 3 (line 2) needs one per worker");
	snprintf(text, sizeof(text), "[daemon]\nworker-cpus = %d\nworkers = 3\n", c[0]);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: worker-cpus: lists 1 CPUs, workers = 3 (line 3) needs one per worker");
	/* a CPU offline or outside the process's allowed set */
	if (off < 0) {
		runner_skip("every CPU 0..1023 is allowed to this process");
		return;
	}
	snprintf(text, sizeof(text), "[daemon]\nworkers = 2\nworker-cpus = %d,%d\n", c[0], off);
	ck_assert_int_eq(parse(text, &cfg, err), -EINVAL);
	snprintf(want, sizeof(want),
		 "t.conf:3: worker-cpus: CPU %d is offline or not allowed to the daemon (its CPUs: ", off);
	ck_assert_msg(!strncmp(err, want, strlen(want)), "got '%s', want '%s...'", err, want);
}
END_TEST

START_TEST(config_port_workers)
{
	struct config cfg;

	parse_ok("[daemon]\nworkers = 8\n[tap t0]\n[tap t1]\n"
		 "[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 1,3-4,7\n"
		 "[port p1]\ntap = t1\ntype = ringfd\nlisten = /b\n", &cfg);
	ck_assert_uint_eq(config_find_port(&cfg, "p0")->workers, 0x9aULL);
	ck_assert_uint_eq(config_find_port(&cfg, "p1")->workers, 0);
	config_free(&cfg);
	/* with auto, any index: the ones that do not run are ignored at start */
	parse_ok("[daemon]\nworkers = auto\n[tap t0]\n"
		 "[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 63\n", &cfg);
	ck_assert_uint_eq(config_find_port(&cfg, "p0")->workers, 1ULL << 63);
	config_free(&cfg);
	parse_ok("[daemon]\nworkers = 64\n[tap t0]\n"
		 "[port p0]\ntap = t0\ntype = vhost-user\nlisten = /a\nworkers = 0-63\n", &cfg);
	ck_assert_uint_eq(config_find_port(&cfg, "p0")->workers, ~0ULL);
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_ports)
{
	struct config cfg;
	const struct config_port *p;

	parse_ok("[port vm1]\ntap = t0\ntype = vhost-user\nlisten = /run/vm1.sock\n"
		 "kernel-rings = memory\nsocket-mode = 0600\nsocket-owner = daemon\nsocket-group = root\n"
		 "[port vm2]\ntap = t1\ntype = stream\nconnect = /run/qemu.sock\nreconnect = 3600\n"
		 "[port vm5]\ntap = t4\ntype = vhost-user\nlisten = /run/vm5.sock\nkernel-rings = kick\n"
		 "[port vm3]\ntap = t2\ntype = dgram\nlisten = /run/d.sock\npeer = /run/q.sock\n"
		 "[port vm4]\ntap = t3\ntype = ringfd\nlisten = /run/r.sock\n"
		 "[tap t0]\n[tap t1]\n[tap t2]\n[tap t3]\n[tap t4]\n", &cfg);
	ck_assert_uint_eq(cfg.nports, 5);
	ck_assert_int_eq(config_find_port(&cfg, "vm5")->kernel_rings, CFG_KERNEL_RINGS_KICK);
	p = config_find_port(&cfg, "vm1");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->type, CFG_PORT_VHOST_USER);
	ck_assert_str_eq(p->listen, "/run/vm1.sock");
	ck_assert_str_eq(p->connect, "");
	ck_assert_uint_eq(p->socket_mode, 0600);
	ck_assert_uint_eq(p->socket_uid, 1);
	ck_assert_uint_eq(p->socket_gid, 0);
	ck_assert_uint_eq(p->line, 1);
	ck_assert_int_eq(p->kernel_rings, CFG_KERNEL_RINGS_MEMORY);
	p = config_find_port(&cfg, "vm2");
	ck_assert_int_eq(p->kernel_rings, CFG_KERNEL_RINGS_PROCESS);
	ck_assert_int_eq(p->type, CFG_PORT_STREAM);
	ck_assert_str_eq(p->connect, "/run/qemu.sock");
	ck_assert_uint_eq(p->reconnect, 3600);
	ck_assert_uint_eq(p->socket_mode, 0660);
	ck_assert_uint_eq(p->socket_uid, (uid_t)-1);
	p = config_find_port(&cfg, "vm3");
	ck_assert_int_eq(p->type, CFG_PORT_DGRAM);
	ck_assert_str_eq(p->peer, "/run/q.sock");
	ck_assert_uint_eq(p->reconnect, 1);
	p = config_find_port(&cfg, "vm4");
	ck_assert_int_eq(p->type, CFG_PORT_RINGFD);
	ck_assert_ptr_null(config_find_port(&cfg, "vm9"));
	ck_assert_ptr_eq(config_find_tap(&cfg, "t2"), &cfg.taps[2]);
	ck_assert_ptr_null(config_find_tap(&cfg, "t9"));
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_syntax)
{
	struct config cfg;

	/* comments, blanks, CRLF, tabs, '#' inside a value, blanks in a header */
	parse_ok("# leading comment\r\n"
		 "\r\n"
		 "   [ daemon ]   # header comment\r\n"
		 "\tengine\t=\tuser\t# trailing comment\r\n"
		 "control-socket = /run/a#b.sock # the '#' in the path stays\n"
		 "log-level=warning\n"
		 "[tap   t0]\n"
		 "   # indented comment\n"
		 "mtu = 1500", &cfg);
	ck_assert_int_eq(cfg.engine, CFG_ENGINE_USER);
	ck_assert_int_eq(cfg.log_level, CFG_LOG_WARNING);
	ck_assert_str_eq(cfg.control_socket, "/run/a#b.sock");
	ck_assert_uint_eq(cfg.taps[0].mtu, 1500);
	ck_assert_str_eq(cfg.taps[0].name, "t0");
	config_free(&cfg);
}
END_TEST

START_TEST(config_good_comment_needs_blank)
{
	struct config cfg;
	char err[CFG_ERR_MAX];

	/* without a blank before it, '#' is part of the value */
	ck_assert_int_eq(parse("[daemon]\nengine = user#x\n", &cfg, err), -EINVAL);
	ck_assert_str_eq(err, "t.conf:2: engine: 'user#x' is not auto, kernel or user");
}
END_TEST

START_TEST(config_good_reparse_after_error)
{
	struct config cfg;
	char err[CFG_ERR_MAX];

	ck_assert_int_eq(parse("[tap t0]\n[tap t1]\nmtu = 1\n", &cfg, err), -EINVAL);
	config_free(&cfg);	/* harmless after an error */
	parse_ok("[tap t0]\n", &cfg);
	ck_assert_uint_eq(cfg.ntaps, 1);
	config_free(&cfg);
	config_free(&cfg);	/* and twice */
	ck_assert_ptr_null(cfg.taps);
}
END_TEST

START_TEST(config_default_mac_stable)
{
	uint8_t a[6], b[6], c[6];

	config_default_mac("vnet0", a);
	config_default_mac("vnet0", b);
	config_default_mac("vnet1", c);
	ck_assert_mem_eq(a, b, 6);			/* stable */
	ck_assert(memcmp(a, c, 6) != 0);		/* differs by name */
	ck_assert_uint_eq(a[0], 0x02);			/* locally administered unicast */
	ck_assert_uint_eq(c[0] & 0x03, 0x02);
}
END_TEST

START_TEST(config_names)
{
	ck_assert_str_eq(config_engine_name(CFG_ENGINE_AUTO), "auto");
	ck_assert_str_eq(config_engine_name(CFG_ENGINE_KERNEL), "kernel");
	ck_assert_str_eq(config_engine_name(CFG_ENGINE_USER), "user");
	ck_assert_str_eq(config_engine_name((enum config_engine)42), "?");
	ck_assert_str_eq(config_port_type_name(CFG_PORT_VHOST_USER), "vhost-user");
	ck_assert_str_eq(config_port_type_name(CFG_PORT_STREAM), "stream");
	ck_assert_str_eq(config_port_type_name(CFG_PORT_DGRAM), "dgram");
	ck_assert_str_eq(config_port_type_name(CFG_PORT_RINGFD), "ringfd");
	ck_assert_str_eq(config_port_type_name((enum config_port_type)42), "?");
	ck_assert_str_eq(config_log_level_name(CFG_LOG_ERR), "err");
	ck_assert_str_eq(config_log_level_name(CFG_LOG_DEBUG), "debug");
	ck_assert_str_eq(config_log_level_name((enum config_log_level)42), "?");
	ck_assert_str_eq(config_kernel_rings_name(CFG_KERNEL_RINGS_PROCESS), "process");
	ck_assert_str_eq(config_kernel_rings_name(CFG_KERNEL_RINGS_MEMORY), "memory");
	ck_assert_str_eq(config_kernel_rings_name(CFG_KERNEL_RINGS_KICK), "kick");
}
END_TEST

/**
 * add_file_test() - add a test that works in a fresh temporary directory
 * @s: the suite
 * @fn: the test
 * @name: its name (a TCase of its own)
 */
static void add_file_test(Suite *s, const TTest *fn, const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_add_checked_fixture(tc, tmpdir_setup, tmpdir_teardown);
	tcase_add_test(tc, fn);
	suite_add_tcase(s, tc);
}

/**
 * config_suite() - the configuration parser's tests
 *
 * Return: the suite; each bad file is a test of its own, named after it.
 */
Suite *config_suite(void)
{
	Suite *s = runner_suite_create("config");
	TCase *tc;
	unsigned int i;

	for (i = 0; i < N_BAD; i++) {
		tc = tcase_create(bad_cases[i].name);
		tcase_add_loop_test(tc, config_bad, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++) {
		tc = tcase_create(good_cases[i].name);
		tcase_add_loop_test(tc, config_good, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	RUNNER_ADD_TEST(s, config_bad_line_too_long);
	RUNNER_ADD_TEST(s, config_bad_path_too_long);
	RUNNER_ADD_TEST(s, config_bad_too_many_addresses);
	RUNNER_ADD_TEST(s, config_bad_too_many_taps);
	RUNNER_ADD_TEST(s, config_good_empty);
	RUNNER_ADD_TEST(s, config_good_daemon);
	RUNNER_ADD_TEST(s, config_good_tap_defaults);
	RUNNER_ADD_TEST(s, config_good_tap_full);
	RUNNER_ADD_TEST(s, config_good_bounds);
	RUNNER_ADD_TEST(s, config_good_ports);
	RUNNER_ADD_TEST(s, config_good_syntax);
	RUNNER_ADD_TEST(s, config_good_comment_needs_blank);
	RUNNER_ADD_TEST(s, config_good_reparse_after_error);
	RUNNER_ADD_TEST(s, config_good_limits);
	RUNNER_ADD_TEST(s, config_worker_cpus);
	RUNNER_ADD_TEST(s, config_port_workers);
	RUNNER_ADD_TEST(s, config_default_mac_stable);
	RUNNER_ADD_TEST(s, config_names);
	RUNNER_ADD_TEST(s, config_file_example);

	add_file_test(s, config_file_missing, "config_file_missing");
	add_file_test(s, config_file_directory, "config_file_directory");
	add_file_test(s, config_file_device, "config_file_device");
	add_file_test(s, config_file_fifo, "config_file_fifo");
	add_file_test(s, config_file_too_big, "config_file_too_big");
	add_file_test(s, config_file_error_names_file, "config_file_error_names_file");
	return s;
}
