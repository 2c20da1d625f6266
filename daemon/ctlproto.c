// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ctlproto.c - encoder and strict decoders of the control protocol.
 *
 * The wire format is described in ctlproto.h and vringnetd-control(7).
 * Nothing here does I/O: every function works on caller buffers, so the
 * daemon, vringnetctl, the unit tests and the fuzzer share one codec.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctlproto.h"

static const char *const ctlproto_cmd_names[] = {
	[CTLPROTO_CMD_STATUS] = "status",
	[CTLPROTO_CMD_LIST] = "list",
	[CTLPROTO_CMD_STATS] = "stats",
	[CTLPROTO_CMD_RELOAD] = "reload",
	[CTLPROTO_CMD_UPGRADE] = "upgrade",
};

static const char *const ctlproto_status_names[CTLPROTO_STATUS_COUNT] = {
	[CTLPROTO_OK] = "ok",
	[CTLPROTO_E_BAD_REQUEST] = "bad-request",
	[CTLPROTO_E_VERSION] = "bad-version",
	[CTLPROTO_E_TOO_BIG] = "too-big",
	[CTLPROTO_E_UNKNOWN_COMMAND] = "unknown-command",
	[CTLPROTO_E_NO_SUCH_PORT] = "no-such-port",
	[CTLPROTO_E_RELOAD_FAILED] = "reload-failed",
	[CTLPROTO_E_BUSY] = "busy",
	[CTLPROTO_E_INTERNAL] = "internal",
	[CTLPROTO_E_PERMISSION] = "permission-denied",
	[CTLPROTO_E_UPGRADE_FAILED] = "upgrade-failed",
	[CTLPROTO_E_UPGRADE_DISABLED] = "upgrade-disabled",
};

/* Data record types of a reply and the key each must carry ("" = none). */
static const struct {
	const char *type;
	const char *required;
} ctlproto_record_types[] = {
	{ "daemon", "pid" },
	{ "tap", "name" },
	{ "port", "name" },
	{ "stats", "name" },
	{ "reload", "" },
	{ "upgrade", "pid" },
};

/**
 * ctlproto_cmd_name() - wire name of a command
 * @cmd: the command
 *
 * Return: "status", "list", "stats", "reload", "upgrade", or "?" for a bad value.
 */
const char *ctlproto_cmd_name(enum ctlproto_cmd cmd)
{
	if ((unsigned int)cmd >= sizeof(ctlproto_cmd_names) / sizeof(ctlproto_cmd_names[0]))
		return "?";
	return ctlproto_cmd_names[cmd];
}

/**
 * ctlproto_status_name() - wire name of a reply status
 * @st: the status
 *
 * Return: e.g. "ok", "bad-request"; "internal" for a bad value.
 */
const char *ctlproto_status_name(enum ctlproto_status st)
{
	if ((unsigned int)st >= CTLPROTO_STATUS_COUNT)
		return ctlproto_status_names[CTLPROTO_E_INTERNAL];
	return ctlproto_status_names[st];
}

/**
 * ctlproto_token_ok() - whether a string is a valid TYPE or KEY
 * @s: the string
 *
 * Return: true for 1..CTLPROTO_TOKEN_MAX-1 bytes of [a-z0-9_] starting with a-z.
 */
static bool ctlproto_token_ok(const char *s)
{
	size_t i;

	if (!s || s[0] < 'a' || s[0] > 'z')
		return false;
	for (i = 0; s[i]; i++) {
		if (i >= CTLPROTO_TOKEN_MAX - 1)
			return false;
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	}
	return true;
}

/**
 * ctlproto_plain() - whether a byte stands for itself in a value
 * @c: the byte
 *
 * Return: true for 0x21..0x7e except '%'.
 */
static bool ctlproto_plain(unsigned char c)
{
	return c >= 0x21 && c <= 0x7e && c != '%';
}

static const char ctlproto_hex[] = "0123456789ABCDEF";

/* ---------------------------------------------------------------- writer */

/**
 * ctlproto_put() - append bytes to a writer
 * @w: the writer
 * @s: bytes
 * @n: how many
 *
 * Sets @w->overflow instead of writing past the end (the buffer is never
 * filled to its last byte).
 */
static void ctlproto_put(struct ctlproto_writer *w, const char *s, size_t n)
{
	if (w->overflow)
		return;
	if (n >= w->len - w->pos) {
		w->overflow = true;
		return;
	}
	memcpy(w->buf + w->pos, s, n);
	w->pos += n;
}

/**
 * ctlproto_put_value() - append an escaped value
 * @w: the writer
 * @v: the value (NULL means "")
 */
static void ctlproto_put_value(struct ctlproto_writer *w, const char *v)
{
	const unsigned char *p = (const unsigned char *)(v ? v : "");
	char esc[3];

	if (strlen((const char *)p) > CTLPROTO_VALUE_MAX) {
		w->overflow = true;
		return;
	}
	for (; *p && !w->overflow; p++) {
		if (ctlproto_plain(*p)) {
			ctlproto_put(w, (const char *)p, 1);
			continue;
		}
		esc[0] = '%';
		esc[1] = ctlproto_hex[*p >> 4];
		esc[2] = ctlproto_hex[*p & 15];
		ctlproto_put(w, esc, 3);
	}
}

/**
 * ctlproto_reply_init() - start a successful reply
 * @w: the writer to set up
 * @buf: output buffer
 * @len: its size; at most CTLPROTO_REPLY_MAX bytes of it are used
 *
 * Writes the header "reply version=1 status=ok error=".
 */
void ctlproto_reply_init(struct ctlproto_writer *w, char *buf, size_t len)
{
	static const char head[] = "reply version=1 status=ok error=";

	w->buf = buf;
	w->len = len > CTLPROTO_REPLY_MAX ? CTLPROTO_REPLY_MAX : len;
	w->pos = 0;
	w->overflow = !buf || w->len < 128;
	w->in_record = true;
	w->nkeys = 3;
	ctlproto_put(w, head, sizeof(head) - 1);
}

/**
 * ctlproto_reply_record() - start a data record
 * @w: the writer
 * @type: record type ("daemon", "tap", "port", "stats", "reload")
 *
 * Closes the record before.  An invalid @type makes the reply fail.
 */
void ctlproto_reply_record(struct ctlproto_writer *w, const char *type)
{
	if (!ctlproto_token_ok(type)) {
		w->overflow = true;
		return;
	}
	if (w->in_record)
		ctlproto_put(w, "\n", 1);
	ctlproto_put(w, type, strlen(type));
	w->in_record = true;
	w->nkeys = 0;
}

/**
 * ctlproto_reply_str() - add KEY=VALUE to the open record
 * @w: the writer
 * @key: the key ([a-z][a-z0-9_]*, at most 31 bytes)
 * @value: the value, any bytes but NUL (escaped as needed); NULL = ""
 */
void ctlproto_reply_str(struct ctlproto_writer *w, const char *key, const char *value)
{
	if (!ctlproto_token_ok(key) || !w->in_record ||
	    w->nkeys >= CTLPROTO_RECORD_KEYS_MAX) {
		w->overflow = true;
		return;
	}
	ctlproto_put(w, " ", 1);
	ctlproto_put(w, key, strlen(key));
	ctlproto_put(w, "=", 1);
	ctlproto_put_value(w, value);
	w->nkeys++;
}

/**
 * ctlproto_reply_u64() - add KEY=decimal number to the open record
 * @w: the writer
 * @key: the key
 * @value: the number
 */
void ctlproto_reply_u64(struct ctlproto_writer *w, const char *key, uint64_t value)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, value);
	ctlproto_reply_str(w, key, num);
}

/**
 * ctlproto_reply_daemon() - add the "daemon" record of a status reply
 * @w: the writer
 * @d: what to say
 */
void ctlproto_reply_daemon(struct ctlproto_writer *w, const struct ctlproto_daemon_info *d)
{
	ctlproto_reply_record(w, "daemon");
	ctlproto_reply_u64(w, "pid", (uint64_t)d->pid);
	ctlproto_reply_str(w, "version", d->version);
	ctlproto_reply_str(w, "engine", d->engine);
	ctlproto_reply_str(w, "config", d->config);
	ctlproto_reply_u64(w, "uptime", d->uptime);
	ctlproto_reply_str(w, "caps", d->caps);
	ctlproto_reply_str(w, "user", d->user);
	ctlproto_reply_u64(w, "taps", d->ntaps);
	ctlproto_reply_u64(w, "ports", d->nports);
	ctlproto_reply_u64(w, "workers", d->workers);
	if (d->worker_cpus)
		ctlproto_reply_str(w, "worker_cpus", d->worker_cpus);
}

/**
 * ctlproto_reply_tap() - add a "tap" record
 * @w: the writer
 * @t: the tap
 */
void ctlproto_reply_tap(struct ctlproto_writer *w, const struct ctlproto_tap_info *t)
{
	ctlproto_reply_record(w, "tap");
	ctlproto_reply_str(w, "name", t->name);
	ctlproto_reply_u64(w, "ifindex", t->ifindex > 0 ? (uint64_t)t->ifindex : 0);
	ctlproto_reply_u64(w, "mtu", t->mtu);
	ctlproto_reply_str(w, "state", t->state);
	ctlproto_reply_u64(w, "queues", t->queues);
	ctlproto_reply_str(w, "persist", t->persist ? "yes" : "no");
	if (t->error)
		ctlproto_reply_str(w, "error", t->error);
}

/**
 * ctlproto_reply_port() - add a "port" record
 * @w: the writer
 * @p: the port
 */
void ctlproto_reply_port(struct ctlproto_writer *w, const struct ctlproto_port_info *p)
{
	ctlproto_reply_record(w, "port");
	ctlproto_reply_str(w, "name", p->name);
	ctlproto_reply_str(w, "type", p->type);
	ctlproto_reply_str(w, "tap", p->tap);
	ctlproto_reply_str(w, "state", p->state);
	ctlproto_reply_u64(w, "connections", p->connections);
	ctlproto_reply_str(w, "socket", p->socket);
	if (p->peer_pid > 0) {
		ctlproto_reply_u64(w, "peer_pid", (uint64_t)p->peer_pid);
		ctlproto_reply_u64(w, "peer_uid", (uint64_t)p->peer_uid);
	}
	if (p->peer_counts) {
		ctlproto_reply_u64(w, "accepted", p->accepted);
		ctlproto_reply_u64(w, "refused", p->refused);
		ctlproto_reply_u64(w, "disconnects", p->disconnects);
		ctlproto_reply_str(w, "last_disconnect", p->last_disconnect ? p->last_disconnect : "");
	}
	if (p->memory) {
		ctlproto_reply_u64(w, "guest_memory", p->memory_bytes);
		ctlproto_reply_u64(w, "guest_memory_mapped", p->memory_mapped);
	}
	if (p->error)
		ctlproto_reply_str(w, "error", p->error);
	if (p->workers)
		ctlproto_reply_str(w, "workers", p->workers);
	if (p->pair_workers)
		ctlproto_reply_str(w, "pair_workers", p->pair_workers);
}

/**
 * ctlproto_put_stats() - add the counters of one direction with a prefix
 * @w: the writer
 * @dir: "tx" or "rx"
 * @s: the counters (NULL: all zero)
 */
static void ctlproto_put_stats(struct ctlproto_writer *w, const char *dir,
			  const struct engine_stats *s)
{
	static const struct engine_stats zero;
	const struct {
		const char *name;
		uint64_t v;
	} *f, fields[] = {
		{ "frames", (s ? s : &zero)->frames },
		{ "bytes", (s ? s : &zero)->bytes },
		{ "batches", (s ? s : &zero)->batches },
		{ "syscalls", (s ? s : &zero)->syscalls },
		{ "drop_bad_chain", (s ? s : &zero)->drop_bad_chain },
		{ "drop_too_big", (s ? s : &zero)->drop_too_big },
		{ "drop_bad_hdr", (s ? s : &zero)->drop_bad_hdr },
		{ "drop_bad_addr", (s ? s : &zero)->drop_bad_addr },
		{ "drop_tap", (s ? s : &zero)->drop_tap },
		{ "notifies", (s ? s : &zero)->notifies },
	};
	char key[CTLPROTO_TOKEN_MAX];

	for (f = fields; f < fields + sizeof(fields) / sizeof(fields[0]); f++) {
		snprintf(key, sizeof(key), "%s_%s", dir, f->name);
		ctlproto_reply_u64(w, key, f->v);
	}
}

/**
 * ctlproto_reply_stats() - add a "stats" record
 * @w: the writer
 * @of: what it counts: "port", "tap" or "queue" (ctlproto_reply_queue_stats())
 * @name: the port's or tap's name
 * @tx: tx-direction counters (ring -> tap), NULL = zeros
 * @rx: rx-direction counters (tap -> ring), NULL = zeros
 *
 * Keys: of, name, then tx_<field> and rx_<field> for every field of
 * struct engine_stats.  More keys (e.g. "tap") may follow with
 * ctlproto_reply_str() before the next record starts.
 */
void ctlproto_reply_stats(struct ctlproto_writer *w, const char *of, const char *name,
			  const struct engine_stats *tx, const struct engine_stats *rx)
{
	ctlproto_reply_record(w, "stats");
	ctlproto_reply_str(w, "of", of);
	ctlproto_reply_str(w, "name", name);
	ctlproto_put_stats(w, "tx", tx);
	ctlproto_put_stats(w, "rx", rx);
}

/**
 * ctlproto_reply_queue_stats() - add the "stats" record of one queue pair of a port
 * @w: the writer
 * @port: the port's name
 * @tap: its tap
 * @qp: the queue pair's index
 * @tx: tx-direction counters of the pair
 * @rx: rx-direction counters of the pair
 * @drop_peer: add tx_drop_peer (a dgram port's: its sender check)
 *
 * Keys: of=queue, name, the counters as in ctlproto_reply_stats(), then
 * tx_drop_peer when asked, queue and tap.
 */
void ctlproto_reply_queue_stats(struct ctlproto_writer *w, const char *port, const char *tap,
				unsigned int qp, const struct engine_stats *tx,
				const struct engine_stats *rx, bool drop_peer)
{
	ctlproto_reply_stats(w, "queue", port, tx, rx);
	if (drop_peer)
		ctlproto_reply_u64(w, "tx_drop_peer", tx->drop_peer);
	ctlproto_reply_u64(w, "queue", qp);
	ctlproto_reply_str(w, "tap", tap);
}

/**
 * ctlproto_reply_reload() - add the "reload" record of a reload reply
 * @w: the writer
 * @r: what the reload did
 */
void ctlproto_reply_reload(struct ctlproto_writer *w, const struct ctlproto_reload_info *r)
{
	ctlproto_reply_record(w, "reload");
	ctlproto_reply_u64(w, "taps_added", r->taps_added);
	ctlproto_reply_u64(w, "taps_removed", r->taps_removed);
	ctlproto_reply_u64(w, "taps_changed", r->taps_changed);
	ctlproto_reply_u64(w, "ports_added", r->ports_added);
	ctlproto_reply_u64(w, "ports_removed", r->ports_removed);
	ctlproto_reply_u64(w, "ports_changed", r->ports_changed);
}

/**
 * ctlproto_reply_upgrade() - add the "upgrade" record of an upgrade reply
 * @w: the writer
 * @u: what the upgrade did
 */
void ctlproto_reply_upgrade(struct ctlproto_writer *w, const struct ctlproto_upgrade_info *u)
{
	ctlproto_reply_record(w, "upgrade");
	ctlproto_reply_u64(w, "pid", u->pid);
	ctlproto_reply_u64(w, "old_pid", u->old_pid);
	ctlproto_reply_u64(w, "connections", u->connections);
	ctlproto_reply_u64(w, "fds", u->fds);
	ctlproto_reply_u64(w, "handover_us", u->handover_us);
}

/**
 * ctlproto_reply_finish() - terminate a reply
 * @w: the writer
 *
 * If anything did not fit (or an invalid type/key was used), the buffer is
 * rewritten as an "internal" error reply, so the result is always valid.
 *
 * Return: the number of bytes to send, or -ENOSPC if @w has no usable buffer.
 */
int ctlproto_reply_finish(struct ctlproto_writer *w)
{
	if (!w->buf || w->len < 128)
		return -ENOSPC;
	if (w->in_record)
		ctlproto_put(w, "\n", 1);
	w->in_record = false;
	if (w->overflow)
		return ctlproto_reply_error(w->buf, w->len, CTLPROTO_E_INTERNAL,
					    "reply too large (over %u bytes) or malformed",
					    (unsigned int)w->len);
	return (int)w->pos;
}

/**
 * ctlproto_reply_error() - write an error reply
 * @buf: output buffer (at least 128 bytes)
 * @len: its size
 * @st: the status (CTLPROTO_OK gives an empty successful reply)
 * @fmt: printf format of the error text (truncated to CTLPROTO_ERROR_MAX - 1)
 *
 * Return: bytes to send, or -ENOSPC if @len is under 128.
 */
int ctlproto_reply_error(char *buf, size_t len, enum ctlproto_status st,
			 const char *fmt, ...)
{
	char text[CTLPROTO_ERROR_MAX];
	struct ctlproto_writer w;
	const unsigned char *p;
	va_list ap;
	int n;

	if (!buf || len < 128)
		return -ENOSPC;
	if (len > CTLPROTO_REPLY_MAX)
		len = CTLPROTO_REPLY_MAX;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if ((unsigned int)st >= CTLPROTO_STATUS_COUNT)
		st = CTLPROTO_E_INTERNAL;
	n = snprintf(buf, len, "reply version=%d status=%s error=",
		     CTLPROTO_VERSION, ctlproto_status_name(st));
	w.buf = buf;
	w.len = len;
	w.pos = (size_t)n;
	w.overflow = false;
	/* Escape what fits, never splitting an escape; keep room for LF. */
	for (p = (const unsigned char *)text; *p; p++) {
		size_t need = ctlproto_plain(*p) ? 1 : 3;

		if (w.pos + need + 1 > len)
			break;
		ctlproto_put_value(&w, (const char[]){ (char)*p, 0 });
	}
	buf[w.pos++] = '\n';
	return (int)w.pos;
}

/* ---------------------------------------------------------------- parser */

/**
 * struct ctlproto_store - where the generic parser puts what it decodes
 * @recs: record array, @maxrecs entries
 * @maxrecs: size of @recs
 * @kvs: pair array, @maxkvs entries
 * @maxkvs: size of @kvs
 * @chars: decoded strings, @maxchars bytes
 * @maxchars: size of @chars
 * @nrecs: records decoded
 * @nkvs: pairs used
 * @nchars: bytes used
 */
struct ctlproto_store {
	struct ctlproto_record *recs;
	unsigned int maxrecs;
	struct ctlproto_kv *kvs;
	unsigned int maxkvs;
	char *chars;
	size_t maxchars;
	unsigned int nrecs;
	unsigned int nkvs;
	size_t nchars;
};

/**
 * ctlproto_hexval() - value of an upper-case hex digit
 * @c: the byte
 *
 * Return: 0..15, or -1 if @c is not 0-9 or A-F.
 */
static int ctlproto_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * ctlproto_parse_token() - parse a TYPE or KEY
 * @p: cursor into the message (advanced past the token)
 * @end: end of the message
 * @st: where the token's text goes
 * @what: "record type" or "key", for messages
 * @line: line number, for messages
 * @err: error text buffer
 * @errlen: its size
 *
 * Return: the stored NUL-terminated token, or NULL with @err set.
 */
static const char *ctlproto_parse_token(const unsigned char **p, const unsigned char *end,
				   struct ctlproto_store *st, const char *what,
				   unsigned int line, char *err, size_t errlen)
{
	const unsigned char *s = *p;
	size_t n = 0;
	char *out;

	while (s + n < end && ((s[n] >= 'a' && s[n] <= 'z') ||
			       (s[n] >= '0' && s[n] <= '9') || s[n] == '_'))
		n++;
	if (n == 0 || s[0] < 'a' || s[0] > 'z') {
		snprintf(err, errlen, "line %u: invalid %s", line, what);
		return NULL;
	}
	if (n >= CTLPROTO_TOKEN_MAX) {
		snprintf(err, errlen, "line %u: %s longer than %d bytes", line,
			 what, CTLPROTO_TOKEN_MAX - 1);
		return NULL;
	}
	if (st->nchars + n + 1 > st->maxchars) {
		snprintf(err, errlen, "line %u: message too large", line);
		return NULL;
	}
	out = st->chars + st->nchars;
	memcpy(out, s, n);
	out[n] = '\0';
	st->nchars += n + 1;
	*p = s + n;
	return out;
}

/**
 * ctlproto_parse_value() - parse and unescape a VALUE
 * @p: cursor (advanced to the space or LF after the value)
 * @end: end of the message
 * @st: where the decoded value goes
 * @key: its key, for messages
 * @line: line number, for messages
 * @err: error text buffer
 * @errlen: its size
 *
 * Return: the stored NUL-terminated value, or NULL with @err set.
 */
static const char *ctlproto_parse_value(const unsigned char **p, const unsigned char *end,
				   struct ctlproto_store *st, const char *key,
				   unsigned int line, char *err, size_t errlen)
{
	const unsigned char *s = *p;
	char *out = st->chars + st->nchars;
	size_t n = 0;

	while (s < end && *s != ' ' && *s != '\n') {
		unsigned char c = *s;

		if (c == '%') {
			int hi, lo;

			if (end - s < 3 || (hi = ctlproto_hexval(s[1])) < 0 ||
			    (lo = ctlproto_hexval(s[2])) < 0) {
				snprintf(err, errlen, "line %u: bad %%-escape in value of '%s'",
					 line, key);
				return NULL;
			}
			c = (unsigned char)(hi << 4 | lo);
			if (c == 0) {
				snprintf(err, errlen, "line %u: NUL (%%00) in value of '%s'",
					 line, key);
				return NULL;
			}
			if (ctlproto_plain(c)) {
				snprintf(err, errlen, "line %u: needless escape %%%c%c in value of '%s'",
					 line, s[1], s[2], key);
				return NULL;
			}
			s += 3;
		} else if (ctlproto_plain(c)) {
			s++;
		} else {
			snprintf(err, errlen, "line %u: invalid byte 0x%02x in value of '%s'",
				 line, c, key);
			return NULL;
		}
		if (n >= CTLPROTO_VALUE_MAX) {
			snprintf(err, errlen, "line %u: value of '%s' longer than %d bytes",
				 line, key, CTLPROTO_VALUE_MAX);
			return NULL;
		}
		if (st->nchars + n + 2 > st->maxchars) {
			snprintf(err, errlen, "line %u: message too large", line);
			return NULL;
		}
		out[n++] = (char)c;
	}
	out[n] = '\0';
	st->nchars += n + 1;
	*p = s;
	return out;
}

/**
 * ctlproto_parse() - parse a whole message into records
 * @buf: the message
 * @len: its length
 * @st: storage (counters reset here)
 * @err: error text buffer
 * @errlen: its size
 *
 * Return: 0, or -EPROTO with @err set ("line N: why").
 */
static int ctlproto_parse(const void *buf, size_t len, struct ctlproto_store *st,
		     char *err, size_t errlen)
{
	const unsigned char *p = buf, *end = p + len;
	unsigned int line = 0;

	st->nrecs = st->nkvs = 0;
	st->nchars = 0;
	if (len == 0) {
		snprintf(err, errlen, "empty message");
		return -EPROTO;
	}
	if (p[len - 1] != '\n') {
		snprintf(err, errlen, "message does not end with a newline");
		return -EPROTO;
	}
	while (p < end) {
		struct ctlproto_record *r;
		unsigned int i;

		line++;
		if (st->nrecs >= st->maxrecs) {
			snprintf(err, errlen, "line %u: too many records", line);
			return -EPROTO;
		}
		r = &st->recs[st->nrecs];
		r->type = ctlproto_parse_token(&p, end, st, "record type", line, err, errlen);
		if (!r->type)
			return -EPROTO;
		r->kv = st->kvs + st->nkvs;
		r->nkv = 0;
		while (*p == ' ') {
			struct ctlproto_kv *kv;

			p++;
			if (r->nkv >= CTLPROTO_RECORD_KEYS_MAX || st->nkvs >= st->maxkvs) {
				snprintf(err, errlen, "line %u: too many keys", line);
				return -EPROTO;
			}
			kv = &st->kvs[st->nkvs];
			kv->key = ctlproto_parse_token(&p, end, st, "key", line, err, errlen);
			if (!kv->key)
				return -EPROTO;
			if (*p != '=') {
				snprintf(err, errlen, "line %u: expected '=' after key '%s'",
					 line, kv->key);
				return -EPROTO;
			}
			p++;
			for (i = 0; i < r->nkv; i++) {
				if (!strcmp(r->kv[i].key, kv->key)) {
					snprintf(err, errlen, "line %u: duplicate key '%s'",
						 line, kv->key);
					return -EPROTO;
				}
			}
			kv->value = ctlproto_parse_value(&p, end, st, kv->key, line, err, errlen);
			if (!kv->value)
				return -EPROTO;
			r->nkv++;
			st->nkvs++;
		}
		if (*p != '\n') {
			snprintf(err, errlen, "line %u: unexpected byte 0x%02x", line, *p);
			return -EPROTO;
		}
		p++;
		st->nrecs++;
	}
	return 0;
}

/**
 * ctlproto_record_get() - value of a key in a record
 * @r: the record
 * @key: the key
 *
 * Return: the value, or NULL if the record lacks @key.
 */
const char *ctlproto_record_get(const struct ctlproto_record *r, const char *key)
{
	unsigned int i;

	for (i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].key, key))
			return r->kv[i].value;
	return NULL;
}

/**
 * ctlproto_parse_version() - parse a version value
 * @s: the text
 *
 * Return: 1..999999, or 0 if @s is not a canonical decimal in that range.
 */
static unsigned int ctlproto_parse_version(const char *s)
{
	unsigned int v = 0;
	size_t i;

	if (!s[0] || (s[0] == '0') || strlen(s) > 6)
		return 0;
	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	return v;
}

/* ---------------------------------------------------------------- requests */

/**
 * ctlproto_port_name_ok() - whether a stats port argument is a valid name
 * @s: the name
 *
 * Return: true for 1..CFG_NAME_MAX-1 bytes of 0x21..0x7e, no '/' or ':'.
 */
static bool ctlproto_port_name_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (s[i] <= 0x20 || s[i] > 0x7e || s[i] == '/' || s[i] == ':')
			return false;
	return i > 0 && i < CFG_NAME_MAX && strcmp(s, ".") && strcmp(s, "..");
}

/**
 * ctlproto_encode_request() - encode a request
 * @req: the request (@req->version 0 means CTLPROTO_VERSION)
 * @buf: output buffer
 * @len: its size (CTLPROTO_REQUEST_MAX is always enough)
 *
 * Return: bytes to send, -EINVAL for an invalid command or port name,
 * -ENOSPC if @buf is too small.
 */
int ctlproto_encode_request(const struct ctlproto_request *req, char *buf, size_t len)
{
	unsigned int version = req->version ? req->version : CTLPROTO_VERSION;
	bool stats = req->cmd == CTLPROTO_CMD_STATS;
	char port[3 * CFG_NAME_MAX] = "";
	size_t i, o = 0;
	int n;

	if ((unsigned int)req->cmd >= sizeof(ctlproto_cmd_names) / sizeof(ctlproto_cmd_names[0]))
		return -EINVAL;
	if (stats && req->port[0]) {
		if (memchr(req->port, '\0', sizeof(req->port)) == NULL ||
		    !ctlproto_port_name_ok(req->port))
			return -EINVAL;
		/* Port names are plain bytes but for '%', which is escaped. */
		for (i = 0; req->port[i]; i++) {
			if (req->port[i] == '%') {
				memcpy(port + o, "%25", 3);
				o += 3;
			} else {
				port[o++] = req->port[i];
			}
		}
		port[o] = '\0';
	}
	n = snprintf(buf, len, "%s version=%u%s%s%s\n", ctlproto_cmd_names[req->cmd], version,
		     port[0] ? " port=" : "", port, stats && req->queues ? " queues=yes" : "");
	if (n < 0 || (size_t)n >= len)
		return -ENOSPC;
	return n;
}

/**
 * ctlproto_decode_request() - decode and validate a request
 * @buf: the message as received
 * @len: its length (may exceed CTLPROTO_REQUEST_MAX: that is an error)
 * @req: the result
 * @err: why it was refused (the text of the error reply)
 * @errlen: size of @err
 *
 * The checks, in order: size, syntax (one record), the "version" key first
 * and equal to CTLPROTO_VERSION, a known command, the allowed keys.
 *
 * Return: CTLPROTO_OK, or the status of the error reply to send (@err set).
 */
enum ctlproto_status ctlproto_decode_request(const void *buf, size_t len,
					struct ctlproto_request *req,
					char *err, size_t errlen)
{
	struct ctlproto_record recs[2];
	struct ctlproto_kv kvs[CTLPROTO_REQUEST_MAX / 2];
	char chars[CTLPROTO_REQUEST_MAX + 1];
	struct ctlproto_store st = {
		.recs = recs, .maxrecs = 2,
		.kvs = kvs, .maxkvs = CTLPROTO_REQUEST_MAX / 2,
		.chars = chars, .maxchars = sizeof(chars),
	};
	char why[CTLPROTO_ERROR_MAX - 32];
	const struct ctlproto_record *r;
	unsigned int i, v;
	int cmd = -1;

	memset(req, 0, sizeof(*req));
	if (len > CTLPROTO_REQUEST_MAX) {
		snprintf(err, errlen, "request of %zu bytes exceeds the limit of %d",
			 len, CTLPROTO_REQUEST_MAX);
		return CTLPROTO_E_TOO_BIG;
	}
	if (ctlproto_parse(buf, len, &st, why, sizeof(why))) {
		snprintf(err, errlen, "malformed request: %s", why);
		return CTLPROTO_E_BAD_REQUEST;
	}
	if (st.nrecs != 1) {
		snprintf(err, errlen, "a request is exactly one line, got %u", st.nrecs);
		return CTLPROTO_E_BAD_REQUEST;
	}
	r = &recs[0];
	if (r->nkv == 0 || strcmp(r->kv[0].key, "version")) {
		snprintf(err, errlen, "the first key of a request must be 'version'");
		return CTLPROTO_E_BAD_REQUEST;
	}
	v = ctlproto_parse_version(r->kv[0].value);
	if (v == 0) {
		snprintf(err, errlen, "invalid version '%.32s'", r->kv[0].value);
		return CTLPROTO_E_BAD_REQUEST;
	}
	if (v != CTLPROTO_VERSION) {
		snprintf(err, errlen, "protocol version %u is not supported (this daemon speaks %d)",
			 v, CTLPROTO_VERSION);
		return CTLPROTO_E_VERSION;
	}
	for (i = 0; i < sizeof(ctlproto_cmd_names) / sizeof(ctlproto_cmd_names[0]); i++)
		if (!strcmp(r->type, ctlproto_cmd_names[i]))
			cmd = (int)i;
	if (cmd < 0) {
		snprintf(err, errlen, "unknown command '%s'", r->type);
		return CTLPROTO_E_UNKNOWN_COMMAND;
	}
	req->version = v;
	req->cmd = (enum ctlproto_cmd)cmd;
	for (i = 1; i < r->nkv; i++) {
		const struct ctlproto_kv *kv = &r->kv[i];

		if (req->cmd == CTLPROTO_CMD_STATS && !strcmp(kv->key, "port")) {
			if (!ctlproto_port_name_ok(kv->value)) {
				snprintf(err, errlen, "invalid port name");
				return CTLPROTO_E_BAD_REQUEST;
			}
			strcpy(req->port, kv->value);
			continue;
		}
		if (req->cmd == CTLPROTO_CMD_STATS && !strcmp(kv->key, "queues")) {
			if (strcmp(kv->value, "yes") && strcmp(kv->value, "no")) {
				snprintf(err, errlen, "queues must be yes or no");
				return CTLPROTO_E_BAD_REQUEST;
			}
			req->queues = !strcmp(kv->value, "yes");
			continue;
		}
		snprintf(err, errlen, "unknown key '%s' for command '%s'", kv->key,
			 r->type);
		return CTLPROTO_E_BAD_REQUEST;
	}
	return CTLPROTO_OK;
}

/* ---------------------------------------------------------------- replies */

/**
 * ctlproto_reply_free() - release what ctlproto_decode_reply() allocated
 * @rep: the reply (may be zeroed or already freed)
 */
void ctlproto_reply_free(struct ctlproto_reply *rep)
{
	free(rep->store);
	rep->store = NULL;
	rep->records = NULL;
	rep->nrecords = 0;
}

/**
 * ctlproto_check_reply() - the semantic checks of a parsed reply
 * @st: the parsed records
 * @rep: filled with version, status, error
 * @err: error text buffer
 * @errlen: its size
 *
 * Return: 0, or -EPROTO with @err set.
 */
static int ctlproto_check_reply(const struct ctlproto_store *st, struct ctlproto_reply *rep,
			   char *err, size_t errlen)
{
	const struct ctlproto_record *h = &st->recs[0];
	const char *version, *status, *error;
	unsigned int i, j;
	int found = -1;

	if (strcmp(h->type, "reply")) {
		snprintf(err, errlen, "line 1: expected a 'reply' header");
		return -EPROTO;
	}
	version = ctlproto_record_get(h, "version");
	status = ctlproto_record_get(h, "status");
	error = ctlproto_record_get(h, "error");
	if (!version || !status || !error) {
		snprintf(err, errlen, "line 1: the header lacks '%s'",
			 !version ? "version" : !status ? "status" : "error");
		return -EPROTO;
	}
	rep->version = ctlproto_parse_version(version);
	if (rep->version != CTLPROTO_VERSION) {
		snprintf(err, errlen, "line 1: unsupported protocol version '%.16s'",
			 version);
		return -EPROTO;
	}
	for (i = 0; i < CTLPROTO_STATUS_COUNT; i++)
		if (!strcmp(status, ctlproto_status_names[i]))
			found = (int)i;
	if (found < 0) {
		snprintf(err, errlen, "line 1: unknown status '%.32s'", status);
		return -EPROTO;
	}
	rep->status = (enum ctlproto_status)found;
	if (strlen(error) >= CTLPROTO_ERROR_MAX) {
		snprintf(err, errlen, "line 1: error text longer than %d bytes",
			 CTLPROTO_ERROR_MAX - 1);
		return -EPROTO;
	}
	strcpy(rep->error, error);
	if (rep->status != CTLPROTO_OK && st->nrecs > 1) {
		snprintf(err, errlen, "line 2: data after an error status");
		return -EPROTO;
	}
	if (rep->status == CTLPROTO_OK && error[0]) {
		snprintf(err, errlen, "line 1: error text with status ok");
		return -EPROTO;
	}
	if (rep->status != CTLPROTO_OK && !error[0]) {
		snprintf(err, errlen, "line 1: error status without error text");
		return -EPROTO;
	}
	for (i = 1; i < st->nrecs; i++) {
		const struct ctlproto_record *r = &st->recs[i];

		found = -1;
		for (j = 0; j < sizeof(ctlproto_record_types) / sizeof(ctlproto_record_types[0]); j++)
			if (!strcmp(r->type, ctlproto_record_types[j].type))
				found = (int)j;
		if (found < 0) {
			snprintf(err, errlen, "line %u: unknown record type '%s'",
				 i + 1, r->type);
			return -EPROTO;
		}
		if (ctlproto_record_types[found].required[0] &&
		    !ctlproto_record_get(r, ctlproto_record_types[found].required)) {
			snprintf(err, errlen, "line %u: '%s' record lacks '%s'", i + 1,
				 r->type, ctlproto_record_types[found].required);
			return -EPROTO;
		}
	}
	return 0;
}

/**
 * ctlproto_decode_reply() - decode and validate a reply
 * @buf: the message as received
 * @len: its length
 * @rep: the result; free it with ctlproto_reply_free() after success
 * @err: why it is invalid
 * @errlen: size of @err
 *
 * Return: 0, -EPROTO for an invalid reply (@err set, nothing to free),
 * -EMSGSIZE for one over CTLPROTO_REPLY_MAX, -ENOMEM.
 */
int ctlproto_decode_reply(const void *buf, size_t len, struct ctlproto_reply *rep,
			  char *err, size_t errlen)
{
	struct ctlproto_store st;
	const unsigned char *p = buf;
	size_t i, lines = 0, spaces = 0;
	char *mem;
	int ret;

	memset(rep, 0, sizeof(*rep));
	if (len > CTLPROTO_REPLY_MAX) {
		snprintf(err, errlen, "reply of %zu bytes exceeds the limit of %d",
			 len, CTLPROTO_REPLY_MAX);
		return -EMSGSIZE;
	}
	for (i = 0; i < len; i++) {
		lines += p[i] == '\n';
		spaces += p[i] == ' ';
	}
	if (lines == 0)
		lines = 1;
	mem = malloc(lines * sizeof(struct ctlproto_record) +
		     (spaces + 1) * sizeof(struct ctlproto_kv) + len + 1);
	if (!mem) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	st.recs = (struct ctlproto_record *)mem;
	st.maxrecs = (unsigned int)lines;
	st.kvs = (struct ctlproto_kv *)(mem + lines * sizeof(struct ctlproto_record));
	st.maxkvs = (unsigned int)spaces + 1;
	st.chars = (char *)(st.kvs + spaces + 1);
	st.maxchars = len + 1;
	ret = ctlproto_parse(buf, len, &st, err, errlen);
	if (!ret)
		ret = ctlproto_check_reply(&st, rep, err, errlen);
	if (ret) {
		free(mem);
		memset(rep, 0, sizeof(*rep));
		return ret;
	}
	rep->store = mem;
	rep->records = st.recs + 1;
	rep->nrecords = st.nrecs - 1;
	return 0;
}
