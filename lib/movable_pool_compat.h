/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels movable_pool supports (6.1 and 6.12;
 * the movable_operations interface exists from 6.0 to 6.16). Nothing else
 * belongs here.
 */
#ifndef _MOVABLE_POOL_COMPAT_H
#define _MOVABLE_POOL_COMPAT_H

#include <linux/version.h>
#include <linux/migrate.h>
#include <linux/mm.h>

#if KERNEL_VERSION(6, 0, 0) > LINUX_VERSION_CODE || \
	KERNEL_VERSION(6, 17, 0) <= LINUX_VERSION_CODE
#error "movable_pool needs struct movable_operations (Linux 6.0 to 6.16)"
#endif

/*
 * The movable_operations a non-LRU movable page points at, or NULL for any
 * other page (and for one whose movability was cleared). Unlike
 * page_movable_ops(), safe to call on any page.
 */
static inline const struct movable_operations *
mp_page_movable_ops(struct page *page)
{
	unsigned long mapping = (unsigned long)READ_ONCE(page->mapping);

	if ((mapping & PAGE_MAPPING_FLAGS) != PAGE_MAPPING_MOVABLE)
		return NULL;
	return (const struct movable_operations *)(mapping & ~PAGE_MAPPING_FLAGS);
}

/*
 * The struct page word that holds a pool page's index, pin count and state.
 * On 6.x the VM uses ->index only while the page is free (the per-cpu
 * lists' migratetype, written when the page is freed) and never reads it
 * for a non-LRU movable page.
 */
static inline unsigned long *mp_page_word(struct page *page)
{
	return &page->index;
}

/* Fill the NULL slots of @pages from the front; returns how many are set. */
static inline unsigned long mp_alloc_pages_bulk(gfp_t gfp, unsigned long nr,
						struct page **pages)
{
	return alloc_pages_bulk_array(gfp, nr, pages);
}

/*
 * MIGRATE_SYNC_NO_COPY (gone in 6.10) asks the callee to move metadata but
 * leave the copy to a DMA engine; like the balloon driver we cannot split
 * the driver's routine that way, so such requests are refused.
 */
static inline bool mp_mode_unsupported(enum migrate_mode mode)
{
#if KERNEL_VERSION(6, 10, 0) > LINUX_VERSION_CODE
	return mode == MIGRATE_SYNC_NO_COPY;
#else
	return false;
#endif
}

/* vm_flags became read-only behind helpers in 6.3. */
static inline void mp_vm_flags_set(struct vm_area_struct *vma,
				   vm_flags_t flags)
{
#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
	vma->vm_flags |= flags;
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
#else
	return isolate_movable_page(page, ISOLATE_UNEVICTABLE);
#endif
}

#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
static inline struct page *mp_new_page(struct page *page, unsigned long gfp)
{
	return alloc_page((__force gfp_t)gfp);
}

/* Migrate every page on @list to a fresh page allocated with @gfp. */
static inline int mp_migrate_pages(struct list_head *list, gfp_t gfp,
				   enum migrate_mode mode)
{
	return migrate_pages(list, mp_new_page, NULL, (__force unsigned long)gfp,
			     mode, MR_COMPACTION, NULL);
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
