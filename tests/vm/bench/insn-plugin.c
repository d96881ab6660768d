// SPDX-License-Identifier: GPL-2.0
/*
 * insn-plugin: a QEMU TCG plugin that counts the guest instructions executed
 * at each guest code address, for make bench's instructions per I/O
 * (Documentation/benchmark.md, "Instructions per I/O").
 *
 * usage: qemu-system-x86_64 ... -plugin insn-plugin.so,dir=DIR
 *
 * Every translation block adds its instruction count to a counter kept per
 * start address (kernel addresses; all user-space code shares one counter,
 * address 0) each time it runs, through QEMU's inline add, so counting costs
 * one host add per block.  A block left early (an exception) still counts
 * whole.  The adds are not atomic across vCPU threads: run a guest of more
 * than one vCPU with -accel tcg,thread=single when counting.
 *
 * The guest asks for snapshots through DIR (a 9p share): it creates
 * DIR/insn.req.N (N = 1, 2, ... in order) holding "mark" or "dump".  The
 * plugin answers with DIR/insn.snap.N: empty for mark; for dump, one line
 * "ADDRESS COUNT" (hex, decimal) per address that ran since the previous
 * request, then "total COUNT".  It removes the request when the answer is
 * in place, and the guest waits for the answer.
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
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* ---- counters ---- */

/* Kernel text of an x86-64 guest lies at and above this address. */
#define KERNEL_MIN 0xffff800000000000ULL

struct counter {
	uint64_t addr;
	uint64_t count;		/* added to by the guest's blocks */
	uint64_t seen;		/* count at the previous request */
};

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

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t addr = qemu_plugin_tb_vaddr(tb);
	struct counter *c;

	(void)id;
	if (addr < KERNEL_MIN)
		addr = 0;
	pthread_mutex_lock(&lock);
	c = counter_of(addr);
	pthread_mutex_unlock(&lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->count, qemu_plugin_tb_n_insns(tb));
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

	snprintf(tmp, sizeof(tmp), "%s/.insn.snap.%lu", dir, n);
	snprintf(path, sizeof(path), "%s/insn.snap.%lu", dir, n);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	pthread_mutex_lock(&lock);
	for (i = 0; i < ncounters; i++) {
		struct counter *c = &chunks[i / CHUNK][i % CHUNK];

		v = __atomic_load_n(&c->count, __ATOMIC_RELAXED);
		d = v - c->seen;
		c->seen = v;
		if (!dump || !d)
			continue;
		fprintf(f, "%" PRIx64 " %" PRIu64 "\n", c->addr, d);
		total += d;
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
		if (!fgets(word, sizeof(word), f)) {
			fclose(f);	/* being written: next tick */
			continue;
		}
		fclose(f);
		if (strncmp(word, "dump", 4) && strncmp(word, "mark", 4)) {
			fprintf(stderr, "insn-plugin: %s: unknown request\n", path);
			unlink(path);
			next++;
			continue;
		}
		if (answer(next, word[0] == 'd'))
			fprintf(stderr, "insn-plugin: answering %s: %s\n", path,
				strerror(errno));
		unlink(path);
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
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "dir=", 4))
			dir = strdup(argv[i] + 4);
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
