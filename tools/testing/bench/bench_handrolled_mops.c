// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-rolled kind on 6.0-6.16 (bench_handrolled.c): its own struct
 * movable_operations, which needs no inode.
 */

#include <linux/migrate.h>

#include "bench_driver.h"

static const struct movable_operations handrolled_mops = {
	.isolate_page	= handrolled_isolate,
	.migrate_page	= handrolled_move,
	.putback_page	= handrolled_putback,
};

int handrolled_setup(void)
{
	return 0;
}

void handrolled_teardown(void)
{
}

void handrolled_set_movable(struct page *page)
{
	__SetPageMovable(page, &handrolled_mops);
}
