// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: find the target's configfs root, loading modules and
 * mounting configfs when needed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cfs.h"
#include "target.h"

#define CONFIGFS_MAGIC 0x62656570

struct target_def {
	const char *name;
	const char *const *modules;
};

static const char *const purlin_modules[] = { "purlin", NULL };
static const char *const nvmet_modules[] = { "nvmet", "nvmet-rdma", NULL };

static const struct target_def targets[] = {
	{ "purlin", purlin_modules },
	{ "nvmet", nvmet_modules },
};

static const struct target_def *find_target(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}

int pl_target_valid(const char *name)
{
	return find_target(name) != NULL;
}

/* The kernel's own modprobe helper path, as the kernel would use it. */
static char *modprobe_path(void)
{
	FILE *f = fopen("/proc/sys/kernel/modprobe", "re");
	char buf[256] = "";

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	pl_rstrip(buf);
	return xstrdup(buf[0] == '/' ? buf : "/sbin/modprobe");
}

static int modprobe(const char *module)
{
	char *path = modprobe_path();
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		free(path);
		return -errno;
	}
	if (!pid) {
		execl(path, "modprobe", "-q", module, (char *)NULL);
		_exit(127);
	}
	free(path);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ENOENT;
}

static int mount_configfs(void)
{
	struct statfs sf;

	if (!statfs(PL_CONFIGFS, &sf) && sf.f_type == CONFIGFS_MAGIC)
		return 0;
	if (mount("configfs", PL_CONFIGFS, "configfs", 0, NULL))
		return -errno;
	pl_err("mounted configfs on %s", PL_CONFIGFS);
	return 0;
}

static void load_target(const struct target_def *def, const char *dir)
{
	int ret;

	pl_err("%s not found, loading %s", dir, def->modules[0]);
	for (const char *const *m = def->modules; *m; m++) {
		ret = modprobe(*m);
		if (ret)
			pl_err("modprobe %s failed", *m);
	}
	ret = mount_configfs();
	if (ret)
		pl_err("%s: mount configfs: %s%s", PL_CONFIGFS, strerror(-ret),
		       geteuid() ? " (loading and mounting need root: run purlinctl with sudo)" : "");
}

/* dry_run: a missing target is an error; nothing is loaded or mounted. */
int pl_target_open(const char *name, const char *root, bool dry_run)
{
	const struct target_def *def = find_target(name);
	char *dir;
	int ret;

	if (root) {
		ret = cfs_set_root(root);
		if (ret)
			pl_err_obj(root, "target root", -ret);
		return ret;
	}
	if (!def)
		return -EINVAL;
	dir = xasprintf("%s/%s", PL_CONFIGFS, def->name);
	if (access(dir, F_OK) && dry_run) {
		pl_err("%s not found (dry run: not loading %s)", dir, def->modules[0]);
		free(dir);
		return -ENOENT;
	}
	if (access(dir, F_OK))
		load_target(def, dir);
	ret = cfs_set_root(dir);
	if (ret)
		pl_err("%s: %s: the %s module did not load (see 'modinfo %s' and the kernel log%s)",
		       dir, strerror(-ret), def->modules[0], def->modules[0],
		       strcmp(def->name, "purlin") ? "" :
		       "; install it with 'make install' or the purlin-dkms package");
	free(dir);
	return ret;
}
