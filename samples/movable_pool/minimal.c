// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest useful movable_pool user: a module that keeps a buffer of
 * pages for its lifetime, and lets the VM move them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>
#include <linux/slab.h>

static unsigned int nr_pages = 64;
module_param(nr_pages, uint, 0444);
MODULE_PARM_DESC(nr_pages, "pages to keep (default 64)");

static struct movable_pool *pool;
static DEFINE_MUTEX(pages_lock);	/* guards pages[] and releasing */
static struct page **pages;
static bool releasing;			/* the routine leaves pages[] alone */

/* Copy the page and repoint our one reference to it. */
static int minimal_migrate(struct movable_pool *pool, void *owner,
			   pgoff_t index, struct page *dst, struct page *src,
			   enum migrate_mode mode)
{
	if (mode == MIGRATE_ASYNC) {
		if (!mutex_trylock(&pages_lock))
			return -EAGAIN;
	} else {
		mutex_lock(&pages_lock);
	}
	/* a page we are letting go of is about to be freed: leave it */
	if (releasing || pages[index] != src) {
		mutex_unlock(&pages_lock);
		return -ENOENT;
	}
	movable_pool_copy_page(dst, src);
	pages[index] = dst;
	mutex_unlock(&pages_lock);
	return 0;
}

static const struct movable_pool_ops minimal_ops = {
	.migrate = minimal_migrate,
};

static int __init minimal_init(void)
{
	int ret;

	pages = kvcalloc(nr_pages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	pool = movable_pool_create("minimal", &minimal_ops, NULL);
	if (IS_ERR(pool)) {
		ret = PTR_ERR(pool);
		goto err_pages;
	}
	/* page i gets index i; pages[] is filled before any page can move */
	ret = movable_pool_alloc_pages(pool, MOVABLE_POOL_GFP, NULL, 0, pages,
				       nr_pages);
	if (ret)
		goto err_pool;
	pr_info("keeping %u movable pages\n", nr_pages);
	return 0;

err_pool:
	movable_pool_destroy(pool);
err_pages:
	kvfree(pages);
	return ret;
}

static void __exit minimal_exit(void)
{
	/* no routine touches pages[] after this: free them all at once */
	mutex_lock(&pages_lock);
	releasing = true;
	mutex_unlock(&pages_lock);
	movable_pool_free_pages(pool, pages, nr_pages);
	movable_pool_destroy(pool);
	kvfree(pages);
}

module_init(minimal_init);
module_exit(minimal_exit);

MODULE_DESCRIPTION("Smallest movable_pool user");
MODULE_LICENSE("GPL");
MOVABLE_POOL_IMPORT_NS();
