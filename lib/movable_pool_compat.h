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
