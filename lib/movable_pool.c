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
 * - Pinned pages are never isolated, freed or let go by destroy;
 *   MP_MIGRATING is set only with a zero pin count, and pin fails with
 *   -EAGAIN while it is set. So the routine never runs on a page a device
 *   or the CPU is using, and no device uses a page the pool let go.
 * - A page the driver frees while the VM holds it isolated stays attached,
 *   marked MP_FREED, until the VM hands it back through putback or migrate,
 *   which detach it and drop the pool's reference.
 * - A page the routine drops (MOVABLE_POOL_MIGRATE_DROP) leaves the pool as
 *   the old page of a successful migration does, and the new page as after
 *   a failed one: the VM, told of success, frees both.
 * - A page that left a pool keeps MP_GONE in its word until it is reused,
 *   so the fault helper can tell a page that moved or was freed since the
 *   driver looked it up from one the driver should never have had.
 * - A page leaves the pool with its user mappings zapped under its page
 *   lock, which movable_pool_insert_pfn() takes before it maps a page.
 *
 * Pool lifetime. movable_pool_destroy() frees the pool once (1) no call
 * that may race it holds a live reference (pool->users: allocation,
 * add_page, open, mmap and faults take one, or fail with -ENODEV once
 * destroy has begun), (2) the VM holds no page isolated, and (3) it has
 * detached every listed page under that page's lock; and it frees the
 * memory an RCU grace period later. So library code may touch a pool only
 * while it holds one of these three (a live reference, an isolated page
 * still counted, the lock of a page still attached), or inside an RCU
 * read-side section that began while it held one or saw the page attached
 * (pin and unpin, which reach the pool from a page without its lock).
 * What follows the point where the last of them goes (a tracepoint, a
 * misuse count) uses values read before it or runs under rcu_read_lock().
 * A pool a call reaches in no such way is not dereferenced: its misuse is
 * counted globally (debugfs movable_pool/misuse).
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
#include <linux/percpu-refcount.h>
#include <linux/pseudo_fs.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
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

/*
 * The word of a page that left a pool: all three state bits, which no page
 * in a pool has at once, and a tag in the pin bits, which neither a page
 * index nor a kernel pointer (a slab's freelist shares the word) has; the
 * index bits count the faults that found the page gone. With all pin bits
 * and no index it marks a page movable_pool_free_pages() is letting go of
 * right now, under its lock.
 */
#define MP_STATE	(MP_FREED | MP_MIGRATING | MP_ISOLATED)
#define MP_GONE		(MP_STATE | FIELD_PREP(MP_PINS, 0xa5a))
#define MP_GONE_BATCH	(MP_STATE | MP_PINS)

/*
 * How often a fault may find the same page gone before the driver's table
 * is taken for stale: a page that moved or was freed since the lookup is
 * found gone once by each fault that looked it up first.
 */
#define MP_STALE_FAULTS	1024

/* How many busy pages one movable_pool_take_pages() call passes over. */
#define MP_TAKE_SKIP_MAX	64

/* gfp flags a pool page cannot honour (see movable_pool_alloc_page()) */
#define MP_GFP_REFUSED	(__GFP_ACCOUNT | __GFP_COMP | __GFP_DMA | __GFP_DMA32)

struct movable_pool {
	struct mp_vm vm;		/* how pages lead back here */
	spinlock_t lock;		/* the list, published words, stats */
	struct list_head pages;		/* through page->lru, not isolated */
	bool dying;			/* refuse isolation and new pages */
	wait_queue_head_t drained;	/* destroy waits for isolated pages */
	struct percpu_ref users;	/* calls that may race destroy */
	struct completion no_users;	/* users dropped to zero */
	struct movable_pool_stats stats;
	const struct movable_pool_ops *ops;
	void *priv;
	unsigned int id;		/* in debugfs and trace events */
	struct inode *inode;
	struct dentry *debugfs;
	struct rcu_head rcu;
	char name[];
};

static struct dentry *mp_debugfs_root;
static struct vfsmount *mp_mnt;
static int mp_mnt_count;
static atomic_t mp_pool_ids = ATOMIC_INIT(0);
static atomic_t mp_misuse_total = ATOMIC_INIT(0);	/* of any pool or none */

/*
 * Not inlined: the trace event names the check that called it. @pool is
 * NULL where the caller cannot be sure it is alive.
 */
static noinline void mp_count_misuse(struct movable_pool *pool)
{
	unsigned long flags;

	atomic_inc(&mp_misuse_total);
	trace_movable_pool_misuse(pool ? pool->id : 0, _RET_IP_);
	if (!pool)
		return;
	spin_lock_irqsave(&pool->lock, flags);
	pool->stats.misuse++;
	spin_unlock_irqrestore(&pool->lock, flags);
}

/*
 * A driver bug: counted (in @pool's stats too, when @pool is known to be
 * alive, see the top) and traced every time, warned about once. Never for
 * anything a user process can do: that is a quiet errno.
 */
#define mp_misuse(pool, fmt, ...) do {					\
	mp_count_misuse(pool);						\
	WARN_ONCE(1, KBUILD_MODNAME ": misuse: " fmt, ##__VA_ARGS__);	\
} while (0)

/*
 * Whether the caller must not sleep, as far as the kernel can tell: always
 * in interrupts and with interrupts off, under a spinlock or in an RCU
 * read-side section only where it keeps a preempt count (Debian's do). A
 * call that may sleep is refused there before it sleeps: taking a page
 * lock would otherwise go wrong only when someone else holds it.
 */
static bool mp_atomic(void)
{
	if (in_interrupt() || irqs_disabled())
		return true;
	return IS_ENABLED(CONFIG_PREEMPT_COUNT) &&
	       (!preemptible() || rcu_preempt_depth());
}

static bool mp_get(struct movable_pool *pool)
{
	return percpu_ref_tryget_live(&pool->users);
}

static void mp_put(struct movable_pool *pool)
{
	percpu_ref_put(&pool->users);
}

static void mp_no_users(struct percpu_ref *ref)
{
	complete(&container_of(ref, struct movable_pool, users)->no_users);
}

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
	WRITE_ONCE(*mp_page_word(page), MP_GONE);
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
 * Take @page (locked, zapped) off @pool's books, unless it is pinned
 * (-EBUSY: it stays the pool's). A page the VM holds isolated stays
 * attached, marked MP_FREED, until the VM hands it back (0): 7.x calls
 * putback or migrate on it whatever its owner did, and on older kernels
 * this costs nothing. Any other page is detached (1): the caller drops the
 * pool's reference.
 */
static int mp_forget(struct movable_pool *pool, struct page *page)
{
	unsigned long *word = mp_page_word(page);

	lockdep_assert_held(&pool->lock);
	if (mp_pins(*word))
		return -EBUSY;
	mp_count_gone(pool);
	if (*word & MP_ISOLATED) {
		*word |= MP_FREED;	/* the VM owns ->lru */
		pool->stats.freed_isolated++;
		return 0;
	}
	list_del(&page->lru);
	mp_detach(pool, page);
	return 1;
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
	/* read now: once the page is back, destroy may free the pool */
	unsigned int id = pool->id;
	unsigned long flags;

	if (mp_handback_freed(pool, page))
		return;
	spin_lock_irqsave(&pool->lock, flags);
	*mp_page_word(page) &= ~MP_ISOLATED;
	list_add_tail(&page->lru, &pool->pages);
	pool->stats.putback++;
	mp_isolated_dec(pool);
	spin_unlock_irqrestore(&pool->lock, flags);
	trace_movable_pool_putback(id, page_to_pfn(page));
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

	/* mapped by vm_insert_page() since it was isolated */
	if (mp_page_user_mapped(src)) {
		mp_misuse(pool, "%s: page %lx is mapped outside the pool (vm_insert_page()?)\n",
			  pool->name, page_to_pfn(src));
		ret = -EPERM;
	} else if (mp_mode_unsupported(mode)) {
		ret = -EINVAL;
	}
	spin_lock_irqsave(&pool->lock, flags);
	if (!ret && pool->dying)
		ret = -ENODEV;	/* not -EAGAIN: hand it back to destroy now */
	else if (!ret && (mp_pins(*word) || !may_zap))
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

	/* a dropped src is the last thing keeping the pool alive: see the top */
	rcu_read_lock();
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
	rcu_read_unlock();
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
	/* read now: once src is handed over, destroy may free the pool */
	unsigned int id = pool->id;
	int rc;

	/* nothing to move; the core frees both pages */
	if (mp_handback_freed(pool, src))
		return 0;
	rc = mp_begin_migration(pool, src, mode);
	if (!rc)
		rc = mp_move(pool, dst, src, mode);
	trace_movable_pool_migrate(id, page_to_pfn(src), page_to_pfn(dst),
				   mode, rc);
	if (rc == MOVABLE_POOL_MIGRATE_DROP)
		rc = 0;	/* the VM frees both pages */
	if (!rc)
		put_page(src);	/* the pool's reference, now on dst or gone */
	return rc;	/* 0 is MIGRATEPAGE_SUCCESS, where that still exists */
}

/*
 * Enter an allocation of @nr pages with indices from @index on: 0 with a
 * live reference on @pool, or why not.
 */
static int mp_enter_alloc(struct movable_pool *pool, gfp_t gfp,
			  pgoff_t index, unsigned int nr)
{
	if (!pool || (gfp & MP_GFP_REFUSED) || !nr ||
	    index > MOVABLE_POOL_MAX_INDEX ||
	    nr - 1 > MOVABLE_POOL_MAX_INDEX - index)
		return -EINVAL;
	if (!mp_get(pool))
		return -ENODEV;
	if (gfpflags_allow_blocking(gfp) && mp_atomic()) {
		mp_misuse(pool, "%s: allocation that may sleep in atomic context\n",
			  pool->name);
		mp_put(pool);
		return -EINVAL;
	}
	return 0;
}

/*
 * Lock fresh pages without atomics (isolate_movable_page() leaves the lock
 * of a page that is not movable yet alone, as the page cache relies on for
 * new folios), make them the pool's, and list them in one go. Returns 0,
 * or -ENODEV with the pages freed and their slots cleared if destroy has
 * begun: it may not find them on the list any more.
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
		if (dying) {
			put_page(pages[i]);
			pages[i] = NULL;
		}
	}
	return dying ? -ENODEV : 0;
}

struct page *movable_pool_alloc_page(struct movable_pool *pool, gfp_t gfp,
				     void *owner, pgoff_t index)
{
	struct page *page;
	int ret;

	ret = mp_enter_alloc(pool, gfp, index, 1);
	if (ret)
		return ERR_PTR(ret);
	page = alloc_page(gfp | __GFP_MOVABLE);
	ret = page ? mp_add_fresh(pool, &page, 1, owner, index) : -ENOMEM;
	mp_put(pool);
	return ret ? ERR_PTR(ret) : page;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_alloc_page);

/* Fill @pages, all NULL, from the bulk allocator, then page by page. */
static int mp_alloc_array(gfp_t gfp, struct page **pages, unsigned int nr)
{
	unsigned int i;

	/* the bulk allocator may stop early; it fills from the front */
	for (i = mp_alloc_pages_bulk(gfp, nr, pages); i < nr; i++) {
		pages[i] = alloc_page(gfp);
		if (!pages[i]) {
			while (i--) {
				__free_page(pages[i]);
				pages[i] = NULL;
			}
			return -ENOMEM;
		}
	}
	return 0;
}

int (movable_pool_alloc_pages)(struct movable_pool *pool, gfp_t gfp,
			       void *owner, pgoff_t index, struct page **pages,
			       unsigned int nr)
{
	int ret;

	if (!pages)
		return -EINVAL;
	memset(pages, 0, nr * sizeof(*pages));
	ret = mp_enter_alloc(pool, gfp, index, nr);
	if (ret)
		return ret;
	ret = mp_alloc_array(gfp | __GFP_MOVABLE, pages, nr);
	if (!ret)
		ret = mp_add_fresh(pool, pages, nr, owner, index);
	mp_put(pool);
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_alloc_pages);

/* Make @page (the caller's, not locked) a page of @pool (alive). */
static int mp_adopt(struct movable_pool *pool, struct page *page,
		    void *owner, pgoff_t index)
{
	unsigned long flags;
	int ret = 0;

	if (mp_atomic()) {
		mp_misuse(pool, "%s: adding a page in atomic context\n",
			  pool->name);
		return -EINVAL;
	}
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

int movable_pool_add_page(struct movable_pool *pool, struct page *page,
			  void *owner, pgoff_t index)
{
	int ret;

	if (!pool || !page || index > MOVABLE_POOL_MAX_INDEX)
		return -EINVAL;
	if (!mp_get(pool))
		return -ENODEV;
	ret = mp_adopt(pool, page, owner, index);
	mp_put(pool);
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_add_page);

/* A call that may sleep, made where it must not: refused, with a warning. */
static bool mp_refuse_atomic(const char *what)
{
	if (!mp_atomic()) {
		might_sleep();
		return false;
	}
	/* no pool named: the caller's may be one it should not use */
	mp_misuse(NULL, "%s in atomic context\n", what);
	return true;
}

void movable_pool_free_page(struct movable_pool *pool, struct page *page)
{
	unsigned long flags;
	int ret;

	if (!pool || !page || mp_refuse_atomic("freeing a page"))
		return;

	lock_page(page);
	if (mp_page_pool(page) != pool) {
		unlock_page(page);
		/* a page of no pool, or freed: @pool may be gone too */
		mp_misuse(NULL, "freeing page %lx that is not in this pool\n",
			  page_to_pfn(page));
		return;
	}
	/* ours and locked: destroy waits for this lock, so @pool lives */
	if (mp_page_user_mapped(page))
		mp_misuse(pool, "%s: freeing page %lx mapped by vm_insert_page()?\n",
			  pool->name, page_to_pfn(page));
	/* no user PTE may outlive the page's time in the pool */
	mp_zap(pool, mp_page_index(page));
	spin_lock_irqsave(&pool->lock, flags);
	ret = mp_forget(pool, page);
	spin_unlock_irqrestore(&pool->lock, flags);
	if (ret < 0)
		mp_misuse(pool, "%s: freeing page %lx while it is pinned\n",
			  pool->name, page_to_pfn(page));
	unlock_page(page);
	if (ret > 0)
		put_page(page);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_free_page);

/*
 * Lock the pages of @pages that can leave @pool at once (ours, not
 * pinned, isolated or mapped outside the pool) and gather them, zapped,
 * at the front. Returns how many.
 */
static unsigned int mp_gather_idle(struct movable_pool *pool,
				   struct page **pages, unsigned int nr)
{
	unsigned int i, n = 0;
	struct page *page;

	for (i = 0; i < nr; i++) {
		page = pages[i];
		/* a second entry of a gathered page fails the trylock */
		if (!page || !trylock_page(page))
			continue;
		if (mp_page_pool(page) == pool &&
		    !(READ_ONCE(*mp_page_word(page)) & (MP_PINS | MP_ISOLATED)) &&
		    !mp_page_user_mapped(page)) {
			mp_zap(pool, mp_page_index(page));
			pages[i] = pages[n];
			pages[n++] = page;
		} else {
			unlock_page(page);
		}
	}
	return n;
}

/*
 * Take the @n gathered pages off @pool's books under one lock; those
 * pinned since they were gathered stay (unlocked, their slots cleared).
 * The others are left locked, marked MP_GONE_BATCH, at the front of
 * @pages. Returns how many.
 */
static unsigned int mp_forget_gathered(struct movable_pool *pool,
				       struct page **pages, unsigned int n)
{
	unsigned int i, kept = 0;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	for (i = 0; i < n; i++) {
		if (mp_forget(pool, pages[i]) < 0)
			kept++;
		else
			WRITE_ONCE(*mp_page_word(pages[i]), MP_GONE_BATCH);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (!kept)
		return n;
	/* locked and listed: destroy waits for them, so @pool lives */
	mp_misuse(pool, "%s: freeing %u pages while they are pinned\n",
		  pool->name, kept);
	for (i = 0; i < n; ) {
		if (READ_ONCE(*mp_page_word(pages[i])) == MP_GONE_BATCH) {
			i++;
			continue;
		}
		unlock_page(pages[i]);
		pages[i] = pages[--n];
		pages[n] = NULL;
	}
	return n;
}

static int mp_cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void * const *)a;
	uintptr_t y = (uintptr_t)*(void * const *)b;

	return x < y ? -1 : x > y;
}

/*
 * Clear the entries of @pages[@n..@nr) that repeat a page: one the batch
 * is freeing (the first @n, MP_GONE_BATCH while locked) or another entry.
 * Returns how many.
 */
static unsigned int mp_drop_repeats(struct page **pages, unsigned int n,
				    unsigned int nr)
{
	unsigned int i, repeats = 0;

	for (i = n; i < nr; i++) {
		if (pages[i] &&
		    READ_ONCE(*mp_page_word(pages[i])) == MP_GONE_BATCH) {
			pages[i] = NULL;
			repeats++;
		}
	}
	/* the rest wait one by one; rarely more than a few */
	sort(pages + n, nr - n, sizeof(*pages), mp_cmp_ptr, NULL);
	for (i = n + 1; i < nr; i++) {
		if (pages[i] && pages[i] == pages[i - 1]) {
			pages[i - 1] = NULL;
			repeats++;
		}
	}
	return repeats;
}

void movable_pool_free_pages(struct movable_pool *pool, struct page **pages,
			     unsigned int nr)
{
	unsigned int i, n, repeats;

	if (!pool || !pages || mp_refuse_atomic("freeing pages"))
		return;
	n = mp_gather_idle(pool, pages, nr);
	if (n)
		n = mp_forget_gathered(pool, pages, n);
	repeats = mp_drop_repeats(pages, n, nr);
	for (i = 0; i < n; i++) {
		WRITE_ONCE(*mp_page_word(pages[i]), MP_GONE);
		unlock_page(pages[i]);
	}
	release_pages(pages, n);
	if (repeats)
		mp_misuse(NULL, "freeing %u pages twice in one batch\n", repeats);
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

unsigned int (movable_pool_take_pages)(struct movable_pool *pool,
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
	struct movable_pool *pool;
	unsigned long *word, flags;
	int ret = 0;

	/* the pool outlives this section even if destroy lets the page go */
	rcu_read_lock();
	pool = page ? mp_page_pool(page) : NULL;
	if (!pool) {
		rcu_read_unlock();
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
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_pin);

void movable_pool_unpin(struct page *page)
{
	struct movable_pool *pool;
	unsigned long *word, flags;
	bool underflow = false;

	rcu_read_lock();	/* as in movable_pool_pin() */
	pool = page ? mp_page_pool(page) : NULL;
	if (!pool) {
		rcu_read_unlock();
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
	rcu_read_unlock();
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

/*
 * The pool of @file, set up with movable_pool_open(), with a live
 * reference; NULL once the pool is being destroyed (the file keeps its
 * inode, so this is safe whenever the file is), ERR_PTR(-EINVAL) for a
 * file of no pool.
 */
static struct movable_pool *mp_file_pool(struct file *file)
{
	struct inode *inode = file ? file->f_mapping->host : NULL;
	struct movable_pool *pool;

	if (!inode || inode->i_sb->s_magic != MOVABLE_POOL_MAGIC)
		return ERR_PTR(-EINVAL);
	/* destroy clears i_private and frees the pool a grace period later */
	rcu_read_lock();
	pool = READ_ONCE(inode->i_private);
	if (pool && !mp_get(pool))
		pool = NULL;
	rcu_read_unlock();
	return pool;
}

/*
 * A page found gone by a fault (@word is its word, under its lock). Once
 * per fault that looked it up before it moved or was freed is right; over
 * and over means the driver keeps handing it out.
 */
static bool mp_stale_fault(unsigned long *word)
{
	if (FIELD_GET(MP_INDEX, *word) >= MP_STALE_FAULTS)
		return true;
	WRITE_ONCE(*word, *word + 1);
	return false;
}

/* Map @page (locked) for @vmf, if it is still the page of @pool there. */
static vm_fault_t mp_insert_locked(struct movable_pool *pool,
				   struct vm_fault *vmf, struct page *page)
{
	struct movable_pool *owner = mp_vm_pool(page);
	unsigned long *word = mp_page_word(page);
	pgoff_t index;

	if (owner == pool) {
		/* freed since the lookup; the VM still holds it */
		if (*word & MP_FREED)
			return VM_FAULT_NOPAGE;
		index = mp_page_index(page);
		if (index == vmf->pgoff)
			return vmf_insert_pfn(vmf->vma, vmf->address,
					      page_to_pfn(page));
		/* elsewhere, nothing would zap it before the page moves */
		mp_misuse(pool, "%s: page of index %lx mapped at offset %lx\n",
			  pool->name, index, vmf->pgoff);
		return VM_FAULT_SIGBUS;
	}
	if (!owner && (*word & ~MP_INDEX) == MP_GONE) {
		/* moved or freed since the lookup: the driver looks again */
		if (!mp_stale_fault(word))
			return VM_FAULT_NOPAGE;
		mp_misuse(pool, "%s: page %lx left the pool, yet faults keep mapping it\n",
			  pool->name, page_to_pfn(page));
		return VM_FAULT_SIGBUS;
	}
	mp_misuse(pool, "%s: fault on page %lx of %s\n", pool->name,
		  page_to_pfn(page), owner ? "another pool" : "no pool");
	return VM_FAULT_SIGBUS;
}

/* The checks of movable_pool_insert_pfn() on @pool (alive) and the VMA. */
static bool mp_fault_ok(struct movable_pool *live, struct movable_pool *pool,
			struct vm_area_struct *vma)
{
	if (live != pool) {
		mp_misuse(live, "%s: a fault given another pool\n", live->name);
		return false;
	}
	/* vmf_insert_pfn() would BUG() on a copy-on-write PFN mapping */
	if (!(vma->vm_flags & VM_MAYSHARE) ||
	    (vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP)) != VM_PFNMAP) {
		mp_misuse(live, "%s: a VMA not set up by movable_pool_mmap()\n",
			  live->name);
		return false;
	}
	return true;
}

vm_fault_t movable_pool_insert_pfn(struct movable_pool *pool,
				   struct vm_fault *vmf, struct page *page)
{
	struct movable_pool *live = mp_file_pool(vmf->vma->vm_file);
	vm_fault_t ret = VM_FAULT_SIGBUS;

	/* never @pool itself: the device may be gone, and its pool with it */
	if (IS_ERR(live)) {
		mp_misuse(NULL, "a fault on a VMA not mapped through a pool\n");
		return VM_FAULT_SIGBUS;
	}
	if (!live)
		return VM_FAULT_SIGBUS;	/* destroyed: as a device unplugged */
	if (mp_fault_ok(live, pool, vmf->vma)) {
		/* the page lock orders us against the zap before a move or a free */
		ret = mp_lock_page_for_fault(page, vmf);
		if (!ret) {
			ret = mp_insert_locked(live, vmf, page);
			unlock_page(page);
		}
	}
	mp_put(live);
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_insert_pfn);

int movable_pool_mmap(struct movable_pool *pool, struct vm_area_struct *vma)
{
	struct movable_pool *live = mp_file_pool(vma->vm_file);
	int ret = -EINVAL;

	if (IS_ERR(live)) {
		mp_misuse(NULL, "mmap of a file not set up by movable_pool_open()\n");
		return -EINVAL;
	}
	if (!live)
		return -ENODEV;
	if (live != pool)
		mp_misuse(live, "%s: mmap given another pool\n", live->name);
	/* a user's choices, refused quietly: copy-on-write, the offset */
	else if ((vma->vm_flags & VM_MAYSHARE) &&
		 vma->vm_pgoff + vma_pages(vma) - 1 <= MOVABLE_POOL_MAX_INDEX)
		ret = 0;
	if (!ret)
		mp_vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	mp_put(live);
	return ret;
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
	int ret;

	if (!pool || !file)
		return -EINVAL;
	if (!mp_get(pool))
		return -ENODEV;
	/* PageOffline(): kdump and hibernation do not keep the contents */
	if (pool->ops->flags & MOVABLE_POOL_OFFLINE_PAGES) {
		mp_misuse(pool, "%s: user mappings of offline pages\n",
			  pool->name);
		ret = -EINVAL;
	} else {
		ret = simple_pin_fs(&mp_fs_type, &mp_mnt, &mp_mnt_count);
	}
	if (!ret) {
		ihold(pool->inode);
		file->f_mapping = pool->inode->i_mapping;
	}
	mp_put(pool);
	return ret;
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
	int ret;

	if (!name || !*name || !ops || !ops->migrate ||
	    (ops->flags & ~MOVABLE_POOL_OFFLINE_PAGES))
		return ERR_PTR(-EINVAL);
	if (offline && !mp_vm_offline_supported())
		return ERR_PTR(-EOPNOTSUPP);

	pool = kzalloc(struct_size(pool, name, strlen(name) + 1), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	strscpy(pool->name, name, strlen(name) + 1);
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
	init_waitqueue_head(&pool->drained);
	init_completion(&pool->no_users);
	pool->ops = ops;
	pool->priv = priv;
	ret = percpu_ref_init(&pool->users, mp_no_users, 0, GFP_KERNEL);
	if (ret)
		goto err_free;
	pool->inode = mp_inode_new();
	if (IS_ERR(pool->inode)) {
		ret = PTR_ERR(pool->inode);
		goto err_ref;
	}
	pool->inode->i_private = pool;
	mp_vm_init(&pool->vm, pool->inode, pool, offline);

	/* an id keeps directories unique when drivers reuse a name */
	pool->id = atomic_inc_return(&mp_pool_ids);
	snprintf(dirname, sizeof(dirname), "%s-%u", name, pool->id);
	pool->debugfs = debugfs_create_dir(dirname, mp_debugfs_root);
	debugfs_create_file("stats", 0444, pool->debugfs, pool,
			    &mp_stats_fops);
	return pool;

err_ref:
	percpu_ref_exit(&pool->users);
err_free:
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

/* What destroy did with a page it found on the list. */
enum mp_left {
	MP_LEFT_GONE,		/* it had left the list meanwhile */
	MP_LEFT_FREED,		/* freed: the driver forgot it */
	MP_LEFT_PINNED,		/* pinned: let go of, never freed */
	MP_LEFT_STRANGER,	/* freed; the kernel never made it movable */
	MP_LEFT_KINDS
};

/*
 * Let go of a page (locked) that destroy found first on the list. Every
 * page there is the pool's and none is isolated, so each goes: one that
 * does not lead back to the pool (the kernel never made it movable) too,
 * so that the drain cannot spin on it. A pinned page is in use by a
 * device, so it is detached but never freed: it leaks, with a warning.
 */
static enum mp_left mp_destroy_page(struct movable_pool *pool,
				    struct page *page)
{
	bool ours = mp_page_pool(page) == pool;
	enum mp_left left = MP_LEFT_FREED;
	unsigned long flags;

	mp_zap(pool, mp_page_index(page));
	spin_lock_irqsave(&pool->lock, flags);
	/* a free racing destroy may have taken it first (a driver bug) */
	if (list_first_entry_or_null(&pool->pages, struct page, lru) != page) {
		spin_unlock_irqrestore(&pool->lock, flags);
		return MP_LEFT_GONE;
	}
	list_del(&page->lru);
	mp_count_gone(pool);
	if (ours && mp_pins(*mp_page_word(page))) {
		pool->stats.pinned--;
		left = MP_LEFT_PINNED;
	}
	if (ours) {
		mp_detach(pool, page);
	} else {
		/* not movable: mp_vm_detach() has only the type to undo */
		mp_vm_untype(page, &pool->vm);
		set_page_private(page, 0);
		WRITE_ONCE(*mp_page_word(page), MP_GONE);
		left = MP_LEFT_STRANGER;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	if (left != MP_LEFT_PINNED)
		put_page(page);		/* the pool's reference */
	return left;
}

/* Let go of every page on the list; warn about those the driver left. */
static void mp_destroy_pages(struct movable_pool *pool)
{
	unsigned long left[MP_LEFT_KINDS] = {};
	struct page *page;

	while ((page = mp_first_page(pool))) {
		lock_page(page);
		left[mp_destroy_page(pool, page)]++;
		unlock_page(page);
		put_page(page);
	}
	if (left[MP_LEFT_FREED])
		mp_misuse(pool, "%s: destroyed with %lu pages not freed\n",
			  pool->name, left[MP_LEFT_FREED]);
	if (left[MP_LEFT_PINNED])
		mp_misuse(pool, "%s: destroyed with %lu pages pinned; leaking them\n",
			  pool->name, left[MP_LEFT_PINNED]);
	if (left[MP_LEFT_STRANGER])
		mp_misuse(pool, "%s: %lu pages were never made movable\n",
			  pool->name, left[MP_LEFT_STRANGER]);
}

/* Let go of the pool's address_space, unless files still map it blindly. */
static void mp_destroy_inode(struct movable_pool *pool)
{
	struct inode *inode = pool->inode;

	unmap_mapping_range(inode->i_mapping, 0, 0, 1);
	WRITE_ONCE(inode->i_private, NULL);
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
	unsigned long flags;

	if (!pool)
		return;
	if (mp_atomic()) {
		mp_misuse(pool, "%s: destroyed in atomic context; leaking it\n",
			  pool->name);
		return;
	}

	spin_lock_irqsave(&pool->lock, flags);
	pool->dying = true;
	spin_unlock_irqrestore(&pool->lock, flags);
	/* new allocations, opens and faults fail; wait for those under way */
	percpu_ref_kill(&pool->users);
	wait_for_completion(&pool->no_users);
	wait_event(pool->drained, mp_none_isolated(pool));

	/* every page of the pool is on the list now */
	mp_destroy_pages(pool);
	debugfs_remove_recursive(pool->debugfs);
	mp_destroy_inode(pool);
	percpu_ref_exit(&pool->users);
	/* pin and unpin may still be looking at it (see the top) */
	kfree_rcu(pool, rcu);
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
	BUILD_BUG_ON(FIELD_MAX(MP_INDEX) < MP_STALE_FAULTS);
	ret = mp_vm_register();
	if (ret) {
		pr_err("cannot register with the migration core: %d\n", ret);
		return ret;
	}
	mp_debugfs_root = debugfs_create_dir("movable_pool", NULL);
	debugfs_create_atomic_t("misuse", 0444, mp_debugfs_root,
				&mp_misuse_total);
	return 0;
}

static void __exit movable_pool_exit(void)
{
	debugfs_remove_recursive(mp_debugfs_root);
	mp_vm_unregister();
	/* a pool's last user reference may drop in an RCU callback */
	rcu_barrier();
}

/* Ahead of built-in users (the balloon); module_init() in a module */
subsys_initcall(movable_pool_init);
module_exit(movable_pool_exit);

MODULE_DESCRIPTION("Movable driver pages: compaction, CMA and offlining can migrate them");
MODULE_VERSION(__stringify(MOVABLE_POOL_VERSION));
MODULE_LICENSE("GPL");
