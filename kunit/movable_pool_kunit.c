// SPDX-License-Identifier: GPL-2.0
/*
 * The fixtures the movable_pool KUnit suites share: the test "driver" and
 * its migrate routine, and the helpers that build and check its pages (see
 * movable_pool_kunit.h).
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/highmem.h>
#include <linux/kthread.h>

#include "movable_pool_kunit.h"

#include <trace/events/movable_pool.h>

static int mpt_migrate(struct movable_pool *pool, void *owner, pgoff_t index,
		       struct page *dst, struct page *src,
		       enum migrate_mode mode)
{
	struct mpt_ctx *ctx = movable_pool_priv(pool);
	int ret = 0;

	atomic_inc(&ctx->calls);
	ctx->last_owner = owner;
	ctx->last_index = index;
	ctx->dst_offline = PageOffline(dst);
	if (ctx->block_in_routine) {
		ctx->watch_dst = dst;
		get_page(dst);
		complete(&ctx->entered);
		wait_for_completion(&ctx->release);
	}
	if (ctx->pin_in_routine) {
		ctx->pin_src_ret = movable_pool_pin(src);
		ctx->pin_dst_ret = movable_pool_pin(dst);
		if (!ctx->pin_dst_ret && !ctx->keep_dst_pin)
			movable_pool_unpin(dst);
	}
	if (ctx->fail_times > 0) {
		ctx->fail_times--;
		return ctx->fail_with;
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
	if (ctx->block_after_publish && !ret) {
		ctx->watch_dst = dst;
		complete(&ctx->entered);
		wait_for_completion(&ctx->release);
	}
	return ret;
}

const struct movable_pool_ops mpt_ops = {
	.migrate = mpt_migrate,
};

const struct movable_pool_ops mpt_offline_ops = {
	.migrate = mpt_migrate,
	.flags = MOVABLE_POOL_OFFLINE_PAGES,
};

void mpt_write_pattern(struct page *page, unsigned int seed)
{
	u32 *p = kmap_local_page(page);
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(u32); i++)
		p[i] = mpt_word(seed, i);
	kunmap_local(p);
}

bool mpt_pattern_ok(struct page *page, unsigned int seed)
{
	u32 *p = kmap_local_page(page);
	unsigned int i;
	bool ok = true;

	for (i = 0; i < PAGE_SIZE / sizeof(u32) && ok; i++)
		ok = p[i] == mpt_word(seed, i);
	kunmap_local(p);
	return ok;
}

/* The identities that hold whenever nothing is in flight. */
void mpt_expect_idle(struct kunit *test, struct mpt_ctx *ctx)
{
	struct movable_pool_stats s = mpt_stats(ctx);

	KUNIT_EXPECT_EQ(test, s.pages, s.allocated - s.freed);
	KUNIT_EXPECT_EQ(test, s.isolated, 0UL);
	KUNIT_EXPECT_EQ(test, s.migrating, 0UL);
	KUNIT_EXPECT_EQ(test, s.pinned, 0UL);
	KUNIT_EXPECT_EQ(test, ctx->bad_refs, 0);
	KUNIT_EXPECT_EQ(test, ctx->violations, 0);
}

/*
 * @page no longer refers to a pool: what the library wrote is gone, but
 * for the mark of a page that left one (and on 6.x ->mapping, until the
 * page is freed).
 */
void mpt_expect_detached(struct kunit *test, struct page *page)
{
	if (!mp_mapping_kept_when_gone())
		KUNIT_EXPECT_PTR_EQ(test, mp_page_mapping(page), NULL);
	KUNIT_EXPECT_EQ(test, page_private(page), 0UL);
	KUNIT_EXPECT_EQ_MSG(test, *mp_page_word(page) & ~MOVABLE_POOL_MAX_INDEX,
			    MPT_WORD_GONE, "word %lx", *mp_page_word(page));
}

/* What the library keeps in the struct page of a pool page at rest. */
void mpt_expect_fields(struct kunit *test, struct page *page, void *owner,
		       pgoff_t index)
{
	KUNIT_EXPECT_TRUE(test, mp_page_movable(page));
	KUNIT_EXPECT_PTR_EQ(test, (void *)page_private(page), owner);
	KUNIT_EXPECT_EQ(test, *mp_page_word(page), (unsigned long)index);
}

static void mpt_count_misuse(void *data, unsigned int pool, unsigned long site)
{
	struct mpt_ctx *ctx = data;

	atomic_inc(&ctx->misuse);
	if (ctx->on_misuse)
		ctx->on_misuse(ctx);
}

unsigned int mpt_global_misuse(struct kunit *test)
{
	struct dentry *dir, *file = NULL;
	unsigned int n = 0;

	dir = debugfs_lookup("movable_pool", NULL);
	if (!IS_ERR_OR_NULL(dir))
		file = debugfs_lookup("misuse", dir);
	/* debugfs_create_atomic_t() keeps the counter's address there */
	if (!IS_ERR_OR_NULL(file))
		n = atomic_read((atomic_t *)d_inode(file)->i_private);
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR_OR_NULL(file),
			       "no debugfs movable_pool/misuse");
	dput(file);
	dput(dir);
	return n;
}

/* mpt_init() for a pool with @ops: a suite's .init calls it. */
int mpt_init_ops(struct kunit *test, const struct movable_pool_ops *ops)
{
	struct mpt_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	int ret;

	if (!ctx)
		return -ENOMEM;
	ctx->test = test;
	mutex_init(&ctx->lock);
	init_completion(&ctx->entered);
	init_completion(&ctx->release);
	/* cases run one at a time: whatever misuse is reported is theirs */
	ret = register_trace_movable_pool_misuse(mpt_count_misuse, ctx);
	if (ret)
		return ret;
	ctx->pool = movable_pool_create("kunit", ops, ctx);
	if (IS_ERR(ctx->pool)) {
		unregister_trace_movable_pool_misuse(mpt_count_misuse, ctx);
		tracepoint_synchronize_unregister();
		return PTR_ERR(ctx->pool);
	}
	test->priv = ctx;
	return 0;
}

int mpt_init(struct kunit *test)
{
	return mpt_init_ops(test, &mpt_ops);
}

void mpt_exit(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	int i;

	if (ctx->pool) {
		for (i = 0; i < MPT_PAGES; i++)
			if (ctx->table[i])
				movable_pool_free_page(ctx->pool, ctx->table[i]);
		movable_pool_destroy(ctx->pool);
	}
	unregister_trace_movable_pool_misuse(mpt_count_misuse, ctx);
	tracepoint_synchronize_unregister();
}

/* Allocate table[first..first+n) with their patterns. */
void mpt_fill(struct kunit *test, int first, int n)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;
	int i;

	for (i = first; i < first + n; i++) {
		page = movable_pool_alloc_page(ctx->pool, MPT_GFP,
					       &ctx->table[i], i);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
		mpt_write_pattern(page, i);
		ctx->table[i] = page;
	}
}

void mpt_free(struct mpt_ctx *ctx, int i)
{
	movable_pool_free_page(ctx->pool, ctx->table[i]);
	ctx->table[i] = NULL;
}

/* One pool page, freed, with a reference left so the test can look at it. */
struct page *mpt_fill_and_free_one(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	get_page(page);
	mpt_free(ctx, 0);
	return page;
}

/* Fill @n pages and hold a reference to each, to watch their fate. */
void mpt_fill_watched(struct kunit *test, struct page **watch, int n)
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
void mpt_expect_released(struct kunit *test, struct page **watch, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, page_count(watch[i]), 1);
		KUNIT_EXPECT_FALSE(test, mp_page_isolated(watch[i]));
		mpt_expect_detached(test, watch[i]);
		put_page(watch[i]);
	}
}

/* The "driver" drops table[i] and frees its page, as it should. */
struct page *mpt_unlink(struct mpt_ctx *ctx, int i)
{
	struct page *page;

	mutex_lock(&ctx->lock);
	page = ctx->table[i];
	ctx->table[i] = NULL;
	mutex_unlock(&ctx->lock);
	return page;
}

/*
 * Isolate @page and migrate it as compaction would. Returns how many pages
 * failed to migrate (0 or 1), or -EBUSY if isolation was refused. Pages
 * that failed are put back, as the core's callers do.
 */
int mpt_move(struct page *page, enum migrate_mode mode)
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

/* The VM hands back @page, which it had isolated, without migrating it. */
void mpt_putback(struct page *page)
{
	LIST_HEAD(list);

	list_add(&page->lru, &list);
	putback_movable_pages(&list);
}

static int mpt_async_thread(void *data)
{
	struct mpt_async *a = data;

	a->ret = a->fn(a);
	complete(&a->done);
	return 0;
}

void mpt_async_start(struct kunit *test, struct mpt_async *a,
		     int (*fn)(struct mpt_async *a))
{
	a->fn = fn;
	init_completion(&a->done);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, kthread_run(mpt_async_thread, a,
						       "mpt_async"));
}

int mpt_async_move(struct mpt_async *a)
{
	return mpt_move(a->page, MIGRATE_SYNC);
}

void mpt_start_held_move(struct kunit *test, struct mpt_async *mover,
			 struct page *page)
{
	struct mpt_ctx *ctx = mover->ctx;

	ctx->block_in_routine = true;
	mover->page = page;
	mpt_async_start(test, mover, mpt_async_move);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&ctx->entered, 10 * HZ),
			0UL);
}

void mpt_release_held_move(struct kunit *test, struct mpt_async *mover,
			   struct mpt_async *waiter)
{
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&waiter->done));
	complete(&mover->ctx->release);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&mover->done, 10 * HZ),
			0UL);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&waiter->done, 10 * HZ),
			0UL);
}

int mpt_async_free(struct mpt_async *a)
{
	movable_pool_free_page(a->ctx->pool, a->page);
	return 0;
}

static int mpt_async_destroy(struct mpt_async *a)
{
	movable_pool_destroy(a->pool);
	return 0;
}

/* Start destroying the case's pool in another thread. */
void mpt_destroy_begin(struct kunit *test, struct mpt_destroyer *d)
{
	struct mpt_ctx *ctx = test->priv;

	d->async.ctx = ctx;
	d->misuse = mpt_misuse(ctx);
	/* destroy has the pool: the case's exit must not destroy it again */
	d->async.pool = ctx->pool;
	ctx->pool = NULL;
	mpt_async_start(test, &d->async, mpt_async_destroy);
}

/*
 * Wait for the destroy mpt_destroy_begin() started; returns the misuse it
 * reported.
 */
unsigned int mpt_destroy_end(struct kunit *test, struct mpt_destroyer *d)
{
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&d->async.done, 10 * HZ),
			0UL);
	return mpt_misuse_since(d->async.ctx, d->misuse);
}

/* Destroy the case's pool; returns the misuse destroy reported. */
unsigned int mpt_destroy(struct kunit *test)
{
	struct mpt_destroyer d;

	mpt_destroy_begin(test, &d);
	return mpt_destroy_end(test, &d);
}
