// SPDX-License-Identifier: GPL-2.0
/*
 * movable_pool_add_page(): a page the driver allocated itself becomes a
 * pool page like any other, a page taken from the pool goes back in, and
 * what is not a plain page is refused with a warning.
 */

#include <linux/delay.h>

#include "movable_pool_kunit.h"

/* A page from the page allocator, as a balloon would allocate it. */
static struct page *mpt_plain_page(struct kunit *test, unsigned int seed)
{
	struct page *page = alloc_page(MPT_GFP);

	KUNIT_ASSERT_NOT_NULL(test, page);
	mpt_write_pattern(page, seed);
	return page;
}

static void test_add_page_joins_pool(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct page *page;
	int i;

	for (i = 0; i < 4; i++) {
		page = mpt_plain_page(test, i);
		KUNIT_ASSERT_EQ(test, movable_pool_add_page(ctx->pool, page,
							    &ctx->table[i], i), 0);
		ctx->table[i] = page;
		KUNIT_EXPECT_EQ(test, page_count(page), 1);
		mpt_expect_fields(test, page, &ctx->table[i], i);
	}
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 4UL);
	KUNIT_EXPECT_EQ(test, s.allocated, 4UL);

	/* it moves, pins and frees as an allocated page does */
	page = ctx->table[2];
	KUNIT_ASSERT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_PTR_NE(test, ctx->table[2], page);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[2], 2));
	KUNIT_EXPECT_EQ(test, ctx->last_index, (pgoff_t)2);
	KUNIT_EXPECT_EQ(test, movable_pool_pin(ctx->table[2]), 0);
	movable_pool_unpin(ctx->table[2]);
	for (i = 0; i < 4; i++)
		mpt_free(ctx, i);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);
	mpt_expect_idle(test, ctx);
}

/* What vmw_balloon does with pages its host refused to take back. */
static void test_add_page_after_take(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *taken[4];
	unsigned int n, i;

	mpt_fill(test, 0, 4);
	n = movable_pool_take_pages(ctx->pool, taken, 4);
	KUNIT_ASSERT_EQ(test, n, 4U);
	memset(ctx->table, 0, sizeof(ctx->table));
	for (i = 0; i < n; i++) {
		mpt_expect_detached(test, taken[i]);
		KUNIT_ASSERT_EQ(test, movable_pool_add_page(ctx->pool, taken[i],
							    &ctx->table[i], i), 0);
		ctx->table[i] = taken[i];
		mpt_expect_fields(test, taken[i], &ctx->table[i], i);
	}
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 4UL);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[i], MIGRATE_SYNC), 0);
		KUNIT_EXPECT_PTR_NE(test, ctx->table[i], taken[i]);
	}
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);
	mpt_expect_idle(test, ctx);
}

static void test_add_page_refuses_misuse(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page, *compound, *other;
	unsigned int misuse;

	page = mpt_plain_page(test, 0);
	/* bad arguments: an error, not a driver's page to warn about */
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(NULL, page, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(ctx->pool, NULL, NULL, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(ctx->pool, page, NULL,
						    MOVABLE_POOL_MAX_INDEX + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);

	/* a page of the pool already */
	mpt_fill(test, 0, 1);
	other = ctx->table[0];
	misuse = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(ctx->pool, other, NULL, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 1U);

	/* a compound page */
	compound = alloc_pages(MPT_GFP | __GFP_COMP, 1);
	KUNIT_ASSERT_NOT_NULL(test, compound);
	misuse = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(ctx->pool, compound, NULL,
						    1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 1U);
	__free_pages(compound, 1);

	/* a page nobody holds, as a freed one */
	KUNIT_ASSERT_TRUE(test, page_ref_freeze(page, 1));
	misuse = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(ctx->pool, page, NULL, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 1U);
	page_ref_unfreeze(page, 1);

	/* another driver's PageOffline() page (virtio-mem, Hyper-V) */
	__SetPageOffline(page);
	misuse = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(ctx->pool, page, NULL, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 1U);
	__ClearPageOffline(page);

	/* none of it touched the page or the pool */
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_PTR_EQ(test, mp_page_mapping(page), NULL);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
	__free_page(page);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 1UL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).misuse, 4UL);
	mpt_expect_idle(test, ctx);
}

static void test_add_page_to_dying_pool(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_destroyer destroyer;
	struct movable_pool *pool;
	struct page *held, *page;
	LIST_HEAD(list);

	/* destroy waits for the page the VM holds */
	held = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, held);
	get_page(held);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(held));
	pool = ctx->pool;
	mpt_destroy_begin(test, &destroyer);
	/* until destroy has begun; pages allocated before it are its own */
	while (!IS_ERR(page = movable_pool_alloc_page(pool, MPT_GFP, NULL, 1)))
		usleep_range(1000, 2000);
	KUNIT_ASSERT_EQ(test, mpt_err(page), -ENODEV);

	page = mpt_plain_page(test, 7);
	KUNIT_EXPECT_EQ(test, movable_pool_add_page(pool, page, NULL, 1),
			-ENODEV);
	/* still the caller's, untouched (->index may hold what 6.1 left) */
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_PTR_EQ(test, mp_page_mapping(page), NULL);
	KUNIT_EXPECT_EQ(test, page_private(page), 0UL);
	KUNIT_EXPECT_FALSE(test, mp_page_movable(page));
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 7));
	__free_page(page);

	list_add(&held->lru, &list);
	putback_movable_pages(&list);
	/* expected: one "misuse" warning, for the page left to destroy */
	KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);
	KUNIT_EXPECT_EQ(test, page_count(held), 1);
	put_page(held);
}

static struct kunit_case movable_pool_adopt_cases[] = {
	KUNIT_CASE(test_add_page_joins_pool),
	KUNIT_CASE(test_add_page_after_take),
	KUNIT_CASE(test_add_page_refuses_misuse),
	KUNIT_CASE(test_add_page_to_dying_pool),
	{}
};

static struct kunit_suite movable_pool_adopt_suite = {
	.name = "movable_pool_adopt",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_adopt_cases,
};

kunit_test_suite(movable_pool_adopt_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: pages the driver allocated");
MODULE_LICENSE("GPL");
