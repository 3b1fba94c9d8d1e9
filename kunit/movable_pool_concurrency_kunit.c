// SPDX-License-Identifier: GPL-2.0
/*
 * Everything at once: a "device" pinning pages while they migrate, and three
 * "driver" threads allocating, pinning and freeing while a fourth migrates,
 * every page checked; and the same with a migration core that takes no page
 * lock around the callbacks. With two CPUs (7.x under UML) the threads
 * overlap.
 */

#include <linux/delay.h>
#include <linux/kthread.h>

#include "movable_pool_kunit.h"

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
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
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
	bool bare;		/* the compactor takes no page lock */
	int allocs, frees, pins, pin_busy, moves, bad_data;
};

/*
 * What the migration core does with a page (isolate it, migrate it to a
 * fresh page, put it back if that failed, drop its references) without the
 * page lock it takes around the callbacks on every kernel so far: the
 * library's own serialization must not need it. Returns as mpt_move().
 */
static int mpt_bare_move(struct page *page, enum migrate_mode mode)
{
	const struct mp_kunit_callbacks *cb = &mp_kunit_callbacks;
	struct page *dst;
	int rc = -EBUSY;

	if (!get_page_unless_zero(page))
		return -EBUSY;
	if (!cb->isolate(page, ISOLATE_UNEVICTABLE))
		goto out;
	dst = alloc_page(MPT_GFP);
	rc = dst ? cb->migrate(dst, page, mode) : -ENOMEM;
	if (rc)
		cb->putback(page);
	if (dst)
		put_page(dst);	/* the core's: on success the pool has its own */
out:
	put_page(page);		/* the isolation's */
	return !!rc;
}

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
			w->moves += (w->bare ? mpt_bare_move : mpt_move)
				(page, i & 1 ? MIGRATE_SYNC : MIGRATE_ASYNC) == 0;
			put_page(page);
		}
		cond_resched();
	}
	return 0;
}

#define MPT_DRIVERS	3

static void mpt_run_concurrent(struct kunit *test, bool bare)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_worker w[MPT_DRIVERS + 1] = {};
	struct task_struct *task[MPT_DRIVERS + 1];
	int i, allocs = 0, frees = 0, pins = 0, busy = 0, bad = 0, held = 0;
	unsigned int misuse = mpt_misuse(ctx);
	struct movable_pool_stats s;

	for (i = 0; i <= MPT_DRIVERS; i++) {
		w[i].ctx = ctx;
		w[i].seed = 0x5eed + i;
		w[i].bare = bare;
		task[i] = kthread_run(i < MPT_DRIVERS ? mpt_driver_fn :
				      mpt_compactor_fn, &w[i], "mpt_worker%d", i);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task[i]);
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
	/* the "driver" keeps the contract: no call of its is refused */
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, misuse), 0U);
	for (i = 0; i < MPT_PAGES; i++) {
		if (!ctx->table[i])
			continue;
		held++;
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	}
	KUNIT_EXPECT_EQ(test, s.pages, (unsigned long)held);
	mpt_expect_idle(test, ctx);
}

static void test_concurrent_alloc_free_pin_migrate(struct kunit *test)
{
	mpt_run_concurrent(test, false);
}

/* The same, with a migration core that takes no page lock. */
static void test_concurrent_without_page_lock(struct kunit *test)
{
	mpt_run_concurrent(test, true);
}

static struct kunit_case movable_pool_concurrency_cases[] = {
	KUNIT_CASE(test_concurrent_pin_and_migrate),
	KUNIT_CASE(test_concurrent_alloc_free_pin_migrate),
	KUNIT_CASE(test_concurrent_without_page_lock),
	{}
};

static struct kunit_suite movable_pool_concurrency_suite = {
	.name = "movable_pool_concurrency",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_concurrency_cases,
};

kunit_test_suite(movable_pool_concurrency_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: concurrency");
MODULE_LICENSE("GPL");
