// SPDX-License-Identifier: GPL-2.0
/*
 * movable_pool: driver pages that compaction, CMA and offlining may migrate.
 *
 * Locking, written once:
 *
 *	+- page lock        VM around isolate/migrate/putback; the library
 *	|                   around alloc, free, destroy and fault insertion
 *	|  +- driver lock   taken by the driver's migrate routine (sync modes)
 *	|     +- pool->lock spinlock, irq-safe: the page list, every page's
 *	|                   word (pin count and state bits), and the counters
 *
 * movable_pool_take_pages() tries page locks under pool->lock, against the
 * order above: it only tries them, never waits.
 *
 * Nothing is allocated per page: what the library knows of a page lives in
 * its struct page (see mp_page_word() and the header for the layout).
 * - ->mapping leads to the pool (mp_page_pool()) and ->private holds the
 *   owner; both change only under the page lock, so code that holds the
 *   page lock sees them stable.
 * - ->lru links the page into pool->pages while the VM does not hold it
 *   isolated; isolate takes it off, putback and migration put it (or its
 *   successor) back, all under pool->lock.
 * - Pin/unpin run without the page lock, possibly in atomic context. They
 *   rely on the driver's promise (see the header) that it read the page
 *   from its own tables under the lock its routine takes, and re-check
 *   under pool->lock that the page is still the pool's.
 * - Pinned pages are never isolated; MP_MIGRATING is set (under pool->lock)
 *   only with a zero pin count, and pin fails with -EAGAIN while it is set.
 *   So the routine never runs on a page a device or the CPU is using.
 * - A page the driver frees while the VM holds it isolated stays attached,
 *   marked MP_FREED, until the VM hands it back through putback or migrate,
 *   which detach it and drop the pool's reference.
 * - Teardown refuses new isolations and migrations, waits until the VM has
 *   handed back every isolated page (zsmalloc learnt to do the same), then
 *   detaches the pages left on the list under their page locks.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/movable_pool.h>
#include <linux/pagemap.h>
#include <linux/pseudo_fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#define MP_VM_CALLBACKS	/* defined below, adapted per kernel */
#include "movable_pool_compat.h"

#define CREATE_TRACE_POINTS
#include <trace/events/movable_pool.h>

#define MOVABLE_POOL_MAGIC	0x6d706f6f	/* "mpoo" */

/* A page's word: its index, then its pin count, then three state bits. */
#define MP_INDEX	GENMASK(MOVABLE_POOL_INDEX_BITS - 1, 0)
#define MP_PINS		GENMASK(BITS_PER_LONG - 4, MOVABLE_POOL_INDEX_BITS)
#define MP_FREED	BIT(BITS_PER_LONG - 3)	/* freed while isolated */
#define MP_MIGRATING	BIT(BITS_PER_LONG - 2)	/* the routine may run */
#define MP_ISOLATED	BIT(BITS_PER_LONG - 1)	/* the VM holds the page */
#define MP_ONE_PIN	BIT(MOVABLE_POOL_INDEX_BITS)

struct movable_pool {
	struct mp_vm vm;		/* how pages lead back here */
	spinlock_t lock;		/* see the top of this file */
	struct list_head pages;		/* through page->lru, not isolated */
	bool dying;
	wait_queue_head_t drained;	/* destroy waits for isolated pages */
	struct movable_pool_stats stats;
	const struct movable_pool_ops *ops;
	void *priv;
	const char *name;
	unsigned int id;		/* in debugfs and trace events */
	struct inode *inode;
	struct dentry *debugfs;
};

static struct dentry *mp_debugfs_root;
static struct vfsmount *mp_mnt;
static int mp_mnt_count;
static atomic_t mp_pool_ids = ATOMIC_INIT(0);

#define mp_misuse(fmt, ...) \
	WARN_ONCE(1, KBUILD_MODNAME ": misuse: " fmt, ##__VA_ARGS__)

/*
 * The pool a page belongs to, or NULL for any other page and for a page
 * the driver freed while the VM held it isolated.
 */
static struct movable_pool *mp_page_pool(struct page *page)
{
	struct movable_pool *pool = mp_vm_pool(page);

	if (pool && (READ_ONCE(*mp_page_word(page)) & MP_FREED))
		return NULL;
	return pool;
}

/* Make @page (locked, fresh or just migrated to) a page of @pool. */
static void mp_attach(struct movable_pool *pool, struct page *page,
		      void *owner, pgoff_t index)
{
	VM_WARN_ON_ONCE_PAGE(!PageLocked(page), page);
	set_page_private(page, (unsigned long)owner);
	*mp_page_word(page) = index;
	mp_vm_attach(page, &pool->vm);
}

/* Undo mp_attach(): @page (locked) no longer refers to any pool. */
static void mp_detach(struct page *page)
{
	VM_WARN_ON_ONCE_PAGE(!PageLocked(page), page);
	mp_vm_detach(page);
	set_page_private(page, 0);
	*mp_page_word(page) = 0;
}

static unsigned long mp_pins(unsigned long word)
{
	return FIELD_GET(MP_PINS, word);
}

/* Destroy may be waiting for the last isolated page to come back. */
static void mp_isolated_dec(struct movable_pool *pool)
{
	lockdep_assert_held(&pool->lock);

	pool->stats.isolated--;
	if (pool->dying && !pool->stats.isolated)
		wake_up(&pool->drained);
}

/*
 * Take @page (locked) off @pool's books. Returns its pin count, which is a
 * driver bug when non-zero. A page the VM holds isolated stays attached,
 * marked MP_FREED, until the VM hands it back: 7.x calls putback or migrate
 * on it whatever its owner did, and on older kernels this costs nothing.
 */
static unsigned long mp_forget(struct movable_pool *pool, struct page *page)
{
	unsigned long *word = mp_page_word(page);
	unsigned long pins = mp_pins(*word);

	lockdep_assert_held(&pool->lock);
	if (*word & MP_ISOLATED) {
		*word |= MP_FREED;	/* the VM owns ->lru */
		pool->stats.freed_isolated++;
	} else {
		list_del(&page->lru);
	}
	if (pins)
		pool->stats.pinned--;
	pool->stats.pages--;
	pool->stats.freed++;
	return pins;
}

/*
 * Take @page (locked) out of @pool. Returns as mp_forget(); *@now says
 * whether the page was detached and the caller must drop the pool's
 * reference (otherwise the VM's handback does both).
 */
static unsigned long mp_release(struct movable_pool *pool, struct page *page,
				bool *now)
{
	unsigned long flags, pins;

	spin_lock_irqsave(&pool->lock, flags);
	pins = mp_forget(pool, page);
	*now = !(*mp_page_word(page) & MP_FREED);
	spin_unlock_irqrestore(&pool->lock, flags);
	if (*now)
		mp_detach(page);
	return pins;
}

/*
 * The VM hands back @page (locked), which the driver freed while it was
 * isolated: detach it and drop the pool's reference; the VM frees it.
 * Returns false for any other page.
 */
static bool mp_handback_freed(struct movable_pool *pool, struct page *page)
{
	unsigned long flags;

	/* MP_FREED is set under the page lock, which we hold */
	if (!(READ_ONCE(*mp_page_word(page)) & MP_FREED))
		return false;
	/* detach first: once the count drops, destroy may free the pool */
	mp_detach(page);
	spin_lock_irqsave(&pool->lock, flags);
	mp_isolated_dec(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	put_page(page);
	return true;
}

static bool mp_isolate_page(struct page *page, isolate_mode_t mode)
{
	struct movable_pool *pool = mp_page_pool(page);
	unsigned long *word = mp_page_word(page);
	unsigned long flags;
	int result = 0;

	/* on 7.x a detached page keeps its type until it is freed */
	if (!pool)
		return false;
	spin_lock_irqsave(&pool->lock, flags);
	if (pool->dying) {
		/* destroy is detaching pages: leave them alone */
		result = -ENODEV;
	} else if (mp_pins(*word)) {
		pool->stats.pin_refused++;
		result = -EBUSY;
	} else {
		*word |= MP_ISOLATED;
		list_del(&page->lru);	/* the VM links it into its own list */
		pool->stats.isolated++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	trace_movable_pool_isolate(pool->id, page_to_pfn(page), result);
	return !result;
}

static void mp_putback_page(struct page *page)
{
	struct movable_pool *pool = mp_vm_pool(page);
	unsigned long flags;

	if (mp_handback_freed(pool, page))
		return;
	spin_lock_irqsave(&pool->lock, flags);
	*mp_page_word(page) &= ~MP_ISOLATED;
	list_add_tail(&page->lru, &pool->pages);
	pool->stats.putback++;
	mp_isolated_dec(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	trace_movable_pool_putback(pool->id, page_to_pfn(page));
}

/*
 * Zapping takes i_mmap_rwsem. Async callers must not wait for it, so they
 * only go ahead while nobody holds it; a writer slipping in between costs
 * a short wait, never a deadlock.
 */
static bool mp_may_zap(struct address_space *mapping, enum migrate_mode mode)
{
	if (mode != MIGRATE_ASYNC || !mapping_mapped(mapping))
		return true;
	return mp_i_mmap_idle(mapping);
}

/* Enter MP_MIGRATING, or count a failed attempt and say why not. */
static int mp_begin_migration(struct movable_pool *pool, struct page *src,
			      enum migrate_mode mode)
{
	bool may_zap = mp_may_zap(pool->inode->i_mapping, mode);
	unsigned long *word = mp_page_word(src);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&pool->lock, flags);
	if (mp_mode_unsupported(mode))
		ret = -EINVAL;
	else if (pool->dying)
		ret = -ENODEV;	/* not -EAGAIN: hand it back to destroy now */
	else if (mp_pins(*word) || !may_zap)
		ret = -EAGAIN;

	if (ret) {
		pool->stats.migrate_failed++;
	} else {
		*word |= MP_MIGRATING;
		pool->stats.migrating++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return ret;
}

/* Leave MP_MIGRATING; on success @dst takes @src's place in the pool. */
static void mp_end_migration(struct movable_pool *pool, struct page *dst,
			     struct page *src, int rc)
{
	unsigned long flags, dst_pins = 0;

	spin_lock_irqsave(&pool->lock, flags);
	*mp_page_word(src) &= ~MP_MIGRATING;
	pool->stats.migrating--;
	if (rc) {
		pool->stats.migrate_failed++;
		if (rc == -EAGAIN)
			pool->stats.routine_busy++;
		else
			pool->stats.routine_failed++;
		dst_pins = mp_pins(*mp_page_word(dst));
		if (dst_pins)
			pool->stats.pinned--;
	} else {
		/* the core clears PG_isolated itself; no putback follows */
		list_add_tail(&dst->lru, &pool->pages);
		pool->stats.migrated++;
		mp_isolated_dec(pool);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (dst_pins)
		mp_misuse("%s: routine failed with page %lx pinned\n",
			  pool->name, page_to_pfn(dst));
}

/* In MP_MIGRATING: zap, run the driver's routine, hand the page over. */
static int mp_move(struct movable_pool *pool, struct page *dst,
		   struct page *src, enum migrate_mode mode)
{
	struct address_space *mapping = pool->inode->i_mapping;
	pgoff_t index = FIELD_GET(MP_INDEX, *mp_page_word(src));
	void *owner = (void *)page_private(src);
	int rc;

	/*
	 * Zap under the src page lock: a racing fault then blocks in
	 * movable_pool_insert_pfn() until we are done, and sees the page gone.
	 * A mapping created after the check has no PTE for src: it could only
	 * get one through that same fault path.
	 */
	if (mapping_mapped(mapping))
		unmap_mapping_range(mapping, (loff_t)index << PAGE_SHIFT,
				    PAGE_SIZE, 1);

	/* dst is ours before the routine publishes it, so pins see it */
	mp_attach(pool, dst, owner, index);
	rc = pool->ops->migrate(pool, owner, index, dst, src, mode);
	if (WARN_ONCE(rc > 0, KBUILD_MODNAME ": %s: migrate returned %d\n",
		      pool->name, rc))
		rc = -EINVAL;
	if (rc) {
		mp_end_migration(pool, dst, src, rc);
		mp_detach(dst);
	} else {
		get_page(dst);
		/* before leaving MP_MIGRATING: a late pin then finds src gone */
		mp_detach(src);
		mp_end_migration(pool, dst, src, rc);
	}
	return rc;
}

static int mp_migrate_page(struct page *dst, struct page *src,
			   enum migrate_mode mode)
{
	struct movable_pool *pool = mp_vm_pool(src);
	int rc;

	/* nothing to move; the core frees both pages */
	if (mp_handback_freed(pool, src))
		return 0;
	rc = mp_begin_migration(pool, src, mode);
	if (!rc)
		rc = mp_move(pool, dst, src, mode);
	trace_movable_pool_migrate(pool->id, page_to_pfn(src), page_to_pfn(dst),
				   mode, rc);
	if (!rc)
		put_page(src);	/* the pool's reference, now on dst */
	return rc;	/* 0 is MIGRATEPAGE_SUCCESS, where that still exists */
}

/* 0 if @nr pages with indices from @index on may be allocated, or why not. */
static int mp_check_alloc(struct movable_pool *pool, gfp_t gfp,
			  pgoff_t index, unsigned int nr)
{
	/* order-0 only; memcg charges do not follow non-LRU pages that move */
	if (!pool || (gfp & (__GFP_ACCOUNT | __GFP_COMP)) || !nr ||
	    index > MOVABLE_POOL_MAX_INDEX ||
	    nr - 1 > MOVABLE_POOL_MAX_INDEX - index)
		return -EINVAL;
	if (READ_ONCE(pool->dying))
		return -ENODEV;
	return 0;
}

/*
 * Lock fresh pages without atomics (isolate_movable_page() leaves the lock
 * of a page that is not movable yet alone, as the page cache relies on for
 * new folios), make them the pool's, and list them in one go.
 */
static void mp_add_fresh(struct movable_pool *pool, struct page **pages,
			 unsigned int nr, void *owner, pgoff_t index)
{
	unsigned long flags;
	unsigned int i;
	LIST_HEAD(list);

	for (i = 0; i < nr; i++) {
		__SetPageLocked(pages[i]);
		mp_attach(pool, pages[i], owner, index + i);
		list_add_tail(&pages[i]->lru, &list);
	}
	spin_lock_irqsave(&pool->lock, flags);
	list_splice_tail(&list, &pool->pages);
	pool->stats.pages += nr;
	pool->stats.allocated += nr;
	spin_unlock_irqrestore(&pool->lock, flags);
	for (i = 0; i < nr; i++)
		unlock_page(pages[i]);
}

/**
 * movable_pool_alloc_page() - allocate a movable page for the driver
 * @pool: the pool
 * @gfp: allocation flags; __GFP_MOVABLE is always added (see
 *	%MOVABLE_POOL_GFP). __GFP_ACCOUNT is refused: memcg charges do not
 *	follow non-LRU pages when they migrate.
 * @owner: driver cookie handed back to the migrate routine
 * @index: driver index handed back to the migrate routine; also the page's
 *	offset in movable_pool_mapping() if the driver maps it to userspace.
 *	At most %MOVABLE_POOL_MAX_INDEX.
 *
 * The page has one reference, owned by the pool, and may be migrated as
 * soon as this returns unless the driver pins it. The library keeps what
 * it knows of the page in its struct page; nothing else is allocated.
 *
 * Context: any context @gfp allows.
 * Return: the page; ERR_PTR(-EINVAL) for a NULL @pool, unsupported @gfp
 * flags or an @index above %MOVABLE_POOL_MAX_INDEX, ERR_PTR(-ENODEV) if the
 * pool is being destroyed, ERR_PTR(-ENOMEM) if memory is short.
 */
struct page *movable_pool_alloc_page(struct movable_pool *pool, gfp_t gfp,
				     void *owner, pgoff_t index)
{
	struct page *page;
	int ret;

	ret = mp_check_alloc(pool, gfp, index, 1);
	if (ret)
		return ERR_PTR(ret);
	page = alloc_page(gfp | __GFP_MOVABLE);
	if (!page)
		return ERR_PTR(-ENOMEM);
	mp_add_fresh(pool, &page, 1, owner, index);
	return page;
}
EXPORT_SYMBOL_GPL(movable_pool_alloc_page);

/**
 * movable_pool_alloc_pages() - allocate several movable pages at once
 * @pool: the pool
 * @gfp: allocation flags, as for movable_pool_alloc_page()
 * @owner: driver cookie handed back to the migrate routine for every page
 * @index: index of the first page; page i gets @index + i
 * @nr: how many pages, at least 1
 * @pages: filled with the pages
 *
 * The same as @nr calls of movable_pool_alloc_page(), for less: the pages
 * come from the bulk allocator and join the pool under one lock.
 *
 * Context: any context @gfp allows.
 * Return: 0 with all @nr pages allocated, or an errno as for
 * movable_pool_alloc_page() (-EINVAL also for @nr == 0 or an index range
 * past %MOVABLE_POOL_MAX_INDEX) with none allocated.
 */
int movable_pool_alloc_pages(struct movable_pool *pool, gfp_t gfp,
			     void *owner, pgoff_t index, unsigned int nr,
			     struct page **pages)
{
	unsigned int i;
	int ret;

	ret = mp_check_alloc(pool, gfp, index, nr);
	if (ret)
		return ret;
	gfp |= __GFP_MOVABLE;
	memset(pages, 0, nr * sizeof(*pages));
	/* the bulk allocator may stop early; it fills from the front */
	for (i = mp_alloc_pages_bulk(gfp, nr, pages); i < nr; i++) {
		pages[i] = alloc_page(gfp);
		if (!pages[i]) {
			while (i--)
				__free_page(pages[i]);
			return -ENOMEM;
		}
	}
	mp_add_fresh(pool, pages, nr, owner, index);
	return 0;
}
EXPORT_SYMBOL_GPL(movable_pool_alloc_pages);

/**
 * movable_pool_free_page() - free a page allocated from @pool
 * @pool: the pool the page came from
 * @page: the page; the one the migrate routine installed if it moved
 *
 * Safe while the VM has the page isolated: the VM then frees it. The driver
 * must have dropped the page from its tables first, and must not hold the
 * lock its migrate routine takes. Freeing a pinned page, a page of another
 * pool, or a page twice is reported once with a warning.
 *
 * Context: process context; may sleep.
 */
void movable_pool_free_page(struct movable_pool *pool, struct page *page)
{
	unsigned long pins = 0;
	bool ours, now = false;

	if (!pool || !page)
		return;

	lock_page(page);
	ours = mp_page_pool(page) == pool;
	if (ours)
		pins = mp_release(pool, page, &now);
	unlock_page(page);

	if (!ours) {
		mp_misuse("%s: freeing page %lx that is not in this pool\n",
			  pool->name, page_to_pfn(page));
		return;
	}
	if (pins)
		mp_misuse("%s: freeing page %lx pinned %lu times\n",
			  pool->name, page_to_pfn(page), pins);
	if (now)
		put_page(page);
}
EXPORT_SYMBOL_GPL(movable_pool_free_page);

/**
 * movable_pool_free_pages() - free several pages of @pool at once
 * @pool: the pool the pages came from
 * @pages: the pages; on return the array's contents are undefined
 * @nr: how many
 *
 * The same as movable_pool_free_page() on each page, for less: pages that
 * nobody else has locked leave the pool under one lock and go back to the
 * page allocator together.
 *
 * Context: process context; may sleep.
 */
void movable_pool_free_pages(struct movable_pool *pool, struct page **pages,
			     unsigned int nr)
{
	unsigned int i, n = 0;
	unsigned long flags;
	struct page *page;

	if (!pool)
		return;
	/* the pages we can lock at once gather at the front of the array */
	for (i = 0; i < nr; i++) {
		page = pages[i];
		if (!page || !trylock_page(page))
			continue;
		/* isolated ones wait for the VM: the slow path below */
		if (mp_page_pool(page) == pool &&
		    !(*mp_page_word(page) & (MP_PINS | MP_ISOLATED))) {
			pages[i] = pages[n];
			pages[n++] = page;
		} else {
			unlock_page(page);
		}
	}
	if (n) {
		spin_lock_irqsave(&pool->lock, flags);
		for (i = 0; i < n; i++)
			mp_forget(pool, pages[i]);
		spin_unlock_irqrestore(&pool->lock, flags);
		for (i = 0; i < n; i++) {
			mp_detach(pages[i]);
			unlock_page(pages[i]);
		}
		release_pages(pages, n);
	}
	/*
	 * Then, holding no page lock (never wait for one while holding
	 * others), pages the migration core is busy with and pages to warn
	 * about, one by one.
	 */
	for (i = n; i < nr; i++)
		movable_pool_free_page(pool, pages[i]);
}
EXPORT_SYMBOL_GPL(movable_pool_free_pages);

/**
 * movable_pool_take_pages() - take some pages, whichever, out of @pool
 * @pool: the pool
 * @nr: how many at most
 * @pages: room for @nr pages
 *
 * For drivers that want pages back but no page in particular, such as a
 * balloon returning memory to its guest: with this they need no table of
 * their pages at all. Takes up to @nr pages that are neither pinned, nor
 * held by the VM, nor locked by anyone. They leave the pool (and count as
 * freed), the migrate routine is never called for them again, and their
 * user mappings in the pool's address_space are zapped. They are plain
 * pages then, the caller's to free with __free_page().
 *
 * Pages are only tried, never waited for, so the caller may hold the lock
 * its migrate routine takes. A driver that pins or otherwise uses pages of
 * the pool must not take them while it does.
 *
 * Context: process context; may sleep (only when pages are user-mapped).
 * Return: how many pages were taken and stored at the front of @pages.
 */
unsigned int movable_pool_take_pages(struct movable_pool *pool,
				     unsigned int nr, struct page **pages)
{
	struct address_space *mapping;
	struct page *page, *next;
	unsigned int i, n = 0;
	unsigned long flags;
	pgoff_t index;

	if (!pool || !pages)
		return 0;
	spin_lock_irqsave(&pool->lock, flags);
	list_for_each_entry_safe(page, next, &pool->pages, lru) {
		if (n == nr)
			break;
		/* only tried: the page lock ranks above ours (see the top) */
		if ((*mp_page_word(page) & MP_PINS) || !trylock_page(page))
			continue;
		mp_forget(pool, page);
		pages[n++] = page;
	}
	spin_unlock_irqrestore(&pool->lock, flags);

	mapping = pool->inode->i_mapping;
	for (i = 0; i < n; i++) {
		page = pages[i];
		/* a racing fault waits for the page lock, then finds no page */
		if (mapping_mapped(mapping)) {
			index = FIELD_GET(MP_INDEX, *mp_page_word(page));
			unmap_mapping_range(mapping, (loff_t)index << PAGE_SHIFT,
					    PAGE_SIZE, 1);
		}
		mp_detach(page);
		unlock_page(page);
	}
	return n;
}
EXPORT_SYMBOL_GPL(movable_pool_take_pages);

/**
 * movable_pool_pin() - keep a page where it is while it is in use
 * @page: a pool page, read from the driver's tables under the lock its
 *	migrate routine takes
 *
 * A pinned page refuses isolation, and an isolated page that gets pinned
 * fails migration with -EAGAIN and is put back. Pins nest, up to
 * %MOVABLE_POOL_MAX_PINS deep.
 *
 * Context: any context, including hard interrupts; never sleeps.
 * Return: 0 when pinned; -EAGAIN if the page is being migrated right now or
 * has just moved (drop your locks, re-read your reference, retry); -EINVAL
 * if @page is not a pool page; -EBUSY if it is pinned too deep already.
 */
int movable_pool_pin(struct page *page)
{
	struct movable_pool *pool = page ? mp_page_pool(page) : NULL;
	unsigned long *word, flags;
	int ret = 0;

	if (!pool) {
		mp_misuse("pinning a page that is not in a pool\n");
		return -EINVAL;
	}
	word = mp_page_word(page);
	spin_lock_irqsave(&pool->lock, flags);
	if (mp_page_pool(page) != pool || (*word & MP_MIGRATING)) {
		pool->stats.pin_busy++;
		ret = -EAGAIN;
	} else if (mp_pins(*word) == MOVABLE_POOL_MAX_PINS) {
		ret = -EBUSY;
	} else {
		if (!mp_pins(*word))
			pool->stats.pinned++;
		*word += MP_ONE_PIN;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (ret == -EAGAIN)
		trace_movable_pool_pin_busy(pool->id, page_to_pfn(page));
	if (ret == -EBUSY)
		mp_misuse("%s: page %lx pinned %lu times\n", pool->name,
			  page_to_pfn(page), MOVABLE_POOL_MAX_PINS);
	return ret;
}
EXPORT_SYMBOL_GPL(movable_pool_pin);

/**
 * movable_pool_unpin() - drop a pin taken by movable_pool_pin()
 * @page: the pinned page
 *
 * Context: any context, including hard interrupts; never sleeps.
 */
void movable_pool_unpin(struct page *page)
{
	struct movable_pool *pool = page ? mp_page_pool(page) : NULL;
	unsigned long *word, flags;
	bool underflow = false;

	if (!pool) {
		mp_misuse("unpinning a page that is not in a pool\n");
		return;
	}
	word = mp_page_word(page);
	spin_lock_irqsave(&pool->lock, flags);
	if (mp_page_pool(page) != pool || !mp_pins(*word)) {
		underflow = true;
	} else {
		*word -= MP_ONE_PIN;
		if (!mp_pins(*word))
			pool->stats.pinned--;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (underflow)
		mp_misuse("%s: unpin of page %lx without a pin\n", pool->name,
			  page_to_pfn(page));
}
EXPORT_SYMBOL_GPL(movable_pool_unpin);

/**
 * movable_pool_copy_page() - copy a page's contents for a migrate routine
 * @dst: destination page
 * @src: source page
 *
 * Context: any context; highmem pages are mapped temporarily.
 */
void movable_pool_copy_page(struct page *dst, struct page *src)
{
	copy_highpage(dst, src);
}
EXPORT_SYMBOL_GPL(movable_pool_copy_page);

/**
 * movable_pool_insert_pfn() - map a pool page from a driver's fault handler
 * @pool: the pool whose address_space backs the faulting VMA
 * @vmf: the fault; the VMA must be %VM_PFNMAP and its file's f_mapping must
 *	be movable_pool_mapping(@pool)
 * @page: the page the driver looked up, with a reference the caller holds
 *	and drops after this returns
 *
 * Call it without the lock your migrate routine takes. If @page was
 * migrated after the driver looked it up, nothing is mapped and the access
 * faults again, so the driver looks up the new page.
 *
 * Context: page fault handler; may sleep.
 * Return: %VM_FAULT_NOPAGE, or %VM_FAULT_SIGBUS on misuse or failure.
 */
vm_fault_t movable_pool_insert_pfn(struct movable_pool *pool,
				   struct vm_fault *vmf, struct page *page)
{
	struct vm_area_struct *vma = vmf->vma;
	vm_fault_t ret = VM_FAULT_NOPAGE;

	if (!(vma->vm_flags & VM_PFNMAP) || !vma->vm_file ||
	    vma->vm_file->f_mapping != pool->inode->i_mapping) {
		mp_misuse("%s: fault on a VMA not mapped through the pool\n",
			  pool->name);
		return VM_FAULT_SIGBUS;
	}

	/* the page lock orders us against mp_migrate_page()'s zap */
	lock_page(page);
	if (mp_page_pool(page) == pool)
		ret = vmf_insert_pfn(vma, vmf->address, page_to_pfn(page));
	unlock_page(page);
	return ret;
}
EXPORT_SYMBOL_GPL(movable_pool_insert_pfn);

static int mp_stats_show(struct seq_file *m, void *unused)
{
	struct movable_pool_stats s;

	movable_pool_get_stats(m->private, &s);
	seq_printf(m, "pages %lu\npinned %lu\nisolated %lu\nmigrating %lu\n",
		   s.pages, s.pinned, s.isolated, s.migrating);
	seq_printf(m, "allocated %lu\nfreed %lu\nmigrated %lu\n",
		   s.allocated, s.freed, s.migrated);
	seq_printf(m, "migrate_failed %lu\nputback %lu\npin_refused %lu\n",
		   s.migrate_failed, s.putback, s.pin_refused);
	seq_printf(m, "pin_busy %lu\nroutine_busy %lu\nroutine_failed %lu\n",
		   s.pin_busy, s.routine_busy, s.routine_failed);
	seq_printf(m, "freed_isolated %lu\n", s.freed_isolated);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mp_stats);

static int mp_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, MOVABLE_POOL_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type mp_fs_type = {
	.name		 = "movable_pool",
	.owner		 = THIS_MODULE,
	.init_fs_context = mp_init_fs_context,
	.kill_sb	 = kill_anon_super,
};

/* An inode on our pseudo-fs whose address_space drivers map pages through. */
static struct inode *mp_inode_new(void)
{
	struct inode *inode;
	int ret;

	ret = simple_pin_fs(&mp_fs_type, &mp_mnt, &mp_mnt_count);
	if (ret)
		return ERR_PTR(ret);
	inode = alloc_anon_inode(mp_mnt->mnt_sb);
	if (IS_ERR(inode))
		simple_release_fs(&mp_mnt, &mp_mnt_count);
	return inode;
}

static void mp_inode_put(struct inode *inode)
{
	iput(inode);
	simple_release_fs(&mp_mnt, &mp_mnt_count);
}

/**
 * movable_pool_create() - create a pool of movable pages
 * @name: name for debugfs and messages; copied
 * @ops: driver callbacks; must outlive the pool
 * @priv: driver data, returned by movable_pool_priv()
 *
 * Context: process context; may sleep.
 * Return: the pool, ERR_PTR(-EINVAL) if @name is empty or @ops has no
 * migrate routine, ERR_PTR(-ENOMEM) (or another errno from the pseudo-fs)
 * on failure.
 */
struct movable_pool *movable_pool_create(const char *name,
					 const struct movable_pool_ops *ops,
					 void *priv)
{
	struct movable_pool *pool;
	char dirname[64];
	int ret = -ENOMEM;

	if (!name || !*name || !ops || !ops->migrate)
		return ERR_PTR(-EINVAL);

	pool = kzalloc_obj(*pool, GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
	init_waitqueue_head(&pool->drained);
	pool->ops = ops;
	pool->priv = priv;
	pool->name = kstrdup(name, GFP_KERNEL);
	if (!pool->name)
		goto err_free;
	pool->inode = mp_inode_new();
	if (IS_ERR(pool->inode)) {
		ret = PTR_ERR(pool->inode);
		goto err_free;
	}
	mp_vm_init(&pool->vm, pool->inode, pool);

	/* an id keeps directories unique when drivers reuse a name */
	pool->id = atomic_inc_return(&mp_pool_ids);
	snprintf(dirname, sizeof(dirname), "%s-%u", name, pool->id);
	pool->debugfs = debugfs_create_dir(dirname, mp_debugfs_root);
	debugfs_create_file("stats", 0444, pool->debugfs, pool,
			    &mp_stats_fops);
	return pool;

err_free:
	kfree(pool->name);
	kfree(pool);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(movable_pool_create);

/* Get a reference on the first page on the pool's list, or NULL. */
static struct page *mp_first_page(struct movable_pool *pool)
{
	struct page *page;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	page = list_first_entry_or_null(&pool->pages, struct page, lru);
	if (page)
		get_page(page);
	spin_unlock_irqrestore(&pool->lock, flags);
	return page;
}

static bool mp_none_isolated(struct movable_pool *pool)
{
	unsigned long flags;
	bool none;

	/* under the lock: the last waker still holds it while waking us */
	spin_lock_irqsave(&pool->lock, flags);
	none = !pool->stats.isolated;
	spin_unlock_irqrestore(&pool->lock, flags);
	return none;
}

/**
 * movable_pool_destroy() - free a pool
 * @pool: the pool, or NULL
 *
 * Stops new isolations, waits for the VM to hand back the pages it holds
 * isolated (their migration is refused from now on, so that is quick),
 * and frees pages the driver did not free (with a warning: that is a
 * driver bug). No page refers to the pool or this module's code after
 * this returns. The driver must keep what its routine uses alive until
 * then, and must not hold the lock its routine takes.
 *
 * Context: process context; may sleep.
 */
void movable_pool_destroy(struct movable_pool *pool)
{
	unsigned long leaked = 0;
	struct page *page;
	unsigned long flags;
	bool now;

	if (!pool)
		return;

	spin_lock_irqsave(&pool->lock, flags);
	pool->dying = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	wait_event(pool->drained, mp_none_isolated(pool));

	/* every page of the pool is on the list now, and stays there */
	while ((page = mp_first_page(pool))) {
		lock_page(page);
		if (mp_page_pool(page) == pool) {
			mp_release(pool, page, &now);	/* none is isolated */
			put_page(page);
			leaked++;
		}
		unlock_page(page);
		put_page(page);
	}
	if (leaked)
		mp_misuse("%s: destroyed with %lu pages not freed\n",
			  pool->name, leaked);

	debugfs_remove_recursive(pool->debugfs);
	mp_inode_put(pool->inode);
	kfree(pool->name);
	kfree(pool);
}
EXPORT_SYMBOL_GPL(movable_pool_destroy);

/**
 * movable_pool_priv() - the driver data given to movable_pool_create()
 * @pool: the pool
 *
 * Return: the @priv pointer the pool was created with.
 */
void *movable_pool_priv(struct movable_pool *pool)
{
	return pool->priv;
}
EXPORT_SYMBOL_GPL(movable_pool_priv);

/**
 * movable_pool_mapping() - the address_space for user mappings of the pool
 * @pool: the pool
 *
 * Point file->f_mapping at it in the driver's open(); user mappings of the
 * page allocated with index N must then be at file offset N pages, so the
 * library can zap them before the page moves.
 *
 * Return: the pool's address_space.
 */
struct address_space *movable_pool_mapping(struct movable_pool *pool)
{
	return pool->inode->i_mapping;
}
EXPORT_SYMBOL_GPL(movable_pool_mapping);

/**
 * movable_pool_get_stats() - read a pool's counters
 * @pool: the pool
 * @stats: filled with one consistent snapshot
 *
 * Context: any context.
 */
void movable_pool_get_stats(struct movable_pool *pool,
			    struct movable_pool_stats *stats)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	*stats = pool->stats;
	spin_unlock_irqrestore(&pool->lock, flags);
}
EXPORT_SYMBOL_GPL(movable_pool_get_stats);

static int __init movable_pool_init(void)
{
	int ret;

	BUILD_BUG_ON(FIELD_MAX(MP_PINS) != MOVABLE_POOL_MAX_PINS);
	ret = mp_vm_register();
	if (ret) {
		pr_err("cannot register with the migration core: %d\n", ret);
		return ret;
	}
	mp_debugfs_root = debugfs_create_dir("movable_pool", NULL);
	return 0;
}

static void __exit movable_pool_exit(void)
{
	debugfs_remove_recursive(mp_debugfs_root);
	mp_vm_unregister();
}

module_init(movable_pool_init);
module_exit(movable_pool_exit);

MODULE_DESCRIPTION("Movable driver pages: compaction, CMA and offlining can migrate them");
MODULE_LICENSE("GPL");
