/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gfxbuf: the sample graphics-buffer driver's userspace interface.
 *
 * Buffer objects (BOs) are created with a size in pages and named by a
 * handle; mmap() the device at the BO's mmap_offset to reach its pages.
 * Jobs for the simulated engine are submitted with a fence number and
 * waited on with GFXBUF_IOC_WAIT.
 *
 * The device is open to every user, like a GPU's render node; mmap()
 * takes MAP_SHARED only (EINVAL otherwise). Once GFXBUF_IOC_UNPLUG has
 * taken the device away from a file, its CREATE, SUBMIT, BO_INFO, STATS
 * and mmap() fail with ENODEV and its mappings give SIGBUS; DESTROY,
 * WAIT and close() still work. Files opened afterwards work as before.
 */
#ifndef _UAPI_GFXBUF_H
#define _UAPI_GFXBUF_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct gfxbuf_create - GFXBUF_IOC_CREATE
 * @pages: size in pages (in)
 * @flags: must be 0 (in)
 * @handle: the new BO (out)
 * @pad: must be 0
 * @mmap_offset: offset to pass to mmap() (out)
 */
struct gfxbuf_create {
	__u32 pages;
	__u32 flags;
	__u32 handle;
	__u32 pad;
	__u64 mmap_offset;
};

/* Job operations, each over whole pages. */
#define GFXBUF_OP_FILL		1	/* dst[i] = gfxbuf_pattern(seed, ...) */
#define GFXBUF_OP_COPY		2	/* dst[i] = src[i] */
#define GFXBUF_OP_CHECKSUM	3	/* result = gfxbuf_csum() of src */

/**
 * struct gfxbuf_submit - GFXBUF_IOC_SUBMIT
 * @op: GFXBUF_OP_* (in)
 * @seed: pattern seed for FILL (in)
 * @src: source BO handle for COPY and CHECKSUM (in)
 * @dst: destination BO handle for FILL and COPY (in)
 * @src_page: first source page (in)
 * @dst_page: first destination page (in)
 * @pages: number of pages (in)
 * @pad: must be 0
 * @fence: to wait on (out)
 */
struct gfxbuf_submit {
	__u32 op;
	__u32 seed;
	__u32 src;
	__u32 dst;
	__u32 src_page;
	__u32 dst_page;
	__u32 pages;
	__u32 pad;
	__u64 fence;
};

/**
 * struct gfxbuf_wait - GFXBUF_IOC_WAIT
 * @fence: from GFXBUF_IOC_SUBMIT (in)
 * @timeout_ms: how long to wait (in)
 * @pad: must be 0
 * @result: the checksum, for CHECKSUM jobs (out)
 *
 * Returns 0 when the job is done, -ETIME on timeout, -ENOENT for a fence
 * never issued or already waited for.
 */
struct gfxbuf_wait {
	__u64 fence;
	__u32 timeout_ms;
	__u32 pad;
	__u64 result;
};

/**
 * struct gfxbuf_bo_info - GFXBUF_IOC_BO_INFO (needs CAP_SYS_ADMIN)
 * @handle: the BO (in)
 * @pages: entries at @pfns (in); the BO's size in pages (out)
 * @pfns: user pointer to __u64[@pages], filled with the current page
 *	frame numbers (in)
 */
struct gfxbuf_bo_info {
	__u32 handle;
	__u32 pages;
	__u64 pfns;
};

/**
 * struct gfxbuf_stats - GFXBUF_IOC_STATS: this file's pool counters
 * @movable: 1 from gfxbuf, 0 from unmovable_gfxbuf (unmovable/gfxbuf.c)
 * @pages: pages held by this file's BOs
 * @pinned: pages pinned by the engine
 * @isolated: pages isolated by the VM for migration
 * @migrating: pages being migrated
 * @allocated: pages ever allocated
 * @freed: pages ever freed
 * @migrated: successful migrations
 * @migrate_failed: failed migration attempts
 * @putback: isolated pages put back unmigrated
 * @pin_refused: isolations refused because a page was pinned
 * @pin_busy: engine pins that found a page migrating and retried
 * @routine_busy: migrate routine calls that returned -EAGAIN
 * @routine_failed: migrate routine calls that returned -ENOENT
 * @freed_isolated: pages freed while isolated for migration
 *
 * As in struct movable_pool_stats; unmovable_gfxbuf counts only @pages,
 * @allocated and @freed.
 */
struct gfxbuf_stats {
	__u64 movable;
	__u64 pages;
	__u64 pinned;
	__u64 isolated;
	__u64 migrating;
	__u64 allocated;
	__u64 freed;
	__u64 migrated;
	__u64 migrate_failed;
	__u64 putback;
	__u64 pin_refused;
	__u64 pin_busy;
	__u64 routine_busy;
	__u64 routine_failed;
	__u64 freed_isolated;
};

#define GFXBUF_IOC_CREATE	_IOWR('G', 0x00, struct gfxbuf_create)
#define GFXBUF_IOC_DESTROY	_IOW('G', 0x01, __u32)
#define GFXBUF_IOC_SUBMIT	_IOWR('G', 0x02, struct gfxbuf_submit)
#define GFXBUF_IOC_WAIT		_IOWR('G', 0x03, struct gfxbuf_wait)
#define GFXBUF_IOC_BO_INFO	_IOWR('G', 0x04, struct gfxbuf_bo_info)
#define GFXBUF_IOC_STATS	_IOR('G', 0x05, struct gfxbuf_stats)
/* hot-unplug every open file, as if the device went away (CAP_SYS_ADMIN) */
#define GFXBUF_IOC_UNPLUG	_IO('G', 0x06)

/* The FILL pattern: word @word of page @page (of the job's range). */
static inline __u32 gfxbuf_pattern(__u32 seed, __u32 page, __u32 word)
{
	return seed * 0x9e3779b1u + page * 0x85ebca6bu + word * 2654435761u + 1;
}

/* CHECKSUM folds each 32-bit word in order (FNV-1a over words). */
#define GFXBUF_CSUM_INIT	0xcbf29ce484222325ull

static inline __u64 gfxbuf_csum(__u64 h, __u32 w)
{
	return (h ^ w) * 0x100000001b3ull;
}

#endif /* _UAPI_GFXBUF_H */
