// SPDX-License-Identifier: GPL-2.0
/*
 * tap_hugetlb.c - rings of memory (VRINGFD_SET_MEM_FILES) in hugetlbfs
 * memfds, in the VM: a ring inside a 2 MiB huge page moves frames to a tap
 * and back; a region whose huge page does not exist yet gets one (the
 * file's: what the module sends is what the file holds); a region over a
 * file's later huge pages sends their bytes; a hole punched
 * under a held huge page leaves the module the old page, which goes back
 * to the pool when the ring closes; an exhausted pool is ENOSPC and loses
 * no page; a memfd that can shrink is EPERM; RLIMIT_MEMLOCK counts a huge
 * page as its 512 base pages.
 *
 * The test sets the pool of 2 MiB huge pages to four pages and restores it
 * at the end; it counts the pool's free pages to see what the module
 * allocated, held and returned, so nothing else in the VM may use huge
 * pages while it runs.
 */
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <linux/falloc.h>
#include <linux/memfd.h>

#include "memring.h"

#define TXTAP "vrhp0"
#define RXTAP "vrhp1"

#define HPAGE (2UL << 20)
#define POOL 4
/* 2 MiB huge pages whatever the kernel's default size (the pool counted) */
#define MFD_HUGE (MFD_HUGETLB | MFD_HUGE_2MB)
#define HP_DIR "/sys/kernel/mm/hugepages/hugepages-2048kB/"

/**
 * hp_read() - a number from a file of the 2 MiB huge page pool
 * @name: "nr_hugepages", "free_hugepages", ...
 *
 * Return: the number, or -1.
 */
static long hp_read(const char *name)
{
	char path[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), HP_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/**
 * hp_set_pool() - set the number of 2 MiB huge pages
 * @n: pages
 *
 * Return: 0, or -1 with errno.
 */
static int hp_set_pool(long n)
{
	FILE *f = fopen(HP_DIR "nr_hugepages", "w");
	int ret;

	if (!f)
		return -1;
	ret = fprintf(f, "%ld\n", n) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/**
 * attach_tap() - attach a vring fd to a tap in one direction
 * @fd: the vring fd
 * @name: the tap
 * @dir: VRINGFD_DIR_TX or VRINGFD_DIR_RX
 *
 * Return: 0, or -1 with errno.
 */
static int attach_tap(int fd, const char *name, int dir)
{
	int tap = tc_tap_open(name, IFF_TAP | IFF_NO_PI);
	int ret;

	if (tap < 0)
		return -1;
	ret = tc_attach(fd, tap, dir, 0, 0);
	close(tap);
	return ret;
}

/**
 * test_txrx() - frames through rings in a huge page, both ways
 * @cap: packet socket on TXTAP
 * @inj: packet socket on RXTAP
 */
static void test_txrx(int cap, int inj)
{
	struct mf_ring tx, rx;
	int r, n;

	if (mf_ring_new_in(&tx, 0, MFD_HUGE) || mf_set_whole(&tx) ||
	    attach_tap(tx.fd, TXTAP, VRINGFD_DIR_TX)) {
		result_fail("hugetlb_tx", "setup: %s", strerror(errno));
		mf_ring_free(&tx);
		return;
	}
	mf_post_tx(&tx, 0, 100, 60, 0);
	r = (int)write(tx.fd, "", 1);
	n = capture(cap, 100, 60, 0);
	result_check(r == 100 && n == 100, "hugetlb_tx_100x60",
		     "write %d, captured %d intact of 100", r, n);
	{
		/* 1500 bytes across a base page boundary inside the huge page */
		struct iovec v = { mf_buf(&tx, 1) + 1000, 1500 };

		tc_frame(v.iov_base, 1500, 500);
		vringfd_ring_add(mf_state(&tx), &v, 1, NULL, 0, v.iov_base);
		vringfd_ring_publish(mf_state(&tx));
		r = (int)write(tx.fd, "", 1);
		n = capture(cap, 1, 1500, 500);
		result_check(r == 1 && n == 1, "hugetlb_tx_1500_across_base_pages",
			     "write %d, captured %d", r, n);
	}
	mf_ring_free(&tx);

	if (mf_ring_new_in(&rx, 0, MFD_HUGE) || mf_set_whole(&rx) ||
	    attach_tap(rx.fd, RXTAP, VRINGFD_DIR_RX)) {
		result_fail("hugetlb_rx", "setup: %s", strerror(errno));
		mf_ring_free(&rx);
		return;
	}
	tc_wait_carrier(RXTAP);
	mf_post_rx(&rx, 0, 20);
	n = tc_inject(inj, 10, 100, 0);
	r = rx_pull(rx.fd, 10);
	result_check(n == 10 && r == 10 && rx_check(&rx, 10, 100, 0), "hugetlb_rx_10_filled",
		     "injected %d, read %d", n, r);
	mf_ring_free(&rx);
}

/**
 * test_hole() - a region of a huge page that does not exist yet, then a
 * hole punched under it while the ring holds it
 * @cap: packet socket on TXTAP
 *
 * The second region starts 4 KiB into its huge page (a region need not be
 * huge-page aligned).  The module allocates the file's page (the pool has
 * one free page less) and sends what the process then writes through its
 * own mapping of the file.  After the punch the file has no page there;
 * the module still holds the old one (the pool does not get it back) and
 * sends its bytes; closing the ring returns it.
 */
static void test_hole(int cap)
{
	struct vringfd_mem_file_region r[2];
	long free0, free1, free2;
	struct mf_ring t = { .memfd = -1, .mem = NULL, .fd = -1 };
	uint8_t *m2 = MAP_FAILED;
	struct iovec v;
	int fd2, ret, n, i;

	fd2 = mf_memfd_flags(HPAGE, F_SEAL_SHRINK, MFD_HUGE);
	if (fd2 < 0 || mf_ring_new_in(&t, 0, MFD_HUGE) ||
	    attach_tap(t.fd, TXTAP, VRINGFD_DIR_TX)) {
		result_fail("hugetlb_hole", "setup: %s", strerror(errno));
		goto out;
	}
	/* mapped, not touched: reserved, no page yet */
	m2 = mmap(NULL, HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
	if (m2 == MAP_FAILED) {
		result_fail("hugetlb_hole", "mmap: %s", strerror(errno));
		goto out;
	}
	r[0] = mf_region(&t);
	memset(&r[1], 0, sizeof(r[1]));
	r[1].guest_addr = (uintptr_t)m2 + 4096;
	r[1].size = HPAGE - 4096;
	r[1].offset = 4096;
	r[1].fd = fd2;
	free0 = hp_read("free_hugepages");
	ret = mf_set(&t, r, 2);
	free1 = hp_read("free_hugepages");
	result_check(ret == 0 && free1 == free0 - 1, "hugetlb_hole_allocated",
		     "set %d (%s), free huge pages %ld then %ld", ret, ret ? strerror(errno) : "",
		     free0, free1);
	if (ret)
		goto out;
	for (i = 0; i < 5; i++) {
		v.iov_base = m2 + 8192 + (size_t)i * BUFSZ;
		v.iov_len = 64;
		tc_frame(v.iov_base, 64, 900 + (unsigned int)i);
		vringfd_ring_add(mf_state(&t), &v, 1, NULL, 0, v.iov_base);
	}
	vringfd_ring_publish(mf_state(&t));
	ret = (int)write(t.fd, "", 1);
	n = capture(cap, 5, 64, 900);
	result_check(ret == 5 && n == 5, "hugetlb_hole_page_is_the_files",
		     "write %d, captured %d of 5 written through the file's mapping", ret, n);

	if (fallocate(fd2, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)HPAGE) < 0) {
		result_fail("hugetlb_punch", "fallocate: %s", strerror(errno));
		goto out;
	}
	free2 = hp_read("free_hugepages");
	/* the same buffers again, not written: the old page's bytes */
	for (i = 0; i < 5; i++) {
		v.iov_base = m2 + 8192 + (size_t)i * BUFSZ;
		v.iov_len = 64;
		vringfd_ring_add(mf_state(&t), &v, 1, NULL, 0, v.iov_base);
	}
	vringfd_ring_publish(mf_state(&t));
	ret = (int)write(t.fd, "", 1);
	n = capture(cap, 5, 64, 900);
	result_check(free2 == free1 && ret == 5 && n == 5, "hugetlb_punch_old_page_kept",
		     "free huge pages %ld after the punch (want %ld: still held), write %d, "
		     "captured %d of 5 old frames", free2, free1, ret, n);
out:
	if (m2 != MAP_FAILED)
		munmap(m2, HPAGE);
	if (fd2 >= 0)
		close(fd2);
	mf_ring_free(&t);
}

/**
 * test_later_pages() - a region over the second and third huge pages of a
 * file, 4 KiB into the second: frames from each page and one straddling
 * the two are the bytes the process wrote there (the huge pages are found
 * at their own page-cache index, which is counted in huge pages on 6.1 and
 * in base pages from 6.7; the file's first huge page is never allocated)
 * @cap: packet socket on TXTAP
 */
static void test_later_pages(int cap)
{
	static const size_t at[7] = {
		HPAGE + 8192, HPAGE + 8192 + BUFSZ, HPAGE + 8192 + 2 * BUFSZ,
		2 * HPAGE + 8192, 2 * HPAGE + 8192 + BUFSZ, 2 * HPAGE + 8192 + 2 * BUFSZ,
		2 * HPAGE - 30,		/* 30 bytes in the second page, 34 in the third */
	};
	struct mf_ring t = { .memfd = -1, .mem = NULL, .fd = -1 };
	struct vringfd_mem_file_region r[2];
	uint8_t *m3 = MAP_FAILED;
	struct iovec v;
	int fd3, ret, n, i;

	fd3 = mf_memfd_flags(3 * HPAGE, F_SEAL_SHRINK, MFD_HUGE);
	if (fd3 < 0 || mf_ring_new_in(&t, 0, MFD_HUGE) ||
	    attach_tap(t.fd, TXTAP, VRINGFD_DIR_TX)) {
		result_fail("hugetlb_later_pages", "setup: %s", strerror(errno));
		goto out;
	}
	m3 = mmap(NULL, 3 * HPAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd3, 0);
	if (m3 == MAP_FAILED) {
		result_fail("hugetlb_later_pages", "mmap: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 7; i++)
		tc_frame(m3 + at[i], 64, 700 + (unsigned int)i);
	r[0] = mf_region(&t);
	memset(&r[1], 0, sizeof(r[1]));
	r[1].guest_addr = (uintptr_t)m3 + HPAGE + 4096;
	r[1].size = 2 * HPAGE - 4096;
	r[1].offset = HPAGE + 4096;
	r[1].fd = fd3;
	if (mf_set(&t, r, 2)) {
		result_fail("hugetlb_later_pages", "set: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 7; i++) {
		v.iov_base = m3 + at[i];
		v.iov_len = 64;
		vringfd_ring_add(mf_state(&t), &v, 1, NULL, 0, v.iov_base);
	}
	vringfd_ring_publish(mf_state(&t));
	ret = (int)write(t.fd, "", 1);
	n = capture(cap, 7, 64, 700);
	result_check(ret == 7 && n == 7, "hugetlb_later_pages_sent",
		     "write %d, captured %d of 7 (3 from each page, 1 across them)", ret, n);
out:
	if (m3 != MAP_FAILED)
		munmap(m3, 3 * HPAGE);
	if (fd3 >= 0)
		close(fd3);
	mf_ring_free(&t);
}

/**
 * test_refusals() - a hugetlbfs memfd that can shrink; a pool too small
 * for a region's holes (ENOSPC, the pages taken returned with the file)
 */
static void test_refusals(void)
{
	struct vringfd_mem_file_region r;
	long free0, free1, free2;
	struct mf_ring m;
	int fd;

	if (mf_ring_new(&m, 0)) {
		result_fail("hugetlb_refusals", "setup: %s", strerror(errno));
		mf_ring_free(&m);
		return;
	}
	r = mf_region(&m);
	fd = mf_memfd_flags(HPAGE, 0, MFD_HUGE);
	r.fd = fd;
	r.size = 4096;
	tc_expect_err("hugetlb_unsealed_eperm", fd < 0 ? -1 : mf_set(&m, &r, 1),
		      fd < 0 ? 0 : EPERM);
	if (fd >= 0)
		close(fd);

	/* one huge page more than the pool has free, none allocated yet */
	free0 = hp_read("free_hugepages");
	fd = mf_memfd_flags((size_t)(free0 + 1) * HPAGE, F_SEAL_SHRINK, MFD_HUGE);
	r.fd = fd;
	r.offset = 0;
	r.size = (uint64_t)(free0 + 1) * HPAGE;
	r.guest_addr = 1ULL << 40;
	tc_expect_err("hugetlb_pool_exhausted_enospc", fd < 0 ? -1 : mf_set(&m, &r, 1),
		      fd < 0 ? 0 : ENOSPC);
	free1 = hp_read("free_hugepages");
	if (fd >= 0)
		close(fd);
	free2 = hp_read("free_hugepages");
	result_check(free1 == 0 && free2 == free0, "hugetlb_enospc_pages_returned",
		     "free huge pages %ld before, %ld after the refusal (want 0: the file's), "
		     "%ld with the file closed",
		     free0, free1, free2);
	mf_ring_free(&m);
}

/**
 * child_memlock() - without CAP_IPC_LOCK and with a 1 MiB RLIMIT_MEMLOCK,
 * a ring in one huge page is refused (its 512 base pages are charged)
 *
 * Return: 0 when the case passed (its line printed).
 */
static int child_memlock(void)
{
	struct rlimit rl = { 1UL << 20, 1UL << 20 };
	struct mf_ring m;
	int ok;

	if (mf_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &rl) ||
	    mf_ring_new_in(&m, 0, MFD_HUGE)) {
		result_fail("hugetlb_memlock_enomem", "setup: %s", strerror(errno));
		return 1;
	}
	ok = tc_expect_err("hugetlb_memlock_enomem", mf_set_whole(&m), ENOMEM);
	mf_ring_free(&m);
	return !ok;
}

/**
 * test_memlock() - child_memlock() in a child process
 */
static void test_memlock(void)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child_memlock());
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		result_fail("hugetlb_memlock_child", "child status %#x (its line says what failed)",
			    st);
}

int main(void)
{
	long nr0, free0, free_end;
	int fd, cap, inj;

	signal(SIGPIPE, SIG_IGN);
	nr0 = hp_read("nr_hugepages");
	if (nr0 < 0) {
		result_skip("hugetlb", "no 2 MiB huge page pool (%s)", HP_DIR);
		return result_exit_status();
	}
	fd = memfd_create("vrhp", MFD_CLOEXEC | MFD_HUGE);
	if (fd < 0) {
		result_skip("hugetlb", "memfd_create(MFD_HUGETLB | MFD_HUGE_2MB): %s", strerror(errno));
		return result_exit_status();
	}
	close(fd);
	if (hp_set_pool(POOL) || hp_read("free_hugepages") != POOL) {
		result_skip("hugetlb", "the pool got %ld free huge pages of %d (%s)",
			    hp_read("free_hugepages"), POOL, strerror(errno));
		hp_set_pool(nr0);
		return result_exit_status();
	}
	if (tc_sh("ip tuntap add dev " TXTAP " mode tap && ip link set " TXTAP " up && "
		  "ip tuntap add dev " RXTAP " mode tap && ip link set " RXTAP " up")) {
		result_fail("hugetlb", "cannot create taps");
		hp_set_pool(nr0);
		return 1;
	}
	tc_sh("for i in " TXTAP " " RXTAP "; do sysctl -qw net.ipv6.conf.$i.disable_ipv6=1; done");
	cap = tc_packet_socket(TXTAP);
	inj = tc_packet_socket(RXTAP);
	if (cap < 0 || inj < 0) {
		result_fail("hugetlb", "packet sockets: %s", strerror(errno));
		hp_set_pool(nr0);
		return 1;
	}
	free0 = hp_read("free_hugepages");
	test_txrx(cap, inj);
	test_hole(cap);
	test_later_pages(cap);
	test_refusals();
	test_memlock();
	free_end = hp_read("free_hugepages");
	result_check(free_end == free0, "hugetlb_pages_returned",
		     "free huge pages %ld at the start, %ld with every ring closed", free0, free_end);
	tc_sh("ip link del " TXTAP "; ip link del " RXTAP);
	hp_set_pool(nr0);
	return result_exit_status();
}
