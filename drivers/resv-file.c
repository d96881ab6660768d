// SPDX-License-Identifier: GPL-2.0
/*
 * Persist Through Power Loss to disk: the file a namespace's resv_file
 * names holds its reservation state in the resv_state text form
 * (Documentation/configfs.md).  This file only moves bytes; resv.c decides
 * when (see purlin_resv_persist() there).
 *
 * A write is atomic and durable: the text goes to "<file>.tmp" (created
 * 0600, truncated), which is fsynced and renamed over <file>; then the
 * directory is fsynced.  After a crash <file> holds the old state or the
 * new one, whole; a "<file>.tmp" left behind is never read.  Writes run on
 * purlin_resv_wq (reservation commands, Set Features Reservation
 * Persistence), never in a transport's completion or polling context.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/fs.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "purlin.h"

/*
 * Rename <dir>/<from> over <dir>/<to>.  dir is a directory's path with its
 * mount; the caller holds write access to the mount.
 */
static int purlin_rename_in(const struct path *dir, const char *from,
			    const char *to)
{
#ifdef HAVE_START_RENAMING
	struct qstr q_from = QSTR_INIT(from, strlen(from));
	struct qstr q_to = QSTR_INIT(to, strlen(to));
	struct renamedata rd = {};
	int ret;

	rd.mnt_idmap = mnt_idmap(dir->mnt);
	rd.old_parent = dir->dentry;
	rd.new_parent = dir->dentry;
	ret = start_renaming(&rd, 0, &q_from, &q_to);
	if (ret)
		return ret;
	ret = vfs_rename(&rd);
	end_renaming(&rd);
	return ret;
#elif defined(HAVE_RENAMEDATA_MNT_IDMAP) || defined(HAVE_RENAMEDATA_MNT_USERNS)
	struct renamedata rd = {};
	struct dentry *old, *new;
	int ret;

	/* One directory: lock_rename() locks it and returns no trap. */
	lock_rename(dir->dentry, dir->dentry);
	old = lookup_one_len(from, dir->dentry, strlen(from));
	ret = PTR_ERR_OR_ZERO(old);
	if (ret)
		goto unlock;
	ret = -ENOENT;
	if (d_is_negative(old))
		goto put_old;
	new = lookup_one_len(to, dir->dentry, strlen(to));
	ret = PTR_ERR_OR_ZERO(new);
	if (ret)
		goto put_old;
#ifdef HAVE_RENAMEDATA_MNT_IDMAP
	rd.old_mnt_idmap = mnt_idmap(dir->mnt);
	rd.new_mnt_idmap = mnt_idmap(dir->mnt);
#else
	rd.old_mnt_userns = mnt_user_ns(dir->mnt);
	rd.new_mnt_userns = mnt_user_ns(dir->mnt);
#endif
	rd.old_dir = d_inode(dir->dentry);
	rd.new_dir = d_inode(dir->dentry);
	rd.old_dentry = old;
	rd.new_dentry = new;
	ret = vfs_rename(&rd);
	dput(new);
put_old:
	dput(old);
unlock:
	unlock_rename(dir->dentry, dir->dentry);
	return ret;
#else
	return -EOPNOTSUPP;
#endif
}

/* resv_file cannot be used on this kernel (no rename API the probes know). */
bool purlin_resv_file_supported(void)
{
#if defined(HAVE_START_RENAMING) || defined(HAVE_RENAMEDATA_MNT_IDMAP) || \
	defined(HAVE_RENAMEDATA_MNT_USERNS)
	return true;
#else
	return false;
#endif
}

/*
 * Write len bytes of buf to a new file at path, fsynced.  keep: an inode
 * that must not be written (a namespace's backing file, which a hard link
 * at path would otherwise truncate), or NULL.
 */
static int purlin_write_new(const char *path, const char *buf, size_t len,
			    const struct inode *keep)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int ret;

	/*
	 * O_NONBLOCK: a FIFO someone put at path must not block the open
	 * (with resv->lock held) until a reader comes; it is refused below.
	 */
	f = filp_open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
		      O_LARGEFILE, 0600);
	if (IS_ERR(f))
		return PTR_ERR(f);
	ret = -EINVAL;
	if (!S_ISREG(file_inode(f)->i_mode) || file_inode(f) == keep)
		goto close;
	/* Truncated only once it is known not to be the data. */
	ret = vfs_truncate(&f->f_path, 0);
	if (ret)
		goto close;
	n = kernel_write(f, buf, len, &pos);
	ret = n < 0 ? n : n != len ? -EIO : 0;
	if (!ret)
		ret = vfs_fsync(f, 0);
close:
	filp_close(f, NULL);
	return ret;
}

/* The directory part of path (an absolute path not ending in '/'). */
static char *purlin_dirname(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash + 1;
	if (slash == path)
		return kstrdup("/", GFP_KERNEL);
	return kstrndup(path, slash - path, GFP_KERNEL);
}

/*
 * Replace the file at path with buf, atomically and durably (see the top
 * of this file).  On an error path's old content is left as it was, unless
 * *replaced says the rename was done (only the directory's fsync failed):
 * then path holds buf, maybe not durably.  keep: see purlin_write_new().
 */
int purlin_resv_file_write(const char *path, const char *buf, size_t len,
			   const struct inode *keep, bool *replaced)
{
	const char *base;
	char *tmp, *dir;
	struct path dpath;
	struct file *d;
	int ret;

	*replaced = false;
	tmp = kasprintf(GFP_KERNEL, "%s.tmp", path);
	dir = purlin_dirname(path, &base);
	ret = -ENOMEM;
	if (!tmp || !dir)
		goto out;
	ret = purlin_write_new(tmp, buf, len, keep);
	if (ret)
		goto out;
	ret = kern_path(dir, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &dpath);
	if (ret)
		goto out;
	ret = mnt_want_write(dpath.mnt);
	if (!ret) {
		ret = purlin_rename_in(&dpath, strrchr(tmp, '/') + 1, base);
		mnt_drop_write(dpath.mnt);
	}
	path_put(&dpath);
	if (ret)
		goto out;
	*replaced = true;
	/* The rename itself is durable once the directory is. */
	d = filp_open(dir, O_RDONLY | O_DIRECTORY, 0);
	if (IS_ERR(d)) {
		ret = PTR_ERR(d);
		goto out;
	}
	ret = vfs_fsync(d, 0);
	/* A file system whose directories have no fsync: as durable as it gets. */
	if (ret == -EINVAL)
		ret = 0;
	filp_close(d, NULL);
out:
	kfree(dir);
	kfree(tmp);
	return ret;
}

static ssize_t purlin_resv_file_read_now(const char *path, char *buf,
					 size_t size)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	/* O_NONBLOCK: a FIFO at path is refused, not waited on. */
	f = filp_open(path, O_RDONLY | O_NONBLOCK | O_LARGEFILE, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = -EINVAL;
	if (!S_ISREG(file_inode(f)->i_mode))
		goto close;
	n = kernel_read(f, buf, size, &pos);
	if (n == size)
		n = -EFBIG;
	else if (n >= 0)
		buf[n] = '\0';
close:
	filp_close(f, NULL);
	return n;
}

/*
 * Whether the name path, not following a final symbolic link (as the
 * write's open does not), is the inode data: another name or a hard link
 * of a namespace's backing file.  A name that does not resolve is not.
 */
static bool purlin_names_inode(const char *path, const struct inode *data)
{
	struct path p;
	bool same;

	if (kern_path(path, 0, &p))
		return false;
	same = d_backing_inode(p.dentry) == data;
	path_put(&p);
	return same;
}

/* 1 when path or "<path>.tmp" names the inode data, 0 if not, -ENOMEM. */
static int purlin_resv_file_hits_now(const char *path,
				     const struct inode *data)
{
	char *tmp;
	int hit;

	if (purlin_names_inode(path, data))
		return 1;
	tmp = kasprintf(GFP_KERNEL, "%s.tmp", path);
	if (!tmp)
		return -ENOMEM;
	hit = purlin_names_inode(tmp, data);
	kfree(tmp);
	return hit;
}

/* A read of path, or (buf NULL) a check of its names against data. */
struct purlin_resv_read {
	struct work_struct work;
	const char *path;
	char *buf;
	size_t size;
	const struct inode *data;
	ssize_t ret;
};

static void purlin_resv_read_work(struct work_struct *work)
{
	struct purlin_resv_read *r = container_of(work, struct purlin_resv_read,
						  work);

	if (r->buf)
		r->ret = purlin_resv_file_read_now(r->path, r->buf, r->size);
	else
		r->ret = purlin_resv_file_hits_now(r->path, r->data);
}

/* Run r on purlin_resv_wq and wait for it (see purlin_resv_file_read()). */
static ssize_t purlin_resv_on_wq(struct purlin_resv_read *r)
{
	might_sleep();
	INIT_WORK_ONSTACK(&r->work, purlin_resv_read_work);
	queue_work(purlin_resv_wq, &r->work);
	flush_work(&r->work);
	destroy_work_on_stack(&r->work);
	return r->ret;
}

/*
 * Read the regular file at path into buf (size bytes, NUL added, so at
 * most size - 1 of text).  Returns the length, -ENOENT when there is no
 * file, -EFBIG when it holds more than fits, or another error.
 *
 * The read runs on purlin_resv_wq, where the writes run, so that both see
 * the same file: a kernel worker's root, mounts and credentials, not those
 * of whoever wrote "enable" (a service with a private /tmp or mount
 * namespace would otherwise read one file and have another written).  The
 * caller sleeps until it is done; the work takes none of Purlin's locks.
 */
ssize_t purlin_resv_file_read(const char *path, char *buf, size_t size)
{
	struct purlin_resv_read r = {
		.path = path, .buf = buf, .size = size,
	};

	return purlin_resv_on_wq(&r);
}

/*
 * Whether a state write at path would truncate or replace the file data
 * (a namespace's file back end): 1 when path or "<path>.tmp" is another
 * name of it, 0 when neither is, -ENOMEM.  Looked up on purlin_resv_wq,
 * where the writes resolve path.
 */
int purlin_resv_file_hits(const char *path, struct file *data)
{
	struct purlin_resv_read r = {
		.path = path, .data = file_inode(data),
	};

	return purlin_resv_on_wq(&r);
}
