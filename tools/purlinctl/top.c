// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl top: a live view of the target's I/O, one line per controller
 * (or per namespace), refreshed every interval: IOPS, MB/s, the mean and
 * the 99th percentile of the latency (from the histograms' growth between
 * two samples), the commands in flight.  On a terminal it redraws in
 * place and reads keys (q quits, s changes the sort, r the rows); with
 * output elsewhere it prints one block per refresh.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "iostat.h"
#include "print.h"
#include "top.h"

const char *const top_sort_names[TOP_SORTS] = {
	[TOP_SORT_IOPS] = "iops",
	[TOP_SORT_MBPS] = "mbps",
	[TOP_SORT_MEAN] = "mean",
	[TOP_SORT_P99] = "p99",
	[TOP_SORT_QD] = "qd",
	[TOP_SORT_NAME] = "name",
};

size_t top_rows(const struct io_obj *prev, size_t np, const struct io_obj *cur, size_t nc,
		enum io_kind kind, double secs, struct top_row *out)
{
	size_t n = 0;

	for (size_t i = 0; i < nc; i++) {
		if (cur[i].kind != kind)
			continue;
		out[n].obj = &cur[i];
		io_rate(io_find(prev, np, &cur[i]), &cur[i], secs, &out[n].rate);
		n++;
	}
	return n;
}

static int top_cmp_name(const struct top_row *a, const struct top_row *b)
{
	int c = strcmp(a->obj->subsys, b->obj->subsys);
	unsigned long long x, y;

	if (c)
		return c;
	x = strtoull(a->obj->id, NULL, 10);
	y = strtoull(b->obj->id, NULL, 10);
	return x < y ? -1 : x > y;
}

static enum top_sort top_key;

static int top_cmp(const void *pa, const void *pb)
{
	const struct top_row *a = pa, *b = pb;
	double x = 0, y = 0;

	switch (top_key) {
	case TOP_SORT_IOPS:
		x = a->rate.iops, y = b->rate.iops;
		break;
	case TOP_SORT_MBPS:
		x = a->rate.mbps, y = b->rate.mbps;
		break;
	case TOP_SORT_MEAN:
		x = a->rate.mean_us, y = b->rate.mean_us;
		break;
	case TOP_SORT_P99:
		x = a->rate.p99_bucket, y = b->rate.p99_bucket;
		break;
	case TOP_SORT_QD:
		x = (double)a->rate.inflight, y = (double)b->rate.inflight;
		break;
	default:
		break;
	}
	if (x != y)
		return x > y ? -1 : 1;
	return top_cmp_name(a, b);
}

void top_sort_rows(struct top_row *rows, size_t n, enum top_sort key)
{
	top_key = key;
	if (n)
		qsort(rows, n, sizeof(*rows), top_cmp);
}

/* Print line, cut at width characters (width > 0). */
static void top_line(FILE *f, const char *line, int width)
{
	if (width > 0 && (int)strlen(line) > width)
		fprintf(f, "%.*s\n", width, line);
	else
		fprintf(f, "%s\n", line);
}

#define TOP_COLS "%-7s %8s %8s %8s %8s %8s %8s %5s %7s  %-*s"

void top_render(FILE *f, const struct top_row *rows, size_t n, enum io_kind kind,
		const char *title, int width)
{
	int sw = (int)strlen("SUBSYSTEM");
	char line[1024];

	for (size_t i = 0; i < n; i++)
		if ((int)strlen(rows[i].obj->subsys) > sw)
			sw = (int)strlen(rows[i].obj->subsys);
	top_line(f, title, width);
	snprintf(line, sizeof(line), TOP_COLS "%s", kind == IO_CTRL ? "CNTLID" : "NSID",
		 "IOPS", "READ/s", "WRITE/s", "MB/s", "MEAN", "P99", "QD", "ERR/s",
		 kind == IO_CTRL ? sw : 0, "SUBSYSTEM", kind == IO_CTRL ? "  HOST" : "");
	top_line(f, line, width);
	for (size_t i = 0; i < n; i++) {
		const struct io_rate *r = &rows[i].rate;
		char iops[16], rd[16], wr[16], mb[16], mean[16], p99[16], qd[24], err[16];

		io_fmt_rate(r->iops, iops, sizeof(iops));
		io_fmt_rate(r->read_iops, rd, sizeof(rd));
		io_fmt_rate(r->write_iops, wr, sizeof(wr));
		snprintf(mb, sizeof(mb), "%.1f", r->mbps);
		io_fmt_us(r->mean_us, mean, sizeof(mean));
		io_fmt_bucket(r->p99_bucket, p99, sizeof(p99));
		snprintf(qd, sizeof(qd), "%llu", r->inflight);
		io_fmt_rate(r->errors, err, sizeof(err));
		snprintf(line, sizeof(line), TOP_COLS "%s%s", rows[i].obj->id, iops, rd, wr, mb,
			 mean, p99, qd, err, kind == IO_CTRL ? sw : 0, rows[i].obj->subsys,
			 kind == IO_CTRL ? "  " : "", kind == IO_CTRL ? rows[i].obj->host : "");
		top_line(f, line, width);
	}
	if (!n)
		top_line(f, kind == IO_CTRL ? "(no controllers)" : "(no namespaces)", width);
}

/* ---- the loop -------------------------------------------------------------- */

static volatile sig_atomic_t top_stop;
static struct termios top_saved;
static bool top_raw;

static void top_on_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static void top_restore(void)
{
	if (top_raw) {
		tcsetattr(STDIN_FILENO, TCSAFLUSH, &top_saved);
		top_raw = false;
	}
}

/* Keys one at a time, no echo; the terminal is restored on every exit path. */
static void top_keys_on(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &top_saved))
		return;
	t = top_saved;
	t.c_lflag &= ~(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (!tcsetattr(STDIN_FILENO, TCSANOW, &t)) {
		top_raw = true;
		atexit(top_restore);
	}
}

static double top_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct top_state {
	double interval;
	long iterations;	/* -c (-n is the global --dry-run); 0: until q or a signal */
	enum io_kind kind;
	enum top_sort sort;
	bool tty;
};

/* Wait until deadline, or a key (1: redraw, 2: quit).  0 at the deadline. */
static int top_wait(struct top_state *st, double deadline)
{
	for (;;) {
		double left = deadline - top_now();
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		char c;

		if (top_stop)
			return 2;
		if (left <= 0)
			return 0;
		if (!top_raw) {
			struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };

			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (read(STDIN_FILENO, &c, 1) != 1) {
			/* The terminal went away: no more keys, only the timer. */
			top_restore();
			continue;
		}
		if (c == 'q' || c == 'Q')
			return 2;
		if (c == 's') {
			st->sort = (st->sort + 1) % TOP_SORTS;
			return 1;
		}
		if (c == 'r') {
			st->kind = st->kind == IO_CTRL ? IO_NS : IO_CTRL;
			return 1;
		}
	}
}

static void top_frame(const struct top_state *st, const struct io_obj *prev, size_t np,
		      const struct io_obj *cur, size_t nc, double secs)
{
	struct top_row *rows = xrealloc(NULL, (nc ? nc : 1) * sizeof(*rows));
	size_t n = top_rows(prev, np, cur, nc, st->kind, secs, rows);
	char title[256], clock[16];
	time_t now = time(NULL);
	struct winsize ws;
	int width = 0;

	strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
	snprintf(title, sizeof(title), "purlinctl top - %s - every %.1fs - %s by %s%s", clock,
		 st->interval, st->kind == IO_CTRL ? "controllers" : "namespaces",
		 top_sort_names[st->sort], top_raw ? " - q quit, s sort, r rows" : "");
	top_sort_rows(rows, n, st->sort);
	if (st->tty) {
		if (!ioctl(fileno(pl_out), TIOCGWINSZ, &ws) && ws.ws_col)
			width = ws.ws_col;
		fputs("\033[H\033[2J", pl_out);
	}
	top_render(pl_out, rows, n, st->kind, title, width);
	if (!st->tty)
		fputc('\n', pl_out);
	fflush(pl_out);
	free(rows);
}

static int top_parse(struct top_state *st, int argc, char **argv)
{
	const char *cmd = "top";

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (strcmp(o, "-d") && strcmp(o, "-c") && strcmp(o, "-r") && strcmp(o, "-s"))
			return pl_usage_error(cmd, "unexpected argument '%s'", o);
		if (!v)
			return pl_usage_error(cmd, "%s needs a value", o);
		i++;
		errno = 0;
		if (!strcmp(o, "-d")) {
			st->interval = strtod(v, &end);
			if (errno || end == v || *end || !(st->interval >= 0.1 && st->interval <= 3600))
				return pl_usage_error(cmd, "-d %s: seconds from 0.1 to 3600", v);
		} else if (!strcmp(o, "-c")) {
			st->iterations = strtol(v, &end, 10);
			if (errno || end == v || *end || st->iterations < 1 ||
			    st->iterations > 1000000000L)
				return pl_usage_error(cmd, "-c %s: a count from 1", v);
		} else if (!strcmp(o, "-r")) {
			if (!strcmp(v, "controllers") || !strcmp(v, "ctrl"))
				st->kind = IO_CTRL;
			else if (!strcmp(v, "namespaces") || !strcmp(v, "ns"))
				st->kind = IO_NS;
			else
				return pl_usage_error(cmd, "-r %s: controllers or namespaces", v);
		} else {
			int k = 0;

			while (k < TOP_SORTS && strcmp(v, top_sort_names[k]))
				k++;
			if (k == TOP_SORTS)
				return pl_usage_error(cmd, "-s %s: iops, mbps, mean, p99, qd or name", v);
			st->sort = k;
		}
	}
	return 0;
}

static int top_run(struct pl_ctx *ctx, int argc, char **argv)
{
	struct top_state st = { .interval = 1, .kind = IO_CTRL, .sort = TOP_SORT_IOPS };
	struct sigaction sa = { .sa_handler = top_on_signal };
	/* older and prev: the last frame's samples, redrawn on a key. */
	struct io_obj *older = NULL, *prev = NULL, *cur = NULL;
	size_t no = 0, np = 0, nc = 0;
	double secs = 0;
	struct pl_node *live;
	double t0, t1;
	int ret;

	ret = top_parse(&st, argc, argv);
	if (ret)
		return ret;
	if (ctx->json)
		return pl_usage_error("top", "no JSON output: see 'purlinctl stats -o json'");
	if (strcmp(ctx->target, "purlin"))
		return pl_usage_error("top", "the I/O statistics are Purlin's (not %s's)",
				      ctx->target);
	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	pl_node_free(live);
	if (io_collect(true, true, &prev, &np))
		return PL_EXIT_TARGET;
	t0 = top_now();

	st.tty = isatty(fileno(pl_out));
	top_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (st.tty)
		top_keys_on();

	ret = PL_EXIT_OK;
	for (long it = 0; !st.iterations || it < st.iterations; it++) {
		int w;

		while ((w = top_wait(&st, t0 + st.interval)) == 1)
			if (it)
				top_frame(&st, older, no, prev, np, secs);
		if (w == 2)
			break;
		if (io_collect(true, true, &cur, &nc)) {
			ret = PL_EXIT_TARGET;
			break;
		}
		t1 = top_now();
		secs = t1 - t0;
		top_frame(&st, prev, np, cur, nc, secs);
		io_free(older, no);
		older = prev;
		no = np;
		prev = cur;
		np = nc;
		cur = NULL;
		t0 = t1;
	}
	io_free(older, no);
	io_free(prev, np);
	top_restore();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return ret;
}

const struct pl_object pl_obj_top = {
	.name = "top",
	.run = top_run,
	.usage = "[-d SECONDS] [-c COUNT] [-r controllers|namespaces] "
		 "[-s iops|mbps|mean|p99|qd|name]",
	.summary = "live I/O rates and latency per controller or namespace",
	.examples = "  purlinctl top\n  purlinctl top -r namespaces -s p99\n"
		    "  purlinctl top -d 5 -c 12 > io.log\n",
};
