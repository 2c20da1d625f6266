// SPDX-License-Identifier: GPL-2.0
/*
 * core_unload.c - an open vring fd (or echo fd) holds its module: unloading
 * is refused while one is open and works after close.  The modules are
 * loaded again at the end (from where vm-run loaded them: kmod_load.h),
 * so tests that run later find them as before.
 */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "kmod_load.h"
#include "core_common.h"

static char top[PATH_MAX];

/**
 * mod_unload() - delete_module(NAME, O_NONBLOCK)
 * @name: module name
 *
 * Return: 0, or -1 with errno.
 */
static int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

/**
 * wait_dev() - wait for a device node to appear or disappear
 * @path: /dev/...
 * @present: wanted state
 *
 * Return: true when reached within 5 s.
 */
static bool wait_dev(const char *path, bool present)
{
	int i;

	for (i = 0; i < 500; i++) {
		if ((access(path, F_OK) == 0) == present)
			return true;
		usleep(10000);
	}
	return false;
}

/**
 * main() - run the unload tests
 *
 * Return: 0 when no test failed.
 */
int main(void)
{
	bool echo = false;
	struct tring t;
	int r0, r1, r, efd = -1;
	char ko[PATH_MAX + 32];

	if (geteuid() != 0) {
		result_skip("core_unload", "not root: cannot unload modules");
		return 0;
	}
	if (kl_find_top(top) || (kl_path(top, "vringfd.ko", ko, sizeof(ko)), access(ko, R_OK))) {
		result_skip("core_unload", "vringfd.ko not found (VMRUN_KMOD_DIR or kmod/ next to the build tree)");
		return 0;
	}
	r0 = kl_refcnt("vringfd");
	if (r0 < 0) {
		result_skip("core_unload", "vringfd is not loaded as a module");
		return 0;
	}
	if (tring_open(&t, 8, 0, 0)) {
		result_check(false, "unload_refcnt_held_by_ring", "create: %s", strerror(errno));
		return 1;
	}
	r1 = kl_refcnt("vringfd");
	result_check(r1 == r0 + 1, "unload_refcnt_held_by_ring", "refcnt %d -> %d", r0, r1);

	if (kl_refcnt("vringfd_echo") >= 0) {
		struct tring x, y;
		int e0 = kl_refcnt("vringfd_echo"), e1 = -1, e2 = -1;

		echo = true;
		/* Each attachment holds the client module (vrfd_ops.owner). */
		if (!tring_open(&x, 8, 0, 0) && !tring_open(&y, 8, 0, 0) &&
		    !echo_attach(x.fd, y.fd, 0, 0, &efd)) {
			e1 = kl_refcnt("vringfd_echo");
			tring_close(&x);
			tring_close(&y);
			e2 = kl_refcnt("vringfd_echo");
			close(efd);
		}
		result_check(e1 == e0 + 3 && e2 == e0 + 1, "unload_echo_held_by_attachments",
			    "refcnt %d, attached %d, rings closed %d", e0, e1, e2);
		tring_close(&x);
		tring_close(&y);
		efd = open("/dev/vringfd_echo", O_RDWR | O_CLOEXEC);
		r = mod_unload("vringfd_echo");
		result_check(r == -1 && kl_refcnt("vringfd_echo") >= 0,
			    "unload_echo_refused_while_open", "delete_module gave %d (%s)", r,
			    strerror(errno));
		close(efd);
		r = mod_unload("vringfd_echo");
		if (r) {
			result_check(false, "unload_echo_after_close",
				    "delete_module: %s (refcnt %d)", strerror(errno),
				    kl_refcnt("vringfd_echo"));
			tring_close(&t);
			return 1;
		}
		result_check(true, "unload_echo_after_close", "-");
	}
	r = mod_unload("vringfd");
	result_check(r == -1 && kl_refcnt("vringfd") >= 0, "unload_refused_while_ring_open",
		    "delete_module gave %d (%s)", r, strerror(errno));
	r1 = kl_refcnt("vringfd");
	tring_close(&t);
	result_check(kl_refcnt("vringfd") == r1 - 1, "unload_refcnt_dropped_on_close",
		    "refcnt %d, want %d", kl_refcnt("vringfd"), r1 - 1);
	r = mod_unload("vringfd");
	result_check(r == 0 && kl_refcnt("vringfd") < 0 && wait_dev(VRINGFD_DEVICE, false),
		    "unload_after_close_ok", "delete_module gave %d (%s)", r,
		    r ? strerror(errno) : "-");

	/* Load again for whoever runs next. */
	r = kl_load(top, "vringfd.ko");
	result_check(r == 0 && wait_dev(VRINGFD_DEVICE, true), "reload_vringfd",
		    "finit_module: %s", r ? strerror(errno) : "no /dev/vringfd");
	if (echo) {
		r = kl_load(top, "vringfd_echo.ko");
		result_check(r == 0 && wait_dev("/dev/vringfd_echo", true), "reload_vringfd_echo",
			    "finit_module: %s", r ? strerror(errno) : "no /dev/vringfd_echo");
	}
	if (tring_open(&t, 8, 0, 0) == 0)
		result_check(true, "reload_create_works", "-");
	else
		result_check(false, "reload_create_works", "create: %s", strerror(errno));
	tring_close(&t);
	return result_exit_status();
}
