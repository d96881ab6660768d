// SPDX-License-Identifier: GPL-2.0
/*
 * Admin command set of I/O controllers, and the parts the discovery
 * controller shares (Identify Controller, features, Keep Alive, AER).
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/slab.h>

#include "purlin.h"

#define PURLIN_KAS		10	/* keep-alive granularity: 10 x 100 ms */

static void purlin_copy_padded(char *dst, const char *src, size_t len)
{
	size_t n = strnlen(src, len);

	memcpy(dst, src, n);
	memset(dst + n, ' ', len - n);
}

/* Complete req with buf as its controller-to-host data. */
static void purlin_complete_data(struct purlin_req *req, const void *buf,
				 size_t len)
{
	purlin_req_complete(req, purlin_copy_to_sg(req, 0, buf, len));
}

static void purlin_identify_ctrl(struct purlin_req *req)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	struct purlin_subsys *subsys = ctrl->subsys;
	struct purlin_port *port = ctrl->port;
	struct nvme_id_ctrl *id;

	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!id) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	down_read(&purlin_cfg_sem);
	purlin_copy_padded(id->sn, subsys->serial, sizeof(id->sn));
	purlin_copy_padded(id->mn, subsys->model, sizeof(id->mn));
	purlin_copy_padded(id->fr, subsys->firmware, sizeof(id->fr));
	memcpy(id->ieee, subsys->ieee_oui, sizeof(id->ieee));
	id->vid = cpu_to_le16(subsys->vendor_id);
	id->ssvid = cpu_to_le16(subsys->subsys_vendor_id);
	id->ver = cpu_to_le32(subsys->version);
	up_read(&purlin_cfg_sem);

	id->rab = 6;
	id->mdts = PURLIN_MDTS_SHIFT;
	id->cntlid = cpu_to_le16(ctrl->cntlid);
	/* Any command counts as keep-alive traffic (see purlin_req_init). */
	id->ctratt = cpu_to_le32(NVME_CTRL_ATTR_HID_128_BIT |
				 NVME_CTRL_ATTR_TBKAS);
	id->acl = 3;
	id->aerl = PURLIN_AERL - 1;
	id->frmw = 1 << 1 | 1;		/* one slot, read-only */
	/* SMART per namespace, effects log, extended data. */
	id->lpa = NVME_CTRL_LPA_CMD_EFFECTS_LOG | 1 << 0 | 1 << 2;
	id->elpe = PURLIN_ERR_SLOTS - 1;
	id->sqes = 6 << 4 | 6;
	id->cqes = 4 << 4 | 4;
	id->maxcmd = cpu_to_le16(port->max_queue_size);
	id->kas = cpu_to_le16(PURLIN_KAS);
	id->sgls = cpu_to_le32(1 << 0 |	/* SGLs supported */
			       1 << 2 |	/* keyed SGL data block */
			       1 << 20);	/* offset (in-capsule data) */
	strscpy(id->subnqn, subsys->type == PURLIN_SUBSYS_DISCOVERY ?
		purlin_disc_nqn : subsys->subsysnqn, sizeof(id->subnqn));
	id->ioccsz = cpu_to_le32((sizeof(struct nvme_command) +
				  port->inline_data_size) / 16);
	id->iorcsz = cpu_to_le32(sizeof(struct nvme_completion) / 16);
	id->icdoff = 0;
	id->msdbd = 1;

	if (purlin_is_discovery(ctrl)) {
		id->cntrltype = NVME_CTRL_DISC;
		id->oaes = cpu_to_le32(NVME_AEN_CFG_DISC_CHANGE);
	} else {
		id->cntrltype = NVME_CTRL_IO;
		id->oaes = cpu_to_le32(NVME_AEN_CFG_NS_ATTR |
				       NVME_AEN_CFG_ANA_CHANGE);
		id->oncs = cpu_to_le16(NVME_CTRL_ONCS_DSM |
				       NVME_CTRL_ONCS_WRITE_ZEROES |
				       NVME_CTRL_ONCS_RESERVATIONS);
		id->cmic = NVME_CTRL_CMIC_MULTI_PORT |
			   NVME_CTRL_CMIC_MULTI_CTRL | NVME_CTRL_CMIC_ANA;
		/* All ANA states reportable, ANA group ids may change. */
		id->anacap = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 3 | 1 << 4;
		id->anatt = 10;
		id->anagrpmax = cpu_to_le32(PURLIN_MAX_ANA_GROUPS);
		id->nanagrpid = cpu_to_le32(PURLIN_MAX_ANA_GROUPS);
		id->nn = cpu_to_le32(PURLIN_MAX_NSID);
		id->mnan = cpu_to_le32(PURLIN_MAX_NSID);
		/* Bits 2:1 = 11b: Flush takes NSID FFFFFFFFh. */
		id->vwc = NVME_CTRL_VWC_PRESENT | 3 << 1;
		id->psd[0].max_power = cpu_to_le16(0x9c4);
		id->psd[0].entry_lat = cpu_to_le32(0x10);
		id->psd[0].exit_lat = cpu_to_le32(0x4);
	}
	purlin_complete_data(req, id, sizeof(*id));
	kfree(id);
}

/* A count of logical blocks as the 0's based value Identify wants. */
static __le16 purlin_lb0(u32 bytes, u8 shift)
{
	return cpu_to_le16(max_t(u32, bytes >> shift, 1) - 1);
}

/* Atomicity and preferred granularities from the block device's limits. */
static void purlin_identify_ns_limits(struct purlin_ns *ns,
				      struct nvme_id_ns *id)
{
	struct block_device *bdev = ns->bdev.bdev;
	u8 shift = ns->blksize_shift;

	id->nsfeat |= NVME_NS_FEAT_ATOMICS | PURLIN_NS_FEAT_OPTPERF;
	id->nawun = purlin_lb0(bdev_physical_block_size(bdev), shift);
	id->nawupf = id->nawun;
	id->nacwu = id->nawun;
	id->npwg = id->nawun;
	id->npwa = id->npwg;
	id->npdg = purlin_lb0(bdev_discard_granularity(bdev), shift);
	id->npda = id->npdg;
	id->nows = purlin_lb0(bdev_io_opt(bdev), shift);
}

void purlin_identify_ns_fill(struct purlin_ns *ns, struct nvme_id_ns *id)
{
	u64 nlb = ns->size >> ns->blksize_shift;

	id->nsze = cpu_to_le64(nlb);
	id->ncap = id->nsze;
	id->nuse = id->nsze;
	id->nlbaf = 0;
	id->flbas = 0;
	id->nmic = NVME_NS_NMIC_SHARED;
	id->anagrpid = cpu_to_le32(READ_ONCE(ns->anagrpid));
	id->rescap = purlin_resv_rescap(ns);
	id->lbaf[0].ds = ns->blksize_shift;
	memcpy(id->nguid, ns->nguid, sizeof(id->nguid));
	if (!ns->file)
		purlin_identify_ns_limits(ns, id);
}

static bool purlin_nsid_valid(u32 nsid)
{
	return nsid >= 1 && nsid <= PURLIN_MAX_NSID;
}

static void purlin_identify_ns(struct purlin_req *req)
{
	u32 nsid = le32_to_cpu(req->cmd->identify.nsid);
	struct nvme_id_ns *id;
	struct purlin_ns *ns;

	if (!purlin_nsid_valid(nsid)) {
		purlin_req_complete(req, NVME_SC_INVALID_NS | PURLIN_DNR);
		return;
	}
	id = kzalloc(sizeof(*id), GFP_KERNEL);
	if (!id) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	/* An allocated but inactive namespace reads as all zeroes. */
	ns = purlin_ns_get(req->sq->ctrl->subsys, nsid);
	if (ns) {
		purlin_identify_ns_fill(ns, id);
		purlin_ns_put(ns);
	}
	purlin_complete_data(req, id, sizeof(*id));
	kfree(id);
}

static void purlin_identify_active_list(struct purlin_req *req)
{
	u32 start = le32_to_cpu(req->cmd->identify.nsid);
	struct purlin_subsys *subsys = req->sq->ctrl->subsys;
	struct purlin_ns *ns;
	unsigned long idx;
	__le32 *list;
	int n = 0;

	if (start >= 0xfffffffe) {
		purlin_req_complete(req, NVME_SC_INVALID_NS | PURLIN_DNR);
		return;
	}
	list = kzalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!list) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	xa_for_each_start(&subsys->namespaces, idx, ns, start + 1) {
		list[n++] = cpu_to_le32(idx);
		if (n == NVME_IDENTIFY_DATA_SIZE / sizeof(__le32))
			break;
	}
	purlin_complete_data(req, list, NVME_IDENTIFY_DATA_SIZE);
	kfree(list);
}

static void *purlin_put_desc(void *p, u8 type, const void *data, u8 len)
{
	struct nvme_ns_id_desc *d = p;

	d->nidt = type;
	d->nidl = len;
	memcpy(d + 1, data, len);
	return (u8 *)(d + 1) + len;
}

static void purlin_identify_desclist(struct purlin_req *req)
{
	u32 nsid = le32_to_cpu(req->cmd->identify.nsid);
	static const u8 zero[16];
	const u8 csi = NVME_CSI_NVM;
	struct purlin_ns *ns;
	void *buf, *p;

	ns = purlin_ns_get(req->sq->ctrl->subsys, nsid);
	if (!ns) {
		purlin_req_complete(req, NVME_SC_INVALID_NS | PURLIN_DNR);
		return;
	}
	buf = kzalloc(NVME_IDENTIFY_DATA_SIZE, GFP_KERNEL);
	if (!buf) {
		purlin_ns_put(ns);
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	p = buf;
	if (memcmp(ns->nguid, zero, sizeof(zero)))
		p = purlin_put_desc(p, NVME_NIDT_NGUID, ns->nguid,
				    NVME_NIDT_NGUID_LEN);
	if (!uuid_is_null(&ns->uuid))
		p = purlin_put_desc(p, NVME_NIDT_UUID, &ns->uuid,
				    NVME_NIDT_UUID_LEN);
	p = purlin_put_desc(p, NVME_NIDT_CSI, &csi, NVME_NIDT_CSI_LEN);
	purlin_ns_put(ns);
	purlin_complete_data(req, buf, NVME_IDENTIFY_DATA_SIZE);
	kfree(buf);
}

static void purlin_execute_identify(struct purlin_req *req)
{
	switch (req->cmd->identify.cns) {
	case NVME_ID_CNS_CTRL:
		purlin_identify_ctrl(req);
		return;
	case NVME_ID_CNS_NS:
		purlin_identify_ns(req);
		return;
	case NVME_ID_CNS_NS_ACTIVE_LIST:
		purlin_identify_active_list(req);
		return;
	case NVME_ID_CNS_NS_DESC_LIST:
		purlin_identify_desclist(req);
		return;
	default:
		purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
	}
}

/* ---- log pages ------------------------------------------------------------ */

static u64 purlin_log_offset(struct purlin_req *req)
{
	return le64_to_cpu(req->cmd->get_log_page.lpo);
}

/*
 * Copy the [offset, offset + data_len) window of a log of size bytes into
 * the data, zeros past its end.  An offset past max, the largest the log
 * can be, is an invalid field.  A log whose size varies takes max
 * above size: a host that sized its read for the largest log (nvme-cli
 * reads the ANA log in 4 KiB pieces) gets zeros for the pieces past the
 * current end, not an error.
 */
void purlin_complete_log_max(struct purlin_req *req, const void *log,
			     size_t size, size_t max)
{
	u64 off = purlin_log_offset(req);
	u32 len = req->data_len, n = 0;
	u16 status;

	if ((off & 3) || off > max) {
		purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
		return;
	}
	if (off < size) {
		n = min_t(u64, size - off, len);
		status = purlin_copy_to_sg(req, 0, log + off, n);
		if (status) {
			purlin_req_complete(req, status);
			return;
		}
	}
	purlin_req_complete(req, purlin_zero_sg(req, n, len - n));
}

void purlin_complete_log(struct purlin_req *req, const void *log,
			 size_t size)
{
	purlin_complete_log_max(req, log, size, size);
}

static void purlin_log_fw_slot(struct purlin_req *req)
{
	struct nvme_fw_slot_info_log *log;

	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!log) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	log->afi = 1;
	down_read(&purlin_cfg_sem);
	memcpy(&log->frs[0], req->sq->ctrl->subsys->firmware,
	       strnlen(req->sq->ctrl->subsys->firmware, 8));
	up_read(&purlin_cfg_sem);
	purlin_complete_log(req, log, sizeof(*log));
	kfree(log);
}

static void purlin_log_changed_ns(struct purlin_req *req)
{
	size_t size = NVME_MAX_CHANGED_NAMESPACES * sizeof(__le32);
	/*
	 * Retain Asynchronous Event (cdw10 bit 15); a read that does not
	 * start at the beginning does not consume the list either.
	 */
	bool retain = (le32_to_cpu(req->cmd->common.cdw10) & (1 << 15)) ||
		      le64_to_cpu(req->cmd->get_log_page.lpo);
	__le32 *list = kzalloc(size, GFP_KERNEL);

	if (!list) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	purlin_take_changed_ns(req->sq->ctrl, list, retain);
	purlin_complete_log(req, list, size);
	kfree(list);
}

static void purlin_log_errors(struct purlin_req *req)
{
	size_t size = PURLIN_ERR_SLOTS * sizeof(struct nvme_error_slot);
	struct nvme_error_slot *log = kzalloc(size, GFP_KERNEL);

	if (!log) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	purlin_error_ring_read(req->sq->ctrl, log);
	purlin_complete_log(req, log, size);
	kfree(log);
}

static void purlin_log_smart(struct purlin_req *req)
{
	struct nvme_smart_log *log = kzalloc(sizeof(*log), GFP_KERNEL);
	u16 status;

	if (!log) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	status = purlin_smart_log(req->sq->ctrl,
				  le32_to_cpu(req->cmd->get_log_page.nsid), log);
	if (status)
		purlin_req_complete(req, status);
	else
		purlin_complete_log(req, log, sizeof(*log));
	kfree(log);
}

/* Commands Supported and Effects: what this target implements. */
static void purlin_log_effects(struct purlin_req *req)
{
	static const u8 admin[] = {
		nvme_admin_get_log_page, nvme_admin_identify,
		nvme_admin_abort_cmd, nvme_admin_set_features,
		nvme_admin_get_features, nvme_admin_async_event,
		nvme_admin_keep_alive,
	};
	static const u8 io_lbcc[] = {
		nvme_cmd_write, nvme_cmd_write_zeroes, nvme_cmd_dsm,
	};
	struct nvme_effects_log *log = kzalloc(sizeof(*log), GFP_KERNEL);
	int i;

	if (!log) {
		purlin_req_complete(req, NVME_SC_INTERNAL);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(admin); i++)
		log->acs[admin[i]] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	for (i = 0; i < ARRAY_SIZE(log->iocs); i++)
		if (purlin_io_opcode_supported(i))
			log->iocs[i] = cpu_to_le32(NVME_CMD_EFFECTS_CSUPP);
	for (i = 0; i < ARRAY_SIZE(io_lbcc); i++)
		log->iocs[io_lbcc[i]] |= cpu_to_le32(NVME_CMD_EFFECTS_LBCC);
	purlin_complete_log(req, log, sizeof(*log));
	kfree(log);
}

static void purlin_execute_get_log_page(struct purlin_req *req)
{
	switch (req->cmd->get_log_page.lid) {
	case NVME_LOG_ERROR:
		purlin_log_errors(req);
		return;
	case NVME_LOG_SMART:
		purlin_log_smart(req);
		return;
	case NVME_LOG_CMD_EFFECTS:
		purlin_log_effects(req);
		return;
	case NVME_LOG_ANA:
		purlin_log_ana(req);
		return;
	case NVME_LOG_FW_SLOT:
		purlin_log_fw_slot(req);
		return;
	case NVME_LOG_CHANGED_NS:
		purlin_log_changed_ns(req);
		return;
	case NVME_LOG_RESERVATION:
		purlin_log_resv(req);
		return;
	default:
		purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
	}
}

/* ---- features --------------------------------------------------------------- */

/* Is an I/O queue of the controller connected?  Caller holds ctrl->lock. */
static bool purlin_ctrl_has_io_queues(struct purlin_ctrl *ctrl)
{
	int qid;

	lockdep_assert_held(&ctrl->lock);
	for (qid = 1; qid <= PURLIN_MAX_QID; qid++)
		if (ctrl->sqs[qid])
			return true;
	return false;
}

static void purlin_execute_set_features(struct purlin_req *req)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	u32 cdw11 = le32_to_cpu(req->cmd->common.cdw11);
	u16 status = 0;
	u32 cdw10 = le32_to_cpu(req->cmd->common.cdw10);
	u16 nsq, ncq, n;
	u32 kato;

	switch (cdw10 & 0xff) {
	case NVME_FEAT_NUM_QUEUES:
		nsq = cdw11 & 0xffff;
		ncq = cdw11 >> 16;
		if (nsq == 0xffff || ncq == 0xffff || purlin_is_discovery(ctrl)) {
			status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
			break;
		}
		down_read(&purlin_cfg_sem);
		n = min_t(u16, max(nsq, ncq) + 1, ctrl->subsys->max_qid);
		up_read(&purlin_cfg_sem);
		/*
		 * Once I/O queues exist the count is fixed: Command Sequence
		 * Error (NVMe Base, Number of Queues feature).
		 */
		mutex_lock(&ctrl->lock);
		if (purlin_ctrl_has_io_queues(ctrl)) {
			mutex_unlock(&ctrl->lock);
			status = NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
			break;
		}
		ctrl->nr_io_queues = n;
		mutex_unlock(&ctrl->lock);
		purlin_req_set_result(req, (n - 1) << 16 | (n - 1));
		break;
	case NVME_FEAT_KATO:
		/* Whole seconds, at most an hour; 0 only for discovery. */
		kato = min_t(u64, DIV_ROUND_UP((u64)cdw11, 1000), 3600) * 1000;
		if (!kato && purlin_is_discovery(ctrl))
			kato = PURLIN_DISC_KATO_MS;
		/* Under ctrl->lock, as purlin_ka_work() re-arms under it. */
		mutex_lock(&ctrl->lock);
		WRITE_ONCE(ctrl->kato, kato);
		if (kato)
			mod_delayed_work(purlin_wq, &ctrl->ka_work,
					 msecs_to_jiffies(kato));
		else
			cancel_delayed_work(&ctrl->ka_work);
		mutex_unlock(&ctrl->lock);
		break;
	case NVME_FEAT_ASYNC_EVENT:
		WRITE_ONCE(ctrl->aen_enabled, cdw11);
		break;
	case NVME_FEAT_VOLATILE_WC:
		status = NVME_SC_FEATURE_NOT_CHANGEABLE | PURLIN_DNR;
		break;
	case NVME_FEAT_HOST_ID:
		/* Over Fabrics the host ID comes with the Connect command. */
		status = NVME_SC_CMD_SEQ_ERROR | PURLIN_DNR;
		break;
	case NVME_FEAT_RESV_MASK:
		status = purlin_is_discovery(ctrl) ?
			 NVME_SC_INVALID_FIELD | PURLIN_DNR :
			 purlin_resv_set_features(req, cdw10 & 0xff);
		break;
	case NVME_FEAT_RESV_PERSIST:
		if (purlin_is_discovery(ctrl)) {
			status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
			break;
		}
		/* It may write resv_file: completed from purlin_resv_wq. */
		purlin_resv_set_ptpl(req);
		return;
	default:
		status = NVME_SC_INVALID_FIELD | PURLIN_DNR;
	}
	purlin_req_complete(req, status);
}

static void purlin_execute_get_features(struct purlin_req *req)
{
	struct purlin_ctrl *ctrl = req->sq->ctrl;
	u8 fid = le32_to_cpu(req->cmd->common.cdw10) & 0xff;
	u16 status;
	u32 n;

	switch (fid) {
	case NVME_FEAT_NUM_QUEUES:
		n = (ctrl->nr_io_queues ?: ctrl->subsys->max_qid) - 1;
		purlin_req_set_result(req, n << 16 | n);
		break;
	case NVME_FEAT_KATO:
		purlin_req_set_result(req, READ_ONCE(ctrl->kato));
		break;
	case NVME_FEAT_ASYNC_EVENT:
		purlin_req_set_result(req, READ_ONCE(ctrl->aen_enabled));
		break;
	case NVME_FEAT_VOLATILE_WC:
		purlin_req_set_result(req, !purlin_is_discovery(ctrl));
		break;
	case NVME_FEAT_HOST_ID:
		/* 128-bit host identifier only (EXHID). */
		if (!(le32_to_cpu(req->cmd->common.cdw11) & 1)) {
			purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
			return;
		}
		purlin_complete_data(req, &ctrl->hostid, sizeof(ctrl->hostid));
		return;
	case NVME_FEAT_RESV_MASK:
	case NVME_FEAT_RESV_PERSIST:
		status = purlin_is_discovery(ctrl) ?
			 NVME_SC_INVALID_FIELD | PURLIN_DNR :
			 purlin_resv_get_features(req, fid);
		purlin_req_complete(req, status);
		return;
	default:
		purlin_req_complete(req, NVME_SC_INVALID_FIELD | PURLIN_DNR);
		return;
	}
	purlin_req_complete(req, 0);
}

/* ---- keep alive, async events, abort ------------------------------------ */

/* Every command counts as traffic (purlin_req_init): nothing else to do. */
static void purlin_execute_keep_alive(struct purlin_req *req)
{
	purlin_req_complete(req, 0);
}

static void purlin_execute_aer(struct purlin_req *req)
{
	purlin_aer_queue(req->sq->ctrl, req);
}

/* Complete every held AER; called when the admin queue is torn down. */
void purlin_aer_abort_all(struct purlin_ctrl *ctrl)
{
	struct purlin_req *req;

	for (;;) {
		mutex_lock(&ctrl->lock);
		if (!ctrl->nr_aer) {
			mutex_unlock(&ctrl->lock);
			return;
		}
		req = ctrl->aer_reqs[--ctrl->nr_aer];
		mutex_unlock(&ctrl->lock);
		purlin_req_complete(req, NVME_SC_ABORT_REQ | PURLIN_DNR);
	}
}

static void purlin_execute_abort(struct purlin_req *req)
{
	purlin_req_set_result(req, 1);	/* command not aborted */
	purlin_req_complete(req, 0);
}

/*
 * The features Purlin implements without data: their commands must move
 * none.  The others are refused (Invalid Field; Set Host Identifier:
 * Command Sequence Error) whatever data the host's SGL describes for them,
 * e.g. the 4 KiB of LBA Range Type, none of which is moved.
 */
static bool purlin_feat_dataless(u8 fid)
{
	switch (fid) {
	case NVME_FEAT_NUM_QUEUES:
	case NVME_FEAT_KATO:
	case NVME_FEAT_ASYNC_EVENT:
	case NVME_FEAT_VOLATILE_WC:
	case NVME_FEAT_RESV_MASK:
	case NVME_FEAT_RESV_PERSIST:
		return true;
	default:
		return false;
	}
}

/* Commands both admin command sets share; 0 when handled. */
u16 purlin_parse_admin_common(struct purlin_req *req)
{
	struct nvme_command *cmd = req->cmd;
	u8 fid = le32_to_cpu(cmd->common.cdw10) & 0xff;

	switch (cmd->common.opcode) {
	case nvme_admin_identify:
		if (cmd->identify.cns != NVME_ID_CNS_CTRL &&
		    purlin_is_discovery(req->sq->ctrl))
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		req->data_len = NVME_IDENTIFY_DATA_SIZE;
		req->to_host = true;
		req->execute = purlin_execute_identify;
		return 0;
	case nvme_admin_set_features:
		req->execute = purlin_execute_set_features;
		if (!purlin_feat_dataless(fid))
			req->data_len_min = true;
		return 0;
	case nvme_admin_get_features:
		req->execute = purlin_execute_get_features;
		if (fid == NVME_FEAT_HOST_ID) {
			req->data_len = sizeof(uuid_t);
			req->to_host = true;
		} else if (!purlin_feat_dataless(fid)) {
			req->data_len_min = true;
		}
		return 0;
	case nvme_admin_keep_alive:
		req->execute = purlin_execute_keep_alive;
		return 0;
	case nvme_admin_async_event:
		req->execute = purlin_execute_aer;
		return 0;
	case nvme_admin_abort_cmd:
		req->execute = purlin_execute_abort;
		return 0;
	default:
		return NVME_SC_INVALID_OPCODE | PURLIN_DNR;
	}
}

u16 purlin_parse_admin(struct purlin_req *req)
{
	if (req->cmd->common.opcode == nvme_admin_get_log_page) {
		req->data_len = purlin_log_data_len(req);
		if (!req->data_len)
			return NVME_SC_INVALID_FIELD | PURLIN_DNR;
		req->to_host = true;
		req->execute = purlin_execute_get_log_page;
		return 0;
	}
	return purlin_parse_admin_common(req);
}
