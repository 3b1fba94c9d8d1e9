// SPDX-License-Identifier: GPL-2.0
/* Unmovable version of ../mp_balloon.c, for the lines-of-change table. */
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
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/module.h>
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
#define MP_BALLOON_GFP		(GFP_HIGHUSER | __GFP_NOMEMALLOC | \
				 __GFP_NORETRY | __GFP_NOWARN)

struct mp_balloon {
	struct virtio_device *vdev;
	struct virtqueue *inflate_vq;
	struct virtqueue *deflate_vq;
	struct delayed_work resize;	/* moves the balloon to num_pages */
	wait_queue_head_t acked;	/* the device has used our buffer */
	struct dentry *debugfs;

	spinlock_t stop_lock;		/* config changes vs. remove */
	bool stopping;

	/* guards what follows and both queues */
	struct mutex lock;
	struct list_head pages;		/* the balloon, through page->lru */
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
	/* one buffer in flight at a time: only a broken device refuses it */
	if (WARN_ON_ONCE(virtqueue_add_outbuf(vq, &sg, 1, b, GFP_KERNEL)))
		return;
	virtqueue_kick(vq);
	wait_event(b->acked, virtqueue_get_buf(vq, &len));
}

/* Give the device up to @nr more pages; return how many it got. */
static unsigned int mp_balloon_inflate(struct mp_balloon *b, unsigned int nr)
{
	struct page *page;
	unsigned int i, n;

	mutex_lock(&b->lock);
	for (n = 0; n < nr; n++) {
		page = alloc_page(MP_BALLOON_GFP);
		if (!page)
			break;
		b->batch[n] = page;
	}
	if (n)
		mp_balloon_tell(b, b->inflate_vq, b->batch, n);
	for (i = 0; i < n; i++) {
		list_add(&b->batch[i]->lru, &b->pages);
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
	unsigned int i, n;

	mutex_lock(&b->lock);
	n = min_t(unsigned long, nr, b->nr_pages);
	for (i = 0; i < n; i++) {
		b->batch[i] = list_first_entry(&b->pages, struct page, lru);
		list_del(&b->batch[i]->lru);
	}
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
	/* short of memory: the spec lets the balloon lag */
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
 * the frames it was told it holds.
 */
static int mp_balloon_state_show(struct seq_file *m, void *unused)
{
	struct mp_balloon *b = m->private;

	mutex_lock(&b->lock);
	seq_printf(m, "pages=%lu frames=%lu sum=%llu xor=%llu inflated=%lu deflated=%lu\n",
		   b->nr_pages, b->nr_pages * MP_BALLOON_FRAMES,
		   b->told_sum, b->told_xor, b->inflated, b->deflated);
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
	INIT_LIST_HEAD(&b->pages);
	spin_lock_init(&b->stop_lock);
	init_waitqueue_head(&b->acked);
	INIT_DELAYED_WORK(&b->resize, mp_balloon_resize);
	ret = mp_balloon_find_vqs(vdev, vqs, mp_balloon_acked);
	if (ret)
		goto err_free;
	b->inflate_vq = vqs[0];
	b->deflate_vq = vqs[1];
	b->debugfs = debugfs_create_dir(dev_name(&vdev->dev),
					mp_balloon_debugfs_root);
	debugfs_create_file("state", 0444, b->debugfs, b,
			    &mp_balloon_state_fops);
	virtio_device_ready(vdev);
	mp_balloon_config_changed(vdev);
	return 0;

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
	debugfs_remove_recursive(b->debugfs);
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
