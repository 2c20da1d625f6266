// SPDX-License-Identifier: GPL-2.0
/*
 * memfiles.c - a ring's memory held as pages of memory files
 * (VRINGFD_SET_MEM_FILES).
 *
 * Each region names (guest address, size, memfd, offset).  At set-up the
 * module takes a reference on every file and on every page of every region
 * (shmem: shmem_read_mapping_page(), a hole gets a page; hugetlbfs: the
 * region's holes are allocated with vfs_fallocate() as a write to them
 * would, then each huge page is looked up and held once per base page it
 * lends the region), and keeps them in one page array, in base pages;
 * the regions' guest ranges translate (memtable.c) to byte offsets into
 * that array.  The ring parts are mapped into the kernel
 * (vmap()) once.  Walks and copies then use kernel addresses of the held
 * pages (page_address(): 64-bit kernels have no highmem), in any task.
 *
 * Holds: a region's pages are held by a struct vrfd_memfiles_hold, which
 * every table holding the very same pages shares: the rings of one
 * device name the same memory (each of a guest's rings is given the
 * guest's whole table), and charging RLIMIT_MEMLOCK once per ring would
 * count the same pinned pages again for every ring.  A table shares a
 * hold when it has the same inode, offset, page count and charged user,
 * and the pages it looked up are the hold's pages (compared one by one):
 * after a hole was punched the file has new pages, which are held and
 * charged anew.  The holds live in a registry (vrfd_memfiles_holds, under
 * vrfd_memfiles_lock); the last table to let go of a hold dirties and
 * drops its pages and returns its charge.
 *
 * What keeps the memory alive: the page references (a page cannot be freed
 * while held, whatever happens to the file), and F_SEAL_SHRINK (the file
 * cannot be truncated, so a held page is the file's page unless a hole is
 * punched, which swaps in new pages: the module keeps using the old ones).
 * The file references keep the inodes (and their seals) alive.
 *
 * Bad input of vrfd_memfiles_from_user():
 *   nregions 0 or > VRINGFD_MAX_MEM_REGIONS, flags, reserved   -EINVAL
 *   an fd not open                                  -EBADF
 *   neither shmem nor hugetlbfs (a regular file on ext4/9p/overlay, a
 *   sysfs file, a socket)                           -EOPNOTSUPP
 *   an fd not open for reading and writing          -EACCES
 *   shmem or hugetlbfs without F_SEAL_SHRINK (a hugetlbfs file not made
 *   by memfd_create(MFD_HUGETLB | MFD_ALLOW_SEALING) cannot be sealed),
 *   or sealed against writes (F_SEAL_WRITE, F_SEAL_FUTURE_WRITE) -EPERM
 *   offset not page-aligned, size 0, offset + size beyond the file's size,
 *   guest range wrapping, overlapping regions      -EINVAL
 *   a ring part outside one region, or misaligned (guest address, or file
 *   offset)                                         -EINVAL
 *   more than VRINGFD_MAX_MEM_FILE_PAGES pages      -E2BIG
 *   RLIMIT_MEMLOCK exceeded (without CAP_IPC_LOCK)  -ENOMEM
 *   hugetlbfs: no free huge page for a hole         -ENOSPC
 *   hugetlbfs: a hole punched again while set up    -ENXIO
 *   hugetlbfs: a huge page referenced > INT_MAX / 2 -EOVERFLOW
 *   a fatal signal while pages are looked up        -EINTR
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/falloc.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/hashtable.h>
#include <linux/hugetlb.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/vringfd.h>
#include "compat.h"
#include "memtable.h"
#include "memfiles.h"

/*
 * Most bytes vrfd_memfiles_xlate() finds contiguous in one call: 16 pages
 * (a 64 KiB frame in one piece when its pages follow each other, e.g. in a
 * transparent huge page), at most 16 page lookups per call.
 */
#define VRFD_MEMFILES_CONTIG_MAX	(16 * PAGE_SIZE)

#ifdef CONFIG_HIGHMEM
#error "memfiles.c reaches held pages with page_address(): no highmem"
#endif

/**
 * struct vrfd_memfiles_hold - the held pages of one region, shared by the
 * tables that hold the same pages
 * @node: in vrfd_memfiles_holds (under vrfd_memfiles_lock)
 * @inode: the file's inode, a key only: every table sharing the hold holds
 *	a reference on the file
 * @offset: the region's offset in the file (page-aligned)
 * @npages: entries in @pages
 * @user: the user charged in locked_vm for @npages, or NULL (created with
 *	CAP_IPC_LOCK: nothing charged); part of the key
 * @refs: tables holding it (under vrfd_memfiles_lock)
 * @hugetlb: the pages are hugetlbfs pages (never written back: not dirtied)
 * @pages: the region's pages (a reference each; a huge page's base pages
 *	are its folio's, a folio reference each)
 */
struct vrfd_memfiles_hold {
	struct hlist_node node;
	struct inode *inode;
	u64 offset;
	unsigned long npages;
	struct user_struct *user;
	unsigned long refs;
	bool hugetlb;
	struct page **pages;
};

static DEFINE_MUTEX(vrfd_memfiles_lock);
static DEFINE_HASHTABLE(vrfd_memfiles_holds, 8);

/**
 * struct vrfd_memfiles - a validated, held table of memory files
 * @mt: guest address to byte offset into @pages
 * @files: the regions' files (a reference each)
 * @nfiles: entries in @files
 * @nwritable: the first @nwritable of @files count the module as a writable
 *	mapping (mapping_map_writable()), so F_SEAL_WRITE cannot be added
 * @holds: per region, its held pages (a reference each)
 * @nholds: entries in @holds
 * @pages: every page of every region, region after region: the pointers of
 *	@holds' pages, in one array for the translation (no references)
 * @npages: entries in @pages
 * @maps: vmap()s of the ring parts (NULL: not mapped)
 * @parts: kernel addresses of the ring parts inside @maps
 */
struct vrfd_memfiles {
	struct vrfd_memtable *mt;
	struct file **files;
	u32 nfiles;
	u32 nwritable;
	struct vrfd_memfiles_hold **holds;
	u32 nholds;
	struct page **pages;
	unsigned long npages;
	void *maps[VRFD_MEMFILES_NPARTS];
	struct vrfd_memfiles_parts parts;
};

/**
 * struct vrfd_memfiles_span - where one region's pages come from
 * @offset: its offset in its file (page-aligned)
 * @npages: its pages
 */
struct vrfd_memfiles_span {
	u64 offset;
	unsigned long npages;
};

/**
 * vrfd_memfiles_charge() - charge pinned pages to the caller's RLIMIT_MEMLOCK
 * @user: the user to charge (the caller's)
 * @n: pages
 *
 * As io_uring charges its registered buffers: to the user's locked_vm,
 * limited by RLIMIT_MEMLOCK (the caller's CAP_IPC_LOCK is checked by the
 * caller: nothing is charged then).
 * Return: 0, or -ENOMEM (the limit would be exceeded).
 */
static int vrfd_memfiles_charge(struct user_struct *user, unsigned long n)
{
	unsigned long limit, cur, new;

	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	cur = atomic_long_read(&user->locked_vm);
	do {
		new = cur + n;
		if (new > limit || new < cur)
			return -ENOMEM;
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, new));
	return 0;
}

/**
 * vrfd_memfiles_put_pages() - dirty and drop page references
 * @pages: the pages
 * @n: their count
 * @dirty: mark them dirty first (shmem)
 *
 * The module wrote these pages through kernel addresses, which set no
 * dirty bit: shmem pages are marked dirty before being let go, or reclaim
 * could drop a page (clean in the swap cache) with what the module wrote,
 * as unpin_user_pages_dirty_lock() does for pinned user pages.  hugetlbfs
 * pages are neither reclaimed nor written back.
 */
static void vrfd_memfiles_put_pages(struct page **pages, unsigned long n, bool dirty)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (dirty)
			set_page_dirty_lock(pages[i]);
		put_page(pages[i]);
		if (!(i % 512))
			cond_resched();
	}
}

/**
 * vrfd_memfiles_hold_put() - a table lets go of a hold
 * @h: the hold
 *
 * The last one dirties and drops its pages and returns its charge.
 */
static void vrfd_memfiles_hold_put(struct vrfd_memfiles_hold *h)
{
	bool last;

	mutex_lock(&vrfd_memfiles_lock);
	last = !--h->refs;
	if (last)
		hash_del(&h->node);
	mutex_unlock(&vrfd_memfiles_lock);
	if (!last)
		return;
	vrfd_memfiles_put_pages(h->pages, h->npages, !h->hugetlb);
	kvfree(h->pages);
	if (h->user) {
		atomic_long_sub(h->npages, &h->user->locked_vm);
		free_uid(h->user);
	}
	kfree(h);
}

/**
 * vrfd_memfiles_is_hugetlb() - is @file a hugetlbfs file?
 * @file: a file
 *
 * By its file system (hugetlbfs_file_operations is not exported).
 * Return: true for a hugetlbfs file (also an MFD_HUGETLB memfd).
 */
static bool vrfd_memfiles_is_hugetlb(struct file *file)
{
	return IS_ENABLED(CONFIG_HUGETLBFS) &&
	       file_inode(file)->i_sb->s_magic == HUGETLBFS_MAGIC;
}

/**
 * vrfd_memfiles_lookup_shmem() - a reference on each page of a shmem range
 * @file: the shmem file
 * @index: the first page's index
 * @npages: pages
 * @pages: filled in
 * @done: pages looked up (out; on error too)
 *
 * A hole gets a page (shmem_read_mapping_page()).
 * Return: 0, -EINTR (a fatal signal), or shmem's error (-ENOSPC, ...).
 */
static int vrfd_memfiles_lookup_shmem(struct file *file, pgoff_t index, unsigned long npages,
				      struct page **pages, unsigned long *done)
{
	struct page *page;
	unsigned long i;

	for (i = 0; i < npages; i++) {
		*done = i;
		if (fatal_signal_pending(current))
			return -EINTR;
		page = shmem_read_mapping_page(file->f_mapping, index + i);
		if (IS_ERR(page))
			return PTR_ERR(page);
		pages[i] = page;
		cond_resched();
	}
	*done = npages;
	return 0;
}

/**
 * vrfd_memfiles_lookup_hugetlb() - a reference on each base page of a
 * hugetlbfs range
 * @file: the hugetlbfs file
 * @index: the first base page's index
 * @npages: base pages
 * @pages: filled in, base page by base page
 * @done: base pages looked up (out; on error too)
 *
 * The range's holes get huge pages first: vfs_fallocate() (within the
 * file's size) allocates them as a fault would, from the pool, charged to
 * the caller's hugetlb cgroup and placed by the file's memory policy (not
 * by the mbind() of a process that maps it: a front-end should preallocate
 * its memory where it wants it).  Then each huge page is looked up once
 * and referenced once for every base page of it the range uses.
 * Return: 0, -EINTR (a fatal signal; another signal restarts the call),
 * -ENOSPC (the pool has no free huge page), -ENXIO (a hole again: punched
 * while this ran), -EOVERFLOW (a huge page referenced over INT_MAX / 2
 * times), or fallocate's error.
 */
static int vrfd_memfiles_lookup_hugetlb(struct file *file, pgoff_t index, unsigned long npages,
					struct page **pages, unsigned long *done)
{
#ifdef CONFIG_HUGETLBFS
	unsigned long hpages = pages_per_huge_page(hstate_file(file));
	loff_t pos = (loff_t)index << PAGE_SHIFT;
	struct folio *folio;
	unsigned long i, j, n, sub;
	int err;

	*done = 0;
	/* within the file's size: @npages may end in a partial base page */
	err = vfs_fallocate(file, FALLOC_FL_KEEP_SIZE, pos,
			    min_t(loff_t, (loff_t)npages << PAGE_SHIFT,
				  i_size_read(file_inode(file)) - pos));
	if (err == -EINTR && !fatal_signal_pending(current))
		err = -ERESTARTNOINTR;	/* any signal stops it: allocated pages stay */
	if (err)
		return err;
	for (i = 0; i < npages; i += n) {
		*done = i;
		sub = (index + i) & (hpages - 1);
		n = min(hpages - sub, npages - i);
		if (fatal_signal_pending(current))
			return -EINTR;
		folio = vrfd_hugetlb_folio_get(file, (loff_t)(index + i) << PAGE_SHIFT);
		if (!folio)
			return -ENXIO;
		if (WARN_ON_ONCE(folio_nr_pages(folio) != hpages) ||
		    folio_ref_count(folio) > INT_MAX / 2) {
			/* a table adds at most 262144: far from INT_MAX */
			folio_put(folio);
			return -EOVERFLOW;
		}
		/* one reference per base page: the lookup's, and n - 1 more */
		if (n > 1)
			folio_ref_add(folio, n - 1);
		for (j = 0; j < n; j++)
			pages[i + j] = folio_page(folio, sub + j);
		cond_resched();
	}
	*done = npages;
	return 0;
#else
	*done = 0;
	return -EOPNOTSUPP;
#endif
}

/**
 * vrfd_memfiles_hold_get() - the hold of one region's pages: shared with
 * a table that holds the same pages, or new (and charged)
 * @file: the region's file
 * @offset: its offset (page-aligned)
 * @npages: its pages
 * @out: the hold (a reference)
 *
 * The pages are looked up first (a reference each); when a hold of the
 * same inode, offset, size and user holds exactly these pages, those
 * references are dropped and the hold is shared, else they make a new
 * hold, charged to the caller (nothing with CAP_IPC_LOCK).
 * Return: 0, -EINTR (a fatal signal), -ENOMEM (RLIMIT_MEMLOCK, or no
 * memory), or the lookup's error (-ENOSPC, -ENXIO, ...).
 */
static int vrfd_memfiles_hold_get(struct file *file, u64 offset, unsigned long npages,
				  struct vrfd_memfiles_hold **out)
{
	struct inode *inode = file_inode(file);
	pgoff_t index = offset >> PAGE_SHIFT;
	struct user_struct *user = NULL;
	bool hugetlb = vrfd_memfiles_is_hugetlb(file);
	struct vrfd_memfiles_hold *h, *new;
	struct page **pages;
	unsigned long i;
	int err;

	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return -ENOMEM;
	if (hugetlb)
		err = vrfd_memfiles_lookup_hugetlb(file, index, npages, pages, &i);
	else
		err = vrfd_memfiles_lookup_shmem(file, index, npages, pages, &i);
	if (err)
		goto out_pages;
	if (!capable(CAP_IPC_LOCK))
		user = current_user();
	/* allocated before the lock: no reclaim while every caller waits */
	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	mutex_lock(&vrfd_memfiles_lock);
	hash_for_each_possible(vrfd_memfiles_holds, h, node, (unsigned long)inode) {
		if (h->inode != inode || h->offset != offset || h->npages != npages ||
		    h->user != user ||
		    memcmp(h->pages, pages, npages * sizeof(*pages)))
			continue;
		h->refs++;
		mutex_unlock(&vrfd_memfiles_lock);
		kfree(new);
		*out = h;
		goto out_pages;	/* our references go: the hold has them */
	}
	err = -ENOMEM;
	h = new;
	if (!h || (user && vrfd_memfiles_charge(user, npages))) {
		mutex_unlock(&vrfd_memfiles_lock);
		kfree(h);
		goto out_pages;
	}
	h->inode = inode;
	h->offset = offset;
	h->npages = npages;
	h->user = user ? get_uid(user) : NULL;
	h->refs = 1;
	h->hugetlb = hugetlb;
	h->pages = pages;
	hash_add(vrfd_memfiles_holds, &h->node, (unsigned long)inode);
	mutex_unlock(&vrfd_memfiles_lock);
	*out = h;
	return 0;

out_pages:
	vrfd_memfiles_put_pages(pages, i, !hugetlb);
	kvfree(pages);
	return err;
}

/**
 * vrfd_memfiles_free() - release a table: unmap, dirty and drop pages, files,
 * charge
 * @mf: the table, or NULL
 */
void vrfd_memfiles_free(struct vrfd_memfiles *mf)
{
	unsigned long i;

	if (!mf)
		return;
	for (i = 0; i < VRFD_MEMFILES_NPARTS; i++)
		if (mf->maps[i])
			vunmap(mf->maps[i]);
	kvfree(mf->pages);
	/* before the files: a hold's inode is kept by the tables' files */
	for (i = 0; i < mf->nholds; i++)
		vrfd_memfiles_hold_put(mf->holds[i]);
	kfree(mf->holds);
	for (i = 0; i < mf->nwritable; i++)
		mapping_unmap_writable(mf->files[i]->f_mapping);
	for (i = 0; i < mf->nfiles; i++)
		fput(mf->files[i]);
	kfree(mf->files);
	vrfd_memtable_free(mf->mt);
	kfree(mf);
}

/**
 * vrfd_memfiles_check_file() - is @file a memory file the module may hold?
 * @file: the region's file
 * @offset: the region's offset in it
 * @size: the region's size
 *
 * The module writes the pages (rx frames, the used ring), so the fd must be
 * open for reading and writing, and the file may not be sealed against
 * writes (F_SEAL_WRITE, F_SEAL_FUTURE_WRITE): a read-only fd of someone
 * else's memfd (reopened through /proc/PID/fd) gives no right to write it.
 * Return: 0, -EOPNOTSUPP (neither shmem nor hugetlbfs), -EACCES (not open
 * read-write), -EPERM (no F_SEAL_SHRINK, or sealed against writes),
 * -EINVAL (offset not page-aligned, or the region goes beyond the file's
 * size).
 */
static int vrfd_memfiles_check_file(struct file *file, u64 offset, u64 size)
{
	struct inode *inode = file_inode(file);
	unsigned int seals;
	u64 end;

	if (shmem_file(file))
		seals = READ_ONCE(SHMEM_I(inode)->seals);
#ifdef CONFIG_HUGETLBFS
	else if (vrfd_memfiles_is_hugetlb(file))
		seals = READ_ONCE(HUGETLBFS_I(inode)->seals);
#endif
	else
		return -EOPNOTSUPP;
	if ((file->f_mode & (FMODE_READ | FMODE_WRITE)) != (FMODE_READ | FMODE_WRITE))
		return -EACCES;
	/* Seals are only ever added: F_SEAL_SHRINK seen once stays. */
	if (!(seals & F_SEAL_SHRINK) || (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))
		return -EPERM;
	if (!PAGE_ALIGNED(offset) || !size ||
	    check_add_overflow(offset, size, &end) ||
	    end > (u64)i_size_read(inode))
		return -EINVAL;
	return 0;
}

/**
 * vrfd_memfiles_map_part() - map one ring part into the kernel
 * @mf: the table, pages held
 * @i: the part (VRFD_MEMFILES_DESC, ...)
 * @gpa: its guest address
 * @len: its size in bytes
 * @align: its alignment
 *
 * Return: 0, -EINVAL (misaligned, or not inside one region), -ENOMEM.
 */
static int vrfd_memfiles_map_part(struct vrfd_memfiles *mf, unsigned int i,
				  u64 gpa, size_t len, size_t align)
{
	unsigned long first, last;
	u64 off, contig;
	void *map;

	/*
	 * Aligned where the kernel reads it too: a region's guest address
	 * need not be page-aligned, so an aligned @gpa can be misaligned in
	 * the file (and so in the kernel mapping).
	 */
	if (!IS_ALIGNED(gpa, align) ||
	    vrfd_memtable_xlate(mf->mt, gpa, len, &off, &contig) ||
	    contig != len || !IS_ALIGNED(off, align))
		return -EINVAL;
	first = off >> PAGE_SHIFT;
	last = (off + len - 1) >> PAGE_SHIFT;
	map = vmap(&mf->pages[first], last - first + 1, VM_MAP, PAGE_KERNEL);
	if (!map)
		return -ENOMEM;
	mf->maps[i] = map;
	mf->parts.k[i] = map + offset_in_page(off);
	return 0;
}

/**
 * vrfd_memfiles_read_regions() - copy the regions, open their files, build
 * the translation
 * @mf: the new table (its @mt and @files allocated by the caller)
 * @arg: the user's table
 * @n: its number of regions
 * @spans: the regions' file offsets and page counts (out), read once
 * @total: the regions' pages, all together (out)
 *
 * Return: 0 or -errno (see the top of this file).
 */
static int vrfd_memfiles_read_regions(struct vrfd_memfiles *mf,
				      const struct vringfd_mem_files __user *arg,
				      u32 n, struct vrfd_memfiles_span *spans,
				      unsigned long *total)
{
	struct vringfd_mem_file_region ureg;
	struct file *file;
	u32 i;
	int err;

	*total = 0;
	for (i = 0; i < n; i++) {
		if (copy_from_user(&ureg, &arg->regions[i], sizeof(ureg)))
			return -EFAULT;
		if (ureg.reserved)
			return -EINVAL;
		file = fget(ureg.fd);
		if (!file)
			return -EBADF;
		mf->files[mf->nfiles++] = file;
		err = vrfd_memfiles_check_file(file, ureg.offset, ureg.size);
		if (err)
			return err;
		/*
		 * Count as a writable mapping while held: a later F_SEAL_WRITE
		 * then fails with EBUSY (F_SEAL_FUTURE_WRITE cannot be stopped;
		 * it only binds new mappings and write()s, not this holder).
		 * Fails when F_SEAL_WRITE came after the check above.
		 */
		if (mapping_map_writable(file->f_mapping))
			return -EPERM;
		mf->nwritable = mf->nfiles;
		spans[i].offset = ureg.offset;
		spans[i].npages = DIV_ROUND_UP_ULL(ureg.size, PAGE_SIZE);
		if (spans[i].npages > VRINGFD_MAX_MEM_FILE_PAGES - *total)
			return -E2BIG;
		err = vrfd_memtable_set(mf->mt, i, ureg.guest_addr, ureg.size,
					(u64)*total << PAGE_SHIFT);
		if (err)
			return err;
		*total += spans[i].npages;
	}
	return vrfd_memtable_seal(mf->mt);
}

/**
 * vrfd_memfiles_from_user() - copy, check, hold and map a table of memory files
 * @arg: user pointer to struct vringfd_mem_files and its regions
 * @sizes: the ring parts' sizes in bytes, in VRFD_MEMFILES_* order
 *
 * Return: the new table, or ERR_PTR(-errno) (see the top of this file,
 * and -EFAULT, -ENOMEM).
 */
struct vrfd_memfiles *vrfd_memfiles_from_user(const struct vringfd_mem_files __user *arg,
					      const size_t sizes[VRFD_MEMFILES_NPARTS])
{
	static const size_t aligns[VRFD_MEMFILES_NPARTS] = { 16, 2, 4, 2 };
	struct vringfd_mem_files head;
	struct vrfd_memfiles *mf;
	struct vrfd_memfiles_span *spans;
	u64 gpas[VRFD_MEMFILES_NPARTS];
	unsigned long total;
	u32 i;
	int err;

	if (copy_from_user(&head, arg, sizeof(head)))
		return ERR_PTR(-EFAULT);
	if (!head.nregions || head.nregions > VRINGFD_MAX_MEM_REGIONS ||
	    head.flags || head.reserved[0] || head.reserved[1])
		return ERR_PTR(-EINVAL);
	gpas[VRFD_MEMFILES_DESC] = head.desc_addr;
	gpas[VRFD_MEMFILES_AVAIL] = head.avail_addr;
	gpas[VRFD_MEMFILES_USED] = head.used_addr;
	gpas[VRFD_MEMFILES_LAST_USED] = head.last_used_addr;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);
	spans = kcalloc(head.nregions, sizeof(*spans), GFP_KERNEL);
	if (!mf || !spans) {
		kfree(mf);
		kfree(spans);
		return ERR_PTR(-ENOMEM);
	}
	err = -ENOMEM;
	mf->mt = vrfd_memtable_new(head.nregions);
	mf->files = kcalloc(head.nregions, sizeof(*mf->files), GFP_KERNEL_ACCOUNT);
	mf->holds = kcalloc(head.nregions, sizeof(*mf->holds), GFP_KERNEL_ACCOUNT);
	if (!mf->mt || !mf->files || !mf->holds)
		goto err_free;
	err = vrfd_memfiles_read_regions(mf, arg, head.nregions, spans, &total);
	if (err)
		goto err_free;
	err = -ENOMEM;
	mf->pages = kvmalloc_array(total, sizeof(*mf->pages), GFP_KERNEL_ACCOUNT);
	if (!mf->pages)
		goto err_free;
	/* The page array follows the user's order of regions. */
	for (i = 0; i < head.nregions; i++) {
		struct vrfd_memfiles_hold *h;

		err = vrfd_memfiles_hold_get(mf->files[i], spans[i].offset,
					     spans[i].npages, &h);
		if (err)
			goto err_free;
		mf->holds[mf->nholds++] = h;
		memcpy(&mf->pages[mf->npages], h->pages, h->npages * sizeof(*h->pages));
		mf->npages += h->npages;
	}
	for (i = 0; i < VRFD_MEMFILES_NPARTS; i++) {
		err = vrfd_memfiles_map_part(mf, i, gpas[i], sizes[i], aligns[i]);
		if (err)
			goto err_free;
	}
	kfree(spans);
	return mf;

err_free:
	kfree(spans);
	vrfd_memfiles_free(mf);
	return ERR_PTR(err);
}

/**
 * vrfd_memfiles_parts() - kernel addresses of the ring parts
 * @mf: the table
 *
 * Return: the parts, valid as long as @mf.
 */
const struct vrfd_memfiles_parts *vrfd_memfiles_parts(const struct vrfd_memfiles *mf)
{
	return &mf->parts;
}

/**
 * vrfd_memfiles_xlate() - kernel address of a guest buffer's start
 * @mf: the table
 * @addr: guest address
 * @len: the buffer's length
 * @kaddr: kernel address of @addr (out)
 * @contig: bytes contiguous at @kaddr, at most @len (out): up to the end of
 *	the page, or further while the next held pages follow in memory, but
 *	not beyond VRFD_MEMFILES_CONTIG_MAX bytes (so the search is bounded:
 *	a longer buffer is split into more segments, which the walk bounds)
 *
 * Return: 0, or -EFAULT (@addr is outside every region).
 */
int vrfd_memfiles_xlate(const struct vrfd_memfiles *mf, u64 addr, u64 len,
			void **kaddr, u64 *contig)
{
	u64 off, room, n;
	unsigned long i;
	char *p;

	if (vrfd_memtable_xlate(mf->mt, addr, len, &off, &room))
		return -EFAULT;
	room = min_t(u64, room, VRFD_MEMFILES_CONTIG_MAX);
	i = off >> PAGE_SHIFT;
	p = page_address(mf->pages[i]) + offset_in_page(off);
	n = min_t(u64, room, PAGE_SIZE - offset_in_page(off));
	while (n < room &&
	       page_address(mf->pages[i + 1]) == page_address(mf->pages[i]) + PAGE_SIZE) {
		i++;
		n = min_t(u64, room, n + PAGE_SIZE);
	}
	*kaddr = p;
	*contig = n;
	return 0;
}
