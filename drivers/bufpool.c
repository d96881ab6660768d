// SPDX-License-Identifier: GPL-2.0
/*
 * The data buffer pool: a fixed set of physically contiguous chunks
 * (PRL_CHUNK_SIZE each) allocated when the module loads.  Commands that
 * move data through a target-side buffer take whole chunks from it and give
 * them back when their response has been sent, so the I/O path never calls
 * the page allocator.  A request takes all the chunks it needs or none; when
 * the pool is short the transport parks the request and retries when chunks
 * come back (purlin_bufpool_wait()).  Every chunk in use belongs to a
 * command that completes without needing more chunks (a response waiting
 * for send credits never waits behind a command waiting for chunks), and
 * no command needs more than the pool holds, so parked requests always
 * make progress.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "purlin.h"

static struct {
	spinlock_t lock;		/* guards free[], nr_free, waiters */
	struct page **free;
	unsigned int nr_free;
	unsigned int nr_total;
	struct list_head waiters;
} pool;

int purlin_bufpool_init(unsigned int megabytes)
{
	unsigned int n = (megabytes << 20) / PRL_CHUNK_SIZE;
	unsigned int min = 4 * PRL_MAX_CHUNKS;

	if (n < min)
		n = min;
	spin_lock_init(&pool.lock);
	INIT_LIST_HEAD(&pool.waiters);
	pool.free = kvcalloc(n, sizeof(*pool.free), GFP_KERNEL);
	if (!pool.free)
		return -ENOMEM;
	for (pool.nr_free = 0; pool.nr_free < n; pool.nr_free++) {
		struct page *p = alloc_pages(GFP_KERNEL | __GFP_NOWARN,
					     PRL_CHUNK_ORDER);

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
	pr_info("data buffer pool: %u chunks of %lu KiB\n", pool.nr_total,
		PRL_CHUNK_SIZE >> 10);
	return 0;
}

void purlin_bufpool_exit(void)
{
	WARN_ON(pool.nr_free != pool.nr_total);
	while (pool.nr_free)
		__free_pages(pool.free[--pool.nr_free], PRL_CHUNK_ORDER);
	kvfree(pool.free);
	pool.free = NULL;
}

/*
 * Fill sg (at least PRL_MAX_CHUNKS entries) with chunks covering len bytes.
 * Returns the number of entries, or -EAGAIN when the pool is short.
 */
int purlin_bufpool_get(struct scatterlist *sg, u32 len)
{
	unsigned int n = DIV_ROUND_UP(len, PRL_CHUNK_SIZE), i;
	unsigned long flags;

	if (WARN_ON_ONCE(!len || n > PRL_MAX_CHUNKS))
		return -EINVAL;
	spin_lock_irqsave(&pool.lock, flags);
	if (pool.nr_free < n) {
		spin_unlock_irqrestore(&pool.lock, flags);
		return -EAGAIN;
	}
	sg_init_table(sg, n);
	for (i = 0; i < n; i++) {
		u32 part = min_t(u32, len, PRL_CHUNK_SIZE);

		sg_set_page(&sg[i], pool.free[--pool.nr_free], part, 0);
		len -= part;
	}
	spin_unlock_irqrestore(&pool.lock, flags);
	return n;
}

void purlin_bufpool_put(struct scatterlist *sg, int nents)
{
	struct purlin_buf_waiter *w, *tmp;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&pool.lock, flags);
	for (i = 0; i < nents; i++)
		pool.free[pool.nr_free++] = sg_page(&sg[i]);
	/* Under the lock, so purlin_bufpool_cancel() is final. */
	list_for_each_entry_safe(w, tmp, &pool.waiters, entry) {
		list_del_init(&w->entry);
		queue_work(purlin_wq, &w->work);
	}
	spin_unlock_irqrestore(&pool.lock, flags);
}

/*
 * Ask for w->work to run the next time chunks are returned.  Returns false
 * (without waiting) if chunks came back meanwhile: the caller retries now.
 */
bool purlin_bufpool_wait(struct purlin_buf_waiter *w, u32 len)
{
	unsigned int n = DIV_ROUND_UP(len, PRL_CHUNK_SIZE);
	unsigned long flags;
	bool parked = false;

	spin_lock_irqsave(&pool.lock, flags);
	if (pool.nr_free < n) {
		if (list_empty(&w->entry))
			list_add_tail(&w->entry, &pool.waiters);
		parked = true;
	}
	spin_unlock_irqrestore(&pool.lock, flags);
	return parked;
}

void purlin_bufpool_cancel(struct purlin_buf_waiter *w)
{
	unsigned long flags;

	spin_lock_irqsave(&pool.lock, flags);
	list_del_init(&w->entry);
	spin_unlock_irqrestore(&pool.lock, flags);
}

unsigned int purlin_bufpool_free_chunks(void)
{
	return READ_ONCE(pool.nr_free);
}
