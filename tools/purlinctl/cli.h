/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: command line. Global options, the object table, keyword
 * arguments, and the verbs every object shares (add, set, del, list,
 * show, link) implemented once over the type table.
 */
#ifndef PURLINCTL_CLI_H
#define PURLINCTL_CLI_H

#include <stdbool.h>

#include "model.h"
#include "plan.h"

#ifndef PURLIN_VERSION
#define PURLIN_VERSION "0.0.0-dev"
#endif

#define PL_DEFAULT_CONFIG "/etc/purlin/config.json"

struct pl_ctx {
	bool json;
	bool dry_run;
	const char *target;
	const char *root;
};

struct pl_verb {
	const char *name;
	int (*run)(struct pl_ctx *ctx, int argc, char **argv);
	const char *usage;
};

struct pl_kw;

struct pl_object {
	const char *name;
	const struct pl_verb *verbs;	/* NULL-name terminated; NULL: run directly */
	int (*run)(struct pl_ctx *ctx, int argc, char **argv);
	const char *usage;
	const char *summary;
	const char *examples;		/* "OBJECT help" prints them */
	enum pl_type type;		/* the objects it configures, with kws */
	const struct pl_kw *kws;	/* its keywords, for output in their names */
};

/*
 * A keyword argument: "NAME VALUE" sets file to VALUE (converted by conv
 * when given), or a bare "NAME" flag sets file to flag.
 */
struct pl_kw {
	const char *name;
	const char *file;
	const char *(*conv)(const char *in);
	const char *flag;
};

/* Limits per tenant, keywords of hosts and namespaces (Purlin only). */
#define PL_QOS_KWS "[qos-iops N] [qos-bps N] [qos-burst-ms MS]"

/* Human table columns: a file name, or "@id", "@parent", "@links", "@inbound", "@count". */
struct pl_col {
	const char *header;
	const char *field;
};

/* Set file of want to value unless the command line gave it. */
void pl_set_default(struct pl_node *want, const char *file, const char *value);
/* treq's command-line words ("not-required") to the attribute's values, or NULL. */
const char *pl_treq_conv(const char *in);

/* The keyword that sets file of a type ("serial" for attr_serial), or NULL. */
const char *pl_keyword_of(enum pl_type type, const char *file);

/* Entry point shared by main() and the tests; returns the exit code. */
int pl_main(int argc, char **argv);

int pl_dispatch(struct pl_ctx *ctx, const struct pl_object *obj, int argc, char **argv);

/* Select the target (modprobe/mount as needed) and read it. */
int pl_open(struct pl_ctx *ctx, struct pl_node **live);
/* Dry run: print; otherwise execute. Returns an exit code. */
int pl_run_plan(struct pl_ctx *ctx, struct pl_plan *plan);

/*
 * A scratch object of type with the given ids from the top down (e.g.
 * NQN then NSID for a namespace), for building what a command wants.
 */
struct pl_node *pl_want(enum pl_type type, char **ids);
void pl_want_free(struct pl_node *want);
/* The live object at the same place as want, or NULL. */
struct pl_node *pl_lookup(struct pl_node *live, const struct pl_node *want);
/* Parse keywords into want; returns 0 or a usage exit code. */
int pl_parse_kws(const char *cmd, const struct pl_kw *kws, int argc, char **argv,
		 struct pl_node *want);
/* Check each value of want; returns 0 or a usage exit code. */
int pl_check_attrs(const char *cmd, const struct pl_node *want);
/* Check rules across fields of want merged over have; usage exit code. */
int pl_check_cross(const char *cmd, const struct pl_node *want, const struct pl_node *have);
/* Check the first argc ids given to a command; returns 0 or a usage exit code. */
int pl_take_ids(const char *cmd, enum pl_type type, int argc, char **argv, int nids);

/* Fill in defaults of a new object; returns 0 or an exit code. */
typedef int (*pl_fill_fn)(const char *cmd, struct pl_node *want);
typedef int (*pl_verb_fn)(struct pl_ctx *ctx, struct pl_node *want);

/* "IDS... [KEYWORD VALUE]...": create an object. */
int pl_cmd_add(struct pl_ctx *ctx, const char *cmd, enum pl_type type, int nids,
	       const struct pl_kw *kws, pl_fill_fn fill, int argc, char **argv);
/* "IDS... KEYWORD VALUE...": change an existing object. */
int pl_cmd_set(struct pl_ctx *ctx, const char *cmd, enum pl_type type, int nids,
	       const struct pl_kw *kws, int argc, char **argv);
/* "IDS...": run verb on the object. */
int pl_cmd_ids(struct pl_ctx *ctx, const char *cmd, enum pl_type type, int nids, pl_verb_fn verb,
	       int argc, char **argv);
/* "[PARENT-ID]": list objects of type. */
int pl_cmd_list(struct pl_ctx *ctx, const char *cmd, enum pl_type type, const struct pl_col *cols,
		size_t ncols, int argc, char **argv);
/* "ID NAME": add or remove a link of a top-level object. */
int pl_cmd_link(struct pl_ctx *ctx, const char *cmd, enum pl_type type, bool add, int argc,
		char **argv);

/* The shared verbs. */
int pl_verb_add(struct pl_ctx *ctx, struct pl_node *want);
int pl_verb_set(struct pl_ctx *ctx, struct pl_node *want);
int pl_verb_del(struct pl_ctx *ctx, struct pl_node *want);
int pl_verb_show(struct pl_ctx *ctx, struct pl_node *want);
int pl_verb_link(struct pl_ctx *ctx, struct pl_node *want, const char *name, bool add);

/* List objects of type (all, or those under parent); table or JSON. */
int pl_verb_list(struct pl_ctx *ctx, enum pl_type type, const char *parent,
		 const struct pl_col *cols, size_t ncols);

extern const struct pl_object pl_obj_subsys;
extern const struct pl_object pl_obj_ns;
extern const struct pl_object pl_obj_port;
extern const struct pl_object pl_obj_host;
extern const struct pl_object pl_obj_referral;
extern const struct pl_object pl_obj_ana;

/* host.c: DH-HMAC-CHAP keys are masked in what show prints, unless asked. */
extern bool pl_show_secrets;
void pl_node_mask_secrets(struct pl_node *node);
extern const struct pl_object pl_obj_save;
extern const struct pl_object pl_obj_restore;
extern const struct pl_object pl_obj_diff;
extern const struct pl_object pl_obj_clear;
extern const struct pl_object pl_obj_remove;
extern const struct pl_object pl_obj_status;
extern const struct pl_object pl_obj_stats;
extern const struct pl_object pl_obj_top;
extern const struct pl_object pl_obj_net;

#endif
