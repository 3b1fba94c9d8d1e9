// SPDX-License-Identifier: GPL-2.0
/*
 * Shows that lockdep reports a driver that allocates with direct reclaim
 * while holding the lock its migrate routine takes, the first time both
 * happen ("Lock order" in include/linux/movable_pool.h). Lockdep switches
 * itself off after its first report, so this suite runs in a kernel of its
 * own: tools/testing/kunit.sh builds it from lockdep.kunitconfig and
 * requires the report in the log.
 */

#include <kunit/test.h>
#include <linux/debug_locks.h>
#include <linux/migrate.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>

#include "../lib/movable_pool_compat.h"

/* the driver's lock, taken by its routine */
static DEFINE_MUTEX(mpl_driver_lock);

static int mpl_migrate(struct movable_pool *pool, void *owner, pgoff_t index,
		       struct page *dst, struct page *src,
		       enum migrate_mode mode)
{
	struct page **slot = owner;

	mutex_lock(&mpl_driver_lock);
	movable_pool_copy_page(dst, src);
	*slot = dst;
	mutex_unlock(&mpl_driver_lock);
	return 0;
}

static const struct movable_pool_ops mpl_ops = {
	.migrate = mpl_migrate,
};

static void test_lockdep_sees_alloc_under_routine_lock(struct kunit *test)
{
	struct movable_pool *pool;
	struct page *page, *extra;
	LIST_HEAD(list);

	KUNIT_ASSERT_TRUE(test, debug_locks);
	pool = movable_pool_create("kunit-lockdep", &mpl_ops, NULL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	page = movable_pool_alloc_page(pool, MOVABLE_POOL_GFP, &page, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);

	/* one migration outside direct compaction: fs_reclaim, then the lock */
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
	list_add(&page->lru, &list);
	if (mp_migrate_pages(&list, MOVABLE_POOL_GFP, MIGRATE_SYNC)) {
		putback_movable_pages(&list);
		movable_pool_free_page(pool, page);
		movable_pool_destroy(pool);
		KUNIT_FAIL(test, "the page did not migrate");
		return;
	}
	KUNIT_EXPECT_TRUE(test, debug_locks);

	/* the bug: an allocation that may compact, under the routine's lock */
	mutex_lock(&mpl_driver_lock);
	extra = movable_pool_alloc_page(pool, GFP_KERNEL, NULL, 1);
	mutex_unlock(&mpl_driver_lock);

	/* lockdep reported it (and is off now) */
	KUNIT_EXPECT_FALSE(test, debug_locks);
	if (!IS_ERR(extra))
		movable_pool_free_page(pool, extra);
	movable_pool_free_page(pool, page);
	movable_pool_destroy(pool);
}

static struct kunit_case movable_pool_lockdep_cases[] = {
	KUNIT_CASE(test_lockdep_sees_alloc_under_routine_lock),
	{}
};

static struct kunit_suite movable_pool_lockdep_suite = {
	.name = "movable_pool_lockdep",
	.test_cases = movable_pool_lockdep_cases,
};

kunit_test_suites(&movable_pool_lockdep_suite);

MODULE_LICENSE("GPL");
