/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvmf-wire: a userspace NVMe/RDMA host that speaks the wire protocol
 * directly (librdmacm + libibverbs), for testing an NVMe-oF RDMA target
 * with traffic the Linux host never sends.
 *
 * The library (wire-lib.c) connects one RC queue pair per NVMe queue with
 * chosen CM private data, posts receives for response capsules, sends
 * 64-byte command capsules with optional in-capsule data, describes data
 * with keyed SGLs (0x40 plain rkey, 0x4F through a type 2 memory window
 * the target may invalidate) and collects the 16-byte completions.
 */
#ifndef NVMF_WIRE_H
#define NVMF_WIRE_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* ---- wire formats ------------------------------------------------------- */

/* A 64-byte submission queue entry (command capsule). */
struct nvme_sqe {
	uint8_t opcode;
	uint8_t flags;		/* FUSE bits 1:0, PSDT bits 7:6 */
	uint16_t cid;
	uint32_t nsid;		/* fabrics: byte 4 is fctype */
	uint32_t cdw2;
	uint32_t cdw3;
	uint64_t mptr;
	uint8_t dptr[16];
	uint32_t cdw10;
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
} __attribute__((packed));

/* A 16-byte completion queue entry (response capsule). */
struct nvme_cqe {
	uint64_t result;
	uint16_t sq_head;
	uint16_t sq_id;
	uint16_t cid;
	uint16_t status;	/* bit 0 phase, 15:1 status field */
} __attribute__((packed));

/* NVMe/RDMA CM private data. */
struct nvme_rdma_cm_req {
	uint16_t recfmt;
	uint16_t qid;
	uint16_t hrqsize;
	uint16_t hsqsize;
	uint16_t cntlid;
	uint8_t rsvd[22];
} __attribute__((packed));

struct nvme_rdma_cm_rep {
	uint16_t recfmt;
	uint16_t crqsize;
	uint8_t rsvd[28];
} __attribute__((packed));

struct nvme_rdma_cm_rej {
	uint16_t recfmt;
	uint16_t sts;
} __attribute__((packed));

/* Fabrics Connect data (1024 bytes). */
struct nvmf_connect_data {
	uint8_t hostid[16];
	uint16_t cntlid;
	uint8_t rsvd4[238];
	char subsysnqn[256];
	char hostnqn[256];
	uint8_t rsvd5[256];
} __attribute__((packed));

_Static_assert(sizeof(struct nvme_sqe) == 64, "sqe");
_Static_assert(sizeof(struct nvme_cqe) == 16, "cqe");
_Static_assert(sizeof(struct nvme_rdma_cm_req) == 32, "cm req");
_Static_assert(sizeof(struct nvmf_connect_data) == 1024, "connect data");

#define NVME_SGL_KEYED		0x40	/* keyed data block, address */
#define NVME_SGL_KEYED_INV	0x4f	/* keyed data block, invalidate key */
#define NVME_SGL_INCAPSULE	0x01	/* data block, offset */
#define NVME_FLAGS_SGL		0x40	/* PSDT: SGL for data (and metadata) */

#define NVME_OPC_FABRICS	0x7f
#define NVMF_FCTYPE_PROP_SET	0x00
#define NVMF_FCTYPE_CONNECT	0x01
#define NVMF_FCTYPE_PROP_GET	0x04

#define NVME_ADM_GET_LOG	0x02
#define NVME_ADM_IDENTIFY	0x06
#define NVME_ADM_SET_FEATURES	0x09
#define NVME_ADM_GET_FEATURES	0x0a
#define NVME_ADM_KEEP_ALIVE	0x18
#define NVME_IO_FLUSH		0x00
#define NVME_IO_WRITE		0x01
#define NVME_IO_READ		0x02

#define NVME_REG_CAP		0x00
#define NVME_REG_VS		0x08
#define NVME_REG_CC		0x14
#define NVME_REG_CSTS		0x1c

/* Status codes as the status field holds them (SCT << 8 | SC), DNR. */
#define SC_SUCCESS		0x000
#define SC_INVALID_OPCODE	0x001
#define SC_INVALID_FIELD	0x002
#define SC_INVALID_NS		0x00b
#define SC_CMD_SEQ_ERROR	0x00c
#define SC_SGL_INVALID_DATA	0x00f	/* Data SGL Length Invalid */
#define SC_SGL_INVALID_TYPE	0x011	/* SGL Descriptor Type Invalid */
#define SC_SGL_INVALID_OFFSET	0x016
#define SC_INVALID_LOG_PAGE	0x109
#define SC_LBA_RANGE		0x080
#define SC_HOSTID_INCONSIST	0x018	/* Host Identifier Inconsistent Format */
#define SC_RESV_CONFLICT	0x083	/* Reservation Conflict */
#define SC_CONNECT_FORMAT	0x180	/* Incompatible Format */
#define SC_CONNECT_CTRL_BUSY	0x181
#define SC_CONNECT_INVALID_PARAM 0x182
#define SC_DNR			0x4000
#define SC_INTERNAL		0x006
#define SC_AUTH_REQUIRED	0x191
#define SC_MASK			0x07ff	/* SCT + SC, without CRD/M/DNR */

/* NVMe/RDMA CM reject status values. */
enum {
	RDMA_CM_INVALID_LEN = 1,
	RDMA_CM_INVALID_RECFMT,
	RDMA_CM_INVALID_QID,
	RDMA_CM_INVALID_HSQSIZE,
	RDMA_CM_INVALID_HRQSIZE,
	RDMA_CM_NO_RSC,
};

/* ---- library ------------------------------------------------------------ */

/* The last error of a library call, for FAIL lines. */
extern char nw_err[512];
extern int nw_verbose;
/* Describe 0x4F data through type 2 memory windows (else as 0x40). */
extern bool nw_use_mw;
/*
 * Transport retry count in the CM REQ (the target's QP uses it for its
 * sends to us).  rxe treats 7 as "retry forever".
 */
extern int nw_retry_count;
/*
 * Every wait for the target (completions, CM events, sends) is this many
 * times its nominal limit: PURLIN_TIMEOUT_SCALE in the environment, set by
 * the guest harness on slow (debug) kernels.
 */
extern int nw_time_scale;
int nw_scaled_ms(int ms);
/* Set by nw_connect: the CM zero-pads connect private data (IB, RoCE). */
extern bool nw_cm_pads;
/*
 * Never arm CQ notifications; poll the CQs (and sleep on the CM channels
 * at most 1 ms at a time) instead.  rdma_rxe before Linux 6.4 delivers CQ
 * events from a tasklet that holds no reference on the CQ: a CQ destroyed
 * while that tasklet is pending is used after free ("tasklet SCHED state
 * not set: callback rxe_send_complete", upstream fix 78b26a335310).  A CQ
 * that is never armed never schedules it.
 */
extern bool nw_poll_only;

struct nw_target {
	const char *addr;
	const char *svc;
	const char *subnqn;
	const char *hostnqn;
	uint8_t hostid[16];
	/* Source address to connect from (a second local IP); NULL: any. */
	const char *src;
};

struct nw_slot;

/* One NVMe queue: an RC QP and its buffers. */
struct nw_queue {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	bool established;

	uint16_t qid;
	uint16_t cntlid;	/* from the admin queue's Connect */
	uint16_t crqsize;	/* from the CM accept */
	int nslots;		/* commands we may have outstanding */
	int nrecv;		/* receive buffers (capacity) */
	int recv_posted;	/* receives posted and not yet completed */
	/*
	 * Do not post a receive again once its response arrived: the peer
	 * runs out of them and its SENDs meet receiver-not-ready.
	 */
	bool no_repost;
	int max_send_wr;
	int sq_used;		/* send WRs posted and not completed */

	uint8_t *rbuf;		/* nrecv x 64: response capsules */
	struct ibv_mr *rmr;
	uint8_t *sbuf;		/* nslots x 64: command capsules */
	struct ibv_mr *smr;
	uint8_t *data;		/* data the target reads and writes */
	size_t data_size;
	struct ibv_mr *dmr;
	bool no_mw;		/* memory windows unavailable: 0x4F -> 0x40 */

	struct nw_slot *slots;
	int nfree;
	int slot_hint;

	/* Completions not yet taken by nw_wait_cqe(). */
	struct nw_done *done;
	int done_head, done_tail, done_cap;

	/* What went wrong on the wire. */
	bool disconnected;	/* CM DISCONNECTED and the like */
	int cm_event_last;
	int flushed;		/* completions flushed (QP in error) */
	int wc_errors;		/* completions failed otherwise */
	char wc_error_msg[160];
	int protocol_errors;	/* stray cids, bad lengths, wrong invalidation */
	char protocol_msg[200];

	/*
	 * Capsules posted with at least a whole SQE: what the target counts
	 * for its SQ head (shorter ones never reach its command parser).
	 */
	uint64_t capsules;
};

/* A completion as nw_wait_cqe() returns it. */
struct nw_done {
	struct nvme_cqe cqe;
	uint32_t byte_len;
	bool invalidated;	/* arrived as SEND with invalidate */
	uint32_t inv_rkey;
	uint8_t sgl_type;	/* what the command described */
	uint32_t rkey;		/* the key it carried (keyed SGLs) */
};

struct nw_conn_opts {
	uint16_t qid;
	uint16_t hrqsize;	/* host receive queue size (target sends) */
	uint16_t hsqsize;	/* 0's based host send queue size */
	uint16_t recfmt;
	/* Raw private data instead of the fields above (pdata_raw set). */
	bool pdata_raw;
	const void *pdata;
	uint8_t pdata_len;
	int nslots;		/* default hsqsize + 1 */
	size_t data_size;	/* default 2 MiB + 64 KiB */
	int timeout_ms;		/* default 10000 */
	/* Post only recv_count receives at first (0 allowed), not nslots + 1. */
	bool recv_count_set;
	int recv_count;
	/* Never post a receive again (sets nw_queue.no_repost). */
	bool no_repost;
	/*
	 * The CM REQ's initiator depth and responder resources, instead of 0
	 * and the device's max_qp_rd_atom (at most 16).  Our responder
	 * resources are the RDMA READs the target may have in flight to us.
	 */
	bool rd_set;
	uint8_t initiator_depth;
	uint8_t responder_resources;
};

enum nw_conn_result {
	NW_CONN_OK = 0,
	NW_CONN_REJECTED = 1,	/* *rej_sts set (-1: no NVMe reject data) */
	NW_CONN_ERROR = -1,
};

/* How a command's data is described. */
enum nw_sgl {
	NW_SGL_RAW,		/* the caller filled dptr; nothing added */
	NW_SGL_NONE,		/* keyed, length 0, key 0: no data */
	NW_SGL_KEYED,		/* 0x40 over data[off, off + len) */
	NW_SGL_KEYED_INV,	/* 0x4F over a memory window on it */
	NW_SGL_INCAPSULE,	/* 0x01 offset 0, the data sent in-capsule */
};

struct nw_xfer {
	enum nw_sgl sgl;
	size_t off;		/* into q->data */
	uint32_t len;		/* data length described */
	/* Keyed: put this length in the descriptor instead of len. */
	bool desc_len_set;
	uint32_t desc_len;
	/* Bytes of in-capsule data to send after the 64 bytes (any sgl). */
	uint32_t icd_len;
	size_t icd_off;		/* into q->data */
	/* Send only this many capsule bytes (short capsule tests). */
	bool capsule_len_set;
	uint32_t capsule_len;
	bool keep_cid;		/* use sqe->cid as given (must be a free slot) */
};

int nw_connect(struct nw_queue *q, const struct nw_target *t,
	       const struct nw_conn_opts *o, int *rej_sts);
void nw_close(struct nw_queue *q);	/* graceful: disconnect, then free */
void nw_abort(struct nw_queue *q);	/* abrupt: destroy everything now */
/* Destroy only the QP (and windows); the CM id stays, silent. */
void nw_drop_qp(struct nw_queue *q);
/* Wait for the target to disconnect the CM id: 0, or -1 on timeout. */
int nw_wait_cm_disconnect(struct nw_queue *q, int timeout_ms);

/* Post a command; returns its cid, or -1.  Waits for a free slot. */
int nw_submit(struct nw_queue *q, struct nvme_sqe *sqe,
	      const struct nw_xfer *x);
/* Next completion: 1 got one, 0 timed out, -1 the queue is dead. */
int nw_wait_cqe(struct nw_queue *q, struct nw_done *d, int timeout_ms);
/* Submit and wait for that command's completion: 0 or -1. */
int nw_exec(struct nw_queue *q, struct nvme_sqe *sqe,
	    const struct nw_xfer *x, struct nw_done *d, int timeout_ms);
/* Process whatever arrives for up to timeout_ms; -1 once the queue is dead. */
int nw_progress(struct nw_queue *q, int timeout_ms);
/*
 * The same for several queues at once (entries may be NULL or closed):
 * returns the number of events handled, 0 on a timeout, -1 on an error.
 */
int nw_progress_any(struct nw_queue *const *qs, int n, int timeout_ms);
/* A cid with no command on it (for nw_xfer.keep_cid), or -1. */
int nw_free_cid(struct nw_queue *q);
bool nw_dead(struct nw_queue *q);
/* Wait until every posted capsule has been acknowledged (RC ACK). */
int nw_wait_sends(struct nw_queue *q, int timeout_ms);
/* Completions received and not yet taken. */
int nw_completed(struct nw_queue *q);
int nw_outstanding(struct nw_queue *q);

/* Status field of a completion (bits 15:1 of the status word). */
static inline uint16_t nw_status(const struct nw_done *d)
{
	return le16toh(d->cqe.status) >> 1;
}

/* ---- command helpers ---------------------------------------------------- */

void nw_sqe_init(struct nvme_sqe *sqe, uint8_t opcode);
void nw_sgl_keyed(struct nvme_sqe *sqe, uint8_t type, uint64_t addr,
		  uint32_t len, uint32_t key);
void nw_sgl_data(struct nvme_sqe *sqe, uint8_t type, uint64_t addr,
		 uint32_t len);

/*
 * Fabrics Connect on q (qid from the queue).  Data goes as a keyed SGL
 * unless incapsule is set.  *status gets the status field, *result the
 * completion's dword 0.  Returns -1 only when no completion came.
 */
struct nw_connect_args {
	uint16_t sqsize;
	uint16_t cntlid;	/* 0xffff for the admin queue */
	uint16_t recfmt;
	uint16_t qid;		/* the command's qid */
	uint32_t kato;
	const char *subnqn;	/* NULL: the target's */
	const char *hostnqn;	/* NULL: the target's */
	const uint8_t *hostid;	/* 16 bytes; NULL: the target's */
	bool incapsule;
	/*
	 * Describe the 1024 bytes of data with this SGL type (keyed layout,
	 * the data MR's key) instead of 0x40 / 0x01, or with this length.
	 */
	bool sgl_type_set;
	uint8_t sgl_type;
	bool desc_len_set;
	uint32_t desc_len;
	/* Fill the NQN fields with non-NUL bytes up to 256. */
	bool unterminated_subnqn;
	bool unterminated_hostnqn;
};
int nw_fabrics_connect(struct nw_queue *q, const struct nw_target *t,
		       const struct nw_connect_args *a, uint16_t *status,
		       uint32_t *result);
int nw_prop_get(struct nw_queue *q, uint32_t off, bool eight, uint64_t *val,
		uint16_t *status);
int nw_prop_set(struct nw_queue *q, uint32_t off, uint64_t val,
		uint16_t *status);
/* CC.EN=1 (IOSQES 6, IOCQES 4) and wait for CSTS.RDY. */
int nw_enable_ctrl(struct nw_queue *q);
int nw_set_num_queues(struct nw_queue *q, uint16_t nr, uint16_t *granted);
/* Identify into q->data[off..off+4096). */
int nw_identify(struct nw_queue *q, uint8_t cns, uint32_t nsid, size_t off,
		uint16_t *status);

/*
 * Admin queue: CM connect, Fabrics Connect, enable.  With io, also Set
 * Features Number of Queues and I/O queue 1 with io_hsqsize.
 */
int nw_ctrl_open(const struct nw_target *t, struct nw_queue *admin,
		 struct nw_queue *io, uint16_t io_hsqsize, size_t io_data);
int nw_ctrl_open_kato(const struct nw_target *t, struct nw_queue *admin,
		      struct nw_queue *io, uint16_t io_hsqsize, size_t io_data,
		      uint32_t kato);

/* Namespace geometry from Identify Namespace. */
struct nw_ns {
	uint32_t nsid;
	uint64_t nsze;		/* blocks */
	uint32_t lba_shift;
};
int nw_ns_info(struct nw_queue *admin, uint32_t nsid, struct nw_ns *ns);

/* Read/Write command setup: nlb blocks at slba, data at q->data + off. */
void nw_rw_sqe(struct nvme_sqe *sqe, uint8_t opcode, uint32_t nsid,
	       uint64_t slba, uint32_t nlb);

/*
 * auth-wire.c: the hostile DH-HMAC-CHAP peer against t (which must require
 * authentication, group ffdhe2048); findings appended to why.  0 or -1.
 */
int nw_auth_hostile(const struct nw_target *t, int drop_ms, char *why,
		    size_t whylen);

/* ---- randomized mode (fuzz.c) ---------------------------------------------- */

struct nw_fuzz_opts {
	uint64_t seed;
	uint64_t count;		/* iterations; 0: until time_s */
	unsigned int time_s;	/* stop after this long; 0: no limit */
	unsigned int depth;	/* commands in flight per queue */
	unsigned int cmd_timeout_ms;	/* no answer within this: a hang */
	bool keep_going;	/* go on after a finding (never after a hang) */
	int trace;		/* print every capsule (1) and answer (2) */
	const char *cmdline;	/* how this run was started, for reproducers */
	const char *known;	/* finding tags reported already: TAG[,TAG] */
	/* A subsystem on which auth_hostnqn must authenticate (do_auth()). */
	const char *auth_subnqn;
	const char *auth_hostnqn;
};

/* Run the randomized mode; 0 if nothing was found, 1 otherwise. */
int nw_fuzz(const struct nw_target *t, const struct nw_fuzz_opts *o);

#endif /* NVMF_WIRE_H */
