// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the memory balloon on movable_pool: pages a fake device
 * inflates and deflates, with the balloon's accounting (vm events,
 * NR_BALLOON_PAGES, managed pages); migration of inflated pages through
 * the device's ->migratepage, including the -ENOENT of a host that gave
 * the old page back without taking the new one; dequeueing everything
 * while the VM holds pages; two devices that never get each other's pages;
 * PageOffline() on every inflated page until it is freed; a driver that
 * lost a page, whose removal must still end; a page the balloon's pool
 * refuses, which goes back to the driver; and pages counted before a
 * migration racing their enqueue can see them.
 *
 * The migration cases call the migration core as compaction does
 * (isolate_movable_ops_page(), migrate_pages()); they are skipped without
 * CONFIG_BALLOON_MIGRATION.
 */

#include <kunit/test.h>
#include <linux/balloon.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/vmstat.h>

#define BT_PAGES	8

/* A balloon device whose host agrees to whatever ->rc says. */
struct bt_dev {
	struct balloon_dev_info b;
	int rc;				/* what ->migratepage returns */
	int calls;
	struct page *newpage, *page;	/* its last call's pages */
	bool newpage_offline;
	/* what its last call saw counted: managed, balloon, its own pages */
	unsigned long seen_totalram;
	long seen_balloon_pages;
	unsigned long seen_inflated;
};

static long bt_balloon_pages(void);

static int bt_migratepage(struct balloon_dev_info *b, struct page *newpage,
			  struct page *page, enum migrate_mode mode)
{
	struct bt_dev *dev = container_of(b, struct bt_dev, b);

	dev->calls++;
	dev->newpage = newpage;
	dev->page = page;
	dev->newpage_offline = PageOffline(newpage);
	dev->seen_totalram = totalram_pages();
	dev->seen_balloon_pages = bt_balloon_pages();
	dev->seen_inflated = balloon_page_count(b);
	return dev->rc;
}

static void bt_init(struct bt_dev *dev, bool adjust)
{
	memset(dev, 0, sizeof(*dev));
	balloon_devinfo_init(&dev->b);
	dev->b.migratepage = bt_migratepage;
	dev->b.adjust_managed_page_count = adjust;
}

/* What the balloon accounts, to compare before and after. */
struct bt_counts {
	unsigned long inflate, deflate, migrate;
	long balloon_pages;
	unsigned long totalram;
};

/* NR_BALLOON_PAGES with the per-cpu deltas not yet folded in */
static long bt_balloon_pages(void)
{
	struct per_cpu_nodestat *pcp;
	struct pglist_data *pgdat;
	long nr = 0;
	int cpu;

	for_each_online_pgdat(pgdat) {
		nr += atomic_long_read(&pgdat->vm_stat[NR_BALLOON_PAGES]);
		for_each_online_cpu(cpu) {
			pcp = per_cpu_ptr(pgdat->per_cpu_nodestats, cpu);
			nr += READ_ONCE(pcp->vm_node_stat_diff[NR_BALLOON_PAGES]);
		}
	}
	return nr;
}

static struct bt_counts bt_counts(struct kunit *test)
{
	unsigned long *events = kunit_kcalloc(test, NR_VM_EVENT_ITEMS,
					      sizeof(*events), GFP_KERNEL);
	struct bt_counts c = {};

	KUNIT_ASSERT_NOT_NULL(test, events);
	all_vm_events(events);
	c.inflate = events[BALLOON_INFLATE];
	c.deflate = events[BALLOON_DEFLATE];
#ifdef CONFIG_BALLOON_MIGRATION
	c.migrate = events[BALLOON_MIGRATE];
#endif
	c.balloon_pages = bt_balloon_pages();
	c.totalram = totalram_pages();
	kunit_kfree(test, events);
	return c;
}

/* Inflated, deflated, migrated and balloon pages since @before. */
static void bt_expect_counts(struct kunit *test, struct bt_counts *before,
			     unsigned long inflate, unsigned long deflate,
			     unsigned long migrate, long managed)
{
	struct bt_counts now = bt_counts(test);

	KUNIT_EXPECT_EQ(test, now.inflate - before->inflate, inflate);
	KUNIT_EXPECT_EQ(test, now.deflate - before->deflate, deflate);
	KUNIT_EXPECT_EQ(test, now.migrate - before->migrate, migrate);
	KUNIT_EXPECT_EQ(test, now.balloon_pages - before->balloon_pages,
			(long)(inflate - deflate));
	KUNIT_EXPECT_EQ(test, (long)(now.totalram - before->totalram), managed);
}

/* Inflate @dev by @n pages, as a driver does once its host has them. */
static void bt_inflate(struct kunit *test, struct bt_dev *dev,
		       struct page **pages, int n)
{
	struct page *page;
	int i;

	for (i = 0; i < n; i++) {
		page = balloon_page_alloc();
		KUNIT_ASSERT_NOT_NULL(test, page);
		KUNIT_EXPECT_TRUE(test, balloon_page_enqueue(&dev->b, page));
		KUNIT_EXPECT_TRUE(test, PageOffline(page));
		KUNIT_EXPECT_EQ(test, page_has_movable_ops(page),
				IS_ENABLED(CONFIG_BALLOON_MIGRATION));
		pages[i] = page;
	}
}

static bool bt_among(struct page *page, struct page **pages, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pages[i] == page)
			return true;
	return false;
}

/*
 * Deflate @dev entirely and free its pages, as a driver does once its host
 * gave them back; each must be one of @pages. Returns how many there were.
 */
static int bt_deflate_all(struct kunit *test, struct bt_dev *dev,
			  struct page **pages, int n)
{
	struct page *page, *next;
	LIST_HEAD(list);
	int nr = 0;

	while (balloon_page_list_dequeue(&dev->b, &list, BT_PAGES))
		;
	list_for_each_entry_safe(page, next, &list, lru) {
		list_del(&page->lru);
		KUNIT_EXPECT_TRUE(test, bt_among(page, pages, n));
		/* offline until freed: the host may still have it */
		KUNIT_EXPECT_TRUE(test, PageOffline(page));
		__free_page(page);
		nr++;
	}
	return nr;
}

static struct folio *bt_new_folio(struct folio *src, unsigned long private)
{
	return folio_alloc(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, 0);
}

/*
 * Migrate @page as compaction would: 0 if it migrated, 1 if it did not,
 * -EBUSY if it could not be isolated.
 */
static int bt_move(struct page *page)
{
	LIST_HEAD(list);
	int ret;

	if (!isolate_movable_ops_page(page, ISOLATE_UNEVICTABLE))
		return -EBUSY;
	list_add(&page->lru, &list);
	ret = migrate_pages(&list, bt_new_folio, NULL, 0, MIGRATE_SYNC,
			    MR_COMPACTION, NULL);
	if (!list_empty(&list))
		putback_movable_pages(&list);
	return ret;
}

static void bt_need_migration(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_BALLOON_MIGRATION))
		kunit_skip(test, "CONFIG_BALLOON_MIGRATION is off");
}

static void test_balloon_enqueue_dequeue(struct kunit *test)
{
	struct page *pages[BT_PAGES], *page;
	struct bt_counts before = bt_counts(test);
	struct bt_dev dev;
	int i;

	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, BT_PAGES);
	bt_expect_counts(test, &before, BT_PAGES, 0, 0, -BT_PAGES);

	/* one at a time, then the rest in one go */
	for (i = 0; i < 3; i++) {
		page = balloon_page_dequeue(&dev.b);
		KUNIT_ASSERT_NOT_NULL(test, page);
		KUNIT_EXPECT_TRUE(test, bt_among(page, pages, BT_PAGES));
		KUNIT_EXPECT_TRUE(test, PageOffline(page));
		KUNIT_EXPECT_EQ(test, page_count(page), 1);
		__free_page(page);
	}
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, BT_PAGES),
			BT_PAGES - 3);
	bt_expect_counts(test, &before, BT_PAGES, BT_PAGES, 0, 0);
	KUNIT_EXPECT_EQ(test, dev.calls, 0);

	/* a device that leaves the managed count alone */
	bt_init(&dev, false);
	bt_inflate(test, &dev, pages, 2);
	bt_expect_counts(test, &before, BT_PAGES + 2, BT_PAGES, 0, 0);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, 2), 2);
}

/* vmw_balloon enqueues again what its host refused to give back. */
static void test_balloon_enqueue_again(struct kunit *test)
{
	struct page *pages[BT_PAGES];
	struct bt_counts before;
	struct bt_dev dev;
	LIST_HEAD(list);

	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, BT_PAGES);
	before = bt_counts(test);
	KUNIT_ASSERT_EQ(test, balloon_page_list_dequeue(&dev.b, &list,
							BT_PAGES), BT_PAGES);
	KUNIT_EXPECT_EQ(test, balloon_page_list_enqueue(&dev.b, &list),
			BT_PAGES);
	KUNIT_EXPECT_TRUE(test, list_empty(&list));
	bt_expect_counts(test, &before, BT_PAGES, BT_PAGES, 0, 0);
	if (IS_ENABLED(CONFIG_BALLOON_MIGRATION)) {
		/* movable again */
		KUNIT_EXPECT_EQ(test, bt_move(pages[0]), 0);
		KUNIT_EXPECT_EQ(test, dev.calls, 1);
		pages[0] = dev.newpage;
	}
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, BT_PAGES),
			BT_PAGES);
}

static void test_balloon_migrates_inflated_page(struct kunit *test)
{
	struct page *pages[2], *old;
	struct bt_counts before;
	struct bt_dev dev;

	bt_need_migration(test);
	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, 2);
	before = bt_counts(test);
	old = pages[0];
	get_page(old);
	KUNIT_ASSERT_EQ(test, bt_move(old), 0);
	KUNIT_EXPECT_EQ(test, dev.calls, 1);
	KUNIT_EXPECT_PTR_EQ(test, dev.page, old);
	/* offline before the host could hear of it */
	KUNIT_EXPECT_TRUE(test, dev.newpage_offline);
	KUNIT_EXPECT_TRUE(test, PageOffline(dev.newpage));
	KUNIT_EXPECT_TRUE(test, page_has_movable_ops(dev.newpage));
	/* the old page is the VM's to free: only our reference is left */
	KUNIT_EXPECT_EQ(test, page_count(old), 1);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(old->mapping), NULL);
	KUNIT_EXPECT_TRUE(test, PageOffline(old));
	put_page(old);
	bt_expect_counts(test, &before, 0, 0, 1, 0);

	/* the new page moves again, and deflates */
	pages[0] = dev.newpage;
	KUNIT_EXPECT_EQ(test, bt_move(pages[0]), 0);
	pages[0] = dev.newpage;
	KUNIT_EXPECT_EQ(test, dev.calls, 2);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, 2), 2);
}

/* The host gave the old page back and refused the new one. */
static void test_balloon_migrate_enoent_deflates(struct kunit *test)
{
	struct page *pages[2], *old;
	struct bt_counts before;
	struct bt_dev dev;

	bt_need_migration(test);
	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, 2);
	before = bt_counts(test);
	old = pages[0];
	get_page(old);
	dev.rc = -ENOENT;
	/* the VM sees success: both pages go back to it */
	KUNIT_EXPECT_EQ(test, bt_move(old), 0);
	KUNIT_EXPECT_EQ(test, dev.calls, 1);
	KUNIT_EXPECT_EQ(test, page_count(old), 1);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(old->mapping), NULL);
	put_page(old);
	bt_expect_counts(test, &before, 0, 1, 0, 1);
	/* one page left, the other one */
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages + 1, 1), 1);
}

/* A device that cannot swap right now keeps its page. */
static void test_balloon_migrate_eagain_keeps_page(struct kunit *test)
{
	struct page *pages[1];
	struct bt_counts before;
	struct bt_dev dev;

	bt_need_migration(test);
	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, 1);
	before = bt_counts(test);
	dev.rc = -EAGAIN;
	KUNIT_EXPECT_EQ(test, bt_move(pages[0]), 1);
	KUNIT_EXPECT_GT(test, dev.calls, 1);
	bt_expect_counts(test, &before, 0, 0, 0, 0);
	KUNIT_EXPECT_TRUE(test, page_has_movable_ops(pages[0]));
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, 1), 1);
}

/*
 * Deflating everything, as a driver's remove does, while the VM holds an
 * inflated page: it stays in the balloon until the VM gives it back.
 */
static void test_balloon_dequeue_all_while_isolated(struct kunit *test)
{
	struct page *pages[BT_PAGES];
	struct bt_dev dev;
	LIST_HEAD(isolated);
	LIST_HEAD(list);
	struct page *page;

	bt_need_migration(test);
	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, BT_PAGES);
	KUNIT_ASSERT_TRUE(test, isolate_movable_ops_page(pages[3],
							 ISOLATE_UNEVICTABLE));
	list_add(&pages[3]->lru, &isolated);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, BT_PAGES),
			BT_PAGES - 1);
	/* not empty, only busy: NULL without a warning */
	KUNIT_EXPECT_PTR_EQ(test, balloon_page_dequeue(&dev.b), NULL);
	putback_movable_pages(&isolated);
	page = balloon_page_dequeue(&dev.b);
	KUNIT_EXPECT_PTR_EQ(test, page, pages[3]);
	if (page)
		__free_page(page);
}

/* Two devices share the balloon's pool but not their pages. */
static void test_balloon_two_devices(struct kunit *test)
{
	struct page *a_pages[BT_PAGES], *b_pages[BT_PAGES];
	struct bt_dev *a, *b;
	LIST_HEAD(list);
	int i;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	bt_init(a, true);
	bt_init(b, false);
	/* interleaved, so each device's pages sit among the other's */
	for (i = 0; i < BT_PAGES; i++) {
		bt_inflate(test, a, a_pages + i, 1);
		bt_inflate(test, b, b_pages + i, 1);
	}
	if (IS_ENABLED(CONFIG_BALLOON_MIGRATION)) {
		KUNIT_EXPECT_EQ(test, bt_move(b_pages[2]), 0);
		b_pages[2] = b->newpage;
		KUNIT_EXPECT_EQ(test, bt_move(a_pages[5]), 0);
		a_pages[5] = a->newpage;
		KUNIT_EXPECT_EQ(test, a->calls, 1);
		KUNIT_EXPECT_EQ(test, b->calls, 1);
	}
	/* each gets its own pages back, all of them */
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, b, b_pages, BT_PAGES),
			BT_PAGES);
	KUNIT_EXPECT_EQ(test, balloon_page_list_dequeue(&b->b, &list, 1), 0);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, a, a_pages, BT_PAGES),
			BT_PAGES);
}

/*
 * A driver that lost count: the host gave a page back through
 * ->migratepage's -ENOENT and the driver did not count it out, so it asks
 * for one page more than its balloon has. Its dequeue warns even while
 * another device has pages, as upstream's BUG() fired for the device's
 * own list, not for all devices.
 */
static void test_balloon_lost_page_warns(struct kunit *test)
{
	struct page *a_pages[BT_PAGES], *b_pages[BT_PAGES], *lost;
	struct bt_dev *a, *b;
	int left, i;

	bt_need_migration(test);
	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	bt_init(a, true);
	bt_init(b, true);
	bt_inflate(test, a, a_pages, BT_PAGES);
	bt_inflate(test, b, b_pages, BT_PAGES);
	lost = a_pages[0];
	a->rc = -ENOENT;
	KUNIT_ASSERT_EQ(test, bt_move(lost), 0);
	a->rc = 0;
	/* the driver deflates what it counts: BT_PAGES */
	left = BT_PAGES;
	kunit_warning_suppress(test) {
		for (i = 1; i < BT_PAGES; i++) {
			struct page *page = balloon_page_dequeue(&a->b);

			KUNIT_ASSERT_NOT_NULL(test, page);
			KUNIT_EXPECT_TRUE(test, bt_among(page, a_pages, BT_PAGES));
			__free_page(page);
			left--;
		}
		KUNIT_EXPECT_SUPPRESSED_WARNING_COUNT(test, 0);
		/* the last one is gone for good */
		KUNIT_EXPECT_PTR_EQ(test, balloon_page_dequeue(&a->b), NULL);
		KUNIT_EXPECT_SUPPRESSED_WARNING_COUNT(test, 1);
	}
	KUNIT_EXPECT_EQ(test, left, 1);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, b, b_pages, BT_PAGES),
			BT_PAGES);
}

/*
 * A page the balloon's pool refuses (here one that is not order-0, as no
 * driver should enqueue) goes back to the driver: it stays on the list, in
 * the balloon's counts nowhere, and untouched.
 */
static void test_balloon_list_enqueue_gives_back_refused(struct kunit *test)
{
	struct page *pages[2], *bad, *page;
	struct bt_counts before;
	struct bt_dev dev;
	LIST_HEAD(list);
	size_t n;

	bt_need_migration(test);
	bt_init(&dev, true);
	bad = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	KUNIT_ASSERT_NOT_NULL(test, bad);
	pages[0] = balloon_page_alloc();
	pages[1] = balloon_page_alloc();
	KUNIT_ASSERT_NOT_NULL(test, pages[0]);
	KUNIT_ASSERT_NOT_NULL(test, pages[1]);
	list_add_tail(&pages[0]->lru, &list);
	list_add_tail(&bad->lru, &list);
	list_add_tail(&pages[1]->lru, &list);
	before = bt_counts(test);
	kunit_warning_suppress(test) {
		n = balloon_page_list_enqueue(&dev.b, &list);
	}
	KUNIT_EXPECT_EQ(test, n, 2);
	bt_expect_counts(test, &before, 2, 0, 0, -2);
	KUNIT_EXPECT_TRUE(test, PageOffline(pages[0]));
	KUNIT_EXPECT_TRUE(test, PageOffline(pages[1]));
	KUNIT_EXPECT_FALSE(test, PageOffline(bad));
	/* back on the list, alone */
	KUNIT_EXPECT_TRUE(test, list_is_singular(&list));
	page = list_first_entry_or_null(&list, struct page, lru);
	KUNIT_EXPECT_PTR_EQ(test, page, bad);
	__free_pages(bad, 1);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, 2), 2);
}

/* The same for one page: false, and the page as it was. */
static void test_balloon_enqueue_refused(struct kunit *test)
{
	struct bt_counts before;
	struct bt_dev dev;
	struct page *bad;
	bool enqueued;

	bt_need_migration(test);
	bt_init(&dev, true);
	bad = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
	KUNIT_ASSERT_NOT_NULL(test, bad);
	before = bt_counts(test);
	kunit_warning_suppress(test) {
		enqueued = balloon_page_enqueue(&dev.b, bad);
	}
	KUNIT_EXPECT_FALSE(test, enqueued);
	bt_expect_counts(test, &before, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, balloon_page_count(&dev.b), 0);
	KUNIT_EXPECT_FALSE(test, PageOffline(bad));
	KUNIT_EXPECT_EQ(test, page_count(bad), 1);
	__free_pages(bad, 1);
}

/*
 * A driver's removal, as virtio_balloon's: deflate until its own count
 * reaches zero, trying again while the balloon has pages of the device
 * (the VM gives back those it holds), and giving up on the pages the
 * balloon no longer has. Of BT_PAGES, one is lost (an -ENOENT the driver
 * did not count out) and one is held by the VM for a while: removal gets
 * every page there is, and ends. Deflating one page at a time (cmm) and
 * a list at a time (virtio_balloon, vmw_balloon) both.
 */
static void bt_removal(struct kunit *test, bool list_at_a_time)
{
	unsigned long count = BT_PAGES, lost = 0;	/* the driver's */
	struct page *pages[BT_PAGES], *page, *next;
	int i, rounds, freed = 0;
	LIST_HEAD(isolated);
	struct bt_dev dev;
	LIST_HEAD(list);

	bt_need_migration(test);
	bt_init(&dev, true);
	bt_inflate(test, &dev, pages, BT_PAGES);
	dev.rc = -ENOENT;
	KUNIT_ASSERT_EQ(test, bt_move(pages[0]), 0);
	dev.rc = 0;
	KUNIT_EXPECT_EQ(test, balloon_page_count(&dev.b), BT_PAGES - 1);
	KUNIT_ASSERT_TRUE(test, isolate_movable_ops_page(pages[1],
							 ISOLATE_UNEVICTABLE));
	list_add(&pages[1]->lru, &isolated);
	kunit_warning_suppress(test) {
		for (rounds = 0; count && rounds < 100; rounds++) {
			if (rounds == 3)
				putback_movable_pages(&isolated);
			/* virtio_balloon's leak_balloon() */
			if (list_at_a_time)
				balloon_page_list_dequeue(&dev.b, &list, count);
			/* one at a time, only while the balloon has some */
			for (i = 0; !list_at_a_time && i < count; i++) {
				if (!balloon_page_count(&dev.b))
					break;
				page = balloon_page_dequeue(&dev.b);
				if (!page)
					break;
				list_add(&page->lru, &list);
			}
			list_for_each_entry_safe(page, next, &list, lru) {
				list_del(&page->lru);
				KUNIT_EXPECT_TRUE(test, bt_among(page, pages,
								 BT_PAGES));
				__free_page(page);
				freed++;
				count--;
			}
			/* none left for a count of ours: lost */
			if (count && !balloon_page_count(&dev.b)) {
				lost = count;
				count = 0;
			}
		}
		/* it never asked an empty balloon */
		KUNIT_EXPECT_SUPPRESSED_WARNING_COUNT(test, 0);
	}
	if (!list_empty(&isolated))
		putback_movable_pages(&isolated);
	KUNIT_EXPECT_EQ(test, count, 0);
	KUNIT_EXPECT_EQ(test, lost, 1);
	KUNIT_EXPECT_EQ(test, freed, BT_PAGES - 1);
	/* it waited for the page the VM held */
	KUNIT_EXPECT_EQ(test, rounds, 4);
	KUNIT_EXPECT_EQ(test, balloon_page_count(&dev.b), 0);
	KUNIT_EXPECT_EQ(test, bt_deflate_all(test, &dev, pages, BT_PAGES), 0);
}

static void test_balloon_removal_ends_after_lost_page(struct kunit *test)
{
	bt_removal(test, true);
	bt_removal(test, false);
}

/* Migrates each page it is given as soon as it can be isolated. */
struct bt_racer {
	struct page *target;	/* the page to move, NULL once tried */
	int moved;
};

static int bt_racer_fn(void *data)
{
	struct bt_racer *r = data;
	struct page *page;
	LIST_HEAD(list);

	while (!kthread_should_stop()) {
		page = READ_ONCE(r->target);
		if (!page || !isolate_movable_ops_page(page,
						       ISOLATE_UNEVICTABLE)) {
			cond_resched();
			continue;
		}
		list_add(&page->lru, &list);
		if (!migrate_pages(&list, bt_new_folio, NULL, 0, MIGRATE_SYNC,
				   MR_COMPACTION, NULL))
			r->moved++;
		if (!list_empty(&list))
			putback_movable_pages(&list);
		/* what the device saw, before the test reads it */
		smp_store_release(&r->target, NULL);
	}
	return 0;
}

#define BT_RACES	500

/*
 * A migration racing the enqueue of each page, from another CPU: by the
 * time the device is asked to swap a page, the balloon has counted it
 * (managed pages, NR_BALLOON_PAGES). Once in the pool the page may move or
 * leave at once, so counting it afterwards would count a page that may
 * already be elsewhere, or freed. The race is won only now and then; a
 * pass says nothing, a failure says the order is wrong.
 */
static void test_balloon_counted_before_published(struct kunit *test)
{
	int i, tries, early = 0, calls = 0, stuck = 0, lost = 0;
	struct task_struct *racer;
	struct bt_racer r = {};
	unsigned long totalram;
	long balloon_pages;
	struct bt_dev dev;
	struct page *page;

	bt_need_migration(test);
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	bt_init(&dev, true);
	racer = kthread_run(bt_racer_fn, &r, "balloon_racer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(racer));
	/* no assertion while the racer runs: it uses r */
	for (i = 0; i < BT_RACES; i++) {
		page = balloon_page_alloc();
		if (!page)
			break;
		totalram = totalram_pages();
		balloon_pages = bt_balloon_pages();
		dev.calls = 0;
		WRITE_ONCE(r.target, page);
		balloon_page_enqueue(&dev.b, page);
		/* acquire: pairs with the racer's release, for dev's fields */
		for (tries = 0; smp_load_acquire(&r.target) && tries < 10000;
		     tries++)
			usleep_range(10, 20);
		/* acquire: as above */
		if (smp_load_acquire(&r.target)) {
			stuck++;
			break;
		}
		if (dev.calls) {
			calls++;
			if (dev.seen_totalram != totalram - 1 ||
			    dev.seen_balloon_pages != balloon_pages + 1 ||
			    dev.seen_inflated != 1)
				early++;
		}
		page = balloon_page_dequeue(&dev.b);
		if (!page) {
			lost++;
			break;
		}
		__free_page(page);
	}
	kthread_stop(racer);
	kunit_info(test, "%d of %d pages migrated, %d seen uncounted\n",
		   r.moved, i, early);
	KUNIT_EXPECT_EQ(test, i, BT_RACES);
	KUNIT_EXPECT_EQ(test, stuck, 0);
	KUNIT_EXPECT_EQ(test, lost, 0);
	KUNIT_EXPECT_GT(test, calls, 0);
	KUNIT_EXPECT_EQ(test, early, 0);
}

/*
 * A driver that lost count gets NULL, never a BUG(), each time; the
 * warning comes once (test_balloon_lost_page_warns saw it).
 */
static void test_balloon_dequeue_empty(struct kunit *test)
{
	struct bt_dev dev;

	bt_init(&dev, true);
	kunit_warning_suppress(test) {
		KUNIT_EXPECT_PTR_EQ(test, balloon_page_dequeue(&dev.b), NULL);
		KUNIT_EXPECT_PTR_EQ(test, balloon_page_dequeue(&dev.b), NULL);
		KUNIT_EXPECT_LE(test, KUNIT_SUPPRESSED_WARNING_COUNT(), 1);
	}
}

static struct kunit_case balloon_cases[] = {
	KUNIT_CASE(test_balloon_enqueue_dequeue),
	KUNIT_CASE(test_balloon_enqueue_again),
	KUNIT_CASE(test_balloon_migrates_inflated_page),
	KUNIT_CASE(test_balloon_migrate_enoent_deflates),
	KUNIT_CASE(test_balloon_migrate_eagain_keeps_page),
	KUNIT_CASE(test_balloon_dequeue_all_while_isolated),
	KUNIT_CASE(test_balloon_two_devices),
	KUNIT_CASE(test_balloon_lost_page_warns),
	KUNIT_CASE(test_balloon_list_enqueue_gives_back_refused),
	KUNIT_CASE(test_balloon_enqueue_refused),
	KUNIT_CASE(test_balloon_removal_ends_after_lost_page),
	KUNIT_CASE_SLOW(test_balloon_counted_before_published),
	KUNIT_CASE(test_balloon_dequeue_empty),
	{}
};

static struct kunit_suite balloon_suite = {
	.name = "movable_pool_balloon",
	.test_cases = balloon_cases,
};

kunit_test_suite(balloon_suite);

MODULE_DESCRIPTION("KUnit tests for the memory balloon on movable_pool");
MODULE_LICENSE("GPL");
