// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl stats: every namespace's I/O counters and latency histograms
 * (Purlin's read-only namespaces/<nsid>/stats and latency files) as a
 * table, as JSON (-j or -o json), or in the Prometheus text exposition
 * format (-o prometheus) for node_exporter's textfile collector.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "cli.h"
#include "print.h"

#define ST_BUCKETS	24	/* drivers/purlin.h PURLIN_LAT_BUCKETS */

static const char *const st_ops[] = { "read", "write", "other" };
static const char *const st_stages[] = { "total", "device" };

struct st_hist {
	unsigned long long count, sum_us, buckets[ST_BUCKETS];
};

/* One namespace's figures; have_lat false on a target without the file. */
struct st_ns {
	const char *subsys, *nsid;
	unsigned long long read_cmds, read_bytes, write_cmds, write_bytes;
	unsigned long long errors, other_cmds, inflight;
	unsigned long long throttled;	/* 0 from a module without limits */
	bool have_lat;
	struct st_hist h[3][2];	/* [op][stage] */
};

static const struct {
	const char *key;
	size_t off;
} st_keys[] = {
	{ "read_cmds", offsetof(struct st_ns, read_cmds) },
	{ "read_bytes", offsetof(struct st_ns, read_bytes) },
	{ "write_cmds", offsetof(struct st_ns, write_cmds) },
	{ "write_bytes", offsetof(struct st_ns, write_bytes) },
	{ "errors", offsetof(struct st_ns, errors) },
	{ "other_cmds", offsetof(struct st_ns, other_cmds) },
	{ "inflight", offsetof(struct st_ns, inflight) },
	{ "throttled", offsetof(struct st_ns, throttled) },
};

/* A decimal count, whole; false on anything else (a sign, junk, overflow). */
static bool st_num(const char *s, char **endp, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (endp)
		*endp = end;
	return endp || !*end;
}

/* "key=N key=N ...": the known keys (unknown ones are newer: ignored). */
static bool st_parse_counts(char *text, struct st_ns *ns)
{
	for (char *w = strtok(text, " \n"); w; w = strtok(NULL, " \n")) {
		char *eq = strchr(w, '=');

		if (!eq)
			return false;
		*eq = '\0';
		for (size_t i = 0; i < ARRAY_SIZE(st_keys); i++)
			if (!strcmp(w, st_keys[i].key) &&
			    !st_num(eq + 1, NULL, (unsigned long long *)((char *)ns + st_keys[i].off)))
				return false;
	}
	return true;
}

/* The bounds the kernel's latency file must start with (drivers/stats.c). */
static bool st_header_ok(const char *line)
{
	char want[256];
	int n = snprintf(want, sizeof(want), "bucket_le_us=");

	for (int b = 0; b < ST_BUCKETS - 1; b++)
		n += snprintf(want + n, sizeof(want) - n, "%llu,", 1ULL << b);
	snprintf(want + n, sizeof(want) - n, "inf");
	return !strcmp(line, want);
}

/*
 * "OP_STAGE count=N sum_us=N buckets=N,...": the histogram's index
 * (op * 2 + stage), or -1 on anything else.
 */
static int st_parse_hist_line(const char *line, struct st_ns *ns)
{
	char name[32], *end;
	const char *p;
	struct st_hist *h = NULL;
	int idx = -1;

	if (sscanf(line, "%31s", name) != 1)
		return -1;
	for (int o = 0; o < 3; o++)
		for (int s = 0; s < 2; s++) {
			char want[32];

			snprintf(want, sizeof(want), "%s_%s", st_ops[o], st_stages[s]);
			if (!strcmp(name, want)) {
				h = &ns->h[o][s];
				idx = o * 2 + s;
			}
		}
	p = line + strlen(name);
	if (!h || strncmp(p, " count=", 7) || !st_num(p + 7, &end, &h->count) ||
	    strncmp(end, " sum_us=", 8) || !st_num(end + 8, &end, &h->sum_us) ||
	    strncmp(end, " buckets=", 9))
		return -1;
	p = end + 9;
	for (int b = 0; b < ST_BUCKETS; b++) {
		if (!st_num(p, &end, &h->buckets[b]) ||
		    *end != (b < ST_BUCKETS - 1 ? ',' : '\0'))
			return -1;
		p = end + 1;
	}
	return idx;
}

static int st_read_ns(const struct pl_node *subsys, const struct pl_node *n, struct st_ns *ns)
{
	char *path, *text = NULL;
	int ret;

	memset(ns, 0, sizeof(*ns));
	ns->subsys = subsys->id;
	ns->nsid = n->id;
	path = xasprintf("subsystems/%s/namespaces/%s/stats", subsys->id, n->id);
	ret = cfs_read(path, &text);
	if (ret && ret != -ENOENT)
		pl_err_obj(path, "reading it", -ret);
	else if (!ret && !st_parse_counts(text, ns)) {
		pl_err("%s: not the counters this purlinctl knows\n", path);
		ret = -EPROTO;
	}
	free(path);
	free(text);
	if (ret)
		return ret;
	text = NULL;
	/* Older modules have no latency file: the counters alone, then. */
	path = xasprintf("subsystems/%s/namespaces/%s/latency", subsys->id, n->id);
	if (!cfs_read(path, &text)) {
		unsigned int seen = 0;
		char *l = strtok(text, "\n");
		bool ok = l && st_header_ok(l);

		while (ok && (l = strtok(NULL, "\n"))) {
			int i = st_parse_hist_line(l, ns);

			ok = i >= 0 && !(seen & 1u << i);
			seen |= i >= 0 ? 1u << i : 0;
		}
		ns->have_lat = ok && seen == 0x3f;
		if (!ns->have_lat)
			pl_err("%s: not the histograms this purlinctl knows: left out\n", path);
	}
	free(path);
	free(text);
	return 0;
}

/* Upper bound in us of bucket b (bucket 0: under 1 us); 0 for the last. */
static unsigned long long st_le_us(int b)
{
	return b < ST_BUCKETS - 1 ? 1ULL << b : 0;
}

/* Commands in the buckets (the kernel sums them and count apart). */
static unsigned long long st_total(const struct st_hist *h)
{
	unsigned long long t = 0;

	for (int b = 0; b < ST_BUCKETS; b++)
		t += h->buckets[b];
	return t;
}

/* A percentile's cell: its bucket's bound, ">4194304" for the last, "-" for none. */
static char *st_pct_text(const struct st_hist *h, bool have, double q)
{
	unsigned long long seen = 0, total = st_total(h);

	if (!have || !total)
		return xstrdup("-");
	for (int b = 0; b < ST_BUCKETS - 1; b++) {
		seen += h->buckets[b];
		if (seen >= q * (double)total)
			return xasprintf("%llu", st_le_us(b));
	}
	return xasprintf(">%llu", st_le_us(ST_BUCKETS - 2));
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

static void st_table(struct st_ns *v, size_t n)
{
	static const char *const hdr[] = {
		"SUBSYSTEM", "NSID", "READS", "WRITES", "OTHER", "ERRORS", "INFLIGHT",
		"READ-MEAN-US", "READ-P99-US", "WRITE-MEAN-US", "WRITE-P99-US",
	};
	struct strv cells = { 0 };

	for (size_t c = 0; c < ARRAY_SIZE(hdr); c++)
		strv_add(&cells, hdr[c]);
	for (size_t i = 0; i < n; i++) {
		const struct st_hist *r = &v[i].h[0][0], *w = &v[i].h[1][0];
		bool hr = v[i].have_lat && r->count, hw = v[i].have_lat && w->count;

		strv_add(&cells, v[i].subsys);
		strv_add(&cells, v[i].nsid);
		st_add_free(&cells, xasprintf("%llu", v[i].read_cmds));
		st_add_free(&cells, xasprintf("%llu", v[i].write_cmds));
		st_add_free(&cells, xasprintf("%llu", v[i].other_cmds));
		st_add_free(&cells, xasprintf("%llu", v[i].errors));
		st_add_free(&cells, xasprintf("%llu", v[i].inflight));
		st_add_free(&cells, st_us_text(hr ? r->sum_us / r->count : 0, hr));
		st_add_free(&cells, st_pct_text(r, hr, 0.99));
		st_add_free(&cells, st_us_text(hw ? w->sum_us / w->count : 0, hw));
		st_add_free(&cells, st_pct_text(w, hw, 0.99));
	}
	pl_print_table(&cells, ARRAY_SIZE(hdr));
	strv_free(&cells);
}

static void st_json(struct st_ns *v, size_t n)
{
	pl_print_open_object(NULL);
	pl_print_open_array("namespaces");
	for (size_t i = 0; i < n; i++) {
		pl_print_open_object(NULL);
		pl_print_string(PL_JSON, "subsystem", NULL, v[i].subsys);
		pl_print_u64(PL_JSON, "nsid", NULL, strtoull(v[i].nsid, NULL, 10));
		for (size_t k = 0; k < ARRAY_SIZE(st_keys); k++)
			pl_print_u64(PL_JSON, st_keys[k].key, NULL,
				     *(unsigned long long *)((char *)&v[i] + st_keys[k].off));
		if (v[i].have_lat) {
			pl_print_open_object("latency");
			for (size_t o = 0; o < 3; o++)
				for (size_t s = 0; s < 2; s++) {
					const struct st_hist *h = &v[i].h[o][s];
					char key[32];

					snprintf(key, sizeof(key), "%s_%s", st_ops[o], st_stages[s]);
					pl_print_open_object(key);
					pl_print_u64(PL_JSON, "count", NULL, h->count);
					pl_print_u64(PL_JSON, "sum_us", NULL, h->sum_us);
					pl_print_open_array("buckets");
					for (int b = 0; b < ST_BUCKETS; b++)
						pl_print_u64(PL_JSON, NULL, NULL, h->buckets[b]);
					pl_print_close_array();
					pl_print_close_object();
				}
			pl_print_close_object();
		}
		pl_print_close_object();
	}
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

static void st_labels(FILE *f, const struct st_ns *ns)
{
	fputs("subsystem=\"", f);
	st_label(f, ns->subsys);
	fputs("\",nsid=\"", f);
	st_label(f, ns->nsid);
	fputc('"', f);
}

static void st_prometheus(FILE *f, struct st_ns *v, size_t n)
{
	static const struct {
		const char *name, *type, *help;
		size_t off;
	} m[] = {
		{ "read_commands_total", "counter", "Read commands completed.",
		  offsetof(struct st_ns, read_cmds) },
		{ "read_bytes_total", "counter", "Bytes read.", offsetof(struct st_ns, read_bytes) },
		{ "write_commands_total", "counter", "Write commands completed.",
		  offsetof(struct st_ns, write_cmds) },
		{ "write_bytes_total", "counter", "Bytes written.",
		  offsetof(struct st_ns, write_bytes) },
		{ "other_commands_total", "counter",
		  "Other I/O commands completed (Flush, Write Zeroes, Dataset Management).",
		  offsetof(struct st_ns, other_cmds) },
		{ "errors_total", "counter", "I/O commands that failed.",
		  offsetof(struct st_ns, errors) },
		{ "inflight", "gauge", "I/O commands the back end has now.",
		  offsetof(struct st_ns, inflight) },
		{ "throttled_commands_total", "counter",
		  "I/O commands that waited for a limit (the namespace's or their host's).",
		  offsetof(struct st_ns, throttled) },
	};

	for (size_t k = 0; k < ARRAY_SIZE(m); k++) {
		fprintf(f, "# HELP purlin_namespace_%s %s\n# TYPE purlin_namespace_%s %s\n",
			m[k].name, m[k].help, m[k].name, m[k].type);
		for (size_t i = 0; i < n; i++) {
			fprintf(f, "purlin_namespace_%s{", m[k].name);
			st_labels(f, &v[i]);
			fprintf(f, "} %llu\n", *(unsigned long long *)((char *)&v[i] + m[k].off));
		}
	}
	fputs("# HELP purlin_namespace_latency_seconds Time of I/O commands in the target: stage total "
	      "from the capsule parsed to the completion queued, stage device from the back end's "
	      "start to completion.\n"
	      "# TYPE purlin_namespace_latency_seconds histogram\n", f);
	for (size_t i = 0; i < n; i++) {
		if (!v[i].have_lat)
			continue;
		for (size_t o = 0; o < 3; o++)
			for (size_t s = 0; s < 2; s++) {
				const struct st_hist *h = &v[i].h[o][s];
				unsigned long long cum = 0;

				for (int b = 0; b < ST_BUCKETS; b++) {
					cum += h->buckets[b];
					fputs("purlin_namespace_latency_seconds_bucket{", f);
					st_labels(f, &v[i]);
					fprintf(f, ",op=\"%s\",stage=\"%s\",le=\"", st_ops[o], st_stages[s]);
					if (b < ST_BUCKETS - 1)
						fprintf(f, "%llu.%06llu", st_le_us(b) / 1000000,
							st_le_us(b) % 1000000);
					else
						fputs("+Inf", f);
					fprintf(f, "\"} %llu\n", cum);
				}
				fputs("purlin_namespace_latency_seconds_sum{", f);
				st_labels(f, &v[i]);
				fprintf(f, ",op=\"%s\",stage=\"%s\"} %.6f\n", st_ops[o], st_stages[s],
					h->sum_us / 1e6);
				fputs("purlin_namespace_latency_seconds_count{", f);
				st_labels(f, &v[i]);
				/* As the +Inf bucket, whatever count the kernel summed. */
				fprintf(f, ",op=\"%s\",stage=\"%s\"} %llu\n", st_ops[o], st_stages[s],
					cum);
			}
	}
}

static int stats_run(struct pl_ctx *ctx, int argc, char **argv)
{
	const char *cmd = "stats";
	bool json = ctx->json, prom = false, text = false;
	struct pl_node *live;
	struct st_ns *v = NULL;
	size_t n = 0;
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
	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	const struct pl_nodes *subs = pl_kids(live, PL_SUBSYS);

	for (size_t i = 0; i < subs->n; i++) {
		const struct pl_nodes *nss = &subs->v[i]->kids[0];

		for (size_t j = 0; j < nss->n; j++) {
			v = xrealloc(v, (n + 1) * sizeof(*v));
			int r = st_read_ns(subs->v[i], nss->v[j], &v[n]);

			if (r == -ENOENT)	/* gone meanwhile, or no stats: skipped */
				continue;
			if (r) {
				ret = PL_EXIT_TARGET;
				goto out;
			}
			n++;
		}
	}
	if (prom) {
		st_prometheus(pl_out, v, n);
		/* A textfile collector must not take a cut-short file. */
		if (fflush(pl_out) || ferror(pl_out)) {
			pl_err_obj(cmd, "writing the output", errno ? errno : EIO);
			ret = PL_EXIT_FAIL;
		}
	} else {
		pl_print_start(json);
		if (json)
			st_json(v, n);
		else if (n)
			st_table(v, n);
		else
			pl_print_text("no namespaces\n");
		pl_print_end();
	}
out:
	free(v);
	pl_node_free(live);
	return ret;
}

const struct pl_object pl_obj_stats = {
	.name = "stats",
	.run = stats_run,
	.usage = "[-o text|json|prometheus]",
	.summary = "I/O counters and latency of every namespace (table, JSON, Prometheus)",
	.examples = "  purlinctl stats\n  purlinctl stats -o json\n"
		    "  purlinctl stats -o prometheus > /var/lib/prometheus/node-exporter/purlin.prom\n",
};
