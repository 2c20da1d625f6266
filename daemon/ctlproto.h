/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ctlproto.h - the control socket protocol of vringnetd (vringnetd-control(7)).
 *
 * Transport: a SOCK_SEQPACKET unix socket; one request per message, exactly
 * one reply per request, in order.  A request is at most CTLPROTO_REQUEST_MAX
 * bytes, a reply at most CTLPROTO_REPLY_MAX bytes.  A connection's SO_SNDBUF
 * must allow such a message: Linux's default (net.core.wmem_default,
 * 208 KiB) does; where it is lower, the server raises SO_SNDBUF.  A full
 * "stats" of 256 ports fits.
 *
 * Both directions use the same text encoding: a message is a sequence of
 * *records*, one per line, each line terminated by a single LF:
 *
 *	TYPE KEY=VALUE KEY=VALUE ...\n
 *
 *   TYPE, KEY  1..31 bytes of [a-z0-9_], starting with a letter
 *   VALUE      0..CTLPROTO_VALUE_MAX bytes; bytes 0x21..0x7e except '%' stand
 *              for themselves, every other byte is %XX (two upper-case hex
 *              digits).  So a value never contains a space, '=' is allowed.
 *   one space between fields; no leading, trailing or double spaces; no
 *   empty lines; no NUL; a key at most once per record.
 *
 * Request: exactly one record whose TYPE is the command:
 *	status version=1\n
 *	list version=1\n
 *	stats version=1\n            (every port)
 *	stats version=1 port=vm1\n   (one port)
 *	stats version=1 queues=yes\n (and each queue pair's counters)
 *	reload version=1\n
 *	upgrade version=1\n
 * version comes first and must be CTLPROTO_VERSION; stats may add port and
 * queues (yes or no); no other keys.
 *
 * Reply: a first record "reply", then data records:
 *	reply version=1 status=ok error=\n
 *	daemon pid=812 version=0.1 engine=user config=/etc/... uptime=12 caps=...
 *	       workers=2 worker_cpus=1,0\n
 *	tap name=vnet0 ifindex=7 mtu=1500 state=up queues=1 persist=no\n
 *	port name=vm1 type=vhost-user tap=vnet0 socket=/run/... connections=1
 *	     workers= pair_workers=1,0\n
 *	stats of=port name=vm1 tx_frames=.. tx_bytes=.. ... rx_frames=.. ...\n
 *	stats of=queue name=vm1 tx_frames=.. ... queue=1 tap=vnet0\n
 *	reload taps_added=1 taps_removed=0 taps_changed=0 ports_added=0 ...\n
 *	upgrade pid=913 old_pid=812 connections=1 fds=9 handover_us=41000\n
 * status is one of ctlproto_status_name(); on anything but "ok", error
 * says why in English and no data records follow.  Which data records each
 * command gets: status: daemon, tap*, port* (and stats*, if the daemon
 * includes counters); list: tap*, port*;
 * stats: stats*; reload: reload; upgrade: upgrade.  Clients ignore keys they do not know
 * (new keys may be added within a version); record types are fixed by the
 * version.
 *
 * The encoder and the decoders are pure functions over buffers (no I/O),
 * so the same code is unit-tested and fuzzed.
 */
#ifndef VRINGNET_CTLPROTO_H
#define VRINGNET_CTLPROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "engine.h"

#define CTLPROTO_VERSION		1
#define CTLPROTO_REQUEST_MAX		512		/* bytes of a request message */
#define CTLPROTO_REPLY_MAX		196608		/* bytes of a reply message */
#define CTLPROTO_TOKEN_MAX		32		/* TYPE/KEY, includes the NUL */
#define CTLPROTO_VALUE_MAX		4096		/* decoded bytes of one value */
#define CTLPROTO_ERROR_MAX		256		/* error text, includes the NUL */
#define CTLPROTO_RECORD_KEYS_MAX	64		/* keys in one record */

/**
 * enum ctlproto_cmd - the requests
 * @CTLPROTO_CMD_STATUS: daemon, taps and ports
 * @CTLPROTO_CMD_LIST: taps and ports only
 * @CTLPROTO_CMD_STATS: counters of every port, or of one (struct ctlproto_request.port)
 * @CTLPROTO_CMD_RELOAD: re-read the configuration file and apply the difference
 * @CTLPROTO_CMD_UPGRADE: hand every tap, socket and front-end to a new
 *	instance of the binary on disk (root or the daemon's own uid only)
 */
enum ctlproto_cmd {
	CTLPROTO_CMD_STATUS,
	CTLPROTO_CMD_LIST,
	CTLPROTO_CMD_STATS,
	CTLPROTO_CMD_RELOAD,
	CTLPROTO_CMD_UPGRADE,
};

/**
 * enum ctlproto_status - the status of a reply (wire names in brackets)
 * @CTLPROTO_OK: done [ok]
 * @CTLPROTO_E_BAD_REQUEST: the request is malformed [bad-request]
 * @CTLPROTO_E_VERSION: unsupported protocol version [bad-version]
 * @CTLPROTO_E_TOO_BIG: the request exceeds CTLPROTO_REQUEST_MAX [too-big]
 * @CTLPROTO_E_UNKNOWN_COMMAND: no such command [unknown-command]
 * @CTLPROTO_E_NO_SUCH_PORT: stats PORT names no port [no-such-port]
 * @CTLPROTO_E_RELOAD_FAILED: the new file is invalid or could not be applied;
 *	the error text has the reason, e.g. "FILE:LINE: message" [reload-failed]
 * @CTLPROTO_E_BUSY: the daemon cannot serve this now, retry [busy]
 * @CTLPROTO_E_INTERNAL: the reply did not fit, or another daemon fault [internal]
 * @CTLPROTO_E_PERMISSION: the client may not do this (upgrade: only root or
 *	the daemon's uid) [permission-denied]
 * @CTLPROTO_E_UPGRADE_FAILED: the successor could not start or refused the
 *	state; this instance keeps serving, the text says why [upgrade-failed]
 * @CTLPROTO_E_UPGRADE_DISABLED: the daemon was started without
 *	[daemon] upgrade = yes; it keeps serving [upgrade-disabled]
 */
enum ctlproto_status {
	CTLPROTO_OK,
	CTLPROTO_E_BAD_REQUEST,
	CTLPROTO_E_VERSION,
	CTLPROTO_E_TOO_BIG,
	CTLPROTO_E_UNKNOWN_COMMAND,
	CTLPROTO_E_NO_SUCH_PORT,
	CTLPROTO_E_RELOAD_FAILED,
	CTLPROTO_E_BUSY,
	CTLPROTO_E_INTERNAL,
	CTLPROTO_E_PERMISSION,
	CTLPROTO_E_UPGRADE_FAILED,
	CTLPROTO_E_UPGRADE_DISABLED,
	CTLPROTO_STATUS_COUNT
};

/**
 * struct ctlproto_request - a decoded request
 * @version: protocol version (CTLPROTO_VERSION)
 * @cmd: the command
 * @port: stats only: the port's name, "" for every port
 * @queues: stats only: also a record per queue pair of each port
 * @peer_uid: server side, not on the wire: the client's uid (SO_PEERCRED)
 */
struct ctlproto_request {
	unsigned int version;
	enum ctlproto_cmd cmd;
	char port[CFG_NAME_MAX];
	bool queues;
	uid_t peer_uid;
};

const char *ctlproto_cmd_name(enum ctlproto_cmd cmd);
const char *ctlproto_status_name(enum ctlproto_status st);

int ctlproto_encode_request(const struct ctlproto_request *req, char *buf, size_t len);
enum ctlproto_status ctlproto_decode_request(const void *buf, size_t len,
					struct ctlproto_request *req,
					char *err, size_t errlen);

/*
 * Building a reply (server side).  Usage:
 *
 *	char buf[CTLPROTO_REPLY_MAX];
 *	struct ctlproto_writer w;
 *	ctlproto_reply_init(&w, buf, sizeof(buf));
 *	ctlproto_reply_daemon(&w, &info);
 *	for each tap: ctlproto_reply_tap(&w, &tap);
 *	n = ctlproto_reply_finish(&w);   // always a valid reply; send n bytes
 *
 * Errors: n = ctlproto_reply_error(buf, sizeof(buf), CTLPROTO_E_..., "why %s", x);
 * Records are appended after a reply header "status=ok"; if anything did not
 * fit, ctlproto_reply_finish() turns the whole buffer into an "internal"
 * error reply ("reply too large"), so the server never sends a truncated one.
 */

/**
 * struct ctlproto_writer - a reply being built
 * @buf: the output buffer
 * @len: its size (at least 128 bytes, at most CTLPROTO_REPLY_MAX are used)
 * @pos: bytes written
 * @overflow: something did not fit (or a key/type was invalid)
 * @in_record: a record line is open
 * @nkeys: keys in the open record
 */
struct ctlproto_writer {
	char *buf;
	size_t len;
	size_t pos;
	bool overflow;
	bool in_record;
	unsigned int nkeys;
};

/**
 * struct ctlproto_daemon_info - the "daemon" record of a status reply
 * @pid: the daemon's pid
 * @version: its version string
 * @engine: engine in use ("kernel" or "user")
 * @config: configuration file path
 * @uptime: seconds since start
 * @caps: effective capabilities, e.g. "cap_net_admin" or "none"
 * @user: user it runs as (name or number)
 * @ntaps: taps configured
 * @nports: ports configured
 * @workers: pump threads running (0: every queue pair on the main thread)
 * @worker_cpus: the CPU of each pump thread in worker order ("1,0"), ""
 *	when they are not pinned; NULL: the key is left out
 */
struct ctlproto_daemon_info {
	pid_t pid;
	const char *version;
	const char *engine;
	const char *config;
	uint64_t uptime;
	const char *caps;
	const char *user;
	unsigned int ntaps;
	unsigned int nports;
	unsigned int workers;
	const char *worker_cpus;
};

/**
 * struct ctlproto_tap_info - a "tap" record
 * @name: interface name
 * @ifindex: interface index, 0 if it does not exist
 * @mtu: current MTU
 * @state: "up", "down", "missing" ...
 * @queues: queues opened
 * @persist: configured persistent
 * @error: for a configured tap that is down (state "failed"), why; else NULL
 */
struct ctlproto_tap_info {
	const char *name;
	int ifindex;
	unsigned int mtu;
	const char *state;
	unsigned int queues;
	bool persist;
	const char *error;
};

/**
 * struct ctlproto_port_info - a "port" record
 * @name: port name
 * @type: "vhost-user", "stream", "dgram", "ringfd"
 * @tap: tap it serves
 * @socket: its socket path (listen or connect)
 * @state: "listening", "connected", "connecting", ...
 * @connections: connected peers now
 * @peer_pid: the newest connected peer's pid (SO_PEERCRED), -1 for none
 * @peer_uid: its uid, -1 for none
 * @peer_counts: the counts below are known (a port type with peers)
 * @accepted: peers served since the port opened
 * @refused: peers refused because the port was full
 * @disconnects: peers gone since the port opened
 * @last_disconnect: why the last one went ("" for none)
 * @memory: the two below are known (a port type whose peers share memory)
 * @memory_bytes: bytes of guest memory the connected peers shared
 * @memory_mapped: of those, bytes mapped in the daemon
 * @error: for a configured port that is down (state "failed"), why; else NULL
 * @workers: the pump threads its pairs may run on ([port] workers: "0,1";
 *	"" for any); NULL: the key is left out
 * @pair_workers: per queue pair, the pump thread running it ("1,0"; "-"
 *	for a pair on the main thread or not running); NULL: left out
 */
struct ctlproto_port_info {
	const char *name;
	const char *type;
	const char *tap;
	const char *socket;
	const char *state;
	unsigned int connections;
	long peer_pid;
	long peer_uid;
	bool peer_counts;
	unsigned long accepted;
	unsigned long refused;
	unsigned long disconnects;
	const char *last_disconnect;
	bool memory;
	uint64_t memory_bytes;
	uint64_t memory_mapped;
	const char *error;
	const char *workers;
	const char *pair_workers;
};

/**
 * struct ctlproto_reload_info - the "reload" record of a reload reply
 * @taps_added: taps created
 * @taps_removed: taps torn down
 * @taps_changed: taps reconfigured (or re-created)
 * @ports_added: ports created
 * @ports_removed: ports torn down
 * @ports_changed: ports re-created or their socket settings changed
 * @failed: changes that failed (the reply is then reload-failed, whose
 *	text says what was applied and what failed)
 */
struct ctlproto_reload_info {
	unsigned int taps_added, taps_removed, taps_changed;
	unsigned int ports_added, ports_removed, ports_changed;
	unsigned int failed;
};

void ctlproto_reply_init(struct ctlproto_writer *w, char *buf, size_t len);
void ctlproto_reply_record(struct ctlproto_writer *w, const char *type);
void ctlproto_reply_str(struct ctlproto_writer *w, const char *key, const char *value);
void ctlproto_reply_u64(struct ctlproto_writer *w, const char *key, uint64_t value);
void ctlproto_reply_daemon(struct ctlproto_writer *w, const struct ctlproto_daemon_info *d);
void ctlproto_reply_tap(struct ctlproto_writer *w, const struct ctlproto_tap_info *t);
void ctlproto_reply_port(struct ctlproto_writer *w, const struct ctlproto_port_info *p);
void ctlproto_reply_stats(struct ctlproto_writer *w, const char *of, const char *name,
			  const struct engine_stats *tx, const struct engine_stats *rx);
void ctlproto_reply_queue_stats(struct ctlproto_writer *w, const char *port, const char *tap,
				unsigned int qp, const struct engine_stats *tx,
				const struct engine_stats *rx, bool drop_peer);
void ctlproto_reply_reload(struct ctlproto_writer *w, const struct ctlproto_reload_info *r);

/**
 * struct ctlproto_upgrade_info - the "upgrade" record of an upgrade reply
 * @pid: the successor's pid (now serving)
 * @old_pid: the pid that answers (it exits after the reply)
 * @connections: front-end connections handed over
 * @fds: file descriptors handed over
 * @handover_us: microseconds from the request to the successor's "running"
 *	(every queue pair it took over started)
 */
struct ctlproto_upgrade_info {
	uint64_t pid;
	uint64_t old_pid;
	uint64_t connections;
	uint64_t fds;
	uint64_t handover_us;
};

void ctlproto_reply_upgrade(struct ctlproto_writer *w, const struct ctlproto_upgrade_info *u);
int ctlproto_reply_finish(struct ctlproto_writer *w);
int ctlproto_reply_error(char *buf, size_t len, enum ctlproto_status st,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Decoding a reply (client side).  Strict: any syntax error, a missing or
 * malformed "reply" header, an unknown status or record type, a record
 * lacking its required keys, or data records after an error status make
 * the whole reply invalid.
 */

/**
 * struct ctlproto_kv - one KEY=VALUE of a decoded record
 * @key: the key (NUL-terminated)
 * @value: the decoded value (NUL-terminated; a %00 escape is refused)
 */
struct ctlproto_kv {
	const char *key;
	const char *value;
};

/**
 * struct ctlproto_record - one decoded record
 * @type: its TYPE
 * @kv: @nkv pairs in wire order
 * @nkv: number of pairs
 */
struct ctlproto_record {
	const char *type;
	struct ctlproto_kv *kv;
	unsigned int nkv;
};

/**
 * struct ctlproto_reply - a decoded reply
 * @version: the header's version
 * @status: the header's status
 * @error: the header's error text ("" on success)
 * @records: @nrecords data records (the header excluded)
 * @nrecords: number of data records
 * @store: owned storage for the strings and arrays above
 */
struct ctlproto_reply {
	unsigned int version;
	enum ctlproto_status status;
	char error[CTLPROTO_ERROR_MAX];
	struct ctlproto_record *records;
	unsigned int nrecords;
	void *store;
};

int ctlproto_decode_reply(const void *buf, size_t len, struct ctlproto_reply *rep,
			  char *err, size_t errlen);
void ctlproto_reply_free(struct ctlproto_reply *rep);
const char *ctlproto_record_get(const struct ctlproto_record *r, const char *key);

#endif /* VRINGNET_CTLPROTO_H */
