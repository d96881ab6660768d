// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl referral and ana-group: a port's discovery referrals and its
 * ANA groups, which the JSON file has had all along, on the command line.
 */
#include <string.h>

#include "cli.h"

static const struct pl_kw referral_kws[] = {
	{ "trtype", "addr_trtype", NULL, NULL },
	{ "adrfam", "addr_adrfam", NULL, NULL },
	{ "traddr", "addr_traddr", NULL, NULL },
	{ "trsvcid", "addr_trsvcid", NULL, NULL },
	{ "treq", "addr_treq", pl_treq_conv, NULL },
	{ "portid", "addr_portid", NULL, NULL },
	{ "enable", "enable", NULL, "1" },
	{ "disable", "enable", NULL, "0" },
	{ NULL, NULL, NULL, NULL },
};

static const struct pl_col referral_cols[] = {
	{ "PORT", "@parent" },
	{ "NAME", "@id" },
	{ "ENABLED", "enable" },
	{ "TRTYPE", "addr_trtype" },
	{ "TRADDR", "addr_traddr" },
	{ "TRSVCID", "addr_trsvcid" },
	{ "PORTID", "addr_portid" },
};

/* Another discovery service: rdma, ipv4, 4420 unless told; an address; listed (enabled). */
static int referral_fill(const char *cmd, struct pl_node *want)
{
	pl_set_default(want, "addr_trtype", "rdma");
	pl_set_default(want, "addr_adrfam", "ipv4");
	pl_set_default(want, "addr_trsvcid", "4420");
	if (!pl_get(want, "addr_traddr"))
		return pl_usage_error(cmd, "%s", "'traddr' is required (the referred discovery service)");
	pl_set_default(want, "enable", "1");
	return 0;
}

static int referral_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "referral add", PL_REFERRAL, 2, referral_kws, referral_fill,
			  argc, argv);
}

static int referral_set(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_set(ctx, "referral set", PL_REFERRAL, 2, referral_kws, argc, argv);
}

static int referral_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "referral del", PL_REFERRAL, 2, pl_verb_del, argc, argv);
}

static int referral_show(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "referral show", PL_REFERRAL, 2, pl_verb_show, argc, argv);
}

static int referral_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "referral list", PL_REFERRAL, referral_cols,
			   ARRAY_SIZE(referral_cols), argc, argv);
}

#define REFERRAL_ATTRS "[trtype T] [adrfam F] traddr ADDR [trsvcid SVC]\n" \
	"        [treq required|not-required|not-specified] [portid N] [enable|disable]"

static const struct pl_verb referral_verbs[] = {
	{ "add", referral_add, "PORT NAME " REFERRAL_ATTRS },
	{ "set", referral_set, "PORT NAME KEYWORD VALUE..." },
	{ "del", referral_del, "PORT NAME" },
	{ "list", referral_list, "[PORT]" },
	{ "show", referral_show, "PORT NAME" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_referral = {
	.name = "referral",
	.verbs = referral_verbs,
	.summary = "other discovery services a port's discovery log lists",
	.type = PL_REFERRAL,
	.kws = referral_kws,
	.examples =
	"  purlinctl referral add 1 peer traddr 192.0.2.11 portid 2   # listed at once\n"
	"  purlinctl referral set 1 peer disable\n"
	"  purlinctl referral list 1\n",
};

/* ---- ANA groups ---- */

static const struct pl_kw ana_kws[] = {
	{ "state", "ana_state", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct pl_col ana_cols[] = {
	{ "PORT", "@parent" },
	{ "GRPID", "@id" },
	{ "STATE", "ana_state" },
};

static int ana_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "ana-group add", PL_ANA, 2, ana_kws, NULL, argc, argv);
}

static int ana_set(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_set(ctx, "ana-group set", PL_ANA, 2, ana_kws, argc, argv);
}

/* Group 1 is the target's own on every port: it cannot go. */
static int ana_verb_del(struct pl_ctx *ctx, struct pl_node *want)
{
	if (!strcmp(want->id, pl_spec(PL_ANA)->builtin)) {
		pl_err("port %s ana-group 1: every port has it and it cannot be removed; set its state instead ('purlinctl ana-group set %s 1 state STATE')",
		       want->parent->id, want->parent->id);
		return PL_EXIT_CONFLICT;
	}
	return pl_verb_del(ctx, want);
}

static int ana_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "ana-group del", PL_ANA, 2, ana_verb_del, argc, argv);
}

static int ana_show(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "ana-group show", PL_ANA, 2, pl_verb_show, argc, argv);
}

static int ana_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "ana-group list", PL_ANA, ana_cols, ARRAY_SIZE(ana_cols), argc,
			   argv);
}

#define ANA_STATES "optimized|non-optimized|inaccessible|persistent-loss|change"

static const struct pl_verb ana_verbs[] = {
	{ "add", ana_add, "PORT GRPID [state " ANA_STATES "]" },
	{ "set", ana_set, "PORT GRPID state " ANA_STATES },
	{ "del", ana_del, "PORT GRPID" },
	{ "list", ana_list, "[PORT]" },
	{ "show", ana_show, "PORT GRPID" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_ana = {
	.name = "ana-group",
	.verbs = ana_verbs,
	.summary = "a port's ANA groups (a namespace's ana-grpid names one)",
	.type = PL_ANA,
	.kws = ana_kws,
	.examples =
	"  purlinctl ana-group add 1 2 state non-optimized\n"
	"  purlinctl ns set nqn.2024-01.io.example:disk1 1 ana-grpid 2\n"
	"  purlinctl ana-group set 2 2 state inaccessible   # failover to port 1's group 2\n",
};
