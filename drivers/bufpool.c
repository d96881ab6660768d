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
 *
 * A queue's stash (struct purlin_buf_stash) keeps the chunks of its
 * one-chunk puts for its next one-chunk gets, a few of them, with neither
 * the lock nor the accounts: they stay charged to the queue's accounts.
 * Nobody waits behind a stash: a put stashes nothing while anyone waits on
 * its accounts or the pool (or holds a grant), and whoever starts waiting
 * takes back what is stashed against what it waits on
 * (purlin_stash_reclaim()); the two sides meet through full barriers (the
 * put's cmpxchg and the reclaim's xchg), so one of them always sees the
 * other, and a put that stashed as a waiter came takes its chunk back.
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
	struct list_head stashes;	/* open purlin_buf_stash */
} pool;

enum {
	PURLIN_STASH_NEW,		/* opens at its first one-chunk put */
	PURLIN_STASH_OPEN,
	PURLIN_STASH_CLOSED,		/* for good: its queue is going */
};

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
	INIT_LIST_HEAD(&pool.stashes);
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

/* Wake every waiter of the list but skip (NULL: every one). */
static void purlin_wake_all_but(struct list_head *waiters,
				struct purlin_buf_waiter *skip)
{
	struct purlin_buf_waiter *w, *tmp;

	lockdep_assert_held(&pool.lock);
	list_for_each_entry_safe(w, tmp, waiters, entry) {
		if (w == skip)
			continue;
		list_del_init(&w->entry);
		WRITE_ONCE(w->waits_on, NULL);
		queue_work(purlin_wq, &w->work);
	}
}

static void purlin_wake_all(struct list_head *waiters)
{
	purlin_wake_all_but(waiters, NULL);
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
		/* Read first without the lock (purlin_waits_for_nothing()). */
		smp_store_release(&w->on_pool, false);
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
	WRITE_ONCE(w->on_pool, false);
	WRITE_ONCE(w->waits_on, NULL);
	pool.promised -= w->granted;
	WRITE_ONCE(w->granted, 0);
	if (regrant)
		purlin_grant();
}

/*
 * A chunk back in the pool, no longer charged to accts; wakes their
 * waiters but skip (the caller's, which keeps its place).
 */
static void purlin_return_chunk(struct page *page,
				struct purlin_buf_acct *const *accts,
				int nr_accts, struct purlin_buf_waiter *skip)
{
	int i;

	lockdep_assert_held(&pool.lock);
	pool.free[pool.nr_free++] = page;
	for (i = 0; i < nr_accts; i++) {
		if (WARN_ON_ONCE(!accts[i]->held))
			continue;
		accts[i]->held--;
		if (!list_empty(&accts[i]->waiters))
			purlin_wake_all_but(&accts[i]->waiters, skip);
	}
}

/* Every chunk of stash back to the pool; how many there were. */
static unsigned int purlin_stash_empty(struct purlin_buf_stash *stash,
				       struct purlin_buf_waiter *skip)
{
	unsigned int n = 0;
	struct page *page;
	int i;

	lockdep_assert_held(&pool.lock);
	for (i = 0; i < PURLIN_STASH_SLOTS; i++) {
		if (!READ_ONCE(stash->pages[i]))
			continue;	/* (a put that fills it now sees the waiter) */
		page = xchg(&stash->pages[i], NULL);
		if (page) {
			purlin_return_chunk(page, stash->accts, 2, skip);
			n++;
		}
	}
	return n;
}

/*
 * w has just started waiting on acct (NULL: on the pool; w is listed
 * there, so no put stashes from now on): the chunks stashed against it
 * come back.  Their accounts' other waiters are woken, w is not (it
 * keeps its place; its caller looks again).  How many came back.
 */
static unsigned int purlin_stash_reclaim(struct purlin_buf_acct *acct,
					 struct purlin_buf_waiter *w)
{
	struct purlin_buf_stash *stash;
	unsigned int n = 0;

	lockdep_assert_held(&pool.lock);
	list_for_each_entry(stash, &pool.stashes, entry)
		if (!acct || stash->accts[0] == acct || stash->accts[1] == acct)
			n += purlin_stash_empty(stash, w);
	return n;
}

/*
 * Does w wait for nothing and hold no grant?  Without the lock: only w's
 * own (serialized) caller makes it wait; a grant sets granted before it
 * releases on_pool.
 */
static bool purlin_waits_for_nothing(struct purlin_buf_waiter *w)
{
	/* Acquire: pairs with purlin_grant()'s release of on_pool. */
	return !smp_load_acquire(&w->on_pool) && !READ_ONCE(w->granted) &&
	       !READ_ONCE(w->waits_on);
}

/* Nobody waits on accts or the pool, nor holds a grant it has yet to take. */
static bool purlin_nobody_waits(struct purlin_buf_acct *const *accts)
{
	return list_empty_careful(&pool.waiters) && !READ_ONCE(pool.promised) &&
	       list_empty_careful(&accts[0]->waiters) &&
	       list_empty_careful(&accts[1]->waiters);
}

/* Is stash open, and for these accounts?  (Acquire: then accts are set.) */
static bool purlin_stash_usable(struct purlin_buf_stash *stash,
				struct purlin_buf_acct *const *accts,
				int nr_accts)
{
	if (!stash || nr_accts != 2)
		return false;
	/* Acquire: pairs with the release that opens it (bufpool_put). */
	return smp_load_acquire(&stash->state) == PURLIN_STASH_OPEN &&
	       stash->accts[0] == accts[0] && stash->accts[1] == accts[1];
}

void purlin_buf_stash_init(struct purlin_buf_stash *stash)
{
	memset(stash->pages, 0, sizeof(stash->pages));
	stash->state = PURLIN_STASH_NEW;
	stash->accts[0] = NULL;
	stash->accts[1] = NULL;
	INIT_LIST_HEAD(&stash->entry);
}

/*
 * The stash's queue is going: its chunks go back and it keeps nothing
 * more.  Before the queue's accounts can go (the controller's with the
 * last of its queues): puts that race with this give their chunk back.
 */
void purlin_buf_stash_close(struct purlin_buf_stash *stash)
{
	unsigned long flags;

	spin_lock_irqsave(&pool.lock, flags);
	if (stash->state == PURLIN_STASH_OPEN) {
		list_del_init(&stash->entry);
		WRITE_ONCE(stash->state, PURLIN_STASH_CLOSED);
		purlin_stash_empty(stash, NULL);
		purlin_grant();
	} else {
		WRITE_ONCE(stash->state, PURLIN_STASH_CLOSED);
	}
	spin_unlock_irqrestore(&pool.lock, flags);
}

/*
 * Fill sg (at least PURLIN_MAX_CHUNKS entries) with chunks covering len bytes,
 * charged to each of accts.  Returns the number of entries, or -EAGAIN when
 * an account is at its limit or the pool is short: w is then queued, and
 * its work runs when the caller should try again (with the same len).
 */
int purlin_bufpool_get(struct scatterlist *sg, u32 len,
		       struct purlin_buf_waiter *w,
		       struct purlin_buf_acct *const *accts, int nr_accts,
		       struct purlin_buf_stash *stash)
{
	unsigned int n = DIV_ROUND_UP(len, PURLIN_CHUNK_SIZE), i;
	unsigned long flags;
	struct page *page;
	int a;

	if (WARN_ON_ONCE(!len || n > PURLIN_MAX_CHUNKS))
		return -EINVAL;
	/*
	 * The stash, if w waits for nothing (only its caller, which is
	 * serialized, makes it wait): the chunk is charged already.
	 */
	if (n == 1 && purlin_waits_for_nothing(w) &&
	    purlin_stash_usable(stash, accts, nr_accts)) {
		for (i = 0; i < PURLIN_STASH_SLOTS; i++) {
			if (!READ_ONCE(stash->pages[i]))
				continue;
			page = xchg(&stash->pages[i], NULL);
			if (page) {
				sg_init_table(sg, 1);
				sg_set_page(sg, page, len, 0);
				return 1;
			}
		}
	}
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
			/*
			 * Chunks stashed against acct may be all that is in
			 * the way: w goes on if they were (their return woke
			 * every other waiter of acct, which take their
			 * chances with it, as waiters woken by a put do).
			 */
			if (purlin_stash_reclaim(acct, w)) {
				purlin_grant();
				if (acct->held + n <= acct->limit) {
					list_del_init(&w->entry);
					w->waits_on = NULL;
					continue;
				}
			}
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
			/* (The grant may serve w at once: its work retries.) */
			if (purlin_stash_reclaim(NULL, NULL))
				purlin_grant();
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

/*
 * Keep page in stash, if open for accts and nobody waits; false if not
 * kept.  Once it is in, waiters or a close that came meanwhile are looked
 * for again (after the cmpxchg's full barrier): the chunk is then taken
 * back, by them or here.
 */
static bool purlin_stash_put(struct purlin_buf_stash *stash, struct page *page,
			     struct purlin_buf_acct *const *accts, int nr_accts)
{
	unsigned long flags;
	int i;

	if (!purlin_stash_usable(stash, accts, nr_accts) ||
	    !purlin_nobody_waits(accts))
		return false;
	for (i = 0; i < PURLIN_STASH_SLOTS; i++)
		if (!READ_ONCE(stash->pages[i]) &&
		    !cmpxchg(&stash->pages[i], NULL, page))
			break;
	if (i == PURLIN_STASH_SLOTS)
		return false;		/* full */
	if (likely(READ_ONCE(stash->state) == PURLIN_STASH_OPEN &&
		   purlin_nobody_waits(accts)))
		return true;
	/* (Or another: any of them is charged to the same accounts.) */
	page = xchg(&stash->pages[i], NULL);
	if (page) {
		spin_lock_irqsave(&pool.lock, flags);
		purlin_return_chunk(page, accts, nr_accts, NULL);
		purlin_grant();
		spin_unlock_irqrestore(&pool.lock, flags);
	}
	return true;
}

/*
 * Give back chunks taken by purlin_bufpool_get() with the same accounts
 * and stash.
 */
void purlin_bufpool_put(struct scatterlist *sg, int nents,
			struct purlin_buf_acct *const *accts, int nr_accts,
			struct purlin_buf_stash *stash)
{
	unsigned long flags;
	int i;

	if (nents == 1 && purlin_stash_put(stash, sg_page(sg), accts, nr_accts))
		return;
	spin_lock_irqsave(&pool.lock, flags);
	/* A queue's stash opens with its first one-chunk put. */
	if (stash && nents == 1 && nr_accts == 2 &&
	    stash->state == PURLIN_STASH_NEW) {
		stash->accts[0] = accts[0];
		stash->accts[1] = accts[1];
		list_add(&stash->entry, &pool.stashes);
		/* Release: accts before the open state, for the lockless readers. */
		smp_store_release(&stash->state, PURLIN_STASH_OPEN);
	}
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

/* Free chunks, stashed ones included (they are held by no command). */
unsigned int purlin_bufpool_free_chunks(void)
{
	struct purlin_buf_stash *stash;
	unsigned long flags;
	unsigned int n;
	int i;

	spin_lock_irqsave(&pool.lock, flags);
	n = pool.nr_free;
	list_for_each_entry(stash, &pool.stashes, entry)
		for (i = 0; i < PURLIN_STASH_SLOTS; i++)
			if (READ_ONCE(stash->pages[i]))
				n++;
	spin_unlock_irqrestore(&pool.lock, flags);
	return n;
}
