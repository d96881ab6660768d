// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: plan execution with rollback.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs.h"
#include "plan.h"

static const char *const op_names[] = {
	[PL_OP_MKDIR] = "mkdir",
	[PL_OP_RMDIR] = "rmdir",
	[PL_OP_WRITE] = "write",
	[PL_OP_LINK] = "link",
	[PL_OP_UNLINK] = "unlink",
};

void pl_plan_free(struct pl_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		struct pl_op *op = &plan->v[i];

		free(op->path);
		free(op->arg);
		free(op->obj);
		free(op->what);
		free(op->old);
	}
	free(plan->v);
	memset(plan, 0, sizeof(*plan));
}

void pl_plan_add(struct pl_plan *plan, enum pl_op_kind kind, const char *path, const char *arg,
		 const char *obj, const char *what)
{
	struct pl_op *op;

	plan->v = xrealloc(plan->v, (plan->n + 1) * sizeof(*plan->v));
	op = &plan->v[plan->n++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->path = xstrdup(path);
	op->arg = arg ? xstrdup(arg) : NULL;
	op->obj = xstrdup(obj);
	op->what = xstrdup(what);
}

static void add_node_op(struct pl_plan *plan, enum pl_op_kind kind, const struct pl_node *node,
			const char *what)
{
	char *path = pl_node_path(node);
	char *label = pl_node_label(node);

	pl_plan_add(plan, kind, path, NULL, label, what);
	free(path);
	free(label);
}

void pl_plan_mkdir(struct pl_plan *plan, const struct pl_node *node)
{
	add_node_op(plan, PL_OP_MKDIR, node, "create");
}

void pl_plan_rmdir(struct pl_plan *plan, const struct pl_node *node)
{
	add_node_op(plan, PL_OP_RMDIR, node, "remove");
}

void pl_plan_write(struct pl_plan *plan, const struct pl_node *node, const char *file,
		   const char *value, bool optional)
{
	char *dir = pl_node_path(node);
	char *path = *dir ? xasprintf("%s/%s", dir, file) : xstrdup(file);
	char *label = node->parent ? pl_node_label(node) : xstrdup("target");

	pl_plan_add(plan, PL_OP_WRITE, path, value, label, file);
	plan->v[plan->n - 1].optional = optional;
	free(label);
	free(path);
	free(dir);
}

void pl_plan_link(struct pl_plan *plan, const struct pl_node *node, const char *name, bool add)
{
	char *path = pl_link_path(node, name);
	char *target = pl_link_target(node, name);
	char *label = pl_node_label(node);
	char *what = xasprintf("%s/%s", pl_spec(node->type)->link_dir, name);

	pl_plan_add(plan, add ? PL_OP_LINK : PL_OP_UNLINK, path, target, label, what);
	free(what);
	free(label);
	free(target);
	free(path);
}

void pl_plan_take(struct pl_plan *plan, struct pl_plan *src)
{
	plan->v = xrealloc(plan->v, (plan->n + src->n) * sizeof(*plan->v));
	memcpy(plan->v + plan->n, src->v, src->n * sizeof(*src->v));
	plan->n += src->n;
	free(src->v);
	memset(src, 0, sizeof(*src));
}

struct strv pl_unsupported;

void pl_note_unsupported(const char *obj, const char *file)
{
	pl_note("%s: %s: not supported by this target, skipped", obj, file);
	if (!strv_has(&pl_unsupported, file))
		strv_add(&pl_unsupported, file);
}

static int run_write(struct pl_op *op)
{
	if (!cfs_exists(op->path)) {
		if (op->optional) {
			pl_note_unsupported(op->obj, op->what);
			op->skipped = true;
			return 0;
		}
		return -ENOENT;
	}
	if (cfs_read(op->path, &op->old))
		op->old = NULL;
	return cfs_write(op->path, op->arg);
}

static int run_op(struct pl_op *op)
{
	switch (op->kind) {
	case PL_OP_MKDIR:
		return cfs_mkdir(op->path);
	case PL_OP_RMDIR:
		return cfs_rmdir(op->path);
	case PL_OP_WRITE:
		return run_write(op);
	case PL_OP_LINK:
		return cfs_link(op->arg, op->path);
	case PL_OP_UNLINK:
		return cfs_unlink(op->path);
	}
	return -EINVAL;
}

/* Attributes of a directory this plan created vanish with it: no need to restore them. */
static bool inside_created_dir(const struct pl_plan *plan, size_t idx)
{
	const char *path = plan->v[idx].path;

	for (size_t j = 0; j < idx; j++) {
		const struct pl_op *op = &plan->v[j];
		size_t len = strlen(op->path);

		if (op->kind == PL_OP_MKDIR && op->done && !strncmp(path, op->path, len) &&
		    path[len] == '/')
			return true;
	}
	return false;
}

static int undo_op(const struct pl_plan *plan, size_t idx)
{
	const struct pl_op *op = &plan->v[idx];

	switch (op->kind) {
	case PL_OP_MKDIR:
		return cfs_rmdir(op->path);
	case PL_OP_WRITE:
		if (!op->old || inside_created_dir(plan, idx))
			return 0;
		return cfs_write(op->path, op->old);
	case PL_OP_LINK:
		return cfs_unlink(op->path);
	case PL_OP_UNLINK:
		return cfs_link(op->arg, op->path);
	case PL_OP_RMDIR:
		break;
	}
	return -EOPNOTSUPP;
}

static void rollback(struct pl_plan *plan)
{
	for (size_t i = plan->failed; i-- > 0;) {
		struct pl_op *op = &plan->v[i];
		int ret;

		if (!op->done || op->skipped)
			continue;
		if (op->kind == PL_OP_RMDIR) {
			pl_err("%s: removed, cannot be restored; %zu earlier steps left in place",
			       op->obj, i);
			return;
		}
		ret = undo_op(plan, i);
		if (ret)
			pl_err("rollback: %s: %s: %s", op->obj, op->what, strerror(-ret));
		plan->rolled_back++;
	}
}

/* "ports/1/addr_traddr" -> the "1" of component n (0-based), in buf. */
static const char *path_part(const char *path, int n, char *buf, size_t len)
{
	for (; n > 0 && path; n--) {
		path = strchr(path, '/');
		if (path)
			path++;
	}
	if (!path)
		return "";
	snprintf(buf, len, "%.*s", (int)strcspn(path, "/"), path);
	return buf;
}

/* A port's subsystem links, for "unlink first" advice: "S1" or "S1' (and 2 more". */
static char *port_links(const char *port)
{
	char *dir = xasprintf("ports/%s/subsystems", port), *out;
	struct strv names = { 0 };

	if (cfs_list(dir, CFS_LINK, &names) || !names.n)
		out = xstrdup("NQN");
	else if (names.n == 1)
		out = xstrdup(names.v[0]);
	else
		out = xasprintf("%s' (and the other %zu", names.v[0], names.n - 1);
	strv_free(&names);
	free(dir);
	return out;
}

/*
 * Why the target refused op with err, and what to run about it, in the
 * cases an administrator meets; NULL when the errno says all there is.
 */
static char *op_hint(const struct pl_op *op, int err)
{
	char a[256], b[256], c[256], d[256];
	const char *top = path_part(op->path, 0, a, sizeof(a));
	const char *id = path_part(op->path, 1, b, sizeof(b));
	const char *sub = path_part(op->path, 2, c, sizeof(c));
	const char *leaf = path_part(op->path, 3, d, sizeof(d));
	char *links, *hint;

	if (!strcmp(top, "ports") && op->kind == PL_OP_WRITE && err == EACCES &&
	    (!strncmp(sub, "addr_", 5) || !strncmp(sub, "param_", 6))) {
		links = port_links(id);
		hint = xasprintf("port %s is live and its address and parameters cannot change: unlink it first ('purlinctl port unlink %s %s'), then link it again", id, id, links);
		free(links);
		return hint;
	}
	if (!strcmp(top, "ports") && op->kind == PL_OP_LINK && !strcmp(sub, "subsystems")) {
		switch (err) {
		case EADDRINUSE:
			return xasprintf("another listener (another port, or nvmet-rdma) holds this address and service: choose another with 'purlinctl port set %s trsvcid SVC'", id);
		case EADDRNOTAVAIL:
			return xasprintf("no local interface has port %s's traddr (see 'ip -br addr'; change it with 'purlinctl port set %s traddr ADDR')", id, id);
		case ENODEV:
			return xstrdup("the interface with that address has no RDMA device (see 'rdma link show'; soft-RoCE: 'rdma link add rxe0 type rxe netdev DEV')");
		case EINVAL:
			return xasprintf("port %s cannot listen: set its address with 'purlinctl port set %s traddr ADDR' (see 'purlinctl port show %s')", id, id, id);
		}
	}
	if (!strcmp(top, "subsystems") && !strcmp(sub, "namespaces") && op->kind == PL_OP_WRITE &&
	    err == EBUSY)
		return xasprintf("namespace %s is enabled: disable it first ('purlinctl ns disable %s %s')", leaf, id, leaf);
	if (op->kind == PL_OP_WRITE && err == ENOENT && !cfs_exists(op->path))
		return xasprintf("this target has no %s (an older kernel, or the other target: see --target)", op->what);
	if ((err == EACCES || err == EPERM) && geteuid())
		return xstrdup("changing the target needs root: run purlinctl with sudo");
	if (err == EINVAL && op->kind == PL_OP_WRITE)
		return xstrdup("the target refused the value (its reason is in the kernel log: 'dmesg | tail')");
	return NULL;
}

static void report_failure(const struct pl_op *op, int err)
{
	char *hint = op_hint(op, err);

	if (hint)
		pl_err("%s: %s: %s: %s", op->obj, op->what, strerror(err), hint);
	else
		pl_err_obj(op->obj, op->what, err);
	free(hint);
}

int pl_plan_exec(struct pl_plan *plan)
{
	plan->failed = plan->n;
	plan->rolled_back = 0;
	for (size_t i = 0; i < plan->n; i++) {
		struct pl_op *op = &plan->v[i];
		int ret;

		pl_note("%s %s%s%s", op_names[op->kind], op->path, op->arg ? " " : "",
			op->arg ? op->arg : "");
		ret = run_op(op);
		if (ret) {
			plan->failed = i;
			report_failure(op, -ret);
			rollback(plan);
			return ret;
		}
		op->done = true;
	}
	return 0;
}

void pl_plan_print(const struct pl_plan *plan, FILE *f)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct pl_op *op = &plan->v[i];

		switch (op->kind) {
		case PL_OP_WRITE:
			fprintf(f, "write  %s = \"%s\"\n", op->path, op->arg);
			break;
		case PL_OP_LINK:
			fprintf(f, "link   %s -> %s\n", op->path, op->arg);
			break;
		default:
			fprintf(f, "%-6s %s\n", op_names[op->kind], op->path);
			break;
		}
	}
}
