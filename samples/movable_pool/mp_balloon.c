// SPDX-License-Identifier: GPL-2.0
/*
 * mp_balloon: a virtio memory balloon whose pages the VM may move.
 *
 * Written from the virtio specification ("Traditional Memory Balloon
 * Device"): the device asks for num_pages 4 KiB frames in its config space;
 * the driver hands frames over by queueing their numbers on the inflate
 * queue, takes them back through the deflate queue, and writes the
 * balloon's size to actual. Of the optional features only MUST_TELL_HOST is
 * offered, and it costs nothing: the device hears of every page before the
 * guest reuses it. Statistics, deflate-on-OOM, free page hinting, page
 * poisoning and free page reporting are left out.
 *
 * The balloon's pages come from a movable_pool, so compaction, CMA and
 * memory offlining can move them. Moving a balloon page copies nothing:
 * the device is told to take the new page and give back the old one.
 * The tables that find them (8 bytes a page, 2 MiB per GiB) come from a
 * second pool and move too: all the driver keeps in unmovable memory is a
 * directory of those table pages, 8 bytes per 2 MiB of balloon.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/movable_pool.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/virtio.h>
#include <linux/virtio_balloon.h>
#include <linux/virtio_config.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "mp_balloon_compat.h"

/* pages per queue buffer: 1 MiB of balloon per round trip */
#define MP_BALLOON_BATCH	256
/* the device counts 4 KiB frames, whatever the guest's page size */
#define MP_BALLOON_FRAMES	(PAGE_SIZE >> VIRTIO_BALLOON_PFN_SHIFT)
/* slots per table page */
#define MP_BALLOON_PER_TABLE	(PAGE_SIZE / sizeof(struct page *))
/* the balloon gives way: no reserves, no retries, no OOM kills for it */
#define MP_BALLOON_GFP		(MOVABLE_POOL_GFP | __GFP_NOMEMALLOC | \
				 __GFP_NORETRY | __GFP_NOWARN)

struct mp_balloon {
	struct virtio_device *vdev;
	struct virtqueue *inflate_vq;
	struct virtqueue *deflate_vq;
	struct movable_pool *pool;	/* the balloon's pages */
	struct movable_pool *tables;	/* the pages of its slot tables */
	struct delayed_work resize;	/* moves the balloon to num_pages */
	wait_queue_head_t acked;	/* the device has used our buffer */
	struct dentry *debugfs;

	spinlock_t stop_lock;		/* config changes vs. remove */
	bool stopping;

	/* only the resize work uses this */
	struct page *batch[MP_BALLOON_BATCH];

	/*
	 * Guards what follows and both queues. The routine takes it with the
	 * page lock held, so nothing here may wait for a pool page: pages
	 * and tables are allocated before taking it. A balloon page's index
	 * is its slot, a table page's its place in dir[].
	 */
	struct mutex lock;
	struct page **dir;		/* slot s is in table dir[s / PER] */
	unsigned long nr_tables;	/* written by resize */
	unsigned long max_tables;	/* room in dir[] */
	unsigned long nr_pages;		/* slots in use, written by resize */
	unsigned long inflated;
	unsigned long deflated;
	__virtio32 frames[MP_BALLOON_BATCH * MP_BALLOON_FRAMES];
};

static struct dentry *mp_balloon_debugfs_root;

/* Table pages have no highmem: they are read through page_address(). */
static struct page **mp_balloon_slot(struct mp_balloon *b, unsigned long slot)
{
	struct page **table = page_address(b->dir[slot / MP_BALLOON_PER_TABLE]);

	lockdep_assert_held(&b->lock);
	return &table[slot % MP_BALLOON_PER_TABLE];
}

/* Hand @nr pages to the device on @vq and wait until it has taken them. */
static void mp_balloon_tell(struct mp_balloon *b, struct virtqueue *vq,
			    struct page **pages, unsigned int nr)
{
	unsigned int i, j, len, n = 0;
	struct scatterlist sg;
	unsigned long frame;

	lockdep_assert_held(&b->lock);
	for (i = 0; i < nr; i++) {
		frame = page_to_pfn(pages[i]) * MP_BALLOON_FRAMES;
		for (j = 0; j < MP_BALLOON_FRAMES; j++)
			b->frames[n++] = cpu_to_virtio32(b->vdev, frame + j);
	}
	sg_init_one(&sg, b->frames, n * sizeof(b->frames[0]));
	/* one buffer in flight at a time: only a broken device refuses it */
	if (WARN_ON_ONCE(virtqueue_add_outbuf(vq, &sg, 1, b, GFP_KERNEL)))
		return;
	virtqueue_kick(vq);
	wait_event(b->acked, virtqueue_get_buf(vq, &len));
}

/*
 * The balloon's copy-and-fixup. There is nothing to copy; the device must
 * learn of both frames, the new one first. Waiting for it is bounded, so
 * even MIGRATE_ASYNC may wait; only a busy lock sends the VM away.
 */
static int mp_balloon_migrate(struct movable_pool *pool, void *owner,
			      pgoff_t index, struct page *dst,
			      struct page *src, enum migrate_mode mode)
{
	struct mp_balloon *b = owner;

	if (!mutex_trylock(&b->lock))
		return -EAGAIN;
	if (index >= b->nr_pages || *mp_balloon_slot(b, index) != src) {
		mutex_unlock(&b->lock);
		return -ENOENT;		/* not yet in, or on its way out */
	}
	mp_balloon_tell(b, b->inflate_vq, &dst, 1);
	mp_balloon_tell(b, b->deflate_vq, &src, 1);
	*mp_balloon_slot(b, index) = dst;
	mutex_unlock(&b->lock);
	adjust_managed_page_count(src, 1);	/* the zones may differ */
	adjust_managed_page_count(dst, -1);
	return 0;
}

/* A table page moves like any driver data: copy it, repoint dir[]. */
static int mp_balloon_migrate_table(struct movable_pool *pool, void *owner,
				    pgoff_t index, struct page *dst,
				    struct page *src, enum migrate_mode mode)
{
	struct mp_balloon *b = owner;
	int ret = -ENOENT;	/* being freed */

	if (!mutex_trylock(&b->lock))
		return -EAGAIN;
	if (index < b->nr_tables && b->dir[index] == src) {
		movable_pool_copy_page(dst, src);
		b->dir[index] = dst;
		ret = 0;
	}
	mutex_unlock(&b->lock);
	return ret;
}

static const struct movable_pool_ops mp_balloon_ops = {
	.migrate = mp_balloon_migrate,
};

static const struct movable_pool_ops mp_balloon_table_ops = {
	.migrate = mp_balloon_migrate_table,
};

/* Room for one more table page in dir[]. */
static int mp_balloon_grow_dir(struct mp_balloon *b)
{
	unsigned long max = max(2 * b->max_tables, 16UL);
	struct page **dir, **old;

	dir = kcalloc(max, sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	mutex_lock(&b->lock);
	old = b->dir;
	if (old)
		memcpy(dir, old, b->nr_tables * sizeof(*dir));
	b->dir = dir;
	b->max_tables = max;
	mutex_unlock(&b->lock);
	kfree(old);
	return 0;
}

/* Tables for @want slots, allocated outside the lock (see struct mp_balloon). */
static int mp_balloon_grow(struct mp_balloon *b, unsigned long want)
{
	struct page *table;

	while (b->nr_tables * MP_BALLOON_PER_TABLE < want) {
		if (b->nr_tables == b->max_tables && mp_balloon_grow_dir(b))
			return -ENOMEM;
		table = movable_pool_alloc_page(b->tables, GFP_KERNEL |
						__GFP_NOWARN, b, b->nr_tables);
		if (IS_ERR(table))
			return PTR_ERR(table);
		mutex_lock(&b->lock);
		b->dir[b->nr_tables++] = table;
		mutex_unlock(&b->lock);
	}
	return 0;
}

/* An empty balloon keeps no tables. */
static void mp_balloon_shrink(struct mp_balloon *b)
{
	unsigned long nr = b->nr_tables;
	struct page **dir;

	mutex_lock(&b->lock);
	dir = b->dir;
	b->dir = NULL;
	b->nr_tables = 0;
	b->max_tables = 0;
	mutex_unlock(&b->lock);
	/* the table routine finds them gone and leaves them alone */
	movable_pool_free_pages(b->tables, dir, nr);
	kfree(dir);
}

/* Give the device up to @nr more pages; return how many it got. */
static unsigned int mp_balloon_inflate(struct mp_balloon *b, unsigned int nr)
{
	unsigned long slot = b->nr_pages;
	struct page *page;
	unsigned int i, n;

	if (mp_balloon_grow(b, slot + nr))
		return 0;
	/* until they are in a table, the routine leaves these alone */
	for (n = 0; n < nr; n++) {
		page = movable_pool_alloc_page(b->pool, MP_BALLOON_GFP, b,
					       slot + n);
		if (IS_ERR(page))
			break;
		b->batch[n] = page;
	}
	if (!n)
		return 0;
	mutex_lock(&b->lock);
	mp_balloon_tell(b, b->inflate_vq, b->batch, n);
	for (i = 0; i < n; i++) {
		*mp_balloon_slot(b, slot + i) = b->batch[i];
		adjust_managed_page_count(b->batch[i], -1);
	}
	b->nr_pages += n;
	b->inflated += n;
	mutex_unlock(&b->lock);
	return n;
}

/* Take up to @nr pages back from the device and free them. */
static unsigned int mp_balloon_deflate(struct mp_balloon *b, unsigned int nr)
{
	unsigned int i;

	mutex_lock(&b->lock);
	nr = min_t(unsigned long, nr, b->nr_pages);
	for (i = 0; i < nr; i++)
		b->batch[i] = *mp_balloon_slot(b, --b->nr_pages);
	if (nr)
		mp_balloon_tell(b, b->deflate_vq, b->batch, nr);
	b->deflated += nr;
	mutex_unlock(&b->lock);
	/* past nr_pages: the routine no longer moves them */
	for (i = 0; i < nr; i++)
		adjust_managed_page_count(b->batch[i], 1);
	movable_pool_free_pages(b->pool, b->batch, nr);
	return nr;
}

static void mp_balloon_set_actual(struct mp_balloon *b)
{
	u32 actual = b->nr_pages * MP_BALLOON_FRAMES;

	virtio_cwrite_le(b->vdev, struct virtio_balloon_config, actual,
			 &actual);
}

/* One batch toward the device's num_pages; requeues itself until there. */
static void mp_balloon_resize(struct work_struct *work)
{
	struct mp_balloon *b = container_of(to_delayed_work(work),
					    struct mp_balloon, resize);
	unsigned long target, nr = b->nr_pages;
	unsigned int done;
	u32 num_pages;

	virtio_cread_le(b->vdev, struct virtio_balloon_config, num_pages,
			&num_pages);
	target = num_pages / MP_BALLOON_FRAMES;
	if (target > nr)
		done = mp_balloon_inflate(b, min(target - nr,
						 (unsigned long)MP_BALLOON_BATCH));
	else
		done = mp_balloon_deflate(b, min(nr - target,
						 (unsigned long)MP_BALLOON_BATCH));
	if (done)
		mp_balloon_set_actual(b);
	if (!b->nr_pages && b->nr_tables)
		mp_balloon_shrink(b);
	/* short of memory: the spec lets the balloon lag; try again later */
	if (b->nr_pages != target)
		queue_delayed_work(system_freezable_wq, &b->resize,
				   done ? 0 : HZ / 5);
}

static void mp_balloon_config_changed(struct virtio_device *vdev)
{
	struct mp_balloon *b = vdev->priv;
	unsigned long flags;

	spin_lock_irqsave(&b->stop_lock, flags);
	if (!b->stopping)
		mod_delayed_work(system_freezable_wq, &b->resize, 0);
	spin_unlock_irqrestore(&b->stop_lock, flags);
}

static void mp_balloon_acked(struct virtqueue *vq)
{
	struct mp_balloon *b = vq->vdev->priv;

	wake_up(&b->acked);
}

/*
 * What the device should hold, for tests to compare with what it was told:
 * the count, sum and xor of the balloon's frame numbers.
 */
static int mp_balloon_state_show(struct seq_file *m, void *unused)
{
	struct mp_balloon *b = m->private;
	struct movable_pool_stats st;
	u64 sum = 0, xor = 0, frame;
	unsigned long i, j;

	mutex_lock(&b->lock);
	for (i = 0; i < b->nr_pages; i++) {
		frame = page_to_pfn(*mp_balloon_slot(b, i)) * MP_BALLOON_FRAMES;
		for (j = 0; j < MP_BALLOON_FRAMES; j++) {
			sum += frame + j;
			xor ^= frame + j;
		}
	}
	seq_printf(m, "pages=%lu frames=%lu sum=%llu xor=%llu tables=%lu dir_bytes=%lu inflated=%lu deflated=%lu",
		   b->nr_pages, b->nr_pages * MP_BALLOON_FRAMES, sum, xor,
		   b->nr_tables, b->max_tables * sizeof(*b->dir), b->inflated,
		   b->deflated);
	mutex_unlock(&b->lock);
	movable_pool_get_stats(b->pool, &st);
	seq_printf(m, " migrated=%lu", st.migrated);
	movable_pool_get_stats(b->tables, &st);
	seq_printf(m, " tables_migrated=%lu\n", st.migrated);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mp_balloon_state);

static int mp_balloon_probe(struct virtio_device *vdev)
{
	struct virtqueue *vqs[2];
	struct mp_balloon *b;
	int ret;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->vdev = vdev;
	vdev->priv = b;
	mutex_init(&b->lock);
	spin_lock_init(&b->stop_lock);
	init_waitqueue_head(&b->acked);
	INIT_DELAYED_WORK(&b->resize, mp_balloon_resize);
	b->pool = movable_pool_create(dev_name(&vdev->dev), &mp_balloon_ops,
				      b);
	if (IS_ERR(b->pool)) {
		ret = PTR_ERR(b->pool);
		goto err_free;
	}
	b->tables = movable_pool_create("mp_balloon_tables",
					&mp_balloon_table_ops, b);
	if (IS_ERR(b->tables)) {
		ret = PTR_ERR(b->tables);
		goto err_pool;
	}
	ret = mp_balloon_find_vqs(vdev, vqs, mp_balloon_acked);
	if (ret)
		goto err_tables;
	b->inflate_vq = vqs[0];
	b->deflate_vq = vqs[1];
	b->debugfs = debugfs_create_dir(dev_name(&vdev->dev),
					mp_balloon_debugfs_root);
	debugfs_create_file("state", 0444, b->debugfs, b,
			    &mp_balloon_state_fops);
	virtio_device_ready(vdev);
	mp_balloon_config_changed(vdev);
	return 0;

err_tables:
	movable_pool_destroy(b->tables);
err_pool:
	movable_pool_destroy(b->pool);
err_free:
	kfree(b);
	return ret;
}

static void mp_balloon_remove(struct virtio_device *vdev)
{
	struct mp_balloon *b = vdev->priv;

	spin_lock_irq(&b->stop_lock);
	b->stopping = true;
	spin_unlock_irq(&b->stop_lock);
	cancel_delayed_work_sync(&b->resize);
	/* every page goes back through the deflate queue before reuse */
	while (b->nr_pages)
		mp_balloon_deflate(b, MP_BALLOON_BATCH);
	mp_balloon_set_actual(b);
	if (b->nr_tables)
		mp_balloon_shrink(b);
	debugfs_remove_recursive(b->debugfs);
	movable_pool_destroy(b->tables);
	movable_pool_destroy(b->pool);
	vdev->config->reset(vdev);
	vdev->config->del_vqs(vdev);
	kfree(b);
}

static const struct virtio_device_id mp_balloon_ids[] = {
	{ VIRTIO_ID_BALLOON, VIRTIO_DEV_ANY_ID },
	{ 0 },
};
MODULE_DEVICE_TABLE(virtio, mp_balloon_ids);

static const unsigned int mp_balloon_features[] = {
	VIRTIO_BALLOON_F_MUST_TELL_HOST,
};

static struct virtio_driver mp_balloon_driver = {
	.driver.name = KBUILD_MODNAME,
	.id_table = mp_balloon_ids,
	.feature_table = mp_balloon_features,
	.feature_table_size = ARRAY_SIZE(mp_balloon_features),
	.probe = mp_balloon_probe,
	.remove = mp_balloon_remove,
	.config_changed = mp_balloon_config_changed,
};

static int __init mp_balloon_init(void)
{
	int ret;

	mp_balloon_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = register_virtio_driver(&mp_balloon_driver);
	if (ret)
		debugfs_remove_recursive(mp_balloon_debugfs_root);
	return ret;
}

static void __exit mp_balloon_exit(void)
{
	unregister_virtio_driver(&mp_balloon_driver);
	debugfs_remove_recursive(mp_balloon_debugfs_root);
}

module_init(mp_balloon_init);
module_exit(mp_balloon_exit);

MODULE_DESCRIPTION("virtio balloon whose pages the VM may move (movable_pool sample)");
MODULE_LICENSE("GPL");
