/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: a plan is an ordered list of configfs operations. Every
 * command that changes the target builds one, so all of them share the
 * same dry-run output, error messages and rollback.
 */
#ifndef PURLINCTL_PLAN_H
#define PURLINCTL_PLAN_H

#include <stdbool.h>
#include <stdio.h>

#include "model.h"

enum pl_op_kind {
	PL_OP_MKDIR,
	PL_OP_RMDIR,
	PL_OP_WRITE,
	PL_OP_LINK,
	PL_OP_UNLINK,
};

struct pl_op {
	enum pl_op_kind kind;
	char *path;	/* relative to the root */
	char *arg;	/* WRITE: the value; LINK, UNLINK: the target path */
	char *obj;	/* object label for messages */
	char *what;	/* attribute or action for messages */
	bool optional;	/* WRITE: skip if the target lacks the attribute */
	/* Filled in by pl_plan_exec(). */
	bool done;
	bool skipped;
	char *old;	/* WRITE: the value it replaced */
};

struct pl_plan {
	struct pl_op *v;
	size_t n;
	size_t failed;	/* index of the failed op after pl_plan_exec() */
	size_t rolled_back;
};

void pl_plan_free(struct pl_plan *plan);
void pl_plan_add(struct pl_plan *plan, enum pl_op_kind kind, const char *path, const char *arg,
		 const char *obj, const char *what);
/* Shorthands that take their path and label from a node. */
void pl_plan_mkdir(struct pl_plan *plan, const struct pl_node *node);
void pl_plan_rmdir(struct pl_plan *plan, const struct pl_node *node);
void pl_plan_write(struct pl_plan *plan, const struct pl_node *node, const char *file,
		   const char *value, bool optional);
void pl_plan_link(struct pl_plan *plan, const struct pl_node *node, const char *name, bool add);
/* Move the operations of src to the end of plan; src is left empty. */
void pl_plan_take(struct pl_plan *plan, struct pl_plan *src);

/*
 * Attribute files a plan found the target without (a restore of another
 * target's file): noted with -v each time, and gathered for one line.
 */
extern struct strv pl_unsupported;
void pl_note_unsupported(const char *obj, const char *file);

/*
 * Run the plan. On the first failure, report it, undo the completed steps
 * in reverse order and return the (negative) errno.
 */
int pl_plan_exec(struct pl_plan *plan);
/* One line per op, shell-like, paths relative to the root. */
void pl_plan_print(const struct pl_plan *plan, FILE *f);

#endif
