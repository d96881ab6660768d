// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: the object types of the nvmet-style configfs layout, their
 * known attributes (in the order they are written) and JSON names.
 */
#include <stdlib.h>
#include <string.h>

#include "dhchap.h"
#include "model.h"

static const char *check_u16_hex(const char *s)
{
	long long v;

	if (!pl_parse_long(s, 0, &v) || v < 0 || v > 0xffff)
		return "must be a number in 0..0xffff";
	return NULL;
}

static const char *check_port_addr(const struct pl_node *node, const char **field)
{
	const char *adrfam = pl_get(node, "addr_adrfam");
	const char *traddr = pl_get(node, "addr_traddr");
	const char *trsvcid = pl_get(node, "addr_trsvcid");
	const char *why;

	if (adrfam && !*adrfam)
		adrfam = NULL;
	if (traddr && *traddr && (why = pl_check_traddr(adrfam, traddr))) {
		*field = "addr_traddr";
		return why;
	}
	if (trsvcid && *trsvcid && (why = pl_check_trsvcid(adrfam, trsvcid))) {
		*field = "addr_trsvcid";
		return why;
	}
	return NULL;
}

/* nvmet refuses a discovery NQN that names a subsystem, and the reverse. */
static const char *check_root(const struct pl_node *node, const char **field)
{
	const char *nqn = pl_get(node, "discovery_nqn");

	if (nqn && *nqn && strcmp(nqn, PL_DISCOVERY_NQN) && pl_find(node, PL_SUBSYS, nqn)) {
		*field = "discovery_nqn";
		return "names a subsystem: the discovery NQN must be a name of its own";
	}
	return NULL;
}

static const char *check_subsys(const struct pl_node *node, const char **field)
{
	const char *any = pl_get(node, "attr_allow_any_host");
	const char *min = pl_get(node, "attr_cntlid_min");
	const char *max = pl_get(node, "attr_cntlid_max");

	if (any && !strcmp(any, "1") && node->links.n) {
		*field = "attr_allow_any_host";
		return "must be 0 when allowed_hosts are listed (disallow them first: purlinctl subsys disallow NQN HOSTNQN)";
	}
	if (min && max && *min && *max && strtol(min, NULL, 10) > strtol(max, NULL, 10)) {
		*field = "attr_cntlid_min";
		return "must not be greater than cntlid_max";
	}
	return NULL;
}

/* nvmetcli saves the root's "discovery" group: discovery_nqn. */
static const char *const root_groups[] = { "discovery", NULL };
static const char *const subsys_groups[] = { "attr", NULL };
/* nvmetcli saves these as the host's "dhchap" group: key, ctrl_key, hash, dhgroup. */
static const char *const host_groups[] = { "dhchap", "qos", NULL };
/* "qos": Purlin's limits per tenant, a group nvmetcli does not read. */
static const char *const ns_groups[] = { "device", "ana", "resv", "qos", NULL };
static const char *const port_groups[] = { "addr", "param", NULL };
static const char *const addr_groups[] = { "addr", NULL };
static const char *const ana_groups[] = { "ana", NULL };

static const char *const ns_int_keys[] = { "enable", "ana_grpid", "buffered_io", NULL };
static const char *const referral_int_keys[] = { "enable", NULL };

static const struct pl_attr_spec root_attrs[] = {
	{ "discovery_nqn", pl_check_nqn_or_discovery, PL_CMP_STR, true },
	{ NULL, NULL, PL_CMP_STR, false },
};

static const struct pl_attr_spec subsys_attrs[] = {
	{ "attr_allow_any_host", pl_check_bool, PL_CMP_NUM, true },
	{ "attr_serial", pl_check_serial, PL_CMP_STR, true },
	{ "attr_model", pl_check_model, PL_CMP_STR, true },
	{ "attr_firmware", pl_check_firmware, PL_CMP_STR, true },
	{ "attr_version", pl_check_version, PL_CMP_STR, true },
	{ "attr_ieee_oui", pl_check_ieee_oui, PL_CMP_NUM, true },
	{ "attr_vendor_id", check_u16_hex, PL_CMP_NUM, true },
	{ "attr_subsys_vendor_id", check_u16_hex, PL_CMP_NUM, true },
	{ "attr_cntlid_min", pl_check_cntlid, PL_CMP_NUM, true },
	{ "attr_cntlid_max", pl_check_cntlid, PL_CMP_NUM, true },
	{ "attr_qid_max", pl_check_qid_max, PL_CMP_NUM, true },
	{ "attr_pi_enable", pl_check_bool, PL_CMP_NUM, true },
	{ NULL, NULL, PL_CMP_STR, false },
};

/* Limits per tenant of a host or a namespace: changed live. */
#define QOS_ATTRS                                                       \
	{ "qos_iops", pl_check_qos_iops, PL_CMP_NUM, true },            \
	{ "qos_bps", pl_check_qos_bps, PL_CMP_NUM, true },              \
	{ "qos_burst_ms", pl_check_qos_burst_ms, PL_CMP_NUM, true }

static const struct pl_attr_spec host_attrs[] = {
	{ "dhchap_key", pl_check_dhchap_secret, PL_CMP_STR, true },
	{ "dhchap_ctrl_key", pl_check_dhchap_secret, PL_CMP_STR, true },
	{ "dhchap_hash", pl_check_dhchap_hash, PL_CMP_STR, true },
	{ "dhchap_dhgroup", pl_check_dhchap_dhgroup, PL_CMP_STR, true },
	QOS_ATTRS,
	{ NULL, NULL, PL_CMP_STR, false },
};

static const struct pl_attr_spec ns_attrs[] = {
	{ "device_path", pl_check_path, PL_CMP_STR, false },
	{ "device_uuid", pl_check_uuid, PL_CMP_HEX, false },
	{ "device_nguid", pl_check_nguid, PL_CMP_HEX, false },
	{ "buffered_io", pl_check_bool, PL_CMP_NUM, false },
	{ "resv_enable", pl_check_bool, PL_CMP_NUM, false },
	/* Purlin's: written once reservations are on, before enable. */
	{ "resv_state", pl_check_resv_state, PL_CMP_STR, false },
	/* Purlin's: where a PTPL state is kept; read at enable. */
	{ "resv_file", pl_check_resv_file, PL_CMP_STR, false },
	{ "ana_grpid", pl_check_grpid, PL_CMP_NUM, true },
	QOS_ATTRS,
	{ "enable", pl_check_bool, PL_CMP_NUM, true },
	{ NULL, NULL, PL_CMP_STR, false },
};

/* trtype first: storing it resets tsas; tsas before treq, which it may adjust. */
#define ADDR_ATTRS                                                      \
	{ "addr_trtype", pl_check_trtype, PL_CMP_STR, false },          \
	{ "addr_adrfam", pl_check_adrfam, PL_CMP_STR, false },          \
	{ "addr_traddr", NULL, PL_CMP_STR, false },                     \
	{ "addr_trsvcid", NULL, PL_CMP_STR, false },                    \
	{ "addr_tsas", NULL, PL_CMP_STR, false },                       \
	{ "addr_treq", pl_check_treq, PL_CMP_STR, false }

static const struct pl_attr_spec port_attrs[] = {
	ADDR_ATTRS,
	{ "param_inline_data_size", pl_check_inline_size, PL_CMP_NUM, false },
	{ "param_max_queue_size", pl_check_queue_size, PL_CMP_NUM, false },
	{ "param_mdts", pl_check_mdts, PL_CMP_NUM, false },
	{ "param_pi_enable", pl_check_bool, PL_CMP_NUM, false },
	{ "param_tos", pl_check_tos, PL_CMP_NUM, false },
	{ "param_max_pending", pl_check_max_pending, PL_CMP_NUM, false },
	{ "param_max_pending_per_addr", pl_check_max_pending, PL_CMP_NUM, false },
	{ "param_connect_timeout_ms", pl_check_connect_timeout, PL_CMP_NUM, false },
	{ "param_cq_mode", pl_check_cq_mode, PL_CMP_STR, false },
	{ "param_poll_usecs", pl_check_poll_usecs, PL_CMP_NUM, false },
	{ "param_poll_cpus", pl_check_poll_cpus, PL_CMP_CPUS, false },
	{ "param_srq_size", pl_check_srq_size, PL_CMP_NUM, false },
	{ NULL, NULL, PL_CMP_STR, false },
};

static const struct pl_attr_spec referral_attrs[] = {
	ADDR_ATTRS,
	{ "addr_portid", pl_check_portid, PL_CMP_NUM, false },
	{ "enable", pl_check_bool, PL_CMP_NUM, true },
	{ NULL, NULL, PL_CMP_STR, false },
};

static const struct pl_attr_spec ana_attrs[] = {
	{ "ana_state", pl_check_ana_state, PL_CMP_STR, true },
	{ NULL, NULL, PL_CMP_STR, false },
};

static const struct pl_type_spec specs[PL_NTYPES] = {
	[PL_ROOT] = {
		.label = "target",
		.dir = "",
		.groups = root_groups,
		.attrs = root_attrs,
		.check = check_root,
		.kids = { PL_HOST, PL_SUBSYS, PL_PORT },
		.nkids = 3,
	},
	[PL_HOST] = {
		.label = "host",
		.dir = "hosts",
		.json_id = "nqn",
		.check_id = pl_check_nqn,
		.warn_id = pl_warn_nqn_form,
		.groups = host_groups,
		.attrs = host_attrs,
	},
	[PL_SUBSYS] = {
		.label = "subsys",
		.dir = "subsystems",
		.json_id = "nqn",
		.check_id = pl_check_nqn,
		.warn_id = pl_warn_nqn_form,
		.groups = subsys_groups,
		.attrs = subsys_attrs,
		.kids = { PL_NS },
		.nkids = 1,
		.link_dir = "allowed_hosts",
		.link_target = PL_HOST,
		.check = check_subsys,
	},
	[PL_NS] = {
		.label = "ns",
		.dir = "namespaces",
		.json_id = "nsid",
		.numeric_id = true,
		.check_id = pl_check_nsid,
		.groups = ns_groups,
		.int_keys = ns_int_keys,
		.attrs = ns_attrs,
		.enable = "enable",
	},
	[PL_PORT] = {
		.label = "port",
		.dir = "ports",
		.json_id = "portid",
		.numeric_id = true,
		.check_id = pl_check_portid,
		.groups = port_groups,
		.attrs = port_attrs,
		.kids = { PL_REFERRAL, PL_ANA },
		.nkids = 2,
		.link_dir = "subsystems",
		.link_target = PL_SUBSYS,
		.check = check_port_addr,
	},
	[PL_REFERRAL] = {
		.label = "referral",
		.dir = "referrals",
		.json_id = "name",
		.check_id = pl_check_referral_name,
		.groups = addr_groups,
		.int_keys = referral_int_keys,
		.attrs = referral_attrs,
		.enable = "enable",
		.check = check_port_addr,
	},
	[PL_ANA] = {
		.label = "ana-group",
		.dir = "ana_groups",
		.json_id = "grpid",
		.numeric_id = true,
		.check_id = pl_check_grpid,
		.groups = ana_groups,
		.attrs = ana_attrs,
		.builtin = "1",
	},
};

bool pl_attr_purlin_only(enum pl_type type, const char *file)
{
	static const char *const port_own[] = {
		"param_tos", "param_max_pending", "param_max_pending_per_addr",
		"param_connect_timeout_ms", "param_cq_mode", "param_poll_usecs",
		"param_poll_cpus", "param_srq_size",
	};

	for (size_t i = 0; type == PL_PORT && i < ARRAY_SIZE(port_own); i++)
		if (!strcmp(port_own[i], file))
			return true;
	if (type == PL_NS && (!strcmp(file, "resv_state") || !strcmp(file, "resv_file")))
		return true;
	/* Limits per tenant: the "qos" group of hosts and namespaces. */
	return (type == PL_HOST || type == PL_NS) && !strncmp(file, "qos_", 4);
}

/* Attributes whose value has several lines (a namespace's resv_state). */
bool pl_attr_multiline(enum pl_type type, const char *file)
{
	return type == PL_NS && !strcmp(file, "resv_state");
}

const struct pl_type_spec *pl_spec(enum pl_type type)
{
	return &specs[type];
}
