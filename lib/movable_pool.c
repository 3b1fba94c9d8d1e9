// SPDX-License-Identifier: GPL-2.0
/*
 * movable_pool: driver pages that compaction, CMA and offlining may migrate.
 *
 * The lock order and the page layout are in include/linux/movable_pool.h
 * ("Lock order", "Page layout"). What this file adds to them:
 *
 * - pool->lock (irq-safe) guards the page list, every published page's
 *   word (pin count and state bits) and the counters.
 *   movable_pool_take_pages() tries page locks under it, against the
 *   order: it only tries them, never waits.
 * - ->mapping and ->private change only under the page lock, and a page
 *   leaves a pool (mp_detach()) under the page lock and pool->lock both,
 *   so pin/unpin, which run without the page lock, see a page either in
 *   the pool with its state or gone.
 * - Pinned pages are never isolated; MP_MIGRATING is set only with a zero
 *   pin count, and pin fails with -EAGAIN while it is set. So the routine
 *   never runs on a page a device or the CPU is using.
 * - A page the driver frees while the VM holds it isolated stays attached,
 *   marked MP_FREED, until the VM hands it back through putback or migrate,
 *   which detach it and drop the pool's reference.
 * - A page the routine drops (MOVABLE_POOL_MIGRATE_DROP) leaves the pool as
 *   the old page of a successful migration does, and the new page as after
 *   a failed one: the VM, told of success, frees both.
 * - Teardown refuses new isolations, migrations and allocations, waits
 *   until the VM has handed back every isolated page (zsmalloc learnt to
 *   do the same), then detaches the pages left on the list.
 * - A page leaves the pool with its user mappings zapped under its page
 *   lock, which movable_pool_insert_pfn() takes before it maps a page.
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
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#define MOVABLE_POOL_MAGIC	0x6d706f6f	/* "mpoo" */

#define MP_VM_CALLBACKS	/* defined below, adapted per kernel */
#include "movable_pool_compat.h"

#define CREATE_TRACE_POINTS
#include <trace/events/movable_pool.h>

/* A page's word: its index, then its pin count, then three state bits. */
#define MP_INDEX	GENMASK(MOVABLE_POOL_INDEX_BITS - 1, 0)
#define MP_PINS		GENMASK(BITS_PER_LONG - 4, MOVABLE_POOL_INDEX_BITS)
#define MP_FREED	BIT(BITS_PER_LONG - 3)	/* freed while isolated */
#define MP_MIGRATING	BIT(BITS_PER_LONG - 2)	/* the routine may run */
#define MP_ISOLATED	BIT(BITS_PER_LONG - 1)	/* the VM holds the page */
#define MP_ONE_PIN	BIT(MOVABLE_POOL_INDEX_BITS)

/* How many busy pages one movable_pool_take_pages() call passes over. */
#define MP_TAKE_SKIP_MAX	64

/* gfp flags a pool page cannot honour (see movable_pool_alloc_page()) */
#define MP_GFP_REFUSED	(__GFP_ACCOUNT | __GFP_COMP | __GFP_DMA | __GFP_DMA32)

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

/* Not inlined: the trace event names the check that called it. */
static noinline void mp_count_misuse(struct movable_pool *pool)
{
	unsigned long flags;

	trace_movable_pool_misuse(pool ? pool->id : 0, _RET_IP_);
	if (!pool)
		return;
	spin_lock_irqsave(&pool->lock, flags);
	pool->stats.misuse++;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * A driver bug: counted in @pool's stats (if any) and traced every time,
 * warned about once.
 */
#define mp_misuse(pool, fmt, ...) do {					\
	mp_count_misuse(pool);						\
	WARN_ONCE(1, KBUILD_MODNAME ": misuse: " fmt, ##__VA_ARGS__);	\
} while (0)

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

/* The index of a pool page; its bits never change while it is attached. */
static pgoff_t mp_page_index(struct page *page)
{
	return FIELD_GET(MP_INDEX, READ_ONCE(*mp_page_word(page)));
}

/*
 * Make @page (locked, and not yet seen by the driver or the VM: fresh, or
 * the destination of a migration) a page of @pool.
 */
static void mp_attach(struct movable_pool *pool, struct page *page,
		      void *owner, pgoff_t index)
{
	VM_WARN_ON_ONCE_PAGE(!PageLocked(page), page);
	set_page_private(page, (unsigned long)owner);
	*mp_page_word(page) = index;
	mp_vm_attach(page, &pool->vm);
}

/* Undo mp_attach(): @page (locked) no longer refers to any pool. */
static void mp_detach(struct movable_pool *pool, struct page *page)
{
	VM_WARN_ON_ONCE_PAGE(!PageLocked(page), page);
	lockdep_assert_held(&pool->lock);
	mp_vm_detach(page, &pool->vm);
	set_page_private(page, 0);
	WRITE_ONCE(*mp_page_word(page), 0);
}

static unsigned long mp_pins(unsigned long word)
{
	return FIELD_GET(MP_PINS, word);
}

/* Zap the user mappings of the page at @index (locked) in @pool. */
static void mp_zap(struct movable_pool *pool, pgoff_t index)
{
	struct address_space *mapping = pool->inode->i_mapping;

	if (mapping_mapped(mapping))
		unmap_mapping_range(mapping, (loff_t)index << PAGE_SHIFT,
				    PAGE_SIZE, 1);
}

/* Destroy may be waiting for the last isolated page to come back. */
static void mp_isolated_dec(struct movable_pool *pool)
{
	lockdep_assert_held(&pool->lock);

	pool->stats.isolated--;
	if (pool->dying && !pool->stats.isolated)
		wake_up(&pool->drained);
}

/* Count a page out of @pool: it is no longer one of its pages. */
static void mp_count_gone(struct movable_pool *pool)
{
	lockdep_assert_held(&pool->lock);
	pool->stats.pages--;
	pool->stats.freed++;
}

/*
 * Take @page (locked) off @pool's books. Returns its pin count, which is a
 * driver bug when non-zero. A page the VM holds isolated stays attached,
 * marked MP_FREED, until the VM hands it back: 7.x calls putback or migrate
 * on it whatever its owner did, and on older kernels this costs nothing.
 * Any other page is detached: the caller drops the pool's reference.
 */
static unsigned long mp_forget(struct movable_pool *pool, struct page *page)
{
	unsigned long *word = mp_page_word(page);
	unsigned long pins = mp_pins(*word);

	lockdep_assert_held(&pool->lock);
	if (pins)
		pool->stats.pinned--;
	mp_count_gone(pool);
	if (*word & MP_ISOLATED) {
		*word |= MP_FREED;	/* the VM owns ->lru */
		pool->stats.freed_isolated++;
	} else {
		list_del(&page->lru);
		mp_detach(pool, page);
	}
	return pins;
}

/*
 * Take @page (locked, zapped) out of @pool. Returns as mp_forget(); *@now
 * says whether the caller must drop the pool's reference (otherwise the
 * VM's handback does).
 */
static unsigned long mp_release(struct movable_pool *pool, struct page *page,
				bool *now)
{
	unsigned long flags, pins;

	spin_lock_irqsave(&pool->lock, flags);
	pins = mp_forget(pool, page);
	*now = !(*mp_page_word(page) & MP_FREED);
	spin_unlock_irqrestore(&pool->lock, flags);
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
	spin_lock_irqsave(&pool->lock, flags);
	mp_detach(pool, page);
	/* once the count drops, destroy may free the pool */
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
	/*
	 * Mapped with vm_insert_page(), outside the pool's address_space:
	 * nothing could zap that mapping, so the page must never move.
	 */
	if (mp_page_user_mapped(page)) {
		mp_misuse(pool, "%s: page %lx is mapped outside the pool (vm_insert_page()?)\n",
			  pool->name, page_to_pfn(page));
		trace_movable_pool_isolate(pool->id, page_to_pfn(page), -EPERM);
		return false;
	}
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

/*
 * Leave MP_MIGRATING. On success @dst takes @src's place in the pool and
 * @src leaves it; when the routine dropped @src, both leave it; on failure
 * @dst leaves it.
 */
static void mp_end_migration(struct movable_pool *pool, struct page *dst,
			     struct page *src, int rc)
{
	bool dropped = rc == MOVABLE_POOL_MIGRATE_DROP;
	unsigned long flags, dst_pins = 0;

	spin_lock_irqsave(&pool->lock, flags);
	*mp_page_word(src) &= ~MP_MIGRATING;
	pool->stats.migrating--;
	if (rc) {
		dst_pins = mp_pins(*mp_page_word(dst));
		if (dst_pins)
			pool->stats.pinned--;
		mp_detach(pool, dst);
	}
	if (!rc) {
		list_add_tail(&dst->lru, &pool->pages);
		pool->stats.migrated++;
	} else if (dropped) {
		pool->stats.dropped++;
		mp_count_gone(pool);
	} else {
		pool->stats.migrate_failed++;
		if (rc == -EAGAIN)
			pool->stats.routine_busy++;
		else
			pool->stats.routine_failed++;
	}
	if (!rc || dropped) {
		/* the core clears PG_isolated itself; no putback follows */
		mp_detach(pool, src);	/* a late pin finds src gone */
		mp_isolated_dec(pool);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (dst_pins)
		mp_misuse(pool, "%s: routine failed with page %lx pinned\n",
			  pool->name, page_to_pfn(dst));
}

/*
 * The driver's routine, run as if from reclaim: a lock it takes then ranks
 * inside fs_reclaim for lockdep, which reports the first GFP_KERNEL
 * allocation made while holding it (see "Lock order" in the header).
 * Direct compaction runs with PF_MEMALLOC, where the annotation is off;
 * any other migration (kcompactd, compact_memory, offlining, CMA) teaches
 * lockdep the order.
 */
static int mp_call_routine(struct movable_pool *pool, void *owner,
			   pgoff_t index, struct page *dst, struct page *src,
			   enum migrate_mode mode)
{
	int rc;

	fs_reclaim_acquire(GFP_KERNEL);
	rc = pool->ops->migrate(pool, owner, index, dst, src, mode);
	fs_reclaim_release(GFP_KERNEL);
	if (rc > 0 && rc != MOVABLE_POOL_MIGRATE_DROP) {
		mp_misuse(pool, "%s: migrate returned %d\n", pool->name, rc);
		rc = -EINVAL;
	}
	return rc;
}

/*
 * In MP_MIGRATING: zap, run the driver's routine, hand the page over.
 * Returns what the routine did (0, MOVABLE_POOL_MIGRATE_DROP) or an errno.
 */
static int mp_move(struct movable_pool *pool, struct page *dst,
		   struct page *src, enum migrate_mode mode)
{
	pgoff_t index = mp_page_index(src);
	void *owner = (void *)page_private(src);
	int rc;

	/*
	 * Zap under the src page lock: a racing fault then waits in
	 * movable_pool_insert_pfn() until we are done, and sees the page gone.
	 * A mapping created after the check has no PTE for src: it could only
	 * get one through that same fault path.
	 */
	mp_zap(pool, index);

	/* dst is ours before the routine publishes it, so pins see it */
	mp_attach(pool, dst, owner, index);
	rc = mp_call_routine(pool, owner, index, dst, src, mode);
	if (!rc)
		get_page(dst);
	mp_end_migration(pool, dst, src, rc);
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
	if (rc == MOVABLE_POOL_MIGRATE_DROP)
		rc = 0;	/* the VM frees both pages */
	if (!rc)
		put_page(src);	/* the pool's reference, now on dst or gone */
	return rc;	/* 0 is MIGRATEPAGE_SUCCESS, where that still exists */
}

/* 0 if @nr pages with indices from @index on may be allocated, or why not. */
static int mp_check_alloc(struct movable_pool *pool, gfp_t gfp,
			  pgoff_t index, unsigned int nr)
{
	if (!pool || (gfp & MP_GFP_REFUSED) || !nr ||
	    index > MOVABLE_POOL_MAX_INDEX ||
	    nr - 1 > MOVABLE_POOL_MAX_INDEX - index)
		return -EINVAL;
	if (READ_ONCE(pool->dying))
		return -ENODEV;	/* early; mp_add_fresh() decides */
	return 0;
}

/*
 * Lock fresh pages without atomics (isolate_movable_page() leaves the lock
 * of a page that is not movable yet alone, as the page cache relies on for
 * new folios), make them the pool's, and list them in one go. Returns 0,
 * or -ENODEV with the pages freed if destroy has begun: it may not find
 * them on the list any more.
 */
static int mp_add_fresh(struct movable_pool *pool, struct page **pages,
			unsigned int nr, void *owner, pgoff_t index)
{
	unsigned long flags;
	unsigned int i;
	bool dying;
	LIST_HEAD(list);

	for (i = 0; i < nr; i++) {
		__SetPageLocked(pages[i]);
		/*
		 * The lock bit before ->mapping: the migration core tries the
		 * lock only of a page it has seen movable, and on a weakly
		 * ordered CPU must not see one without the other.
		 */
		smp_wmb();
		mp_attach(pool, pages[i], owner, index + i);
		list_add_tail(&pages[i]->lru, &list);
	}
	spin_lock_irqsave(&pool->lock, flags);
	dying = pool->dying;
	if (!dying) {
		list_splice_tail(&list, &pool->pages);
		pool->stats.pages += nr;
		pool->stats.allocated += nr;
	} else {
		for (i = 0; i < nr; i++)
			mp_detach(pool, pages[i]);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	for (i = 0; i < nr; i++) {
		unlock_page(pages[i]);
		if (dying)
			put_page(pages[i]);
	}
	return dying ? -ENODEV : 0;
}

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
	ret = mp_add_fresh(pool, &page, 1, owner, index);
	return ret ? ERR_PTR(ret) : page;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_alloc_page);

int movable_pool_alloc_pages(struct movable_pool *pool, gfp_t gfp,
			     void *owner, pgoff_t index, struct page **pages,
			     unsigned int nr)
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
	return mp_add_fresh(pool, pages, nr, owner, index);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_alloc_pages);

int movable_pool_add_page(struct movable_pool *pool, struct page *page,
			  void *owner, pgoff_t index)
{
	unsigned long flags;
	int ret = 0;

	if (!pool || !page || index > MOVABLE_POOL_MAX_INDEX)
		return -EINVAL;
	if (PageCompound(page) || page_ref_count(page) < 1 ||
	    !mp_vm_adoptable(page, &pool->vm)) {
		mp_misuse(pool, "%s: adding page %lx, which is not a plain page\n",
			  pool->name, page_to_pfn(page));
		return -EINVAL;
	}
	/*
	 * Not __SetPageLocked(): a page taken from a pool on 7.x is still
	 * movable, so the migration core may try its lock meanwhile.
	 */
	lock_page(page);
	spin_lock_irqsave(&pool->lock, flags);
	if (pool->dying) {
		ret = -ENODEV;
	} else {
		mp_attach(pool, page, owner, index);
		list_add_tail(&page->lru, &pool->pages);
		pool->stats.pages++;
		pool->stats.allocated++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	unlock_page(page);
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_add_page);

void movable_pool_free_page(struct movable_pool *pool, struct page *page)
{
	unsigned long pins = 0;
	bool ours, now = false;

	if (!pool || !page)
		return;

	lock_page(page);
	ours = mp_page_pool(page) == pool;
	if (ours) {
		/* no user PTE may outlive the page's time in the pool */
		mp_zap(pool, mp_page_index(page));
		pins = mp_release(pool, page, &now);
	}
	unlock_page(page);

	if (!ours) {
		mp_misuse(pool, "%s: freeing page %lx that is not in this pool\n",
			  pool->name, page_to_pfn(page));
		return;
	}
	if (pins)
		mp_misuse(pool, "%s: freeing page %lx pinned %lu times\n",
			  pool->name, page_to_pfn(page), pins);
	if (now)
		put_page(page);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_free_page);

void movable_pool_free_pages(struct movable_pool *pool, struct page **pages,
			     unsigned int nr)
{
	unsigned long flags, pins = 0;
	unsigned int i, n = 0;
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
		    !(READ_ONCE(*mp_page_word(page)) & (MP_PINS | MP_ISOLATED))) {
			mp_zap(pool, mp_page_index(page));
			pages[i] = pages[n];
			pages[n++] = page;
		} else {
			unlock_page(page);
		}
	}
	if (n) {
		spin_lock_irqsave(&pool->lock, flags);
		for (i = 0; i < n; i++)
			pins += mp_forget(pool, pages[i]);
		spin_unlock_irqrestore(&pool->lock, flags);
		for (i = 0; i < n; i++)
			unlock_page(pages[i]);
		release_pages(pages, n);
	}
	/* pinned since we looked: as movable_pool_free_page() would say */
	if (pins)
		mp_misuse(pool, "%s: freeing pages pinned %lu times\n",
			  pool->name, pins);
	/*
	 * Then, holding no page lock (never wait for one while holding
	 * others), pages the migration core is busy with and pages to warn
	 * about, one by one.
	 */
	for (i = n; i < nr; i++)
		movable_pool_free_page(pool, pages[i]);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_free_pages);

/*
 * Under pool->lock: move up to @nr idle pages of @pool (of @owner only,
 * unless @any) to @pages (locked, off the books), and the busy ones and
 * other owners' passed over to the back of the list.
 */
static unsigned int mp_take_locked(struct movable_pool *pool, bool any,
				   void *owner, struct page **pages,
				   unsigned int nr)
{
	unsigned int n = 0, skipped = 0;
	struct page *page, *next;
	LIST_HEAD(busy);

	lockdep_assert_held(&pool->lock);
	list_for_each_entry_safe(page, next, &pool->pages, lru) {
		if (n == nr || skipped == MP_TAKE_SKIP_MAX)
			break;
		/* only tried: the page lock ranks above ours (see the top) */
		if ((!any && (void *)page_private(page) != owner) ||
		    (*mp_page_word(page) & MP_PINS) || !trylock_page(page)) {
			list_move_tail(&page->lru, &busy);
			skipped++;
			continue;
		}
		pages[n++] = page;
		list_del(&page->lru);
		/* not the pool's from now on: pins and faults find it gone */
		*mp_page_word(page) |= MP_FREED;
		mp_count_gone(pool);
	}
	list_splice_tail(&busy, &pool->pages);
	return n;
}

static unsigned int mp_take(struct movable_pool *pool, bool any, void *owner,
			    struct page **pages, unsigned int nr)
{
	unsigned long flags;
	unsigned int i, n;

	if (!pool || !pages)
		return 0;
	spin_lock_irqsave(&pool->lock, flags);
	n = mp_take_locked(pool, any, owner, pages, nr);
	spin_unlock_irqrestore(&pool->lock, flags);

	/* a racing fault waits for the page lock, then finds no page */
	for (i = 0; i < n; i++)
		mp_zap(pool, mp_page_index(pages[i]));
	spin_lock_irqsave(&pool->lock, flags);
	for (i = 0; i < n; i++)
		mp_detach(pool, pages[i]);
	spin_unlock_irqrestore(&pool->lock, flags);
	for (i = 0; i < n; i++)
		unlock_page(pages[i]);
	return n;
}

unsigned int movable_pool_take_pages(struct movable_pool *pool,
				     struct page **pages, unsigned int nr)
{
	return mp_take(pool, true, NULL, pages, nr);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_take_pages);

unsigned int movable_pool_take_owner_pages(struct movable_pool *pool,
					   void *owner, struct page **pages,
					   unsigned int nr)
{
	return mp_take(pool, false, owner, pages, nr);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_take_owner_pages);

int movable_pool_pin(struct page *page)
{
	struct movable_pool *pool = page ? mp_page_pool(page) : NULL;
	unsigned long *word, flags;
	int ret = 0;

	if (!pool) {
		mp_misuse(NULL, "pinning a page that is not in a pool\n");
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
		mp_misuse(pool, "%s: page %lx pinned %lu times\n", pool->name,
			  page_to_pfn(page), MOVABLE_POOL_MAX_PINS);
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_pin);

void movable_pool_unpin(struct page *page)
{
	struct movable_pool *pool = page ? mp_page_pool(page) : NULL;
	unsigned long *word, flags;
	bool underflow = false;

	if (!pool) {
		mp_misuse(NULL, "unpinning a page that is not in a pool\n");
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
		mp_misuse(pool, "%s: unpin of page %lx without a pin\n",
			  pool->name, page_to_pfn(page));
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_unpin);

void movable_pool_copy_page(struct page *dst, struct page *src)
{
	copy_highpage(dst, src);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_copy_page);

/*
 * Lock @page for a fault, as filemap_fault() locks a folio: where the fault
 * may be retried, never wait for the page lock under mmap_lock (the
 * routine runs under it and takes the driver's lock). Returns 0 with the
 * page locked, or VM_FAULT_RETRY (with mmap_lock dropped unless the fault
 * asked us not to wait at all).
 */
static vm_fault_t mp_lock_page_for_fault(struct page *page,
					 struct vm_fault *vmf)
{
	if (trylock_page(page))
		return 0;
	if (!fault_flag_allow_retry_first(vmf->flags)) {
		lock_page(page);	/* a retried fault: filemap waits too */
		return 0;
	}
	if (!(vmf->flags & FAULT_FLAG_RETRY_NOWAIT)) {
		get_page(page);	/* the caller's reference may go with the lock */
		mp_release_fault_lock(vmf);
		mp_wait_on_page_locked(page,
				       vmf->flags & FAULT_FLAG_KILLABLE);
		put_page(page);
	}
	return VM_FAULT_RETRY;
}

/* Whether @vma may map pages of @pool; warns and counts it if not. */
static bool mp_vma_ok(struct movable_pool *pool, struct vm_area_struct *vma)
{
	if (!vma->vm_file ||
	    vma->vm_file->f_mapping != pool->inode->i_mapping) {
		mp_misuse(pool, "%s: a VMA not mapped through the pool\n",
			  pool->name);
		return false;
	}
	if (!(vma->vm_flags & VM_MAYSHARE)) {
		mp_misuse(pool, "%s: a private mapping of pool pages\n",
			  pool->name);
		return false;
	}
	return true;
}

vm_fault_t movable_pool_insert_pfn(struct movable_pool *pool,
				   struct vm_fault *vmf, struct page *page)
{
	struct vm_area_struct *vma = vmf->vma;
	vm_fault_t ret = VM_FAULT_NOPAGE;
	bool bad_index = false;
	pgoff_t index = 0;

	/* vmf_insert_pfn() would BUG() on a copy-on-write PFN mapping */
	if (!mp_vma_ok(pool, vma))
		return VM_FAULT_SIGBUS;
	if ((vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP)) != VM_PFNMAP) {
		mp_misuse(pool, "%s: a VMA not set up by movable_pool_mmap()\n",
			  pool->name);
		return VM_FAULT_SIGBUS;
	}

	/* the page lock orders us against the zap before a move or a free */
	ret = mp_lock_page_for_fault(page, vmf);
	if (ret)
		return ret;
	ret = VM_FAULT_NOPAGE;
	if (mp_page_pool(page) == pool) {
		index = mp_page_index(page);
		bad_index = index != vmf->pgoff;
		if (!bad_index)
			ret = vmf_insert_pfn(vma, vmf->address,
					     page_to_pfn(page));
	}
	unlock_page(page);
	if (bad_index) {
		/* elsewhere, nothing would zap it before the page moves */
		mp_misuse(pool, "%s: page of index %lx mapped at offset %lx\n",
			  pool->name, index, vmf->pgoff);
		return VM_FAULT_SIGBUS;
	}
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_insert_pfn);

int movable_pool_mmap(struct movable_pool *pool, struct vm_area_struct *vma)
{
	if (!mp_vma_ok(pool, vma) ||
	    vma->vm_pgoff + vma_pages(vma) - 1 > MOVABLE_POOL_MAX_INDEX)
		return -EINVAL;
	mp_vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_mmap);

static int mp_stats_show(struct seq_file *m, void *unused)
{
	struct movable_pool_stats s;

	movable_pool_get_stats(m->private, &s);
	seq_printf(m, "pages %lu\npinned %lu\nisolated %lu\nmigrating %lu\n",
		   s.pages, s.pinned, s.isolated, s.migrating);
	seq_printf(m, "allocated %lu\nfreed %lu\nmigrated %lu\ndropped %lu\n",
		   s.allocated, s.freed, s.migrated, s.dropped);
	seq_printf(m, "migrate_failed %lu\nputback %lu\npin_refused %lu\n",
		   s.migrate_failed, s.putback, s.pin_refused);
	seq_printf(m, "pin_busy %lu\nroutine_busy %lu\nroutine_failed %lu\n",
		   s.pin_busy, s.routine_busy, s.routine_failed);
	seq_printf(m, "freed_isolated %lu\nmisuse %lu\n", s.freed_isolated,
		   s.misuse);
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

/*
 * An inode on our pseudo-fs whose address_space drivers map pages through.
 * The pool holds a reference, and so does every file set up with
 * movable_pool_open(); each pins the pseudo-fs.
 */
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

int movable_pool_open(struct movable_pool *pool, struct file *file)
{
	unsigned long flags;
	int ret;

	ret = simple_pin_fs(&mp_fs_type, &mp_mnt, &mp_mnt_count);
	if (ret)
		return ret;
	/* destroy sets dying under the lock before it lets go of the inode */
	spin_lock_irqsave(&pool->lock, flags);
	if (!pool->dying)
		ihold(pool->inode);
	else
		ret = -ENODEV;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (ret) {
		simple_release_fs(&mp_mnt, &mp_mnt_count);
		return ret;
	}
	file->f_mapping = pool->inode->i_mapping;
	return 0;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_open);

void movable_pool_release(struct file *file)
{
	struct inode *inode = file->f_mapping->host;

	if (inode->i_sb->s_magic != MOVABLE_POOL_MAGIC) {
		mp_misuse(NULL, "releasing a file not set up by movable_pool_open()\n");
		return;
	}
	mp_inode_put(inode);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_release);

struct movable_pool *movable_pool_create(const char *name,
					 const struct movable_pool_ops *ops,
					 void *priv)
{
	struct movable_pool *pool;
	bool offline = ops && (ops->flags & MOVABLE_POOL_OFFLINE_PAGES);
	char dirname[64];
	int ret = -ENOMEM;

	if (!name || !*name || !ops || !ops->migrate ||
	    (ops->flags & ~MOVABLE_POOL_OFFLINE_PAGES))
		return ERR_PTR(-EINVAL);
	if (offline && !mp_vm_offline_supported())
		return ERR_PTR(-EOPNOTSUPP);

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
	mp_vm_init(&pool->vm, pool->inode, pool, offline);

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
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_create);

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

/*
 * Free a page (locked) that destroy found first on the list. Every page
 * there is the pool's and none is isolated, so each is freed here: one that
 * does not lead back to the pool (the kernel never made it movable) too, so
 * that the drain cannot spin on it. Returns 1 if it led back, 0 if not,
 * -ENOENT if it had left the list meanwhile.
 */
static int mp_destroy_page(struct movable_pool *pool, struct page *page)
{
	bool ours = mp_page_pool(page) == pool;
	unsigned long flags;

	mp_zap(pool, mp_page_index(page));
	spin_lock_irqsave(&pool->lock, flags);
	/* a free racing destroy may have taken it first (a driver bug) */
	if (list_first_entry_or_null(&pool->pages, struct page, lru) != page) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return -ENOENT;
	}
	if (ours) {
		mp_forget(pool, page);
	} else {
		list_del(&page->lru);
		mp_count_gone(pool);
		/* not movable: mp_vm_detach() has only the type to undo */
		mp_vm_untype(page, &pool->vm);
		set_page_private(page, 0);
		WRITE_ONCE(*mp_page_word(page), 0);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	put_page(page);		/* the pool's reference */
	return ours;
}

/* Let go of the pool's address_space, unless files still map it blindly. */
static void mp_destroy_inode(struct movable_pool *pool)
{
	struct inode *inode = pool->inode;

	unmap_mapping_range(inode->i_mapping, 0, 0, 1);
	inode->i_private = NULL;
	/* files set up with movable_pool_open() hold their own reference */
	if (mapping_mapped(inode->i_mapping) &&
	    atomic_read(&inode->i_count) == 1) {
		mp_misuse(pool, "%s: destroyed while mapped; leaking its inode\n",
			  pool->name);
		return;
	}
	mp_inode_put(inode);
}

void movable_pool_destroy(struct movable_pool *pool)
{
	unsigned long leaked = 0, strangers = 0;
	struct page *page;
	unsigned long flags;

	if (!pool)
		return;

	spin_lock_irqsave(&pool->lock, flags);
	pool->dying = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	wait_event(pool->drained, mp_none_isolated(pool));

	/* every page of the pool is on the list now; each pass takes one */
	while ((page = mp_first_page(pool))) {
		lock_page(page);
		switch (mp_destroy_page(pool, page)) {
		case 1:
			leaked++;
			break;
		case 0:
			strangers++;
			break;
		}
		unlock_page(page);
		put_page(page);
	}
	if (leaked)
		mp_misuse(pool, "%s: destroyed with %lu pages not freed\n",
			  pool->name, leaked);
	if (strangers)
		mp_misuse(pool, "%s: %lu pages were never made movable\n",
			  pool->name, strangers);

	debugfs_remove_recursive(pool->debugfs);
	mp_destroy_inode(pool);
	kfree(pool->name);
	kfree(pool);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_destroy);

void *movable_pool_priv(struct movable_pool *pool)
{
	return pool->priv;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_priv);

struct address_space *movable_pool_mapping(struct movable_pool *pool)
{
	return pool->inode->i_mapping;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_mapping);

void movable_pool_get_stats(struct movable_pool *pool,
			    struct movable_pool_stats *stats)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	*stats = pool->stats;
	spin_unlock_irqrestore(&pool->lock, flags);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_get_stats);

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

/* Ahead of built-in users (the balloon); module_init() in a module */
subsys_initcall(movable_pool_init);
module_exit(movable_pool_exit);

MODULE_DESCRIPTION("Movable driver pages: compaction, CMA and offlining can migrate them");
MODULE_VERSION(__stringify(MOVABLE_POOL_VERSION));
MODULE_LICENSE("GPL");
