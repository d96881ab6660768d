// SPDX-License-Identifier: GPL-2.0
/*
 * Polled I/O queues (a port's param_cq_mode = poll): instead of the RDMA
 * core's completion workqueue, a polling thread per CPU owns the CQs of
 * the queues given to it and runs each command to completion itself:
 *
 *   prl_poller_fn()        the thread: passes while there is work, a
 *                          spin of up to poll_usecs (adapted to how
 *                          soon completions follow), then sleep
 *   prl_poller_halt()      within the spin, when nothing else may run on
 *                          the CPU: wait for the next interrupt in place
 *                          (module parameter poll_halt)
 *   prl_poll_pass()        one pass: every CQ reaped in batches, the
 *                          commands started under one block plug, then
 *                          the polled bios reaped (purlin_poll_bios()),
 *                          then what the pass deferred posted: one
 *                          receive and one send chain per queue
 *   prl_poller_coalesce()  after a pass that took commands, optionally
 *                          wait before the next one, so that commands
 *                          arriving meanwhile are answered together
 *                          (module parameter poll_coalesce_usecs)
 *   prl_poller_sleep()     arm every CQ; sleep unless something came
 *   prl_poll_cq_event()    a CQ's completion handler: wake the thread
 *
 * A queue is attached after its QP is created and before its first
 * receive is posted, and detached after the QP is drained, so its every
 * completion (the drain's included) is reaped by its poller.  Pollers are
 * created on first use and stop at module exit, when no queue is left.
 */
#define pr_fmt(fmt) "purlin: rdma: " fmt

#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>
#include <linux/tick.h>

#include "rdma.h"

/* Completions reaped from one CQ at a time. */
#define PRL_POLL_BATCH		16
/* Polled bios out and nothing done for this long: poll once a tick. */
#define PRL_POLL_BIO_SPIN_NS	(10 * NSEC_PER_MSEC)
/* Coalescing: the most credit, and the passes between probes without. */
#define PRL_COALESCE_CREDIT	8
#define PRL_COALESCE_PROBE	256
/* The longest hold: a probe delays one command in 256 by up to this. */
#define PRL_COALESCE_MAX_USECS	10000

struct prl_poller {
	struct purlin_poll_ctx ctx;	/* ctx.task: the polling thread */
	int cpu;
	/*
	 * Guards queues and spin_ns.  The thread holds it across each pass
	 * (commands may sleep there: it is a mutex); attach and detach wait
	 * for the pass to end.
	 */
	struct mutex lock;
	struct list_head queues;	/* prl_rdma_queue.poll_entry */
	unsigned int nr_queues;		/* prl_poll_lock */
	u64 spin_ns;			/* the largest of its queues' */
	u64 spin_cur;			/* adapted, up to spin_ns; thread only */
	int event;			/* a CQ event since the last look */
	/*
	 * halted: the thread is in prl_poller_halt()'s wait, where a wakeup
	 * cannot reach it (it is running): the event handler then kicks its
	 * CPU.  stopping: it must not wait there again (prl_poll_exit()).
	 * Each written before the other's side is read, with a full barrier
	 * between (the xchg of event on the handler's side).
	 */
	int halted;
	bool stopping;
	/*
	 * armed: every CQ was armed by prl_poller_halt() and none has
	 * reported a completion since (its event would have set event): a
	 * pass would find nothing, and a wait needs no arming.  Thread only.
	 */
	bool armed;
	/*
	 * Coalescing (prl_poller_coalesce()), thread only (hold_done: and
	 * hold_timer's callback).  credit: how far holds have recently paid
	 * (a hold pays when the pass after it takes two commands or more of
	 * one queue); judging: this pass follows a hold; pass_recvs: the
	 * most commands one queue gave the last pass; hold_timer ends a
	 * hold's wait in place.
	 */
	int credit;
	unsigned int since_probe;
	bool judging;
	unsigned int pass_recvs;
	bool pass_full;			/* a CQ gave a whole batch */
	int hold_done;			/* hold_timer fired */
	struct hrtimer hold_timer;
	/* Statistics; written by the thread only. */
	u64 wcs;			/* work completions reaped */
	u64 bios;			/* polled bios finished */
	u64 passes;
	u64 idle_passes;		/* passes that found nothing */
	u64 sleeps;
	u64 halts;			/* waits in place for an interrupt */
	u64 empty_wakes;		/* turns with CQs armed, no event: no pass */
	u64 sends;			/* responses posted at the end of a pass */
	u64 send_posts;			/* the ib_post_send() calls for them */
	u64 holds;			/* waits before a pass (coalescing) */
	u64 hold_hits;			/* ... after which a queue gave two or more */
};

/* Guards prl_pollers (one per possible CPU, created on first use). */
static DEFINE_MUTEX(prl_poll_lock);
static struct prl_poller **prl_pollers;

/*
 * poll_halt (opt-in): while spinning, a poller that is alone on its CPU
 * waits for the next interrupt in place (sti; hlt) instead of running a
 * spin loop, so the interrupt that brings a completion resumes it with no
 * context switch and no instructions spent spinning; when another task is
 * runnable on its CPU it sleeps at once instead of spinning.  The price:
 * each wait arms the CQs, so the completion that ends it interrupts (where
 * a spin loop needs none), and the CPU shows as busy while it waits.  Not on nohz_full
 * CPUs (no tick would end a wait).  x86 only.
 */
#ifdef CONFIG_X86
static bool prl_poll_halt;
module_param_named(poll_halt, prl_poll_halt, bool, 0644);
MODULE_PARM_DESC(poll_halt,
		 "Polling threads alone on their CPU wait for the next interrupt instead of spinning (default: off)");
#endif

/*
 * poll_coalesce_usecs (opt-in, 0 = off): after a pass that took commands,
 * a polling thread waits up to this long before its next pass, so that the
 * commands arriving meanwhile are started, and answered, together: the
 * hosts then receive responses in bursts, and take fewer interrupts per
 * I/O (their NICs moderate nothing for soft-RoCE), and each pass's own
 * cost is spread over more commands.  It adds up to this much latency to
 * a command that arrives during the wait, so it applies only while it
 * pays: a queue at depth 1 never has a second command to batch (its next
 * one waits for this response), and after a few holds that gathered at
 * most one command per queue the thread stops holding, trying again once
 * every PRL_COALESCE_PROBE passes that took commands.  A hold delays the
 * completions of the RDMA READs that fetch write data too.
 */
static unsigned int prl_coalesce_usecs;

static int prl_coalesce_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, PRL_COALESCE_MAX_USECS);
}

static const struct kernel_param_ops prl_coalesce_ops = {
	.set = prl_coalesce_set,
	.get = param_get_uint,
};
module_param_cb(poll_coalesce_usecs, &prl_coalesce_ops, &prl_coalesce_usecs, 0644);
MODULE_PARM_DESC(poll_coalesce_usecs,
		 "Polling threads wait up to this long after a pass that took commands, to answer the next ones together (0-10000, default 0: off)");

/* Does this thread wait in place (poll_halt, and not a nohz_full CPU)? */
static bool prl_poller_halting(void)
{
#ifdef CONFIG_X86
	return READ_ONCE(prl_poll_halt) &&
	       !tick_nohz_full_cpu(raw_smp_processor_id());
#else
	return false;
#endif
}

static void prl_poll_cq_event(struct ib_cq *cq, void *ctx)
{
	struct prl_poller *p = ctx;

	/* Set before the thread's check in prl_poller_sleep(): no lost wake. */
	if (xchg(&p->event, 1))
		return;
	wake_up_process(p->ctx.task);
	/* Halted on another CPU, running: only an interrupt there ends it. */
	if (READ_ONCE(p->halted))
		kick_process(p->ctx.task);
}

static void prl_poll_cq_error(struct ib_event *event, void *ctx)
{
	pr_err_ratelimited("polled CQ: %s (%d)\n", ib_event_msg(event->event),
			   event->event);
}

/* Reap up to a batch per CQ, every attached CQ; the completions reaped. */
static unsigned int prl_poll_pass(struct prl_poller *p, struct ib_wc *wcs)
{
	struct prl_rdma_queue *queue;
	struct blk_plug plug;
	unsigned int total = 0, recvs;
	int n, i;

	mutex_lock(&p->lock);
	p->ctx.in_pass = true;
	p->pass_recvs = 0;
	p->pass_full = false;
	blk_start_plug(&plug);
	list_for_each_entry(queue, &p->queues, poll_entry) {
		p->ctx.now = 0;		/* a new batch: the clock is read again */
		n = ib_poll_cq(queue->cq, PRL_POLL_BATCH, wcs);
		recvs = 0;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &wcs[i];

			/* (The opcode is valid on success only.) */
			if (wc->status == IB_WC_SUCCESS &&
			    wc->opcode == IB_WC_RECV)
				recvs++;
			if (likely(wc->wr_cqe))
				wc->wr_cqe->done(queue->cq, wc);
			else
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		if (n > 0)
			total += n;
		p->pass_recvs = max(p->pass_recvs, recvs);
		if (n == PRL_POLL_BATCH)
			p->pass_full = true;
	}
	/* The bios of this pass go to the device here, then are polled. */
	blk_finish_plug(&plug);
	p->wcs += total;
	if (p->ctx.nr_bios) {
		p->ctx.now = 0;
		n = purlin_poll_bios(&p->ctx);
		p->bios += n;
		total += n;
	}
	/* What the pass deferred: one receive and one send post per queue. */
	list_for_each_entry(queue, &p->queues, poll_entry) {
		if (!queue->batch_recv && !queue->batch_rsp)
			continue;
		n = prl_post_deferred(queue);
		if (n) {
			p->sends += n;
			p->send_posts++;
		}
	}
	p->ctx.in_pass = false;
	mutex_unlock(&p->lock);
	p->passes++;
	return total;
}

/* Arm every CQ; false if a completion came before it was armed. */
static bool prl_poller_arm(struct prl_poller *p)
{
	struct prl_rdma_queue *queue;
	bool missed = false;

	mutex_lock(&p->lock);
	list_for_each_entry(queue, &p->queues, poll_entry)
		if (ib_req_notify_cq(queue->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			missed = true;
	mutex_unlock(&p->lock);
	return !missed;
}

#ifdef CONFIG_X86
/*
 * Halt until the next interrupt on this CPU unless *flag is set or
 * anything else may run here: a task runnable or to be switched to, a
 * pending softirq, the thread's stop.  Interrupts stay off from that check
 * to the hlt, which sti's shadow makes atomic with it, so an interrupt
 * that sets the flag or wakes a task either comes before the check or
 * ends the halt.  False if it did not halt.
 */
static bool prl_poller_halt_unless(struct prl_poller *p, const int *flag)
{
	local_irq_disable();
	if (READ_ONCE(*flag) || READ_ONCE(p->stopping) || need_resched() ||
	    local_softirq_pending() || !single_task_running()) {
		local_irq_enable();
		return false;
	}
	safe_halt();
	return true;
}

/*
 * Wait in place for the next interrupt on this CPU: every CQ armed (a
 * completion then interrupts, on this CPU or by the handler's kick), and
 * only if nothing else is runnable here, no event came and no softirq is
 * pending (prl_poller_halt_unless()).  The tick bounds the wait (never
 * halted on a nohz_full CPU, prl_poller_spin()).
 */
static void prl_poller_halt(struct prl_poller *p)
{
	if (!p->armed) {
		if (!prl_poller_arm(p))
			return;
		p->armed = true;
	}
	WRITE_ONCE(p->halted, 1);
	smp_mb();	/* halted before event and stopping are read */
	if (prl_poller_halt_unless(p, &p->event))
		p->halts++;
	WRITE_ONCE(p->halted, 0);
}
#endif

/*
 * One step of a spin with nothing to do; false when the thread should
 * sleep now instead.  It gives way to anyone woken on this CPU; with
 * poll_halt it waits in place while alone on the CPU, and sleeps when not
 * (a task runnable here that did not preempt it would otherwise wait for
 * the tick while it spins).
 */
static bool prl_poller_spin(struct prl_poller *p)
{
	if (need_resched()) {
		schedule();
		return true;
	}
#ifdef CONFIG_X86
	if (prl_poller_halting()) {
		if (!single_task_running())
			return false;
		prl_poller_halt(p);
		return true;
	}
#endif
	cpu_relax();
	return true;
}

/*
 * Arm every CQ, and sleep unless a completion or event came meanwhile;
 * true if it slept.
 */
static bool prl_poller_sleep(struct prl_poller *p)
{
	bool slept = false;

	if (!prl_poller_arm(p))
		return false;
	set_current_state(TASK_IDLE);
	if (!xchg(&p->event, 0) && !kthread_should_stop()) {
		p->sleeps++;
		schedule();
		slept = true;
	}
	__set_current_state(TASK_RUNNING);
	return slept;
}

static enum hrtimer_restart prl_hold_timer_fn(struct hrtimer *t)
{
	struct prl_poller *p = container_of(t, struct prl_poller, hold_timer);

	/* The interrupt ends the wait in place; the flag ends the hold. */
	WRITE_ONCE(p->hold_done, 1);
	return HRTIMER_NORESTART;
}

/*
 * Wait up to ns without a pass: in place when alone on the CPU (the
 * timer's interrupt ends it), else spinning; earlier if anything else
 * wants the CPU.  Module exit waits for it (stopping is read before each
 * halt; at most ns).  False if it did not wait at all.
 */
static bool prl_poller_hold(struct prl_poller *p, u64 ns)
{
	u64 end = local_clock() + ns;
	bool waited = false;

	/* Not alone on the CPU: no hold (and no timer armed for nothing). */
	if (need_resched() || !single_task_running() || READ_ONCE(p->stopping))
		return false;
#ifdef CONFIG_X86
	/* A hold shorter than the timer's resolution: spin instead. */
	if (prl_poller_halting() && ns >= hrtimer_resolution) {
		WRITE_ONCE(p->hold_done, 0);
		hrtimer_start(&p->hold_timer, ns_to_ktime(ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
		while (prl_poller_halt_unless(p, &p->hold_done))
			waited = true;
		hrtimer_cancel(&p->hold_timer);
		return waited;
	}
#endif
	while (local_clock() < end && !need_resched() &&
	       single_task_running() && !kthread_should_stop()) {
		waited = true;
		cpu_relax();
	}
	return waited;
}

/*
 * Coalescing (poll_coalesce_usecs): called after every pass.  Judges the
 * hold before it, if any, and holds again after a pass that took commands
 * while holds pay, or as a probe once every PRL_COALESCE_PROBE such passes
 * when they have not.  Never with polled bios out (they complete only if
 * polled), nor after a pass that left completions in a CQ (a full batch:
 * they are there already).
 */
static void prl_poller_coalesce(struct prl_poller *p)
{
	u64 ns = (u64)READ_ONCE(prl_coalesce_usecs) * NSEC_PER_USEC;

	if (p->judging) {
		p->judging = false;
		if (p->pass_recvs >= 2) {
			p->hold_hits++;
			p->credit = min(p->credit + 2, PRL_COALESCE_CREDIT);
		} else if (p->credit > 0) {
			p->credit--;
		}
	}
	if (!ns || !p->pass_recvs || p->pass_full || p->ctx.nr_bios)
		return;
	if (p->credit <= 0 && p->since_probe < PRL_COALESCE_PROBE) {
		p->since_probe++;
		return;
	}
	/* (A probe that could not wait is tried again after the next pass.) */
	if (prl_poller_hold(p, ns)) {
		p->since_probe = 0;
		p->holds++;
		p->judging = true;
	}
}

/*
 * The spin adapts between 0 and the queues' poll_usecs: a sleep that ended
 * sooner than the budget (a spin would have caught that completion)
 * doubles it, a longer one halves it.  Sparse arrivals then cost no spin,
 * a steady stream never sleeps.
 */
static void prl_poller_adapt(struct prl_poller *p, u64 slept_ns)
{
	u64 max = READ_ONCE(p->spin_ns);

	if (slept_ns < max)
		p->spin_cur = min(max, 2 * p->spin_cur + NSEC_PER_USEC);
	else
		p->spin_cur /= 2;
}

static int prl_poller_fn(void *data)
{
	struct prl_poller *p = data;
	struct ib_wc wcs[PRL_POLL_BATCH];
	u64 idle_since = 0, now;
	unsigned int n;

	p->spin_cur = READ_ONCE(p->spin_ns);
	while (!kthread_should_stop()) {
		/*
		 * A wait in place ended by an interrupt that brought no
		 * completion (a timer, the network's own): nothing to reap,
		 * and the CQs are still armed.
		 */
		if (p->armed && !READ_ONCE(p->event) && prl_poller_halting()) {
			p->empty_wakes++;
			goto idle;
		}
		p->armed = false;
		WRITE_ONCE(p->event, 0);
		/*
		 * After a pass that found work, another at once: going
		 * straight to a wait in place instead (its arming reports
		 * what came meanwhile) halved the passes at qd 1 but armed
		 * the CQs under load, and qd 32 IOPS fell in wall clock
		 * (performance.md, change 7).
		 */
		n = prl_poll_pass(p, wcs);
		prl_poller_coalesce(p);
		if (n) {
			idle_since = 0;
			cond_resched();
			continue;
		}
		p->idle_passes++;
idle:
		now = local_clock();
		if (!idle_since)
			idle_since = now;
		/*
		 * A polled bio completes only if polled: no sleep while one is
		 * out, but after PRL_POLL_BIO_SPIN_NS without progress (a slow
		 * device, or bios that will complete by interrupt after all)
		 * poll once a tick.
		 */
		if (p->ctx.nr_bios) {
			if (now - idle_since > PRL_POLL_BIO_SPIN_NS)
				schedule_timeout_idle(1);
			else
				cond_resched();
			continue;
		}
		if (now - idle_since < min(p->spin_cur, READ_ONCE(p->spin_ns)) &&
		    prl_poller_spin(p))
			continue;
		/* The sleep takes the event (arming again): a pass follows. */
		p->armed = false;
		now = local_clock();
		if (prl_poller_sleep(p))
			prl_poller_adapt(p, local_clock() - now);
		idle_since = 0;
	}
	return 0;
}

/* Recompute the spin budget; caller holds p->lock. */
static void prl_poller_update_spin(struct prl_poller *p)
{
	struct prl_rdma_queue *queue;
	u64 ns = 0;

	lockdep_assert_held(&p->lock);
	list_for_each_entry(queue, &p->queues, poll_entry)
		ns = max_t(u64, ns, queue->poll_ns);
	WRITE_ONCE(p->spin_ns, ns);
}

static struct prl_poller *prl_poller_create(int cpu)
{
	struct prl_poller *p;

	lockdep_assert_held(&prl_poll_lock);
	p = kzalloc_node(sizeof(*p), GFP_KERNEL, cpu_to_node(cpu));
	if (!p)
		return NULL;
	p->cpu = cpu;
	mutex_init(&p->lock);
	INIT_LIST_HEAD(&p->queues);
	INIT_LIST_HEAD(&p->ctx.bios);
	purlin_hrtimer_setup(&p->hold_timer, prl_hold_timer_fn, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
	p->since_probe = PRL_COALESCE_PROBE;	/* the first pass probes */
	p->ctx.task = kthread_create_on_cpu(prl_poller_fn, p, cpu,
					    "purlin_poll/%u");
	if (IS_ERR(p->ctx.task)) {
		pr_err("cannot start a polling thread on CPU %d: %ld\n", cpu,
		       PTR_ERR(p->ctx.task));
		kfree(p);
		return NULL;
	}
	wake_up_process(p->ctx.task);
	return p;
}

/*
 * The CPUs a port's queues may be polled on: its poll_cpus, else the RDMA
 * device's NUMA node, else every CPU; only online ones.
 */
static void prl_poll_cpus(struct prl_rdma_queue *queue, struct cpumask *mask)
{
	struct purlin_port *port = queue->rport->port;
	struct ib_device *ib = queue->dev->ib;
	struct device *dma = ib->dma_device ? ib->dma_device : ib->dev.parent;
	int node = dma ? dev_to_node(dma) : NUMA_NO_NODE;

	if (!cpumask_empty(port->poll_cpus))
		cpumask_and(mask, port->poll_cpus, cpu_online_mask);
	else if (node != NUMA_NO_NODE)
		cpumask_and(mask, cpumask_of_node(node), cpu_online_mask);
	else
		cpumask_clear(mask);
	if (cpumask_empty(mask))
		cpumask_copy(mask, cpu_online_mask);
}

/*
 * Give the queue a CQ of its own on the least loaded poller of its port's
 * CPUs; the queue is attached (polled) from here on.  Process context.
 */
int prl_poll_attach(struct prl_rdma_queue *queue)
{
	struct ib_cq_init_attr attr = { .cqe = queue->nr_cqe };
	struct prl_poller *p = NULL;
	cpumask_var_t mask;
	struct ib_cq *cq;
	int cpu, ret = 0;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	prl_poll_cpus(queue, mask);
	/* Pick and count ourselves in; never wait for a pass under it. */
	mutex_lock(&prl_poll_lock);
	for_each_cpu(cpu, mask) {
		struct prl_poller *c = prl_pollers[cpu];

		if (!c) {
			p = NULL;
			break;
		}
		if (!p || c->nr_queues < p->nr_queues)
			p = c;
	}
	if (!p) {
		/* The first CPU of the mask without a poller gets one. */
		for_each_cpu(cpu, mask)
			if (!prl_pollers[cpu])
				break;
		p = prl_pollers[cpu] = prl_poller_create(cpu);
	}
	if (p)
		p->nr_queues++;
	mutex_unlock(&prl_poll_lock);
	free_cpumask_var(mask);
	if (!p)
		return -ENOMEM;

	attr.comp_vector = p->cpu % queue->dev->ib->num_comp_vectors;
	cq = ib_create_cq(queue->dev->ib, prl_poll_cq_event, prl_poll_cq_error,
			  p, &attr);
	ret = PTR_ERR_OR_ZERO(cq);
	if (!ret) {
		ret = ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
		if (ret)
			ib_destroy_cq(cq);
	}
	if (ret) {
		mutex_lock(&prl_poll_lock);
		p->nr_queues--;
		mutex_unlock(&prl_poll_lock);
		return ret;
	}
	queue->cq = cq;
	queue->poller = p;
	queue->poll_ctx = &p->ctx;
	mutex_lock(&p->lock);
	list_add_tail(&queue->poll_entry, &p->queues);
	prl_poller_update_spin(p);
	mutex_unlock(&p->lock);
	/* A completion may have come before the queue was listed. */
	prl_poll_cq_event(cq, p);
	return 0;
}

/*
 * Take the queue off its poller and destroy its CQ.  After the QP is
 * drained (nothing more completes) and destroyed; process context, never
 * the poller itself.
 */
void prl_poll_detach(struct prl_rdma_queue *queue)
{
	struct prl_poller *p = queue->poller;

	if (!p)
		return;
	mutex_lock(&p->lock);
	list_del(&queue->poll_entry);
	prl_poller_update_spin(p);
	mutex_unlock(&p->lock);
	mutex_lock(&prl_poll_lock);
	p->nr_queues--;
	mutex_unlock(&prl_poll_lock);
	ib_destroy_cq(queue->cq);
	queue->cq = NULL;
	queue->poller = NULL;
	queue->poll_ctx = NULL;
}

/* One line per polling thread, for tests and administrators. */
static int prl_pollers_get(char *buf, const struct kernel_param *kp)
{
	int cpu, len = 0;

	mutex_lock(&prl_poll_lock);
	for (cpu = 0; prl_pollers && cpu < nr_cpu_ids; cpu++) {
		struct prl_poller *p = prl_pollers[cpu];

		if (!p)
			continue;
		len += sysfs_emit_at(buf, len,
				     "cpu=%d queues=%u wcs=%llu bios=%llu bio_polls=%llu bio_punts=%llu passes=%llu idle_passes=%llu sleeps=%llu halts=%llu empty_wakes=%llu sends=%llu send_posts=%llu holds=%llu hold_hits=%llu\n",
				     cpu, p->nr_queues, READ_ONCE(p->wcs),
				     READ_ONCE(p->bios),
				     READ_ONCE(p->ctx.bio_polls),
				     READ_ONCE(p->ctx.bio_punts),
				     READ_ONCE(p->passes),
				     READ_ONCE(p->idle_passes),
				     READ_ONCE(p->sleeps),
				     READ_ONCE(p->halts),
				     READ_ONCE(p->empty_wakes),
				     READ_ONCE(p->sends),
				     READ_ONCE(p->send_posts),
				     READ_ONCE(p->holds),
				     READ_ONCE(p->hold_hits));
	}
	mutex_unlock(&prl_poll_lock);
	return len;
}

static const struct kernel_param_ops prl_pollers_ops = {
	.set = purlin_param_read_only,
	.get = prl_pollers_get,
};
module_param_cb(pollers, &prl_pollers_ops, NULL, 0444);
MODULE_PARM_DESC(pollers, "Polling threads and their counters (read-only)");

int prl_poll_init(void)
{
	prl_pollers = kcalloc(nr_cpu_ids, sizeof(*prl_pollers), GFP_KERNEL);
	return prl_pollers ? 0 : -ENOMEM;
}

/* Every queue is gone: stop the threads. */
void prl_poll_exit(void)
{
	struct prl_poller **pollers;
	int cpu;

	/* A reader of the pollers parameter may still be about. */
	mutex_lock(&prl_poll_lock);
	pollers = prl_pollers;
	prl_pollers = NULL;
	mutex_unlock(&prl_poll_lock);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct prl_poller *p = pollers[cpu];

		if (!p)
			continue;
		WARN_ON(p->nr_queues || p->ctx.nr_bios);
		/* Out of a wait in place, and no other (a wakeup is not seen). */
		WRITE_ONCE(p->stopping, true);
		prl_poll_cq_event(NULL, p);
		kthread_stop(p->ctx.task);
		kfree(p);
	}
	kfree(pollers);
}
