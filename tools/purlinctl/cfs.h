/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: the configfs layer. Every change to the target goes through
 * the five mutating calls below; paths are relative to the target root
 * (e.g. "subsystems/NQN/attr_serial"). All calls return 0 or -errno.
 */
#ifndef PURLINCTL_CFS_H
#define PURLINCTL_CFS_H

#include <stdbool.h>
#include <sys/stat.h>

#include "util.h"

/*
 * The primitive operations on absolute paths. The default set is the
 * plain system calls; the unit tests install a set that behaves like
 * configfs on an ordinary directory tree (attribute files and default
 * groups appear on mkdir and vanish on rmdir).
 */
struct cfs_ops {
	int (*mkdir)(const char *path);
	int (*rmdir)(const char *path);
	int (*symlink)(const char *target, const char *path);
	int (*unlink)(const char *path);
	int (*write)(const char *path, const char *val);
	/* stat(2) of a namespace's device path, in the world the target sees */
	int (*stat)(const char *path, struct stat *st);
};

enum cfs_kind {
	CFS_DIR,
	CFS_FILE,
	CFS_LINK,
};

int cfs_set_root(const char *root);
const char *cfs_root(void);
char *cfs_path(const char *rel);

int cfs_mkdir(const char *rel);
int cfs_rmdir(const char *rel);
/* Create rel as a symlink to the absolute path of target_rel. */
int cfs_link(const char *target_rel, const char *rel);
int cfs_unlink(const char *rel);
int cfs_write(const char *rel, const char *val);

/* Read an attribute; *val is allocated and has trailing whitespace removed. */
int cfs_read(const char *rel, char **val);
bool cfs_exists(const char *rel);
bool cfs_is_dir(const char *rel);
bool cfs_writable(const char *rel);
/* Sorted names of the entries of one kind in directory rel. */
int cfs_list(const char *rel, enum cfs_kind kind, struct strv *out);

/* stat(2) of a device path (not under the root); 0 or -errno. */
int cfs_stat_device(const char *path, struct stat *st);

/* Test hooks. */
void cfs_set_ops(const struct cfs_ops *ops);
/* Make the nth mutating call from now fail with -err (0 disarms). */
void cfs_fail_nth(unsigned int nth, int err);
/* Number of mutating calls attempted since the last cfs_fail_nth(). */
unsigned int cfs_mutations(void);

#endif
