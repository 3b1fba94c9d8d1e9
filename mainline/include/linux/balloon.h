/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Common interface for implementing a memory balloon, including support
 * for migration of pages inflated in a memory balloon.
 *
 * A driver allocates a page with balloon_page_alloc() and may link it
 * through page->lru until it enqueues it, before the host takes it; it
 * dequeues pages before the host gives them back to the guest, then frees
 * them. An inflated page is PageOffline() (kdump, /proc/kcore and memory
 * offlining tell it by that) until it is freed.
 *
 * With CONFIG_BALLOON_MIGRATION, inflated pages are pages of a movable_pool
 * (include/linux/movable_pool.h) and may move: the pool owns page->lru and
 * page->private of an inflated page, and calls the device's ->migratepage
 * to have the host swap a page for a new one. Both pages are locked then;
 * it returns 0 once the host has the new page instead of the old one,
 * -EAGAIN to be retried later, -ENOENT when the host gave the old page back
 * but did not take the new one (the balloon deflated by a page), or
 * another errno to give up. The old page goes back to the page allocator
 * on 0 and -ENOENT.
 *
 * Copyright (C) 2012, Red Hat, Inc.  Rafael Aquini <aquini@redhat.com>
 */
#ifndef _LINUX_BALLOON_H
#define _LINUX_BALLOON_H
#include <linux/pagemap.h>
#include <linux/page-flags.h>
#include <linux/migrate.h>
#include <linux/gfp.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/atomic.h>

/**
 * struct balloon_dev_info - a balloon device
 * @pages: the inflated pages, without CONFIG_BALLOON_MIGRATION (with it,
 *	the balloon's movable_pool lists them)
 * @inflated: how many pages the device has in the balloon; see
 *	balloon_page_count()
 * @migratepage: see the top of this file; needed with
 *	CONFIG_BALLOON_MIGRATION
 * @adjust_managed_page_count: whether inflated pages leave the managed
 *	page count (and come back to it when deflated)
 */
struct balloon_dev_info {
	struct list_head pages;
	atomic_long_t inflated;
	int (*migratepage)(struct balloon_dev_info *b_dev_info,
			   struct page *newpage, struct page *page,
			   enum migrate_mode mode);
	bool adjust_managed_page_count;
};

struct page *balloon_page_alloc(void);
bool balloon_page_enqueue(struct balloon_dev_info *b_dev_info,
			  struct page *page);
struct page *balloon_page_dequeue(struct balloon_dev_info *b_dev_info);
size_t balloon_page_list_enqueue(struct balloon_dev_info *b_dev_info,
				 struct list_head *pages);
size_t balloon_page_list_dequeue(struct balloon_dev_info *b_dev_info,
				 struct list_head *pages, size_t n_req_pages);

static inline void balloon_devinfo_init(struct balloon_dev_info *balloon)
{
	INIT_LIST_HEAD(&balloon->pages);
	atomic_long_set(&balloon->inflated, 0);
	balloon->migratepage = NULL;
	balloon->adjust_managed_page_count = false;
}

/**
 * balloon_page_count - how many pages a device has in the balloon
 * @b_dev_info: the balloon device
 *
 * Pages it enqueued and has not dequeued, less those ->migratepage gave
 * back with -ENOENT; pages being migrated count. While this is non-zero a
 * dequeue that returns nothing can be tried again. A driver that still
 * counts pages of its own when this is zero has lost them: no dequeue
 * returns them, so a removal that waits for them must stop waiting.
 *
 * Return: the number of pages.
 */
static inline unsigned long
balloon_page_count(struct balloon_dev_info *b_dev_info)
{
	return atomic_long_read(&b_dev_info->inflated);
}
#endif /* _LINUX_BALLOON_H */
