// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl host: host NQNs that subsystems can allow, and their
 * DH-HMAC-CHAP settings (keys, hash, Diffie-Hellman group).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dhchap.h"

bool pl_show_secrets;

static const struct pl_col host_cols[] = {
	{ "HOSTNQN", "@id" },
	{ "AUTH", "@auth" },
	{ "ALLOWED-BY", "@inbound" },
};

static const struct pl_kw host_kws[] = {
	{ "key", "dhchap_key", NULL, NULL },
	{ "ctrl-key", "dhchap_ctrl_key", NULL, NULL },
	{ "hash", "dhchap_hash", NULL, NULL },
	{ "dhgroup", "dhchap_dhgroup", NULL, NULL },
	{ "qos-iops", "qos_iops", NULL, NULL },
	{ "qos-bps", "qos_bps", NULL, NULL },
	{ "qos-burst-ms", "qos_burst_ms", NULL, NULL },
	{ NULL, NULL, NULL, NULL },
};

void pl_node_mask_secrets(struct pl_node *node)
{
	if (pl_show_secrets || node->type != PL_HOST)
		return;
	for (size_t i = 0; i < node->attrs.n; i++)
		if (!strcmp(node->attrs.v[i].name, "dhchap_key") ||
		    !strcmp(node->attrs.v[i].name, "dhchap_ctrl_key"))
			pl_dhchap_mask(node->attrs.v[i].value);
}

static int host_add(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_add(ctx, "host add", PL_HOST, 1, host_kws, NULL, argc, argv);
}

static int host_set(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_set(ctx, "host set", PL_HOST, 1, host_kws, argc, argv);
}

static int host_del(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_ids(ctx, "host del", PL_HOST, 1, pl_verb_del, argc, argv);
}

/* "HOSTNQN [secrets]": keys are shown as DHHC-1:<tt>:<hidden>: unless asked. */
static int host_show(struct pl_ctx *ctx, int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "secrets")) {
		pl_show_secrets = true;
		argc = 1;
	}
	return pl_cmd_ids(ctx, "host show", PL_HOST, 1, pl_verb_show, argc, argv);
}

static int host_list(struct pl_ctx *ctx, int argc, char **argv)
{
	return pl_cmd_list(ctx, "host list", PL_HOST, host_cols, ARRAY_SIZE(host_cols), argc, argv);
}

/* "generate [hmac 0-3] [length 32|48|64] [nqn HOSTNQN]", as nvme gen-dhchap-key. */
static int host_key(struct pl_ctx *ctx, int argc, char **argv)
{
	const char *cmd = "host key generate", *nqn = NULL, *why;
	long long hmac = 0, len = 0;
	uint8_t secret[PL_DHCHAP_MAX_KEY], key[PL_DHCHAP_MAX_KEY];
	char out[PL_DHCHAP_MAX_STR], nqnbuf[PL_NQN_MAX + 2];
	int ret;

	(void)ctx;
	if (argc < 1 || strcmp(argv[0], "generate"))
		return pl_usage_error("host key", "expected 'generate'");
	for (int i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			return pl_usage_error(cmd, "'%s' needs a value", argv[i]);
		if (!strcmp(argv[i], "hmac")) {
			if (!pl_parse_long(argv[i + 1], 10, &hmac) || hmac < 0 || hmac > 3)
				return pl_usage_error(cmd, "hmac must be 0 (none), 1 (SHA-256), 2 (SHA-384) or 3 (SHA-512)");
		} else if (!strcmp(argv[i], "length")) {
			if (!pl_parse_long(argv[i + 1], 10, &len) ||
			    (len != 32 && len != 48 && len != 64))
				return pl_usage_error(cmd, "length must be 32, 48 or 64");
		} else if (!strcmp(argv[i], "nqn")) {
			nqn = argv[i + 1];
			if ((why = pl_check_nqn(nqn)))
				return pl_usage_error(cmd, "nqn %s", why);
		} else {
			return pl_usage_error(cmd, "unknown keyword '%s'", argv[i]);
		}
	}
	if (!len)
		len = hmac ? 16 + 16 * hmac : 32;
	if (hmac && !nqn) {
		FILE *f = fopen("/etc/nvme/hostnqn", "re");

		if (!f || !fgets(nqnbuf, sizeof(nqnbuf), f)) {
			if (f)
				fclose(f);
			return pl_usage_error(cmd, "hmac %lld transforms the key with the host NQN: give 'nqn HOSTNQN' (no /etc/nvme/hostnqn)", hmac);
		}
		fclose(f);
		nqnbuf[strcspn(nqnbuf, "\n")] = '\0';
		nqn = nqnbuf;
	}
	ret = pl_random(secret, (size_t)len);
	if (ret) {
		pl_err_obj(cmd, "random bytes from /dev/urandom", -ret);
		return PL_EXIT_FAIL;
	}
	if (hmac && (why = pl_dhchap_transform(secret, (int)len, (int)hmac, nqn, key))) {
		memset(secret, 0, sizeof(secret));
		return pl_usage_error(cmd, "%s", why);
	}
	if (!hmac)
		memcpy(key, secret, (size_t)len);
	pl_dhchap_format(key, (int)len, (int)hmac, out, sizeof(out));
	fprintf(pl_out, "%s\n", out);
	memset(secret, 0, sizeof(secret));
	memset(key, 0, sizeof(key));
	memset(out, 0, sizeof(out));
	return PL_EXIT_OK;
}

#define HOST_KWS "[key SECRET] [ctrl-key SECRET] [hash HASH] [dhgroup GROUP] " PL_QOS_KWS

static const struct pl_verb host_verbs[] = {
	{ "add", host_add, "HOSTNQN " HOST_KWS },
	{ "set", host_set, "HOSTNQN " HOST_KWS },
	{ "del", host_del, "HOSTNQN" },
	{ "list", host_list, "" },
	{ "show", host_show, "HOSTNQN [secrets]" },
	{ "key", host_key, "generate [hmac 0-3] [length 32|48|64] [nqn HOSTNQN]" },
	{ NULL, NULL, NULL },
};

const struct pl_object pl_obj_host = {
	.name = "host",
	.verbs = host_verbs,
	.summary = "host NQNs and their DH-HMAC-CHAP keys",
	.type = PL_HOST,
	.examples =
	"  purlinctl host add nqn.2014-08.org.nvmexpress:uuid:UUID   # the host's /etc/nvme/hostnqn\n"
	"  purlinctl host list\n",
};
