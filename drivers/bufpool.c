// SPDX-License-Identifier: GPL-2.0
/*
 * The data buffer pool: a fixed set of physically contiguous chunks
 * (PURLIN_CHUNK_SIZE each) allocated when the module loads.  Commands that
 * move data through a target-side buffer take whole chunks from it and give
 * them back when their response has been sent, so the I/O path never calls
 * the page allocator.  A request takes all the chunks it needs or none.
 *
 * Nobody may hold much of it on a peer's behalf:
 * - every take is charged to accounts (struct purlin_buf_acct): the queue's
 *   own and its controller's, or the one all discovery controllers share;
 *   a take that would put an account past its limit waits until chunks
 *   charged to that account come back;
 * - a take the pool itself cannot serve waits in a FIFO; returned chunks
 *   are set aside for the waiters in order (a grant), so a large request is
 *   never starved by a stream of small ones, and nobody takes chunks past a
 *   waiter;
 * - the transport bounds how long a command may hold chunks (finite RNR
 *   and transport retries, see rdma.c), so every chunk in use belongs to a
 *   command that completes, or whose queue is dropped, in bounded time.
 * Documentation/admin-guide.md ("Limits and hostile hosts") has the
 * formulas.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "purlin.h"

static struct {
	/* Guards everything here and every account's held and waiters. */
	spinlock_t lock;
	struct page **free;
	unsigned int nr_free;
	unsigned int nr_total;
	unsigned int promised;		/* free chunks granted to waiters */
	struct list_head waiters;	/* FIFO of purlin_buf_waiter */
} pool;

/* Shared by every discovery controller's queues. */
struct purlin_buf_acct purlin_disc_acct;

void purlin_buf_acct_init(struct purlin_buf_acct *a, unsigned int limit)
{
	a->held = 0;
	a->limit = max_t(unsigned int, limit, PURLIN_MAX_CHUNKS);
	INIT_LIST_HEAD(&a->waiters);
}

void purlin_buf_waiter_init(struct purlin_buf_waiter *w, work_func_t fn)
{
	INIT_LIST_HEAD(&w->entry);
	INIT_WORK(&w->work, fn);
	w->need = 0;
	w->granted = 0;
	w->on_pool = false;
	w->waits_on = NULL;
}

int purlin_bufpool_init(unsigned int megabytes)
{
	unsigned int min = 4 * PURLIN_MAX_CHUNKS;
	/*
	 * In 64 bits: megabytes << 20 wraps at 4096 MiB.  No more chunks
	 * than the machine has memory for are tried.
	 */
	u64 n64 = ((u64)megabytes << 20) >> (PAGE_SHIFT + PURLIN_CHUNK_ORDER);
	unsigned int n = min_t(u64, n64, totalram_pages() >> PURLIN_CHUNK_ORDER);

	if (n < min)
		n = min;
	spin_lock_init(&pool.lock);
	INIT_LIST_HEAD(&pool.waiters);
	pool.promised = 0;
	pool.free = kvcalloc(n, sizeof(*pool.free), GFP_KERNEL);
	if (!pool.free)
		return -ENOMEM;
	/*
	 * Compound pages: a file system's direct I/O may take a reference on
	 * any page of a chunk (the legacy fs/direct-io.c path, vfat's, does);
	 * on a plain high-order allocation a tail page's reference count would
	 * go 0 -> 1 -> 0 and free it under us.
	 */
	for (pool.nr_free = 0; pool.nr_free < n; pool.nr_free++) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_NOWARN |
					     __GFP_COMP, PURLIN_CHUNK_ORDER);

		if (!p)
			break;
		pool.free[pool.nr_free] = p;
	}
	if (pool.nr_free < min) {
		pool.nr_total = pool.nr_free;
		purlin_bufpool_exit();
		return -ENOMEM;
	}
	pool.nr_total = pool.nr_free;
	purlin_buf_acct_init(&purlin_disc_acct, PURLIN_DISC_POOL_SHARE(pool.nr_total));
	pr_info("data buffer pool: %u chunks of %lu KiB\n", pool.nr_total,
		PURLIN_CHUNK_SIZE >> 10);
	return 0;
}

void purlin_bufpool_exit(void)
{
	WARN_ON(pool.nr_free != pool.nr_total);
	WARN_ON(purlin_disc_acct.held);
	while (pool.nr_free)
		__free_pages(pool.free[--pool.nr_free], PURLIN_CHUNK_ORDER);
	kvfree(pool.free);
	pool.free = NULL;
}

unsigned int purlin_bufpool_total(void)
{
	return pool.nr_total;
}

static void purlin_wake_all(struct list_head *waiters)
{
	struct purlin_buf_waiter *w, *tmp;

	lockdep_assert_held(&pool.lock);
	list_for_each_entry_safe(w, tmp, waiters, entry) {
		list_del_init(&w->entry);
		w->waits_on = NULL;
		queue_work(purlin_wq, &w->work);
	}
}

/* Set free chunks aside for the waiters, first come first served. */
static void purlin_grant(void)
{
	struct purlin_buf_waiter *w, *tmp;
	unsigned int avail;

	lockdep_assert_held(&pool.lock);
	if (list_empty(&pool.waiters))
		return;
	avail = pool.nr_free - pool.promised;
	list_for_each_entry_safe(w, tmp, &pool.waiters, entry) {
		if (w->need > avail)
			break;
		avail -= w->need;
		pool.promised += w->need;
		w->granted = w->need;
		w->on_pool = false;
		list_del_init(&w->entry);
		queue_work(purlin_wq, &w->work);
	}
}

/*
 * Take w off whatever it waits on and give back what it was granted; the
 * waiters behind it in the pool's FIFO may fit now.
 */
static void purlin_unwait(struct purlin_buf_waiter *w)
{
	bool regrant = w->on_pool || w->granted;

	lockdep_assert_held(&pool.lock);
	list_del_init(&w->entry);
	w->on_pool = false;
	w->waits_on = NULL;
	pool.promised -= w->granted;
	w->granted = 0;
	if (regrant)
		purlin_grant();
}

/*
 * Fill sg (at least PURLIN_MAX_CHUNKS entries) with chunks covering len bytes,
 * charged to each of accts.  Returns the number of entries, or -EAGAIN when
 * an account is at its limit or the pool is short: w is then queued, and
 * its work runs when the caller should try again (with the same len).
 */
int purlin_bufpool_get(struct scatterlist *sg, u32 len,
		       struct purlin_buf_waiter *w,
		       struct purlin_buf_acct *const *accts, int nr_accts)
{
	unsigned int n = DIV_ROUND_UP(len, PURLIN_CHUNK_SIZE), i;
	unsigned long flags;
	int a;

	if (WARN_ON_ONCE(!len || n > PURLIN_MAX_CHUNKS))
		return -EINVAL;
	spin_lock_irqsave(&pool.lock, flags);
	for (a = 0; a < nr_accts; a++) {
		struct purlin_buf_acct *acct = accts[a];

		/*
		 * At its limit, or others already wait on it (nobody takes
		 * past them): wait for this account's own chunks, not the
		 * pool's; its waiters are all woken when they come back.  A
		 * waiter already on it keeps its place.
		 */
		if (acct->held + n <= acct->limit && list_empty(&acct->waiters))
			continue;
		if (w->waits_on != acct) {
			purlin_unwait(w);
			list_add_tail(&w->entry, &acct->waiters);
			w->waits_on = acct;
		}
		goto again;
	}
	if (w->granted >= n) {
		pool.promised -= w->granted;
		w->granted = 0;
	} else if (w->on_pool) {
		goto again;		/* keep its place in line */
	} else {
		/* (Nothing to undo when w waits for nothing: the usual case.) */
		if (w->waits_on || w->granted)
			purlin_unwait(w);
		if (!list_empty(&pool.waiters) ||
		    pool.nr_free - pool.promised < n) {
			w->need = n;
			w->on_pool = true;
			list_add_tail(&w->entry, &pool.waiters);
			goto again;
		}
	}
	for (a = 0; a < nr_accts; a++)
		accts[a]->held += n;
	sg_init_table(sg, n);
	for (i = 0; i < n; i++) {
		u32 part = min_t(u32, len, PURLIN_CHUNK_SIZE);

		sg_set_page(&sg[i], pool.free[--pool.nr_free], part, 0);
		len -= part;
	}
	/* What was granted and not used goes to the next in line. */
	purlin_grant();
	spin_unlock_irqrestore(&pool.lock, flags);
	return n;
again:
	spin_unlock_irqrestore(&pool.lock, flags);
	return -EAGAIN;
}

/* Give back chunks taken by purlin_bufpool_get() with the same accounts. */
void purlin_bufpool_put(struct scatterlist *sg, int nents,
			struct purlin_buf_acct *const *accts, int nr_accts)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&pool.lock, flags);
	for (i = 0; i < nents; i++)
		pool.free[pool.nr_free++] = sg_page(&sg[i]);
	for (i = 0; i < nr_accts; i++) {
		if (WARN_ON_ONCE(accts[i]->held < nents))
			accts[i]->held = 0;
		else
			accts[i]->held -= nents;
		if (!list_empty(&accts[i]->waiters))
			purlin_wake_all(&accts[i]->waiters);
	}
	/* Under the lock, so purlin_bufpool_cancel() is final. */
	purlin_grant();
	spin_unlock_irqrestore(&pool.lock, flags);
}

/* w waits for nothing any more and holds no grant once this returns. */
void purlin_bufpool_cancel(struct purlin_buf_waiter *w)
{
	unsigned long flags;

	spin_lock_irqsave(&pool.lock, flags);
	purlin_unwait(w);
	spin_unlock_irqrestore(&pool.lock, flags);
}

unsigned int purlin_bufpool_free_chunks(void)
{
	return READ_ONCE(pool.nr_free);
}
