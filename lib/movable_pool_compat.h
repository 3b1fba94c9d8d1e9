/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels movable_pool supports, and how a pool
 * page meets the migration core on each. Nothing else belongs here.
 *
 *   5.10 (4.8-5.19)  ->mapping is the pool's slot, an address_space
 *                    whose address_space_operations isolate, migrate
 *                    and put back (__SetPageMovable()).
 *   6.1, 6.12        ->mapping is the pool's slot, a copy of struct
 *   (6.0-6.16)       movable_operations (__SetPageMovable()).
 *   7.x (6.17-)      a page type of its own plus PG_movable_ops; one
 *                    struct movable_operations registered with
 *                    set_movable_ops(). ->mapping is the pool's
 *                    address_space, so code that dumps the page finds a
 *                    real one. Needs patches/7.x (the library is in-tree).
 *
 * On every kernel the library reaches the pool through mp_vm_pool() and
 * marks pages with mp_vm_attach()/mp_vm_detach(); the isolate, migrate
 * and putback callbacks keep the 6.x signatures. A pool of PageOffline()
 * pages ("Offline pages" in the public header) has them PageOffline()
 * instead of the page type on 7.x, and besides __SetPageMovable() before.
 */
#ifndef _MOVABLE_POOL_COMPAT_H
#define _MOVABLE_POOL_COMPAT_H

#include <linux/fs.h>
#include <linux/version.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>

#if KERNEL_VERSION(5, 10, 0) > LINUX_VERSION_CODE
#error "movable_pool needs Linux 5.10 or later"
#endif

/*
 * How pool pages meet the migration core: only lib/movable_pool.c, which
 * defines the callbacks, sees it.
 */
#ifdef MP_VM_CALLBACKS
static bool mp_isolate_page(struct page *page, isolate_mode_t mode);
static int mp_migrate_page(struct page *dst, struct page *src,
			   enum migrate_mode mode);
static void mp_putback_page(struct page *page);

#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE

/*
 * 5.10-6.16: a per-pool slot leads from the page to its pool: an
 * address_space whose operations the VM calls (5.10), or a copy of the
 * movable_operations (6.x). The migration core reads ->mapping twice
 * under the page lock, so the library cannot clear it without that lock:
 * a page that leaves the pool keeps it, its word says it is gone, and the
 * page allocator clears it when the page is freed. So the slots a page may
 * still lead to are never freed while the library is loaded: a destroyed
 * pool's slot is reused by a later pool (whose callbacks then find such a
 * page gone, by its word).
 */

#if KERNEL_VERSION(6, 0, 0) > LINUX_VERSION_CODE
/* 5.10: the VM calls the address_space_operations of ->mapping. */
static int mp_aops_migratepage(struct address_space *mapping,
			       struct page *dst, struct page *src,
			       enum migrate_mode mode)
{
	return mp_migrate_page(dst, src, mode);
}

static const struct address_space_operations mp_aops = {
	.isolate_page	= mp_isolate_page,
	.migratepage	= mp_aops_migratepage,
	.putback_page	= mp_putback_page,
};

struct mp_vm_slot {
	struct address_space ops;	/* what ->mapping leads the VM to */
	void *pool;			/* NULL while the slot is free */
	struct list_head all;		/* mp_vm_slots */
	struct list_head free;		/* mp_vm_free_slots, while free */
};

static inline void mp_vm_ops_init(struct mp_vm_slot *slot)
{
	slot->ops.a_ops = &mp_aops;
}

static inline bool mp_vm_ops_ours(const void *ops)
{
	return ((const struct address_space *)ops)->a_ops == &mp_aops;
}
#else
struct mp_vm_slot {
	struct movable_operations ops;	/* what ->mapping leads the VM to */
	void *pool;
	struct list_head all;
	struct list_head free;
};

static inline void mp_vm_ops_init(struct mp_vm_slot *slot)
{
	slot->ops.isolate_page = mp_isolate_page;
	slot->ops.migrate_page = mp_migrate_page;
	slot->ops.putback_page = mp_putback_page;
}

static inline bool mp_vm_ops_ours(const void *ops)
{
	return ((const struct movable_operations *)ops)->migrate_page ==
	       mp_migrate_page;
}
#endif

struct mp_vm {
	struct mp_vm_slot *slot;
	bool offline;
};

static LIST_HEAD(mp_vm_slots);
static LIST_HEAD(mp_vm_free_slots);
static DEFINE_MUTEX(mp_vm_slots_lock);

static inline int mp_vm_init(struct mp_vm *vm, struct inode *inode,
			     void *pool, bool offline)
{
	struct mp_vm_slot *slot;

	mutex_lock(&mp_vm_slots_lock);
	slot = list_first_entry_or_null(&mp_vm_free_slots, struct mp_vm_slot,
					free);
	if (slot) {
		list_del(&slot->free);
	} else {
		slot = kzalloc(sizeof(*slot), GFP_KERNEL);
		if (slot) {
			mp_vm_ops_init(slot);
			list_add(&slot->all, &mp_vm_slots);
		}
	}
	mutex_unlock(&mp_vm_slots_lock);
	if (!slot)
		return -ENOMEM;
	WRITE_ONCE(slot->pool, pool);
	vm->slot = slot;
	vm->offline = offline;
	return 0;
}

/* The pool is gone; pages that still lead to the slot are all gone too. */
static inline void mp_vm_exit(struct mp_vm *vm)
{
	WRITE_ONCE(vm->slot->pool, NULL);
	mutex_lock(&mp_vm_slots_lock);
	list_add(&vm->slot->free, &mp_vm_free_slots);
	mutex_unlock(&mp_vm_slots_lock);
}

/* The slot, of a pool or free, that ->mapping leads to, or NULL. */
static inline struct mp_vm_slot *mp_vm_slot(struct page *page)
{
	unsigned long mapping = (unsigned long)READ_ONCE(page->mapping);
	const void *ops = (const void *)(mapping & ~PAGE_MAPPING_FLAGS);

	if ((mapping & PAGE_MAPPING_FLAGS) != PAGE_MAPPING_MOVABLE || !ops ||
	    !mp_vm_ops_ours(ops))
		return NULL;
	return container_of(ops, struct mp_vm_slot, ops);
}

static inline void *mp_vm_pool(struct page *page)
{
	struct mp_vm_slot *slot = mp_vm_slot(page);

	return slot ? READ_ONCE(slot->pool) : NULL;
}

static inline void *mp_vm_movable_ops(struct mp_vm *vm)
{
	return &vm->slot->ops;
}

/* These page allocators refuse a freed page that still has a type. */
static inline void mp_vm_untype(struct page *page, struct mp_vm *vm)
{
	if (vm->offline && PageOffline(page))
		__ClearPageOffline(page);
}

/* ->mapping stays (see above); PageOffline() goes now. */
static inline void mp_vm_detach(struct page *page, struct mp_vm *vm)
{
	mp_vm_untype(page, vm);
}

/*
 * A failed migration's new page, which the core holds locked: ->mapping
 * may go, so that nothing leads to a slot that module unload frees.
 */
static inline void mp_vm_detach_dst(struct page *page, struct mp_vm *vm)
{
	mp_vm_untype(page, vm);
	WRITE_ONCE(page->mapping, NULL);
}

/*
 * A page destroy leaks (pinned for a device) may outlive the library, and
 * module unload frees the slots: ->mapping goes. The core reads it twice
 * under the page lock, so it goes under that lock, on this misuse path
 * only.
 */
static inline void mp_vm_leak(struct page *page)
{
	lock_page(page);
	WRITE_ONCE(page->mapping, NULL);
	unlock_page(page);
}

#else

/*
 * 6.17 and later: a page type of the library's (or PageOffline()) and
 * PG_movable_ops, which stay until the page is freed, lead the core to the
 * ops registered once; ->mapping leads to the pool's address_space until
 * the page leaves, and the core never reads it.
 */
struct mp_vm {
	struct address_space *mapping;
	bool offline;
};

static inline int mp_vm_init(struct mp_vm *vm, struct inode *inode,
			     void *pool, bool offline)
{
	vm->mapping = inode->i_mapping;
	vm->offline = offline;
	return 0;
}

static inline void mp_vm_exit(struct mp_vm *vm)
{
}

/*
 * Other drivers' PageOffline() pages have no PG_movable_ops (only the
 * library sets it on them), and zsmalloc's ->mapping is no address_space;
 * the magic is a second check that ->mapping is a pool's.
 */
static inline void *mp_vm_pool(struct page *page)
{
	struct address_space *mapping;

	if ((!PageMovablePool(page) && !PageOffline(page)) ||
	    !PageMovableOps(page))
		return NULL;
	mapping = READ_ONCE(page->mapping);
	if (!mapping || mapping->host->i_sb->s_magic != MOVABLE_POOL_MAGIC)
		return NULL;
	return READ_ONCE(mapping->host->i_private);
}

static inline void *mp_vm_movable_ops(struct mp_vm *vm)
{
	return vm->mapping;
}

/* The type stays until the page is freed, which clears it. */
static inline void mp_vm_untype(struct page *page, struct mp_vm *vm)
{
}

static inline void mp_vm_detach(struct page *page, struct mp_vm *vm)
{
	WRITE_ONCE(page->mapping, NULL);
}

static inline void mp_vm_detach_dst(struct page *page, struct mp_vm *vm)
{
	mp_vm_detach(page, vm);
}

/* Built in: the callbacks it still leads to stay, and refuse it. */
static inline void mp_vm_leak(struct page *page)
{
}

static const struct movable_operations mp_mops = {
	.isolate_page	= mp_isolate_page,
	.migrate_page	= mp_migrate_page,
	.putback_page	= mp_putback_page,
};
#endif

#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
/*
 * Make @page lead to @vm's pool: what __SetPageMovable() does, without the
 * page lock it asserts. The lock is there for the core, which reads
 * ->mapping twice under it and must not find it cleared in between: the
 * library clears it only under that lock (mp_vm_leak()) or on a page the
 * core holds locked (mp_vm_detach_dst()), and whatever pool ->mapping
 * leads to, the callbacks check the page's word.
 */
static inline void mp_vm_attach(struct page *page, struct mp_vm *vm)
{
	if (vm->offline)
		__SetPageOffline(page);
	WRITE_ONCE(page->mapping,
		   (void *)((unsigned long)mp_vm_movable_ops(vm) |
			    PAGE_MAPPING_MOVABLE));
}

/*
 * A plain page (no mapcount or type, no ->mapping but the flag a page the
 * core let go of may keep), or one that left a pool and still leads to a
 * slot.
 */
static inline bool mp_vm_adoptable(struct page *page, struct mp_vm *vm)
{
	unsigned long mapping = (unsigned long)READ_ONCE(page->mapping);

	if (atomic_read(&page->_mapcount) != -1)
		return false;
	return !(mapping & ~PAGE_MAPPING_FLAGS) || mp_vm_slot(page);
}
#else
/* Either sets the type, or finds it left there by an earlier pool. */
static inline void mp_vm_attach(struct page *page, struct mp_vm *vm)
{
	if (vm->offline)
		__SetPageOffline(page);
	else
		__SetPageMovablePool(page);
	WRITE_ONCE(page->mapping, vm->mapping);
	SetPageMovableOps(page);
}

/*
 * A plain page (no type, no mapcount), or one that left a pool of @vm's
 * kind and keeps its type and PG_movable_ops until it is freed.
 */
static inline bool mp_vm_adoptable(struct page *page, struct mp_vm *vm)
{
	if (page->mapping)
		return false;
	/* neither a type nor a mapcount; the caller's page, nobody races */
	if (data_race(page->page_type) == UINT_MAX)
		return true;
	return PageMovableOps(page) &&
	       (vm->offline ? PageOffline(page) : PageMovablePool(page));
}
#endif

/*
 * Only 6.17 and later register the callbacks, once for every pool: for
 * the library's page type, and for PageOffline() pages unless other code
 * registered first.
 */
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
static inline int mp_vm_register(void)
{
	return 0;
}

/*
 * Every pool is gone. A page that left one and is still allocated leads
 * here: the driver that took it must have freed it before it unloaded.
 */
static inline void mp_vm_unregister(void)
{
	struct mp_vm_slot *slot, *next;

	list_for_each_entry_safe(slot, next, &mp_vm_slots, all)
		kfree(slot);
}
#endif

#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
static inline bool mp_vm_offline_supported(void)
{
	return true;
}
#else
static bool mp_vm_offline_ops;

static inline int mp_vm_register(void)
{
	int ret = set_movable_ops(&mp_mops, PGTY_movable_pool);

	if (!ret)
		mp_vm_offline_ops = !set_movable_ops(&mp_mops, PGTY_offline);
	return ret;
}

static inline void mp_vm_unregister(void)
{
	if (mp_vm_offline_ops)
		set_movable_ops(NULL, PGTY_offline);
	set_movable_ops(NULL, PGTY_movable_pool);
}

static inline bool mp_vm_offline_supported(void)
{
	return mp_vm_offline_ops;
}
#endif
#endif /* MP_VM_CALLBACKS */

/*
 * The struct page word that holds a pool page's index, pin count and state.
 * The VM uses it only while the page is free (the per-cpu lists'
 * migratetype) and never reads it for a page made movable by a driver.
 */
static inline unsigned long *mp_page_word(struct page *page)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return &page->index;
#else
	return &page->__folio_index;
#endif
}

/*
 * Exports go into the MOVABLE_POOL namespace, which 6.13 turned from an
 * identifier into a string.
 */
#if KERNEL_VERSION(6, 13, 0) > LINUX_VERSION_CODE
#define EXPORT_SYMBOL_MOVABLE_POOL(sym)	EXPORT_SYMBOL_NS_GPL(sym, MOVABLE_POOL)
#else
#define EXPORT_SYMBOL_MOVABLE_POOL(sym)	EXPORT_SYMBOL_NS_GPL(sym, "MOVABLE_POOL")
#endif

/*
 * Whether @page has user mappings of its own (vm_insert_page()). From 6.17
 * a pool page has a page type, which shares the mapcount's word, and
 * vm_insert_page() refuses typed pages.
 */
static inline bool mp_page_user_mapped(struct page *page)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return page_mapped(page);
#else
	return false;
#endif
}

/* Drop the lock a fault holds: mmap_lock, or from 6.5 maybe the VMA's. */
static inline void mp_release_fault_lock(struct vm_fault *vmf)
{
#if KERNEL_VERSION(6, 5, 0) > LINUX_VERSION_CODE
	mmap_read_unlock(vmf->vma->vm_mm);
#else
	release_fault_lock(vmf);
#endif
}

static inline void mp_wait_on_page_locked(struct page *page, bool killable)
{
#if KERNEL_VERSION(5, 16, 0) > LINUX_VERSION_CODE
	if (killable)
		wait_on_page_locked_killable(page);
	else
		wait_on_page_locked(page);
#else
	if (killable)
		folio_wait_locked_killable(page_folio(page));
	else
		folio_wait_locked(page_folio(page));
#endif
}

/* Newer kernels (Debian's 6.12 among them) have it. */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, gfp)	kzalloc(sizeof(obj), gfp)
#endif

/* Fill the NULL slots of @pages from the front; returns how many are set. */
static inline unsigned long mp_alloc_pages_bulk(gfp_t gfp, unsigned long nr,
						struct page **pages)
{
#if KERNEL_VERSION(5, 13, 0) > LINUX_VERSION_CODE
	return 0;	/* no bulk allocator: the caller goes page by page */
#elif KERNEL_VERSION(6, 14, 0) > LINUX_VERSION_CODE
	return alloc_pages_bulk_array(gfp, nr, pages);
#else
	return alloc_pages_bulk(gfp, nr, pages);
#endif
}

/* Whether nobody holds @mapping's i_mmap_rwsem for writing right now. */
static inline bool mp_i_mmap_idle(struct address_space *mapping)
{
#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
	if (!down_read_trylock(&mapping->i_mmap_rwsem))
		return false;
	up_read(&mapping->i_mmap_rwsem);
#else
	if (!i_mmap_trylock_read(mapping))
		return false;
	i_mmap_unlock_read(mapping);
#endif
	return true;
}

/* Migration modes the driver's routine cannot honour. */
static inline bool mp_mode_unsupported(enum migrate_mode mode)
{
#if KERNEL_VERSION(6, 10, 0) > LINUX_VERSION_CODE
	/*
	 * MIGRATE_SYNC_NO_COPY (gone in 6.10) asks the callee to move
	 * metadata but leave the copy to a DMA engine; like the balloon
	 * driver we cannot split the routine that way.
	 */
	return mode == MIGRATE_SYNC_NO_COPY;
#else
	return false;
#endif
}

static inline void mp_vm_flags_set(struct vm_area_struct *vma,
				   vm_flags_t flags)
{
#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
	vma->vm_flags |= flags;	/* behind helpers from 6.3 */
#else
	vm_flags_set(vma, flags);
#endif
}

/*
 * The migration core entry points below are not exported: only built-in
 * code (the KUnit suite) may use these wrappers.
 */
static inline bool mp_isolate_movable_page(struct page *page)
{
#if KERNEL_VERSION(6, 5, 0) > LINUX_VERSION_CODE
	return isolate_movable_page(page, ISOLATE_UNEVICTABLE) == 0;
#elif KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return isolate_movable_page(page, ISOLATE_UNEVICTABLE);
#else
	return isolate_movable_ops_page(page, ISOLATE_UNEVICTABLE);
#endif
}

/* The isolated flag the migration core keeps for a driver's page. */
static inline bool mp_page_isolated(struct page *page)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return PageIsolated(page);
#else
	return PageMovableOpsIsolated(page);
#endif
}

/* Whether the VM takes @page for a driver's movable page. */
static inline bool mp_page_movable(struct page *page)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return __PageMovable(page);
#else
	return page_has_movable_ops(page);
#endif
}

/*
 * The callbacks, as the migration core calls them: for the KUnit case that
 * runs them without the page lock (lib/movable_pool.c fills it in KUnit
 * builds only).
 */
struct mp_kunit_callbacks {
	bool (*isolate)(struct page *page, isolate_mode_t mode);
	int (*migrate)(struct page *dst, struct page *src,
		       enum migrate_mode mode);
	void (*putback)(struct page *page);
};

extern const struct mp_kunit_callbacks mp_kunit_callbacks;

/*
 * Whether a page that left a pool of PageOffline() pages stays
 * PageOffline() until it is freed ("Offline pages" in the public header).
 */
static inline bool mp_offline_until_freed(void)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return false;
#else
	return true;
#endif
}

/*
 * Whether a page that left a pool keeps ->mapping until it is freed (see
 * struct mp_vm_slot).
 */
static inline bool mp_mapping_kept_when_gone(void)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return true;
#else
	return false;
#endif
}

/* ->mapping without its flag bits. */
static inline void *mp_page_mapping(struct page *page)
{
#if KERNEL_VERSION(6, 17, 0) > LINUX_VERSION_CODE
	return (void *)((unsigned long)page->mapping & ~PAGE_MAPPING_FLAGS);
#else
	return (void *)((unsigned long)page->mapping & ~FOLIO_MAPPING_FLAGS);
#endif
}

#if defined(_KUNIT_TEST_H) && KERNEL_VERSION(5, 14, 0) > LINUX_VERSION_CODE
/*
 * For the KUnit suite on 5.10. KUnit cannot skip there: a case that would
 * skip fails, saying why.
 */
#define kunit_skip(test, fmt, ...) \
	KUNIT_ASSERT_FAILURE(test, "cannot run: " fmt, ##__VA_ARGS__)
#define kunit_kcalloc(test, n, size, gfp) \
	kunit_kzalloc(test, array_size(n, size), gfp)
#define KUNIT_ASSERT_NOT_NULL(test, ptr) \
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ptr)
#endif

#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
/* kmap_local_page() came in 5.11; nothing mapped here sleeps. */
#define kmap_local_page(page)	kmap_atomic(page)
#define kunmap_local(addr)	kunmap_atomic(addr)
#endif

#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
static inline struct page *mp_new_page(struct page *page, unsigned long gfp)
{
	return alloc_page((__force gfp_t)gfp);
}

/* Migrate every page on @list to a fresh page allocated with @gfp. */
static inline int mp_migrate_pages(struct list_head *list, gfp_t gfp,
				   enum migrate_mode mode)
{
#if KERNEL_VERSION(5, 17, 0) > LINUX_VERSION_CODE
	return migrate_pages(list, mp_new_page, NULL, (__force unsigned long)gfp,
			     mode, MR_COMPACTION);
#else
	return migrate_pages(list, mp_new_page, NULL, (__force unsigned long)gfp,
			     mode, MR_COMPACTION, NULL);
#endif
}
#else
static inline struct folio *mp_new_folio(struct folio *folio,
					 unsigned long gfp)
{
	struct page *page = alloc_page((__force gfp_t)gfp);

	return page ? page_folio(page) : NULL;
}

static inline int mp_migrate_pages(struct list_head *list, gfp_t gfp,
				   enum migrate_mode mode)
{
	return migrate_pages(list, mp_new_folio, NULL,
			     (__force unsigned long)gfp, mode, MR_COMPACTION,
			     NULL);
}
#endif

#endif /* _MOVABLE_POOL_COMPAT_H */
