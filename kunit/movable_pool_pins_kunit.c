// SPDX-License-Identifier: GPL-2.0
/*
 * Pins: a pinned page is never isolated nor migrated, pins nest and may be
 * taken in atomic context, a pin during migration gets -EAGAIN, and the
 * misuse (too many pins, an unpin without a pin, a page of no pool) is
 * refused.
 */

#include <linux/irqflags.h>

#include "movable_pool_kunit.h"

static void test_pin_depth_limit(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before;
	unsigned long i;
	struct page *page;
	int ret = 0;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	for (i = 0; i < MOVABLE_POOL_MAX_PINS && !ret; i++)
		ret = movable_pool_pin(page);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* expected: one "misuse" warning; the count does not spill over */
	before = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), -EBUSY);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page) & MOVABLE_POOL_MAX_INDEX, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), -EBUSY);
	for (i = 0; i < MOVABLE_POOL_MAX_PINS; i++)
		movable_pool_unpin(page);
	mpt_expect_fields(test, page, &ctx->table[0], 0);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	mpt_expect_idle(test, ctx);
}

static void test_pinned_page_refuses_isolation(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;

	mpt_fill(test, 0, 1);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(ctx->table[0]), 0);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pinned, 1UL);
	KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC), -EBUSY);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pin_refused, 1UL);
	KUNIT_EXPECT_EQ(test, s.isolated, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	movable_pool_unpin(ctx->table[0]);
	KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC), 0);
	mpt_expect_idle(test, ctx);
}

static void test_pin_after_isolate_fails_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct page *page;
	LIST_HEAD(list);

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).isolated, 1UL);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);

	list_add(&page->lru, &list);
	KUNIT_EXPECT_EQ(test, mp_migrate_pages(&list, MPT_GFP, MIGRATE_SYNC), 1);
	KUNIT_ASSERT_FALSE(test, list_empty(&list));
	putback_movable_pages(&list);

	s = mpt_stats(ctx);
	KUNIT_EXPECT_GT(test, s.migrate_failed, 0UL);
	/* refused before the routine: it ran neither way */
	KUNIT_EXPECT_EQ(test, s.routine_busy + s.routine_failed, 0UL);
	KUNIT_EXPECT_EQ(test, s.putback, 1UL);
	KUNIT_EXPECT_EQ(test, s.migrated, 0UL);
	KUNIT_EXPECT_EQ(test, s.isolated, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
	movable_pool_unpin(page);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	mpt_expect_idle(test, ctx);
}

static void test_pins_nest(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pinned, 1UL);
	movable_pool_unpin(page);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), -EBUSY);
	movable_pool_unpin(page);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pinned, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
}

static void test_pin_in_atomic_context(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned long flags;
	int ret;

	mpt_fill(test, 0, 1);
	local_irq_save(flags);
	ret = movable_pool_pin(ctx->table[0]);
	movable_pool_unpin(ctx->table[0]);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	mpt_expect_idle(test, ctx);
}

static void test_unpin_underflow_is_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before;

	mpt_fill(test, 0, 1);
	/* expected: one "misuse" warning; the count does not wrap */
	before = mpt_misuse(ctx);
	movable_pool_unpin(ctx->table[0]);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pinned, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC), 0);
}

static void test_pin_rejects_foreign_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = alloc_page(GFP_KERNEL);
	unsigned int before = mpt_misuse(ctx);

	KUNIT_ASSERT_NOT_NULL(test, page);
	/* expected: one "misuse" warning, in no pool's stats: the page has none */
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).misuse, 0UL);
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	__free_page(page);
}

static void test_pin_during_migration_is_eagain(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;

	mpt_fill(test, 0, 1);
	ctx->pin_in_routine = true;
	KUNIT_ASSERT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC), 0);
	KUNIT_EXPECT_EQ(test, ctx->pin_src_ret, -EAGAIN);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pin_busy, 1UL);
	/* dst is already the pool's: once published, a device may use it */
	KUNIT_EXPECT_EQ(test, ctx->pin_dst_ret, 0);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_pins_cases[] = {
	KUNIT_CASE(test_pin_depth_limit),
	KUNIT_CASE(test_pinned_page_refuses_isolation),
	KUNIT_CASE(test_pin_after_isolate_fails_migration),
	KUNIT_CASE(test_pins_nest),
	KUNIT_CASE(test_pin_in_atomic_context),
	KUNIT_CASE(test_unpin_underflow_is_refused),
	KUNIT_CASE(test_pin_rejects_foreign_page),
	KUNIT_CASE(test_pin_during_migration_is_eagain),
	{}
};

static struct kunit_suite movable_pool_pins_suite = {
	.name = "movable_pool_pins",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_pins_cases,
};

kunit_test_suite(movable_pool_pins_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: pins");
MODULE_LICENSE("GPL");
