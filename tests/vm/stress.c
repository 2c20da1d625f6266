// SPDX-License-Identifier: GPL-2.0
/*
 * stress.c - random-operations stress test of vringfd.ko (and
 * vringfd_echo.ko), written from the ABI (include/uapi/linux/vringfd.h,
 * vringfd_echo.h) and kmod/README.md's bad-input table.
 *
 * Usage (in the VM rig; root):
 *   build/tests/vm/stress [--seed N] [--seconds S] [--threads N]
 *                         [--hang-seconds S] [--rmmod]
 *                         [--exclude LIST] [--slab-tolerance-kb KB]
 *                         [--checks LIST] [--checks-only] [--check-share PCT]
 *                         [--reap-ms MS]
 *   scripts/vm-run --echo --vhost -- build/tests/vm/stress --seed 42 --seconds 20
 *
 * The seed is printed first ("# stress: seed N ..."); defaults: seed from
 * the clock, 60 s, 4 threads, hang 30 s (90 s under the debug kernel:
 * VMRUN_DEBUG_KERNEL=1).  tests/vm/guest-run runs it last,
 * with "--seconds 40 --rmmod" (VM_STRESS_ARGS overrides), to keep the
 * 50-vm-kernel suite near two minutes under TCG.
 *
 * Reproducing: each worker thread draws from its own generator seeded from
 * (seed, thread index), so a seed gives the same sequence of operations per
 * thread; their interleaving (and so the exact kernel state) still depends
 * on scheduling.  Rerun the seed, or a few around it, with the same
 * --threads; --exclude narrows the scenario.
 *
 * What the threads do, on shared pools (48 vring fd slots, each over its
 * own 1 MiB of a fixed arena; 12 tap queue fds over devices vst0..vst5;
 * 4 eventfds; 6 echo fds; 2 /dev/vringfd fds), racing on the same fds:
 *   create      VRINGFD_CREATE: random num (valid powers of two, 0, 3,
 *               65536, random), features, flags, avail_base, standard or
 *               random (misaligned, kernel, non-canonical, wrapping)
 *               addresses, non-zero padding/reserved, bad argument pointer
 *   random_ioctl  known and random ioctl numbers (module magic with random
 *               direction/size, or any number but the generic VFS/tty ones)
 *               with random argument contents, on vring fds and
 *               /dev/vringfd
 *   attach_tap  VRINGFD_ATTACH_TAP TX/RX with random header length/flags/
 *               ifindex (any tun/tap is accepted, whatever its configuration),
 *               with tap queue fds, eventfds, the ring itself, closed fds
 *   detach, mem_table (identity, many 1..16-byte regions over the ring's
 *               own buffers, random, overlapping, too many, zero size), call_fd (eventfd, -1,
 *               not-an-eventfd, closed fd), get_info (GET_STATE/STATS/
 *               VERSION), write/read (kicks), poll (several rings)
 *   traffic     well-formed chains (frames on TX, writable buffers on RX,
 *               1-3 descriptors) then a kick; garbage: random descriptors,
 *               self loops, huge lengths, indirect tables, random avail
 *               entries and avail idx, scribbled used idx/used_event, or
 *               num chains of the whole table made available at once
 *   dup_close   dup a ring into another slot (two fds, one ring), or close
 *   bulk        1000..6000 vring fds at once (RLIMIT_NOFILE raised), then
 *               all closed (at most one bulk every 5 s)
 *   mem         munmap (+ remap), mprotect NONE/READ/RW, mremap away and
 *               back, MADV_DONTNEED, on ring and buffer pages, while other
 *               threads write/read/poll those rings
 *   tap_open, tap_gone (close, TUNSETPERSIST 0 + close, ip link del),
 *   tap_frames  (frames out of a device through AF_PACKET so RX rings
 *               fill, drain a queue, write into a queue)
 *   netns       ip link set vstN netns PID of a child alone in a new
 *               namespace; kill that child (the namespace dies; then
 *               GET_STATS and a kick on every ring); open a tap in a
 *               namespace this thread unshares, setns back
 *   eventfd     reopen/drain;  echo  VRINGFD_ECHO_ATTACH of random pairs
 *               (same ring twice, atomic_every, IRQ_WORK, bad flags), close,
 *               GET_STATS, MISUSE;  fork  the child uses the parent's fds
 *   check       a checked scenario (stress_check_ops.h): a private ring, tap
 *               and memory whose right answer is known, the answer asserted:
 *               acct (bad-address TX chains among good ones: every chain
 *               answered and counted), used-fault (read-only/PROT_NONE used
 *               ring, PROT_NONE desc/avail: EFAULT then EIO), rx-fault
 *               (PROT_NONE/read-only RX buffers inside canaries), memtable
 *               (held RX heads across SET_MEM_TABLE, an unrelated memfd
 *               where the region was), gone-tun/gone-macvtap/gone-ipvtap
 *               (device deleted: EPIPE, POLLHUP, STATE_HUP), uffd (ring
 *               memory stuck on a userfaultfd page under write(): SIGKILLed
 *               children calling DETACH/write/... reaped within --reap-ms),
 *               memfiles (a ring of memory drained by forked children
 *               while its VRINGFD_SET_MEM_FILES table is replaced: every
 *               chain answered and counted once), kick (a ring of
 *               memory served in kick mode, frames awaited on the call
 *               eventfd only, kick mode ended four ways); memfiles and
 *               kick put 30 % of their rings in a hugetlbfs memfd (the
 *               pool is raised by 4 huge pages for the run);
 *               one result line stress_check_NAME each.  --checks LIST
 *               picks them (all, none, gone, or names), --checks-only runs
 *               nothing else (a check alone:
 *               --checks-only --checks memtable --seconds 20); otherwise
 *               checks take at most --check-share (25) percent of a
 *               thread's time
 * --exclude leaves scenarios out: netns, tiny-regions, big-rings (rings
 * over 1024 entries), fork, echo, mem, taps, bulk.  VRINGFD_DEVICE replaces
 * /dev/vringfd (a dry run of the harness on a host without the module:
 * VRINGFD_DEVICE=/dev/null ... --exclude taps, which then fails on ENOTTY).
 * The summary lists, per operation, calls and time, and per checked call
 * the successes and errnos seen (how much of each path a run reached).
 * User-side writes to ring memory run under a SIGSEGV/SIGBUS guard (the
 * memory may be gone); addresses handed to the kernel are never in the
 * test's own heap/stack (the kernel writes to some of them).
 *
 * Allowed errnos (EINTR always; anything else is a FAIL line naming the op,
 * errno, seed and thread):
 *   create            EINVAL EFAULT ENOMEM EMFILE ENFILE
 *   random ioctl      EINVAL EFAULT ENOTTY EIO EPERM EBUSY ENOENT EBADF
 *                     ENODEV ENOMEM EMFILE ENFILE
 *   ATTACH_TAP        EBADF EINVAL EBUSY ENODEV EIO EPERM EFAULT
 *   DETACH            ENOENT EIO EPERM EFAULT
 *   SET_MEM_TABLE     EINVAL EFAULT ENOMEM EIO EPERM
 *   SET_CALL_FD       EBADF EINVAL EFAULT EIO EPERM
 *   GET_STATE/STATS/VERSION  none with a valid pointer; EFAULT with a bad one
 *   write()/read()    EINVAL EPIPE EIO EFAULT EPERM EAGAIN E2BIG (echo)
 *   poll()            ENOMEM (and POLLNVAL on an open vring fd is a FAIL)
 *   ECHO_ATTACH       EBUSY EBADF EINVAL EIO EPERM EFAULT ENOMEM
 *   ECHO_GET_STATS    none;  ECHO_MISUSE  ENOTCONN EBUSY EFAULT
 *   in a forked child write()/read(): EPERM EINVAL EIO EPIPE (never
 *                     success); GET_STATE/SET_CALL_FD(-1)/DETACH: success
 *                     or EPERM EIO ENOENT; poll(): must report POLLERR
 *   tun, ip, mmap/mprotect/mremap results are not judged (not the module's).
 * E2BIG from write()/read() is allowed since the echo's ABI lists it (seen
 * with seeds 17 and 20 before it did): a chain with more segments than the
 * echo's iovec array is refused by vrfd_get_buffer() with nothing consumed,
 * and the echo passes the error on (the tap instead completes such a chain
 * empty, drop_bad_chain).
 * Other assertions during the run: an invalid num is refused with EINVAL;
 * GET_STATE's num equals the created num; the forked child is not killed.
 *
 * Watchdog: the main thread checks every 200 ms that no operation has run
 * longer than --hang-seconds; if one has, it prints "FAIL: stress_no_hang"
 * with the thread, operation and seed, the thread's kernel stack, writes
 * 'w' to /proc/sysrq-trigger (blocked tasks into the kernel log) and exits.
 * A crash of the test is guest-run's "exited N"; kernel oops/WARN/KASAN/
 * lockups are found by guest-run's and vm-run's kernel-log checks.
 *
 * At the end (result lines):
 *   stress_unexpected_results  no FAIL line above
 *   stress_no_hang             the watchdog never fired
 *   stress_fds_closed          after closing every slot, /proc/self/fd has
 *                              as many entries as before the run
 *   stress_refcnt_vringfd(_echo)  /sys/module/NAME/refcnt back to its value
 *                              before the run within 10 s (every ring,
 *                              attachment and echo fd released)
 *   stress_kmemleak            if /sys/kernel/debug/kmemleak exists (debug
 *                              kernel): after two scans no unreferenced
 *                              object whose backtrace names vringfd (else SKIP)
 *   stress_rmmod_vringfd_echo, stress_rmmod_vringfd  (--rmmod) unloading
 *                              works; then both are loaded again from
 *                              kmod/ next to the build tree (stress_reload)
 *   stress_slab                SUnreclaim (/proc/meminfo) growth from before
 *                              the run to after it (after rmmod with
 *                              --rmmod) is printed; it is asserted only
 *                              with --slab-tolerance-kb (the module has no
 *                              kmem_cache of its own, and kmalloc,
 *                              network-namespace teardown and file/RCU
 *                              freeing make SUnreclaim noisy: 60 s runs on
 *                              the stock 6.1 kernel grew it by 1.2-3.0 MB
 *                              with nothing of the module left; a leak is
 *                              better caught by refcnt, rmmod and kmemleak)
 */
#include <dirent.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "lib/result.h"
#include "kmod_load.h"
#include "stress_pool.h"
#include "stress_ring_ops.h"
#include "stress_env_ops.h"
#include "stress_check_ops.h"

/**
 * struct op_entry - one kind of operation
 * @fn: the operation
 * @name: its name in the summary
 * @weight: relative frequency
 * @ex: EX_* scenario it belongs to (0: always)
 */
struct op_entry {
	void (*fn)(void);
	const char *name;
	unsigned int weight;
	unsigned int ex;
};

static void op_bulk_limited(void);

static const struct op_entry op_table[] = {
	{ op_create, "create", 10, 0 },
	{ op_random_ioctl, "random_ioctl", 8, 0 },
	{ op_attach_tap, "attach_tap", 8, 0 },
	{ op_detach, "detach", 5, 0 },
	{ op_mem_table, "mem_table", 5, 0 },
	{ op_call_fd, "call_fd", 4, 0 },
	{ op_get_info, "get_info", 6, 0 },
	{ op_write_read, "write_read", 8, 0 },
	{ op_poll, "poll", 6, 0 },
	{ op_traffic, "traffic", 16, 0 },
	{ op_dup_close, "dup_close", 4, 0 },
	{ op_bulk_limited, "bulk", 1, EX_BULK },
	{ op_mem, "mem", 6, EX_MEM },
	{ op_tap_open, "tap_open", 2, EX_TAPS },
	{ op_tap_gone, "tap_gone", 1, EX_TAPS },
	{ op_tap_frames, "tap_frames", 3, EX_TAPS },
	{ op_netns, "netns", 1, EX_NETNS | EX_TAPS },
	{ op_efd, "efd", 2, 0 },
	{ op_echo, "echo", 5, EX_ECHO },
	{ op_fork, "fork", 1, EX_FORK },
	{ op_check, "check", 10, EX_TAPS },
};

#define NOPS (sizeof(op_table) / sizeof(op_table[0]))

static atomic_ulong op_calls[NOPS];
static atomic_llong op_ms[NOPS];
static char top[PATH_MAX];

/**
 * op_bulk_limited() - op_bulk() at most once every 5 s
 */
static void op_bulk_limited(void)
{
	static atomic_llong last_ms;
	long long t = now_ms();

	if (t - atomic_load(&last_ms) < 5000)
		return;
	atomic_store(&last_ms, t);
	op_bulk();
}

/**
 * op_wanted() - does operation @i run in this test?
 * @i: index into op_table
 *
 * Return: false when its scenario is excluded, the echo module is missing,
 * or it is not op_check() under --checks-only (or op_check() with no check
 * enabled).
 */
static bool op_wanted(unsigned int i)
{
	if ((op_table[i].ex & opt.exclude) || (op_table[i].fn == op_echo && !have_echo))
		return false;
	if (op_table[i].fn == op_check)
		return ck_opt.enabled != 0;
	return !ck_opt.only;
}

/**
 * worker() - a worker thread: random operations until the deadline
 * @arg: its struct thr
 *
 * Return: NULL.
 */
static void *worker(void *arg)
{
	unsigned int total = 0, w, i;
	long long deadline;

	self = arg;
	rng = splitmix(opt.seed ^ splitmix((uint64_t)self->id + 1));
	atomic_store(&self->tid, (int)syscall(SYS_gettid));
	self->pkt = -1;
	for (i = 0; i < NOPS; i++)
		if (op_wanted(i))
			total += op_table[i].weight;
	if (!total)
		return NULL;
	deadline = now_ms() + (long long)opt.seconds * 1000;
	while (!atomic_load(&stop_now) && now_ms() < deadline) {
		w = rndn(total);
		for (i = 0; i < NOPS; i++) {
			if (!op_wanted(i))
				continue;
			if (w < op_table[i].weight) {
				long long t = now_ms();

				op_table[i].fn();
				atomic_fetch_add(&op_calls[i], 1);
				atomic_fetch_add(&op_ms[i], now_ms() - t);
				break;
			}
			w -= op_table[i].weight;
		}
	}
	if (self->pkt >= 0)
		close(self->pkt);
	self->pkt = -1;
	return NULL;
}

/**
 * usage() - print the usage and exit 2
 * @prog: argv[0]
 */
static void __attribute__((noreturn)) usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--seed N] [--seconds S] [--threads N] [--hang-seconds S] [--rmmod]\n"
		"          [--exclude netns,tiny-regions,big-rings,fork,echo,mem,taps,bulk]\n"
		"          [--slab-tolerance-kb KB]\n"
		"          [--checks all,none,gone,acct,used-fault,rx-fault,memtable,gone-tun,\n"
		"                    gone-macvtap,gone-ipvtap,uffd,memfiles,kick] [--checks-only]\n"
		"          [--check-share PCT]\n"
		"          [--reap-ms MS]\n", prog);
	exit(2);
}

/**
 * parse_num() - parse an unsigned number option value
 * @prog: argv[0]
 * @s: the text (may be NULL)
 * @lo: smallest value
 * @hi: largest value
 *
 * Return: the value (exits with usage on error).
 */
static unsigned long long parse_num(const char *prog, const char *s, unsigned long long lo,
				    unsigned long long hi)
{
	unsigned long long v;
	char *end;

	if (!s)
		usage(prog);
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "%s: '%s': expected a number in %llu..%llu\n", prog, s, lo, hi);
		exit(2);
	}
	return v;
}

/**
 * parse_exclude() - parse --exclude's comma-separated scenario names
 * @prog: argv[0]
 * @s: the list
 *
 * Return: EX_* bits.
 */
static unsigned int parse_exclude(const char *prog, const char *s)
{
	char buf[256], *tok, *save;
	unsigned int ex = 0, i;

	if (!s)
		usage(prog);
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(ex_names) / sizeof(ex_names[0]); i++)
			if (!strcmp(tok, ex_names[i]))
				break;
		if (i == sizeof(ex_names) / sizeof(ex_names[0])) {
			fprintf(stderr, "%s: --exclude: unknown scenario '%s'\n", prog, tok);
			exit(2);
		}
		ex |= 1u << i;
	}
	return ex;
}

/**
 * parse_args() - fill opt from the command line
 * @argc: count
 * @argv: arguments
 */
static void parse_args(int argc, char **argv)
{
	struct timespec ts;
	const char *dbg;
	int i;

	clock_gettime(CLOCK_REALTIME, &ts);
	opt.seed = (uint64_t)ts.tv_sec * 1000003ULL ^ (uint64_t)ts.tv_nsec;
	opt.seed %= 1000000000ULL;
	opt.seconds = 60;
	opt.threads = 4;
	/*
	 * The debug kernel (lockdep, KASAN) is about three times slower:
	 * tun's teardown holding RTNL through synchronize_net() kept a
	 * gone-macvtap op waiting 30 s there once.
	 */
	dbg = getenv("VMRUN_DEBUG_KERNEL");
	opt.hang = dbg && !strcmp(dbg, "1") ? 90 : 30;
	opt.slab_tol_kb = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--seed"))
			opt.seed = parse_num(argv[0], v, 0, ~0ULL), i++;
		else if (!strcmp(a, "--seconds"))
			opt.seconds = (unsigned int)parse_num(argv[0], v, 1, 86400), i++;
		else if (!strcmp(a, "--threads"))
			opt.threads = (unsigned int)parse_num(argv[0], v, 1, MAX_THREADS), i++;
		else if (!strcmp(a, "--hang-seconds"))
			opt.hang = (unsigned int)parse_num(argv[0], v, 1, 3600), i++;
		else if (!strcmp(a, "--rmmod"))
			opt.rmmod = true;
		else if (!strcmp(a, "--exclude"))
			opt.exclude |= parse_exclude(argv[0], v), i++;
		else if (!strcmp(a, "--slab-tolerance-kb"))
			opt.slab_tol_kb = (long)parse_num(argv[0], v, 0, 1 << 30), i++;
		else if (!strcmp(a, "--checks") && v)
			ck_opt.enabled = ck_parse(argv[0], v), i++;
		else if (!strcmp(a, "--checks-only"))
			ck_opt.only = true;
		else if (!strcmp(a, "--check-share"))
			ck_opt.share = (unsigned int)parse_num(argv[0], v, 1, 100), i++;
		else if (!strcmp(a, "--reap-ms"))
			ck_opt.reap_ms = (unsigned int)parse_num(argv[0], v, 1, 600000), i++;
		else
			usage(argv[0]);
	}
}

/**
 * count_fds() - entries in /proc/self/fd (the directory's own fd excluded)
 *
 * Return: the count, or -1.
 */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/**
 * sunreclaim_kb() - SUnreclaim of /proc/meminfo
 *
 * Return: kB, or -1.
 */
static long sunreclaim_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "SUnreclaim: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/**
 * write_file() - write a string to a file
 * @path: file
 * @s: text
 *
 * Return: 0, or -1.
 */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return r;
}

/**
 * dump_stack_of() - print a thread's kernel stack as comment lines
 * @tid: thread id
 */
static void dump_stack_of(int tid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

/**
 * watchdog() - wait for the workers, failing the run if an operation hangs
 * @n: number of workers
 */
static void watchdog(unsigned int n)
{
	unsigned int i, live;
	long long t;
	const char *op;

	do {
		usleep(200000);
		live = 0;
		t = now_ms();
		for (i = 0; i < n; i++) {
			if (!thr[i].th)
				continue;
			if (pthread_tryjoin_np(thr[i].th, NULL) == 0) {
				thr[i].th = 0;
				continue;
			}
			live++;
			op = atomic_load(&thr[i].op);
			if (op && t - atomic_load(&thr[i].op_start_ms) > (long long)opt.hang * 1000) {
				result_fail("stress_no_hang", "thread %u stuck in %s for %lld s (seed %llu)",
					    i, op, (t - atomic_load(&thr[i].op_start_ms)) / 1000,
				       (unsigned long long)opt.seed);
				for (i = 0; i < n; i++) {
					op = atomic_load(&thr[i].op);
					printf("# thread %u (tid %d): %s\n", i, atomic_load(&thr[i].tid),
					       op ? op : "-");
					dump_stack_of(atomic_load(&thr[i].tid));
				}
				fflush(stdout);
				write_file("/proc/sysrq-trigger", "w");
				_exit(1);
			}
		}
	} while (live);
}

/**
 * wait_refcnt() - wait up to 10 s for a module's refcnt to reach @want
 * @name: module
 * @want: value
 *
 * Return: the last value read.
 */
static int wait_refcnt(const char *name, int want)
{
	int i, r = kl_refcnt(name);

	for (i = 0; i < 100 && r != want; i++) {
		usleep(100000);
		r = kl_refcnt(name);
	}
	return r;
}

/**
 * check_kmemleak() - scan for leaks and look for vringfd in the reports
 */
static void check_kmemleak(void)
{
	const char *path = "/sys/kernel/debug/kmemleak";
	char line[512];
	int hits = 0;
	FILE *f;

	if (access(path, F_OK)) {
		result_skip("stress_kmemleak", "%s not available (needs CONFIG_DEBUG_KMEMLEAK)", path);
		return;
	}
	write_file(path, "scan");
	sleep(6);	/* objects younger than 5 s are not reported */
	write_file(path, "scan");
	f = fopen(path, "r");
	if (!f) {
		result_skip("stress_kmemleak", "cannot read %s", path);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "vringfd") || strstr(line, "vrfd_")) {
			if (hits++ < 10)
				printf("# kmemleak: %s", line);
		}
	}
	fclose(f);
	if (hits)
		result_fail("stress_kmemleak", "%d report lines name vringfd (seed %llu)", hits,
		       (unsigned long long)opt.seed);
	else
		result_pass("stress_kmemleak");
}

/**
 * setup() - arena, limits, signal handlers, fd pools
 *
 * Return: 0, or -1 after a FAIL/SKIP line.
 */
/* vm.nr_hugepages before setup() raised it (-1: not raised) */
static long nr_hugepages0 = -1;

/**
 * hugepages_raise() - 4 more 2 MiB huge pages, for the memfiles and kick
 * checks' rings in hugetlbfs memfds (given back by hugepages_restore()):
 * a check that finds none free uses a shmem memfd, so a few do; the VM has
 * 1 GiB, which the debug kernel's KASAN shadow already shrinks
 */
static void hugepages_raise(void)
{
	FILE *f = fopen("/proc/sys/vm/nr_hugepages", "r");
	char v[32];
	long n;

	if (!f)
		return;
	if (fscanf(f, "%ld", &n) == 1) {
		snprintf(v, sizeof(v), "%ld\n", n + 4);
		if (!write_file("/proc/sys/vm/nr_hugepages", v))
			nr_hugepages0 = n;
	}
	fclose(f);
}

/**
 * hugepages_count() - a number of /proc/meminfo's about huge pages
 * @key: "HugePages_Total:", "HugePages_Free:"
 *
 * Return: the number, or -1.
 */
static long hugepages_count(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			n = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return n;
}

/**
 * hugepages_restore() - with every ring closed, every huge page is free
 * again (the memfiles and kick checks' held pages were let go); then give
 * back what hugepages_raise() took
 */
static void hugepages_restore(void)
{
	long total, free = -1;
	char v[32];
	int i;

	if (nr_hugepages0 < 0)
		return;
	total = hugepages_count("HugePages_Total:");
	for (i = 0; i < 40; i++) {
		free = hugepages_count("HugePages_Free:");
		if (free == total)
			break;
		usleep(50000);
	}
	if (!atomic_load(&ck_hugetlb_runs[CK_MEMFILES]) && !atomic_load(&ck_hugetlb_runs[CK_KICK]))
		result_skip("stress_hugetlb_pages_returned", "no ring was in a hugetlbfs memfd "
			    "(%ld of %ld huge pages free)", free, total);
	else if (free == total)
		result_pass("stress_hugetlb_pages_returned");
	else
		result_fail("stress_hugetlb_pages_returned", "%ld of %ld huge pages free with "
			    "every ring closed (seed %llu)", free, total,
			    (unsigned long long)opt.seed);
	snprintf(v, sizeof(v), "%ld\n", nr_hugepages0);
	write_file("/proc/sys/vm/nr_hugepages", v);
}

static int setup(void)
{
	struct sigaction sa;
	struct rlimit rl = { 16384, 16384 };
	void *m;
	int i;

	m = mmap((void *)(uintptr_t)ARENA_BASE, ARENA_SZ, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_NORESERVE, -1, 0);
	if (m != (void *)(uintptr_t)ARENA_BASE) {
		result_fail("stress_setup", "arena at %#llx: %s", ARENA_BASE, strerror(errno));
		return -1;
	}
	if (setrlimit(RLIMIT_NOFILE, &rl))
		printf("# stress: RLIMIT_NOFILE 16384: %s (bulk creations stop at EMFILE)\n",
		       strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_NODEFER | SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	init_netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	hugepages_raise();
	for (i = 0; i < NRING; i++) {
		pthread_rwlock_init(&rings[i].lk, NULL);
		rings[i].fd = -1;
		rings[i].memi = -1;
		rings[i].dir = -1;
	}
	for (i = 0; i < NTAP; i++) {
		pthread_rwlock_init(&taps[i].lk, NULL);
		taps[i].fd = -1;
	}
	for (i = 0; i < NECHO; i++) {
		pthread_rwlock_init(&echos[i].lk, NULL);
		echos[i].fd = -1;
	}
	for (i = 0; i < NEFD; i++) {
		pthread_rwlock_init(&efds[i].lk, NULL);
		efds[i].fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	}
	for (i = 0; i < NCTL; i++) {
		pthread_rwlock_init(&ctls[i].lk, NULL);
		ctls[i].fd = open(getenv("VRINGFD_DEVICE") ? getenv("VRINGFD_DEVICE") : "/dev/vringfd",
				   O_RDWR | O_CLOEXEC);
		if (ctls[i].fd < 0) {
			result_fail("stress_setup", "open /dev/vringfd: %s", strerror(errno));
			return -1;
		}
	}
	have_echo = !excluded(EX_ECHO) && access("/dev/vringfd_echo", F_OK) == 0;
	if (!excluded(EX_TAPS))
		ck_setup();
	return 0;
}

/**
 * teardown() - close every fd of the pools, end the namespace holder,
 *	delete the tap devices
 */
static void teardown(void)
{
	char cmd[160];
	int i;

	for (i = 0; i < NECHO; i++)
		fslot_replace(&echos[i], -1, 0);
	for (i = 0; i < NRING; i++)
		rslot_replace(i, -1, 0, -1);
	for (i = 0; i < NTAP; i++)
		fslot_replace(&taps[i], -1, 0);
	for (i = 0; i < NEFD; i++)
		fslot_replace(&efds[i], -1, 0);
	for (i = 0; i < NCTL; i++)
		fslot_replace(&ctls[i], -1, 0);
	pthread_mutex_lock(&ns_mtx);
	ns_holder_stop();
	pthread_mutex_unlock(&ns_mtx);
	for (i = 0; i < 2 * NTAPDEV; i++) {
		snprintf(cmd, sizeof(cmd), i < NTAPDEV ? "vst%d" : "vstun%d", i % NTAPDEV);
		if (!sys_ifindex(cmd))
			continue;
		snprintf(cmd, sizeof(cmd), i < NTAPDEV ? "ip link del vst%d >/dev/null 2>&1" :
			 "ip link del vstun%d >/dev/null 2>&1", i % NTAPDEV);
		if (system(cmd) == -1)
			break;
	}
	if (init_netns >= 0)
		close(init_netns);
	init_netns = -1;
}

/**
 * unload_reload() - --rmmod: unload both modules, then load them again
 * @echo_loaded: vringfd_echo was loaded before the run
 */
static void unload_reload(bool echo_loaded)
{
	int r;

	if (echo_loaded) {
		r = (int)syscall(SYS_delete_module, "vringfd_echo", O_NONBLOCK);
		if (r)
			result_fail("stress_rmmod_vringfd_echo", "%s (refcnt %d, seed %llu)",
				    strerror(errno), kl_refcnt("vringfd_echo"),
				    (unsigned long long)opt.seed);
		else
			result_pass("stress_rmmod_vringfd_echo");
	}
	r = (int)syscall(SYS_delete_module, "vringfd", O_NONBLOCK);
	if (r)
		result_fail("stress_rmmod_vringfd", "%s (refcnt %d, seed %llu)", strerror(errno),
		       kl_refcnt("vringfd"), (unsigned long long)opt.seed);
	else
		result_pass("stress_rmmod_vringfd");
	fflush(stdout);
	if (r)
		return;
	if (kl_find_top(top) || kl_load(top, "vringfd.ko") || (echo_loaded && kl_load(top, "vringfd_echo.ko")))
		result_fail("stress_reload", "loading the modules from %s/kmod: %s", top,
		       strerror(errno));
	else
		result_pass("stress_reload");
}

/**
 * main() - run the stress test
 * @argc: count
 * @argv: arguments
 *
 * Return: 0 when nothing failed.
 */
int main(int argc, char **argv)
{
	int fds0, fds1, ref0, eref0, r, i;
	unsigned long total = 0;
	long slab0, slab1;
	long long t0;

	parse_args(argc, argv);
	printf("# stress: seed %llu (reproduce: %s --seed %llu --seconds %u --threads %u%s%s)\n",
	       (unsigned long long)opt.seed, argv[0], (unsigned long long)opt.seed, opt.seconds,
	       opt.threads, opt.exclude ? " --exclude ..." : "",
	       ck_opt.only ? " --checks-only --checks ..." : "");
	fflush(stdout);
	if (geteuid() != 0) {
		result_skip("stress", "not root (taps, namespaces, module refcounts)");
		return 0;
	}
	ref0 = kl_refcnt("vringfd");
	eref0 = kl_refcnt("vringfd_echo");
	if (access(getenv("VRINGFD_DEVICE") ? getenv("VRINGFD_DEVICE") : "/dev/vringfd", F_OK)) {
		result_skip("stress", "/dev/vringfd missing (module not loaded)");
		return 0;
	}
	fds0 = count_fds();
	slab0 = sunreclaim_kb();
	if (setup())
		return 1;
	printf("# stress: %u threads for %u s, hang limit %u s, echo %s, excluded:", opt.threads,
	       opt.seconds, opt.hang, have_echo ? "yes" : "no");
	for (i = 0; i < (int)(sizeof(ex_names) / sizeof(ex_names[0])); i++)
		if (opt.exclude & (1u << i))
			printf(" %s", ex_names[i]);
	printf("\n");
	fflush(stdout);

	t0 = now_ms();
	for (i = 0; i < (int)opt.threads; i++) {
		thr[i].id = i;
		if (pthread_create(&thr[i].th, NULL, worker, &thr[i])) {
			result_fail("stress_setup", "pthread_create: %s", strerror(errno));
			atomic_store(&stop_now, true);
			opt.threads = i;
			break;
		}
	}
	watchdog(opt.threads);
	for (i = 0; i < (int)opt.threads; i++)
		total += thr[i].ops;
	printf("# stress: %lu operations in %.1f s\n", total, (now_ms() - t0) / 1000.0);
	for (i = 0; i < (int)NOPS; i++)
		printf("#   %-12s %6lu calls %7.1f s\n", op_table[i].name, atomic_load(&op_calls[i]),
		       atomic_load(&op_ms[i]) / 1000.0);
	hist_print();
	result_pass("stress_no_hang");
	if (!excluded(EX_TAPS))
		ck_report();

	teardown();
	hugepages_restore();
	r = atomic_load(&unexpected);
	if (r) {
		result_fail("stress_unexpected_results", "%d (first 20 shown above; seed %llu)", r,
		       (unsigned long long)opt.seed);
	} else {
		result_pass("stress_unexpected_results");
	}

	fds1 = count_fds();
	if (fds1 != fds0) {
		result_fail("stress_fds_closed", "%d fds open, %d before", fds1, fds0);
	} else {
		result_pass("stress_fds_closed");
	}
	if (ref0 >= 0) {
		r = wait_refcnt("vringfd", ref0);
		if (r != ref0) {
			result_fail("stress_refcnt_vringfd", "%d, %d before (seed %llu)", r, ref0,
			       (unsigned long long)opt.seed);
			} else {
			result_pass("stress_refcnt_vringfd");
		}
	}
	if (eref0 >= 0) {
		r = wait_refcnt("vringfd_echo", eref0);
		if (r != eref0) {
			result_fail("stress_refcnt_vringfd_echo", "%d, %d before (seed %llu)", r,
			       eref0, (unsigned long long)opt.seed);
			} else {
			result_pass("stress_refcnt_vringfd_echo");
		}
	}
	fflush(stdout);
	check_kmemleak();
	if (opt.rmmod && ref0 >= 0)
		unload_reload(eref0 >= 0);
	write_file("/proc/sys/vm/drop_caches", "2");
	usleep(500000);
	slab1 = sunreclaim_kb();
	printf("# stress: SUnreclaim %ld kB before, %ld kB after (%+ld kB)\n", slab0, slab1,
	       slab1 - slab0);
	if (opt.slab_tol_kb >= 0) {
		if (slab1 - slab0 > opt.slab_tol_kb) {
			result_fail("stress_slab", "SUnreclaim grew %ld kB, tolerance %ld kB",
				    slab1 - slab0, opt.slab_tol_kb);
			} else {
			result_pass("stress_slab");
		}
	}
	fflush(stdout);
	return result_exit_status();
}
