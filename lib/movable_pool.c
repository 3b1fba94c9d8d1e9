// SPDX-License-Identifier: GPL-2.0
/*
 * movable_pool: driver pages that compaction, CMA and offlining may migrate.
 *
 * The lock order and the page layout are in include/linux/movable_pool.h
 * ("Lock order", "Page layout"). What this file adds to them:
 *
 * - A page's word (mp_page_word()) holds its index, its pin count and its
 *   state (enum mp_state), and changes with cmpxchg(): pins anywhere, the
 *   state under pool->lock where the page joins or leaves the pool's list.
 *   The library takes no page lock (but where destroy leaks a page,
 *   mp_vm_leak()); the migration core may hold it around the callbacks,
 *   or not: they rely on the word alone.
 * - pool->lock guards the list and the counters that are not atomics. It
 *   is never taken in interrupt context: pages allocated there wait on
 *   pool->deferred until the next holder of the lock lists them.
 *   movable_pool_take_pages() and destroy change words under it.
 * - Pinned pages are never isolated, freed or let go by destroy; only an
 *   unpinned page enters MP_MIGRATING, and pin fails with -EAGAIN while it
 *   is there. So the routine never runs on a page a device or the CPU is
 *   using, and no device uses a page the pool let go.
 * - A page the driver frees while the VM holds it isolated becomes
 *   MP_FREED, until the VM hands it back through putback or migrate, which
 *   detach it and drop the pool's reference. A free that finds the page
 *   migrating waits for the migration to end, so the routine never runs
 *   for a page after its free returned.
 * - A page the routine drops (MOVABLE_POOL_MIGRATE_DROP) leaves the pool as
 *   the old page of a successful migration does, and the new page as after
 *   a failed one: the VM, told of success, frees both.
 * - A page that left a pool keeps MP_GONE in its word until it is reused,
 *   so the fault helper can tell a page that moved or was freed since the
 *   driver looked it up from one the driver should never have had.
 * - User mappings: a page leaves the pool (MP_MIGRATING, MP_LEAVING) before
 *   its PTEs are zapped, and the fault helper reads the word again after it
 *   inserted a PTE, zapping its own if the page left meanwhile: of the
 *   store each side makes before the other's read, one sees the other's.
 *
 * Pool lifetime. movable_pool_destroy() frees the pool once (1) no call
 * that may race it holds a live reference (pool->users: allocation,
 * add_page, open, mmap and faults take one, or fail with -ENODEV once
 * destroy has begun), (2) the VM holds no page isolated, and (3) every
 * listed page has left; and it frees the memory an RCU grace period later.
 * So library code may touch a pool only while it holds one of these (a
 * live reference, an isolated page still counted, a page still in the
 * pool), or inside an RCU read-side section that began while it did (pin
 * and unpin, and the callbacks, reach the pool from a page whose state
 * they have not read yet). What follows the point where the last of them
 * goes (a tracepoint, a misuse count) uses values read before it or runs
 * under rcu_read_lock(). A pool a call reaches in no such way is not
 * dereferenced: its misuse is counted globally (debugfs
 * movable_pool/misuse).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/list.h>
#include <linux/llist.h>
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
#include <linux/wait_bit.h>

#define MOVABLE_POOL_MAGIC	0x6d706f6f	/* "mpoo" */

#define MP_VM_CALLBACKS	/* defined below, adapted per kernel */
#include "movable_pool_compat.h"

#define CREATE_TRACE_POINTS
#include <trace/events/movable_pool.h>

/* A page's word: its index, then its pin count, then its state. */
#define MP_INDEX	GENMASK(MOVABLE_POOL_INDEX_BITS - 1, 0)
#define MP_PINS		GENMASK(BITS_PER_LONG - 4, MOVABLE_POOL_INDEX_BITS)
#define MP_STATE	GENMASK(BITS_PER_LONG - 1, BITS_PER_LONG - 3)
#define MP_ONE_PIN	BIT(MOVABLE_POOL_INDEX_BITS)

enum mp_state {
	MP_LISTED,	/* on the pool's list */
	MP_ISOLATED,	/* the VM holds it */
	MP_MIGRATING,	/* unpinned, the routine may run: pins get -EAGAIN */
	MP_FREED,	/* freed while isolated: the VM hands it back */
	MP_NEW,		/* the pool's, not listed yet (deferred, or a dst) */
	MP_LEAVING,	/* off the list, being let go of */
	MP_GONE = 7,	/* left the pool: see MP_GONE_WORD */
};

#define MP_IN_POOL	(BIT(MP_LISTED) | BIT(MP_ISOLATED) | BIT(MP_NEW))

/*
 * The word of a page that left a pool: MP_GONE and a tag in the pin bits,
 * which neither a page index nor a kernel pointer (a slab's freelist
 * shares the word) has; the index bits count the faults that found the
 * page gone.
 */
#define MP_GONE_WORD	(FIELD_PREP(MP_STATE, MP_GONE) | FIELD_PREP(MP_PINS, 0xa5a))

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
	spinlock_t lock;		/* the list, ->stats; never in interrupts */
	struct list_head pages;		/* through page->lru, MP_LISTED pages */
	struct llist_head deferred;	/* MP_NEW pages allocated in interrupts */
	bool dying;			/* refuse isolation and new pages */
	wait_queue_head_t drained;	/* destroy waits for isolated pages */
	struct percpu_ref users;	/* calls that may race destroy */
	struct completion no_users;	/* users dropped to zero */
	struct movable_pool_stats stats;	/* but for the three below */
	atomic_long_t pinned, pin_busy, misuse;
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
	atomic_inc(&mp_misuse_total);
	trace_movable_pool_misuse(pool ? pool->id : 0, _RET_IP_);
	if (pool)
		atomic_long_inc(&pool->misuse);
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
 * call that may sleep is refused there before it sleeps, not only when it
 * would have to wait.
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

static enum mp_state mp_state(unsigned long word)
{
	return FIELD_GET(MP_STATE, word);
}

static unsigned long mp_pins(unsigned long word)
{
	return FIELD_GET(MP_PINS, word);
}

static unsigned long mp_with_state(unsigned long word, enum mp_state state)
{
	return (word & ~MP_STATE) | FIELD_PREP(MP_STATE, state);
}

/*
 * Move @page's word from a state in @from (a mask of BIT(state)), and no
 * pins if @unpinned, to @to, keeping index and pins. Returns the word it
 * found: the move happened if that is one it may move from.
 */
static unsigned long mp_move_state(struct page *page, unsigned int from,
				   bool unpinned, enum mp_state to)
{
	unsigned long *word = mp_page_word(page);
	unsigned long old = READ_ONCE(*word), seen;

	for (;;) {
		if (!(from & BIT(mp_state(old))) || (unpinned && mp_pins(old)))
			return old;
		seen = cmpxchg(word, old, mp_with_state(old, to));
		if (seen == old)
			return old;
		old = seen;
	}
}

/* Whether mp_move_state() returning @old made the move. */
static bool mp_moved(unsigned long old, unsigned int from, bool unpinned)
{
	return (from & BIT(mp_state(old))) && !(unpinned && mp_pins(old));
}

/*
 * The pool a page belongs to, or NULL for any other page, a page that left
 * its pool, and one the driver freed while the VM held it isolated. Under
 * rcu_read_lock() (see the top), or with the page known to stay the pool's.
 */
static struct movable_pool *mp_page_pool(struct page *page)
{
	struct movable_pool *pool = mp_vm_pool(page);

	if (!pool || !(MP_IN_POOL & BIT(mp_state(READ_ONCE(*mp_page_word(page))))))
		return NULL;
	return pool;
}

/* The index of a pool page; its bits never change while it is attached. */
static pgoff_t mp_page_index(struct page *page)
{
	return FIELD_GET(MP_INDEX, READ_ONCE(*mp_page_word(page)));
}

/*
 * Make @page, which nobody else uses, a page of @pool in @state. The VM may
 * find it from now on, and the callbacks check the word.
 */
static void mp_attach(struct movable_pool *pool, struct page *page,
		      void *owner, pgoff_t index, enum mp_state state)
{
	unsigned long *word = mp_page_word(page);

	set_page_private(page, (unsigned long)owner);
	/*
	 * In no pool until ->mapping leads to @pool: on 6.x it may still
	 * lead to a pool the page left.
	 */
	WRITE_ONCE(*word, MP_GONE_WORD);
	mp_vm_attach(page, &pool->vm);
	/* pairs with mp_still_in(): who reads @state finds ->mapping set */
	smp_store_release(word, FIELD_PREP(MP_STATE, state) | index);
}

/*
 * Whether @page is still in @pool, at @index unless that is ULONG_MAX. A
 * page may leave one pool and join another (or the same at another index)
 * between a lookup and a change to its word: compare the word's state and
 * index with the pool its ->mapping leads to, read after the word.
 */
static bool mp_still_in(struct movable_pool *pool, struct page *page,
			unsigned long index)
{
	/* pairs with mp_attach(): a word of another pool shows its ->mapping */
	unsigned long word = smp_load_acquire(mp_page_word(page));
	bool ours;

	if (!(MP_IN_POOL & BIT(mp_state(word))) ||
	    (index != ULONG_MAX && FIELD_GET(MP_INDEX, word) != index))
		return false;
	rcu_read_lock();
	ours = mp_vm_pool(page) == pool;
	rcu_read_unlock();
	return ours;
}

/* Wake who waits (wait_var_event()) for the change just made to @word. */
static void mp_wake(unsigned long *word)
{
	/* orders that store before wake_up_var()'s look at the waitqueue */
	smp_mb();
	wake_up_var(word);
}

/*
 * Undo mp_attach() for a page that left the pool (its word's state says
 * so, and only this caller changes it now).
 */
static void mp_detach(struct movable_pool *pool, struct page *page)
{
	set_page_private(page, 0);
	WRITE_ONCE(*mp_page_word(page), MP_GONE_WORD);
	mp_vm_detach(page, &pool->vm);
}

/* Zap the user mappings of the page at @index in @pool. */
static void mp_zap(struct movable_pool *pool, pgoff_t index)
{
	struct address_space *mapping = pool->inode->i_mapping;

	if (mapping_mapped(mapping))
		unmap_mapping_range(mapping, (loff_t)index << PAGE_SHIFT,
				    PAGE_SIZE, 1);
}

/* List the pages allocated in interrupt context (pool->lock held). */
static void mp_list_deferred(struct movable_pool *pool)
{
	struct llist_node *node, *next;
	struct page *page;

	lockdep_assert_held(&pool->lock);
	if (llist_empty(&pool->deferred))
		return;
	for (node = llist_del_all(&pool->deferred); node; node = next) {
		next = node->next;
		page = container_of((struct list_head *)node, struct page, lru);
		/* the driver may have pinned it meanwhile: keep the pins */
		mp_move_state(page, BIT(MP_NEW), false, MP_LISTED);
		list_add_tail(&page->lru, &pool->pages);
		pool->stats.pages++;
		pool->stats.allocated++;
	}
}

/* Take pool->lock: every page of the pool in MP_LISTED is then listed. */
static void mp_lock(struct movable_pool *pool)
	__acquires(&pool->lock)
{
	spin_lock(&pool->lock);
	mp_list_deferred(pool);
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
 * The VM hands back @page, which the driver freed while it was isolated:
 * detach it and drop the pool's reference; the VM frees it. Returns false
 * for any other page.
 */
static bool mp_handback_freed(struct movable_pool *pool, struct page *page)
{
	/* only the VM, which holds the page, moves it out of MP_FREED */
	if (mp_state(READ_ONCE(*mp_page_word(page))) != MP_FREED)
		return false;
	mp_detach(pool, page);
	spin_lock(&pool->lock);
	/* once the count drops, destroy may free the pool */
	mp_isolated_dec(pool);
	spin_unlock(&pool->lock);
	put_page(page);
	return true;
}

static bool mp_isolate_page(struct page *page, isolate_mode_t mode)
{
	struct movable_pool *pool;
	unsigned long old;
	int result = 0;

	/* the page may be leaving a pool that destroy then frees */
	rcu_read_lock();
	pool = mp_page_pool(page);
	if (!pool)
		goto out;
	/*
	 * Mapped with vm_insert_page(), outside the pool's address_space:
	 * nothing could zap that mapping, so the page must never move.
	 */
	if (mp_page_user_mapped(page)) {
		mp_misuse(pool, "%s: page %lx is mapped outside the pool (vm_insert_page()?)\n",
			  pool->name, page_to_pfn(page));
		result = -EPERM;
	} else {
		mp_lock(pool);
		if (pool->dying) {
			/* destroy is letting pages go: leave them alone */
			result = -ENODEV;
		} else if (!mp_still_in(pool, page, ULONG_MAX)) {
			/*
			 * It left @pool since the lookup. A listed page of
			 * @pool cannot leave while we hold the lock.
			 */
			result = -ENOENT;
		} else {
			old = mp_move_state(page, BIT(MP_LISTED), true,
					    MP_ISOLATED);
			if (mp_moved(old, BIT(MP_LISTED), true)) {
				/* the VM links it into its own list */
				list_del(&page->lru);
				pool->stats.isolated++;
			} else if (mp_pins(old)) {
				pool->stats.pin_refused++;
				result = -EBUSY;
			} else {
				result = -ENOENT;	/* not listed (yet) */
			}
		}
		spin_unlock(&pool->lock);
	}
	trace_movable_pool_isolate(pool->id, page_to_pfn(page), result);
out:
	rcu_read_unlock();
	return pool && !result;
}

static void mp_putback_page(struct page *page)
{
	struct movable_pool *pool = mp_vm_pool(page);
	/* read now: once the page is back, destroy may free the pool */
	unsigned int id = pool->id;
	unsigned long old;

	mp_lock(pool);
	/* pins taken while isolated stay */
	old = mp_move_state(page, BIT(MP_ISOLATED), false, MP_LISTED);
	if (mp_state(old) != MP_ISOLATED) {
		/* the driver freed it, before or while we got here */
		spin_unlock(&pool->lock);
		mp_handback_freed(pool, page);
		return;
	}
	list_add_tail(&page->lru, &pool->pages);
	pool->stats.putback++;
	mp_isolated_dec(pool);
	spin_unlock(&pool->lock);
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

/*
 * Enter MP_MIGRATING, or count a failed attempt and say why not; 1 if the
 * driver freed the page meanwhile (the caller hands it back).
 */
static int mp_begin_migration(struct movable_pool *pool, struct page *src,
			      enum migrate_mode mode)
{
	unsigned long old;
	int ret = 0;

	/* mapped by vm_insert_page() since it was isolated */
	if (mp_page_user_mapped(src)) {
		mp_misuse(pool, "%s: page %lx is mapped outside the pool (vm_insert_page()?)\n",
			  pool->name, page_to_pfn(src));
		ret = -EPERM;
	} else if (mp_mode_unsupported(mode)) {
		ret = -EINVAL;
	} else if (READ_ONCE(pool->dying)) {
		ret = -ENODEV;	/* not -EAGAIN: hand it back to destroy now */
	} else if (!mp_may_zap(pool->inode->i_mapping, mode)) {
		ret = -EAGAIN;
	} else {
		old = mp_move_state(src, BIT(MP_ISOLATED), true, MP_MIGRATING);
		if (mp_state(old) == MP_FREED)
			return 1;
		if (!mp_moved(old, BIT(MP_ISOLATED), true))
			ret = -EAGAIN;	/* pinned since it was isolated */
	}
	spin_lock(&pool->lock);
	if (ret)
		pool->stats.migrate_failed++;
	else
		pool->stats.migrating++;
	spin_unlock(&pool->lock);
	return ret;
}

/*
 * Leave MP_MIGRATING. On success @dst takes @src's place in the pool and
 * @src leaves it; when the routine dropped @src, both leave it; on failure
 * @dst leaves it. Frees and faults waiting for the migration go on.
 */
static void mp_end_migration(struct movable_pool *pool, struct page *dst,
			     struct page *src, int rc)
{
	unsigned long *src_word = mp_page_word(src), dst_pins = 0;
	bool dropped = rc == MOVABLE_POOL_MIGRATE_DROP;

	if (rc) {
		/* pinned only by a routine that broke the contract */
		dst_pins = mp_pins(xchg(mp_page_word(dst), MP_GONE_WORD));
		if (dst_pins)
			atomic_long_dec(&pool->pinned);
		set_page_private(dst, 0);
		mp_vm_detach_dst(dst, &pool->vm);
	}
	if (!rc || dropped)
		mp_detach(pool, src);	/* a late pin finds src gone */
	else	/* no pin could change it: MP_MIGRATING refuses them */
		WRITE_ONCE(*src_word, mp_with_state(*src_word, MP_ISOLATED));
	mp_wake(src_word);

	/* a dropped src is the last thing keeping the pool alive: see the top */
	rcu_read_lock();
	mp_lock(pool);
	pool->stats.migrating--;
	if (!rc) {
		mp_move_state(dst, BIT(MP_NEW), false, MP_LISTED);
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
	/* the core clears the isolation itself; no putback follows */
	if (!rc || dropped)
		mp_isolated_dec(pool);
	spin_unlock(&pool->lock);
	/* a free of the published dst waits for it to be listed, or gone */
	mp_wake(mp_page_word(dst));
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

	/* src is MP_MIGRATING: a fault from now on maps nothing of it */
	mp_zap(pool, index);

	/* dst is ours before the routine publishes it, so pins see it */
	mp_attach(pool, dst, owner, index, MP_NEW);
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
	if (rc == 1) {
		mp_handback_freed(pool, src);
		return 0;
	}
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

/* Give back @nr fresh pages destroy came too late for; clear their slots. */
static int mp_too_late(struct page **pages, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		put_page(pages[i]);
		pages[i] = NULL;
	}
	return -ENODEV;
}

/*
 * Make fresh pages the pool's and list them in one go, or in interrupt
 * context (where pool->lock is never taken) leave them MP_NEW on
 * pool->deferred for the next holder of the lock. Returns 0, or -ENODEV
 * with the pages freed and their slots cleared if destroy has begun: it
 * may not find them on the list any more.
 */
static int mp_add_fresh(struct movable_pool *pool, struct page **pages,
			unsigned int nr, void *owner, pgoff_t index)
{
	unsigned int i;

	if (in_interrupt()) {
		/* a page added after destroy's check is freed with the rest */
		if (READ_ONCE(pool->dying))
			return mp_too_late(pages, nr);
		for (i = 0; i < nr; i++) {
			mp_attach(pool, pages[i], owner, index + i, MP_NEW);
			llist_add((struct llist_node *)&pages[i]->lru,
				  &pool->deferred);
		}
		return 0;
	}
	spin_lock(&pool->lock);
	if (pool->dying) {
		spin_unlock(&pool->lock);
		return mp_too_late(pages, nr);
	}
	/* the VM finds them now, and waits for the lock to isolate them */
	for (i = 0; i < nr; i++) {
		mp_attach(pool, pages[i], owner, index + i, MP_LISTED);
		list_add_tail(&pages[i]->lru, &pool->pages);
	}
	pool->stats.pages += nr;
	pool->stats.allocated += nr;
	spin_unlock(&pool->lock);
	return 0;
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

/* Make @page (the caller's) a page of @pool (alive). */
static int mp_adopt(struct movable_pool *pool, struct page *page,
		    void *owner, pgoff_t index)
{
	int ret = 0;

	if (mp_atomic()) {
		mp_misuse(pool, "%s: adding a page in atomic context\n",
			  pool->name);
		return -EINVAL;
	}
	/* a page taken from a pool keeps its mark: it is adoptable too */
	if (PageCompound(page) || page_ref_count(page) < 1 ||
	    !mp_vm_adoptable(page, &pool->vm) ||
	    (mp_vm_pool(page) && mp_state(READ_ONCE(*mp_page_word(page))) != MP_GONE)) {
		mp_misuse(pool, "%s: adding page %lx, which is not a plain page\n",
			  pool->name, page_to_pfn(page));
		return -EINVAL;
	}
	spin_lock(&pool->lock);
	if (pool->dying) {
		ret = -ENODEV;
	} else {
		mp_attach(pool, page, owner, index, MP_LISTED);
		list_add_tail(&page->lru, &pool->pages);
		pool->stats.pages++;
		pool->stats.allocated++;
	}
	spin_unlock(&pool->lock);
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

/*
 * Start letting go of @page for a free of @pool: MP_LEAVING for a listed
 * page (the caller takes it off the list), MP_FREED for one the VM holds
 * (the VM hands it back; the caller gets a reference to the page, which
 * the VM may free before the caller has zapped it). Waits for a migration
 * under way to end, and for a migration's new page to be listed. Returns
 * the state it moved the page from and the page's @index, or MP_GONE with
 * the reason warned about (@pool is named only when the page shows it is
 * alive).
 */
static enum mp_state mp_begin_free(struct movable_pool *pool,
				   struct page *page, pgoff_t *index)
{
	unsigned long *word = mp_page_word(page), old;
	enum mp_state state, to;
	bool ours;

	for (;;) {
		rcu_read_lock();
		ours = mp_vm_pool(page) == pool;
		rcu_read_unlock();
		old = READ_ONCE(*word);
		state = mp_state(old);
		if (!ours || !(BIT(state) & (MP_IN_POOL | BIT(MP_MIGRATING))))
			break;
		if (state == MP_MIGRATING) {
			wait_var_event(word, mp_state(READ_ONCE(*word)) != MP_MIGRATING);
			continue;
		}
		if (state == MP_NEW) {
			/* allocated in an interrupt: list it first */
			mp_lock(pool);
			spin_unlock(&pool->lock);
			/* else a migration's dst the routine published */
			wait_var_event(word, mp_state(READ_ONCE(*word)) != MP_NEW);
			continue;
		}
		if (mp_pins(old)) {
			mp_misuse(pool, "%s: freeing page %lx while it is pinned\n",
				  pool->name, page_to_pfn(page));
			return MP_GONE;
		}
		to = state == MP_LISTED ? MP_LEAVING : MP_FREED;
		/* isolated: the VM's reference keeps it until the state moves */
		if (to == MP_FREED && !get_page_unless_zero(page))
			break;
		if (cmpxchg(word, old, mp_with_state(old, to)) == old) {
			*index = FIELD_GET(MP_INDEX, old);
			return state;
		}
		if (to == MP_FREED)
			put_page(page);
	}
	/* a page of no pool, or freed: @pool may be gone too */
	mp_misuse(NULL, "freeing page %lx that is not in this pool\n",
		  page_to_pfn(page));
	return MP_GONE;
}

void movable_pool_free_page(struct movable_pool *pool, struct page *page)
{
	enum mp_state from;
	pgoff_t index;

	if (!pool || !page || mp_refuse_atomic("freeing a page"))
		return;
	from = mp_begin_free(pool, page, &index);
	if (from == MP_GONE)
		return;
	/* leaving the pool: destroy waits for it, so @pool lives */
	if (mp_page_user_mapped(page))
		mp_misuse(pool, "%s: freeing page %lx mapped by vm_insert_page()?\n",
			  pool->name, page_to_pfn(page));
	mp_lock(pool);
	mp_count_gone(pool);
	if (from == MP_LISTED)
		list_del(&page->lru);
	else
		pool->stats.freed_isolated++;
	spin_unlock(&pool->lock);
	/* no user PTE may outlive the page's time in the pool */
	mp_zap(pool, index);
	if (from == MP_LISTED)
		mp_detach(pool, page);
	/* the pool's reference, or mp_begin_free()'s on an isolated page */
	put_page(page);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_free_page);

/*
 * Move the pages of @pages that can leave @pool at once (listed, unpinned,
 * not mapped outside the pool) to MP_LEAVING, and gather them at the
 * front. Returns how many.
 */
static unsigned int mp_gather_idle(struct movable_pool *pool,
				   struct page **pages, unsigned int nr)
{
	unsigned int i, n = 0;
	struct page *page;
	bool ours;

	for (i = 0; i < nr; i++) {
		page = pages[i];
		if (!page)
			continue;
		rcu_read_lock();
		ours = mp_vm_pool(page) == pool;
		rcu_read_unlock();
		/* a second entry of a gathered page finds it MP_LEAVING */
		if (!ours || mp_page_user_mapped(page) ||
		    !mp_moved(mp_move_state(page, BIT(MP_LISTED), true,
					    MP_LEAVING), BIT(MP_LISTED), true))
			continue;
		pages[i] = pages[n];
		pages[n++] = page;
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
 * let go of (the first @n, MP_LEAVING and still ours) or another entry.
 * Returns how many.
 */
static unsigned int mp_drop_repeats(struct movable_pool *pool,
				    struct page **pages, unsigned int n,
				    unsigned int nr)
{
	unsigned int i, repeats = 0;
	bool ours;

	for (i = n; i < nr; i++) {
		if (!pages[i])
			continue;
		rcu_read_lock();
		ours = mp_vm_pool(pages[i]) == pool;
		rcu_read_unlock();
		if (ours &&
		    mp_state(READ_ONCE(*mp_page_word(pages[i]))) == MP_LEAVING) {
			pages[i] = NULL;
			repeats++;
		}
	}
	/* the rest go one by one; rarely more than a few */
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
	repeats = mp_drop_repeats(pool, pages, n, nr);
	if (n) {
		mp_lock(pool);
		for (i = 0; i < n; i++) {
			list_del(&pages[i]->lru);
			mp_count_gone(pool);
		}
		spin_unlock(&pool->lock);
	}
	for (i = 0; i < n; i++) {
		mp_zap(pool, mp_page_index(pages[i]));
		mp_detach(pool, pages[i]);
	}
	release_pages(pages, n);
	if (repeats)
		mp_misuse(NULL, "freeing %u pages twice in one batch\n", repeats);
	/* pages the VM holds, and pages to warn about, one by one */
	for (i = n; i < nr; i++)
		movable_pool_free_page(pool, pages[i]);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_free_pages);

/*
 * Under pool->lock: move up to @nr idle pages of @pool (of @owner only,
 * unless @any) to MP_LEAVING and to @pages, and the busy ones and other
 * owners' passed over to the back of the list.
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
		if ((!any && (void *)page_private(page) != owner) ||
		    !mp_moved(mp_move_state(page, BIT(MP_LISTED), true,
					    MP_LEAVING), BIT(MP_LISTED), true)) {
			list_move_tail(&page->lru, &busy);
			skipped++;
			continue;
		}
		pages[n++] = page;
		list_del(&page->lru);
		mp_count_gone(pool);
	}
	list_splice_tail(&busy, &pool->pages);
	return n;
}

static unsigned int mp_take(struct movable_pool *pool, bool any, void *owner,
			    struct page **pages, unsigned int nr)
{
	unsigned int i, n;

	if (!pool || !pages)
		return 0;
	mp_lock(pool);
	n = mp_take_locked(pool, any, owner, pages, nr);
	spin_unlock(&pool->lock);

	for (i = 0; i < n; i++) {
		mp_zap(pool, mp_page_index(pages[i]));
		mp_detach(pool, pages[i]);
	}
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
	unsigned long *word, old, seen;
	struct movable_pool *pool;
	int ret = -EINVAL;

	/* the pool outlives this section even if the page leaves it */
	rcu_read_lock();
	pool = page ? mp_vm_pool(page) : NULL;
	if (!pool)
		goto out;
	word = mp_page_word(page);
	for (old = READ_ONCE(*word); ; old = seen) {
		if (mp_state(old) == MP_MIGRATING) {
			ret = -EAGAIN;
			break;
		}
		if (!(MP_IN_POOL & BIT(mp_state(old))))
			break;
		if (mp_pins(old) == MOVABLE_POOL_MAX_PINS) {
			ret = -EBUSY;
			break;
		}
		seen = cmpxchg(word, old, old + MP_ONE_PIN);
		if (seen == old) {
			ret = 0;
			break;
		}
	}
	if (!ret && !mp_pins(old))
		atomic_long_inc(&pool->pinned);
	if (ret == -EAGAIN) {
		atomic_long_inc(&pool->pin_busy);
		trace_movable_pool_pin_busy(pool->id, page_to_pfn(page));
	}
	if (ret == -EBUSY)
		mp_misuse(pool, "%s: page %lx pinned %lu times\n", pool->name,
			  page_to_pfn(page), MOVABLE_POOL_MAX_PINS);
out:
	rcu_read_unlock();
	if (ret == -EINVAL)
		mp_misuse(NULL, "pinning a page that is not in a pool\n");
	return ret;
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_pin);

void movable_pool_unpin(struct page *page)
{
	unsigned long *word, old, seen;
	struct movable_pool *pool;
	bool done = false;

	rcu_read_lock();	/* as in movable_pool_pin() */
	pool = page ? mp_vm_pool(page) : NULL;
	if (pool) {
		word = mp_page_word(page);
		for (old = READ_ONCE(*word); ; old = seen) {
			if (!(MP_IN_POOL & BIT(mp_state(old))) || !mp_pins(old))
				break;
			seen = cmpxchg(word, old, old - MP_ONE_PIN);
			if (seen == old) {
				done = true;
				break;
			}
		}
	}
	if (done && mp_pins(old) == 1)
		atomic_long_dec(&pool->pinned);
	if (pool && !done)
		mp_misuse(pool, "%s: unpin of page %lx without a pin\n",
			  pool->name, page_to_pfn(page));
	rcu_read_unlock();
	if (!pool)
		mp_misuse(NULL, "unpinning a page that is not in a pool\n");
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_unpin);

void movable_pool_copy_page(struct page *dst, struct page *src)
{
	copy_highpage(dst, src);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_copy_page);

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
 * Wait for @page's migration to end, as filemap_fault() waits for a
 * folio: where the fault may be retried, without the fault's lock (the
 * routine takes the driver's lock). Returns VM_FAULT_RETRY, or 0 if the
 * fault may not be retried and waited holding its lock.
 */
static vm_fault_t mp_fault_wait(struct page *page, struct vm_fault *vmf)
{
	unsigned long *word = mp_page_word(page);

	if (!fault_flag_allow_retry_first(vmf->flags)) {
		wait_var_event(word, mp_state(READ_ONCE(*word)) != MP_MIGRATING);
		return 0;
	}
	if (!(vmf->flags & FAULT_FLAG_RETRY_NOWAIT)) {
		get_page(page);	/* the caller's reference may go with the lock */
		mp_release_fault_lock(vmf);
		if (vmf->flags & FAULT_FLAG_KILLABLE)
			wait_var_event_killable(word, mp_state(READ_ONCE(*word)) !=
						MP_MIGRATING);
		else
			wait_var_event(word, mp_state(READ_ONCE(*word)) !=
				       MP_MIGRATING);
		put_page(page);
	}
	return VM_FAULT_RETRY;
}

/*
 * A page the fault found gone (@word is its word). Once per fault that
 * looked it up before it moved or was freed is right; over and over means
 * the driver keeps handing it out.
 */
static bool mp_stale_fault(unsigned long *word)
{
	unsigned long old = READ_ONCE(*word);

	while ((old & ~MP_INDEX) == MP_GONE_WORD) {
		if (FIELD_GET(MP_INDEX, old) >= MP_STALE_FAULTS)
			return true;
		if (cmpxchg(word, old, old + 1) == old)
			return false;
		old = READ_ONCE(*word);
	}
	return false;	/* reused meanwhile: the driver looks again */
}

/*
 * Whether @page may be mapped for @vmf: its state and pool as read once,
 * the page's index. Warns about what only a driver bug explains.
 */
static vm_fault_t mp_fault_check(struct movable_pool *pool,
				 struct vm_fault *vmf, struct page *page,
				 unsigned long word, struct movable_pool *owner)
{
	pgoff_t index;

	if (owner == pool && (MP_IN_POOL & BIT(mp_state(word)))) {
		index = FIELD_GET(MP_INDEX, word);
		if (index == vmf->pgoff)
			return 0;
		/* elsewhere, nothing would zap it before the page moves */
		mp_misuse(pool, "%s: page of index %lx mapped at offset %lx\n",
			  pool->name, index, vmf->pgoff);
		return VM_FAULT_SIGBUS;
	}
	/* being freed or taken since the lookup, or freed while isolated */
	if (owner == pool &&
	    (mp_state(word) == MP_LEAVING || mp_state(word) == MP_FREED))
		return VM_FAULT_NOPAGE;
	if ((word & ~MP_INDEX) == MP_GONE_WORD) {
		/* moved or freed since the lookup: the driver looks again */
		if (!mp_stale_fault(mp_page_word(page)))
			return VM_FAULT_NOPAGE;
		mp_misuse(pool, "%s: page %lx left the pool, yet faults keep mapping it\n",
			  pool->name, page_to_pfn(page));
		return VM_FAULT_SIGBUS;
	}
	mp_misuse(pool, "%s: fault on page %lx of %s\n", pool->name,
		  page_to_pfn(page), owner ? "another pool" : "no pool");
	return VM_FAULT_SIGBUS;
}

/* Map @page for @vmf, if it is still the page of @pool there. */
static vm_fault_t mp_fault_insert(struct movable_pool *pool,
				  struct vm_fault *vmf, struct page *page)
{
	unsigned long *word = mp_page_word(page), seen;
	struct movable_pool *owner;
	vm_fault_t ret;

	for (;;) {
		rcu_read_lock();
		owner = mp_vm_pool(page);
		rcu_read_unlock();
		seen = READ_ONCE(*word);
		if (owner != pool || mp_state(seen) != MP_MIGRATING)
			break;
		ret = mp_fault_wait(page, vmf);
		if (ret)
			return ret;
	}
	ret = mp_fault_check(pool, vmf, page, seen, owner);
	if (ret)
		return ret;
	ret = vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(page));
	/*
	 * Pairs with the cmpxchg() that took the page out of the pool before
	 * its zap: if the page left (and maybe came back elsewhere), take
	 * back what was just inserted.
	 */
	smp_mb();
	if (!mp_still_in(pool, page, vmf->pgoff)) {
		mp_zap(pool, vmf->pgoff);
		return VM_FAULT_NOPAGE;
	}
	return ret;
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
	if (mp_fault_ok(live, pool, vmf->vma))
		ret = mp_fault_insert(live, vmf, page);
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
	init_llist_head(&pool->deferred);
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
	ret = mp_vm_init(&pool->vm, pool->inode, pool, offline);
	if (ret)
		goto err_inode;
	pool->inode->i_private = pool;

	/* an id keeps directories unique when drivers reuse a name */
	pool->id = atomic_inc_return(&mp_pool_ids);
	snprintf(dirname, sizeof(dirname), "%s-%u", name, pool->id);
	pool->debugfs = debugfs_create_dir(dirname, mp_debugfs_root);
	debugfs_create_file("stats", 0444, pool->debugfs, pool,
			    &mp_stats_fops);
	return pool;

err_inode:
	mp_inode_put(pool->inode);
err_ref:
	percpu_ref_exit(&pool->users);
err_free:
	kfree(pool);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_create);

static bool mp_none_isolated(struct movable_pool *pool)
{
	bool none;

	/* under the lock: the last waker still holds it while waking us */
	spin_lock(&pool->lock);
	none = !pool->stats.isolated;
	spin_unlock(&pool->lock);
	return none;
}

/*
 * Take the first page off @pool's list into MP_LEAVING, with @pins its pin
 * count then; NULL once the list is empty. Every page there is the pool's
 * and none is isolated, so each goes, pinned or not; one that never led
 * back to the pool (a kernel that did not make it movable) too, so that
 * the drain cannot spin on it.
 */
static struct page *mp_destroy_next(struct movable_pool *pool,
				    unsigned long *pins)
{
	struct page *page;
	unsigned long old;

	mp_lock(pool);
	page = list_first_entry_or_null(&pool->pages, struct page, lru);
	if (page) {
		old = mp_move_state(page, BIT(MP_LISTED), false, MP_LEAVING);
		*pins = mp_pins(old);
		if (*pins)
			atomic_long_dec(&pool->pinned);
		list_del(&page->lru);
		mp_count_gone(pool);
	}
	spin_unlock(&pool->lock);
	return page;
}

/*
 * Let go of every page on the list; warn about those the driver left. A
 * pinned page is in use by a device, so it is detached but never freed:
 * it leaks, with a warning.
 */
static void mp_destroy_pages(struct movable_pool *pool)
{
	unsigned long freed = 0, pinned = 0, strangers = 0, pins;
	struct page *page;

	while ((page = mp_destroy_next(pool, &pins))) {
		mp_zap(pool, mp_page_index(page));
		if (mp_vm_pool(page) != pool) {
			/* not movable: it has only its fields and type to undo */
			strangers++;
			set_page_private(page, 0);
			WRITE_ONCE(*mp_page_word(page), MP_GONE_WORD);
			mp_vm_untype(page, &pool->vm);
		} else {
			if (pins)
				pinned++;
			else
				freed++;
			mp_detach(pool, page);
		}
		if (pins)
			mp_vm_leak(page);
		else
			put_page(page);		/* the pool's reference */
		cond_resched();
	}
	if (freed)
		mp_misuse(pool, "%s: destroyed with %lu pages not freed\n",
			  pool->name, freed);
	if (pinned)
		mp_misuse(pool, "%s: destroyed with %lu pages pinned; leaking them\n",
			  pool->name, pinned);
	if (strangers)
		mp_misuse(pool, "%s: %lu pages were never made movable\n",
			  pool->name, strangers);
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
	if (!pool)
		return;
	if (mp_atomic()) {
		mp_misuse(pool, "%s: destroyed in atomic context; leaking it\n",
			  pool->name);
		return;
	}

	spin_lock(&pool->lock);
	pool->dying = true;
	spin_unlock(&pool->lock);
	/* new allocations, opens and faults fail; wait for those under way */
	percpu_ref_kill(&pool->users);
	wait_for_completion(&pool->no_users);
	wait_event(pool->drained, mp_none_isolated(pool));

	/* every page of the pool is on the list now */
	mp_destroy_pages(pool);
	debugfs_remove_recursive(pool->debugfs);
	mp_destroy_inode(pool);
	mp_vm_exit(&pool->vm);
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
	/* pool->lock is never taken in interrupts: read without it there */
	if (in_interrupt()) {
		memcpy(stats, &pool->stats, sizeof(*stats));
	} else {
		mp_lock(pool);
		*stats = pool->stats;
		spin_unlock(&pool->lock);
	}
	stats->pinned = atomic_long_read(&pool->pinned);
	stats->pin_busy = atomic_long_read(&pool->pin_busy);
	stats->misuse = atomic_long_read(&pool->misuse);
}
EXPORT_SYMBOL_MOVABLE_POOL(movable_pool_get_stats);

#if IS_ENABLED(CONFIG_MOVABLE_POOL_KUNIT_TEST)
const struct mp_kunit_callbacks mp_kunit_callbacks = {
	.isolate = mp_isolate_page,
	.migrate = mp_migrate_page,
	.putback = mp_putback_page,
};
#endif

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
