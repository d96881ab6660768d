// SPDX-License-Identifier: GPL-2.0
/*
 * The print helpers: the same calls give the text form and the JSON form;
 * tables; the JSON layout of saved files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "print.h"

static char *out_text;
static size_t out_len;

static void capture(void)
{
	out_text = NULL;
	pl_out = open_memstream(&out_text, &out_len);
}

/* What was printed; the caller frees it. */
static char *captured(void)
{
	fclose(pl_out);
	pl_out = NULL;
	return out_text;
}

/* Run calls in one form and compare what it printed with want. */
static void expect(void (*calls)(void), bool json, const char *want)
{
	char *got;

	capture();
	pl_print_start(json);
	assert_int_equal(pl_print_is_json(), json);
	calls();
	pl_print_end();
	got = captured();
	assert_string_equal(got, want);
	free(got);
}

/* A device, the way a show prints one. */
static void device(void)
{
	static const char *const modes[] = { "host", "ieee" };
	struct strv none = { 0 }, lacks = { 0 };

	strv_add(&lacks, "ecn");
	strv_add(&lacks, "cnp");
	pl_print_open_object(NULL);
	pl_print_string(PL_ANY, "ifname", "%s:", "eth1");
	pl_print_int(PL_JSON, "ifindex", NULL, 2);
	pl_print_text(" ifindex %d\n", 2);
	pl_print_text("  %-6s ", "mtu");
	pl_print_uint(PL_ANY, "mtu", "%u", 4200);
	pl_print_uint(PL_ANY, "max_mtu", " (max %u)", 9978);
	pl_print_nl();
	pl_print_text("  %-6s ", "dcbx");
	pl_print_open_list("dcbx", " ", "none");
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		pl_print_string(PL_ANY, NULL, "%s", modes[i]);
	pl_print_close_array();
	pl_print_nl();
	pl_print_text("  %-6s ", "trust");
	pl_print_strv("trust", &none, " ", "none");
	pl_print_nl();
	pl_print_text("  %-6s ", "lacks");
	pl_print_strv("lacks", &lacks, ", ", "nothing");
	pl_print_nl();
	pl_print_text("  %-6s ", "app");
	pl_print_open_list("app", ", ", NULL);
	for (unsigned int p = 3; p < 5; p++) {
		pl_print_open_object(NULL);
		pl_print_string(PL_ANY, "selector", "%s", "dscp");
		pl_print_uint(PL_ANY, "protocol", " %u", 20 + p);
		pl_print_uint(PL_ANY, "prio", " prio %u", p);
		pl_print_close_object();
	}
	pl_print_close_array();
	pl_print_nl();
	pl_print_open_object("pfc");
	pl_print_bool(PL_ANY, "willing", "  willing %s", true);
	pl_print_bool(PL_ANY, "mbc", " mbc %s\n", false);
	pl_print_open_array("requests");
	pl_print_text("  requests");
	pl_print_u64(PL_ANY, NULL, " %llu", 123456789012ULL);
	pl_print_u64(PL_ANY, NULL, " %llu", 0);
	pl_print_nl();
	pl_print_close_array();
	pl_print_close_object();
	pl_print_string(PL_JSON, "backend", NULL, NULL);
	pl_print_null("tos");
	pl_print_string(PL_ANY, "from", "%s -> ", NULL);
	pl_print_int(PL_ANY, "to", "%d\n", -1);
	pl_print_string(PL_TEXT, "ignored", "text only: %s\n", "a/b");
	pl_print_close_object();
	strv_free(&lacks);
}

static void test_same_calls_both_forms(void **state)
{
	(void)state;
	expect(device, false,
	       "eth1: ifindex 2\n"
	       "  mtu    4200 (max 9978)\n"
	       "  dcbx   host ieee\n"
	       "  trust  none\n"
	       "  lacks  ecn, cnp\n"
	       "  app    dscp 23 prio 3, dscp 24 prio 4\n"
	       "  willing on mbc off\n"
	       "  requests 123456789012 0\n"
	       "-1\n"
	       "text only: a/b\n");
	expect(device, true,
	       "{\n"
	       "  \"ifname\": \"eth1\",\n"
	       "  \"ifindex\": 2,\n"
	       "  \"mtu\": 4200,\n"
	       "  \"max_mtu\": 9978,\n"
	       "  \"dcbx\": [\n"
	       "    \"host\",\n"
	       "    \"ieee\"\n"
	       "  ],\n"
	       "  \"trust\": [],\n"
	       "  \"lacks\": [\n"
	       "    \"ecn\",\n"
	       "    \"cnp\"\n"
	       "  ],\n"
	       "  \"app\": [\n"
	       "    {\n"
	       "      \"selector\": \"dscp\",\n"
	       "      \"protocol\": 23,\n"
	       "      \"prio\": 3\n"
	       "    },\n"
	       "    {\n"
	       "      \"selector\": \"dscp\",\n"
	       "      \"protocol\": 24,\n"
	       "      \"prio\": 4\n"
	       "    }\n"
	       "  ],\n"
	       "  \"pfc\": {\n"
	       "    \"willing\": true,\n"
	       "    \"mbc\": false,\n"
	       "    \"requests\": [\n"
	       "      123456789012,\n"
	       "      0\n"
	       "    ]\n"
	       "  },\n"
	       "  \"backend\": null,\n"
	       "  \"tos\": null,\n"
	       "  \"from\": null,\n"
	       "  \"to\": -1\n"
	       "}\n");
}

static void nothing(void)
{
}

static void text_only(void)
{
	pl_print_text("%s\n", "just text");
}

/* An object built elsewhere, with more printed into it, in an array. */
static void built(void)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "nqn", json_object_new_string("nqn.2024-01.io.example:s1"));
	pl_print_open_array(NULL);
	pl_print_open_json(NULL, o);
	pl_print_string(PL_JSON, "subsys_nqn", NULL, "x");
	pl_print_string(PL_TEXT, NULL, "%s\n", "the text form");
	pl_print_close_object();
	pl_print_close_array();
}

static void test_documents(void **state)
{
	(void)state;
	/* no output, no document */
	expect(nothing, false, "");
	expect(nothing, true, "");
	expect(text_only, false, "just text\n");
	expect(text_only, true, "");
	expect(built, false, "the text form\n");
	expect(built, true,
	       "[\n"
	       "  {\n"
	       "    \"nqn\": \"nqn.2024-01.io.example:s1\",\n"
	       "    \"subsys_nqn\": \"x\"\n"
	       "  }\n"
	       "]\n");
}

static void test_table(void **state)
{
	static const char *const cells[] = {
		"NQN", "NS", "PORTS",
		"nqn.a", "2", "1,2",
		"n", "", "",
	};
	struct strv sv = { 0 };
	char *got;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cells); i++)
		strv_add(&sv, cells[i]);
	capture();
	pl_print_start(false);
	pl_print_table(&sv, 3);
	pl_print_end();
	got = captured();
	assert_string_equal(got, "NQN    NS  PORTS\n"
				 "nqn.a  2   1,2\n"
				 "n      -   -\n");
	free(got);
	/* a table is text only */
	capture();
	pl_print_start(true);
	pl_print_table(&sv, 3);
	pl_print_end();
	got = captured();
	assert_string_equal(got, "");
	free(got);
	strv_free(&sv);
}

static void test_json_layout(void **state)
{
	struct json_object *o = json_tokener_parse(
		"{\"path\": \"/dev/nullb0\", \"empty\": {}, \"none\": [], \"n\": [1, [2]], \"q\": \"a\\\"b\"}");
	char *text = pl_json_text(o);

	(void)state;
	assert_string_equal(text, "{\n"
				  "  \"path\": \"/dev/nullb0\",\n"
				  "  \"empty\": {},\n"
				  "  \"none\": [],\n"
				  "  \"n\": [\n"
				  "    1,\n"
				  "    [\n"
				  "      2\n"
				  "    ]\n"
				  "  ],\n"
				  "  \"q\": \"a\\\"b\"\n"
				  "}\n");
	free(text);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_calls_both_forms),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_json_layout),
	};

	return cmocka_run_group_tests_name("print", tests, NULL, NULL);
}
