// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the netdev's driver, RDMA ports, RDMA CM ToS and vendor
 * ECN/DCQCN knobs, read and written as files.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netsys.h"
#include "util.h"

const char *pl_sys_root = "";

#define CFS "/sys/kernel/config"

static const struct pl_ecn_backend backends[] = {
	/* NVIDIA's out-of-tree mlx5 stack */
	{ "mlx5 sysfs", false, "roce_np/enable/%d", "roce_rp/enable/%d", NULL, NULL,
	  "roce_np/cnp_dscp", "roce_np/cnp_802p_prio", NULL },
	/* upstream mlx5_ib */
	{ "mlx5 debugfs", false, NULL, NULL, NULL, NULL, "np_cnp_dscp", "np_cnp_prio", NULL },
	/* Broadcom's out-of-tree bnxt_re: values in hex, then "apply" */
	{ "bnxt_re configfs", true, NULL, NULL, "ecn_enable", "roce_prio", "cnp_dscp",
	  "cnp_prio", "apply" },
	/* Intel's out-of-tree irdma */
	{ "irdma configfs", false, NULL, NULL, "roce_dcqcn_enable", NULL, NULL, NULL, NULL },
};

static char *sys_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *sys_path(const char *fmt, ...)
{
	va_list ap;
	char *rel, *path;

	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		rel = NULL;
	va_end(ap);
	if (!rel)
		return xstrdup("");
	path = xasprintf("%s%s", pl_sys_root, rel);
	free(rel);
	return path;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* First line of a file without trailing blanks; 0 or -errno. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		ret = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (!ret)
		pl_rstrip(buf);
	return ret;
}

static int read_int(const char *path, int *val)
{
	char buf[64];
	long long v;
	int ret = read_line(path, buf, sizeof(buf));

	if (ret)
		return ret;
	if (!pl_parse_long(buf, 0, &v) || v < INT_MIN || v > INT_MAX)
		return -EINVAL;
	*val = (int)v;
	return 0;
}

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : (size_t)n == strlen(val) ? 0 : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int pl_sys_speed(const char *ifname)
{
	char *path = sys_path("/sys/class/net/%s/speed", ifname);
	int speed;

	if (read_int(path, &speed) || speed <= 0)
		speed = -1;
	free(path);
	return speed;
}

void pl_sys_netdevs(struct strv *out)
{
	char *path = sys_path("%s", "/sys/class/net");
	struct dirent *de;
	DIR *d = opendir(path);

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			strv_add(out, de->d_name);
	if (d)
		closedir(d);
	strv_sort(out);
	free(path);
}

void pl_sys_driver(const char *ifname, char *buf, size_t len)
{
	char *path = sys_path("/sys/class/net/%s/device/driver", ifname);
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	free(path);
	if (n <= 0) {
		snprintf(buf, len, "%s", "");
		return;
	}
	target[n] = '\0';
	snprintf(buf, len, "%s", basename(target));
}

/* Does some GID of the port belong to ifname? The first few are enough. */
static bool port_on_netdev(const char *ibdev, const char *port, const char *ifname)
{
	char name[64];
	bool found = false;

	for (int i = 0; i < 16 && !found; i++) {
		char *path = sys_path("/sys/class/infiniband/%s/ports/%s/gid_attrs/ndevs/%d",
				      ibdev, port, i);

		found = !read_line(path, name, sizeof(name)) && !strcmp(name, ifname);
		free(path);
	}
	return found;
}

static void read_port(const char *ibdev, const char *port, struct pl_rdma_port *p)
{
	char *path, buf[64], *colon;

	memset(p, 0, sizeof(*p));
	snprintf(p->ibdev, sizeof(p->ibdev), "%.63s", ibdev);
	p->port = atoi(port);
	path = sys_path("/sys/class/infiniband/%s/ports/%s/state", ibdev, port);
	if (!read_line(path, buf, sizeof(buf))) {
		colon = strchr(buf, ':');
		snprintf(p->state, sizeof(p->state), "%.31s", colon ? colon + 2 : buf);
	}
	free(path);
	path = sys_path("/sys/class/infiniband/%s/ports/%s/link_layer", ibdev, port);
	if (read_line(path, p->link_layer, sizeof(p->link_layer)))
		p->link_layer[0] = '\0';
	free(path);
	path = sys_path(CFS "/rdma_cm/%s/ports/%s/default_roce_tos", ibdev, port);
	p->tos_group = !read_int(path, &p->tos);
	if (!p->tos_group)
		p->tos = 0;
	free(path);
}

static int cmp_port(const void *a, const void *b)
{
	const struct pl_rdma_port *x = a, *y = b;
	int c = strcmp(x->ibdev, y->ibdev);

	return c ? c : x->port - y->port;
}

void pl_sys_rdma(const char *ifname, struct pl_rdma *out)
{
	char *path = sys_path("/sys/class/infiniband");
	DIR *d = opendir(path);
	struct dirent *de;

	memset(out, 0, sizeof(*out));
	free(path);
	path = sys_path(CFS "/rdma_cm");
	out->cm_cfs = is_dir(path);
	free(path);
	while (d && (de = readdir(d)) && out->n < PL_MAX_RDMA) {
		char *hw, *ports;
		DIR *pd;
		struct dirent *pe;
		bool own;

		if (de->d_name[0] == '.')
			continue;
		/* A PCI RDMA device lists itself under the netdev's device. */
		hw = sys_path("/sys/class/net/%s/device/infiniband/%s", ifname, de->d_name);
		own = is_dir(hw);
		free(hw);
		ports = sys_path("/sys/class/infiniband/%s/ports", de->d_name);
		pd = opendir(ports);
		free(ports);
		while (pd && (pe = readdir(pd)) && out->n < PL_MAX_RDMA) {
			if (pe->d_name[0] == '.')
				continue;
			if (own || port_on_netdev(de->d_name, pe->d_name, ifname))
				read_port(de->d_name, pe->d_name, &out->port[out->n++]);
		}
		if (pd)
			closedir(pd);
	}
	if (d)
		closedir(d);
	qsort(out->port, out->n, sizeof(out->port[0]), cmp_port);
}

int pl_sys_set_tos(const struct pl_rdma_port *p, int tos, struct pl_nlerr *e)
{
	char *group = sys_path(CFS "/rdma_cm/%s", p->ibdev);
	char *path = sys_path(CFS "/rdma_cm/%s/ports/%d/default_roce_tos", p->ibdev, p->port);
	char val[16];
	int ret = 0;

	if (!is_dir(group) && mkdir(group, 0755))
		ret = pl_nlerr_set(e, errno, "mkdir %s", group);
	snprintf(val, sizeof(val), "%d", tos);
	if (!ret && (ret = write_str(path, val)))
		pl_nlerr_set(e, -ret, "%s", path);
	free(group);
	free(path);
	return ret;
}

/* ---- ECN / DCQCN ---- */

static int read_knob(const struct pl_ecn *e, const char *rel, int arg)
{
	char *fmt, *path;
	int val;

	if (!rel)
		return -1;
	fmt = xasprintf("%s/%s", e->dir, rel);
	path = xasprintf(fmt, arg);
	if (read_int(path, &val))
		val = -1;
	free(fmt);
	free(path);
	return val;
}

static int write_knob(const struct pl_ecn *cur, const char *rel, int arg, int val,
		      struct pl_nlerr *e)
{
	char *fmt = xasprintf("%s/%s", cur->dir, rel);
	char *path = xasprintf(fmt, arg);
	char buf[16];
	int ret;

	snprintf(buf, sizeof(buf), cur->be->hex ? "0x%x" : "%d", val);
	ret = write_str(path, buf);
	if (ret)
		pl_nlerr_set(e, -ret, "%s", path);
	free(fmt);
	free(path);
	return ret;
}

/* Where this device's knobs would be, per backend; false if absent. */
static bool locate(const struct pl_ecn_backend *be, const char *ifname, const char *driver,
		   const struct pl_rdma *rdma, struct pl_ecn *out)
{
	char *path = NULL, dev[PATH_MAX];
	ssize_t n;

	if (be == &backends[0]) {
		path = sys_path("/sys/class/net/%s/ecn", ifname);
	} else if (be == &backends[1]) {
		char *link = sys_path("/sys/class/net/%s/device", ifname);

		n = readlink(link, dev, sizeof(dev) - 1);
		free(link);
		if (strcmp(driver, "mlx5_core") || n <= 0)
			return false;
		dev[n] = '\0';
		path = sys_path("/sys/kernel/debug/mlx5/%s/cc_params", basename(dev));
	}
	for (size_t i = 0; !path && i < rdma->n; i++) {
		char *p = be == &backends[2] ?
			sys_path(CFS "/bnxt_re/%s/ports/%d/cc", rdma->port[i].ibdev,
				 rdma->port[i].port) :
			sys_path(CFS "/irdma/%s", rdma->port[i].ibdev);

		if (is_dir(p))
			path = p;
		else
			free(p);
	}
	if (path && is_dir(path)) {
		snprintf(out->dir, sizeof(out->dir), "%s", path);
		free(path);
		return true;
	}
	free(path);
	return false;
}

/* Why there is no knob, and what would give one. */
static void explain(const char *driver, const struct pl_rdma *rdma, struct pl_ecn *out)
{
	const char *ib = rdma->n ? rdma->port[0].ibdev : "IBDEV";

	if (!strcmp(driver, "mlx5_core"))
		snprintf(out->why, sizeof(out->why),
			 "no cc_params in debugfs: mount debugfs on /sys/kernel/debug and load mlx5_ib");
	else if (!strcmp(driver, "bnxt_en"))
		snprintf(out->why, sizeof(out->why),
			 "no bnxt_re configfs group: with Broadcom's bnxt_re, mkdir %s/bnxt_re/%s",
			 CFS, ib);
	else if (!strcmp(driver, "ice"))
		snprintf(out->why, sizeof(out->why),
			 "no irdma configfs group: with Intel's irdma, mkdir %s/irdma/%s", CFS, ib);
	else
		snprintf(out->why, sizeof(out->why), "%s",
			 "no vendor ECN/DCQCN knob (sysfs, debugfs or configfs)");
}

void pl_ecn_read(const char *ifname, const char *driver, const struct pl_rdma *rdma,
		 struct pl_ecn *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ARRAY_SIZE(backends) && !out->be; i++)
		if (locate(&backends[i], ifname, driver, rdma, out))
			out->be = &backends[i];
	for (int p = 0; p < 8; p++) {
		out->np[p] = out->be ? read_knob(out, out->be->np, p) : -1;
		out->rp[p] = out->be ? read_knob(out, out->be->rp, p) : -1;
	}
	if (!out->be) {
		out->enable = out->roce_prio = out->cnp_dscp = out->cnp_prio = -1;
		explain(driver, rdma, out);
		return;
	}
	out->enable = read_knob(out, out->be->enable, 0);
	out->roce_prio = read_knob(out, out->be->roce_prio, 0);
	out->cnp_dscp = read_knob(out, out->be->cnp_dscp, 0);
	out->cnp_prio = read_knob(out, out->be->cnp_prio, 0);
}

int pl_ecn_write(const struct pl_ecn *cur, const struct pl_ecn *want, struct pl_nlerr *e)
{
	const struct pl_ecn_backend *be = cur->be;
	const struct {
		const char *rel;
		int arg, from, to;
	} knobs[] = {
		{ be->roce_prio, 0, cur->roce_prio, want->roce_prio },
		{ be->cnp_dscp, 0, cur->cnp_dscp, want->cnp_dscp },
		{ be->cnp_prio, 0, cur->cnp_prio, want->cnp_prio },
		{ be->enable, 0, cur->enable, want->enable },
	};
	bool changed = false;
	int ret = 0;

	for (int p = 0; p < 8 && !ret; p++) {
		if (be->np && cur->np[p] != want->np[p])
			ret = write_knob(cur, be->np, p, want->np[p], e);
		if (!ret && be->rp && cur->rp[p] != want->rp[p])
			ret = write_knob(cur, be->rp, p, want->rp[p], e);
	}
	for (size_t i = 0; i < ARRAY_SIZE(knobs) && !ret; i++) {
		if (!knobs[i].rel || knobs[i].from == knobs[i].to)
			continue;
		ret = write_knob(cur, knobs[i].rel, knobs[i].arg, knobs[i].to, e);
		changed = true;
	}
	if (!ret && changed && be->apply)
		ret = write_knob(cur, be->apply, 0, 1, e);
	return ret;
}
