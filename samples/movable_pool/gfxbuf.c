// SPDX-License-Identifier: GPL-2.0
/*
 * gfxbuf: a sample graphics-buffer driver built on movable_pool.
 *
 * It behaves like a small GPU driver: userspace creates buffer objects
 * (BOs), maps them, and submits jobs to a simulated engine that reaches
 * the BO pages through a GART-like table of page frame numbers. The
 * pages come from a movable_pool, so the VM may migrate them;
 * unmovable/gfxbuf.c is the same driver with plain pages, the baseline
 * the demo and the tests compare against.
 *
 * Locking, outermost first:
 *	gfxbuf_files_lock	the open files; held by an unplug throughout
 *	gfxbuf_file.lock	handles, all BOs, job table, fence numbers; an
 *				unplug frees pages under it
 *	gfxbuf_bo.lock		pages[] and gart[]: the lock the migrate routine
 *				takes. Never held while waiting for a page lock.
 *
 * Lifetimes: the file, each VMA and each job hold a reference on the BOs
 * they use; jobs also hold one on the file state, so closing the file with
 * jobs in flight is safe. A BO's pages are freed with its last reference,
 * the pool with the file state's.
 *
 * Hot-unplug (GFXBUF_IOC_UNPLUG) does what a PCI driver's remove() does
 * while files stay open and mapped: see gfxbuf_unplug(). The ioctls and
 * BO releases that use the pool run in a read section of gfxbuf_srcu, as
 * a DRM driver's run inside drm_dev_enter(); faults and mmap() do not,
 * they reach the pool through the library, which finds it through the
 * file.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/kref.h>
#include <linux/log2.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "gfxbuf_uapi.h"
#include "samples_compat.h"

static unsigned int max_bo_pages = 16384;
module_param(max_bo_pages, uint, 0444);
MODULE_PARM_DESC(max_bo_pages, "largest BO in pages (default 16384)");

static unsigned long max_total_pages;
module_param(max_total_pages, ulong, 0444);
MODULE_PARM_DESC(max_total_pages, "BO pages in all files (default 3/4 of RAM)");

#define GFXBUF_MAX_JOBS		4096	/* submitted and not yet waited for */
#define GFXBUF_MAX_STRIDE	BIT(20)

static atomic_long_t gfxbuf_total_pages = ATOMIC_LONG_INIT(0);
static struct workqueue_struct *gfxbuf_engine;

/* open files, which an unplug takes down; the lock serializes unplugs */
static LIST_HEAD(gfxbuf_files);
static DEFINE_MUTEX(gfxbuf_files_lock);
/* readers: calls that use a file's pool; an unplug waits for them */
static struct srcu_struct gfxbuf_srcu;

struct gfxbuf_file {
	struct kref ref;
	struct movable_pool *pool;	/* destroyed once unplugged */
	pgoff_t stride;			/* pages of mmap space per handle */
	struct mutex lock;		/* guards bos, all_bos, jobs, njobs,
					 * next_fence
					 */
	struct xarray bos;		/* handle -> struct gfxbuf_bo */
	struct list_head all_bos;	/* every BO not yet released */
	struct xarray jobs;		/* fence -> struct gfxbuf_job */
	unsigned int njobs;
	u64 next_fence;
	atomic64_t done_fence;		/* the engine runs jobs in order */
	wait_queue_head_t wq;
	struct list_head node;		/* in gfxbuf_files while open */
	bool unplugged;
};

struct gfxbuf_bo {
	struct kref ref;
	struct gfxbuf_file *gf;
	struct list_head node;		/* in gf->all_bos */
	u32 npages;
	pgoff_t pgoff;			/* first page in the mmap space */
	struct mutex lock;		/* guards pages[] and gart[] */
	struct page **pages;
	unsigned long *gart;		/* what the engine uses: PFNs */
};

struct gfxbuf_job {
	struct work_struct work;
	struct gfxbuf_file *gf;
	struct gfxbuf_submit args;
	struct gfxbuf_bo *src, *dst;
	struct page **src_pages, **dst_pages;
	u64 result;
};

/* user-sized: a user's request that fails gets -ENOMEM, not a warning */
static struct page *gfxbuf_alloc_page(struct gfxbuf_bo *bo, u32 i)
{
	return movable_pool_alloc_page(bo->gf->pool, MOVABLE_POOL_GFP |
				       __GFP_ZERO | __GFP_NOWARN, bo,
				       bo->pgoff + i);
}

/* Take every page out of @bo's tables and free it, a batch at a time. */
static void gfxbuf_bo_free_pages(struct gfxbuf_bo *bo)
{
	struct page *batch[32];
	unsigned int n;
	u32 i = 0;

	/* no arrays: gfxbuf_create() failed before it allocated a page */
	while (bo->pages && bo->gart && i < bo->npages) {
		n = 0;
		/* drop our references first: the routine then leaves them */
		mutex_lock(&bo->lock);
		for (; i < bo->npages && n < ARRAY_SIZE(batch); i++) {
			if (bo->pages[i])
				batch[n++] = bo->pages[i];
			bo->pages[i] = NULL;
			bo->gart[i] = 0;
		}
		mutex_unlock(&bo->lock);
		if (n)
			movable_pool_free_pages(bo->gf->pool, batch, n);
	}
}

static void gfxbuf_bo_release(struct kref *ref)
{
	struct gfxbuf_bo *bo = container_of(ref, struct gfxbuf_bo, ref);
	struct gfxbuf_file *gf = bo->gf;
	int idx;

	/* an unplug waits for us; after one, nothing is left to free */
	idx = srcu_read_lock(&gfxbuf_srcu);
	gfxbuf_bo_free_pages(bo);
	srcu_read_unlock(&gfxbuf_srcu, idx);
	mutex_lock(&gf->lock);
	list_del(&bo->node);
	mutex_unlock(&gf->lock);
	atomic_long_sub(bo->npages, &gfxbuf_total_pages);
	kvfree(bo->pages);
	kvfree(bo->gart);
	kfree(bo);
}

static void gfxbuf_bo_put(struct gfxbuf_bo *bo)
{
	if (bo)
		kref_put(&bo->ref, gfxbuf_bo_release);
}

/* The copy-and-fixup routine: all movable_pool needs from a driver. */
static int gfxbuf_migrate(struct movable_pool *pool, void *owner,
			  pgoff_t index, struct page *dst, struct page *src,
			  enum migrate_mode mode)
{
	struct gfxbuf_bo *bo = owner;
	pgoff_t i = index - bo->pgoff;
	int ret = 0;

	if (mode == MIGRATE_ASYNC) {
		if (!mutex_trylock(&bo->lock))
			return -EAGAIN;
	} else {
		mutex_lock(&bo->lock);
	}
	if (bo->pages[i] != src) {
		ret = -ENOENT;	/* being freed, or not yet published */
	} else {
		movable_pool_copy_page(dst, src);
		bo->pages[i] = dst;
		bo->gart[i] = page_to_pfn(dst);
	}
	mutex_unlock(&bo->lock);
	return ret;
}

static const struct movable_pool_ops gfxbuf_pool_ops = {
	.migrate = gfxbuf_migrate,
};

static void gfxbuf_file_release(struct kref *ref)
{
	struct gfxbuf_file *gf = container_of(ref, struct gfxbuf_file, ref);
	struct gfxbuf_job *job;
	unsigned long idx;

	/* jobs done but never waited for */
	xa_for_each(&gf->jobs, idx, job)
		kfree(job);
	xa_destroy(&gf->jobs);
	xa_destroy(&gf->bos);
	/* an unplug destroyed it already (gfxbuf_files_lock orders us) */
	if (!gf->unplugged)
		movable_pool_destroy(gf->pool);
	kfree(gf);
}

static int gfxbuf_open(struct inode *inode, struct file *file)
{
	struct gfxbuf_file *gf;
	int ret;

	gf = kzalloc(sizeof(*gf), GFP_KERNEL);
	if (!gf)
		return -ENOMEM;
	kref_init(&gf->ref);
	mutex_init(&gf->lock);
	xa_init_flags(&gf->bos, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&gf->all_bos);
	xa_init(&gf->jobs);
	init_waitqueue_head(&gf->wq);
	gf->stride = roundup_pow_of_two(clamp_t(unsigned long, max_bo_pages, 1,
						GFXBUF_MAX_STRIDE));
	gf->pool = movable_pool_create("gfxbuf", &gfxbuf_pool_ops, gf);
	if (IS_ERR(gf->pool)) {
		ret = PTR_ERR(gf->pool);
		goto err_free;
	}
	/* user mappings live in the pool's address_space */
	ret = movable_pool_open(gf->pool, file);
	if (ret)
		goto err_pool;
	file->private_data = gf;
	mutex_lock(&gfxbuf_files_lock);
	list_add(&gf->node, &gfxbuf_files);
	mutex_unlock(&gfxbuf_files_lock);
	return 0;

err_pool:
	movable_pool_destroy(gf->pool);
err_free:
	kfree(gf);
	return ret;
}

static int gfxbuf_release(struct inode *inode, struct file *file)
{
	struct gfxbuf_file *gf = file->private_data;
	struct gfxbuf_bo *bo;
	unsigned long handle;

	/* after an unplug of this file, or before one can find it */
	mutex_lock(&gfxbuf_files_lock);
	list_del(&gf->node);
	mutex_unlock(&gfxbuf_files_lock);
	xa_for_each(&gf->bos, handle, bo)
		gfxbuf_bo_put(bo);
	movable_pool_release(file);
	kref_put(&gf->ref, gfxbuf_file_release);
	return 0;
}

static struct gfxbuf_bo *gfxbuf_bo_get(struct gfxbuf_file *gf, u32 handle)
{
	struct gfxbuf_bo *bo;

	mutex_lock(&gf->lock);
	bo = xa_load(&gf->bos, handle);
	if (bo)
		kref_get(&bo->ref);
	mutex_unlock(&gf->lock);
	return bo;
}

static unsigned long gfxbuf_limit(void)
{
	return max_total_pages ?: totalram_pages() / 4 * 3;
}

/* mmap offsets (handle * stride pages) stay below 2^50 bytes */
static u32 gfxbuf_max_handle(struct gfxbuf_file *gf)
{
	return min_t(u64, U32_MAX, (1ULL << (50 - PAGE_SHIFT)) / gf->stride);
}

static int gfxbuf_create(struct gfxbuf_file *gf, struct gfxbuf_create *args)
{
	struct gfxbuf_bo *bo;
	struct page *page;
	u32 handle, i;
	int ret;

	if (args->flags || args->pad || !args->pages)
		return -EINVAL;
	if (args->pages > gf->stride || args->pages > max_bo_pages)
		return -E2BIG;
	if (atomic_long_add_return(args->pages, &gfxbuf_total_pages) >
	    gfxbuf_limit()) {
		atomic_long_sub(args->pages, &gfxbuf_total_pages);
		return -ENOMEM;
	}

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo) {
		atomic_long_sub(args->pages, &gfxbuf_total_pages);
		return -ENOMEM;
	}
	kref_init(&bo->ref);
	mutex_init(&bo->lock);
	bo->gf = gf;
	mutex_lock(&gf->lock);
	list_add(&bo->node, &gf->all_bos);
	mutex_unlock(&gf->lock);
	bo->npages = args->pages;	/* gfxbuf_bo_release() unwinds these */
	bo->pages = kvcalloc(bo->npages, sizeof(*bo->pages),
			     GFP_KERNEL | __GFP_NOWARN);
	bo->gart = kvcalloc(bo->npages, sizeof(*bo->gart),
			    GFP_KERNEL | __GFP_NOWARN);
	if (!bo->pages || !bo->gart) {
		gfxbuf_bo_put(bo);
		return -ENOMEM;
	}

	/* reserve the handle: it fixes the BO's place in the mmap space */
	mutex_lock(&gf->lock);
	ret = xa_alloc(&gf->bos, &handle, NULL,
		       XA_LIMIT(1, gfxbuf_max_handle(gf)), GFP_KERNEL);
	mutex_unlock(&gf->lock);
	if (ret) {
		gfxbuf_bo_put(bo);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	bo->pgoff = (pgoff_t)handle * gf->stride;

	for (i = 0; i < bo->npages; i++) {
		page = gfxbuf_alloc_page(bo, i);
		if (IS_ERR(page)) {
			ret = PTR_ERR(page);
			break;
		}
		mutex_lock(&bo->lock);
		bo->pages[i] = page;
		bo->gart[i] = page_to_pfn(page);
		mutex_unlock(&bo->lock);
	}

	mutex_lock(&gf->lock);
	if (ret)
		xa_erase(&gf->bos, handle);
	else
		xa_store(&gf->bos, handle, bo, GFP_KERNEL);
	mutex_unlock(&gf->lock);
	if (ret) {
		gfxbuf_bo_put(bo);
		return ret;
	}
	args->handle = handle;
	args->mmap_offset = (u64)bo->pgoff << PAGE_SHIFT;
	return 0;
}

static int gfxbuf_destroy(struct gfxbuf_file *gf, u32 handle)
{
	struct gfxbuf_bo *bo;

	mutex_lock(&gf->lock);
	bo = xa_load(&gf->bos, handle);	/* NULL for a handle in creation */
	if (bo)
		xa_erase(&gf->bos, handle);
	mutex_unlock(&gf->lock);
	if (!bo)
		return -ENOENT;
	gfxbuf_bo_put(bo);
	return 0;
}

/*
 * Pin page @i of @bo for the engine. The GART entry is read and pinned
 * under the BO lock, so the routine cannot move the page in between; if a
 * migration is in progress, let it finish and look again.
 */
static struct page *gfxbuf_pin(struct gfxbuf_bo *bo, u32 i)
{
	struct page *page;
	int ret;

	for (;;) {
		mutex_lock(&bo->lock);
		page = pfn_to_page(bo->gart[i]);
		ret = movable_pool_pin(page);
		mutex_unlock(&bo->lock);
		if (ret != -EAGAIN)
			break;
		usleep_range(20, 100);
	}
	/* the job holds @bo: any other error is a bug the library warned of */
	return ret ? NULL : page;
}

static void gfxbuf_unpin(struct page *page)
{
	if (page)
		movable_pool_unpin(page);
}

static void gfxbuf_fill(struct page *page, u32 seed, u32 pageno)
{
	u32 *p = kmap_local_page(page);
	u32 w;

	for (w = 0; w < PAGE_SIZE / sizeof(u32); w++)
		p[w] = gfxbuf_pattern(seed, pageno, w);
	kunmap_local(p);
}

static u64 gfxbuf_checksum(struct page *page, u64 h)
{
	u32 *p = kmap_local_page(page);
	u32 w;

	for (w = 0; w < PAGE_SIZE / sizeof(u32); w++)
		h = gfxbuf_csum(h, p[w]);
	kunmap_local(p);
	return h;
}

static void gfxbuf_job_run(struct work_struct *work)
{
	struct gfxbuf_job *job = container_of(work, struct gfxbuf_job, work);
	struct gfxbuf_file *gf = job->gf;
	struct gfxbuf_submit *a = &job->args;
	u64 fence = a->fence, h = GFXBUF_CSUM_INIT;
	u32 i;

	/* a GPU pins the whole job's memory before it starts */
	for (i = 0; i < a->pages; i++) {
		if (job->src)
			job->src_pages[i] = gfxbuf_pin(job->src, a->src_page + i);
		if (job->dst)
			job->dst_pages[i] = gfxbuf_pin(job->dst, a->dst_page + i);
	}
	for (i = 0; i < a->pages; i++) {
		/* a page that could not be pinned is one the engine skips */
		if ((job->src && !job->src_pages[i]) ||
		    (job->dst && !job->dst_pages[i]))
			continue;
		switch (a->op) {
		case GFXBUF_OP_FILL:
			gfxbuf_fill(job->dst_pages[i], a->seed, i);
			break;
		case GFXBUF_OP_COPY:
			copy_highpage(job->dst_pages[i], job->src_pages[i]);
			break;
		case GFXBUF_OP_CHECKSUM:
			h = gfxbuf_checksum(job->src_pages[i], h);
			break;
		}
		cond_resched();
	}
	for (i = 0; i < a->pages; i++) {
		if (job->src)
			gfxbuf_unpin(job->src_pages[i]);
		if (job->dst)
			gfxbuf_unpin(job->dst_pages[i]);
	}
	job->result = h;
	kvfree(job->src_pages);
	kvfree(job->dst_pages);
	gfxbuf_bo_put(job->src);
	gfxbuf_bo_put(job->dst);

	/* from here on a waiter may free the job */
	atomic64_set_release(&gf->done_fence, fence);
	wake_up_all(&gf->wq);
	kref_put(&gf->ref, gfxbuf_file_release);
}

/* Look up a job's BO, check the range, and make room for its pins. */
static int gfxbuf_job_operand(struct gfxbuf_file *gf, u32 handle, u32 first,
			      u32 pages, struct gfxbuf_bo **bo,
			      struct page ***pinned)
{
	*bo = gfxbuf_bo_get(gf, handle);
	if (!*bo)
		return -ENOENT;
	if ((u64)first + pages > (*bo)->npages)
		return -EINVAL;
	*pinned = kvcalloc(pages, sizeof(**pinned), GFP_KERNEL | __GFP_NOWARN);
	return *pinned ? 0 : -ENOMEM;
}

static int gfxbuf_submit(struct gfxbuf_file *gf, struct gfxbuf_submit *args)
{
	bool reads = args->op == GFXBUF_OP_COPY || args->op == GFXBUF_OP_CHECKSUM;
	bool writes = args->op == GFXBUF_OP_COPY || args->op == GFXBUF_OP_FILL;
	struct gfxbuf_job *job;
	int ret = 0;

	if ((!reads && !writes) || args->pad || !args->pages)
		return -EINVAL;
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	INIT_WORK(&job->work, gfxbuf_job_run);
	job->gf = gf;
	if (reads)
		ret = gfxbuf_job_operand(gf, args->src, args->src_page,
					 args->pages, &job->src,
					 &job->src_pages);
	if (!ret && writes)
		ret = gfxbuf_job_operand(gf, args->dst, args->dst_page,
					 args->pages, &job->dst,
					 &job->dst_pages);
	/* overlapping copies within one BO have no defined result */
	if (!ret && job->src == job->dst &&
	    args->src_page < args->dst_page + args->pages &&
	    args->dst_page < args->src_page + args->pages)
		ret = -EINVAL;
	if (ret)
		goto err;

	mutex_lock(&gf->lock);
	if (gf->njobs >= GFXBUF_MAX_JOBS) {
		ret = -EBUSY;
	} else {
		args->fence = gf->next_fence + 1;
		ret = xa_insert(&gf->jobs, args->fence, job, GFP_KERNEL);
	}
	if (!ret) {
		gf->next_fence++;
		gf->njobs++;
		job->args = *args;
		kref_get(&gf->ref);
		queue_work(gfxbuf_engine, &job->work);
	}
	mutex_unlock(&gf->lock);
	if (!ret)
		return 0;
err:
	kvfree(job->src_pages);
	kvfree(job->dst_pages);
	gfxbuf_bo_put(job->src);
	gfxbuf_bo_put(job->dst);
	kfree(job);
	return ret;
}

static bool gfxbuf_done(struct gfxbuf_file *gf, u64 fence)
{
	return atomic64_read_acquire(&gf->done_fence) >= fence;
}

static int gfxbuf_wait(struct gfxbuf_file *gf, struct gfxbuf_wait *args)
{
	struct gfxbuf_job *job;
	long left;

	if (args->pad)
		return -EINVAL;
	mutex_lock(&gf->lock);
	job = xa_load(&gf->jobs, args->fence);
	mutex_unlock(&gf->lock);
	if (!job)
		return -ENOENT;

	left = wait_event_interruptible_timeout(gf->wq, gfxbuf_done(gf, args->fence),
						msecs_to_jiffies(args->timeout_ms));
	if (left < 0)
		return left;
	if (!gfxbuf_done(gf, args->fence))
		return -ETIME;

	mutex_lock(&gf->lock);
	job = xa_erase(&gf->jobs, args->fence);
	if (job)
		gf->njobs--;
	mutex_unlock(&gf->lock);
	if (!job)
		return -ENOENT;	/* another thread waited for it first */
	args->result = job->result;
	kfree(job);
	return 0;
}

static int gfxbuf_bo_info(struct gfxbuf_file *gf, struct gfxbuf_bo_info *args)
{
	u64 __user *upfns = u64_to_user_ptr(args->pfns);
	struct gfxbuf_bo *bo;
	u64 *pfns;
	u32 i, n;
	int ret = 0;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	bo = gfxbuf_bo_get(gf, args->handle);
	if (!bo)
		return -ENOENT;
	n = min(args->pages, bo->npages);
	pfns = kvcalloc(max(n, 1U), sizeof(*pfns), GFP_KERNEL | __GFP_NOWARN);
	if (!pfns) {
		gfxbuf_bo_put(bo);
		return -ENOMEM;
	}
	/* snapshot, then copy out without the lock: the buffer may fault */
	mutex_lock(&bo->lock);
	for (i = 0; i < n; i++)
		pfns[i] = bo->gart[i];
	mutex_unlock(&bo->lock);
	if (copy_to_user(upfns, pfns, n * sizeof(*pfns)))
		ret = -EFAULT;
	args->pages = bo->npages;
	kvfree(pfns);
	gfxbuf_bo_put(bo);
	return ret;
}

static void gfxbuf_stats(struct gfxbuf_file *gf, struct gfxbuf_stats *out)
{
	struct movable_pool_stats s = {};

	memset(out, 0, sizeof(*out));
	movable_pool_get_stats(gf->pool, &s);
	out->movable = 1;
	out->pages = s.pages;
	out->pinned = s.pinned;
	out->isolated = s.isolated;
	out->migrating = s.migrating;
	out->allocated = s.allocated;
	out->freed = s.freed;
	out->migrated = s.migrated;
	out->migrate_failed = s.migrate_failed;
	out->putback = s.putback;
	out->pin_refused = s.pin_refused;
	out->pin_busy = s.pin_busy;
	out->routine_busy = s.routine_busy;
	out->routine_failed = s.routine_failed;
	out->freed_isolated = s.freed_isolated;
}

/*
 * Take @gf's device away, as a PCI driver's remove() does while files
 * stay open and mapped: no new jobs or BOs, the engine idle (jobs pin
 * pages), every page freed (the driver's duty before destroy), the pool
 * destroyed. BOs, the file and its VMAs live on: their faults find no
 * page and get SIGBUS. A fault or mmap() already inside the library meets
 * a destroyed pool there, which it finds through the file.
 */
static void gfxbuf_unplug(struct gfxbuf_file *gf)
{
	struct gfxbuf_bo *bo;
	u64 last;

	WRITE_ONCE(gf->unplugged, true);
	/* calls that entered before are done, later ones are refused */
	synchronize_srcu(&gfxbuf_srcu);
	mutex_lock(&gf->lock);
	last = gf->next_fence;
	mutex_unlock(&gf->lock);
	wait_event(gf->wq, gfxbuf_done(gf, last));

	mutex_lock(&gf->lock);
	list_for_each_entry(bo, &gf->all_bos, node)
		gfxbuf_bo_free_pages(bo);
	mutex_unlock(&gf->lock);
	/* a BO release that took a page before we did has freed it */
	synchronize_srcu(&gfxbuf_srcu);
	movable_pool_destroy(gf->pool);
}

/* Unplug every open file; files opened later get a new pool. */
static void gfxbuf_unplug_all(void)
{
	struct gfxbuf_file *gf;

	mutex_lock(&gfxbuf_files_lock);
	list_for_each_entry(gf, &gfxbuf_files, node)
		if (!gf->unplugged)
			gfxbuf_unplug(gf);
	mutex_unlock(&gfxbuf_files_lock);
}

static long gfxbuf_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct gfxbuf_file *gf = file->private_data;
	void __user *uarg = (void __user *)arg;
	union {
		struct gfxbuf_create create;
		struct gfxbuf_submit submit;
		struct gfxbuf_wait wait;
		struct gfxbuf_bo_info info;
		struct gfxbuf_stats stats;
		u32 handle;
	} a;
	unsigned int size = _IOC_SIZE(cmd);
	long ret;
	int idx;

	switch (cmd) {
	case GFXBUF_IOC_CREATE:
	case GFXBUF_IOC_DESTROY:
	case GFXBUF_IOC_SUBMIT:
	case GFXBUF_IOC_WAIT:
	case GFXBUF_IOC_BO_INFO:
	case GFXBUF_IOC_STATS:
		break;
	case GFXBUF_IOC_UNPLUG:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		gfxbuf_unplug_all();
		return 0;
	default:
		return -ENOTTY;
	}
	if ((_IOC_DIR(cmd) & _IOC_WRITE) && copy_from_user(&a, uarg, size))
		return -EFAULT;

	/* it may sleep for long, and uses no page: an unplug need not wait */
	if (cmd == GFXBUF_IOC_WAIT) {
		ret = gfxbuf_wait(gf, &a.wait);
		goto out;
	}
	idx = srcu_read_lock(&gfxbuf_srcu);
	/* once unplugged, all that is left is to let go */
	if (READ_ONCE(gf->unplugged) && cmd != GFXBUF_IOC_DESTROY) {
		ret = -ENODEV;
		goto unlock;
	}
	switch (cmd) {
	case GFXBUF_IOC_CREATE:
		ret = gfxbuf_create(gf, &a.create);
		break;
	case GFXBUF_IOC_DESTROY:
		ret = gfxbuf_destroy(gf, a.handle);
		break;
	case GFXBUF_IOC_SUBMIT:
		ret = gfxbuf_submit(gf, &a.submit);
		break;
	case GFXBUF_IOC_BO_INFO:
		ret = gfxbuf_bo_info(gf, &a.info);
		break;
	default:
		gfxbuf_stats(gf, &a.stats);
		ret = 0;
		break;
	}
unlock:
	srcu_read_unlock(&gfxbuf_srcu, idx);
out:
	if (!ret && (_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &a, size))
		ret = -EFAULT;
	return ret;
}

static void gfxbuf_vm_open(struct vm_area_struct *vma)
{
	struct gfxbuf_bo *bo = vma->vm_private_data;

	kref_get(&bo->ref);
}

static void gfxbuf_vm_close(struct vm_area_struct *vma)
{
	gfxbuf_bo_put(vma->vm_private_data);
}

static vm_fault_t gfxbuf_vm_fault(struct vm_fault *vmf)
{
	struct gfxbuf_bo *bo = vmf->vma->vm_private_data;
	pgoff_t i = vmf->pgoff - bo->pgoff;
	struct page *page;
	vm_fault_t ret;

	if (i >= bo->npages)
		return VM_FAULT_SIGBUS;
	/* look up under the BO lock, insert without it (see the header) */
	mutex_lock(&bo->lock);
	page = bo->pages[i];
	if (page)
		get_page(page);
	mutex_unlock(&bo->lock);
	if (!page)
		return VM_FAULT_SIGBUS;	/* unplugged */
	/* an unplug may destroy the pool now: the library copes (SIGBUS) */
	ret = movable_pool_insert_pfn(bo->gf->pool, vmf, page);
	put_page(page);
	return ret;
}

static const struct vm_operations_struct gfxbuf_vm_ops = {
	.open	= gfxbuf_vm_open,
	.close	= gfxbuf_vm_close,
	.fault	= gfxbuf_vm_fault,
};

static int gfxbuf_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct gfxbuf_file *gf = file->private_data;
	pgoff_t first = vma->vm_pgoff & (gf->stride - 1);
	struct gfxbuf_bo *bo;
	int ret;

	/*
	 * By PFN: vm_insert_page() would keep a pool page from moving. The
	 * library refuses private mappings, offsets no pool page can have,
	 * and a pool an unplug destroyed: its errno is what the user gets.
	 */
	ret = movable_pool_mmap(gf->pool, vma);
	if (ret)
		return ret;
	if (vma->vm_pgoff / gf->stride > gfxbuf_max_handle(gf))
		return -EINVAL;
	bo = gfxbuf_bo_get(gf, vma->vm_pgoff / gf->stride);
	if (!bo)
		return -ENOENT;
	if (first + vma_pages(vma) > bo->npages) {
		gfxbuf_bo_put(bo);
		return -EINVAL;
	}
	vma->vm_private_data = bo;
	vma->vm_ops = &gfxbuf_vm_ops;
	return 0;
}

static const struct file_operations gfxbuf_fops = {
	.owner		= THIS_MODULE,
	.open		= gfxbuf_open,
	.release	= gfxbuf_release,
	.unlocked_ioctl	= gfxbuf_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= gfxbuf_mmap,
};

/* for everyone, like a GPU's render node: its uapi is built for that */
static struct miscdevice gfxbuf_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "gfxbuf",
	.fops	= &gfxbuf_fops,
	.mode	= 0666,
};

static int __init gfxbuf_init(void)
{
	int ret;

	ret = init_srcu_struct(&gfxbuf_srcu);
	if (ret)
		return ret;
	/* ordered: one engine, jobs complete in submission order */
	gfxbuf_engine = alloc_ordered_workqueue("gfxbuf_engine", 0);
	if (!gfxbuf_engine) {
		ret = -ENOMEM;
		goto err_srcu;
	}
	ret = misc_register(&gfxbuf_misc);
	if (ret)
		goto err_engine;
	pr_info("ready\n");
	return 0;

err_engine:
	destroy_workqueue(gfxbuf_engine);
err_srcu:
	cleanup_srcu_struct(&gfxbuf_srcu);
	return ret;
}

static void __exit gfxbuf_exit(void)
{
	misc_deregister(&gfxbuf_misc);
	/* runs what is queued: jobs of closed files free their state */
	destroy_workqueue(gfxbuf_engine);
	cleanup_srcu_struct(&gfxbuf_srcu);
}

module_init(gfxbuf_init);
module_exit(gfxbuf_exit);

MODULE_DESCRIPTION("Sample graphics-buffer driver with movable pages");
MODULE_LICENSE("GPL");
MOVABLE_POOL_IMPORT_NS();
