// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sandbox.c - vringnetd's seccomp filter (see sandbox.h)
 *
 * The allow-list is what the daemon does after start-up, each group with
 * the code that needs it:
 *
 *   event loop (loop.c, deadline.c)   epoll_*, timerfd_*, signalfd4, read
 *   ports, control socket (port*.c,   socket (AF_UNIX only), bind, listen,
 *     control.c, ringfd_proto.c,        accept4, connect, send/recv*,
 *     vhost_user_msg.c)                 *sockopt, get*name, shutdown
 *   socket files (port.c)             unlink, mkdir, chmod, chown, stat
 *   guest memory (vhost_user.c,       mmap, munmap, mprotect, madvise,
 *     port_ringfd.c, frame_rings.c)     fstat, fstatfs (hugetlbfs), fcntl
 *                                       (seals, O_NONBLOCK); SIGBUS
 *                                       recovery (guard.c) needs none
 *   eventfds (evfd.c)                 read, write, readlink (/proc/self/fd)
 *   engines (engine_*.c)              read/write/readv/writev on taps,
 *                                     ioctl: the vringfd ioctls, TUNSETVNETHDRSZ
 *   reload (reload.c, daemon.c):      openat (config, /dev/net/tun,
 *     new taps, netlink                 /dev/vringfd, /etc/passwd),
 *                                     socket AF_NETLINK, TUNSETIFF,
 *                                     TUNSETPERSIST/OWNER/GROUP, SIOCGIFINDEX,
 *                                     SIOCGIFMTU
 *   systemd (sdnotify.c)              sendmsg on an AF_UNIX datagram socket
 *   crash (livestore.c): the fd       memfd_create: the state written again
 *     store kept current                into a fresh sealed memfd after each
 *                                       vhost-user message that changes it;
 *                                       kcmp (KCMP_FILE): copies of one open
 *                                       file share a name in the store
 *   upgrade (handover.c), only with   fork/clone
 *     [daemon] upgrade = yes:
 *                                     and execve (the successor: the binary
 *                                     on disk), wait4 and kill (one that
 *                                     fails or does not answer); the
 *                                     successor inherits this filter, so
 *                                     its start-up calls too: arch_prctl,
 *                                     set_tid_address, capset, prctl,
 *                                     seccomp, set*id, setgroups,
 *                                     sched_setaffinity (worker-cpus);
 *                                     pipe2 (sd_notify_barrier after
 *                                     MAINPID=)
 *   pump threads (worker.c)           futex (mailbox mutex), eventfd
 *                                       read/write; the threads exist
 *                                       before the filter, which is
 *                                       installed with TSYNC on all of them
 *   C library                         brk, mmap, futex, clock_gettime,
 *                                     getrandom, exit_group, rt_sig*, ...
 *
 * Everything else (exec and fork unless upgrade = yes, ptrace, other
 * socket families, module or mount calls, ...) is refused with the
 * configured action.  A new system
 * call in the daemon must be added here (and to nothing else: the systemd
 * unit's SystemCallFilter=@system-service is a superset).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <seccomp.h>

#include <linux/vringfd.h>

#include "log.h"
#include "sandbox.h"

/* System calls allowed with any arguments. */
static const char *const sandbox_calls[] = {
	/* memory */
	"brk", "mmap", "munmap", "mremap", "mprotect", "madvise",
	/* fds and files */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "close",
	"fstat", "newfstatat", "stat", "lstat", "statx", "fstatfs", "statfs",
	"lseek", "fcntl",
	"dup", "dup2", "dup3", "open", "openat", "readlink", "readlinkat",
	"unlink", "unlinkat", "mkdir", "mkdirat", "chmod", "fchmod", "fchmodat",
	"chown", "fchown", "fchownat", "lchown", "access", "faccessat", "faccessat2",
	"getdents64", "ftruncate", "fsync", "fdatasync", "umask",
	/* event loop */
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "epoll_pwait2",
	"poll", "ppoll", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	"signalfd4", "eventfd2",
	/* the state kept in systemd's fd store for a crash (livestore.c);
	 * kcmp: which fds are one open file, as systemd's store tells */
	"memfd_create", "kcmp",
	/* sockets (socket() itself: see sandbox_install()) */
	"bind", "listen", "accept", "accept4", "connect", "shutdown",
	"sendto", "sendmsg", "sendmmsg", "recvfrom", "recvmsg", "recvmmsg",
	"getsockopt", "setsockopt", "getsockname", "getpeername", "socketpair",
	/* process, time, C library */
	"getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid",
	"getgroups", "getresuid", "getresgid", "capget", "uname", "sysinfo",
	"clock_gettime", "clock_getres", "clock_nanosleep", "gettimeofday",
	"nanosleep", "time", "futex", "getrandom", "sched_yield", "prlimit64",
	/* a ThreadSanitizer build's start-up (make tsan: its successor);
	 * [daemon] worker-cpus checked by a reload's parse (config_daemon.c) */
	"sched_getaffinity",
	"getrlimit", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
	"sigaltstack", "restart_syscall", "exit", "exit_group", "tgkill",
	"set_robust_list", "rseq",
};

/*
 * kcmp() is allowed by every filter this process is under: false in a
 * successor of a vringnetd from before it joined the list
 * (sandbox_inherit()).
 */
static bool sandbox_kcmp = true;

/* System calls allowed too with upgrade = yes (any arguments). */
static const char *const sandbox_upgrade_calls[] = {
	/* upgrade (handover.c): the successor, sd_notify_barrier() (the state
	 * memfd's memfd_create is in the base list: livestore.c) */
	"fork", "vfork", "clone", "clone3", "execve", "wait4", "kill",
	"pipe2",
	/* ... and what the successor's start-up does under this filter, which it
	 * inherits (its own is stacked on it): the dynamic loader, the drop of
	 * capabilities and user (privs.c: capset, prctl, set*id) and the
	 * installation of its own filter */
	"arch_prctl", "set_tid_address", "capset", "prctl", "seccomp",
	"setresuid", "setresgid", "setuid", "setgid", "setgroups",
	/* its pump threads pinned by [daemon] worker-cpus (worker.c) */
	"sched_setaffinity",
};

/* ioctl requests allowed (the second argument). */
static const unsigned long sandbox_ioctls[] = {
	/* taps: created and configured at start and reload (tap.c) */
	TUNSETIFF, TUNSETVNETHDRSZ, TUNSETPERSIST, TUNSETOWNER, TUNSETGROUP,
	TUNGETIFF, TUNSETOFFLOAD,
	/* if_nametoindex() (netlink.c, bridges); a tap's MTU (tap.c, NET_SET_MTU) */
	SIOCGIFINDEX, SIOCGIFMTU,
	/* the kernel engine (engine_kernel.c, libvringfd) */
	VRINGFD_GET_VERSION, VRINGFD_CREATE, VRINGFD_ATTACH_TAP, VRINGFD_DETACH,
	VRINGFD_SET_MEM_TABLE, VRINGFD_GET_STATS, VRINGFD_GET_STATE, VRINGFD_SET_CALL_FD,
	VRINGFD_SET_MEM_FILES, VRINGFD_SET_KICK,
	/* isatty() on stderr, FIONBIO */
	TCGETS, FIONBIO, FIONREAD,
};

/* socket() families allowed (the first argument). */
static const int sandbox_families[] = { AF_UNIX, AF_NETLINK };

/**
 * sandbox_add() - allow one system call
 * @ctx: the filter
 * @name: its name
 * @nargs: argument comparisons that follow (0 or 1)
 * @cmp: the comparison
 *
 * A name this architecture does not have is skipped.
 *
 * Return: 0, or a negative errno.
 */
static int sandbox_add(scmp_filter_ctx ctx, const char *name, unsigned int nargs,
		   struct scmp_arg_cmp cmp)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return 0;
	return nargs ? seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1, cmp)
		     : seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
}

/**
 * sandbox_add_calls() - allow a list of system calls with any arguments
 * @ctx: the filter
 * @calls: their names
 * @n: entries in @calls
 * @what: set to the name that failed
 *
 * Return: 0, or a negative errno.
 */
static int sandbox_add_calls(scmp_filter_ctx ctx, const char *const *calls, size_t n,
			     const char **what)
{
	struct scmp_arg_cmp none = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < n; i++) {
		*what = calls[i];
#ifdef VRINGNETD_TEST
		/* a test build plays a vringnetd from before kcmp was allowed */
		if (!strcmp(calls[i], "kcmp") && getenv("VRINGNETD_TEST_SANDBOX_NO_KCMP")) {
			sandbox_kcmp = false;
			continue;
		}
#endif
		ret = sandbox_add(ctx, calls[i], 0, none);
	}
	return ret;
}

/**
 * sandbox_inherit() - a successor: what its predecessor's filters allow
 *
 * An upgrade's successor runs under every filter of its predecessor for
 * good (its own is stacked on them): a call this build allows but an
 * older predecessor's filter does not would kill it.  The predecessor
 * names the calls newer than the first filter that its filters allow in
 * SANDBOX_ALLOWS_ENV (sandbox_pass_on()); one that names nothing is older
 * than all of them.  Today the only such call is kcmp (livestore.c).
 * Call it before anything that might make one of them.
 */
void sandbox_inherit(void)
{
	const char *v = getenv(SANDBOX_ALLOWS_ENV);

	sandbox_kcmp = v && !strcmp(v, "kcmp");
	if (!sandbox_kcmp)
		log_info("seccomp: the previous instance's filter may not allow kcmp: copies of one open file are not grouped in systemd's fd store (a ring-fd client passing one eventfd twice is not kept over a restart)");
	unsetenv(SANDBOX_ALLOWS_ENV);
}

/**
 * sandbox_allows_kcmp() - whether kcmp() may be called
 *
 * Return: false in a successor of a vringnetd whose filter did not allow
 * it (sandbox_inherit()), else true.
 */
bool sandbox_allows_kcmp(void)
{
	return sandbox_kcmp;
}

/**
 * sandbox_pass_on() - tell a successor what this process's filters allow
 *
 * Called in the child of an upgrade right before execve (setenv only).
 */
void sandbox_pass_on(void)
{
	if (sandbox_kcmp)
		setenv(SANDBOX_ALLOWS_ENV, "kcmp", 1);
	else
		unsetenv(SANDBOX_ALLOWS_ENV);
}

/**
 * sandbox_install() - install the filter for the rest of the process's life
 * @mode: on (forbidden calls kill the process), log (they are allowed and
 *	the kernel logs them: for finding a missing entry) or off
 * @upgrade: allow what "vringnetctl upgrade" needs too (fork, execve, ...,
 *	and the successor's start-up under this inherited filter)
 * @err: message buffer
 * @errlen: its size
 *
 * Call it after the taps exist and privileges are dropped.  It cannot be
 * undone: a reload that changes 'seccomp' or 'upgrade' takes effect at the
 * next start.
 *
 * Return: 0, or -1 with @err filled.
 */
int sandbox_install(enum config_seccomp mode, bool upgrade, char *err, size_t errlen)
{
	uint32_t def = mode == CFG_SECCOMP_LOG ? SCMP_ACT_LOG : SCMP_ACT_KILL_PROCESS;
	size_t ncalls = sizeof(sandbox_calls) / sizeof(sandbox_calls[0]);
	size_t nupgrade = sizeof(sandbox_upgrade_calls) / sizeof(sandbox_upgrade_calls[0]);
	scmp_filter_ctx ctx;
	const char *what = "";
	unsigned int i;
	int ret = 0;

	if (mode == CFG_SECCOMP_OFF) {
		log_warn("seccomp: off (seccomp = off): the daemon may make any system call");
		return 0;
	}
	ctx = seccomp_init(def);
	if (!ctx) {
		snprintf(err, errlen, "seccomp: seccomp_init failed: no seccomp filters here (a kernel without them, or valgrind); seccomp = off runs without one");
		return -1;
	}
	/* every thread: the pump threads (worker.h) run before the filter */
	what = "TSYNC";
	ret = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!ret)
		ret = sandbox_add_calls(ctx, sandbox_calls, ncalls, &what);
	if (!ret && upgrade)
		ret = sandbox_add_calls(ctx, sandbox_upgrade_calls, nupgrade, &what);
	for (i = 0; !ret && i < sizeof(sandbox_ioctls) / sizeof(sandbox_ioctls[0]); i++) {
		what = "ioctl";
		ret = sandbox_add(ctx, "ioctl", 1, SCMP_A1(SCMP_CMP_EQ, sandbox_ioctls[i]));
	}
	for (i = 0; !ret && i < sizeof(sandbox_families) / sizeof(sandbox_families[0]); i++) {
		what = "socket";
		ret = sandbox_add(ctx, "socket", 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)sandbox_families[i]));
	}
	if (!ret) {
		what = "load";
		ret = seccomp_load(ctx);
	}
	seccomp_release(ctx);
	if (ret) {
		snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-ret));
		return -1;
	}
	log_info("seccomp: filter installed (%zu system calls%s, %zu ioctls, socket families unix and netlink; anything else %s)",
		 ncalls + (upgrade ? nupgrade : 0), upgrade ? " with upgrade's fork and execve" : "",
		 sizeof(sandbox_ioctls) / sizeof(sandbox_ioctls[0]),
		 mode == CFG_SECCOMP_LOG ? "is logged by the kernel (seccomp = log)" :
		 "kills the daemon");
	return 0;
}

#ifdef VRINGNETD_TEST
/**
 * sandbox_test_forbidden() - test builds only: make a forbidden system call
 *
 * When VRINGNETD_TEST_FORBIDDEN is set in the environment, open an AF_INET
 * socket (a family the filter refuses); under seccomp = on the process is
 * killed by SIGSYS before the log line.
 */
void sandbox_test_forbidden(void)
{
	int fd;

	if (!getenv("VRINGNETD_TEST_FORBIDDEN"))
		return;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	log_warn("test: socket(AF_INET) returned %d: the filter let it through", fd);
	if (fd >= 0)
		close(fd);
}
#endif
