// SPDX-License-Identifier: GPL-2.0
/*
 * insn-report: where the guest instructions of an insn-plugin snapshot went.
 *
 * usage: insn-report [-t N] KALLSYMS SNAPSHOT IOS
 *   KALLSYMS   the guest's /proc/kallsyms (read as root, after the modules
 *              of the run were loaded)
 *   SNAPSHOT   an insn.snap.N "dump" answer of insn-plugin
 *   IOS        I/Os completed while the snapshot counted (> 0)
 *   -t N       also list the N functions that cost the most (default 0)
 *
 * Prints one line of key=value words, all per I/O (rounded):
 *   insn=TOTAL nic=... tgt=... user=... then tgt_* subdivisions
 * and with -t, one "FN" line per function: name, module, class, per I/O.
 *
 * Each counted block is charged to the symbol at or below its start address.
 * A snapshot line may carry owners ("ADDRESS COUNT MODULE=N ..."): N of the
 * block's instructions ran after MODULE's code (insn-plugin.c), so on its
 * behalf; a NIC or host module's share is charged to that class (the socket
 * buffers soft-RoCE allocates, zeroes and fills are the NIC's work), any
 * other owner's and the rest to the function's own class, except that a
 * NIC module's library code run for another owner is that owner's (RDMA
 * core): see owner_class().
 * Classes:
 *   user   user space (fio in a one-guest run)
 *   nic    what an RDMA NIC does in hardware: soft-RoCE (rdma_rxe), the
 *          CRCs, virtio-net and the UDP/IP/Ethernet code the packets cross
 *   host   the NVMe host driver (one-guest runs)
 *   tgt    everything else, which a real server's CPU would pay: the target
 *          (purlin, nvmet, nvmet_rdma), the RDMA core, the block layer and
 *          back end, the scheduler, workqueues, interrupts, filling and
 *          copying memory (mem), the rest (other)
 * Without owners the split is by function alone: the allocations of
 * soft-RoCE then count as tgt, so the tgt share of both targets holds the
 * same NIC work, which pulls a ratio of two tgt figures towards 1.  Owners
 * are approximate too: an interrupt's module owns the kernel code after it
 * until another module runs, even if it resumes another module's work.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cls { C_USER, C_NIC, C_HOST, C_TGT, C_N };

struct sym {
	uint64_t addr;
	char *name;
	char *mod;		/* "" for the kernel image */
	uint64_t count[C_N];	/* charged to each class */
};

/* A symbol's instructions of one class, for the list of the costliest. */
struct slice {
	struct sym *sym;
	enum cls cls;
	uint64_t count;
};

static struct sym *syms;
static size_t nsyms;

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int by_count(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	return x->count > y->count ? -1 : x->count < y->count;
}

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "insn-report: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(2);
}

static void load_kallsyms(const char *path)
{
	char line[1024], name[512], mod[256], type;
	size_t cap = 0;
	uint64_t a;
	FILE *f = fopen(path, "r");

	if (!f)
		fail("cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		if (sscanf(line, "%" SCNx64 " %c %511s [%255[^]]]", &a, &type, name, mod) < 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (nsyms == cap) {
			cap = cap ? 2 * cap : 65536;
			syms = realloc(syms, cap * sizeof(*syms));
			if (!syms)
				fail("out of memory%s", "");
		}
		syms[nsyms].addr = a;
		syms[nsyms].name = strdup(name);
		syms[nsyms].mod = strdup(mod);
		memset(syms[nsyms].count, 0, sizeof(syms[nsyms].count));
		if (!syms[nsyms].name || !syms[nsyms].mod)
			fail("out of memory%s", "");
		nsyms++;
	}
	fclose(f);
	if (!nsyms)
		fail("%s: no text symbols (was it read as root?)", path);
	if (syms[0].addr == 0)
		fail("%s: addresses are hidden (read it as root)", path);
	qsort(syms, nsyms, sizeof(*syms), by_addr);
}

/* The symbol at or below addr, or NULL. */
static struct sym *sym_at(uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	if (addr < syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &syms[lo];
}

static int has_prefix(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strncmp(s, *list, strlen(*list)))
			return 1;
	return 0;
}

static int is_in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

static const char *const nic_mods[] = {
	"rdma_rxe", "crc32_generic", "crc32c_generic", "crc32c_intel",
	"crc32_pclmul", "virtio_net", "virtio_ring", "virtio", "virtio_pci",
	"virtio_pci_modern_dev", "virtio_pci_legacy_dev", "net_failover",
	"failover", NULL
};
/* The network stack and virtio in the kernel image, by name. */
static const char *const nic_fns[] = {
	"udp", "__udp", "ip_", "__ip_", "ip4", "ipv4_", "ip6", "inet", "__inet",
	"eth_", "dev_queue_xmit", "__dev_queue_xmit", "dev_hard_start_xmit",
	"__dev_xmit", "dev_gro", "netif_", "__netif_", "napi_", "__napi_",
	"net_rx_action", "net_tx_action", "gro_", "skb_", "__skb_", "kfree_skb",
	"consume_skb", "__kfree_skb", "alloc_skb", "__alloc_skb", "build_skb",
	"__build_skb", "neigh_", "__neigh", "arp_", "validate_xmit", "sch_",
	"qdisc", "__qdisc", "pfifo", "fib_", "fib4", "rt_", "dst_", "nf_",
	"sk_", "__sk_", "sock_", "__sock_", "csum_", "__csum", "crc32", "__crc32",
	"crc_", "vring_", "virtqueue_", "vp_", "virtnet", "rps_", "__netdev_",
	"netdev_", "raw_local_deliver", "icmp", "xfrm", "__xfrm", "net_", NULL
};
static const char *const host_mods[] = {
	"nvme_rdma", "nvme_fabrics", "nvme_core", "nvme_keyring", "nvme_auth",
	"nvme", NULL
};
static const char *const target_mods[] = { "purlin", "nvmet", "nvmet_rdma", NULL };
static const char *const rdma_mods[] = { "ib_core", "rdma_cm", "ib_cm", "iw_cm", NULL };
static const char *const backend_mods[] = { "null_blk", "brd", "loop", NULL };
static const char *const block_fns[] = {
	"blk_", "__blk_", "bio_", "__bio_", "submit_bio", "__submit_bio", "bvec_",
	"blkcg_", "bdev_", "dd_", "kyber_", "bfq_", "mq_", NULL
};
static const char *const sched_fns[] = {
	"schedule", "__schedule", "pick_next", "put_prev", "set_next",
	"enqueue_", "dequeue_", "update_curr", "update_load", "update_cfs",
	"try_to_wake_up", "ttwu_", "wake_up", "__wake_up", "finish_task_switch",
	"__switch_to", "switch_mm", "check_preempt", "resched_", "select_task_rq",
	"select_idle", "prepare_task_switch", "psi_", "cpuacct_", "reweight",
	"place_entity", "yield", "do_sched_yield", "newidle", "load_balance",
	"sched_", "__sched", "task_tick", "account_", "__update", "cpufreq",
	"idle_", "do_idle", "cpuidle", "default_idle", "tick_nohz", NULL
};
static const char *const irq_fns[] = {
	"irq_", "__irq", "handle_", "do_softirq", "__do_softirq", "irq_exit",
	"asm_", "sysvec_", "common_interrupt", "__sysvec", "apic_", "x2apic",
	"lapic_", "hrtimer", "__hrtimer", "run_timer", "__run_timer", "tasklet",
	"raise_softirq", "__raise_softirq", "run_ksoftirqd", "smpboot_", "timer",
	"__timer", "native_apic", "ktime", "clockevents", "tick_", NULL
};
/*
 * Filling and copying memory: with init_on_alloc (Debian's default) every
 * allocation is zeroed here, so these hold the zeroing of the socket
 * buffers soft-RoCE and virtio-net allocate per packet as well as the
 * back end's copy of the data; by function they cannot be told apart.
 */
static const char *const mem_fns[] = {
	"memset", "__memset", "memcpy", "__memcpy", "memmove", "__memmove",
	"clear_page", "copy_page", "copy_mc_", NULL
};
static const char *const wq_fns[] = {
	"worker_thread", "process_one_work", "process_scheduled", "queue_work",
	"__queue_work", "insert_work", "kick_pool", "wq_", "kthread",
	"__kthread", "pwq_", "workqueue_", NULL
};

enum sub {
	S_TARGET, S_RDMA, S_BACKEND, S_BLOCK, S_SCHED, S_IRQ, S_WQ, S_MEM,
	S_OTHER, S_N
};
static const char *const sub_name[S_N] = {
	"target", "rdma", "backend", "block", "sched", "irq", "wq", "mem",
	"other"
};

/* The target's parts: by module for module code, by name for the kernel's. */
static const struct {
	const char *const *list;
	enum sub sub;
} mod_parts[] = {
	{ target_mods, S_TARGET }, { rdma_mods, S_RDMA }, { backend_mods, S_BACKEND },
}, fn_parts[] = {
	{ block_fns, S_BLOCK }, { sched_fns, S_SCHED }, { irq_fns, S_IRQ },
	{ wq_fns, S_WQ }, { mem_fns, S_MEM },
};

static enum cls class_of(const struct sym *s, enum sub *sub)
{
	size_t i;

	*sub = S_OTHER;
	if (*s->mod) {
		if (is_in(s->mod, nic_mods))
			return C_NIC;
		if (is_in(s->mod, host_mods))
			return C_HOST;
		for (i = 0; i < sizeof(mod_parts) / sizeof(mod_parts[0]); i++)
			if (is_in(s->mod, mod_parts[i].list)) {
				*sub = mod_parts[i].sub;
				break;
			}
		return C_TGT;
	}
	if (has_prefix(s->name, nic_fns))
		return C_NIC;
	for (i = 0; i < sizeof(fn_parts) / sizeof(fn_parts[0]); i++)
		if (has_prefix(s->name, fn_parts[i].list)) {
			*sub = fn_parts[i].sub;
			break;
		}
	return C_TGT;
}

static uint64_t cls_total[C_N], sub_total[S_N];

/* Charge n instructions of s to class c (sub-class su when the target's). */
static void charge(struct sym *s, enum cls c, enum sub su, uint64_t n)
{
	s->count[c] += n;
	cls_total[c] += n;
	if (c == C_TGT)
		sub_total[su] += n;
}

/*
 * The class of s's instructions run on behalf of module owner (a kernel
 * image function after that module's code): the NIC's and the host's
 * are theirs; any other owner leaves the function's own class.  Module
 * code has owners only where insn-plugin was told it is library code
 * (insn.libs): the caller's work.  A NIC driver's verbs called by the
 * target (soft-RoCE's poll_cq, post_send: what a hardware NIC's driver
 * runs on the CPU too) are then the target's, as RDMA core work.
 */
static enum cls owner_class(const struct sym *s, const char *owner, enum sub *su)
{
	enum cls c = class_of(s, su);

	if (is_in(owner, nic_mods))
		return C_NIC;
	if (is_in(owner, host_mods))
		return C_HOST;
	if (*s->mod && c == C_NIC) {
		*su = S_RDMA;
		return C_TGT;
	}
	return c;
}

/*
 * One snapshot line: "ADDRESS COUNT [MODULE=COUNT ...]"; the owners'
 * shares are charged by owner_class(), the rest by the function's class.
 * Returns COUNT.
 */
/* Owner counts beyond their block's count, clamped (charge_line()). */
static uint64_t owner_skew;

static uint64_t charge_line(char *line, const char *path, uint64_t *unknown)
{
	char *tok, *save = NULL, *eq;
	uint64_t a, n, rest, o;
	struct sym *s;
	enum sub su;
	enum cls c;

	tok = strtok_r(line, " \n", &save);
	if (!tok || sscanf(tok, "%" SCNx64, &a) != 1)
		fail("%s: malformed line", path);
	tok = strtok_r(NULL, " \n", &save);
	if (!tok || sscanf(tok, "%" SCNu64, &n) != 1)
		fail("%s: malformed line", path);
	if (a == 0) {
		cls_total[C_USER] += n;
		return n;
	}
	s = sym_at(a);
	if (!s) {
		*unknown += n;
		cls_total[C_TGT] += n;
		sub_total[S_OTHER] += n;
		return n;
	}
	rest = n;
	while ((tok = strtok_r(NULL, " \n", &save))) {
		eq = strchr(tok, '=');
		if (!eq || sscanf(eq + 1, "%" SCNu64, &o) != 1)
			fail("%s: malformed owner", path);
		/*
		 * The plugin reads a block's count before its owners' while
		 * the vCPU runs on: the owners may hold a block's worth more
		 * than the count.  Clamped, and said (owner_skew); more
		 * than 0.1 % of the snapshot is refused.
		 */
		if (o > rest) {
			owner_skew += o - rest;
			o = rest;
		}
		*eq = 0;
		c = owner_class(s, tok, &su);
		charge(s, c, su, o);
		rest -= o;
	}
	c = class_of(s, &su);
	charge(s, c, su, rest);
	return n;
}

int main(int argc, char **argv)
{
	static const char *const cname[C_N] = { "user", "nic", "host", "tgt" };
	uint64_t total = 0, claimed = 0, n, unknown = 0;
	struct slice *top;
	char line[8192];
	double ios;
	int topn = 0, i;
	size_t k, ntop = 0;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		topn = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc != 4)
		fail("usage: insn-report [-t N] KALLSYMS SNAPSHOT IOS%s", "");
	ios = strtod(argv[3], NULL);
	if (!(ios > 0))
		fail("IOS must be a positive number, not '%s'", argv[3]);
	load_kallsyms(argv[1]);
	f = fopen(argv[2], "r");
	if (!f)
		fail("cannot open %s", argv[2]);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "total %" SCNu64, &n) == 1) {
			claimed = n;
			continue;
		}
		total += charge_line(line, argv[2], &unknown);
	}
	fclose(f);
	if (total != claimed)
		fail("%s: the lines do not add up to its total (truncated?)", argv[2]);
	/* A few blocks of skew, not shares that were never counts. */
	if (owner_skew * 1000 > total)
		fail("%s: owners exceed their blocks' counts by more than 0.1 %% (malformed owner)",
		     argv[2]);
	printf("insn=%.0f user=%.0f nic=%.0f host=%.0f tgt=%.0f",
	       total / ios, cls_total[C_USER] / ios, cls_total[C_NIC] / ios,
	       cls_total[C_HOST] / ios, cls_total[C_TGT] / ios);
	for (i = 0; i < S_N; i++)
		printf(" tgt_%s=%.0f", sub_name[i], sub_total[i] / ios);
	printf(" unknown=%.0f\n", unknown / ios);
	if (owner_skew)
		fprintf(stderr, "insn-report: %s: %" PRIu64 " owner instructions beyond their blocks' counts, clamped (snapshot skew)\n",
			argv[2], owner_skew);
	if (!topn)
		return 0;
	top = malloc(nsyms * C_N * sizeof(*top));
	if (!top)
		fail("out of memory%s", "");
	for (k = 0; k < nsyms; k++)
		for (i = 0; i < C_N; i++)
			if (syms[k].count[i])
				top[ntop++] = (struct slice){ &syms[k], i, syms[k].count[i] };
	qsort(top, ntop, sizeof(*top), by_count);
	for (k = 0; k < ntop && k < (size_t)topn; k++) {
		struct sym *s = top[k].sym;
		enum sub su;

		/* A NIC module's library code charged to the target: RDMA core. */
		if (class_of(s, &su) == C_NIC)
			su = S_RDMA;
		printf("FN %s %s %s%s%s %.0f\n", s->name,
		       *s->mod ? s->mod : "vmlinux", cname[top[k].cls],
		       top[k].cls == C_TGT ? "/" : "",
		       top[k].cls == C_TGT ? sub_name[su] : "",
		       top[k].count / ios);
	}
	free(top);
	return 0;
}
