/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints: every command at receipt, at the start of its execution
 * and at its completion (Documentation/admin-guide.md, "Monitoring").
 * Disabled, each is a static branch; enabled, a fixed-size record, no
 * string copied.  The controller ID is 0 before a queue's Connect.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM purlin

#ifndef PURLIN_TRACE_HELPERS
#define PURLIN_TRACE_HELPERS
#include "purlin.h"

static inline u16 purlin_trace_cntlid(const struct purlin_req *req)
{
	const struct purlin_ctrl *ctrl = READ_ONCE(req->sq->ctrl);

	return ctrl ? ctrl->cntlid : 0;
}
#endif

#if !defined(PURLIN_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define PURLIN_TRACE_H

#include <linux/nvme.h>
#include <linux/tracepoint.h>

TRACE_EVENT(purlin_cmd_recv,
	TP_PROTO(const struct purlin_req *req),
	TP_ARGS(req),
	TP_STRUCT__entry(
		__field(u16, cntlid)
		__field(u16, qid)
		__field(u16, cid)
		__field(u8, opcode)
		__field(u8, fctype)
		__field(u32, nsid)
		__field(u32, cdw10)
		__field(u32, cdw11)
		__field(u32, cdw12)
	),
	TP_fast_assign(
		__entry->cntlid = purlin_trace_cntlid(req);
		__entry->qid = req->sq->qid;
		__entry->cid = req->cmd->common.command_id;
		__entry->opcode = req->cmd->common.opcode;
		__entry->fctype = req->cmd->common.opcode == nvme_fabrics_command ?
				  req->cmd->fabrics.fctype : 0;
		__entry->nsid = le32_to_cpu(req->cmd->common.nsid);
		__entry->cdw10 = le32_to_cpu(req->cmd->common.cdw10);
		__entry->cdw11 = le32_to_cpu(req->cmd->common.cdw11);
		__entry->cdw12 = le32_to_cpu(req->cmd->common.cdw12);
	),
	TP_printk("cntlid=%u qid=%u cid=%u opcode=0x%02x fctype=0x%02x nsid=%u cdw10=0x%08x cdw11=0x%08x cdw12=0x%08x",
		  __entry->cntlid, __entry->qid, __entry->cid, __entry->opcode,
		  __entry->fctype, __entry->nsid, __entry->cdw10,
		  __entry->cdw11, __entry->cdw12)
);

TRACE_EVENT(purlin_cmd_exec,
	TP_PROTO(const struct purlin_req *req),
	TP_ARGS(req),
	TP_STRUCT__entry(
		__field(u16, cntlid)
		__field(u16, qid)
		__field(u16, cid)
		__field(u8, opcode)
		__field(u32, nsid)
		__field(u32, data_len)
	),
	TP_fast_assign(
		__entry->cntlid = purlin_trace_cntlid(req);
		__entry->qid = req->sq->qid;
		__entry->cid = req->cmd->common.command_id;
		__entry->opcode = req->cmd->common.opcode;
		__entry->nsid = le32_to_cpu(req->cmd->common.nsid);
		__entry->data_len = req->data_len;
	),
	TP_printk("cntlid=%u qid=%u cid=%u opcode=0x%02x nsid=%u data_len=%u",
		  __entry->cntlid, __entry->qid, __entry->cid, __entry->opcode,
		  __entry->nsid, __entry->data_len)
);

TRACE_EVENT(purlin_cmd_done,
	TP_PROTO(const struct purlin_req *req, u16 status),
	TP_ARGS(req, status),
	TP_STRUCT__entry(
		__field(u16, cntlid)
		__field(u16, qid)
		__field(u16, cid)
		__field(u8, opcode)
		__field(u32, nsid)
		__field(u16, status)
	),
	TP_fast_assign(
		__entry->cntlid = purlin_trace_cntlid(req);
		__entry->qid = req->sq->qid;
		__entry->cid = req->cmd->common.command_id;
		__entry->opcode = req->cmd->common.opcode;
		__entry->nsid = le32_to_cpu(req->cmd->common.nsid);
		__entry->status = status;
	),
	TP_printk("cntlid=%u qid=%u cid=%u opcode=0x%02x nsid=%u status=0x%04x",
		  __entry->cntlid, __entry->qid, __entry->cid, __entry->opcode,
		  __entry->nsid, __entry->status)
);

#endif /* PURLIN_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE purlin_trace
#include <trace/define_trace.h>
