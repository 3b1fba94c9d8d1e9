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
 *	|                   pin count and state bits, and the counters
 *
 * - A page's record (struct mp_page) hangs off page->private and is found
 *   only through mp_meta(), which checks page->mapping for our ops first.
 *   ->mapping and ->private change only under the page lock, so code that
 *   holds the page lock sees a stable record.
 * - Pin/unpin run without the page lock, possibly in atomic context. They
 *   rely on the driver's promise (see the header) that it read the page
 *   from its own tables under the lock its routine takes.
 * - Pinned pages are never isolated; MP_MIGRATING is set (under pool->lock)
 *   only with a zero pin count, and pin fails with -EAGAIN while it is set.
 *   So the routine never runs on a page a device or the CPU is using.
 * - Teardown detaches every page under its page lock. A detached page is
 *   no longer movable; if the VM had it isolated, the VM frees it without
 *   calling us (see putback_movable_pages()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

#include "movable_pool_compat.h"

#define CREATE_TRACE_POINTS
#include <trace/events/movable_pool.h>

#define MOVABLE_POOL_MAGIC	0x6d706f6f	/* "mpoo" */

/* mp_page.state bits, under pool->lock */
#define MP_ISOLATED	BIT(0)	/* the VM holds the page for migration */
#define MP_MIGRATING	BIT(1)	/* the driver's routine may be running */

struct movable_pool {
	spinlock_t lock;		/* see the top of this file */
	struct list_head pages;
	bool dying;
	struct movable_pool_stats stats;
	const struct movable_pool_ops *ops;
	void *priv;
	const char *name;
	unsigned int id;		/* in debugfs and trace events */
	struct inode *inode;
	struct dentry *debugfs;
};

struct mp_page {
	struct list_head node;		/* pool->pages; not page->lru */
	struct movable_pool *pool;
	struct page *page;		/* the page this record describes */
	void *owner;
	pgoff_t index;
	unsigned int pin_count;
	unsigned int state;
};

static const struct movable_operations mp_mops;
static struct kmem_cache *mp_page_cache;
static struct dentry *mp_debugfs_root;
static struct vfsmount *mp_mnt;
static int mp_mnt_count;
static atomic_t mp_pool_ids = ATOMIC_INIT(0);

/* What of the caller's gfp applies to our own record: how hard to try. */
#define MP_META_GFP	(GFP_KERNEL | __GFP_HIGH | __GFP_NOWARN | \
			 __GFP_NORETRY | __GFP_RETRY_MAYFAIL | __GFP_NOFAIL | \
			 __GFP_NOMEMALLOC)

#define mp_misuse(fmt, ...) \
	WARN_ONCE(1, KBUILD_MODNAME ": misuse: " fmt, ##__VA_ARGS__)

/* The record of a pool page, or NULL for any other page. */
static struct mp_page *mp_meta(struct page *page)
{
	unsigned long mapping = (unsigned long)READ_ONCE(page->mapping);

	if (mapping != ((unsigned long)&mp_mops | PAGE_MAPPING_MOVABLE))
		return NULL;
	return (struct mp_page *)page_private(page);
}

static void mp_attach(struct page *page, struct mp_page *meta)
{
	VM_WARN_ON_ONCE_PAGE(!PageLocked(page), page);
	set_page_private(page, (unsigned long)meta);
	__SetPageMovable(page, &mp_mops);
}

static void mp_detach(struct page *page)
{
	VM_WARN_ON_ONCE_PAGE(!PageLocked(page), page);
	__ClearPageMovable(page);
	set_page_private(page, 0);
}

/*
 * Take @meta out of its pool's books; its page is locked. Returns the pin
 * count the page had, which is a driver bug when non-zero.
 */
static unsigned int mp_forget(struct movable_pool *pool, struct mp_page *meta)
{
	lockdep_assert_held(&pool->lock);

	list_del(&meta->node);
	pool->stats.pages--;
	pool->stats.freed++;
	if (meta->state & MP_ISOLATED)
		pool->stats.isolated--;
	if (meta->pin_count)
		pool->stats.pinned--;
	return meta->pin_count;
}

/*
 * Detach the page of @meta (locked by the caller) and free the record.
 * When the caller then drops the pool's reference, the page goes back to
 * the VM, or to the migration core if that holds it isolated. Returns the
 * page's pin count, as mp_forget().
 */
static unsigned int mp_release(struct movable_pool *pool,
			       struct mp_page *meta, struct page *page)
{
	unsigned long flags;
	unsigned int pins;

	mp_detach(page);
	spin_lock_irqsave(&pool->lock, flags);
	pins = mp_forget(pool, meta);
	spin_unlock_irqrestore(&pool->lock, flags);
	kmem_cache_free(mp_page_cache, meta);
	return pins;
}

static bool mp_isolate_page(struct page *page, isolate_mode_t mode)
{
	struct mp_page *meta = mp_meta(page);
	struct movable_pool *pool = meta->pool;
	unsigned long flags;
	int result = 0;

	spin_lock_irqsave(&pool->lock, flags);
	if (pool->dying) {
		/* destroy is detaching pages: leave them alone */
		result = -ENODEV;
	} else if (meta->pin_count) {
		pool->stats.pin_refused++;
		result = -EBUSY;
	} else {
		meta->state |= MP_ISOLATED;
		pool->stats.isolated++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	trace_movable_pool_isolate(pool->id, page_to_pfn(page), result);
	return !result;
}

static void mp_putback_page(struct page *page)
{
	struct mp_page *meta = mp_meta(page);
	struct movable_pool *pool = meta->pool;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	meta->state &= ~MP_ISOLATED;
	pool->stats.isolated--;
	pool->stats.putback++;
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
	if (!i_mmap_trylock_read(mapping))
		return false;
	i_mmap_unlock_read(mapping);
	return true;
}

/* Enter MP_MIGRATING, or count a failed attempt and say why not. */
static int mp_begin_migration(struct movable_pool *pool, struct mp_page *meta,
			      enum migrate_mode mode)
{
	bool may_zap = mp_may_zap(pool->inode->i_mapping, mode);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&pool->lock, flags);
	if (mp_mode_unsupported(mode))
		ret = -EINVAL;
	else if (meta->pin_count || !may_zap)
		ret = -EAGAIN;

	if (ret) {
		pool->stats.migrate_failed++;
	} else {
		meta->state |= MP_MIGRATING;
		pool->stats.migrating++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return ret;
}

/* Leave MP_MIGRATING; on success @meta now describes @dst. */
static void mp_end_migration(struct movable_pool *pool, struct mp_page *meta,
			     struct page *dst, int rc)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	meta->state &= ~MP_MIGRATING;
	pool->stats.migrating--;
	if (rc) {
		pool->stats.migrate_failed++;
	} else {
		/* the core clears PG_isolated itself; no putback follows */
		meta->state &= ~MP_ISOLATED;
		meta->page = dst;
		pool->stats.isolated--;
		pool->stats.migrated++;
	}
	spin_unlock_irqrestore(&pool->lock, flags);
}

/* In MP_MIGRATING: zap, run the driver's routine, hand the record over. */
static int mp_move(struct movable_pool *pool, struct mp_page *meta,
		   struct page *dst, struct page *src, enum migrate_mode mode)
{
	struct address_space *mapping = pool->inode->i_mapping;
	int rc;

	/*
	 * Zap under the src page lock: a racing fault then blocks in
	 * movable_pool_insert_pfn() until we are done, and sees the page gone.
	 * A mapping created after the check has no PTE for src: it could only
	 * get one through that same fault path.
	 */
	if (mapping_mapped(mapping))
		unmap_mapping_range(mapping, (loff_t)meta->index << PAGE_SHIFT,
				    PAGE_SIZE, 1);

	/* dst is ours before the routine publishes it, so pins see it */
	mp_attach(dst, meta);
	rc = pool->ops->migrate(pool, meta->owner, meta->index, dst, src,
				mode);
	if (WARN_ONCE(rc > 0, KBUILD_MODNAME ": %s: migrate returned %d\n",
		      pool->name, rc))
		rc = -EINVAL;
	if (rc) {
		mp_detach(dst);
	} else {
		get_page(dst);
		mp_detach(src);
	}
	mp_end_migration(pool, meta, dst, rc);
	return rc;
}

static int mp_migrate_page(struct page *dst, struct page *src,
			   enum migrate_mode mode)
{
	struct mp_page *meta = mp_meta(src);
	struct movable_pool *pool = meta->pool;
	int rc;

	rc = mp_begin_migration(pool, meta, mode);
	if (!rc)
		rc = mp_move(pool, meta, dst, src, mode);
	trace_movable_pool_migrate(pool->id, page_to_pfn(src), page_to_pfn(dst),
				   mode, rc);
	if (!rc)
		put_page(src);	/* the pool's reference, now on dst */
	return rc ? rc : MIGRATEPAGE_SUCCESS;
}

static const struct movable_operations mp_mops = {
	.isolate_page	= mp_isolate_page,
	.migrate_page	= mp_migrate_page,
	.putback_page	= mp_putback_page,
};

/**
 * movable_pool_alloc_page() - allocate a movable page for the driver
 * @pool: the pool
 * @gfp: allocation flags; __GFP_MOVABLE is always added (see
 *	%MOVABLE_POOL_GFP). __GFP_ACCOUNT is refused: memcg charges do not
 *	follow non-LRU pages when they migrate.
 * @owner: driver cookie handed back to the migrate routine
 * @index: driver index handed back to the migrate routine; also the page's
 *	offset in movable_pool_mapping() if the driver maps it to userspace
 *
 * The page has one reference, owned by the pool, and may be migrated as
 * soon as this returns unless the driver pins it.
 *
 * Context: any context @gfp allows.
 * Return: the page; ERR_PTR(-EINVAL) for a NULL @pool or unsupported @gfp
 * flags, ERR_PTR(-ENODEV) if the pool is being destroyed, ERR_PTR(-ENOMEM)
 * if memory is short, ERR_PTR(-EBUSY) if the new page was unexpectedly
 * locked.
 */
struct page *movable_pool_alloc_page(struct movable_pool *pool, gfp_t gfp,
				     void *owner, pgoff_t index)
{
	struct mp_page *meta;
	struct page *page;
	unsigned long flags;

	/* order-0 only; memcg charges do not follow non-LRU pages that move */
	if (!pool || (gfp & (__GFP_ACCOUNT | __GFP_COMP)))
		return ERR_PTR(-EINVAL);
	if (READ_ONCE(pool->dying))
		return ERR_PTR(-ENODEV);

	meta = kmem_cache_zalloc(mp_page_cache, gfp & MP_META_GFP);
	if (!meta)
		return ERR_PTR(-ENOMEM);
	page = alloc_page(gfp | __GFP_MOVABLE);
	if (!page) {
		kmem_cache_free(mp_page_cache, meta);
		return ERR_PTR(-ENOMEM);
	}
	meta->pool = pool;
	meta->page = page;
	meta->owner = owner;
	meta->index = index;

	/* nobody else locks a page that we own and that is not movable yet */
	if (WARN_ON_ONCE(!trylock_page(page))) {
		__free_page(page);
		kmem_cache_free(mp_page_cache, meta);
		return ERR_PTR(-EBUSY);
	}
	spin_lock_irqsave(&pool->lock, flags);
	list_add_tail(&meta->node, &pool->pages);
	pool->stats.pages++;
	pool->stats.allocated++;
	spin_unlock_irqrestore(&pool->lock, flags);
	mp_attach(page, meta);
	unlock_page(page);
	return page;
}
EXPORT_SYMBOL_GPL(movable_pool_alloc_page);

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
	struct mp_page *meta;
	unsigned int pins = 0;
	bool ours;

	if (!pool || !page)
		return;

	lock_page(page);
	meta = mp_meta(page);
	ours = meta && meta->pool == pool;
	if (ours)
		pins = mp_release(pool, meta, page);
	unlock_page(page);

	if (!ours) {
		mp_misuse("%s: freeing page %lx that is not in this pool\n",
			  pool->name, page_to_pfn(page));
		return;
	}
	if (pins)
		mp_misuse("%s: freeing page %lx pinned %u times\n",
			  pool->name, page_to_pfn(page), pins);
	put_page(page);
}
EXPORT_SYMBOL_GPL(movable_pool_free_page);

/**
 * movable_pool_pin() - keep a page where it is while it is in use
 * @page: a pool page, read from the driver's tables under the lock its
 *	migrate routine takes
 *
 * A pinned page refuses isolation, and an isolated page that gets pinned
 * fails migration with -EAGAIN and is put back. Pins nest.
 *
 * Context: any context, including hard interrupts; never sleeps.
 * Return: 0 when pinned; -EAGAIN if the page is being migrated right now
 * (drop your locks, re-read your reference, retry); -EINVAL if @page is not
 * a pool page.
 */
int movable_pool_pin(struct page *page)
{
	struct mp_page *meta = page ? mp_meta(page) : NULL;
	struct movable_pool *pool;
	unsigned long flags;
	int ret = 0;

	if (!meta) {
		mp_misuse("pinning a page that is not in a pool\n");
		return -EINVAL;
	}
	pool = meta->pool;
	spin_lock_irqsave(&pool->lock, flags);
	if (meta->state & MP_MIGRATING)
		ret = -EAGAIN;
	else if (!meta->pin_count++)
		pool->stats.pinned++;
	spin_unlock_irqrestore(&pool->lock, flags);
	if (ret)
		trace_movable_pool_pin_busy(pool->id, page_to_pfn(page));
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
	struct mp_page *meta = page ? mp_meta(page) : NULL;
	struct movable_pool *pool;
	unsigned long flags;
	bool underflow = false;

	if (!meta) {
		mp_misuse("unpinning a page that is not in a pool\n");
		return;
	}
	pool = meta->pool;
	spin_lock_irqsave(&pool->lock, flags);
	if (!meta->pin_count)
		underflow = true;
	else if (!--meta->pin_count)
		pool->stats.pinned--;
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
	struct mp_page *meta;
	vm_fault_t ret = VM_FAULT_NOPAGE;

	if (!(vma->vm_flags & VM_PFNMAP) || !vma->vm_file ||
	    vma->vm_file->f_mapping != pool->inode->i_mapping) {
		mp_misuse("%s: fault on a VMA not mapped through the pool\n",
			  pool->name);
		return VM_FAULT_SIGBUS;
	}

	/* the page lock orders us against mp_migrate_page()'s zap */
	lock_page(page);
	meta = mp_meta(page);
	if (meta && meta->pool == pool)
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

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
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

/* Get a reference on the page of the first record, or NULL if none. */
static struct page *mp_first_page(struct movable_pool *pool)
{
	struct mp_page *meta;
	struct page *page = NULL;
	unsigned long flags;

	spin_lock_irqsave(&pool->lock, flags);
	meta = list_first_entry_or_null(&pool->pages, struct mp_page, node);
	if (meta) {
		page = meta->page;
		get_page(page);
	}
	spin_unlock_irqrestore(&pool->lock, flags);
	return page;
}

/**
 * movable_pool_destroy() - free a pool
 * @pool: the pool, or NULL
 *
 * Stops new isolations, waits for migrate routines in flight, and frees
 * pages the driver did not free (with a warning: that is a driver bug).
 * Pages the VM holds isolated are detached and freed by the VM later; no
 * page refers to the pool or this module's code after this returns. The
 * driver must keep what its routine uses alive until then, and must not
 * hold the lock its routine takes.
 *
 * Context: process context; may sleep.
 */
void movable_pool_destroy(struct movable_pool *pool)
{
	unsigned long leaked = 0;
	struct mp_page *meta;
	struct page *page;
	unsigned long flags;

	if (!pool)
		return;

	spin_lock_irqsave(&pool->lock, flags);
	pool->dying = true;
	spin_unlock_irqrestore(&pool->lock, flags);

	while ((page = mp_first_page(pool))) {
		/* waits for a migration of this page to finish */
		lock_page(page);
		meta = mp_meta(page);
		/* if the page moved meanwhile, the next pass finds its dst */
		if (meta && meta->pool == pool) {
			mp_release(pool, meta, page);
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
	mp_page_cache = KMEM_CACHE(mp_page, 0);
	if (!mp_page_cache)
		return -ENOMEM;
	mp_debugfs_root = debugfs_create_dir("movable_pool", NULL);
	return 0;
}

static void __exit movable_pool_exit(void)
{
	debugfs_remove_recursive(mp_debugfs_root);
	kmem_cache_destroy(mp_page_cache);
}

module_init(movable_pool_init);
module_exit(movable_pool_exit);

MODULE_DESCRIPTION("Movable driver pages: compaction, CMA and offlining can migrate them");
MODULE_LICENSE("GPL");
