/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guard.h - survive faults in front-end memory
 *
 * Guest memory is a file the front-end owns: it can truncate it under our
 * mapping, or (hugetlbfs mapped without reservation) have no page to give
 * when we touch it.  Either way the access raises SIGBUS (SIGSEGV for some
 * shapes).  Every mapping of front-end memory is registered here with its
 * owner (the connection); every stretch of code that touches such memory
 * runs inside a scope:
 *
 *	struct guard_scope gs;
 *
 *	guard_enter(&gs, owner);
 *	if (sigsetjmp(gs.jb, 0)) {
 *		(gs.fault says where; guard_leave() was done by the handler)
 *		close the owner's connection
 *		return;
 *	}
 *	... walk the rings ...
 *	guard_leave(&gs);
 *
 * The handler looks the faulting address up among the registered mappings:
 * inside one that belongs to the innermost scope's owner, it jumps back to
 * the scope's sigsetjmp(); anywhere else (our own bug, or guest memory
 * touched outside any scope) the signal takes its default action: the
 * daemon dies with a core, as a real bug must.
 *
 * Between guard_enter() and guard_leave() the code must not hold a lock
 * or leave state that outlives the owner half-updated at a point that
 * touches front-end memory: the jump abandons it there.  Only the owner's
 * state (closed right after) may be abandoned.
 */
#ifndef VRINGNET_GUARD_H
#define VRINGNET_GUARD_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct guard_fault - where a guarded access faulted
 * @sig: SIGBUS or SIGSEGV
 * @code: the siginfo si_code (BUS_ADRERR, SEGV_MAPERR, ...)
 * @index: the owner's number of the mapping (e.g. its region index)
 * @offset: offset of the faulting byte in that mapping
 * @size: size of that mapping
 */
struct guard_fault {
	int sig;
	int code;
	unsigned int index;
	uint64_t offset;
	uint64_t size;
};

/**
 * struct guard_scope - one guarded stretch of code (on the caller's stack)
 * @jb: where the handler jumps back to (the caller's sigsetjmp(@jb, 0))
 * @owner: whose mappings this code may touch
 * @prev: the scope it is nested in, or NULL
 * @fault: filled in by the handler before it jumps
 */
struct guard_scope {
	sigjmp_buf jb;
	const void *owner;
	struct guard_scope *prev;
	struct guard_fault fault;
};

int guard_init(char *err, size_t errlen);
int guard_map_add(const void *start, size_t len, const void *owner, unsigned int index);
void guard_map_del(const void *start);
void guard_enter(struct guard_scope *s, const void *owner);
void guard_leave(struct guard_scope *s);
const char *guard_fault_str(const struct guard_fault *f, char *buf, size_t len);

#endif /* VRINGNET_GUARD_H */
