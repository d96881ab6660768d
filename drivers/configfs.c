// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs tree at /sys/kernel/config/purlin, laid out like the Linux
 * NVMe target's so that configurations move between the two:
 *
 *   subsystems/<nqn>/attr_*, namespaces/<nsid>/{device_path,...},
 *                    allowed_hosts/<hostnqn> -> hosts/<hostnqn>
 *   ports/<id>/addr_*, param_*, subsystems/<nqn> -> subsystems/<nqn>
 *   hosts/<hostnqn>/
 *
 * Every store validates fully before changing anything.  Lock order:
 * purlin_port_mutex, then purlin_cfg_sem, then subsys->lock.
 */
#define pr_fmt(fmt) "purlin: " fmt

#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "purlin.h"

/* Serialises port enable/disable, which may wait for queues to go. */
static DEFINE_MUTEX(purlin_port_mutex);

static const struct config_item_type purlin_subsys_type;
static const struct config_item_type purlin_host_type;

/* ---- validation helpers ----------------------------------------------- */

/*
 * A subsystem or host name: as Linux's nvmet (and its host) take them,
 * printable ASCII, at most NVMF_NQN_SIZE bytes.  Names such as "testnqn"
 * (nvmet walk-throughs) or "blktests-subsystem-1" are outside the
 * specification's NQN form but work with Linux hosts: accepted, with a
 * warning (purlin_nqn_warn()).
 */
static bool purlin_cfs_name_ok(const char *nqn)
{
	size_t len = strlen(nqn);

	return len && len <= NVMF_NQN_SIZE && purlin_printable(nqn) &&
	       !strchr(nqn, '/');
}

/* "nqn.yyyy-mm.<reverse domain>[:...]", the specification's form. */
static bool purlin_nqn_well_formed(const char *nqn)
{
	size_t len = strlen(nqn), i;

	if (len < 13 || strncmp(nqn, "nqn.", 4))
		return false;
	for (i = 4; i < 11; i++) {
		if (i == 8 ? nqn[i] != '-' : !isdigit(nqn[i]))
			return false;
	}
	if (nqn[11] != '.')
		return false;
	for (i = 0; i < len; i++)
		if (!isgraph(nqn[i]))
			return false;
	return true;
}

static void purlin_nqn_warn(const char *what, const char *nqn)
{
	if (!purlin_nqn_well_formed(nqn))
		pr_warn("%s name '%s' is not of the form nqn.yyyy-mm.domain[:name]; Linux hosts accept it, the NVMe specification does not\n",
			what, nqn);
}

/* A decimal id written the one way it is shown: no sign, zeros, or 0x. */
static int purlin_parse_id(const char *name, u32 max, u32 *id)
{
	char canon[12];

	if (kstrtou32(name, 10, id) || *id > max)
		return -EINVAL;
	snprintf(canon, sizeof(canon), "%u", *id);
	return strcmp(canon, name) ? -EINVAL : 0;
}

/* Copy a sysfs-style value without its trailing newline. */
static ssize_t purlin_strip(char *dst, size_t size, const char *page,
			    size_t count)
{
	size_t len = strcspn(page, "\n");

	if (len >= size || len > count)
		return -EINVAL;
	memcpy(dst, page, len);
	dst[len] = '\0';
	return len;
}


/* ---- limits per tenant (qos.c), on namespaces and hosts ----------------- */

static ssize_t purlin_qos_attr_show(struct purlin_qos *b,
				    enum purlin_qos_param p, char *page)
{
	return sprintf(page, "%llu\n", purlin_qos_get(b, p));
}

/* A decimal number in range, or -EINVAL with the range in the log. */
static ssize_t purlin_qos_attr_store(struct purlin_qos *b,
				     enum purlin_qos_param p, const char *page,
				     size_t count)
{
	static const char *const what[] = {
		[PURLIN_QOS_IOPS] = "qos_iops: 0 (no limit) to 100000000 commands per second",
		[PURLIN_QOS_BPS] = "qos_bps: 0 (no limit) to 17592186044416 bytes per second",
		[PURLIN_QOS_BURST_MS] = "qos_burst_ms: 0 (the default, 100) to 10000 ms",
	};
	u64 val;

	if (kstrtou64(page, 10, &val) || purlin_qos_set(b, p, val)) {
		pr_info("%s\n", what[p]);
		return -EINVAL;
	}
	return count;
}

/* The three attributes of an object whose bucket is _bucket(item). */
#define PURLIN_QOS_ATTRS(_pfx, _bucket)					\
static ssize_t _pfx##qos_iops_show(struct config_item *item, char *page) \
{									\
	return purlin_qos_attr_show(_bucket(item), PURLIN_QOS_IOPS, page); \
}									\
static ssize_t _pfx##qos_iops_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	return purlin_qos_attr_store(_bucket(item), PURLIN_QOS_IOPS,	\
				     page, count);			\
}									\
CONFIGFS_ATTR(_pfx, qos_iops);						\
static ssize_t _pfx##qos_bps_show(struct config_item *item, char *page)	\
{									\
	return purlin_qos_attr_show(_bucket(item), PURLIN_QOS_BPS, page); \
}									\
static ssize_t _pfx##qos_bps_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	return purlin_qos_attr_store(_bucket(item), PURLIN_QOS_BPS,	\
				     page, count);			\
}									\
CONFIGFS_ATTR(_pfx, qos_bps);						\
static ssize_t _pfx##qos_burst_ms_show(struct config_item *item,	\
				       char *page)			\
{									\
	return purlin_qos_attr_show(_bucket(item), PURLIN_QOS_BURST_MS,	\
				    page);				\
}									\
static ssize_t _pfx##qos_burst_ms_store(struct config_item *item,	\
					const char *page, size_t count)	\
{									\
	return purlin_qos_attr_store(_bucket(item), PURLIN_QOS_BURST_MS, \
				     page, count);			\
}									\
CONFIGFS_ATTR(_pfx, qos_burst_ms)

/* ---- hosts ------------------------------------------------------------- */

LIST_HEAD(purlin_hosts);

static struct purlin_host *to_host(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_host, group);
}

static void purlin_host_release(struct config_item *item)
{
	struct purlin_host *host = to_host(item);

	purlin_host_auth_clear(&host->auth);
	purlin_qos_put(host->qos);
	kfree(host);
}

static struct configfs_item_operations purlin_host_item_ops = {
	.release = purlin_host_release,
};

/*
 * dhchap_key, dhchap_ctrl_key: a DHHC-1 secret, or an empty line to remove
 * the key.  A malformed secret is refused (-EINVAL, the reason in the
 * kernel log) and the key stays as it was.  A new key is used from the
 * next authentication on (new queues, re-authentication); connected
 * controllers stay.  Reading: see purlin_dhchap_show().
 */
static ssize_t purlin_host_key_store(struct purlin_dhchap_key *key,
				     const char *page, size_t count)
{
	struct purlin_dhchap_key *parsed;
	int ret = 0;

	parsed = kzalloc(sizeof(*parsed), GFP_KERNEL);
	if (!parsed)
		return -ENOMEM;
	if (!sysfs_streq(page, ""))
		ret = purlin_dhchap_parse(page, parsed);
	if (!ret) {
		down_write(&purlin_cfg_sem);
		*key = *parsed;
		up_write(&purlin_cfg_sem);
	}
	kfree_sensitive(parsed);
	return ret ? ret : count;
}

static ssize_t purlin_host_key_show(struct purlin_dhchap_key *key, char *page)
{
	ssize_t ret;

	down_read(&purlin_cfg_sem);
	ret = purlin_dhchap_show(key, page);
	up_read(&purlin_cfg_sem);
	return ret;
}

static ssize_t purlin_host_dhchap_key_show(struct config_item *item,
					   char *page)
{
	return purlin_host_key_show(&to_host(item)->auth.host_key, page);
}

static ssize_t purlin_host_dhchap_key_store(struct config_item *item,
					    const char *page, size_t count)
{
	return purlin_host_key_store(&to_host(item)->auth.host_key, page,
				     count);
}

static ssize_t purlin_host_dhchap_ctrl_key_show(struct config_item *item,
						char *page)
{
	return purlin_host_key_show(&to_host(item)->auth.ctrl_key, page);
}

static ssize_t purlin_host_dhchap_ctrl_key_store(struct config_item *item,
						 const char *page, size_t count)
{
	return purlin_host_key_store(&to_host(item)->auth.ctrl_key, page,
				     count);
}

/* Secrets: root only (0600), unlike the other attributes. */
#define PURLIN_SECRET_ATTR(_name)					\
static struct configfs_attribute purlin_host_attr_##_name = {		\
	.ca_name = __stringify(_name),					\
	.ca_mode = 0600,						\
	.ca_owner = THIS_MODULE,					\
	.show = purlin_host_##_name##_show,				\
	.store = purlin_host_##_name##_store,				\
}

PURLIN_SECRET_ATTR(dhchap_key);
PURLIN_SECRET_ATTR(dhchap_ctrl_key);

static ssize_t purlin_host_dhchap_hash_show(struct config_item *item,
					    char *page)
{
	return sprintf(page, "%s\n",
		       purlin_auth_hash_name(READ_ONCE(to_host(item)->auth.hash_id)));
}

/* dhchap_hash, dhchap_dhgroup: one of the names parse() knows. */
static ssize_t purlin_host_auth_id_store(u8 *field, const char *page,
					 size_t count,
					 int (*parse)(const char *, u8 *),
					 const char *what)
{
	u8 id;
	int ret;

	ret = parse(page, &id);
	if (ret) {
		/* -ENOENT: a known name this kernel cannot compute (said). */
		if (ret == -EINVAL)
			pr_info("%s\n", what);
		return ret;
	}
	down_write(&purlin_cfg_sem);
	*field = id;
	up_write(&purlin_cfg_sem);
	return count;
}

static ssize_t purlin_host_dhchap_hash_store(struct config_item *item,
					     const char *page, size_t count)
{
	return purlin_host_auth_id_store(&to_host(item)->auth.hash_id, page,
		count, purlin_auth_hash_parse,
		"dhchap_hash: hmac(sha256), hmac(sha384) or hmac(sha512)");
}
CONFIGFS_ATTR(purlin_host_, dhchap_hash);

static ssize_t purlin_host_dhchap_dhgroup_show(struct config_item *item,
					       char *page)
{
	return sprintf(page, "%s\n",
		       purlin_auth_dhgroup_name(READ_ONCE(to_host(item)->auth.dhgid)));
}

static ssize_t purlin_host_dhchap_dhgroup_store(struct config_item *item,
						const char *page, size_t count)
{
	return purlin_host_auth_id_store(&to_host(item)->auth.dhgid, page,
		count, purlin_auth_dhgroup_parse,
		"dhchap_dhgroup: null, ffdhe2048, ffdhe3072, ffdhe4096, ffdhe6144 or ffdhe8192");
}
CONFIGFS_ATTR(purlin_host_, dhchap_dhgroup);

#define purlin_host_qos(item) (to_host(item)->qos)
PURLIN_QOS_ATTRS(purlin_host_, purlin_host_qos);

static struct configfs_attribute *purlin_host_attrs[] = {
	&purlin_host_attr_dhchap_key,
	&purlin_host_attr_dhchap_ctrl_key,
	&purlin_host_attr_dhchap_hash,
	&purlin_host_attr_dhchap_dhgroup,
	&purlin_host_attr_qos_iops,
	&purlin_host_attr_qos_bps,
	&purlin_host_attr_qos_burst_ms,
	NULL,
};

static const struct config_item_type purlin_host_type = {
	.ct_item_ops = &purlin_host_item_ops,
	.ct_attrs = purlin_host_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *purlin_hosts_make(struct config_group *group,
					      const char *name)
{
	struct purlin_host *host;

	if (!purlin_cfs_name_ok(name) || !strcmp(name, PURLIN_DISC_NQN))
		return ERR_PTR(-EINVAL);
	purlin_nqn_warn("host", name);
	host = kzalloc(sizeof(*host), GFP_KERNEL);
	if (!host)
		return ERR_PTR(-ENOMEM);
	host->qos = purlin_qos_alloc();
	if (!host->qos) {
		kfree(host);
		return ERR_PTR(-ENOMEM);
	}
	purlin_host_auth_init(&host->auth);
	config_group_init_type_name(&host->group, name, &purlin_host_type);
	down_write(&purlin_cfg_sem);
	list_add_tail(&host->entry, &purlin_hosts);
	up_write(&purlin_cfg_sem);
	return &host->group;
}

static void purlin_hosts_drop(struct config_group *group,
			      struct config_item *item)
{
	struct purlin_host *host = container_of(to_config_group(item),
						struct purlin_host, group);
	struct purlin_host_link *l, *tmp;
	struct purlin_subsys *subsys;

	/* Forget the host everywhere it is allowed. */
	down_write(&purlin_cfg_sem);
	list_del(&host->entry);
	list_for_each_entry(subsys, &purlin_subsystems, entry) {
		list_for_each_entry_safe(l, tmp, &subsys->hosts, entry) {
			if (l->host != host)
				continue;
			list_del(&l->entry);
			kfree(l);
		}
	}
	purlin_disc_changed();
	purlin_revoke_ctrls();
	up_write(&purlin_cfg_sem);
	/* Controllers that stay keep the bucket, without a limit. */
	purlin_qos_close(host->qos);
	config_item_put(item);
}

static struct configfs_group_operations purlin_hosts_group_ops = {
	.make_group = purlin_hosts_make,
	.drop_item = purlin_hosts_drop,
};

static const struct config_item_type purlin_hosts_type = {
	.ct_group_ops = &purlin_hosts_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- namespaces -------------------------------------------------------- */

static struct purlin_ns *to_ns(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_ns, group);
}

static ssize_t purlin_ns_device_path_show(struct config_item *item,
					  char *page)
{
	struct purlin_ns *ns = to_ns(item);
	ssize_t n;

	mutex_lock(&ns->enable_lock);
	n = sprintf(page, "%s\n", ns->device_path ?: "");
	mutex_unlock(&ns->enable_lock);
	return n;
}

static int purlin_check_device(const char *path)
{
	struct path p;
	int ret;

	ret = kern_path(path, LOOKUP_FOLLOW, &p);
	if (ret)
		return ret;
	/* A block device, or a regular file for the file back end. */
	if (!S_ISBLK(d_inode(p.dentry)->i_mode) &&
	    !S_ISREG(d_inode(p.dentry)->i_mode))
		ret = -EINVAL;
	path_put(&p);
	return ret;
}

static ssize_t purlin_ns_device_path_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	char *path;
	ssize_t len;
	int ret;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	len = purlin_strip(path, PATH_MAX, page, count);
	if (len <= 0 || path[0] != '/') {
		kfree(path);
		return -EINVAL;
	}
	ret = purlin_check_device(path);
	if (ret) {
		kfree(path);
		return ret;
	}
	mutex_lock(&ns->enable_lock);
	if (ns->enabled) {
		mutex_unlock(&ns->enable_lock);
		kfree(path);
		return -EBUSY;
	}
	kfree(ns->device_path);
	ns->device_path = kstrdup(path, GFP_KERNEL);
	mutex_unlock(&ns->enable_lock);
	kfree(path);
	return ns->device_path ? count : -ENOMEM;
}
CONFIGFS_ATTR(purlin_ns_, device_path);

static ssize_t purlin_ns_device_uuid_show(struct config_item *item,
					  char *page)
{
	return sprintf(page, "%pUb\n", &to_ns(item)->uuid);
}

static ssize_t purlin_ns_device_uuid_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	char buf[UUID_STRING_LEN + 1];
	uuid_t uuid;

	if (purlin_strip(buf, sizeof(buf), page, count) != UUID_STRING_LEN ||
	    uuid_parse(buf, &uuid))
		return -EINVAL;
	mutex_lock(&ns->subsys->lock);
	if (ns->enabled) {
		mutex_unlock(&ns->subsys->lock);
		return -EBUSY;
	}
	uuid_copy(&ns->uuid, &uuid);
	mutex_unlock(&ns->subsys->lock);
	return count;
}
CONFIGFS_ATTR(purlin_ns_, device_uuid);

static ssize_t purlin_ns_device_nguid_show(struct config_item *item,
					   char *page)
{
	return sprintf(page, "%pUb\n", to_ns(item)->nguid);
}

/* 32 hex digits, '-' allowed between byte pairs. */
static int purlin_parse_nguid(const char *s, u8 *nguid)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (*s == '-')
			s++;
		if (hex2bin(&nguid[i], s, 1))
			return -EINVAL;
		s += 2;
	}
	return *s ? -EINVAL : 0;
}

static ssize_t purlin_ns_device_nguid_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	char buf[64];
	u8 nguid[16];

	if (purlin_strip(buf, sizeof(buf), page, count) < 32 ||
	    purlin_parse_nguid(buf, nguid))
		return -EINVAL;
	mutex_lock(&ns->subsys->lock);
	if (ns->enabled) {
		mutex_unlock(&ns->subsys->lock);
		return -EBUSY;
	}
	memcpy(ns->nguid, nguid, sizeof(nguid));
	mutex_unlock(&ns->subsys->lock);
	return count;
}
CONFIGFS_ATTR(purlin_ns_, device_nguid);

static ssize_t purlin_ns_enable_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_ns(item)->enabled));
}

static ssize_t purlin_ns_enable_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	bool enable;
	int ret = 0;

	if (kstrtobool(page, &enable))
		return -EINVAL;
	if (enable)
		ret = purlin_ns_enable(ns);
	else
		purlin_ns_disable(ns);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_ns_, enable);

static ssize_t purlin_ns_buffered_io_show(struct config_item *item,
					  char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_ns(item)->buffered_io));
}

/* A boolean set only while the namespace is disabled, under enable_lock. */
static ssize_t purlin_ns_store_disabled(struct config_item *item,
					const char *page, size_t count,
					void (*set)(struct purlin_ns *, bool))
{
	struct purlin_ns *ns = to_ns(item);
	bool val;

	if (kstrtobool(page, &val))
		return -EINVAL;
	mutex_lock(&ns->enable_lock);
	if (ns->enabled) {
		mutex_unlock(&ns->enable_lock);
		return -EBUSY;
	}
	set(ns, val);
	mutex_unlock(&ns->enable_lock);
	return count;
}

static void purlin_ns_set_buffered_io(struct purlin_ns *ns, bool val)
{
	ns->buffered_io = val;
}

static ssize_t purlin_ns_buffered_io_store(struct config_item *item,
					   const char *page, size_t count)
{
	return purlin_ns_store_disabled(item, page, count,
					purlin_ns_set_buffered_io);
}
CONFIGFS_ATTR(purlin_ns_, buffered_io);

static ssize_t purlin_ns_ana_grpid_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", READ_ONCE(to_ns(item)->anagrpid));
}

static ssize_t purlin_ns_ana_grpid_store(struct config_item *item,
					const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	u32 grpid;

	if (kstrtou32(page, 0, &grpid) || grpid < 1 ||
	    grpid > PURLIN_MAX_ANA_GROUPS)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (ns->anagrpid != grpid) {
		WRITE_ONCE(ns->anagrpid, grpid);
		if (READ_ONCE(ns->enabled))
			purlin_ana_changed(NULL, ns->subsys);
	}
	up_write(&purlin_cfg_sem);
	return count;
}
CONFIGFS_ATTR(purlin_ns_, ana_grpid);

/* Writing 1 re-reads the backing size and tells hosts if it changed. */
static ssize_t purlin_ns_revalidate_size_store(struct config_item *item,
					       const char *page, size_t count)
{
	bool val;
	int ret;

	if (kstrtobool(page, &val) || !val)
		return -EINVAL;
	ret = purlin_ns_revalidate(to_ns(item));
	return ret ? ret : count;
}
CONFIGFS_ATTR_WO(purlin_ns_, revalidate_size);

/* I/O counters of the namespace (read-only; not a configuration value). */
static ssize_t purlin_ns_stats_show(struct config_item *item, char *page)
{
	return purlin_stats_line(to_ns(item)->stats, page, PAGE_SIZE, true);
}
CONFIGFS_ATTR_RO(purlin_ns_, stats);

/* Latency histograms of the namespace's I/O (stats.c). */
static ssize_t purlin_ns_latency_show(struct config_item *item, char *page)
{
	return purlin_latency_show(to_ns(item)->stats, page, PAGE_SIZE);
}
CONFIGFS_ATTR_RO(purlin_ns_, latency);

/* Reservations on the namespace (nvmet's name); only while disabled. */
static ssize_t purlin_ns_resv_enable_show(struct config_item *item,
					  char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_ns(item)->resv.enabled));
}

static ssize_t purlin_ns_resv_enable_store(struct config_item *item,
					   const char *page, size_t count)
{
	return purlin_ns_store_disabled(item, page, count,
					purlin_resv_set_enabled);
}
CONFIGFS_ATTR(purlin_ns_, resv_enable);

/*
 * The reservation state as text (resv.c, configfs.md): always readable;
 * written back only while the namespace is disabled (and, but for the
 * empty state, resv_enable is on).
 */
static ssize_t purlin_ns_resv_state_show(struct config_item *item,
					 char *page)
{
	return purlin_resv_state_show(to_ns(item), page);
}

static ssize_t purlin_ns_resv_state_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	int ret;

	mutex_lock(&ns->enable_lock);
	if (ns->enabled)
		ret = -EBUSY;
	else
		ret = purlin_resv_state_store(ns, page, count);
	mutex_unlock(&ns->enable_lock);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_ns_, resv_state);

/*
 * Purlin's (nvmet has none): the file that keeps the reservation state
 * while PTPL is 1 (resv.c, resv-file.c, configfs.md); "" for none.  Set
 * only while the namespace is disabled.
 */
static ssize_t purlin_ns_resv_file_show(struct config_item *item, char *page)
{
	struct purlin_ns *ns = to_ns(item);
	ssize_t n;

	mutex_lock(&ns->enable_lock);
	n = sprintf(page, "%s\n", ns->resv.file ?: "");
	mutex_unlock(&ns->enable_lock);
	return n;
}

static ssize_t purlin_ns_resv_file_store(struct config_item *item,
					 const char *page, size_t count)
{
	struct purlin_ns *ns = to_ns(item);
	ssize_t len;
	char *path;
	int ret;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	len = purlin_strip(path, PATH_MAX, page, count);
	/* One line: nothing may follow its newline. */
	if (len < 0 || (len < count && len + 1 != count)) {
		kfree(path);
		return -EINVAL;
	}
	mutex_lock(&ns->enable_lock);
	ret = ns->enabled ? -EBUSY : purlin_resv_set_file(ns, path);
	mutex_unlock(&ns->enable_lock);
	kfree(path);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_ns_, resv_file);
#define purlin_ns_qos(item) (&to_ns(item)->qos)
PURLIN_QOS_ATTRS(purlin_ns_, purlin_ns_qos);

static struct configfs_attribute *purlin_ns_attrs[] = {
	&purlin_ns_attr_device_path,
	&purlin_ns_attr_device_uuid,
	&purlin_ns_attr_device_nguid,
	&purlin_ns_attr_enable,
	&purlin_ns_attr_buffered_io,
	&purlin_ns_attr_ana_grpid,
	&purlin_ns_attr_revalidate_size,
	&purlin_ns_attr_stats,
	&purlin_ns_attr_latency,
	&purlin_ns_attr_resv_enable,
	&purlin_ns_attr_resv_state,
	&purlin_ns_attr_resv_file,
	&purlin_ns_attr_qos_iops,
	&purlin_ns_attr_qos_bps,
	&purlin_ns_attr_qos_burst_ms,
	NULL,
};

static void purlin_ns_release(struct config_item *item)
{
	struct purlin_ns *ns = to_ns(item);

	purlin_qos_close(&ns->qos);
	purlin_qos_exit(&ns->qos);
	kfree(ns->device_path);
	purlin_resv_exit(&ns->resv);
	purlin_stats_free(ns->stats);
	purlin_subsys_put(ns->subsys);
	kfree(ns);
}

static struct configfs_item_operations purlin_ns_item_ops = {
	.release = purlin_ns_release,
};

static const struct config_item_type purlin_ns_type = {
	.ct_item_ops = &purlin_ns_item_ops,
	.ct_attrs = purlin_ns_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *purlin_ns_make(struct config_group *group,
					   const char *name)
{
	struct purlin_subsys *subsys = container_of(group, struct purlin_subsys,
						    namespaces_group);
	struct purlin_ns *ns;
	u32 nsid;

	if (purlin_parse_id(name, 1024, &nsid) || nsid == 0)
		return ERR_PTR(-EINVAL);
	ns = kzalloc(sizeof(*ns), GFP_KERNEL);
	if (!ns)
		return ERR_PTR(-ENOMEM);
	ns->stats = purlin_stats_alloc();
	if (!ns->stats) {
		kfree(ns);
		return ERR_PTR(-ENOMEM);
	}
	ns->nsid = nsid;
	ns->subsys = subsys;
	ns->anagrpid = 1;
	if (purlin_resv_init(&ns->resv)) {
		purlin_stats_free(ns->stats);
		kfree(ns);
		return ERR_PTR(-ENOMEM);
	}
	mutex_init(&ns->enable_lock);
	purlin_qos_init(&ns->qos);
	ns->qos.closed = true;		/* until enabled */
	kref_get(&subsys->ref);
	uuid_gen(&ns->uuid);
	config_group_init_type_name(&ns->group, name, &purlin_ns_type);
	return &ns->group;
}

static void purlin_ns_drop(struct config_group *group,
			   struct config_item *item)
{
	purlin_ns_disable(to_ns(item));
	config_item_put(item);
}

static struct configfs_group_operations purlin_namespaces_group_ops = {
	.make_group = purlin_ns_make,
	.drop_item = purlin_ns_drop,
};

static const struct config_item_type purlin_namespaces_type = {
	.ct_group_ops = &purlin_namespaces_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- allowed hosts ------------------------------------------------------ */

static int purlin_allowed_hosts_allow_link(struct config_item *parent,
					   struct config_item *target)
{
	struct purlin_subsys *subsys = container_of(to_config_group(parent),
					struct purlin_subsys, allowed_hosts_group);
	struct purlin_host *host;
	struct purlin_host_link *l, *new;
	int ret = 0;

	if (target->ci_type != &purlin_host_type)
		return -EINVAL;
	host = container_of(to_config_group(target), struct purlin_host, group);
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->host = host;

	down_write(&purlin_cfg_sem);
	if (subsys->allow_any_host) {
		ret = -EINVAL;
		goto out;
	}
	list_for_each_entry(l, &subsys->hosts, entry) {
		if (l->host == host) {
			ret = -EEXIST;
			goto out;
		}
	}
	list_add_tail(&new->entry, &subsys->hosts);
	new = NULL;
	purlin_disc_changed();
out:
	up_write(&purlin_cfg_sem);
	kfree(new);
	return ret;
}

static void purlin_allowed_hosts_drop_link(struct config_item *parent,
					   struct config_item *target)
{
	struct purlin_subsys *subsys = container_of(to_config_group(parent),
					struct purlin_subsys, allowed_hosts_group);
	struct purlin_host *host = container_of(to_config_group(target),
						struct purlin_host, group);
	struct purlin_host_link *l, *tmp;

	down_write(&purlin_cfg_sem);
	list_for_each_entry_safe(l, tmp, &subsys->hosts, entry) {
		if (l->host == host) {
			list_del(&l->entry);
			kfree(l);
		}
	}
	purlin_disc_changed();
	purlin_revoke_ctrls();
	up_write(&purlin_cfg_sem);
}

static struct configfs_item_operations purlin_allowed_hosts_item_ops = {
	.allow_link = purlin_allowed_hosts_allow_link,
	.drop_link = purlin_allowed_hosts_drop_link,
};

static const struct config_item_type purlin_allowed_hosts_type = {
	.ct_item_ops = &purlin_allowed_hosts_item_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- subsystems ----------------------------------------------------------- */

static struct purlin_subsys *to_subsys(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_subsys, group);
}

static ssize_t purlin_subsys_attr_allow_any_host_show(struct config_item *item,
						      char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_subsys(item)->allow_any_host));
}

static ssize_t purlin_subsys_attr_allow_any_host_store(struct config_item *item,
						       const char *page,
						       size_t count)
{
	struct purlin_subsys *subsys = to_subsys(item);
	bool allow;
	int ret = 0;

	if (kstrtobool(page, &allow))
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (allow && !list_empty(&subsys->hosts))
		ret = -EINVAL;	/* allowed_hosts must be empty first */
	else if (subsys->allow_any_host != allow) {
		subsys->allow_any_host = allow;
		purlin_disc_changed();
		if (!allow)
			purlin_revoke_ctrls();
	}
	up_write(&purlin_cfg_sem);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_subsys_, attr_allow_any_host);

/* String attributes shown in Identify Controller. */
static ssize_t purlin_subsys_str_show(char *page, const char *val)
{
	ssize_t n;

	down_read(&purlin_cfg_sem);
	n = sprintf(page, "%s\n", val);
	up_read(&purlin_cfg_sem);
	return n;
}

static ssize_t purlin_subsys_str_store(char *dst, size_t size,
				       const char *page, size_t count)
{
	char buf[64];
	ssize_t len;

	len = purlin_strip(buf, min(size, sizeof(buf)), page, count);
	if (len <= 0 || !purlin_printable(buf))
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	strscpy(dst, buf, size);
	up_write(&purlin_cfg_sem);
	return count;
}

#define PURLIN_SUBSYS_STR_ATTR(name, field)				\
static ssize_t purlin_subsys_attr_##name##_show(struct config_item *item, \
						char *page)		\
{									\
	return purlin_subsys_str_show(page, to_subsys(item)->field);	\
}									\
static ssize_t purlin_subsys_attr_##name##_store(struct config_item *item, \
						 const char *page,	\
						 size_t count)		\
{									\
	struct purlin_subsys *s = to_subsys(item);			\
									\
	return purlin_subsys_str_store(s->field, sizeof(s->field), page, \
				       count);				\
}									\
CONFIGFS_ATTR(purlin_subsys_, attr_##name)

PURLIN_SUBSYS_STR_ATTR(serial, serial);
PURLIN_SUBSYS_STR_ATTR(model, model);
PURLIN_SUBSYS_STR_ATTR(firmware, firmware);

static ssize_t purlin_subsys_attr_version_show(struct config_item *item,
					       char *page)
{
	u32 v = READ_ONCE(to_subsys(item)->version);

	if (NVME_TERTIARY(v))
		return sprintf(page, "%u.%u.%u\n", NVME_MAJOR(v),
			       NVME_MINOR(v), NVME_TERTIARY(v));
	return sprintf(page, "%u.%u\n", NVME_MAJOR(v), NVME_MINOR(v));
}

static ssize_t purlin_subsys_attr_version_store(struct config_item *item,
						const char *page, size_t count)
{
	struct purlin_subsys *subsys = to_subsys(item);
	unsigned int major, minor, ter = 0;
	int len = 0;
	char buf[24];

	if (purlin_strip(buf, sizeof(buf), page, count) <= 0)
		return -EINVAL;
	if (sscanf(buf, "%u.%u%n.%u%n", &major, &minor, &len, &ter, &len) < 2 ||
	    buf[len] || major == 0 || major > 0xffff || minor > 0xff ||
	    ter > 0xff)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	subsys->version = NVME_VS(major, minor, ter);
	up_write(&purlin_cfg_sem);
	return count;
}
CONFIGFS_ATTR(purlin_subsys_, attr_version);

static ssize_t purlin_subsys_attr_cntlid_min_show(struct config_item *item,
						  char *page)
{
	return sprintf(page, "%u\n", READ_ONCE(to_subsys(item)->cntlid_min));
}

static ssize_t purlin_subsys_attr_cntlid_min_store(struct config_item *item,
						   const char *page,
						   size_t count)
{
	struct purlin_subsys *subsys = to_subsys(item);
	u16 v;
	int ret = 0;

	if (kstrtou16(page, 0, &v) || v == 0 || v > NVME_CNTLID_MAX)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (v > subsys->cntlid_max)
		ret = -EINVAL;
	else
		subsys->cntlid_min = v;
	up_write(&purlin_cfg_sem);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_subsys_, attr_cntlid_min);

static ssize_t purlin_subsys_attr_cntlid_max_show(struct config_item *item,
						  char *page)
{
	return sprintf(page, "%u\n", READ_ONCE(to_subsys(item)->cntlid_max));
}

static ssize_t purlin_subsys_attr_cntlid_max_store(struct config_item *item,
						   const char *page,
						   size_t count)
{
	struct purlin_subsys *subsys = to_subsys(item);
	u16 v;
	int ret = 0;

	if (kstrtou16(page, 0, &v) || v == 0 || v > NVME_CNTLID_MAX)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (v < subsys->cntlid_min)
		ret = -EINVAL;
	else
		subsys->cntlid_max = v;
	up_write(&purlin_cfg_sem);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_subsys_, attr_cntlid_max);

static ssize_t purlin_subsys_attr_qid_max_show(struct config_item *item,
					       char *page)
{
	return sprintf(page, "%u\n", READ_ONCE(to_subsys(item)->max_qid));
}

static ssize_t purlin_subsys_attr_qid_max_store(struct config_item *item,
						const char *page, size_t count)
{
	struct purlin_subsys *subsys = to_subsys(item);
	u16 v;

	if (kstrtou16(page, 0, &v) || v == 0 || v > PURLIN_MAX_QID)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	subsys->max_qid = v;
	up_write(&purlin_cfg_sem);
	return count;
}
CONFIGFS_ATTR(purlin_subsys_, attr_qid_max);

static ssize_t purlin_subsys_attr_ieee_oui_show(struct config_item *item,
						char *page)
{
	struct purlin_subsys *subsys = to_subsys(item);
	u32 oui;

	down_read(&purlin_cfg_sem);
	oui = subsys->ieee_oui[0] | subsys->ieee_oui[1] << 8 |
	      subsys->ieee_oui[2] << 16;
	up_read(&purlin_cfg_sem);
	return sprintf(page, "0x%06x\n", oui);
}

static ssize_t purlin_subsys_attr_ieee_oui_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct purlin_subsys *subsys = to_subsys(item);
	u32 oui;

	if (kstrtou32(page, 0, &oui) || oui > 0xffffff)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	subsys->ieee_oui[0] = oui & 0xff;
	subsys->ieee_oui[1] = (oui >> 8) & 0xff;
	subsys->ieee_oui[2] = (oui >> 16) & 0xff;
	up_write(&purlin_cfg_sem);
	return count;
}
CONFIGFS_ATTR(purlin_subsys_, attr_ieee_oui);

/*
 * PCI Vendor ID and Subsystem Vendor ID for Identify Controller (VID,
 * SSVID), nvmet's names: u16, base 0, shown as 0x%x.
 */
#define PURLIN_SUBSYS_U16_ATTR(_name, _field)					\
static ssize_t purlin_subsys_attr_##_name##_show(struct config_item *item,	\
						 char *page)			\
{										\
	struct purlin_subsys *subsys = to_subsys(item);				\
	u16 v;									\
										\
	down_read(&purlin_cfg_sem);						\
	v = subsys->_field;							\
	up_read(&purlin_cfg_sem);						\
	return sprintf(page, "0x%x\n", v);					\
}										\
										\
static ssize_t purlin_subsys_attr_##_name##_store(struct config_item *item,	\
						  const char *page,		\
						  size_t count)			\
{										\
	struct purlin_subsys *subsys = to_subsys(item);				\
	u16 v;									\
										\
	if (kstrtou16(page, 0, &v))						\
		return -EINVAL;							\
	down_write(&purlin_cfg_sem);						\
	subsys->_field = v;							\
	up_write(&purlin_cfg_sem);						\
	return count;								\
}										\
CONFIGFS_ATTR(purlin_subsys_, attr_##_name)

PURLIN_SUBSYS_U16_ATTR(vendor_id, vendor_id);
PURLIN_SUBSYS_U16_ATTR(subsys_vendor_id, subsys_vendor_id);

/*
 * The subsystem's controllers, one line each, with their I/O counters
 * (read-only; not a configuration value).
 */
static ssize_t purlin_subsys_controllers_show(struct config_item *item,
					      char *page)
{
	struct purlin_subsys *subsys = to_subsys(item);
	struct purlin_io_counts sum;
	struct purlin_ctrl *ctrl;
	ssize_t n = 0;
	int q, queues;

	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry) {
		if (n > PAGE_SIZE - 512)
			break;
		mutex_lock(&ctrl->lock);
		for (queues = 0, q = 0; q <= PURLIN_MAX_QID; q++)
			queues += !!ctrl->sqs[q];
		mutex_unlock(&ctrl->lock);
		purlin_stats_sum(ctrl->stats, &sum);
		n += scnprintf(page + n, PAGE_SIZE - n,
			       "cntlid=%u host=%s port=%u queues=%d kato_ms=%u ",
			       ctrl->cntlid, ctrl->hostnqn,
			       le16_to_cpu(ctrl->port->disc_addr.portid),
			       queues, READ_ONCE(ctrl->kato));
		n += purlin_stats_show(&sum, page + n, PAGE_SIZE - n - 1);
		/* Last: the keys before it keep their places for old parsers. */
		if (ctrl->host_addr.ss_family == AF_INET ||
		    ctrl->host_addr.ss_family == AF_INET6)
			n += scnprintf(page + n, PAGE_SIZE - n - 1, " addr=%pISc",
				       &ctrl->host_addr);
		page[n++] = '\n';
	}
	mutex_unlock(&subsys->lock);
	return n;
}
CONFIGFS_ATTR_RO(purlin_subsys_, controllers);

static struct configfs_attribute *purlin_subsys_attrs[] = {
	&purlin_subsys_attr_attr_allow_any_host,
	&purlin_subsys_attr_attr_serial,
	&purlin_subsys_attr_attr_model,
	&purlin_subsys_attr_attr_firmware,
	&purlin_subsys_attr_attr_version,
	&purlin_subsys_attr_attr_cntlid_min,
	&purlin_subsys_attr_attr_cntlid_max,
	&purlin_subsys_attr_attr_qid_max,
	&purlin_subsys_attr_attr_ieee_oui,
	&purlin_subsys_attr_attr_vendor_id,
	&purlin_subsys_attr_attr_subsys_vendor_id,
	&purlin_subsys_attr_controllers,
	NULL,
};

static void purlin_subsys_item_release(struct config_item *item)
{
	purlin_subsys_put(to_subsys(item));
}

static struct configfs_item_operations purlin_subsys_item_ops = {
	.release = purlin_subsys_item_release,
};

static const struct config_item_type purlin_subsys_type = {
	.ct_item_ops = &purlin_subsys_item_ops,
	.ct_attrs = purlin_subsys_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *purlin_subsys_make(struct config_group *group,
					       const char *name)
{
	struct purlin_subsys *subsys;

	if (!purlin_cfs_name_ok(name) || !strcmp(name, PURLIN_DISC_NQN))
		return ERR_PTR(-EINVAL);
	/*
	 * Nor the configured discovery NQN: checked and the subsystem listed
	 * under one hold of the lock, so a concurrent discovery_nqn store
	 * sees either the name taken or the subsystem.
	 */
	down_write(&purlin_cfg_sem);
	if (!strcmp(name, purlin_disc_nqn)) {
		up_write(&purlin_cfg_sem);
		pr_err("subsystem name '%s' is the discovery NQN\n", name);
		return ERR_PTR(-EINVAL);
	}
	subsys = purlin_subsys_alloc(name, PURLIN_SUBSYS_NVME);
	if (!subsys) {
		up_write(&purlin_cfg_sem);
		return ERR_PTR(-ENOMEM);
	}
	purlin_nqn_warn("subsystem", name);
	config_group_init_type_name(&subsys->group, name, &purlin_subsys_type);
	config_group_init_type_name(&subsys->namespaces_group, "namespaces",
				    &purlin_namespaces_type);
	configfs_add_default_group(&subsys->namespaces_group, &subsys->group);
	config_group_init_type_name(&subsys->allowed_hosts_group,
				    "allowed_hosts", &purlin_allowed_hosts_type);
	configfs_add_default_group(&subsys->allowed_hosts_group,
				   &subsys->group);
	list_add_tail(&subsys->entry, &purlin_subsystems);
	up_write(&purlin_cfg_sem);
	return &subsys->group;
}

static void purlin_subsys_drop(struct config_group *group,
			       struct config_item *item)
{
	struct purlin_subsys *subsys = to_subsys(item);
	struct purlin_subsys_link *sl, *stmp;
	struct purlin_host_link *hl, *htmp;
	struct purlin_port *port;

	/* Unexport it everywhere; its controllers go. */
	down_write(&purlin_cfg_sem);
	list_del_init(&subsys->entry);
	list_for_each_entry(port, &purlin_ports, entry) {
		list_for_each_entry_safe(sl, stmp, &port->subsystems, entry) {
			if (sl->subsys != subsys)
				continue;
			list_del(&sl->entry);
			purlin_subsys_put(sl->subsys);
			kfree(sl);
		}
	}
	list_for_each_entry_safe(hl, htmp, &subsys->hosts, entry) {
		list_del(&hl->entry);
		kfree(hl);
	}
	purlin_disc_changed();
	up_write(&purlin_cfg_sem);
	purlin_subsys_del_ctrls(subsys);
	config_item_put(item);
}

static struct configfs_group_operations purlin_subsystems_group_ops = {
	.make_group = purlin_subsys_make,
	.drop_item = purlin_subsys_drop,
};

static const struct config_item_type purlin_subsystems_type = {
	.ct_group_ops = &purlin_subsystems_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- ports -------------------------------------------------------------- */

static struct purlin_port *to_port(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_port, group);
}

static const struct config_item_type purlin_referral_type;

static struct purlin_referral *to_referral(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_referral,
			    group);
}

/*
 * The address a port or a referral item stands for, and the flag that
 * freezes it (an enabled port or referral keeps its address).
 */
static struct nvmf_disc_rsp_page_entry *purlin_item_addr(struct config_item *item,
							 bool **enabled)
{
	if (item->ci_type == &purlin_referral_type) {
		struct purlin_referral *ref = to_referral(item);

		if (enabled)
			*enabled = &ref->enabled;
		return &ref->addr;
	}
	if (enabled)
		*enabled = &to_port(item)->enabled;
	return &to_port(item)->disc_addr;
}

/*
 * Run fn on the item's address under purlin_cfg_sem, refusing changes
 * while the port or referral is enabled.
 */
static ssize_t purlin_port_addr_store(struct config_item *item,
				      const char *page, size_t count,
				      int (*fn)(struct nvmf_disc_rsp_page_entry *a,
						const char *val))
{
	struct nvmf_disc_rsp_page_entry *a;
	char buf[NVMF_TRADDR_SIZE];
	bool *enabled;
	int ret;

	if (purlin_strip(buf, sizeof(buf), page, count) < 0)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	a = purlin_item_addr(item, &enabled);
	if (*enabled)
		ret = -EACCES;
	else
		ret = fn(a, buf);
	up_write(&purlin_cfg_sem);
	return ret ? ret : count;
}

static ssize_t purlin_port_addr_trtype_show(struct config_item *item,
					    char *page)
{
	return sprintf(page, "%s\n", purlin_item_addr(item, NULL)->trtype ==
		       NVMF_TRTYPE_RDMA ? "rdma" : "");
}

static int purlin_set_trtype(struct nvmf_disc_rsp_page_entry *a,
			     const char *val)
{
	if (strcmp(val, "rdma"))
		return -EINVAL;
	a->trtype = NVMF_TRTYPE_RDMA;
	a->tsas.rdma.qptype = NVMF_RDMA_QPTYPE_CONNECTED;
	a->tsas.rdma.prtype = NVMF_RDMA_PRTYPE_NOT_SPECIFIED;
	a->tsas.rdma.cms = NVMF_RDMA_CMS_RDMA_CM;
	return 0;
}

static ssize_t purlin_port_addr_trtype_store(struct config_item *item,
					     const char *page, size_t count)
{
	return purlin_port_addr_store(item, page, count, purlin_set_trtype);
}
CONFIGFS_ATTR(purlin_port_, addr_trtype);

static ssize_t purlin_port_addr_adrfam_show(struct config_item *item,
					    char *page)
{
	switch (purlin_item_addr(item, NULL)->adrfam) {
	case NVMF_ADDR_FAMILY_IP4:
		return sprintf(page, "ipv4\n");
	case NVMF_ADDR_FAMILY_IP6:
		return sprintf(page, "ipv6\n");
	default:
		return sprintf(page, "\n");
	}
}

static int purlin_set_adrfam(struct nvmf_disc_rsp_page_entry *a,
			     const char *val)
{
	if (!strcmp(val, "ipv4"))
		a->adrfam = NVMF_ADDR_FAMILY_IP4;
	else if (!strcmp(val, "ipv6"))
		a->adrfam = NVMF_ADDR_FAMILY_IP6;
	else
		return -EINVAL;
	return 0;
}

static ssize_t purlin_port_addr_adrfam_store(struct config_item *item,
					     const char *page, size_t count)
{
	return purlin_port_addr_store(item, page, count, purlin_set_adrfam);
}
CONFIGFS_ATTR(purlin_port_, addr_adrfam);

static ssize_t purlin_port_addr_traddr_show(struct config_item *item,
					    char *page)
{
	return sprintf(page, "%s\n", purlin_item_addr(item, NULL)->traddr);
}

static int purlin_set_traddr(struct nvmf_disc_rsp_page_entry *a,
			     const char *val)
{
	u8 addr[16];
	bool ok;

	if (a->adrfam == NVMF_ADDR_FAMILY_IP6)
		ok = in6_pton(val, -1, addr, -1, NULL);
	else
		ok = in4_pton(val, -1, addr, -1, NULL);
	if (!ok)
		return -EINVAL;
	strscpy(a->traddr, val, sizeof(a->traddr));
	return 0;
}

static ssize_t purlin_port_addr_traddr_store(struct config_item *item,
					     const char *page, size_t count)
{
	return purlin_port_addr_store(item, page, count, purlin_set_traddr);
}
CONFIGFS_ATTR(purlin_port_, addr_traddr);

static ssize_t purlin_port_addr_trsvcid_show(struct config_item *item,
					     char *page)
{
	return sprintf(page, "%s\n", purlin_item_addr(item, NULL)->trsvcid);
}

static int purlin_set_trsvcid(struct nvmf_disc_rsp_page_entry *a,
			      const char *val)
{
	u16 svc;

	if (kstrtou16(val, 10, &svc) || svc == 0)
		return -EINVAL;
	snprintf(a->trsvcid, sizeof(a->trsvcid), "%u", svc);
	return 0;
}

static ssize_t purlin_port_addr_trsvcid_store(struct config_item *item,
					      const char *page, size_t count)
{
	return purlin_port_addr_store(item, page, count, purlin_set_trsvcid);
}
CONFIGFS_ATTR(purlin_port_, addr_trsvcid);

static const char * const purlin_treq_names[] = {
	[NVMF_TREQ_NOT_SPECIFIED] = "not specified",
	[NVMF_TREQ_REQUIRED] = "required",
	[NVMF_TREQ_NOT_REQUIRED] = "not required",
};

static ssize_t purlin_port_addr_treq_show(struct config_item *item,
					  char *page)
{
	u8 treq = purlin_item_addr(item, NULL)->treq &
		  NVME_TREQ_SECURE_CHANNEL_MASK;

	if (treq >= ARRAY_SIZE(purlin_treq_names))
		return sprintf(page, "\n");
	return sprintf(page, "%s\n", purlin_treq_names[treq]);
}

static int purlin_set_treq(struct nvmf_disc_rsp_page_entry *a,
			   const char *val)
{
	u8 i;

	for (i = 0; i < ARRAY_SIZE(purlin_treq_names); i++) {
		if (!strcmp(val, purlin_treq_names[i])) {
			a->treq = (a->treq & ~NVME_TREQ_SECURE_CHANNEL_MASK) | i;
			return 0;
		}
	}
	return -EINVAL;
}

static ssize_t purlin_port_addr_treq_store(struct config_item *item,
					   const char *page, size_t count)
{
	return purlin_port_addr_store(item, page, count, purlin_set_treq);
}
CONFIGFS_ATTR(purlin_port_, addr_treq);

static ssize_t purlin_port_param_inline_data_size_show(struct config_item *item,
						       char *page)
{
	return sprintf(page, "%u\n", to_port(item)->inline_data_size);
}

static int purlin_port_set_u32(struct config_item *item, const char *page,
			       u32 *field, u32 def, u32 min, u32 max)
{
	struct purlin_port *port = to_port(item);
	int v, ret = 0;

	if (kstrtoint(page, 0, &v))
		return -EINVAL;
	if (v == -1)
		v = def;
	if (v < (int)min || v > (int)max)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (port->enabled)
		ret = -EACCES;
	else
		*field = v;
	up_write(&purlin_cfg_sem);
	return ret;
}

static ssize_t purlin_port_param_inline_data_size_store(struct config_item *item,
							const char *page,
							size_t count)
{
	int ret = purlin_port_set_u32(item, page,
				      &to_port(item)->inline_data_size,
				      PURLIN_DEF_INLINE, 0, PURLIN_MAX_INLINE);

	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_port_, param_inline_data_size);

static ssize_t purlin_port_param_max_queue_size_show(struct config_item *item,
						     char *page)
{
	return sprintf(page, "%u\n", to_port(item)->max_queue_size);
}

static ssize_t purlin_port_param_max_queue_size_store(struct config_item *item,
						      const char *page,
						      size_t count)
{
	int ret = purlin_port_set_u32(item, page,
				      &to_port(item)->max_queue_size,
				      PURLIN_DEF_QUEUE_SIZE, PURLIN_MIN_QUEUE_SIZE,
				      PURLIN_MAX_QUEUE_SIZE);

	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_port_, param_max_queue_size);

/*
 * Bounds on queues that have no controller yet (see admin-guide.md,
 * "Limits and hostile hosts"); -1 restores the default; only while the
 * port is disabled.
 */
#define PURLIN_PORT_U32_PARAM(name, field, def, min, max)		\
static ssize_t purlin_port_param_##name##_show(struct config_item *item, \
					       char *page)		\
{									\
	return sprintf(page, "%u\n", to_port(item)->field);		\
}									\
static ssize_t purlin_port_param_##name##_store(struct config_item *item, \
						const char *page,	\
						size_t count)		\
{									\
	int ret = purlin_port_set_u32(item, page, &to_port(item)->field, \
				      def, min, max);			\
	return ret ? ret : count;					\
}									\
CONFIGFS_ATTR(purlin_port_, param_##name)

PURLIN_PORT_U32_PARAM(max_pending, max_pending, PURLIN_DEF_MAX_PENDING, 1, 65536);
PURLIN_PORT_U32_PARAM(max_pending_per_addr, max_pending_per_addr,
		      PURLIN_DEF_MAX_PENDING_PER_ADDR, 1, 65536);
PURLIN_PORT_U32_PARAM(connect_timeout_ms, connect_timeout_ms,
		      PURLIN_DEF_CONNECT_TIMEOUT_MS, 100, 600000);

static ssize_t purlin_port_param_tos_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", to_port(item)->tos);
}

/* -1 (follow the host) or a ToS byte, 0..255; only while disabled. */
static ssize_t purlin_port_param_tos_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct purlin_port *port = to_port(item);
	int v, ret = 0;

	if (kstrtoint(page, 0, &v) || v < -1 || v > 255)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (port->enabled)
		ret = -EACCES;
	else
		port->tos = v;
	up_write(&purlin_cfg_sem);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_port_, param_tos);

PURLIN_PORT_U32_PARAM(poll_usecs, poll_usecs, PURLIN_DEF_POLL_USECS, 0,
		      PURLIN_MAX_POLL_USECS);

static ssize_t purlin_port_param_srq_size_show(struct config_item *item,
					       char *page)
{
	return sprintf(page, "%u\n", to_port(item)->srq_size);
}

/* 0 (each queue its own receive buffers) or MIN..MAX; -1: the default, 0. */
static ssize_t purlin_port_param_srq_size_store(struct config_item *item,
						const char *page, size_t count)
{
	int v, ret;

	if (kstrtoint(page, 0, &v))
		return -EINVAL;
	if (v > 0 && v < PURLIN_MIN_SRQ_SIZE)
		return -EINVAL;
	ret = purlin_port_set_u32(item, page, &to_port(item)->srq_size, 0, 0,
				  PURLIN_MAX_SRQ_SIZE);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_port_, param_srq_size);

static const char * const purlin_cq_mode_names[] = {
	[PURLIN_CQ_WORKQUEUE] = "workqueue",
	[PURLIN_CQ_POLL] = "poll",
};

static ssize_t purlin_port_param_cq_mode_show(struct config_item *item,
					      char *page)
{
	return sprintf(page, "%s\n",
		       purlin_cq_mode_names[to_port(item)->cq_mode]);
}

/* workqueue or poll (rdma-poll.c); only while disabled. */
static ssize_t purlin_port_param_cq_mode_store(struct config_item *item,
					       const char *page, size_t count)
{
	struct purlin_port *port = to_port(item);
	int mode, ret = 0;

	mode = sysfs_match_string(purlin_cq_mode_names, page);
	if (mode < 0)
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (port->enabled)
		ret = -EACCES;
	else
		port->cq_mode = mode;
	up_write(&purlin_cfg_sem);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_port_, param_cq_mode);

static ssize_t purlin_port_param_poll_cpus_show(struct config_item *item,
						char *page)
{
	return sprintf(page, "%*pbl\n",
		       cpumask_pr_args(to_port(item)->poll_cpus));
}

/*
 * The CPUs whose polling threads serve the port's polled queues, as a CPU
 * list ("0-3,8"); empty: the RDMA device's NUMA node.  Only while disabled.
 */
static ssize_t purlin_port_param_poll_cpus_store(struct config_item *item,
						 const char *page, size_t count)
{
	struct purlin_port *port = to_port(item);
	cpumask_var_t mask;
	int ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpulist_parse(page, mask);
	if (!ret && !cpumask_empty(mask) &&
	    !cpumask_subset(mask, cpu_possible_mask))
		ret = -EINVAL;
	if (!ret) {
		down_write(&purlin_cfg_sem);
		if (port->enabled)
			ret = -EACCES;
		else
			cpumask_copy(port->poll_cpus, mask);
		up_write(&purlin_cfg_sem);
	}
	free_cpumask_var(mask);
	return ret ? ret : count;
}
CONFIGFS_ATTR(purlin_port_, param_poll_cpus);

static struct configfs_attribute *purlin_port_attrs[] = {
	&purlin_port_attr_addr_trtype,
	&purlin_port_attr_addr_adrfam,
	&purlin_port_attr_addr_traddr,
	&purlin_port_attr_addr_trsvcid,
	&purlin_port_attr_addr_treq,
	&purlin_port_attr_param_inline_data_size,
	&purlin_port_attr_param_max_queue_size,
	&purlin_port_attr_param_tos,
	&purlin_port_attr_param_max_pending,
	&purlin_port_attr_param_max_pending_per_addr,
	&purlin_port_attr_param_connect_timeout_ms,
	&purlin_port_attr_param_cq_mode,
	&purlin_port_attr_param_poll_usecs,
	&purlin_port_attr_param_srq_size,
	&purlin_port_attr_param_poll_cpus,
	NULL,
};

/* ports/<id>/subsystems/<nqn>: export a subsystem through the port. */
static int purlin_port_subsys_allow_link(struct config_item *parent,
					 struct config_item *target)
{
	struct purlin_port *port = container_of(to_config_group(parent),
						struct purlin_port, subsys_group);
	struct purlin_subsys *subsys;
	struct purlin_subsys_link *l, *new;
	int ret = 0;

	if (target->ci_type != &purlin_subsys_type)
		return -EINVAL;
	subsys = to_subsys(target);
	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->subsys = subsys;

	mutex_lock(&purlin_port_mutex);
	down_write(&purlin_cfg_sem);
	list_for_each_entry(l, &port->subsystems, entry) {
		if (l->subsys == subsys) {
			ret = -EEXIST;
			goto out;
		}
	}
	if (list_empty(&subsys->entry)) {
		ret = -ENOENT;		/* being removed */
		goto out;
	}
	/* The first link binds the listener; its errno goes to ln(1). */
	ret = purlin_port_enable(port);
	if (ret)
		goto out;
	kref_get(&subsys->ref);
	list_add_tail(&new->entry, &port->subsystems);
	new = NULL;
	purlin_disc_changed();
out:
	up_write(&purlin_cfg_sem);
	mutex_unlock(&purlin_port_mutex);
	kfree(new);
	return ret;
}

/* Tear down the subsystem's controllers that came through this port. */
static void purlin_port_del_ctrls(struct purlin_port *port,
				  struct purlin_subsys *subsys)
{
	struct purlin_ctrl *ctrl;

	mutex_lock(&subsys->lock);
	list_for_each_entry(ctrl, &subsys->ctrls, entry)
		if (ctrl->port == port)
			purlin_ctrl_fatal(ctrl);
	mutex_unlock(&subsys->lock);
}

static void purlin_port_subsys_drop_link(struct config_item *parent,
					 struct config_item *target)
{
	struct purlin_port *port = container_of(to_config_group(parent),
						struct purlin_port, subsys_group);
	struct purlin_subsys *subsys = to_subsys(target);
	struct purlin_subsys_link *l, *found = NULL;
	bool last;

	mutex_lock(&purlin_port_mutex);
	down_write(&purlin_cfg_sem);
	list_for_each_entry(l, &port->subsystems, entry) {
		if (l->subsys == subsys) {
			found = l;
			list_del(&l->entry);
			break;
		}
	}
	last = list_empty(&port->subsystems);
	purlin_disc_changed();
	up_write(&purlin_cfg_sem);

	if (found) {
		purlin_port_del_ctrls(port, subsys);
		purlin_subsys_put(subsys);
		kfree(found);
	}
	if (last)
		purlin_port_disable(port);
	mutex_unlock(&purlin_port_mutex);
}

static struct configfs_item_operations purlin_port_subsys_item_ops = {
	.allow_link = purlin_port_subsys_allow_link,
	.drop_link = purlin_port_subsys_drop_link,
};

static const struct config_item_type purlin_port_subsys_type = {
	.ct_item_ops = &purlin_port_subsys_item_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- ANA groups: ports/<id>/ana_groups/<grpid>/ana_state ------------------ */

static const char * const purlin_ana_state_names[] = {
	[NVME_ANA_OPTIMIZED] = "optimized",
	[NVME_ANA_NONOPTIMIZED] = "non-optimized",
	[NVME_ANA_INACCESSIBLE] = "inaccessible",
	[NVME_ANA_PERSISTENT_LOSS] = "persistent-loss",
	[NVME_ANA_CHANGE] = "change",
};

static struct purlin_ana_group *to_ana_group(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_ana_group,
			    group);
}

static ssize_t purlin_ana_group_ana_state_show(struct config_item *item,
					       char *page)
{
	struct purlin_ana_group *grp = to_ana_group(item);
	u8 state = READ_ONCE(grp->port->ana_state[grp->grpid]);

	if (state >= ARRAY_SIZE(purlin_ana_state_names) ||
	    !purlin_ana_state_names[state])
		return sprintf(page, "\n");
	return sprintf(page, "%s\n", purlin_ana_state_names[state]);
}

static ssize_t purlin_ana_group_ana_state_store(struct config_item *item,
						const char *page, size_t count)
{
	struct purlin_ana_group *grp = to_ana_group(item);
	char buf[24];
	u8 state;

	if (purlin_strip(buf, sizeof(buf), page, count) <= 0)
		return -EINVAL;
	for (state = 0; state < ARRAY_SIZE(purlin_ana_state_names); state++)
		if (purlin_ana_state_names[state] &&
		    !strcmp(buf, purlin_ana_state_names[state]))
			break;
	if (state == ARRAY_SIZE(purlin_ana_state_names))
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (grp->port->ana_state[grp->grpid] != state) {
		WRITE_ONCE(grp->port->ana_state[grp->grpid], state);
		purlin_ana_changed(grp->port, NULL);
	}
	up_write(&purlin_cfg_sem);
	return count;
}
CONFIGFS_ATTR(purlin_ana_group_, ana_state);

static struct configfs_attribute *purlin_ana_group_attrs[] = {
	&purlin_ana_group_attr_ana_state,
	NULL,
};

static void purlin_ana_group_release(struct config_item *item)
{
	struct purlin_ana_group *grp = to_ana_group(item);

	if (grp != &grp->port->ana_default)
		kfree(grp);
}

static struct configfs_item_operations purlin_ana_group_item_ops = {
	.release = purlin_ana_group_release,
};

static const struct config_item_type purlin_ana_group_type = {
	.ct_item_ops = &purlin_ana_group_item_ops,
	.ct_attrs = purlin_ana_group_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *purlin_ana_group_make(struct config_group *group,
						  const char *name)
{
	struct purlin_port *port = container_of(group, struct purlin_port,
						ana_groups_group);
	struct purlin_ana_group *grp;
	u32 grpid;

	/* Group 1 is the port's default group, always present. */
	if (purlin_parse_id(name, PURLIN_MAX_ANA_GROUPS, &grpid) || grpid < 2)
		return ERR_PTR(-EINVAL);
	grp = kzalloc(sizeof(*grp), GFP_KERNEL);
	if (!grp)
		return ERR_PTR(-ENOMEM);
	grp->port = port;
	grp->grpid = grpid;
	config_group_init_type_name(&grp->group, name, &purlin_ana_group_type);

	down_write(&purlin_cfg_sem);
	port->ana_state[grpid] = NVME_ANA_OPTIMIZED;
	purlin_ana_changed(port, NULL);
	up_write(&purlin_cfg_sem);
	return &grp->group;
}

static void purlin_ana_group_drop(struct config_group *group,
				  struct config_item *item)
{
	struct purlin_ana_group *grp = to_ana_group(item);

	down_write(&purlin_cfg_sem);
	grp->port->ana_state[grp->grpid] = 0;
	purlin_ana_changed(grp->port, NULL);
	up_write(&purlin_cfg_sem);
	config_item_put(item);
}

static struct configfs_group_operations purlin_ana_groups_group_ops = {
	.make_group = purlin_ana_group_make,
	.drop_item = purlin_ana_group_drop,
};

static const struct config_item_type purlin_ana_groups_type = {
	.ct_group_ops = &purlin_ana_groups_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- referrals: ports/<id>/referrals/<name>/ ----------------------------- */

static ssize_t purlin_referral_addr_portid_show(struct config_item *item,
						char *page)
{
	return sprintf(page, "%u\n",
		       le16_to_cpu(to_referral(item)->addr.portid));
}

static int purlin_set_portid(struct nvmf_disc_rsp_page_entry *a,
			     const char *val)
{
	u16 id;

	if (kstrtou16(val, 10, &id))
		return -EINVAL;
	a->portid = cpu_to_le16(id);
	return 0;
}

static ssize_t purlin_referral_addr_portid_store(struct config_item *item,
						 const char *page, size_t count)
{
	return purlin_port_addr_store(item, page, count, purlin_set_portid);
}
CONFIGFS_ATTR(purlin_referral_, addr_portid);

static ssize_t purlin_referral_enable_show(struct config_item *item,
					   char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_referral(item)->enabled));
}

static ssize_t purlin_referral_enable_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct purlin_referral *ref = to_referral(item);
	bool enable;

	if (kstrtobool(page, &enable))
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	if (enable && !ref->addr.traddr[0]) {
		up_write(&purlin_cfg_sem);
		return -EINVAL;		/* nothing to refer to yet */
	}
	if (ref->enabled != enable) {
		ref->enabled = enable;
		purlin_disc_changed();
	}
	up_write(&purlin_cfg_sem);
	return count;
}
CONFIGFS_ATTR(purlin_referral_, enable);

static struct configfs_attribute *purlin_referral_attrs[] = {
	&purlin_port_attr_addr_trtype,
	&purlin_port_attr_addr_adrfam,
	&purlin_port_attr_addr_traddr,
	&purlin_port_attr_addr_trsvcid,
	&purlin_port_attr_addr_treq,
	&purlin_referral_attr_addr_portid,
	&purlin_referral_attr_enable,
	NULL,
};

static void purlin_referral_release(struct config_item *item)
{
	kfree(to_referral(item));
}

static struct configfs_item_operations purlin_referral_item_ops = {
	.release = purlin_referral_release,
};

static const struct config_item_type purlin_referral_type = {
	.ct_item_ops = &purlin_referral_item_ops,
	.ct_attrs = purlin_referral_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *purlin_referral_make(struct config_group *group,
						 const char *name)
{
	struct purlin_port *port = container_of(group, struct purlin_port,
						referrals_group);
	struct purlin_referral *ref;

	ref = kzalloc(sizeof(*ref), GFP_KERNEL);
	if (!ref)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&ref->entry);
	ref->addr.adrfam = NVMF_ADDR_FAMILY_IP4;
	strscpy(ref->addr.trsvcid, "4420", sizeof(ref->addr.trsvcid));
	purlin_set_trtype(&ref->addr, "rdma");
	config_group_init_type_name(&ref->group, name, &purlin_referral_type);

	down_write(&purlin_cfg_sem);
	list_add_tail(&ref->entry, &port->referrals);
	up_write(&purlin_cfg_sem);
	return &ref->group;
}

static void purlin_referral_drop(struct config_group *group,
				 struct config_item *item)
{
	struct purlin_referral *ref = to_referral(item);

	down_write(&purlin_cfg_sem);
	list_del_init(&ref->entry);
	if (ref->enabled)
		purlin_disc_changed();
	up_write(&purlin_cfg_sem);
	config_item_put(item);
}

static struct configfs_group_operations purlin_referrals_group_ops = {
	.make_group = purlin_referral_make,
	.drop_item = purlin_referral_drop,
};

static const struct config_item_type purlin_referrals_type = {
	.ct_group_ops = &purlin_referrals_group_ops,
	.ct_owner = THIS_MODULE,
};

static void purlin_port_release(struct config_item *item)
{
	free_cpumask_var(to_port(item)->poll_cpus);
	kfree(to_port(item));
	atomic_dec(&purlin_live.ports);
}

static struct configfs_item_operations purlin_port_item_ops = {
	.release = purlin_port_release,
};

static const struct config_item_type purlin_port_type = {
	.ct_item_ops = &purlin_port_item_ops,
	.ct_attrs = purlin_port_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group *purlin_port_make(struct config_group *group,
					     const char *name)
{
	struct purlin_port *port;
	u32 portid;

	if (purlin_parse_id(name, U16_MAX, &portid))
		return ERR_PTR(-EINVAL);
	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return ERR_PTR(-ENOMEM);
	if (!zalloc_cpumask_var(&port->poll_cpus, GFP_KERNEL)) {
		kfree(port);
		return ERR_PTR(-ENOMEM);
	}
	INIT_LIST_HEAD(&port->entry);
	INIT_LIST_HEAD(&port->subsystems);
	port->disc_addr.portid = cpu_to_le16(portid);
	port->disc_addr.adrfam = NVMF_ADDR_FAMILY_IP4;
	port->disc_addr.treq = NVMF_TREQ_DISABLE_SQFLOW;
	strscpy(port->disc_addr.trsvcid, "4420", sizeof(port->disc_addr.trsvcid));
	purlin_set_trtype(&port->disc_addr, "rdma");
	port->inline_data_size = PURLIN_DEF_INLINE;
	port->max_queue_size = PURLIN_DEF_QUEUE_SIZE;
	port->tos = -1;
	port->max_pending = PURLIN_DEF_MAX_PENDING;
	port->max_pending_per_addr = PURLIN_DEF_MAX_PENDING_PER_ADDR;
	port->connect_timeout_ms = PURLIN_DEF_CONNECT_TIMEOUT_MS;
	port->cq_mode = PURLIN_CQ_WORKQUEUE;
	port->poll_usecs = PURLIN_DEF_POLL_USECS;

	config_group_init_type_name(&port->group, name, &purlin_port_type);
	config_group_init_type_name(&port->subsys_group, "subsystems",
				    &purlin_port_subsys_type);
	configfs_add_default_group(&port->subsys_group, &port->group);
	INIT_LIST_HEAD(&port->referrals);
	config_group_init_type_name(&port->referrals_group, "referrals",
				    &purlin_referrals_type);
	configfs_add_default_group(&port->referrals_group, &port->group);
	config_group_init_type_name(&port->ana_groups_group, "ana_groups",
				    &purlin_ana_groups_type);
	configfs_add_default_group(&port->ana_groups_group, &port->group);
	port->ana_default.port = port;
	port->ana_default.grpid = 1;
	port->ana_state[1] = NVME_ANA_OPTIMIZED;
	config_group_init_type_name(&port->ana_default.group, "1",
				    &purlin_ana_group_type);
	configfs_add_default_group(&port->ana_default.group,
				   &port->ana_groups_group);

	down_write(&purlin_cfg_sem);
	list_add_tail(&port->entry, &purlin_ports);
	up_write(&purlin_cfg_sem);
	atomic_inc(&purlin_live.ports);
	return &port->group;
}

static void purlin_port_drop(struct config_group *group,
			     struct config_item *item)
{
	struct purlin_port *port = to_port(item);
	struct purlin_subsys_link *l, *tmp;
	LIST_HEAD(links);

	mutex_lock(&purlin_port_mutex);
	down_write(&purlin_cfg_sem);
	list_del_init(&port->entry);
	list_splice_init(&port->subsystems, &links);
	purlin_disc_changed();
	up_write(&purlin_cfg_sem);
	/* Disabling disconnects every queue of the port and waits. */
	purlin_port_disable(port);
	mutex_unlock(&purlin_port_mutex);
	list_for_each_entry_safe(l, tmp, &links, entry) {
		list_del(&l->entry);
		purlin_subsys_put(l->subsys);
		kfree(l);
	}
	config_item_put(item);
}

static struct configfs_group_operations purlin_ports_group_ops = {
	.make_group = purlin_port_make,
	.drop_item = purlin_port_drop,
};

static const struct config_item_type purlin_ports_type = {
	.ct_group_ops = &purlin_ports_group_ops,
	.ct_owner = THIS_MODULE,
};

/* ---- controllers/<subsysnqn>:<cntlid> --------------------------------- */

/*
 * One directory per controller of a normal subsystem, made by the kernel
 * (configfs_register_group()), with read-only attributes: each file is a
 * page, however many controllers there are.
 *
 * Why under a top-level controllers/ and not under the subsystem: a
 * registered group counts as a default group of its parent, so an rmdir of
 * the subsystem would tear it down behind our back and our own unregister
 * would then act on a freed directory.  controllers/ is a default group of
 * the root and lives as long as the module's configfs subsystem.
 *
 * Lock order.  configfs_register_group() takes the configfs subsystem's
 * su_mutex, then controllers/'s inode lock; configfs_unregister_group()
 * takes the fragment's frag_sem for writing (waiting for every show() of
 * the directory to finish), then controllers/'s inode lock, then su_mutex.
 * configfs holds su_mutex and directory inode locks around make_group and
 * drop_item, which take purlin_cfg_sem and subsys->lock; show() (under
 * frag_sem) takes ctrl->lock.  So registering or unregistering while
 * holding any of our locks could deadlock: both are done only by works on
 * purlin_ctrl_wq, which take none of our locks around the calls:
 *
 *	su_mutex / inode locks / frag_sem  ->  purlin_cfg_sem  ->
 *	subsys->lock  ->  ctrl->lock
 *
 * Lifetime.  The directory's show() functions read the controller through
 * dir->ctrl.  The controller is freed only by its free_work, after
 * configfs_unregister_group() returned: from then on no show() runs or can
 * start (configfs checks the fragment's frag_dead under frag_sem), even
 * for a file a reader still holds open (its reads fail with ENOENT).  The
 * directory's own memory (struct purlin_ctrl_dir) is freed by the item's
 * release, when configfs and we have dropped our references.
 *
 * Backlog.  A controller queues two works at most, embedded in it, and
 * keeps its cntlid until its free_work ran: however fast peers connect and
 * drop, the queue holds at most two works per cntlid of each subsystem,
 * and a queue that falls behind shows as Controller Busy to new Connects
 * (no cntlid left), not as memory.  A controller already released when its
 * dir_add_work runs gets no directory.
 */
struct purlin_ctrl_dir {
	struct config_group group;
	struct purlin_ctrl *ctrl;
};

static struct config_group purlin_ctrls_group;

static struct purlin_ctrl *to_dir_ctrl(struct config_item *item)
{
	return container_of(to_config_group(item), struct purlin_ctrl_dir,
			    group)->ctrl;
}

static ssize_t purlin_ctrl_cntlid_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_dir_ctrl(item)->cntlid);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, cntlid);

static ssize_t purlin_ctrl_subsysnqn_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%s\n", to_dir_ctrl(item)->subsys->subsysnqn);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, subsysnqn);

static ssize_t purlin_ctrl_hostnqn_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", to_dir_ctrl(item)->hostnqn);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, hostnqn);

static ssize_t purlin_ctrl_hostid_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%pUb\n", &to_dir_ctrl(item)->hostid);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, hostid);

/* The port the controller's admin queue came through. */
static ssize_t purlin_ctrl_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", to_dir_ctrl(item)->portid);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, port);

/* The host's address, as its admin queue's peer; empty when unknown. */
static ssize_t purlin_ctrl_addr_show(struct config_item *item, char *page)
{
	struct purlin_ctrl *ctrl = to_dir_ctrl(item);

	if (ctrl->host_addr.ss_family != AF_INET &&
	    ctrl->host_addr.ss_family != AF_INET6)
		return sysfs_emit(page, "\n");
	return sysfs_emit(page, "%pISc\n", &ctrl->host_addr);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, addr);

static ssize_t purlin_ctrl_kato_ms_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(to_dir_ctrl(item)->kato));
}
CONFIGFS_ATTR_RO(purlin_ctrl_, kato_ms);

/* Connected queues, the admin queue included. */
static ssize_t purlin_ctrl_queues_show(struct config_item *item, char *page)
{
	struct purlin_ctrl *ctrl = to_dir_ctrl(item);
	int q, queues = 0;

	mutex_lock(&ctrl->lock);
	for (q = 0; q <= PURLIN_MAX_QID; q++)
		queues += !!ctrl->sqs[q];
	mutex_unlock(&ctrl->lock);
	return sysfs_emit(page, "%d\n", queues);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, queues);

/* live (enabled, ready), not-ready, or deleting (going away). */
static ssize_t purlin_ctrl_state_show(struct config_item *item, char *page)
{
	struct purlin_ctrl *ctrl = to_dir_ctrl(item);
	const char *state;

	mutex_lock(&ctrl->lock);
	if (ctrl->fatal)
		state = "deleting";
	else if (ctrl->csts & NVME_CSTS_RDY)
		state = "live";
	else
		state = "not-ready";
	mutex_unlock(&ctrl->lock);
	return sysfs_emit(page, "%s\n", state);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, state);

/* The I/O counters, with the keys of a namespace's stats file. */
static ssize_t purlin_ctrl_stats_show(struct config_item *item, char *page)
{
	return purlin_stats_line(to_dir_ctrl(item)->stats, page, PAGE_SIZE, false);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, stats);

static ssize_t purlin_ctrl_latency_show(struct config_item *item, char *page)
{
	return purlin_latency_show(to_dir_ctrl(item)->stats, page, PAGE_SIZE);
}
CONFIGFS_ATTR_RO(purlin_ctrl_, latency);

static struct configfs_attribute *purlin_ctrl_attrs[] = {
	&purlin_ctrl_attr_cntlid,
	&purlin_ctrl_attr_subsysnqn,
	&purlin_ctrl_attr_hostnqn,
	&purlin_ctrl_attr_hostid,
	&purlin_ctrl_attr_port,
	&purlin_ctrl_attr_addr,
	&purlin_ctrl_attr_kato_ms,
	&purlin_ctrl_attr_queues,
	&purlin_ctrl_attr_state,
	&purlin_ctrl_attr_stats,
	&purlin_ctrl_attr_latency,
	NULL,
};

static void purlin_ctrl_dir_release(struct config_item *item)
{
	kfree(container_of(to_config_group(item), struct purlin_ctrl_dir,
			   group));
}

static struct configfs_item_operations purlin_ctrl_dir_item_ops = {
	.release = purlin_ctrl_dir_release,
};

static const struct config_item_type purlin_ctrl_dir_type = {
	.ct_item_ops = &purlin_ctrl_dir_item_ops,
	.ct_attrs = purlin_ctrl_attrs,
	.ct_owner = THIS_MODULE,
};

/* No mkdir, rmdir or links: the kernel alone makes its directories. */
static const struct config_item_type purlin_ctrls_type = {
	.ct_owner = THIS_MODULE,
};

/*
 * Register the controller's directory; purlin_ctrl_wq.  Failure (memory,
 * or the name still taken by a controller of a subsystem of the same NQN
 * that was deleted and is not yet freed) leaves the controller without a
 * directory; it works all the same.
 */
void purlin_ctrl_dir_add_work(struct work_struct *work)
{
	struct purlin_ctrl *ctrl = container_of(work, struct purlin_ctrl,
						dir_add_work);
	struct purlin_subsys *subsys = ctrl->subsys;
	struct purlin_ctrl_dir *dir;
	bool gone;
	int ret;

	/*
	 * A controller released already (a peer that connects and drops at
	 * once, over and over) gets no directory: its free_work is queued
	 * behind us and would only tear it down again.
	 */
	mutex_lock(&subsys->lock);
	gone = list_empty(&ctrl->entry);
	mutex_unlock(&subsys->lock);
	if (gone)
		return;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return;
	dir->ctrl = ctrl;
	config_group_init_type_name(&dir->group, "", &purlin_ctrl_dir_type);
	ret = config_item_set_name(&dir->group.cg_item, "%s:%u",
				   subsys->subsysnqn, ctrl->cntlid);
	if (!ret)
		ret = configfs_register_group(&purlin_ctrls_group, &dir->group);
	if (ret) {
		pr_warn_ratelimited("controller %u of %s: no configfs directory (%d)\n",
				    ctrl->cntlid, subsys->subsysnqn, ret);
		config_group_put(&dir->group);
		return;
	}
	ctrl->dir = dir;
}

/*
 * Unregister the controller's directory, if it has one; from its
 * free_work on purlin_ctrl_wq, before the controller is freed.  Waits for
 * readers inside show().
 */
void purlin_ctrl_dir_del(struct purlin_ctrl *ctrl)
{
	struct purlin_ctrl_dir *dir = ctrl->dir;

	if (!dir)
		return;
	configfs_unregister_group(&dir->group);
	ctrl->dir = NULL;
	config_group_put(&dir->group);
}

/* ---- root ------------------------------------------------------------ */

static struct config_group purlin_subsystems_group;
static struct config_group purlin_ports_group;
static struct config_group purlin_hosts_group;

/*
 * discovery_nqn: the NQN of the discovery subsystem, as nvmet's (a
 * persistent discovery controller's identity).  Any name a subsystem could
 * have that no subsystem has; the well-known NQN keeps reaching it.
 */
static ssize_t purlin_root_discovery_nqn_show(struct config_item *item,
					      char *page)
{
	ssize_t ret;

	down_read(&purlin_cfg_sem);
	ret = sysfs_emit(page, "%s\n", purlin_disc_nqn);
	up_read(&purlin_cfg_sem);
	return ret;
}

static ssize_t purlin_root_discovery_nqn_store(struct config_item *item,
					       const char *page, size_t count)
{
	char nqn[NVMF_NQN_SIZE + 1];
	struct purlin_subsys *subsys;
	bool changed;

	if (purlin_strip(nqn, sizeof(nqn), page, count) < 0 ||
	    !purlin_cfs_name_ok(nqn))
		return -EINVAL;
	down_write(&purlin_cfg_sem);
	list_for_each_entry(subsys, &purlin_subsystems, entry) {
		if (!strcmp(subsys->subsysnqn, nqn)) {
			up_write(&purlin_cfg_sem);
			pr_err("discovery NQN '%s' names a subsystem\n", nqn);
			return -EINVAL;
		}
	}
	changed = strcmp(purlin_disc_nqn, nqn);
	if (changed) {
		strscpy(purlin_disc_nqn, nqn, sizeof(purlin_disc_nqn));
		/* The discovery log's own entry names it. */
		purlin_disc_changed();
	}
	up_write(&purlin_cfg_sem);
	if (changed)
		purlin_nqn_warn("discovery", nqn);
	return count;
}
CONFIGFS_ATTR(purlin_root_, discovery_nqn);

static struct configfs_attribute *purlin_root_attrs[] = {
	&purlin_root_attr_discovery_nqn,
	NULL,
};

static const struct config_item_type purlin_root_type = {
	.ct_attrs = purlin_root_attrs,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem purlin_configfs = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "purlin",
			.ci_type = &purlin_root_type,
		},
	},
};

int purlin_configfs_init(void)
{
	struct config_group *root = &purlin_configfs.su_group;

	config_group_init(root);
	mutex_init(&purlin_configfs.su_mutex);

	config_group_init_type_name(&purlin_subsystems_group, "subsystems",
				    &purlin_subsystems_type);
	configfs_add_default_group(&purlin_subsystems_group, root);
	config_group_init_type_name(&purlin_ports_group, "ports",
				    &purlin_ports_type);
	configfs_add_default_group(&purlin_ports_group, root);
	config_group_init_type_name(&purlin_hosts_group, "hosts",
				    &purlin_hosts_type);
	configfs_add_default_group(&purlin_hosts_group, root);
	config_group_init_type_name(&purlin_ctrls_group, "controllers",
				    &purlin_ctrls_type);
	configfs_add_default_group(&purlin_ctrls_group, root);

	return configfs_register_subsystem(&purlin_configfs);
}

void purlin_configfs_exit(void)
{
	/*
	 * No port is left (each pinned the module), and removing a port
	 * waited for its queues, whose last puts queued every controller's
	 * free_work: after the flush no controller and no directory is left,
	 * and nothing queues a work on purlin_ctrl_wq any more.
	 */
	flush_workqueue(purlin_ctrl_wq);
	WARN_ON(atomic_read(&purlin_live.ctrls));
	configfs_unregister_subsystem(&purlin_configfs);
}
