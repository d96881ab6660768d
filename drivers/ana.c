// SPDX-License-Identifier: GPL-2.0
/*
 * Asymmetric Namespace Access.  Each namespace belongs to an ANA group
 * (ana_grpid, default 1); each port gives every group it knows a state
 * (ports/<id>/ana_groups/<grpid>/ana_state; group 1 always exists,
 * optimized).  I/O through a port that has the namespace's group
 * inaccessible, in persistent loss or in change fails with the matching
 * ANA status, so hosts with native multipath move to another path.  The
 * ANA log page reports the groups of the asking controller's port; any
 * change raises an ANA Change event on the controllers concerned.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/slab.h>

#include "purlin.h"

/* Bumped on every ANA state or membership change; cfg_sem for writers. */
static atomic64_t purlin_ana_chgcnt = ATOMIC64_INIT(1);

/* A group the port does not know is inaccessible through it. */
static u8 purlin_ana_state(struct purlin_port *port, u32 grpid)
{
	return READ_ONCE(port->ana_state[grpid]) ?: NVME_ANA_INACCESSIBLE;
}

/* The ANA status an I/O command gets through this port, or 0. */
u16 purlin_ana_check(struct purlin_port *port, struct purlin_ns *ns)
{
	switch (purlin_ana_state(port, READ_ONCE(ns->anagrpid))) {
	case NVME_ANA_INACCESSIBLE:
		return NVME_SC_ANA_INACCESSIBLE;
	case NVME_ANA_PERSISTENT_LOSS:
		return NVME_SC_ANA_PERSISTENT_LOSS;
	case NVME_ANA_CHANGE:
		return NVME_SC_ANA_TRANSITION;
	default:
		return 0;
	}
}

/* Is any enabled namespace of the subsystem in group grpid? */
static bool purlin_ana_group_used(struct purlin_subsys *subsys, u32 grpid)
{
	struct purlin_ns *ns;
	unsigned long idx;
	bool used = false;

	rcu_read_lock();
	xa_for_each(&subsys->namespaces, idx, ns) {
		if (READ_ONCE(ns->anagrpid) == grpid) {
			used = true;
			break;
		}
	}
	rcu_read_unlock();
	return used;
}

/*
 * The ANA log of the controller's port: a descriptor per group the port
 * knows or a namespace of the subsystem uses (inaccessible if the port
 * does not know it), with the enabled namespaces of the subsystem in it
 * (none with RGO, "return groups only").
 */
void purlin_log_ana(struct purlin_req *req)
{
	bool rgo = req->cmd->get_log_page.lsp & NVME_ANA_LOG_RGO;
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct purlin_port *port = ctrl->port;
	struct nvme_ana_rsp_hdr *hdr;
	struct nvme_ana_group_desc *desc;
	struct purlin_ns *ns;
	unsigned long idx;
	size_t size, off;
	u16 ngrps = 0;
	u32 grpid, n;

	size = sizeof(*hdr) + PURLIN_MAX_ANA_GROUPS * sizeof(*desc) +
	       NVME_MAX_CHANGED_NAMESPACES * sizeof(__le32);
	hdr = kzalloc(size, GFP_KERNEL);
	if (!hdr) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	off = sizeof(*hdr);
	down_read(&purlin_cfg_sem);
	for (grpid = 1; grpid <= PURLIN_MAX_ANA_GROUPS; grpid++) {
		if (!port->ana_state[grpid] &&
		    !purlin_ana_group_used(ctrl->subsys, grpid))
			continue;
		desc = (void *)hdr + off;
		desc->grpid = cpu_to_le32(grpid);
		desc->chgcnt = cpu_to_le64(atomic64_read(&purlin_ana_chgcnt));
		desc->state = purlin_ana_state(port, grpid);
		n = 0;
		if (!rgo) {
			rcu_read_lock();
			xa_for_each(&ctrl->subsys->namespaces, idx, ns) {
				if (READ_ONCE(ns->anagrpid) != grpid ||
				    n == NVME_MAX_CHANGED_NAMESPACES)
					continue;
				desc->nsids[n++] = cpu_to_le32(idx);
			}
			rcu_read_unlock();
		}
		desc->nnsids = cpu_to_le32(n);
		off += struct_size(desc, nsids, n);
		ngrps++;
	}
	up_read(&purlin_cfg_sem);
	hdr->chgcnt = cpu_to_le64(atomic64_read(&purlin_ana_chgcnt));
	hdr->ngrps = cpu_to_le16(ngrps);
	purlin_complete_log_max(req, hdr, off, size);
	kfree(hdr);
}

/*
 * ANA states changed on port (NULL: any port) for the namespaces of
 * subsys (NULL: any subsystem): tell the controllers concerned.  Caller
 * holds purlin_cfg_sem for writing.
 */
void purlin_ana_changed(struct purlin_port *port, struct purlin_subsys *only)
{
	u32 result = NVME_AER_NOTICE | NVME_AER_NOTICE_ANA << 8 |
		     NVME_LOG_ANA << 16;
	struct purlin_subsys *subsys;
	struct purlin_ctrl *ctrl;

	lockdep_assert_held_write(&purlin_cfg_sem);
	atomic64_inc(&purlin_ana_chgcnt);
	list_for_each_entry(subsys, &purlin_subsystems, entry) {
		if (only && subsys != only)
			continue;
		mutex_lock(&subsys->lock);
		list_for_each_entry(ctrl, &subsys->ctrls, entry) {
			if (port && ctrl->port != port)
				continue;
			if (READ_ONCE(ctrl->aen_enabled) &
			    NVME_AEN_CFG_ANA_CHANGE)
				purlin_ctrl_event(ctrl, result);
		}
		mutex_unlock(&subsys->lock);
	}
}
