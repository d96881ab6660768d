/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: the in-memory configuration. One tree shape serves the JSON
 * file, the live configfs tree and the restore planner; each object type
 * is described by a table entry (schema.c) instead of its own code.
 */
#ifndef PURLINCTL_MODEL_H
#define PURLINCTL_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"
#include "validate.h"

enum pl_type {
	PL_ROOT,
	PL_HOST,
	PL_SUBSYS,
	PL_NS,
	PL_PORT,
	PL_REFERRAL,
	PL_ANA,
	PL_NTYPES,
};

#define PL_MAX_KIDS 3

/* How two values of an attribute are compared to decide whether to write. */
enum pl_cmp {
	PL_CMP_STR,
	PL_CMP_NUM,	/* numerically: "0x10" equals "16" */
	PL_CMP_HEX,	/* hex digits only, any case: UUIDs and NGUIDs */
	PL_CMP_CPUS,	/* CPU lists as sets: "0,1" equals "0-1"; empty is a value too */
};

struct pl_attr_spec {
	const char *file;
	pl_check_fn check;
	enum pl_cmp cmp;
	bool live;	/* may change while the object is enabled */
};

struct pl_node;

struct pl_type_spec {
	const char *label;		/* in messages: "subsys", "port", ... */
	const char *dir;		/* configfs directory, also the JSON list key */
	const char *json_id;		/* JSON key naming the object */
	bool numeric_id;		/* the JSON id is an integer */
	pl_check_fn check_id;
	pl_check_fn warn_id;		/* accepted, but worth a warning */
	const char *const *groups;	/* attribute groups: files "<group>_<name>" */
	const char *const *int_keys;	/* files saved as top-level JSON integers */
	const struct pl_attr_spec *attrs; /* known attributes in write order */
	enum pl_type kids[PL_MAX_KIDS];
	size_t nkids;
	const char *link_dir;		/* directory of symlinks, also the JSON key */
	enum pl_type link_target;
	const char *builtin;		/* child the target creates by itself */
	const char *enable;		/* file that gates changes, if any */
	/* Cross-field check; returns a reason and the field it concerns. */
	const char *(*check)(const struct pl_node *node, const char **field);
};

struct pl_kv {
	char *name;	/* configfs file name, e.g. "attr_serial" */
	char *value;
};

struct pl_attrs {
	struct pl_kv *v;
	size_t n;
};

struct pl_nodes {
	struct pl_node **v;
	size_t n;
};

struct pl_node {
	enum pl_type type;
	char *id;
	struct pl_node *parent;
	struct pl_attrs attrs;
	struct pl_nodes kids[PL_MAX_KIDS];
	struct strv links;
};

const struct pl_type_spec *pl_spec(enum pl_type type);
const struct pl_attr_spec *pl_attr_spec(enum pl_type type, const char *file);
/* The group of a file name ("attr" for "attr_serial"), or NULL. */
const char *pl_attr_group(enum pl_type type, const char *file);
bool pl_is_int_key(enum pl_type type, const char *file);
/* Is file one of Purlin's own attributes, which nvmet does not have? */
bool pl_attr_purlin_only(enum pl_type type, const char *file);
bool pl_attr_multiline(enum pl_type type, const char *file);
/*
 * Does the value a (wanted) equal b (what the target shows), as the target
 * compares them? A wanted -1 of a port parameter equals Purlin's default.
 */
bool pl_attr_equal(enum pl_type type, const char *file, const char *a, const char *b);
/*
 * Is an empty value of file one to write (it empties a CPU list)? For
 * every other attribute an empty wanted value asks for nothing.
 */
bool pl_attr_empty_is_value(enum pl_type type, const char *file);
/* Reason why value cannot be written to file, or NULL. */
const char *pl_attr_check(enum pl_type type, const char *file, const char *value);

/* The type whose objects contain objects of type (PL_ROOT for top level). */
enum pl_type pl_parent_type(enum pl_type type);

struct pl_node *pl_node_new(enum pl_type type, const char *id, struct pl_node *parent);
void pl_node_free(struct pl_node *node);
/* Detach node from its parent and free it. */
void pl_node_remove(struct pl_node *node);
struct pl_nodes *pl_kids(struct pl_node *node, enum pl_type type);
struct pl_node *pl_find(const struct pl_node *parent, enum pl_type type, const char *id);
/* The root of the tree node belongs to. */
struct pl_node *pl_root_of(struct pl_node *node);

const char *pl_get(const struct pl_node *node, const char *file);
void pl_set(struct pl_node *node, const char *file, const char *value);
bool pl_unset(struct pl_node *node, const char *file);

/* Path relative to the configfs root, e.g. "subsystems/NQN/namespaces/1". */
char *pl_node_path(const struct pl_node *node);
/* Name in messages, e.g. "subsys NQN ns 1". */
char *pl_node_label(const struct pl_node *node);
/* Path of the object a link of node names, e.g. "hosts/NQN". */
char *pl_link_target(const struct pl_node *node, const char *name);
char *pl_link_path(const struct pl_node *node, const char *name);

/* Sort children (numerically where the id is a number), links and attributes. */
void pl_sort(struct pl_node *node);

#endif
