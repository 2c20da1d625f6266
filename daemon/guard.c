// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * guard.c - survive faults in front-end memory (see guard.h)
 *
 * The mapping table grows with the connections (each vhost-user connection
 * registers up to 8 regions and a dirty log, each ring-fd one its memory):
 * no number of connections held by one client can make another's
 * registration fail.  The signal handler reads it, so it is never changed
 * under the handler's feet: slots are added only outside guarded scopes
 * (in message handling), a slot is freed by one release store of its
 * length (also inside a scope: a broken ring closes its connection before
 * the scope ends, and no guest memory is read after that), the handler
 * loads the length with acquire before the other fields, and a full
 * table is replaced by a copy twice its size
 * published with one atomic pointer store; the old table is kept (on a
 * list, freed by nothing before exit: the tables together are at most
 * twice the size of the current one), so a handler that loaded the old
 * pointer still reads valid memory, whatever thread it runs on.  A fault
 * that races a change is outside any scope and is fatal anyway.  The
 * current scope is per thread: a pump thread (worker.h) that faults jumps
 * back to its own scope; SIGBUS and SIGSEGV go to the faulting thread.
 *
 * The handler runs with SA_NODEFER and the scopes use sigsetjmp(jb, 0): the
 * signal mask is the same at the fault as at the sigsetjmp (nothing in a
 * scope changes it), so nothing needs restoring and entering a scope costs
 * no system call.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"

#define GUARD_FIRST_MAPS	256	/* slots of the first table; doubled when full */

/**
 * struct guard_map - one registered mapping of front-end memory
 * @start: first byte
 * @len: bytes; 0 marks a free slot
 * @owner: whose memory it is (a connection)
 * @index: the owner's number for it
 */
struct guard_map {
	uintptr_t start;
	size_t len;
	const void *owner;
	unsigned int index;
};

/**
 * struct guard_table - the registered mappings
 * @old: the table this one replaced (kept for a handler that still reads
 *	it), or NULL
 * @num: slots in @maps
 * @maps: the slots
 */
struct guard_table {
	struct guard_table *old;
	unsigned int num;
	struct guard_map maps[];
};

static struct guard_table *guard_tab;	/* read by the handler: atomic loads */
static __thread struct guard_scope *guard_cur;

/**
 * guard_die() - let a fault we do not own take its default action
 * @sig: the signal
 * @si: its info
 *
 * Restores the default action; a fault the kernel raised then happens
 * again when the handler returns (and dumps core where the bug is); a
 * signal someone sent is raised again.
 */
static void guard_die(int sig, const siginfo_t *si)
{
	static const char msg[] =
		"vringnetd: fault outside guarded front-end memory: a daemon bug, dying\n";
	struct sigaction sa;
	ssize_t w;

	w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)w;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

/**
 * guard_handler() - SIGBUS/SIGSEGV: jump back to the scope that touched it
 * @sig: the signal
 * @si: its info (si_addr: the faulting address)
 * @uc: unused
 */
static void guard_handler(int sig, siginfo_t *si, void *uc)
{
	const struct guard_table *t = __atomic_load_n(&guard_tab, __ATOMIC_ACQUIRE);
	struct guard_scope *s = guard_cur;
	uintptr_t a = (uintptr_t)si->si_addr;
	unsigned int i;

	(void)uc;
	if (si->si_code > 0 && s && t) {
		for (i = 0; i < t->num; i++) {
			const struct guard_map *m = &t->maps[i];
			/* pairs with the release store that publishes a slot */
			size_t len = __atomic_load_n(&m->len, __ATOMIC_ACQUIRE);
			/* read once: the offset below must use the start checked */
			uintptr_t start = __atomic_load_n(&m->start, __ATOMIC_RELAXED);

			if (!len || a < start || a - start >= len)
				continue;
			/*
			 * Another owner's slot: look on.  Mappings do not
			 * overlap, so for a stable table this ends in
			 * guard_die() as a break would; but the main thread
			 * may be re-using this slot right now (a pump thread
			 * faults while another connection registers its
			 * memory), and start and owner can then be the new
			 * ones under the old length: a break would kill the
			 * daemon for a fault its own slot covers.
			 */
			if (m->owner != s->owner)
				continue;
			s->fault.sig = sig;
			s->fault.code = si->si_code;
			s->fault.index = m->index;
			s->fault.offset = a - start;
			s->fault.size = len;
			guard_cur = s->prev;
			siglongjmp(s->jb, 1);
		}
	}
	guard_die(sig, si);
}

/**
 * guard_init() - install the SIGBUS and SIGSEGV handlers
 * @err: message buffer
 * @errlen: its size
 *
 * Return: 0, or -1 with @err filled.
 */
int guard_init(char *err, size_t errlen)
{
	static const int sigs[] = { SIGBUS, SIGSEGV };
	struct sigaction sa;
	unsigned int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, NULL) < 0) {
			snprintf(err, errlen, "sigaction(%s): %s", strsignal(sigs[i]),
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/**
 * guard_grow() - replace the table by one with twice the slots (or the first)
 *
 * The copy is complete before it is published; the old table stays
 * readable (see the top of this file).
 * Return: the new table, or NULL when out of memory (nothing changed).
 */
static struct guard_table *guard_grow(void)
{
	struct guard_table *old = guard_tab, *t;
	unsigned int num = old ? 2 * old->num : GUARD_FIRST_MAPS;

	t = calloc(1, sizeof(*t) + (size_t)num * sizeof(t->maps[0]));
	if (!t)
		return NULL;
	t->num = num;
	t->old = old;
	if (old)
		memcpy(t->maps, old->maps, old->num * sizeof(old->maps[0]));
	__atomic_store_n(&guard_tab, t, __ATOMIC_RELEASE);
	return t;
}

/**
 * guard_map_add() - register a mapping of front-end memory
 * @start: its first byte
 * @len: its length (> 0)
 * @owner: the connection it belongs to
 * @index: the owner's number for it (reported in a fault)
 *
 * Called outside guarded scopes only.  The table grows when it is full.
 * Return: 0, -EINVAL for an empty one, or -ENOMEM when the table cannot grow.
 */
int guard_map_add(const void *start, size_t len, const void *owner, unsigned int index)
{
	struct guard_table *t = guard_tab;
	unsigned int i = 0;

	if (!len)
		return -EINVAL;
	if (t)
		for (i = 0; i < t->num && t->maps[i].len; i++)
			;
	if (!t || i == t->num) {
		t = guard_grow();
		if (!t)
			return -ENOMEM;
	}
	t->maps[i].start = (uintptr_t)start;
	t->maps[i].owner = owner;
	t->maps[i].index = index;
	__atomic_store_n(&t->maps[i].len, len, __ATOMIC_RELEASE);
	return 0;
}

/**
 * guard_map_del() - forget a mapping (before it is unmapped)
 * @start: its first byte, as given to guard_map_add(); unknown: nothing
 */
void guard_map_del(const void *start)
{
	struct guard_table *t = guard_tab;
	unsigned int i;

	for (i = 0; t && i < t->num; i++) {
		struct guard_map *m = &t->maps[i];

		if (m->len && m->start == (uintptr_t)start) {
			__atomic_store_n(&m->len, 0, __ATOMIC_RELEASE);
			return;
		}
	}
}

/**
 * guard_enter() - open a scope; the caller does sigsetjmp(@s->jb, 0) next
 * @s: the scope (on the caller's stack, alive until guard_leave())
 * @owner: whose mappings the code in the scope touches
 */
void guard_enter(struct guard_scope *s, const void *owner)
{
	memset(&s->fault, 0, sizeof(s->fault));
	s->owner = owner;
	s->prev = guard_cur;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_cur = s;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/**
 * guard_leave() - close a scope that did not fault
 * @s: the innermost scope
 */
void guard_leave(struct guard_scope *s)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_cur = s->prev;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/**
 * guard_fault_str() - a fault in words, for a log line
 * @f: the fault
 * @buf: output
 * @len: its size
 *
 * Return: @buf, e.g. "SIGBUS (address not backed by the file) at offset
 * 0x1000 of 0x40000000".
 */
const char *guard_fault_str(const struct guard_fault *f, char *buf, size_t len)
{
	const char *what = "";

	if (f->sig == SIGBUS && f->code == BUS_ADRERR)
		what = " (page beyond the end of the file, or no page to back it)";
	else if (f->sig == SIGBUS)
		what = " (memory error)";
	else if (f->sig == SIGSEGV)
		what = " (address not mapped or not accessible)";
	snprintf(buf, len, "%s%s at offset 0x%llx of 0x%llx",
		 f->sig == SIGBUS ? "SIGBUS" : f->sig == SIGSEGV ? "SIGSEGV" : "signal",
		 what, (unsigned long long)f->offset, (unsigned long long)f->size);
	return buf;
}
