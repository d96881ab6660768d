// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl stats: every namespace's and every controller's I/O counters
 * and latency histograms (Purlin's read-only namespaces/<nsid>/ and
 * controllers/<nqn>:<cntlid>/ stats and latency files, iostat.c) as a
 * table, as JSON (-j or -o json), or in the Prometheus text exposition
 * format (-o prometheus) for node_exporter's textfile collector.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cli.h"
#include "iostat.h"
#include "print.h"

/*
 * A key of the stats files in the output: the first release's always
 * (older parsers know them all), a newer one when the module has it.
 */
static bool st_key_shown(const struct io_obj *o, size_t k)
{
	return io_keys[k].off <= offsetof(struct io_obj, inflight) || (o->seen & 1u << k);
}

/* A percentile's cell: its bucket's bound, ">4194304" for the last, "-" for none. */
static char *st_pct_text(const struct io_hist *h, bool have, double q)
{
	int b = have ? io_quantile_bucket(h->buckets, q) : -1;

	if (b < 0)
		return xstrdup("-");
	if (b == IO_BUCKETS - 1)
		return xasprintf(">%llu", io_le_us(IO_BUCKETS - 2));
	return xasprintf("%llu", io_le_us(b));
}

/* Add s to sv and free it. */
static void st_add_free(struct strv *sv, char *s)
{
	strv_add(sv, s);
	free(s);
}

static char *st_us_text(unsigned long long us, bool have)
{
	return have ? xasprintf("%llu", us) : xstrdup("-");
}

/* One table: the namespaces' (kind IO_NS) or the controllers'. */
static void st_table(const struct io_obj *v, size_t n, enum io_kind kind)
{
	static const char *const hdr[] = {
		"SUBSYSTEM", "NSID", "READS", "WRITES", "OTHER", "ERRORS", "INFLIGHT",
		"READ-MEAN-US", "READ-P99-US", "WRITE-MEAN-US", "WRITE-P99-US",
	};
	struct strv cells = { 0 };

	for (size_t c = 0; c < ARRAY_SIZE(hdr); c++)
		strv_add(&cells, kind == IO_CTRL && c == 1 ? "CNTLID" : hdr[c]);
	if (kind == IO_CTRL)
		strv_add(&cells, "HOST");
	for (size_t i = 0; i < n; i++) {
		const struct io_hist *r = &v[i].h[0][0], *w = &v[i].h[1][0];
		bool hr = v[i].have_lat && r->count, hw = v[i].have_lat && w->count;

		if (v[i].kind != kind)
			continue;
		strv_add(&cells, v[i].subsys);
		strv_add(&cells, v[i].id);
		st_add_free(&cells, xasprintf("%llu", v[i].read_cmds));
		st_add_free(&cells, xasprintf("%llu", v[i].write_cmds));
		st_add_free(&cells, xasprintf("%llu", v[i].other_cmds));
		st_add_free(&cells, xasprintf("%llu", v[i].errors));
		st_add_free(&cells, xasprintf("%llu", v[i].inflight));
		st_add_free(&cells, st_us_text(hr ? r->sum_us / r->count : 0, hr));
		st_add_free(&cells, st_pct_text(r, hr, 0.99));
		st_add_free(&cells, st_us_text(hw ? w->sum_us / w->count : 0, hw));
		st_add_free(&cells, st_pct_text(w, hw, 0.99));
		if (kind == IO_CTRL)
			strv_add(&cells, v[i].host);
	}
	pl_print_table(&cells, ARRAY_SIZE(hdr) + (kind == IO_CTRL));
	strv_free(&cells);
}

static void st_json_obj(const struct io_obj *o)
{
	pl_print_open_object(NULL);
	pl_print_string(PL_JSON, "subsystem", NULL, o->subsys);
	pl_print_u64(PL_JSON, o->kind == IO_NS ? "nsid" : "cntlid", NULL,
		     strtoull(o->id, NULL, 10));
	if (o->kind == IO_CTRL) {
		pl_print_string(PL_JSON, "host", NULL, o->host);
		pl_print_u64(PL_JSON, "port", NULL, strtoull(o->port, NULL, 10));
	}
	for (size_t k = 0; k < io_nkeys; k++)
		if (st_key_shown(o, k))
			pl_print_u64(PL_JSON, io_keys[k].key, NULL, io_key_val(o, k));
	if (o->have_lat) {
		pl_print_open_object("latency");
		for (size_t op = 0; op < IO_OPS; op++)
			for (size_t s = 0; s < IO_STAGES; s++) {
				const struct io_hist *h = &o->h[op][s];
				char key[32];

				snprintf(key, sizeof(key), "%s_%s", io_ops[op], io_stages[s]);
				pl_print_open_object(key);
				pl_print_u64(PL_JSON, "count", NULL, h->count);
				pl_print_u64(PL_JSON, "sum_us", NULL, h->sum_us);
				pl_print_open_array("buckets");
				for (int b = 0; b < IO_BUCKETS; b++)
					pl_print_u64(PL_JSON, NULL, NULL, h->buckets[b]);
				pl_print_close_array();
				pl_print_close_object();
			}
		pl_print_close_object();
	}
	pl_print_close_object();
}

static void st_json(const struct io_obj *v, size_t n)
{
	pl_print_open_object(NULL);
	pl_print_open_array("namespaces");
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == IO_NS)
			st_json_obj(&v[i]);
	pl_print_close_array();
	pl_print_open_array("controllers");
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == IO_CTRL)
			st_json_obj(&v[i]);
	pl_print_close_array();
	pl_print_close_object();
}

/* A label value with \, " and newline escaped, as the format wants. */
static void st_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* A namespace: subsystem, nsid; a controller: subsystem, cntlid, host. */
static void st_labels(FILE *f, const struct io_obj *o)
{
	fputs("subsystem=\"", f);
	st_label(f, o->subsys);
	fputs(o->kind == IO_NS ? "\",nsid=\"" : "\",cntlid=\"", f);
	st_label(f, o->id);
	if (o->kind == IO_CTRL) {
		fputs("\",host=\"", f);
		st_label(f, o->host);
	}
	fputc('"', f);
}

/* One family of metrics: purlin_namespace_* or purlin_controller_*. */
static void st_prometheus_kind(FILE *f, const struct io_obj *v, size_t n, enum io_kind kind)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} m[] = {
		{ "read_commands_total", "counter", "Read commands completed.",
		  offsetof(struct io_obj, read_cmds) },
		{ "read_bytes_total", "counter", "Bytes read.", offsetof(struct io_obj, read_bytes) },
		{ "write_commands_total", "counter", "Write commands completed.",
		  offsetof(struct io_obj, write_cmds) },
		{ "write_bytes_total", "counter", "Bytes written.",
		  offsetof(struct io_obj, write_bytes) },
		{ "other_commands_total", "counter",
		  "Other I/O commands completed (Flush, Write Zeroes, Dataset Management).",
		  offsetof(struct io_obj, other_cmds) },
		{ "errors_total", "counter", "I/O commands that failed.",
		  offsetof(struct io_obj, errors) },
		{ "inflight", "gauge", "I/O commands the back end has now.",
		  offsetof(struct io_obj, inflight) },
		{ "flush_commands_total", "counter",
		  "Flush commands completed (among the other commands too).",
		  offsetof(struct io_obj, flush_cmds) },
		{ "throttled_commands_total", "counter",
		  "I/O commands that waited for a limit (the namespace's or their host's).",
		  offsetof(struct io_obj, throttled) },
	};
	const char *pfx = kind == IO_NS ? "namespace" : "controller";
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += v[i].kind == kind;
	/* No controller rows: no controller families (the output stays as it was). */
	if (kind == IO_CTRL && !count)
		return;
	for (size_t k = 0; k < ARRAY_SIZE(m); k++) {
		size_t key = 0;

		while (io_keys[key].off != m[k].off)
			key++;
		fprintf(f, "# HELP purlin_%s_%s %s\n# TYPE purlin_%s_%s %s\n", pfx,
			m[k].name, m[k].help, pfx, m[k].name, m[k].type);
		for (size_t i = 0; i < n; i++) {
			if (v[i].kind != kind || !st_key_shown(&v[i], key))
				continue;
			fprintf(f, "purlin_%s_%s{", pfx, m[k].name);
			st_labels(f, &v[i]);
			fprintf(f, "} %llu\n", io_key_val(&v[i], key));
		}
	}
	fprintf(f, "# HELP purlin_%s_latency_seconds Time of I/O commands in the target: stage "
		"total from the capsule parsed to the completion queued, stage device from the "
		"back end's start to completion.\n"
		"# TYPE purlin_%s_latency_seconds histogram\n", pfx, pfx);
	for (size_t i = 0; i < n; i++) {
		if (v[i].kind != kind || !v[i].have_lat)
			continue;
		for (size_t o = 0; o < IO_OPS; o++)
			for (size_t s = 0; s < IO_STAGES; s++) {
				const struct io_hist *h = &v[i].h[o][s];
				unsigned long long cum = 0;

				for (int b = 0; b < IO_BUCKETS; b++) {
					cum += h->buckets[b];
					fprintf(f, "purlin_%s_latency_seconds_bucket{", pfx);
					st_labels(f, &v[i]);
					fprintf(f, ",op=\"%s\",stage=\"%s\",le=\"", io_ops[o],
						io_stages[s]);
					if (b < IO_BUCKETS - 1)
						fprintf(f, "%llu.%06llu", io_le_us(b) / 1000000,
							io_le_us(b) % 1000000);
					else
						fputs("+Inf", f);
					fprintf(f, "\"} %llu\n", cum);
				}
				fprintf(f, "purlin_%s_latency_seconds_sum{", pfx);
				st_labels(f, &v[i]);
				fprintf(f, ",op=\"%s\",stage=\"%s\"} %.6f\n", io_ops[o],
					io_stages[s], h->sum_us / 1e6);
				fprintf(f, "purlin_%s_latency_seconds_count{", pfx);
				st_labels(f, &v[i]);
				/* As the +Inf bucket, whatever count the kernel summed. */
				fprintf(f, ",op=\"%s\",stage=\"%s\"} %llu\n", io_ops[o],
					io_stages[s], cum);
			}
	}
}

static int stats_run(struct pl_ctx *ctx, int argc, char **argv)
{
	const char *cmd = "stats";
	bool json = ctx->json, prom = false, text = false;
	struct pl_node *live;
	struct io_obj *v = NULL;
	size_t n = 0, nns = 0;
	int ret = PL_EXIT_OK;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-o"))
			return pl_usage_error(cmd, "unexpected argument '%s'", argv[i]);
		if (i + 1 >= argc)
			return pl_usage_error(cmd, "-o needs text, json or prometheus");
		i++;
		if (!strcmp(argv[i], "json"))
			json = true;
		else if (!strcmp(argv[i], "prometheus"))
			prom = true;
		else if (!strcmp(argv[i], "text"))
			text = true;
		else
			return pl_usage_error(cmd, "-o %s: text, json or prometheus", argv[i]);
	}
	if (prom + json + text > 1)
		return pl_usage_error(cmd, "one output format: -j or one -o");
	if (strcmp(ctx->target, "purlin"))
		return pl_usage_error(cmd, "the I/O statistics are Purlin's (not %s's)", ctx->target);
	/* The target's tree, checked as every command checks it. */
	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	pl_node_free(live);
	if (io_collect(true, true, &v, &n))
		return PL_EXIT_TARGET;
	for (size_t i = 0; i < n; i++)
		nns += v[i].kind == IO_NS;
	if (prom) {
		st_prometheus_kind(pl_out, v, n, IO_NS);
		st_prometheus_kind(pl_out, v, n, IO_CTRL);
		/* A textfile collector must not take a cut-short file. */
		if (fflush(pl_out) || ferror(pl_out)) {
			pl_err_obj(cmd, "writing the output", errno ? errno : EIO);
			ret = PL_EXIT_FAIL;
		}
	} else {
		pl_print_start(json);
		if (json) {
			st_json(v, n);
		} else {
			if (nns)
				st_table(v, n, IO_NS);
			else
				pl_print_text("no namespaces\n");
			if (n > nns) {
				pl_print_text("\n");
				st_table(v, n, IO_CTRL);
			}
		}
		pl_print_end();
	}
	io_free(v, n);
	return ret;
}

const struct pl_object pl_obj_stats = {
	.name = "stats",
	.run = stats_run,
	.usage = "[-o text|json|prometheus]",
	.summary = "I/O counters and latency of every namespace and controller (table, JSON, "
		   "Prometheus)",
	.examples = "  purlinctl stats\n  purlinctl stats -o json\n"
		    "  purlinctl stats -o prometheus > /var/lib/prometheus/node-exporter/purlin.prom\n",
};
