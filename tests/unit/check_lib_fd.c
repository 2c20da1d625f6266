// SPDX-License-Identifier: GPL-2.0
/*
 * check_lib_fd.c - the vring fd calls' argument checks that do not need the
 * module: bad ring sizes, a missing device, a device that is not vringfd,
 * bad fds, NULL pointers.  Each case has the errno it must get.
 *
 * $VRINGFD_DEVICE points the library at a path chosen by each test, so the
 * answers do not depend on whether the module is loaded here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vringfd.h"
#include "unit/runner.h"
#include "unit/check_lib.h"

#define FD_MISSING	"/nonexistent/vringfd"

static void *fd_ring;
static uint16_t fd_last_used;

static void fd_setup(void)
{
	fd_ring = aligned_alloc(4096, 4 * 4096 * 64);
	ck_assert_ptr_nonnull(fd_ring);
	memset(fd_ring, 0, 4 * 4096 * 64);
	setenv("VRINGFD_DEVICE", FD_MISSING, 1);
}

static void fd_teardown(void)
{
	free(fd_ring);
	unsetenv("VRINGFD_DEVICE");
}

/**
 * expect_err() - a call returned -1 with @err
 * @ret: the call's result
 * @err: expected errno
 */
#define expect_err(ret, err) do { \
	errno = 0; \
	int _r = (ret); \
	int _e = errno; \
	ck_assert_msg(_r == -1 && _e == (err), "%s: got %d errno %d (%s), want -1 errno %d (%s)", \
		      #ret, _r, _e, strerror(_e), (err), strerror(err)); \
} while (0)

START_TEST(fd_num_zero)
{
	fd_setup();
	expect_err(vringfd(fd_ring, 0, &fd_last_used), EINVAL);
	fd_teardown();
}
END_TEST

START_TEST(fd_num_not_power_of_two)
{
	fd_setup();
	expect_err(vringfd(fd_ring, 3, &fd_last_used), EINVAL);
	expect_err(vringfd(fd_ring, 255, &fd_last_used), EINVAL);
	fd_teardown();
}
END_TEST

START_TEST(fd_num_too_big)
{
	fd_setup();
	expect_err(vringfd(fd_ring, 65536, &fd_last_used), EINVAL);
	expect_err(vringfd(fd_ring, VRINGFD_MAX_NUM * 2, &fd_last_used), EINVAL);
	expect_err(vringfd(fd_ring, 0x80000000u, &fd_last_used), EINVAL);
	fd_teardown();
}
END_TEST

START_TEST(fd_create_bad_num)
{
	fd_setup();
	expect_err(vringfd_create(0, fd_ring, fd_ring, fd_ring, &fd_last_used, 0), EINVAL);
	expect_err(vringfd_create(6, fd_ring, fd_ring, fd_ring, &fd_last_used, 0), EINVAL);
	expect_err(vringfd_create(65536, fd_ring, fd_ring, fd_ring, &fd_last_used, 0), EINVAL);
	fd_teardown();
}
END_TEST

START_TEST(fd_missing_device)
{
	struct vringfd_version v;

	fd_setup();
	expect_err(vringfd(fd_ring, 256, &fd_last_used), ENOENT);
	expect_err(vringfd_create(256, fd_ring, fd_ring, fd_ring, &fd_last_used, 0), ENOENT);
	expect_err(vringfd_get_version(&v), ENOENT);
	fd_teardown();
}
END_TEST

START_TEST(fd_device_not_vringfd)
{
	struct vringfd_version v;

	/* /dev/null opens, but the ioctl is not its: ENOTTY survives close() */
	fd_setup();
	setenv("VRINGFD_DEVICE", "/dev/null", 1);
	expect_err(vringfd(fd_ring, 256, &fd_last_used), ENOTTY);
	expect_err(vringfd_get_version(&v), ENOTTY);
	fd_teardown();
}
END_TEST

START_TEST(fd_device_no_permission)
{
	fd_setup();
	if (geteuid() == 0) {
		const char *fork_mode = getenv("CK_FORK");

		/* drop root in this test's own process (Check forks per test) */
		if (fork_mode && !strcmp(fork_mode, "no")) {
			fd_teardown();
			runner_skip("root and CK_FORK=no: cannot drop privileges here");
		}
		ck_assert_msg(setresgid(65534, 65534, 65534) == 0 &&
			      setresuid(65534, 65534, 65534) == 0,
			      "dropping root to uid 65534: %s", strerror(errno));
	}
	/* a file not writable by us */
	setenv("VRINGFD_DEVICE", "/etc/passwd", 1);
	expect_err(vringfd(fd_ring, 256, &fd_last_used), EACCES);
	fd_teardown();
}
END_TEST

START_TEST(fd_null_pointers)
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(null_fd, 0);
	fd_setup();
	expect_err(vringfd_get_version(NULL), EFAULT);
	expect_err(vringfd_get_stats(null_fd, NULL), EFAULT);
	expect_err(vringfd_get_state(null_fd, NULL), EFAULT);
	expect_err(vringfd_attach_tap_ex(null_fd, NULL), EFAULT);
	expect_err(vringfd_set_mem_table(null_fd, NULL, 1), EFAULT);
	fd_teardown();
	close(null_fd);
}
END_TEST

START_TEST(fd_mem_table_too_many)
{
	struct vringfd_mem_region r[VRINGFD_MAX_MEM_REGIONS + 1];

	memset(r, 0, sizeof(r));
	expect_err(vringfd_set_mem_table(-1, r, VRINGFD_MAX_MEM_REGIONS + 1), EINVAL);
	expect_err(vringfd_set_mem_table(-1, r, 0xffffffffu), EINVAL);
}
END_TEST

START_TEST(fd_mem_files_args)
{
	struct vringfd_mem_file_region r[VRINGFD_MAX_MEM_REGIONS + 1];
	struct vringfd_mem_files f;
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(null_fd, 0);
	memset(r, 0, sizeof(r));
	memset(&f, 0, sizeof(f));
	expect_err(vringfd_set_mem_files(-1, &f, r, 0), EINVAL);
	expect_err(vringfd_set_mem_files(-1, &f, r, VRINGFD_MAX_MEM_REGIONS + 1), EINVAL);
	expect_err(vringfd_set_mem_files(-1, NULL, r, 1), EFAULT);
	expect_err(vringfd_set_mem_files(-1, &f, NULL, 1), EFAULT);
	expect_err(vringfd_set_mem_files(-1, &f, r, 1), EBADF);
	expect_err(vringfd_set_mem_files(null_fd, &f, r, VRINGFD_MAX_MEM_REGIONS), ENOTTY);
	close(null_fd);
}
END_TEST

START_TEST(fd_create_of_memory_args)
{
	struct vringfd_mem_file_region r[VRINGFD_MAX_MEM_REGIONS + 1];
	struct vringfd_mem_files f;
	struct vringfd_create c;

	memset(r, 0, sizeof(r));
	memset(&f, 0, sizeof(f));
	memset(&c, 0, sizeof(c));
	c.num = 256;
	/* checked before the device is opened (none here: ENOENT after) */
	expect_err(vringfd_create_of_memory(NULL, &f, r, 1), EFAULT);
	expect_err(vringfd_create_of_memory(&c, &f, r, 0), EINVAL);
	expect_err(vringfd_create_of_memory(&c, &f, r, VRINGFD_MAX_MEM_REGIONS + 1), EINVAL);
	expect_err(vringfd_create_of_memory(&c, NULL, r, 1), EFAULT);
	expect_err(vringfd_create_of_memory(&c, &f, NULL, 1), EFAULT);
	c.num = 3;
	expect_err(vringfd_create_of_memory(&c, &f, r, 1), EINVAL);
	c.num = 256;
	expect_err(vringfd_create_of_memory(&c, &f, r, 1), ENOENT);
}
END_TEST

START_TEST(fd_bad_fd)
{
	struct vringfd_mem_region r;
	struct vringfd_stats st;
	struct vringfd_state sa;

	memset(&r, 0, sizeof(r));
	expect_err(vringfd_attach_tap(-1, 0, VRINGFD_DIR_TX), EBADF);
	expect_err(vringfd_detach(-1), EBADF);
	expect_err(vringfd_set_mem_table(-1, &r, 1), EBADF);
	expect_err(vringfd_set_mem_table(-1, NULL, 0), EBADF);
	expect_err(vringfd_set_call_fd(-1, -1), EBADF);
	expect_err(vringfd_get_stats(-1, &st), EBADF);
	expect_err(vringfd_get_state(-1, &sa), EBADF);
}
END_TEST

START_TEST(fd_not_a_vring_fd)
{
	int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct vringfd_stats st;
	struct vringfd_state sa;

	ck_assert_int_ge(null_fd, 0);
	expect_err(vringfd_attach_tap(null_fd, 0, VRINGFD_DIR_TX), ENOTTY);
	expect_err(vringfd_detach(null_fd), ENOTTY);
	expect_err(vringfd_set_mem_table(null_fd, NULL, 0), ENOTTY);
	expect_err(vringfd_set_call_fd(null_fd, -1), ENOTTY);
	expect_err(vringfd_get_stats(null_fd, &st), ENOTTY);
	expect_err(vringfd_get_state(null_fd, &sa), ENOTTY);
	close(null_fd);
}
END_TEST

START_TEST(fd_default_device_path)
{
	struct vringfd_version v;
	int r;

	/* an empty $VRINGFD_DEVICE means the default path */
	setenv("VRINGFD_DEVICE", "", 1);
	errno = 0;
	r = vringfd_get_version(&v);
	unsetenv("VRINGFD_DEVICE");
	if (access(VRINGFD_DEVICE, F_OK) == 0) {
		ck_assert_msg(r == 0, "VRINGFD_GET_VERSION on %s: %s", VRINGFD_DEVICE,
			      strerror(errno));
		ck_assert_uint_eq(v.api_version, VRINGFD_API_VERSION);
	} else {
		ck_assert_int_eq(r, -1);
		ck_assert_int_eq(errno, ENOENT);
	}
}
END_TEST

/**
 * fd_suite() - the vring fd calls suite
 *
 * Return: the suite.
 */
Suite *fd_suite(void)
{
	Suite *s = runner_suite_create("lib-fd");

	RUNNER_ADD_TEST(s, fd_num_zero);
	RUNNER_ADD_TEST(s, fd_num_not_power_of_two);
	RUNNER_ADD_TEST(s, fd_num_too_big);
	RUNNER_ADD_TEST(s, fd_create_bad_num);
	RUNNER_ADD_TEST(s, fd_missing_device);
	RUNNER_ADD_TEST(s, fd_device_not_vringfd);
	RUNNER_ADD_TEST(s, fd_device_no_permission);
	RUNNER_ADD_TEST(s, fd_null_pointers);
	RUNNER_ADD_TEST(s, fd_mem_table_too_many);
	RUNNER_ADD_TEST(s, fd_mem_files_args);
	RUNNER_ADD_TEST(s, fd_create_of_memory_args);
	RUNNER_ADD_TEST(s, fd_bad_fd);
	RUNNER_ADD_TEST(s, fd_not_a_vring_fd);
	RUNNER_ADD_TEST(s, fd_default_device_path);
	return s;
}
