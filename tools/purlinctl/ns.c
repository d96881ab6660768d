// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl ns: namespaces of a subsystem, backed by a block device or file.
 */
#include <string.h>

#include "cli.h"

static const struct pl_kw ns_kws[] = {
	{ "path", "device_path", NULL, NULL },
	{ "uuid", "device_uuid", NULL, NULL },
	{ "nguid", "device_nguid", NULL, NULL },
	{ "ana-grpid", "ana_grpid", NULL, NULL },
	{ "buffered-io", "buffered_io", pl_parse_bool, NULL },
	{ "resv", "resv_enable", pl_parse_bool, NULL },
	{ "resv-file", "resv_file", NULL, NULL },
	{ "qos-iops", "qos_iops", NULL, NULL },
	{ "qos-bps", "qos_bps", NULL, NULL },
	{ "qos-burst-ms", "qos_burst_ms", NULL, NULL },
	{ "enable", "enable", NULL, "1" },
	{ "disable", "enable", NULL, "0" },
	{ NULL, NULL, NULL, NULL },
};

static const struct pl_col ns_cols[] = {
	{ "SUBSYS", "@parent" },
	{ "NSID", "@id" },
	{ "ENABLED", "enable" },
	{ "PATH", "device_path" },
	{ "SIZE", "@size" },
	{ "UUID", "device_uuid" },
};

/* A path is required; the uuid is generated and the namespace enabled unless told. */
static int ns_fill(const char *cmd, struct pl_node *want)
{
	char uuid[37];
	int ret;

	if (!pl_get(want, "device_path"))
		return pl_usage_error(cmd, "%s", "'path' is required");
	if (!pl_get(want, "device_uuid")) {
		ret = pl_gen_uuid(uuid);
		if (ret) {
			pl_err_obj(cmd, "uuid from /dev/urandom", -ret);
			return PL_EXIT_FAIL;
		}
		pl_set(want, "device_uuid", uuid);
	}
	if (!pl_get(want, "enable"))
		pl_set(want, "enable", "1");
	return 0;
}

static int ns_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "ns add", PL_NS, 2, ns_kws, ns_fill, argc, argv);
}

static int ns_set(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_set(ctx, "ns set", PL_NS, 2, ns_kws, argc, argv);
}

static int ns_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "ns del", PL_NS, 2, pl_verb_del, argc, argv);
}

static int ns_show(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "ns show", PL_NS, 2, pl_verb_show, argc, argv);
}

static int ns_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "ns list", PL_NS, ns_cols, ARRAY_SIZE(ns_cols), argc, argv);
}

static int ns_verb_enable(struct pl_ctx *ctx, struct pl_node *want)
{
	pl_set(want, "enable", "1");
	return pl_verb_set(ctx, want);
}

static int ns_verb_disable(struct pl_ctx *ctx, struct pl_node *want)
{
	pl_set(want, "enable", "0");
	return pl_verb_set(ctx, want);
}

static int ns_enable(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "ns enable", PL_NS, 2, ns_verb_enable, argc, argv);
}

static int ns_disable(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "ns disable", PL_NS, 2, ns_verb_disable, argc, argv);
}

#define NS_ATTRS "[uuid UUID] [nguid NGUID] [ana-grpid N] [buffered-io on|off] " PL_QOS_KWS

static const struct pl_verb ns_verbs[] = {
	{ "add", ns_add, "NQN NSID path PATH " NS_ATTRS " [enable|disable]" },
	{ "set", ns_set, "NQN NSID [path PATH] " NS_ATTRS " [enable|disable]" },
	{ "del", ns_del, "NQN NSID" },
	{ "enable", ns_enable, "NQN NSID" },
	{ "disable", ns_disable, "NQN NSID" },
	{ "list", ns_list, "[NQN]" },
	{ "show", ns_show, "NQN NSID" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_ns = {
	.name = "ns",
	.verbs = ns_verbs,
	.summary = "namespaces of a subsystem",
	.type = PL_NS,
	.kws = ns_kws,
	.examples =
	"  purlinctl ns add nqn.2024-01.io.example:disk1 1 path /dev/nvme0n1\n"
	"  purlinctl ns add nqn.2024-01.io.example:disk1 2 path /srv/ns2.img buffered-io on\n"
	"  purlinctl ns disable nqn.2024-01.io.example:disk1 1\n"
	"  purlinctl ns list nqn.2024-01.io.example:disk1\n",
};
