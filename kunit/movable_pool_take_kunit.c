// SPDX-License-Identifier: GPL-2.0
/*
 * movable_pool_take_pages(): it takes whichever pages a pool can spare,
 * leaving pinned and isolated ones, and does not scan the same busy pages
 * on every call; movable_pool_take_owner_pages() takes only the pages of
 * one owner.
 */

#include "movable_pool_kunit.h"

/* Hand taken pages back to the page allocator, as the caller would. */
static void mpt_free_taken(struct kunit *test, struct page **taken,
			   unsigned int n)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < MPT_PAGES; j++)
			if (ctx->table[j] == taken[i])
				ctx->table[j] = NULL;
		mpt_expect_detached(test, taken[i]);
		KUNIT_EXPECT_EQ(test, page_count(taken[i]), 1);
		/* no longer movable: the VM cannot take it to the routine */
		KUNIT_EXPECT_FALSE(test, mp_isolate_movable_page(taken[i]));
		__free_page(taken[i]);
	}
}

static void test_take_pages_leaves_busy_ones(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *taken[MPT_PAGES], *pinned, *isolated, *moved;
	struct movable_pool_stats s;
	LIST_HEAD(list);
	unsigned int n, i;

	mpt_fill(test, 0, 8);
	pinned = ctx->table[1];
	isolated = ctx->table[2];
	moved = ctx->table[3];
	KUNIT_ASSERT_EQ(test, movable_pool_pin(pinned), 0);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(isolated));
	list_add(&isolated->lru, &list);

	KUNIT_EXPECT_EQ(test, movable_pool_take_pages(ctx->pool, taken, 0), 0U);
	KUNIT_EXPECT_EQ(test, movable_pool_take_pages(NULL, taken, 1), 0U);
	n = movable_pool_take_pages(ctx->pool, taken, 2);
	KUNIT_EXPECT_EQ(test, n, 2U);
	n += movable_pool_take_pages(ctx->pool, taken + n, MPT_PAGES);
	KUNIT_EXPECT_EQ(test, n, 6U);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_PTR_NE(test, taken[i], pinned);
		KUNIT_EXPECT_PTR_NE(test, taken[i], isolated);
	}
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 2UL);
	KUNIT_EXPECT_EQ(test, s.freed, 6UL);
	KUNIT_EXPECT_EQ(test, s.pinned, 1UL);
	KUNIT_EXPECT_EQ(test, s.isolated, 1UL);
	/* a page taken is no longer the pool's: the VM cannot move it */
	KUNIT_EXPECT_EQ(test, mpt_move(moved, MIGRATE_SYNC), -EBUSY);
	mpt_free_taken(test, taken, n);

	/* the two left are the pool's still, and go once they are free */
	putback_movable_pages(&list);
	movable_pool_unpin(pinned);
	mpt_expect_fields(test, isolated, &ctx->table[2], 2);
	KUNIT_EXPECT_EQ(test, mpt_move(pinned, MIGRATE_SYNC), 0);
	n = movable_pool_take_pages(ctx->pool, taken, MPT_PAGES);
	KUNIT_EXPECT_EQ(test, n, 2U);
	mpt_free_taken(test, taken, n);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 1);
	mpt_expect_idle(test, ctx);
}

/* Busy pages go to the back of the list; one call passes a few over. */
static void test_take_pages_rotates_busy_ones(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int nr = 200, busy = 150, n, i;
	struct page **pages, *taken[2];

	pages = kunit_kcalloc(test, nr, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL,
						       0, pages, nr), 0);
	for (i = 0; i < busy; i++)
		KUNIT_ASSERT_EQ(test, movable_pool_pin(pages[i]), 0);

	/* the scan is bounded: it may give up before the idle pages */
	n = 0;
	for (i = 0; i < 4 && !n; i++)
		n = movable_pool_take_pages(ctx->pool, taken, 1);
	/* ... but each call starts past the pages the last one passed over */
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_GT(test, i, 1U);
	KUNIT_EXPECT_LE(test, i, (busy + 63) / 64 + 1);
	for (i = 0; i < nr; i++)
		if (pages[i] == taken[0])
			KUNIT_EXPECT_GE(test, i, busy);
	__free_page(taken[0]);

	for (i = 0; i < busy; i++)
		movable_pool_unpin(pages[i]);
	for (i = 0; i < nr; i++)
		if (pages[i] == taken[0])
			pages[i] = NULL;
	movable_pool_free_pages(ctx->pool, pages, nr);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	mpt_expect_idle(test, ctx);
}

/* Two owners share the pool, as two balloon devices do. */
static void test_take_owner_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page **a, **b, *taken[8];
	unsigned int nr = 100, n, i, j;
	int owner_a, owner_b;

	a = kunit_kcalloc(test, nr, sizeof(*a), GFP_KERNEL);
	b = kunit_kcalloc(test, nr, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	/* a's pages first on the list: b's scans have to pass them over */
	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP,
						       &owner_a, 0, a, nr), 0);
	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP,
						       &owner_b, 0, b, nr), 0);

	n = 0;
	for (i = 0; i < 8 && !n; i++)
		n = movable_pool_take_owner_pages(ctx->pool, &owner_b, taken, 8);
	KUNIT_EXPECT_GT(test, n, 0U);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nr && b[j] != taken[i]; j++)
			;
		KUNIT_EXPECT_LT(test, j, nr);
		if (j < nr)
			b[j] = NULL;
		__free_page(taken[i]);
	}
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 2UL * nr - n);
	KUNIT_EXPECT_EQ(test, movable_pool_take_owner_pages(ctx->pool, &n,
							    taken, 8), 0U);

	/* a's own are all there for a */
	n = movable_pool_take_owner_pages(ctx->pool, &owner_a, taken, 8);
	KUNIT_EXPECT_EQ(test, n, 8U);
	for (i = 0; i < n; i++) {
		for (j = 0; j < nr && a[j] != taken[i]; j++)
			;
		KUNIT_EXPECT_LT(test, j, nr);
		if (j < nr)
			a[j] = NULL;
		__free_page(taken[i]);
	}
	movable_pool_free_pages(ctx->pool, a, nr);
	movable_pool_free_pages(ctx->pool, b, nr);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_take_cases[] = {
	KUNIT_CASE(test_take_pages_leaves_busy_ones),
	KUNIT_CASE(test_take_pages_rotates_busy_ones),
	KUNIT_CASE(test_take_owner_pages),
	{}
};

static struct kunit_suite movable_pool_take_suite = {
	.name = "movable_pool_take",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_take_cases,
};

kunit_test_suite(movable_pool_take_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: take_pages");
MODULE_LICENSE("GPL");
