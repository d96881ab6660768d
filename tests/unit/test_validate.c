// SPDX-License-Identifier: GPL-2.0
/*
 * Every validator with good and bad inputs.
 */
#include <string.h>

#include "harness.h"
#include "validate.h"

struct vcase {
	const char *val;
	bool ok;
};

static void check_cases(pl_check_fn fn, const struct vcase *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = fn(cases[i].val);

		if (!!why == cases[i].ok)
			fail_msg("'%s': expected %s, got %s", cases[i].val,
				 cases[i].ok ? "valid" : "invalid", why ? why : "valid");
	}
}

#define CHECK(fn, ...)                                                    \
	do {                                                              \
		static const struct vcase c[] = { __VA_ARGS__ };          \
		check_cases(fn, c, sizeof(c) / sizeof(c[0]));             \
	} while (0)

static char long_nqn[300];

static void test_nqn(void **state)
{
	(void)state;
	/* 223 bytes is the limit, 224 is too long */
	strcpy(long_nqn, "nqn.2024-01.io.example:");
	memset(long_nqn + strlen(long_nqn), 'a', 223 - strlen(long_nqn));
	long_nqn[223] = '\0';
	assert_null(pl_check_nqn(long_nqn));
	strcat(long_nqn, "b");
	assert_non_null(pl_check_nqn(long_nqn));

	/* Accepted: what Linux's nvmet and host take. */
	CHECK(pl_check_nqn,
	      { "nqn.2014-08.org.nvmexpress:uuid:3c2f1b3e-9d1a-4e6b-8f2c-5a7d9e0b1c4f", true },
	      { "nqn.2016-06.io.spdk:cnode1", true },
	      { "testnqn", true },
	      { "blktests-subsystem-1", true },
	      { "nqn.2024-01.io.example:a b", true },
	      { "nqn.2014-08.org.nvmexpress.discovery", false },
	      { "", false },
	      { "nqn.2024-01.io.example:a/b", false },
	      { "nqn.2024-01.io.example:a\tb", false },
	      { "bad\001name", false },
	      { "del\177", false });
	/* Warned about: outside the specification's NQN form. */
	CHECK(pl_warn_nqn_form,
	      { "nqn.2014-08.org.nvmexpress:uuid:3c2f1b3e-9d1a-4e6b-8f2c-5a7d9e0b1c4f", true },
	      { "nqn.2016-06.io.spdk:cnode1", true },
	      { "nqn.2024-12.com.example.storage:array-1:disk.7", true },
	      { "nqn.2024-01.io.example-corp:x", true },
	      { "nqn.2014-08.org.nvmexpress.discovery", true },
	      { "nqn.2014-08.org.nvmexpress:uuid:not-a-uuid", false },
	      { "testnqn", false },
	      { "blktests-subsystem-1", false },
	      { "nqn.24-01.io.example:x", false },
	      { "nqn.2024-13.io.example:x", false },
	      { "nqn.2024-00.io.example:x", false },
	      { "nqn.2024-01.io.example", false },
	      { "nqn.2024-01.io.example:", false },
	      { "nqn.2024-01.:x", false },
	      { "nqn.2024-01.io..example:x", false },
	      { "nqn.2024-01.io.ex_ample:x", false },
	      { "nqn.2024-01.io.example:a b", false },
	      { "NQN.2024-01.io.example:x", false });
}

static void test_nqn_discovery(void **state)
{
	(void)state;
	assert_null(pl_check_nqn_or_discovery(PL_DISCOVERY_NQN));
	assert_null(pl_check_nqn_or_discovery("nqn.2016-06.io.spdk:cnode1"));
	/* Accepted as a name (nvmet takes it), warned about as a form. */
	assert_null(pl_check_nqn_or_discovery("nqn.2014-08.org.nvmexpress.discovery2"));
	assert_non_null(pl_warn_nqn_form("nqn.2014-08.org.nvmexpress.discovery2"));
	assert_non_null(pl_check_nqn(PL_DISCOVERY_NQN));
}

#define VA "registrant hostid=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1a0a rkey=0x000000000000000a"
#define VB "registrant hostid=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1b0b rkey=0x00000000000000fF"

static void test_resv_state(void **state)
{
	(void)state;
	CHECK(pl_check_resv_state,
	      { "generation=0 type=0 ptpl=0", true },
	      { "generation=4294967295 type=0 ptpl=1\n", true },
	      { "generation=3 type=0 ptpl=0\n" VA " holder=0\n" VB " holder=0\n", true },
	      { "generation=3 type=2 ptpl=0\n" VA " holder=0\n" VB " holder=1", true },
	      { "generation=3 type=5 ptpl=0\n" VA " holder=1\n" VB " holder=1", true },
	      { "", false },
	      { "generation=4294967296 type=0 ptpl=0", false },
	      { "generation=01 type=0 ptpl=0", false },
	      { "generation=1 type=7 ptpl=0", false },
	      { "generation=1 type=0 ptpl=2", false },
	      { "generation=1 type=0 ptpl=0 x=1", false },
	      { "generation=1 type=0", false },
	      { "type=0 generation=1 ptpl=0", false },
	      { "generation=1 type=1 ptpl=0", false },
	      { "generation=1 type=5 ptpl=0", false },
	      { "generation=1 type=0 ptpl=0\n" VA " holder=1", false },
	      { "generation=1 type=1 ptpl=0\n" VA " holder=1\n" VB " holder=1", false },
	      { "generation=1 type=6 ptpl=0\n" VA " holder=1\n" VB " holder=0", false },
	      { "generation=1 type=0 ptpl=0\n" VA " holder=0\n" VA " holder=0", false },
	      { "generation=1 type=0 ptpl=0\n" VA " holder=2", false },
	      { "generation=1 type=0 ptpl=0\n" VA " holder=0 x", false },
	      { "generation=1 type=0 ptpl=0\nregistrant hostid=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1a0a rkey=0xa holder=0", false },
	      { "generation=1 type=0 ptpl=0\nregistrant hostid=6a0d3a3e-8f1c-4c55-9d2b-5c1c9d6b1a0a rkey=0x000000000000000g holder=0", false },
	      { "generation=1 type=0 ptpl=0\nregistrant hostid=not-a-uuid rkey=0x000000000000000a holder=0", false },
	      { "generation=1 type=0 ptpl=0\n\n", false });
}

static void test_uuid_nguid(void **state)
{
	(void)state;
	CHECK(pl_check_uuid,
	      { "5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c", true },
	      { "5F1E6A3C-2B7D-4C8E-9A0F-1D2E3F4A5B6C", true },
	      { "00000000-0000-0000-0000-000000000000", true },
	      { "5f1e6a3c2b7d4c8e9a0f1d2e3f4a5b6c", false },
	      { "5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6", false },
	      { "5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c0", false },
	      { "5f1e6a3c-2b7d-4c8e-9a0f_1d2e3f4a5b6c", false },
	      { "gf1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c", false },
	      { "", false });
	CHECK(pl_check_nguid,
	      { "5f1e6a3c-2b7d-4c8e-9a0f-1d2e3f4a5b6c", true },
	      { "5f1e6a3c2b7d4c8e9a0f1d2e3f4a5b6c", true },
	      { "5f1e6a3c2b7d4c8e9a0f1d2e3f4a5b6", false },
	      { "5f1e6a3c2b7d4c8e9a0f1d2e3f4a5b6cc", false },
	      { "zz1e6a3c2b7d4c8e9a0f1d2e3f4a5b6c", false },
	      { "", false });
}

static void test_ids(void **state)
{
	(void)state;
	/* Purlin's NSIDs end at 1024, nvmet's at 0xfffffffe. */
	CHECK(pl_check_nsid,
	      { "1", true }, { "1024", true }, { "1025", false }, { "4294967294", false },
	      { "0", false }, { "01", false }, { "-1", false }, { "0x10", false }, { "1a", false },
	      { "", false }, { " 1", false });
	pl_target_nvmet = true;
	CHECK(pl_check_nsid,
	      { "1", true }, { "1025", true }, { "4294967294", true }, { "0", false },
	      { "4294967295", false }, { "01", false }, { "-1", false });
	pl_target_nvmet = false;
	CHECK(pl_check_portid,
	      { "0", true }, { "1", true }, { "65535", true }, { "65536", false },
	      { "-1", false }, { "007", false }, { "abc", false }, { "", false });
	CHECK(pl_check_grpid,
	      { "1", true }, { "128", true }, { "0", false }, { "129", false }, { "x", false });
	CHECK(pl_check_referral_name,
	      { "peer", true }, { "peer-2.a_b", true }, { "", false }, { ".", false },
	      { "..", false }, { "a/b", false }, { "a b", false });
}

static void test_identify_strings(void **state)
{
	(void)state;
	CHECK(pl_check_serial,
	      { "1", true }, { "12345678901234567890", true }, { "123456789012345678901", false },
	      { "", false }, { " lead", false }, { "trail ", false }, { "in side", true },
	      { "tab\there", false }, { "caf\xc3\xa9", false });
	CHECK(pl_check_model,
	      { "Purlin", true }, { "0123456789012345678901234567890123456789", true },
	      { "01234567890123456789012345678901234567890", false }, { "", false });
	CHECK(pl_check_firmware,
	      { "0.1.0", true }, { "12345678", true }, { "123456789", false }, { "", false });
	CHECK(pl_check_version,
	      { "1.3", true }, { "1.4", true }, { "2.0.1", true }, { "1", false },
	      { "1.", false }, { ".1", false }, { "1..3", false }, { "1.3.0.1", false },
	      { "a.b", false }, { "1.256", false }, { "", false });
}

static void test_numbers(void **state)
{
	(void)state;
	CHECK(pl_check_bool, { "0", true }, { "1", true }, { "2", false }, { "on", false }, { "", false });
	CHECK(pl_check_cntlid,
	      { "1", true }, { "65519", true }, { "0", false }, { "65520", false }, { "x", false });
	CHECK(pl_check_qid_max,
	      { "1", true }, { "128", true }, { "129", false }, { "500", false }, { "0", false });
	CHECK(pl_check_ieee_oui,
	      { "0x000000", true }, { "0xffffff", true }, { "0x1000000", false }, { "123", true },
	      { "-1", false }, { "oui", false }, { "", false });
	/* Purlin's ranges (drivers/configfs.c), then nvmet's, which leaves them to the transport */
	CHECK(pl_check_inline_size,
	      { "-1", true }, { "0", true }, { "16384", true }, { "16385", false },
	      { "1048576", false }, { "-2", false }, { "4k", false }, { "", false });
	CHECK(pl_check_queue_size,
	      { "-1", true }, { "16", true }, { "1024", true }, { "8", false }, { "15", false },
	      { "1025", false }, { "0", false });
	pl_target_nvmet = true;
	CHECK(pl_check_inline_size,
	      { "-1", true }, { "16384", true }, { "1048576", true }, { "1048577", false },
	      { "-2", false });
	CHECK(pl_check_queue_size,
	      { "-1", true }, { "2", true }, { "8", true }, { "65536", true }, { "1", false },
	      { "65537", false }, { "0", false });
	pl_target_nvmet = false;
	CHECK(pl_check_mdts, { "-1", true }, { "0", true }, { "255", true }, { "256", false });
	CHECK(pl_check_max_pending,
	      { "-1", true }, { "1", true }, { "64", true }, { "65536", true }, { "0", false },
	      { "65537", false }, { "-2", false }, { "16k", false }, { "", false });
	CHECK(pl_check_connect_timeout,
	      { "-1", true }, { "100", true }, { "10000", true }, { "600000", true },
	      { "99", false }, { "600001", false }, { "0", false }, { "10s", false });
	CHECK(pl_check_tos,
	      { "-1", true }, { "0", true }, { "104", true }, { "255", true }, { "256", false },
	      { "-2", false }, { "0x68", false }, { "af31", false }, { "", false });
	CHECK(pl_check_poll_usecs,
	      { "-1", true }, { "0", true }, { "50", true }, { "100000", true },
	      { "100001", false }, { "-2", false }, { "0x10", false }, { "50us", false },
	      { "", false });
	CHECK(pl_check_srq_size,
	      { "-1", true }, { "0", true }, { "16", true }, { "256", true }, { "4096", true },
	      { "1", false }, { "15", false }, { "4097", false }, { "-2", false },
	      { "00", false }, { "016", false }, { "0x10", false }, { "+16", false },
	      { "abc", false }, { "", false });
	/* -1 of srq_size is Purlin's 0 (no SRQ) */
	assert_true(pl_attr_equal(PL_PORT, "param_srq_size", "-1", "0"));
	assert_false(pl_attr_equal(PL_PORT, "param_srq_size", "-1", "16"));
}

/* CPU lists: the kernel's shown form, "" for none; nothing of its wider input syntax. */
static void test_cpu_lists(void **state)
{
	unsigned char set[(PL_CPU_MAX + 1) / 8] = { 0 };

	(void)state;
	CHECK(pl_check_poll_cpus,
	      { "", true }, { "0", true }, { "0-3,8", true }, { "3-3", true }, { "8,0-3", true },
	      { "0,1,2", true }, { "65535", true }, { "0-65535", true }, { "65536", false },
	      { "3-1", false }, { "0,", false }, { ",0", false }, { "0,,1", false },
	      { "0-", false }, { "-1", false }, { "0x1", false }, { "01", false }, { "0 1", false },
	      { " 0", false }, { "all", false }, { "N", false }, { "0-3:1/2", false });
	assert_true(pl_parse_cpulist("0-2,9,15", set));
	assert_int_equal(set[0], 0x07);
	assert_int_equal(set[1], 0x82);
	assert_int_equal(set[2], 0);
	assert_false(pl_parse_cpulist("0-2,x", NULL));
	/* compared as sets; -1 of poll_usecs is Purlin's 50 */
	assert_true(pl_attr_equal(PL_PORT, "param_poll_cpus", "0,1,4-5", "0-1,4-5"));
	assert_true(pl_attr_equal(PL_PORT, "param_poll_cpus", "", ""));
	assert_false(pl_attr_equal(PL_PORT, "param_poll_cpus", "", "0"));
	assert_false(pl_attr_equal(PL_PORT, "param_poll_cpus", "0-2", "0-1"));
	assert_true(pl_attr_equal(PL_PORT, "param_poll_usecs", "-1", "50"));
	assert_false(pl_attr_equal(PL_PORT, "param_poll_usecs", "-1", "20"));
	assert_true(pl_attr_empty_is_value(PL_PORT, "param_poll_cpus"));
	assert_false(pl_attr_empty_is_value(PL_PORT, "param_cq_mode"));
}

static void test_enums_and_path(void **state)
{
	(void)state;
	/* Purlin: RDMA over IP only; nvmet: its transports and families */
	CHECK(pl_check_trtype,
	      { "rdma", true }, { "tcp", false }, { "loop", false }, { "RDMA", false }, { "", false });
	CHECK(pl_check_adrfam,
	      { "ipv4", true }, { "ipv6", true }, { "ib", false }, { "fc", false }, { "", false });
	pl_target_nvmet = true;
	CHECK(pl_check_trtype,
	      { "rdma", true }, { "tcp", true }, { "loop", true }, { "fc", true },
	      { "RDMA", false }, { "roce", false }, { "", false });
	CHECK(pl_check_adrfam,
	      { "ipv4", true }, { "ipv6", true }, { "ib", true }, { "fc", true },
	      { "loop", true }, { "inet", false }, { "", false });
	pl_target_nvmet = false;
	CHECK(pl_check_treq,
	      { "not specified", true }, { "required", true }, { "not required", true },
	      { "not-specified", false }, { "", false });
	CHECK(pl_check_cq_mode,
	      { "workqueue", true }, { "poll", true }, { "POLL", false }, { "softirq", false },
	      { "poll ", false }, { "", false });
	CHECK(pl_check_ana_state,
	      { "optimized", true }, { "non-optimized", true }, { "inaccessible", true },
	      { "persistent-loss", true }, { "change", true }, { "nonoptimized", false });
	CHECK(pl_check_path,
	      { "/dev/nullb0", true }, { "/var/lib/x.img", true }, { "dev/nullb0", false },
	      { "", false }, { "/dev/a\nb", false });
	CHECK(pl_check_resv_file,
	      { "", true }, { "/srv/ha/resv/ns1", true }, { "/x", true }, { "/a/.b", true },
	      { "srv/ns1", false }, { "/srv/ha/", false }, { "/", false }, { "/srv/.", false },
	      { "/srv/..", false }, { "/srv/a\nb", false });
}

static void test_address(void **state)
{
	(void)state;
	assert_null(pl_check_traddr("ipv4", "192.0.2.1"));
	assert_null(pl_check_traddr(NULL, "10.0.0.1"));
	assert_non_null(pl_check_traddr("ipv4", "300.0.2.1"));
	assert_non_null(pl_check_traddr("ipv4", "2001:db8::1"));
	assert_non_null(pl_check_traddr("ipv4", "host.example"));
	assert_null(pl_check_traddr("ipv6", "2001:db8::1"));
	assert_null(pl_check_traddr("ipv6", "::1"));
	assert_non_null(pl_check_traddr("ipv6", "192.0.2.1"));
	assert_null(pl_check_traddr("fc", "nn-0x1000:pn-0x2000"));
	assert_non_null(pl_check_traddr("fc", ""));
	assert_non_null(pl_check_traddr("loop", "a b"));

	assert_null(pl_check_trsvcid("ipv4", "4420"));
	assert_null(pl_check_trsvcid("ipv6", "65535"));
	assert_non_null(pl_check_trsvcid("ipv4", "0"));
	assert_non_null(pl_check_trsvcid("ipv4", "65536"));
	assert_non_null(pl_check_trsvcid("ipv4", "nvme"));
	assert_null(pl_check_trsvcid("fc", "none"));
	assert_non_null(pl_check_trsvcid("fc", "123456789012345678901234567890123"));
}

static void test_attr_generic(void **state)
{
	(void)state;
	CHECK(pl_check_attr_name,
	      { "serial", true }, { "inline_data_size", true }, { "tos2", true },
	      { "", false }, { "Serial", false }, { "a-b", false }, { "a/b", false });
	CHECK(pl_check_attr_value, { "", true }, { "x y", true }, { "a\nb", false });
}

static void test_parse_bool(void **state)
{
	(void)state;
	assert_string_equal(pl_parse_bool("on"), "1");
	assert_string_equal(pl_parse_bool("yes"), "1");
	assert_string_equal(pl_parse_bool("true"), "1");
	assert_string_equal(pl_parse_bool("1"), "1");
	assert_string_equal(pl_parse_bool("off"), "0");
	assert_string_equal(pl_parse_bool("no"), "0");
	assert_string_equal(pl_parse_bool("false"), "0");
	assert_string_equal(pl_parse_bool("0"), "0");
	assert_null(pl_parse_bool("maybe"));
	assert_null(pl_parse_bool(""));
	assert_null(pl_parse_bool("ON"));
}

static void test_generators(void **state)
{
	char serial[17], uuid[37], uuid2[37];

	(void)state;
	assert_int_equal(pl_gen_serial(serial), 0);
	assert_int_equal(strlen(serial), 16);
	assert_int_equal(strspn(serial, "0123456789abcdef"), 16);
	assert_null(pl_check_serial(serial));
	assert_int_equal(pl_gen_uuid(uuid), 0);
	assert_int_equal(pl_gen_uuid(uuid2), 0);
	assert_null(pl_check_uuid(uuid));
	assert_int_equal(uuid[14], '4');
	assert_non_null(strchr("89ab", uuid[19]));
	assert_string_not_equal(uuid, uuid2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nqn),
		cmocka_unit_test(test_nqn_discovery),
		cmocka_unit_test(test_uuid_nguid),
		cmocka_unit_test(test_resv_state),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_identify_strings),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_cpu_lists),
		cmocka_unit_test(test_enums_and_path),
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_attr_generic),
		cmocka_unit_test(test_parse_bool),
		cmocka_unit_test(test_generators),
	};

	return cmocka_run_group_tests_name("validate", tests, NULL, NULL);
}
