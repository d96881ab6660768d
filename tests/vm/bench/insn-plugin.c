// SPDX-License-Identifier: GPL-2.0
/*
 * insn-plugin: a QEMU TCG plugin that counts the guest instructions executed
 * at each guest code address, for make bench's instructions per I/O
 * (Documentation/benchmark.md, "Instructions per I/O").
 *
 * usage: qemu-system-x86_64 ... -plugin insn-plugin.so,dir=DIR[,tag=NAME]
 *
 * Every translation block adds its instruction count to a counter kept per
 * start address (kernel addresses; all user-space code shares one counter,
 * address 0) each time it runs.  A block left early (an exception) still counts
 * whole.
 *
 * Owners: a block of the kernel image is also counted by the module whose
 * code ran last before it (its "owner": the kernel code a module calls, or
 * that runs after it, until user space or another module runs), so the
 * kernel work a module causes can be charged to it (the socket buffers
 * soft-RoCE allocates and zeroes, the block layer under a target).  The
 * modules are those of DIR/insn.modules (a copy of the guest's
 * /proc/modules read as root), read again at every request.  Library
 * code in a module (DIR/insn.libs, optional: lines "START END" in hex,
 * guest addresses, each range inside one module) is counted as kernel
 * image code is, by the owner that called it, and owns nothing itself: the
 * GID table lookups soft-RoCE makes through ib_core for every packet are
 * then soft-RoCE's, while ib_core's own work (completion dispatch) stays
 * ib_core's.
 *
 * The guest asks for snapshots through DIR (a 9p share): it creates
 * DIR/insn.req.N (N = 1, 2, ... in order) holding "mark" or "dump" and a
 * newline (read once the newline is there).  The
 * plugin answers with DIR/insn.snap.N: empty for mark; for dump, one line
 * "ADDRESS COUNT [MODULE=COUNT ...]" (hex, decimal; the owners' shares of
 * COUNT, the rest having none) per address that ran since the previous
 * request, then "total COUNT".  The guest waits for the answer; requests
 * stay in DIR (they are numbered, each is read once).
 *
 * tag=NAME (another guest on the same share, pair mode's host guest): the
 * plugin answers the same requests, with DIR/insn.snap.NAME.N, and reads
 * DIR/insn.modules.NAME and DIR/insn.libs.NAME (that guest's own), so one
 * request counts both guests over the same window.
 *
 * Every block runs a callback (the owner must be followed as blocks run),
 * which slows the guest down about twofold; counting assumes one vCPU
 * thread (-accel tcg,thread=single).
 *
 * QEMU 7.2's plugin API is version 1; Debian ships no qemu-plugin.h, so the
 * few declarations used are below.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- QEMU plugin API, version 1 (the part used here) ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS
};
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- counters ---- */

/* Kernel text of an x86-64 guest lies at and above this address. */
#define KERNEL_MIN 0xffff800000000000ULL

/* Owners: module names, in the order first seen; 0 is "none". */
#define MAX_OWNERS 64

struct counter {
	uint64_t addr;
	uint32_t n_insns;	/* of the block */
	int owner;		/* a module's block: its owner id, else 0 */
	unsigned int ver;	/* of the module table owner was found in */
	uint64_t count;		/* added to by the guest's blocks */
	uint64_t seen;		/* count at the previous request */
	/* A kernel image block: counts by owner, and at the last request. */
	uint64_t *own, *own_seen;
};

struct module_range {
	uint64_t start, end;
	int owner;
};

struct module_table {
	unsigned int ver;
	size_t n;
	struct module_range r[];
};

static char *owner_name[MAX_OWNERS];
static int nowners = 1;
/* Swapped whole by the watcher; read by the vCPU thread. */
static struct module_table *modules;
static unsigned int modules_ver;
/* The owner of the kernel image blocks running now (vCPU thread). */
static int cur_owner;

#define CHUNK 65536

/*
 * counters: chunks that never move (QEMU holds pointers into them);
 * table: open-addressed index by address into them.  Both under lock.
 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct counter **chunks;
static size_t nchunks, ncounters;
static struct counter **table;
static size_t table_size;	/* a power of two */
static char *dir;
static char *tag = "";		/* "" or ".NAME" (the tag= argument) */

static size_t slot_of(uint64_t addr, size_t size)
{
	addr ^= addr >> 29;
	addr *= 0xbf58476d1ce4e5b9ULL;
	addr ^= addr >> 32;
	return addr & (size - 1);
}

static void die(const char *what)
{
	fprintf(stderr, "insn-plugin: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void table_grow(void)
{
	size_t size = table_size ? table_size * 2 : 1 << 16, i, s;
	struct counter **t = calloc(size, sizeof(*t));

	if (!t)
		die("out of memory");
	for (i = 0; i < table_size; i++) {
		if (!table[i])
			continue;
		for (s = slot_of(table[i]->addr, size); t[s]; s = (s + 1) & (size - 1))
			;
		t[s] = table[i];
	}
	free(table);
	table = t;
	table_size = size;
}

/* The counter of addr, created on first use.  Called under lock. */
static struct counter *counter_of(uint64_t addr)
{
	struct counter *c;
	size_t s;

	if (2 * (ncounters + 1) > table_size)
		table_grow();
	for (s = slot_of(addr, table_size); table[s]; s = (s + 1) & (table_size - 1))
		if (table[s]->addr == addr)
			return table[s];
	if (ncounters == nchunks * CHUNK) {
		struct counter **n = realloc(chunks, (nchunks + 1) * sizeof(*n));

		if (!n)
			die("out of memory");
		chunks = n;
		chunks[nchunks] = calloc(CHUNK, sizeof(struct counter));
		if (!chunks[nchunks])
			die("out of memory");
		nchunks++;
	}
	c = &chunks[ncounters / CHUNK][ncounters % CHUNK];
	ncounters++;
	c->addr = addr;
	table[s] = c;
	return c;
}

/* The owner id of a module block at addr under table t, 0 if none. */
static int module_owner(const struct module_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t ? t->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < t->r[mid].start)
			hi = mid;
		else if (addr >= t->r[mid].end)
			lo = mid + 1;
		else
			return t->r[mid].owner;
	}
	return 0;
}

/* A block ran (the vCPU thread). */
static void tb_exec(unsigned int vcpu, void *udata)
{
	struct counter *c = udata;
	const struct module_table *t;

	(void)vcpu;
	__atomic_store_n(&c->count, c->count + c->n_insns, __ATOMIC_RELAXED);
	if (c->addr < KERNEL_MIN) {
		cur_owner = 0;
		return;
	}
	t = __atomic_load_n(&modules, __ATOMIC_ACQUIRE);
	if (t && c->ver != t->ver) {
		c->owner = module_owner(t, c->addr);
		c->ver = t->ver;
	}
	if (c->owner) {
		cur_owner = c->owner;
		return;
	}
	if (!cur_owner)
		return;
	if (!c->own) {
		uint64_t *o = calloc(2 * MAX_OWNERS, sizeof(*o));

		if (!o)
			die("out of memory");
		c->own_seen = o + MAX_OWNERS;
		__atomic_store_n(&c->own, o, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&c->own[cur_owner], c->own[cur_owner] + c->n_insns,
			 __ATOMIC_RELAXED);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	uint32_t n = qemu_plugin_tb_n_insns(tb);
	struct counter *c;

	(void)id;
	/*
	 * User space is counted as one, but its blocks differ in size: one
	 * counter per size, keyed by it (below KERNEL_MIN; dumped as 0).
	 */
	if (addr < KERNEL_MIN)
		addr = n;
	pthread_mutex_lock(&lock);
	c = counter_of(addr);
	c->n_insns = n;
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS, c);
}

/* The owner id of a module name, registered on first sight; 0 if full. */
static int owner_id(const char *name)
{
	int i;

	for (i = 1; i < nowners; i++)
		if (!strcmp(owner_name[i], name))
			return i;
	if (nowners == MAX_OWNERS)
		return 0;
	owner_name[nowners] = strdup(name);
	if (!owner_name[nowners])
		die("out of memory");
	return nowners++;
}

static int by_start(const void *a, const void *b)
{
	const struct module_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Cut the ranges of DIR/insn.libs out of the module ranges of t (sorted,
 * disjoint): an address in no range owns nothing (module_owner() 0).  A
 * library range must lie inside one module's; others are refused.
 */
static struct module_table *libs_cut(struct module_table *t, size_t *cap)
{
	char path[4096], line[256];
	uint64_t start, end;
	FILE *f;
	size_t i;

	snprintf(path, sizeof(path), "%s/insn.libs%s", dir, tag);
	f = fopen(path, "r");
	if (!f)
		return t;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %" SCNx64, &start, &end) != 2 ||
		    start >= end) {
			fprintf(stderr, "insn-plugin: %s: bad line: %s", path, line);
			continue;
		}
		for (i = 0; i < t->n; i++)
			if (start >= t->r[i].start && end <= t->r[i].end)
				break;
		if (i == t->n) {
			fprintf(stderr, "insn-plugin: %s: %" PRIx64 "-%" PRIx64 " in no module\n",
				path, start, end);
			continue;
		}
		/* r[i] becomes [r.start, start) and [end, r.end), the empty dropped. */
		if (t->n == *cap) {
			struct module_table *n;

			*cap *= 2;
			n = realloc(t, sizeof(*t) + *cap * sizeof(t->r[0]));
			if (!n)
				die("out of memory");
			t = n;
		}
		memmove(&t->r[i + 2], &t->r[i + 1], (t->n - i - 1) * sizeof(t->r[0]));
		t->r[i + 1] = t->r[i];
		t->r[i].end = start;
		t->r[i + 1].start = end;
		t->n++;
		if (t->r[i + 1].start == t->r[i + 1].end) {
			memmove(&t->r[i + 1], &t->r[i + 2], (t->n - i - 2) * sizeof(t->r[0]));
			t->n--;
		}
		if (t->r[i].start == t->r[i].end) {
			memmove(&t->r[i], &t->r[i + 1], (t->n - i - 1) * sizeof(t->r[0]));
			t->n--;
		}
	}
	fclose(f);
	return t;
}

/*
 * Read DIR/insn.modules (the guest's /proc/modules: "name size refs deps
 * state 0xADDRESS ...") into a new table; the old one is left to leak, as
 * the vCPU thread may still be reading it (a few per run).  Watcher only.
 */
static void modules_load(void)
{
	char path[4096], line[1024], name[256], *p;
	struct module_table *t;
	unsigned long size;
	size_t cap = 64;
	FILE *f;

	snprintf(path, sizeof(path), "%s/insn.modules%s", dir, tag);
	f = fopen(path, "r");
	if (!f)
		return;
	t = calloc(1, sizeof(*t) + cap * sizeof(t->r[0]));
	if (!t)
		die("out of memory");
	while (fgets(line, sizeof(line), f)) {
		uint64_t base;

		p = strstr(line, " 0x");
		if (sscanf(line, "%255s %lu", name, &size) != 2 || !p ||
		    sscanf(p, " %" SCNx64, &base) != 1 || !base)
			continue;
		if (t->n == cap) {
			struct module_table *n;

			cap *= 2;
			n = realloc(t, sizeof(*t) + cap * sizeof(t->r[0]));
			if (!n)
				die("out of memory");
			t = n;
		}
		t->r[t->n].start = base;
		t->r[t->n].end = base + size;
		t->r[t->n].owner = owner_id(name);
		t->n++;
	}
	fclose(f);
	qsort(t->r, t->n, sizeof(t->r[0]), by_start);
	t = libs_cut(t, &cap);
	t->ver = ++modules_ver;
	__atomic_store_n(&modules, t, __ATOMIC_RELEASE);
}

/*
 * Answer request n: write the deltas since the previous request (dump) or
 * nothing (mark) to insn.snap.n, through a temporary name so the guest
 * never reads half a file.
 */
static int answer(unsigned long n, int dump)
{
	char tmp[4096], path[4096];
	uint64_t total = 0, v, d;
	size_t i;
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.insn.snap%s.%lu", dir, tag, n);
	snprintf(path, sizeof(path), "%s/insn.snap%s.%lu", dir, tag, n);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	pthread_mutex_lock(&lock);
	for (i = 0; i < ncounters; i++) {
		struct counter *c = &chunks[i / CHUNK][i % CHUNK];
		uint64_t *own = __atomic_load_n(&c->own, __ATOMIC_ACQUIRE);
		int o;

		v = __atomic_load_n(&c->count, __ATOMIC_RELAXED);
		d = v - c->seen;
		c->seen = v;
		if (dump && d)
			/* User space (small "addresses", block sizes): 0. */
			fprintf(f, "%" PRIx64 " %" PRIu64,
				c->addr < KERNEL_MIN ? 0 : c->addr, d);
		total += dump ? d : 0;
		for (o = 1; own && o < MAX_OWNERS; o++) {
			uint64_t ov = __atomic_load_n(&own[o], __ATOMIC_RELAXED);
			uint64_t od = ov - c->own_seen[o];

			c->own_seen[o] = ov;
			if (dump && d && od)
				fprintf(f, " %s=%" PRIu64, owner_name[o], od);
		}
		if (dump && d)
			fputc('\n', f);
	}
	pthread_mutex_unlock(&lock);
	if (dump)
		fprintf(f, "total %" PRIu64 "\n", total);
	if (fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

static void *watch(void *arg)
{
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	unsigned long next = 1;
	char path[4096], word[16];
	FILE *f;

	(void)arg;
	for (;;) {
		nanosleep(&tick, NULL);
		snprintf(path, sizeof(path), "%s/insn.req.%lu", dir, next);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* Written in place by the guest: whole once its newline is in. */
		if (!fgets(word, sizeof(word), f) || !strchr(word, '\n')) {
			fclose(f);	/* being written: next tick */
			continue;
		}
		fclose(f);
		if (strncmp(word, "dump", 4) && strncmp(word, "mark", 4)) {
			fprintf(stderr, "insn-plugin: %s: unknown request\n", path);
			next++;
			continue;
		}
		modules_load();
		if (answer(next, word[0] == 'd'))
			fprintf(stderr, "insn-plugin: answering %s: %s\n", path,
				strerror(errno));
		next++;
	}
	return NULL;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	pthread_t t;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "dir=", 4)) {
			dir = strdup(argv[i] + 4);
		} else if (!strncmp(argv[i], "tag=", 4) && argv[i][4] &&
			   !strchr(argv[i] + 4, '/')) {
			tag = malloc(strlen(argv[i]) - 4 + 2);
			if (tag)
				sprintf(tag, ".%s", argv[i] + 4);
		} else {
			fprintf(stderr, "insn-plugin: unknown argument %s (dir=DIR, tag=NAME)\n",
				argv[i]);
			return -1;
		}
	}
	if (!tag) {
		fprintf(stderr, "insn-plugin: out of memory\n");
		return -1;
	}
	if (!dir || !*dir) {
		fprintf(stderr, "insn-plugin: the argument dir=DIR is required\n");
		return -1;
	}
	pthread_mutex_lock(&lock);
	table_grow();
	pthread_mutex_unlock(&lock);
	if (pthread_create(&t, NULL, watch, NULL)) {
		fprintf(stderr, "insn-plugin: cannot start its thread\n");
		return -1;
	}
	pthread_detach(t);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	return 0;
}
