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
 * the device is told to take the new page and give back the old one. The
 * driver keeps nothing per page: deflating takes whichever pages the pool
 * can spare (movable_pool_take_pages()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
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

#include "samples_compat.h"

/* pages per queue buffer: 1 MiB of balloon per round trip */
#define MP_BALLOON_BATCH	256
/* the device counts 4 KiB frames, whatever the guest's page size */
#define MP_BALLOON_FRAMES	(PAGE_SIZE >> VIRTIO_BALLOON_PFN_SHIFT)
/* the balloon gives way: no reserves, no retries, no OOM kills for it */
#define MP_BALLOON_GFP		(MOVABLE_POOL_GFP | __GFP_NOMEMALLOC | \
				 __GFP_NORETRY | __GFP_NOWARN)

struct mp_balloon {
	struct virtio_device *vdev;
	struct virtqueue *inflate_vq;
	struct virtqueue *deflate_vq;
	struct movable_pool *pool;	/* the balloon's pages */
	struct delayed_work resize;	/* moves the balloon to num_pages */
	wait_queue_head_t acked;	/* the device has used our buffer */
	struct dentry *debugfs;

	spinlock_t stop_lock;		/* config changes vs. remove */
	bool stopping;

	/*
	 * Guards what follows and both queues. The routine only tries it, so
	 * inflating may hold it while it allocates: a page is not the
	 * device's until it has been told, and the routine must not move it
	 * before.
	 */
	struct mutex lock;
	unsigned long nr_pages;
	struct page *batch[MP_BALLOON_BATCH];
	__virtio32 frames[MP_BALLOON_BATCH * MP_BALLOON_FRAMES];
	/* what the device was told it holds, for tests: see state_show */
	u64 told_sum, told_xor;
	unsigned long inflated, deflated;
};

static struct dentry *mp_balloon_debugfs_root;

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
		for (j = 0; j < MP_BALLOON_FRAMES; j++) {
			b->frames[n++] = cpu_to_virtio32(b->vdev, frame + j);
			b->told_sum += vq == b->inflate_vq ? (u64)frame + j :
							     -((u64)frame + j);
			b->told_xor ^= frame + j;
		}
	}
	sg_init_one(&sg, b->frames, n * sizeof(b->frames[0]));
	/*
	 * One buffer in flight at a time: only a broken device refuses it.
	 * One entry needs no indirect table, so nothing is allocated; the
	 * routine may not reclaim, hence GFP_NOWAIT all the same.
	 */
	if (WARN_ON_ONCE(virtqueue_add_outbuf(vq, &sg, 1, b, GFP_NOWAIT)))
		return;
	virtqueue_kick(vq);
	wait_event(b->acked, virtqueue_get_buf(vq, &len));
}

/*
 * The balloon's copy-and-fixup. There is nothing to copy; the device must
 * learn of both frames, the new one first. Every page of the pool is the
 * device's: pages being inflated are allocated under the lock, deflated
 * ones leave the pool under it. Waiting for the device is bounded, so even
 * MIGRATE_ASYNC may wait; only a busy lock sends the VM away.
 */
static int mp_balloon_migrate(struct movable_pool *pool, void *owner,
			      pgoff_t index, struct page *dst,
			      struct page *src, enum migrate_mode mode)
{
	struct mp_balloon *b = owner;

	if (!mutex_trylock(&b->lock))
		return -EAGAIN;
	mp_balloon_tell(b, b->inflate_vq, &dst, 1);
	mp_balloon_tell(b, b->deflate_vq, &src, 1);
	mutex_unlock(&b->lock);
	adjust_managed_page_count(src, 1);	/* the zones may differ */
	adjust_managed_page_count(dst, -1);
	return 0;
}

static const struct movable_pool_ops mp_balloon_ops = {
	.migrate = mp_balloon_migrate,
};

/* Give the device up to @nr more pages; return how many it got. */
static unsigned int mp_balloon_inflate(struct mp_balloon *b, unsigned int nr)
{
	struct page *page;
	unsigned int i, n;

	mutex_lock(&b->lock);
	/* all at once, or as many as memory allows */
	n = movable_pool_alloc_pages(b->pool, MP_BALLOON_GFP, b, 0, b->batch,
				     nr) ? 0 : nr;
	for (; n < nr; n++) {
		page = movable_pool_alloc_page(b->pool, MP_BALLOON_GFP, b, 0);
		if (IS_ERR(page))
			break;
		b->batch[n] = page;
	}
	if (n)
		mp_balloon_tell(b, b->inflate_vq, b->batch, n);
	for (i = 0; i < n; i++)
		adjust_managed_page_count(b->batch[i], -1);
	b->nr_pages += n;
	b->inflated += n;
	mutex_unlock(&b->lock);
	return n;
}

/* Take up to @nr pages back from the device and free them. */
static unsigned int mp_balloon_deflate(struct mp_balloon *b, unsigned int nr)
{
	unsigned int i, n;

	mutex_lock(&b->lock);
	/* pages the VM holds stay: they come back, or move, in a moment */
	n = movable_pool_take_pages(b->pool, b->batch, nr);
	if (n)
		mp_balloon_tell(b, b->deflate_vq, b->batch, n);
	b->nr_pages -= n;
	b->deflated += n;
	mutex_unlock(&b->lock);
	for (i = 0; i < n; i++) {
		adjust_managed_page_count(b->batch[i], 1);
		__free_page(b->batch[i]);
	}
	return n;
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
	/* short of memory, or all pages busy: the spec lets the balloon lag */
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
 * For tests to compare with what the device saw: the count, sum and xor of
 * the frames it was told it holds, beside the pool's own count of pages.
 */
static int mp_balloon_state_show(struct seq_file *m, void *unused)
{
	struct mp_balloon *b = m->private;
	struct movable_pool_stats st;

	mutex_lock(&b->lock);
	movable_pool_get_stats(b->pool, &st);
	seq_printf(m, "pages=%lu pool_pages=%lu frames=%lu sum=%llu xor=%llu inflated=%lu deflated=%lu migrated=%lu\n",
		   b->nr_pages, st.pages, b->nr_pages * MP_BALLOON_FRAMES,
		   b->told_sum, b->told_xor, b->inflated, b->deflated,
		   st.migrated);
	mutex_unlock(&b->lock);
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
	ret = mp_balloon_find_vqs(vdev, vqs, mp_balloon_acked);
	if (ret)
		goto err_pool;
	b->inflate_vq = vqs[0];
	b->deflate_vq = vqs[1];
	b->debugfs = debugfs_create_dir(dev_name(&vdev->dev),
					mp_balloon_debugfs_root);
	debugfs_create_file("state", 0444, b->debugfs, b,
			    &mp_balloon_state_fops);
	virtio_device_ready(vdev);
	mp_balloon_config_changed(vdev);
	return 0;

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
		if (!mp_balloon_deflate(b, MP_BALLOON_BATCH))
			msleep(20);	/* the VM still holds the rest */
	mp_balloon_set_actual(b);
	debugfs_remove_recursive(b->debugfs);
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
MOVABLE_POOL_IMPORT_NS();
