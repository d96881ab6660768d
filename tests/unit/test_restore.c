// SPDX-License-Identifier: GPL-2.0
/*
 * save / restore: the planner's order, restore against a temporary tree,
 * rollback after a failure at every step, idempotence, save-after-restore
 * equivalence and bad files that must leave the target untouched.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs.h"
#include "conf.h"
#include "harness.h"
#include "planner.h"
#include "scan.h"

#define DISK1 "nqn.2024-01.io.example:disk1"
#define DISK2 "nqn.2024-01.io.example:disk2"
#define HOSTA "nqn.2024-01.io.example.host:client-a"

static char *sample_path(void)
{
	return data_file("nvmetcli-sample.json");
}

/*
 * Purlin checks device_path when it is written: the sample's file back
 * end must exist (its block devices, /dev/nullbN, always do in the fake).
 */
static int restore_setup(void **state)
{
	int ret = root_setup(state);

	fakecfs_add_file("/var/lib/purlin/disk2.img");
	return ret;
}

static int restore_sample(const char *opts)
{
	char *path = sample_path(), *line;
	int ret;

	if (asprintf(&line, "%s restore %s", opts, path) < 0)
		abort();
	ret = run_cli_line(line);
	free(line);
	free(path);
	return ret;
}

/* Index of the first op whose path ends with suffix and has kind, or -1. */
static long find_op(const struct pl_plan *plan, enum pl_op_kind kind, const char *suffix)
{
	size_t slen = strlen(suffix);

	for (size_t i = 0; i < plan->n; i++) {
		const char *p = plan->v[i].path;
		size_t len = strlen(p);

		if (plan->v[i].kind == kind && len >= slen && !strcmp(p + len - slen, suffix))
			return (long)i;
	}
	return -1;
}

static long last_op(const struct pl_plan *plan, enum pl_op_kind kind, const char *prefix)
{
	long at = -1;

	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].kind == kind && !strncmp(plan->v[i].path, prefix, strlen(prefix)))
			at = (long)i;
	return at;
}

static long first_op(const struct pl_plan *plan, enum pl_op_kind kind, const char *prefix)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->v[i].kind == kind && !strncmp(plan->v[i].path, prefix, strlen(prefix)))
			return (long)i;
	return -1;
}

#define assert_before(a, b)                                                        \
	do {                                                                       \
		long _a = (a), _b = (b);                                           \
		if (_a < 0 || _b < 0 || _a >= _b)                                  \
			fail_msg("%s (%ld) not before %s (%ld)", #a, _a, #b, _b);  \
	} while (0)

static void test_planner_order(void **state)
{
	struct pl_node *want = NULL, *live = pl_node_new(PL_ROOT, NULL, NULL);
	struct pl_plan plan = { 0 };
	char *path = sample_path();

	(void)state;
	pl_errs = fopen("/dev/null", "w");
	assert_int_equal(pl_conf_load(path, &want), 0);
	pl_plan_restore(&plan, want, live);
	fclose(pl_errs);
	pl_errs = NULL;

	/* hosts before the links that name them */
	assert_before(last_op(&plan, PL_OP_MKDIR, "hosts/"),
		      first_op(&plan, PL_OP_LINK, "subsystems/" DISK2 "/allowed_hosts/"));
	/* a port's address and parameters before any subsystem link (which enables it) */
	assert_before(find_op(&plan, PL_OP_WRITE, "ports/1/addr_traddr"),
		      first_op(&plan, PL_OP_LINK, "ports/1/subsystems/"));
	assert_before(find_op(&plan, PL_OP_WRITE, "ports/1/param_inline_data_size"),
		      first_op(&plan, PL_OP_LINK, "ports/1/subsystems/"));
	/* trtype first (it resets tsas), treq after the address */
	assert_before(find_op(&plan, PL_OP_WRITE, "ports/1/addr_trtype"),
		      find_op(&plan, PL_OP_WRITE, "ports/1/addr_traddr"));
	assert_before(find_op(&plan, PL_OP_WRITE, "ports/1/addr_trsvcid"),
		      find_op(&plan, PL_OP_WRITE, "ports/1/addr_treq"));
	/* ANA groups before the namespaces that use them */
	assert_before(find_op(&plan, PL_OP_MKDIR, "ports/1/ana_groups/2"),
		      find_op(&plan, PL_OP_WRITE, "namespaces/2/ana_grpid"));
	/* the builtin group 1 is not created, only its state written */
	assert_int_equal(find_op(&plan, PL_OP_MKDIR, "ana_groups/1"), -1);
	assert_true(find_op(&plan, PL_OP_WRITE, "ports/1/ana_groups/1/ana_state") >= 0);
	/* referral: address before enable */
	assert_before(find_op(&plan, PL_OP_WRITE, "referrals/peer/addr_traddr"),
		      find_op(&plan, PL_OP_WRITE, "referrals/peer/enable"));
	/* subsystem attributes before namespaces; namespace attributes before enable */
	assert_before(find_op(&plan, PL_OP_WRITE, DISK1 "/attr_serial"),
		      find_op(&plan, PL_OP_MKDIR, DISK1 "/namespaces/1"));
	assert_before(find_op(&plan, PL_OP_WRITE, DISK1 "/namespaces/1/device_path"),
		      find_op(&plan, PL_OP_WRITE, DISK1 "/namespaces/1/enable"));
	assert_before(find_op(&plan, PL_OP_WRITE, DISK1 "/namespaces/1/device_uuid"),
		      find_op(&plan, PL_OP_WRITE, DISK1 "/namespaces/1/enable"));
	/* allow_any_host before allowed_hosts links; those before port links */
	assert_before(find_op(&plan, PL_OP_WRITE, DISK2 "/attr_allow_any_host"),
		      first_op(&plan, PL_OP_LINK, "subsystems/" DISK2 "/allowed_hosts/"));
	assert_before(last_op(&plan, PL_OP_LINK, "subsystems/"),
		      first_op(&plan, PL_OP_LINK, "ports/"));
	/* every subsystem exists before any port links to it */
	assert_before(last_op(&plan, PL_OP_MKDIR, "subsystems/"),
		      first_op(&plan, PL_OP_LINK, "ports/"));
	/* the link targets are paths of the objects */
	assert_string_equal(plan.v[first_op(&plan, PL_OP_LINK, "ports/1/")].arg,
			    "subsystems/" DISK1);
	pl_plan_free(&plan);
	pl_node_free(want);
	pl_node_free(live);
	free(path);
}

/* An enabled namespace whose device changes is disabled, written, enabled. */
static void test_planner_enable_cycle(void **state)
{
	struct pl_node *lroot = pl_node_new(PL_ROOT, NULL, NULL);
	struct pl_node *wroot = pl_node_new(PL_ROOT, NULL, NULL);
	struct pl_node *ls = pl_node_new(PL_SUBSYS, DISK1, lroot);
	struct pl_node *ws = pl_node_new(PL_SUBSYS, DISK1, wroot);
	struct pl_node *lns = pl_node_new(PL_NS, "1", ls);
	struct pl_node *wns = pl_node_new(PL_NS, "1", ws);
	struct pl_plan plan = { 0 };

	(void)state;
	pl_set(lns, "device_path", "/dev/a");
	pl_set(lns, "enable", "1");
	pl_set(lns, "ana_grpid", "1");
	pl_set(wns, "device_path", "/dev/b");
	pl_set(wns, "enable", "1");
	pl_plan_restore(&plan, wroot, lroot);
	assert_int_equal(plan.n, 3);
	assert_string_equal(plan.v[0].what, "enable");
	assert_string_equal(plan.v[0].arg, "0");
	assert_string_equal(plan.v[1].what, "device_path");
	assert_string_equal(plan.v[2].what, "enable");
	assert_string_equal(plan.v[2].arg, "1");
	pl_plan_free(&plan);

	/* ana_grpid may change live: no cycle */
	pl_set(wns, "device_path", "/dev/a");
	pl_set(wns, "ana_grpid", "2");
	pl_plan_restore(&plan, wroot, lroot);
	assert_int_equal(plan.n, 1);
	assert_string_equal(plan.v[0].what, "ana_grpid");
	pl_plan_free(&plan);

	/* equal values written differently are equal (case, 0x, separators) */
	pl_unset(wns, "ana_grpid");
	pl_set(lns, "device_uuid", "5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c");
	pl_set(wns, "device_uuid", "5F1E6A3C-2B7D-4C8E-9A0F-1D2E3F4A5B6C");
	pl_set(ls, "attr_ieee_oui", "0x00000a");
	pl_set(ws, "attr_ieee_oui", "10");
	pl_plan_restore(&plan, wroot, lroot);
	assert_int_equal(plan.n, 0);
	pl_plan_free(&plan);
	pl_node_free(lroot);
	pl_node_free(wroot);
}

static void test_restore_creates_tree(void **state)
{
	char target[512];
	char *link;
	ssize_t n;

	(void)state;
	if (restore_sample(""))
		fail_msg("restore: %s", cli_err);
	assert_string_equal(cli_err, "");
	assert_true(tree_exists("hosts/" HOSTA));
	assert_true(tree_exists("subsystems/" DISK1 "/namespaces/2"));
	assert_true(tree_exists("subsystems/" DISK2 "/allowed_hosts/" HOSTA));
	assert_true(tree_exists("ports/1/subsystems/" DISK2));
	assert_true(tree_exists("ports/1/ana_groups/2"));
	assert_true(tree_exists("ports/1/referrals/peer"));
	assert_file("ports/1/addr_traddr", "192.0.2.10");
	assert_file("ports/1/ana_groups/2/ana_state", "non-optimized");
	assert_file("subsystems/" DISK1 "/namespaces/1/enable", "1");
	assert_file("subsystems/" DISK2 "/namespaces/10/enable", "0");
		assert_true(asprintf(&link, "%s/subsystems/" DISK2 "/allowed_hosts/" HOSTA, test_root) > 0);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_int_equal(target[0], '/');
	free(link);
}

static void test_restore_idempotent(void **state)
{
	char *before, *after;

	(void)state;
	assert_int_equal(restore_sample(""), 0);
	before = tree_snapshot();
	assert_int_equal(restore_sample("-v"), 0);
	assert_has(cli_err, "the target already matches");
	assert_int_equal(restore_sample("--dry-run"), 0);
	assert_string_equal(cli_out, "");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* Every value of a, and every object and link, is in b (compared as the target compares). */
static void assert_subset(const struct pl_node *a, const struct pl_node *b)
{
	const struct pl_type_spec *spec = pl_spec(a->type);
	char *label = a->parent ? pl_node_label(a) : strdup("root");

	for (size_t i = 0; i < a->attrs.n; i++) {
		const char *v = pl_get(b, a->attrs.v[i].name);

		if (!v || !pl_attr_equal(a->type, a->attrs.v[i].name, a->attrs.v[i].value, v))
			fail_msg("%s: %s: '%s' vs '%s'", label, a->attrs.v[i].name,
				 a->attrs.v[i].value, v ? v : "(missing)");
	}
	if (a->links.n != b->links.n)
		fail_msg("%s: %zu links vs %zu", label, a->links.n, b->links.n);
	for (size_t i = 0; i < a->links.n; i++)
		if (!strv_has(&b->links, a->links.v[i]))
			fail_msg("%s: link %s missing", label, a->links.v[i]);
	for (size_t k = 0; k < spec->nkids; k++) {
		if (a->kids[k].n != b->kids[k].n)
			fail_msg("%s: %zu %s vs %zu", label, a->kids[k].n,
				 pl_spec(spec->kids[k])->dir, b->kids[k].n);
		for (size_t i = 0; i < a->kids[k].n; i++) {
			const struct pl_node *kb = pl_find(b, spec->kids[k], a->kids[k].v[i]->id);

			if (!kb)
				fail_msg("%s: %s %s missing", label, pl_spec(spec->kids[k])->label,
					 a->kids[k].v[i]->id);
			assert_subset(a->kids[k].v[i], kb);
		}
	}
	free(label);
}

static void test_save_after_restore(void **state)
{
	struct pl_node *want = NULL, *saved = NULL;
	char *path = sample_path(), *out = scratch_file("saved.json", "");

	(void)state;
	assert_int_equal(restore_sample(""), 0);
	assert_int_equal(run_cli("save %s", out), 0);
	pl_errs = stderr;
	assert_int_equal(pl_conf_load(path, &want), 0);
	assert_int_equal(pl_conf_load(out, &saved), 0);
	pl_errs = NULL;
	assert_subset(want, saved);
	pl_node_free(want);
	pl_node_free(saved);

	/* the saved file restores onto a cleared target to the same tree */
	{
		char *first = tree_snapshot(), *second;

		assert_int_equal(run_cli("clear"), 0);
		assert_int_equal(run_cli("restore %s", out), 0);
		second = tree_snapshot();
		assert_string_equal(first, second);
		free(first);
		free(second);
	}
	free(path);
	free(out);
}

static void test_restore_stdin_dash_and_if_present(void **state)
{
	char *missing = scratch_file("x", ""), *before, *after;

	(void)state;
	*strrchr(missing, '/') = '\0';
	before = tree_snapshot();
	assert_int_equal(run_cli("-v restore %s/none.json if-present", missing), 0);
	assert_has(cli_err, "not found, nothing to restore");
	assert_int_equal(run_cli("restore %s/none.json", missing), PL_EXIT_FILE);
	assert_has(cli_err, "none.json: open: No such file or directory");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	free(missing);
}

/* Objects already present with other values are updated; others are left alone. */
static void test_restore_merges(void **state)
{
	(void)state;
	assert_int_equal(run_cli("subsys add " DISK1 " serial OLD model Old"), 0);
	assert_int_equal(run_cli("subsys add nqn.2024-01.io.example:keep"), 0);
	assert_int_equal(run_cli("ns add " DISK1 " 1 path /dev/nullb7"), 0);
	assert_int_equal(restore_sample(""), 0);
	assert_file("subsystems/" DISK1 "/attr_serial", "8a3f0c2e91d4b756");
	assert_file("subsystems/" DISK1 "/namespaces/1/device_path", "/dev/nullb0");
	assert_file("subsystems/" DISK1 "/namespaces/1/enable", "1");
		assert_true(tree_exists("subsystems/nqn.2024-01.io.example:keep"));
}

/* remove FILE exits rc, says msg, and leaves the tree as it was */
static void remove_changes_nothing(const char *file, int rc, const char *msg)
{
	char *before = tree_snapshot(), *after;

	assert_int_equal(run_cli("remove %s", file), rc);
	assert_has(cli_err, msg);
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/*
 * remove FILE takes away what restoring FILE made, links first; a port or
 * host another subsystem still uses stays, and so does everything else.
 */
static void test_remove_undoes_restore(void **state)
{
	char *path = sample_path(), *before, *after, *bad = NULL;
	struct pl_plan plan = { 0 };
	struct pl_node *want, *live;

	(void)state;
	assert_int_equal(run_cli("subsys add nqn.2024-01.io.example:other"), 0);
	assert_int_equal(run_cli("host add nqn.2024-01.io.example.host:other"), 0);
	before = tree_snapshot();
	assert_int_equal(restore_sample(""), 0);
	assert_int_equal(run_cli("subsys allow nqn.2024-01.io.example:other " HOSTA), 0);
	assert_int_equal(run_cli("port link 2 nqn.2024-01.io.example:other"), 0);

	/* the plan: every unlink before the first rmdir */
	pl_errs = stderr;
	assert_int_equal(pl_conf_load(path, &want), 0);
	pl_errs = NULL;
	assert_int_equal(pl_scan(&live), 0);
	pl_plan_unload(&plan, want, live, NULL);
	assert_true(last_op(&plan, PL_OP_UNLINK, "ports/") < first_op(&plan, PL_OP_RMDIR, ""));
	assert_true(last_op(&plan, PL_OP_UNLINK, "subsystems/") < first_op(&plan, PL_OP_RMDIR, ""));
	pl_plan_free(&plan);
	pl_node_free(want);
	pl_node_free(live);

	assert_int_equal(run_cli("-v remove %s", path), 0);
	assert_has(cli_err, "port 2 kept");
	assert_has(cli_err, "host " HOSTA " kept");
	assert_false(tree_exists("subsystems/" DISK1));
	assert_false(tree_exists("subsystems/" DISK2));
	assert_false(tree_exists("ports/1"));
	assert_true(tree_exists("ports/2/subsystems/nqn.2024-01.io.example:other"));
	assert_true(tree_exists("hosts/" HOSTA));
	assert_true(tree_exists("subsystems/nqn.2024-01.io.example:other/allowed_hosts/" HOSTA));
	assert_true(tree_exists("hosts/nqn.2024-01.io.example.host:other"));

	/* nothing left of it: a second remove plans nothing */
	assert_int_equal(run_cli("-n -j remove %s", path), 0);
	assert_has(cli_out, "[]");
	assert_int_equal(run_cli("port unlink 2 nqn.2024-01.io.example:other"), 0);
	assert_int_equal(run_cli("subsys disallow nqn.2024-01.io.example:other " HOSTA), 0);
	assert_int_equal(run_cli("remove %s", path), 0);
	after = tree_snapshot();
	/* the discovery NQN the file set stays; everything else is as before */
	assert_false(tree_exists("hosts/" HOSTA));
	assert_false(tree_exists("ports/2"));
	assert_true(strstr(after, "subsystems/nqn.2024-01.io.example:other") != NULL);
	assert_true(strstr(before, "hosts/nqn.2024-01.io.example.host:other") != NULL);
	assert_true(strstr(after, "hosts/nqn.2024-01.io.example.host:other") != NULL);

	/* a refused step fails the command and puts everything back */
	assert_int_equal(restore_sample(""), 0);
	cfs_fail_nth(3, EBUSY);
	remove_changes_nothing(path, PL_EXIT_FAIL, "Device or resource busy");

	/* a namespace the file does not name: refused, nothing removed */
	assert_int_equal(run_cli("ns add " DISK1 " 9 path /dev/nullb7"), 0);
	remove_changes_nothing(path, PL_EXIT_CONFLICT, "namespace 9");
	assert_int_equal(run_cli("ns del " DISK1 " 9"), 0);

	/* a file that is not valid changes nothing */
	free(bad);
	bad = scratch_file("bad.json", "{ \"subsystems\": [ { \"nqn\": ");
	remove_changes_nothing(bad, PL_EXIT_FILE, "bad.json");

	assert_int_equal(run_cli("remove"), PL_EXIT_USAGE);
	free(before);
	free(after);
	free(bad);
	free(path);
}

static void apply_setup(const char *cmds[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (run_cli_line(cmds[i]))
			fail_msg("setup '%s': %s", cmds[i], cli_err);
}

/* Fail each step of the restore in turn: the tree must come back unchanged. */
static void run_injection(const char *setup_cmds[], size_t nsetup)
{
	char *before, *after, *path = sample_path();
	unsigned int total, n;

	apply_setup(setup_cmds, nsetup);
	before = tree_snapshot();
	cfs_fail_nth(0, 0);
	assert_int_equal(run_cli("restore %s", path), 0);
	total = cfs_mutations();
	assert_true(total > 20);
	assert_int_equal(run_cli("clear"), 0);
	apply_setup(setup_cmds, nsetup);
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(after);

	for (n = 1; n <= total; n++) {
		cfs_fail_nth(n, EIO);
		if (run_cli("restore %s", path) != PL_EXIT_FAIL)
			fail_msg("step %u: restore did not fail", n);
		if (!strstr(cli_err, "Input/output error"))
			fail_msg("step %u: %s", n, cli_err);
		if (strstr(cli_err, "rollback:") || strstr(cli_err, "cannot be restored"))
			fail_msg("step %u: rollback failed: %s", n, cli_err);
		cfs_fail_nth(0, 0);
		after = tree_snapshot();
		if (strcmp(before, after))
			fail_msg("step %u: tree changed\nbefore:\n%s\nafter:\n%s", n, before, after);
		free(after);
	}
	free(before);
	free(path);
}

static void test_failure_injection_empty_target(void **state)
{
	(void)state;
	run_injection(NULL, 0);
}

/* With objects already present, rollback also restores the values it changed. */
static void test_failure_injection_existing_config(void **state)
{
	static const char *setup[] = {
		"host add " HOSTA,
		"subsys add " DISK1 " serial OLD model Old allow-any-host off",
		"ns add " DISK1 " 1 path /dev/nullb7 uuid 0b0a5c9e-6a51-4d6d-9d0b-3f2e1c4b5a69",
		"port add 2 adrfam ipv6 traddr 2001:db8::99 trsvcid 4421",
		"subsys add nqn.2024-01.io.example:unrelated serial U",
	};

	(void)state;
	run_injection(setup, sizeof(setup) / sizeof(setup[0]));
}

static void test_failure_message_names_step(void **state)
{
	char *path = sample_path();

	(void)state;
	cfs_fail_nth(5, EBUSY);
	assert_int_equal(run_cli("restore %s", path), PL_EXIT_FAIL);
	assert_has(cli_err, "Device or resource busy");
	assert_has(cli_err, "restore: step 5 of ");
	assert_has(cli_err, "4 completed steps rolled back");
	free(path);
}

struct bad_file {
	const char *name;
	const char *text;
	const char *error;
};

static const struct bad_file bad_files[] = {
	{ "malformed.json", "{\"hosts\": [", "invalid JSON" },
	{ "missing.json", "{\"ports\": [{\"addr\": {}}]}", "missing key 'portid'" },
	{ "type.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"namespaces\": {}}]}",
	  "'namespaces' must be an array" },
	{ "dup.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\"}, "
		      "{\"nqn\": \"nqn.2024-01.io.example:s\"}]}", "duplicate subsys" },
	{ "dangling.json", "{\"hosts\": [], \"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", "
			   "\"allowed_hosts\": [\"nqn.2024-01.io.example:ghost\"]}]}", "not defined" },
	{ "long.json", "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:"
		       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		       "aaaaaaaaaaaaaaaaaaaaa\"}]}", "longer than 223 bytes" },
	/* one bad value late in the file: nothing before it may be applied */
	{ "late.json", "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:h\"}], \"ports\": [{\"portid\": 3, "
		       "\"addr\": {\"trtype\": \"rdma\", \"adrfam\": \"ipv4\", \"traddr\": \"192.0.2.300\"}}]}",
	  "addr_traddr must be an IPv4 address" },
	/* a typo in an attribute name is not skipped silently */
	{ "typo.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", "
		       "\"attr\": {\"serail\": \"X\"}}]}",
	  "attr_serail is an attribute neither Purlin nor nvmet has (a typo?); 'restore FILE --force'" },
	/* Purlin's limits, in a file too */
	{ "tcp.json", "{\"ports\": [{\"portid\": 3, \"addr\": {\"trtype\": \"tcp\", "
		      "\"adrfam\": \"ipv4\", \"traddr\": \"192.0.2.3\"}}]}",
	  "addr_trtype must be rdma: Purlin serves NVMe over RDMA only" },
	{ "srq15.json", "{\"ports\": [{\"portid\": 3, \"addr\": {\"traddr\": \"192.0.2.3\"}, "
			"\"param\": {\"srq_size\": \"15\"}}]}",
	  "port 3: param_srq_size must be -1 (the default, 0), 0 (off) or 16..4096 receive buffers" },
};

/*
 * nvmetcli's "passthru" list (every subsystem of an nvmet with NVMe
 * passthrough built in): an unused one is taken quietly, one in use is
 * said not to be restored.
 */
static void test_restore_passthru(void **state)
{
	char *file = scratch_file("pt.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:pt\", "
				  "\"passthru\": [{\"device\": {\"path\": \"/dev/nvme0\"}, \"enable\": 1, "
				  "\"clear_ids\": 1}]}]}");
	char *bad = scratch_file("ptbad.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:pt\", "
				 "\"passthru\": {}}]}");

	char *unused = scratch_file("ptoff.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:u\", "
				    "\"passthru\": [{\"admin_timeout\": 0, \"clear_ids\": 1, "
				    "\"device\": {\"path\": \"\"}, \"enable\": 0, \"io_timeout\": 0}]}]}");

	(void)state;
	assert_int_equal(run_cli("restore %s", unused), 0);
	assert_string_equal(cli_err, "");
	assert_true(tree_exists("subsystems/nqn.2024-01.io.example:u"));
	free(unused);
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_has(cli_err, "warning: subsys nqn.2024-01.io.example:pt: passthru (nvmet's NVMe "
		   "passthrough of '/dev/nvme0') is not restored by purlinctl: not applied");
	assert_true(tree_exists("subsystems/nqn.2024-01.io.example:pt"));
	assert_int_equal(run_cli("restore %s", bad), PL_EXIT_FILE);
	assert_has(cli_err, "'passthru' must be an array");
	free(file);
	free(bad);
}

/* restore --force takes a name no target knows (a newer kernel's); the target decides. */
static void test_restore_force_unknown(void **state)
{
	char *file = scratch_file("new.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", "
				  "\"attr\": {\"serial\": \"S1\", \"newer_knob\": \"7\"}}]}");

	(void)state;
	assert_int_equal(run_cli("restore %s", file), PL_EXIT_FILE);
	assert_false(tree_exists("subsystems/nqn.2024-01.io.example:s"));
	assert_int_equal(run_cli("-v restore %s --force", file), 0);
	assert_file("subsystems/nqn.2024-01.io.example:s/attr_serial", "S1");
	assert_has(cli_err, "attr_newer_knob: not supported by this target, skipped");
	/* a name the target itself shows is known */
	tree_write("subsystems/nqn.2024-01.io.example:s/attr_newer_knob", "0");
	assert_int_equal(run_cli("-n restore %s", file), 0);
	assert_has(cli_out, "write  subsystems/nqn.2024-01.io.example:s/attr_newer_knob = \"7\"");
	free(file);
}

static void test_bad_files_touch_nothing(void **state)
{
	char *before, *after;

	(void)state;
	assert_int_equal(run_cli("subsys add nqn.2024-01.io.example:existing"), 0);
	before = tree_snapshot();
	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		char *file = scratch_file(bad_files[i].name, bad_files[i].text);

		cfs_fail_nth(0, 0);
		if (run_cli("restore %s", file) != PL_EXIT_FILE)
			fail_msg("%s: accepted, or not as a bad file", bad_files[i].name);
		if (!strstr(cli_err, bad_files[i].error) || !strstr(cli_err, bad_files[i].name))
			fail_msg("%s: expected '%s' in: %s", bad_files[i].name, bad_files[i].error,
				 cli_err);
		if (cfs_mutations())
			fail_msg("%s: %u configfs changes attempted", bad_files[i].name,
				 cfs_mutations());
		free(file);
	}
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* Attributes this target lacks are skipped, with a note under -v. */
static void test_restore_skips_missing_attributes(void **state)
{
	(void)state;
	fake_old_nvmet = true;
	assert_int_equal(restore_sample("-v"), 0);
	assert_has(cli_err, "subsys " DISK1 ": attr_qid_max: not supported by this target, skipped");
	assert_false(tree_exists("subsystems/" DISK1 "/attr_qid_max"));
	/* without -v too, said once for all: what the file has that this target lacks */
	assert_int_equal(run_cli("clear"), 0);
	assert_int_equal(restore_sample(""), 0);
	assert_has(cli_err, "restore: not applied, this target has no param_max_queue_size, "
		   "attr_firmware, attr_ieee_oui, attr_qid_max (-v names each object)\n");
	assert_null(strstr(cli_err, "subsys " DISK1 ": attr_qid_max"));
	/* and again, now judged from the live tree */
	assert_int_equal(restore_sample("-v"), 0);
	assert_has(cli_err, "attr_qid_max: not supported by this target, skipped");
}

/* A subsystem whose namespace 1 has reservations on with state st. */
#define RESV_NQN "nqn.2026-11.io.purlin.test:resv"
#define RESV_NS "subsystems/" RESV_NQN "/namespaces/1/"
#define RESV_FILE(st)                                                                    \
	"{\"subsystems\": [{\"nqn\": \"" RESV_NQN "\", \"attr\": {\"allow_any_host\": \"1\"}, " \
	"\"namespaces\": [{\"nsid\": 1, \"device\": {\"path\": \"/dev/nullb0\"}, "             \
	"\"resv\": {\"enable\": 1, \"state\": \"" st "\"}, \"enable\": 1}]}]}"
#define RESV_A "registrant hostid=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1a0a rkey=0x000000000000000a"
#define RESV_B "registrant hostid=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1b0b rkey=0x000000000000000b"

/*
 * The reservation state (Purlin's resv_state, key "state" of the "resv"
 * group beside nvmetcli's "enable") restores after resv_enable and before
 * enable, saves as the kernel shows it, and restores again to no change;
 * a new state for an enabled namespace disables it for the write; a state
 * that cannot be is refused before anything is touched.
 */
static void test_restore_resv_state(void **state)
{
	char *held = scratch_file("resv.json", RESV_FILE("generation=4 type=1 ptpl=1\\n"
							 RESV_A " holder=1\\n" RESV_B " holder=0"));
	char *all = scratch_file("resv-all.json", RESV_FILE("generation=9 type=6 ptpl=0\\n"
							    RESV_A " holder=1\\n" RESV_B " holder=1"));
	char *bad = scratch_file("resv-bad.json", RESV_FILE("generation=4 type=1 ptpl=0\\n"
							    RESV_A " holder=1\\n" RESV_B " holder=1"));
	char *saved = scratch_file("resv-saved.json", ""), *text, *before;

	(void)state;
	assert_int_equal(run_cli("restore %s", held), 0);
	assert_file(RESV_NS "resv_enable", "1");
	assert_file(RESV_NS "resv_state", "generation=4 type=1 ptpl=1\n" RESV_A " holder=1\n"
		    RESV_B " holder=0");
	assert_file(RESV_NS "enable", "1");
	assert_int_equal(run_cli("-v restore %s", held), 0);
	assert_has(cli_err, "the target already matches");
	assert_int_equal(run_cli("save %s", saved), 0);
	text = slurp(saved);
	assert_has(text, "\"resv\": {");
	assert_has(text, "\"state\": \"generation=4 type=1 ptpl=1\\n" RESV_A " holder=1\\n");
	free(text);
	assert_int_equal(run_cli("clear"), 0);
	assert_int_equal(run_cli("restore %s", saved), 0);
	assert_file(RESV_NS "resv_state", "generation=4 type=1 ptpl=1\n" RESV_A " holder=1\n"
		    RESV_B " holder=0");
	/* another state for the enabled namespace */
	assert_int_equal(run_cli("restore %s", all), 0);
	assert_file(RESV_NS "resv_state", "generation=9 type=6 ptpl=0\n" RESV_A " holder=1\n"
		    RESV_B " holder=1");
	assert_file(RESV_NS "enable", "1");
	/* two holders of a Write Exclusive reservation: refused, nothing touched */
	before = tree_snapshot();
	cfs_fail_nth(0, 0);
	assert_int_equal(run_cli("restore %s", bad), PL_EXIT_FILE);
	assert_has(cli_err, "resv_state");
	assert_has(cli_err, "holders do not fit the type");
	assert_int_equal(cfs_mutations(), 0);
	text = tree_snapshot();
	assert_string_equal(before, text);
	free(text);
	free(before);
	assert_int_equal(run_cli("clear"), 0);
}

#define RESVF_FILE(f)                                                                    \
	"{\"subsystems\": [{\"nqn\": \"" RESV_NQN "\", \"attr\": {\"allow_any_host\": \"1\"}, " \
	"\"namespaces\": [{\"nsid\": 1, \"device\": {\"path\": \"/dev/nullb0\"}, "             \
	"\"resv\": {\"enable\": 1, \"file\": \"" f "\"}, \"enable\": 1}]}]}"

/*
 * The PTPL file (Purlin's resv_file, key "file" of the "resv" group) is
 * written before enable, saves and restores to no change; a path that
 * cannot name a file is refused before anything is touched; "" clears it.
 */
static void test_restore_resv_file(void **state)
{
	char *good = scratch_file("resvf.json", RESVF_FILE("/srv/ha/resv/ns1"));
	char *rel = scratch_file("resvf-rel.json", RESVF_FILE("srv/ha/resv/ns1"));
	char *dir = scratch_file("resvf-dir.json", RESVF_FILE("/srv/ha/resv/"));
	char *none = scratch_file("resvf-none.json", RESVF_FILE(""));
	char *saved = scratch_file("resvf-saved.json", ""), *text, *before;

	(void)state;
	assert_int_equal(run_cli("restore %s", good), 0);
	assert_file(RESV_NS "resv_file", "/srv/ha/resv/ns1");
	assert_file(RESV_NS "enable", "1");
	assert_int_equal(run_cli("-v restore %s", good), 0);
	assert_has(cli_err, "the target already matches");
	assert_int_equal(run_cli("save %s", saved), 0);
	text = slurp(saved);
	assert_has(text, "\"file\": \"/srv/ha/resv/ns1\"");
	free(text);
	assert_int_equal(run_cli("clear"), 0);
	assert_int_equal(run_cli("restore %s", saved), 0);
	assert_file(RESV_NS "resv_file", "/srv/ha/resv/ns1");
	before = tree_snapshot();
	cfs_fail_nth(0, 0);
	assert_int_equal(run_cli("restore %s", rel), PL_EXIT_FILE);
	assert_has(cli_err, "resv_file");
	assert_has(cli_err, "must be an absolute path");
	assert_int_equal(run_cli("restore %s", dir), PL_EXIT_FILE);
	assert_has(cli_err, "must name a file");
	assert_int_equal(cfs_mutations(), 0);
	text = tree_snapshot();
	assert_string_equal(before, text);
	free(text);
	free(before);
	/* cleared: the namespace is disabled for the write and enabled again */
	assert_int_equal(run_cli("restore %s", none), 0);
	assert_file(RESV_NS "resv_file", "");
	assert_file(RESV_NS "enable", "1");
	/* the command line: resv-file, checked the same way */
	assert_int_equal(run_cli("ns set " RESV_NQN " 1 resv-file /srv/ha/resv/ns1b"), 0);
	assert_file(RESV_NS "resv_file", "/srv/ha/resv/ns1b");
	assert_file(RESV_NS "enable", "1");
	assert_int_equal(run_cli("ns set " RESV_NQN " 1 resv-file relative"), PL_EXIT_USAGE);
	assert_file(RESV_NS "resv_file", "/srv/ha/resv/ns1b");
	assert_int_equal(run_cli("clear"), 0);
}

/* Port 1 with polled queues on CPUs cpus and an SRQ of srq, then more ports. */
#define POLL_PORT(cpus, srq, more)                                                       \
	"{\"ports\": [{\"portid\": 1, \"addr\": {\"trtype\": \"rdma\", \"adrfam\": \"ipv4\", "  \
	"\"traddr\": \"192.0.2.10\", \"trsvcid\": \"4420\"}, \"param\": {\"cq_mode\": \"poll\", "   \
	"\"poll_usecs\": \"20\", \"poll_cpus\": \"" cpus "\", \"srq_size\": \"" srq "\"}}"      \
	more "]}"

/*
 * The polling parameters and the SRQ size (Purlin only) round trip:
 * restored, saved as the kernel shows them, restored again to no change;
 * an empty CPU list in the file empties a live one, and so does a
 * rollback; an SRQ size of -1 is the default, 0; nvmet skips all four
 * with a note.
 */
static void test_restore_poll_params(void **state)
{
	char *file = scratch_file("poll.json", POLL_PORT("2,0-1", "256", ""));
	char *cleared = scratch_file("cleared.json", POLL_PORT("", "-1", ""));
	char *failing = scratch_file("failing.json",
				     POLL_PORT("0-2", "-1", ", {\"portid\": 2, \"addr\": {\"traddr\": "
							    "\"192.0.2.11\"}}"));
	char *saved = scratch_file("poll-saved.json", ""), *text;

	(void)state;
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_file("ports/1/param_cq_mode", "poll");
	assert_file("ports/1/param_poll_usecs", "20");
	assert_file("ports/1/param_poll_cpus", "0-2");
	assert_file("ports/1/param_srq_size", "256");
	assert_int_equal(run_cli("-v restore %s", file), 0);
	assert_has(cli_err, "the target already matches");
	assert_int_equal(run_cli("save %s", saved), 0);
	text = slurp(saved);
	assert_has(text, "\"cq_mode\": \"poll\"");
	assert_has(text, "\"poll_cpus\": \"0-2\"");
	assert_has(text, "\"poll_usecs\": \"20\"");
	assert_has(text, "\"srq_size\": \"256\"");
	free(text);
	assert_int_equal(run_cli("clear"), 0);
	assert_int_equal(run_cli("restore %s", saved), 0);
	assert_file("ports/1/param_poll_cpus", "0-2");
	assert_file("ports/1/param_srq_size", "256");
	assert_int_equal(run_cli("restore %s", cleared), 0);
	assert_file("ports/1/param_poll_cpus", "");
	assert_file("ports/1/param_srq_size", "0");
	assert_int_equal(run_cli("-v restore %s", cleared), 0);
	assert_has(cli_err, "the target already matches");
	/* the list written, then port 2's mkdir fails: the list is empty again */
	cfs_fail_nth(2, EIO);
	assert_int_equal(run_cli("restore %s", failing), PL_EXIT_FAIL);
	cfs_fail_nth(0, 0);
	assert_has(cli_err, "port 2: create: Input/output error");
	assert_null(strstr(cli_err, "rollback:"));
	assert_file("ports/1/param_poll_cpus", "");
	assert_false(tree_exists("ports/2"));
	assert_int_equal(run_cli("clear"), 0);

	fake_target = FAKE_NVMET;
	assert_int_equal(run_cli("-v restore %s", saved), 0);
	assert_has(cli_err, "port 1: param_cq_mode: not supported by this target, skipped");
	assert_has(cli_err, "port 1: param_poll_usecs: not supported by this target, skipped");
	assert_has(cli_err, "port 1: param_poll_cpus: not supported by this target, skipped");
	assert_has(cli_err, "port 1: param_srq_size: not supported by this target, skipped");
	assert_false(tree_exists("ports/1/param_cq_mode"));
	assert_false(tree_exists("ports/1/param_srq_size"));
	assert_file("ports/1/addr_traddr", "192.0.2.10");
	free(file);
	free(cleared);
	free(failing);
	free(saved);
}

/* A host and a namespace with limits per tenant (Purlin's "qos" groups). */
#define QOS_FILE(iops)                                                                    \
	"{\"hosts\": [{\"nqn\": \"" HOSTA "\", \"qos\": {\"iops\": \"" iops "\", "            \
	"\"burst_ms\": \"50\"}}], \"subsystems\": [{\"nqn\": \"" DISK1 "\", "                    \
	"\"attr\": {\"allow_any_host\": \"1\"}, \"namespaces\": [{\"nsid\": 1, \"enable\": 1, " \
	"\"device\": {\"path\": \"/dev/nullb0\", \"uuid\": "                                  \
	"\"5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c\"}, \"qos\": {\"iops\": \"" iops "\", "        \
	"\"bps\": \"1048576\"}}]}]}"

/*
 * Limits per tenant round trip: restored, saved in the "qos" group of the
 * host and the namespace (which nvmetcli does not read), restored again to
 * no change; a changed limit is written live, without disabling the
 * namespace; nvmet skips them with a note.
 */
static void test_restore_qos(void **state)
{
	char *file = scratch_file("qos.json", QOS_FILE("300"));
	char *changed = scratch_file("qos2.json", QOS_FILE("600"));
	char *saved = scratch_file("qos-saved.json", ""), *text;

	(void)state;
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_file("hosts/" HOSTA "/qos_iops", "300");
	assert_file("hosts/" HOSTA "/qos_burst_ms", "50");
	assert_file("subsystems/" DISK1 "/namespaces/1/qos_iops", "300");
	assert_file("subsystems/" DISK1 "/namespaces/1/qos_bps", "1048576");
	assert_int_equal(run_cli("save %s", saved), 0);
	text = slurp(saved);
	assert_has(text, "\"qos\": {\n        \"bps\": \"0\",\n        \"burst_ms\": \"50\",\n"
		   "        \"iops\": \"300\"\n      }");
	assert_has(text, "\"bps\": \"1048576\"");
	free(text);
	assert_int_equal(run_cli("-v restore %s", saved), 0);
	assert_has(cli_err, "the target already matches");
	assert_int_equal(run_cli("-v restore %s", changed), 0);
	assert_file("hosts/" HOSTA "/qos_iops", "600");
	assert_file("subsystems/" DISK1 "/namespaces/1/qos_iops", "600");
	assert_null(strstr(cli_err, "enable 0"));
	assert_int_equal(run_cli("clear"), 0);

	fake_target = FAKE_NVMET;
	assert_int_equal(run_cli("-v restore %s", file), 0);
	assert_has(cli_err, "host " HOSTA ": qos_iops: not supported by this target, skipped");
	assert_has(cli_err, "ns 1: qos_bps: not supported by this target, skipped");
	assert_file("subsystems/" DISK1 "/namespaces/1/device_path", "/dev/nullb0");
	assert_false(tree_exists("hosts/" HOSTA "/qos_iops"));
	free(file);
	free(changed);
	free(saved);
}

static void test_dry_run_restore(void **state)
{
	char *before = tree_snapshot(), *after;

	(void)state;
	assert_int_equal(restore_sample("-n"), 0);
	assert_has(cli_out, "mkdir  hosts/" HOSTA "\n");
	assert_has(cli_out, "write  ports/1/addr_traddr = \"192.0.2.10\"\n");
	assert_has(cli_out, "link   ports/1/subsystems/" DISK1 " -> subsystems/" DISK1 "\n");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_restore_links_to_live_objects(void **state)
{
	char *file;

	(void)state;
	assert_int_equal(run_cli("host add " HOSTA), 0);
	file = scratch_file("live.json", "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", "
			    "\"attr\": {\"allow_any_host\": \"0\"}, "
			    "\"allowed_hosts\": [\"" HOSTA "\"]}]}");
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_true(tree_exists("subsystems/nqn.2024-01.io.example:s/allowed_hosts/" HOSTA));
	free(file);
}

/*
 * An existing subsystem's cntlid range moved up past its end: the target
 * checks min <= max on each write, so the new max goes first, and a
 * rollback after it puts both back.
 */
static void test_restore_moves_cntlid_range(void **state)
{
	char *file = scratch_file("cntlid.json",
				  "{\"subsystems\": [{\"nqn\": \"" DISK1 "\", \"attr\": "
				  "{\"cntlid_min\": \"20\", \"cntlid_max\": \"30\"}}]}");
	char *before, *after;

	(void)state;
	assert_int_equal(run_cli("subsys add " DISK1 " cntlid-min 2 cntlid-max 10"), 0);
	before = tree_snapshot();
	cfs_fail_nth(2, EIO);
	assert_int_equal(run_cli("restore %s", file), PL_EXIT_FAIL);
	cfs_fail_nth(0, 0);
	assert_has(cli_err, "Input/output error");
	assert_null(strstr(cli_err, "rollback:"));
	after = tree_snapshot();
	assert_string_equal(before, after);
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_file("subsystems/" DISK1 "/attr_cntlid_min", "20");
	assert_file("subsystems/" DISK1 "/attr_cntlid_max", "30");
	free(before);
	free(after);
	free(file);
}

/*
 * A live port's address or parameter changes in a restore: its subsystems
 * are unlinked around the change and linked again; a failure anywhere in
 * that (here the relink: the new service id is taken) undoes it all.
 */
static void test_restore_relinks_live_port(void **state)
{
	char *file = scratch_file("move.json",
				  "{\"ports\": [{\"portid\": 1, \"addr\": {\"traddr\": \"192.0.2.1\", "
				  "\"trsvcid\": \"4421\"}, \"subsystems\": [\"" DISK1 "\"]}]}");
	char *before, *after;

	(void)state;
	assert_int_equal(run_cli("subsys add " DISK1), 0);
	assert_int_equal(run_cli("port add 1 traddr 192.0.2.1"), 0);
	assert_int_equal(run_cli("port link 1 " DISK1), 0);
	assert_int_equal(run_cli("port add 2 traddr 192.0.2.1 trsvcid 4421"), 0);
	assert_int_equal(run_cli("subsys add " DISK2), 0);
	assert_int_equal(run_cli("port link 2 " DISK2), 0);
	before = tree_snapshot();
	assert_int_equal(run_cli("-n restore %s", file), 0);
	assert_has(cli_out, "unlink ports/1/subsystems/" DISK1 "\n"
		   "write  ports/1/addr_trsvcid = \"4421\"\n"
		   "link   ports/1/subsystems/" DISK1 " -> subsystems/" DISK1 "\n");
	assert_int_equal(run_cli("restore %s", file), PL_EXIT_FAIL);
	assert_has(cli_err, "subsystems/" DISK1 ": Address already in use: another listener");
	assert_has(cli_err, "'purlinctl port set 1 trsvcid SVC'");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(after);
	/* with the service id free, the port moves and exports again */
	assert_int_equal(run_cli("port del 2"), 0);
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_file("ports/1/addr_trsvcid", "4421");
	assert_true(tree_exists("ports/1/subsystems/" DISK1));
	free(before);
	free(file);
}

/*
 * diff: in keywords, both directions; exit 8 when they differ, 0 when
 * not. restore --replace: what the file lacks goes (links first, then the
 * merge, then the objects), so that the target is the file and diff is
 * quiet; the merge alone leaves the rest.
 */
static void test_diff_and_replace(void **state)
{
	char *before, *after;

	(void)state;
	assert_int_equal(restore_sample(""), 0);
	assert_int_equal(run_cli("diff %s", "x"), PL_EXIT_FILE);
	{
		char *path = sample_path();

		assert_int_equal(run_cli("diff %s", path), 0);
		assert_string_equal(cli_out, "");
		/* drift on the target: an extra host and link, a changed model, a new port */
		assert_int_equal(run_cli("host add nqn.2024-01.io.example.host:extra"), 0);
		assert_int_equal(run_cli("subsys allow " DISK2 " nqn.2024-01.io.example.host:extra"), 0);
		assert_int_equal(run_cli("subsys set " DISK1 " model Drifted"), 0);
		assert_int_equal(run_cli("port add 9 traddr 192.0.2.99"), 0);
		assert_int_equal(run_cli("ns disable " DISK1 " 1"), 0);
		assert_int_equal(run_cli("diff %s", path), PL_EXIT_DIFFERS);
		assert_has(cli_out, "- host nqn.2024-01.io.example.host:extra\n");
		assert_has(cli_out, "- subsys " DISK2 " allows host nqn.2024-01.io.example.host:extra\n");
		assert_has(cli_out, "~ subsys " DISK1 ": model 'Drifted' -> 'Purlin'\n");
		assert_has(cli_out, "~ subsys " DISK1 " ns 1: enable '0' -> '1'\n");
		assert_has(cli_out, "- port 9\n");

		/* the merge keeps what the file lacks */
		assert_int_equal(run_cli("restore %s", path), 0);
		assert_true(tree_exists("ports/9"));
		assert_true(tree_exists("hosts/nqn.2024-01.io.example.host:extra"));
		assert_file("subsystems/" DISK1 "/attr_model", "Purlin");

		/* a dry run of --replace shows the links going first, the objects last */
		before = tree_snapshot();
		assert_int_equal(run_cli("-n restore %s --replace", path), 0);
		assert_has(cli_out, "unlink subsystems/" DISK2 "/allowed_hosts/nqn.2024-01.io.example.host:extra\n");
		assert_has(cli_out, "rmdir  ports/9\n");
		assert_has(cli_out, "rmdir  hosts/nqn.2024-01.io.example.host:extra\n");
		assert_true(strstr(cli_out, "unlink ") < strstr(cli_out, "rmdir "));
		after = tree_snapshot();
		assert_string_equal(before, after);
		free(after);

		/* a failure undoes the unlink (the rmdirs come last) */
		cfs_fail_nth(2, EIO);
		assert_int_equal(run_cli("restore %s --replace", path), PL_EXIT_FAIL);
		cfs_fail_nth(0, 0);
		after = tree_snapshot();
		assert_string_equal(before, after);
		free(after);
		free(before);

		assert_int_equal(run_cli("restore --replace %s", path), 0);
		assert_false(tree_exists("ports/9"));
		assert_false(tree_exists("hosts/nqn.2024-01.io.example.host:extra"));
		assert_int_equal(run_cli("diff %s", path), 0);
		assert_string_equal(cli_out, "");
		free(path);
	}
	/* with --root the file is named: the default is the real target's */
	assert_int_equal(run_cli("diff"), PL_EXIT_USAGE);
}

/*
 * nvmetcli's root "discovery" group: the persistent discovery NQN is
 * restored, saved, left alone when equal, reset by clear; a target
 * without the attribute says it keeps the well-known NQN, and a name
 * that is a subsystem's is refused before anything changes.
 */
static void test_restore_discovery_nqn(void **state)
{
	char *file, *before, *after;

	(void)state;
	assert_int_equal(restore_sample(""), 0);
	assert_file("discovery_nqn", "nqn.2024-01.io.example:discovery");
	assert_int_equal(run_cli("save -"), 0);
	assert_has(cli_out, "\"discovery\": {\n    \"nqn\": \"nqn.2024-01.io.example:discovery\"\n  }");
	assert_int_equal(restore_sample("-n"), 0);
	assert_null(strstr(cli_out, "discovery_nqn"));
	/* a subsystem cannot take the name: said before the kernel refuses it */
	assert_int_equal(run_cli("subsys add nqn.2024-01.io.example:discovery"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "subsys nqn.2024-01.io.example:discovery: is the target's discovery NQN");
	assert_int_equal(run_cli("clear"), 0);
	assert_file("discovery_nqn", PL_DISCOVERY_NQN);

	/* a subsystem's name cannot be the discovery NQN */
	file = scratch_file("clash.json", "{\"discovery\": {\"nqn\": \"" DISK1 "\"}, "
			    "\"subsystems\": [{\"nqn\": \"" DISK1 "\"}]}");
	before = tree_snapshot();
	assert_int_not_equal(run_cli("restore %s", file), 0);
	assert_has(cli_err, "discovery_nqn names a subsystem");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(after);
	free(file);

	/* nor one of the target's subsystems */
	assert_int_equal(run_cli("subsys add " DISK2), 0);
	file = scratch_file("clash2.json", "{\"discovery\": {\"nqn\": \"" DISK2 "\"}}");
	free(before);
	before = tree_snapshot();
	assert_int_equal(run_cli("restore %s", file), PL_EXIT_FILE);
	assert_has(cli_err, "target: discovery_nqn names a subsystem of the target");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(after);
	free(file);

	/* the well-known name asks for nothing a target without the attribute lacks */
	if (asprintf(&file, "%s/discovery_nqn", test_root) < 0 || unlink(file))
		abort();
	free(file);
	file = scratch_file("default.json", "{\"discovery\": {\"nqn\": \"" PL_DISCOVERY_NQN "\"}, "
			    "\"hosts\": [{\"nqn\": \"" HOSTA "\"}]}");
	assert_int_equal(run_cli("restore %s", file), 0);
	assert_string_equal(cli_err, "");
	assert_true(tree_exists("hosts/" HOSTA));
	free(file);
	/* another is applied everywhere else and said not to be */
	assert_int_equal(restore_sample(""), 0);
	assert_has(cli_err, "warning: discovery_nqn 'nqn.2024-01.io.example:discovery' not applied: "
		   "this target has no discovery_nqn (it keeps " PL_DISCOVERY_NQN ")");
	assert_true(tree_exists("subsystems/" DISK1));
	assert_false(tree_exists("discovery_nqn"));
	free(before);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, restore_setup, root_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planner_order),
		cmocka_unit_test(test_planner_enable_cycle),
		T(test_restore_creates_tree),
		T(test_restore_idempotent),
		T(test_save_after_restore),
		T(test_restore_stdin_dash_and_if_present),
		T(test_restore_merges),
		T(test_failure_injection_empty_target),
		T(test_failure_injection_existing_config),
		T(test_failure_message_names_step),
		T(test_bad_files_touch_nothing),
		T(test_restore_skips_missing_attributes),
		T(test_restore_poll_params),
		T(test_restore_resv_state),
		T(test_restore_resv_file),
		T(test_dry_run_restore),
		T(test_restore_links_to_live_objects),
		T(test_restore_moves_cntlid_range),
		T(test_restore_discovery_nqn),
		T(test_restore_relinks_live_port),
		T(test_diff_and_replace),
		T(test_restore_force_unknown),
		T(test_restore_passthru),
		T(test_restore_qos),
		T(test_remove_undoes_restore),
	};

	return cmocka_run_group_tests_name("restore", tests, NULL, NULL);
}
