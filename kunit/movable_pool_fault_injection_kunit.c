// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failure, injected the fail-nth way: every allocation of pool
 * creation, of single and bulk page allocation, and the destination page
 * of a migration fail in turn. The call returns the documented errno, the
 * counters are untouched and the pool stays usable. Left out without
 * FAILSLAB, FAIL_PAGE_ALLOC and their debugfs knobs.
 */

#include <linux/debugfs.h>
#include <linux/sched.h>

#include "movable_pool_kunit.h"

#if IS_ENABLED(CONFIG_FAILSLAB) && IS_ENABLED(CONFIG_FAIL_PAGE_ALLOC) && \
	IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS)
/*
 * Fault injection, the fail-nth way: current->fail_nth = n fails the n-th
 * slab or page allocation this task makes from now on. By default both
 * injectors skip allocations that may sleep, highmem and order-0 pages, and
 * log a stack trace per failure; their knobs are debugfs files, whose
 * inodes point at the values, so the test turns them to what it needs.
 */
struct mpt_knob {
	const char *dir, *name;
	size_t size;
	u64 value;
};

static struct mpt_knob mpt_knobs[] = {
	{ "failslab", "ignore-gfp-wait", sizeof(bool), 0 },
	{ "failslab", "verbose", sizeof(unsigned long), 0 },
	{ "fail_page_alloc", "ignore-gfp-wait", sizeof(bool), 0 },
	{ "fail_page_alloc", "ignore-gfp-highmem", sizeof(bool), 0 },
	{ "fail_page_alloc", "min-order", sizeof(u32), 0 },
	{ "fail_page_alloc", "verbose", sizeof(unsigned long), 0 },
};

/* Swap each knob's value with the one in mpt_knobs[]; true if all found. */
static bool mpt_swap_knobs(void)
{
	struct dentry *dir, *file;
	unsigned int i;
	u64 old;
	void *p;

	for (i = 0; i < ARRAY_SIZE(mpt_knobs); i++) {
		dir = debugfs_lookup(mpt_knobs[i].dir, NULL);
		file = IS_ERR_OR_NULL(dir) ? NULL :
		       debugfs_lookup(mpt_knobs[i].name, dir);
		dput(dir);
		if (IS_ERR_OR_NULL(file))
			return false;
		p = d_inode(file)->i_private;
		dput(file);
		old = 0;
		memcpy(&old, p, mpt_knobs[i].size);	/* little-endian: UML */
		memcpy(p, &mpt_knobs[i].value, mpt_knobs[i].size);
		mpt_knobs[i].value = old;
	}
	return true;
}

static int mpt_fault_init(struct kunit *test)
{
	int ret = mpt_init(test);

	if (!ret && !mpt_swap_knobs())
		ret = -ENOENT;
	return ret;
}

static void mpt_fault_exit(struct kunit *test)
{
	current->fail_nth = 0;
	mpt_swap_knobs();
	mpt_exit(test);
}

/* Pool creation: every allocation site fails in turn, then it works. */
static void test_fail_nth_create(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct movable_pool *pool;
	struct page *page;
	unsigned int n, left, failed = 0, quiet = 0;

	for (n = 1; n < 1000; n++) {
		current->fail_nth = n;
		pool = movable_pool_create("kunit-fi", &mpt_ops, ctx);
		left = current->fail_nth;
		current->fail_nth = 0;
		if (IS_ERR(pool)) {
			KUNIT_EXPECT_EQ(test, mpt_err(pool), -ENOMEM);
			failed++;
			continue;
		}
		/* debugfs is optional: a pool without its directory works */
		page = movable_pool_alloc_page(pool, MPT_GFP, NULL, 0);
		KUNIT_EXPECT_NOT_ERR_OR_NULL(test, page);
		if (!IS_ERR_OR_NULL(page))
			movable_pool_free_page(pool, page);
		movable_pool_destroy(pool);
		if (left)
			break;	/* the n-th allocation never came: done */
		quiet++;
	}
	kunit_info(test, "%u allocations: %u failed the pool, %u were optional\n",
		   n - 1, failed, quiet);
	KUNIT_EXPECT_GT(test, failed, 0U);
	KUNIT_EXPECT_LT(test, n, 1000U);
}

/*
 * Page allocation, single and bulk: all or nothing, counters untouched.
 * A failed bulk allocator is made up for page by page, so where there is
 * one (not on 5.10) an injected failure costs nothing.
 */
static void test_fail_nth_alloc(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[16], *page;
	struct movable_pool_stats s;
	unsigned int n, left, failed = 0, absorbed = 0;
	int ret;

	current->fail_nth = 1;
	page = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL, 0);
	current->fail_nth = 0;
	KUNIT_EXPECT_EQ(test, mpt_err(page), -ENOMEM);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).allocated, 0UL);

	for (n = 1; n < 1000; n++) {
		current->fail_nth = n;
		ret = movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL, 0,
					       pages, ARRAY_SIZE(pages));
		left = current->fail_nth;
		current->fail_nth = 0;
		s = mpt_stats(ctx);
		if (ret) {
			KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
			KUNIT_EXPECT_EQ(test, s.pages, 0UL);
			failed++;
			continue;
		}
		KUNIT_EXPECT_EQ(test, s.pages, (unsigned long)ARRAY_SIZE(pages));
		movable_pool_free_pages(ctx->pool, pages, ARRAY_SIZE(pages));
		if (left)
			break;
		absorbed++;
	}
	kunit_info(test, "bulk: %u injected failures failed the call, %u were made up for\n",
		   failed, absorbed);
	KUNIT_EXPECT_GT(test, failed + absorbed, 0U);
	KUNIT_EXPECT_LT(test, n, 1000U);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.allocated, s.freed);
	mpt_expect_idle(test, ctx);
}

/* No destination page: the page stays where it is, with its data. */
static void test_fail_dst_alloc_keeps_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	current->fail_nth = 1;
	KUNIT_EXPECT_NE(test, mpt_move(page, MIGRATE_SYNC), 0);
	current->fail_nth = 0;
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(page, 0));
	mpt_expect_fields(test, page, &ctx->table[0], 0);
	/* and it moves once memory is there */
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_fault_injection_cases[] = {
	KUNIT_CASE(test_fail_nth_create),
	KUNIT_CASE(test_fail_nth_alloc),
	KUNIT_CASE(test_fail_dst_alloc_keeps_page),
	{}
};

static struct kunit_suite movable_pool_fault_injection_suite = {
	.name = "movable_pool_fault_injection",
	.init = mpt_fault_init,
	.exit = mpt_fault_exit,
	.test_cases = movable_pool_fault_injection_cases,
};

kunit_test_suite(movable_pool_fault_injection_suite);
#endif

MODULE_DESCRIPTION("KUnit tests for movable_pool: allocation failure");
MODULE_LICENSE("GPL");
