// SPDX-License-Identifier: GPL-2.0
/*
 * Microbenchmarks: alloc+free, bulk, pin+unpin and migration per page,
 * against the page allocator and copy_highpage(), each reported in a
 * "bench:" line. The figures mean something only in a build without debug
 * options, where this suite runs alone (kunit.py run movable_pool_bench).
 */

#include <linux/highmem.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/pagemap.h>
#include <linux/percpu-refcount.h>
#include <linux/spinlock.h>

#include "movable_pool_kunit.h"

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

/* The baseline: alloc_page() and __free_page() of MPT_BENCH_PAGES, in ns. */
static u64 mpt_bench_plain(struct kunit *test, struct page **pages)
{
	u64 t0 = ktime_get_ns();
	struct page *page;
	int i;

	for (i = 0; i < MPT_BENCH_PAGES; i++) {
		page = alloc_page(MPT_GFP);
		if (!page)
			release_pages(pages, i);
		KUNIT_ASSERT_NOT_NULL(test, page);
		pages[i] = page;
	}
	for (i = 0; i < MPT_BENCH_PAGES; i++)
		__free_page(pages[i]);
	return ktime_get_ns() - t0;
}

/* The kernel's own bulk pair over MPT_BENCH_PAGES, in ns. */
static u64 mpt_bench_kbulk(struct kunit *test, struct page **pages)
{
	u64 t0;
	int i;

	memset(pages, 0, MPT_BENCH_PAGES * sizeof(*pages));
	t0 = ktime_get_ns();
	/* 5.10 has no bulk allocator: page by page there */
	for (i = mp_alloc_pages_bulk(MPT_GFP, MPT_BENCH_PAGES, pages);
	     i < MPT_BENCH_PAGES; i++) {
		pages[i] = alloc_page(MPT_GFP);
		if (!pages[i]) {
			release_pages(pages, i);
			KUNIT_ASSERT_NOT_NULL(test, pages[i]);
		}
	}
	release_pages(pages, MPT_BENCH_PAGES);
	return ktime_get_ns() - t0;
}

static void test_bench_alloc_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	u64 t0, ours = U64_MAX, base = U64_MAX, bulk = U64_MAX;
	u64 kbulk = U64_MAX, pin = U64_MAX;
	struct page **pages, *page;
	int rep, i;

	pages = kunit_kcalloc(test, MPT_BENCH_PAGES, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	for (rep = 0; rep < MPT_BENCH_REPS; rep++) {
		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++) {
			page = movable_pool_alloc_page(ctx->pool, MPT_GFP, NULL,
						       i);
			if (IS_ERR_OR_NULL(page))
				movable_pool_free_pages(ctx->pool, pages, i);
			KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
			pages[i] = page;
		}
		for (i = 0; i < MPT_BENCH_PAGES; i++)
			movable_pool_free_page(ctx->pool, pages[i]);
		ours = min(ours, ktime_get_ns() - t0);

		base = min(base, mpt_bench_plain(test, pages));

		t0 = ktime_get_ns();
		KUNIT_ASSERT_EQ(test, movable_pool_alloc_pages(ctx->pool, MPT_GFP,
							       NULL, 0, pages,
							       MPT_BENCH_PAGES), 0);
		movable_pool_free_pages(ctx->pool, pages, MPT_BENCH_PAGES);
		bulk = min(bulk, ktime_get_ns() - t0);

		/* the kernel's own bulk pair, for what bulk alone buys */
		kbulk = min(kbulk, mpt_bench_kbulk(test, pages));
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

/*
 * What the synchronization costs before any bookkeeping, to read
 * alloc+free's ratios against: what an earlier core paid (the page lock
 * while a page joins and leaves, an irq-safe pool lock pair per call) and
 * what this one pays (a plain lock pair per call, and the reference that
 * keeps the pool alive across an allocation: a percpu_ref get and put, two
 * this_cpu operations, which UML builds from interrupt-off sections).
 */
static void mpt_ref_release(struct percpu_ref *ref)
{
}

static void test_bench_floor(struct kunit *test)
{
	u64 t0, base = U64_MAX, plock = U64_MAX, irq = U64_MAX, plain = U64_MAX;
	u64 kbulk = U64_MAX, pref = U64_MAX;
	struct page **pages, *page;
	static DEFINE_SPINLOCK(lock);
	struct percpu_ref ref;
	unsigned long flags;
	int rep, i;

	pages = kunit_kcalloc(test, MPT_BENCH_PAGES, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	KUNIT_ASSERT_EQ(test, percpu_ref_init(&ref, mpt_ref_release, 0,
					      GFP_KERNEL), 0);
	for (rep = 0; rep < MPT_BENCH_REPS; rep++) {
		base = min(base, mpt_bench_plain(test, pages));
		kbulk = min(kbulk, mpt_bench_kbulk(test, pages));
	}
	for (i = 0; i < MPT_BENCH_PAGES; i++) {
		page = alloc_page(MPT_GFP);
		if (!page)
			release_pages(pages, i);
		KUNIT_ASSERT_NOT_NULL(test, page);
		pages[i] = page;
	}
	for (rep = 0; rep < MPT_BENCH_REPS; rep++) {
		/* alloc: one unlock; free: a lock and an unlock */
		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++) {
			__SetPageLocked(pages[i]);
			unlock_page(pages[i]);
			lock_page(pages[i]);
			unlock_page(pages[i]);
		}
		plock = min(plock, ktime_get_ns() - t0);

		t0 = ktime_get_ns();
		for (i = 0; i < 2 * MPT_BENCH_PAGES; i++) {
			spin_lock_irqsave(&lock, flags);
			spin_unlock_irqrestore(&lock, flags);
		}
		irq = min(irq, ktime_get_ns() - t0);

		t0 = ktime_get_ns();
		for (i = 0; i < 2 * MPT_BENCH_PAGES; i++) {
			spin_lock(&lock);
			spin_unlock(&lock);
		}
		plain = min(plain, ktime_get_ns() - t0);

		t0 = ktime_get_ns();
		for (i = 0; i < MPT_BENCH_PAGES; i++) {
			if (percpu_ref_tryget_live(&ref))
				percpu_ref_put(&ref);
		}
		pref = min(pref, ktime_get_ns() - t0);
	}
	percpu_ref_exit(&ref);
	for (i = 0; i < MPT_BENCH_PAGES; i++)
		__free_page(pages[i]);
	mpt_report(test, "page lock at alloc and free", plock, base,
		   "alloc_page+__free_page");
	mpt_report(test, "page lock at alloc and free", plock, kbulk,
		   "alloc_pages_bulk+release_pages");
	mpt_report(test, "two irq-safe lock pairs", irq, base,
		   "alloc_page+__free_page");
	mpt_report(test, "two plain lock pairs", plain, base,
		   "alloc_page+__free_page");
	mpt_report(test, "percpu_ref get+put", pref, base,
		   "alloc_page+__free_page");
}

static void test_bench_migrate(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct page **dst, **fresh;
	u64 t0, ours = U64_MAX, base = U64_MAX, floor = U64_MAX;
	LIST_HEAD(list);
	int rep, i, j, failed;

	/* the table holds MPT_PAGES; migrate them in batches to reach 256 */
	BUILD_BUG_ON(MPT_BENCH_PAGES % MPT_PAGES);
	dst = kunit_kcalloc(test, MPT_BENCH_PAGES, sizeof(*dst), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	fresh = kunit_kcalloc(test, MPT_PAGES, sizeof(*fresh), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fresh);
	for (i = 0; i < MPT_BENCH_PAGES; i++) {
		dst[i] = alloc_page(MPT_GFP);
		if (!dst[i])
			release_pages(dst, i);
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

		/*
		 * What any migration does, batch by batch as above: a new
		 * page for each, the copy, and a page freed for each.
		 */
		t0 = ktime_get_ns();
		for (batch = 0; batch < MPT_BENCH_PAGES / MPT_PAGES; batch++) {
			for (i = 0; i < MPT_PAGES; i++) {
				fresh[i] = alloc_page(MPT_GFP);
				if (!fresh[i])
					break;
				copy_highpage(fresh[i], ctx->table[i]);
			}
			for (j = 0; j < i; j++)
				__free_page(fresh[j]);
			KUNIT_ASSERT_EQ(test, i, MPT_PAGES);
		}
		floor = min(floor, ktime_get_ns() - t0);
	}
	for (i = 0; i < MPT_BENCH_PAGES; i++)
		__free_page(dst[i]);
	for (i = 0; i < MPT_PAGES; i++)
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	mpt_report(test, "migrate", ours, base, "copy_highpage");
	mpt_report(test, "alloc+copy+free", floor, base, "copy_highpage");
	mpt_report(test, "migrate", ours, floor,
		   "alloc_page+copy_highpage+__free_page");
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_bench_cases[] = {
	KUNIT_CASE(test_bench_alloc_free),
	KUNIT_CASE(test_bench_floor),
	KUNIT_CASE(test_bench_migrate),
	{}
};

static struct kunit_suite movable_pool_bench_suite = {
	.name = "movable_pool_bench",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_bench_cases,
};

kunit_test_suite(movable_pool_bench_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: microbenchmarks");
MODULE_LICENSE("GPL");
