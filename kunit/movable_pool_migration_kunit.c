// SPDX-License-Identifier: GPL-2.0
/*
 * Migration: contents, owner and index reach the new page, which belongs to
 * the pool and moves again; async mode and a routine that cannot take its
 * lock; the routine's errors leave the page where it was, and a page it
 * drops leaves the pool; a page freed while isolated, and a new page freed
 * as soon as the routine published it; pools do not see each
 * other's pages; alloc_contig_range() on a pageblock of pool pages, with and
 * without a pin.
 */

#include "movable_pool_kunit.h"

static void test_migrate_preserves_contents(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *old;
	int i;

	mpt_fill(test, 0, 8);
	for (i = 0; i < 8; i++) {
		old = ctx->table[i];
		KUNIT_ASSERT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
		KUNIT_EXPECT_PTR_NE(test, ctx->table[i], old);
		KUNIT_EXPECT_NE(test, page_to_pfn(ctx->table[i]),
				page_to_pfn(old));
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	}
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).migrated, 8UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 8);
	mpt_expect_idle(test, ctx);
}

static void test_migrate_passes_owner_and_index(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;

	mpt_fill(test, 0, 40);
	KUNIT_ASSERT_EQ(test, mpt_move(ctx->table[37], MIGRATE_SYNC), 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx->last_owner, (void *)&ctx->table[37]);
	KUNIT_EXPECT_EQ(test, ctx->last_index, (pgoff_t)37);
	KUNIT_EXPECT_EQ(test, ctx->bad_refs, 0);
}

static void test_migrated_page_belongs_to_pool(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *old;

	mpt_fill(test, 0, 1);
	old = ctx->table[0];
	get_page(old);
	KUNIT_ASSERT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
	/* the old page lost its ops and fields; only our reference is left */
	mpt_expect_detached(test, old);
	KUNIT_EXPECT_EQ(test, page_count(old), 1);
	put_page(old);
	/* the new one holds the pool's reference and can move again */
	KUNIT_EXPECT_EQ(test, page_count(ctx->table[0]), 1);
	KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC), 0);
	KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC_LIGHT), 0);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).migrated, 3UL);
	mpt_expect_idle(test, ctx);
}

/* Hold the "driver lock" until the test completes ctx->release. */
static int mpt_async_hold_lock(struct mpt_async *a)
{
	mutex_lock(&a->ctx->lock);
	complete(&a->ctx->entered);
	wait_for_completion(&a->ctx->release);
	mutex_unlock(&a->ctx->lock);
	return 0;
}

static void test_migrate_async(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async holder = { .ctx = ctx };
	struct page *old;

	mpt_fill(test, 0, 1);
	old = ctx->table[0];
	/* no user mappings: async mode migrates too */
	KUNIT_ASSERT_EQ(test, mpt_move(old, MIGRATE_ASYNC), 0);
	KUNIT_EXPECT_PTR_NE(test, ctx->table[0], old);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));

	/*
	 * An async routine that cannot get its lock gives up cleanly. The
	 * lock is held in another thread: the routine runs as if from
	 * reclaim, and lockdep would rightly object to migrating under it.
	 */
	mpt_async_start(test, &holder, mpt_async_hold_lock);
	wait_for_completion(&ctx->entered);
	old = ctx->table[0];
	KUNIT_EXPECT_EQ(test, mpt_move(old, MIGRATE_ASYNC), 1);
	complete(&ctx->release);
	wait_for_completion(&holder.done);
	KUNIT_EXPECT_GT(test, mpt_stats(ctx).routine_busy, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], old);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(old, 0));
	mpt_expect_idle(test, ctx);
}

static void test_routine_eagain_keeps_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	ctx->fail_with = -EAGAIN;
	ctx->fail_times = INT_MAX;
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 1);
	s = mpt_stats(ctx);
	/* the core retries -EAGAIN; every attempt is counted */
	KUNIT_EXPECT_GT(test, atomic_read(&ctx->calls), 1);
	KUNIT_EXPECT_EQ(test, s.migrate_failed,
			(unsigned long)atomic_read(&ctx->calls));
	KUNIT_EXPECT_EQ(test, s.routine_busy, s.migrate_failed);
	KUNIT_EXPECT_EQ(test, s.routine_failed, 0UL);
	KUNIT_EXPECT_EQ(test, s.putback, 1UL);
	KUNIT_EXPECT_EQ(test, s.migrated, 0UL);
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), 0);
	movable_pool_unpin(page);

	ctx->fail_times = 0;
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));
	mpt_expect_idle(test, ctx);
}

static void test_routine_error_keeps_page(struct kunit *test)
{
	static const int errs[] = { -ENOMEM, -EBUSY, -ENOENT };
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats before, after;
	struct page *page;
	int i, calls;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	for (i = 0; i < ARRAY_SIZE(errs); i++) {
		before = mpt_stats(ctx);
		calls = atomic_read(&ctx->calls);
		ctx->fail_with = errs[i];
		ctx->fail_times = INT_MAX;
		/* 6.1 aborts the whole list on -ENOMEM; either way it failed */
		KUNIT_EXPECT_NE(test, mpt_move(page, MIGRATE_SYNC), 0);
		after = mpt_stats(ctx);
		calls = atomic_read(&ctx->calls) - calls;
		KUNIT_EXPECT_GT(test, calls, 0);
		KUNIT_EXPECT_EQ(test, after.migrate_failed - before.migrate_failed,
				(unsigned long)calls);
		KUNIT_EXPECT_EQ(test, after.routine_failed - before.routine_failed,
				(unsigned long)calls);
		KUNIT_EXPECT_EQ(test, after.routine_busy, 0UL);
		KUNIT_EXPECT_EQ(test, after.putback - before.putback, 1UL);
		KUNIT_EXPECT_EQ(test, after.migrated, 0UL);
		KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
		KUNIT_EXPECT_TRUE(test, mp_page_movable(page));
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
		mpt_expect_idle(test, ctx);
	}

	ctx->fail_times = 0;
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));
	mpt_expect_idle(test, ctx);
}

/* The routine lets the page go: the VM sees success and frees both pages. */
static void test_routine_drop(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct page *page;

	mpt_fill(test, 0, 2);
	/* the driver forgets the page, as a balloon whose host gave it back */
	page = mpt_unlink(ctx, 0);
	get_page(page);
	ctx->fail_with = MOVABLE_POOL_MIGRATE_DROP;
	ctx->fail_times = 1;
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 1);
	KUNIT_EXPECT_FALSE(test, mp_page_isolated(page));
	KUNIT_EXPECT_EQ(test, page_count(page), 1);	/* only ours */
	mpt_expect_detached(test, page);
	put_page(page);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.dropped, 1UL);
	KUNIT_EXPECT_EQ(test, s.pages, 1UL);
	KUNIT_EXPECT_EQ(test, s.freed, 1UL);
	KUNIT_EXPECT_EQ(test, s.migrated, 0UL);
	KUNIT_EXPECT_EQ(test, s.migrate_failed, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);
	mpt_expect_idle(test, ctx);
}

/* Other positive results are a driver bug: a warning, and no migration. */
static void test_routine_positive_result_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;
	int calls;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	ctx->fail_with = MOVABLE_POOL_MIGRATE_DROP + 1;
	ctx->fail_times = INT_MAX;
	/* expected: a "misuse" warning for each call (6.x try twice) */
	KUNIT_EXPECT_NE(test, mpt_move(page, MIGRATE_SYNC), 0);
	calls = atomic_read(&ctx->calls);
	KUNIT_EXPECT_GT(test, calls, 0);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), (unsigned int)calls);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).routine_failed,
			(unsigned long)calls);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).dropped, 0UL);
	ctx->fail_times = 0;
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	KUNIT_EXPECT_TRUE(test, mp_page_movable(page));
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
	mpt_expect_idle(test, ctx);
}

/*
 * One pool page, isolated by the VM and then freed by the driver. Returns
 * it with an extra reference, so the test can watch its fate. The pool
 * keeps the page (and counts it isolated) until the VM hands it back.
 */
static struct page *mpt_isolate_then_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	get_page(page);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
	mpt_free(ctx, 0);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).isolated, 1UL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).freed_isolated, 1UL);
	KUNIT_EXPECT_EQ(test, page_count(page), 3);	/* pool, VM, test */
	return page;
}

static void test_free_while_isolated(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = mpt_isolate_then_free(test);
	LIST_HEAD(list);

	/* migration finds nothing to move: the routine is not called */
	list_add(&page->lru, &list);
	KUNIT_EXPECT_EQ(test, mp_migrate_pages(&list, MPT_GFP, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&list));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).migrated, 0UL);
	KUNIT_EXPECT_EQ(test, page_count(page), 1);	/* only ours: not leaked */
	mpt_expect_detached(test, page);
	put_page(page);
	mpt_expect_idle(test, ctx);
}

static void test_free_while_isolated_then_putback(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = mpt_isolate_then_free(test);
	LIST_HEAD(list);

	list_add(&page->lru, &list);
	putback_movable_pages(&list);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).putback, 0UL);
	KUNIT_EXPECT_FALSE(test, mp_page_isolated(page));
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	mpt_expect_detached(test, page);
	put_page(page);
	mpt_expect_idle(test, ctx);
}

static void test_pools_are_independent(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_ctx *ctx2 = kunit_kzalloc(test, sizeof(*ctx2), GFP_KERNEL);
	struct page *page;

	KUNIT_ASSERT_NOT_NULL(test, ctx2);
	mutex_init(&ctx2->lock);
	ctx2->pool = movable_pool_create("kunit-2", &mpt_ops, ctx2);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx2->pool);
	page = movable_pool_alloc_page(ctx2->pool, MPT_GFP, &ctx2->table[0], 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
	ctx2->table[0] = page;
	mpt_write_pattern(page, 99);
	mpt_fill(test, 0, 1);

	KUNIT_EXPECT_EQ(test, mpt_move(ctx2->table[0], MIGRATE_SYNC), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx2->calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx2->table[0], 99));
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).migrated, 0UL);

	movable_pool_free_page(ctx2->pool, ctx2->table[0]);
	movable_pool_destroy(ctx2->pool);
}

/*
 * A clean movable pageblock with pool pages at random offsets in it; the
 * rest of the block is free. Returns the block's first pfn.
 */
static unsigned long mpt_build_block(struct kunit *test, int npool)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int nr = 1U << pageblock_order;
	unsigned long start, seed = 0x2545f491;
	struct page *block, *page;
	unsigned int i, j;
	bool *keep;

	keep = kunit_kzalloc(test, nr, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, keep);
	block = alloc_pages(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN, pageblock_order);
	if (!block)
		kunit_skip(test, "no free pageblock");
	start = page_to_pfn(block);
	split_page(block, pageblock_order);

	/* random holes: compaction sees through regular patterns */
	for (i = 0; i < npool; i++) {
		do {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			j = (seed >> 33) % nr;
		} while (keep[j]);
		keep[j] = true;
	}
	/* a page just freed is the next one handed out on this CPU */
	for (i = 0, j = 0; i < nr; i++) {
		if (!keep[i])
			continue;
		__free_page(pfn_to_page(start + i));
		page = movable_pool_alloc_page(ctx->pool, MPT_GFP,
					       &ctx->table[j], j);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
		mpt_write_pattern(page, j);
		ctx->table[j++] = page;
	}
	for (i = 0; i < nr; i++)
		if (!keep[i])
			__free_page(pfn_to_page(start + i));
	for (i = 0, j = 0; i < npool; i++) {
		unsigned long pfn = page_to_pfn(ctx->table[i]);

		j += pfn >= start && pfn < start + nr;
	}
	if (j < npool / 2)
		kunit_skip(test, "only %u of %d pool pages landed in the block",
			   j, npool);
	kunit_info(test, "%u of %d pool pages in pageblock at pfn %lx\n",
		   j, npool, start);
	return start;
}

static bool mpt_in_block(struct page *page, unsigned long start)
{
	unsigned long pfn = page_to_pfn(page);

	return pfn >= start && pfn < start + (1UL << pageblock_order);
}

static void test_contig_range_migrates_pool_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned long nr = 1UL << pageblock_order;
	unsigned long start, inside = 0;
	int i, ret;

	start = mpt_build_block(test, 32);
	for (i = 0; i < 32; i++)
		inside += mpt_in_block(ctx->table[i], start);

	ret = alloc_contig_range(start, start + nr, MIGRATE_MOVABLE, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	for (i = 0; i < 32; i++) {
		KUNIT_EXPECT_FALSE(test, mpt_in_block(ctx->table[i], start));
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	}
	free_contig_range(start, nr);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).migrated, inside);
	mpt_expect_idle(test, ctx);
}

static void test_contig_range_blocked_by_pin(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned long nr = 1UL << pageblock_order;
	struct page *pinned = NULL;
	unsigned long start;
	int i, idx = 0, ret;

	start = mpt_build_block(test, 16);
	for (i = 0; i < 16 && !pinned; i++) {
		if (mpt_in_block(ctx->table[i], start)) {
			pinned = ctx->table[i];
			idx = i;
		}
	}
	KUNIT_ASSERT_NOT_NULL(test, pinned);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(pinned), 0);

	ret = alloc_contig_range(start, start + nr, MIGRATE_MOVABLE,
				 GFP_KERNEL | __GFP_NOWARN);
	KUNIT_EXPECT_NE(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, mpt_in_block(pinned, start));
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(pinned, idx));
	KUNIT_EXPECT_GT(test, mpt_stats(ctx).pin_refused, 0UL);
	movable_pool_unpin(pinned);
	if (!ret)
		free_contig_range(start, nr);

	/* once unpinned, the block can be had */
	ret = alloc_contig_range(start, start + nr, MIGRATE_MOVABLE, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, ret, 0);
	free_contig_range(start, nr);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[idx], idx));
	mpt_expect_idle(test, ctx);
}

/*
 * The routine published @dst and the driver frees it at once, before the
 * migration has ended: the free waits for the page to be listed, then
 * frees it; no warning, nothing left.
 */
static void test_free_of_published_dst_waits(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async mover = { .ctx = ctx }, freer = { .ctx = ctx };
	unsigned int misuse = mpt_misuse(ctx);

	mpt_fill(test, 0, 1);
	ctx->block_after_publish = true;
	mover.page = ctx->table[0];
	mpt_async_start(test, &mover, mpt_async_move);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->entered, 10 * HZ),
			0UL);
	freer.page = mpt_unlink(ctx, 0);
	KUNIT_ASSERT_PTR_EQ(test, freer.page, ctx->watch_dst);
	mpt_async_start(test, &freer, mpt_async_free);
	mpt_release_held_move(test, &mover, &freer);
	KUNIT_EXPECT_EQ(test, mover.ret, 0);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 0U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_migration_cases[] = {
	KUNIT_CASE(test_migrate_preserves_contents),
	KUNIT_CASE(test_migrate_passes_owner_and_index),
	KUNIT_CASE(test_migrated_page_belongs_to_pool),
	KUNIT_CASE(test_migrate_async),
	KUNIT_CASE(test_routine_eagain_keeps_page),
	KUNIT_CASE(test_routine_error_keeps_page),
	KUNIT_CASE(test_routine_drop),
	KUNIT_CASE(test_routine_positive_result_refused),
	KUNIT_CASE(test_free_while_isolated),
	KUNIT_CASE(test_free_while_isolated_then_putback),
	KUNIT_CASE(test_free_of_published_dst_waits),
	KUNIT_CASE(test_pools_are_independent),
	KUNIT_CASE(test_contig_range_migrates_pool_pages),
	KUNIT_CASE(test_contig_range_blocked_by_pin),
	{}
};

static struct kunit_suite movable_pool_migration_suite = {
	.name = "movable_pool_migration",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_migration_cases,
};

kunit_test_suite(movable_pool_migration_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: migration");
MODULE_LICENSE("GPL");
