/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bench_driver.c shares with its hand-rolled kind, which exists only
 * where a module may make pages movable itself (6.0-6.16; the Makefile
 * builds bench_handrolled.o there and defines BENCH_HAVE_HANDROLLED_KIND).
 */
#ifndef _BENCH_DRIVER_H
#define _BENCH_DRIVER_H

#include <linux/migrate.h>
#include <linux/mm_types.h>

int bench_repoint(unsigned long slot, struct page *dst, struct page *src,
		  enum migrate_mode mode);

#ifdef BENCH_HAVE_HANDROLLED_KIND
#define BENCH_HAVE_HANDROLLED	true
struct page *handrolled_alloc(unsigned long slot);
void handrolled_free(struct page *page);
unsigned long handrolled_migrated(void);
#else
#define BENCH_HAVE_HANDROLLED	false
static inline struct page *handrolled_alloc(unsigned long slot)
{
	return NULL;
}

static inline void handrolled_free(struct page *page)
{
}

static inline unsigned long handrolled_migrated(void)
{
	return 0;
}
#endif

#endif /* _BENCH_DRIVER_H */
