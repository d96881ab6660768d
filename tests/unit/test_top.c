// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl top and the per-controller rows of stats: parsing the files,
 * the rates between two samples (counter deltas, the p99 of a histogram's
 * growth, counters that went back, objects that came or went), sorting,
 * the text of a refresh; and both commands on a fake target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "harness.h"
#include "iostat.h"
#include "top.h"

#define S1 "nqn.2026-12.io.purlin.test:s1"
#define H1 "nqn.2026-12.io.purlin.test:h1"
#define H2 "nqn.2026-12.io.purlin.test:h2"
#define Z8 "0,0,0,0,0,0,0,0"
#define Z24 Z8 "," Z8 "," Z8
#define LAT_HDR \
	"bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536," \
	"131072,262144,524288,1048576,2097152,4194304,inf\n"

static struct io_obj obj(enum io_kind kind, const char *id)
{
	struct io_obj o = { .kind = kind };

	o.subsys = (char *)S1;
	o.id = (char *)id;
	o.host = (char *)(kind == IO_CTRL ? H1 : NULL);
	o.have_lat = true;
	return o;
}

static void test_parse_counts(void **state)
{
	char good[] = "read_cmds=5 read_bytes=20480 write_cmds=2 write_bytes=8192 errors=1 "
		      "other_cmds=3 inflight=4 flush_cmds=2 throttled=6 newer_key=9\n";
	char old[] = "read_cmds=5 read_bytes=20480 write_cmds=2 write_bytes=8192 errors=1 "
		     "other_cmds=3 inflight=4";
	char bad[] = "read_cmds=5 write_cmds=-2";
	char noeq[] = "read_cmds";
	struct io_obj o = { 0 };

	(void)state;
	assert_true(io_parse_counts(good, &o));
	assert_int_equal(o.read_cmds, 5);
	assert_int_equal(o.write_bytes, 8192);
	assert_int_equal(o.other_cmds, 3);
	assert_int_equal(o.inflight, 4);
	assert_int_equal(o.flush_cmds, 2);
	assert_int_equal(o.throttled, 6);
	assert_int_equal(o.seen, (1u << io_nkeys) - 1);
	memset(&o, 0, sizeof(o));
	/* a module before flush_cmds and throttled: the keys are not seen, not zeros */
	assert_true(io_parse_counts(old, &o));
	assert_int_equal(o.seen & 1u << (io_nkeys - 1), 0);
	assert_int_equal(o.seen & 1u << (io_nkeys - 2), 0);
	assert_int_equal(o.seen, (1u << (io_nkeys - 2)) - 1);
	assert_false(io_parse_counts(bad, &o));
	assert_false(io_parse_counts(noeq, &o));
}

static void test_parse_latency(void **state)
{
	char good[] = LAT_HDR
		"read_total count=3 sum_us=30 buckets=0,0,0,3," Z8 "," Z8 ",0,0,0,0\n"
		"write_total count=0 sum_us=0 buckets=" Z24 "\n"
		"other_total count=0 sum_us=0 buckets=" Z24 "\n"
		"read_device count=0 sum_us=0 buckets=" Z24 "\n"
		"write_device count=0 sum_us=0 buckets=" Z24 "\n"
		"other_device count=0 sum_us=0 buckets=" Z24 "\n";
	char missing[] = LAT_HDR "read_total count=0 sum_us=0 buckets=" Z24 "\n";
	char short_row[] = LAT_HDR "read_total count=0 sum_us=0 buckets=0,0\n";
	struct io_obj o = { 0 };

	(void)state;
	assert_true(io_parse_latency(good, &o));
	assert_int_equal(o.h[0][0].count, 3);
	assert_int_equal(o.h[0][0].buckets[3], 3);
	assert_false(io_parse_latency(missing, &o));
	assert_false(io_parse_latency(short_row, &o));
}

static void test_quantile(void **state)
{
	unsigned long long b[IO_BUCKETS] = { 0 };

	(void)state;
	assert_int_equal(io_quantile_bucket(b, 0.99), -1);
	b[3] = 10;
	assert_int_equal(io_quantile_bucket(b, 0.99), 3);
	/* 99 of 100 under 4 us: the p99 is that bucket; 98 of 100: the slow one */
	b[3] = 0, b[2] = 99, b[10] = 1;
	assert_int_equal(io_quantile_bucket(b, 0.99), 2);
	b[2] = 98, b[10] = 2;
	assert_int_equal(io_quantile_bucket(b, 0.99), 10);
	memset(b, 0, sizeof(b));
	b[IO_BUCKETS - 1] = 1;
	assert_int_equal(io_quantile_bucket(b, 0.99), IO_BUCKETS - 1);
}

static void test_rate_delta(void **state)
{
	struct io_obj a = obj(IO_CTRL, "1"), b = obj(IO_CTRL, "1");
	struct io_rate r;

	(void)state;
	a.read_cmds = 100, a.write_cmds = 50, a.other_cmds = 5, a.read_bytes = 400000;
	a.write_bytes = 200000, a.errors = 1;
	/* before: 1000 slow reads (bucket 12); between: 100 fast ones (bucket 5) */
	a.h[0][0].count = 1000, a.h[0][0].sum_us = 4000000, a.h[0][0].buckets[12] = 1000;
	b = a;
	b.read_cmds += 2000, b.write_cmds += 1000, b.other_cmds += 10;
	b.read_bytes += 8000000, b.write_bytes += 4000000, b.errors += 4, b.inflight = 7;
	b.h[0][0].count += 100, b.h[0][0].sum_us += 2000, b.h[0][0].buckets[5] += 100;
	io_rate(&a, &b, 2.0, &r);
	assert_false(r.reset);
	assert_true(r.read_iops == 1000.0);
	assert_true(r.write_iops == 500.0);
	assert_true(r.iops == 1505.0);
	assert_true(r.mbps == 6.0);
	assert_true(r.errors == 2.0);
	assert_int_equal(r.inflight, 7);
	/* the interval's commands alone: mean 20 us, p99 in bucket 5, not 12 */
	assert_true(r.mean_us == 20.0);
	assert_int_equal(r.p99_bucket, 5);
	/* nothing completed: no latency to show */
	io_rate(&b, &b, 1.0, &r);
	assert_true(r.iops == 0.0);
	assert_true(r.mean_us < 0);
	assert_int_equal(r.p99_bucket, -1);
}

static void test_rate_reset_and_new(void **state)
{
	struct io_obj a = obj(IO_CTRL, "1"), b = obj(IO_CTRL, "1");
	struct io_rate r;

	(void)state;
	/* the cntlid came back on a new controller: its counters went down */
	a.read_cmds = 5000, a.h[0][0].count = 5000, a.h[0][0].buckets[9] = 5000;
	b.read_cmds = 30, b.h[0][0].count = 30, b.h[0][0].sum_us = 300, b.h[0][0].buckets[4] = 30;
	io_rate(&a, &b, 1.0, &r);
	assert_true(r.reset);
	assert_true(r.iops == 30.0);
	assert_true(r.mean_us == 10.0);
	assert_int_equal(r.p99_bucket, 4);
	/* a controller new since the last sample: everything it has counts */
	io_rate(NULL, &b, 0.5, &r);
	assert_false(r.reset);
	assert_true(r.read_iops == 60.0);
	/* no latency file (an older module): rates, no latency */
	b.have_lat = false;
	io_rate(NULL, &b, 1.0, &r);
	assert_true(r.iops == 30.0);
	assert_int_equal(r.p99_bucket, -1);
	assert_true(r.mean_us < 0);
}

static void test_rows_and_sort(void **state)
{
	struct io_obj prev[3] = { obj(IO_CTRL, "1"), obj(IO_CTRL, "2"), obj(IO_NS, "1") };
	struct io_obj cur[3] = { obj(IO_CTRL, "2"), obj(IO_CTRL, "3"), obj(IO_NS, "1") };
	struct top_row rows[3];
	size_t n;

	(void)state;
	prev[1].read_cmds = 100;
	cur[0].read_cmds = 110;		/* ctrl 2: 10 in the interval */
	cur[1].read_cmds = 40;		/* ctrl 3: new, 40 since it came */
	cur[1].inflight = 1;
	cur[0].inflight = 9;
	/* ctrl 1 went away: no row; namespaces are not controller rows */
	n = top_rows(prev, 3, cur, 3, IO_CTRL, 1.0, rows);
	assert_int_equal(n, 2);
	top_sort_rows(rows, n, TOP_SORT_IOPS);
	assert_string_equal(rows[0].obj->id, "3");
	assert_true(rows[0].rate.iops == 40.0);
	assert_true(rows[1].rate.iops == 10.0);
	top_sort_rows(rows, n, TOP_SORT_QD);
	assert_string_equal(rows[0].obj->id, "2");
	top_sort_rows(rows, n, TOP_SORT_NAME);
	assert_string_equal(rows[0].obj->id, "2");
	assert_string_equal(rows[1].obj->id, "3");
	n = top_rows(prev, 3, cur, 3, IO_NS, 1.0, rows);
	assert_int_equal(n, 1);
}

static void test_formats(void **state)
{
	static const struct {
		int kind;	/* 0: io_fmt_us, 1: io_fmt_bucket, 2: io_fmt_rate */
		double v;
		const char *want;
	} c[] = {
		{ 0, -1, "-" }, { 0, 850, "850us" }, { 0, 12500, "12.5ms" }, { 0, 1200000, "1.20s" },
		{ 1, -1, "-" }, { 1, 7, "128us" }, { 1, IO_BUCKETS - 1, ">4.19s" },
		{ 2, 0, "0" }, { 2, 950, "950" }, { 2, 12345, "12.3k" }, { 2, 4500000, "4.50M" },
	};
	char b[32];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (c[i].kind == 0)
			io_fmt_us(c[i].v, b, sizeof(b));
		else if (c[i].kind == 1)
			io_fmt_bucket((int)c[i].v, b, sizeof(b));
		else
			io_fmt_rate(c[i].v, b, sizeof(b));
		assert_string_equal(b, c[i].want);
	}
}

static void test_render(void **state)
{
	struct io_obj o = obj(IO_CTRL, "7");
	struct top_row row = { .obj = &o };
	char *text = NULL;
	size_t len;
	FILE *f;

	(void)state;
	row.rate.iops = 1505, row.rate.read_iops = 1000, row.rate.write_iops = 500;
	row.rate.mbps = 6, row.rate.mean_us = 20, row.rate.p99_bucket = 5, row.rate.inflight = 7;
	f = open_memstream(&text, &len);
	top_render(f, &row, 1, IO_CTRL, "title", 0);
	fclose(f);
	assert_string_equal(text,
		"title\n"
		"CNTLID      IOPS   READ/s  WRITE/s     MB/s     MEAN      P99    QD   ERR/s  "
		"SUBSYSTEM                      HOST\n"
		"7           1.5k     1.0k      500      6.0     20us     32us     7       0  "
		S1 "  " H1 "\n");
	free(text);
	/* a terminal 20 columns wide: every line cut there */
	f = open_memstream(&text, &len);
	top_render(f, &row, 1, IO_CTRL, "a title longer than twenty", 20);
	fclose(f);
	assert_string_equal(text, "a title longer than \nCNTLID      IOPS   R\n7           1.5k    \n");
	free(text);
	f = open_memstream(&text, &len);
	top_render(f, NULL, 0, IO_NS, "t", 0);
	fclose(f);
	assert_has(text, "NSID");
	assert_has(text, "(no namespaces)\n");
	free(text);
}

/* controllers/S1:<cntlid>/<name> holds val. */
static void ctrl_write(const char *cntlid, const char *name, const char *val)
{
	char *rel;

	if (asprintf(&rel, "controllers/" S1 ":%s/%s", cntlid, name) < 0)
		abort();
	tree_write(rel, val);
	free(rel);
}

/* A controller directory as the kernel makes it. */
static void make_ctrl(const char *cntlid, const char *host, const char *stats)
{
	char *dir;

	if (asprintf(&dir, "%s/controllers/" S1 ":%s", test_root, cntlid) < 0 || mkdir(dir, 0755))
		abort();
	free(dir);
	ctrl_write(cntlid, "cntlid", cntlid);
	ctrl_write(cntlid, "subsysnqn", S1);
	ctrl_write(cntlid, "hostnqn", host);
	ctrl_write(cntlid, "port", "1");
	ctrl_write(cntlid, "stats", stats);
	ctrl_write(cntlid, "latency", LAT_HDR
		   "read_total count=90 sum_us=900 buckets=0,0,0,0,90,0,0,0," Z8 "," Z8 "\n"
		   "write_total count=0 sum_us=0 buckets=" Z24 "\n"
		   "other_total count=0 sum_us=0 buckets=" Z24 "\n"
		   "read_device count=0 sum_us=0 buckets=" Z24 "\n"
		   "write_device count=0 sum_us=0 buckets=" Z24 "\n"
		   "other_device count=0 sum_us=0 buckets=" Z24 "\n");
}

static void test_stats_controllers(void **state)
{
	struct json_object *o, *v, *c;

	(void)state;
	make_ctrl("7", H1, "read_cmds=90 read_bytes=368640 write_cmds=4 write_bytes=16384 "
		  "errors=0 other_cmds=2 inflight=1 flush_cmds=2");
	make_ctrl("12", H2, "read_cmds=1 read_bytes=4096 write_cmds=0 write_bytes=0 "
		  "errors=3 other_cmds=0 inflight=0");
	assert_run_ok("stats");
	assert_has(cli_out, "no namespaces\n\nSUBSYSTEM");
	assert_has(cli_out, "CNTLID");
	assert_has(cli_out, S1 "  7       90     4       2      0       1         10            16");
	assert_has(cli_out, H2 "\n");
	assert_run_ok("stats -o json");
	o = json_tokener_parse(cli_out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "controllers", &v));
	assert_int_equal(json_object_array_length(v), 2);
	c = json_object_array_get_idx(v, 0);	/* by number: 7 before 12 */
	assert_true(json_object_object_get_ex(c, "cntlid", &v));
	assert_int_equal(json_object_get_int(v), 7);
	assert_true(json_object_object_get_ex(c, "host", &v));
	assert_string_equal(json_object_get_string(v), H1);
	assert_true(json_object_object_get_ex(c, "flush_cmds", &v));
	assert_int_equal(json_object_get_int(v), 2);
	/* a module without flush_cmds: the key is left out, not made up */
	c = json_object_array_get_idx(json_object_object_get(o, "controllers"), 1);
	assert_false(json_object_object_get_ex(c, "flush_cmds", &v));
	json_object_put(o);
	assert_run_ok("stats -o prometheus");
	assert_has(cli_out, "purlin_controller_read_commands_total{subsystem=\"" S1
		   "\",cntlid=\"7\",host=\"" H1 "\"} 90\n");
	assert_has(cli_out, "purlin_controller_flush_commands_total{subsystem=\"" S1
		   "\",cntlid=\"7\",host=\"" H1 "\"} 2\n");
	assert_true(strstr(cli_out, "purlin_controller_flush_commands_total{subsystem=\"" S1
			   "\",cntlid=\"12\"") == NULL);
	assert_has(cli_out, "purlin_controller_latency_seconds_bucket{subsystem=\"" S1
		   "\",cntlid=\"12\",host=\"" H2 "\",op=\"read\",stage=\"total\",le=\"+Inf\"} 90\n");
	/* a controller directory missing a file (going away): left out */
	tree_write("controllers/" S1 ":12/hostnqn", "");
	assert_run_ok("stats -o json");
	assert_true(strstr(cli_out, H2) == NULL);
}

static void test_top_plain(void **state)
{
	(void)state;
	make_ctrl("7", H1, "read_cmds=90 read_bytes=368640 write_cmds=4 write_bytes=16384 "
		  "errors=0 other_cmds=2 inflight=5");
	/* not a terminal: one plain block per refresh, no escape sequences */
	assert_run_ok("top -d 0.1 -c 2");
	assert_has(cli_out, "purlinctl top - ");
	assert_has(cli_out, " - every 0.1s - controllers by iops\n");
	assert_has(cli_out, "\n\npurlinctl top - ");
	assert_has(cli_out, "7              0        0        0      0.0        -        -     5       0  " S1);
	assert_true(strchr(cli_out, '\033') == NULL);
	assert_run_ok("top -d 0.1 -c 1 -r namespaces -s p99");
	assert_has(cli_out, "namespaces by p99\n");
	assert_has(cli_out, "(no namespaces)\n");
	/* bad arguments: refused, said why */
	assert_int_equal(run_cli("top -d 0"), PL_EXIT_USAGE);
	assert_has(cli_err, "-d 0: seconds from 0.1 to 3600");
	assert_int_equal(run_cli("top -d x"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("top -c 0"), PL_EXIT_USAGE);
	assert_has(cli_err, "-c 0: a count from 1");
	assert_int_equal(run_cli("top -s speed"), PL_EXIT_USAGE);
	assert_has(cli_err, "-s speed: iops, mbps, mean, p99, qd or name");
	assert_int_equal(run_cli("top -r hosts"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("top -d"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("top extra"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("-j top"), PL_EXIT_USAGE);
	assert_int_equal(run_cli("--target nvmet top"), PL_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_counts),
		cmocka_unit_test(test_parse_latency),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_rate_delta),
		cmocka_unit_test(test_rate_reset_and_new),
		cmocka_unit_test(test_rows_and_sort),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_render),
		cmocka_unit_test_setup_teardown(test_stats_controllers, root_setup, root_teardown),
		cmocka_unit_test_setup_teardown(test_top_plain, root_setup, root_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
