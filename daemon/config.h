/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * config.h - vringnetd's configuration: the parsed and validated file.
 *
 * config_load() reads an INI-style file (see vringnetd.conf(5)) into a
 * struct config; every error is reported as "FILE:LINE: message".
 * The structure is plain data: reload compares two of them (reload.h).
 */
#ifndef VRINGNET_CONFIG_H
#define VRINGNET_CONFIG_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/un.h>

/*
 * Limits and defaults of the file.  CFG_, not CONFIG_: a CONFIG_ name reads
 * as a Kconfig symbol to a kernel reader.
 */
#define CFG_DEFAULT_PATH	"/etc/vringnetd/vringnetd.conf"
#define CFG_DEFAULT_CONTROL	"/run/vringnetd/control.sock"
#define CFG_MAX_ADDRESSES	32
#define CFG_MAX_TAPS		256
#define CFG_MAX_PORTS		256
#define CFG_MAX_QUEUES		16
#define CFG_NAME_MAX		IFNAMSIZ	/* includes the NUL */
#define CFG_PATH_MAX		sizeof(((struct sockaddr_un *)0)->sun_path)
#define CFG_ERR_MAX		512
#define CFG_LINE_MAX		4096		/* bytes of a line, without the LF */
#define CFG_FILE_MAX		(1 << 20)	/* bytes of a file */

enum config_engine { CFG_ENGINE_AUTO, CFG_ENGINE_KERNEL, CFG_ENGINE_USER };
enum config_log_level { CFG_LOG_ERR, CFG_LOG_WARNING, CFG_LOG_NOTICE, CFG_LOG_INFO, CFG_LOG_DEBUG };
enum config_port_type { CFG_PORT_VHOST_USER, CFG_PORT_STREAM, CFG_PORT_DGRAM, CFG_PORT_RINGFD };
enum config_seccomp { CFG_SECCOMP_ON, CFG_SECCOMP_OFF, CFG_SECCOMP_LOG };
enum config_kernel_rings { CFG_KERNEL_RINGS_PROCESS, CFG_KERNEL_RINGS_MEMORY, CFG_KERNEL_RINGS_KICK };

#define CFG_WORKERS_AUTO	0	/* workers = auto */
#define CFG_MAX_WORKERS		64	/* worker.h's WORKER_MAX */
#define CFG_MAX_CPU		1023	/* CPU_SETSIZE - 1: the largest CPU number */

#define CFG_DEFAULT_HANDSHAKE_TIMEOUT	10	/* seconds */
#define CFG_DEFAULT_BOOT_TIMEOUT	300	/* seconds */
#define CFG_DEFAULT_MESSAGE_TIMEOUT	10	/* seconds */
#define CFG_DEFAULT_CONTROL_PER_UID	4

/**
 * struct config_address - one interface address
 * @family: AF_INET or AF_INET6
 * @prefixlen: 0..32 or 0..128
 * @addr: the address, network byte order (in.s_addr or in6)
 */
struct config_address {
	int family;
	unsigned int prefixlen;
	union {
		struct in_addr in;
		struct in6_addr in6;
	} addr;
};

/**
 * struct config_tap - a [tap NAME] section
 * @name: interface name (< IFNAMSIZ)
 * @line: line of the section header (for messages)
 * @mtu: 68..65535; 0 = leave the kernel's default
 * @mac: Ethernet address
 * @mac_set: @mac came from the file (else a stable locally administered
 *	address derived from @name)
 * @addresses: @naddresses addresses, in file order
 * @bridge: master bridge name, "" for none
 * @queues: 1..CFG_MAX_QUEUES; > 1 means IFF_MULTI_QUEUE
 * @ring_size: power of two 1..32768 (default 256)
 * @owner_uid: owner of the device, (uid_t)-1 for none
 * @group_gid: group of the device, (gid_t)-1 for none
 * @persist: keep the tap when the daemon stops
 */
struct config_tap {
	char name[CFG_NAME_MAX];
	unsigned int line;
	unsigned int mtu;
	uint8_t mac[6];
	bool mac_set;
	struct config_address addresses[CFG_MAX_ADDRESSES];
	unsigned int naddresses;
	char bridge[CFG_NAME_MAX];
	unsigned int queues;
	unsigned int ring_size;
	uid_t owner_uid;
	gid_t group_gid;
	bool persist;
};

/**
 * struct config_port - a [port NAME] section
 * @name: port name (< IFNAMSIZ, used in messages and vringnetctl)
 * @line: line of the section header
 * @tap: name of the tap it serves (exactly one port per tap)
 * @type: vhost-user, stream, dgram or ringfd
 * @listen: unix socket path to bind, "" for none
 * @connect: unix socket path to connect to, "" for none (exactly one of
 *	@listen and @connect is set; dgram: @listen is the local address)
 * @peer: dgram only: the peer's socket path ("" = reply to the sender)
 * @socket_mode: permission bits of the listening socket (default 0660)
 * @socket_uid: owner of the listening socket, (uid_t)-1 = the daemon's
 * @socket_gid: group of the listening socket, (gid_t)-1 = the daemon's
 * @reconnect: client mode: seconds between reconnect attempts (default 1)
 * @kernel_rings: vhost-user on the kernel engine: process (default) = the
 *	rings belong to the daemon's address space (VRINGFD_SET_MEM_TABLE);
 *	memory = rings of memory over the front-end's memory files
 *	(VRINGFD_SET_MEM_FILES); kick = rings of memory in kick mode
 *	(VRINGFD_SET_KICK: vringfd.ko serves them on the front-end's kicks);
 *	for queues started from then on
 * @workers: the pump threads its queue pairs may run on: bit i = worker
 *	i (0..CFG_MAX_WORKERS-1); 0 (the default) = any; for queue pairs
 *	started from then on
 */
struct config_port {
	char name[CFG_NAME_MAX];
	unsigned int line;
	char tap[CFG_NAME_MAX];
	enum config_port_type type;
	char listen[CFG_PATH_MAX];
	char connect[CFG_PATH_MAX];
	char peer[CFG_PATH_MAX];
	mode_t socket_mode;
	uid_t socket_uid;
	gid_t socket_gid;
	unsigned int reconnect;
	enum config_kernel_rings kernel_rings;
	uint64_t workers;
};

/**
 * struct config - a whole file
 * @path: the file it came from
 * @control_socket: path of the control socket
 * @control_mode: permission bits of the control socket (default 0660)
 * @control_mode_set: control-mode was given in the file (applied to a
 *	socket-activated control socket too; the default is not)
 * @control_gid: group of the control socket, (gid_t)-1 = the daemon's
 * @engine: auto, kernel or user
 * @log_level: messages above this level are not logged
 * @user: "" = stay root; else drop to this user (and its primary group)
 * @uid: @user's uid, valid when @user is set
 * @gid: @user's gid, valid when @user is set
 * @handshake_timeout: seconds a ring-fd client has to send its SETUP
 * @boot_timeout: seconds a guest's peer has to finish its handshake
 *	(vhost-user: SET_OWNER; stream: first frame)
 * @message_timeout: seconds a peer has to finish a message it started
 * @control_per_uid: control clients one uid other than root may have
 * @seccomp: the system call filter: on (kill), off, log
 * @upgrade: "vringnetctl upgrade" is allowed: the filter lets the daemon
 *	exec its successor and the capabilities it keeps stay in the bounding,
 *	inheritable and ambient sets (handover.c); read at start only
 * @workers: pump threads (worker.h): 1 (default) = none, every queue pair
 *	on the main thread; CFG_WORKERS_AUTO = one per online CPU up to the
 *	queue pairs of the vhost-user and ring-fd ports; read at start only
 * @worker_cpus: the CPU each pump thread is pinned to (worker i: the i-th),
 *	in file order; read at start only
 * @nworker_cpus: their number, 0 = no pinning
 * @taps: @ntaps taps, in file order
 * @ports: @nports ports, in file order
 */
struct config {
	char path[4096];
	char control_socket[CFG_PATH_MAX];
	mode_t control_mode;
	bool control_mode_set;
	gid_t control_gid;
	enum config_engine engine;
	enum config_log_level log_level;
	char user[64];
	uid_t uid;
	gid_t gid;
	unsigned int handshake_timeout;
	unsigned int boot_timeout;
	unsigned int message_timeout;
	unsigned int control_per_uid;
	enum config_seccomp seccomp;
	bool upgrade;
	unsigned int workers;
	unsigned int worker_cpus[CFG_MAX_WORKERS];
	unsigned int nworker_cpus;
	struct config_tap *taps;
	unsigned int ntaps;
	struct config_port *ports;
	unsigned int nports;
};

int config_load(const char *path, struct config *cfg, char *err, size_t errlen);
int config_parse_buffer(const char *name, const char *text, size_t len,
		     struct config *cfg, char *err, size_t errlen);
void config_free(struct config *cfg);
const struct config_tap *config_find_tap(const struct config *cfg, const char *name);
const struct config_port *config_find_port(const struct config *cfg, const char *name);
const char *config_engine_name(enum config_engine engine);
const char *config_port_type_name(enum config_port_type type);
const char *config_log_level_name(enum config_log_level level);
const char *config_seccomp_name(enum config_seccomp mode);
const char *config_kernel_rings_name(enum config_kernel_rings rings);
void config_default_mac(const char *name, uint8_t mac[6]);

#endif /* VRINGNET_CONFIG_H */
