// SPDX-License-Identifier: GPL-2.0
/*
 * balloon_micro: what each call of the kernel's balloon API costs in a
 * guest, per page, on a 7.x kernel with or without patches/7.x (the
 * balloon on movable_pool, or Debian's mm/balloon.c). A fake device
 * inflates @pages pages and deflates them the ways the in-tree drivers
 * do: one balloon_page_dequeue() at a time (virtio_balloon, cmm) and
 * balloon_page_list_dequeue() of 256 (vmw_balloon). With movable_pool it
 * also times the library calls the balloon makes, and on both kernels the
 * page lock and an irq-saving spinlock, the primitives they are made of.
 *
 * Loading it runs @rounds rounds and prints one line per round:
 *   BALLOON_MICRO round=R pages=N kernel=mp|plain name_ns=... ...
 * every figure in nanoseconds per page (ktime_get_ns() around the whole
 * loop, divided by the pages). The module then stays loaded, doing
 * nothing, until it is unloaded.
 */
#include <linux/balloon.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_MOVABLE_POOL
#include <linux/movable_pool.h>
#endif

static unsigned int pages = 65536;
module_param(pages, uint, 0444);
MODULE_PARM_DESC(pages, "pages to inflate per round (default 65536: 256 MiB)");
static unsigned int rounds = 3;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds (default 3)");

#define BM_LIST_BATCH	256	/* vmw_balloon's batch; virtio's array too */
#define BM_TAKE_BATCH	16	/* mm/balloon.c's BALLOON_TAKE_BATCH */

/* No migration is started here; compaction may still call it: refuse. */
static int bm_migratepage(struct balloon_dev_info *b, struct page *newpage,
			  struct page *page, enum migrate_mode mode)
{
	return -EBUSY;
}

struct bm_line {
	char buf[512];
	int len;
};

static struct bm_line bm_line;	/* the round's line, as it grows */

static void bm_add(struct bm_line *l, const char *name, u64 ns,
		   unsigned int n)
{
	l->len += scnprintf(l->buf + l->len, sizeof(l->buf) - l->len,
			    " %s_ns=%llu", name, n ? div_u64(ns, n) : 0);
}

/* Fill @p with @n pages from balloon_page_alloc(); how many it got. */
static unsigned int bm_alloc(struct page **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		p[i] = balloon_page_alloc();
		if (!p[i])
			break;
	}
	return i;
}

/* Fill @p with @n plain movable pages; how many it got. */
static unsigned int bm_alloc_plain(struct page **p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		p[i] = alloc_page(GFP_HIGHUSER_MOVABLE);
		if (!p[i])
			break;
	}
	return i;
}

/* The balloon API as the drivers call it. */
static int bm_balloon(struct bm_line *l, struct page **p, unsigned int n)
{
	struct balloon_dev_info b;
	struct page *page, *tmp;
	unsigned int i, got;
	LIST_HEAD(list);
	u64 t;

	balloon_devinfo_init(&b);
	b.migratepage = bm_migratepage;
	b.adjust_managed_page_count = true;

	t = ktime_get_ns();
	for (i = 0; i < n; i++)
		balloon_page_enqueue(&b, p[i]);
	bm_add(l, "enqueue", ktime_get_ns() - t, n);

	/* virtio_balloon's leak_balloon() and cmm: one page at a time */
	t = ktime_get_ns();
	for (got = 0; got < n; got++) {
		page = balloon_page_dequeue(&b);
		if (!page)
			break;
		p[got] = page;
	}
	bm_add(l, "dequeue", ktime_get_ns() - t, got);
	if (got != n)
		goto short_dequeue;

	/* again, to deflate as vmw_balloon does: lists of 256 */
	for (i = 0; i < n; i++)
		balloon_page_enqueue(&b, p[i]);
	t = ktime_get_ns();
	for (got = 0; got < n; got += i) {
		i = balloon_page_list_dequeue(&b, &list,
					      min(n - got, BM_LIST_BATCH));
		if (!i)
			break;
	}
	bm_add(l, "list_dequeue", ktime_get_ns() - t, got);
	i = 0;
	list_for_each_entry_safe(page, tmp, &list, lru) {
		list_del(&page->lru);
		p[i++] = page;
	}
	if (got != n)
		goto short_dequeue;

	/* what the drivers do last: give them back */
	t = ktime_get_ns();
	for (i = 0; i < n; i++)
		put_page(p[i]);
	bm_add(l, "free", ktime_get_ns() - t, n);
	return 0;

short_dequeue:
	pr_err("balloon_micro: dequeued %u of %u pages\n", got, n);
	/* the rest stay in the balloon: leaked, as a driver would */
	return -EIO;
}

#ifdef CONFIG_MOVABLE_POOL
static int bm_pool_migrate(struct movable_pool *pool, void *owner,
			   pgoff_t index, struct page *dst, struct page *src,
			   enum migrate_mode mode)
{
	return -EBUSY;
}

static const struct movable_pool_ops bm_pool_ops = {
	.migrate = bm_pool_migrate,
};

/* The library calls mm/balloon.c makes for each page. */
static int bm_pool(struct bm_line *l, struct page **p, unsigned int n)
{
	struct movable_pool *pool;
	unsigned int i, got, k;
	int ret = 0;
	u64 t;

	pool = movable_pool_create("balloon_micro", &bm_pool_ops, NULL);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	n = bm_alloc_plain(p, n);
	t = ktime_get_ns();
	for (i = 0; i < n; i++)
		movable_pool_add_page(pool, p[i], l, 0);
	bm_add(l, "pool_add", ktime_get_ns() - t, n);
	t = ktime_get_ns();
	for (got = 0; got < n; got++)
		if (!movable_pool_take_owner_pages(pool, l, &p[got], 1))
			break;
	bm_add(l, "pool_take1", ktime_get_ns() - t, got);
	if (got != n)
		ret = -EIO;
	for (i = 0; i < got; i++)
		movable_pool_add_page(pool, p[i], l, 0);
	t = ktime_get_ns();
	for (got = 0; got < n; got += k) {
		k = movable_pool_take_owner_pages(pool, l, &p[got],
						  min(n - got, BM_TAKE_BATCH));
		if (!k)
			break;
	}
	bm_add(l, "pool_take16", ktime_get_ns() - t, got);
	if (got != n)
		ret = -EIO;
	for (i = 0; i < got; i++)
		put_page(p[i]);
	movable_pool_destroy(pool);
	return ret;
}
#endif

/* The primitives: the page lock, and an irq-saving spinlock. */
static void bm_primitives(struct bm_line *l, struct page **p, unsigned int n)
{
	unsigned long flags;
	spinlock_t lock;	/* only to time it */
	unsigned int i;
	u64 t;

	spin_lock_init(&lock);
	n = bm_alloc_plain(p, n);
	t = ktime_get_ns();
	for (i = 0; i < n; i++)
		if (trylock_page(p[i]))
			unlock_page(p[i]);
	bm_add(l, "page_lock_pair", ktime_get_ns() - t, n);
	t = ktime_get_ns();
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&lock, flags);
		spin_unlock_irqrestore(&lock, flags);
	}
	bm_add(l, "irqsave_pair", ktime_get_ns() - t, n);
	for (i = 0; i < n; i++)
		__free_page(p[i]);
}

static int __init balloon_micro_init(void)
{
	struct bm_line *l = &bm_line;
	unsigned int r, n;
	struct page **p;
	int ret = 0;

	p = vmalloc_array(pages, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (r = 1; r <= rounds && !ret; r++) {
		n = bm_alloc(p, pages);
		l->len = scnprintf(l->buf, sizeof(l->buf),
				   "BALLOON_MICRO round=%u pages=%u kernel=%s",
				   r, n, IS_ENABLED(CONFIG_MOVABLE_POOL) ?
				   "mp" : "plain");
		ret = bm_balloon(l, p, n);
#ifdef CONFIG_MOVABLE_POOL
		if (!ret)
			ret = bm_pool(l, p, n);
#endif
		if (!ret)
			bm_primitives(l, p, n);
		pr_warn("%s%s\n", l->buf, ret ? " status=failed" : "");
	}
	vfree(p);
	return ret;
}

static void __exit balloon_micro_exit(void)
{
}

module_init(balloon_micro_init);
module_exit(balloon_micro_exit);
#ifdef CONFIG_MOVABLE_POOL
MOVABLE_POOL_IMPORT_NS();
#endif
MODULE_DESCRIPTION("Per-page cost of the kernel's balloon API, for make bench");
MODULE_LICENSE("GPL");
