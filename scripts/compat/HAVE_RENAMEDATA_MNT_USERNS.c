// SPDX-License-Identifier: GPL-2.0
/* 6.1 and 6.2: struct renamedata carries mount user namespaces. */
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>

static int __maybe_unused probe(struct vfsmount *mnt, struct dentry *dir)
{
	struct renamedata rd = {};
	struct dentry *d;

	lock_rename(dir, dir);
	d = lookup_one_len("a", dir, 1);
	rd.old_mnt_userns = mnt_user_ns(mnt);
	rd.new_mnt_userns = mnt_user_ns(mnt);
	rd.old_dir = d_inode(dir);
	rd.new_dir = d_inode(dir);
	rd.old_dentry = d;
	rd.new_dentry = d;
	vfs_rename(&rd);
	unlock_rename(dir, dir);
	return 0;
}
