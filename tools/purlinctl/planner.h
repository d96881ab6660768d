/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: turn a wanted tree and the live tree into a plan.
 *
 * Restore order, chosen so that it works on a live target:
 *   1. hosts
 *   2. ports: address and parameters, then referrals and ANA groups
 *   3. subsystems: attributes, then namespaces (attributes, enable last)
 *   4. allowed_hosts links (hosts exist, allow_any_host already set)
 *   5. port -> subsystem links (this enables the port: everything is ready)
 * Removal runs the other way: links, namespace disables, directories.
 */
#ifndef PURLINCTL_PLANNER_H
#define PURLINCTL_PLANNER_H

#include "model.h"
#include "plan.h"

/*
 * Merge want into live: create missing objects, write differing values,
 * add missing links. Nothing that exists only in live is touched.
 * Attributes the target lacks are skipped (noted with -v).
 */
void pl_plan_restore(struct pl_plan *plan, const struct pl_node *want, const struct pl_node *live);
/*
 * Replace live with want (nvmetcli's restore): links want lacks are removed
 * first, then want is merged in as by pl_plan_restore(), then objects want
 * does not name are removed and a discovery NQN it does not set goes back
 * to the well-known one. Updates the live tree.
 */
void pl_plan_replace(struct pl_plan *plan, const struct pl_node *want, struct pl_node *live);
/* Create one object with its attributes and children (links excluded). */
void pl_plan_create(struct pl_plan *plan, const struct pl_node *want, bool optional);
/*
 * Bring an existing object to want. An enabled object whose gated
 * attributes change is disabled around the writes and enabled again.
 */
void pl_plan_update(struct pl_plan *plan, const struct pl_node *want, const struct pl_node *have,
		    bool optional);
/* Remove a live object with its children and every link to or from it; updates the tree. */
void pl_plan_remove(struct pl_plan *plan, struct pl_node *node);
/*
 * Remove what restoring want made (purlinctl remove): the file's port links
 * and every link to its subsystems first, then its subsystems with their
 * namespaces and allowed hosts, then its ports and hosts unless another
 * subsystem still uses them (their labels go to kept, if given).
 * Updates the live tree.
 */
void pl_plan_unload(struct pl_plan *plan, const struct pl_node *want, struct pl_node *live,
		    struct strv *kept);
/* Remove everything in the live tree; updates the tree. */
void pl_plan_clear(struct pl_plan *plan, struct pl_node *live);

#endif
