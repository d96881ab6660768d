// SPDX-License-Identifier: GPL-2.0
/*
 * Command line: option and argument parsing, and each object's commands
 * against a temporary tree that behaves like nvmet's configfs.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfs.h"
#include "cli.h"
#include "harness.h"
#include "plan.h"
#include "util.h"
#include "validate.h"

#define S1 "nqn.2024-01.io.example:s1"
#define S2 "nqn.2024-01.io.example:s2"
#define H1 "nqn.2024-01.io.example.host:h1"

#define assert_ok assert_run_ok

/* ---- global options and usage errors ---- */

static void test_usage_errors(void **state)
{
	(void)state;
	assert_int_equal(run_cli_raw("-v"), PL_EXIT_USAGE);
	assert_has(cli_err, "Usage:");
	assert_int_equal(run_cli_raw("frob"), PL_EXIT_USAGE);
	assert_has(cli_err, "unknown object 'frob'");
	assert_int_equal(run_cli_raw("--bogus subsys list"), PL_EXIT_USAGE);
	assert_has(cli_err, "invalid option '--bogus'");
	assert_int_equal(run_cli_raw("-x subsys list"), PL_EXIT_USAGE);
	assert_has(cli_err, "invalid option '-x'");
	assert_int_equal(run_cli_raw("--target spdk subsys list"), PL_EXIT_USAGE);
	assert_has(cli_err, "unknown target 'spdk'");
	assert_int_equal(run_cli_raw("--root"), PL_EXIT_USAGE);
	assert_has(cli_err, "option '--root' needs a value");
	assert_int_equal(run_cli_raw("--target"), PL_EXIT_USAGE);
	assert_has(cli_err, "option '--target' needs a value");
	assert_int_equal(run_cli_raw("subsys"), PL_EXIT_USAGE);
	assert_has(cli_err, "subsys: missing command");
	assert_int_equal(run_cli_raw("subsys frob"), PL_EXIT_USAGE);
	assert_has(cli_err, "unknown command 'frob'");
	assert_has(cli_err, "see 'purlinctl subsys help'");
}

static void test_help_and_version(void **state)
{
	(void)state;
	assert_int_equal(run_cli_raw("--version"), 0);
	assert_string_equal(cli_out, "purlinctl 0.0.0-test\n");
	assert_int_equal(run_cli_raw("-V"), 0);
	assert_int_equal(run_cli_raw("-h"), 0);
	assert_has(cli_out, "Usage: purlinctl");
	assert_has(cli_out, "restore");
	assert_int_equal(run_cli_raw("help"), 0);
	assert_int_equal(run_cli_raw("subsys help"), 0);
	assert_has(cli_out, "subsys add NQN");
	assert_int_equal(run_cli_raw("ns help"), 0);
	assert_has(cli_out, "ns add NQN NSID path PATH");
	assert_int_equal(run_cli_raw("port help"), 0);
	assert_has(cli_out, "port link ID NQN");
	assert_int_equal(run_cli_raw("restore help"), 0);
	assert_has(cli_out, "restore [FILE|-]");
	/* help OBJECT is that object's usage, not the general one. */
	assert_int_equal(run_cli_raw("help subsys"), 0);
	assert_has(cli_out, "purlinctl [OPTIONS] subsys add");
	assert_null(strstr(cli_out, "port add"));
	assert_int_equal(run_cli_raw("help frob"), PL_EXIT_USAGE);
	assert_has(cli_err, "help: unknown object 'frob'");
	/* --help or -h after a verb asks for help, it is never an id. */
	assert_int_equal(run_cli("subsys add --help"), 0);
	assert_has(cli_out, "purlinctl [OPTIONS] subsys add");
	assert_false(tree_exists("subsystems/--help"));
	assert_int_equal(run_cli("port add 1 -h"), 0);
	assert_has(cli_out, "purlinctl [OPTIONS] port add");
	assert_false(tree_exists("ports/1"));
	assert_int_equal(run_cli_raw("net show --help"), 0);
	assert_has(cli_out, "net");
}

static void test_argument_errors(void **state)
{
	static const struct {
		const char *args;
		const char *error;
	} cases[] = {
		{ "subsys add", "missing subsys nqn" },
		{ "subsys add bad/nqn", "subsys nqn 'bad/nqn' must be printable ASCII without '/'" },
		{ "subsys add " S1 " colour blue", "unknown argument 'colour'" },
		{ "subsys add " S1 " serial", "'serial' needs a value" },
		{ "subsys add " S1 " allow-any-host maybe", "allow-any-host: invalid value 'maybe'" },
		{ "subsys add " S1 " serial 123456789012345678901", "attr_serial" },
		{ "subsys add " S1 " cntlid-min 9 cntlid-max 3", "greater than cntlid_max" },
		{ "subsys set " S1, "nothing to set" },
		{ "subsys del " S1 " extra", "unexpected argument 'extra'" },
		{ "subsys list extra", "unexpected argument 'extra'" },
		{ "subsys allow " S1, "missing host" },
		{ "subsys allow " S1 " bad/x", "host nqn 'bad/x'" },
		{ "ns add " S1, "missing ns nsid" },
		{ "ns add " S1 " 0 path /dev/x", "ns nsid '0' must be" },
		{ "ns add " S1 " 1", "'path' is required" },
		{ "ns add " S1 " 1 path dev/x", "device_path 'dev/x' must be an absolute path" },
		{ "ns add " S1 " 1 path /dev/x uuid 1234", "device_uuid '1234' must be a UUID" },
		{ "ns add " S1 " 1 path /dev/x ana-grpid 0", "ana_grpid" },
		{ "ns list bad/x", "subsys nqn 'bad/x'" },
		{ "port add 70000 traddr 192.0.2.1", "port portid '70000' must be" },
		{ "port add 1", "'traddr' is required" },
		{ "port add 1 traddr 300.1.1.1", "addr_traddr must be an IPv4 address" },
		{ "port add 1 adrfam ipv6 traddr 192.0.2.1", "must be an IPv6 address" },
		{ "port add 1 traddr 192.0.2.1 trsvcid 0", "addr_trsvcid must be a port number" },
		{ "port add 1 traddr 192.0.2.1 trtype ethernet", "addr_trtype 'ethernet'" },
		{ "port add 1 traddr 192.0.2.1 treq sometimes", "treq: invalid value" },
		{ "port add 1 traddr 192.0.2.1 inline-size 4k", "param_inline_data_size" },
		{ "port add 8 trtype tcp traddr 192.0.2.1", "addr_trtype 'tcp' must be rdma" },
		{ "port add 8 adrfam ib traddr x", "addr_adrfam 'ib' must be ipv4 or ipv6" },
		{ "port add 8 traddr 192.0.2.1 inline-size 1048576",
		  "param_inline_data_size '1048576' must be -1 (the default, 4096) or 0..16384" },
		{ "port add 8 traddr 192.0.2.1 queue-size 8",
		  "param_max_queue_size '8' must be -1 (the default, 128) or 16..1024" },
		{ "ns add " S1 " 2000 path /dev/nullb0", "ns nsid '2000' must be a decimal in 1..1024" },
		{ "subsys add " S1 " qid-max 500", "attr_qid_max '500' must be a decimal in 1..128" },
		{ "ns add " S1 " 1 path /dev/nullb0 enable disable",
		  "'enable' and 'disable' contradict each other" },
		{ "port add 8 traddr 192.0.2.1 trtype rdma trtype rdma", "'trtype' is given twice" },
		{ "ns add " S1 " 1 path /dev/nosuch",
		  "path /dev/nosuch: No such file or directory: a namespace needs an existing block "
		  "device or file" },
		{ "ns add " S1 " 1 path /dev/null",
		  "path /dev/null is neither a block device nor a regular file" },
		{ "ns add " S1 " 1 path /", "path / is neither a block device nor a regular file" },
		{ "port add 1 traddr 192.0.2.1 queue-size 1", "param_max_queue_size" },
		{ "port add 1 traddr 192.0.2.1 cq-mode spin",
		  "param_cq_mode 'spin' must be workqueue or poll" },
		{ "port add 1 traddr 192.0.2.1 poll-usecs 100001",
		  "param_poll_usecs '100001' must be -1 (the default, 50) or 0..100000" },
		{ "port set 1 poll-cpus 3-1",
		  "param_poll_cpus '3-1' must be CPUs and ascending ranges like 0-3,8" },
		{ "port add 1 traddr 192.0.2.1 poll-cpus all", "param_poll_cpus 'all'" },
		{ "port add 1 traddr 192.0.2.1 srq-size 1",
		  "param_srq_size '1' must be -1 (the default, 0), 0 (off) or 16..4096 receive buffers" },
		{ "port add 1 traddr 192.0.2.1 srq-size 15", "param_srq_size '15' must be" },
		{ "port add 1 traddr 192.0.2.1 srq-size 4097", "param_srq_size '4097' must be" },
		{ "port add 1 traddr 192.0.2.1 srq-size -2", "param_srq_size '-2' must be" },
		{ "port add 1 traddr 192.0.2.1 srq-size abc", "param_srq_size 'abc' must be" },
		{ "port add 1 traddr 192.0.2.1 srq-size 0x10", "param_srq_size '0x10' must be" },
		{ "port link 1", "missing subsys" },
		{ "host add", "missing host nqn" },
		{ "save a b", "unexpected argument 'b'" },
		{ "restore a b", "unexpected argument 'b'" },
		{ "clear now", "unexpected argument 'now'" },
	};
	char *before = tree_snapshot(), *after;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run_cli_line(cases[i].args);

		if (rc != PL_EXIT_USAGE)
			fail_msg("'%s': exit %d, expected 2 (%s)", cases[i].args, rc, cli_err);
		if (!strstr(cli_err, cases[i].error))
			fail_msg("'%s': expected '%s' in: %s", cases[i].args, cases[i].error,
				 cli_err);
		if (strchr(cli_err, '\n') != strrchr(cli_err, '\n'))
			fail_msg("'%s': error is not one line: %s", cases[i].args, cli_err);
	}
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_missing_root(void **state)
{
	(void)state;
	assert_int_equal(run_cli_raw("--root /nonexistent/purlin subsys list"), PL_EXIT_TARGET);
	assert_has(cli_err, "/nonexistent/purlin: target root: No such file or directory");
}

/* ---- subsystems ---- */

static void test_subsys_add_defaults(void **state)
{
	char *serial;

	(void)state;
	assert_ok("subsys add " S1);
	assert_true(tree_exists("subsystems/" S1 "/namespaces"));
	serial = tree_read("subsystems/" S1 "/attr_serial");
	assert_int_equal(strlen(serial), 16);
	assert_int_equal(strspn(serial, "0123456789abcdef"), 16);
	free(serial);
	assert_file("subsystems/" S1 "/attr_model", "Purlin");

	assert_int_equal(run_cli("subsys add " S1), PL_EXIT_CONFLICT);
	assert_string_equal(cli_err, "purlinctl: subsys " S1 ": already exists: change it with "
			    "'purlinctl subsys set " S1 " KEYWORD VALUE' or remove it first with "
			    "'purlinctl subsys del " S1 "'\n");
}

static void test_subsys_add_attrs_and_set(void **state)
{
	(void)state;
	assert_ok("subsys add " S1 " serial SN-1 model %s firmware 0.1 version 1.4 "
		  "ieee-oui 0x0a0b0c cntlid-min 2 cntlid-max 100 qid-max 8 allow-any-host on",
		  "Purlin Model");
	assert_file("subsystems/" S1 "/attr_serial", "SN-1");
	assert_file("subsystems/" S1 "/attr_model", "Purlin Model");
	assert_file("subsystems/" S1 "/attr_firmware", "0.1");
	assert_file("subsystems/" S1 "/attr_version", "1.4");
	assert_file("subsystems/" S1 "/attr_ieee_oui", "0x0a0b0c");
	assert_file("subsystems/" S1 "/attr_cntlid_min", "2");
	assert_file("subsystems/" S1 "/attr_cntlid_max", "100");
	assert_file("subsystems/" S1 "/attr_qid_max", "8");
	assert_file("subsystems/" S1 "/attr_allow_any_host", "1");

	assert_ok("subsys set " S1 " allow-any-host off serial SN-2");
	assert_file("subsystems/" S1 "/attr_allow_any_host", "0");
	assert_file("subsystems/" S1 "/attr_serial", "SN-2");
	/* setting the current value is a no-op */
	assert_ok("-v subsys set " S1 " serial SN-2");
	assert_has(cli_err, "nothing to change");

	assert_int_equal(run_cli("subsys set " S2 " serial X"), PL_EXIT_NOTFOUND);
	assert_string_equal(cli_err, "purlinctl: subsys " S2 ": does not exist: create it with "
			    "'purlinctl subsys add " S2 "' (see 'purlinctl subsys list')\n");
}

/*
 * A cntlid range moved past its current end: the target checks min <= max
 * on every write, so the bound that keeps the pair ordered goes first.
 */
static void test_subsys_set_cntlid_range(void **state)
{
	(void)state;
	assert_ok("subsys add " S1 " cntlid-min 2 cntlid-max 10");
	assert_ok("subsys set " S1 " cntlid-min 20 cntlid-max 30");
	assert_file("subsystems/" S1 "/attr_cntlid_min", "20");
	assert_file("subsystems/" S1 "/attr_cntlid_max", "30");
	assert_ok("subsys set " S1 " cntlid-min 3 cntlid-max 5");
	assert_file("subsystems/" S1 "/attr_cntlid_min", "3");
	assert_file("subsystems/" S1 "/attr_cntlid_max", "5");
}

static void test_subsys_list_show(void **state)
{
	struct json_object *arr, *obj, *attr, *v;

	(void)state;
	assert_ok("subsys add " S1 " serial AAA");
	assert_ok("subsys add " S2 " serial BBB");
	assert_ok("subsys list");
	assert_has(cli_out, "NQN");
	assert_has(cli_out, "SERIAL");
	assert_has(cli_out, S1);
	assert_has(cli_out, "BBB");

	assert_ok("-j subsys list");
	arr = json_tokener_parse(cli_out);
	assert_non_null(arr);
	assert_int_equal(json_object_array_length(arr), 2);
	obj = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(obj, "nqn", &v));
	assert_string_equal(json_object_get_string(v), S1);
	assert_true(json_object_object_get_ex(obj, "attr", &attr));
	assert_true(json_object_object_get_ex(attr, "serial", &v));
	assert_string_equal(json_object_get_string(v), "AAA");
	json_object_put(arr);

	assert_ok("subsys show " S2);
	assert_has(cli_out, "subsys " S2);
	/* the keywords the user types, booleans as on/off */
	assert_has(cli_out, "\n  serial                   BBB\n");
	assert_has(cli_out, "\n  allow-any-host           off\n");
	assert_null(strstr(cli_out, "attr_serial"));
	assert_ok("-j subsys show " S2);
	obj = json_tokener_parse(cli_out);
	assert_non_null(obj);
	assert_true(json_object_object_get_ex(obj, "namespaces", &v));
	json_object_put(obj);
	assert_int_equal(run_cli("subsys show nqn.2024-01.io.example:none"), PL_EXIT_NOTFOUND);
}

static void test_subsys_allow(void **state)
{
	char *before, *after;

	(void)state;
	assert_ok("subsys add " S1);
	assert_int_equal(run_cli("subsys allow " S1 " " H1), PL_EXIT_NOTFOUND);
	assert_string_equal(cli_err, "purlinctl: host " H1 ": does not exist: create it with "
			    "'purlinctl host add " H1 "' (see 'purlinctl host list')\n");
	assert_ok("host add " H1);
	assert_ok("subsys allow " S1 " " H1);
	assert_true(tree_exists("subsystems/" S1 "/allowed_hosts/" H1));
	assert_int_equal(run_cli("subsys allow " S1 " " H1), PL_EXIT_CONFLICT);
	assert_string_equal(cli_err, "purlinctl: subsys " S1 ": already allows host '" H1 "' "
			    "(see 'purlinctl subsys show " S1 "')\n");
	/* the target refuses allow-any-host while hosts are listed */
	assert_int_equal(run_cli("subsys set " S1 " allow-any-host on"), PL_EXIT_USAGE);
	assert_has(cli_err, "attr_allow_any_host must be 0 when allowed_hosts are listed");
	assert_ok("host list");
	assert_has(cli_out, H1);
	assert_has(cli_out, S1);
	/* AUTH: "-" without a key; hash, group and direction with keys */
	assert_has(cli_out, "AUTH");
	assert_has(cli_out, H1 "  -  ");
	assert_ok("host set " H1 " key DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR: "
		  "hash hmac(sha512) dhgroup ffdhe2048");
	assert_ok("host list");
	assert_has(cli_out, "hmac(sha512),ffdhe2048 ");
	assert_ok("host set " H1 " ctrl-key DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:");
	assert_ok("host list");
	assert_has(cli_out, "hmac(sha512),ffdhe2048,bidirectional");
	assert_ok("subsys disallow " S1 " " H1);
	assert_false(tree_exists("subsystems/" S1 "/allowed_hosts/" H1));
	assert_int_equal(run_cli("subsys disallow " S1 " " H1), PL_EXIT_NOTFOUND);
	assert_has(cli_err, "subsys " S1 ": does not allow host '" H1 "'");
	/* a subsystem open to any host lists none: said, with the way out */
	assert_ok("subsys set " S1 " allow-any-host on");
	before = tree_snapshot();
	assert_int_equal(run_cli("subsys allow " S1 " " H1), PL_EXIT_CONFLICT);
	assert_has(cli_err, "subsys " S1 ": allows any host, so it lists none: to allow only some, "
		   "run 'purlinctl subsys set " S1 " allow-any-host off' first");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

/* ---- namespaces ---- */

static void test_ns_lifecycle(void **state)
{
	char *uuid, *tiny;

	(void)state;
	assert_int_equal(run_cli("ns add " S1 " 1 path /dev/nullb0"), PL_EXIT_NOTFOUND);
	assert_has(cli_err, "purlinctl: subsys " S1 ": does not exist: create it with "
		   "'purlinctl subsys add " S1 "'");
	assert_ok("subsys add " S1);
	/* a file too small to be a disk (/etc/passwd, say) is refused; a sized one taken */
	tiny = scratch_file("passwd", "root:x:0:0:root:/root:/bin/sh\n");
	assert_int_equal(run_cli("ns add " S1 " 1 path %s", tiny), PL_EXIT_USAGE);
	assert_has(cli_err, "is a file of 30 bytes: a namespace file holds whole 512-byte blocks, "
		   "at least 4096 bytes (make one with 'truncate -s 1G FILE')");
	assert_int_equal(truncate(tiny, 8192), 0);
	assert_ok("ns add " S1" 3 path %s disable", tiny);
	assert_ok("ns del " S1 " 3");
	free(tiny);
	assert_ok("ns add " S1 " 1 path /dev/nullb0");
	assert_file("subsystems/" S1 "/namespaces/1/device_path", "/dev/nullb0");
	assert_file("subsystems/" S1 "/namespaces/1/enable", "1");
	uuid = tree_read("subsystems/" S1 "/namespaces/1/device_uuid");
	assert_null(pl_check_uuid(uuid));
	assert_string_not_equal(uuid, "00000000-0000-0000-0000-000000000000");
	free(uuid);

	assert_ok("ns add " S1 " 2 path /dev/nullb1 uuid 5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c "
		  "nguid 5f1e6a3c2b7d4c8e9a0f1d2e3f4a5b6c buffered-io on disable");
	assert_file("subsystems/" S1 "/namespaces/2/enable", "0");
	assert_file("subsystems/" S1 "/namespaces/2/buffered_io", "1");
	/* the target shows an NGUID in the UUID layout */
	assert_file("subsystems/" S1 "/namespaces/2/device_nguid",
		    "5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c");

	assert_ok("ns disable " S1 " 1");
	assert_file("subsystems/" S1 "/namespaces/1/enable", "0");
	assert_ok("ns enable " S1 " 1");
	assert_file("subsystems/" S1 "/namespaces/1/enable", "1");

	/* an enabled namespace is disabled around a device change and enabled again */
	assert_ok("-v ns set " S1 " 1 path /dev/nullb9");
	assert_file("subsystems/" S1 "/namespaces/1/device_path", "/dev/nullb9");
	assert_file("subsystems/" S1 "/namespaces/1/enable", "1");
	assert_has(cli_err, "enable 0");
	/* reservations on: also only while disabled */
	assert_ok("ns set " S1 " 1 resv on");
	assert_file("subsystems/" S1 "/namespaces/1/resv_enable", "1");
	assert_file("subsystems/" S1 "/namespaces/1/enable", "1");
	assert_int_equal(run_cli("ns set " S1 " 1 resv maybe"), PL_EXIT_USAGE);

	assert_ok("ns list");
	assert_has(cli_out, "NSID");
	assert_has(cli_out, "/dev/nullb9");
	assert_ok("-j ns list " S1);
	assert_has(cli_out, "\"subsys_nqn\": \"" S1 "\"");
	assert_ok("ns show " S1 " 2");
	assert_has(cli_out, "subsys " S1 " ns 2");

	assert_ok("ns del " S1 " 1");
	assert_false(tree_exists("subsystems/" S1 "/namespaces/1"));
	assert_int_equal(run_cli("ns del " S1 " 1"), PL_EXIT_NOTFOUND);
	assert_string_equal(cli_err, "purlinctl: subsys " S1 " ns 1: does not exist: create it with "
			    "'purlinctl ns add " S1 " 1 path PATH' (see 'purlinctl ns list " S1 "')\n");
}

/*
 * Limits per tenant: qos-iops, qos-bps and qos-burst-ms of hosts and
 * namespaces reach their files, change live (an enabled namespace is not
 * disabled around them), and bad values are refused before anything is
 * touched; nvmet has none of them.
 */
static void test_qos_limits(void **state)
{
	(void)state;
	assert_ok("host add " H1 " qos-iops 300 qos-burst-ms 20");
	assert_file("hosts/" H1 "/qos_iops", "300");
	assert_file("hosts/" H1 "/qos_burst_ms", "20");
	assert_file("hosts/" H1 "/qos_bps", "0");
	assert_ok("subsys add " S1);
	assert_ok("ns add " S1 " 1 path /dev/nullb0 qos-bps 1048576");
	assert_file("subsystems/" S1 "/namespaces/1/qos_bps", "1048576");
	assert_ok("-v ns set " S1 " 1 qos-iops 500");
	assert_file("subsystems/" S1 "/namespaces/1/qos_iops", "500");
	assert_file("subsystems/" S1 "/namespaces/1/enable", "1");
	assert_null(strstr(cli_err, "enable 0"));
	assert_ok("host set " H1 " qos-iops 0");
	assert_file("hosts/" H1 "/qos_iops", "0");

	assert_int_equal(run_cli("host set " H1 " qos-iops 100000001"), PL_EXIT_USAGE);
	assert_has(cli_err, "qos_iops '100000001' must be a decimal in 0..100000000 commands "
		   "per second (0: no limit)");
	assert_int_equal(run_cli("ns set " S1 " 1 qos-iops 600 qos-bps -5"), PL_EXIT_USAGE);
	assert_has(cli_err, "qos_bps '-5' must be a decimal in 0..17592186044416 bytes per second");
	assert_int_equal(run_cli("ns set " S1 " 1 qos-burst-ms 10001"), PL_EXIT_USAGE);
	assert_has(cli_err, "qos_burst_ms '10001' must be a decimal in 0..10000 milliseconds");
	assert_int_equal(run_cli("host set " H1 " qos-iops 0x10"), PL_EXIT_USAGE);
	assert_file("subsystems/" S1 "/namespaces/1/qos_iops", "500");
	assert_file("subsystems/" S1 "/namespaces/1/qos_bps", "1048576");
	assert_file("hosts/" H1 "/qos_iops", "0");

	assert_ok("ns show " S1 " 1");
	assert_has(cli_out, "500");
	assert_ok("-j host show " H1);
	assert_has(cli_out, "\"qos\": {\n    \"bps\": \"0\",\n    \"burst_ms\": \"20\"");
}

static void test_qos_nvmet(void **state)
{
	(void)state;
	fake_target = FAKE_NVMET;
	assert_int_equal(run_cli("host add " H1 " qos-iops 300"), PL_EXIT_USAGE);
	assert_has(cli_err, "qos_iops is Purlin's own: nvmet has no such attribute");
	assert_false(tree_exists("hosts/" H1));
	assert_ok("host add " H1);
	assert_false(tree_exists("hosts/" H1 "/qos_iops"));
}

/* ---- ports ---- */

static void test_port_defaults_and_link(void **state)
{
	char target[512];
	ssize_t n;
	char *link, *before, *after;

	(void)state;
	assert_ok("port add 1 traddr 192.0.2.1");
	assert_file("ports/1/addr_trtype", "rdma");
	assert_file("ports/1/addr_adrfam", "ipv4");
	assert_file("ports/1/addr_trsvcid", "4420");
	assert_file("ports/1/addr_traddr", "192.0.2.1");
	/* Purlin: rdma only, said before anything is touched */
	assert_int_equal(run_cli("port add 2 trtype tcp traddr 192.0.2.1"), PL_EXIT_USAGE);
	assert_has(cli_err, "addr_trtype 'tcp' must be rdma: Purlin serves NVMe over RDMA only");
	assert_false(tree_exists("ports/2"));
	assert_ok("port add 2 trtype rdma adrfam ipv6 traddr 2001:db8::1 trsvcid 4421 "
		  "treq not-required inline-size 8192 queue-size 256");
	assert_file("ports/2/addr_treq", "not required");
	assert_file("ports/2/param_inline_data_size", "8192");
	assert_file("ports/2/param_max_queue_size", "256");

	assert_int_equal(run_cli("port link 1 " S1), PL_EXIT_NOTFOUND);
	assert_has(cli_err, "purlinctl: subsys " S1 ": does not exist");
	assert_ok("subsys add " S1);
	assert_ok("port link 1 " S1);
	/* configfs resolves link targets from the caller's cwd: they must be absolute */
	assert_true(asprintf(&link, "%s/ports/1/subsystems/" S1, test_root) > 0);
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_int_equal(target[0], '/');
	assert_has(target, "/subsystems/" S1);
	free(link);

	assert_ok("port list");
	assert_has(cli_out, "192.0.2.1");
	assert_has(cli_out, S1);
	assert_ok("subsys list");
	assert_has(cli_out, "PORTS");

	/* the target refuses address changes on an enabled port: said first, with the way */
	before = tree_snapshot();
	assert_int_equal(run_cli("port set 1 traddr 192.0.2.2"), PL_EXIT_CONFLICT);
	assert_string_equal(cli_err, "purlinctl: port 1: exports subsys '" S1 "', so its address and "
			    "parameters cannot change: unlink it first ('purlinctl port unlink 1 " S1
			    "'), change the port, then link it again ('purlinctl port link 1 " S1 "')\n");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* ...and when the kernel is the one to refuse (a race), the same advice */
	assert_int_equal(cfs_write("ports/1/addr_traddr", "192.0.2.2"), -EACCES);
	{
		struct pl_plan plan = { 0 };
		struct pl_node *port = pl_want(PL_PORT, (char *[]){ "1" });

		pl_plan_write(&plan, port, "addr_traddr", "192.0.2.2", false);
		free(cli_err);
		pl_errs = open_memstream(&cli_err, &(size_t){ 0 });
		assert_int_equal(pl_plan_exec(&plan), -EACCES);
		fclose(pl_errs);
		pl_errs = NULL;
		assert_has(cli_err, "port 1: addr_traddr: Permission denied: port 1 is live and its "
			   "address and parameters cannot change: unlink it first ('purlinctl port "
			   "unlink 1 " S1 "'), then link it again");
		pl_plan_free(&plan);
		pl_want_free(port);
	}
	assert_file("ports/1/addr_traddr", "192.0.2.1");
	/* adrfam of the live port applies to a traddr given alone */
	assert_ok("port set 2 traddr 2001:db8::2");
	assert_int_equal(run_cli("port set 2 traddr 192.0.2.9"), PL_EXIT_USAGE);

	/* a second port on the same address and service could never listen */
	before = tree_snapshot();
	assert_int_equal(run_cli("port add 3 traddr 192.0.2.1"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "port 3: port 1 already has 192.0.2.1 service 4420: only one port can "
		   "listen there; choose another ('trsvcid SVC')");
	assert_int_equal(run_cli("port set 2 adrfam ipv4 traddr 192.0.2.1 trsvcid 4420"),
			 PL_EXIT_CONFLICT);
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
	assert_ok("port add 3 traddr 192.0.2.1 trsvcid 4422");
	assert_ok("port del 3");

	assert_ok("port unlink 1 " S1);
	assert_ok("port set 1 traddr 192.0.2.2");
	assert_ok("port show 1");
	assert_has(cli_out, "\n  traddr                   192.0.2.2\n");
	assert_ok("port del 2");
	assert_false(tree_exists("ports/2"));
}

/* ---- cascades ---- */

static void build_small_config(void)
{
	assert_ok("host add " H1);
	assert_ok("subsys add " S1);
	assert_ok("subsys allow " S1 " " H1);
	assert_ok("ns add " S1 " 1 path /dev/nullb0");
	assert_ok("port add 1 traddr 192.0.2.1");
	assert_ok("port link 1 " S1);
}

/*
 * cq-mode, poll-usecs and poll-cpus reach their files; a CPU list is
 * compared as a set and "" empties it; the kernel's refusals come through
 * (usage errors: test_argument_errors).
 */
static void test_port_poll_params(void **state)
{
	(void)state;
	assert_ok("port add 1 traddr 192.0.2.1 cq-mode poll poll-usecs 20 poll-cpus 0,1,4-5");
	assert_file("ports/1/param_cq_mode", "poll");
	assert_file("ports/1/param_poll_usecs", "20");
	assert_file("ports/1/param_poll_cpus", "0-1,4-5");
	/* the same CPUs written another way, -1 for the default's 50: nothing to do */
	assert_ok("-v port set 1 poll-cpus 0-1,4,5");
	assert_has(cli_err, "nothing to change");
	assert_ok("port set 1 poll-usecs -1");
	assert_file("ports/1/param_poll_usecs", "50");
	assert_ok("-v port set 1 poll-usecs 50");
	assert_has(cli_err, "nothing to change");
	/* an empty list is a value: the default, the RDMA device's NUMA node */
	assert_ok("-n port set 1 poll-cpus %s", "");
	assert_string_equal(cli_out, "write  ports/1/param_poll_cpus = \"\"\n");
	assert_ok("port set 1 poll-cpus %s cq-mode workqueue", "");
	assert_file("ports/1/param_poll_cpus", "");
	assert_file("ports/1/param_cq_mode", "workqueue");
	assert_ok("-v port set 1 poll-cpus %s", "");
	assert_has(cli_err, "nothing to change");
	assert_ok("port show 1");
	assert_has(cli_out, "  cq-mode                  workqueue\n");
	assert_has(cli_out, "  poll-cpus                -\n");
	assert_ok("-j port show 1");
	assert_has(cli_out, "\"cq_mode\": \"workqueue\"");
	assert_has(cli_out, "\"poll_cpus\": \"\"");
	assert_has(cli_out, "\"poll_usecs\": \"50\"");

	/* the kernel's: a CPU this machine lacks (the fake has 8), an enabled port */
	assert_int_equal(run_cli("port set 1 poll-cpus 0-8"), PL_EXIT_FAIL);
	assert_string_equal(cli_err,
			    "purlinctl: port 1: param_poll_cpus: Numerical result out of range\n");
	assert_file("ports/1/param_poll_cpus", "");
	assert_ok("subsys add " S1);
	assert_ok("port link 1 " S1);
	assert_int_equal(run_cli("port set 1 cq-mode poll"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "unlink it first ('purlinctl port unlink 1 " S1 "')");
	assert_file("ports/1/param_cq_mode", "workqueue");
}

/*
 * srq-size reaches param_srq_size; -1 is the default, 0; values the kernel
 * refuses are refused first and change nothing; an enabled port keeps it.
 */
static void test_port_srq_size(void **state)
{
	static const char *const bad[] = { "1", "15", "4097", "-2", "abc" };

	(void)state;
	assert_ok("port add 1 traddr 192.0.2.1 srq-size 256");
	assert_file("ports/1/param_srq_size", "256");
	assert_ok("port set 1 srq-size 16");
	assert_file("ports/1/param_srq_size", "16");
	assert_ok("port set 1 srq-size 4096");
	assert_file("ports/1/param_srq_size", "4096");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run_cli("port set 1 srq-size %s", bad[i]), PL_EXIT_USAGE);
		assert_has(cli_err, "param_srq_size '");
		assert_has(cli_err, "' must be -1 (the default, 0), 0 (off) or 16..4096 "
			   "receive buffers");
		assert_file("ports/1/param_srq_size", "4096");
	}
	assert_ok("port set 1 srq-size -1");
	assert_file("ports/1/param_srq_size", "0");
	assert_ok("-v port set 1 srq-size 0");
	assert_has(cli_err, "nothing to change");
	assert_ok("-v port set 1 srq-size -1");
	assert_has(cli_err, "nothing to change");
	assert_ok("port set 1 srq-size 1024");
	assert_ok("port show 1");
	assert_has(cli_out, "  srq-size                 1024\n");
	assert_ok("-j port show 1");
	assert_has(cli_out, "\"srq_size\": \"1024\"");

	/* the kernel's: only while the port exports nothing */
	assert_ok("subsys add " S1);
	assert_ok("port link 1 " S1);
	assert_int_equal(run_cli("port set 1 srq-size 0"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "unlink it first ('purlinctl port unlink 1 " S1 "')");
	assert_file("ports/1/param_srq_size", "1024");
}

static void test_subsys_del_cascades(void **state)
{
	(void)state;
	build_small_config();
	assert_ok("-n subsys del " S1);
	assert_has(cli_out, "unlink ports/1/subsystems/" S1);
	assert_true(tree_exists("subsystems/" S1));
	assert_ok("subsys del " S1);
	assert_false(tree_exists("subsystems/" S1));
	assert_false(tree_exists("ports/1/subsystems/" S1));
	assert_true(tree_exists("hosts/" H1));
	assert_true(tree_exists("ports/1"));
}

static void test_host_and_port_del_cascade(void **state)
{
	(void)state;
	build_small_config();
	assert_ok("host del " H1);
	assert_false(tree_exists("subsystems/" S1 "/allowed_hosts/" H1));
	assert_false(tree_exists("hosts/" H1));
	assert_ok("port del 1");
	assert_false(tree_exists("ports/1"));
	assert_true(tree_exists("subsystems/" S1));
}

static void test_clear(void **state)
{
	char *before, *after;

	(void)state;
	build_small_config();
	before = tree_snapshot();
	assert_ok("--dry-run clear");
	assert_has(cli_out, "unlink ports/1/subsystems/" S1);
	assert_has(cli_out, "write  subsystems/" S1 "/namespaces/1/enable = \"0\"");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(after);
	assert_ok("clear");
	free(before);
	before = tree_snapshot();
	assert_string_equal(before, EMPTY_TREE);
	free(before);
	/* clear on an empty target does nothing */
	assert_ok("clear");
}

/* Links go first, then namespace disables, then directories. */
static void test_clear_order(void **state)
{
	const char *out;
	const char *unlink_port, *unlink_host, *disable, *rmdir_ns, *rmdir_host;

	(void)state;
	build_small_config();
	assert_ok("-n clear");
	out = cli_out;
	unlink_port = strstr(out, "unlink ports/1/subsystems/");
	unlink_host = strstr(out, "unlink subsystems/" S1 "/allowed_hosts/");
	disable = strstr(out, "/namespaces/1/enable = \"0\"");
	rmdir_ns = strstr(out, "rmdir  subsystems/" S1 "/namespaces/1");
	rmdir_host = strstr(out, "rmdir  hosts/");
	assert_non_null(unlink_port);
	assert_non_null(unlink_host);
	assert_non_null(disable);
	assert_non_null(rmdir_ns);
	assert_non_null(rmdir_host);
	assert_true(unlink_port < unlink_host);
	assert_true(unlink_host < disable);
	assert_true(disable < rmdir_ns);
	assert_true(rmdir_ns < rmdir_host);
}

/* ---- failures ---- */

static void test_add_rolls_back(void **state)
{
	char *before, *after;

	(void)state;
	before = tree_snapshot();
	/* mkdir succeeds, the first attribute write fails */
	cfs_fail_nth(2, EIO);
	assert_int_equal(run_cli("subsys add " S1 " model M"), PL_EXIT_FAIL);
	assert_string_equal(cli_err, "purlinctl: subsys " S1 ": attr_serial: Input/output error\n");
	after = tree_snapshot();
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_missing_attribute(void **state)
{
	(void)state;
	fake_old_nvmet = true;
	assert_int_equal(run_cli("subsys add " S1 " qid-max 4"), PL_EXIT_FAIL);
	assert_has(cli_err, "attr_qid_max: No such file or directory");
	assert_false(tree_exists("subsystems/" S1));
}

static void test_save_stdout_and_file(void **state)
{
	char *file, *text, *stdout_copy;

	(void)state;
	build_small_config();
	assert_ok("save -");
	stdout_copy = strdup(cli_out);
	assert_has(cli_out, "\"hosts\": [");
	assert_has(cli_out, "\"nqn\": \"" H1 "\"");
	assert_has(cli_out, "\"path\": \"/dev/nullb0\"");
	file = scratch_file("saved.json", "");
	assert_ok("save %s", file);
	text = slurp(file);
	assert_string_equal(text, stdout_copy);
	assert_string_equal(cli_out, "");
	assert_has(text, "\"portid\": 1");
	free(stdout_copy);
	free(text);
	free(file);
}

/*
 * On Linux's nvmet: a port's transport, family and service id start empty
 * there, so "port add" writes them; other transports are nvmet's to take;
 * Purlin-only attributes are missing.
 */
static void test_nvmet_target(void **state)
{
	(void)state;
	fake_target = FAKE_NVMET;
	assert_ok("port add 1 traddr 192.0.2.1");
	assert_file("ports/1/addr_trtype", "rdma");
	assert_file("ports/1/addr_adrfam", "ipv4");
	assert_file("ports/1/addr_trsvcid", "4420");
	assert_ok("port add 2 trtype tcp traddr 192.0.2.1");
	assert_file("ports/2/addr_trtype", "tcp");
	assert_false(tree_exists("ports/2/param_tos"));
	/* Purlin's own keywords are refused for nvmet before anything is touched */
	assert_int_equal(run_cli("port add 3 traddr 192.0.2.1 tos 104"), PL_EXIT_USAGE);
	assert_has(cli_err, "param_tos is Purlin's own: nvmet has no such attribute");
	assert_false(tree_exists("ports/3"));
	assert_false(tree_exists("ports/2/param_cq_mode"));
	assert_false(tree_exists("ports/2/param_poll_usecs"));
	assert_false(tree_exists("ports/2/param_poll_cpus"));
	assert_false(tree_exists("ports/2/param_srq_size"));
	assert_int_equal(run_cli("port add 3 traddr 192.0.2.1 srq-size 256"), PL_EXIT_USAGE);
	assert_has(cli_err, "param_srq_size is Purlin's own");
	assert_false(tree_exists("ports/3"));
	assert_int_equal(run_cli("port add 3 traddr 192.0.2.1 cq-mode poll"), PL_EXIT_USAGE);
	assert_has(cli_err, "param_cq_mode is Purlin's own");
	assert_false(tree_exists("ports/3"));
	/* and nvmet's limits are nvmet's: what Purlin refuses it takes */
	assert_ok("port add 3 traddr 192.0.2.1 trsvcid 4430 inline-size 1048576");
	assert_file("ports/3/param_inline_data_size", "1048576");
	assert_ok("subsys add " S1);
	assert_file("subsystems/" S1 "/attr_model", "Linux");
	assert_ok("ns add " S1 " 2000 path /dev/nullb0");
	assert_true(tree_exists("subsystems/" S1 "/namespaces/2000"));
	assert_ok("port link 1 " S1);
}

/* Names nvmet takes are taken, with a warning outside the NQN form. */
static void test_nqn_outside_form_warns(void **state)
{
	(void)state;
	assert_ok("subsys add testnqn");
	assert_true(tree_exists("subsystems/testnqn"));
	assert_has(cli_err, "warning: subsys nqn 'testnqn' must start with 'nqn.YYYY-MM.'");
	assert_has(cli_err, "Linux accepts it");
	assert_ok("host add blktests-host");
	assert_has(cli_err, "warning: host nqn 'blktests-host'");
	assert_ok("subsys add " S1);
	assert_null(strstr(cli_err, "warning"));
}

/* A scratch root never reaches the real target's files or modules. */
static void test_root_and_dry_run_change_nothing(void **state)
{
	char *file, *text;

	(void)state;
	build_small_config();
	/* The default file belongs to the real target: name one with --root. */
	assert_int_equal(run_cli("save"), PL_EXIT_USAGE);
	assert_has(cli_err, "with --root, name the file");
	assert_has(cli_err, "/etc/purlin/config.json");
	assert_int_equal(run_cli("restore"), PL_EXIT_USAGE);
	assert_has(cli_err, "with --root, name the file");
	assert_int_equal(run_cli("restore if-present"), PL_EXIT_USAGE);
	/* A dry run's save writes no file; it shows what the file would hold. */
	file = scratch_file("dry.json", "");
	assert_int_equal(unlink(file), 0);
	assert_ok("-n save %s", file);
	assert_int_equal(access(file, F_OK), -1);
	assert_has(cli_err, "dry run: ");
	assert_has(cli_err, "not written");
	assert_has(cli_out, "\"nqn\": \"" H1 "\"");
	/* ...and an existing file keeps its contents. */
	free(file);
	file = scratch_file("keep.json", "unchanged\n");
	assert_ok("-n save %s", file);
	text = slurp(file);
	assert_string_equal(text, "unchanged\n");
	free(text);
	free(file);
}

/* Without --root, a dry run loads no module and mounts nothing. */
static void test_dry_run_loads_nothing(void **state)
{
	int rc;

	(void)state;
	rc = run_cli_raw("-n --target purlin subsys list");
	if (access("/sys/kernel/config/purlin", F_OK)) {
		/* Not loaded here: the dry run says so instead of modprobe. */
		assert_int_equal(rc, PL_EXIT_TARGET);
		assert_has(cli_err, "dry run: not loading purlin");
	} else {
		assert_int_equal(rc, 0);
	}
}

/*
 * Output: lists stay narrow (a count of hosts, not their NQNs), namespaces
 * show their size, JSON lists carry what the tables show, and -j, -n and
 * -v go after the object too; a dry run with -j prints its plan as JSON.
 */
static void test_output_for_people_and_scripts(void **state)
{
	static const char long_host[] = "nqn.2014-08.org.nvmexpress:uuid:3c2f1b3e-9d1a-4e6b-8f2c-5a7d9e0b1c4f";
	struct json_object *arr, *v;
	char *line;

	(void)state;
	assert_ok("host add %s", long_host);
	assert_ok("subsys add " S1 " serial AAA");
	assert_ok("subsys allow " S1 " %s", long_host);
	assert_ok("ns add " S1 " 1 path /dev/nullb0");
	assert_ok("port add 1 traddr 192.0.2.1");
	assert_ok("port link 1 " S1);

	assert_ok("subsys list");
	assert_null(strstr(cli_out, long_host));
	for (line = cli_out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strcspn(line, "\n") > 100)
			fail_msg("a line of %zu columns: %s", strcspn(line, "\n"), cli_out);
	assert_has(cli_out, " off ");

	assert_ok("ns list " S1);
	assert_has(cli_out, "SIZE");
	assert_has(cli_out, "256 MiB");
	assert_ok("ns show " S1 " 1");
	assert_has(cli_out, "\n  size                     256 MiB\n");
	assert_has(cli_out, "\n  enable                   on\n");

	/* -j after the object, and JSON lists with what the tables show */
	assert_ok("host list -j");
	arr = json_tokener_parse(cli_out);
	assert_non_null(arr);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "allowed_by", &v));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), S1);
	json_object_put(arr);
	assert_ok("subsys list -j");
	arr = json_tokener_parse(cli_out);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "ports", &v));
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "1");
	json_object_put(arr);
	assert_ok("ns list " S1 " -j");
	arr = json_tokener_parse(cli_out);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "size", &v));
	assert_int_equal(json_object_get_int64(v), 256LL << 20);
	json_object_put(arr);

	/* a dry run with -j: the plan as JSON, nothing done */
	assert_ok("subsys set " S1 " model M -n -j");
	arr = json_tokener_parse(cli_out);
	assert_non_null(arr);
	assert_int_equal(json_object_array_length(arr), 1);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "op", &v));
	assert_string_equal(json_object_get_string(v), "write");
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "value", &v));
	assert_string_equal(json_object_get_string(v), "M");
	json_object_put(arr);
	assert_file("subsystems/" S1 "/attr_model", "Purlin");

	/* OBJECT help shows examples */
	assert_int_equal(run_cli_raw("port help"), 0);
	assert_has(cli_out, "Examples:\n  purlinctl port add 1 traddr 192.0.2.10");
}

/* purlinctl stats: counters and latency of a namespace, three ways. */
static void test_stats(void **state)
{
	struct json_object *o, *v, *ns;

	(void)state;
	build_small_config();
	tree_write("subsystems/" S1 "/namespaces/1/stats",
		   "read_cmds=100 read_bytes=409600 write_cmds=10 write_bytes=40960 errors=2 "
		   "other_cmds=1 inflight=3 throttled=7\n");
	tree_write("subsystems/" S1 "/namespaces/1/latency",
		   "bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,"
		   "131072,262144,524288,1048576,2097152,4194304,inf\n"
		   "read_total count=100 sum_us=5000 buckets=0,0,0,0,0,0,90,9,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "write_total count=10 sum_us=1000 buckets=0,0,0,0,0,0,0,10,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "other_total count=1 sum_us=3 buckets=0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "read_device count=100 sum_us=900 buckets=0,0,0,100,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "write_device count=10 sum_us=90 buckets=0,0,0,10,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "other_device count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
	assert_ok("stats");
	assert_has(cli_out, "SUBSYSTEM");
	assert_has(cli_out, "READ-P99-US");
	/* mean 50 us; 99 of 100 reads under 128 us */
	assert_has(cli_out, S1 "  1     100    10      1      2       3         50            128");
	assert_ok("stats -o prometheus");
	assert_has(cli_out, "# TYPE purlin_namespace_read_commands_total counter\n"
		   "purlin_namespace_read_commands_total{subsystem=\"" S1 "\",nsid=\"1\"} 100\n");
	assert_has(cli_out, "purlin_namespace_inflight{subsystem=\"" S1 "\",nsid=\"1\"} 3\n");
	assert_has(cli_out, "# TYPE purlin_namespace_throttled_commands_total counter\n"
		   "purlin_namespace_throttled_commands_total{subsystem=\"" S1 "\",nsid=\"1\"} 7\n");
	assert_has(cli_out, "# TYPE purlin_namespace_latency_seconds histogram\n");
	/* cumulative: 90 under 64 us, 99 under 128 us, all under +Inf */
	assert_has(cli_out, ",op=\"read\",stage=\"total\",le=\"0.000064\"} 90\n");
	assert_has(cli_out, ",op=\"read\",stage=\"total\",le=\"0.000128\"} 99\n");
	assert_has(cli_out, ",op=\"read\",stage=\"total\",le=\"+Inf\"} 100\n");
	assert_has(cli_out, "purlin_namespace_latency_seconds_sum{subsystem=\"" S1
		   "\",nsid=\"1\",op=\"read\",stage=\"total\"} 0.005000\n");
	assert_has(cli_out, "purlin_namespace_latency_seconds_count{subsystem=\"" S1
		   "\",nsid=\"1\",op=\"write\",stage=\"device\"} 10\n");
	assert_ok("stats -o json");
	o = json_tokener_parse(cli_out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &v));
	ns = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(ns, "errors", &v));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(ns, "throttled", &v));
	assert_int_equal(json_object_get_int(v), 7);
	assert_true(json_object_object_get_ex(ns, "latency", &v));
	assert_true(json_object_object_get_ex(v, "read_device", &v));
	assert_true(json_object_object_get_ex(v, "buckets", &v));
	assert_int_equal(json_object_array_length(v), 24);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(v, 3)), 100);
	json_object_put(o);
	/* every read beyond the last bound: the p99 says so */
	tree_write("subsystems/" S1 "/namespaces/1/latency",
		   "bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,"
		   "131072,262144,524288,1048576,2097152,4194304,inf\n"
		   "read_total count=2 sum_us=10000000 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,2\n"
		   "write_total count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "other_total count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "read_device count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "write_device count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "other_device count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
	assert_ok("stats");
	assert_has(cli_out, "5000000       >4194304");
	/* a histogram line twice, another missing: the histograms are left out, said */
	tree_write("subsystems/" S1 "/namespaces/1/latency",
		   "bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,"
		   "131072,262144,524288,1048576,2097152,4194304,inf\n"
		   "read_total count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n"
		   "read_total count=0 sum_us=0 buckets=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
	assert_ok("stats -o json");
	assert_has(cli_err, "not the histograms this purlinctl knows: left out");
	assert_true(strstr(cli_out, "\"latency\"") == NULL);
	/* counters that are not counts: refused, named */
	tree_write("subsystems/" S1 "/namespaces/1/stats", "read_cmds=-1 write_cmds=x\n");
	assert_int_equal(run_cli("stats"), PL_EXIT_TARGET);
	assert_has(cli_err, "namespaces/1/stats: not the counters this purlinctl knows");
	/* bad arguments change nothing and say why */
	assert_int_equal(run_cli("stats -o yaml"), PL_EXIT_USAGE);
	assert_has(cli_err, "-o yaml: text, json or prometheus");
	assert_int_equal(run_cli("stats -o"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("-j stats -o prometheus"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("stats -o json -o text"), PL_EXIT_USAGE);
	assert_has(cli_err, "one output format");
}

/* status: the whole target as a tree, and the same as one JSON object. */
static void test_status(void **state)
{
	struct json_object *o, *v, *s;

	(void)state;
	build_small_config();
	tree_write("subsystems/" S1 "/controllers",
		   "cntlid=7 host=" H1 " port=1 queues=3 kato_ms=5000 read_cmds=0 read_bytes=0 "
		   "write_cmds=0 write_bytes=0 errors=0 addr=192.0.2.77\n");
	assert_ok("status");
	assert_has(cli_out, "purlin at ");
	assert_has(cli_out, "discovery NQN nqn.2014-08.org.nvmexpress.discovery\n");
	assert_has(cli_out, "subsystems (1)\n  " S1 "  model Purlin");
	assert_has(cli_out, "    ports    1\n");
	assert_has(cli_out, "    hosts    " H1 "\n");
	assert_has(cli_out, "    ns 1     /dev/nullb0  256 MiB  enabled\n");
	assert_has(cli_out, "      cntlid 7  host " H1 "  from 192.0.2.77  port 1  queues 3  kato 5000 ms\n");
	assert_has(cli_out, "ports (1)\n  1     rdma ipv4 192.0.2.1:4420  listening\n");
	assert_has(cli_out, "hosts (1)\n  " H1 "  allowed by " S1 "\n");
	assert_ok("-j status");
	o = json_tokener_parse(cli_out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "subsystems", &v));
	s = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(s, "controllers", &v));
	v = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(v, "kato_ms", &v));
	assert_int_equal(json_object_get_int(v), 5000);
	assert_true(json_object_object_get_ex(s, "namespaces", &v));
	v = json_object_array_get_idx(v, 0);
	assert_true(json_object_object_get_ex(v, "size", &v));
	assert_int_equal(json_object_get_int64(v), 256LL << 20);
	json_object_put(o);
	/* an idle port and a subsystem nobody exports say so */
	assert_ok("port unlink 1 " S1);
	assert_ok("status");
	assert_has(cli_out, "idle (exports nothing)");
	assert_has(cli_out, "    ports    none: not exported\n");
	assert_int_equal(run_cli("status extra"), PL_EXIT_USAGE);
}

/* Referrals and ANA groups on the command line, as the JSON file has them. */
static void test_referral_and_ana_verbs(void **state)
{
	(void)state;
	assert_ok("port add 1 traddr 192.0.2.1");
	assert_int_equal(run_cli("referral add 1 peer"), PL_EXIT_USAGE);
	assert_has(cli_err, "'traddr' is required");
	assert_ok("referral add 1 peer traddr 192.0.2.11 portid 2 treq not-required");
	assert_file("ports/1/referrals/peer/addr_traddr", "192.0.2.11");
	assert_file("ports/1/referrals/peer/addr_portid", "2");
	assert_file("ports/1/referrals/peer/addr_treq", "not required");
	assert_file("ports/1/referrals/peer/enable", "1");
	assert_ok("referral set 1 peer disable");
	assert_file("ports/1/referrals/peer/enable", "0");
	assert_ok("referral list 1");
	assert_has(cli_out, "peer");
	assert_has(cli_out, "192.0.2.11");
	assert_ok("referral show 1 peer");
	assert_has(cli_out, "\n  traddr                   192.0.2.11\n");
	assert_int_equal(run_cli("referral add 1 peer traddr 192.0.2.12"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "'purlinctl referral set 1 peer KEYWORD VALUE'");
	assert_int_equal(run_cli("referral del 1 nobody"), PL_EXIT_NOTFOUND);
	assert_has(cli_err, "create it with 'purlinctl referral add 1 nobody traddr ADDR'");
	assert_ok("referral del 1 peer");
	assert_false(tree_exists("ports/1/referrals/peer"));

	assert_ok("ana-group add 1 2 state non-optimized");
	assert_file("ports/1/ana_groups/2/ana_state", "non-optimized");
	assert_ok("ana-group set 1 1 state inaccessible");
	assert_file("ports/1/ana_groups/1/ana_state", "inaccessible");
	assert_int_equal(run_cli("ana-group set 1 2 state sideways"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("ana-group add 1 129"), PL_EXIT_USAGE);
	assert_ok("ana-group list 1");
	assert_has(cli_out, "non-optimized");
	assert_int_equal(run_cli("ana-group add 1 1"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "port 1 ana-group 1: every port has it: change it with "
		   "'purlinctl ana-group set 1 1 KEYWORD VALUE'");
	assert_int_equal(run_cli("ana-group del 1 1"), PL_EXIT_CONFLICT);
	assert_has(cli_err, "every port has it and it cannot be removed");
	assert_true(tree_exists("ports/1/ana_groups/1"));
	assert_ok("ana-group del 1 2");
	assert_false(tree_exists("ports/1/ana_groups/2"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, root_setup, root_teardown)
	const struct CMUnitTest tests[] = {
		T(test_usage_errors),
		T(test_help_and_version),
		T(test_argument_errors),
		T(test_missing_root),
		T(test_subsys_add_defaults),
		T(test_subsys_add_attrs_and_set),
		T(test_subsys_set_cntlid_range),
		T(test_subsys_list_show),
		T(test_subsys_allow),
		T(test_ns_lifecycle),
		T(test_port_defaults_and_link),
		T(test_port_poll_params),
		T(test_port_srq_size),
		T(test_subsys_del_cascades),
		T(test_host_and_port_del_cascade),
		T(test_clear),
		T(test_clear_order),
		T(test_add_rolls_back),
		T(test_missing_attribute),
		T(test_nvmet_target),
		T(test_save_stdout_and_file),
		T(test_root_and_dry_run_change_nothing),
		T(test_nqn_outside_form_warns),
		T(test_dry_run_loads_nothing),
		T(test_output_for_people_and_scripts),
		T(test_status),
		T(test_stats),
		T(test_referral_and_ana_verbs),
		T(test_qos_limits),
		T(test_qos_nvmet),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
