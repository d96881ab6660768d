/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: Purlin's I/O statistics as objects.  Reading them from the
 * target (a namespace's namespaces/<nsid>/stats and latency files, a
 * controller's controllers/<nqn>:<cntlid>/ directory) for `stats` and
 * `top`, and the rates between two samples, as pure functions.
 */
#ifndef PURLINCTL_IOSTAT_H
#define PURLINCTL_IOSTAT_H

#include <stdbool.h>
#include <stddef.h>

#define IO_BUCKETS	24	/* drivers/purlin.h PURLIN_LAT_BUCKETS */
#define IO_OPS		3	/* read, write, other */
#define IO_STAGES	2	/* total, device */

extern const char *const io_ops[IO_OPS];
extern const char *const io_stages[IO_STAGES];

struct io_hist {
	unsigned long long count, sum_us, buckets[IO_BUCKETS];
};

enum io_kind {
	IO_NS,
	IO_CTRL,
};

/* One namespace's or controller's figures, as read at one instant. */
struct io_obj {
	enum io_kind kind;
	char *subsys;
	char *id;		/* nsid or cntlid */
	char *host;		/* a controller's host NQN, else NULL */
	char *port;		/* a controller's port, else NULL */
	unsigned long long read_cmds, read_bytes, write_cmds, write_bytes;
	unsigned long long errors, other_cmds, inflight, flush_cmds;
	unsigned long long throttled;	/* a namespace's; 0 from a module without limits */
	unsigned int seen;	/* bit k: the file had io_keys[k] */
	bool have_lat;		/* false on a module without the latency file */
	struct io_hist h[IO_OPS][IO_STAGES];
};

struct io_key {
	const char *key;
	size_t off;
};
/* The keys of the stats files, in their order. */
extern const struct io_key io_keys[];
extern const size_t io_nkeys;

static inline unsigned long long io_key_val(const struct io_obj *o, size_t k)
{
	return *(const unsigned long long *)((const char *)o + io_keys[k].off);
}

/* Parse a stats file ("key=N ..."; unknown keys ignored) into o. */
bool io_parse_counts(char *text, struct io_obj *o);
/* Parse a latency file into o->h; false when it is not the known layout. */
bool io_parse_latency(char *text, struct io_obj *o);

/*
 * Read every namespace (ns) and every controller (ctrls) of the target
 * at cfs_root() into *v (sorted: namespaces, then controllers, each by
 * subsystem and number).  Objects that go away while being read are left
 * out.  0, or -errno with the error reported.
 */
int io_collect(bool ns, bool ctrls, struct io_obj **v, size_t *n);
void io_free(struct io_obj *v, size_t n);
/* The object of v with o's kind, subsystem and id, or NULL. */
const struct io_obj *io_find(const struct io_obj *v, size_t n, const struct io_obj *o);

/* Upper bound in us of bucket b (bucket 0: under 1 us); 0 for the last. */
unsigned long long io_le_us(int b);
/*
 * The bucket holding quantile q of the counts in buckets, or -1 when
 * they are all zero.  The last bucket (IO_BUCKETS - 1) has no bound.
 */
int io_quantile_bucket(const unsigned long long *buckets, double q);

/* What happened between two samples of one object, per second. */
struct io_rate {
	double iops;		/* completed commands of every kind */
	double read_iops, write_iops;
	double mbps;		/* read and written, 10^6 bytes */
	double errors;
	double mean_us;		/* capsule to completion, every kind; < 0: none */
	int p99_bucket;		/* io_quantile_bucket() of the same; -1: none */
	unsigned long long inflight;	/* at the second sample */
	bool reset;		/* counters went back: counted from zero */
};

/*
 * Rates of cur since prev, secs apart.  prev NULL (the object is new) or
 * counters lower than prev's (a new object under an old name) count
 * everything cur has, as if prev were zero.
 */
void io_rate(const struct io_obj *prev, const struct io_obj *cur, double secs,
	     struct io_rate *r);

/* Text of a latency in us: "850us", "12.5ms", "1.20s"; "-" when < 0. */
void io_fmt_us(double us, char *buf, size_t len);
/* Text of a p99 bucket: its bound as io_fmt_us(), ">4.19s" for the last, "-" for -1. */
void io_fmt_bucket(int b, char *buf, size_t len);
/* A rate: "0", "950", "12.3k", "4.50M". */
void io_fmt_rate(double v, char *buf, size_t len);

#endif
