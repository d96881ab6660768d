// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl port: transport ports and the subsystems they export.
 */
#include <string.h>

#include "cli.h"

/* "not-specified" reads better on a command line than a quoted blank. */
const char *pl_treq_conv(const char *in)
{
	static const char *const map[][2] = {
		{ "not-specified", "not specified" },
		{ "not-required", "not required" },
		{ "not specified", "not specified" },
		{ "not required", "not required" },
		{ "required", "required" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(in, map[i][0]))
			return map[i][1];
	return NULL;
}

static const struct pl_kw port_kws[] = {
	{ "trtype", "addr_trtype", NULL, NULL },
	{ "adrfam", "addr_adrfam", NULL, NULL },
	{ "traddr", "addr_traddr", NULL, NULL },
	{ "trsvcid", "addr_trsvcid", NULL, NULL },
	{ "treq", "addr_treq", pl_treq_conv, NULL },
	{ "inline-size", "param_inline_data_size", NULL, NULL },
	{ "queue-size", "param_max_queue_size", NULL, NULL },
	{ "tos", "param_tos", NULL, NULL },
	{ "max-pending", "param_max_pending", NULL, NULL },
	{ "max-pending-per-addr", "param_max_pending_per_addr", NULL, NULL },
	{ "connect-timeout", "param_connect_timeout_ms", NULL, NULL },
	{ "cq-mode", "param_cq_mode", NULL, NULL },
	{ "poll-usecs", "param_poll_usecs", NULL, NULL },
	{ "poll-cpus", "param_poll_cpus", NULL, NULL },
	{ "srq-size", "param_srq_size", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

static const struct pl_col port_cols[] = {
	{ "PORT", "@id" },
	{ "TRTYPE", "addr_trtype" },
	{ "ADRFAM", "addr_adrfam" },
	{ "TRADDR", "addr_traddr" },
	{ "TRSVCID", "addr_trsvcid" },
	{ "SUBSYSTEMS", "@links" },
};

void pl_set_default(struct pl_node *want, const char *file, const char *value)
{
	if (!pl_get(want, file))
		pl_set(want, file, value);
}

/* rdma, ipv4 and service 4420 unless told; IP families need an address. */
static int port_fill(const char *cmd, struct pl_node *want)
{
	const char *adrfam;

	pl_set_default(want, "addr_trtype", "rdma");
	pl_set_default(want, "addr_adrfam", "ipv4");
	adrfam = pl_get(want, "addr_adrfam");
	if (strcmp(adrfam, "ipv4") && strcmp(adrfam, "ipv6"))
		return 0;
	pl_set_default(want, "addr_trsvcid", "4420");
	if (!pl_get(want, "addr_traddr"))
		return pl_usage_error(cmd, "%s", "'traddr' is required");
	return 0;
}

static int port_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "port add", PL_PORT, 1, port_kws, port_fill, argc, argv);
}

static int port_set(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_set(ctx, "port set", PL_PORT, 1, port_kws, argc, argv);
}

static int port_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "port del", PL_PORT, 1, pl_verb_del, argc, argv);
}

static int port_show(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "port show", PL_PORT, 1, pl_verb_show, argc, argv);
}

static int port_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "port list", PL_PORT, port_cols, ARRAY_SIZE(port_cols), argc, argv);
}

static int port_link(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_link(ctx, "port link", PL_PORT, true, argc, argv);
}

static int port_unlink(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_link(ctx, "port unlink", PL_PORT, false, argc, argv);
}

#define PORT_ATTRS "[trtype rdma|tcp|...] [adrfam ipv4|ipv6|...] [traddr ADDR]\n" \
	"        [trsvcid SVC] [treq required|not-required|not-specified]\n"      \
	"        [inline-size BYTES] [queue-size N] [tos -1|0..255]\n"        \
	"        [max-pending N] [max-pending-per-addr N] [connect-timeout MS]\n"      \
	"        [cq-mode workqueue|poll] [poll-usecs US] [poll-cpus LIST|\"\"]\n"    \
	"        [srq-size -1|0|16..4096]"

static const struct pl_verb port_verbs[] = {
	{ "add", port_add, "ID " PORT_ATTRS },
	{ "set", port_set, "ID " PORT_ATTRS },
	{ "del", port_del, "ID" },
	{ "list", port_list, "" },
	{ "show", port_show, "ID" },
	{ "link", port_link, "ID NQN" },
	{ "unlink", port_unlink, "ID NQN" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_port = {
	.name = "port",
	.verbs = port_verbs,
	.summary = "transport ports and the subsystems they export",
	.type = PL_PORT,
	.kws = port_kws,
	.examples =
	"  purlinctl port add 1 traddr 192.0.2.10              # rdma, ipv4, 4420\n"
	"  purlinctl port add 2 adrfam ipv6 traddr 2001:db8::10 trsvcid 4421\n"
	"  purlinctl port link 1 nqn.2024-01.io.example:disk1  # the port listens from here\n"
	"  purlinctl port unlink 1 nqn.2024-01.io.example:disk1\n",
};
