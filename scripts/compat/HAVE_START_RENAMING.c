// SPDX-License-Identifier: GPL-2.0
/* 7.x: renames lock and look up through start_renaming()/end_renaming(). */
#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>

static int __maybe_unused probe(struct vfsmount *mnt, struct dentry *dir)
{
	struct qstr from = QSTR_INIT("a", 1), to = QSTR_INIT("b", 1);
	struct renamedata rd = {};
	int ret;

	rd.mnt_idmap = mnt_idmap(mnt);
	rd.old_parent = dir;
	rd.new_parent = dir;
	ret = start_renaming(&rd, 0, &from, &to);
	if (ret)
		return ret;
	ret = vfs_rename(&rd);
	end_renaming(&rd);
	return ret;
}
