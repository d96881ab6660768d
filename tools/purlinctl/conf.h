/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: the JSON configuration file, in the layout nvmetcli saves:
 * {"hosts": [...], "ports": [...], "subsystems": [...]}.
 */
#ifndef PURLINCTL_CONF_H
#define PURLINCTL_CONF_H

#include <json-c/json.h>

#include "model.h"

/* Parse text; errors are reported as "SOURCE: where: what". */
int pl_conf_parse(const char *text, const char *source, struct pl_node **root);
/* Read and parse FILE, or standard input for "-". */
int pl_conf_load(const char *file, struct pl_node **root);
/*
 * Attribute names neither Purlin nor nvmet has, nor the target (live)
 * shows, are refused by pl_conf_check() (a typo such as "serail") unless
 * this is set (restore --force: a newer kernel's attribute).
 */
extern bool pl_conf_allow_unknown;
/*
 * Check every id and value, cross-field rules and links. A link must name
 * an object of the file, or of live when given. Reports every problem.
 */
int pl_conf_check(const struct pl_node *root, const struct pl_node *live, const char *source);

/* One object (and its children) as nvmetcli writes it, keys sorted. */
struct json_object *pl_conf_node_json(const struct pl_node *node);
/* Pretty-printed document with a trailing newline. */
char *pl_conf_dump(const struct pl_node *root);
/* Write atomically (mode 0600) to FILE, or to standard output for "-". */
int pl_conf_save(const struct pl_node *root, const char *file);

#endif
