// SPDX-License-Identifier: GPL-2.0
/*
 * Purlin configfs tree: /sys/kernel/config/purlin/{subsystems,ports,hosts}.
 */
#include <linux/module.h>

#include "purlin.h"

static const struct config_item_type purlin_dir_type = {
	.ct_owner = THIS_MODULE,
};

static struct config_group purlin_subsys_group;
static struct config_group purlin_ports_group;
static struct config_group purlin_hosts_group;

static const struct config_item_type purlin_root_type = {
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

	config_group_init_type_name(&purlin_subsys_group, "subsystems",
				    &purlin_dir_type);
	configfs_add_default_group(&purlin_subsys_group, root);
	config_group_init_type_name(&purlin_ports_group, "ports",
				    &purlin_dir_type);
	configfs_add_default_group(&purlin_ports_group, root);
	config_group_init_type_name(&purlin_hosts_group, "hosts",
				    &purlin_dir_type);
	configfs_add_default_group(&purlin_hosts_group, root);

	return configfs_register_subsystem(&purlin_configfs);
}

void purlin_configfs_exit(void)
{
	configfs_unregister_subsystem(&purlin_configfs);
}
