// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: read the live configfs tree into a pl_node tree. Like
 * nvmetcli, only writable attributes of the known groups are taken, so
 * what is read is exactly what a restore could write back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "scan.h"

static bool wanted_file(enum pl_type type, const char *file)
{
	return pl_attr_group(type, file) || pl_is_int_key(type, file);
}

static void scan_attrs(struct pl_node *node, const char *path)
{
	struct strv files = { 0 };

	if (cfs_list(path, CFS_FILE, &files))
		return;
	for (size_t i = 0; i < files.n; i++) {
		char *rel = xasprintf("%s/%s", path, files.v[i]);
		char *val;
		int ret;

		if (wanted_file(node->type, files.v[i]) && cfs_writable(rel)) {
			ret = cfs_read(rel, &val);
			if (!ret) {
				pl_set(node, files.v[i], val);
				free(val);
			} else {
				pl_note("%s: cannot read, skipped: %s", rel, strerror(-ret));
			}
		}
		free(rel);
	}
	strv_free(&files);
}

static int scan_node(struct pl_node *node, bool top);

/* Missing child directories are tolerated below the root (older targets lack ana_groups). */
static int scan_kids(struct pl_node *node, const char *path, enum pl_type type, bool top)
{
	char *dir = xasprintf("%s%s%s", path, *path ? "/" : "", pl_spec(type)->dir);
	struct strv names = { 0 };
	int ret = cfs_list(dir, CFS_DIR, &names);

	if (ret == -ENOENT && !top)
		ret = 0;
	if (ret)
		pl_err_obj(dir, "read", -ret);
	for (size_t i = 0; !ret && i < names.n; i++)
		ret = scan_node(pl_node_new(type, names.v[i], node), false);
	strv_free(&names);
	free(dir);
	return ret;
}

static int scan_node(struct pl_node *node, bool top)
{
	const struct pl_type_spec *spec = pl_spec(node->type);
	char *path = pl_node_path(node);
	int ret = 0;

	scan_attrs(node, path);
	for (size_t k = 0; !ret && k < spec->nkids; k++)
		ret = scan_kids(node, path, spec->kids[k], top);
	if (!ret && spec->link_dir) {
		char *dir = xasprintf("%s/%s", path, spec->link_dir);

		cfs_list(dir, CFS_LINK, &node->links);
		free(dir);
	}
	free(path);
	return ret;
}

int pl_scan(struct pl_node **out)
{
	struct pl_node *root = pl_node_new(PL_ROOT, NULL, NULL);
	int ret = scan_node(root, true);

	if (ret) {
		pl_node_free(root);
		return ret;
	}
	pl_sort(root);
	*out = root;
	return 0;
}
