// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl net against the simulated kernel (fakenet.c) and a fake /sys:
 * the setter grammar, read-modify-write with read-back verification,
 * rollback, show, the check auditor, the tune planner with its undo file,
 * apptrust and its DSCP-app fallback, and the vendor ECN knobs.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/ethtool_netlink.h>

#include "fakenet.h"
#include "harness.h"
#include "netprofile.h"

static char sysroot[64];

/* "purlinctl ARGS" in process, split on every blank (no --root needed by net). */
static int net_cli(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int net_cli(const char *fmt, ...)
{
	va_list ap;
	char *line;
	int ret;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	ret = run_cli_line(line);
	free(line);
	return ret;
}

#define assert_ok(...)                                                            \
	do {                                                                      \
		int _rc = net_cli(__VA_ARGS__);                                   \
		if (_rc)                                                          \
			fail_msg("exit %d: %s%s", _rc, cli_out, cli_err);         \
	} while (0)

#define assert_not_has(hay, needle)                                               \
	do {                                                                      \
		if (strstr((hay), (needle)))                                      \
			fail_msg("'%s' unexpected in:\n%s", (needle), (hay));     \
	} while (0)

static int setup(void **state)
{
	char *st;

	if (root_setup(state))
		return -1;
	snprintf(sysroot, sizeof(sysroot), "/tmp/purlinctl-net-XXXXXX");
	if (!mkdtemp(sysroot))
		return -1;
	pl_sys_root = sysroot;
	if (asprintf(&st, "%s/state", sysroot) < 0)
		return -1;
	setenv("PURLIN_STATE_DIR", st, 1);
	free(st);
	fakenet_install();
	return 0;
}

static int teardown(void **state)
{
	tree_rm_rf(sysroot);
	pl_sys_root = "";
	unsetenv("PURLIN_STATE_DIR");
	return root_teardown(state);
}

static char *sys_path(const char *rel)
{
	char *p;

	if (asprintf(&p, "%s%s", sysroot, rel) < 0)
		abort();
	return p;
}

static void mkparents(char *path)
{
	for (char *s = path + strlen(sysroot) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
}

/* A file (content) or directory (content NULL) under the fake /sys. */
static void sys_mk(const char *rel, const char *content)
{
	char *p = sys_path(rel);
	FILE *f;

	mkparents(p);
	if (!content) {
		mkdir(p, 0755);
	} else {
		f = fopen(p, "w");
		assert_non_null(f);
		fputs(content, f);
		fclose(f);
	}
	free(p);
}

static void sys_link(const char *rel, const char *target)
{
	char *p = sys_path(rel);

	mkparents(p);
	assert_int_equal(symlink(target, p), 0);
	free(p);
}

static char *sys_read(const char *rel)
{
	char *p = sys_path(rel), *v = slurp(p);

	free(p);
	return v ? pl_rstrip(v) : NULL;
}

static void assert_sys(const char *rel, const char *want)
{
	char *v = sys_read(rel);

	if (!v || strcmp(v, want))
		fail_msg("%s: '%s', expected '%s'", rel, v ? v : "(missing)", want);
	free(v);
}

static void driver(const char *dev, const char *name)
{
	char *rel, *target;

	if (asprintf(&rel, "/sys/class/net/%s/device/driver", dev) < 0 ||
	    asprintf(&target, "../../../bus/pci/drivers/%s", name) < 0)
		abort();
	sys_link(rel, target);
	free(rel);
	free(target);
}

/* An RDMA device whose first GID belongs to dev, with an rdma_cm group. */
static void rdma_dev(const char *ib, const char *dev, bool cm_group)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0", ib);
	sys_mk(rel, dev);
	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/1/state", ib);
	sys_mk(rel, "4: ACTIVE\n");
	snprintf(rel, sizeof(rel), "/sys/class/infiniband/%s/ports/1/link_layer", ib);
	sys_mk(rel, "Ethernet\n");
	sys_mk("/sys/kernel/config/rdma_cm", NULL);
	snprintf(rel, sizeof(rel), "/sys/kernel/config/rdma_cm/%s/ports/1/default_roce_tos", ib);
	if (cm_group)
		sys_mk(rel, "0\n");
}

/* NVIDIA's out-of-tree mlx5 ECN sysfs, everything off. */
static void mlx5_sysfs(const char *dev)
{
	char rel[128];

	for (int p = 0; p < 8; p++) {
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/ecn/roce_np/enable/%d", dev, p);
		sys_mk(rel, "0\n");
		snprintf(rel, sizeof(rel), "/sys/class/net/%s/ecn/roce_rp/enable/%d", dev, p);
		sys_mk(rel, "0\n");
	}
	snprintf(rel, sizeof(rel), "/sys/class/net/%s/ecn/roce_np/cnp_dscp", dev);
	sys_mk(rel, "0\n");
	snprintf(rel, sizeof(rel), "/sys/class/net/%s/ecn/roce_np/cnp_802p_prio", dev);
	sys_mk(rel, "0\n");
}

/* A RoCE NIC eth1: DCB, mlx5 ECN knobs, an RDMA device with an rdma_cm group. */
static struct fake_dev *nic(void)
{
	struct fake_dev *d = fakenet_add("eth1", FAKE_DCB_NIC);

	driver("eth1", "mlx5_core");
	sys_mk("/sys/class/net/eth1/speed", "25000\n");
	sys_mk("/sys/class/net/eth1/device/infiniband/mlx5_0", NULL);
	rdma_dev("mlx5_0", "eth1", true);
	mlx5_sysfs("eth1");
	return d;
}

static struct fake_dev *virtio(void)
{
	struct fake_dev *d = fakenet_add("eth0", FAKE_VIRTIO);

	driver("eth0", "virtio_net");
	return d;
}

static char *undo_file(const char *dev)
{
	char *p;

	if (asprintf(&p, "%s/state/net-%s.json", sysroot, dev) < 0)
		abort();
	return p;
}

/* ---- the grammar ---- */

static void test_grammar_round_trip(void **state)
{
	static const char *const lines[][2] = {
		{ "pfc prio-pfc 3:on", NULL },
		{ "pfc prio-pfc all:off 3:on macsec-bypass off delay 10", NULL },
		{ "ets willing off tc-tsa 0:ets 3:strict tc-bw 0:50 3:50 prio-tc 3:3", NULL },
		{ "app add dscp 26 prio 3 udp 4791 prio 3 del tcp 80 prio 0", NULL },
		{ "app replace dscp 26 prio 3", NULL },
		{ "app add ethtype 0x8906 prio 3 port 4420 prio 4", NULL },
		{ "trust dscp pcp", NULL },
		{ "trust none", NULL },
		{ "dcbx ieee", "dcbx host ieee" },
		{ "dcbx lld-managed cee", NULL },
		{ "mtu 4200 coalesce adaptive-rx on rx-usecs 8 ring rx 1024 tx 1024", NULL },
		{ "ecn prio 3 on np 4 off rp all on cnp dscp 48 prio 6 roce-tos 106", NULL },
		{ "pause autoneg off rx off tx off", NULL },
		{ "pfc prio-pfc 1:on pfc prio-pfc 2:on", "pfc prio-pfc 1:on 2:on" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		struct pl_net_patch p = { 0 };
		char *out;

		if (pl_net_parse_str("net set", lines[i][0], &p))
			fail_msg("'%s' does not parse", lines[i][0]);
		out = pl_net_format_str(&p);
		assert_string_equal(out, lines[i][1] ? lines[i][1] : lines[i][0]);
		free(out);
		pl_patch_free(&p);
	}
}

static void test_usage_errors(void **state)
{
	static const struct {
		const char *args, *error;
	} cases[] = {
		{ "net set eth0", "nothing to set" },
		{ "net set eth0 frob 1", "unknown knob 'frob'" },
		{ "net set eth0 pfc", "pfc: needs arguments" },
		{ "net set eth0 pfc bogus", "pfc: unknown argument 'bogus'" },
		{ "net set eth0 pfc prio-pfc 9:on", "'9' must be 0-7 or all" },
		{ "net set eth0 pfc prio-pfc 3:maybe", "must be on or off" },
		{ "net set eth0 pfc prio-pfc", "'prio-pfc' needs N:VALUE pairs" },
		{ "net set eth0 ets tc-bw 0:101", "must be 0-100" },
		{ "net set eth0 ets tc-tsa 0:fast", "strict, cbs, ets or vendor" },
		{ "net set eth0 app dscp 26 prio 3", "say add, del or replace first" },
		{ "net set eth0 app add dscp 64 prio 3", "must be 0-63" },
		{ "net set eth0 app add dscp 26", "'prio N' expected" },
		{ "net set eth0 app add dscp 26 prio 8", "must be 0-7" },
		{ "net set eth0 app add pcp 3 prio 3", "PCP entries are not supported" },
		{ "net set eth0 app add", "app: needs arguments" },
		{ "net set eth0 trust dscp dscp", "'dscp' given twice" },
		{ "net set eth0 mtu 67", "must be 68-65536" },
		{ "net set eth0 mtu", "'mtu' needs a value" },
		{ "net set eth0 coalesce rx-usecs", "'rx-usecs' needs a value" },
		{ "net set eth0 coalesce rx-usecs -1", "unknown option '-1'" },
		{ "net set eth0 coalesce adaptive-rx maybe", "must be on or off" },
		{ "net set eth0 ring rx-max 10", "unknown argument 'rx-max'" },
		{ "net set eth0 ecn prio 8 on", "must be 0-7 or all" },
		{ "net set eth0 ecn prio 3", "'prio' needs a value" },
		{ "net set eth0 cnp dscp 64", "must be 0-63" },
		{ "net set eth0 roce-tos 256", "must be 0-255" },
		{ "net set eth/0 mtu 1500", "'eth/0' is not a network device name" },
		{ "net show eth0 extra", "unexpected argument 'extra'" },
		{ "net show eth0 --frob", "unknown option '--frob'" },
		{ "net frob eth0", "unknown command 'frob'" },
		{ "net tune eth0", "--profile roce-lossless or --undo is required" },
		{ "net tune eth0 --profile bulk", "unknown profile 'bulk'" },
		{ "net tune eth0 --profile roce-lossless --undo", "--undo takes no --profile" },
		{ "net tune eth0 --profile roce-lossless --prio 8", "--prio '8': must be 0-7" },
		{ "net tune eth0 --profile roce-lossless --dscp", "'--dscp' needs a value" },
		{ "net check eth0 --undo", "unknown option '--undo'" },
	};

	(void)state;
	virtio();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc = net_cli("%s", cases[i].args);

		if (rc != PL_EXIT_USAGE)
			fail_msg("'%s': exit %d, expected 2 (%s)", cases[i].args, rc, cli_err);
		if (!strstr(cli_err, cases[i].error))
			fail_msg("'%s': '%s' not in: %s", cases[i].args, cases[i].error, cli_err);
		assert_int_equal(strchr(cli_err, '\n') - cli_err + 1, (long)strlen(cli_err));
	}
	assert_string_equal(fake_log, "");
}

static void test_help(void **state)
{
	(void)state;
	assert_int_equal(net_cli("net help"), 0);
	assert_has(cli_out, "net tune DEV --profile roce-lossless");
	assert_has(cli_out, "pfc [prio-pfc P:on|off...]");
	assert_int_equal(net_cli("--help"), 0);
	assert_has(cli_out, "net ");
}

/* ---- patches against states ---- */

static void test_diff_apply_inverse(void **state)
{
	struct pl_net *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)), *c = calloc(1, sizeof(*c));
	struct pl_net_patch p = { 0 }, d = { 0 }, back = { 0 };
	struct pl_nlerr e = { 0 };
	char why[256], *s;

	(void)state;
	nic();
	assert_int_equal(pl_net_read("eth1", a, &e), 0);
	assert_int_equal(pl_net_parse_str("t", "pfc prio-pfc 3:on 4:on ets tc-tsa 7:strict "
					  "tc-bw 0:25 prio-tc 0:1 app replace dscp 26 prio 3 "
					  "trust dscp mtu 4200 coalesce adaptive-rx on "
					  "ecn prio 3 on cnp dscp 48 prio 6 roce-tos 104", &p), 0);
	assert_int_equal(pl_net_apply(a, &p, b, why, sizeof(why)), 0);
	pl_net_diff(a, b, &d);
	s = pl_net_format_str(&d);
	assert_string_equal(s, "ets tc-tsa 7:strict tc-bw 0:25 prio-tc 0:1 pfc prio-pfc 3:on 4:on "
			       "app add dscp 26 prio 3 trust dscp mtu 4200 coalesce adaptive-rx on "
			       "ecn prio 3 on cnp dscp 48 prio 6 roce-tos 104");
	free(s);
	/* the difference, printed and parsed again, gives the same state */
	pl_patch_free(&p);
	s = pl_net_format_str(&d);
	assert_int_equal(pl_net_parse_str("t", s, &p), 0);
	free(s);
	assert_int_equal(pl_net_apply(a, &p, c, why, sizeof(why)), 0);
	pl_patch_free(&d);
	pl_net_diff(b, c, &d);
	assert_int_equal(d.n, 0);
	/* and the way back leads home */
	pl_net_diff(b, a, &back);
	assert_int_equal(pl_net_apply(b, &back, c, why, sizeof(why)), 0);
	pl_net_diff(a, c, &d);
	assert_int_equal(d.n, 0);
	pl_patch_free(&p);
	pl_patch_free(&d);
	pl_patch_free(&back);
	free(a);
	free(b);
	free(c);
}

static void test_refused_before_sending(void **state)
{
	static const struct {
		const char *args, *error;
	} cases[] = {
		{ "net set eth0 pfc prio-pfc 3:on", "net eth0: pfc: not supported by eth0 (driver virtio_net)" },
		{ "net set eth0 mtu 9000 trust dscp", "trust: not supported by eth0 (driver virtio_net)" },
		{ "net set eth0 coalesce adaptive-rx on", "coalesce: adaptive-rx not supported by eth0" },
		{ "net set eth0 pause rx off", "pause: rx not supported by eth0 (driver virtio_net)" },
		{ "net set eth0 ecn prio 3 on", "ecn: not supported by eth0 (driver virtio_net): no vendor ECN/DCQCN knob" },
		{ "net set eth0 cnp dscp 48", "cnp: not supported by eth0" },
		{ "net set eth0 roce-tos 104", "roce-tos: no RDMA device on eth0" },
		{ "net set eth0 ring rx 512", "ring: rx 512: eth0 (driver virtio_net) allows at most 256" },
		{ "net set eth1 ets tc-bw 3:50", "the bandwidths of the ETS traffic classes add up to 137 %, not 100" },
		{ "net set eth1 mtu 10000", "mtu: 10000 is outside what eth1 (driver mlx5_core) allows (68-9978)" },
		{ "net set eth1 ring rx 10000", "allows at most 8192" },
		{ "net set eth1 ecn np 3 on rp 3 off ecn prio 9 on", "must be 0-7" },
		{ "net set nosuch mtu 1500", "net nosuch: no such network device (see 'ip -br link')" },
	};

	(void)state;
	virtio();
	nic();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int rc = net_cli("%s", cases[i].args);

		if (!rc)
			fail_msg("'%s' succeeded", cases[i].args);
		if (!strstr(cli_err, cases[i].error))
			fail_msg("'%s': '%s' not in: %s", cases[i].args, cases[i].error, cli_err);
	}
	assert_string_equal(fake_log, "");
	assert_int_equal(fake_devs[0].mtu, 1500);
}

static void test_ets_and_pfc_limits(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	d->st.ets.ets_cap = 4;
	d->st.pfc.pfc_cap = 2;
	assert_int_equal(net_cli("net set eth1 ets prio-tc 3:5"), 1);
	assert_has(cli_err, "prio-tc 3:5: eth1 (driver mlx5_core) has 4 traffic classes (0-3)");
	assert_int_equal(net_cli("net set eth1 ets tc-tsa 6:strict"), 1);
	assert_has(cli_err, "traffic class 6");
	assert_int_equal(net_cli("net set eth1 pfc prio-pfc 1:on 2:on 3:on"), 1);
	assert_has(cli_err, "3 priorities enabled; eth1 (driver mlx5_core) allows 2");
	assert_string_equal(fake_log, "");
}

/* ---- set: read-modify-write, read back, roll back ---- */

static void test_set_applies_each_knob_once(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	assert_ok("net set eth1 pfc prio-pfc 3:on app add dscp 26 prio 3 trust dscp mtu 4200 "
		  "coalesce adaptive-rx on ring rx 4096");
	assert_string_equal(fake_log, "dcb eth1 ieee_set pfc\n"
				      "dcb eth1 ieee_set app\n"
				      "dcb eth1 ieee_set trust\n"
				      "link eth1 mtu 4200\n"
				      "ethtool eth1 ring_set\n"
				      "ethtool eth1 coalesce_set\n");
	assert_string_equal(cli_out, "");
	assert_int_equal(d->st.pfc.pfc_en, 0x08);
	assert_int_equal(d->st.napp, 1);
	assert_int_equal(d->st.app[0].protocol, 26);
	assert_int_equal(d->st.trust[0], IEEE_8021QAZ_APP_SEL_DSCP);
	assert_int_equal(d->st.ntrust, 1);
	assert_int_equal(d->mtu, 4200);
	assert_int_equal(d->ring_v.v[ETHTOOL_A_RINGS_RX], 4096);
	assert_int_equal(d->ring_v.v[ETHTOOL_A_RINGS_TX], 1024);
	assert_int_equal(d->coal_v.v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX], 1);
	/* read-modify-write: the other fields of the structs stay */
	assert_int_equal(d->st.pfc.pfc_cap, 8);
	assert_int_equal(d->st.ets.tc_tx_bw[0], 13);

	/* the same again changes nothing and sends nothing */
	fake_log[0] = '\0';
	assert_ok("-v net set eth1 pfc prio-pfc 3:on app add dscp 26 prio 3 mtu 4200");
	assert_string_equal(fake_log, "");
	assert_has(cli_err, "nothing to change");

	/* replace: the new entry goes in before the old one goes out */
	fake_log[0] = '\0';
	assert_ok("net set eth1 app replace dscp 26 prio 4");
	assert_string_equal(fake_log, "dcb eth1 ieee_set app\ndcb eth1 ieee_del app\n");
	assert_int_equal(d->st.napp, 1);
	assert_int_equal(d->st.app[0].priority, 4);
}

static void test_set_dry_run(void **state)
{
	(void)state;
	nic();
	assert_ok("-n net set eth1 pfc prio-pfc 3:on mtu 9000");
	assert_string_equal(cli_out, "  pfc        prio-pfc 3:off -> prio-pfc 3:on\n"
				     "  mtu        1500 -> 9000\n");
	assert_ok("net set eth1 app add dscp 26 prio 3 --dry-run");
	assert_string_equal(cli_out, "  app        add dscp 26 prio 3\n");
	assert_string_equal(fake_log, "");
}

static void test_set_skipped_attribute(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	d->noset = PL_DCB_PFC;
	assert_int_equal(net_cli("net set eth1 pfc prio-pfc 3:on"), 1);
	assert_has(cli_err, "purlinctl: net eth1: pfc: eth1 did not apply 'pfc prio-pfc 3:on' "
			    "(reads back 'pfc prio-pfc 3:off'): the driver lacks it and the kernel skipped it");
	/* a kernel without apptrust ignores the trust table the same way */
	d->noset = 0;
	d->apptrust_kernel = false;
	d->ops &= ~PL_DCB_TRUST;
	assert_int_equal(net_cli("net set eth1 trust dscp"), 1);
	assert_has(cli_err, "trust: eth1 (driver mlx5_core) has no apptrust: DSCP trust follows the DSCP APP entries");
}

static void test_set_inreply_error_rolls_back(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	d->set_err[1] = EINVAL;
	assert_int_equal(net_cli("net set eth1 ets tc-tsa 7:strict tc-bw 0:25 pfc prio-pfc 3:on mtu 4200"), 1);
	assert_has(cli_err, "purlinctl: net eth1: pfc prio-pfc 3:on: Invalid argument (reported in the DCB reply)\n");
	assert_has(cli_err, "purlinctl: net eth1: 1 changed knob set back\n");
	assert_string_equal(fake_log, "dcb eth1 ieee_set ets\n"
				      "dcb eth1 ieee_set pfc\n"
				      "dcb eth1 ieee_set ets\n");
	assert_int_equal(d->st.ets.tc_tsa[7], IEEE_8021QAZ_TSA_ETS);
	assert_int_equal(d->st.ets.tc_tx_bw[0], 13);
	assert_int_equal(d->mtu, 1500);
}

/* mlx5 keeps one priority per DSCP: adding 26 -> 3 drops 26 -> 5 by itself. */
static void test_app_replace_dscp_exclusive(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	d->dscp_exclusive = true;
	d->st.app[0] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 5, 26 };
	d->st.app[1] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 1, 10 };
	d->st.napp = 2;
	assert_ok("net set eth1 app replace dscp 26 prio 3");
	/* nothing left to delete: no IEEE_DEL that would answer -ENOENT */
	assert_string_equal(fake_log, "dcb eth1 ieee_set app\n");
	assert_int_equal(d->st.napp, 2);
	assert_ok("net show eth1");
	assert_has(cli_out, "  app          dscp 10 prio 1, dscp 26 prio 3\n");
	/* and back, as undo and a failed command's setting back do it */
	assert_ok("net set eth1 app add dscp 26 prio 5 del dscp 26 prio 3");
	assert_ok("net show eth1");
	assert_has(cli_out, "  app          dscp 10 prio 1, dscp 26 prio 5\n");
}

static void test_set_kernel_errors(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	fake_eperm = 1;
	assert_int_equal(net_cli("net set eth1 mtu 4200"), 1);
	assert_string_equal(cli_err, "purlinctl: net eth1: mtu 4200: Operation not permitted\n");
	assert_int_equal(net_cli("net set eth1 coalesce rx-usecs 4"), 1);
	assert_has(cli_err, "coalesce rx-usecs 4: Operation not permitted");
	fake_eperm = 0;
	/* the driver's own refusal with an extended ACK */
	d->coal_mask &= ~(1ULL << ETHTOOL_A_COALESCE_TX_USECS);
	assert_int_equal(net_cli("net set eth1 coalesce tx-usecs 4"), 1);
	assert_has(cli_err, "coalesce tx-usecs 4: Invalid argument (cannot modify an unsupported parameter)");
	d->set_err[4] = 1;
	assert_int_equal(net_cli("net set eth1 dcbx lld-managed ieee"), 1);
	assert_has(cli_err, "dcbx lld-managed ieee: Invalid argument (reported in the DCB reply)");
	d->setdcbx = false;
	assert_int_equal(net_cli("net set eth1 dcbx cee"), 1);
	assert_has(cli_err, "dcbx host cee: Operation not supported");
}

static void test_malformed_replies(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	fake_mangle = FAKE_TRUNCATE;
	fake_mangle_on = RTM_SETDCB;
	assert_int_equal(net_cli("net set eth1 pfc prio-pfc 3:on mtu 4200"), 1);
	assert_has(cli_err, "pfc prio-pfc 3:on: Bad message (malformed DCB reply)");
	assert_int_equal(d->st.pfc.pfc_en, 0);	/* set back */
	assert_int_equal(d->mtu, 1500);

	fake_mangle = FAKE_WRONG_CMD;
	fake_mangle_on = RTM_NEWLINK;
	assert_int_equal(net_cli("net show eth1"), 1);
	assert_string_equal(cli_err, "purlinctl: net eth1: Bad message (malformed link reply)\n");

	/* an unreadable part is reported as such, the rest is shown */
	fake_mangle = FAKE_NO_REPLY;
	fake_mangle_on = RTM_GETDCB;
	assert_ok("net show eth1");
	assert_has(cli_out, "  dcb          Bad message\n");
	assert_has(cli_out, "  coalesce     adaptive-rx off adaptive-tx off rx-usecs 8");
}

/* ---- show ---- */

static void test_show_virtio(void **state)
{
	struct json_object *o, *v;

	(void)state;
	virtio();
	rdma_dev("rxe0", "eth0", false);
	assert_ok("net show eth0");
	assert_has(cli_out, "eth0: driver virtio_net, ifindex 2\n");
	assert_has(cli_out, "  mtu          1500 (device range 68-65535), RoCE path MTU 1024\n");
	assert_has(cli_out, "  rdma         rxe0 port 1 ACTIVE, RDMA CM default ToS 0 (default)\n");
	assert_has(cli_out, "  dcb          not supported by eth0 (driver virtio_net)\n");
	assert_has(cli_out, "  coalesce     rx-usecs 0 rx-frames 1 tx-usecs 0 tx-frames 1\n");
	assert_has(cli_out, "  ring         rx 256 tx 256 rx-max 256 tx-max 256\n");
	assert_has(cli_out, "  pause        not supported by eth0 (driver virtio_net)\n");
	assert_has(cli_out, "  unsupported  dcb, adaptive-rx, adaptive-tx, pause, ecn, cnp\n");

	assert_ok("net show eth0 -j");
	o = json_tokener_parse(cli_out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "dcb", &v));
	assert_true(json_object_object_get_ex(v, "supported", &v));
	assert_false(json_object_get_boolean(v));
	json_object_object_get_ex(o, "coalesce", &v);
	json_object_object_get_ex(v, "rx_frames", &v);
	assert_int_equal(json_object_get_int(v), 1);
	json_object_object_get_ex(o, "rdma", &v);
	assert_int_equal(json_object_array_length(v), 1);
	json_object_object_get_ex(json_object_array_get_idx(v, 0), "roce_tos", &v);
	assert_int_equal(json_object_get_int(v), 0);
	json_object_put(o);
	assert_int_equal(net_cli("net show eth9"), PL_EXIT_NOTFOUND);
	assert_string_equal(cli_err, "purlinctl: net eth9: no such network device (see 'ip -br link')\n");
}

/* net show without a device: every device, as ip link show; state and speed each. */
static void test_show_all(void **state)
{
	struct json_object *o;

	(void)state;
	virtio();
	nic();
	assert_ok("net show");
	assert_has(cli_out, "eth0: driver virtio_net");
	assert_has(cli_out, "eth1: driver mlx5_core");
	assert_true(strstr(cli_out, "eth0:") < strstr(cli_out, "eth1:"));
	assert_has(cli_out, "  link         up\n");
	assert_has(cli_out, "  link         up, 25000 Mb/s\n");
	assert_ok("net show -j");
	o = json_tokener_parse(cli_out);
	assert_non_null(o);
	assert_int_equal(json_object_array_length(o), 2);
	json_object_put(o);
	assert_int_equal(net_cli("net show extra -x"), PL_EXIT_USAGE);
}

static void test_show_nic(void **state)
{
	struct json_object *o, *v;

	(void)state;
	nic();
	assert_ok("net set eth1 app add dscp 26 prio 3 udp 4791 prio 3 ethtype 0x8906 prio 3");
	assert_ok("net show eth1");
	assert_has(cli_out, "  dcbx         host ieee\n");
	assert_has(cli_out, "  trust        pcp (apptrust)\n");
	/* sorted (selector, protocol, priority), not in the kernel's order; as set */
	assert_has(cli_out, "  app          ethtype 0x8906 prio 3, udp 4791 prio 3, dscp 26 prio 3\n");
	assert_has(cli_out, "  pfc          prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off "
			    "macsec-bypass off delay 0 (cap 8)\n");
	assert_has(cli_out, "requests 0:0 1:0 2:0 3:7 ");
	assert_has(cli_out, "  ets          willing off (cap 8)\n"
			    "               tc-tsa 0:ets 1:ets 2:ets 3:ets 4:ets 5:ets 6:ets 7:ets "
			    "tc-bw 0:13 1:13 2:13 3:13 4:12 5:12 6:12 7:12 "
			    "prio-tc 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7\n");
	assert_has(cli_out, "  pause        autoneg off rx on tx on\n");
	assert_has(cli_out, "  ecn          0:np off rp off, 1:np off rp off");
	assert_has(cli_out, "(mlx5 sysfs, ");
	assert_has(cli_out, "  cnp          dscp 0 prio 0\n");
	assert_has(cli_out, "  unsupported  nothing\n");
	assert_has(cli_out, "  link         up, 25000 Mb/s\n");
	assert_ok("net show eth1 -j");
	o = json_tokener_parse(cli_out);
	json_object_object_get_ex(o, "dcb", &v);
	json_object_object_get_ex(v, "ets", &v);
	json_object_object_get_ex(v, "tc_bw", &v);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(v, 0)), 13);
	json_object_object_get_ex(o, "ecn", &v);
	json_object_object_get_ex(v, "backend", &v);
	assert_string_equal(json_object_get_string(v), "mlx5 sysfs");
	json_object_put(o);
}

/* ---- check and tune ---- */

static void test_check_virtio(void **state)
{
	struct json_object *o, *v;

	(void)state;
	virtio();
	assert_int_equal(net_cli("net check eth0"), PL_EXIT_CHECK);
	/* no RDMA device is the fatal finding for an RDMA target: first, and a failure */
	assert_has(cli_out, "MTU >= 4192)\nFAIL  rdma      no RDMA device on eth0: an NVMe/RDMA target "
			    "cannot serve through it\n                fix: load the NIC's RoCE driver");
	assert_has(cli_out, "FAIL  dcb       eth0 (driver virtio_net) has no DCB support");
	assert_has(cli_out, "FAIL  trust     needs DCB, which eth0 (driver virtio_net) lacks\n"
			    "                fix: see the dcb item\n");
	assert_has(cli_out, "FAIL  pfc ");
	assert_has(cli_out, "FAIL  ets ");
	assert_has(cli_out, "FAIL  app-dscp ");
	assert_has(cli_out, "FAIL  mtu       1500: RoCE path MTU 1024 (4096 needs at least 4192)\n"
			    "                fix: purlinctl net set eth0 mtu 4200\n");
	/* a feature the device does not have is not a pass */
	assert_has(cli_out, "N/A   pause     eth0 (driver virtio_net) has no link-level pause\n");
	assert_has(cli_out, "N/A   roce-tos  no RDMA device on eth0 (see the rdma item)\n");
	assert_null(strstr(cli_out, "PASS"));
	assert_has(cli_out, "WARN  ecn       not supported by eth0 (driver virtio_net)");
	assert_has(cli_out, "WARN  coalesce  adaptive interrupt coalescing not supported by eth0");
	assert_has(cli_out, "check: 0 pass, 3 warn, 7 fail, 2 n/a\n");
	assert_int_equal(net_cli("net check eth0 -j --jumbo"), PL_EXIT_CHECK);
	o = json_tokener_parse(cli_out);
	json_object_object_get_ex(o, "summary", &v);
	json_object_object_get_ex(v, "fail", &v);
	assert_int_equal(json_object_get_int(v), 7);
	json_object_object_get_ex(o, "items", &v);
	v = json_object_array_get_idx(v, 7);
	assert_string_equal(json_object_get_string(json_object_object_get(v, "item")), "mtu");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "fix")),
			    "purlinctl net set eth0 mtu 9000");
	json_object_put(o);
}

static void test_tune_dry_run_changes_nothing(void **state)
{
	char *path = undo_file("eth1");

	(void)state;
	nic();
	assert_ok("net tune eth1 --profile roce-lossless --dry-run");
	assert_string_equal(cli_out,
		"net tune eth1: profile roce-lossless (prio 3, DSCP 26, MTU 4200), dry run\n"
		"  pause      rx on tx on -> rx off tx off\n"
		"  ets        tc-bw 0:13 1:13 2:13 3:13 4:12 5:12 6:12 7:12 -> tc-bw 0:8 1:7 2:7 3:50 4:7 5:7 6:7 7:7\n"
		"  pfc        prio-pfc 3:off -> prio-pfc 3:on\n"
		"  app        add dscp 26 prio 3\n"
		"  trust      pcp -> dscp\n"
		"  mtu        1500 -> 4200\n"
		"  coalesce   adaptive-rx off adaptive-tx off -> adaptive-rx on adaptive-tx on\n"
		"  ecn        prio 3 off -> prio 3 on\n"
		"  cnp        dscp 0 prio 0 -> dscp 48 prio 6\n"
		"  roce-tos   0 -> 104\n");
	assert_string_equal(fake_log, "");
	assert_int_equal(access(path, F_OK), -1);
	assert_ok("-n net tune eth1 --profile roce-lossless -j");
	assert_has(cli_out, "\"knob\": \"pfc\"");
	free(path);
}

/*
 * A device whose apptrust holds a selector purlinctl has no name for (a
 * netlink reply it cannot expect): plans show its number, nothing crashes,
 * and the number reads back as the same selector.
 */
static void test_unknown_trust_selector(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	d->st.trust[0] = 9;
	d->st.ntrust = 1;
	assert_ok("net tune eth1 --profile roce-lossless --dry-run");
	assert_has(cli_out, "  trust      9 -> dscp\n");
	assert_string_equal(fake_log, "");
	assert_int_equal(net_cli("net set eth1 -n trust 9 dscp"), 0);
	assert_has(cli_out, "  trust      9 -> 9 dscp\n");
	assert_int_not_equal(net_cli("net set eth1 -n trust 256"), 0);
}

static void test_tune_check_undo(void **state)
{
	struct fake_dev *d, saved;
	char *path = undo_file("eth1"), *text;

	(void)state;
	d = nic();
	saved = *d;
	assert_int_equal(net_cli("net check eth1"), PL_EXIT_CHECK);
	assert_has(cli_out, "FAIL  pfc       off on prio 3: RoCE traffic is dropped under congestion\n"
			    "                fix: purlinctl net set eth1 pfc prio-pfc 3:on\n");
	assert_has(cli_out, "FAIL  pause     link-level pause is on (rx on, tx on)");
	assert_has(cli_out, "FAIL  ets       prio 3 is in TC 3 with 13 % (profile: ETS >= 50 %)\n");

	assert_ok("net tune eth1 --profile roce-lossless");
	assert_has(cli_out, "  pfc        prio-pfc 3:off -> prio-pfc 3:on\n");
	assert_has(cli_out, "previous settings saved in ");
	assert_int_equal(d->st.pfc.pfc_en, 0x08);
	assert_int_equal(d->st.trust[0], IEEE_8021QAZ_APP_SEL_DSCP);
	assert_int_equal(d->st.ets.tc_tx_bw[3], 50);
	assert_int_equal(d->mtu, 4200);
	assert_int_equal(d->pause_v.v[ETHTOOL_A_PAUSE_RX], 0);
	assert_int_equal(d->coal_v.v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX], 1);
	assert_sys("/sys/class/net/eth1/ecn/roce_np/enable/3", "1");
	assert_sys("/sys/class/net/eth1/ecn/roce_rp/enable/3", "1");
	assert_sys("/sys/class/net/eth1/ecn/roce_rp/enable/4", "0");
	assert_sys("/sys/class/net/eth1/ecn/roce_np/cnp_dscp", "48");
	assert_sys("/sys/class/net/eth1/ecn/roce_np/cnp_802p_prio", "6");
	assert_sys("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "104");
	text = slurp(path);
	assert_non_null(text);
	assert_has(text, "\"mtu 1500\"");
	assert_has(text, "\"pfc prio-pfc 3:off\"");
	assert_has(text, "\"app del dscp 26 prio 3\"");
	assert_has(text, "\"trust pcp\"");
	free(text);

	assert_ok("net check eth1");
	assert_has(cli_out, "check: 12 pass, 0 warn, 0 fail, 0 n/a\n");

	fake_log[0] = '\0';
	assert_ok("net tune eth1 --profile roce-lossless");
	assert_has(cli_out, "  nothing to change\n");
	assert_string_equal(fake_log, "");

	assert_ok("net tune eth1 --undo");
	assert_has(cli_out, "net tune eth1: undo from ");
	assert_has(cli_out, "  mtu        4200 -> 1500\n");
	assert_int_equal(access(path, F_OK), -1);
	assert_memory_equal(&d->st.ets, &saved.st.ets, sizeof(saved.st.ets));
	assert_int_equal(d->st.pfc.pfc_en, 0);
	assert_int_equal(d->st.napp, 0);
	assert_int_equal(d->st.trust[0], PL_DCB_APP_SEL_PCP);
	assert_int_equal(d->mtu, 1500);
	assert_memory_equal(&d->pause_v, &saved.pause_v, sizeof(saved.pause_v));
	assert_memory_equal(&d->coal_v, &saved.coal_v, sizeof(saved.coal_v));
	assert_sys("/sys/class/net/eth1/ecn/roce_np/enable/3", "0");
	assert_sys("/sys/class/net/eth1/ecn/roce_np/cnp_dscp", "0");
	assert_sys("/sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "0");

	assert_int_equal(net_cli("net tune eth1 --undo"), 1);
	assert_has(cli_err, "net eth1: nothing to undo (no ");
	free(path);
}

static void test_tune_twice_keeps_first_state(void **state)
{
	struct fake_dev *d;
	char *path = undo_file("eth1"), *text;

	(void)state;
	d = nic();
	assert_ok("net tune eth1 --profile roce-lossless --prio 4 --dscp 34");
	assert_int_equal(d->st.pfc.pfc_en, 0x10);
	assert_ok("net tune eth1 --profile roce-lossless --jumbo");
	assert_int_equal(d->st.pfc.pfc_en, 0x08);
	assert_int_equal(d->mtu, 9000);
	text = slurp(path);
	assert_has(text, "\"mtu 1500\"");
	assert_not_has(text, "\"mtu 4200\"");
	free(text);
	assert_ok("net tune eth1 --undo");
	assert_int_equal(d->mtu, 1500);
	assert_int_equal(d->st.pfc.pfc_en, 0);
	assert_int_equal(d->st.napp, 0);
	free(path);
}

static void test_tune_failure_sets_back(void **state)
{
	struct fake_dev *d, saved;
	char *path = undo_file("eth1");

	(void)state;
	d = nic();
	d->set_err[3] = EINVAL;	/* trust, after ETS, PFC and APP */
	saved = *d;
	assert_int_equal(net_cli("net tune eth1 --profile roce-lossless"), 1);
	assert_has(cli_err, "net eth1: trust dscp: Invalid argument (reported in the DCB reply)");
	assert_has(cli_err, "changed knobs set back");
	assert_memory_equal(&d->st.ets, &saved.st.ets, sizeof(saved.st.ets));
	assert_int_equal(d->st.pfc.pfc_en, 0);
	assert_int_equal(d->st.napp, 0);
	assert_memory_equal(&d->pause_v, &saved.pause_v, sizeof(saved.pause_v));
	assert_int_equal(d->mtu, 1500);
	assert_int_equal(access(path, F_OK), -1);
	free(path);
}

/* A failed tune puts the undo file back as it was, entries of the failed plan left out. */
static void test_tune_failure_keeps_undo_file(void **state)
{
	struct fake_dev *d;
	char *path = undo_file("eth1"), *before, *after;

	(void)state;
	d = nic();
	assert_ok("net tune eth1 --profile roce-lossless --prio 4 --dscp 34");
	before = slurp(path);
	assert_non_null(before);
	assert_not_has(before, "\"pfc prio-pfc 3:off\"");
	d->set_err[1] = EIO;	/* PFC */
	assert_int_equal(net_cli("net tune eth1 --profile roce-lossless"), 1);
	after = slurp(path);
	assert_non_null(after);
	assert_string_equal(after, before);
	free(after);
	free(before);
	free(path);
}

static void test_tune_drops_refused_optional_item(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	/* reports adaptive-tx but refuses to set it */
	d->coal_mask &= ~(1ULL << ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX);
	assert_ok("net tune eth1 --profile roce-lossless");
	assert_has(cli_err, "coalesce adaptive-rx on adaptive-tx on: Invalid argument");
	assert_has(cli_err, "net eth1: coalesce is optional in the profile: tuning without it\n");
	assert_has(cli_out, "  skipped    coalesce: adaptive rx off, tx off: fixed moderation trades CPU "
			    "against latency by hand (the device refused the fix)\n");
	assert_not_has(cli_out, "  coalesce ");
	assert_int_equal(d->st.pfc.pfc_en, 0x08);
	assert_int_equal(d->coal_v.v[ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX], 0);
	assert_ok("net tune eth1 --undo");
	assert_int_equal(d->st.pfc.pfc_en, 0);

	/* a required item the device refuses fails the tune */
	d->set_err[1] = EIO;
	assert_int_equal(net_cli("net tune eth1 --profile roce-lossless"), 1);
	assert_has(cli_err, "pfc prio-pfc 3:on: Input/output error (reported in the DCB reply)");
	assert_int_equal(d->mtu, 1500);
}

static void test_tune_virtio_skips_plainly(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = virtio();
	assert_ok("net tune eth0 --profile roce-lossless");
	assert_has(cli_out, "  mtu        1500 -> 4200\n");
	assert_has(cli_out, "  skipped    dcb: eth0 (driver virtio_net) has no DCB support");
	assert_has(cli_out, "  skipped    pfc: needs DCB, which eth0 (driver virtio_net) lacks\n");
	assert_has(cli_out, "cannot be set on eth0: 'purlinctl net check eth0' reports them\n");
	assert_int_equal(d->mtu, 4200);
	assert_ok("net tune eth0 --undo");
	assert_int_equal(d->mtu, 1500);
}

static void test_trust_fallback(void **state)
{
	struct fake_dev *d;

	(void)state;
	d = nic();
	d->apptrust_kernel = false;	/* a 6.1 kernel */
	assert_ok("net show eth1");
	assert_has(cli_out, "  trust        pcp (no DSCP APP entries; no apptrust)\n");
	assert_has(cli_out, "unsupported  apptrust\n");
	assert_int_equal(net_cli("net set eth1 trust dscp pcp"), 1);
	assert_has(cli_err, "only dscp or pcp");
	assert_ok("net set eth1 app add dscp 26 prio 3 trust dscp");
	assert_string_equal(fake_log, "dcb eth1 ieee_set app\n");
	assert_ok("net show eth1");
	assert_has(cli_out, "  trust        dscp (follows the DSCP APP entries; no apptrust)\n");
	assert_int_equal(net_cli("net set eth1 trust pcp"), 1);
	assert_has(cli_err, "PCP trust needs the DSCP APP entries deleted");
	net_cli("net check eth1");
	assert_has(cli_out, "PASS  trust     dscp: with no apptrust");

	/* without DSCP entries the trust item's fix is the APP entry */
	assert_ok("net set eth1 app del dscp 26 prio 3");
	assert_int_equal(net_cli("net check eth1"), PL_EXIT_CHECK);
	assert_has(cli_out, "FAIL  trust     pcp: no DSCP APP entries, and no apptrust to select DSCP otherwise\n"
			    "                fix: purlinctl net set eth1 app add dscp 26 prio 3\n");
	assert_ok("net tune eth1 --profile roce-lossless");
	assert_ok("net check eth1");
}

static void test_ecn_bnxt(void **state)
{
	static const char *const knobs[] = { "ecn_enable", "roce_prio", "cnp_dscp", "cnp_prio", "apply" };
	char rel[128];

	(void)state;
	fakenet_add("eth2", FAKE_DCB_NIC);
	driver("eth2", "bnxt_en");
	rdma_dev("bnxt_re0", "eth2", true);
	for (size_t i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(rel, sizeof(rel), "/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/%s", knobs[i]);
		sys_mk(rel, "0x0\n");
	}
	assert_ok("net show eth2");
	assert_has(cli_out, "  ecn          DCQCN off for prio 0 (bnxt_re configfs, ");
	assert_ok("net set eth2 ecn prio 3 on cnp dscp 48 prio 6");
	assert_sys("/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/ecn_enable", "0x1");
	assert_sys("/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/roce_prio", "0x3");
	assert_sys("/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/cnp_dscp", "0x30");
	assert_sys("/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/cnp_prio", "0x6");
	assert_sys("/sys/kernel/config/bnxt_re/bnxt_re0/ports/1/cc/apply", "0x1");
	assert_int_equal(net_cli("net set eth2 ecn np 3 on"), 1);
	assert_has(cli_err, "ecn: np/rp separately not supported by eth2 (driver bnxt_en) (bnxt_re configfs)");
}

static void test_ecn_irdma_debugfs_none(void **state)
{
	(void)state;
	/* Intel irdma: one DCQCN enable, no CNP knobs */
	fakenet_add("eth3", FAKE_DCB_NIC);
	driver("eth3", "ice");
	rdma_dev("rdmap3", "eth3", true);
	sys_mk("/sys/kernel/config/irdma/rdmap3/roce_dcqcn_enable", "0\n");
	assert_ok("net set eth3 ecn prio all on");
	assert_sys("/sys/kernel/config/irdma/rdmap3/roce_dcqcn_enable", "1");
	assert_int_equal(net_cli("net set eth3 cnp dscp 48"), 1);
	assert_has(cli_err, "cnp: dscp not supported by eth3 (driver ice) (irdma configfs)");

	/* upstream mlx5: CNP knobs in debugfs, no ECN enable */
	fakenet_add("eth4", FAKE_DCB_NIC);
	sys_mk("/sys/devices/pci0000:00/0000:03:00.0", NULL);
	sys_link("/sys/class/net/eth4/device", "../../../devices/pci0000:00/0000:03:00.0");
	driver("eth4", "mlx5_core");
	sys_mk("/sys/kernel/debug/mlx5/0000:03:00.0/cc_params/np_cnp_dscp", "0\n");
	sys_mk("/sys/kernel/debug/mlx5/0000:03:00.0/cc_params/np_cnp_prio", "0\n");
	assert_ok("net set eth4 cnp dscp 48 prio 6");
	assert_sys("/sys/kernel/debug/mlx5/0000:03:00.0/cc_params/np_cnp_dscp", "48");
	assert_int_equal(net_cli("net set eth4 ecn prio 3 on"), 1);
	assert_has(cli_err, "ecn: enable not supported by eth4 (driver mlx5_core) (mlx5 debugfs)");
	net_cli("net check eth4");
	assert_has(cli_out, "WARN  ecn       no ECN enable knob on eth4 (driver mlx5_core): mlx5 debugfs has only the CNP knobs\n"
			    "                fix: upstream mlx5 configures DCQCN per priority in firmware");

	/* mlx5 without debugfs: said plainly, with the way to get it */
	fakenet_add("eth5", FAKE_DCB_NIC);
	driver("eth5", "mlx5_core");
	assert_ok("net show eth5");
	assert_has(cli_out, "ecn          not supported by eth5 (driver mlx5_core): no cc_params in debugfs: "
			    "mount debugfs on /sys/kernel/debug and load mlx5_ib\n");
}

static void test_undo_file_errors(void **state)
{
	char *path = undo_file("eth0");

	(void)state;
	virtio();
	sys_mk("/state/net-eth0.json", "{ not json");
	assert_int_equal(net_cli("net tune eth0 --undo"), 1);
	assert_has(cli_err, "net-eth0.json: cannot read it as JSON");
	sys_mk("/state/net-eth0.json", "{\"ifname\": \"eth9\", \"undo\": [\"mtu 1500\"]}");
	assert_int_equal(net_cli("net tune eth0 --undo"), 1);
	assert_has(cli_err, "it is not for this device");
	sys_mk("/state/net-eth0.json", "{\"ifname\": \"eth0\", \"undo\": [\"mtu lots\"]}");
	assert_int_equal(net_cli("net tune eth0 --undo"), 1);
	assert_has(cli_err, "an entry is not a valid setting");
	/* a tune will not overwrite what it cannot read */
	assert_int_equal(net_cli("net tune eth0 --profile roce-lossless"), 1);
	assert_int_equal(fake_devs[0].mtu, 1500);
	free(path);
}

/* ---- the auditor on its own ---- */

static void read_nic(struct pl_net *st)
{
	struct pl_nlerr e;

	assert_int_equal(pl_net_read("eth1", st, &e), 0);
}

static const struct pl_check_item *find_item(const struct pl_audit *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->item[i].name, name))
			return &a->item[i];
	fail_msg("no item %s", name);
	return &a->item[0];
}

static char *fix_of(const struct pl_audit *a, const char *name)
{
	return pl_net_format_str(&find_item(a, name)->fix);
}

static void test_audit_grades(void **state)
{
	struct pl_net *st = calloc(1, sizeof(*st));
	struct pl_audit *a = calloc(1, sizeof(*a));
	struct pl_profile pr;
	char *fix;

	(void)state;
	nic();
	pl_profile_defaults(&pr);
	read_nic(st);
	st->dcb.pfc.pfc_en = 0x18;
	st->link.mtu = 4192;
	st->dcb.ets.tc_tsa[3] = IEEE_8021QAZ_TSA_STRICT;
	st->rdma.port[0].tos = 106;
	st->dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE;
	pl_audit(st, &pr, a);
	assert_int_equal(find_item(a, "pfc")->grade, PL_WARN);
	assert_string_equal(find_item(a, "pfc")->reason,
			    "on prio 3, and also on 4: pause frames there can spread congestion");
	fix = fix_of(a, "pfc");
	assert_string_equal(fix, "pfc prio-pfc 4:off");
	free(fix);
	assert_int_equal(find_item(a, "mtu")->grade, PL_PASS);
	assert_string_equal(find_item(a, "mtu")->reason, "4192: RoCE path MTU 4096");
	assert_int_equal(find_item(a, "ets")->grade, PL_WARN);
	fix = fix_of(a, "ets");
	assert_string_equal(fix, "ets tc-tsa 3:ets tc-bw 0:8 1:7 2:7 3:50 4:7 5:7 6:7 7:7");
	free(fix);
	assert_int_equal(find_item(a, "roce-tos")->grade, PL_PASS);
	assert_int_equal(find_item(a, "dcb")->grade, PL_WARN);
	assert_has(find_item(a, "dcb")->advice, "dcbx host ieee");
	pl_audit_free(a);

	/* jumbo frames, a small device, four traffic classes */
	pr.jumbo = true;
	st->link.max_mtu = 4000;
	st->dcb.ets.ets_cap = 4;
	st->dcb.ets.tc_tsa[3] = IEEE_8021QAZ_TSA_ETS;
	st->rdma.port[0].state[0] = '\0';
	strcpy(st->rdma.port[0].state, "DOWN");
	pl_audit(st, &pr, a);
	assert_int_equal(find_item(a, "mtu")->grade, PL_FAIL);
	assert_string_equal(find_item(a, "mtu")->advice, "none on this device: eth1 allows at most 4000");
	assert_int_equal(find_item(a, "mtu")->fix.n, 0);
	fix = fix_of(a, "ets");
	assert_string_equal(fix, "ets tc-bw 0:17 1:17 2:16 3:50 prio-tc 1:0 2:0 4:0 5:0 6:0 7:0");
	free(fix);
	assert_int_equal(find_item(a, "rdma")->grade, PL_WARN);
	assert_string_equal(find_item(a, "rdma")->reason, "mlx5_0 port 1 is DOWN");
	pl_audit_free(a);
	free(a);
	free(st);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_grammar_round_trip),
		T(test_usage_errors),
		T(test_help),
		T(test_diff_apply_inverse),
		T(test_refused_before_sending),
		T(test_ets_and_pfc_limits),
		T(test_set_applies_each_knob_once),
		T(test_set_dry_run),
		T(test_set_skipped_attribute),
		T(test_set_inreply_error_rolls_back),
		T(test_app_replace_dscp_exclusive),
		T(test_set_kernel_errors),
		T(test_malformed_replies),
		T(test_show_virtio),
		T(test_show_all),
		T(test_show_nic),
		T(test_check_virtio),
		T(test_tune_dry_run_changes_nothing),
		T(test_unknown_trust_selector),
		T(test_tune_check_undo),
		T(test_tune_twice_keeps_first_state),
		T(test_tune_failure_sets_back),
		T(test_tune_failure_keeps_undo_file),
		T(test_tune_drops_refused_optional_item),
		T(test_tune_virtio_skips_plainly),
		T(test_trust_fallback),
		T(test_ecn_bnxt),
		T(test_ecn_irdma_debugfs_none),
		T(test_undo_file_errors),
		T(test_audit_grades),
	};

	return cmocka_run_group_tests_name("net", tests, NULL, NULL);
}
