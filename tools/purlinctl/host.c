// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl host: host NQNs that subsystems can allow.
 */
#include "cli.h"

static const struct pl_col host_cols[] = {
	{ "HOSTNQN", "@id" },
	{ "ALLOWED-BY", "@inbound" },
};

static int host_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "host add", PL_HOST, 1, NULL, NULL, argc, argv);
}

static int host_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "host del", PL_HOST, 1, pl_verb_del, argc, argv);
}

static int host_show(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "host show", PL_HOST, 1, pl_verb_show, argc, argv);
}

static int host_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "host list", PL_HOST, host_cols, ARRAY_SIZE(host_cols), argc, argv);
}

static const struct pl_verb host_verbs[] = {
	{ "add", host_add, "HOSTNQN" },
	{ "del", host_del, "HOSTNQN" },
	{ "list", host_list, "" },
	{ "show", host_show, "HOSTNQN" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_host = {
	.name = "host",
	.verbs = host_verbs,
	.summary = "host NQNs",
	.type = PL_HOST,
	.examples =
	"  purlinctl host add nqn.2014-08.org.nvmexpress:uuid:UUID   # the host's /etc/nvme/hostnqn\n"
	"  purlinctl host list\n",
};
