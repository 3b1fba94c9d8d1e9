// SPDX-License-Identifier: GPL-2.0
/*
 * The yardstick `make bench` measures movable_pool against: one driver
 * that keeps pages in a table (one pointer per page) and differs between
 * kinds only in where its pages come from and how they move:
 *
 *   kind=pool        movable_pool pages; the routine repoints the table
 *   kind=handrolled  its own movable_operations (before 6.0: an inode's
 *                    address_space_operations), the table slot in
 *                    page->private, nothing else per page: the least a
 *                    driver can do up to 6.16 (bench_handrolled*.c; not
 *                    on 7.x, where only in-tree code can)
 *   kind=unmovable   alloc_page(GFP_KERNEL), as drivers do today
 *
 * At load it allocates @pages pages, fills each with a pattern, and frees
 * a random (100 - @keep_pct)% of them (xorshift seeded by @seed), all
 * kinds the same. debugfs bench_driver/verify checks every kept page and
 * says how many moved. Reading bench_driver/micro (kind=pool) times
 * alloc+free and pin+unpin per page on the reader's CPU, against
 * alloc_page()+__free_page(); readers on several CPUs at once measure
 * contention. bench_driver/scale (bench_scale.c) times each operation in
 * a pool of its own of a given size. Not a sample: written to be measured.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/migrate.h>
#include <linux/module.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "bench_driver.h"

static char *kind = "pool";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "pool, handrolled or unmovable");
static unsigned long pages = 1024;
module_param(pages, ulong, 0444);
MODULE_PARM_DESC(pages, "pages to allocate");
static unsigned int keep_pct = 50;
module_param(keep_pct, uint, 0444);
MODULE_PARM_DESC(keep_pct, "percentage of them to keep, at random");
static unsigned long seed = 1;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the random holes");

enum bench_kind { BENCH_POOL, BENCH_HANDROLLED, BENCH_UNMOVABLE };

static enum bench_kind bench_kind;
static struct page **table;		/* NULL where a hole was made */
static DEFINE_MUTEX(table_lock);	/* the "driver lock": guards table[] */
static struct movable_pool *pool;
static struct dentry *debugfs_dir;

static u32 bench_word(unsigned long slot, unsigned int i)
{
	return (u32)(slot * 2654435761u) ^ (i * 0x9e3779b9u) ^ (u32)seed;
}

static void bench_fill(struct page *page, unsigned long slot)
{
	u32 *p = kmap_local_page(page);
	unsigned int i;

	for (i = 0; i < PAGE_SIZE / sizeof(u32); i++)
		p[i] = bench_word(slot, i);
	kunmap_local(p);
}

static bool bench_page_ok(struct page *page, unsigned long slot)
{
	u32 *p = kmap_local_page(page);
	unsigned int i;
	bool ok = true;

	for (i = 0; i < PAGE_SIZE / sizeof(u32) && ok; i++)
		ok = p[i] == bench_word(slot, i);
	kunmap_local(p);
	return ok;
}

/* Repoint table[slot] from @src to @dst, as any driver's routine would. */
int bench_repoint(unsigned long slot, struct page *dst, struct page *src,
		  enum migrate_mode mode)
{
	if (mode == MIGRATE_ASYNC) {
		if (!mutex_trylock(&table_lock))
			return -EAGAIN;
	} else {
		mutex_lock(&table_lock);
	}
	if (table[slot] != src) {
		mutex_unlock(&table_lock);
		return -ENOENT;
	}
	copy_highpage(dst, src);
	table[slot] = dst;
	mutex_unlock(&table_lock);
	return 0;
}

static int bench_pool_migrate(struct movable_pool *pool, void *owner,
			      pgoff_t index, struct page *dst, struct page *src,
			      enum migrate_mode mode)
{
	return bench_repoint(index, dst, src, mode);
}

static const struct movable_pool_ops bench_pool_ops = {
	.migrate = bench_pool_migrate,
};

static struct page *bench_alloc(unsigned long slot)
{
	struct page *page;

	switch (bench_kind) {
	case BENCH_POOL:
		page = movable_pool_alloc_page(pool, MOVABLE_POOL_GFP, NULL,
					       slot);
		return IS_ERR(page) ? NULL : page;
	case BENCH_HANDROLLED:
		return handrolled_alloc(slot);
	default:
		return alloc_page(GFP_KERNEL);
	}
}

/* Drop table[slot] (the routine then leaves the page) and free it. */
static void bench_free(unsigned long slot)
{
	struct page *page;

	mutex_lock(&table_lock);
	page = table[slot];
	table[slot] = NULL;
	mutex_unlock(&table_lock);
	if (!page)
		return;
	switch (bench_kind) {
	case BENCH_POOL:
		movable_pool_free_page(pool, page);
		break;
	case BENCH_HANDROLLED:
		handrolled_free(page);
		break;
	default:
		__free_page(page);
	}
}

static unsigned long bench_migrated(void)
{
	struct movable_pool_stats s;

	switch (bench_kind) {
	case BENCH_POOL:
		movable_pool_get_stats(pool, &s);
		return s.migrated;
	case BENCH_HANDROLLED:
		return handrolled_migrated();
	default:
		return 0;
	}
}

static int bench_verify_show(struct seq_file *m, void *unused)
{
	unsigned long slot, checked = 0, bad = 0;

	mutex_lock(&table_lock);
	for (slot = 0; slot < pages; slot++) {
		if (!table[slot])
			continue;
		checked++;
		bad += !bench_page_ok(table[slot], slot);
		if (!(slot % 4096))
			cond_resched();
	}
	mutex_unlock(&table_lock);
	seq_printf(m, "checked=%lu mismatches=%lu migrated=%lu\n", checked,
		   bad, bench_migrated());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_verify);

#define MICRO_PAGES	256
#define MICRO_REPS	20	/* the minimum is the least disturbed run */

/* Best of MICRO_REPS, in ns per page, of @fn over @batch. */
static u64 micro_best(void (*fn)(struct page **batch), struct page **batch)
{
	u64 t0, best = U64_MAX;
	int rep;

	for (rep = 0; rep < MICRO_REPS; rep++) {
		t0 = ktime_get_ns();
		fn(batch);
		best = min(best, ktime_get_ns() - t0);
		cond_resched();
	}
	return div_u64(best, MICRO_PAGES);
}

static void micro_pool(struct page **batch)
{
	int i;

	for (i = 0; i < MICRO_PAGES; i++)
		batch[i] = movable_pool_alloc_page(pool, MOVABLE_POOL_GFP, NULL,
						   i);
	for (i = 0; i < MICRO_PAGES; i++)
		if (!IS_ERR(batch[i]))
			movable_pool_free_page(pool, batch[i]);
}

static void micro_bulk(struct page **batch)
{
	if (!movable_pool_alloc_pages(pool, MOVABLE_POOL_GFP, NULL, 0, batch,
				      MICRO_PAGES))
		movable_pool_free_pages(pool, batch, MICRO_PAGES);
}

static void micro_plain(struct page **batch)
{
	int i;

	for (i = 0; i < MICRO_PAGES; i++)
		batch[i] = alloc_page(MOVABLE_POOL_GFP);
	for (i = 0; i < MICRO_PAGES; i++)
		if (batch[i])
			__free_page(batch[i]);
}

/* Pins the first kept page of the table, as a device would, over and over. */
static void micro_pin(struct page **batch)
{
	int i;

	for (i = 0; i < MICRO_PAGES; i++)
		if (!movable_pool_pin(batch[0]))
			movable_pool_unpin(batch[0]);
}

static int bench_micro_show(struct seq_file *m, void *unused)
{
	struct page **batch;
	unsigned long slot;

	if (bench_kind != BENCH_POOL)
		return -EINVAL;
	batch = kcalloc(MICRO_PAGES, sizeof(*batch), GFP_KERNEL);
	if (!batch)
		return -ENOMEM;
	seq_printf(m, "cpu=%d alloc_free_ns=%llu bulk_ns=%llu",
		   raw_smp_processor_id(), micro_best(micro_pool, batch),
		   micro_best(micro_bulk, batch));
	seq_printf(m, " alloc_page_ns=%llu", micro_best(micro_plain, batch));
	/* a page of the table that stays put: its slot is ours to read */
	mutex_lock(&table_lock);
	for (slot = 0; slot < pages && !table[slot]; slot++)
		;
	batch[0] = slot < pages ? table[slot] : NULL;
	if (batch[0] && movable_pool_pin(batch[0]))
		batch[0] = NULL;
	mutex_unlock(&table_lock);
	if (batch[0]) {
		seq_printf(m, " pin_unpin_ns=%llu", micro_best(micro_pin, batch));
		movable_pool_unpin(batch[0]);
	}
	seq_puts(m, "\n");
	kfree(batch);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_micro);

static void bench_release(void)
{
	unsigned long slot;

	for (slot = 0; slot < pages; slot++)
		bench_free(slot);
	movable_pool_destroy(pool);
	if (bench_kind == BENCH_HANDROLLED)
		handrolled_teardown();
	vfree(table);
}

static int __init bench_init(void)
{
	u64 x = seed * 0x2545f4914f6cdd1dULL | 1;
	unsigned long slot, kept = 0;

	if (!strcmp(kind, "pool"))
		bench_kind = BENCH_POOL;
	else if (!strcmp(kind, "handrolled") && BENCH_HAVE_HANDROLLED)
		bench_kind = BENCH_HANDROLLED;
	else if (!strcmp(kind, "unmovable"))
		bench_kind = BENCH_UNMOVABLE;
	else
		return -EINVAL;
	if (!pages || keep_pct > 100)
		return -EINVAL;

	table = vzalloc(array_size(pages, sizeof(*table)));
	if (!table)
		return -ENOMEM;
	if (bench_kind == BENCH_POOL) {
		pool = movable_pool_create("bench", &bench_pool_ops, NULL);
		if (IS_ERR(pool)) {
			vfree(table);
			return PTR_ERR(pool);
		}
	} else if (bench_kind == BENCH_HANDROLLED) {
		int ret = handrolled_setup();

		if (ret) {
			vfree(table);
			return ret;
		}
	}
	for (slot = 0; slot < pages; slot++) {
		struct page *page = bench_alloc(slot);

		if (!page) {
			pr_err("out of memory after %lu pages\n", slot);
			bench_release();
			return -ENOMEM;
		}
		bench_fill(page, slot);
		mutex_lock(&table_lock);
		table[slot] = page;
		mutex_unlock(&table_lock);
		cond_resched();
	}
	/* random holes: compaction sees through regular patterns */
	for (slot = 0; slot < pages; slot++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if ((x >> 32) % 100 < keep_pct)
			kept++;
		else
			bench_free(slot);
	}
	debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("verify", 0444, debugfs_dir, NULL,
			    &bench_verify_fops);
	debugfs_create_file("micro", 0444, debugfs_dir, NULL, &bench_micro_fops);
	bench_scale_debugfs(debugfs_dir);
	pr_info("%s: kept %lu of %lu pages\n", kind, kept, pages);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove_recursive(debugfs_dir);
	bench_release();
}

module_init(bench_init);
module_exit(bench_exit);

MODULE_DESCRIPTION("movable_pool benchmark yardstick: pool, hand-rolled and unmovable pages");
MODULE_LICENSE("GPL");
MOVABLE_POOL_IMPORT_NS();
