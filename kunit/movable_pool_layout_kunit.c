// SPDX-License-Identifier: GPL-2.0
/*
 * The page layout: what the library keeps in a pool page's struct page
 * (owner in ->private; index, pins and state in one word) after
 * allocation, isolation and putback, migration and free; the largest
 * index; and no memory of its own per page.
 */

#include <linux/mmzone.h>

#include "movable_pool_kunit.h"

static void test_page_fields_hold_owner_and_index(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 40);
	mpt_expect_fields(test, ctx->table[0], &ctx->table[0], 0);
	mpt_expect_fields(test, ctx->table[39], &ctx->table[39], 39);

	/* pins live in the same word and never reach the index */
	page = ctx->table[39];
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	KUNIT_EXPECT_NE(test, *mp_page_word(page), 39UL);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page) & MOVABLE_POOL_MAX_INDEX, 39UL);
	movable_pool_unpin(page);
	mpt_expect_fields(test, page, &ctx->table[39], 39);
}

static void test_page_fields_survive_isolate_and_putback(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;
	LIST_HEAD(list);

	mpt_fill(test, 0, 8);
	page = ctx->table[5];
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
	/* isolated: ->lru is the VM's now, the rest is still ours */
	list_add(&page->lru, &list);
	KUNIT_EXPECT_PTR_EQ(test, (void *)page_private(page),
			    (void *)&ctx->table[5]);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page) & MOVABLE_POOL_MAX_INDEX, 5UL);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	movable_pool_unpin(page);
	putback_movable_pages(&list);
	mpt_expect_fields(test, page, &ctx->table[5], 5);

	/* and again, then a migration still hands the routine the same */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
	list_add(&page->lru, &list);
	putback_movable_pages(&list);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).putback, 2UL);
	KUNIT_ASSERT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx->last_owner, (void *)&ctx->table[5]);
	KUNIT_EXPECT_EQ(test, ctx->last_index, (pgoff_t)5);
	mpt_expect_fields(test, ctx->table[5], &ctx->table[5], 5);
	mpt_expect_idle(test, ctx);
}

static void test_page_fields_follow_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *old, *moved[4];
	int i;

	mpt_fill(test, 0, 4);
	for (i = 0; i < 4; i++) {
		old = ctx->table[i];
		get_page(old);
		KUNIT_ASSERT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
		mpt_expect_detached(test, old);
		mpt_expect_fields(test, ctx->table[i], &ctx->table[i], i);
		put_page(old);
		moved[i] = ctx->table[i];
		get_page(moved[i]);
	}
	/*
	 * Each successor took its predecessor's place on the pool's list:
	 * destroy finds and frees them all (expected: one "misuse" warning).
	 */
	KUNIT_EXPECT_EQ(test, mpt_destroy(test), 1U);
	memset(ctx->table, 0, sizeof(ctx->table));
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_EQ(test, page_count(moved[i]), 1);
		mpt_expect_detached(test, moved[i]);
		put_page(moved[i]);
	}
}

static void test_page_fields_cleared_on_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = mpt_fill_and_free_one(test);
	unsigned int before = mpt_misuse(ctx);

	mpt_expect_detached(test, page);
	/* expected: one "misuse" warning, in no pool's stats: the page has none */
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).misuse, 0UL);
	put_page(page);
	mpt_expect_idle(test, ctx);
}

static void test_index_limit(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	page = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL,
				       MOVABLE_POOL_MAX_INDEX + 1);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	page = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL, ULONG_MAX);
	KUNIT_EXPECT_EQ(test, mpt_err(page), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).allocated, 0UL);

	/* the largest index goes through a migration intact */
	page = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL,
				       MOVABLE_POOL_MAX_INDEX);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	movable_pool_unpin(page);
	/* the routine refuses a page not in its table, and saw the index */
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 1);
	KUNIT_EXPECT_EQ(test, ctx->last_index, (pgoff_t)MOVABLE_POOL_MAX_INDEX);
	ctx->bad_refs = 0;
	mpt_expect_fields(test, page, NULL, MOVABLE_POOL_MAX_INDEX);
	movable_pool_free_page(ctx->pool, page);
}

/* Slab in use, in bytes: what a per-page record would show up in. */
static long mpt_slab_bytes(void)
{
	return (global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B)) * PAGE_SIZE;
}

#define MPT_MANY	2048

/*
 * The counters are global: on SMP UML anything else running may grow
 * slab meanwhile. A per-page record would show in every try; take the
 * least of three.
 */
static void test_no_memory_per_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	long before, grown = LONG_MAX;
	struct page **pages;
	int i, try;

	pages = kunit_kcalloc(test, MPT_MANY, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (try = 0; try < 3; try++) {
		before = mpt_slab_bytes();
		for (i = 0; i < MPT_MANY; i++) {
			pages[i] = movable_pool_alloc_page(ctx->pool, MPT_GFP,
							   NULL, i);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pages[i]);
		}
		grown = min(grown, mpt_slab_bytes() - before);
		for (i = 0; i < MPT_MANY; i++)
			movable_pool_free_page(ctx->pool, pages[i]);
	}
	kunit_info(test, "slab grew by %ld bytes for %d pool pages\n", grown,
		   MPT_MANY);
	/* the target: at most 8 bytes of unmovable memory per page held */
	KUNIT_EXPECT_LE(test, grown, 8L * MPT_MANY);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_layout_cases[] = {
	KUNIT_CASE(test_page_fields_hold_owner_and_index),
	KUNIT_CASE(test_page_fields_survive_isolate_and_putback),
	KUNIT_CASE(test_page_fields_follow_migration),
	KUNIT_CASE(test_page_fields_cleared_on_free),
	KUNIT_CASE(test_index_limit),
	KUNIT_CASE(test_no_memory_per_page),
	{}
};

static struct kunit_suite movable_pool_layout_suite = {
	.name = "movable_pool_layout",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_layout_cases,
};

kunit_test_suite(movable_pool_layout_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: the page layout");
MODULE_LICENSE("GPL");
