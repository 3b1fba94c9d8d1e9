// SPDX-License-Identifier: GPL-2.0
/*
 * Pools of PageOffline() pages (MOVABLE_POOL_OFFLINE_PAGES), as a balloon
 * keeps them: every pool page is PageOffline() and moves; a page that leaves
 * the pool stays PageOffline() until it is freed where the kernel allows it
 * (6.17 and later) and leaves it as it goes elsewhere, and freeing it is
 * clean either way (the kernel log check would show a bad page); other
 * drivers' PageOffline() pages are not the library's.
 */

#include <linux/anon_inodes.h>
#include <linux/file.h>

#include "movable_pool_kunit.h"

static int mpt_init_offline(struct kunit *test)
{
	int ret = mpt_init_ops(test, &mpt_offline_ops);

	if (ret == -EOPNOTSUPP)
		kunit_skip(test, "other code moves PageOffline() pages here");
	return ret;
}

/* What a page that left an offline pool looks like until it is freed. */
static void mpt_expect_left(struct kunit *test, struct page *page)
{
	mpt_expect_detached(test, page);
	KUNIT_EXPECT_EQ(test, (bool)PageOffline(page), mp_offline_until_freed());
}

static void test_offline_pages_are_offline(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[4], *page;
	int i;

	mpt_fill(test, 0, 4);
	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL,
						       8, pages, 4), 0);
	page = alloc_page(MPT_GFP);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_EQ(test, movable_pool_add_page(ctx->pool, page, NULL, 12),
			0);
	for (i = 0; i < 4; i++) {
		KUNIT_EXPECT_TRUE(test, PageOffline(ctx->table[i]));
		mpt_expect_fields(test, ctx->table[i], &ctx->table[i], i);
		KUNIT_EXPECT_TRUE(test, PageOffline(pages[i]));
		KUNIT_EXPECT_TRUE(test, mp_page_movable(pages[i]));
	}
	KUNIT_EXPECT_TRUE(test, PageOffline(page));
	mpt_expect_fields(test, page, NULL, 12);

	/* freed, singly, in bulk, or taken */
	get_page(ctx->table[0]);
	page = ctx->table[0];
	mpt_free(ctx, 0);
	mpt_expect_left(test, page);
	put_page(page);
	movable_pool_free_pages(ctx->pool, pages, 4);
	KUNIT_EXPECT_EQ(test, movable_pool_take_pages(ctx->pool, pages, 4), 4U);
	for (i = 0; i < 4; i++) {
		mpt_expect_left(test, pages[i]);
		__free_page(pages[i]);
	}
	memset(ctx->table, 0, sizeof(ctx->table));
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);
	mpt_expect_idle(test, ctx);
}

static void test_offline_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *old;
	int i;

	mpt_fill(test, 0, 4);
	for (i = 0; i < 4; i++) {
		old = ctx->table[i];
		get_page(old);
		KUNIT_ASSERT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
		/* offline before the routine could tell anyone about it */
		KUNIT_EXPECT_TRUE(test, ctx->dst_offline);
		KUNIT_EXPECT_TRUE(test, PageOffline(ctx->table[i]));
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
		KUNIT_EXPECT_EQ(test, page_count(old), 1);
		mpt_expect_left(test, old);
		put_page(old);
	}

	/* a failed migration leaves the page where it was, offline */
	ctx->fail_with = -EBUSY;
	ctx->fail_times = INT_MAX;
	KUNIT_EXPECT_NE(test, mpt_move(ctx->table[0], MIGRATE_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, PageOffline(ctx->table[0]));
	ctx->fail_times = 0;
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).migrated, 4UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);
	mpt_expect_idle(test, ctx);
}

/* A balloon's routine when the host gave @src back but refused @dst. */
static void test_offline_drop(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool_stats s;
	struct page *old;

	mpt_fill(test, 0, 2);
	old = mpt_unlink(ctx, 1);
	get_page(old);
	ctx->fail_with = MOVABLE_POOL_MIGRATE_DROP;
	ctx->fail_times = 1;
	KUNIT_ASSERT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_EQ(test, page_count(old), 1);
	mpt_expect_left(test, old);
	put_page(old);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 1UL);
	KUNIT_EXPECT_EQ(test, s.dropped, 1UL);
	KUNIT_EXPECT_EQ(test, s.migrated, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse(ctx), 0U);
	mpt_expect_idle(test, ctx);
}

static void test_offline_free_isolated_and_destroy(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *freed, *kept;
	LIST_HEAD(list);

	mpt_fill(test, 0, 2);
	freed = ctx->table[0];
	kept = ctx->table[1];
	get_page(freed);
	get_page(kept);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(freed));
	mpt_free(ctx, 0);
	/* the pool keeps it, offline, until the VM hands it back */
	KUNIT_EXPECT_TRUE(test, PageOffline(freed));
	list_add(&freed->lru, &list);
	putback_movable_pages(&list);
	KUNIT_EXPECT_EQ(test, page_count(freed), 1);
	mpt_expect_left(test, freed);
	put_page(freed);

	/* expected: one "misuse" warning, for the page left to destroy */
	ctx->table[1] = NULL;
	KUNIT_EXPECT_EQ(test, mpt_destroy(test), 1U);
	KUNIT_EXPECT_EQ(test, page_count(kept), 1);
	mpt_expect_left(test, kept);
	put_page(kept);
}

/* PageOffline() pages of virtio-mem, Hyper-V or Xen are not ours. */
static void test_offline_page_of_another_driver(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = alloc_page(MPT_GFP);
	unsigned int misuse;

	KUNIT_ASSERT_NOT_NULL(test, page);
	__SetPageOffline(page);
	KUNIT_EXPECT_FALSE(test, mp_page_movable(page));
	KUNIT_EXPECT_FALSE(test, mp_isolate_movable_page(page));
	misuse = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), -EINVAL);
	movable_pool_free_page(ctx->pool, page);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 2U);
	KUNIT_EXPECT_TRUE(test, PageOffline(page));
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	__ClearPageOffline(page);
	__free_page(page);
	mpt_expect_idle(test, ctx);
}

/*
 * Hibernation, kdump and /proc/kcore take PageOffline() contents for
 * garbage: such a pool is for balloons, never mapped to userspace.
 */
static void test_offline_pool_cannot_be_mapped(struct kunit *test)
{
	static const struct file_operations fops;
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	struct address_space *mapping;
	struct file *file;

	file = anon_inode_getfile("mpt", &fops, NULL, O_RDWR);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, file);
	mapping = file->f_mapping;
	/* expected: one "misuse" warning */
	KUNIT_EXPECT_EQ(test, movable_pool_open(ctx->pool, file), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_PTR_EQ(test, file->f_mapping, mapping);
	fput(file);
}

static void test_create_refuses_unknown_flags(struct kunit *test)
{
	struct movable_pool_ops ops = mpt_ops;

	ops.flags = MOVABLE_POOL_OFFLINE_PAGES << 1;
	KUNIT_EXPECT_EQ(test, mpt_err(movable_pool_create("kunit-bad", &ops,
							  NULL)), -EINVAL);
}

static struct kunit_case movable_pool_offline_cases[] = {
	KUNIT_CASE(test_offline_pages_are_offline),
	KUNIT_CASE(test_offline_migration),
	KUNIT_CASE(test_offline_drop),
	KUNIT_CASE(test_offline_free_isolated_and_destroy),
	KUNIT_CASE(test_offline_page_of_another_driver),
	KUNIT_CASE(test_offline_pool_cannot_be_mapped),
	KUNIT_CASE(test_create_refuses_unknown_flags),
	{}
};

static struct kunit_suite movable_pool_offline_suite = {
	.name = "movable_pool_offline",
	.init = mpt_init_offline,
	.exit = mpt_exit,
	.test_cases = movable_pool_offline_cases,
};

kunit_test_suite(movable_pool_offline_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: pools of PageOffline() pages");
MODULE_LICENSE("GPL");
