/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl: validators for every value that reaches configfs. Each returns
 * NULL when the value is acceptable, or a short static reason such as
 * "must be 1..65535" that the caller prefixes with the object and field.
 */
#ifndef PURLINCTL_VALIDATE_H
#define PURLINCTL_VALIDATE_H

#include <stdbool.h>

#define PL_NQN_MAX 223
#define PL_DISCOVERY_NQN "nqn.2014-08.org.nvmexpress.discovery"

typedef const char *(*pl_check_fn)(const char *val);

/*
 * The target the values are for: Purlin (false, the default) or Linux's
 * nvmet (true). Where Purlin refuses what nvmet takes (transports, address
 * families, port parameters, NSIDs), the checks use the target's limits.
 */
extern bool pl_target_nvmet;

const char *pl_check_nqn(const char *s);
/* Why a name pl_check_nqn() accepts is outside the NQN form, or NULL. */
const char *pl_warn_nqn_form(const char *s);
/* The well-known discovery NQN is accepted only where a caller allows it. */
const char *pl_check_nqn_or_discovery(const char *s);
const char *pl_check_uuid(const char *s);
const char *pl_check_nguid(const char *s);
const char *pl_check_nsid(const char *s);
const char *pl_check_portid(const char *s);
const char *pl_check_grpid(const char *s);
/* Registrants a namespace's reservation state holds at most (drivers/purlin.h). */
#define PL_RESV_MAX_REGS 32
const char *pl_check_resv_state(const char *s);
const char *pl_check_attr_text(const char *s);
const char *pl_check_referral_name(const char *s);

const char *pl_check_serial(const char *s);
const char *pl_check_model(const char *s);
const char *pl_check_firmware(const char *s);
const char *pl_check_version(const char *s);
const char *pl_check_bool(const char *s);
const char *pl_check_cntlid(const char *s);
const char *pl_check_qid_max(const char *s);
const char *pl_check_ieee_oui(const char *s);
const char *pl_check_path(const char *s);
const char *pl_check_resv_file(const char *s);

const char *pl_check_trtype(const char *s);
const char *pl_check_adrfam(const char *s);
const char *pl_check_treq(const char *s);
const char *pl_check_ana_state(const char *s);
const char *pl_check_inline_size(const char *s);
const char *pl_check_queue_size(const char *s);
const char *pl_check_mdts(const char *s);
const char *pl_check_tos(const char *s);
const char *pl_check_max_pending(const char *s);
const char *pl_check_connect_timeout(const char *s);
const char *pl_check_cq_mode(const char *s);
const char *pl_check_qos_iops(const char *s);
const char *pl_check_qos_bps(const char *s);
const char *pl_check_qos_burst_ms(const char *s);
const char *pl_check_poll_usecs(const char *s);
const char *pl_check_poll_cpus(const char *s);
const char *pl_check_srq_size(const char *s);
/* Address and service id depend on the address family (NULL: ipv4). */
const char *pl_check_traddr(const char *adrfam, const char *s);
const char *pl_check_trsvcid(const char *adrfam, const char *s);

/* Any attribute: a name configfs could have, a value it could take. */
const char *pl_check_attr_name(const char *s);
const char *pl_check_attr_value(const char *s);

/* The largest CPU number a CPU list may name here (the kernel knows its own). */
#define PL_CPU_MAX 65535

/*
 * A CPU list as the kernel shows one: CPUs and ascending ranges in plain
 * decimal, comma separated ("0-3,8"), or "" for none. When set is given
 * (PL_CPU_MAX + 1 bits, zeroed), the CPUs are marked in it.
 */
bool pl_parse_cpulist(const char *s, unsigned char *set);

/* CLI booleans (on/off, yes/no, true/false, 1/0) to "1"/"0"; NULL if bad. */
const char *pl_parse_bool(const char *s);

#endif
