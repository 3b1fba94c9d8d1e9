/* SPDX-License-Identifier: GPL-2.0 */
/*
 * movable_pool: make driver-allocated pages movable.
 *
 * A driver that keeps many order-0 pages for a long time blocks compaction,
 * CMA and memory offlining unless the VM may migrate those pages. Only the
 * driver knows who points at a page, so migration needs its help: the driver
 * supplies one copy-and-fixup routine (&movable_pool_ops.migrate) and this
 * library does the rest through the migration core's interface for pages
 * that are not on the LRU.
 *
 * What the library owns in a pool page's struct page (it allocates nothing
 * per page, so its bookkeeping never pins a pageblock of its own):
 *   ->mapping  what leads back to the pool (its address_space, or on 6.0 to
 *              6.16 its copy of the movable_operations); set/cleared under
 *              the page lock
 *   ->private  the driver's @owner cookie
 *   ->index    the driver's @index (low %MOVABLE_POOL_INDEX_BITS bits), the
 *              pin count and three state bits
 *   ->lru      the pool's list of pages, while the VM has not isolated the
 *              page (the VM links isolated pages into lists of its own)
 * The driver must not touch these fields, and must not vm_insert_page() a
 * pool page: map it with VM_PFNMAP through movable_pool_insert_pfn().
 *
 * What the driver owns: the page contents and its own references to the
 * page (tables, DMA addresses, GART entries). The routine repoints them.
 *
 * Lock order:
 *	+- page lock (held by the VM around isolate, migrate and putback)
 *	   +- driver lock taken by the migrate routine (sync modes only)
 *	      +- pool lock (internal spinlock, irq-safe)
 *
 * The driver must therefore never wait for a pool page's lock while holding
 * the lock its routine takes. It must read a page out of its own tables and
 * call movable_pool_pin() under that lock: once pinned, the page stays put.
 *
 * Copyright (C) 2026 The movable_pool authors
 */
#ifndef _LINUX_MOVABLE_POOL_H
#define _LINUX_MOVABLE_POOL_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/mm_types.h>
#include <linux/migrate_mode.h>
#include <linux/types.h>

struct movable_pool;
struct address_space;

/**
 * define MOVABLE_POOL_GFP - the gfp mask a driver should normally pass
 *
 * Pool pages are always allocated with __GFP_MOVABLE added, so they land in
 * movable pageblocks, ZONE_MOVABLE and CMA areas. This mask also allows
 * highmem; use GFP_KERNEL instead if the driver needs page_address().
 */
#define MOVABLE_POOL_GFP	GFP_HIGHUSER_MOVABLE

/**
 * define MOVABLE_POOL_INDEX_BITS - how many bits of a page's index are kept
 *
 * The index shares its struct page word with the pin count and the page's
 * state; the top 16 bits are the library's.
 */
#define MOVABLE_POOL_INDEX_BITS	(BITS_PER_LONG - 16)

/**
 * define MOVABLE_POOL_MAX_INDEX - the largest index a pool page may have
 *
 * 2^48 - 1 on 64-bit kernels: as file offsets, far beyond any mapping.
 */
#define MOVABLE_POOL_MAX_INDEX	((1UL << MOVABLE_POOL_INDEX_BITS) - 1)

/**
 * define MOVABLE_POOL_MAX_PINS - how deep movable_pool_pin() may nest
 */
#define MOVABLE_POOL_MAX_PINS	((1UL << 13) - 1)

/**
 * struct movable_pool_ops - driver callbacks of a pool
 * @migrate: copy @src to @dst and repoint every driver reference from @src
 *	to @dst. Called in process context with both pages locked; @src is
 *	not pinned and cannot become pinned until this returns, and its user
 *	mappings in the pool's address_space have been zapped. @owner and
 *	@index are what the driver passed to movable_pool_alloc_page(). In
 *	%MIGRATE_ASYNC @mode the routine must not sleep: trylock and return
 *	-EAGAIN instead. Return 0 on success, -EAGAIN to let the VM retry
 *	later, another negative errno to give up (the page is put back).
 *	@dst already belongs to the pool: once the routine has published it,
 *	movable_pool_pin() works on it. On failure @dst must be neither
 *	referenced nor pinned by the driver. If the driver no longer
 *	references @src (it is about to free it), return -ENOENT.
 */
struct movable_pool_ops {
	int (*migrate)(struct movable_pool *pool, void *owner, pgoff_t index,
		       struct page *dst, struct page *src,
		       enum migrate_mode mode);
};

/**
 * struct movable_pool_stats - snapshot of a pool's counters
 * @pages: pages allocated from the pool and not yet freed
 * @pinned: pages with a non-zero pin count
 * @isolated: pages isolated by the VM for migration
 * @migrating: pages whose migrate routine is running
 * @allocated: pages ever allocated
 * @freed: pages ever freed (including those freed by destroy)
 * @migrated: successful migrations
 * @migrate_failed: migration attempts that failed (pinned, or the routine
 *	returned an error)
 * @putback: isolated pages the VM gave back without migrating them
 * @pin_refused: isolations refused because the page was pinned
 * @pin_busy: pins refused with -EAGAIN because the page was migrating
 * @routine_busy: migrate routine calls that returned -EAGAIN
 * @routine_failed: migrate routine calls that returned another error
 * @freed_isolated: pages freed while the VM held them isolated
 *
 * @pages == @allocated - @freed at all times.
 */
struct movable_pool_stats {
	unsigned long pages;
	unsigned long pinned;
	unsigned long isolated;
	unsigned long migrating;
	unsigned long allocated;
	unsigned long freed;
	unsigned long migrated;
	unsigned long migrate_failed;
	unsigned long putback;
	unsigned long pin_refused;
	unsigned long pin_busy;
	unsigned long routine_busy;
	unsigned long routine_failed;
	unsigned long freed_isolated;
};

struct movable_pool *movable_pool_create(const char *name,
					 const struct movable_pool_ops *ops,
					 void *priv);
void movable_pool_destroy(struct movable_pool *pool);
void *movable_pool_priv(struct movable_pool *pool);
struct address_space *movable_pool_mapping(struct movable_pool *pool);
void movable_pool_get_stats(struct movable_pool *pool,
			    struct movable_pool_stats *stats);

struct page *movable_pool_alloc_page(struct movable_pool *pool, gfp_t gfp,
				     void *owner, pgoff_t index);
void movable_pool_free_page(struct movable_pool *pool, struct page *page);
int movable_pool_alloc_pages(struct movable_pool *pool, gfp_t gfp,
			     void *owner, pgoff_t index, unsigned int nr,
			     struct page **pages);
void movable_pool_free_pages(struct movable_pool *pool, struct page **pages,
			     unsigned int nr);
unsigned int movable_pool_take_pages(struct movable_pool *pool,
				     unsigned int nr, struct page **pages);

int movable_pool_pin(struct page *page);
void movable_pool_unpin(struct page *page);

void movable_pool_copy_page(struct page *dst, struct page *src);

struct vm_fault;
vm_fault_t movable_pool_insert_pfn(struct movable_pool *pool,
				   struct vm_fault *vmf, struct page *page);

#endif /* _LINUX_MOVABLE_POOL_H */
