// SPDX-License-Identifier: GPL-2.0
/*
 * User mappings through the pool's address_space: faults through
 * movable_pool_insert_pfn(), the zap before a page moves and the refault
 * onto the new page, a reader racing migration, a freed page's PTE, and the
 * misuse: private mappings (a user's, refused quietly, and a driver's), a
 * page mapped at another offset than its index, a page of another pool or
 * a stale one, vm_insert_page() on a pool page, destroy while userspace
 * still maps the pool and faults after it. A fault that finds the page
 * locked waits without mmap_lock.
 */

#include <linux/anon_inodes.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/highmem.h>
#include <linux/kthread.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>

#include "movable_pool_kunit.h"

/* A "driver" mmap: table[N] at file offset N pages, as the header asks. */
static vm_fault_t mpt_fault(struct vm_fault *vmf)
{
	struct mpt_ctx *ctx = vmf->vma->vm_private_data;
	pgoff_t slot = vmf->pgoff + ctx->fault_shift;	/* a buggy driver's */
	struct page *page = NULL;
	vm_fault_t ret;

	atomic_inc(&ctx->fault_entered);
	mutex_lock(&ctx->lock);
	if (slot < MPT_PAGES)
		page = ctx->table[slot];
	if (page)
		get_page(page);
	mutex_unlock(&ctx->lock);
	if (!page)
		return VM_FAULT_SIGBUS;
	ret = movable_pool_insert_pfn(ctx->fault_pool ?: ctx->pool, vmf, page);
	put_page(page);
	atomic_inc(&ctx->faults);
	return ret;
}

static const struct vm_operations_struct mpt_vm_ops = {
	.fault = mpt_fault,
};

static int mpt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mpt_ctx *ctx = file->private_data;
	int ret = 0;

	vma->vm_private_data = ctx;
	vma->vm_ops = &mpt_vm_ops;
	/* a driver that maps a pool page with vm_insert_page() (misuse) */
	if (ctx->insert_page) {
		ctx->insert_page_ret = vm_insert_page(vma, vma->vm_start,
						      ctx->table[0]);
		return 0;
	}
	if (ctx->raw_mmap)	/* a driver that sets the VMA up by hand */
		mp_vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	else
		ret = movable_pool_mmap(ctx->pool, vma);
	return ret;
}

static int mpt_release(struct inode *inode, struct file *file)
{
	/* only if movable_pool_open() pointed it at the pool */
	if (file->f_mapping != inode->i_mapping)
		movable_pool_release(file);
	return 0;
}

static const struct file_operations mpt_fops = {
	.mmap = mpt_mmap,
	.release = mpt_release,
};

/* A file of the test "driver", set up with movable_pool_open(). */
static struct file *mpt_file(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file;

	file = anon_inode_getfile("mpt", &mpt_fops, ctx, O_RDWR);
	if (IS_ERR(file))
		return file;
	/* anon inodes share one inode: open() sets f_mapping, as a driver's */
	if (movable_pool_open(ctx->pool, file)) {
		fput(file);
		return ERR_PTR(-ENODEV);
	}
	return file;
}

/* Give the test thread an mm of its own, if it has none yet. */
static int mpt_use_mm(void)
{
	struct mm_struct *mm;

	if (current->mm)
		return 0;
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(mm);	/* the test thread drops it on exit */
	return 0;
}

/*
 * Map @len bytes of a pool file with @flags (MAP_SHARED or MAP_PRIVATE)
 * into the test's own mm, so the test reaches it with get_user() and
 * put_user(). Returns the address or 0; *@filep is the file either way.
 */
static unsigned long mpt_user_map_flags(struct kunit *test,
					struct file **filep,
					unsigned long len, unsigned long flags)
{
	unsigned long addr;
	struct file *file;

	*filep = NULL;
	file = mpt_file(test);
	if (IS_ERR(file))
		return 0;
	if (mpt_use_mm()) {
		fput(file);
		return 0;
	}
	*filep = file;
	addr = vm_mmap(file, 0, len, PROT_READ | PROT_WRITE, flags, 0);
	return IS_ERR_VALUE(addr) ? 0 : addr;
}

static unsigned long mpt_user_map(struct kunit *test, struct file **filep,
				  unsigned long len)
{
	unsigned long addr = mpt_user_map_flags(test, filep, len, MAP_SHARED);

	if (!addr && *filep)
		fput(*filep);
	return addr;
}

static int mpt_user_word(unsigned long addr, unsigned int i, u32 *val)
{
	return get_user(*val, (u32 __user *)(addr + i * PAGE_SIZE));
}

static void test_user_mapping_follows_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file = NULL;
	unsigned long addr;
	struct page *old;
	u32 val, *p;
	int i;

	mpt_fill(test, 0, 3);
	addr = mpt_user_map(test, &file, 4 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);
		KUNIT_EXPECT_EQ(test, val, mpt_word(i, 0));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 3);

	/* the page moves: its PTE goes, and the next access maps the new one */
	old = ctx->table[1];
	KUNIT_EXPECT_EQ(test, mpt_move(old, MIGRATE_SYNC), 0);
	KUNIT_ASSERT_PTR_NE(test, ctx->table[1], old);
	KUNIT_EXPECT_EQ(test, put_user(0x5a5a5a5a, (u32 __user *)(addr + PAGE_SIZE)),
			0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 4);
	p = kmap_local_page(ctx->table[1]);
	KUNIT_EXPECT_EQ(test, p[0], 0x5a5a5a5aU);
	p[0] = mpt_word(1, 0);
	kunmap_local(p);

	/* the others kept their PTEs */
	for (i = 0; i < 3; i += 2) {
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);
		KUNIT_EXPECT_EQ(test, val, mpt_word(i, 0));
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 4);

	/* no page at offset 3: the driver's fault fails, the access too */
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 3, &val), -EFAULT);

	vm_munmap(addr, 4 * PAGE_SIZE);
	fput(file);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[i], i));
	mpt_expect_idle(test, ctx);
}

/* A user of the mapping in another thread: reads page 1 over and over. */
struct mpt_reader {
	struct mm_struct *mm;
	unsigned long addr;
	int reads, bad, errors;
};

static int mpt_reader_fn(void *data)
{
	struct mpt_reader *r = data;
	u32 val;

	kthread_use_mm(r->mm);
	while (!kthread_should_stop()) {
		if (mpt_user_word(r->addr, 1, &val))
			r->errors++;
		else if (val != mpt_word(1, 0))
			r->bad++;
		r->reads++;
		cond_resched();
	}
	kthread_unuse_mm(r->mm);
	return 0;
}

static void test_user_faults_race_migration(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_reader r = {};
	struct task_struct *task;
	struct file *file = NULL;
	struct page *page;
	int round, moved = 0;
	unsigned int cpu;

	mpt_fill(test, 0, 2);
	r.addr = mpt_user_map(test, &file, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, r.addr, 0UL);
	r.mm = current->mm;
	mmget(r.mm);
	task = kthread_create(mpt_reader_fn, &r, "mpt_reader");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, task);
	/* with two CPUs (7.x UML), read on the other one: a real race */
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu < nr_cpu_ids)
		kthread_bind(task, cpu);
	wake_up_process(task);
	for (round = 0; round < 200; round++) {
		mutex_lock(&ctx->lock);
		page = ctx->table[1];
		get_page(page);
		mutex_unlock(&ctx->lock);
		/*
		 * Under mmap_lock, as the mm's user it stands for: a zap here
		 * that nests with the reader's lets UML's flush_tlb_mm() walk
		 * the VMAs, which wants it.
		 */
		mmap_read_lock(r.mm);
		moved += mpt_move(page, round & 1 ? MIGRATE_SYNC :
				  MIGRATE_ASYNC) == 0;
		mmap_read_unlock(r.mm);
		put_page(page);
		/* let the reader run: UML on 6.1 has no preemption */
		if (!(round % 8))
			schedule_timeout_uninterruptible(1);
	}
	kthread_stop(task);
	mmput(r.mm);
	kunit_info(test, "%d migrations, %d reads, %d faults\n", moved, r.reads,
		   atomic_read(&ctx->faults));
	KUNIT_EXPECT_GT(test, moved, 0);
	KUNIT_EXPECT_GT(test, r.reads, 0);
	KUNIT_EXPECT_EQ(test, r.bad, 0);
	KUNIT_EXPECT_EQ(test, r.errors, 0);
	vm_munmap(r.addr, 2 * PAGE_SIZE);
	fput(file);
	KUNIT_EXPECT_TRUE(test, mpt_pattern_ok(ctx->table[1], 1));
	mpt_expect_idle(test, ctx);
}

static void test_free_zaps_user_mapping(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file = NULL;
	struct page *pages[1];
	unsigned long addr;
	u32 val;
	int i;

	mpt_fill(test, 0, 3);
	addr = mpt_user_map(test, &file, 3 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 3);

	/* freed one by one and in a batch, with no zap by the driver */
	movable_pool_free_page(ctx->pool, mpt_unlink(ctx, 1));
	pages[0] = mpt_unlink(ctx, 2);
	movable_pool_free_pages(ctx->pool, pages, 1);

	/* no PTE is left on them: the access faults, and the driver refuses */
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 1, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 2, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 5);
	/* the page still in the pool kept its PTE */
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 5);
	vm_munmap(addr, 3 * PAGE_SIZE);
	fput(file);
	KUNIT_EXPECT_EQ(test, mpt_stats(ctx).misuse, 0UL);
	mpt_expect_idle(test, ctx);
}

/* A user's private mapping: refused, and no warning a user could fire. */
static void test_private_mapping_refused_quietly(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	unsigned long addr;
	struct file *file;

	mpt_fill(test, 0, 1);
	addr = mpt_user_map_flags(test, &file, PAGE_SIZE, MAP_PRIVATE);
	KUNIT_EXPECT_EQ(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 0U);
	if (file)
		fput(file);
	mpt_expect_idle(test, ctx);
}

/* A driver's: a private VMA it set up by hand reaches the fault helper. */
static void test_private_mapping_fault_refused(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	unsigned long addr;
	struct file *file;
	u32 val;

	mpt_fill(test, 0, 1);
	/* the fault refuses it (vmf_insert_pfn() would BUG()) */
	ctx->raw_mmap = true;
	addr = mpt_user_map_flags(test, &file, PAGE_SIZE, MAP_PRIVATE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 1);
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	mpt_expect_idle(test, ctx);
}

static void test_fault_checks_index(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	unsigned long addr;
	struct file *file = NULL;
	u32 val;

	mpt_fill(test, 0, 3);
	ctx->fault_shift = 1;	/* offset N served with the page of index N+1 */
	addr = mpt_user_map(test, &file, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);

	ctx->fault_shift = 0;
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), 0);
	KUNIT_EXPECT_EQ(test, val, mpt_word(0, 0));
	vm_munmap(addr, 2 * PAGE_SIZE);
	fput(file);
	mpt_expect_idle(test, ctx);
}

/* The driver hands the fault helper a page of another pool: SIGBUS. */
static void test_fault_refuses_other_pools_page(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	struct movable_pool *other;
	struct page *page;
	unsigned long addr;
	struct file *file = NULL;
	u32 val;

	other = movable_pool_create("kunit-other", &mpt_ops, ctx);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, other);
	page = movable_pool_alloc_page(other, MPT_GFP, &ctx->table[0], 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, page);
	ctx->table[0] = page;
	addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	ctx->table[0] = NULL;
	movable_pool_free_page(other, page);
	movable_pool_destroy(other);
	mpt_expect_idle(test, ctx);
}

/*
 * What an architecture's fault handler does: fault at @addr until the
 * fault is other than VM_FAULT_NOPAGE ("try again"), at most @max times
 * (UML's own uaccess does not retry). Returns the last result; *@tries
 * says how many faults it took.
 */
static vm_fault_t mpt_fault_until_done(struct mm_struct *mm,
				       unsigned long addr, int max, int *tries)
{
	vm_fault_t ret = VM_FAULT_NOPAGE;

	for (*tries = 0; *tries < max && ret == VM_FAULT_NOPAGE; (*tries)++) {
		mmap_read_lock(mm);
		/* no FAULT_FLAG_ALLOW_RETRY: mmap_lock stays held */
		ret = handle_mm_fault(find_vma(mm, addr), addr, 0, NULL);
		mmap_read_unlock(mm);
	}
	return ret;
}

/*
 * A driver whose table still holds a page it freed: each fault finds the
 * page gone and the driver hands it in again. Not forever: after a bound
 * no legitimate race reaches, SIGBUS and a warning.
 */
static void test_fault_on_stale_page_ends(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	struct file *file = NULL;
	unsigned long addr;
	struct page *page;
	vm_fault_t ret;
	int tries;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	get_page(page);		/* the stale table's: the page stays allocated */
	movable_pool_free_page(ctx->pool, page);
	addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	ret = mpt_fault_until_done(current->mm, addr, 100000, &tries);
	KUNIT_EXPECT_TRUE_MSG(test, ret == VM_FAULT_SIGBUS, "fault gave %x",
			      (__force unsigned int)ret);
	kunit_info(test, "SIGBUS after %d faults\n", tries);
	KUNIT_EXPECT_GT(test, tries, 1);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	ctx->table[0] = NULL;
	put_page(page);
	mpt_expect_idle(test, ctx);
}

static int mpt_async_read(struct mpt_async *a)
{
	u32 val = 0;
	int ret;

	kthread_use_mm(a->mm);
	ret = mpt_user_word(a->addr, 0, &val);
	kthread_unuse_mm(a->mm);
	return ret ?: val != mpt_word(0, 0);
}

/*
 * A fault that finds the page being moved waits without mmap_lock, as
 * filemap_fault() does for a locked folio, so an mmap() or munmap()
 * elsewhere is not held up behind a migration (see "Lock order" in the
 * header); then it maps the page the routine moved it to.
 */
static void test_fault_retries_without_mmap_lock(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_async reader = { .ctx = ctx }, mover = { .ctx = ctx };
	struct file *file = NULL;
	unsigned long deadline;
	bool unlocked_mm = false;
	struct page *page;

	mpt_fill(test, 0, 1);
	reader.addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, reader.addr, 0UL);
	reader.mm = current->mm;
	page = ctx->table[0];
	get_page(page);
	mpt_start_held_move(test, &mover, page);
	ctx->block_in_routine = false;
	mpt_async_start(test, &reader, mpt_async_read);

	/* once the reader is in the fault, mmap_lock must be free */
	deadline = jiffies + 10 * HZ;
	while (!atomic_read(&ctx->fault_entered) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 1);
	while (!unlocked_mm && time_before(jiffies, deadline)) {
		msleep(20);
		/* as mmap() would take it (6.12 has no mmap_write_trylock()) */
		if (down_write_trylock(&reader.mm->mmap_lock)) {
			up_write(&reader.mm->mmap_lock);
			unlocked_mm = true;
		}
	}
	KUNIT_EXPECT_TRUE(test, unlocked_mm);
	KUNIT_EXPECT_FALSE(test, completion_done(&reader.done));
	complete(&ctx->release);

	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&reader.done, 10 * HZ),
			0UL);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&mover.done, 10 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, mover.ret, 0);
	KUNIT_EXPECT_EQ(test, reader.ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->faults), 2);	/* the retry */
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], ctx->watch_dst);
	vm_munmap(reader.addr, PAGE_SIZE);
	fput(file);
	put_page(page);
	put_page(ctx->watch_dst);
	mpt_expect_idle(test, ctx);
}

/*
 * remove() while userspace still maps the device: destroy zaps what is
 * mapped, and the file keeps the address_space until its release.
 */
static void test_destroy_with_live_mapping(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct file *file = NULL;
	struct page *watch[2];
	unsigned long addr;
	u32 val;
	int i;

	mpt_fill_watched(test, watch, 2);
	addr = mpt_user_map(test, &file, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), 0);

	/* the device goes: the driver forgets its pages, then the pool */
	mpt_unlink(ctx, 0);
	mpt_unlink(ctx, 1);
	/* expected: one "misuse" warning, for the pages not freed */
	KUNIT_EXPECT_EQ(test, mpt_destroy(test), 1U);
	mpt_expect_released(test, watch, 2);

	/* the mapping is empty, and the driver's fault refuses */
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, mpt_user_word(addr, i, &val), -EFAULT);
	/* the address_space outlives the pool: no use after free (KASAN) */
	vm_munmap(addr, 2 * PAGE_SIZE);
	fput(file);
}

/*
 * A fault already past the driver's lookup when the device goes: the
 * driver hands the helper its (freed) pool and a page destroy let go of.
 * The helper reaches the pool through the file, finds it dead, and gives
 * SIGBUS without touching the pool (KASAN) and without a warning.
 */
static void test_fault_after_destroy_is_sigbus(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	struct mpt_destroyer destroyer;
	struct file *file = NULL;
	struct page *watch[1];
	unsigned int before;
	unsigned long addr;
	u32 val;

	mpt_fill_watched(test, watch, 1);
	addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	mpt_destroy_begin(test, &destroyer);
	/* expected: one "misuse" warning, for the page left to destroy */
	KUNIT_EXPECT_EQ(test, mpt_destroy_end(test, &destroyer), 1U);
	/* the driver's stale pointers: its pool, the page in its table */
	ctx->fault_pool = destroyer.async.pool;
	before = mpt_misuse(ctx);
	KUNIT_EXPECT_EQ(test, mpt_user_word(addr, 0, &val), -EFAULT);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->fault_entered), 1);
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 0U);
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	ctx->fault_pool = NULL;
	ctx->table[0] = NULL;
	mpt_expect_released(test, watch, 1);
}

/*
 * A pool page mapped with vm_insert_page() would keep that mapping when it
 * moves: either the kernel refuses the insertion (7.x: a typed page) or
 * the library refuses to isolate the page.
 */
static void test_mapcount_page_not_isolated(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	unsigned long addr;
	struct file *file = NULL;
	struct page *page;

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	ctx->insert_page = true;
	addr = mpt_user_map(test, &file, PAGE_SIZE);
	KUNIT_ASSERT_NE(test, addr, 0UL);
	if (ctx->insert_page_ret) {
		kunit_info(test, "vm_insert_page() refused: %d\n",
			   ctx->insert_page_ret);
	} else {
		KUNIT_EXPECT_TRUE(test, mp_page_user_mapped(page));
		KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), -EBUSY);
		KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
		KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	}
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	/* once unmapped it moves as any other */
	KUNIT_EXPECT_EQ(test, mpt_move(page, MIGRATE_SYNC), 0);
	mpt_expect_idle(test, ctx);
}

/*
 * vm_insert_page() after the check at isolation: the library looks again
 * when it migrates the page and when the driver frees it (5.10 to 6.16;
 * 7.x refuses the insertion of a typed page itself).
 */
static void test_mapcount_seen_at_migrate_and_free(struct kunit *test)
{
	struct mpt_ctx *ctx = test->priv;
	unsigned int before = mpt_misuse(ctx);
	struct file *file = NULL;
	unsigned long addr;
	struct page *page;
	LIST_HEAD(list);

	mpt_fill(test, 0, 1);
	page = ctx->table[0];
	KUNIT_ASSERT_TRUE(test, mp_isolate_movable_page(page));
	list_add(&page->lru, &list);
	ctx->insert_page = true;
	addr = mpt_user_map(test, &file, PAGE_SIZE);
	if (!addr || ctx->insert_page_ret) {
		putback_movable_pages(&list);
		if (addr)
			vm_munmap(addr, PAGE_SIZE);
		if (file)
			fput(file);
		kunit_skip(test, "vm_insert_page() refused: %d",
			   ctx->insert_page_ret);
	}
	/* expected: a "misuse" warning per try to migrate (6.x try twice) */
	KUNIT_EXPECT_EQ(test, mp_migrate_pages(&list, MPT_GFP, MIGRATE_SYNC), 1);
	putback_movable_pages(&list);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->calls), 0);
	KUNIT_EXPECT_GE(test, mpt_misuse_since(ctx, before), 1U);
	KUNIT_EXPECT_PTR_EQ(test, ctx->table[0], page);
	/* and one for the free */
	before = mpt_misuse(ctx);
	movable_pool_free_page(ctx->pool, mpt_unlink(ctx, 0));
	KUNIT_EXPECT_EQ(test, mpt_misuse_since(ctx, before), 1U);
	vm_munmap(addr, PAGE_SIZE);
	fput(file);
	mpt_expect_idle(test, ctx);
}

static struct kunit_case movable_pool_user_mapping_cases[] = {
	KUNIT_CASE(test_user_mapping_follows_migration),
	KUNIT_CASE(test_user_faults_race_migration),
	KUNIT_CASE(test_free_zaps_user_mapping),
	KUNIT_CASE(test_private_mapping_refused_quietly),
	KUNIT_CASE(test_private_mapping_fault_refused),
	KUNIT_CASE(test_fault_checks_index),
	KUNIT_CASE(test_fault_refuses_other_pools_page),
	KUNIT_CASE(test_fault_on_stale_page_ends),
	KUNIT_CASE(test_fault_retries_without_mmap_lock),
	KUNIT_CASE(test_destroy_with_live_mapping),
	KUNIT_CASE(test_fault_after_destroy_is_sigbus),
	KUNIT_CASE(test_mapcount_page_not_isolated),
	KUNIT_CASE(test_mapcount_seen_at_migrate_and_free),
	{}
};

static struct kunit_suite movable_pool_user_mapping_suite = {
	.name = "movable_pool_user_mapping",
	.init = mpt_init,
	.exit = mpt_exit,
	.test_cases = movable_pool_user_mapping_cases,
};

kunit_test_suite(movable_pool_user_mapping_suite);

MODULE_DESCRIPTION("KUnit tests for movable_pool: user mappings");
MODULE_LICENSE("GPL");
