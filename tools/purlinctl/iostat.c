// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: Purlin's I/O statistics as objects (iostat.h): the files'
 * parsers, reading every namespace and controller, and the rates between
 * two samples that `purlinctl top` shows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "iostat.h"
#include "util.h"

const char *const io_ops[IO_OPS] = { "read", "write", "other" };
const char *const io_stages[IO_STAGES] = { "total", "device" };

const struct io_key io_keys[] = {
	{ "read_cmds", offsetof(struct io_obj, read_cmds) },
	{ "read_bytes", offsetof(struct io_obj, read_bytes) },
	{ "write_cmds", offsetof(struct io_obj, write_cmds) },
	{ "write_bytes", offsetof(struct io_obj, write_bytes) },
	{ "errors", offsetof(struct io_obj, errors) },
	{ "other_cmds", offsetof(struct io_obj, other_cmds) },
	{ "inflight", offsetof(struct io_obj, inflight) },
	{ "flush_cmds", offsetof(struct io_obj, flush_cmds) },
	{ "throttled", offsetof(struct io_obj, throttled) },
};
const size_t io_nkeys = ARRAY_SIZE(io_keys);

/* A decimal count, whole; false on anything else (a sign, junk, overflow). */
static bool io_num(const char *s, char **endp, unsigned long long *v)
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

bool io_parse_counts(char *text, struct io_obj *o)
{
	char *save;

	for (char *w = strtok_r(text, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
		char *eq = strchr(w, '=');

		if (!eq)
			return false;
		*eq = '\0';
		for (size_t i = 0; i < io_nkeys; i++) {
			if (strcmp(w, io_keys[i].key))
				continue;
			if (!io_num(eq + 1, NULL,
				    (unsigned long long *)((char *)o + io_keys[i].off)))
				return false;
			o->seen |= 1u << i;
		}
	}
	return true;
}

/* The bounds the kernel's latency file must start with (drivers/stats.c). */
static bool io_header_ok(const char *line)
{
	char want[256];
	int n = snprintf(want, sizeof(want), "bucket_le_us=");

	for (int b = 0; b < IO_BUCKETS - 1; b++)
		n += snprintf(want + n, sizeof(want) - n, "%llu,", 1ULL << b);
	snprintf(want + n, sizeof(want) - n, "inf");
	return !strcmp(line, want);
}

/*
 * "OP_STAGE count=N sum_us=N buckets=N,...": the histogram's index
 * (op * IO_STAGES + stage), or -1 on anything else.
 */
static int io_parse_hist_line(const char *line, struct io_obj *o)
{
	char name[32], *end;
	const char *p;
	struct io_hist *h = NULL;
	int idx = -1;

	if (sscanf(line, "%31s", name) != 1)
		return -1;
	for (int op = 0; op < IO_OPS; op++)
		for (int s = 0; s < IO_STAGES; s++) {
			char want[32];

			snprintf(want, sizeof(want), "%s_%s", io_ops[op], io_stages[s]);
			if (!strcmp(name, want)) {
				h = &o->h[op][s];
				idx = op * IO_STAGES + s;
			}
		}
	p = line + strlen(name);
	if (!h || strncmp(p, " count=", 7) || !io_num(p + 7, &end, &h->count) ||
	    strncmp(end, " sum_us=", 8) || !io_num(end + 8, &end, &h->sum_us) ||
	    strncmp(end, " buckets=", 9))
		return -1;
	p = end + 9;
	for (int b = 0; b < IO_BUCKETS; b++) {
		if (!io_num(p, &end, &h->buckets[b]) ||
		    *end != (b < IO_BUCKETS - 1 ? ',' : '\0'))
			return -1;
		p = end + 1;
	}
	return idx;
}

bool io_parse_latency(char *text, struct io_obj *o)
{
	unsigned int seen = 0;
	char *save, *l = strtok_r(text, "\n", &save);
	bool ok = l && io_header_ok(l);

	while (ok && (l = strtok_r(NULL, "\n", &save))) {
		int i = io_parse_hist_line(l, o);

		ok = i >= 0 && !(seen & 1u << i);
		seen |= i >= 0 ? 1u << i : 0;
	}
	return ok && seen == (1u << IO_OPS * IO_STAGES) - 1;
}

/*
 * Read dir/stats and dir/latency into o.  -ENOENT when the object went
 * away (or has no stats file); other errors are reported.
 */
static int io_read_files(const char *dir, struct io_obj *o)
{
	char *path = xasprintf("%s/stats", dir), *text = NULL;
	int ret = cfs_read(path, &text);

	if (ret && ret != -ENOENT)
		pl_err_obj(path, "reading it", -ret);
	else if (!ret && !io_parse_counts(text, o)) {
		pl_err("%s: not the counters this purlinctl knows\n", path);
		ret = -EPROTO;
	}
	free(path);
	free(text);
	if (ret)
		return ret;
	text = NULL;
	/* Older modules have no latency file: the counters alone, then. */
	path = xasprintf("%s/latency", dir);
	ret = cfs_read(path, &text);
	if (!ret) {
		o->have_lat = io_parse_latency(text, o);
		if (!o->have_lat)
			pl_err("%s: not the histograms this purlinctl knows: left out\n", path);
	}
	free(path);
	free(text);
	return 0;
}

static void io_obj_clear(struct io_obj *o)
{
	free(o->subsys);
	free(o->id);
	free(o->host);
	free(o->port);
	memset(o, 0, sizeof(*o));
}

void io_free(struct io_obj *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		io_obj_clear(&v[i]);
	free(v);
}

static struct io_obj *io_push(struct io_obj **v, size_t *n)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	return &(*v)[*n];
}

static int io_collect_ns(struct io_obj **v, size_t *n)
{
	struct strv subs = { 0 };
	int ret = cfs_list("subsystems", CFS_DIR, &subs);

	for (size_t i = 0; !ret && i < subs.n; i++) {
		char *dir = xasprintf("subsystems/%s/namespaces", subs.v[i]);
		struct strv nss = { 0 };

		/* A subsystem removed meanwhile has nothing to show. */
		if (cfs_list(dir, CFS_DIR, &nss) == -ENOENT)
			nss.n = 0;
		for (size_t j = 0; !ret && j < nss.n; j++) {
			char *nsdir = xasprintf("%s/%s", dir, nss.v[j]);
			struct io_obj *o = io_push(v, n);

			o->kind = IO_NS;
			ret = io_read_files(nsdir, o);
			if (!ret) {
				o->subsys = xstrdup(subs.v[i]);
				o->id = xstrdup(nss.v[j]);
				(*n)++;
			} else if (ret == -ENOENT) {
				ret = 0;
			}
			free(nsdir);
		}
		strv_free(&nss);
		free(dir);
	}
	strv_free(&subs);
	return ret;
}

/* dir/name, whitespace-stripped, or NULL when it cannot be read. */
static char *io_read_str(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *text = NULL;

	if (cfs_read(path, &text))
		text = NULL;
	free(path);
	return text;
}

static int io_collect_ctrls(struct io_obj **v, size_t *n)
{
	struct strv names = { 0 };
	int ret = cfs_list("controllers", CFS_DIR, &names);

	/* A module before controllers/: no controller rows. */
	if (ret == -ENOENT)
		return 0;
	for (size_t i = 0; !ret && i < names.n; i++) {
		char *dir = xasprintf("controllers/%s", names.v[i]);
		struct io_obj *o = io_push(v, n);

		o->kind = IO_CTRL;
		ret = io_read_files(dir, o);
		if (!ret) {
			o->subsys = io_read_str(dir, "subsysnqn");
			o->id = io_read_str(dir, "cntlid");
			o->host = io_read_str(dir, "hostnqn");
			o->port = io_read_str(dir, "port");
			/* Gone between the files: left out. */
			if (o->subsys && o->id && o->host && o->port)
				(*n)++;
			else
				io_obj_clear(o);
		} else if (ret == -ENOENT) {
			io_obj_clear(o);
			ret = 0;
		}
		free(dir);
	}
	strv_free(&names);
	return ret;
}

static int io_cmp(const void *a, const void *b)
{
	const struct io_obj *x = a, *y = b;
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	c = strcmp(x->subsys, y->subsys);
	if (c)
		return c;
	unsigned long long i = strtoull(x->id, NULL, 10), j = strtoull(y->id, NULL, 10);

	return i < j ? -1 : i > j;
}

int io_collect(bool ns, bool ctrls, struct io_obj **v, size_t *n)
{
	int ret = 0;

	*v = NULL;
	*n = 0;
	if (ns)
		ret = io_collect_ns(v, n);
	if (!ret && ctrls)
		ret = io_collect_ctrls(v, n);
	if (ret) {
		if (ret != -EPROTO)
			pl_err_obj(cfs_root(), "reading the statistics", -ret);
		io_free(*v, *n);
		*v = NULL;
		*n = 0;
		return ret;
	}
	if (*n)
		qsort(*v, *n, sizeof(**v), io_cmp);
	return 0;
}

const struct io_obj *io_find(const struct io_obj *v, size_t n, const struct io_obj *o)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].kind == o->kind && !strcmp(v[i].subsys, o->subsys) &&
		    !strcmp(v[i].id, o->id))
			return &v[i];
	return NULL;
}

unsigned long long io_le_us(int b)
{
	return b < IO_BUCKETS - 1 ? 1ULL << b : 0;
}

int io_quantile_bucket(const unsigned long long *buckets, double q)
{
	unsigned long long total = 0, seen = 0;

	for (int b = 0; b < IO_BUCKETS; b++)
		total += buckets[b];
	if (!total)
		return -1;
	for (int b = 0; b < IO_BUCKETS - 1; b++) {
		seen += buckets[b];
		if ((double)seen >= q * (double)total)
			return b;
	}
	return IO_BUCKETS - 1;
}

/* Did any counter of cur go below prev's? */
static bool io_went_back(const struct io_obj *prev, const struct io_obj *cur)
{
	for (size_t k = 0; k < io_nkeys; k++)
		if (io_keys[k].off != offsetof(struct io_obj, inflight) &&
		    io_key_val(cur, k) < io_key_val(prev, k))
			return true;
	for (int op = 0; op < IO_OPS; op++) {
		const struct io_hist *a = &prev->h[op][0], *b = &cur->h[op][0];

		if (b->count < a->count || b->sum_us < a->sum_us)
			return true;
		for (int i = 0; i < IO_BUCKETS; i++)
			if (b->buckets[i] < a->buckets[i])
				return true;
	}
	return false;
}

void io_rate(const struct io_obj *prev, const struct io_obj *cur, double secs,
	     struct io_rate *r)
{
	static const struct io_obj zero;
	unsigned long long buckets[IO_BUCKETS] = { 0 }, count = 0, sum_us = 0;
	const struct io_obj *p = prev ? prev : &zero;

	memset(r, 0, sizeof(*r));
	if (prev && io_went_back(prev, cur)) {
		p = &zero;
		r->reset = true;
	}
	if (secs <= 0)
		secs = 1;
	r->read_iops = (double)(cur->read_cmds - p->read_cmds) / secs;
	r->write_iops = (double)(cur->write_cmds - p->write_cmds) / secs;
	r->iops = r->read_iops + r->write_iops +
		  (double)(cur->other_cmds - p->other_cmds) / secs;
	r->mbps = (double)(cur->read_bytes - p->read_bytes + cur->write_bytes -
			   p->write_bytes) / 1e6 / secs;
	r->errors = (double)(cur->errors - p->errors) / secs;
	r->inflight = cur->inflight;
	r->mean_us = -1;
	r->p99_bucket = -1;
	if (!cur->have_lat || (prev && !r->reset && !p->have_lat))
		return;
	for (int op = 0; op < IO_OPS; op++) {
		const struct io_hist *a = &p->h[op][0], *b = &cur->h[op][0];

		count += b->count - a->count;
		sum_us += b->sum_us - a->sum_us;
		for (int i = 0; i < IO_BUCKETS; i++)
			buckets[i] += b->buckets[i] - a->buckets[i];
	}
	if (count)
		r->mean_us = (double)sum_us / (double)count;
	r->p99_bucket = io_quantile_bucket(buckets, 0.99);
}

void io_fmt_us(double us, char *buf, size_t len)
{
	if (us < 0)
		snprintf(buf, len, "-");
	else if (us < 1000)
		snprintf(buf, len, "%.0fus", us);
	else if (us < 1000000)
		snprintf(buf, len, "%.1fms", us / 1000);
	else
		snprintf(buf, len, "%.2fs", us / 1000000);
}

void io_fmt_bucket(int b, char *buf, size_t len)
{
	if (b < 0) {
		snprintf(buf, len, "-");
	} else if (b >= IO_BUCKETS - 1) {
		char t[32];

		io_fmt_us((double)io_le_us(IO_BUCKETS - 2), t, sizeof(t));
		snprintf(buf, len, ">%s", t);
	} else {
		io_fmt_us((double)io_le_us(b), buf, len);
	}
}

void io_fmt_rate(double v, char *buf, size_t len)
{
	if (v < 1000)
		snprintf(buf, len, "%.0f", v);
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.2fM", v / 1e6);
}
