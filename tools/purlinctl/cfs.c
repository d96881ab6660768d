// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the configfs layer. Reads are direct; the mutating calls pass
 * through one gate that counts them, so that tests can fail the nth one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs.h"

/* configfs attributes are at most one page. */
#define CFS_ATTR_MAX 4096

static char *root;
static unsigned int mutations;
static unsigned int fail_nth;
static int fail_err;

static int sys_mkdir(const char *path)
{
	return mkdir(path, 0755) ? -errno : 0;
}

static int sys_rmdir(const char *path)
{
	return rmdir(path) ? -errno : 0;
}

static int sys_symlink(const char *target, const char *path)
{
	return symlink(target, path) ? -errno : 0;
}

static int sys_unlink(const char *path)
{
	return unlink(path) ? -errno : 0;
}

/* configfs wants the whole value in a single write(). */
static int sys_write(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* A block device's st_size is its capacity, as the target will see it. */
static int sys_stat(const char *path, struct stat *st)
{
	unsigned long long size;
	int fd;

	if (stat(path, st))
		return -errno;
	if (!S_ISBLK(st->st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !ioctl(fd, BLKGETSIZE64, &size))
		st->st_size = (off_t)size;
	if (fd >= 0)
		close(fd);
	return 0;
}

static const struct cfs_ops sys_ops = {
	.mkdir = sys_mkdir,
	.rmdir = sys_rmdir,
	.symlink = sys_symlink,
	.unlink = sys_unlink,
	.write = sys_write,
	.stat = sys_stat,
};

static const struct cfs_ops *ops = &sys_ops;

void cfs_set_ops(const struct cfs_ops *new_ops)
{
	ops = new_ops ? new_ops : &sys_ops;
}

void cfs_fail_nth(unsigned int nth, int err)
{
	mutations = 0;
	fail_nth = nth;
	fail_err = err;
}

int cfs_stat_device(const char *path, struct stat *st)
{
	return (ops->stat ? ops->stat : sys_stat)(path, st);
}

unsigned int cfs_mutations(void)
{
	return mutations;
}

static int gate(void)
{
	mutations++;
	if (fail_nth && mutations == fail_nth)
		return -fail_err;
	return 0;
}

int cfs_set_root(const char *dir)
{
	char *abs = realpath(dir, NULL);
	struct stat st;

	if (!abs)
		return -errno;
	if (stat(abs, &st)) {
		free(abs);
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		free(abs);
		return -ENOTDIR;
	}
	free(root);
	root = abs;
	return 0;
}

const char *cfs_root(void)
{
	return root ? root : "";
}

char *cfs_path(const char *rel)
{
	if (!*rel)
		return xstrdup(cfs_root());
	return xasprintf("%s/%s", cfs_root(), rel);
}

enum cfs_mutation {
	MUT_MKDIR,
	MUT_RMDIR,
	MUT_SYMLINK,
	MUT_UNLINK,
	MUT_WRITE,
};

static int mutate(enum cfs_mutation m, const char *rel, const char *arg)
{
	char *path = cfs_path(rel);
	int ret = gate();

	if (ret)
		goto out;
	switch (m) {
	case MUT_MKDIR:
		ret = ops->mkdir(path);
		break;
	case MUT_RMDIR:
		ret = ops->rmdir(path);
		break;
	case MUT_SYMLINK:
		ret = ops->symlink(arg, path);
		break;
	case MUT_UNLINK:
		ret = ops->unlink(path);
		break;
	case MUT_WRITE:
		ret = ops->write(path, arg);
		break;
	}
out:
	free(path);
	return ret;
}

int cfs_mkdir(const char *rel)
{
	return mutate(MUT_MKDIR, rel, NULL);
}

int cfs_rmdir(const char *rel)
{
	return mutate(MUT_RMDIR, rel, NULL);
}

int cfs_unlink(const char *rel)
{
	return mutate(MUT_UNLINK, rel, NULL);
}

/*
 * configfs never hands an empty write to the attribute (it answers
 * EFAULT): an empty value goes as a lone newline, as echo "" writes it.
 */
int cfs_write(const char *rel, const char *val)
{
	return mutate(MUT_WRITE, rel, *val ? val : "\n");
}

/*
 * configfs resolves a symlink target against the caller's working
 * directory, not the link's, so targets are always absolute.
 */
int cfs_link(const char *target_rel, const char *rel)
{
	char *target = cfs_path(target_rel);
	int ret = mutate(MUT_SYMLINK, rel, target);

	free(target);
	return ret;
}

static int read_fd(int fd, char *buf, size_t cap)
{
	size_t len = 0;

	while (len < cap) {
		ssize_t n = read(fd, buf + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	return 0;
}

int cfs_read(const char *rel, char **val)
{
	char *path = cfs_path(rel);
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -errno;
	buf = xmalloc(CFS_ATTR_MAX + 1);
	ret = read_fd(fd, buf, CFS_ATTR_MAX);
	close(fd);
	if (ret) {
		free(buf);
		return ret;
	}
	*val = pl_rstrip(buf);
	return 0;
}

static int lstat_rel(const char *rel, struct stat *st)
{
	char *path = cfs_path(rel);
	int ret = lstat(path, st) ? -errno : 0;

	free(path);
	return ret;
}

bool cfs_exists(const char *rel)
{
	struct stat st;

	return !lstat_rel(rel, &st);
}

bool cfs_is_dir(const char *rel)
{
	struct stat st;

	return !lstat_rel(rel, &st) && S_ISDIR(st.st_mode);
}

bool cfs_writable(const char *rel)
{
	struct stat st;

	return !lstat_rel(rel, &st) && (st.st_mode & S_IWUSR);
}

static bool kind_matches(mode_t mode, enum cfs_kind kind)
{
	switch (kind) {
	case CFS_DIR:
		return S_ISDIR(mode);
	case CFS_FILE:
		return S_ISREG(mode);
	case CFS_LINK:
		return S_ISLNK(mode);
	}
	return false;
}

int cfs_list(const char *rel, enum cfs_kind kind, struct strv *out)
{
	char *path = cfs_path(rel);
	struct dirent *de;
	DIR *dir;

	dir = opendir(path);
	free(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (kind_matches(st.st_mode, kind))
			strv_add(out, de->d_name);
	}
	closedir(dir);
	strv_sort(out);
	return 0;
}
