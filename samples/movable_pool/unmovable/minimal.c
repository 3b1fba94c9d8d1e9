// SPDX-License-Identifier: GPL-2.0
/* Unmovable version of ../minimal.c, for the lines-of-change table. */
/*
 * The smallest useful movable_pool user: a module that keeps a buffer of
 * pages for its lifetime, and lets the VM move them.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

static unsigned int nr_pages = 64;
module_param(nr_pages, uint, 0444);
MODULE_PARM_DESC(nr_pages, "pages to keep (default 64)");

static struct page **pages;

static int __init minimal_init(void)
{
	unsigned int i;

	pages = kvcalloc(nr_pages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < nr_pages; i++) {
		pages[i] = alloc_page(GFP_HIGHUSER);
		if (!pages[i]) {
			while (i--)
				__free_page(pages[i]);
			kvfree(pages);
			return -ENOMEM;
		}
	}
	pr_info("keeping %u movable pages\n", nr_pages);
	return 0;
}

static void __exit minimal_exit(void)
{
	unsigned int i;

	for (i = 0; i < nr_pages; i++)
		__free_page(pages[i]);
	kvfree(pages);
}

module_init(minimal_init);
module_exit(minimal_exit);

MODULE_DESCRIPTION("Smallest movable_pool user");
MODULE_LICENSE("GPL");
