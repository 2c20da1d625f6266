// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_guard.c - guard.c: faults in registered front-end memory are
 * caught inside a scope; every other fault still kills the process
 *
 * Each case runs in a child of its own (fork()) so that the cases where the
 * process must die can be watched from outside: the parent checks the
 * signal that ended the child.  Core dumps are off in the children.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_daemon.h"
#include "runner.h"
#include "guard.h"

#define GC_PAGES	4

static const char gc_owner_a[] = "a", gc_owner_b[] = "b";

/**
 * gc_map() - a shared memfd mapping of GC_PAGES pages
 * @fd: the memfd out
 *
 * Return: the mapping.
 */
static uint8_t *gc_map(int *fd)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *p;

	*fd = memfd_create("check-guard", MFD_CLOEXEC);
	if (*fd < 0 || ftruncate(*fd, GC_PAGES * pg) < 0)
		_exit(90);
	p = mmap(NULL, GC_PAGES * pg, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (p == MAP_FAILED)
		_exit(91);
	return p;
}

/**
 * gc_child() - run @fn in a child with the handlers installed
 * @fn: the case; its return value is the child's exit status
 *
 * Return: the wait status of the child.
 */
static int gc_child(int (*fn)(void))
{
	struct rlimit no_core = { 0, 0 };
	char err[128];
	pid_t pid;
	int st;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		setrlimit(RLIMIT_CORE, &no_core);
		if (guard_init(err, sizeof(err)) < 0)
			_exit(92);
		_exit(fn());
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return st;
}

/**
 * gc_truncated_read() - map, register as @owner, truncate, read page 2
 * @reg_owner: the owner registered (NULL: not registered at all)
 * @scope_owner: the owner of the scope (NULL: no scope)
 * @del_first: unregister before the read
 *
 * Return: 0 when the fault came back to the scope with the right details;
 * other values say what went wrong; the process dies when the fault is not
 * caught.
 */
static int gc_truncated_read(const void *reg_owner, const void *scope_owner, bool del_first)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct guard_scope gs;
	volatile uint8_t *p;
	uint8_t v;
	int fd;

	p = gc_map(&fd);
	if (reg_owner && guard_map_add((void *)p, GC_PAGES * pg, reg_owner, 3) < 0)
		return 10;
	if (del_first)
		guard_map_del((void *)p);
	if (ftruncate(fd, pg) < 0)
		return 11;
	if (!scope_owner) {
		v = p[2 * pg + 5];	/* must kill */
		return 12 + v * 0;
	}
	guard_enter(&gs, scope_owner);
	if (sigsetjmp(gs.jb, 0)) {
		if (gs.fault.sig != SIGBUS)
			return 20;
		if (gs.fault.index != 3)
			return 21;
		if (gs.fault.offset != (uint64_t)(2 * pg + 5))
			return 22;
		if (gs.fault.size != (uint64_t)(GC_PAGES * pg))
			return 23;
		/* the scope is closed: a second fault is not caught */
		return 0;
	}
	v = p[2 * pg + 5];
	guard_leave(&gs);
	return 30 + v * 0;
}

/** gc_case_caught() - registered, in a scope of its owner: caught. Return: status. */
static int gc_case_caught(void) { return gc_truncated_read(gc_owner_a, gc_owner_a, false); }
/** gc_case_no_scope() - registered but no scope: dies. Return: status. */
static int gc_case_no_scope(void) { return gc_truncated_read(gc_owner_a, NULL, false); }
/** gc_case_unregistered() - a scope but not guest memory: dies. Return: status. */
static int gc_case_unregistered(void) { return gc_truncated_read(NULL, gc_owner_a, false); }
/** gc_case_other_owner() - another connection's scope: dies. Return: status. */
static int gc_case_other_owner(void) { return gc_truncated_read(gc_owner_b, gc_owner_a, false); }
/** gc_case_deleted() - unregistered again before the access: dies. Return: status. */
static int gc_case_deleted(void) { return gc_truncated_read(gc_owner_a, gc_owner_a, true); }

/**
 * gc_case_null() - a NULL dereference inside a scope
 *
 * Return: never when it dies as it must.
 */
static int gc_case_null(void)
{
	struct guard_scope gs;
	volatile int *np = NULL;
	int fd;
	uint8_t *p = gc_map(&fd);

	if (guard_map_add(p, 4096, gc_owner_a, 0) < 0)
		return 10;
	guard_enter(&gs, gc_owner_a);
	if (sigsetjmp(gs.jb, 0))
		return 20;
	return *np;
}

/**
 * gc_case_two_faults() - two faults in a row, each in its own scope
 *
 * Return: 0 when both were caught.
 */
static int gc_case_two_faults(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		int r = gc_truncated_read(gc_owner_a, gc_owner_a, false);

		if (r)
			return 40 + r;
	}
	return 0;
}

/**
 * gc_case_grown() - 4000 mappings of another owner first (the first table
 *	has 256 slots: four growths; the old 1024-slot table refused them), then a
 *	fault in one registered after them, in a scope of its owner: caught;
 *	an empty mapping is refused
 *
 * Return: 0 when all went as it must.
 */
static int gc_case_grown(void)
{
	static char byte[4000];
	int i;

	if (guard_map_add(byte, 0, gc_owner_b, 0) != -EINVAL)
		return 50;
	for (i = 0; i < 4000; i++)
		if (guard_map_add(byte + i, 1, gc_owner_b, (unsigned int)i) < 0)
			return 51;
	for (i = 0; i < 4000; i += 2)
		guard_map_del(byte + i);	/* free slots are found again */
	for (i = 0; i < 4000; i += 2)
		if (guard_map_add(byte + i, 1, gc_owner_b, (unsigned int)i) < 0)
			return 52;
	return gc_truncated_read(gc_owner_a, gc_owner_a, false);
}

START_TEST(guard_fault_caught_in_scope)
{
	int st = gc_child(gc_case_caught);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_two_faults_caught)
{
	int st = gc_child(gc_case_two_faults);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_fault_outside_scope_kills)
{
	int st = gc_child(gc_case_no_scope);

	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_fault_unregistered_kills)
{
	int st = gc_child(gc_case_unregistered);

	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_fault_other_owner_kills)
{
	int st = gc_child(gc_case_other_owner);

	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_fault_after_del_kills)
{
	int st = gc_child(gc_case_deleted);

	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_null_in_scope_kills)
{
	int st = gc_child(gc_case_null);

	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "child status 0x%x", st);
}
END_TEST

START_TEST(guard_map_table_grows)
{
	int st = gc_child(gc_case_grown);

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
}
END_TEST

/**
 * guard_suite() - the suite
 *
 * Return: it.
 */
Suite *guard_suite(void)
{
	Suite *s = runner_suite_create("guard");

	RUNNER_ADD_TEST(s, guard_fault_caught_in_scope);
	RUNNER_ADD_TEST(s, guard_two_faults_caught);
	RUNNER_ADD_TEST(s, guard_fault_outside_scope_kills);
	RUNNER_ADD_TEST(s, guard_fault_unregistered_kills);
	RUNNER_ADD_TEST(s, guard_fault_other_owner_kills);
	RUNNER_ADD_TEST(s, guard_fault_after_del_kills);
	RUNNER_ADD_TEST(s, guard_null_in_scope_kills);
	RUNNER_ADD_TEST(s, guard_map_table_grows);
	return s;
}
