// SPDX-License-Identifier: GPL-2.0
/*
 * bench_driver's hand-rolled kind: the table slot in page->private, nothing
 * else per page, the least a driver can do where a module may make pages
 * movable itself. How a page is made movable differs by kernel:
 * bench_handrolled_aops.c (an inode's address_space_operations, before
 * 6.0) and bench_handrolled_mops.c (struct movable_operations, 6.0-6.16).
 */

#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/pagemap.h>

#include "bench_driver.h"

static atomic_long_t migrated;

bool handrolled_isolate(struct page *page, isolate_mode_t mode)
{
	return true;
}

void handrolled_putback(struct page *page)
{
}

int handrolled_move(struct page *dst, struct page *src, enum migrate_mode mode)
{
	unsigned long slot = page_private(src);
	int ret;

	ret = bench_repoint(slot, dst, src, mode);
	if (ret)
		return ret;
	get_page(dst);
	set_page_private(dst, slot);
	handrolled_set_movable(dst);
	__ClearPageMovable(src);
	set_page_private(src, 0);
	put_page(src);
	atomic_long_inc(&migrated);
	return MIGRATEPAGE_SUCCESS;
}

struct page *handrolled_alloc(unsigned long slot)
{
	struct page *page = alloc_page(GFP_HIGHUSER_MOVABLE);

	if (page) {
		lock_page(page);
		set_page_private(page, slot);
		handrolled_set_movable(page);
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
