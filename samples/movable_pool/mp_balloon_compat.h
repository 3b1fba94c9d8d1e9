/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one interface of the sample balloon that differs between the kernels
 * it builds for: since 6.11, virtio_find_vqs() takes an array of
 * struct virtqueue_info instead of parallel callback and name arrays.
 */
#ifndef _MP_BALLOON_COMPAT_H
#define _MP_BALLOON_COMPAT_H

#include <linux/version.h>
#include <linux/virtio_config.h>

/* Find the device's first two queues, both signalling @done. */
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

#endif /* _MP_BALLOON_COMPAT_H */
