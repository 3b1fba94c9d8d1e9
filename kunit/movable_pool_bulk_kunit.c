// SPDX-License-Identifier: GPL-2.0
/*
 * The bulk calls: movable_pool_alloc_pages() and movable_pool_free_pages(),
 * the arguments refused, pinned and isolated pages among those freed, a
 * page being migrated, and a page twice in one batch.
 */

#include "movable_pool_kunit.h"

static void test_bulk_rejects_bad_arguments(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[2];

	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(NULL, MPT_GFP, NULL, 0,
						       pages, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL,
						       0, pages, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool,
						       GFP_KERNEL_ACCOUNT, NULL,
						       0, pages, 1), -EINVAL);
	/* the last page's index would be past the limit */
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL,
						       MOVABLE_POOL_MAX_INDEX,
						       pages, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).allocated, 0UL);
	movable_pool_free_pages(NULL, pages, 2);
}

static void test_bulk_alloc_and_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[MPT_PAGES], *watch[MPT_PAGES];
	struct movable_pool_stats s;
	unsigned int before;
	LIST_HEAD(list);
	int i;

	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, ctx,
						       100, pages, MPT_PAGES), 0);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, (unsigned long)MPT_PAGES);
	KUNIT_EXPECT_EQ(test, s.allocated, (unsigned long)MPT_PAGES);
	for (i = 0; i < MPT_PAGES; i++) {
		mpt_expect_fields(test, pages[i], ctx, 100 + i);
		KUNIT_EXPECT_EQ(test, page_count(pages[i]), 1);
		KUNIT_EXPECT_FALSE(test, PageLocked(pages[i]));
		watch[i] = pages[i];
		get_page(watch[i]);
	}
	/* one page isolated (it goes), one pinned (a device has it: it stays) */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(pages[3]));
	KUNIT_ASSERT_EQ(test, movable_pool_pin(pages[7]), 0);
	/* expected: one "misuse" warning, for the pinned page */
	before = mpt_misuse(ctx);
	movable_pool_free_pages(ctx->pool, pages, MPT_PAGES);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, s.misuse, 1UL);
	KUNIT_EXPECT_EQ(test, s.pages, 1UL);
	KUNIT_EXPECT_EQ(test, s.freed, (unsigned long)MPT_PAGES - 1);
	KUNIT_EXPECT_EQ(test, s.isolated, 1UL);	/* until the VM is done */
	KUNIT_EXPECT_EQ(test, s.pinned, 1UL);
	movable_pool_unpin(watch[7]);
	movable_pool_free_page(ctx->pool, watch[7]);

	/* the VM hands the isolated one back; the pool lets it go */
	list_add(&watch[3]->lru, &list);
	putback_movable_pages(&list);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.isolated, 0UL);
	for (i = 0; i < MPT_PAGES; i++) {
		KUNIT_EXPECT_EQ(test, page_count(watch[i]), 1);
		KUNIT_EXPECT_FALSE(test, PageLocked(watch[i]));
		mpt_expect_detached(test, watch[i]);
		put_page(watch[i]);
	}
	KUNIT_EXPECT_EQ(test, s.putback, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
}

/*
 * A page twice in one batch, and the driver holds no reference of its own:
 * freed once, the repeat refused without touching the freed page.
 */
static void test_bulk_free_refuses_repeats(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[4], *batch[7];
	struct movable_pool_stats s;
	unsigned int before;

	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, ctx,
						       0, pages, 4), 0);
	/* pages[2] is isolated: it goes the slow way, twice */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(pages[2]));
	batch[0] = pages[0];
	batch[1] = pages[1];
	batch[2] = pages[0];
	batch[3] = pages[2];
	batch[4] = pages[3];
	batch[5] = pages[2];
	batch[6] = pages[1];
	before = mpt_misuse(ctx);
	/* expected: one "misuse" warning, for the three repeats */
	movable_pool_free_pages(ctx->pool, batch, 7);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, s.pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.freed, 4UL);
	KUNIT_EXPECT_EQ(test, s.freed_isolated, 1UL);
	/* the pool's reference until the VM hands it back, and the VM's */
	KUNIT_EXPECT_EQ(test, page_count(pages[2]), 2);
	get_page(pages[2]);
	mpt_putback(pages[2]);
	KUNIT_EXPECT_EQ(test, page_count(pages[2]), 1);
	mpt_expect_detached(test, pages[2]);
	put_page(pages[2]);
	mpt_expect_idle(test, ctx);
}

static int mpt_async_free_pages(struct mpt_async *a)
{
	struct page *pages[MPT_PAGES];
	int i;

	/* as a driver frees: drop them from its table, then free */
	for (i = 0; i < MPT_PAGES; i++)
		pages[i] = mpt_unlink(a->ctx, i);
	movable_pool_free_pages(a->ctx->pool, pages, MPT_PAGES);
	return 0;
}

/*
 * A free finds one of its pages migrating: it waits for the migration to
 * end (the routine finds the page gone and gives up), so that no routine
 * runs for a page after its free returned.
 */
static void test_bulk_free_waits_for_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async freer = { .ctx = ctx }, mover = { .ctx = ctx };
	struct page *busy;

	mpt_fill(test, 0, MPT_PAGES);
	busy = ctx->table[10];
	get_page(busy);
	mpt_start_held_move(test, &mover, busy);
	ctx->block_in_routine = false;	/* 6.x try a failed page twice */
	mpt_async_start(test, &freer, mpt_async_free_pages);
	mpt_release_held_move(test, &mover, &freer);
	/*
	 * The routine found it gone: not moved (or, tried again after the
	 * free, handed back as nothing to move), and the VM let it go.
	 */
	KUNIT_EXPECT_LE(test, mover.ret, 1);
	KUNIT_EXPECT_GE(test, atomic_read(&ctx->gone), 1);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, page_count(busy), 1);
	mpt_expect_detached(test, busy);
	put_page(busy);
	put_page(ctx->watch_dst);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_bulk_cases[] = {
	KUNIT_CASE(test_bulk_rejects_bad_arguments),
	KUNIT_CASE(test_bulk_alloc_and_free),
	KUNIT_CASE(test_bulk_free_waits_for_migration),
	KUNIT_CASE(test_bulk_free_refuses_repeats),
	{}
};

static struct kunit_suite movable_pool_bulk_suite = {
	.name = "movable_pool_bulk",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_bulk_cases,
};

kunit_test_suite(movable_pool_bulk_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: bulk calls");
MODULE_LICENSE("GPL");
