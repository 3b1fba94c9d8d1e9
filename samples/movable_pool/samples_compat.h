/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel interfaces the samples (and make bench's bench_driver) use
 * that differ between the kernels they build for; the samples themselves
 * use movable_pool only through <linux/movable_pool.h>.
 */
#ifndef _MOVABLE_POOL_SAMPLES_COMPAT_H
#define _MOVABLE_POOL_SAMPLES_COMPAT_H

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/version.h>
#include <linux/virtio_config.h>

#if KERNEL_VERSION(5, 11, 0) > LINUX_VERSION_CODE
/* kmap_local_page() came in 5.11; no sample sleeps in a mapping it makes */
#define kmap_local_page(page)	kmap_atomic(page)
#define kunmap_local(addr)	kunmap_atomic(addr)
#endif

/*
 * gfxbuf's plain pages (movable=0) are mapped by PFN too; since 6.3 the
 * VMA's flags are set through vm_flags_set().
 */
static inline void gfxbuf_vm_flags_set(struct vm_area_struct *vma,
				       vm_flags_t flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * The balloon's first two queues, both signalling @done: since 6.11,
 * virtio_find_vqs() takes an array of struct virtqueue_info instead of
 * parallel callback and name arrays.
 */
static inline int mp_balloon_find_vqs(struct virtio_device *vdev,
				      struct virtqueue *vqs[2],
				      vq_callback_t *done)
{
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
	struct virtqueue_info info[] = {
		{ "inflate", done }, { "deflate", done },
	};

	return virtio_find_vqs(vdev, 2, vqs, info, NULL);
#else
	vq_callback_t *callbacks[] = { done, done };
	static const char * const names[] = { "inflate", "deflate" };

	return virtio_find_vqs(vdev, 2, vqs, callbacks, names, NULL);
#endif
}

#endif /* _MOVABLE_POOL_SAMPLES_COMPAT_H */
