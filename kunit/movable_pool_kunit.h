/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the movable_pool KUnit suites share. Each movable_pool_*_kunit.c
 * holds the suite of one topic; all of them run against the real migration
 * core (isolate_movable_page(), migrate_pages(), putback_movable_pages(),
 * alloc_contig_range()), which is why they are built in only: those are not
 * exported.
 *
 * Each case uses a small "driver" (struct mpt_ctx): a table of page
 * references indexed like the pool's pages, guarded by a mutex that its
 * migrate routine takes, as a real driver's would be. A suite's .init
 * (mpt_init()) gives every case one with an empty pool in test->priv.
 */
#ifndef _MOVABLE_POOL_KUNIT_H
#define _MOVABLE_POOL_KUNIT_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/migrate.h>
#include <linux/mm.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>

#include "../lib/movable_pool_compat.h"

#define MPT_PAGES	64
#define MPT_GFP		(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN)

/*
 * The word a page keeps once it left a pool, but for the index bits
 * (MP_GONE in lib/movable_pool.c): all three state bits and a tag.
 */
#define MPT_WORD_GONE	(GENMASK(BITS_PER_LONG - 1, BITS_PER_LONG - 3) | \
			 (0xa5aUL << MOVABLE_POOL_INDEX_BITS))

struct mpt_ctx {
	struct kunit *test;
	struct movable_pool *pool;
	struct mutex lock;		/* the "driver lock": guards table[] */
	struct page *table[MPT_PAGES];
	atomic_t in_use[MPT_PAGES];	/* set while a "device" uses the page */
	atomic_t held[MPT_PAGES];	/* pinned or about to be: do not free */

	/* what the routine saw and did */
	atomic_t calls;
	void *last_owner;
	pgoff_t last_index;
	bool dst_offline;		/* the last @dst was PageOffline() */
	int bad_refs;
	int violations;
	atomic_t gone;			/* routine found the page freed */
	atomic_t faults;		/* user mapping faults served */
	atomic_t fault_entered;		/* user mapping faults begun */
	atomic_t misuse;		/* movable_pool_misuse events, any pool */

	/* how the routine misbehaves */
	int fail_with;
	int fail_times;
	bool pin_in_routine;
	bool keep_dst_pin;		/* and leave @dst pinned (misuse) */
	int pin_src_ret;
	int pin_dst_ret;
	struct movable_pool *fault_pool;	/* what the fault passes, if set */

	/* run by the misuse probe, in the misusing context: must not sleep */
	void (*on_misuse)(struct mpt_ctx *ctx);
	struct completion *misuse_waits_for;

	/* how the "driver" maps pages */
	bool raw_mmap;			/* VMA set up without movable_pool_mmap() */
	pgoff_t fault_shift;		/* looks up slot pgoff + shift */
	bool insert_page;		/* vm_insert_page() table[0] at mmap */
	int insert_page_ret;

	/* hold the routine until the test says so, before or after it
	 * published @dst
	 */
	bool block_in_routine;
	bool block_after_publish;
	struct page *watch_dst;
	struct completion entered;
	struct completion release;
};

/* The routine of every mpt_ctx pool; the second's pages are PageOffline(). */
extern const struct movable_pool_ops mpt_ops;
extern const struct movable_pool_ops mpt_offline_ops;

int mpt_init_ops(struct kunit *test, const struct movable_pool_ops *ops);
int mpt_init(struct kunit *test);
void mpt_exit(struct kunit *test);

/* A pattern that differs per page and per word, so misplaced copies show. */
static inline u32 mpt_word(unsigned int seed, unsigned int i)
{
	return seed * 0x9e3779b1u + i * 2654435761u + 1;
}

void mpt_write_pattern(struct page *page, unsigned int seed);
bool mpt_pattern_ok(struct page *page, unsigned int seed);

static inline struct movable_pool_stats mpt_stats(struct mpt_ctx *ctx)
{
	struct movable_pool_stats s;

	movable_pool_get_stats(ctx->pool, &s);
	return s;
}

/*
 * Misuse the library reported (its trace event, for any pool or none) since
 * mpt_misuse() said @before.
 */
static inline unsigned int mpt_misuse(struct mpt_ctx *ctx)
{
	return atomic_read(&ctx->misuse);
}

static inline unsigned int mpt_misuse_since(struct mpt_ctx *ctx,
					    unsigned int before)
{
	return mpt_misuse(ctx) - before;
}

/* debugfs movable_pool/misuse: misuse of every pool and of none. */
unsigned int mpt_global_misuse(struct kunit *test);

/* The errno an ERR_PTR() carries, or 0 for any other pointer. */
static inline int mpt_err(const void *ptr)
{
	return IS_ERR(ptr) ? PTR_ERR(ptr) : 0;
}

void mpt_expect_idle(struct kunit *test, struct mpt_ctx *ctx);
void mpt_expect_detached(struct kunit *test, struct page *page);
void mpt_expect_fields(struct kunit *test, struct page *page, void *owner,
		       pgoff_t index);

void mpt_fill(struct kunit *test, int first, int n);
void mpt_free(struct mpt_ctx *ctx, int i);
struct page *mpt_fill_and_free_one(struct kunit *test);
void mpt_fill_watched(struct kunit *test, struct page **watch, int n);
void mpt_expect_released(struct kunit *test, struct page **watch, int n);
struct page *mpt_unlink(struct mpt_ctx *ctx, int i);
int mpt_move(struct page *page, enum migrate_mode mode);
void mpt_putback(struct page *page);

/* Run a step of a test in a thread of its own. */
struct mpt_async {
	struct mpt_ctx *ctx;
	struct movable_pool *pool;	/* for steps that outlive ctx->pool */
	struct page *page;
	int ret;
	int (*fn)(struct mpt_async *a);
	struct completion done;
	struct mm_struct *mm;		/* for steps in a user mapping */
	unsigned long addr;
};

void mpt_async_start(struct kunit *test, struct mpt_async *a,
		     int (*fn)(struct mpt_async *a));
/* mpt_move(a->page, MIGRATE_SYNC), for mpt_async_start() */
int mpt_async_move(struct mpt_async *a);
/*
 * Start @mover (its .ctx set) migrating @page, and return once the routine
 * holds it: ctx->release lets it go on.
 */
void mpt_start_held_move(struct kunit *test, struct mpt_async *mover,
			 struct page *page);
/*
 * Check that @waiter, started after mpt_start_held_move(), waits for the
 * routine; then let the routine go on, and wait for both to end.
 */
void mpt_release_held_move(struct kunit *test, struct mpt_async *mover,
			   struct mpt_async *waiter);
/* movable_pool_free_page(a->ctx->pool, a->page), for mpt_async_start() */
int mpt_async_free(struct mpt_async *a);

/* movable_pool_destroy() of the case's pool in a thread of its own */
struct mpt_destroyer {
	struct mpt_async async;		/* .pool: the case's, taken from it */
	unsigned int misuse;		/* mpt_misuse() before destroy */
};

void mpt_destroy_begin(struct kunit *test, struct mpt_destroyer *d);
unsigned int mpt_destroy_end(struct kunit *test, struct mpt_destroyer *d);
unsigned int mpt_destroy(struct kunit *test);

#endif /* _MOVABLE_POOL_KUNIT_H */
