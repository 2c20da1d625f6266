// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vringnetctl.c - the admin command of vringnetd (vringnetctl(8)).
 *
 * Sends one request over the control socket (vringnetd-control(7)), waits
 * for its reply and prints it as aligned tables or, with --json, as JSON;
 * stats also in the Prometheus text format (--prometheus), and
 * "metrics-http" serves that format to one HTTP request on stdin/stdout
 * (the exporter unit, systemd/vringnetd-exporter@.service).
 * Exit status: 0 done, 1 the daemon refused the request, 2 usage error,
 * 3 the daemon is not running, 4 permission denied, 5 protocol error,
 * 6 timeout, 7 another system error.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctlproto.h"

/* the package version, from the top-level VERSION file (the Makefile's -D) */
#ifndef VRINGNET_VERSION
#define VRINGNET_VERSION "unknown"
#endif
#define VRINGNETCTL_VERSION VRINGNET_VERSION

enum ctl_exit {
	EXIT_OK = 0,
	EXIT_REFUSED = 1,
	EXIT_USAGE = 2,
	EXIT_NOT_RUNNING = 3,
	EXIT_PERMISSION = 4,
	EXIT_PROTOCOL = 5,
	EXIT_TIMEOUT = 6,
	EXIT_SYSTEM = 7,
};

/**
 * struct ctl_opts - the command line
 * @socket: control socket path
 * @sockbuf: the path read from --config
 * @json: print JSON
 * @prometheus: stats only: print the Prometheus text exposition format
 * @http: metrics-http: answer an HTTP request on stdin with the metrics
 * @timeout: seconds to wait for connect, send and reply
 * @req: the request
 */
struct ctl_opts {
	const char *socket;
	char sockbuf[CFG_PATH_MAX];
	bool json;
	bool prometheus;
	bool http;
	double timeout;
	struct ctlproto_request req;
};

/**
 * usage() - print the help text
 * @f: where to
 */
static void usage(FILE *f)
{
	fprintf(f,
		"Usage: vringnetctl [OPTIONS] COMMAND [OPTIONS]\n"
		"Query and control a running vringnetd.\n"
		"\n"
		"Commands:\n"
		"  status         daemon and its workers, taps, ports, each pair's worker\n"
		"  list           taps and ports\n"
		"  stats [PORT]   counters of every port, or of one\n"
		"  reload         re-read the configuration file and apply the difference\n"
		"  upgrade        hand every tap, socket and connection (vhost-user, stream,\n"
		"                 ring-fd) to a new vringnetd started from the binary on\n"
		"                 disk (root only; needs upgrade = yes in [daemon]; waits\n"
		"                 at least 15 s)\n"
		"  metrics-http   answer one HTTP request on stdin (GET /metrics) with the\n"
		"                 counters in the Prometheus format, on stdout\n"
		"\n"
		"Options (before or after the command):\n"
		"  -s, --socket PATH   control socket (default %s)\n"
		"  -c, --config FILE   use the control socket of the daemon's configuration FILE\n"
		"  -j, --json          print JSON\n"
		"  -p, --prometheus    stats: print the Prometheus text format (node_exporter's\n"
		"                      textfile collector), a series per queue pair\n"
		"  -q, --queues        stats: also the counters of each queue pair\n"
		"  -t, --timeout S     seconds to wait for the daemon (default 5)\n"
		"  -h, --help          print this help\n"
		"  -V, --version       print the version\n"
		"\n"
		"Exit status: 0 done, 1 the daemon refused the request, 2 usage error,\n"
		"3 daemon not running, 4 permission denied (also an upgrade refused for\n"
		"the client's uid), 5 protocol error, 6 timeout,\n"
		"7 other system error.\n", CFG_DEFAULT_CONTROL);
}

/**
 * socket_from_config() - the control socket named by a daemon configuration
 * @path: vringnetd's configuration file (--config)
 * @o: the options; @o->socket is set to @o->sockbuf on success
 *
 * The file is read with the daemon's own parser (config.c), so the answer is
 * the socket the daemon opens: control-socket in [daemon], or the default.
 *
 * Return: -1 to go on, else EXIT_USAGE (the file could not be read or is
 * invalid; the parser's "FILE:LINE: message" is printed).
 */
static int socket_from_config(const char *path, struct ctl_opts *o)
{
	struct config *cfg = calloc(1, sizeof(*cfg));
	char err[CFG_ERR_MAX];

	if (!cfg) {
		fprintf(stderr, "vringnetctl: --config: %s\n", strerror(ENOMEM));
		return EXIT_SYSTEM;
	}
	if (config_load(path, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "vringnetctl: --config: %s\n", err);
		config_free(cfg);
		free(cfg);
		return EXIT_USAGE;
	}
	snprintf(o->sockbuf, sizeof(o->sockbuf), "%s", cfg->control_socket);
	o->socket = o->sockbuf;
	config_free(cfg);
	free(cfg);
	return -1;
}

/**
 * parse_args() - parse the command line
 * @argc: argument count
 * @argv: arguments
 * @o: the result
 *
 * Options may come before or after the command and its argument (getopt
 * permutes them: "vringnetctl status --json" = "vringnetctl --json status");
 * "--" ends the options.
 *
 * Return: -1 to go on, else the exit status (help, version, usage error).
 */
static int parse_args(int argc, char **argv, struct ctl_opts *o)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "queues", no_argument, NULL, 'q' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd, *config = NULL;
	bool socket_set = false;
	char *end;
	int c, ret;

	o->socket = CFG_DEFAULT_CONTROL;
	o->json = false;
	o->prometheus = false;
	o->http = false;
	o->timeout = 5;
	memset(&o->req, 0, sizeof(o->req));
	o->req.version = CTLPROTO_VERSION;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:c:jpqt:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->socket = optarg;
			socket_set = true;
			break;
		case 'c':
			config = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'p':
			o->prometheus = true;
			break;
		case 'q':
			o->req.queues = true;
			break;
		case 't':
			errno = 0;
			o->timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->timeout) ||
			    o->timeout < 0.001 || o->timeout > 3600) {
				fprintf(stderr, "vringnetctl: --timeout: '%s' is not a number of seconds in 0.001..3600\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf("vringnetctl %s (control protocol %d)\n", VRINGNETCTL_VERSION,
			       CTLPROTO_VERSION);
			return EXIT_OK;
		case ':':
			fprintf(stderr, "vringnetctl: option '%s' needs an argument\n"
				"Try 'vringnetctl --help'.\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "vringnetctl: unknown option '%s'\n"
				"Try 'vringnetctl --help'.\n", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (config && socket_set) {
		fprintf(stderr, "vringnetctl: --socket and --config both name the control socket: give one\n");
		return EXIT_USAGE;
	}
	if (config) {
		ret = socket_from_config(config, o);
		if (ret >= 0)
			return ret;
	}
	if (optind >= argc) {
		fprintf(stderr, "vringnetctl: no command given (status, list, stats, reload, upgrade, metrics-http)\n"
			"Try 'vringnetctl --help'.\n");
		return EXIT_USAGE;
	}
	cmd = argv[optind++];
	if (!strcmp(cmd, "status")) {
		o->req.cmd = CTLPROTO_CMD_STATUS;
	} else if (!strcmp(cmd, "list")) {
		o->req.cmd = CTLPROTO_CMD_LIST;
	} else if (!strcmp(cmd, "stats")) {
		o->req.cmd = CTLPROTO_CMD_STATS;
		if (optind < argc) {
			const char *port = argv[optind++];

			if (strlen(port) >= sizeof(o->req.port)) {
				fprintf(stderr, "vringnetctl: port name '%s' is longer than %zu bytes\n",
					port, sizeof(o->req.port) - 1);
				return EXIT_USAGE;
			}
			strcpy(o->req.port, port);
		}
	} else if (!strcmp(cmd, "reload")) {
		o->req.cmd = CTLPROTO_CMD_RELOAD;
	} else if (!strcmp(cmd, "upgrade")) {
		o->req.cmd = CTLPROTO_CMD_UPGRADE;
		/* the daemon waits up to 10 s for its successor */
		if (o->timeout < 15)
			o->timeout = 15;
	} else if (!strcmp(cmd, "metrics-http")) {
		if (o->json || o->prometheus || o->req.queues) {
			fprintf(stderr, "vringnetctl: metrics-http takes no --json, --prometheus or --queues\n");
			return EXIT_USAGE;
		}
		o->req.cmd = CTLPROTO_CMD_STATS;
		o->http = true;
	} else {
		fprintf(stderr, "vringnetctl: unknown command '%s' (status, list, stats, reload, upgrade, metrics-http)\n",
			cmd);
		return EXIT_USAGE;
	}
	if (optind < argc) {
		fprintf(stderr, "vringnetctl: unexpected argument '%s' after '%s'\n",
			argv[optind], cmd);
		return EXIT_USAGE;
	}
	if (o->prometheus && (o->req.cmd != CTLPROTO_CMD_STATS || o->json)) {
		fprintf(stderr, "vringnetctl: --prometheus goes with stats, without --json\n");
		return EXIT_USAGE;
	}
	if (o->req.queues && o->req.cmd != CTLPROTO_CMD_STATS) {
		fprintf(stderr, "vringnetctl: --queues goes with stats\n");
		return EXIT_USAGE;
	}
	/* the Prometheus series are per queue pair (see print_prometheus()) */
	if (o->prometheus || o->http)
		o->req.queues = true;
	if (strlen(o->socket) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		fprintf(stderr, "vringnetctl: socket path too long (max %zu bytes)\n",
			sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return EXIT_USAGE;
	}
	return -1;
}

/**
 * errno_exit() - exit status and explanation for a connect/send/recv error
 * @err: the errno
 * @why: set to a short explanation
 *
 * Return: EXIT_NOT_RUNNING, EXIT_PERMISSION, EXIT_TIMEOUT, EXIT_PROTOCOL or
 * EXIT_SYSTEM.
 */
static int errno_exit(int err, const char **why)
{
	switch (err) {
	case ENOENT:
	case ECONNREFUSED:
		*why = "is vringnetd running?";
		return EXIT_NOT_RUNNING;
	case EACCES:
	case EPERM:
		*why = "are you root or in the socket's group?";
		return EXIT_PERMISSION;
	case EAGAIN:
	case ETIMEDOUT:
	case EINPROGRESS:
		*why = "timed out";
		return EXIT_TIMEOUT;
	case EPROTOTYPE:
	case ENOTSOCK:
		*why = "not a vringnetd control socket";
		return EXIT_PROTOCOL;
	case EPIPE:
	case ECONNRESET:
		*why = "the daemon closed the connection";
		return EXIT_PROTOCOL;
	}
	*why = NULL;
	return EXIT_SYSTEM;
}

/**
 * transact() - send the request and receive the reply
 * @o: options (socket, timeout, request)
 * @buf: receive buffer, CTLPROTO_REPLY_MAX + 1 bytes
 * @len: set to the reply's length
 *
 * Return: EXIT_OK, or the exit status after printing why.
 */
static int transact(const struct ctl_opts *o, char *buf, size_t *len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv;
	char req[CTLPROTO_REQUEST_MAX];
	const char *why, *step;
	ssize_t n;
	int fd, rc, e;

	rc = ctlproto_encode_request(&o->req, req, sizeof(req));
	if (rc < 0) {
		fprintf(stderr, "vringnetctl: cannot encode the request: %s\n", strerror(-rc));
		return EXIT_USAGE;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "vringnetctl: socket: %s\n", strerror(errno));
		return EXIT_SYSTEM;
	}
	tv.tv_sec = (time_t)o->timeout;
	tv.tv_usec = (suseconds_t)((o->timeout - (double)tv.tv_sec) * 1e6);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		fprintf(stderr, "vringnetctl: setsockopt: %s\n", strerror(errno));
		close(fd);
		return EXIT_SYSTEM;
	}
	strcpy(sa.sun_path, o->socket);
	step = "connect to";
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto fail;
	step = "send to";
	n = send(fd, req, (size_t)rc, MSG_NOSIGNAL);
	if (n < 0)
		goto fail;
	step = "receive from";
	do {
		n = recv(fd, buf, CTLPROTO_REPLY_MAX + 1, MSG_TRUNC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		goto fail;
	close(fd);
	if (n == 0) {
		fprintf(stderr, "vringnetctl: %s: the daemon closed the connection without a reply\n",
			o->socket);
		return EXIT_PROTOCOL;
	}
	if (n > CTLPROTO_REPLY_MAX) {
		fprintf(stderr, "vringnetctl: %s: reply of %zd bytes exceeds the limit of %d\n",
			o->socket, n, CTLPROTO_REPLY_MAX);
		return EXIT_PROTOCOL;
	}
	*len = (size_t)n;
	return EXIT_OK;
fail:
	e = errno;
	close(fd);
	rc = errno_exit(e, &why);
	if (rc == EXIT_TIMEOUT)
		fprintf(stderr, "vringnetctl: cannot %s %s: no answer within %g s\n", step,
			o->socket, o->timeout);
	else if (why)
		fprintf(stderr, "vringnetctl: cannot %s %s: %s (%s)\n", step, o->socket,
			strerror(e), why);
	else
		fprintf(stderr, "vringnetctl: cannot %s %s: %s\n", step, o->socket, strerror(e));
	return rc;
}

/* ------------------------------------------------------------ JSON */

/**
 * json_string() - print a JSON string literal
 * @s: the bytes; invalid UTF-8 is printed as U+FFFD
 */
static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	while (*p) {
		unsigned char c = *p;
		size_t n = 0, i;

		if (c == '"' || c == '\\') {
			printf("\\%c", c);
			p++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			printf("\\u%04x", c);
			p++;
			continue;
		}
		if (c < 0x80) {
			putchar(c);
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		for (i = 1; n && i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		/* overlong, surrogate and above U+10FFFF forms */
		if (n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
			n = 0;
		if (n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
			n = 0;
		if (!n) {
			printf("\\ufffd");
			p++;
			continue;
		}
		fwrite(p, 1, n + 1, stdout);
		p += n + 1;
	}
	putchar('"');
}

/**
 * is_number() - whether a value is a canonical unsigned decimal
 * @s: the value
 *
 * Return: true for "0" or [1-9][0-9]{0,19}.
 */
static bool is_number(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 20 && strspn(s, "0123456789") == n && (s[0] != '0' || n == 1);
}

/**
 * numeric_key() - whether a key holds a number
 * @key: the key
 *
 * Return: true for the counters and the known numeric fields.
 */
static bool numeric_key(const char *key)
{
	static const char *const keys[] = {
		"pid", "uptime", "taps", "ports", "ifindex", "mtu", "queues", "queue", "workers",
		"connections", "taps_added", "taps_removed", "taps_changed",
		"ports_added", "ports_removed", "ports_changed", NULL,
	};
	unsigned int i;

	if (!strncmp(key, "tx_", 3) || !strncmp(key, "rx_", 3))
		return true;
	for (i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return true;
	return false;
}

/**
 * list_key() - whether a key holds a comma-separated list of numbers
 * @type: the record's type
 * @key: the key
 *
 * Return: true for the daemon's worker_cpus and a port's workers and
 * pair_workers.
 */
static bool list_key(const char *type, const char *key)
{
	return !strcmp(key, "worker_cpus") || !strcmp(key, "pair_workers") ||
	       (!strcmp(type, "port") && !strcmp(key, "workers"));
}

/**
 * json_list_value() - print a comma-separated list as a JSON array
 * @v: the list ("1,0,-"); a "-" (none) becomes null, a number a number
 */
static void json_list_value(const char *v)
{
	const char *c = v;
	char item[24];
	size_t k;

	printf("[");
	while (*c) {
		k = strcspn(c, ",");
		snprintf(item, sizeof(item), "%.*s", (int)(k < sizeof(item) ? k : sizeof(item) - 1), c);
		printf("%s", c == v ? "" : ", ");
		if (is_number(item))
			fputs(item, stdout);
		else if (!strcmp(item, "-"))
			fputs("null", stdout);
		else
			json_string(item);
		c += k + (c[k] == ',');
	}
	printf("]");
}

/**
 * json_value() - print a value as number, boolean, list or string
 * @type: its record's type
 * @key: its key
 * @v: the value
 */
static void json_value(const char *type, const char *key, const char *v)
{
	if (list_key(type, key))
		json_list_value(v);
	else if (numeric_key(key) && is_number(v))
		fputs(v, stdout);
	else if (!strcmp(key, "persist") && (!strcmp(v, "yes") || !strcmp(v, "no")))
		fputs(!strcmp(v, "yes") ? "true" : "false", stdout);
	else
		json_string(v);
}

/**
 * json_record() - print a record as a JSON object
 * @r: the record; keys tx_X and rx_X go into nested "tx" and "rx" objects
 * @indent: indentation of the object's keys
 */
static void json_record(const struct ctlproto_record *r, const char *indent)
{
	static const char *const dirs[] = { "tx", "rx" };
	unsigned int i, d;
	bool first = true, any;

	printf("{");
	for (i = 0; i < r->nkv; i++) {
		const struct ctlproto_kv *kv = &r->kv[i];

		if (!strncmp(kv->key, "tx_", 3) || !strncmp(kv->key, "rx_", 3))
			continue;
		printf("%s\n%s", first ? "" : ",", indent);
		json_string(kv->key);
		printf(": ");
		json_value(r->type, kv->key, kv->value);
		first = false;
	}
	for (d = 0; d < 2; d++) {
		any = false;
		for (i = 0; i < r->nkv; i++) {
			const struct ctlproto_kv *kv = &r->kv[i];

			if (strncmp(kv->key, dirs[d], 2) || kv->key[2] != '_')
				continue;
			if (!any)
				printf("%s\n%s\"%s\": {", first ? "" : ",", indent, dirs[d]);
			else
				printf(", ");
			json_string(kv->key + 3);
			printf(": ");
			json_value(r->type, kv->key, kv->value);
			any = true;
			first = false;
		}
		if (any)
			printf("}");
	}
	printf("\n%.*s}", (int)(strlen(indent) >= 2 ? strlen(indent) - 2 : 0), indent);
}

/**
 * json_list() - print the records of one type as a JSON array member
 * @rep: the reply
 * @type: record type
 * @name: member name
 * @first: whether it is the first member of the enclosing object
 */
static void json_list(const struct ctlproto_reply *rep, const char *type, const char *name,
		      bool first)
{
	unsigned int i;
	bool any = false;

	printf("%s\n  \"%s\": [", first ? "" : ",", name);
	for (i = 0; i < rep->nrecords; i++) {
		if (strcmp(rep->records[i].type, type))
			continue;
		printf("%s\n    ", any ? "," : "");
		json_record(&rep->records[i], "      ");
		any = true;
	}
	printf("%s]", any ? "\n  " : "");
}

/**
 * json_single() - print the first record of a type as a JSON object member
 * @rep: the reply
 * @type: record type (also the member name)
 * @first: whether it is the first member of the enclosing object
 */
static void json_single(const struct ctlproto_reply *rep, const char *type, bool first)
{
	unsigned int i;

	printf("%s\n  \"%s\": ", first ? "" : ",", type);
	for (i = 0; i < rep->nrecords; i++) {
		if (!strcmp(rep->records[i].type, type)) {
			json_record(&rep->records[i], "    ");
			return;
		}
	}
	printf("null");
}

/**
 * print_json() - print a successful reply as JSON
 * @cmd: the command it answers
 * @rep: the reply
 */
static void print_json(enum ctlproto_cmd cmd, const struct ctlproto_reply *rep)
{
	printf("{");
	switch (cmd) {
	case CTLPROTO_CMD_STATUS:
		json_single(rep, "daemon", true);
		json_list(rep, "tap", "taps", false);
		json_list(rep, "port", "ports", false);
		json_list(rep, "stats", "stats", false);
		break;
	case CTLPROTO_CMD_LIST:
		json_list(rep, "tap", "taps", true);
		json_list(rep, "port", "ports", false);
		break;
	case CTLPROTO_CMD_STATS:
		json_list(rep, "stats", "stats", true);
		break;
	case CTLPROTO_CMD_RELOAD:
		json_single(rep, "reload", true);
		break;
	case CTLPROTO_CMD_UPGRADE:
		json_single(rep, "upgrade", true);
		break;
	}
	printf("\n}\n");
}

/* ------------------------------------------------------------ tables */

#define TABLE_MAX_COLS 16

/**
 * struct table - rows of cells printed with aligned columns
 * @ncols: columns
 * @cells: @nrows * @ncols strings (owned)
 * @nrows: rows, the header included
 */
struct table {
	unsigned int ncols;
	char **cells;
	unsigned int nrows;
};

/**
 * printable() - copy a value for a terminal: non-printable bytes become '?'
 * @s: the value (NULL: "-")
 *
 * Return: a new string (exits on out of memory).
 */
static char *printable(const char *s)
{
	char *d = strdup(s && *s ? s : "-");
	char *p;

	if (!d) {
		fprintf(stderr, "vringnetctl: out of memory\n");
		exit(EXIT_SYSTEM);
	}
	for (p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return d;
}

/**
 * table_row() - append a row
 * @t: the table
 * @vals: @t->ncols values (NULL or "" print as "-")
 */
static void table_row(struct table *t, const char *const *vals)
{
	char **cells = realloc(t->cells, sizeof(char *) * t->ncols * (t->nrows + 1));
	unsigned int i;

	if (!cells) {
		fprintf(stderr, "vringnetctl: out of memory\n");
		exit(EXIT_SYSTEM);
	}
	t->cells = cells;
	for (i = 0; i < t->ncols; i++)
		cells[t->nrows * t->ncols + i] = printable(vals[i]);
	t->nrows++;
}

/**
 * table_free() - free a table without printing it
 * @t: the table
 */
static void table_free(struct table *t)
{
	unsigned int i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

/**
 * table_print() - print and free a table
 * @t: the table; the last column is not padded
 */
static void table_print(struct table *t)
{
	size_t width[TABLE_MAX_COLS] = { 0 };
	unsigned int r, c;

	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			if (strlen(t->cells[r * t->ncols + c]) > width[c])
				width[c] = strlen(t->cells[r * t->ncols + c]);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];

			if (c + 1 < t->ncols)
				printf("%-*s  ", (int)width[c], s);
			else
				printf("%s\n", s);
			free(t->cells[r * t->ncols + c]);
		}
	}
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

/**
 * print_records() - print the records of one type as a table
 * @rep: the reply
 * @type: record type
 * @heads: column headers
 * @keys: the key of each column
 * @ncols: number of columns
 * @none: what to print when there is no such record
 */
static void print_records(const struct ctlproto_reply *rep, const char *type,
			  const char *const *heads, const char *const *keys,
			  unsigned int ncols, const char *none)
{
	struct table t = { .ncols = ncols };
	const char *vals[TABLE_MAX_COLS];
	unsigned int i, c;

	table_row(&t, heads);
	for (i = 0; i < rep->nrecords; i++) {
		if (strcmp(rep->records[i].type, type))
			continue;
		for (c = 0; c < ncols; c++)
			vals[c] = ctlproto_record_get(&rep->records[i], keys[c]);
		table_row(&t, vals);
	}
	if (t.nrows == 1) {
		printf("%s\n", none);
		table_free(&t);
		return;
	}
	table_print(&t);
}

/**
 * print_taps_ports() - the tap and port tables of status and list
 * @rep: the reply
 */
static void print_taps_ports(const struct ctlproto_reply *rep)
{
	static const char *const th[] = { "TAP", "IFINDEX", "MTU", "STATE", "QUEUES", "PERSIST" };
	static const char *const tk[] = { "name", "ifindex", "mtu", "state", "queues", "persist" };
	static const char *const ph[] = { "PORT", "TYPE", "TAP", "STATE", "CONNECTIONS", "SOCKET" };
	static const char *const pk[] = { "name", "type", "tap", "state", "connections", "socket" };

	unsigned int i;
	bool first = true;

	print_records(rep, "tap", th, tk, 6, "no taps");
	printf("\n");
	print_records(rep, "port", ph, pk, 6, "no ports");
	/* who is on each port, how its peers left */
	first = true;
	for (i = 0; i < rep->nrecords; i++) {
		const struct ctlproto_record *r = &rep->records[i];
		const char *acc = ctlproto_record_get(r, "accepted");
		const char *pid = ctlproto_record_get(r, "peer_pid");
		const char *last = ctlproto_record_get(r, "last_disconnect");
		const char *mem = ctlproto_record_get(r, "guest_memory");
		const char *mapped = ctlproto_record_get(r, "guest_memory_mapped");
		char *text;

		if (strcmp(r->type, "port") || !acc)
			continue;
		if (first)
			printf("\nclients:\n");
		first = false;
		text = printable(last && *last ? last : "-");
		printf("  port %s: peer %s%s%s%s, %s connected, %s refused, %s disconnected, last: %s",
		       ctlproto_record_get(r, "name"), pid ? "pid " : "none", pid ? pid : "",
		       pid ? " uid " : "", pid ? ctlproto_record_get(r, "peer_uid") : "", acc,
		       ctlproto_record_get(r, "refused"), ctlproto_record_get(r, "disconnects"), text);
		if (mem && mapped && strcmp(mem, "0"))
			printf("; guest memory %s bytes, %s mapped",
			       mem, strcmp(mapped, "0") ? mapped : "not");
		printf("\n");
		free(text);
	}
	first = true;
	/* taps and ports that are down say why */
	for (i = 0; i < rep->nrecords; i++) {
		const struct ctlproto_record *r = &rep->records[i];
		const char *why = ctlproto_record_get(r, "error");
		char *text;

		if (!why || (strcmp(r->type, "tap") && strcmp(r->type, "port")))
			continue;
		if (first)
			printf("\nfailed:\n");
		first = false;
		text = printable(why);
		printf("  %s %s: %s\n", r->type, ctlproto_record_get(r, "name"), text);
		free(text);
	}
}

/**
 * format_uptime() - seconds as "1d 2h 3m 4s"
 * @s: the seconds as text
 * @buf: output
 * @len: its size
 */
static void format_uptime(const char *s, char *buf, size_t len)
{
	unsigned long long t;

	if (!s || !is_number(s)) {
		snprintf(buf, len, "%s", s ? s : "-");
		return;
	}
	t = strtoull(s, NULL, 10);
	if (t >= 86400)
		snprintf(buf, len, "%llud %lluh %llum %llus", t / 86400, t / 3600 % 24,
			 t / 60 % 60, t % 60);
	else if (t >= 3600)
		snprintf(buf, len, "%lluh %llum %llus", t / 3600, t / 60 % 60, t % 60);
	else if (t >= 60)
		snprintf(buf, len, "%llum %llus", t / 60, t % 60);
	else
		snprintf(buf, len, "%llus", t);
}

static void print_stats(const struct ctlproto_reply *rep);

/**
 * format_workers() - the daemon's pump threads as "2 (worker 0 on CPU 1, ...)"
 * @d: the daemon record
 * @buf: output
 * @len: its size
 *
 * A value that is no number gives "-".
 */
static void format_workers(const struct ctlproto_record *d, char *buf, size_t len)
{
	const char *n = ctlproto_record_get(d, "workers");
	const char *cpus = ctlproto_record_get(d, "worker_cpus");
	const char *c;
	size_t pos;
	unsigned int i;

	if (!n || !is_number(n)) {
		snprintf(buf, len, "-");
		return;
	}
	if (!strcmp(n, "0")) {
		snprintf(buf, len, "none (queue pairs run on the main thread)");
		return;
	}
	if (!cpus || !*cpus) {
		snprintf(buf, len, "%s (not pinned)", n);
		return;
	}
	pos = (size_t)snprintf(buf, len, "%s (", n);
	for (i = 0, c = cpus; *c && pos < len; i++) {
		size_t k = strcspn(c, ",");

		pos += (size_t)snprintf(buf + pos, len - pos, "%sworker %u on CPU %.*s",
					i ? ", " : "", i, (int)k, c);
		c += k + (c[k] == ',');
	}
	if (pos < len)
		snprintf(buf + pos, len - pos, ")");
}

/**
 * print_pair_workers() - each running port's workers and the worker of each
 *			  of its queue pairs (status)
 * @rep: the reply; ports without the keys (an older daemon) are left out
 */
static void print_pair_workers(const struct ctlproto_reply *rep)
{
	bool first = true;
	unsigned int i, qp;

	for (i = 0; i < rep->nrecords; i++) {
		const struct ctlproto_record *r = &rep->records[i];
		const char *allowed = ctlproto_record_get(r, "workers");
		const char *pairs = ctlproto_record_get(r, "pair_workers");
		const char *c;

		if (strcmp(r->type, "port") || !allowed || !pairs)
			continue;
		if (first)
			printf("\nqueue pairs (\"-\": main thread or not running):\n");
		first = false;
		printf("  port %s: workers %s;", ctlproto_record_get(r, "name"), *allowed ? allowed : "any");
		for (qp = 0, c = pairs; *c; qp++) {
			size_t k = strcspn(c, ",");

			printf("%s pair %u %s%.*s", qp ? "," : "", qp, c[0] == '-' ? "" : "on worker ",
			       (int)k, c);
			c += k + (c[k] == ',');
		}
		printf("\n");
	}
}

/**
 * print_status() - human output of a status reply (with counters if the
 * daemon sent "stats" records too)
 * @rep: the reply
 */
static void print_status(const struct ctlproto_reply *rep)
{
	const struct ctlproto_record *d = NULL;
	char up[64], wk[512];
	unsigned int i;

	for (i = 0; i < rep->nrecords && !d; i++)
		if (!strcmp(rep->records[i].type, "daemon"))
			d = &rep->records[i];
	if (d) {
		static const char *const labels[] = { "version", "pid", "engine", "uptime",
						      "config", "user", "capabilities", "workers" };
		static const char *const keys[] = { "version", "pid", "engine", "uptime",
						    "config", "user", "caps", "workers" };
		struct table t = { .ncols = 2 };

		format_uptime(ctlproto_record_get(d, "uptime"), up, sizeof(up));
		format_workers(d, wk, sizeof(wk));
		printf("vringnetd\n");
		/* an older daemon says nothing of its workers: no line */
		for (i = 0; i < (ctlproto_record_get(d, "workers") ? 8u : 7u); i++) {
			const char *v = i == 3 ? up : i == 7 ? wk : ctlproto_record_get(d, keys[i]);
			char label[32];

			snprintf(label, sizeof(label), "  %s:", labels[i]);
			table_row(&t, (const char *[]){ label, v });
		}
		table_print(&t);
		printf("\n");
	}
	print_taps_ports(rep);
	print_pair_workers(rep);
	for (i = 0; i < rep->nrecords; i++) {
		if (!strcmp(rep->records[i].type, "stats")) {
			printf("\n");
			print_stats(rep);
			break;
		}
	}
}

/**
 * print_stats() - human output of a stats reply: two rows (tx, rx) per record
 * @rep: the reply; a queue pair's record (--queues) is named PORT:N
 */
static void print_stats(const struct ctlproto_reply *rep)
{
	static const char *const heads[] = {
		"NAME", "OF", "DIR", "FRAMES", "BYTES", "BATCHES", "SYSCALLS", "BAD_CHAIN",
		"TOO_BIG", "BAD_HDR", "BAD_ADDR", "TAP_DROP", "NOTIFIES", "PEER_DROP",
	};
	static const char *const fields[] = {
		"frames", "bytes", "batches", "syscalls", "drop_bad_chain", "drop_too_big",
		"drop_bad_hdr", "drop_bad_addr", "drop_tap", "notifies", "drop_peer",
	};
	struct table t = { .ncols = 14 };
	const char *vals[14];
	char key[CTLPROTO_TOKEN_MAX], qname[CTLPROTO_VALUE_MAX + 32];
	unsigned int i, d, f;

	table_row(&t, heads);
	for (i = 0; i < rep->nrecords; i++) {
		const struct ctlproto_record *r = &rep->records[i];

		if (strcmp(r->type, "stats"))
			continue;
		for (d = 0; d < 2; d++) {
			const char *of = ctlproto_record_get(r, "of");
			const char *qp = ctlproto_record_get(r, "queue");

			vals[0] = ctlproto_record_get(r, "name");
			/* a queue pair's row is named PORT:N (no port name has a ':') */
			if (of && !strcmp(of, "queue") && vals[0] && qp) {
				snprintf(qname, sizeof(qname), "%s:%s", vals[0], qp);
				vals[0] = qname;
			}
			vals[1] = of;
			vals[2] = d ? "rx" : "tx";
			for (f = 0; f < 11; f++) {
				snprintf(key, sizeof(key), "%s_%s", vals[2], fields[f]);
				vals[3 + f] = ctlproto_record_get(r, key);
			}
			table_row(&t, vals);
		}
	}
	if (t.nrows == 1) {
		printf("no counters\n");
		table_free(&t);
		return;
	}
	table_print(&t);
}

/**
 * prom_label() - print ,NAME="VALUE" with the text format's escapes
 * @f: where to
 * @name: label name
 * @value: its value (NULL: empty)
 * @first: no leading comma
 */
static void prom_label(FILE *f, const char *name, const char *value, bool first)
{
	const char *s;

	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (s = value ? value : ""; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/**
 * struct prom_metric - one metric family of stats --prometheus
 * @name: metric name
 * @help: its HELP text
 * @of: the stats records it comes from: "queue" (a port's queue pairs) or "tap"
 * @field: the counter's key after "tx_"/"rx_"
 * @reason: the reason label of a drop counter, NULL for none
 */
struct prom_metric {
	const char *name;
	const char *help;
	const char *of;
	const char *field;
	const char *reason;
};

/*
 * Every counter of a stats reply, as Prometheus counters (vringnetctl(8)
 * documents each).  direction: tx = ring to tap (the guest sends), rx =
 * tap to ring (the guest receives).  Drops of one family share a name and
 * differ by the reason label.  The vringnet_port_* families have one
 * series per queue pair (label queue) and none for the port as a whole,
 * so that sum by (port) is the port's figure and nothing is counted twice.
 */
static const struct prom_metric prom_metrics[] = {
	{ "vringnet_port_frames_total", "Frames a port's queue pair moved between its rings and its tap.", "queue", "frames", NULL },
	{ "vringnet_port_bytes_total", "Bytes of those frames (virtio-net headers not counted).", "queue", "bytes", NULL },
	{ "vringnet_port_batches_total", "Engine passes that moved at least one frame.", "queue", "batches", NULL },
	{ "vringnet_port_syscalls_total", "System calls the engine made on the tap or vring fd.", "queue", "syscalls", NULL },
	{ "vringnet_port_notifies_total", "Notifications (kicks or interrupts) sent to the other side.", "queue", "notifies", NULL },
	{ "vringnet_port_dropped_total", "Frames a port's queue pair dropped, by reason.", "queue", "drop_bad_chain", "bad_chain" },
	{ "vringnet_port_dropped_total", NULL, "queue", "drop_too_big", "too_big" },
	{ "vringnet_port_dropped_total", NULL, "queue", "drop_bad_hdr", "bad_hdr" },
	{ "vringnet_port_dropped_total", NULL, "queue", "drop_bad_addr", "bad_addr" },
	{ "vringnet_port_dropped_total", NULL, "queue", "drop_tap", "tap" },
	{ "vringnet_port_dropped_total", NULL, "queue", "drop_peer", "peer" },
	{ "vringnet_tap_frames_total", "Frames of the tap device (kernel counters: tx = received by the tap from its fds, rx = sent to them).", "tap", "frames", NULL },
	{ "vringnet_tap_bytes_total", "Bytes of the tap device's frames (kernel counters).", "tap", "bytes", NULL },
	{ "vringnet_tap_dropped_total", "Frames the tap device dropped (kernel rx_dropped for tx, e.g. unknown EtherTypes; tx_dropped for rx).", "tap", "drop_tap", "kernel" },
};

/**
 * prom_seen_tap() - whether an earlier record of the reply is the same tap's
 * @rep: the reply
 * @i: the record's index
 * @name: the tap's name
 *
 * Return: true when a "stats of=tap" record for @name comes before @i.
 */
static bool prom_seen_tap(const struct ctlproto_reply *rep, unsigned int i, const char *name)
{
	unsigned int j;

	for (j = 0; j < i; j++) {
		const struct ctlproto_record *o = &rep->records[j];
		const char *oof = ctlproto_record_get(o, "of");
		const char *on = ctlproto_record_get(o, "name");

		if (!strcmp(o->type, "stats") && oof && !strcmp(oof, "tap") && on && !strcmp(on, name))
			return true;
	}
	return false;
}

/**
 * print_prometheus() - a stats reply in the Prometheus text exposition format
 * @f: where to
 * @rep: the reply (asked with queues=yes)
 *
 * One family per counter; port families come from the queue pairs' records,
 * labelled port, tap and queue, tap families from the tap records,
 * labelled tap (each tap once however many ports share it); all labelled
 * direction.  Counters a record lacks (drop_peer of a non-dgram port) are
 * left out.  For node_exporter's textfile collector (write to a temporary
 * file and rename it into the collector's directory) and metrics-http.
 */
static void print_prometheus(FILE *f, const struct ctlproto_reply *rep)
{
	unsigned int m, i, d;
	char key[CTLPROTO_TOKEN_MAX];

	for (m = 0; m < sizeof(prom_metrics) / sizeof(prom_metrics[0]); m++) {
		const struct prom_metric *pm = &prom_metrics[m];

		if (pm->help) {
			fprintf(f, "# HELP %s %s\n", pm->name, pm->help);
			fprintf(f, "# TYPE %s counter\n", pm->name);
		}
		for (i = 0; i < rep->nrecords; i++) {
			const struct ctlproto_record *r = &rep->records[i];
			const char *of = ctlproto_record_get(r, "of");
			const char *name = ctlproto_record_get(r, "name");
			bool queue = !strcmp(pm->of, "queue");

			if (strcmp(r->type, "stats") || !of || strcmp(of, pm->of) || !name)
				continue;
			if (queue && !ctlproto_record_get(r, "queue"))
				continue;
			/* a tap shared by ports comes once per port: print it once */
			if (!queue && prom_seen_tap(rep, i, name))
				continue;
			for (d = 0; d < 2; d++) {
				const char *v;

				snprintf(key, sizeof(key), "%s_%s", d ? "rx" : "tx", pm->field);
				v = ctlproto_record_get(r, key);
				if (!v || !is_number(v))
					continue;
				fprintf(f, "%s{", pm->name);
				if (queue) {
					prom_label(f, "port", name, true);
					prom_label(f, "tap", ctlproto_record_get(r, "tap"), false);
					prom_label(f, "queue", ctlproto_record_get(r, "queue"), false);
				} else {
					prom_label(f, "tap", name, true);
				}
				prom_label(f, "direction", d ? "rx" : "tx", false);
				if (pm->reason)
					prom_label(f, "reason", pm->reason, false);
				fprintf(f, "} %s\n", v);
			}
		}
	}
}

/**
 * print_reload() - human output of a reload reply
 * @rep: the reply
 */
static void print_reload(const struct ctlproto_reply *rep)
{
	const struct ctlproto_record *r = NULL;
	unsigned int i;

	for (i = 0; i < rep->nrecords && !r; i++)
		if (!strcmp(rep->records[i].type, "reload"))
			r = &rep->records[i];
	if (!r) {
		printf("reloaded\n");
		return;
	}
#define V(k) (ctlproto_record_get(r, k) ? ctlproto_record_get(r, k) : "?")
	printf("reloaded: taps %s added, %s removed, %s changed; ports %s added, %s removed, %s changed\n",
	       V("taps_added"), V("taps_removed"), V("taps_changed"),
	       V("ports_added"), V("ports_removed"), V("ports_changed"));
#undef V
}

/**
 * print_upgrade() - human output of an upgrade reply
 * @rep: the reply
 */
static void print_upgrade(const struct ctlproto_reply *rep)
{
	const struct ctlproto_record *r = NULL;
	unsigned int i;

	for (i = 0; i < rep->nrecords && !r; i++)
		if (!strcmp(rep->records[i].type, "upgrade"))
			r = &rep->records[i];
	if (!r) {
		printf("upgraded\n");
		return;
	}
#define V(k) (ctlproto_record_get(r, k) ? ctlproto_record_get(r, k) : "?")
	printf("upgraded: pid %s took over from pid %s (%s front-end connections, %s fds) in %s us\n",
	       V("pid"), V("old_pid"), V("connections"), V("fds"), V("handover_us"));
#undef V
}

/**
 * fetch_reply() - send the request, receive and decode the reply
 * @o: the options
 * @rep: the decoded reply, whose status is ok (free with ctlproto_reply_free())
 *
 * A reply with another status is printed to stderr (and, with --json, as
 * JSON on stdout) and freed.
 *
 * Return: EXIT_OK, or the exit status after printing why.
 */
static int fetch_reply(const struct ctl_opts *o, struct ctlproto_reply *rep)
{
	char err[CTLPROTO_ERROR_MAX + 64];
	char *buf;
	size_t len = 0;
	int rc;

	buf = malloc(CTLPROTO_REPLY_MAX + 1);
	if (!buf) {
		fprintf(stderr, "vringnetctl: out of memory\n");
		return EXIT_SYSTEM;
	}
	rc = transact(o, buf, &len);
	if (rc != EXIT_OK) {
		free(buf);
		return rc;
	}
	rc = ctlproto_decode_reply(buf, len, rep, err, sizeof(err));
	free(buf);
	if (rc) {
		fprintf(stderr, "vringnetctl: %s: invalid reply from the daemon: %s\n",
			o->socket, err);
		return EXIT_PROTOCOL;
	}
	if (rep->status != CTLPROTO_OK) {
		char *text = printable(rep->error);
		enum ctlproto_status st;

		fprintf(stderr, "vringnetctl: %s failed: %s: %s\n",
			ctlproto_cmd_name(o->req.cmd), ctlproto_status_name(rep->status), text);
		free(text);
		if (o->json) {
			printf("{\n  \"status\": ");
			json_string(ctlproto_status_name(rep->status));
			printf(",\n  \"error\": ");
			json_string(rep->error);
			printf("\n}\n");
		}
		st = rep->status;
		ctlproto_reply_free(rep);
		return st == CTLPROTO_E_PERMISSION ? EXIT_PERMISSION : EXIT_REFUSED;
	}
	return EXIT_OK;
}

/**
 * struct metrics - the stats replies a Prometheus page is made of
 * @parts: the replies (one per port, or the one asked for)
 * @nparts: entries in @parts
 * @all: every record of @parts in order (status ok; its records point into
 *	the parts, which print_prometheus() reads as one reply)
 */
struct metrics {
	struct ctlproto_reply *parts;
	unsigned int nparts;
	struct ctlproto_reply all;
};

/**
 * metrics_free() - free what fetch_metrics() got
 * @m: the replies
 */
static void metrics_free(struct metrics *m)
{
	unsigned int i;

	for (i = 0; i < m->nparts; i++)
		ctlproto_reply_free(&m->parts[i]);
	free(m->parts);
	free(m->all.records);
	memset(m, 0, sizeof(*m));
}

/**
 * metrics_join() - gather the records of every part into @m->all
 * @m: the replies
 *
 * Return: EXIT_OK or EXIT_SYSTEM (out of memory).
 */
static int metrics_join(struct metrics *m)
{
	unsigned int i, n = 0;

	for (i = 0; i < m->nparts; i++)
		n += m->parts[i].nrecords;
	m->all.status = CTLPROTO_OK;
	m->all.records = calloc(n ? n : 1, sizeof(*m->all.records));
	if (!m->all.records) {
		fprintf(stderr, "vringnetctl: out of memory\n");
		return EXIT_SYSTEM;
	}
	for (i = 0; i < m->nparts; i++) {
		memcpy(m->all.records + m->all.nrecords, m->parts[i].records,
		       m->parts[i].nrecords * sizeof(*m->all.records));
		m->all.nrecords += m->parts[i].nrecords;
	}
	return EXIT_OK;
}

/**
 * fetch_metrics() - the counters of a Prometheus page: stats queues=yes,
 * one request per port
 * @o: the options (a port asked for, or every port)
 * @m: filled in (free with metrics_free(), also after an error)
 *
 * One reply for every port could pass CTLPROTO_REPLY_MAX (about 23 ports
 * of 16 queue pairs): the ports are listed first, and each port's
 * counters come in a reply of its own (at most 16 queue records).  A port
 * that is down (state failed), or went away between the list and its
 * request, has no counters and is left out.
 * Return: EXIT_OK, or the exit status after printing why.
 */
static int fetch_metrics(const struct ctl_opts *o, struct metrics *m)
{
	struct ctlproto_reply list;
	struct ctl_opts po = *o;
	unsigned int i;
	int rc;

	memset(m, 0, sizeof(*m));
	if (o->req.port[0]) {
		m->parts = calloc(1, sizeof(*m->parts));
		if (!m->parts) {
			fprintf(stderr, "vringnetctl: out of memory\n");
			return EXIT_SYSTEM;
		}
		rc = fetch_reply(o, &m->parts[0]);
		if (rc != EXIT_OK)
			return rc;
		m->nparts = 1;
		return metrics_join(m);
	}
	po.req.cmd = CTLPROTO_CMD_LIST;
	po.req.queues = false;
	rc = fetch_reply(&po, &list);
	if (rc != EXIT_OK)
		return rc;
	m->parts = calloc(list.nrecords ? list.nrecords : 1, sizeof(*m->parts));
	if (!m->parts) {
		ctlproto_reply_free(&list);
		fprintf(stderr, "vringnetctl: out of memory\n");
		return EXIT_SYSTEM;
	}
	po.req.cmd = CTLPROTO_CMD_STATS;
	po.req.queues = true;
	for (i = 0; i < list.nrecords; i++) {
		const struct ctlproto_record *r = &list.records[i];
		const char *name = ctlproto_record_get(r, "name");
		const char *state = ctlproto_record_get(r, "state");

		if (strcmp(r->type, "port") || !name || (state && !strcmp(state, "failed")))
			continue;
		snprintf(po.req.port, sizeof(po.req.port), "%s", name);
		rc = fetch_reply(&po, &m->parts[m->nparts]);
		if (rc == EXIT_REFUSED)
			continue;	/* gone since the list (said on stderr) */
		if (rc != EXIT_OK) {
			ctlproto_reply_free(&list);
			return rc;
		}
		m->nparts++;
	}
	ctlproto_reply_free(&list);
	return metrics_join(m);
}

/* ------------------------------------------------------------ metrics-http */

#define HTTP_HEAD_MAX	8192	/* bytes of a request head read, at most */

/**
 * now() - a monotonic clock
 *
 * Return: seconds.
 */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * http_read_head() - read an HTTP request head from stdin
 * @buf: HTTP_HEAD_MAX + 1 bytes; gets the head, NUL-terminated
 * @timeout: seconds to wait for all of it
 *
 * Reads until the empty line that ends the head (CRLF CRLF or LF LF), or
 * until the end of the input once a line is complete; never more than
 * HTTP_HEAD_MAX bytes.  A request body is not read (GET and HEAD have none).
 *
 * Return: 0, or the HTTP status to answer: 400 (no line, a NUL byte, a read
 * error), 408 (the head not complete within @timeout), 431 (longer than
 * HTTP_HEAD_MAX).
 */
static int http_read_head(char *buf, double timeout)
{
	double end = now() + timeout;
	size_t len = 0;
	ssize_t n;

	buf[0] = '\0';
	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		double left = end - now();
		int r;

		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return 0;
		if (len == HTTP_HEAD_MAX)
			return 431;
		if (left <= 0)
			return 408;
		r = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return 408;
		n = r < 0 ? -1 : read(STDIN_FILENO, buf + len, HTTP_HEAD_MAX - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return 400;
		if (n == 0)
			return strchr(buf, '\n') ? 0 : 400;
		if (memchr(buf + len, '\0', (size_t)n))
			return 400;
		len += (size_t)n;
		buf[len] = '\0';
	}
}

/**
 * http_route() - what to answer a request head
 * @head: the head (http_read_head())
 * @head_only: set for a HEAD request (headers without the body)
 *
 * The request line must be METHOD SP TARGET SP HTTP/1.N, then CRLF or LF.
 *
 * Return: 200 for GET or HEAD of /metrics (a query string is ignored), 404
 * for another path, 405 for another method, 505 for another HTTP version,
 * 400 for a malformed request line.
 */
static int http_route(const char *head, bool *head_only)
{
	size_t ml = strspn(head, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
	const char *t, *v;
	size_t tl, vl, pl;

	*head_only = false;
	if (!ml || head[ml] != ' ')
		return 400;
	/* a HEAD gets no body, whatever its answer */
	*head_only = ml == 4 && !strncmp(head, "HEAD", 4);
	t = head + ml + 1;
	tl = strcspn(t, " \r\n");
	if (!tl || t[tl] != ' ')
		return 400;
	v = t + tl + 1;
	vl = strcspn(v, " \r\n");
	if (v[vl] != '\r' && v[vl] != '\n')
		return 400;
	if (vl != 8 || strncmp(v, "HTTP/1.", 7) || v[7] < '0' || v[7] > '9')
		return 505;
	pl = strcspn(t, "?");
	if (pl > tl)
		pl = tl;
	if (pl != 8 || strncmp(t, "/metrics", 8))
		return 404;
	if (!*head_only && (ml != 3 || strncmp(head, "GET", 3)))
		return 405;
	return 200;
}

/**
 * http_reply() - write an HTTP/1.0 response on stdout
 * @status: 200, 400, 404, 405, 408, 431, 503 or 505
 * @type: the Content-Type
 * @body: the body
 * @len: its length
 * @head_only: leave the body out (HEAD)
 *
 * Return: EXIT_OK once written, EXIT_SYSTEM when stdout failed.
 */
static int http_reply(int status, const char *type, const char *body, size_t len,
		      bool head_only)
{
	static const struct {
		int status;
		const char *reason;
	} reasons[] = {
		{ 200, "OK" }, { 400, "Bad Request" }, { 404, "Not Found" },
		{ 405, "Method Not Allowed" }, { 408, "Request Timeout" },
		{ 431, "Request Header Fields Too Large" }, { 503, "Service Unavailable" },
		{ 505, "HTTP Version Not Supported" },
	};
	const char *reason = "Error";
	unsigned int i;

	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].status == status)
			reason = reasons[i].reason;
	printf("HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
	       "Connection: close\r\n\r\n", status, reason, type, len,
	       status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!head_only)
		fwrite(body, 1, len, stdout);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vringnetctl: metrics-http: cannot write the response: %s\n",
			strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

/**
 * http_error() - an error response whose body is its status line
 * @status: the HTTP status
 * @head_only: leave the body out
 *
 * Return: as http_reply().
 */
static int http_error(int status, bool head_only)
{
	char body[96];
	int n;

	n = snprintf(body, sizeof(body), "%d: %s\n", status,
		     status == 404 ? "the metrics are at /metrics" :
		     status == 503 ? "vringnetd did not answer (see this service's log)" :
		     "the request was refused");
	fprintf(stderr, "vringnetctl: metrics-http: answered %d\n", status);
	return http_reply(status, "text/plain; charset=utf-8", body, (size_t)n, head_only);
}

/**
 * http_serve() - metrics-http: answer one HTTP request on stdin on stdout
 * @o: the options (socket, timeout; the request is stats queues=yes)
 *
 * For a socket unit with Accept=yes (stdin and stdout are the connection):
 * the request head is read (bounded in size and time), GET or HEAD of
 * /metrics gets the counters in the Prometheus text format (version
 * 0.0.4), anything else an error status; a daemon that does not answer
 * gives 503 (the reason goes to stderr).
 *
 * Return: EXIT_OK once a response was written, whatever its status;
 * EXIT_SYSTEM when it could not be.
 */
static int http_serve(const struct ctl_opts *o)
{
	struct metrics m;
	bool head_only = false;
	char *head, *body = NULL;
	size_t len = 0;
	FILE *f;
	int st;

	head = malloc(HTTP_HEAD_MAX + 1);
	if (!head) {
		fprintf(stderr, "vringnetctl: out of memory\n");
		return EXIT_SYSTEM;
	}
	st = http_read_head(head, o->timeout);
	if (!st)
		st = http_route(head, &head_only);
	free(head);
	if (st != 200)
		return http_error(st, head_only);
	if (fetch_metrics(o, &m) != EXIT_OK) {
		metrics_free(&m);
		return http_error(503, head_only);
	}
	f = open_memstream(&body, &len);
	if (!f) {
		metrics_free(&m);
		fprintf(stderr, "vringnetctl: open_memstream: %s\n", strerror(errno));
		return http_error(503, head_only);
	}
	print_prometheus(f, &m.all);
	metrics_free(&m);
	if (fclose(f)) {
		free(body);
		return http_error(503, head_only);
	}
	st = http_reply(200, "text/plain; version=0.0.4; charset=utf-8", body, len, head_only);
	free(body);
	return st;
}

/**
 * main() - vringnetctl
 * @argc: argument count
 * @argv: arguments
 *
 * Return: the exit status (see usage()).
 */
int main(int argc, char **argv)
{
	struct ctl_opts o;
	struct ctlproto_reply rep;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.http)
		return http_serve(&o);
	if (o.prometheus) {
		struct metrics m;

		rc = fetch_metrics(&o, &m);
		if (rc == EXIT_OK)
			print_prometheus(stdout, &m.all);
		metrics_free(&m);
		return rc;
	}
	rc = fetch_reply(&o, &rep);
	if (rc != EXIT_OK)
		return rc;
	if (o.json) {
		print_json(o.req.cmd, &rep);
	} else {
		switch (o.req.cmd) {
		case CTLPROTO_CMD_STATUS:
			print_status(&rep);
			break;
		case CTLPROTO_CMD_LIST:
			print_taps_ports(&rep);
			break;
		case CTLPROTO_CMD_STATS:
			print_stats(&rep);
			break;
		case CTLPROTO_CMD_RELOAD:
			print_reload(&rep);
			break;
		case CTLPROTO_CMD_UPGRADE:
			print_upgrade(&rep);
			break;
		}
	}
	ctlproto_reply_free(&rep);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vringnetctl: cannot write the output: %s\n", strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}
