// SPDX-License-Identifier: GPL-2.0
/*
 * core_create.c - VRINGFD_CREATE, VRINGFD_GET_VERSION and the vring fd's
 * behaviour with nothing attached: every EINVAL/EFAULT case of creation,
 * the ioctls' errors, write/read/poll without a subsystem, another mm.
 */
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "core_common.h"

/**
 * struct create_args - one VRINGFD_CREATE request built around a mapping
 * @c: the request
 * @t: the ring whose parts it names
 */
struct create_args {
	struct vringfd_create c;
	struct tring t;
};

/**
 * ca_init() - a valid request for a ring of @num
 * @a: filled in
 * @num: ring size
 *
 * Return: 0, or -1 when the mapping failed.
 */
static int ca_init(struct create_args *a, unsigned int num)
{
	if (tring_map(&a->t, num, 0))
		return -1;
	memset(&a->c, 0, sizeof(a->c));
	a->c.num = num;
	a->c.desc_addr = (uintptr_t)a->t.vr.desc;
	a->c.avail_addr = (uintptr_t)a->t.vr.avail;
	a->c.used_addr = (uintptr_t)a->t.vr.used;
	a->c.last_used_addr = (uintptr_t)&a->t.last_used;
	return 0;
}

/**
 * ca_create() - issue VRINGFD_CREATE on /dev/vringfd
 * @dev: fd of /dev/vringfd
 * @a: the request
 *
 * Return: new fd, or -1 with errno.
 */
static int ca_create(int dev, struct create_args *a)
{
	return ioctl(dev, VRINGFD_CREATE, &a->c);
}

/**
 * expect_create() - a request must fail with @err, or succeed if @err is 0
 * @dev: /dev/vringfd
 * @name: test name
 * @a: the request
 * @err: errno wanted, 0 for success
 */
static void expect_create(int dev, const char *name, struct create_args *a,
			  int err)
{
	int fd = ca_create(dev, a);

	if (!err) {
		result_check(fd >= 0, name, "create failed: %s", strerror(errno));
	} else {
		core_expect_err(name, fd, err);
	}
	if (fd >= 0)
		close(fd);
	tring_close(&a->t);
}

/**
 * test_num() - ring sizes
 * @dev: /dev/vringfd
 */
static void test_num(int dev)
{
	static const struct { unsigned int num; int err; const char *name; } c[] = {
		{ 0, EINVAL, "create_num_0_einval" },
		{ 3, EINVAL, "create_num_3_einval" },
		{ 6, EINVAL, "create_num_6_einval" },
		{ 32769, EINVAL, "create_num_32769_einval" },
		{ 65536, EINVAL, "create_num_65536_einval" },
		{ 1u << 20, EINVAL, "create_num_1M_einval" },
		{ 1, 0, "create_num_1_ok" },
		{ 256, 0, "create_num_256_ok" },
		{ 32768, 0, "create_num_32768_ok" },
	};
	struct create_args a;
	unsigned int i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		/* Map a ring big enough for the valid size below it. */
		if (ca_init(&a, c[i].num && c[i].num <= 32768 &&
			    !(c[i].num & (c[i].num - 1)) ? c[i].num : 256)) {
			result_check(false, c[i].name, "mmap failed");
			continue;
		}
		a.c.num = c[i].num;
		expect_create(dev, c[i].name, &a, c[i].err);
	}
}

/**
 * test_align() - misaligned parts, unknown flags/features/reserved
 * @dev: /dev/vringfd
 */
static void test_align(int dev)
{
	struct create_args a;

	if (!ca_init(&a, 8)) {
		a.c.desc_addr += 8;
		expect_create(dev, "create_desc_misaligned_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.avail_addr += 1;
		expect_create(dev, "create_avail_misaligned_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.used_addr += 2;
		expect_create(dev, "create_used_misaligned_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.last_used_addr += 1;
		expect_create(dev, "create_last_used_misaligned_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.features = 1ULL << 0;
		expect_create(dev, "create_unknown_feature_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.features = 1ULL << 40;
		expect_create(dev, "create_unknown_feature40_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		/* bits 0 and 1: VRINGFD_CREATE_F_AVAIL_BASE and _MEM_FILES */
		a.c.flags = 1U << 2;
		expect_create(dev, "create_flags_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.reserved = 1;
		expect_create(dev, "create_reserved_einval", &a, EINVAL);
	}
	if (!ca_init(&a, 8)) {
		a.c.features = (1ULL << VIRTIO_RING_F_INDIRECT_DESC) |
			       (1ULL << VIRTIO_RING_F_EVENT_IDX) |
			       (1ULL << VIRTIO_F_VERSION_1);
		expect_create(dev, "create_all_features_ok", &a, 0);
	}
}

/**
 * test_fault() - ring parts that cannot be read or written now
 * @dev: /dev/vringfd
 */
static void test_fault(int dev)
{
	struct create_args a;
	int fd;

	if (!ca_init(&a, 256)) {
		munmap(a.t.mem, 4096);
		expect_create(dev, "create_desc_unmapped_efault", &a, EFAULT);
	}
	if (!ca_init(&a, 256)) {
		/* desc is 4 KiB for 256 entries: the avail ring starts page 1. */
		mprotect((char *)a.t.mem + 4096, 4096, PROT_NONE);
		expect_create(dev, "create_avail_protnone_efault", &a, EFAULT);
	}
	if (!ca_init(&a, 256)) {
		mprotect(a.t.vr.used, 4096, PROT_READ);
		expect_create(dev, "create_used_readonly_efault", &a, EFAULT);
	}
	if (!ca_init(&a, 1024)) {
		/* The used ring (3 pages for 1024 entries) ends on an unmapped page. */
		size_t used_pages = a.t.size - ((char *)a.t.vr.used - (char *)a.t.mem);

		munmap((char *)a.t.vr.used + 4096, used_pages - 4096);
		expect_create(dev, "create_used_tail_unmapped_efault", &a, EFAULT);
	}
	if (!ca_init(&a, 8)) {
		a.c.last_used_addr = 8;
		expect_create(dev, "create_last_used_null_page_efault", &a, EFAULT);
	}
	if (!ca_init(&a, 8)) {
		a.c.desc_addr = 0xffff888000000000ULL;
		expect_create(dev, "create_desc_kernel_addr_efault", &a, EFAULT);
	}
	if (!ca_init(&a, 8)) {
		a.c.used_addr = 0xfffffffffffffff0ULL;
		expect_create(dev, "create_used_wraps_efault", &a, EFAULT);
	}
	fd = ioctl(dev, VRINGFD_CREATE, NULL);
	core_expect_err("create_null_arg_efault", fd, EFAULT);
	if (fd >= 0)
		close(fd);
}

/**
 * test_version() - VRINGFD_GET_VERSION on the device and on a ring
 * @dev: /dev/vringfd
 */
static void test_version(int dev)
{
	struct vringfd_version v;
	struct tring t;
	int r;

	memset(&v, 0xff, sizeof(v));
	r = ioctl(dev, VRINGFD_GET_VERSION, &v);
	result_check(r == 0 && v.api_version == VRINGFD_API_VERSION &&
		    v.max_num == VRINGFD_MAX_NUM &&
		    (v.ring_features & (1ULL << VIRTIO_RING_F_INDIRECT_DESC)) &&
		    (v.ring_features & (1ULL << VIRTIO_RING_F_EVENT_IDX)) &&
		    v.reserved[0] == 0 && v.reserved[8] == 0,
		    "version_device", "r=%d api %u max %u features %#llx", r,
		    v.api_version, v.max_num, (unsigned long long)v.ring_features);
	core_expect_err("version_null_efault", ioctl(dev, VRINGFD_GET_VERSION, NULL),
			EFAULT);
	core_expect_err("device_unknown_ioctl_enotty",
			ioctl(dev, _IO(VRINGFD_IOCTL_MAGIC, 0x0f)), ENOTTY);
	if (tring_open(&t, 8, 0, 0)) {
		result_check(false, "version_ring", "create: %s", strerror(errno));
		return;
	}
	r = ioctl(t.fd, VRINGFD_GET_VERSION, &v);
	result_check(r == 0 && v.api_version == VRINGFD_API_VERSION, "version_ring",
		    "r=%d", r);
	core_expect_err("ring_unknown_ioctl_enotty",
			ioctl(t.fd, _IO(VRINGFD_IOCTL_MAGIC, 0x2f)), ENOTTY);
	tring_close(&t);
}

/**
 * test_unattached() - a ring with nothing attached
 */
static void test_unattached(void)
{
	struct vringfd_state st;
	struct vringfd_stats stats;
	struct tring t;
	char c = 0;
	int flags, r, efd, pfd[2];
	int32_t v;

	if (tring_map(&t, 16, 0)) {
		result_check(false, "unattached", "mmap failed");
		return;
	}
	t.vr.avail->idx = 5;
	t.vr.used->idx = 3;
	t.fd = vringfd_create(16, t.vr.desc, t.vr.avail, t.vr.used, &t.last_used, 0);
	if (t.fd < 0) {
		result_check(false, "unattached", "create: %s", strerror(errno));
		tring_close(&t);
		return;
	}
	flags = fcntl(t.fd, F_GETFD);
	result_check(flags >= 0 && (flags & FD_CLOEXEC), "create_fd_cloexec",
		    "F_GETFD %#x", flags);
	flags = fcntl(t.fd, F_GETFL);
	result_check(flags >= 0 && (flags & O_ACCMODE) == O_RDWR, "create_fd_rdwr",
		    "F_GETFL %#x", flags);
	r = tring_state(&t, &st);
	result_check(r == 0 && st.last_avail == 5 && st.used_idx == 3 && st.num == 16 &&
		    !(st.flags & (VRINGFD_STATE_BROKEN | VRINGFD_STATE_ATTACHED)),
		    "state_initial_from_ring", "r=%d last_avail %u used_idx %u flags %#x",
		    r, st.last_avail, st.used_idx, st.flags);
	r = ioctl(t.fd, VRINGFD_GET_STATS, &stats);
	result_check(r == 0 && stats.frames == 0 && stats.drop_bad_addr == 0,
		    "stats_initial_zero", "r=%d", r);
	core_expect_err("write_unattached_einval", write(t.fd, &c, 1), EINVAL);
	core_expect_err("read_unattached_einval", read(t.fd, &c, 1), EINVAL);
	core_expect_err("detach_unattached_enoent", ioctl(t.fd, VRINGFD_DETACH), ENOENT);

	/* Call fd. */
	if (pipe(pfd) == 0) {
		v = pfd[0];
		core_expect_err("call_fd_not_eventfd_einval",
				ioctl(t.fd, VRINGFD_SET_CALL_FD, &v), EINVAL);
		close(pfd[0]);
		close(pfd[1]);
	}
	v = 1000;
	core_expect_err("call_fd_closed_ebadf", ioctl(t.fd, VRINGFD_SET_CALL_FD, &v),
			EBADF);
	core_expect_err("call_fd_null_efault", ioctl(t.fd, VRINGFD_SET_CALL_FD, NULL),
			EFAULT);
	efd = eventfd(0, EFD_CLOEXEC);
	v = efd;
	r = ioctl(t.fd, VRINGFD_SET_CALL_FD, &v);
	result_check(r == 0, "call_fd_eventfd_ok", "%s", strerror(errno));
	v = -1;
	r = ioctl(t.fd, VRINGFD_SET_CALL_FD, &v);
	result_check(r == 0, "call_fd_remove_ok", "%s", strerror(errno));
	close(efd);
	core_expect_err("state_null_efault", ioctl(t.fd, VRINGFD_GET_STATE, NULL), EFAULT);
	core_expect_err("stats_null_efault", ioctl(t.fd, VRINGFD_GET_STATS, NULL), EFAULT);
	tring_close(&t);
}

/**
 * test_other_mm() - a vring fd used from a forked child (another mm)
 */
static void test_other_mm(void)
{
	struct tring t;
	struct vringfd_state st;
	short rev;
	pid_t pid;
	int status, r;
	char c = 0;

	if (tring_open(&t, 16, 0, 0)) {
		result_check(false, "other_mm_poll_epollerr", "create: %s", strerror(errno));
		return;
	}
	t.vr.used->idx = 1;	/* readable for its owner */
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		r = poll_one(t.fd, 0, &rev);
		if (r != 1 || !(rev & POLLERR) || (rev & POLLIN))
			bad |= 1;
		if (write(t.fd, &c, 1) != -1 || errno != EINVAL)
			bad |= 2;
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	result_check(WIFEXITED(status) && !(WEXITSTATUS(status) & 1),
		    "other_mm_poll_epollerr", "child status %#x", status);
	result_check(WIFEXITED(status) && !(WEXITSTATUS(status) & 2),
		    "other_mm_write_unattached_einval", "child status %#x", status);
	r = poll_one(t.fd, 0, &rev);
	result_check(r == 1 && (rev & POLLIN) && !(rev & POLLERR) &&
		    tring_state(&t, &st) == 0 && !(st.flags & VRINGFD_STATE_BROKEN),
		    "other_mm_owner_unaffected", "poll %d revents %#x", r, rev);
	tring_close(&t);
}

/**
 * test_unmapped_poll() - ring memory unmapped after creation, then poll
 */
static void test_unmapped_poll(void)
{
	struct tring t;
	short rev;
	char c = 0;
	int r;

	if (tring_open(&t, 256, 0, 0)) {
		result_check(false, "poll_used_unmapped_epollerr", "create: %s",
			    strerror(errno));
		return;
	}
	munmap(t.vr.used, 4096);
	r = poll_one(t.fd, 0, &rev);
	result_check(r == 1 && (rev & POLLERR), "poll_used_unmapped_epollerr",
		    "poll %d revents %#x", r, rev);
	result_check(tring_broken(&t), "poll_used_unmapped_broken", "not broken");
	core_expect_err("write_after_broken_eio", write(t.fd, &c, 1), EIO);
	core_expect_err("call_fd_after_broken_eio",
			ioctl(t.fd, VRINGFD_SET_CALL_FD, &(int32_t){ -1 }), EIO);
	tring_close(&t);
}

/**
 * main() - run the creation tests
 *
 * Return: 0 when no test failed.
 */
int main(void)
{
	int dev = open(VRINGFD_DEVICE, O_RDWR | O_CLOEXEC);

	if (dev < 0) {
		result_skip("core_create", "/dev/vringfd cannot be opened (module not loaded?)");
		return 0;
	}
	test_num(dev);
	test_align(dev);
	test_fault(dev);
	test_version(dev);
	test_unattached();
	test_other_mm();
	test_unmapped_poll();
	close(dev);
	return result_exit_status();
}
