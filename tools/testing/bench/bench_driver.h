/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What bench_main.c shares with its hand-rolled kind, which exists only
 * where a module may make pages movable itself (before 6.17; the Makefile
 * builds bench_handrolled.o there and defines BENCH_HAVE_HANDROLLED_KIND).
 */
#ifndef _BENCH_DRIVER_H
#define _BENCH_DRIVER_H

#include <linux/migrate.h>
#include <linux/mm_types.h>

/* kmap_local_page() on 5.10, as the samples have it */
#include "../../../samples/movable_pool/samples_compat.h"

int bench_repoint(unsigned long slot, struct page *dst, struct page *src,
		  enum migrate_mode mode);

/* bench_driver/scale (bench_scale.c) */
struct dentry;
void bench_scale_debugfs(struct dentry *dir);

#ifdef BENCH_HAVE_HANDROLLED_KIND
#define BENCH_HAVE_HANDROLLED	true
int handrolled_setup(void);
void handrolled_teardown(void);
struct page *handrolled_alloc(unsigned long slot);
void handrolled_free(struct page *page);
unsigned long handrolled_migrated(void);

/* between bench_handrolled.c and the file for this kernel's interface */
bool handrolled_isolate(struct page *page, isolate_mode_t mode);
void handrolled_putback(struct page *page);
int handrolled_move(struct page *dst, struct page *src, enum migrate_mode mode);
void handrolled_set_movable(struct page *page);
#else
#define BENCH_HAVE_HANDROLLED	false
static inline int handrolled_setup(void)
{
	return 0;
}

static inline void handrolled_teardown(void)
{
}

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
