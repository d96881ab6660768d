// SPDX-License-Identifier: GPL-2.0
/*
 * Fabrics command set: Connect, Property Get and Property Set.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/slab.h>

#include "purlin.h"

/* Connect "Invalid Parameter": where the bad field is (IATTR, IPO). */
static void purlin_connect_bad_param(struct purlin_req *req, bool in_data,
				     u16 offset)
{
	purlin_req_set_result(req, (in_data ? 1U << 16 : 0) | offset);
}

/* NUL-terminated within the field, not empty, printable ASCII only. */
static bool purlin_connect_nqn_ok(const char *s)
{
	size_t n = strnlen(s, NVMF_NQN_FIELD_LEN);

	/* n <= NVMF_NQN_SIZE < the field: the string ends inside it. */
	return n && n <= NVMF_NQN_SIZE && purlin_printable(s);
}

/*
 * purlin_cfg_sem is held for reading from the subsystem lookup and the
 * access check until the controller is listed in its subsystem: a port
 * unlink or an access change either precedes the check or finds the
 * controller (purlin_port_del_ctrls(), purlin_revoke_ctrls()).
 */
static u16 purlin_connect_admin(struct purlin_req *req,
				struct nvmf_connect_data *d)
{
	struct nvmf_connect_command *c = &req->cmd->connect;
	struct purlin_sq *sq = req->sq;
	struct purlin_subsys *subsys;
	struct purlin_ctrl *ctrl;
	u16 status;

	down_read(&purlin_cfg_sem);
	subsys = purlin_find_subsys(sq->port, d->subsysnqn);
	if (!subsys) {
		up_read(&purlin_cfg_sem);
		pr_info_ratelimited("connect from %s: subsystem %s not found on this port\n",
				    d->hostnqn, d->subsysnqn);
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, subsysnqn));
		return NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
	}
	if (!purlin_host_allowed(subsys, d->hostnqn)) {
		up_read(&purlin_cfg_sem);
		pr_info_ratelimited("connect from %s to %s refused: host not allowed\n",
				    d->hostnqn, d->subsysnqn);
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, hostnqn));
		status = NVME_SC_CONNECT_INVALID_HOST | PURLIN_DNR;
		goto put;
	}
	status = purlin_ctrl_alloc(subsys, sq, d->hostnqn, &d->hostid,
				   le32_to_cpu(c->kato),
				   purlin_auth_required(subsys, d->hostnqn),
				   &ctrl);
	up_read(&purlin_cfg_sem);
	if (status)
		goto put;
	purlin_req_set_result(req, ctrl->cntlid);
put:
	/* The controller holds its own reference. */
	purlin_subsys_put(subsys);
	return status;
}

static u16 purlin_connect_io(struct purlin_req *req,
			     struct nvmf_connect_data *d)
{
	struct purlin_subsys *subsys;
	bool bad_qid = false;
	u16 status;

	down_read(&purlin_cfg_sem);
	subsys = purlin_find_subsys(req->sq->port, d->subsysnqn);
	/* A discovery controller has no I/O queues (its MAXQID is 0). */
	if (!subsys || subsys->type == PURLIN_SUBSYS_DISCOVERY) {
		up_read(&purlin_cfg_sem);
		if (subsys)
			purlin_subsys_put(subsys);
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, subsysnqn));
		return NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
	}
	status = purlin_ctrl_find_install(subsys, le16_to_cpu(d->cntlid),
					  d->hostnqn, &d->hostid, req->sq,
					  &bad_qid);
	up_read(&purlin_cfg_sem);
	if (status && bad_qid)
		purlin_connect_bad_param(req, false,
			offsetof(struct nvmf_connect_command, qid));
	else if ((status & 0x7ff) == NVME_SC_CONNECT_INVALID_HOST)
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, hostnqn));
	else if (status)
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, cntlid));
	if (status)
		pr_info_ratelimited("I/O queue %u connect from %s to %s controller %u refused (status %#x)\n",
				    req->sq->qid, d->hostnqn, d->subsysnqn,
				    le16_to_cpu(d->cntlid), status);
	purlin_subsys_put(subsys);
	return status;
}

static void purlin_execute_connect(struct purlin_req *req)
{
	struct nvmf_connect_command *c = &req->cmd->connect;
	struct purlin_sq *sq = req->sq;
	struct nvmf_connect_data *d;
	u16 sqsize = le16_to_cpu(c->sqsize);
	u16 status;

	d = kmalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		status = NVME_SC_INTERNAL;
		goto out;
	}
	status = purlin_copy_from_sg(req, 0, d, sizeof(*d));
	if (status)
		goto out;

	if (c->recfmt != 0) {
		status = NVME_SC_CONNECT_FORMAT | PURLIN_DNR;
		goto out;
	}
	if (le16_to_cpu(c->qid) != sq->qid) {
		purlin_connect_bad_param(req, false,
			offsetof(struct nvmf_connect_command, qid));
		status = NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
		goto out;
	}
	if (sqsize == 0 || sqsize >= sq->size) {
		purlin_connect_bad_param(req, false,
			offsetof(struct nvmf_connect_command, sqsize));
		status = NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
		goto out;
	}
	if (!purlin_connect_nqn_ok(d->subsysnqn)) {
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, subsysnqn));
		status = NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
		goto out;
	}
	if (!purlin_connect_nqn_ok(d->hostnqn)) {
		purlin_connect_bad_param(req, true,
			offsetof(struct nvmf_connect_data, hostnqn));
		status = NVME_SC_CONNECT_INVALID_PARAM | PURLIN_DNR;
		goto out;
	}
	if (sq->qid == 0)
		status = purlin_connect_admin(req, d);
	else
		status = purlin_connect_io(req, d);
	/*
	 * Only a Connect that succeeds changes the queue: from its own
	 * completion on, SQ head reads 0xffff.  Nothing else runs on the
	 * queue until the host has that completion.
	 */
	if (!status && (c->cattr & NVME_CONNECT_DISABLE_SQFLOW))
		sq->sqhd_disabled = true;
	/* The host must authenticate the queue before anything else. */
	if (!status && sq->auth_required) {
		req->cqe->result.u32 |= cpu_to_le32(NVME_CONNECT_AUTHREQ_ATR);
		purlin_auth_connected(sq);
	}
out:
	kfree(d);
	/* A failed Connect may be retried (purlin_req_complete()). */
	purlin_req_complete(req, status);
}

u16 purlin_parse_connect(struct purlin_req *req)
{
	req->data_len = sizeof(struct nvmf_connect_data);
	req->connect = true;
	req->execute = purlin_execute_connect;
	return 0;
}

static void purlin_execute_prop_get(struct purlin_req *req)
{
	struct nvmf_property_get_command *c = &req->cmd->prop_get;
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	bool eight = c->attrib & 1;
	u64 val;

	switch (le32_to_cpu(c->offset)) {
	case NVME_REG_CAP:
		if (!eight)
			goto invalid;
		val = (u64)(ctrl->port->max_queue_size - 1) |	/* MQES */
		      1ULL << 16 |				/* CQR */
		      15ULL << 24 |				/* TO: 7.5 s */
		      1ULL << 37;				/* CSS: NVM */
		break;
	case NVME_REG_VS:
		if (eight)
			goto invalid;
		val = ctrl->subsys->version;
		break;
	case NVME_REG_CC:
		if (eight)
			goto invalid;
		val = READ_ONCE(ctrl->cc);
		break;
	case NVME_REG_CSTS:
		if (eight)
			goto invalid;
		val = READ_ONCE(ctrl->csts);
		break;
	default:
		goto invalid;
	}
	req->cqe->result.u64 = cpu_to_le64(val);
	purlin_req_complete(req, 0);
	return;
invalid:
	purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
}

static void purlin_execute_prop_set(struct purlin_req *req)
{
	struct nvmf_property_set_command *c = &req->cmd->prop_set;

	if ((c->attrib & 1) || le32_to_cpu(c->offset) != NVME_REG_CC) {
		purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
		return;
	}
	purlin_ctrl_set_cc(req->sq->ctrl, le64_to_cpu(c->value));
	purlin_req_complete(req, 0);
}

u16 purlin_parse_fabrics(struct purlin_req *req)
{
	struct nvme_command *cmd = req->cmd;

	if (cmd->fabrics.fctype == nvme_fabrics_type_connect)
		return NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;	/* already connected */
	if (cmd->fabrics.fctype == nvme_fabrics_type_auth_send ||
	    cmd->fabrics.fctype == nvme_fabrics_type_auth_receive)
		return purlin_parse_auth(req);
	if (req->sq->qid != 0)
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	switch (cmd->fabrics.fctype) {
	case nvme_fabrics_type_property_get:
		req->execute = purlin_execute_prop_get;
		return 0;
	case nvme_fabrics_type_property_set:
		req->execute = purlin_execute_prop_set;
		return 0;
	default:
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	}
}
