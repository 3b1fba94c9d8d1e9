/* SPDX-License-Identifier: GPL-2.0 */
/*
 * movable_pool: make driver-allocated pages movable.
 *
 * A driver that keeps many order-0 pages for a long time blocks compaction,
 * CMA and memory offlining unless the VM may migrate those pages. Only the
 * driver knows who points at a page, so migration needs its help: the driver
 * supplies one copy-and-fixup routine (&movable_pool_ops.migrate) and this
 * library does the rest through the migration core's interface for pages
 * that are not on the LRU.
 *
 * Every function's contract is documented here, where driver authors read
 * it; Documentation/core-api/movable_pool.rst is the guide.
 *
 * Copyright (C) 2026 The movable_pool authors
 */
#ifndef _LINUX_MOVABLE_POOL_H
#define _LINUX_MOVABLE_POOL_H

#include <linux/bits.h>
#include <linux/gfp.h>
#include <linux/mm_types.h>
#include <linux/migrate_mode.h>
#include <linux/types.h>

struct movable_pool;
struct address_space;
struct file;
struct vm_area_struct;
struct vm_fault;

/**
 * DOC: Lock order
 *
 * From outermost to innermost::
 *
 *	mmap_lock            a fault on a pool mapping
 *	+- page lock         the VM, around isolate, migrate and putback
 *	   +- driver lock    what the migrate routine takes (sync modes only)
 *	      +- pool lock   internal spinlock, never taken in interrupts
 *
 * The library takes no page lock of its own (but on a page destroy
 * leaks); each page's state is a word it changes atomically ("Page
 * layout"). What follows for a driver:
 *
 * - Never wait for a pool page's migration while holding the lock the
 *   routine takes: movable_pool_free_page() and movable_pool_insert_pfn()
 *   wait for one under way, so call them without that lock.
 * - Never touch user memory (copy_from_user(), get_user_pages()) while
 *   holding the routine's lock: a fault may need mmap_lock, and a fault
 *   on a pool mapping may wait for a migration under it.
 * - Never allocate memory that may be reclaimed for (%GFP_KERNEL, and
 *   %GFP_NOFS too) while holding the routine's lock: for any order above
 *   0, direct compaction in the same task may run the routine, which then
 *   waits for that lock forever. The routine runs under the lockdep
 *   annotation of reclaim (fs_reclaim), so with CONFIG_PROVE_LOCKING the
 *   first __GFP_FS allocation under that lock is reported, even if the
 *   deadlock never happens: of order 0 too (a driver rarely knows what
 *   its callees allocate), but not %GFP_NOFS ones or those in a
 *   memalloc_nofs_save() scope, which lockdep cannot see. For the same
 *   reason the routine itself must not allocate with direct reclaim. A
 *   routine that only ever trylocks its lock, returning -EAGAIN when it is
 *   busy, cannot wait for it: its driver may allocate under that lock
 *   (the balloon sample does).
 * - A driver that pins from hard interrupt context must read the page
 *   under a lock that is irq-safe there, and its routine takes that lock
 *   (with interrupts disabled) too. Pins take no lock of the library's.
 */

/**
 * DOC: Pool lifetime
 *
 * movable_pool_destroy() may race the calls that add to a pool or reach
 * it through a file: movable_pool_alloc_page(), movable_pool_alloc_pages(),
 * movable_pool_add_page() and movable_pool_open() fail with -ENODEV once
 * it has begun, movable_pool_mmap() with -ENODEV, and
 * movable_pool_insert_pfn() gives %VM_FAULT_SIGBUS; destroy waits for
 * those already under way. A device may so go away while its files are
 * open and mapped: the library reaches the pool of a fault or an mmap
 * through the file, never through the pool pointer the driver passes, so
 * the driver's fault handler needs no lock of its own against remove().
 *
 * Every other call on a pool must be done before destroy begins: the
 * driver frees its pages, stops pinning them, and makes no call after it.
 * Where a page shows that the driver broke this (the page is in no pool,
 * or in another one), the library warns without touching the pool it was
 * given, and counts the misuse in debugfs, movable_pool/misuse. A stale
 * pointer to a page that has since been reused, by this pool or anything
 * else, cannot be told from a live one and is not caught.
 */

/**
 * DOC: Page layout
 *
 * What the library keeps in a pool page's struct page. Nothing is
 * allocated per page, so its bookkeeping never pins a pageblock of its own:
 *
 * - ->mapping leads back to the pool: on 6.17 and later its
 *   address_space; before, the library's slot for the pool (an
 *   address_space on 5.10, a copy of the movable_operations on 6.x),
 *   which a page that left the pool still leads to until it is freed
 *   (the migration core reads ->mapping twice under the page lock, which
 *   the library does not take); the callbacks refuse such a page.
 * - ->page_type (which shares its word with the mapcount): on 6.17 and
 *   later the library's page type, which with PG_movable_ops makes the
 *   page movable; instead PageOffline(), on every kernel, in a pool with
 *   %MOVABLE_POOL_OFFLINE_PAGES (see "Offline pages").
 * - ->private holds the driver's @owner cookie.
 * - ->index holds the page's index (low %MOVABLE_POOL_INDEX_BITS bits),
 *   the pin count and the page's state in three bits (listed, isolated,
 *   migrating, freed while isolated, not listed yet, leaving, gone),
 *   changed with cmpxchg(). A page that left the pool keeps a mark there
 *   until it is reused, so the fault helper knows it for a pool page that
 *   moved or was freed.
 * - ->lru links the pool's list of pages while the VM has not isolated
 *   the page (the VM links isolated pages into lists of its own).
 *
 * The driver must not touch these fields. It owns the page contents and
 * its own references to the page (tables, DMA addresses, GART entries),
 * which the routine repoints.
 */

/**
 * DOC: Offline pages
 *
 * Pages a balloon has given back to its hypervisor must stay PageOffline()
 * for the rest of the kernel: kdump and /proc/kcore do not read them,
 * hibernation does not save them, and memory offlining takes them for
 * movable. So this is for balloons only: the contents of such a page are
 * lost across hibernation, and such a pool cannot be mapped to userspace
 * (movable_pool_open() refuses it). A pool created with
 * %MOVABLE_POOL_OFFLINE_PAGES in &movable_pool_ops.flags makes every page
 * PageOffline() from the moment it joins the pool (allocated, adopted with
 * movable_pool_add_page(), or the new page of a migration, before the
 * routine sees it) for as long as it is a pool page. When a page leaves
 * the pool (freed, taken, or the old page of a migration), 6.17 and later
 * keep it PageOffline() until it is freed to the page allocator, which
 * clears the type; 5.10 to 6.16 clear it as the page leaves, as their
 * balloon compaction did, because their page allocator refuses a freed
 * page that still has a type. The library tells its own PageOffline()
 * pages from those of other drivers (virtio-mem, Hyper-V, Xen), which it
 * never touches.
 *
 * On 6.17 and later the migration core moves PageOffline() pages through
 * one set of callbacks, which the library registers. A kernel where some
 * other code registered them first (the balloon's own, before the balloon
 * moved onto this library) refuses such pools with -EOPNOTSUPP.
 */

/**
 * DOC: Index
 *
 * A page's index has one meaning: its offset, in pages, in the pool's
 * address_space (movable_pool_mapping()). A driver that maps pool pages
 * to userspace maps the page with index N at file offset N pages of a
 * file set up with movable_pool_open(); movable_pool_insert_pfn() refuses
 * any other page. The library zaps user mappings at that offset before a
 * page moves and when it is freed. The index is also handed back to the
 * migrate routine, so a driver that never maps its pages may use it as it
 * likes, two live pages sharing an index included; in a pool that is
 * mapped, each index has at most one page at a time.
 */

/**
 * define MOVABLE_POOL_VERSION - the API level of this header
 *
 * Raised whenever a call is added or changes; the NEWS file says which.
 * Test it with ``#if MOVABLE_POOL_VERSION >= ...`` for a call you need.
 * It is the one version number of the library: the module's
 * MODULE_VERSION, the DKMS package version and the version of the Debian
 * package movable-pool-dkms are this level.
 */
#define MOVABLE_POOL_VERSION	5

/**
 * define MOVABLE_POOL_IMPORT_NS - declare that a module uses movable_pool
 *
 * The library exports its symbols in the ``MOVABLE_POOL`` namespace; every
 * module that calls it says MOVABLE_POOL_IMPORT_NS(); once, on any kernel.
 */
#define MOVABLE_POOL_IMPORT_NS()	MODULE_INFO(import_ns, "MOVABLE_POOL")

/**
 * define MOVABLE_POOL_GFP - the gfp mask a driver should normally pass
 *
 * Pool pages are always allocated with __GFP_MOVABLE added, so they land in
 * movable pageblocks, ZONE_MOVABLE and CMA areas. This mask also allows
 * highmem; use GFP_KERNEL instead if the driver needs page_address().
 */
#define MOVABLE_POOL_GFP	GFP_HIGHUSER_MOVABLE

/**
 * define MOVABLE_POOL_INDEX_BITS - how many bits of a page's index are kept
 *
 * The index shares its struct page word with the pin count and the page's
 * state; the top 16 bits are the library's.
 */
#define MOVABLE_POOL_INDEX_BITS	(BITS_PER_LONG - 16)

/**
 * define MOVABLE_POOL_MAX_INDEX - the largest index a pool page may have
 *
 * 2^48 - 1 on 64-bit kernels: as file offsets, far beyond any mapping.
 */
#define MOVABLE_POOL_MAX_INDEX	((1UL << MOVABLE_POOL_INDEX_BITS) - 1)

/**
 * define MOVABLE_POOL_MAX_PINS - how deep movable_pool_pin() may nest
 */
#define MOVABLE_POOL_MAX_PINS	((1UL << 13) - 1)

/**
 * define MOVABLE_POOL_OFFLINE_PAGES - pool pages are PageOffline()
 *
 * A flag of &movable_pool_ops.flags, for balloons: see "Offline pages".
 */
#define MOVABLE_POOL_OFFLINE_PAGES	BIT(0)

/**
 * define MOVABLE_POOL_MIGRATE_DROP - the migrate routine let @src go
 *
 * What the migrate routine returns when @src need not move because the
 * driver no longer wants it, as a balloon whose host gave @src back but
 * refused @dst: @src leaves the pool and goes back to the page allocator
 * (as movable_pool_free_page() would let it go), @dst is not used. The VM
 * sees a successful migration. The routine must not reference or pin @dst
 * then, nor use @src once it returns.
 */
#define MOVABLE_POOL_MIGRATE_DROP	1

/**
 * struct movable_pool_ops - driver callbacks of a pool
 * @migrate: copy @src to @dst and repoint every driver reference from @src
 *	to @dst.
 *
 *	Called in process context with both pages locked, as if from
 *	reclaim (see "Lock order"); @src is not pinned and cannot become
 *	pinned until this returns, and its user mappings in the pool's
 *	address_space have been zapped. @owner and @index are what the
 *	driver passed when it allocated the page. @dst already belongs to
 *	the pool: once the routine has published it, movable_pool_pin()
 *	works on it.
 *
 *	It may run for a page from the moment the page joins the pool,
 *	before the call that allocated or added it has returned: for a page
 *	the driver has not yet stored where the routine looks, it returns
 *	-EAGAIN.
 *
 *	In %MIGRATE_ASYNC @mode (direct compaction's first pass) the routine
 *	must not block on a lock: trylock, and return -EAGAIN when it is
 *	busy. In every mode it may wait a bounded time for its device or
 *	host (a balloon does), and in %MIGRATE_SYNC_LIGHT and %MIGRATE_SYNC
 *	it may sleep on the driver's lock, but not for long: the callers
 *	are allocating tasks.
 *
 *	Return 0 on success. -EAGAIN makes the VM try again, with the same
 *	or a new @dst, a few times in the same pass (up to ten), then puts
 *	the page back; a later pass may try it again. -ENOENT says the driver no longer
 *	references @src (it is freeing it): the page is put back and freed
 *	by the driver as usual. Any other negative errno gives up this
 *	migration. On any failure @dst must be neither referenced nor pinned
 *	by the driver. %MOVABLE_POOL_MIGRATE_DROP lets @src go instead of
 *	moving it. Any other positive value is a driver bug: the library
 *	warns and gives up as for -EINVAL.
 * @flags: 0, or %MOVABLE_POOL_OFFLINE_PAGES
 */
struct movable_pool_ops {
	int (*migrate)(struct movable_pool *pool, void *owner, pgoff_t index,
		       struct page *dst, struct page *src,
		       enum migrate_mode mode);
	unsigned int flags;
};

/**
 * struct movable_pool_stats - snapshot of a pool's counters
 * @pages: pages allocated from the pool and not yet freed
 * @pinned: pages with a non-zero pin count
 * @isolated: pages isolated by the VM for migration
 * @migrating: pages whose migrate routine is running
 * @allocated: pages that ever joined the pool: allocated, or adopted with
 *	movable_pool_add_page()
 * @freed: pages that ever left it: freed (by the driver or by destroy),
 *	taken by movable_pool_take_pages() or
 *	movable_pool_take_owner_pages(), or dropped
 * @migrated: successful migrations
 * @dropped: pages the migrate routine let go with
 *	%MOVABLE_POOL_MIGRATE_DROP
 * @migrate_failed: migration attempts that failed (pinned, or the routine
 *	returned an error)
 * @putback: isolated pages the VM gave back without migrating them
 * @pin_refused: isolations refused because the page was pinned
 * @pin_busy: pins refused with -EAGAIN because the page was migrating
 * @routine_busy: migrate routine calls that returned -EAGAIN
 * @routine_failed: migrate routine calls that returned another error
 * @freed_isolated: pages freed while the VM held them isolated
 * @misuse: driver bugs the library caught and warned about (each warns
 *	once per call site in the log; this counts every one)
 *
 * @pages == @allocated - @freed at all times.
 */
struct movable_pool_stats {
	unsigned long pages;
	unsigned long pinned;
	unsigned long isolated;
	unsigned long migrating;
	unsigned long allocated;
	unsigned long freed;
	unsigned long migrated;
	unsigned long dropped;
	unsigned long migrate_failed;
	unsigned long putback;
	unsigned long pin_refused;
	unsigned long pin_busy;
	unsigned long routine_busy;
	unsigned long routine_failed;
	unsigned long freed_isolated;
	unsigned long misuse;
};

/**
 * movable_pool_create() - create a pool of movable pages
 * @name: name for debugfs and messages; copied
 * @ops: driver callbacks; must outlive the pool
 * @priv: driver data, returned by movable_pool_priv()
 *
 * Context: process context; may sleep.
 * Return: the pool, ERR_PTR(-EINVAL) if @name is empty, @ops has no
 * migrate routine or has flags this header does not define,
 * ERR_PTR(-EOPNOTSUPP) for %MOVABLE_POOL_OFFLINE_PAGES on a kernel that
 * cannot move such pages (see "Offline pages"), ERR_PTR(-ENOMEM) (or
 * another errno from the pseudo-fs) on failure.
 */
struct movable_pool *movable_pool_create(const char *name,
					 const struct movable_pool_ops *ops,
					 void *priv);

/**
 * movable_pool_destroy() - free a pool
 * @pool: the pool, or NULL
 *
 * Stops new isolations, allocations and faults, waits for the calls under
 * way (see "Pool lifetime") and for the VM to hand back the pages it holds
 * isolated (their migration is refused from now on, so that is quick),
 * zaps every user mapping of the pool's address_space, and frees pages the
 * driver did not free (with a warning: that is a driver bug). A page still
 * pinned is in use by a device, so it is never freed: it is let go of and
 * leaks, with a warning naming the pool and the count. No page refers to
 * the pool or this module's code after this returns, and the routine is
 * never called again.
 *
 * Files set up with movable_pool_open() keep the pool's address_space
 * alive until movable_pool_release(), so a device may go away while
 * userspace still has it open or mapped: its mappings are empty, and the
 * driver's fault handler must fail (%VM_FAULT_SIGBUS) from then on. A
 * pool destroyed while mapped through files set up otherwise leaks its
 * address_space, with a warning, rather than leave them pointing at freed
 * memory.
 *
 * The driver must keep what its routine uses alive until this returns,
 * and must not hold the lock its routine takes. Only the calls "Pool
 * lifetime" names may race with it; none may follow it.
 *
 * Context: process context; may sleep. In atomic context it is refused,
 * with a warning, and the pool leaks.
 */
void movable_pool_destroy(struct movable_pool *pool);

/**
 * movable_pool_priv() - the driver data given to movable_pool_create()
 * @pool: the pool
 *
 * Return: the @priv pointer the pool was created with.
 */
void *movable_pool_priv(struct movable_pool *pool);

/**
 * movable_pool_mapping() - the address_space for user mappings of the pool
 * @pool: the pool
 *
 * For lookups only: a file must be pointed at it with movable_pool_open(),
 * which keeps it alive for as long as the file lives, never by setting
 * f_mapping by hand.
 *
 * Return: the pool's address_space.
 */
struct address_space *movable_pool_mapping(struct movable_pool *pool);

/**
 * movable_pool_get_stats() - read a pool's counters
 * @pool: the pool
 * @stats: filled with a snapshot: consistent, but for the pin and misuse
 *	counts (which change without a lock), and in interrupt context,
 *	where each counter is read on its own
 *
 * Context: any context.
 */
void movable_pool_get_stats(struct movable_pool *pool,
			    struct movable_pool_stats *stats);

/**
 * movable_pool_alloc_page() - allocate a movable page for the driver
 * @pool: the pool
 * @gfp: allocation flags; __GFP_MOVABLE is always added (see
 *	%MOVABLE_POOL_GFP). Refused: __GFP_ACCOUNT (memcg charges do not
 *	follow non-LRU pages when they migrate), __GFP_COMP (order 0 only),
 *	and __GFP_DMA / __GFP_DMA32 (migration may move a page to any zone:
 *	a device with an addressing limit cannot have its pages move).
 * @owner: driver cookie handed back to the migrate routine
 * @index: the page's offset in the pool's address_space (see "Index"),
 *	handed back to the migrate routine; at most %MOVABLE_POOL_MAX_INDEX
 *
 * The page has one reference, owned by the pool, and may be migrated from
 * the moment it joins the pool, before this returns (see
 * &movable_pool_ops.migrate), unless the driver pins it. Free it only
 * with movable_pool_free_page() or movable_pool_free_pages().
 *
 * Context: any context @gfp allows; a @gfp that may sleep, in atomic
 * context, is refused with a warning.
 * Return: the page; ERR_PTR(-EINVAL) for a NULL @pool, refused @gfp flags,
 * an @index above %MOVABLE_POOL_MAX_INDEX or a @gfp that may sleep in
 * atomic context, ERR_PTR(-ENODEV) if the pool is being destroyed,
 * ERR_PTR(-ENOMEM) if memory is short. Never NULL.
 */
struct page *movable_pool_alloc_page(struct movable_pool *pool, gfp_t gfp,
				     void *owner, pgoff_t index);

/**
 * movable_pool_add_page() - make a page the caller allocated a pool page
 * @pool: the pool
 * @page: an order-0 page the caller allocated and holds a reference to,
 *	not mapped, with no ->mapping and no page type: a plain page, or
 *	one taken from a pool of the same kind (on 6.17 and later such a
 *	page keeps its type until it is freed); not locked
 * @owner: driver cookie handed back to the migrate routine
 * @index: the page's index (see "Index"); at most %MOVABLE_POOL_MAX_INDEX
 *
 * For a driver that must fill the page, or tell someone about it, before
 * the page may move, such as a balloon, which hands a page to the pool as
 * it tells its host about it. The caller's reference passes to the pool,
 * and the page is from then on a pool page as if movable_pool_alloc_page()
 * had allocated it (the driver frees it with movable_pool_free_page(), or
 * takes it back), including ->lru, which the caller must not be using.
 * Whatever gfp the caller allocated it with, it may now move to any zone.
 *
 * A reference the caller keeps besides the one it hands over is its own
 * to drop; the page is freed when the last one goes. The VM takes
 * references of its own for moments, which is why the count is not
 * checked for being 1.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a NULL @pool or @page or an @index above
 * %MOVABLE_POOL_MAX_INDEX, and, with a warning, for a page that is
 * compound, free, mapped, has a ->mapping or a page type, and for a call
 * in atomic context; -ENODEV if the pool is being destroyed. On failure
 * the page is still the caller's.
 */
int movable_pool_add_page(struct movable_pool *pool, struct page *page,
			  void *owner, pgoff_t index);

/**
 * movable_pool_free_page() - free a page allocated from @pool
 * @pool: the pool the page came from
 * @page: the page; the one the migrate routine installed if it moved
 *
 * Zaps the page's user mappings in the pool's address_space. Safe while
 * the VM has the page isolated: the VM then frees it. After this returns
 * the routine is never called for the page again, so the driver may free
 * whatever @owner points to once it has freed all of the owner's pages.
 *
 * The driver must have dropped the page from its tables first (so that a
 * migration already under way finds it gone and returns -ENOENT), and must
 * not hold the lock its migrate routine takes. Refused with a warning,
 * leaving the page where it is: a pinned page (it stays in the pool, and
 * destroy frees it once unpinned), a page of another pool or of none, a
 * page freed before (while the library can still tell: see "Pool
 * lifetime"), and a call in atomic context. A page mapped to userspace
 * with vm_insert_page() (a driver bug the library sees only on 5.10 to
 * 6.16, by its mapcount) is freed with a warning.
 *
 * Context: process context; may sleep (it waits for a migration of the
 * page under way, or for the one whose routine just installed it, to end;
 * and zapping a user mapping sleeps).
 */
void movable_pool_free_page(struct movable_pool *pool, struct page *page);

/**
 * movable_pool_alloc_pages() - allocate several movable pages at once
 * @pool: the pool
 * @gfp: allocation flags, as for movable_pool_alloc_page()
 * @owner: driver cookie handed back to the migrate routine for every page
 * @index: index of the first page; page i gets @index + i
 * @pages: filled with the pages
 * @nr: how many pages, at least 1
 *
 * The same as @nr calls of movable_pool_alloc_page(), for less: the pages
 * come from the bulk allocator and join the pool under one lock.
 *
 * Context: any context @gfp allows, as for movable_pool_alloc_page().
 * Return: 0 with all @nr pages allocated, or an errno as for
 * movable_pool_alloc_page() (-EINVAL also for a NULL @pages, @nr == 0 or
 * an index range past %MOVABLE_POOL_MAX_INDEX) with none allocated and
 * every entry of @pages NULL.
 */
int movable_pool_alloc_pages(struct movable_pool *pool, gfp_t gfp,
			     void *owner, pgoff_t index, struct page **pages,
			     unsigned int nr);

/*
 * Until API level 2 the array came before its length: a call in that order
 * must not build (gcc 12 only warns when an integer is passed as a
 * pointer, and such a module crashes). &(pages)[0] is the array itself,
 * and an integer cannot be subscripted.
 */
#define movable_pool_alloc_pages(pool, gfp, owner, index, pages, nr)	\
	movable_pool_alloc_pages(pool, gfp, owner, index, &(pages)[0], nr)

/**
 * movable_pool_free_pages() - free several pages of @pool at once
 * @pool: the pool the pages came from
 * @pages: the pages; NULL entries are skipped. The array is reordered:
 *	its contents are undefined on return.
 * @nr: how many entries
 *
 * The same as movable_pool_free_page() on each page, for less: pages that
 * nobody else has locked leave the pool under one lock and go back to the
 * page allocator together. A page that appears twice is freed once and
 * the repeat refused with a warning.
 *
 * Context: process context; may sleep. In atomic context it is refused,
 * with a warning.
 */
void movable_pool_free_pages(struct movable_pool *pool, struct page **pages,
			     unsigned int nr);

/**
 * movable_pool_take_pages() - take some pages, whichever, out of @pool
 * @pool: the pool
 * @pages: room for @nr pages
 * @nr: how many at most
 *
 * For drivers that want pages back but no page in particular, such as a
 * balloon returning memory to its guest: with this they need no table of
 * their pages at all. Takes up to @nr pages that are neither pinned, nor
 * held by the VM, nor being migrated; pages it passes over go to the
 * back of the pool's list, and one call looks at a bounded number of them,
 * so it may take fewer than it could. The pages taken leave the pool (and
 * count as freed), the migrate routine is never called for them again,
 * and their user mappings are zapped.
 *
 * They are the caller's to free with __free_page(), soon, or to hand to
 * movable_pool_add_page() again: until then the migration core may still
 * look at them (and refuse them), so do not reuse them for anything else.
 * Pages of a pool with %MOVABLE_POOL_OFFLINE_PAGES are still PageOffline()
 * on 6.17 and later (see "Offline pages").
 *
 * Pages are only tried, never waited for, so the caller may hold the lock
 * its migrate routine takes. A driver that pins or otherwise uses pages of
 * the pool must not take them while it does.
 *
 * Context: process context; may sleep (only when pages are user-mapped).
 * Return: how many pages were taken and stored at the front of @pages.
 */
unsigned int movable_pool_take_pages(struct movable_pool *pool,
				     struct page **pages, unsigned int nr);

/* As for movable_pool_alloc_pages(): the level 1 order must not build. */
#define movable_pool_take_pages(pool, pages, nr)			\
	movable_pool_take_pages(pool, &(pages)[0], nr)

/**
 * movable_pool_take_owner_pages() - take some pages of one owner
 * @pool: the pool
 * @owner: the owner cookie the pages were allocated or added with
 * @pages: room for @nr pages
 * @nr: how many at most
 *
 * movable_pool_take_pages() for pages of @owner only, for a pool several
 * owners share, such as the balloon's, shared by its devices. Pages of
 * other owners count among the busy pages one call passes over and go to
 * the back of the list too.
 *
 * Context: as movable_pool_take_pages().
 * Return: as movable_pool_take_pages().
 */
unsigned int movable_pool_take_owner_pages(struct movable_pool *pool,
					   void *owner, struct page **pages,
					   unsigned int nr);

/**
 * movable_pool_pin() - keep a page where it is while it is in use
 * @page: a pool page, read from the driver's tables under the lock its
 *	migrate routine takes
 *
 * A pinned page refuses isolation, and an isolated page that gets pinned
 * fails migration with -EAGAIN and is put back. Pins nest, up to
 * %MOVABLE_POOL_MAX_PINS deep. A pinned page must be unpinned before it is
 * freed.
 *
 * Pins are for short device use: a DMA, a job, a page being read. For as
 * long as a page is pinned, memory offlining of its block retries until
 * it is interrupted, alloc_contig_range() (CMA, gigantic pages) fails,
 * and compaction passes the page by.
 *
 * Context: any context, including hard interrupts (see "Lock order" for
 * what the driver's lock needs then); never sleeps, takes no lock.
 * Return: 0 when pinned; -EAGAIN if the page is being migrated right now
 * (drop your locks, re-read your reference, retry: the routine is about to
 * repoint it); -EINVAL, with a warning, if @page is not a pool page (NULL,
 * never allocated from a pool, already freed, or one that moved: the
 * routine repointed the driver's reference under the lock the pin was to
 * be made under, so only a stale pointer finds it);
 * -EBUSY, with a warning, if it is pinned %MOVABLE_POOL_MAX_PINS deep.
 */
int movable_pool_pin(struct page *page);

/**
 * movable_pool_unpin() - drop a pin taken by movable_pool_pin()
 * @page: the pinned page
 *
 * Unpinning a page that is not pinned is refused with a warning.
 *
 * Context: as movable_pool_pin(); never sleeps.
 */
void movable_pool_unpin(struct page *page);

/**
 * movable_pool_copy_page() - copy a page's contents for a migrate routine
 * @dst: destination page
 * @src: source page
 *
 * Context: any context; highmem pages are mapped temporarily.
 */
void movable_pool_copy_page(struct page *dst, struct page *src);

/**
 * movable_pool_open() - let a file map pages of @pool
 * @pool: the pool
 * @file: a file of the driver's, in its open()
 *
 * Points @file's f_mapping at the pool's address_space and keeps that
 * alive until movable_pool_release(@file), even past
 * movable_pool_destroy(). Call movable_pool_release() from the file's
 * release(), and from open() itself if open() fails after this succeeded
 * (the VFS calls release() only for a file that opened).
 *
 * Context: process context.
 * Return: 0; -ENODEV if @pool is being destroyed; -EINVAL for a NULL
 * @pool or @file, and, with a warning, for a pool of offline pages (see
 * "Offline pages").
 */
int movable_pool_open(struct movable_pool *pool, struct file *file);

/**
 * movable_pool_release() - undo movable_pool_open()
 * @file: the file, in the driver's release()
 *
 * Context: process context; may sleep.
 */
void movable_pool_release(struct file *file);

/**
 * movable_pool_mmap() - set up a user mapping of pool pages
 * @pool: the pool
 * @vma: the VMA, in the driver's mmap() of a file set up with
 *	movable_pool_open()
 *
 * Refuses what cannot work. Quietly, since a user asked for it: a private
 * mapping (a copy-on-write copy of a page that moves is wrong, and the VM
 * cannot map one of a PFN mapping) and offsets past
 * %MOVABLE_POOL_MAX_INDEX. With a warning, since the driver did it: a file
 * not set up with movable_pool_open(), or set up on another pool. Sets
 * %VM_PFNMAP, %VM_DONTEXPAND and %VM_DONTDUMP. The driver sets vm_ops
 * (whose fault handler calls movable_pool_insert_pfn()) and
 * vm_private_data itself.
 *
 * Context: the driver's mmap() (mmap_lock held for writing).
 * Return: 0; -EINVAL for a private mapping or a bad file or range;
 * -ENODEV if the pool is being destroyed (see "Pool lifetime").
 */
int movable_pool_mmap(struct movable_pool *pool, struct vm_area_struct *vma);

/**
 * movable_pool_insert_pfn() - map a pool page from a driver's fault handler
 * @pool: the pool whose address_space backs the faulting VMA
 * @vmf: the fault, on a VMA set up with movable_pool_mmap()
 * @page: the page the driver looked up for @vmf->pgoff, with a reference
 *	the caller holds and drops after this returns
 *
 * Call it without the lock your migrate routine takes. If @page was
 * migrated or freed after the driver looked it up, nothing is mapped and
 * the access faults again, so the driver looks up the new page. If the
 * page is locked (it is being moved) and the fault may be retried, this
 * drops the fault's mmap_lock, waits for the page and returns
 * %VM_FAULT_RETRY, as filemap_fault() does: the caller must then return it
 * at once, touching neither @vmf->vma nor anything the lock protected.
 * The library holds its own reference to @page while it waits, and the
 * VMA's file keeps the pool's address_space; what else the driver's
 * handler uses after this returns (its buffer object, say) the driver
 * keeps alive itself, as a VMA's reference does.
 *
 * The pool is found through the VMA's file, not through @pool, which is
 * only compared: after movable_pool_destroy() (a device gone while still
 * mapped) this gives %VM_FAULT_SIGBUS without touching @pool.
 *
 * Context: page fault handler; may sleep.
 * Return: %VM_FAULT_NOPAGE or %VM_FAULT_RETRY; %VM_FAULT_SIGBUS once the
 * pool is being destroyed; %VM_FAULT_SIGBUS, with a warning, for a
 * private (copy-on-write) VMA, a VMA not set up by movable_pool_mmap() on
 * @pool, a page of another pool or of none, a page whose index is not
 * @vmf->pgoff, or a page that left the pool yet keeps being handed in
 * (a stale table); %VM_FAULT_OOM and such when a page table cannot be
 * had.
 */
vm_fault_t movable_pool_insert_pfn(struct movable_pool *pool,
				   struct vm_fault *vmf, struct page *page);

#endif /* _LINUX_MOVABLE_POOL_H */
