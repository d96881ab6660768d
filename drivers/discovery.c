// SPDX-License-Identifier: GPL-2.0
/*
 * The discovery controller: Identify, features, Keep Alive, AER (shared
 * with admin.c) and the discovery log page.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/slab.h>

#include "purlin.h"

static void purlin_disc_entry(struct nvmf_disc_rsp_page_entry *e,
			      struct purlin_port *port, const char *nqn,
			      u8 subtype)
{
	*e = port->disc_addr;
	e->subtype = subtype;
	e->cntlid = cpu_to_le16(NVME_CNTLID_DYNAMIC);
	e->asqsz = cpu_to_le16(PURLIN_ADMIN_QUEUE_SIZE);
	strscpy(e->subnqn, nqn, sizeof(e->subnqn));
}

/* The size of the log ctrl would read now.  Caller holds cfg_sem. */
static size_t purlin_disc_log_size(struct purlin_ctrl *ctrl)
{
	struct purlin_port *port = ctrl->port;
	struct nvmf_disc_rsp_page_hdr *hdr;
	struct purlin_subsys_link *l;
	struct purlin_referral *ref;
	int n = 1;

	lockdep_assert_held(&purlin_cfg_sem);
	list_for_each_entry(l, &port->subsystems, entry)
		if (purlin_host_allowed(l->subsys, ctrl->hostnqn))
			n++;
	list_for_each_entry(ref, &port->referrals, entry)
		if (ref->enabled)
			n++;
	return struct_size(hdr, entries, n);
}

/*
 * The log lists this discovery subsystem and every subsystem linked to the
 * port that the asking host may connect to.
 */
static void purlin_execute_disc_log(struct purlin_req *req)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct purlin_port *port = ctrl->port;
	struct nvmf_disc_rsp_page_hdr *hdr;
	struct purlin_subsys_link *l;
	struct purlin_referral *ref;
	int n;

	if (req->cmd->get_log_page.lsp & 0x7f) {
		purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
		return;
	}
	down_read(&purlin_cfg_sem);
	hdr = kzalloc(purlin_disc_log_size(ctrl), GFP_KERNEL);
	if (!hdr) {
		up_read(&purlin_cfg_sem);
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	n = 0;
	purlin_disc_entry(&hdr->entries[n++], port, purlin_disc_nqn,
			  NVME_NQN_CURR);
	list_for_each_entry(l, &port->subsystems, entry) {
		if (!purlin_host_allowed(l->subsys, ctrl->hostnqn))
			continue;
		purlin_disc_entry(&hdr->entries[n++], port,
				  l->subsys->subsysnqn, NVME_NQN_NVME);
	}
	/* Referrals: other discovery services, with their own address. */
	list_for_each_entry(ref, &port->referrals, entry) {
		struct nvmf_disc_rsp_page_entry *e = &hdr->entries[n];

		if (!ref->enabled)
			continue;
		n++;
		*e = ref->addr;
		e->subtype = NVME_NQN_DISC;
		e->cntlid = cpu_to_le16(NVME_CNTLID_DYNAMIC);
		e->asqsz = cpu_to_le16(PURLIN_ADMIN_QUEUE_SIZE);
		strscpy(e->subnqn, PURLIN_DISC_NQN, sizeof(e->subnqn));
	}
	hdr->genctr = cpu_to_le64(purlin_disc_genctr());
	hdr->numrec = cpu_to_le64(n);
	hdr->recfmt = 0;
	up_read(&purlin_cfg_sem);

	purlin_complete_log(req, hdr, struct_size(hdr, entries, n));
	kfree(hdr);
}

u16 purlin_parse_discovery(struct purlin_req *req)
{
	struct nvme_command *cmd = req->cmd;

	switch (cmd->common.opcode) {
	case nvme_admin_get_log_page:
		if (cmd->get_log_page.lid != NVME_LOG_DISC)
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
	{
		u64 off = le64_to_cpu(cmd->get_log_page.lpo);
		size_t size;

		req->data_len = purlin_log_data_len(req);
		if (!req->data_len)
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		/*
		 * Move no more than the log holds: whatever length the host
		 * asks for, an unauthenticated peer ties up a buffer the size
		 * of the log at most (the rest of its buffer is not written).
		 */
		down_read(&purlin_cfg_sem);
		size = purlin_disc_log_size(req->sq->ctrl);
		up_read(&purlin_cfg_sem);
		if (off > size)
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		if (req->data_len > size - off) {
			req->data_len = round_up(size - off, 4);
			req->data_len_min = true;
		}
		req->to_host = true;
		req->execute = purlin_execute_disc_log;
		return 0;
	}
	case nvme_admin_set_features:
		switch (le32_to_cpu(cmd->common.cdw10) & 0xff) {
		case NVME_FEAT_KATO:
		case NVME_FEAT_ASYNC_EVENT:
			break;
		default:
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		}
		break;
	}
	return purlin_parse_admin_common(req);
}
