// SPDX-License-Identifier: GPL-2.0
/*
 * bench_driver's hand-rolled kind: its own struct movable_operations, the
 * table slot in page->private, nothing else per page. The interface every
 * in-tree user writes anew, as a module could on 6.0-6.16.
 */

#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "bench_driver.h"

static atomic_long_t migrated;

static bool handrolled_isolate(struct page *page, isolate_mode_t mode)
{
	return true;
}

static void handrolled_putback(struct page *page)
{
}

static const struct movable_operations handrolled_mops;

static int handrolled_migrate(struct page *dst, struct page *src,
			      enum migrate_mode mode)
{
	unsigned long slot = page_private(src);
	int ret;

	ret = bench_repoint(slot, dst, src, mode);
	if (ret)
		return ret;
	get_page(dst);
	set_page_private(dst, slot);
	__SetPageMovable(dst, &handrolled_mops);
	__ClearPageMovable(src);
	set_page_private(src, 0);
	put_page(src);
	atomic_long_inc(&migrated);
	return MIGRATEPAGE_SUCCESS;
}

static const struct movable_operations handrolled_mops = {
	.isolate_page	= handrolled_isolate,
	.migrate_page	= handrolled_migrate,
	.putback_page	= handrolled_putback,
};

struct page *handrolled_alloc(unsigned long slot)
{
	struct page *page = alloc_page(GFP_HIGHUSER_MOVABLE);

	if (page) {
		lock_page(page);
		set_page_private(page, slot);
		__SetPageMovable(page, &handrolled_mops);
		unlock_page(page);
	}
	return page;
}

void handrolled_free(struct page *page)
{
	lock_page(page);
	__ClearPageMovable(page);
	set_page_private(page, 0);
	unlock_page(page);
	put_page(page);
}

unsigned long handrolled_migrated(void)
{
	return atomic_long_read(&migrated);
}
