// SPDX-License-Identifier: GPL-2.0-only
/*
 * Common interface for implementing a memory balloon, including support
 * for migration of pages inflated in a memory balloon.
 *
 * With CONFIG_BALLOON_MIGRATION the inflated pages of every balloon device
 * are pages of one movable_pool (Documentation/core-api/movable_pool.rst),
 * which isolates, migrates and puts them back and keeps their list; each
 * page's owner is its device, which gets only its own pages back. One pool
 * for all devices, because a device has no call that would destroy one of
 * its own. Without CONFIG_BALLOON_MIGRATION each device lists its pages.
 *
 * Copyright (C) 2012, Red Hat, Inc.  Rafael Aquini <aquini@redhat.com>
 */
#include <linux/balloon.h>
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/movable_pool.h>
#include <linux/vmstat.h>

/* How many pages a dequeue takes out of the pool at a time */
#define BALLOON_TAKE_BATCH	16

static struct movable_pool *balloon_pool;

/* @nr (1 or -1) pages more in the balloon: the managed and balloon counts */
static void balloon_page_count_in(struct balloon_dev_info *b_dev_info,
				  struct page *page, int nr)
{
	if (b_dev_info->adjust_managed_page_count)
		adjust_managed_page_count(page, -nr);
	mod_node_page_state(page_pgdat(page), NR_BALLOON_PAGES, nr);
	atomic_long_add(nr, &b_dev_info->inflated);
}

static void balloon_page_inflated(struct balloon_dev_info *b_dev_info,
				  struct page *page)
{
	balloon_page_count_in(b_dev_info, page, 1);
	count_vm_event(BALLOON_INFLATE);
}

static void balloon_page_deflated(struct balloon_dev_info *b_dev_info,
				  struct page *page)
{
	balloon_page_count_in(b_dev_info, page, -1);
	count_vm_event(BALLOON_DEFLATE);
}

#ifdef CONFIG_BALLOON_MIGRATION
static int balloon_migrate(struct movable_pool *pool, void *owner,
			   pgoff_t index, struct page *dst, struct page *src,
			   enum migrate_mode mode)
{
	struct balloon_dev_info *b_dev_info = owner;
	int rc;

	rc = b_dev_info->migratepage(b_dev_info, dst, src, mode);
	if (rc == -ENOENT) {
		/* the host gave @src back but did not take @dst */
		balloon_page_deflated(b_dev_info, src);
		return MOVABLE_POOL_MIGRATE_DROP;
	}
	if (rc)
		return rc;
	count_vm_event(BALLOON_MIGRATE);
	/* the counts follow the page to its new zone (and node) */
	if (page_zone(src) != page_zone(dst)) {
		if (b_dev_info->adjust_managed_page_count) {
			adjust_managed_page_count(src, 1);
			adjust_managed_page_count(dst, -1);
		}
		dec_node_page_state(src, NR_BALLOON_PAGES);
		inc_node_page_state(dst, NR_BALLOON_PAGES);
	}
	return 0;
}

static const struct movable_pool_ops balloon_pool_ops = {
	.migrate = balloon_migrate,
	.flags = MOVABLE_POOL_OFFLINE_PAGES,
};

static bool balloon_insert(struct balloon_dev_info *b_dev_info,
			   struct page *page)
{
	return !movable_pool_add_page(balloon_pool, page, b_dev_info, 0);
}

static unsigned int balloon_take(struct balloon_dev_info *b_dev_info,
				 struct page **pages, unsigned int nr)
{
	return movable_pool_take_owner_pages(balloon_pool, b_dev_info, pages,
					     nr);
}

/* After movable_pool's subsys_initcall(), before any driver's. */
static int __init balloon_init(void)
{
	balloon_pool = movable_pool_create("balloon", &balloon_pool_ops, NULL);
	if (IS_ERR(balloon_pool)) {
		pr_err("balloon: no pool (%pe): balloons cannot inflate\n",
		       balloon_pool);
		balloon_pool = NULL;
	}
	return 0;
}
subsys_initcall_sync(balloon_init);
#else
static DEFINE_SPINLOCK(balloon_pages_lock);

static bool balloon_insert(struct balloon_dev_info *b_dev_info,
			   struct page *page)
{
	unsigned long flags;

	__SetPageOffline(page);
	spin_lock_irqsave(&balloon_pages_lock, flags);
	list_add(&page->lru, &b_dev_info->pages);
	spin_unlock_irqrestore(&balloon_pages_lock, flags);
	return true;
}

static unsigned int balloon_take(struct balloon_dev_info *b_dev_info,
				 struct page **pages, unsigned int nr)
{
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&balloon_pages_lock, flags);
	while (n < nr && !list_empty(&b_dev_info->pages)) {
		pages[n] = list_first_entry(&b_dev_info->pages, struct page,
					    lru);
		list_del(&pages[n++]->lru);
	}
	spin_unlock_irqrestore(&balloon_pages_lock, flags);
	return n;
}

#endif /* CONFIG_BALLOON_MIGRATION */

/**
 * balloon_page_alloc - allocate a page to inflate a balloon with
 *
 * The driver may link the page through page->lru until it enqueues it with
 * balloon_page_enqueue() or balloon_page_list_enqueue(), which it does
 * before the host may take the page.
 *
 * Return: the page, or NULL if none could be had at once.
 */
struct page *balloon_page_alloc(void)
{
	gfp_t gfp = __GFP_NOMEMALLOC | __GFP_NORETRY | __GFP_NOWARN;

	if (!IS_ENABLED(CONFIG_BALLOON_MIGRATION))
		return alloc_page(gfp | GFP_HIGHUSER);
	/* where pages can move: ZONE_MOVABLE, CMA, movable pageblocks */
	return balloon_pool ? alloc_page(gfp | GFP_HIGHUSER_MOVABLE) : NULL;
}
EXPORT_SYMBOL_GPL(balloon_page_alloc);

/**
 * balloon_page_enqueue - inflate the balloon by a page
 * @b_dev_info: the balloon device
 * @page: a page from balloon_page_alloc(), off any list
 *
 * From now on the page is PageOffline() and, with
 * CONFIG_BALLOON_MIGRATION, may move: the driver must not touch page->lru
 * until it has dequeued the page again.
 *
 * With CONFIG_BALLOON_MIGRATION the balloon's movable_pool may refuse the
 * page, which only a page that is not one balloon_page_alloc() gave (or
 * balloon_page_list_dequeue() gave back) can cause, with a warning. The
 * page is then still the driver's, off any list and counted nowhere: the
 * driver must not tell its host of it.
 *
 * Context: process context; may sleep.
 * Return: true if the page is in the balloon, false if it was refused.
 */
bool balloon_page_enqueue(struct balloon_dev_info *b_dev_info,
			  struct page *page)
{
	/*
	 * Counted first: from the moment it is in the pool the page may move
	 * to another zone, or leave the balloon (->migratepage's -ENOENT)
	 * and be freed, and either counts it out of the balloon.
	 */
	balloon_page_inflated(b_dev_info, page);
	if (balloon_insert(b_dev_info, page))
		return true;
	/* never published: nobody else has seen it counted */
	balloon_page_count_in(b_dev_info, page, -1);
	count_vm_events(BALLOON_INFLATE, -1);
	return false;
}
EXPORT_SYMBOL_GPL(balloon_page_enqueue);

/**
 * balloon_page_list_enqueue - inflate the balloon by a list of pages
 * @b_dev_info: the balloon device
 * @pages: pages from balloon_page_alloc(), linked through page->lru
 *
 * balloon_page_enqueue() on each page. The pages it refused stay on
 * @pages, in their order, still the driver's; the list is empty on return
 * unless it says fewer pages than were listed.
 *
 * Context: process context; may sleep.
 * Return: how many pages were enqueued.
 */
size_t balloon_page_list_enqueue(struct balloon_dev_info *b_dev_info,
				 struct list_head *pages)
{
	struct page *page, *tmp;
	LIST_HEAD(refused);
	size_t n_pages = 0;

	list_for_each_entry_safe(page, tmp, pages, lru) {
		list_del(&page->lru);
		if (balloon_page_enqueue(b_dev_info, page))
			n_pages++;
		else
			list_add_tail(&page->lru, &refused);
	}
	list_splice(&refused, pages);
	return n_pages;
}
EXPORT_SYMBOL_GPL(balloon_page_list_enqueue);

/**
 * balloon_page_list_dequeue - deflate the balloon by up to @n_req_pages
 * @b_dev_info: the balloon device
 * @pages: the dequeued pages are added to this list, through page->lru
 * @n_req_pages: how many pages at most
 *
 * Takes pages of this device only. It may take fewer than it has: pages
 * that are being migrated at that moment stay in the balloon. The driver
 * tells the host, then frees the pages (they are PageOffline() until
 * freed), or enqueues them again if the host refused them.
 *
 * Context: process context.
 * Return: how many pages were added to @pages.
 */
size_t balloon_page_list_dequeue(struct balloon_dev_info *b_dev_info,
				 struct list_head *pages, size_t n_req_pages)
{
	struct page *batch[BALLOON_TAKE_BATCH];
	size_t n_pages = 0;
	unsigned int i, n;

	while (n_pages < n_req_pages) {
		n = balloon_take(b_dev_info, batch,
				 min_t(size_t, n_req_pages - n_pages,
				       ARRAY_SIZE(batch)));
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			balloon_page_deflated(b_dev_info, batch[i]);
			list_add(&batch[i]->lru, pages);
		}
		n_pages += n;
	}
	return n_pages;
}
EXPORT_SYMBOL_GPL(balloon_page_list_dequeue);

/**
 * balloon_page_dequeue - deflate the balloon by a page
 * @b_dev_info: the balloon device
 *
 * As balloon_page_list_dequeue() for one page. The driver keeps count of
 * its pages and calls this only while it has some.
 *
 * NULL while the device has pages in the balloon (balloon_page_count())
 * means they are being migrated: the driver may try again. A driver that
 * asks for a page of a device with none has lost count of its pages, which
 * never come back: it gets NULL and a warning, once, and must stop asking.
 *
 * Context: process context.
 * Return: the page, or NULL if none could be taken right now.
 */
struct page *balloon_page_dequeue(struct balloon_dev_info *b_dev_info)
{
	struct page *page;
	LIST_HEAD(pages);

	if (!balloon_page_list_dequeue(b_dev_info, &pages, 1)) {
		/* pages lost: the driver must stop, see balloon_page_count() */
		WARN_ONCE(!balloon_page_count(b_dev_info),
			  "balloon: dequeue from an empty balloon\n");
		return NULL;
	}
	page = list_first_entry(&pages, struct page, lru);
	list_del(&page->lru);
	return page;
}
EXPORT_SYMBOL_GPL(balloon_page_dequeue);
