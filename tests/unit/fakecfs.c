// SPDX-License-Identifier: GPL-2.0
/*
 * A directory tree that behaves like Purlin's configfs (drivers/configfs.c),
 * or like Linux 6.1's nvmet configfs (fake_target = FAKE_NVMET, the nvmet
 * the guest tests run), enough for purlinctl's tests: mkdir creates the
 * attribute files and default groups the kernel would, with the kernel's
 * defaults; every write is parsed, refused with the kernel's errno or
 * stored as the kernel would show it (an empty one never reaches the
 * attribute: configfs says EFAULT); mkdir, rmdir, symlink and unlink
 * follow the VFS's and configfs's own rules (EEXIST, EPERM for default
 * groups and objects without links, EBUSY for a link target, ENOTEMPTY)
 * and the objects' (allowed hosts, port enable on the first link, ...).
 *
 * The rules are checked against the real kernels: tests/vm/data/configfs-ops.txt
 * is replayed here (test_cfs_model.c) and in a guest on Purlin and nvmet
 * (tests/vm/tests/purlin-cfs-model.sh), with the same expected results.
 *
 * Devices: /dev/nullbN and /dev/ramN exist as block devices in the fake's
 * world, and the regular files a test adds with fakecfs_add_file(); any
 * other device_path is looked up on the real file system (ENOENT when
 * missing; a directory or character device is neither).
 * It lives in the tests only: purlinctl itself talks to real configfs.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs.h"
#include "dhchap.h"
#include "harness.h"

enum fake_target fake_target;
bool fake_old_nvmet;
static struct strv fake_files;

void fakecfs_add_file(const char *path)
{
	strv_add(&fake_files, path);
}

static bool nvmet(void)
{
	return fake_target == FAKE_NVMET || fake_old_nvmet;
}

enum fake_kind {
	FK_NONE,
	FK_ROOT,	/* the target's root: discovery_nqn */
	FK_TOP,		/* hosts/, subsystems/, ports/, Purlin's controllers/ */
	FK_HOST,
	FK_SUBSYS,
	FK_SUBSYS_GROUP,	/* subsystems/X/namespaces, allowed_hosts */
	FK_NS,
	FK_ALLOWED_LINK,
	FK_PORT,
	FK_PORT_GROUP,	/* ports/X/subsystems, referrals, ana_groups */
	FK_PORT_LINK,
	FK_REFERRAL,
	FK_ANA,
};

/* Split rel (relative to test_root) into at most 6 components. */
static size_t split(const char *path, char parts[6][256])
{
	const char *p = path;
	size_t n = 0, root = strlen(test_root);

	if (!strncmp(p, test_root, root) && (p[root] == '/' || !p[root]))
		p += root;
	else
		return 0;
	while (*p == '/')
		p++;
	while (*p && n < 6) {
		size_t len = strcspn(p, "/");

		snprintf(parts[n++], 256, "%.*s", (int)len, p);
		p += len;
		while (*p == '/')
			p++;
	}
	return *p ? 0 : n;
}

/* path resolved, as test_root/..., or NULL when it lies outside the tree. */
static char *tree_path(const char *path)
{
	char *real = realpath(path, NULL), *root = realpath(test_root, NULL), *out = NULL;
	size_t len = root ? strlen(root) : 0;

	if (real && root && !strncmp(real, root, len) && (real[len] == '/' || !real[len]) &&
	    asprintf(&out, "%s%s", test_root, real + len) < 0)
		abort();
	free(real);
	free(root);
	return out;
}

static enum fake_kind classify(const char *path)
{
	char c[6][256];
	size_t n = split(path, c);

	if (!strcmp(path, test_root))
		return FK_ROOT;
	if (n == 1 && (!strcmp(c[0], "hosts") || !strcmp(c[0], "subsystems") ||
		       !strcmp(c[0], "ports") || !strcmp(c[0], "controllers")))
		return FK_TOP;
	if (n == 2 && !strcmp(c[0], "hosts"))
		return FK_HOST;
	if (n >= 2 && !strcmp(c[0], "subsystems")) {
		if (n == 2)
			return FK_SUBSYS;
		if (n == 3 && (!strcmp(c[2], "namespaces") || !strcmp(c[2], "allowed_hosts")))
			return FK_SUBSYS_GROUP;
		if (n == 4 && !strcmp(c[2], "namespaces"))
			return FK_NS;
		if (n == 4 && !strcmp(c[2], "allowed_hosts"))
			return FK_ALLOWED_LINK;
	}
	if (n >= 2 && !strcmp(c[0], "ports")) {
		if (n == 2)
			return FK_PORT;
		if (n == 3 && (!strcmp(c[2], "subsystems") || !strcmp(c[2], "referrals") ||
			       !strcmp(c[2], "ana_groups")))
			return FK_PORT_GROUP;
		if (n == 4 && !strcmp(c[2], "subsystems"))
			return FK_PORT_LINK;
		if (n == 4 && !strcmp(c[2], "referrals"))
			return FK_REFERRAL;
		if (n == 4 && !strcmp(c[2], "ana_groups"))
			return FK_ANA;
	}
	return FK_NONE;
}

/* ---- files ---------------------------------------------------------------- */

static char *join(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		abort();
	return path;
}

static void put_mode(const char *dir, const char *name, const char *value, mode_t mode)
{
	char *path = join(dir, name);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, value, strlen(value)) < 0 || write(fd, "\n", 1) < 0)
		abort();
	close(fd);
	if (chmod(path, mode))
		abort();
	free(path);
}

static void put(const char *dir, const char *name, const char *value)
{
	char *path = join(dir, name);
	struct stat st;

	put_mode(dir, name, value, stat(path, &st) ? 0644 : st.st_mode & 07777);
	free(path);
}

static char *get(const char *dir, const char *name)
{
	char *path = join(dir, name), *val;

	val = slurp(path);
	free(path);
	if (val)
		pl_rstrip(val);
	return val;
}

static bool get_is(const char *dir, const char *name, const char *want)
{
	char *val = get(dir, name);
	bool is = val && !strcmp(val, want);

	free(val);
	return is;
}

static char *parent_of(const char *path)
{
	char *dir = strdup(path);

	*strrchr(dir, '/') = '\0';
	return dir;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISDIR(st.st_mode);
}

/* Does directory dir/group hold anything but the entry allowed (NULL: none)? */
static bool group_empty(const char *dir, const char *group, const char *allowed)
{
	char *path = join(dir, group);
	struct dirent *de;
	DIR *d;
	bool empty = true;

	d = opendir(path);
	free(path);
	if (!d)
		return true;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    (!allowed || strcmp(de->d_name, allowed)))
			empty = false;
	closedir(d);
	return empty;
}

/* Do a and b (links followed) name the same directory? */
static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Is any link of top/<x>/<linkdir>/ (e.g. subsystems/<x>/allowed_hosts) pointing at target? */
static bool linked_from(const char *top, const char *linkdir, const char *target)
{
	char *path = join(test_root, top);
	struct dirent *de, *le;
	bool found = false;
	DIR *d = opendir(path), *ld;

	while (d && !found && (de = readdir(d))) {
		char *ldir;

		if (de->d_name[0] == '.')
			continue;
		if (asprintf(&ldir, "%s/%s/%s", path, de->d_name, linkdir) < 0)
			abort();
		ld = opendir(ldir);
		while (ld && !found && (le = readdir(ld))) {
			char *link = join(ldir, le->d_name);
			struct stat st;

			found = !lstat(link, &st) && S_ISLNK(st.st_mode) && same_dir(link, target);
			free(link);
		}
		if (ld)
			closedir(ld);
		free(ldir);
	}
	if (d)
		closedir(d);
	free(path);
	return found;
}

/* ---- the kernel's parsers --------------------------------------------------- */

/*
 * kstrtoull()/kstrtoll(): an optional sign ('-' only when is_signed), the
 * base 0 prefixes, at least one digit, one optional newline, nothing else.
 * -EINVAL, or -ERANGE on overflow.
 */
static int k_strtoll(const char *s, unsigned int base, bool is_signed, long long *res)
{
	unsigned long long v = 0;
	bool neg = false, any = false;

	if (is_signed && *s == '-') {
		neg = true;
		s++;
	} else if (*s == '+') {
		s++;
	}
	if (base == 0) {
		if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
		    isxdigit((unsigned char)s[2]))
			base = 16;
		else
			base = s[0] == '0' ? 8 : 10;
	}
	if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	for (;; s++, any = true) {
		unsigned int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (ULLONG_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (!any)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (is_signed && (neg ? v > (unsigned long long)LLONG_MAX + 1 : v > LLONG_MAX))
		return -ERANGE;
	*res = neg ? (long long)(0 - v) : (long long)v;
	return 0;
}

/* kstrtou16/u32/int: k_strtoll() within [lo, hi], else -ERANGE. */
static int k_strto(const char *s, unsigned int base, long long lo, long long hi, long long *res)
{
	int ret = k_strtoll(s, base, lo < 0, res);

	if (!ret && (*res < lo || *res > hi))
		ret = -ERANGE;
	return ret;
}

#define K_U16 0, 0xffff
#define K_U32 0, 0xffffffffLL
#define K_INT INT_MIN, INT_MAX

/* kstrtobool(): only the first one or two characters count. */
static int k_strtobool(const char *s, bool *res)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

/* The kernel's sscanf("%hu"): blanks, decimal digits, truncated to 16 bits; the rest ignored. */
static int k_scan_u16(const char *s, long long *res)
{
	unsigned long long v = 0;
	bool any = false;

	while (isspace((unsigned char)*s))
		s++;
	for (; isdigit((unsigned char)*s); s++, any = true)
		v = v * 10 + (*s - '0');
	*res = (uint16_t)v;
	return any ? 0 : -EINVAL;
}

/* purlin_strip(): the text up to the first newline, shorter than size. */
static int p_strip(const char *val, size_t size, char *out)
{
	size_t len = strcspn(val, "\n");

	if (len >= size)
		return -EINVAL;
	memcpy(out, val, len);
	out[len] = '\0';
	return (int)len;
}

/* sysfs_streq(): equal but for one trailing newline on either. */
static bool k_streq(const char *a, const char *b)
{
	size_t la = strcspn(a, "\n"), lb = strlen(b);

	return la == lb && !strncmp(a, b, la) && (!a[la] || !strcmp(a + la, "\n"));
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

/* uuid_is_valid(): 36 characters, dashes at 8, 13, 18 and 23, hex elsewhere. */
static bool k_uuid_valid(const char *s)
{
	for (int i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit((unsigned char)s[i])) {
			return false;
		}
	}
	return true;
}

/* 16 bytes shown as the kernel's %pUb. */
static void show_uuid(const unsigned char *b, char *out)
{
	char *o = out;

	for (int i = 0; i < 16; i++) {
		o += sprintf(o, "%02x", b[i]);
		if (i == 3 || i == 5 || i == 7 || i == 9)
			*o++ = '-';
	}
	*o = '\0';
}

static void uuid_bytes(const char *s, unsigned char *b)
{
	for (int i = 0, n = 0; n < 16; i += 2, n++) {
		if (s[i] == '-')
			i++;
		sscanf(s + i, "%2hhx", &b[n]);
	}
}

/* A block device or regular file in the fake's world: 0 or -errno. */
static int device_check(const char *path, bool for_nvmet)
{
	struct stat st;
	unsigned int n;
	char tail;

	if (sscanf(path, "/dev/nullb%u%c", &n, &tail) == 1 ||
	    sscanf(path, "/dev/ram%u%c", &n, &tail) == 1 || strv_has(&fake_files, path))
		return 0;
	if (stat(path, &st))
		return -errno;
	if (S_ISBLK(st.st_mode) || S_ISREG(st.st_mode))
		return 0;
	/* nvmet opens anything else as a file: a directory is EISDIR */
	if (for_nvmet)
		return S_ISDIR(st.st_mode) ? -EISDIR : 0;
	return -EINVAL;
}

static bool addr_parses(const char *adrfam, const char *traddr)
{
	unsigned char buf[16];

	if (!strcmp(adrfam, "ipv4"))
		return inet_pton(AF_INET, traddr, buf) == 1;
	if (!strcmp(adrfam, "ipv6"))
		return inet_pton(AF_INET6, traddr, buf) == 1;
	return false;
}

/* ---- attribute stores -------------------------------------------------------- */

/*
 * A store parses val (what write(2) handed the kernel, maybe with a
 * trailing newline) for the object in dir and either refuses it (-errno)
 * or puts what the attribute will show in out (PATH_MAX bytes).
 */
struct fake_ctx {
	const char *dir;
	const char *val;
	char *out;
};

typedef int (*fake_store)(struct fake_ctx *c);

struct fake_attr {
	const char *name;
	const char *purlin;	/* Purlin's default; NULL: Purlin has no such attribute */
	const char *nvmet;	/* nvmet's (Linux 6.1) default; NULL: nvmet has none */
	mode_t mode;		/* 0644, 0444 (read-only) or 0200 (write-only) */
	fake_store store;
};

static int show_num(struct fake_ctx *c, long long v)
{
	snprintf(c->out, PATH_MAX, "%lld", v);
	return 0;
}

static int st_bool(struct fake_ctx *c)
{
	bool v;

	if (k_strtobool(c->val, &v))
		return -EINVAL;
	return show_num(c, v);
}

static int st_allow_any_host(struct fake_ctx *c)
{
	bool v;

	if (k_strtobool(c->val, &v))
		return -EINVAL;
	if (v && !group_empty(c->dir, "allowed_hosts", NULL))
		return -EINVAL;
	return show_num(c, v);
}

/* serial, model, firmware: 1..max printable characters. */
static int st_ident(struct fake_ctx *c, size_t max)
{
	int len = p_strip(c->val, nvmet() ? PATH_MAX : max + 1, c->out);

	if (len <= 0 || (size_t)len > max || !printable(c->out))
		return -EINVAL;
	return 0;
}

static int st_serial(struct fake_ctx *c)
{
	return st_ident(c, 20);
}

static int st_model(struct fake_ctx *c)
{
	return st_ident(c, 40);
}

static int st_firmware(struct fake_ctx *c)
{
	return st_ident(c, 8);
}

static int st_version(struct fake_ctx *c)
{
	unsigned int major, minor, ter = 0;
	char buf[24];
	int len = 0, n;

	if (nvmet()) {
		/* sscanf("%d.%d.%d\n"): two or three numbers, the rest ignored */
		n = sscanf(c->val, "%u.%u.%u", &major, &minor, &ter);
		if (n != 2 && n != 3)
			return -EINVAL;
	} else {
		if (p_strip(c->val, sizeof(buf), buf) <= 0)
			return -EINVAL;
		n = sscanf(buf, "%u.%u%n.%u%n", &major, &minor, &len, &ter, &len);
		if (n < 2 || buf[len] || major == 0 || major > 0xffff || minor > 0xff ||
		    ter > 0xff)
			return -EINVAL;
	}
	if (ter)
		snprintf(c->out, PATH_MAX, "%u.%u.%u", major, minor, ter);
	else
		snprintf(c->out, PATH_MAX, "%u.%u", major, minor);
	return 0;
}

/* cntlid_min/max: Purlin 1..0xffef with min <= max; nvmet any u16 but 0 with min < max. */
static int st_cntlid(struct fake_ctx *c, bool is_min)
{
	char *other = get(c->dir, is_min ? "attr_cntlid_max" : "attr_cntlid_min");
	long long v, o = other ? strtoll(other, NULL, 10) : 0;
	int ret;

	free(other);
	if (nvmet()) {
		if (k_scan_u16(c->val, &v) || v == 0 || (is_min ? v >= o : v <= o))
			return -EINVAL;
	} else {
		ret = k_strto(c->val, 0, K_U16, &v);
		if (ret || v == 0 || v > 0xffef || (is_min ? v > o : v < o))
			return -EINVAL;
	}
	return show_num(c, v);
}

static int st_cntlid_min(struct fake_ctx *c)
{
	return st_cntlid(c, true);
}

static int st_cntlid_max(struct fake_ctx *c)
{
	return st_cntlid(c, false);
}

static int st_qid_max(struct fake_ctx *c)
{
	long long v;

	if (nvmet() ? k_scan_u16(c->val, &v) : k_strto(c->val, 0, K_U16, &v))
		return -EINVAL;
	if (v < 1 || v > 128)
		return -EINVAL;
	return show_num(c, v);
}

static int st_ieee_oui(struct fake_ctx *c)
{
	long long v;

	if (k_strto(c->val, 0, K_U32, &v) || v > 0xffffff)
		return -EINVAL;
	snprintf(c->out, PATH_MAX, "0x%06llx", v);
	return 0;
}

/* attr_vendor_id, attr_subsys_vendor_id: u16, base 0, shown as 0x%x. */
static int st_vendor_id(struct fake_ctx *c)
{
	long long v;

	if (k_strto(c->val, 0, K_U16, &v))
		return -EINVAL;
	snprintf(c->out, PATH_MAX, "0x%llx", v);
	return 0;
}

static bool ns_enabled(const char *dir)
{
	return get_is(dir, "enable", "1");
}

static int st_device_path(struct fake_ctx *c)
{
	int len, ret;

	if (nvmet()) {
		if (ns_enabled(c->dir))
			return -EBUSY;
		return p_strip(c->val, PATH_MAX, c->out) <= 0 ? -EINVAL : 0;
	}
	len = p_strip(c->val, PATH_MAX, c->out);
	if (len <= 0 || c->out[0] != '/')
		return -EINVAL;
	ret = device_check(c->out, false);
	if (ret)
		return ret;
	return ns_enabled(c->dir) ? -EBUSY : 0;
}

static int st_device_uuid(struct fake_ctx *c)
{
	unsigned char b[16];
	char buf[40];

	if (nvmet()) {
		if (ns_enabled(c->dir))
			return -EBUSY;
		if (!k_uuid_valid(c->val))
			return -EINVAL;
		uuid_bytes(c->val, b);
	} else {
		if (p_strip(c->val, 37, buf) != 36 || !k_uuid_valid(buf))
			return -EINVAL;
		if (ns_enabled(c->dir))
			return -EBUSY;
		uuid_bytes(buf, b);
	}
	show_uuid(b, c->out);
	return 0;
}

static int st_device_nguid(struct fake_ctx *c)
{
	unsigned char b[16];
	const char *p = c->val;
	char buf[64];

	if (nvmet()) {
		if (ns_enabled(c->dir))
			return -EBUSY;
		/* 16 hex pairs, each maybe followed by '-' or ':'; the rest ignored */
		for (int i = 0; i < 16; i++) {
			if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
				return -EINVAL;
			sscanf(p, "%2hhx", &b[i]);
			p += 2;
			if (*p == '-' || *p == ':')
				p++;
		}
	} else {
		if (p_strip(c->val, sizeof(buf), buf) < 32)
			return -EINVAL;
		p = buf;
		for (int i = 0; i < 16; i++) {
			if (*p == '-')
				p++;
			if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]))
				return -EINVAL;
			sscanf(p, "%2hhx", &b[i]);
			p += 2;
		}
		if (*p)
			return -EINVAL;
		if (ns_enabled(c->dir))
			return -EBUSY;
	}
	show_uuid(b, c->out);
	return 0;
}

static int st_ns_enable(struct fake_ctx *c)
{
	char *path;
	bool v;
	int ret = 0;

	if (k_strtobool(c->val, &v))
		return -EINVAL;
	if (v && !ns_enabled(c->dir)) {
		path = get(c->dir, "device_path");
		if (!path || !*path || (nvmet() && !strcmp(path, "(null)")))
			ret = -EINVAL;
		else
			ret = device_check(path, nvmet());
		free(path);
	}
	return ret ? ret : show_num(c, v);
}

static int st_buffered_io(struct fake_ctx *c)
{
	bool v;

	if (k_strtobool(c->val, &v))
		return -EINVAL;
	if (ns_enabled(c->dir))
		return nvmet() ? -EINVAL : -EBUSY;
	return show_num(c, v);
}

/* resv_enable: only while disabled; off drops the reservation state. */
static int st_resv_enable(struct fake_ctx *c)
{
	bool v;

	if (k_strtobool(c->val, &v))
		return -EINVAL;
	if (ns_enabled(c->dir))
		return -EBUSY;
	if (!v)
		put(c->dir, "resv_state", "generation=0 type=0 ptpl=0");
	return show_num(c, v);
}

/* "name=value" (one blank-separated word of *s): the value, or NULL. */
static const char *resv_field(char **s, const char *name)
{
	char *tok = strsep(s, " ");
	size_t n = strlen(name);

	if (!tok || strncmp(tok, name, n) || tok[n] != '=' || !tok[n + 1])
		return NULL;
	return tok + n + 1;
}

static bool resv_u32(char **s, const char *name, long long max, long long *v)
{
	const char *val = resv_field(s, name);

	return val && *val != '+' && !k_strto(val, 10, 0, max, v);
}

/*
 * resv_state (drivers/resv.c, configfs.md): the header line, then one line
 * per registrant; checked whole, shown normalised (lower-case hex).
 */
static int st_resv_state(struct fake_ctx *c)
{
	char *buf = strdup(c->val), *s = buf, *line, *o = c->out;
	char hostids[32][37];
	long long gen, type, ptpl, holder;
	int nr = 0, holders = 0, ret = -EINVAL;
	const char *v;

	if (ns_enabled(c->dir)) {
		free(buf);
		return -EBUSY;
	}
	if (!*s)
		goto out;
	line = strsep(&s, "\n");
	if (!resv_u32(&line, "generation", 0xffffffffLL, &gen) ||
	    !resv_u32(&line, "type", 6, &type) ||
	    !resv_u32(&line, "ptpl", 1, &ptpl) || line)
		goto out;
	o += snprintf(o, PATH_MAX, "generation=%lld type=%lld ptpl=%lld", gen, type, ptpl);
	while (s && *s) {
		line = strsep(&s, "\n");
		if (nr == 32) {
			ret = -E2BIG;
			goto out;
		}
		if (strncmp(line, "registrant ", 11))
			goto out;
		line += 11;
		v = resv_field(&line, "hostid");
		if (!v || strlen(v) != 36 || !k_uuid_valid(v))
			goto out;
		for (int i = 0; i < 37; i++)
			hostids[nr][i] = (char)tolower((unsigned char)v[i]);
		for (int i = 0; i < nr; i++)
			if (!strcmp(hostids[i], hostids[nr]))
				goto out;
		v = resv_field(&line, "rkey");
		if (!v || strlen(v) != 18 || strncmp(v, "0x", 2))
			goto out;
		for (int i = 2; i < 18; i++)
			if (!isxdigit((unsigned char)v[i]))
				goto out;
		if (!resv_u32(&line, "holder", 1, &holder) || line)
			goto out;
		holders += holder;
		o += sprintf(o, "\nregistrant hostid=%s rkey=0x%016llx holder=%lld",
			     hostids[nr], strtoull(v + 2, NULL, 16), holder);
		nr++;
	}
	if (type == 0 ? holders != 0 : type >= 5 ? !nr || holders != nr : holders != 1)
		goto out;
	/* reservations off: only the empty state they show */
	if (!get_is(c->dir, "resv_enable", "1") && (gen || type || ptpl || nr))
		goto out;
	ret = 0;
out:
	free(buf);
	return ret;
}

/*
 * resv_file (drivers/resv.c purlin_resv_set_file()): one line, "" for
 * none or an absolute path naming a file, not the device; only while
 * disabled.
 */
static int st_resv_file(struct fake_ctx *c)
{
	int len = p_strip(c->val, PATH_MAX, c->out);
	const char *base = strrchr(c->out, '/');
	char *dev;
	bool same;

	if (len < 0 || (c->val[len] && c->val[len + 1]))
		return -EINVAL;
	if (ns_enabled(c->dir))
		return -EBUSY;
	if (!len)
		return 0;
	if (c->out[0] != '/' || !base[1] || !strcmp(base, "/.") || !strcmp(base, "/..") ||
	    len + sizeof(".tmp") > PATH_MAX)
		return -EINVAL;
	dev = get(c->dir, "device_path");
	same = dev && !strcmp(dev, c->out);
	free(dev);
	return same ? -EINVAL : 0;
}

static int st_ana_grpid(struct fake_ctx *c)
{
	long long v;
	int ret = k_strto(c->val, 0, K_U32, &v);

	if (ret)
		return nvmet() ? ret : -EINVAL;
	if (v < 1 || v > 128)
		return -EINVAL;
	return show_num(c, v);
}

/*
 * Purlin's limits per tenant, qos_* of hosts and namespaces: kstrtou64()
 * in decimal, then the range; every refusal is -EINVAL.
 */
static int st_qos(struct fake_ctx *c, long long max)
{
	long long v;

	if (k_strto(c->val, 10, 0, LLONG_MAX, &v) || v > max)
		return -EINVAL;
	return show_num(c, v);
}

static int st_qos_iops(struct fake_ctx *c)
{
	return st_qos(c, 100000000);
}

static int st_qos_bps(struct fake_ctx *c)
{
	return st_qos(c, 1LL << 44);
}

static int st_qos_burst_ms(struct fake_ctx *c)
{
	return st_qos(c, 10000);
}

/* Write-only: nothing is stored. */
static int st_revalidate_size(struct fake_ctx *c)
{
	bool v;

	if (k_strtobool(c->val, &v) || !v)
		return -EINVAL;
	if (!ns_enabled(c->dir))
		return nvmet() ? -EINVAL : -ENODEV;
	c->out[0] = '\0';
	return 0;
}

/* Is the port (its subsystems linked) or referral (enable 1) enabled? */
static bool addr_frozen(const char *dir)
{
	if (classify(dir) == FK_REFERRAL)
		return get_is(dir, "enable", "1");
	return !group_empty(dir, "subsystems", NULL);
}

/*
 * addr_*: Purlin takes at most 255 bytes, refuses changes while enabled,
 * then parses; nvmet refuses changes first (traddr and trsvcid check
 * their length before that) and parses less.
 */
static int addr_store(struct fake_ctx *c, int (*parse)(struct fake_ctx *c, const char *v),
		      size_t nvmet_max)
{
	char buf[256];

	if (nvmet()) {
		if (nvmet_max && strlen(c->val) > nvmet_max)
			return -EINVAL;
		if (addr_frozen(c->dir))
			return -EACCES;
		return parse(c, c->val);
	}
	if (p_strip(c->val, sizeof(buf), buf) < 0)
		return -EINVAL;
	if (addr_frozen(c->dir))
		return -EACCES;
	return parse(c, buf);
}

static int pick(struct fake_ctx *c, const char *v, const char *const *names)
{
	for (; *names; names++) {
		if (nvmet() ? k_streq(v, *names) : !strcmp(v, *names)) {
			snprintf(c->out, PATH_MAX, "%s", *names);
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_trtype(struct fake_ctx *c, const char *v)
{
	static const char *const purlin[] = { "rdma", NULL };
	static const char *const others[] = { "rdma", "fc", "tcp", "loop", NULL };

	return pick(c, v, nvmet() ? others : purlin);
}

static int parse_adrfam(struct fake_ctx *c, const char *v)
{
	static const char *const purlin[] = { "ipv4", "ipv6", NULL };
	static const char *const others[] = { "ipv4", "ipv6", "ib", "fc", "loop", NULL };

	return pick(c, v, nvmet() ? others : purlin);
}

static int parse_treq(struct fake_ctx *c, const char *v)
{
	static const char *const names[] = { "not specified", "required", "not required", NULL };

	return pick(c, v, names);
}

/* nvmet's sscanf("%s"): the first word. */
static int scan_word(struct fake_ctx *c, const char *v)
{
	while (isspace((unsigned char)*v))
		v++;
	if (!*v)
		return -EINVAL;
	snprintf(c->out, PATH_MAX, "%.*s", (int)strcspn(v, " \t\n"), v);
	return 0;
}

static int parse_traddr(struct fake_ctx *c, const char *v)
{
	char *adrfam;
	bool ok;

	if (nvmet())
		return scan_word(c, v);
	adrfam = get(c->dir, "addr_adrfam");
	ok = adrfam && addr_parses(adrfam, v);
	free(adrfam);
	if (!ok)
		return -EINVAL;
	snprintf(c->out, PATH_MAX, "%s", v);
	return 0;
}

static int parse_trsvcid(struct fake_ctx *c, const char *v)
{
	long long n;

	if (nvmet())
		return scan_word(c, v);
	if (k_strto(v, 10, K_U16, &n) || n == 0)
		return -EINVAL;
	return show_num(c, n);
}

static int parse_portid(struct fake_ctx *c, const char *v)
{
	long long n;

	if (k_strto(v, nvmet() ? 0 : 10, K_U16, &n))
		return -EINVAL;
	return show_num(c, n);
}

static int st_trtype(struct fake_ctx *c)
{
	return addr_store(c, parse_trtype, 0);
}

static int st_adrfam(struct fake_ctx *c)
{
	return addr_store(c, parse_adrfam, 0);
}

static int st_traddr(struct fake_ctx *c)
{
	return addr_store(c, parse_traddr, 256);
}

static int st_trsvcid(struct fake_ctx *c)
{
	return addr_store(c, parse_trsvcid, 32);
}

static int st_treq(struct fake_ctx *c)
{
	return addr_store(c, parse_treq, 0);
}

/* Purlin checks addr_portid like the other addr_ files; nvmet parses it first. */
static int st_portid(struct fake_ctx *c)
{
	int ret;

	if (nvmet()) {
		ret = parse_portid(c, c->val);
		return ret ? ret : addr_frozen(c->dir) ? -EACCES : 0;
	}
	return addr_store(c, parse_portid, 0);
}

/* Purlin's param_*: -1 means def; min..max; parsed before the enabled check. */
static int st_param(struct fake_ctx *c, long long def, long long min, long long max)
{
	long long v;

	if (nvmet()) {
		if (addr_frozen(c->dir))
			return -EACCES;
		if (k_strto(c->val, 0, K_INT, &v))
			return -EINVAL;
		return show_num(c, v);
	}
	if (k_strto(c->val, 0, K_INT, &v))
		return -EINVAL;
	if (v == -1)
		v = def;
	if (v < min || v > max)
		return -EINVAL;
	if (addr_frozen(c->dir))
		return -EACCES;
	return show_num(c, v);
}

static int st_inline_data_size(struct fake_ctx *c)
{
	return st_param(c, 4096, 0, 16384);
}

static int st_max_queue_size(struct fake_ctx *c)
{
	return st_param(c, 128, 16, 1024);
}

static int st_max_pending(struct fake_ctx *c)
{
	return st_param(c, 64, 1, 65536);
}

static int st_max_pending_per_addr(struct fake_ctx *c)
{
	return st_param(c, 16, 1, 65536);
}

static int st_connect_timeout(struct fake_ctx *c)
{
	return st_param(c, 10000, 100, 600000);
}

static int st_tos(struct fake_ctx *c)
{
	return st_param(c, -1, -1, 255);
}

static int st_poll_usecs(struct fake_ctx *c)
{
	return st_param(c, 50, 0, 100000);
}

/* Purlin's param_srq_size: 1..15 refused before the common rules (0, or 16..4096). */
static int st_srq_size(struct fake_ctx *c)
{
	long long v;

	if (k_strto(c->val, 0, K_INT, &v))
		return -EINVAL;
	if (v > 0 && v < 16)
		return -EINVAL;
	return st_param(c, 0, 0, 4096);
}

/* Purlin's param_cq_mode: sysfs_match_string(), then the enabled check. */
static int st_cq_mode(struct fake_ctx *c)
{
	static const char *const names[] = { "workqueue", "poll", NULL };

	for (const char *const *n = names; *n; n++) {
		if (k_streq(c->val, *n)) {
			if (addr_frozen(c->dir))
				return -EACCES;
			snprintf(c->out, PATH_MAX, "%s", *n);
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * The fake's possible CPUs (nr_cpu_ids).  configfs-ops.txt names only CPU 0
 * and CPUs no machine has (8192), so that a guest of any size agrees.
 */
#define FAKE_NR_CPU_IDS 8

static bool cpu_sep(char c)
{
	return isspace((unsigned char)c) || c == ',';
}

static bool cpu_end(char c)
{
	return !c || c == '\n';
}

/* bitmap_getnum(): 'N' (the last CPU) or decimal digits; NULL and *err when neither. */
static const char *cpu_num(const char *s, unsigned int *num, int *err)
{
	unsigned long long n = 0;
	const char *p = s;

	if (*s == 'N') {
		*num = FAKE_NR_CPU_IDS - 1;
		return s + 1;
	}
	for (; isdigit((unsigned char)*p); p++)
		if (n <= UINT_MAX)
			n = n * 10 + (*p - '0');
	*err = p == s ? -EINVAL : n > UINT_MAX ? -EOVERFLOW : 0;
	*num = (unsigned int)n;
	return *err ? NULL : p;
}

/*
 * cpulist_parse() (bitmap_parselist()): regions "N", "N-M" or "all", each
 * maybe with ":USED/GROUP", between blanks and commas; -EINVAL for syntax
 * (or a range that ends before it starts), -ERANGE for a CPU past the
 * last one, -EOVERFLOW for a number past 32 bits.
 */
static int k_cpulist(const char *s, bool mask[FAKE_NR_CPU_IDS])
{
	unsigned int start, end, off, group;
	int err = 0;

	memset(mask, 0, FAKE_NR_CPU_IDS * sizeof(*mask));
	for (;;) {
		while (cpu_sep(*s))
			s++;
		if (cpu_end(*s))
			return 0;
		if (!strncasecmp(s, "all", 3)) {
			start = 0;
			end = FAKE_NR_CPU_IDS - 1;
			s += 3;
		} else {
			if (!(s = cpu_num(s, &start, &err)))
				return err;
			end = start;
			if (!cpu_sep(*s) && !cpu_end(*s)) {
				if (*s != '-')
					return -EINVAL;
				if (!(s = cpu_num(s + 1, &end, &err)))
					return err;
			}
		}
		if (cpu_sep(*s) || cpu_end(*s)) {
			off = group = end + 1;
		} else {
			if (*s != ':' || !(s = cpu_num(s + 1, &off, &err)))
				return err ? err : -EINVAL;
			if (*s != '/' || !(s = cpu_num(s + 1, &group, &err)))
				return err ? err : -EINVAL;
		}
		if (start > end || !group || off > group)
			return -EINVAL;
		if (end >= FAKE_NR_CPU_IDS)
			return -ERANGE;
		for (unsigned int cpu = start; cpu <= end; cpu += group)
			for (unsigned int k = 0; k < off && cpu + k <= end; k++)
				mask[cpu + k] = true;
	}
}

/* The kernel's %*pbl: ranges "a-b" and single CPUs, comma separated. */
static void show_cpulist(const bool mask[FAKE_NR_CPU_IDS], char *out)
{
	char *o = out;

	*o = '\0';
	for (unsigned int cpu = 0; cpu < FAKE_NR_CPU_IDS; cpu++) {
		unsigned int last = cpu;

		if (!mask[cpu])
			continue;
		while (last + 1 < FAKE_NR_CPU_IDS && mask[last + 1])
			last++;
		o += sprintf(o, "%s%u", o == out ? "" : ",", cpu);
		if (last > cpu)
			o += sprintf(o, "-%u", last);
		cpu = last;
	}
}

/* Purlin's param_poll_cpus: parsed (every CPU possible here), then the enabled check. */
static int st_poll_cpus(struct fake_ctx *c)
{
	bool mask[FAKE_NR_CPU_IDS];
	int ret = k_cpulist(c->val, mask);

	if (ret)
		return ret;
	if (addr_frozen(c->dir))
		return -EACCES;
	show_cpulist(mask, c->out);
	return 0;
}

/*
 * The root's discovery_nqn: nvmet takes up to 255 bytes that name no
 * subsystem; Purlin a name as its subsystems' (printable, 1..223 bytes).
 */
static int st_discovery_nqn(struct fake_ctx *c)
{
	char name[256], *sub;
	int len = p_strip(c->val, sizeof(name), name);
	bool taken;

	if (len <= 0 || (!nvmet() && (len > 223 || !printable(name) || strchr(name, '/'))))
		return -EINVAL;
	if (asprintf(&sub, "%s/subsystems/%s", c->dir, name) < 0)
		abort();
	taken = !strchr(name, '/') && is_dir(sub);
	free(sub);
	if (taken)
		return -EINVAL;
	snprintf(c->out, PATH_MAX, "%s", name);
	return 0;
}

static int st_port_pi_enable(struct fake_ctx *c)
{
	int ret = st_bool(c);

	return ret ? ret : addr_frozen(c->dir) ? -EACCES : 0;
}

static int st_referral_enable(struct fake_ctx *c)
{
	bool v;

	if (k_strtobool(c->val, &v))
		return -EINVAL;
	if (!nvmet() && v && get_is(c->dir, "addr_traddr", ""))
		return -EINVAL;	/* nothing to refer to yet */
	return show_num(c, v);
}

static int st_ana_state(struct fake_ctx *c)
{
	static const char *const names[] = {
		"optimized", "non-optimized", "inaccessible", "persistent-loss", "change", NULL,
	};
	char buf[24];

	if (nvmet())
		return pick(c, c->val, names);
	if (p_strip(c->val, sizeof(buf), buf) <= 0)
		return -EINVAL;
	return pick(c, buf, names);
}

#define RW 0644
#define RO 0444
#define WO 0200

/* Linux 6.1's nvmet (the guest's) has no discovery_nqn yet. */
static const struct fake_attr root_attrs[] = {
	{ "discovery_nqn", "nqn.2014-08.org.nvmexpress.discovery", NULL, RW, st_discovery_nqn },
	{ NULL, NULL, NULL, 0, NULL },
};

/* hosts/<nqn>/dhchap_*: Purlin's (Debian 6.1's nvmet has no authentication). */
static int st_dhchap_key(struct fake_ctx *c)
{
	char buf[PL_DHCHAP_MAX_STR];

	if (p_strip(c->val, sizeof(buf), buf) < 0 || pl_check_dhchap_secret(buf))
		return -EINVAL;
	snprintf(c->out, PATH_MAX, "%s", buf);
	return 0;
}

static int st_dhchap_hash(struct fake_ctx *c)
{
	static const char *const names[] = {
		"hmac(sha256)", "hmac(sha384)", "hmac(sha512)", NULL,
	};
	char buf[24];

	if (p_strip(c->val, sizeof(buf), buf) <= 0)
		return -EINVAL;
	return pick(c, buf, names);
}

static int st_dhchap_dhgroup(struct fake_ctx *c)
{
	static const char *const names[] = {
		"null", "ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192", NULL,
	};
	char buf[24];

	if (p_strip(c->val, sizeof(buf), buf) <= 0)
		return -EINVAL;
	return pick(c, buf, names);
}

/* Purlin's limits per tenant; nvmet has none. */
#define FAKE_QOS_ATTRS							\
	{ "qos_iops", "0", NULL, RW, st_qos_iops },			\
	{ "qos_bps", "0", NULL, RW, st_qos_bps },			\
	{ "qos_burst_ms", "0", NULL, RW, st_qos_burst_ms }

static const struct fake_attr host_attrs[] = {
	{ "dhchap_key", "", NULL, 0600, st_dhchap_key },
	{ "dhchap_ctrl_key", "", NULL, 0600, st_dhchap_key },
	{ "dhchap_hash", "hmac(sha256)", NULL, RW, st_dhchap_hash },
	{ "dhchap_dhgroup", "null", NULL, RW, st_dhchap_dhgroup },
	FAKE_QOS_ATTRS,
	{ NULL, NULL, NULL, 0, NULL },
};

static const struct fake_attr subsys_attrs[] = {
	{ "attr_allow_any_host", "0", "0", RW, st_allow_any_host },
	{ "attr_serial", "1a2b3c4d5e6f7081", "1a2b3c4d5e6f70819a0b", RW, st_serial },
	{ "attr_model", "Purlin", "Linux", RW, st_model },
	{ "attr_firmware", "0.1.0", NULL, RW, st_firmware },
	{ "attr_version", "1.3", "1.3", RW, st_version },
	{ "attr_cntlid_min", "1", "1", RW, st_cntlid_min },
	{ "attr_cntlid_max", "65519", "65519", RW, st_cntlid_max },
	{ "attr_qid_max", "128", "128", RW, st_qid_max },
	{ "attr_ieee_oui", "0x000000", NULL, RW, st_ieee_oui },
	{ "attr_vendor_id", "0x0", NULL, RW, st_vendor_id },
	{ "attr_subsys_vendor_id", "0x0", NULL, RW, st_vendor_id },
	{ "attr_pi_enable", NULL, "0", RW, st_bool },
	{ "controllers", "", NULL, RO, NULL },
	{ NULL, NULL, NULL, 0, NULL },
};

/* namespaces/<nsid>/latency of a namespace that saw no I/O. */
#define PURLIN_FAKE_ZEROS "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"
#define PURLIN_FAKE_LATENCY \
	"bucket_le_us=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304,inf\n" \
	"read_total count=0 sum_us=0 buckets=" PURLIN_FAKE_ZEROS "\n" \
	"write_total count=0 sum_us=0 buckets=" PURLIN_FAKE_ZEROS "\n" \
	"other_total count=0 sum_us=0 buckets=" PURLIN_FAKE_ZEROS "\n" \
	"read_device count=0 sum_us=0 buckets=" PURLIN_FAKE_ZEROS "\n" \
	"write_device count=0 sum_us=0 buckets=" PURLIN_FAKE_ZEROS "\n" \
	"other_device count=0 sum_us=0 buckets=" PURLIN_FAKE_ZEROS "\n"

static const struct fake_attr ns_attrs[] = {
	{ "device_path", "", "(null)", RW, st_device_path },
	{ "device_uuid", "uuid", "uuid", RW, st_device_uuid },
	{ "device_nguid", "00000000-0000-0000-0000-000000000000",
	  "00000000-0000-0000-0000-000000000000", RW, st_device_nguid },
	{ "enable", "0", "0", RW, st_ns_enable },
	{ "buffered_io", "0", "0", RW, st_buffered_io },
	{ "ana_grpid", "1", "1", RW, st_ana_grpid },
	{ "revalidate_size", "", "", WO, st_revalidate_size },
	{ "stats", "read_cmds=0 read_bytes=0 write_cmds=0 write_bytes=0 errors=0 other_cmds=0 "
	  "inflight=0 flush_cmds=0 throttled=0", NULL, RO, NULL },
	{ "latency", PURLIN_FAKE_LATENCY, NULL, RO, NULL },
	{ "resv_enable", "0", NULL, RW, st_resv_enable },
	{ "resv_state", "generation=0 type=0 ptpl=0", NULL, RW, st_resv_state },
	{ "resv_file", "", NULL, RW, st_resv_file },
	FAKE_QOS_ATTRS,
	{ NULL, NULL, NULL, 0, NULL },
};

static const struct fake_attr port_attrs[] = {
	{ "addr_trtype", "rdma", "", RW, st_trtype },
	{ "addr_adrfam", "ipv4", "", RW, st_adrfam },
	{ "addr_traddr", "", "", RW, st_traddr },
	{ "addr_trsvcid", "4420", "", RW, st_trsvcid },
	{ "addr_treq", "not specified", "not specified", RW, st_treq },
	{ "param_inline_data_size", "4096", "-1", RW, st_inline_data_size },
	{ "param_max_queue_size", "128", NULL, RW, st_max_queue_size },
	{ "param_tos", "-1", NULL, RW, st_tos },
	{ "param_max_pending", "64", NULL, RW, st_max_pending },
	{ "param_max_pending_per_addr", "16", NULL, RW, st_max_pending_per_addr },
	{ "param_connect_timeout_ms", "10000", NULL, RW, st_connect_timeout },
	{ "param_cq_mode", "workqueue", NULL, RW, st_cq_mode },
	{ "param_poll_usecs", "50", NULL, RW, st_poll_usecs },
	{ "param_srq_size", "0", NULL, RW, st_srq_size },
	{ "param_poll_cpus", "", NULL, RW, st_poll_cpus },
	{ "param_pi_enable", NULL, "0", RW, st_port_pi_enable },
	{ NULL, NULL, NULL, 0, NULL },
};

static const struct fake_attr referral_attrs[] = {
	{ "addr_trtype", "rdma", "", RW, st_trtype },
	{ "addr_adrfam", "ipv4", "", RW, st_adrfam },
	{ "addr_traddr", "", "", RW, st_traddr },
	{ "addr_trsvcid", "4420", "", RW, st_trsvcid },
	{ "addr_treq", "not specified", "not specified", RW, st_treq },
	{ "addr_portid", "0", "0", RW, st_portid },
	{ "enable", "0", "0", RW, st_referral_enable },
	{ NULL, NULL, NULL, 0, NULL },
};

/* A new group is optimized in Purlin, inaccessible in nvmet; group 1 is optimized. */
static const struct fake_attr ana_attrs[] = {
	{ "ana_state", "optimized", "inaccessible", RW, st_ana_state },
	{ NULL, NULL, NULL, 0, NULL },
};

static const struct fake_attr *attrs_of(enum fake_kind kind)
{
	switch (kind) {
	case FK_ROOT:
		return root_attrs;
	case FK_HOST:
		return host_attrs;
	case FK_SUBSYS:
		return subsys_attrs;
	case FK_NS:
		return ns_attrs;
	case FK_PORT:
		return port_attrs;
	case FK_REFERRAL:
		return referral_attrs;
	case FK_ANA:
		return ana_attrs;
	default:
		return NULL;
	}
}

static const struct fake_attr *find_attr(enum fake_kind kind, const char *name)
{
	const struct fake_attr *a = attrs_of(kind);

	for (; a && a->name; a++)
		if (!strcmp(a->name, name) && (nvmet() ? a->nvmet : a->purlin))
			return a;
	return NULL;
}

/* ---- the operations ------------------------------------------------------------ */

static const char *const subsys_groups[] = { "namespaces", "allowed_hosts", NULL };
static const char *const port_groups[] = { "subsystems", "referrals", "ana_groups", NULL };

static void populate(const char *dir, enum fake_kind kind)
{
	static unsigned int uuids;
	const struct fake_attr *a = attrs_of(kind);
	const char *const *groups = kind == FK_SUBSYS ? subsys_groups :
				    kind == FK_PORT ? port_groups : NULL;
	char uuid[40];

	for (; a && a->name; a++) {
		const char *def = nvmet() ? a->nvmet : a->purlin;

		if (!def || (fake_old_nvmet && !strcmp(a->name, "attr_qid_max")))
			continue;
		if (!strcmp(def, "uuid")) {
			/* random in both kernels; distinct and never null here */
			snprintf(uuid, sizeof(uuid), "5f1e6a3c-2b7d-4c8e-9a0f-%012x", ++uuids);
			def = uuid;
		}
		put_mode(dir, a->name, def, a->mode);
	}
	for (; groups && *groups; groups++) {
		char *sub = join(dir, *groups);

		if (mkdir(sub, 0755))
			abort();
		free(sub);
	}
	if (kind == FK_PORT) {
		char *ana1 = join(dir, "ana_groups/1");

		if (mkdir(ana1, 0755))
			abort();
		put(ana1, "ana_state", "optimized");
		free(ana1);
	}
}

/* Purlin's object names: printable, 1..223 bytes, not the discovery NQN. */
static bool purlin_nqn(const char *name)
{
	size_t len = strlen(name);

	return len && len <= 223 && printable(name) &&
	       strcmp(name, "nqn.2014-08.org.nvmexpress.discovery");
}

/* purlin_parse_id(): plain decimal, the one way it is shown, at most max. */
static bool purlin_id(const char *name, long long max, long long *id)
{
	char canon[24];

	if (k_strto(name, 10, K_U32, id) || *id > max)
		return false;
	snprintf(canon, sizeof(canon), "%lld", *id);
	return !strcmp(canon, name);
}

/* The make_group() of the parent: 0 or the errno it refuses name with. */
static int make_rules(enum fake_kind kind, const char *name)
{
	long long id;
	int ret;

	switch (kind) {
	case FK_HOST:
		return nvmet() || purlin_nqn(name) ? 0 : -EINVAL;
	case FK_SUBSYS:
		/* neither takes the name the discovery subsystem has now */
		if (get_is(test_root, "discovery_nqn", name))
			return -EINVAL;
		if (nvmet())
			return strcmp(name, "nqn.2014-08.org.nvmexpress.discovery") ? 0 : -EINVAL;
		return purlin_nqn(name) ? 0 : -EINVAL;
	case FK_NS:
		if (nvmet()) {
			ret = k_strto(name, 0, K_U32, &id);
			return ret ? ret : id == 0 || id == 0xffffffffLL ? -EINVAL : 0;
		}
		return purlin_id(name, 1024, &id) && id ? 0 : -EINVAL;
	case FK_PORT:
		if (nvmet())
			return k_strto(name, 0, K_U16, &id) ? -EINVAL : 0;
		return purlin_id(name, 0xffff, &id) ? 0 : -EINVAL;
	case FK_ANA:
		if (nvmet()) {
			ret = k_strto(name, 0, K_U32, &id);
			return ret ? ret : id <= 1 || id > 128 ? -EINVAL : 0;
		}
		return purlin_id(name, 128, &id) && id >= 2 ? 0 : -EINVAL;
	case FK_REFERRAL:
		return 0;
	default:
		return -EPERM;	/* the parent makes no groups */
	}
}

static int fake_mkdir(const char *path)
{
	enum fake_kind kind = classify(path);
	char *parent = parent_of(path);
	struct stat st;
	int ret;

	/* the VFS first: the parent must be a directory, the name free */
	ret = is_dir(parent) ? 0 : -ENOENT;
	free(parent);
	if (ret)
		return ret;
	if (!lstat(path, &st))
		return -EEXIST;
	ret = make_rules(kind, strrchr(path, '/') + 1);
	if (ret)
		return ret;
	if (mkdir(path, 0755))
		return -errno;
	populate(path, kind);
	return 0;
}

/* configfs_detach_prep(): anything but attributes and default groups below dir? */
static bool has_items(const char *dir, enum fake_kind kind)
{
	switch (kind) {
	case FK_SUBSYS:
		return !group_empty(dir, "namespaces", NULL) ||
		       !group_empty(dir, "allowed_hosts", NULL);
	case FK_PORT:
		return !group_empty(dir, "subsystems", NULL) ||
		       !group_empty(dir, "referrals", NULL) ||
		       !group_empty(dir, "ana_groups", "1");
	default:
		return false;
	}
}

static int fake_rmdir(const char *path)
{
	enum fake_kind kind = classify(path);
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/* default groups (and ana_groups/1) are configfs's own */
	if (kind == FK_TOP || kind == FK_SUBSYS_GROUP || kind == FK_PORT_GROUP ||
	    (kind == FK_ANA && !strcmp(strrchr(path, '/') + 1, "1")) || kind == FK_NONE)
		return -EPERM;
	/* a link target cannot go */
	if ((kind == FK_HOST && linked_from("subsystems", "allowed_hosts", path)) ||
	    (kind == FK_SUBSYS && linked_from("ports", "subsystems", path)))
		return -EBUSY;
	if (has_items(path, kind))
		return -ENOTEMPTY;
	tree_rm_rf(path);
	return access(path, F_OK) ? 0 : -EIO;
}

/* The port an enabled port would conflict with on the RDMA CM: same service id and address. */
static bool addr_in_use(const char *port)
{
	char *ports = join(test_root, "ports"), *fam, *addr, *svc;
	struct dirent *de;
	bool busy = false;
	DIR *d = opendir(ports);

	fam = get(port, "addr_adrfam");
	addr = get(port, "addr_traddr");
	svc = get(port, "addr_trsvcid");
	while (d && !busy && (de = readdir(d))) {
		char *other = join(ports, de->d_name), *of, *oa, *os;

		if (de->d_name[0] != '.' && strcmp(other, port) &&
		    !group_empty(other, "subsystems", NULL)) {
			of = get(other, "addr_adrfam");
			oa = get(other, "addr_traddr");
			os = get(other, "addr_trsvcid");
			busy = of && oa && os && fam && addr && svc && !strcmp(of, fam) &&
			       !strcmp(os, svc) &&
			       (!strcmp(oa, addr) || !strcmp(oa, "0.0.0.0") ||
				!strcmp(addr, "0.0.0.0") || !strcmp(oa, "::") || !strcmp(addr, "::"));
			free(of);
			free(oa);
			free(os);
		}
		free(other);
	}
	if (d)
		closedir(d);
	free(ports);
	free(fam);
	free(addr);
	free(svc);
	return busy;
}

/* nvmet-rdma's add_port: inline_data_size -1 becomes 4096, more than 16384 is cut. */
static void rdma_settle_inline(const char *port)
{
	char *v = get(port, "param_inline_data_size");
	long long n = v ? strtoll(v, NULL, 10) : -1;

	free(v);
	if (n < 0 || n > 16384) {
		char num[16];

		snprintf(num, sizeof(num), "%d", n < 0 ? 4096 : 16384);
		put(port, "param_inline_data_size", num);
	}
}

/* Enabling a port (its first subsystem link): the listener's errno, 0 if it binds. */
static int port_enable(const char *port)
{
	char *trtype = get(port, "addr_trtype"), *fam = get(port, "addr_adrfam");
	char *addr = get(port, "addr_traddr"), *svc = get(port, "addr_trsvcid");
	long long n;
	int ret = 0;

	if (!group_empty(port, "subsystems", NULL))
		goto out;	/* enabled already */
	if (!trtype || !*trtype)
		ret = -EINVAL;	/* nvmet: no transport */
	else if ((!strcmp(trtype, "rdma") || !strcmp(trtype, "tcp")) &&
		 (!fam || !addr || !svc || !addr_parses(fam, addr) ||
		  k_strto(svc, 10, K_U16, &n)))
		ret = -EINVAL;
	else if (addr_in_use(port))
		ret = -EADDRINUSE;
	else if (nvmet() && !strcmp(trtype, "rdma"))
		rdma_settle_inline(port);
out:
	free(trtype);
	free(fam);
	free(addr);
	free(svc);
	return ret;
}

/* Does link directory ldir already hold a link to target? */
static bool links_to(const char *ldir, const char *target)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(ldir);

	while (d && !found && (de = readdir(d))) {
		char *link = join(ldir, de->d_name);
		struct stat st;

		found = !lstat(link, &st) && S_ISLNK(st.st_mode) && same_dir(link, target);
		free(link);
	}
	if (d)
		closedir(d);
	return found;
}

/* The allow_link() of the link's directory. */
static int link_rules(const char *target, const char *path)
{
	enum fake_kind kind = classify(path), tkind = classify(target);
	char *ldir = parent_of(path), *obj = parent_of(ldir);
	int ret = 0;

	if (kind == FK_ALLOWED_LINK) {
		if (tkind != FK_HOST)
			ret = -EINVAL;
		else if (get_is(obj, "attr_allow_any_host", "1"))
			ret = -EINVAL;
		else if (links_to(ldir, target))
			ret = -EEXIST;
	} else {
		if (tkind != FK_SUBSYS)
			ret = -EINVAL;
		else if (links_to(ldir, target))
			ret = -EEXIST;
		else
			ret = port_enable(obj);
	}
	free(ldir);
	free(obj);
	return ret;
}

static int fake_symlink(const char *target, const char *path)
{
	enum fake_kind kind = classify(path);
	char *parent = parent_of(path), *real;
	struct stat st;
	int ret;

	/* VFS: the directory must exist and the name be free */
	ret = is_dir(parent) ? 0 : -ENOENT;
	free(parent);
	if (ret)
		return ret;
	if (!lstat(path, &st))
		return -EEXIST;
	/* configfs: the directory must take links */
	if (kind != FK_ALLOWED_LINK && kind != FK_PORT_LINK)
		return -EPERM;
	/* the target: a directory, in this configfs */
	if (stat(target, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	real = tree_path(target);
	if (!real)
		return -EPERM;
	ret = link_rules(real, path);
	free(real);
	if (ret)
		return ret;
	return symlink(target, path) ? -errno : 0;
}

static int fake_unlink(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISLNK(st.st_mode))
		return -EPERM;	/* configfs: only links can be removed */
	return unlink(path) ? -errno : 0;
}

static int fake_write(const char *path, const char *val)
{
	char *dir = parent_of(path), *out = calloc(1, PATH_MAX);
	const char *name = strrchr(path, '/') + 1;
	const struct fake_attr *a = find_attr(classify(dir), name);
	struct fake_ctx c = { .dir = dir, .val = val, .out = out };
	struct stat st;
	int ret;

	if (lstat(path, &st))
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!a || !a->store)
		ret = -EACCES;	/* configfs: no store method */
	else if (!*val)
		ret = -EFAULT;	/* configfs: fill_write_buffer() copied nothing */
	else
		ret = a->store(&c);
	if (!ret && a->mode != WO)
		put(dir, name, out);
	free(out);
	free(dir);
	return ret;
}

/* The fake's world: its block devices and files (1 GiB), else the real file system. */
static int fake_stat(const char *path, struct stat *st)
{
	unsigned int n;
	char tail;

	memset(st, 0, sizeof(*st));
	if (sscanf(path, "/dev/nullb%u%c", &n, &tail) == 1 ||
	    sscanf(path, "/dev/ram%u%c", &n, &tail) == 1) {
		st->st_mode = S_IFBLK | 0660;
		st->st_size = 256LL << 20;	/* null_blk's and brd's sizes vary; 256 MiB here */
		return 0;
	}
	if (strv_has(&fake_files, path)) {
		st->st_mode = S_IFREG | 0600;
		st->st_size = 1LL << 30;
		return 0;
	}
	return stat(path, st) ? -errno : 0;
}

static const struct cfs_ops fake_ops = {
	.mkdir = fake_mkdir,
	.rmdir = fake_rmdir,
	.symlink = fake_symlink,
	.unlink = fake_unlink,
	.write = fake_write,
	.stat = fake_stat,
};

void fakecfs_root_as_target(void)
{
	char *path;

	if (!nvmet())
		return;
	if (asprintf(&path, "%s/discovery_nqn", test_root) < 0)
		abort();
	unlink(path);
	free(path);
	/* Purlin's kernel-made controller directories: nvmet has none */
	if (asprintf(&path, "%s/controllers", test_root) < 0)
		abort();
	rmdir(path);
	free(path);
}

void fakecfs_install(void)
{
	strv_free(&fake_files);
	cfs_set_ops(&fake_ops);
}
