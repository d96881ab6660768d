// SPDX-License-Identifier: GPL-2.0
/*
 * JSON configuration: parse, emit, round trips and bad documents.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "harness.h"

static char *errs;
static size_t errs_len;

static int capture_setup(void **state)
{
	(void)state;
	pl_errs = open_memstream(&errs, &errs_len);
	return 0;
}

static int capture_teardown(void **state)
{
	(void)state;
	fclose(pl_errs);
	pl_errs = NULL;
	free(errs);
	errs = NULL;
	return 0;
}

static const char *errors(void)
{
	fflush(pl_errs);
	return errs ? errs : "";
}

static struct pl_node *load_sample(void)
{
	char *path = data_file("nvmetcli-sample.json");
	struct pl_node *root = NULL;

	assert_int_equal(pl_conf_load(path, &root), 0);
	free(path);
	return root;
}

static void test_parse_sample(void **state)
{
	struct pl_node *root = load_sample();
	struct pl_node *s, *ns, *port, *ref;

	(void)state;
	assert_int_equal(pl_conf_check(root, NULL, "sample"), 0);
	assert_int_equal(pl_kids(root, PL_HOST)->n, 2);
	assert_int_equal(pl_kids(root, PL_SUBSYS)->n, 2);
	assert_int_equal(pl_kids(root, PL_PORT)->n, 2);

	s = pl_find(root, PL_SUBSYS, "nqn.2024-01.io.example:disk1");
	assert_non_null(s);
	assert_string_equal(pl_get(s, "attr_allow_any_host"), "1");
	assert_string_equal(pl_get(s, "attr_serial"), "8a3f0c2e91d4b756");
	ns = pl_find(s, PL_NS, "2");
	assert_non_null(ns);
	assert_string_equal(pl_get(ns, "device_path"), "/dev/nullb1");
	assert_string_equal(pl_get(ns, "enable"), "1");
	assert_string_equal(pl_get(ns, "ana_grpid"), "2");

	port = pl_find(root, PL_PORT, "1");
	assert_non_null(port);
	assert_string_equal(pl_get(port, "addr_traddr"), "192.0.2.10");
	assert_string_equal(pl_get(port, "param_inline_data_size"), "16384");
	assert_int_equal(port->links.n, 2);
	ref = pl_find(port, PL_REFERRAL, "peer");
	assert_non_null(ref);
	assert_string_equal(pl_get(ref, "addr_portid"), "2");
	assert_non_null(pl_find(port, PL_ANA, "2"));
	pl_node_free(root);
}

/* Emitting the sample gives back the sample, byte for byte (nvmetcli layout). */
static void test_emit_matches_nvmetcli_layout(void **state)
{
	char *path = data_file("nvmetcli-sample.json");
	char *orig = slurp(path);
	struct pl_node *root = load_sample();
	char *dumped;

	(void)state;
	pl_sort(root);
	dumped = pl_conf_dump(root);
	assert_string_equal(dumped, orig);
	assert_null(strstr(dumped, "\\/"));
	free(dumped);
	free(orig);
	free(path);
	pl_node_free(root);
}

static void test_roundtrip(void **state)
{
	struct pl_node *a = load_sample(), *b = NULL;
	char *t1, *t2;

	(void)state;
	t1 = pl_conf_dump(a);
	assert_int_equal(pl_conf_parse(t1, "t1", &b), 0);
	t2 = pl_conf_dump(b);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	pl_node_free(a);
	pl_node_free(b);
}

static void test_emit_shapes(void **state)
{
	struct pl_node *root = pl_node_new(PL_ROOT, NULL, NULL);
	struct pl_node *s = pl_node_new(PL_SUBSYS, "nqn.2024-01.io.example:a", root);
	struct pl_node *ns = pl_node_new(PL_NS, "7", s);
	char *text;

	(void)state;
	pl_set(s, "attr_serial", "abc");
	pl_set(ns, "device_path", "/dev/x");
	pl_set(ns, "enable", "1");
	pl_set(ns, "ana_grpid", "3");
	pl_node_new(PL_HOST, "nqn.2024-01.io.example:h", root);
	text = pl_conf_dump(root);
	/* ids are integers where nvmetcli writes integers, attr values strings */
	assert_non_null(strstr(text, "\"nsid\": 7"));
	assert_non_null(strstr(text, "\"enable\": 1"));
	assert_non_null(strstr(text, "\"ana_grpid\": 3"));
	assert_non_null(strstr(text, "\"grpid\": \"3\""));
	assert_non_null(strstr(text, "\"serial\": \"abc\""));
	assert_non_null(strstr(text, "\"path\": \"/dev/x\""));
	assert_non_null(strstr(text, "\"allowed_hosts\": ["));
	assert_non_null(strstr(text, "\"ports\": ["));
	/* keys sorted as nvmetcli's sort_keys=True */
	assert_true(strstr(text, "\"hosts\"") < strstr(text, "\"ports\""));
	assert_true(strstr(text, "\"ports\"") < strstr(text, "\"subsystems\""));
	free(text);
	pl_node_free(root);
}

/* Older nvmetcli files lack the "ana" group, newer ones have both forms. */
static void test_ana_forms(void **state)
{
	struct pl_node *root = NULL;
	const char *both = "{\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.example:a\","
			   "\"namespaces\":[{\"nsid\":1,\"ana_grpid\":2,\"ana\":{\"grpid\":\"2\"}}]}]}";
	const char *clash = "{\"subsystems\":[{\"nqn\":\"nqn.2024-01.io.example:a\","
			    "\"namespaces\":[{\"nsid\":1,\"ana_grpid\":2,\"ana\":{\"grpid\":\"3\"}}]}]}";

	(void)state;
	assert_int_equal(pl_conf_parse(both, "both", &root), 0);
	pl_node_free(root);
	root = NULL;
	assert_int_not_equal(pl_conf_parse(clash, "clash", &root), 0);
	assert_non_null(strstr(errors(), "given twice"));
}

static void test_empty_and_minimal(void **state)
{
	struct pl_node *root = NULL;

	(void)state;
	assert_int_equal(pl_conf_parse("{}", "empty", &root), 0);
	assert_int_equal(pl_conf_check(root, NULL, "empty"), 0);
	pl_node_free(root);
	root = NULL;
	assert_int_equal(pl_conf_parse("{\"hosts\":[],\"ports\":[],\"subsystems\":[]}", "m", &root), 0);
	pl_node_free(root);
}

struct bad_doc {
	const char *text;
	const char *error;
	bool at_check;	/* parses, fails the check */
};

static const struct bad_doc bad_docs[] = {
	{ "{\"hosts\": [}", "invalid JSON", false },
	{ "", "invalid JSON", false },
	{ "{} {}", "trailing data", false },
	{ "[]", "must be a JSON object", false },
	{ "{\"hosts\": {}}", "'hosts' must be an array", false },
	{ "{\"hosts\": [\"nqn.2024-01.io.example:h\"]}", "must be an object", false },
	{ "{\"hosts\": [{}]}", "missing key 'nqn'", false },
	{ "{\"hosts\": [{\"nqn\": 5}]}", "'nqn' must be a string", false },
	{ "{\"hostz\": []}", "unknown key 'hostz'", false },
	{ "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:h\", \"x\": 1}]}", "unknown key 'x'",
	  false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"attr\": []}]}",
	  "'attr' must be an object", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"attr\": {\"serial\": [1]}}]}",
	  "must be a string", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"attr\": {\"Bad\": \"1\"}}]}",
	  "not a valid attribute name", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"namespaces\": [{\"nsid\": \"x1\"}]}]}",
	  "'nsid' must be an integer", false },
	{ "{\"ports\": [{\"portid\": \"-1\"}]}", "'portid' must be an integer", false },
	{ "{\"ports\": [{\"portid\": \"\"}]}", "'portid' must be an integer", false },
	/* nvmetcli (Python's json) refuses these too */
	{ "{\"hosts\": [],}", "trailing commas are not JSON", false },
	{ "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:h\"},]}", "trailing commas are not JSON",
	  false },
	{ "{\"hosts\": [nul]}", "strings take double quotes", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"namespaces\": [{\"nsid\": 1, \"enable\": \"1\"}]}]}",
	  "'enable' must be an integer", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"allowed_hosts\": [1]}]}",
	  "must be an array of strings", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"allowed_hosts\": \"h\"}]}",
	  "must be an array of strings", false },
	{ "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:h\"}, {\"nqn\": \"nqn.2024-01.io.example:h\"}]}",
	  "duplicate host", false },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"namespaces\": [{\"nsid\": 1}, {\"nsid\": 1}]}]}",
	  "duplicate ns", false },
	{ "{\"ports\": [{\"portid\": 1}, {\"portid\": 1}]}", "duplicate port", false },
	{ "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:h\"}], \"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"allowed_hosts\": [\"nqn.2024-01.io.example:h\", \"nqn.2024-01.io.example:h\"]}]}",
	  "listed twice", false },
	/* value and reference checks */
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"allowed_hosts\": [\"nqn.2024-01.io.example:ghost\"]}]}",
	  "not defined", true },
	{ "{\"ports\": [{\"portid\": 1, \"subsystems\": [\"nqn.2024-01.io.example:nope\"]}]}",
	  "not defined", true },
	{ "{\"hosts\": [{\"nqn\": \"bad/nqn\"}]}", "must be printable ASCII without '/'", true },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2014-08.org.nvmexpress.discovery\"}]}", "reserved", true },
	{ "{\"ports\": [{\"portid\": 70000}]}", "portid must be", true },
	{ "{\"ports\": [{\"portid\": -1}]}", "portid must be", true },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"namespaces\": [{\"nsid\": 0}]}]}",
	  "nsid must be", true },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"attr\": {\"serial\": \"123456789012345678901\"}}]}",
	  "attr_serial must be", true },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"namespaces\": [{\"nsid\": 1, \"device\": {\"uuid\": \"xyz\"}}]}]}",
	  "device_uuid must be a UUID", true },
	{ "{\"ports\": [{\"portid\": 1, \"addr\": {\"adrfam\": \"ipv4\", \"traddr\": \"2001:db8::1\"}}]}",
	  "addr_traddr must be an IPv4 address", true },
	{ "{\"ports\": [{\"portid\": 1, \"addr\": {\"trtype\": \"carrier-pigeon\"}}]}",
	  "addr_trtype must be rdma: Purlin serves NVMe over RDMA only", true },
	{ "{\"ports\": [{\"portid\": 1, \"ana_groups\": [{\"grpid\": 1, \"ana\": {\"state\": \"great\"}}]}]}",
	  "ana_state must be one of", true },
	{ "{\"hosts\": [{\"nqn\": \"nqn.2024-01.io.example:h\"}], \"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"attr\": {\"allow_any_host\": \"1\"}, \"allowed_hosts\": [\"nqn.2024-01.io.example:h\"]}]}",
	  "must be 0 when allowed_hosts are listed", true },
	{ "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", \"attr\": {\"cntlid_min\": \"10\", \"cntlid_max\": \"5\"}}]}",
	  "greater than cntlid_max", true },
};

static void test_bad_documents(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_docs) / sizeof(bad_docs[0]); i++) {
		const struct bad_doc *b = &bad_docs[i];
		struct pl_node *root = NULL;
		int ret;

		rewind(pl_errs);
		fflush(pl_errs);
		if (errs)
			errs[0] = '\0';
		ret = pl_conf_parse(b->text, "bad.json", &root);
		if (b->at_check) {
			if (ret)
				fail_msg("doc %zu should parse: %s", i, errors());
			ret = pl_conf_check(root, NULL, "bad.json");
		}
		pl_node_free(root);
		if (!ret)
			fail_msg("doc %zu accepted: %s", i, b->text);
		if (!strstr(errors(), b->error))
			fail_msg("doc %zu: expected '%s' in: %s", i, b->error, errors());
		if (!strstr(errors(), "bad.json"))
			fail_msg("doc %zu: error does not name the file: %s", i, errors());
	}
}

/* Forget what earlier tests of the group reported. */
static void reset_errors(void)
{
	rewind(pl_errs);
	fflush(pl_errs);
	if (errs)
		errs[0] = '\0';
}

static void test_syntax_error_line(void **state)
{
	struct pl_node *root = NULL;

	(void)state;
	reset_errors();
	assert_int_not_equal(pl_conf_parse("{\n\"hosts\": [\n  {,}\n]}", "f.json", &root), 0);
	assert_non_null(strstr(errors(), "f.json: line 3, column 4 (at ','): invalid JSON: an object key must be a string in double quotes"));
}

/* Numbers as JSON numbers or decimal strings, for ids as for attributes. */
static void test_numbers_either_way(void **state)
{
	const char *doc = "{\"ports\": [{\"portid\": \"7\", \"addr\": {\"trsvcid\": 4420}}], "
			  "\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", "
			  "\"namespaces\": [{\"nsid\": \"3\"}]}]}";
	struct pl_node *root = NULL;

	(void)state;
	assert_int_equal(pl_conf_parse(doc, "n.json", &root), 0);
	assert_non_null(pl_find(root, PL_PORT, "7"));
	assert_string_equal(pl_get(pl_find(root, PL_PORT, "7"), "addr_trsvcid"), "4420");
	assert_non_null(pl_find(pl_find(root, PL_SUBSYS, "nqn.2024-01.io.example:s"), PL_NS, "3"));
	pl_node_free(root);
}

/* A problem at the document's top level names no empty path. */
static void test_top_level_error_path(void **state)
{
	struct pl_node *root = NULL;

	(void)state;
	reset_errors();
	assert_int_not_equal(pl_conf_parse("{\"hosts\": {}}", "t.json", &root), 0);
	assert_non_null(strstr(errors(), "purlinctl: t.json: 'hosts' must be an array"));
	assert_null(strstr(errors(), ": :"));
}

/* A directory is said to be one, not an I/O error. */
static void test_directory_is_not_a_file(void **state)
{
	struct pl_node *root = NULL;

	(void)state;
	reset_errors();
	assert_int_equal(pl_conf_load("/", &root), -EISDIR);
	assert_non_null(strstr(errors(), "/: is a directory, not a configuration file"));
}

/* Links may name objects that already exist on the target. */
static void test_links_to_live_objects(void **state)
{
	const char *doc = "{\"subsystems\": [{\"nqn\": \"nqn.2024-01.io.example:s\", "
			  "\"allowed_hosts\": [\"nqn.2024-01.io.example:live\"]}]}";
	struct pl_node *root = NULL, *live = pl_node_new(PL_ROOT, NULL, NULL);

	(void)state;
	pl_node_new(PL_HOST, "nqn.2024-01.io.example:live", live);
	assert_int_equal(pl_conf_parse(doc, "d", &root), 0);
	assert_int_equal(pl_conf_check(root, live, "d"), 0);
	assert_int_not_equal(pl_conf_check(root, NULL, "d"), 0);
	pl_node_free(root);
	pl_node_free(live);
}

static void test_save_file(void **state)
{
	struct pl_node *root = load_sample();
	char path[] = "/tmp/purlinctl-save-XXXXXX";
	char *file, *text, *back;

	(void)state;
	assert_non_null(mkdtemp(path));
	file = NULL;
	assert_true(asprintf(&file, "%s/sub/config.json", path) > 0);
	assert_int_equal(pl_conf_save(root, file), 0);
	text = slurp(file);
	back = pl_conf_dump(root);
	assert_string_equal(text, back);
	unlink(file);
	*strrchr(file, '/') = '\0';
	rmdir(file);
	rmdir(path);
	free(text);
	free(back);
	free(file);
	pl_node_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sample),
		cmocka_unit_test(test_emit_matches_nvmetcli_layout),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_emit_shapes),
		cmocka_unit_test(test_ana_forms),
		cmocka_unit_test(test_empty_and_minimal),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_syntax_error_line),
		cmocka_unit_test(test_numbers_either_way),
		cmocka_unit_test(test_top_level_error_path),
		cmocka_unit_test(test_directory_is_not_a_file),
		cmocka_unit_test(test_links_to_live_objects),
		cmocka_unit_test(test_save_file),
	};

	return cmocka_run_group_tests_name("conf", tests, capture_setup, capture_teardown);
}
