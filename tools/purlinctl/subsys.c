// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl subsys: NVM subsystems, their identify attributes and the
 * hosts allowed to connect.
 */
#include "cli.h"

static const struct pl_kw subsys_kws[] = {
	{ "serial", "attr_serial", NULL, NULL },
	{ "model", "attr_model", NULL, NULL },
	{ "firmware", "attr_firmware", NULL, NULL },
	{ "version", "attr_version", NULL, NULL },
	{ "ieee-oui", "attr_ieee_oui", NULL, NULL },
	{ "cntlid-min", "attr_cntlid_min", NULL, NULL },
	{ "cntlid-max", "attr_cntlid_max", NULL, NULL },
	{ "qid-max", "attr_qid_max", NULL, NULL },
	{ "allow-any-host", "attr_allow_any_host", pl_parse_bool, NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct pl_col subsys_cols[] = {
	{ "NQN", "@id" },
	{ "SERIAL", "attr_serial" },
	{ "MODEL", "attr_model" },
	{ "ANY-HOST", "attr_allow_any_host" },
	{ "NS", "@count" },
	{ "HOSTS", "@nlinks" },
	{ "PORTS", "@inbound" },
};

/* A new subsystem gets a random serial unless one is given. */
static int subsys_fill(const char *cmd, struct pl_node *want)
{
	char serial[17];
	int ret;

	if (pl_get(want, "attr_serial"))
		return 0;
	ret = pl_gen_serial(serial);
	if (ret) {
		pl_err_obj(cmd, "serial from /dev/urandom", -ret);
		return PL_EXIT_FAIL;
	}
	pl_set(want, "attr_serial", serial);
	return 0;
}

static int subsys_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "subsys add", PL_SUBSYS, 1, subsys_kws, subsys_fill, argc, argv);
}

static int subsys_set(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_set(ctx, "subsys set", PL_SUBSYS, 1, subsys_kws, argc, argv);
}

static int subsys_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "subsys del", PL_SUBSYS, 1, pl_verb_del, argc, argv);
}

static int subsys_show(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "subsys show", PL_SUBSYS, 1, pl_verb_show, argc, argv);
}

static int subsys_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "subsys list", PL_SUBSYS, subsys_cols, ARRAY_SIZE(subsys_cols), argc, argv);
}

static int subsys_allow(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_link(ctx, "subsys allow", PL_SUBSYS, true, argc, argv);
}

static int subsys_disallow(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_link(ctx, "subsys disallow", PL_SUBSYS, false, argc, argv);
}

#define SUBSYS_ATTRS "[serial S] [model M] [firmware F] [version V] [ieee-oui OUI]\n" \
	"        [cntlid-min N] [cntlid-max N] [qid-max N] [allow-any-host on|off]"

static const struct pl_verb subsys_verbs[] = {
	{ "add", subsys_add, "NQN " SUBSYS_ATTRS },
	{ "set", subsys_set, "NQN " SUBSYS_ATTRS },
	{ "del", subsys_del, "NQN" },
	{ "list", subsys_list, "" },
	{ "show", subsys_show, "NQN" },
	{ "allow", subsys_allow, "NQN HOSTNQN" },
	{ "disallow", subsys_disallow, "NQN HOSTNQN" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_subsys = {
	.name = "subsys",
	.verbs = subsys_verbs,
	.summary = "NVM subsystems and the hosts allowed to use them",
	.type = PL_SUBSYS,
	.kws = subsys_kws,
	.examples =
	"  purlinctl subsys add nqn.2024-01.io.example:disk1 model Purlin\n"
	"  purlinctl subsys allow nqn.2024-01.io.example:disk1 nqn.2014-08.org.nvmexpress:uuid:UUID\n"
	"  purlinctl subsys set nqn.2024-01.io.example:disk1 allow-any-host on\n"
	"  purlinctl -j subsys show nqn.2024-01.io.example:disk1\n",
};
