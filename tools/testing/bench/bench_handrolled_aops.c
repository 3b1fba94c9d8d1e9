// SPDX-License-Identifier: GPL-2.0
/*
 * The hand-rolled kind before 6.0 (bench_handrolled.c): a page was made
 * movable through the address_space_operations of an inode, here one of
 * its own on a pseudo filesystem of its own.
 */

#include <linux/fs.h>
#include <linux/migrate.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>

#include "bench_driver.h"

#define BENCH_HANDROLLED_MAGIC	0x62686e64	/* "bhnd" */

static struct vfsmount *handrolled_mnt;
static struct inode *handrolled_inode;

static int handrolled_migrate(struct address_space *mapping,
			      struct page *dst, struct page *src,
			      enum migrate_mode mode)
{
	return handrolled_move(dst, src, mode);
}

static const struct address_space_operations handrolled_aops = {
	.isolate_page	= handrolled_isolate,
	.migratepage	= handrolled_migrate,
	.putback_page	= handrolled_putback,
};

static int handrolled_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, BENCH_HANDROLLED_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type handrolled_fs = {
	.name		= "bench_handrolled",
	.init_fs_context = handrolled_init_fs_context,
	.kill_sb	= kill_anon_super,
};

int handrolled_setup(void)
{
	handrolled_mnt = kern_mount(&handrolled_fs);
	if (IS_ERR(handrolled_mnt))
		return PTR_ERR(handrolled_mnt);
	handrolled_inode = alloc_anon_inode(handrolled_mnt->mnt_sb);
	if (IS_ERR(handrolled_inode)) {
		kern_unmount(handrolled_mnt);
		return PTR_ERR(handrolled_inode);
	}
	handrolled_inode->i_mapping->a_ops = &handrolled_aops;
	return 0;
}

/* After the last page is freed: each pointed at the inode's mapping. */
void handrolled_teardown(void)
{
	iput(handrolled_inode);
	kern_unmount(handrolled_mnt);
}

void handrolled_set_movable(struct page *page)
{
	__SetPageMovable(page, handrolled_inode->i_mapping);
}
