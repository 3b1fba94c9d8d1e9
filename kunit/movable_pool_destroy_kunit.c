// SPDX-License-Identifier: GPL-2.0
/*
 * Destroying a pool while the VM holds its pages isolated, while one is being
 * migrated, with pages the driver forgot to free, while allocations race it,
 * and with a page the kernel never made movable.
 */

#include <linux/delay.h>

#include "movable_pool_kunit.h"

static void test_destroy_with_isolated_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_destroyer destroyer;
	struct page *watch[4];
	LIST_HEAD(list);
	int i;

	mpt_fill_watched(test, watch, 4);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(watch[1]));
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(watch[2]));
	for (i = 0; i < 4; i++)
		mpt_free(ctx, i);

	/* the freed pages the VM holds still lead to the pool: destroy waits */
	mpt_destroy_begin(test, &destroyer);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.async.done));
	list_add(&watch[1]->lru, &list);
	list_add(&watch[2]->lru, &list);
	putback_movable_pages(&list);
	/* the driver freed every page: no misuse */
	KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 0U);
	mpt_expect_released(test, watch, 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
}

static void test_destroy_frees_forgotten_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_destroyer destroyer;
	struct page *watch[8];
	LIST_HEAD(list);
	int i;

	mpt_fill_watched(test, watch, 8);
	for (i = 0; i < 8; i++)
		ctx->table[i] = NULL;	/* the "driver" forgets them */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(watch[5]));

	/* destroy waits until the VM hands the isolated page back ... */
	mpt_destroy_begin(test, &destroyer);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.async.done));
	/* ... refusing to migrate it, so it comes back at once */
	list_add(&watch[5]->lru, &list);
	KUNIT_EXPECT_EQ(test, mp_migrate_pages(&list, MPT_GFP, MIGRATE_SYNC), 1);
	putback_movable_pages(&list);
	/* expected: one "misuse" warning; every page is freed regardless */
	KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);
	mpt_expect_released(test, watch, 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
}

static int mpt_async_move(struct mpt_async *a)
{
	return mpt_move(a->page, MIGRATE_SYNC);
}

static void test_destroy_during_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async mover = { .ctx = ctx };
	struct mpt_destroyer destroyer;
	struct page *src;

	mpt_fill(test, 0, 1);
	src = ctx->table[0];
	get_page(src);
	/* the "driver" never frees it: destroy does */
	ctx->block_in_routine = true;
	mover.page = src;
	mpt_async_start(test, &mover, mpt_async_move);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->entered, 10 * HZ),
			0UL);

	/* the routine runs with src locked: destroy must wait for it */
	mpt_destroy_begin(test, &destroyer);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.async.done));
	complete(&ctx->release);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&mover.done, 10 * HZ),
			0UL);
	/* expected: one "misuse" warning, for the page not freed */
	KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);

	/* the page moved, then destroy freed its successor: nothing leaked */
	KUNIT_EXPECT_EQ(test, mover.ret, 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], ctx->watch_dst);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->watch_dst, 0));
	KUNIT_EXPECT_EQ(test, page_count(src), 1);
	KUNIT_EXPECT_EQ(test, page_count(ctx->watch_dst), 1);
	mpt_expect_detached(test, ctx->watch_dst);
	put_page(src);
	put_page(ctx->watch_dst);
	memset(ctx->table, 0, sizeof(ctx->table));
}

/* Until it fails: the pages it got stay in the pool for destroy to free. */
static int mpt_async_alloc_until_error(struct mpt_async *a)
{
	struct page *page;
	unsigned int n;

	for (n = 1; ; n++) {
		page = movable_pool_alloc_page(a->pool, MPT_GFP, NULL, 0);
		if (IS_ERR(page))
			return PTR_ERR(page);
		/* a few hundred pages a tick at most: destroy comes soon */
		if (!(n % 256))
			usleep_range(1000, 2000);
		cond_resched();
	}
}

/*
 * Allocations racing destroy fail with -ENODEV, and none adds a page that
 * destroy would miss. The pool stays alive meanwhile: destroy waits for
 * a page the test holds isolated, and no call may follow destroy's end.
 */
static void test_alloc_races_destroy(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async allocator = { .ctx = ctx };
	struct mpt_destroyer destroyer;
	struct page *held;
	LIST_HEAD(list);
	int round;

	movable_pool_destroy(ctx->pool);
	for (round = 0; round < 20; round++) {
		ctx->pool = movable_pool_create("kunit-race", &mpt_ops, ctx);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->pool);
		held = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL, 0);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, held);
		get_page(held);
		KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(held));

		allocator.pool = ctx->pool;
		mpt_async_start(test, &allocator, mpt_async_alloc_until_error);
		fsleep((round % 4) * 1000);
		mpt_destroy_begin(test, &destroyer);
		KUNIT_EXPECT_NE(test,
				wait_for_completion_timeout(&allocator.done,
							    10 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, allocator.ret, -ENODEV);
		KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.async.done));

		/* the VM hands the page back; destroy frees every page */
		list_add(&held->lru, &list);
		putback_movable_pages(&list);
		/* expected: one "misuse" warning, for the pages left to destroy */
		KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);
		KUNIT_EXPECT_EQ(test, page_count(held), 1);
		mpt_expect_detached(test, held);
		put_page(held);
	}
}

/*
 * Where the kernel did not make a page movable (a kernel without
 * compaction, here simulated), the page does not lead back to its pool:
 * destroy still frees it and ends.
 */
static void test_destroy_skips_unrecognised_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 2);
	page = mpt_unlink(ctx, 0);
	get_page(page);
	lock_page(page);
	WRITE_ONCE(page->mapping, NULL);	/* what the kernel never set */
	unlock_page(page);
	movable_pool_free_page(ctx->pool, mpt_unlink(ctx, 1));

	/* expected: one "misuse" warning, for the page not made movable */
	KUNIT_EXPECT_EQ(test, mpt_destroy(test), 1U);
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_EQ(test, page_private(page), 0UL);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page), 0UL);
	put_page(page);
}

static struct kunit_case movable_pool_destroy_cases[] = {
	KUNIT_CASE(test_destroy_with_isolated_pages),
	KUNIT_CASE(test_destroy_frees_forgotten_pages),
	KUNIT_CASE(test_destroy_during_migration),
	KUNIT_CASE(test_alloc_races_destroy),
	KUNIT_CASE(test_destroy_skips_unrecognised_page),
	{}
};

static struct kunit_suite movable_pool_destroy_suite = {
	.name = "movable_pool_destroy",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_destroy_cases,
};

kunit_test_suite(movable_pool_destroy_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: destroy");
MODULE_LICENSE("GPL");
