// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for movable_pool, run against the real migration core:
 * isolate_movable_page(), migrate_pages(), putback_movable_pages() and
 * alloc_contig_range(). Built in only: those are not exported.
 *
 * Each case uses a small "driver" (struct mpt_ctx): a table of page
 * references indexed like the pool's pages, guarded by a mutex that its
 * migrate routine takes, as a real driver's would be.
 */

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmzone.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>
#include <linux/page-isolation.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/uaccess.h>

#include "../lib/movable_pool_compat.h"

#define MPT_PAGES	64
#define MPT_GFP		(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN)

struct mpt_ctx {
	struct kunit *test;
	struct movable_pool *pool;
	struct mutex lock;		/* the "driver lock": guards table[] */
	struct page *table[MPT_PAGES];
	atomic_t in_use[MPT_PAGES];	/* set while a "device" uses the page */
	atomic_t held[MPT_PAGES];	/* pinned or about to be: do not free */

	/* what the routine saw and did */
	atomic_t calls;
	void *last_owner;
	pgoff_t last_index;
	int bad_refs;
	int violations;
	atomic_t gone;			/* routine found the page freed */
	atomic_t faults;		/* user mapping faults served */
	atomic_t fault_entered;		/* user mapping faults begun */

	/* how the routine misbehaves */
	int fail_with;
	int fail_times;
	bool pin_in_routine;
	int pin_src_ret;
	int pin_dst_ret;

	/* how the "driver" maps pages */
	bool raw_mmap;			/* VMA set up without movable_pool_mmap() */
	pgoff_t fault_shift;		/* looks up slot pgoff + shift */
	bool insert_page;		/* vm_insert_page() table[0] at mmap */
	int insert_page_ret;

	/* hold the routine until the test says so */
	bool block_in_routine;
	struct page *watch_dst;
	struct completion entered;
	struct completion release;
};

static int mpt_migrate(struct movable_pool *pool, void *owner, pgoff_t index,
		       struct page *dst, struct page *src,
		       enum migrate_mode mode)
{
	struct mpt_ctx *ctx = movable_pool_priv(pool);
	int ret = 0;

	atomic_inc(&ctx->calls);
	ctx->last_owner = owner;
	ctx->last_index = index;
	if (ctx->pin_in_routine) {
		ctx->pin_src_ret = movable_pool_pin(src);
		ctx->pin_dst_ret = movable_pool_pin(dst);
		if (!ctx->pin_dst_ret)
			movable_pool_unpin(dst);
	}
	if (ctx->fail_times > 0) {
		ctx->fail_times--;
		return ctx->fail_with;
	}
	if (ctx->block_in_routine) {
		ctx->watch_dst = dst;
		get_page(dst);
		complete(&ctx->entered);
		wait_for_completion(&ctx->release);
	}

	if (mode == MIGRATE_ASYNC) {
		if (!mutex_trylock(&ctx->lock))
			return -EAGAIN;
	} else {
		mutex_lock(&ctx->lock);
	}
	if (index >= MPT_PAGES || owner != &ctx->table[index]) {
		ctx->bad_refs++;
		ret = -EINVAL;
	} else if (ctx->table[index] != src) {
		/* freed while it was moving (and the slot maybe refilled) */
		atomic_inc(&ctx->gone);
		ret = -ENOENT;
	} else {
		if (atomic_read(&ctx->in_use[index]))
			ctx->violations++;
		movable_pool_copy_page(dst, src);
		ctx->table[index] = dst;
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

static const struct movable_pool_ops mpt_ops = {
	.migrate = mpt_migrate,
};

/* A pattern that differs per page and per word, so misplaced copies show. */
static u32 mpt_word(unsigned int seed, unsigned int i)
{
	return seed * 0x9e3779b1u + i * 2654435761u + 1;
}

static void mpt_write_pattern(struct page *page, unsigned int seed)
{
	u32 *p = kmap_local_page(page);
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(u32); i++)
		p[i] = mpt_word(seed, i);
	kunmap_local(p);
}

static bool mpt_pattern_ok(struct page *page, unsigned int seed)
{
	u32 *p = kmap_local_page(page);
	unsigned int i;
	bool ok = true;

	for (i = 0; i < PAGE_SIZE / sizeof(u32) && ok; i++)
		ok = p[i] == mpt_word(seed, i);
	kunmap_local(p);
	return ok;
}

static struct movable_pool_stats mpt_stats(struct mpt_ctx *ctx)
{
	struct movable_pool_stats s;

	movable_pool_get_stats(ctx->pool, &s);
	return s;
}

/* The identities that hold whenever nothing is in flight. */
static void mpt_expect_idle(struct kunit *test, struct mpt_ctx *ctx)
{
	struct movable_pool_stats s = mpt_stats(ctx);

	KUNIT_EXPECT_EQ(test, s.pages, s.allocated - s.freed);
	KUNIT_EXPECT_EQ(test, s.isolated, 0UL);
	KUNIT_EXPECT_EQ(test, s.migrating, 0UL);
	KUNIT_EXPECT_EQ(test, s.pinned, 0UL);
	KUNIT_EXPECT_EQ(test, ctx->bad_refs, 0);
	KUNIT_EXPECT_EQ(test, ctx->violations, 0);
}

/* @page no longer refers to a pool: what the library wrote is gone. */
static void mpt_expect_detached(struct kunit *test, struct page *page)
{
	KUNIT_EXPECT_PTR_EQ(test, mp_page_mapping(page), NULL);
	KUNIT_EXPECT_EQ(test, page_private(page), 0UL);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page), 0UL);
}

/* What the library keeps in the struct page of a pool page at rest. */
static void mpt_expect_fields(struct kunit *test, struct page *page,
			      void *owner, pgoff_t index)
{
	KUNIT_EXPECT_TRUE(test, mp_page_movable(page));
	KUNIT_EXPECT_PTR_EQ(test, (void *)page_private(page), owner);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page), (unsigned long)index);
}

static int mpt_init(struct kunit *test)
{
	struct mpt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->test = test;
	mutex_init(&ctx->lock);
	init_completion(&ctx->entered);
	init_completion(&ctx->release);
	ctx->pool = movable_pool_create("kunit", &mpt_ops, ctx);
	if (IS_ERR(ctx->pool))
		return PTR_ERR(ctx->pool);
	test->priv = ctx;
	return 0;
}

static void mpt_exit(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	int i;

	if (!ctx->pool)
		return;
	for (i = 0; i < MPT_PAGES; i++)
		if (ctx->table[i])
			movable_pool_free_page(ctx->pool, ctx->table[i]);
	movable_pool_destroy(ctx->pool);
}

/* Allocate table[first..first+n) with their patterns. */
static void mpt_fill(struct kunit *test, int first, int n)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;
	int i;

	for (i = first; i < first + n; i++) {
		page = movable_pool_alloc_page(ctx->pool, MPT_GFP,
					       &ctx->table[i], i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(page));
		mpt_write_pattern(page, i);
		ctx->table[i] = page;
	}
}

static void mpt_free(struct mpt_ctx *ctx, int i)
{
	movable_pool_free_page(ctx->pool, ctx->table[i]);
	ctx->table[i] = NULL;
}

/*
 * Isolate @page and migrate it as compaction would. Returns how many pages
 * failed to migrate (0 or 1), or -EBUSY if isolation was refused. Pages
 * that failed are put back, as the core's callers do.
 */
static int mpt_move(struct page *page, enum migrate_mode mode)
{
	LIST_HEAD(list);
	int ret;

	if (!mp_isolate_movable_page(page))
		return -EBUSY;
	list_add(&page->lru, &list);
	ret = mp_migrate_pages(&list, MPT_GFP, mode);
	if (!list_empty(&list))
		putback_movable_pages(&list);
	return ret;
}

/* The errno an ERR_PTR() carries, or 0 for any other pointer. */
static int mpt_err(const void *ptr)
{
	return IS_ERR(ptr) ? PTR_ERR(ptr) : 0;
}

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
		KUNIT_ASSERT_FALSE(test, IS_ERR(page));
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
	KUNIT_ASSERT_FALSE(test, IS_ERR(page));
	ctx->table[8] = page;
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
	struct movable_pool *other;

	other = movable_pool_create("kunit-other", &mpt_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	mpt_fill(test, 0, 1);

	/* expected: one "misuse" warning; the page stays in its own pool */
	movable_pool_free_page(other, ctx->table[0]);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 1UL);
	KUNIT_EXPECT_TRUE(test, mp_page_movable(ctx->table[0]));
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[0], 0));
	movable_pool_destroy(other);
}

/* One pool page, freed, with a reference left so the test can look at it. */
static struct page *mpt_fill_and_free_one(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	get_page(page);
	mpt_free(ctx, 0);
	return page;
}

static void test_double_free_is_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page = mpt_fill_and_free_one(test);

	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	/* expected: one "misuse" warning, nothing freed twice */
	movable_pool_free_page(ctx->pool, page);
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).freed, 1UL);
	put_page(page);
	mpt_expect_idle(test, ctx);
}

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
	movable_pool_destroy(ctx->pool);
	ctx->pool = NULL;
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

	mpt_expect_detached(test, page);
	KUNIT_EXPECT_FALSE(test, movable_pool_pin(page) == 0);
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
	KUNIT_ASSERT_FALSE(test, IS_ERR(page));
	KUNIT_ASSERT_EQ(test, movable_pool_pin(page), 0);
	movable_pool_unpin(page);
	/* the routine refuses a page not in its table, and saw the index */
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 1);
	KUNIT_EXPECT_EQ(test, ctx->last_index, (pgoff_t)MOVABLE_POOL_MAX_INDEX);
	ctx->bad_refs = 0;
	mpt_expect_fields(test, page, NULL, MOVABLE_POOL_MAX_INDEX);
	movable_pool_free_page(ctx->pool, page);
}

static void test_pin_depth_limit(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;
	unsigned long i;
	int ret = 0;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	for (i = 0; i < MOVABLE_POOL_MAX_PINS && !ret; i++)
		ret = movable_pool_pin(page);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* expected: one "misuse" warning; the count does not spill over */
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), -EBUSY);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page) & MOVABLE_POOL_MAX_INDEX, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), -EBUSY);
	for (i = 0; i < MOVABLE_POOL_MAX_PINS; i++)
		movable_pool_unpin(page);
	mpt_expect_fields(test, page, &ctx->table[0], 0);
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	mpt_expect_idle(test, ctx);
}

/* Slab in use, in bytes: what a per-page record would show up in. */
static long mpt_slab_bytes(void)
{
	return (global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B) +
		global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B)) * PAGE_SIZE;
}

#define MPT_MANY	2048

static void test_no_memory_per_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page **pages;
	long before, grown;
	int i;

	pages = kunit_kcalloc(test, MPT_MANY, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	before = mpt_slab_bytes();
	for (i = 0; i < MPT_MANY; i++) {
		pages[i] = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL, i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pages[i]));
	}
	grown = mpt_slab_bytes() - before;
	kunit_info(test, "slab grew by %ld bytes for %d pool pages\n", grown,
		   MPT_MANY);
	/* the target: at most 8 bytes of unmovable memory per page held */
	KUNIT_EXPECT_LE(test, grown, 8L * MPT_MANY);
	for (i = 0; i < MPT_MANY; i++)
		movable_pool_free_page(ctx->pool, pages[i]);
	mpt_expect_idle(test, ctx);
}

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

/* Run a step of a test in a thread of its own. */
struct mpt_async {
	struct mpt_ctx *ctx;
	struct page *page;
	int ret;
	int (*fn)(struct mpt_async *a);
	struct completion done;
	struct mm_struct *mm;		/* for steps in a user mapping */
	unsigned long addr;
};

static int mpt_async_thread(void *data)
{
	struct mpt_async *a = data;

	a->ret = a->fn(a);
	complete(&a->done);
	return 0;
}

static void mpt_async_start(struct kunit *test, struct mpt_async *a,
			    int (*fn)(struct mpt_async *a))
{
	a->fn = fn;
	init_completion(&a->done);
	KUNIT_ASSERT_FALSE(test, IS_ERR(kthread_run(mpt_async_thread, a,
						    "mpt_async")));
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

	mpt_fill(test, 0, 1);
	/* expected: one "misuse" warning; the count does not wrap */
	movable_pool_unpin(ctx->table[0]);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pinned, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_move(ctx->table[0], MIGRATE_SYNC), 0);
}

static void test_pin_rejects_foreign_page(struct kunit *test)
{
	struct page *page = alloc_page(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	/* expected: one "misuse" warning */
	KUNIT_EXPECT_EQ(test, movable_pool_pin(page), -EINVAL);
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

static int mpt_async_move(struct mpt_async *a)
{
	return mpt_move(a->page, MIGRATE_SYNC);
}

static int mpt_async_destroy(struct mpt_async *a)
{
	movable_pool_destroy(a->ctx->pool);
	return 0;
}

/* Fill @n pages and hold a reference to each, to watch their fate. */
static void mpt_fill_watched(struct kunit *test, struct page **watch, int n)
{
	struct mpt_ctx *ctx = test->priv;
	int i;

	mpt_fill(test, 0, n);
	for (i = 0; i < n; i++) {
		watch[i] = ctx->table[i];
		get_page(watch[i]);
	}
}

/* The pool let go of every watched page: only our reference is left. */
static void mpt_expect_released(struct kunit *test, struct page **watch, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, page_count(watch[i]), 1);
		KUNIT_EXPECT_FALSE(test, mp_page_isolated(watch[i]));
		mpt_expect_detached(test, watch[i]);
		put_page(watch[i]);
	}
}

static void test_destroy_with_isolated_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async destroyer = { .ctx = ctx };
	struct page *watch[4];
	LIST_HEAD(list);
	int i;

	mpt_fill_watched(test, watch, 4);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(watch[1]));
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(watch[2]));
	for (i = 0; i < 4; i++)
		mpt_free(ctx, i);

	/* the freed pages the VM holds still lead to the pool: destroy waits */
	mpt_async_start(test, &destroyer, mpt_async_destroy);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.done));
	list_add(&watch[1]->lru, &list);
	list_add(&watch[2]->lru, &list);
	putback_movable_pages(&list);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&destroyer.done, 10 * HZ),
			0UL);
	ctx->pool = NULL;
	mpt_expect_released(test, watch, 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
}

static void test_destroy_frees_forgotten_pages(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async destroyer = { .ctx = ctx };
	struct page *watch[8];
	LIST_HEAD(list);
	int i;

	mpt_fill_watched(test, watch, 8);
	for (i = 0; i < 8; i++)
		ctx->table[i] = NULL;	/* the "driver" forgets them */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(watch[5]));

	/* destroy waits until the VM hands the isolated page back ... */
	mpt_async_start(test, &destroyer, mpt_async_destroy);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.done));
	/* ... refusing to migrate it, so it comes back at once */
	list_add(&watch[5]->lru, &list);
	KUNIT_EXPECT_EQ(test, mp_migrate_pages(&list, MPT_GFP, MIGRATE_SYNC), 1);
	putback_movable_pages(&list);
	/* expected: one "misuse" warning; every page is freed regardless */
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&destroyer.done, 10 * HZ),
			0UL);
	ctx->pool = NULL;
	mpt_expect_released(test, watch, 8);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
}

static void test_destroy_during_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async mover = { .ctx = ctx }, destroyer = { .ctx = ctx };
	struct page *src;

	mpt_fill(test, 0, 1);
	src = ctx->table[0];
	get_page(src);
	/* the "driver" never frees it: destroy does, with a misuse warning */
	ctx->block_in_routine = true;
	mover.page = src;
	mpt_async_start(test, &mover, mpt_async_move);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->entered, 10 * HZ),
			0UL);

	/* the routine runs with src locked: destroy must wait for it */
	mpt_async_start(test, &destroyer, mpt_async_destroy);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.done));
	complete(&ctx->release);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&mover.done, 10 * HZ),
			0UL);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&destroyer.done, 10 * HZ),
			0UL);
	ctx->pool = NULL;

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

static void test_bulk_rejects_bad_arguments(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[2];

	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(NULL, MPT_GFP, NULL, 0,
						       pages, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL,
						       0, pages, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool,
						       GFP_KERNEL_ACCOUNT, NULL,
						       0, pages, 1), -EINVAL);
	/* the last page's index would be past the limit */
	KUNIT_EXPECT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, NULL,
						       MOVABLE_POOL_MAX_INDEX,
						       pages, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).allocated, 0UL);
	movable_pool_free_pages(NULL, pages, 2);
}

static void test_bulk_alloc_and_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *pages[MPT_PAGES], *watch[MPT_PAGES];
	struct movable_pool_stats s;
	LIST_HEAD(list);
	int i;

	KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP, ctx,
						       100, pages, MPT_PAGES), 0);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, (unsigned long)MPT_PAGES);
	KUNIT_EXPECT_EQ(test, s.allocated, (unsigned long)MPT_PAGES);
	for (i = 0; i < MPT_PAGES; i++) {
		mpt_expect_fields(test, pages[i], ctx, 100 + i);
		KUNIT_EXPECT_EQ(test, page_count(pages[i]), 1);
		KUNIT_EXPECT_FALSE(test, PageLocked(pages[i]));
		watch[i] = pages[i];
		get_page(watch[i]);
	}
	/* one page isolated, one pinned: both still go */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(pages[3]));
	KUNIT_ASSERT_EQ(test, movable_pool_pin(pages[7]), 0);
	/* expected: one "misuse" warning, for the pinned page */
	movable_pool_free_pages(ctx->pool, pages, MPT_PAGES);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.freed, (unsigned long)MPT_PAGES);
	KUNIT_EXPECT_EQ(test, s.isolated, 1UL);	/* until the VM is done */
	KUNIT_EXPECT_EQ(test, s.pinned, 0UL);

	/* the VM hands the isolated one back; the pool lets it go */
	list_add(&watch[3]->lru, &list);
	putback_movable_pages(&list);
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.isolated, 0UL);
	for (i = 0; i < MPT_PAGES; i++) {
		KUNIT_EXPECT_EQ(test, page_count(watch[i]), 1);
		KUNIT_EXPECT_FALSE(test, PageLocked(watch[i]));
		mpt_expect_detached(test, watch[i]);
		put_page(watch[i]);
	}
	KUNIT_EXPECT_EQ(test, s.putback, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
}

static int mpt_async_free_pages(struct mpt_async *a)
{
	movable_pool_free_pages(a->ctx->pool, a->ctx->table, MPT_PAGES);
	return 0;
}

static void test_bulk_free_waits_for_a_locked_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async freer = { .ctx = ctx };
	struct page *busy;

	mpt_fill(test, 0, MPT_PAGES);
	busy = ctx->table[10];
	get_page(busy);
	lock_page(busy);	/* as the migration core would */
	mpt_async_start(test, &freer, mpt_async_free_pages);
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&freer.done));
	unlock_page(busy);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&freer.done, 10 * HZ),
			0UL);
	memset(ctx->table, 0, sizeof(ctx->table));
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, page_count(busy), 1);
	mpt_expect_detached(test, busy);
	put_page(busy);
	mpt_expect_idle(test, ctx);
}

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
	struct page *taken[MPT_PAGES], *pinned, *isolated, *locked;
	struct movable_pool_stats s;
	LIST_HEAD(list);
	unsigned int n, i;

	mpt_fill(test, 0, 8);
	pinned = ctx->table[1];
	isolated = ctx->table[2];
	locked = ctx->table[3];
	KUNIT_ASSERT_EQ(test, movable_pool_pin(pinned), 0);
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(isolated));
	list_add(&isolated->lru, &list);
	lock_page(locked);	/* as the migration core would */

	KUNIT_EXPECT_EQ(test, movable_pool_take_pages(ctx->pool, taken, 0), 0U);
	KUNIT_EXPECT_EQ(test, movable_pool_take_pages(NULL, taken, 1), 0U);
	n = movable_pool_take_pages(ctx->pool, taken, 2);
	KUNIT_EXPECT_EQ(test, n, 2U);
	n += movable_pool_take_pages(ctx->pool, taken + n, MPT_PAGES);
	KUNIT_EXPECT_EQ(test, n, 5U);
	unlock_page(locked);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_PTR_NE(test, taken[i], pinned);
		KUNIT_EXPECT_PTR_NE(test, taken[i], isolated);
		KUNIT_EXPECT_PTR_NE(test, taken[i], locked);
	}
	s = mpt_stats(ctx);
	KUNIT_EXPECT_EQ(test, s.pages, 3UL);
	KUNIT_EXPECT_EQ(test, s.freed, 5UL);
	KUNIT_EXPECT_EQ(test, s.pinned, 1UL);
	KUNIT_EXPECT_EQ(test, s.isolated, 1UL);
	mpt_free_taken(test, taken, n);

	/* the three left are the pool's still, and go once they are free */
	putback_movable_pages(&list);
	movable_pool_unpin(pinned);
	mpt_expect_fields(test, isolated, &ctx->table[2], 2);
	KUNIT_EXPECT_EQ(test, mpt_move(locked, MIGRATE_SYNC), 0);
	n = movable_pool_take_pages(ctx->pool, taken, MPT_PAGES);
	KUNIT_EXPECT_EQ(test, n, 3U);
	mpt_free_taken(test, taken, n);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).pages, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 1);
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
	KUNIT_ASSERT_FALSE(test, IS_ERR(page));
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
		KUNIT_ASSERT_FALSE(test, IS_ERR(page));
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

/* A "driver" mmap: table[N] at file offset N pages, as the header asks. */
static vm_fault_t mpt_fault(struct vm_fault *vmf)
{
	struct mpt_ctx *ctx = vmf->vma->vm_private_data;
	pgoff_t slot = vmf->pgoff + ctx->fault_shift;	/* a buggy driver's */
	struct page *page = NULL;
	vm_fault_t ret;

	atomic_inc(&ctx->fault_entered);
	mutex_lock(&ctx->lock);
	if (slot < MPT_PAGES)
		page = ctx->table[slot];
	if (page)
		get_page(page);
	mutex_unlock(&ctx->lock);
	if (!page)
		return VM_FAULT_SIGBUS;
	ret = movable_pool_insert_pfn(ctx->pool, vmf, page);
	put_page(page);
	atomic_inc(&ctx->faults);
	return ret;
}

static const struct vm_operations_struct mpt_vm_ops = {
	.fault = mpt_fault,
};

static int mpt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mpt_ctx *ctx = file->private_data;
	int ret = 0;

	vma->vm_private_data = ctx;
	vma->vm_ops = &mpt_vm_ops;
	/* a driver that maps a pool page with vm_insert_page() (misuse) */
	if (ctx->insert_page) {
		ctx->insert_page_ret = vm_insert_page(vma, vma->vm_start,
						      ctx->table[0]);
		return 0;
	}
	if (ctx->raw_mmap)	/* a driver that sets the VMA up by hand */
		mp_vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	else
		ret = movable_pool_mmap(ctx->pool, vma);
	return ret;
}

static int mpt_release(struct inode *inode, struct file *file)
{
	/* only if movable_pool_open() pointed it at the pool */
	if (file->f_mapping != inode->i_mapping)
		movable_pool_release(file);
	return 0;
}

static const struct file_operations mpt_fops = {
	.mmap = mpt_mmap,
	.release = mpt_release,
};

/* A file of the test "driver", set up with movable_pool_open(). */
static struct file *mpt_file(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file;

	file = anon_inode_getfile("mpt", &mpt_fops, ctx, O_RDWR);
	if (IS_ERR(file))
		return file;
	/* anon inodes share one inode: open() sets f_mapping, as a driver's */
	if (movable_pool_open(ctx->pool, file)) {
		fput(file);
		return ERR_PTR(-ENODEV);
	}
	return file;
}

/* Give the test thread an mm of its own, if it has none yet. */
static int mpt_use_mm(void)
{
	struct mm_struct *mm;

	if (current->mm)
		return 0;
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(mm);	/* the test thread drops it on exit */
	return 0;
}

/*
 * Map @len bytes of a pool file with @flags (MAP_SHARED or MAP_PRIVATE)
 * into the test's own mm, so the test reaches it with get_user() and
 * put_user(). Returns the address or 0; *@filep is the file either way.
 */
static unsigned long mpt_user_map_flags(struct kunit *test,
					struct file **filep,
					unsigned long len, unsigned long flags)
{
	unsigned long addr;
	struct file *file;

	*filep = NULL;
	file = mpt_file(test);
	if (IS_ERR(file))
		return 0;
	if (mpt_use_mm()) {
		fput(file);
		return 0;
	}
	*filep = file;
	addr = vm_mmap(file, 0, len, PROT_READ | PROT_WRITE, flags, 0);
	return IS_ERR_VALUE(addr) ? 0 : addr;
}

static unsigned long mpt_user_map(struct kunit *test, struct file **filep,
				  unsigned long len)
{
	unsigned long addr = mpt_user_map_flags(test, filep, len, MAP_SHARED);

	if (!addr && *filep)
		fput(*filep);
	return addr;
}

static int mpt_user_word(unsigned long addr, unsigned int i, u32 *val)
{
	return get_user(*val, (u32 __user *)(addr + i * PAGE_SIZE));
}

static void test_user_mapping_follows_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file = NULL;
	unsigned long addr;
	struct page *old;
	u32 val, *p;
	int i;

	mpt_fill(test, 0, 3);
	addr = mpt_user_map(test, &file, 4 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);
		KUNIT_EXPECT_EQ(test, val, mpt_word(i, 0));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 3);

	/* the page moves: its PTE goes, and the next access maps the new one */
	old = ctx->table[1];
	KUNIT_EXPECT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
	KUNIT_ASSERT_PTR_NE(test, ctx->table[1], old);
	KUNIT_EXPECT_EQ(test, put_user(0x5a5a5a5a, (u32 __user *)(addr + PAGE_SIZE)),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 4);
	p = kmap_local_page(ctx->table[1]);
	KUNIT_EXPECT_EQ(test, p[0], 0x5a5a5a5aU);
	p[0] = mpt_word(1, 0);
	kunmap_local(p);

	/* the others kept their PTEs */
	for (i = 0; i < 3; i += 2) {
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);
		KUNIT_EXPECT_EQ(test, val, mpt_word(i, 0));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 4);

	/* no page at offset 3: the driver's fault fails, the access too */
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 3, &val), -EFAULT);

	vm_munmap(addr, 4 * PAGE_SIZE);
	fput(file);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	mpt_expect_idle(test, ctx);
}

/* A user of the mapping in another thread: reads page 1 over and over. */
struct mpt_reader {
	struct mm_struct *mm;
	unsigned long addr;
	int reads, bad, errors;
};

static int mpt_reader_fn(void *data)
{
	struct mpt_reader *r = data;
	u32 val;

	kthread_use_mm(r->mm);
	while (!kthread_should_stop()) {
		if (mpt_user_word(r->addr, 1, &val))
			r->errors++;
		else if (val != mpt_word(1, 0))
			r->bad++;
		r->reads++;
		cond_resched();
	}
	kthread_unuse_mm(r->mm);
	return 0;
}

static void test_user_faults_race_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_reader r = {};
	struct task_struct *task;
	struct file *file = NULL;
	struct page *page;
	int round, moved = 0;
	unsigned int cpu;

	mpt_fill(test, 0, 2);
	r.addr = mpt_user_map(test, &file, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, r.addr, 0UL);
	r.mm = current->mm;
	mmget(r.mm);
	task = kthread_create(mpt_reader_fn, &r, "mpt_reader");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* with two CPUs (7.x UML), read on the other one: a real race */
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu < nr_cpu_ids)
		kthread_bind(task, cpu);
	wake_up_process(task);
	for (round = 0; round < 200; round++) {
		mutex_lock(&ctx->lock);
		page = ctx->table[1];
		get_page(page);
		mutex_unlock(&ctx->lock);
		moved += mpt_move(page, round & 1 ? MIGRATE_SYNC :
				  MIGRATE_ASYNC) == 0;
		put_page(page);
		/* let the reader run: UML on 6.1 has no preemption */
		if (!(round % 8))
			schedule_timeout_uninterruptible(1);
	}
	kthread_stop(task);
	mmput(r.mm);
	kunit_info(test, "%d migrations, %d reads, %d faults\n", moved, r.reads,
		   atomic_read(&ctx->faults));
	KUNIT_EXPECT_GT(test, moved, 0);
	KUNIT_EXPECT_GT(test, r.reads, 0);
	KUNIT_EXPECT_EQ(test, r.bad, 0);
	KUNIT_EXPECT_EQ(test, r.errors, 0);
	vm_munmap(r.addr, 2 * PAGE_SIZE);
	fput(file);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[1], 1));
	mpt_expect_idle(test, ctx);
}

/* Misuse warnings @ctx's pool has counted since it read @before. */
static unsigned long mpt_misuse_since(struct mpt_ctx *ctx,
				      unsigned long before)
{
	return mpt_stats(ctx).misuse - before;
}

/* The "driver" drops table[i] and frees its page, as it should. */
static struct page *mpt_unlink(struct mpt_ctx *ctx, int i)
{
	struct page *page;

	mutex_lock(&ctx->lock);
	page = ctx->table[i];
	ctx->table[i] = NULL;
	mutex_unlock(&ctx->lock);
	return page;
}

static void test_free_zaps_user_mapping(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file = NULL;
	struct page *pages[1];
	unsigned long addr;
	u32 val;
	int i;

	mpt_fill(test, 0, 3);
	addr = mpt_user_map(test, &file, 3 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 3);

	/* freed one by one and in a batch, with no zap by the driver */
	movable_pool_free_page(ctx->pool, mpt_unlink(ctx, 1));
	pages[0] = mpt_unlink(ctx, 2);
	movable_pool_free_pages(ctx->pool, pages, 1);

	/* no PTE is left on them: the access faults, and the driver refuses */
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 1, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 2, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 5);
	/* the page still in the pool kept its PTE */
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 5);
	vm_munmap(addr, 3 * PAGE_SIZE);
	fput(file);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).misuse, 0UL);
	mpt_expect_idle(test, ctx);
}

static void test_private_mapping_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned long addr, before = mpt_stats(ctx).misuse;
	struct file *file;
	u32 val;

	mpt_fill(test, 0, 1);
	/* movable_pool_mmap() refuses it */
	addr = mpt_user_map_flags(test, &file, PAGE_SIZE, MAP_PRIVATE);
	KUNIT_EXPECT_EQ(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1UL);
	if (file)
		fput(file);

	/* set up by hand, the fault refuses (vmf_insert_pfn() would BUG()) */
	ctx->raw_mmap = true;
	addr = mpt_user_map_flags(test, &file, PAGE_SIZE, MAP_PRIVATE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 2UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 1);
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	mpt_expect_idle(test, ctx);
}

static void test_fault_checks_index(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned long addr, before = mpt_stats(ctx).misuse;
	struct file *file = NULL;
	u32 val;

	mpt_fill(test, 0, 3);
	ctx->fault_shift = 1;	/* offset N served with the page of index N+1 */
	addr = mpt_user_map(test, &file, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1UL);

	ctx->fault_shift = 0;
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), 0);
	KUNIT_EXPECT_EQ(test, val, mpt_word(0, 0));
	vm_munmap(addr, 2 * PAGE_SIZE);
	fput(file);
	mpt_expect_idle(test, ctx);
}

static int mpt_async_read(struct mpt_async *a)
{
	u32 val = 0;
	int ret;

	kthread_use_mm(a->mm);
	ret = mpt_user_word(a->addr, 0, &val);
	kthread_unuse_mm(a->mm);
	return ret ?: val != mpt_word(0, 0);
}

/*
 * A fault that finds the page locked (being moved) waits without
 * mmap_lock, as filemap_fault() does, so an mmap() or munmap() elsewhere
 * is not held up behind a page lock (see "Lock order" in the header).
 */
static void test_fault_retries_without_mmap_lock(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async reader = { .ctx = ctx };
	struct file *file = NULL;
	unsigned long deadline;
	bool unlocked_mm = false;
	struct page *page;

	mpt_fill(test, 0, 1);
	reader.addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, reader.addr, 0UL);
	reader.mm = current->mm;
	page = ctx->table[0];
	lock_page(page);	/* as the migration core would */
	mpt_async_start(test, &reader, mpt_async_read);

	/* once the reader is in the fault, mmap_lock must be free */
	deadline = jiffies + 10 * HZ;
	while (!atomic_read(&ctx->fault_entered) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 1);
	while (!unlocked_mm && time_before(jiffies, deadline)) {
		msleep(20);
		/* as mmap() would take it (6.12 has no mmap_write_trylock()) */
		if (down_write_trylock(&reader.mm->mmap_lock)) {
			up_write(&reader.mm->mmap_lock);
			unlocked_mm = true;
		}
	}
	KUNIT_EXPECT_TRUE(test, unlocked_mm);
	KUNIT_EXPECT_FALSE(test, completion_done(&reader.done));
	unlock_page(page);

	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&reader.done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, reader.ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 2);	/* the retry */
	vm_munmap(reader.addr, PAGE_SIZE);
	fput(file);
	mpt_expect_idle(test, ctx);
}

/* Until it fails: the pages it got stay in the pool for destroy to free. */
static int mpt_async_alloc_until_error(struct mpt_async *a)
{
	struct page *page;
	unsigned int n;

	for (n = 1; ; n++) {
		page = movable_pool_alloc_page(a->ctx->pool, MPT_GFP, NULL, 0);
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
	struct mpt_async destroyer = { .ctx = ctx };
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

		mpt_async_start(test, &allocator, mpt_async_alloc_until_error);
		fsleep((round % 4) * 1000);
		/* expected: a "misuse" warning, for the pages left to destroy */
		mpt_async_start(test, &destroyer, mpt_async_destroy);
		KUNIT_ASSERT_NE(test,
				wait_for_completion_timeout(&allocator.done,
							    10 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, allocator.ret, -ENODEV);
		KUNIT_EXPECT_FALSE(test, completion_done(&destroyer.done));

		/* the VM hands the page back; destroy frees every page */
		list_add(&held->lru, &list);
		putback_movable_pages(&list);
		KUNIT_ASSERT_NE(test,
				wait_for_completion_timeout(&destroyer.done,
							    10 * HZ), 0UL);
		KUNIT_EXPECT_EQ(test, page_count(held), 1);
		mpt_expect_detached(test, held);
		put_page(held);
	}
	ctx->pool = NULL;
}

/*
 * remove() while userspace still maps the device: destroy zaps what is
 * mapped, and the file keeps the address_space until its release.
 */
static void test_destroy_with_live_mapping(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file = NULL;
	struct page *watch[2];
	unsigned long addr;
	u32 val;
	int i;

	mpt_fill_watched(test, watch, 2);
	addr = mpt_user_map(test, &file, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);

	/* the device goes: the driver forgets its pages, then the pool */
	mpt_unlink(ctx, 0);
	mpt_unlink(ctx, 1);
	/* expected: one "misuse" warning, for the pages not freed */
	movable_pool_destroy(ctx->pool);
	ctx->pool = NULL;
	mpt_expect_released(test, watch, 2);

	/* the mapping is empty, and the driver's fault refuses */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), -EFAULT);
	/* the address_space outlives the pool: no use after free (KASAN) */
	vm_munmap(addr, 2 * PAGE_SIZE);
	fput(file);
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

/*
 * A pool page mapped with vm_insert_page() would keep that mapping when it
 * moves: either the kernel refuses the insertion (7.x: a typed page) or
 * the library refuses to isolate the page.
 */
static void test_mapcount_page_not_isolated(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned long addr, before = mpt_stats(ctx).misuse;
	struct file *file = NULL;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	ctx->insert_page = true;
	addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	if (ctx->insert_page_ret) {
		kunit_info(test, "vm_insert_page() refused: %d\n",
			   ctx->insert_page_ret);
	} else {
		KUNIT_EXPECT_TRUE(test, mp_page_user_mapped(page));
		KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), -EBUSY);
		KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1UL);
		KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	}
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	/* once unmapped it moves as any other */
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	mpt_expect_idle(test, ctx);
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
	movable_pool_destroy(ctx->pool);
	ctx->pool = NULL;
	KUNIT_EXPECT_EQ(test, page_count(page), 1);
	KUNIT_EXPECT_EQ(test, page_private(page), 0UL);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page), 0UL);
	put_page(page);
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

struct mpt_pinner {
	struct mpt_ctx *ctx;
	int npages;
	int bad_data;
	int rounds;
};

/* A "device" that pins pages, reads them, and lets go, over and over. */
static int mpt_pinner_fn(void *data)
{
	struct mpt_pinner *pn = data;
	struct mpt_ctx *ctx = pn->ctx;
	struct page *page;
	int i = 0;

	while (!kthread_should_stop()) {
		mutex_lock(&ctx->lock);
		page = ctx->table[i];
		if (movable_pool_pin(page)) {
			mutex_unlock(&ctx->lock);
			cond_resched();
			continue;
		}
		atomic_set(&ctx->in_use[i], 1);
		mutex_unlock(&ctx->lock);
		pn->bad_data += !mpt_pattern_ok(page, i);
		cond_resched();
		atomic_set(&ctx->in_use[i], 0);
		movable_pool_unpin(page);
		pn->rounds++;
		i = (i + 1) % pn->npages;
	}
	return 0;
}

static void test_concurrent_pin_and_migrate(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_pinner pn = { .ctx = ctx, .npages = 8 };
	struct task_struct *task;
	int round, i, moved = 0;

	mpt_fill(test, 0, pn.npages);
	task = kthread_run(mpt_pinner_fn, &pn, "mpt_pinner");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	for (round = 0; round < 50; round++) {
		for (i = 0; i < pn.npages; i++) {
			struct page *page;

			mutex_lock(&ctx->lock);
			page = ctx->table[i];
			get_page(page);
			mutex_unlock(&ctx->lock);
			moved += mpt_move(page, round & 1 ? MIGRATE_SYNC :
					  MIGRATE_SYNC_LIGHT) == 0;
			put_page(page);
		}
		/* let the pinner run: UML on 6.1 has no preemption */
		schedule_timeout_uninterruptible(1);
	}
	kthread_stop(task);
	kunit_info(test, "%d migrations, %d pin rounds\n", moved, pn.rounds);
	KUNIT_EXPECT_GT(test, moved, 0);
	KUNIT_EXPECT_GT(test, pn.rounds, 0);
	KUNIT_EXPECT_EQ(test, pn.bad_data, 0);
	for (i = 0; i < pn.npages; i++)
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	mpt_expect_idle(test, ctx);
}

/* Several "driver" threads and a "compactor", all at once. */
struct mpt_worker {
	struct mpt_ctx *ctx;
	u32 seed;
	int allocs, frees, pins, pin_busy, moves, bad_data;
};

static u32 mpt_next(u32 *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return *seed >> 8;
}

/* Fill, pin and check, or take out and free a random slot, over and over. */
static int mpt_driver_fn(void *data)
{
	struct mpt_worker *w = data;
	struct mpt_ctx *ctx = w->ctx;
	struct page *page;
	unsigned int i;

	while (!kthread_should_stop()) {
		i = mpt_next(&w->seed) % MPT_PAGES;
		mutex_lock(&ctx->lock);
		page = ctx->table[i];
		if (!page) {
			mutex_unlock(&ctx->lock);
			page = movable_pool_alloc_page(ctx->pool, MPT_GFP,
						       &ctx->table[i], i);
			if (IS_ERR(page))
				continue;
			mpt_write_pattern(page, i);
			mutex_lock(&ctx->lock);
			if (ctx->table[i]) {	/* another thread was first */
				mutex_unlock(&ctx->lock);
				movable_pool_free_page(ctx->pool, page);
				continue;
			}
			ctx->table[i] = page;
			mutex_unlock(&ctx->lock);
			w->allocs++;
		} else if (mpt_next(&w->seed) & 1) {
			if (movable_pool_pin(page)) {
				mutex_unlock(&ctx->lock);
				w->pin_busy++;
				continue;
			}
			atomic_set(&ctx->in_use[i], 1);
			atomic_inc(&ctx->held[i]);
			mutex_unlock(&ctx->lock);
			w->bad_data += !mpt_pattern_ok(page, i);
			atomic_set(&ctx->in_use[i], 0);
			movable_pool_unpin(page);
			atomic_dec(&ctx->held[i]);
			w->pins++;
		} else if (atomic_read(&ctx->held[i])) {
			mutex_unlock(&ctx->lock);	/* a driver frees no page in use */
		} else {
			ctx->table[i] = NULL;
			mutex_unlock(&ctx->lock);
			/* ours alone now: a migration in flight gives up */
			w->bad_data += !mpt_pattern_ok(page, i);
			movable_pool_free_page(ctx->pool, page);
			w->frees++;
		}
		cond_resched();
	}
	return 0;
}

/* Migrate random pool pages, as compaction would. */
static int mpt_compactor_fn(void *data)
{
	struct mpt_worker *w = data;
	struct mpt_ctx *ctx = w->ctx;
	struct page *page;
	unsigned int i;

	while (!kthread_should_stop()) {
		i = mpt_next(&w->seed) % MPT_PAGES;
		mutex_lock(&ctx->lock);
		page = ctx->table[i];
		if (page)
			get_page(page);
		mutex_unlock(&ctx->lock);
		if (page) {
			w->moves += mpt_move(page, i & 1 ? MIGRATE_SYNC :
					     MIGRATE_ASYNC) == 0;
			put_page(page);
		}
		cond_resched();
	}
	return 0;
}

#define MPT_DRIVERS	3

static void test_concurrent_alloc_free_pin_migrate(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_worker w[MPT_DRIVERS + 1] = {};
	struct task_struct *task[MPT_DRIVERS + 1];
	int i, allocs = 0, frees = 0, pins = 0, busy = 0, bad = 0, held = 0;
	struct movable_pool_stats s;

	for (i = 0; i <= MPT_DRIVERS; i++) {
		w[i].ctx = ctx;
		w[i].seed = 0x5eed + i;
		task[i] = kthread_run(i < MPT_DRIVERS ? mpt_driver_fn :
				      mpt_compactor_fn, &w[i], "mpt_worker%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task[i]));
	}
	msleep(1000);
	for (i = 0; i <= MPT_DRIVERS; i++) {
		kthread_stop(task[i]);
		allocs += w[i].allocs;
		frees += w[i].frees;
		pins += w[i].pins;
		busy += w[i].pin_busy;
		bad += w[i].bad_data;
	}
	s = mpt_stats(ctx);
	kunit_info(test, "%d allocs, %d frees, %d pins (%d refused), %d migrations, %lu isolations refused, %d frees raced a migration\n",
		   allocs, frees, pins, busy, w[MPT_DRIVERS].moves,
		   s.pin_refused, atomic_read(&ctx->gone));
	KUNIT_EXPECT_GT(test, allocs, 0);
	KUNIT_EXPECT_GT(test, frees, 0);
	KUNIT_EXPECT_GT(test, pins, 0);
	KUNIT_EXPECT_GT(test, w[MPT_DRIVERS].moves, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
	for (i = 0; i < MPT_PAGES; i++) {
		if (!ctx->table[i])
			continue;
		held++;
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	}
	KUNIT_EXPECT_EQ(test, s.pages, (unsigned long)held);
	mpt_expect_idle(test, ctx);
}

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
		KUNIT_EXPECT_FALSE(test, IS_ERR(page));
		if (!IS_ERR(page))
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

static struct kunit_case mpt_fault_cases[] = {
	KUNIT_CASE(test_fail_nth_create),
	KUNIT_CASE(test_fail_nth_alloc),
	KUNIT_CASE(test_fail_dst_alloc_keeps_page),
	{}
};

static struct kunit_suite mpt_fault_suite = {
	.name = "movable_pool_fault",
	.init = mpt_fault_init,
	.exit = mpt_fault_exit,
	.test_cases = mpt_fault_cases,
};

kunit_test_suite(mpt_fault_suite);
#endif

#define MPT_BENCH_PAGES	256
#define MPT_BENCH_REPS	20	/* the minimum is the least disturbed run */

/* Nanoseconds per page, reported as value and hundredths of the ratio. */
static void mpt_report(struct kunit *test, const char *what, u64 ours,
		       u64 base, const char *base_name)
{
	u64 ratio = base ? div64_u64(ours * 100, base) : 0;
	u64 whole = div_u64(ratio, 100);

	kunit_info(test, "bench: %s %llu ns/page, %s %llu ns/page, ratio %llu.%02llux\n",
		   what, div_u64(ours, MPT_BENCH_PAGES), base_name,
		   div_u64(base, MPT_BENCH_PAGES), whole,
		   ratio - whole * 100);
}

static void test_bench_alloc_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	u64 t0, ours = U64_MAX, base = U64_MAX, bulk = U64_MAX;
	u64 kbulk = U64_MAX, pin = U64_MAX;
	struct page **pages;
	int rep, i, j;

	pages = kunit_kcalloc(test, MPT_BENCH_PAGES, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (rep = 0; rep < MPT_BENCH_REPS; rep++) {
		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++) {
			pages[i] = movable_pool_alloc_page(ctx->pool, MPT_GFP,
							   NULL, i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(pages[i]));
		}
		for (i = 0; i < MPT_BENCH_PAGES; i++)
			movable_pool_free_page(ctx->pool, pages[i]);
		ours = min(ours, ktime_get_ns() - t0);

		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++) {
			pages[i] = alloc_page(MPT_GFP);
			KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		}
		for (i = 0; i < MPT_BENCH_PAGES; i++)
			__free_page(pages[i]);
		base = min(base, ktime_get_ns() - t0);

		t0 = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP,
							       NULL, 0, pages,
							       MPT_BENCH_PAGES), 0);
		movable_pool_free_pages(ctx->pool, pages, MPT_BENCH_PAGES);
		bulk = min(bulk, ktime_get_ns() - t0);

		/* the kernel's own bulk pair, for what bulk alone buys */
		memset(pages, 0, MPT_BENCH_PAGES * sizeof(*pages));
		t0 = ktime_get_ns();
		/* 5.10 has no bulk allocator: page by page there */
		for (j = mp_alloc_pages_bulk(MPT_GFP, MPT_BENCH_PAGES, pages);
		     j < MPT_BENCH_PAGES; j++) {
			pages[j] = alloc_page(MPT_GFP);
			KUNIT_ASSERT_NOT_NULL(test, pages[j]);
		}
		release_pages(pages, MPT_BENCH_PAGES);
		kbulk = min(kbulk, ktime_get_ns() - t0);
	}
	mpt_report(test, "alloc+free", ours, base, "alloc_page+__free_page");
	mpt_report(test, "bulk alloc+free", bulk, base, "alloc_page+__free_page");
	mpt_report(test, "bulk alloc+free", bulk, kbulk,
		   "alloc_pages_bulk+release_pages");

	mpt_fill(test, 0, MPT_PAGES);
	for (rep = 0; rep < MPT_BENCH_REPS; rep++) {
		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++) {
			KUNIT_ASSERT_EQ(test, movable_pool_pin(ctx->table[i % MPT_PAGES]),
					0);
			movable_pool_unpin(ctx->table[i % MPT_PAGES]);
		}
		pin = min(pin, ktime_get_ns() - t0);
	}
	mpt_report(test, "pin+unpin", pin, base, "alloc_page+__free_page");
	mpt_expect_idle(test, ctx);
}

static void test_bench_migrate(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page **dst;
	u64 t0, ours = U64_MAX, base = U64_MAX;
	LIST_HEAD(list);
	int rep, i, failed;

	/* the table holds MPT_PAGES; migrate them in batches to reach 256 */
	BUILD_BUG_ON(MPT_BENCH_PAGES % MPT_PAGES);
	dst = kunit_kcalloc(test, MPT_BENCH_PAGES, sizeof(*dst), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	for (i = 0; i < MPT_BENCH_PAGES; i++) {
		dst[i] = alloc_page(MPT_GFP);
		KUNIT_ASSERT_NOT_NULL(test, dst[i]);
	}
	mpt_fill(test, 0, MPT_PAGES);

	for (rep = 0; rep < MPT_BENCH_REPS; rep++) {
		u64 t = 0;
		int batch;

		for (batch = 0; batch < MPT_BENCH_PAGES / MPT_PAGES; batch++) {
			t0 = ktime_get_ns();
			for (i = 0; i < MPT_PAGES; i++) {
				struct page *page = ctx->table[i];

				KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
				list_add_tail(&page->lru, &list);
			}
			failed = mp_migrate_pages(&list, MPT_GFP, MIGRATE_SYNC);
			t += ktime_get_ns() - t0;
			KUNIT_ASSERT_EQ(test, failed, 0);
		}
		ours = min(ours, t);

		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++)
			copy_highpage(dst[i], ctx->table[i % MPT_PAGES]);
		base = min(base, ktime_get_ns() - t0);
	}
	for (i = 0; i < MPT_BENCH_PAGES; i++)
		__free_page(dst[i]);
	for (i = 0; i < MPT_PAGES; i++)
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	mpt_report(test, "migrate", ours, base, "copy_highpage");
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_test_cases[] = {
	KUNIT_CASE(test_create_rejects_bad_arguments),
	KUNIT_CASE(test_create_gives_empty_pool),
	KUNIT_CASE(test_alloc_rejects_bad_arguments),
	KUNIT_CASE(test_alloc_makes_page_movable),
	KUNIT_CASE(test_alloc_honours_gfp),
	KUNIT_CASE(test_free_updates_stats),
	KUNIT_CASE(test_free_into_other_pool_is_refused),
	KUNIT_CASE(test_double_free_is_refused),
	KUNIT_CASE(test_page_fields_hold_owner_and_index),
	KUNIT_CASE(test_page_fields_survive_isolate_and_putback),
	KUNIT_CASE(test_page_fields_follow_migration),
	KUNIT_CASE(test_page_fields_cleared_on_free),
	KUNIT_CASE(test_index_limit),
	KUNIT_CASE(test_pin_depth_limit),
	KUNIT_CASE(test_no_memory_per_page),
	KUNIT_CASE(test_migrate_preserves_contents),
	KUNIT_CASE(test_migrate_passes_owner_and_index),
	KUNIT_CASE(test_migrated_page_belongs_to_pool),
	KUNIT_CASE(test_migrate_async),
	KUNIT_CASE(test_pinned_page_refuses_isolation),
	KUNIT_CASE(test_pin_after_isolate_fails_migration),
	KUNIT_CASE(test_pins_nest),
	KUNIT_CASE(test_pin_in_atomic_context),
	KUNIT_CASE(test_unpin_underflow_is_refused),
	KUNIT_CASE(test_pin_rejects_foreign_page),
	KUNIT_CASE(test_pin_during_migration_is_eagain),
	KUNIT_CASE(test_routine_eagain_keeps_page),
	KUNIT_CASE(test_routine_error_keeps_page),
	KUNIT_CASE(test_free_while_isolated),
	KUNIT_CASE(test_free_while_isolated_then_putback),
	KUNIT_CASE(test_destroy_with_isolated_pages),
	KUNIT_CASE(test_destroy_frees_forgotten_pages),
	KUNIT_CASE(test_destroy_during_migration),
	KUNIT_CASE(test_bulk_rejects_bad_arguments),
	KUNIT_CASE(test_bulk_alloc_and_free),
	KUNIT_CASE(test_bulk_free_waits_for_a_locked_page),
	KUNIT_CASE(test_take_pages_leaves_busy_ones),
	KUNIT_CASE(test_pools_are_independent),
	KUNIT_CASE(test_contig_range_migrates_pool_pages),
	KUNIT_CASE(test_contig_range_blocked_by_pin),
	KUNIT_CASE(test_user_mapping_follows_migration),
	KUNIT_CASE(test_user_faults_race_migration),
	KUNIT_CASE(test_free_zaps_user_mapping),
	KUNIT_CASE(test_private_mapping_refused),
	KUNIT_CASE(test_fault_checks_index),
	KUNIT_CASE(test_fault_retries_without_mmap_lock),
	KUNIT_CASE(test_alloc_races_destroy),
	KUNIT_CASE(test_destroy_with_live_mapping),
	KUNIT_CASE(test_alloc_refuses_dma_zones),
	KUNIT_CASE(test_mapcount_page_not_isolated),
	KUNIT_CASE(test_destroy_skips_unrecognised_page),
	KUNIT_CASE(test_take_pages_rotates_busy_ones),
	KUNIT_CASE(test_concurrent_pin_and_migrate),
	KUNIT_CASE(test_concurrent_alloc_free_pin_migrate),
	KUNIT_CASE(test_bench_alloc_free),
	KUNIT_CASE(test_bench_migrate),
	{}
};

static struct kunit_suite movable_pool_test_suite = {
	.name = "movable_pool",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_test_cases,
};

kunit_test_suite(movable_pool_test_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool");
MODULE_LICENSE("GPL");
