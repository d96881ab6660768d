// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: value validators. Limits follow the NVMe base and fabrics
 * specifications (field sizes) and what Linux's nvmet configfs accepts;
 * the target still has the last word on implementation limits.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "util.h"
#include "validate.h"

#define UUID_NQN_PREFIX "nqn.2014-08.org.nvmexpress:uuid:"

bool pl_target_nvmet;

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* "nqn.YYYY-MM." with a real month. */
static bool nqn_date_ok(const char *s)
{
	int month;

	if (strncmp(s, "nqn.", 4) || !all_digits(s + 4, 4) || s[8] != '-' ||
	    !all_digits(s + 9, 2) || s[11] != '.')
		return false;
	month = (s[9] - '0') * 10 + (s[10] - '0');
	return month >= 1 && month <= 12;
}

/* Reverse domain: dot separated labels of letters, digits and dashes. */
static bool domain_ok(const char *s, size_t len)
{
	size_t label = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (!label)
				return false;
			label = 0;
		} else if (isalnum((unsigned char)s[i]) || s[i] == '-') {
			label++;
		} else {
			return false;
		}
	}
	return label > 0;
}

/* The user part becomes a directory name: no slash, blank or control. */
static bool nqn_tail_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '/' || c <= ' ' || c == 0x7f)
			return false;
	}
	return true;
}

/*
 * Names as Linux's nvmet and host take them: printable ASCII, no '/' (a
 * directory name), at most 223 bytes.  pl_warn_nqn_form() tells the ones
 * outside the specification's form.
 */
const char *pl_check_nqn_or_discovery(const char *s)
{
	size_t len = strlen(s);

	if (!len)
		return "must not be empty";
	if (len > PL_NQN_MAX)
		return "is longer than 223 bytes";
	for (const char *p = s; *p; p++)
		if (*p < 0x20 || *p > 0x7e || *p == '/')
			return "must be printable ASCII without '/'";
	return NULL;
}

const char *pl_warn_nqn_form(const char *s)
{
	const char *colon;
	size_t len = strlen(s);

	if (!strcmp(s, PL_DISCOVERY_NQN))
		return NULL;
	if (!strncmp(s, UUID_NQN_PREFIX, strlen(UUID_NQN_PREFIX)))
		return pl_check_uuid(s + strlen(UUID_NQN_PREFIX)) ?
			"must end in a UUID after 'nqn.2014-08.org.nvmexpress:uuid:'" : NULL;
	if (len < 12 || !nqn_date_ok(s))
		return "must start with 'nqn.YYYY-MM.' followed by a reverse domain name";
	colon = strchr(s + 12, ':');
	if (!colon || !domain_ok(s + 12, colon - (s + 12)))
		return "must be 'nqn.YYYY-MM.reverse.domain:name'";
	if (!nqn_tail_ok(colon + 1))
		return "must have a name after ':' without '/', blanks or control characters";
	return NULL;
}

const char *pl_check_nqn(const char *s)
{
	if (!strcmp(s, PL_DISCOVERY_NQN))
		return "is the discovery NQN, which is reserved";
	return pl_check_nqn_or_discovery(s);
}

static bool hex_run(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool uuid_ok(const char *s)
{
	static const size_t runs[] = { 8, 4, 4, 4, 12 };

	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		if (!hex_run(s, runs[i]))
			return false;
		s += runs[i];
		if (i + 1 < ARRAY_SIZE(runs) && *s++ != '-')
			return false;
	}
	return !*s;
}

const char *pl_check_uuid(const char *s)
{
	return uuid_ok(s) ? NULL : "must be a UUID like 0b0a5c9e-6a51-4d6d-9d0b-3f2e1c4b5a69";
}

/* 16 bytes in hex: UUID layout or 32 plain hex digits. */
const char *pl_check_nguid(const char *s)
{
	if (uuid_ok(s) || (strlen(s) == 32 && hex_run(s, 32)))
		return NULL;
	return "must be 32 hex digits, plain or in UUID layout";
}

/* Canonical unsigned decimal (no sign, no leading zero) within [lo, hi]. */
static bool dec_in_range(const char *s, long long lo, long long hi)
{
	size_t len = strlen(s);
	long long v;

	if (!all_digits(s, len) || (len > 1 && s[0] == '0') || len > 18)
		return false;
	if (!pl_parse_long(s, 10, &v))
		return false;
	return v >= lo && v <= hi;
}

/* Signed decimal where -1 means "let the transport choose". */
static bool int_or_default(const char *s, long long lo, long long hi)
{
	return !strcmp(s, "-1") || dec_in_range(s, lo, hi);
}

/* Purlin: NN = MNAN = 1024 (drivers/configfs.c); nvmet: any but 0 and 0xffffffff. */
const char *pl_check_nsid(const char *s)
{
	if (pl_target_nvmet)
		return dec_in_range(s, 1, 0xfffffffeLL) ? NULL :
			"must be a decimal in 1..4294967294";
	return dec_in_range(s, 1, 1024) ? NULL :
		"must be a decimal in 1..1024 (Purlin's namespace limit; nvmet: --target nvmet)";
}

const char *pl_check_portid(const char *s)
{
	return dec_in_range(s, 0, 65535) ? NULL : "must be a decimal in 0..65535";
}

const char *pl_check_grpid(const char *s)
{
	return dec_in_range(s, 1, 128) ? NULL : "must be a decimal in 1..128";
}

const char *pl_check_referral_name(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 64 || !strcmp(s, ".") || !strcmp(s, ".."))
		return "must be 1..64 characters of letters, digits, '.', '_' or '-'";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (!isalnum(c) && c != '.' && c != '_' && c != '-')
			return "must be 1..64 characters of letters, digits, '.', '_' or '-'";
	}
	return NULL;
}

/* Identify strings: printable ASCII, no padding blanks (they would not survive a read back). */
static bool ascii_field_ok(const char *s, size_t max)
{
	size_t len = strlen(s);

	if (!len || len > max || s[0] == ' ' || s[len - 1] == ' ')
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

const char *pl_check_serial(const char *s)
{
	return ascii_field_ok(s, 20) ? NULL : "must be 1..20 printable ASCII characters";
}

const char *pl_check_model(const char *s)
{
	return ascii_field_ok(s, 40) ? NULL : "must be 1..40 printable ASCII characters";
}

const char *pl_check_firmware(const char *s)
{
	return ascii_field_ok(s, 8) ? NULL : "must be 1..8 printable ASCII characters";
}

/* MAJOR.MINOR or MAJOR.MINOR.TERTIARY; field widths of the VS register. */
const char *pl_check_version(const char *s)
{
	static const long long max[] = { 65535, 255, 255 };
	const char *bad = "must be MAJOR.MINOR[.TERTIARY], e.g. 1.3";
	char buf[32];
	char *tok, *save;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		return bad;
	strcpy(buf, s);
	if (buf[0] == '.' || (*buf && buf[strlen(buf) - 1] == '.') || strstr(buf, ".."))
		return bad;
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		if (n >= ARRAY_SIZE(max) || !dec_in_range(tok, 0, max[n]))
			return bad;
		n++;
	}
	return n >= 2 ? NULL : bad;
}

const char *pl_check_bool(const char *s)
{
	return !strcmp(s, "0") || !strcmp(s, "1") ? NULL : "must be 0 or 1";
}

/* 0xfff0 and up are reserved controller ids. */
const char *pl_check_cntlid(const char *s)
{
	return dec_in_range(s, 1, 0xffef) ? NULL : "must be a decimal in 1..65519";
}

/* Both targets: NVMET_NR_QUEUES, PURLIN_MAX_QID. */
const char *pl_check_qid_max(const char *s)
{
	return dec_in_range(s, 1, 128) ? NULL : "must be a decimal in 1..128";
}

const char *pl_check_ieee_oui(const char *s)
{
	long long v;

	if (strchr(s, '-') || !pl_parse_long(s, 0, &v) || v < 0 || v > 0xffffff)
		return "must be a number in 0..0xffffff";
	return NULL;
}

const char *pl_check_path(const char *s)
{
	if (s[0] != '/' || strlen(s) >= PATH_MAX || strchr(s, '\n'))
		return "must be an absolute path";
	return NULL;
}

/*
 * A namespace's resv_file (configfs.md): "" for none, else an absolute path
 * naming a file (no trailing '/', no final "." or ".."), with room for the
 * ".tmp" the kernel writes beside it.
 */
const char *pl_check_resv_file(const char *s)
{
	const char *base = strrchr(s, '/');

	if (!*s)
		return NULL;
	if (s[0] != '/' || strchr(s, '\n'))
		return "must be an absolute path, or empty for none";
	if (strlen(s) + sizeof(".tmp") > PATH_MAX)
		return "is too long (the kernel writes PATH.tmp beside it)";
	if (!base[1] || !strcmp(base, "/.") || !strcmp(base, "/.."))
		return "must name a file, not a directory";
	return NULL;
}

static bool in_set(const char *s, const char *const *set)
{
	for (; *set; set++)
		if (!strcmp(s, *set))
			return true;
	return false;
}

const char *pl_check_trtype(const char *s)
{
	static const char *const set[] = { "rdma", "tcp", "fc", "loop", "pci", NULL };

	if (!pl_target_nvmet)
		return !strcmp(s, "rdma") ? NULL :
			"must be rdma: Purlin serves NVMe over RDMA only (nvmet: --target nvmet)";
	return in_set(s, set) ? NULL : "must be one of rdma, tcp, fc, loop, pci";
}

const char *pl_check_adrfam(const char *s)
{
	static const char *const set[] = { "ipv4", "ipv6", "ib", "fc", "pci", "pcie", "loop", NULL };
	static const char *const purlin[] = { "ipv4", "ipv6", NULL };

	if (!pl_target_nvmet)
		return in_set(s, purlin) ? NULL : "must be ipv4 or ipv6 (Purlin listens on IP addresses)";
	return in_set(s, set) ? NULL : "must be one of ipv4, ipv6, ib, fc, pci, pcie, loop";
}

const char *pl_check_treq(const char *s)
{
	static const char *const set[] = { "not specified", "required", "not required", NULL };

	return in_set(s, set) ? NULL : "must be one of 'not specified', 'required', 'not required'";
}

const char *pl_check_ana_state(const char *s)
{
	static const char *const set[] = { "optimized", "non-optimized", "inaccessible",
					   "persistent-loss", "change", NULL };

	return in_set(s, set) ? NULL :
		"must be one of optimized, non-optimized, inaccessible, persistent-loss, change";
}

/* Purlin checks its ranges at write time (drivers/configfs.c); nvmet leaves them to the transport. */
const char *pl_check_inline_size(const char *s)
{
	if (!pl_target_nvmet)
		return int_or_default(s, 0, 16384) ? NULL :
			"must be -1 (the default, 4096) or 0..16384 (Purlin's in-capsule limit)";
	return int_or_default(s, 0, 1 << 20) ? NULL : "must be -1 (transport default) or 0..1048576";
}

const char *pl_check_queue_size(const char *s)
{
	if (!pl_target_nvmet)
		return int_or_default(s, 16, 1024) ? NULL :
			"must be -1 (the default, 128) or 16..1024 (Purlin's queue limits)";
	return int_or_default(s, 2, 65536) ? NULL : "must be -1 (transport default) or 2..65536";
}

const char *pl_check_tos(const char *s)
{
	return int_or_default(s, 0, 255) ? NULL : "must be -1 (follow the host) or a ToS byte 0..255";
}

const char *pl_check_max_pending(const char *s)
{
	return int_or_default(s, 1, 65536) ? NULL : "must be -1 (the default) or 1..65536";
}

const char *pl_check_connect_timeout(const char *s)
{
	return int_or_default(s, 100, 600000) ? NULL :
		"must be -1 (the default, 10000) or 100..600000 milliseconds";
}

/* Limits per tenant (Purlin's qos_ files, drivers/qos.c): 0 is no limit. */
const char *pl_check_qos_iops(const char *s)
{
	return dec_in_range(s, 0, 100000000) ? NULL :
		"must be a decimal in 0..100000000 commands per second (0: no limit)";
}

const char *pl_check_qos_bps(const char *s)
{
	return dec_in_range(s, 0, 17592186044416LL) ? NULL :
		"must be a decimal in 0..17592186044416 bytes per second (0: no limit)";
}

const char *pl_check_qos_burst_ms(const char *s)
{
	return dec_in_range(s, 0, 10000) ? NULL :
		"must be a decimal in 0..10000 milliseconds (0: the default, 100)";
}

const char *pl_check_cq_mode(const char *s)
{
	static const char *const set[] = { "workqueue", "poll", NULL };

	return in_set(s, set) ? NULL : "must be workqueue or poll";
}

const char *pl_check_poll_usecs(const char *s)
{
	return int_or_default(s, 0, 100000) ? NULL :
		"must be -1 (the default, 50) or 0..100000 microseconds";
}

/* One CPU number of a list; the rest of s after it, or NULL. */
static const char *cpu_number(const char *s, long long *cpu)
{
	size_t len = strspn(s, "0123456789");
	char buf[8];

	if (!len || len >= sizeof(buf))
		return NULL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return dec_in_range(buf, 0, PL_CPU_MAX) && pl_parse_long(buf, 10, cpu) ? s + len : NULL;
}

bool pl_parse_cpulist(const char *s, unsigned char *set)
{
	long long lo, hi;

	if (!*s)
		return true;
	for (;;) {
		if (!(s = cpu_number(s, &lo)))
			return false;
		hi = lo;
		if (*s == '-' && (!(s = cpu_number(s + 1, &hi)) || hi < lo))
			return false;
		for (long long cpu = lo; set && cpu <= hi; cpu++)
			set[cpu / 8] |= 1u << (cpu % 8);
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
	}
}

const char *pl_check_poll_cpus(const char *s)
{
	return pl_parse_cpulist(s, NULL) ? NULL :
		"must be CPUs and ascending ranges like 0-3,8, or empty (the RDMA device's NUMA node)";
}

/* Purlin's param_srq_size: 0 is no SRQ (each queue its own buffers), 1..15 too few. */
const char *pl_check_srq_size(const char *s)
{
	return int_or_default(s, 16, 4096) || !strcmp(s, "0") ? NULL :
		"must be -1 (the default, 0), 0 (off) or 16..4096 receive buffers";
}

const char *pl_check_mdts(const char *s)
{
	return int_or_default(s, 0, 255) ? NULL : "must be -1 (transport default) or 0..255";
}

static bool is_ip_family(const char *adrfam, int *af)
{
	if (!adrfam || !strcmp(adrfam, "ipv4")) {
		*af = AF_INET;
		return true;
	}
	if (!strcmp(adrfam, "ipv6")) {
		*af = AF_INET6;
		return true;
	}
	return false;
}

/* NVMF_TRADDR_SIZE is 256 bytes. */
const char *pl_check_traddr(const char *adrfam, const char *s)
{
	unsigned char addr[sizeof(struct in6_addr)];
	int af;

	if (is_ip_family(adrfam, &af)) {
		if (inet_pton(af, s, addr) != 1)
			return af == AF_INET ? "must be an IPv4 address" : "must be an IPv6 address";
		return NULL;
	}
	if (!*s || strlen(s) > 255 || strpbrk(s, " \t\n"))
		return "must be 1..255 characters without blanks";
	return NULL;
}

/* NVMF_TRSVCID_SIZE is 32 bytes; IP transports use a port number. */
const char *pl_check_trsvcid(const char *adrfam, const char *s)
{
	int af;

	if (is_ip_family(adrfam, &af))
		return dec_in_range(s, 1, 65535) ? NULL : "must be a port number in 1..65535";
	if (!*s || strlen(s) > 32 || strpbrk(s, " \t\n"))
		return "must be 1..32 characters without blanks";
	return NULL;
}

const char *pl_check_attr_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return "is not a valid attribute name";
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return "is not a valid attribute name";
	return NULL;
}

const char *pl_check_attr_value(const char *s)
{
	if (strlen(s) >= 4096 || strchr(s, '\n'))
		return "must be a single line shorter than 4096 bytes";
	return NULL;
}

/* A value of several lines (one configfs page at most). */
const char *pl_check_attr_text(const char *s)
{
	return strlen(s) >= 4096 ? "must be shorter than 4096 bytes" : NULL;
}

const char *pl_parse_bool(const char *s)
{
	static const char *const yes[] = { "on", "1", "yes", "true", NULL };
	static const char *const no[] = { "off", "0", "no", "false", NULL };

	if (in_set(s, yes))
		return "1";
	if (in_set(s, no))
		return "0";
	return NULL;
}

/* "name=V" with V canonical decimal in [0, hi]; *v gets it. */
static bool resv_num(const char *tok, const char *name, long long hi, long long *v)
{
	size_t n = strlen(name);

	if (!tok || strncmp(tok, name, n) || tok[n] != '=' || !dec_in_range(tok + n + 1, 0, hi))
		return false;
	return pl_parse_long(tok + n + 1, 10, v);
}

/*
 * A namespace's reservation state as resv_state shows it (configfs.md):
 *   generation=N type=0..6 ptpl=0|1
 *   registrant hostid=UUID rkey=0x<16 hex digits> holder=0|1   (0..32 lines)
 * No reservation (type 0): no holder; All Registrants (5, 6): every
 * registrant holds; the other types: exactly one holder.
 */
const char *pl_check_resv_state(const char *s)
{
	char ids[PL_RESV_MAX_REGS][37], line[128], id[37], key[19];
	long long gen, type, ptpl, nr = 0, holders = 0;
	const char *p = s;
	char *save, *t1, *t2, *t3;
	int used, hold;
	size_t n;

	n = strcspn(p, "\n");
	if (n >= sizeof(line))
		return "must start with a line generation=N type=T ptpl=P";
	memcpy(line, p, n);
	line[n] = '\0';
	p += n + (p[n] == '\n');
	t1 = strtok_r(line, " ", &save);
	t2 = strtok_r(NULL, " ", &save);
	t3 = strtok_r(NULL, " ", &save);
	if (!resv_num(t1, "generation", 0xffffffffLL, &gen) || !resv_num(t2, "type", 6, &type) ||
	    !resv_num(t3, "ptpl", 1, &ptpl) || strtok_r(NULL, " ", &save))
		return "must start with a line generation=N type=T ptpl=P (T 0..6, P 0 or 1)";
	while (*p) {
		n = strcspn(p, "\n");
		if (nr == PL_RESV_MAX_REGS)
			return "holds more than 32 registrants";
		if (n >= sizeof(line))
			return "has a registrant line too long";
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (p[n] == '\n');
		used = -1;
		if (sscanf(line, "registrant hostid=%36s rkey=%18s holder=%1d%n", id, key, &hold,
			   &used) != 3 || used != (int)n || !uuid_ok(id) || strlen(key) != 18 ||
		    strncmp(key, "0x", 2) || !hex_run(key + 2, 16) || hold < 0 || hold > 1)
			return "registrant lines must be: registrant hostid=UUID rkey=0x<16 hex digits> holder=0|1";
		for (long long i = 0; i < nr; i++)
			if (!strcasecmp(ids[i], id))
				return "names a host ID twice";
		strcpy(ids[nr++], id);
		holders += hold;
	}
	if (type == 0 ? holders != 0 : type >= 5 ? !nr || holders != nr : holders != 1)
		return "holders do not fit the type: none without a reservation, every registrant under types 5 and 6, else exactly one";
	(void)gen;
	(void)ptpl;
	return NULL;
}
