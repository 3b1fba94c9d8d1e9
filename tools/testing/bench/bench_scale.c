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
 * bench_driver/micro. Filling and teardown are timed whole, best of as
 * many rounds as make 64k pages (one for the largest pools). The pool's
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
	struct movable_pool *pool;
	struct page **pages;	/* the pool's pages */
	struct page *batch[SCALE_BATCH];
	unsigned long nr;
	u64 alloc, free, pin, take;	/* best of SCALE_REPS, ns per batch */
	u64 fill, teardown, base_fill, base_free;	/* best round, per page */
};

static void scale_alloc_free(struct scale_run *s)
{
	u64 t0 = ktime_get_ns(), t1;
	int i;

	for (i = 0; i < SCALE_BATCH; i++)
		s->batch[i] = movable_pool_alloc_page(s->pool, MOVABLE_POOL_GFP,
						      NULL, s->nr + i);
	t1 = ktime_get_ns();
	for (i = 0; i < SCALE_BATCH; i++)
		if (!IS_ERR(s->batch[i]))
			movable_pool_free_page(s->pool, s->batch[i]);
	s->alloc = min(s->alloc, t1 - t0);
	s->free = min(s->free, ktime_get_ns() - t1);
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
 * The same pages come back, so s->pages stays the pool's. A take that
 * passed over pages the VM holds isolated for a moment is not timed.
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
	for (i = 0; i < n; i++)
		ret = ret ?: movable_pool_add_page(s->pool, s->batch[i], NULL, i);
	return ret;
}

/* The pool filled to scale_pages; ns per page, or 0 if memory ran out. */
static u64 scale_fill(struct scale_run *s)
{
	u64 t0 = ktime_get_ns();
	struct page *page;

	for (s->nr = 0; s->nr < scale_pages; s->nr++) {
		page = movable_pool_alloc_page(s->pool, MOVABLE_POOL_GFP, NULL,
					       s->nr);
		if (IS_ERR(page))
			return 0;
		s->pages[s->nr] = page;
	}
	return div64_u64(ktime_get_ns() - t0, s->nr);
}

/* Free every page, then the pool; ns per page. */
static u64 scale_teardown(struct scale_run *s)
{
	u64 t0 = ktime_get_ns();
	unsigned long i;

	for (i = 0; i < s->nr; i += SCALE_BATCH)
		movable_pool_free_pages(s->pool, s->pages + i,
					min_t(unsigned long, SCALE_BATCH,
					      s->nr - i));
	movable_pool_destroy(s->pool);
	s->pool = NULL;
	return div64_u64(ktime_get_ns() - t0, max(s->nr, 1UL));
}

/* The page allocator alone on as many pages: s->pages is scratch here. */
static int scale_base(struct scale_run *s)
{
	u64 t0 = ktime_get_ns(), t1;
	unsigned long i, n;

	for (n = 0; n < scale_pages; n++) {
		s->pages[n] = alloc_page(MOVABLE_POOL_GFP);
		if (!s->pages[n])
			break;
	}
	t1 = ktime_get_ns();
	for (i = 0; i < n; i++)
		__free_page(s->pages[i]);
	if (n < scale_pages)
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

	ret = scale_base(s);
	if (ret)
		return ret;
	s->pool = movable_pool_create("bench-scale", &scale_ops, NULL);
	if (IS_ERR(s->pool)) {
		ret = PTR_ERR(s->pool);
		s->pool = NULL;
		return ret;
	}
	t = scale_fill(s);
	if (!t)
		ret = -ENOMEM;
	s->fill = min(s->fill, t);
	for (rep = 0; !ret && at_size && rep < SCALE_REPS; rep++) {
		scale_alloc_free(s);
		scale_pin_unpin(s);
		ret = scale_take(s);
		cond_resched();
	}
	s->teardown = min(s->teardown, scale_teardown(s));
	return ret;
}

static int scale_show(struct seq_file *m, void *unused)
{
	unsigned long round, rounds;
	struct scale_run *s;
	int ret = 0;

	if (!scale_pages || scale_pages > MOVABLE_POOL_MAX_INDEX - SCALE_BATCH)
		return -EINVAL;
	rounds = clamp(65536 / scale_pages, 1UL, (unsigned long)SCALE_REPS);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	/* every figure is a minimum */
	s->alloc = U64_MAX;
	s->free = U64_MAX;
	s->pin = U64_MAX;
	s->take = U64_MAX;
	s->fill = U64_MAX;
	s->teardown = U64_MAX;
	s->base_fill = U64_MAX;
	s->base_free = U64_MAX;
	s->pages = vmalloc(array_size(scale_pages, sizeof(*s->pages)));
	for (round = 0; s->pages && !ret && round < rounds; round++)
		ret = scale_round(s, !round);
	if (!s->pages)
		ret = -ENOMEM;
	else if (!ret && s->take == U64_MAX)
		ret = -EBUSY;	/* no take found 256 idle pages */
	if (!ret) {
		seq_printf(m, "pages=%lu fill_ns=%llu alloc_ns=%llu free_ns=%llu",
			   s->nr, s->fill, div_u64(s->alloc, SCALE_BATCH),
			   div_u64(s->free, SCALE_BATCH));
		seq_printf(m, " pin_unpin_ns=%llu take_ns=%llu destroy_ns=%llu",
			   div_u64(s->pin, SCALE_BATCH),
			   div_u64(s->take, SCALE_BATCH), s->teardown);
		seq_printf(m, " base_fill_ns=%llu base_free_ns=%llu\n",
			   s->base_fill, s->base_free);
	} else {
		/* a line for bench_run all the same: say what went wrong */
		seq_printf(m, "pages=%lu error=%d filled=%lu\n", scale_pages,
			   ret, s->nr);
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
