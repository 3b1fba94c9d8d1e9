// SPDX-License-Identifier: GPL-2.0
/*
 * Creating a pool, and allocating and freeing its pages one at a time: the
 * arguments refused, what makes a page movable, the counters, and a page
 * freed into the wrong pool, twice, while pinned or in atomic context.
 */

#include <linux/irqflags.h>
#include <linux/mmzone.h>
#include <linux/string.h>

#include "movable_pool_kunit.h"

static void test_create_rejects_bad_arguments(struct kunit *test)
{
	static const struct movable_pool_ops no_routine;

	KUNIT_EXPECT_EQ(test, mpt_err(movable_pool_create(NULL, &mpt_ops, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_err(movable_pool_create("", &mpt_ops, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_err(movable_pool_create("x", NULL, NULL)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_err(movable_pool_create("x", &no_routine,
							  NULL)), -EINVAL);
}

static void test_create_gives_empty_pool(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s = mpt_stats(ctx);
	struct movable_pool *other;

	KUNIT_EXPECT_EQ(test, s.pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.allocated, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, movable_pool_priv(ctx->pool), (void *)ctx);
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, movable_pool_mapping(ctx->pool));

	/* same name again is fine; each pool has its own address_space */
	other = movable_pool_create("kunit", &mpt_ops, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	KUNIT_EXPECT_PTR_NE(test, movable_pool_mapping(other),
			    movable_pool_mapping(ctx->pool));
	movable_pool_destroy(other);
	movable_pool_destroy(NULL);
}

static void test_alloc_rejects_bad_arguments(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;

	struct page *page;

	page = movable_pool_alloc_page(NULL, MPT_GFP, NULL, 0);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	page = movable_pool_alloc_page(ctx->pool, GFP_KERNEL_ACCOUNT, NULL, 0);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	page = movable_pool_alloc_page(ctx->pool, GFP_KERNEL | __GFP_COMP,
				       NULL, 0);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).allocated, 0UL);
}

static void test_alloc_makes_page_movable(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	KUNIT_EXPECT_TRUE(test, mp_page_movable(page));
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_TRUE(test, is_migrate_movable(get_pageblock_migratetype(page)));
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 1UL);
	KUNIT_EXPECT_EQ(test, s.allocated, 1UL);
	mpt_expect_idle(test, ctx);
}

static void test_alloc_honours_gfp(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;
	u8 *p;
	int i;

	/* GFP_KERNEL pages are still made movable, and __GFP_ZERO is kept */
	for (i = 0; i < 8; i++) {
		page = movable_pool_alloc_page(ctx->pool, GFP_KERNEL | __GFP_ZERO,
					       &ctx->table[i], i);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
		ctx->table[i] = page;
		KUNIT_EXPECT_FALSE(test, PageHighMem(page));
		KUNIT_EXPECT_TRUE(test, is_migrate_movable(get_pageblock_migratetype(page)));
		p = page_address(page);
		KUNIT_EXPECT_TRUE(test, !memchr_inv(p, 0, PAGE_SIZE));
	}
	/* and may be allocated where sleeping is not allowed */
	preempt_disable();
	page = movable_pool_alloc_page(ctx->pool, GFP_ATOMIC, &ctx->table[8], 8);
	preempt_enable();
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
	ctx->table[8] = page;
}

static void test_alloc_refuses_dma_zones(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[1];

	struct page *page;

	page = movable_pool_alloc_page(ctx->pool, GFP_KERNEL | __GFP_DMA32,
				       NULL, 0);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	page = movable_pool_alloc_page(ctx->pool, GFP_KERNEL | __GFP_DMA, NULL, 0);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool, GFP_DMA32,
						       NULL, 0, pages, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).allocated, 0UL);
}

static void test_free_updates_stats(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	int i;

	mpt_fill(test, 0, 16);
	for (i = 0; i < 10; i++)
		mpt_free(ctx, i);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 6UL);
	KUNIT_EXPECT_EQ(test, s.allocated, 16UL);
	KUNIT_EXPECT_EQ(test, s.freed, 10UL);
	movable_pool_free_page(ctx->pool, NULL);
	mpt_expect_idle(test, ctx);
}

static void test_free_into_other_pool_is_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct movable_pool *other;
	unsigned int global;

	other = movable_pool_create("kunit-other", &mpt_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	mpt_fill(test, 0, 1);

	/*
	 * expected: one "misuse" warning; the page stays in its own pool.
	 * Counted in no pool's stats: the one asked may be a freed one.
	 */
	global = mpt_global_misuse(test);
	movable_pool_free_page(other, ctx->table[0]);
	movable_pool_get_stats(other, &s);
	KUNIT_EXPECT_EQ(test, s.misuse, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).misuse, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 1U);
	KUNIT_EXPECT_EQ(test, mpt_global_misuse(test) - global, 1U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 1UL);
	KUNIT_EXPECT_TRUE(test, mp_page_movable(ctx->table[0]));
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));
	movable_pool_destroy(other);
}

static void test_double_free_is_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = mpt_fill_and_free_one(test);
	unsigned int before = mpt_misuse(ctx);

	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	/* expected: one "misuse" warning, nothing freed twice */
	movable_pool_free_page(ctx->pool, page);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).freed, 1UL);
	put_page(page);
	mpt_expect_idle(test, ctx);
}

/* A device may be using a pinned page: it stays in the pool, unfreed. */
static void test_free_pinned_page_is_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	/* expected: one "misuse" warning */
	movable_pool_free_page(ctx->pool, page);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 1UL);
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
	movable_pool_unpin(page);
	mpt_expect_fields(test, page, &ctx->table[0], 0);
	mpt_free(ctx, 0);
	mpt_expect_idle(test, ctx);
}

/*
 * Calls that may sleep, made where they must not: refused before they
 * sleep, not only when a page lock happens to be contended.
 */
static void test_atomic_context_calls_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	struct page *page, *atomic_page;
	unsigned long flags;

	mpt_fill(test, 0, 1);
	/* expected: three "misuse" warnings */
	local_irq_save(flags);
	page = movable_pool_alloc_page(ctx->pool, GFP_KERNEL, NULL, 1);
	atomic_page = movable_pool_alloc_page(ctx->pool, GFP_ATOMIC, NULL, 2);
	movable_pool_free_page(ctx->pool, ctx->table[0]);
	movable_pool_free_pages(ctx->pool, ctx->table, 1);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_err(atomic_page), 0);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 3U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 2UL);
	mpt_expect_fields(test, ctx->table[0], &ctx->table[0], 0);
	if (!IS_ERR(atomic_page))
		movable_pool_free_page(ctx->pool, atomic_page);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_alloc_cases[] = {
	KUNIT_CASE(test_create_rejects_bad_arguments),
	KUNIT_CASE(test_create_gives_empty_pool),
	KUNIT_CASE(test_alloc_rejects_bad_arguments),
	KUNIT_CASE(test_alloc_makes_page_movable),
	KUNIT_CASE(test_alloc_honours_gfp),
	KUNIT_CASE(test_alloc_refuses_dma_zones),
	KUNIT_CASE(test_free_updates_stats),
	KUNIT_CASE(test_free_into_other_pool_is_refused),
	KUNIT_CASE(test_double_free_is_refused),
	KUNIT_CASE(test_free_pinned_page_is_refused),
	KUNIT_CASE(test_atomic_context_calls_refused),
	{}
};

static struct kunit_suite movable_pool_alloc_suite = {
	.name = "movable_pool_alloc",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_alloc_cases,
};

kunit_test_suite(movable_pool_alloc_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: create, alloc and free");
MODULE_LICENSE("GPL");
