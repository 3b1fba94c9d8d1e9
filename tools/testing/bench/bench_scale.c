// SPDX-License-Identifier: GPL-2.0
/*
 * bench_driver/scale: what one operation costs in a pool of @scale_pages
 * pages, so make bench can tell whether it grows with the pool. Reading
 * the file builds a pool of its own that size and prints, in ns per page:
 *
 *   fill_ns      movable_pool_alloc_page(), filling the pool from empty
 *   alloc_ns     movable_pool_alloc_page() of 256 more, at size
 *   free_ns      movable_pool_free_page() of those 256, at size
 *   pin_unpin_ns movable_pool_pin() + movable_pool_unpin(), at size
 *   take_ns      movable_pool_take_pages() of 256, at size (they go back
 *                with movable_pool_add_page(), untimed)
 *   destroy_ns   movable_pool_free_pages() of every page, 256 at a time,
 *                then movable_pool_destroy(): a driver's teardown
 *   base_fill_ns, base_free_ns
 *                alloc_page() of as many pages, then __free_page() of
 *                each: what the memory system itself does at that size
 *
 * "At size" figures are the best of 20 runs of 256 operations, as in
 * bench_driver/micro; the others the best of SCALE_ROUNDS rounds, at every
 * size alike. Allocations do not retry or warn: a pool too large for the
 * guest reports an error instead of waking the OOM killer. The pool's
 * routine refuses to move its pages (-EAGAIN), so the pages this file
 * points at stay where they are.
 */

#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/movable_pool.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "bench_driver.h"

#define SCALE_BATCH	256
#define SCALE_REPS	20
#define SCALE_ROUNDS	3
#define SCALE_GFP	(MOVABLE_POOL_GFP | __GFP_NORETRY | __GFP_NOWARN)

static unsigned long scale_pages = 1024;
module_param(scale_pages, ulong, 0644);
MODULE_PARM_DESC(scale_pages, "pool size bench_driver/scale measures");

static int scale_migrate(struct movable_pool *pool, void *owner,
			 pgoff_t index, struct page *dst, struct page *src,
			 enum migrate_mode mode)
{
	return -EAGAIN;
}

static const struct movable_pool_ops scale_ops = {
	.migrate = scale_migrate,
};

struct scale_run {
	unsigned long size;	/* scale_pages, read once */
	struct movable_pool *pool;
	struct page **pages;	/* the pool's pages while @intact */
	bool intact;
	struct page *batch[SCALE_BATCH];
	unsigned long nr;
	u64 alloc, free, pin, take;	/* best of SCALE_REPS, ns per batch */
	u64 fill, teardown, base_fill, base_free;	/* best round, per page */
};

static int scale_alloc_free(struct scale_run *s)
{
	u64 t0 = ktime_get_ns(), t1;
	int i, ret = 0;

	for (i = 0; i < SCALE_BATCH; i++)
		s->batch[i] = movable_pool_alloc_page(s->pool, SCALE_GFP, NULL,
						      s->nr + i);
	t1 = ktime_get_ns();
	for (i = 0; i < SCALE_BATCH; i++) {
		if (IS_ERR(s->batch[i]))
			ret = PTR_ERR(s->batch[i]);
		else
			movable_pool_free_page(s->pool, s->batch[i]);
	}
	if (!ret) {
		s->alloc = min(s->alloc, t1 - t0);
		s->free = min(s->free, ktime_get_ns() - t1);
	}
	return ret;
}

/* the middle page of the pool, over and over, as a device would */
static void scale_pin_unpin(struct scale_run *s)
{
	struct page *page = s->pages[s->nr / 2];
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < SCALE_BATCH; i++)
		if (!movable_pool_pin(page))
			movable_pool_unpin(page);
	s->pin = min(s->pin, ktime_get_ns() - t0);
}

/*
 * Take 256 pages and give them back, so s->pages stays the pool's. A take
 * that passed over pages the VM held isolated for a moment is not timed.
 * A page that cannot go back is freed, and s->pages no longer trusted.
 */
static int scale_take(struct scale_run *s)
{
	u64 t0 = ktime_get_ns(), t;
	unsigned int i, n;
	int ret = 0;

	n = movable_pool_take_pages(s->pool, s->batch, SCALE_BATCH);
	t = ktime_get_ns() - t0;
	if (n == SCALE_BATCH)
		s->take = min(s->take, t);
	for (i = 0; i < n; i++) {
		/* the index is the driver's business: nothing maps them */
		if (!ret)
			ret = movable_pool_add_page(s->pool, s->batch[i], NULL,
						    i);
		if (ret)
			__free_page(s->batch[i]);
	}
	if (ret)
		s->intact = false;
	return ret;
}

/* Fill the pool to s->size pages; ns per page, or 0 if memory ran out. */
static u64 scale_fill(struct scale_run *s)
{
	u64 t0 = ktime_get_ns();
	struct page *page;

	for (s->nr = 0; s->nr < s->size; s->nr++) {
		page = movable_pool_alloc_page(s->pool, SCALE_GFP, NULL, s->nr);
		if (IS_ERR(page))
			return 0;
		s->pages[s->nr] = page;
	}
	return div64_u64(ktime_get_ns() - t0, s->nr);
}

/* Whatever is left in the pool, taken and freed: the error path. */
static void scale_drain(struct scale_run *s)
{
	unsigned int i, n;

	do {
		n = movable_pool_take_pages(s->pool, s->batch, SCALE_BATCH);
		for (i = 0; i < n; i++)
			__free_page(s->batch[i]);
		cond_resched();
	} while (n);
}

/* Free every page, then the pool; ns per page (0 on the error path). */
static u64 scale_teardown(struct scale_run *s)
{
	u64 t0 = ktime_get_ns(), t = 0;
	unsigned long i;

	if (s->intact) {
		for (i = 0; i < s->nr; i += SCALE_BATCH)
			movable_pool_free_pages(s->pool, s->pages + i,
						min_t(unsigned long, SCALE_BATCH,
						      s->nr - i));
	} else {
		scale_drain(s);
	}
	movable_pool_destroy(s->pool);
	s->pool = NULL;
	if (s->intact)
		t = div64_u64(ktime_get_ns() - t0, max(s->nr, 1UL));
	return t;
}

/* The page allocator alone on as many pages: s->pages is scratch here. */
static int scale_base(struct scale_run *s)
{
	u64 t0 = ktime_get_ns(), t1;
	unsigned long i, n;

	for (n = 0; n < s->size; n++) {
		s->pages[n] = alloc_page(SCALE_GFP);
		if (!s->pages[n])
			break;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < n; i++)
		__free_page(s->pages[i]);
	if (n < s->size)
		return -ENOMEM;
	s->base_fill = min(s->base_fill, div64_u64(t1 - t0, n));
	s->base_free = min(s->base_free, div64_u64(ktime_get_ns() - t1, n));
	return 0;
}

/* One round: the baseline, fill, the "at size" figures (@at_size), teardown. */
static int scale_round(struct scale_run *s, bool at_size)
{
	int rep, ret;
	u64 t;

	s->nr = 0;
	ret = scale_base(s);
	if (ret)
		return ret;
	s->pool = movable_pool_create("bench-scale", &scale_ops, NULL);
	if (IS_ERR(s->pool)) {
		ret = PTR_ERR(s->pool);
		s->pool = NULL;
		return ret;
	}
	s->intact = true;
	t = scale_fill(s);
	if (!t)
		ret = -ENOMEM;
	s->fill = min(s->fill, t);
	for (rep = 0; !ret && at_size && rep < SCALE_REPS; rep++) {
		ret = scale_alloc_free(s);
		scale_pin_unpin(s);
		ret = ret ?: scale_take(s);
		cond_resched();
	}
	t = scale_teardown(s);
	if (!ret)
		s->teardown = min(s->teardown, t);
	return ret;
}

static int scale_show(struct seq_file *m, void *unused)
{
	unsigned long size = READ_ONCE(scale_pages), round;
	struct scale_run *s;
	int ret = 0;

	if (size < SCALE_BATCH || size > MOVABLE_POOL_MAX_INDEX - SCALE_BATCH)
		return -EINVAL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->size = size;
	/* every figure is a minimum */
	s->alloc = U64_MAX;
	s->free = U64_MAX;
	s->pin = U64_MAX;
	s->take = U64_MAX;
	s->fill = U64_MAX;
	s->teardown = U64_MAX;
	s->base_fill = U64_MAX;
	s->base_free = U64_MAX;
	s->pages = vmalloc(array_size(size, sizeof(*s->pages)));
	for (round = 0; s->pages && !ret && round < SCALE_ROUNDS; round++)
		ret = scale_round(s, !round);
	if (!s->pages)
		ret = -ENOMEM;
	else if (!ret && s->take == U64_MAX)
		ret = -EBUSY;	/* no take found 256 idle pages */
	if (!ret) {
		seq_printf(m, "pages=%lu fill_ns=%llu alloc_ns=%llu free_ns=%llu",
			   size, s->fill, div_u64(s->alloc, SCALE_BATCH),
			   div_u64(s->free, SCALE_BATCH));
		seq_printf(m, " pin_unpin_ns=%llu take_ns=%llu destroy_ns=%llu",
			   div_u64(s->pin, SCALE_BATCH),
			   div_u64(s->take, SCALE_BATCH), s->teardown);
		seq_printf(m, " base_fill_ns=%llu base_free_ns=%llu\n",
			   s->base_fill, s->base_free);
	} else {
		/* a line for bench_run all the same: say what went wrong */
		seq_printf(m, "pages=%lu error=%d round=%lu filled=%lu\n",
			   size, ret, round, s->nr);
	}
	vfree(s->pages);
	kfree(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(scale);

void bench_scale_debugfs(struct dentry *dir)
{
	debugfs_create_file("scale", 0444, dir, NULL, &scale_fops);
}
