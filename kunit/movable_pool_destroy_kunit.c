// SPDX-License-Identifier: GPL-2.0
/*
 * Destroying a pool while the VM holds its pages isolated, while one is being
 * migrated or dropped, with pages the driver forgot to free or left pinned,
 * while allocations race it, with a page the kernel never made movable, and
 * the calls a careless driver makes after it.
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
	mpt_start_held_move(test, &mover, src);

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
		if (!(n % 64))
			cond_resched();
	}
}

/*
 * Allocations racing destroy fail with -ENODEV, none adds a page that
 * destroy would miss, and none touches a freed pool (KASAN). A migration
 * blocked in the routine keeps destroy from finishing meanwhile, which
 * lets the test stop its allocator before destroy ends (a call that began
 * after that would be the test's own use after free).
 */
static void test_alloc_races_destroy(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async allocator = { .ctx = ctx }, mover = { .ctx = ctx };
	struct mpt_destroyer destroyer;
	struct page *page;
	int round;

	movable_pool_destroy(ctx->pool);
	for (round = 0; round < 8; round++) {
		ctx->pool = movable_pool_create("kunit-race", &mpt_ops, ctx);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->pool);
		mpt_fill(test, 0, 1);
		page = ctx->table[0];
		get_page(page);
		reinit_completion(&ctx->entered);
		reinit_completion(&ctx->release);
		mpt_start_held_move(test, &mover, page);
		ctx->block_in_routine = false;
		allocator.pool = ctx->pool;
		mpt_async_start(test, &allocator, mpt_async_alloc_until_error);
		fsleep((round % 4) * 1000);
		mpt_destroy_begin(test, &destroyer);
		KUNIT_EXPECT_NE(test,
				wait_for_completion_timeout(&allocator.done,
							    10 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, allocator.ret, -ENODEV);
		KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.async.done));
		complete(&ctx->release);
		KUNIT_EXPECT_NE(test,
				wait_for_completion_timeout(&mover.done, 10 * HZ),
				0UL);
		/* expected: one "misuse" warning, for the pages left to destroy */
		KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);
		KUNIT_EXPECT_EQ(test, page_count(page), 1);
		put_page(page);
		put_page(ctx->watch_dst);
		memset(ctx->table, 0, sizeof(ctx->table));
	}
}

/* Hold the misusing thread until destroy is done (or a second passed). */
static void mpt_wait_for_destroy(struct mpt_ctx *ctx)
{
	int ms;

	/* a tracepoint probe: no sleeping. On one CPU destroy cannot run. */
	for (ms = 0; ms < 1000 && !completion_done(ctx->misuse_waits_for); ms++)
		mdelay(1);
}

/*
 * A routine that drops its page while destroy waits for it, and leaves
 * @dst pinned: the library's last words on that migration (the misuse it
 * reports, its trace event) come after destroy may go on, so they must not
 * use the pool once it may be freed. The probe holds the migration back
 * until destroy has returned; on two CPUs (7.x) KASAN sees any access.
 */
static void test_drop_races_destroy(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async mover = { .ctx = ctx };
	struct mpt_destroyer destroyer;
	struct page *src;

	mpt_fill(test, 0, 1);
	src = ctx->table[0];
	get_page(src);
	ctx->block_in_routine = true;
	ctx->pin_in_routine = true;
	ctx->keep_dst_pin = true;
	ctx->fail_with = MOVABLE_POOL_MIGRATE_DROP;
	ctx->fail_times = 1;
	mover.page = src;
	mpt_async_start(test, &mover, mpt_async_move);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->entered, 10 * HZ),
			0UL);
	mpt_destroy_begin(test, &destroyer);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.async.done));
	ctx->misuse_waits_for = &destroyer.async.done;
	ctx->on_misuse = mpt_wait_for_destroy;
	complete(&ctx->release);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&mover.done, 10 * HZ),
			0UL);
	/* expected: one "misuse" warning, for the pinned @dst; src was let go */
	KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);
	ctx->on_misuse = NULL;
	KUNIT_EXPECT_EQ(test, mover.ret, 0);
	KUNIT_EXPECT_EQ(test, page_count(src), 1);
	mpt_expect_detached(test, src);
	put_page(src);
	put_page(ctx->watch_dst);
	memset(ctx->table, 0, sizeof(ctx->table));
}

/*
 * A page pinned for a device when the pool goes is never freed under the
 * device: destroy lets it go, leaks it and says so.
 */
static void test_destroy_leaks_pinned_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *watch[2];

	mpt_fill_watched(test, watch, 2);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(watch[1]), 0);
	memset(ctx->table, 0, sizeof(ctx->table));	/* forgotten */
	/* expected: two "misuse" warnings: a page not freed, one pinned */
	KUNIT_EXPECT_EQ(test, mpt_destroy(test), 2U);
	KUNIT_EXPECT_EQ(test, page_count(watch[0]), 1);
	/* the pool's reference stays: the page is never freed */
	KUNIT_EXPECT_EQ(test, page_count(watch[1]), 2);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(watch[1], 1));
	mpt_expect_detached(test, watch[1]);
	/* it may outlive the library: nothing leads from it to our code */
	KUNIT_EXPECT_PTR_EQ(test, mp_page_mapping(watch[1]), NULL);
	put_page(watch[0]);
	put_page(watch[1]);
}

/*
 * What a careless driver does after destroy, with pages destroy freed for
 * it: each call is refused, counted in debugfs, and touches no pool.
 */
static void test_calls_after_destroy(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool *gone = ctx->pool;
	unsigned int global, before;
	struct page *watch[2], *pages[2];

	mpt_fill_watched(test, watch, 2);
	pages[0] = watch[0];
	pages[1] = watch[1];
	memset(ctx->table, 0, sizeof(ctx->table));
	/* expected: one "misuse" warning, for the pages destroy freed */
	KUNIT_EXPECT_EQ(test, mpt_destroy(test), 1U);

	/* expected: four "misuse" warnings, in no pool's stats */
	global = mpt_global_misuse(test);
	before = mpt_misuse(ctx);
	movable_pool_free_pages(gone, pages, 2);
	KUNIT_EXPECT_EQ(test, movable_pool_pin(watch[0]), -EINVAL);
	movable_pool_unpin(watch[1]);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 4U);
	KUNIT_EXPECT_EQ(test, mpt_global_misuse(test) - global, 4U);
	KUNIT_EXPECT_EQ(test, page_count(watch[0]), 1);
	KUNIT_EXPECT_EQ(test, page_count(watch[1]), 1);
	put_page(watch[0]);
	put_page(watch[1]);
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
	mpt_expect_detached(test, page);
	put_page(page);
}

static struct kunit_case movable_pool_destroy_cases[] = {
	KUNIT_CASE(test_destroy_with_isolated_pages),
	KUNIT_CASE(test_destroy_frees_forgotten_pages),
	KUNIT_CASE(test_destroy_during_migration),
	KUNIT_CASE(test_alloc_races_destroy),
	KUNIT_CASE(test_drop_races_destroy),
	KUNIT_CASE(test_destroy_leaks_pinned_pages),
	KUNIT_CASE(test_calls_after_destroy),
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
