// SPDX-License-Identifier: GPL-2.0
/*
 * A directory tree that behaves like Linux's nvmet configfs, enough for
 * purlinctl's tests: mkdir creates the attribute files and default groups
 * the kernel would, rmdir removes them (and refuses non-empty groups),
 * and writes and links follow the kernel's rules that constrain ordering:
 *   - port addr_/param_ writes fail with EACCES while subsystems are linked
 *   - namespace device attributes fail with EBUSY while it is enabled
 *   - enabling a namespace without a device path fails with ENOENT
 *   - allowed_hosts links fail with EINVAL while allow_any_host is 1, and
 *     allow_any_host=1 fails while allowed_hosts is not empty
 *   - linking a subsystem into a port without a transport fails with EINVAL
 * It lives in the tests only: purlinctl itself talks to real configfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs.h"
#include "harness.h"

bool fake_old_nvmet;

enum fake_kind {
	FK_NONE,
	FK_HOST,
	FK_SUBSYS,
	FK_NS,
	FK_PORT,
	FK_REFERRAL,
	FK_ANA,
	FK_ALLOWED_LINK,
	FK_PORT_LINK,
};

struct fake_file {
	const char *name;
	const char *value;
};

static const struct fake_file subsys_files[] = {
	{ "attr_allow_any_host", "0" }, { "attr_serial", "1a2b3c4d5e6f7081" },
	{ "attr_model", "Linux" },      { "attr_firmware", "6.1.0" },
	{ "attr_version", "1.3" },      { "attr_ieee_oui", "0x000000" },
	{ "attr_cntlid_min", "1" },     { "attr_cntlid_max", "65519" },
	{ "attr_qid_max", "128" },      { "attr_pi_enable", "0" },
	{ NULL, NULL },
};

static const struct fake_file ns_files[] = {
	{ "device_path", "" },
	{ "device_uuid", "00000000-0000-0000-0000-000000000000" },
	{ "device_nguid", "00000000-0000-0000-0000-000000000000" },
	{ "enable", "0" },
	{ "ana_grpid", "1" },
	{ "buffered_io", "0" },
	{ "revalidate_size", "" },
	{ NULL, NULL },
};

static const struct fake_file port_files[] = {
	{ "addr_trtype", "" },
	{ "addr_adrfam", "" },
	{ "addr_traddr", "" },
	{ "addr_trsvcid", "" },
	{ "addr_treq", "not specified" },
	{ "param_inline_data_size", "-1" },
	{ "param_max_queue_size", "-1" },
	{ NULL, NULL },
};

static const struct fake_file referral_files[] = {
	{ "addr_trtype", "" },
	{ "addr_adrfam", "" },
	{ "addr_traddr", "" },
	{ "addr_trsvcid", "" },
	{ "addr_treq", "not specified" },
	{ "addr_portid", "0" },
	{ "enable", "0" },
	{ NULL, NULL },
};

static const struct fake_file ana_files[] = {
	{ "ana_state", "inaccessible" },
	{ NULL, NULL },
};

static const struct fake_file host_files[] = {
	{ "dhchap_hash", "hmac(sha256)" },
	{ NULL, NULL },
};

static const char *const subsys_groups[] = { "namespaces", "allowed_hosts", NULL };
static const char *const port_groups[] = { "subsystems", "referrals", "ana_groups", NULL };

/* Split path (absolute, under test_root) into at most 6 components. */
static size_t split(const char *path, char parts[6][256])
{
	const char *p = path + strlen(test_root);
	size_t n = 0;

	while (*p == '/')
		p++;
	while (*p && n < 6) {
		size_t len = strcspn(p, "/");

		snprintf(parts[n++], 256, "%.*s", (int)len, p);
		p += len;
		while (*p == '/')
			p++;
	}
	return *p ? 0 : n;
}

static enum fake_kind classify(const char *path)
{
	char c[6][256];
	size_t n = split(path, c);

	if (n == 2 && !strcmp(c[0], "hosts"))
		return FK_HOST;
	if (n == 2 && !strcmp(c[0], "subsystems"))
		return FK_SUBSYS;
	if (n == 4 && !strcmp(c[0], "subsystems") && !strcmp(c[2], "namespaces"))
		return FK_NS;
	if (n == 4 && !strcmp(c[0], "subsystems") && !strcmp(c[2], "allowed_hosts"))
		return FK_ALLOWED_LINK;
	if (n == 2 && !strcmp(c[0], "ports"))
		return FK_PORT;
	if (n == 4 && !strcmp(c[0], "ports") && !strcmp(c[2], "referrals"))
		return FK_REFERRAL;
	if (n == 4 && !strcmp(c[0], "ports") && !strcmp(c[2], "ana_groups"))
		return FK_ANA;
	if (n == 4 && !strcmp(c[0], "ports") && !strcmp(c[2], "subsystems"))
		return FK_PORT_LINK;
	return FK_NONE;
}

static void put(const char *dir, const char *name, const char *value)
{
	char *path;
	int fd;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, value, strlen(value)) < 0 || write(fd, "\n", 1) < 0)
		abort();
	close(fd);
	free(path);
}

static char *get(const char *dir, const char *name)
{
	char *path, *val;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	val = slurp(path);
	free(path);
	if (val)
		pl_rstrip(val);
	return val;
}

static bool get_is(const char *dir, const char *name, const char *want)
{
	char *val = get(dir, name);
	bool is = val && !strcmp(val, want);

	free(val);
	return is;
}

static void populate(const char *dir, const struct fake_file *files, const char *const *groups)
{
	for (; files && files->name; files++)
		if (!(fake_old_nvmet && !strcmp(files->name, "attr_qid_max")))
			put(dir, files->name, files->value);
	for (; groups && *groups; groups++) {
		char *sub;

		if (asprintf(&sub, "%s/%s", dir, *groups) < 0 || mkdir(sub, 0755))
			abort();
		free(sub);
	}
}

static int fake_mkdir(const char *path)
{
	enum fake_kind kind = classify(path);
	const char *base = strrchr(path, '/') + 1;
	char *ana1;

	if (kind == FK_NONE || kind == FK_ALLOWED_LINK || kind == FK_PORT_LINK)
		return -EPERM;
	if (kind == FK_ANA && (strtol(base, NULL, 10) < 2 || strtol(base, NULL, 10) > 128))
		return -EINVAL;
	if (mkdir(path, 0755))
		return -errno;
	switch (kind) {
	case FK_HOST:
		populate(path, host_files, NULL);
		break;
	case FK_SUBSYS:
		populate(path, subsys_files, subsys_groups);
		break;
	case FK_NS:
		populate(path, ns_files, NULL);
		break;
	case FK_PORT:
		populate(path, port_files, port_groups);
		if (asprintf(&ana1, "%s/ana_groups/1", path) < 0 || mkdir(ana1, 0755))
			abort();
		put(ana1, "ana_state", "optimized");
		free(ana1);
		break;
	case FK_REFERRAL:
		populate(path, referral_files, NULL);
		break;
	case FK_ANA:
		populate(path, ana_files, NULL);
		break;
	default:
		break;
	}
	return 0;
}

/* A default group may hold only what allowed says (NULL: nothing). */
static bool group_empty(const char *dir, const char *group, const char *allowed)
{
	char *path;
	struct dirent *de;
	DIR *d;
	bool empty = true;

	if (asprintf(&path, "%s/%s", dir, group) < 0)
		abort();
	d = opendir(path);
	free(path);
	if (!d)
		return true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!allowed || strcmp(de->d_name, allowed)))
			empty = false;
	closedir(d);
	return empty;
}

static int fake_rmdir(const char *path)
{
	enum fake_kind kind = classify(path);
	const char *base = strrchr(path, '/') + 1;

	if (kind == FK_NONE || kind == FK_ALLOWED_LINK || kind == FK_PORT_LINK)
		return -EPERM;
	if (kind == FK_ANA && !strcmp(base, "1"))
		return -EPERM;
	if (access(path, F_OK))
		return -ENOENT;
	if (kind == FK_SUBSYS &&
	    (!group_empty(path, "namespaces", NULL) || !group_empty(path, "allowed_hosts", NULL)))
		return -ENOTEMPTY;
	if (kind == FK_PORT &&
	    (!group_empty(path, "subsystems", NULL) || !group_empty(path, "referrals", NULL) ||
	     !group_empty(path, "ana_groups", "1")))
		return -ENOTEMPTY;
	tree_rm_rf(path);
	return access(path, F_OK) ? 0 : -EIO;
}

/* The object directory an attribute file belongs to. */
static char *dir_of(const char *path)
{
	char *dir = strdup(path);

	*strrchr(dir, '/') = '\0';
	return dir;
}

static int write_rules(const char *dir, const char *name, const char *val)
{
	enum fake_kind kind = classify(dir);

	if (kind == FK_PORT && (!strncmp(name, "addr_", 5) || !strncmp(name, "param_", 6)) &&
	    !group_empty(dir, "subsystems", NULL))
		return -EACCES;
	if (kind == FK_NS && strcmp(name, "enable") && strcmp(name, "ana_grpid") &&
	    get_is(dir, "enable", "1"))
		return -EBUSY;
	if (kind == FK_NS && !strcmp(name, "enable") && !strcmp(val, "1") &&
	    get_is(dir, "device_path", ""))
		return -ENOENT;
	if (kind == FK_SUBSYS && !strcmp(name, "attr_allow_any_host") && !strcmp(val, "1") &&
	    !group_empty(dir, "allowed_hosts", NULL))
		return -EINVAL;
	if (!strcmp(name, "addr_trtype") && pl_check_trtype(val))
		return -EINVAL;
	return 0;
}

static int fake_write(const char *path, const char *val)
{
	char *dir = dir_of(path);
	int ret, fd;

	ret = write_rules(dir, strrchr(path, '/') + 1, val);
	free(dir);
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static char *obj_dir(const char *link)
{
	char *dir = dir_of(link);

	*strrchr(dir, '/') = '\0';
	return dir;
}

static int link_rules(const char *target, const char *path)
{
	enum fake_kind kind = classify(path);
	char *obj = obj_dir(path);
	int ret = 0;
	struct stat st;

	if (stat(target, &st) || !S_ISDIR(st.st_mode))
		ret = -ENOENT;
	else if (kind == FK_ALLOWED_LINK && classify(target) != FK_HOST)
		ret = -EINVAL;
	else if (kind == FK_ALLOWED_LINK && get_is(obj, "attr_allow_any_host", "1"))
		ret = -EINVAL;
	else if (kind == FK_PORT_LINK && classify(target) != FK_SUBSYS)
		ret = -EINVAL;
	else if (kind == FK_PORT_LINK && get_is(obj, "addr_trtype", ""))
		ret = -EINVAL;
	else if (kind != FK_ALLOWED_LINK && kind != FK_PORT_LINK)
		ret = -EPERM;
	free(obj);
	return ret;
}

static int fake_symlink(const char *target, const char *path)
{
	int ret = link_rules(target, path);

	if (ret)
		return ret;
	return symlink(target, path) ? -errno : 0;
}

static int fake_unlink(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (!S_ISLNK(st.st_mode))
		return -EPERM;
	return unlink(path) ? -errno : 0;
}

static const struct cfs_ops fake_ops = {
	.mkdir = fake_mkdir,
	.rmdir = fake_rmdir,
	.symlink = fake_symlink,
	.unlink = fake_unlink,
	.write = fake_write,
};

void fakecfs_install(void)
{
	cfs_set_ops(&fake_ops);
}
