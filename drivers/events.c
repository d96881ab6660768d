// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous event notifications.  Hosts keep up to PURLIN_AERL Async
 * Event Requests outstanding on the admin queue; an event completes one
 * with its type, information and log page in dword 0.  Events that find
 * no AER waiting are kept (at most PURLIN_AERL, duplicates merged) and sent
 * when the next AER arrives.
 *
 * Namespace Attribute Changed: a namespace was enabled, disabled or
 * resized.  Its nsid joins the controller's Changed Namespace List, and no
 * further such event is sent until the host reads that log.
 * Discovery Log Change: sent to discovery controllers whenever what the
 * discovery log could show changes.
 * Reservation Log Page Available: a reservation notice (resv.c) joined the
 * controller's Reservation Notification log; no further such event is sent
 * until the host reads that log.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include "purlin.h"

static u32 purlin_aen_result(u8 type, u8 info, u8 lid)
{
	return type | info << 8 | lid << 16;
}

/* Caller holds ctrl->lock.  Returns the AER to complete, if any. */
static struct purlin_req *purlin_event_locked(struct purlin_ctrl *ctrl,
					      u32 result)
{
	int i;

	lockdep_assert_held(&ctrl->lock);
	if (ctrl->nr_aer) {
		struct purlin_req *req = ctrl->aer_reqs[--ctrl->nr_aer];

		purlin_req_set_result(req, result);
		return req;
	}
	for (i = 0; i < ctrl->nr_pending_events; i++)
		if (ctrl->pending_events[i] == result)
			return NULL;
	if (ctrl->nr_pending_events < PURLIN_AERL)
		ctrl->pending_events[ctrl->nr_pending_events++] = result;
	return NULL;
}

void purlin_ctrl_event(struct purlin_ctrl *ctrl, u32 result)
{
	struct purlin_req *req;

	mutex_lock(&ctrl->lock);
	req = ctrl->fatal ? NULL : purlin_event_locked(ctrl, result);
	mutex_unlock(&ctrl->lock);
	if (req)
		purlin_req_complete(req, 0);
}

/* A new AER: answer it with a kept event, or hold it. */
void purlin_aer_queue(struct purlin_ctrl *ctrl, struct purlin_req *req)
{
	u32 result;

	mutex_lock(&ctrl->lock);
	if (ctrl->nr_pending_events) {
		result = ctrl->pending_events[0];
		memmove(&ctrl->pending_events[0], &ctrl->pending_events[1],
			--ctrl->nr_pending_events * sizeof(u32));
		mutex_unlock(&ctrl->lock);
		purlin_req_set_result(req, result);
		purlin_req_complete(req, 0);
		return;
	}
	if (ctrl->nr_aer == PURLIN_AERL) {
		mutex_unlock(&ctrl->lock);
		purlin_req_complete(req, NVME_SC_ASYNC_LIMIT | PURLIN_DNR);
		return;
	}
	ctrl->aer_reqs[ctrl->nr_aer++] = req;
	mutex_unlock(&ctrl->lock);
}

/* Caller holds ctrl->lock. */
static void purlin_add_changed_ns(struct purlin_ctrl *ctrl, u32 nsid)
{
	u32 i;

	lockdep_assert_held(&ctrl->lock);
	if (ctrl->nr_changed_ns == 1 && ctrl->changed_ns[0] == 0xffffffff)
		return;
	for (i = 0; i < ctrl->nr_changed_ns; i++)
		if (ctrl->changed_ns[i] == nsid)
			return;
	if (ctrl->nr_changed_ns == NVME_MAX_CHANGED_NAMESPACES) {
		ctrl->changed_ns[0] = 0xffffffff;
		ctrl->nr_changed_ns = 1;
		return;
	}
	ctrl->changed_ns[ctrl->nr_changed_ns++] = nsid;
}

/* Tell every controller of the subsystem that namespace nsid changed. */
void purlin_subsys_ns_changed(struct purlin_subsys *subsys, u32 nsid)
{
	u32 result = purlin_aen_result(NVME_AER_NOTICE,
				       NVME_AER_NOTICE_NS_CHANGED,
				       NVME_LOG_CHANGED_NS);
	struct purlin_req *req;
	struct purlin_ctrl *ctrl;

	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry) {
		req = NULL;
		mutex_lock(&ctrl->lock);
		purlin_add_changed_ns(ctrl, nsid);
		if (!ctrl->fatal && !ctrl->ns_aen_masked &&
		    (ctrl->aen_enabled & NVME_AEN_CFG_NS_ATTR)) {
			ctrl->ns_aen_masked = true;
			req = purlin_event_locked(ctrl, result);
		}
		mutex_unlock(&ctrl->lock);
		if (req)
			purlin_req_complete(req, 0);
	}
	mutex_unlock(&subsys->lock);
}

/*
 * Copy the Changed Namespace List into list (NVME_MAX_CHANGED_NAMESPACES
 * entries, zero-filled); unless retain, clear it and allow the next event.
 */
u32 purlin_take_changed_ns(struct purlin_ctrl *ctrl, __le32 *list,
			   bool retain)
{
	u32 i, n;

	mutex_lock(&ctrl->lock);
	n = ctrl->nr_changed_ns;
	for (i = 0; i < n; i++)
		list[i] = cpu_to_le32(ctrl->changed_ns[i]);
	if (!retain) {
		ctrl->nr_changed_ns = 0;
		ctrl->ns_aen_masked = false;
	}
	mutex_unlock(&ctrl->lock);
	return n;
}

/* The discovery log changed: tell discovery controllers that asked. */
void purlin_disc_log_changed(void)
{
	u32 result = purlin_aen_result(NVME_AER_NOTICE,
				       NVME_AER_NOTICE_DISC_CHANGED,
				       NVME_LOG_DISC);
	struct purlin_subsys *disc = purlin_disc_subsys;
	struct purlin_ctrl *ctrl;

	mutex_lock(&disc->lock);
	list_for_each_entry(ctrl, &disc->ctrls, entry)
		if (READ_ONCE(ctrl->aen_enabled) & NVME_AEN_CFG_DISC_CHANGE)
			purlin_ctrl_event(ctrl, result);
	mutex_unlock(&disc->lock);
}

/*
 * Caller holds ctrl->lock.  Keep a notice; a full log loses it (the count
 * still moves, so the host sees the gap).
 */
static void purlin_add_resv_notice(struct purlin_ctrl *ctrl, u32 nsid, u8 type)
{
	struct purlin_resv_notice *n;

	lockdep_assert_held(&ctrl->lock);
	if (!++ctrl->resv_log_count)
		ctrl->resv_log_count = 1;
	if (ctrl->nr_resv_log == PURLIN_RESV_LOG_SLOTS)
		return;
	n = &ctrl->resv_log[ctrl->nr_resv_log++];
	n->count = ctrl->resv_log_count;
	n->nsid = nsid;
	n->type = type;
}

/*
 * A reservation notice of type for the host hostid about namespace nsid:
 * to each of the host's controllers of the subsystem that does not mask it.
 */
void purlin_resv_event(struct purlin_subsys *subsys, u32 nsid,
		       const uuid_t *hostid, u8 type)
{
	u32 result = purlin_aen_result(NVME_AER_CSS, 0, NVME_LOG_RESERVATION);
	struct purlin_ctrl *ctrl;
	struct purlin_req *req;

	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry) {
		if (!uuid_equal(&ctrl->hostid, hostid))
			continue;
		req = NULL;
		mutex_lock(&ctrl->lock);
		if (!ctrl->fatal && !(ctrl->resv_mask[nsid] & (1 << type))) {
			purlin_add_resv_notice(ctrl, nsid, type);
			if (!ctrl->resv_aen_masked) {
				ctrl->resv_aen_masked = true;
				req = purlin_event_locked(ctrl, result);
			}
		}
		mutex_unlock(&ctrl->lock);
		if (req)
			purlin_req_complete(req, 0);
	}
	mutex_unlock(&subsys->lock);
}

/*
 * Take the oldest reservation notice (false: none), with how many are left;
 * unless retain, the next notice may send an event again.
 */
bool purlin_take_resv_notice(struct purlin_ctrl *ctrl,
			     struct purlin_resv_notice *out, u32 *left,
			     bool retain)
{
	bool found;

	mutex_lock(&ctrl->lock);
	found = ctrl->nr_resv_log;
	if (found) {
		*out = ctrl->resv_log[0];
		memmove(&ctrl->resv_log[0], &ctrl->resv_log[1],
			--ctrl->nr_resv_log * sizeof(ctrl->resv_log[0]));
		*left = ctrl->nr_resv_log;
	}
	if (!retain)
		ctrl->resv_aen_masked = false;
	mutex_unlock(&ctrl->lock);
	return found;
}
