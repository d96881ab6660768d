// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only simulated Ethernet device with IEEE DCB and ethtool tuning ops,
 * so the guest tests can drive purlinctl's success paths and read its work
 * back with independent clients (iproute2's dcb, ethtool).
 *
 * It registers one netdev, dcbsim0, whose transmit drops every packet. Its
 * dcbnl_ops store IEEE ETS, PFC, maxrate, the APP table (kept in the
 * kernel's table through dcb_ieee_setapp/dcb_ieee_delapp), APP trust (6.2+
 * kernels) and the DCBX mode; its ethtool_ops store interrupt coalescing,
 * ring sizes and link-level pause. Sets are validated the way real drivers
 * do (mlx5, ice, bnxt) and refused with -EINVAL and friends.
 *
 * Parameters make it misbehave on purpose: fail_set* makes a setter fail
 * (the kernel reports that inside its DCB reply), no_set* leaves a setter
 * out (the kernel then skips the attribute silently, or for APP trust
 * answers -EOPNOTSUPP), no_apptrust leaves out both APP trust ops (trust
 * then follows the DSCP APP entries, as on 6.1 kernels and mlx5), and
 * dscp_exclusive keeps one priority per DSCP as mlx5 does: adding an entry
 * for a DSCP drops the DSCP's old entry from the table.
 *
 * All state is guarded by RTNL: dcbnl and ethtool call their ops under it.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/dcbnl.h>

#if !IS_ENABLED(CONFIG_DCB)
#error "purlin_dcbsim needs a kernel with CONFIG_DCB"
#endif

/* APP trust (dcbnl_setapptrust/getapptrust) came with this uapi name (6.2). */
#ifdef IEEE_8021QAZ_APP_SEL_MAX
#define DCBSIM_HAVE_APPTRUST 1
#endif

#define DCBSIM_MAX_MTU 9000
#define DCBSIM_MAX_APPS 128
#define DCBSIM_MAX_TRUST 2
#define DCBSIM_RING_MAX 8192
#define DCBSIM_COAL_USECS_MAX 4095	/* as mlx5: MLX5_MAX_CQ_PERIOD */
#define DCBSIM_COAL_FRAMES_MAX 65535	/* as mlx5: MLX5_MAX_CQ_COUNT */

static int num_tc = IEEE_8021QAZ_MAX_TCS;
module_param(num_tc, int, 0444);
MODULE_PARM_DESC(num_tc, "Traffic classes (ETS cap and PFC cap), 1-8 (default 8)");

static bool fail_setets;
module_param(fail_setets, bool, 0444);
MODULE_PARM_DESC(fail_setets, "ieee_setets fails with -EIO");

static bool fail_setpfc;
module_param(fail_setpfc, bool, 0444);
MODULE_PARM_DESC(fail_setpfc, "ieee_setpfc fails with -EIO");

static bool no_setets;
module_param(no_setets, bool, 0444);
MODULE_PARM_DESC(no_setets, "No ieee_setets (the kernel skips ETS silently)");

static bool no_setpfc;
module_param(no_setpfc, bool, 0444);
MODULE_PARM_DESC(no_setpfc, "No ieee_setpfc (the kernel skips PFC silently)");

static bool no_setapptrust;
module_param(no_setapptrust, bool, 0444);
MODULE_PARM_DESC(no_setapptrust, "No dcbnl_setapptrust, getapptrust kept (6.2+ kernels)");

static bool no_apptrust;
module_param(no_apptrust, bool, 0444);
MODULE_PARM_DESC(no_apptrust, "No APP trust ops at all (trust follows the DSCP APP entries)");

static bool dscp_exclusive;
module_param(dscp_exclusive, bool, 0444);
MODULE_PARM_DESC(dscp_exclusive,
		 "One priority per DSCP, as mlx5: a new DSCP entry replaces the DSCP's old one");

struct dcbsim {
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	u8 dcbx;
	u8 trust[DCBSIM_MAX_TRUST];
	int ntrust;
	/* What this device put in the kernel's APP table, to remove on unregister. */
	struct dcb_app apps[DCBSIM_MAX_APPS];
	int napps;
	u32 rx_usecs, rx_frames, tx_usecs, tx_frames;
	bool adaptive_rx, adaptive_tx;
	u32 rx_ring, tx_ring;
	bool rx_pause, tx_pause;
};

static struct net_device *dcbsim_dev;

static void dcbsim_defaults(struct dcbsim *sim)
{
	int i;

	/* As many NICs come up: every priority in TC 0, which has all the bandwidth. */
	sim->ets.ets_cap = num_tc;
	for (i = 0; i < num_tc; i++)
		sim->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	sim->ets.tc_tx_bw[0] = 100;
	sim->pfc.pfc_cap = num_tc;
	/* Simulated counters: fixed, so that clients can check they parse them. */
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		sim->pfc.requests[i] = 1000 + i;
		sim->pfc.indications[i] = 2000 + i;
	}
	sim->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
#ifdef DCBSIM_HAVE_APPTRUST
	sim->trust[0] = DCB_APP_SEL_PCP;
	sim->ntrust = 1;
#endif
	sim->rx_usecs = 8;
	sim->rx_frames = 128;
	sim->tx_usecs = 16;
	sim->tx_frames = 32;
	sim->rx_ring = 1024;
	sim->tx_ring = 1024;
	sim->rx_pause = true;
	sim->tx_pause = true;
}

/* Like ice: the host may not change what an LLDP agent manages. */
static int dcbsim_host_managed(struct net_device *dev)
{
	struct dcbsim *sim = netdev_priv(dev);

	if (sim->dcbx & DCB_CAP_DCBX_LLD_MANAGED) {
		netdev_info(dev, "DCB is managed by an LLDP agent: refused\n");
		return -EBUSY;
	}
	return 0;
}

/* ---- DCB ---- */

static int dcbsim_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbsim *sim = netdev_priv(dev);

	*ets = sim->ets;
	return 0;
}

static int dcbsim_validate_ets(struct net_device *dev, const struct ieee_ets *ets)
{
	bool have_ets = false;
	int i, sum = 0;

	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		if (ets->prio_tc[i] >= num_tc) {
			netdev_info(dev, "ETS: prio %d to TC %u, but there are %d TCs\n", i,
				    ets->prio_tc[i], num_tc);
			return -EINVAL;
		}
	}
	for (i = 0; i < num_tc; i++) {
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_ETS:
			if (ets->tc_tx_bw[i] > 100)
				return -EINVAL;
			have_ets = true;
			sum += ets->tc_tx_bw[i];
			break;
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		default:
			netdev_info(dev, "ETS: TC %d: TSA %u not supported\n", i, ets->tc_tsa[i]);
			return -EOPNOTSUPP;
		}
	}
	if (have_ets && sum != 100) {
		netdev_info(dev, "ETS: the ETS classes' bandwidths add up to %d, not 100\n", sum);
		return -EINVAL;
	}
	return 0;
}

static int dcbsim_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbsim *sim = netdev_priv(dev);
	int i, err;

	if (fail_setets)
		return -EIO;
	err = dcbsim_host_managed(dev);
	if (!err)
		err = dcbsim_validate_ets(dev, ets);
	if (err)
		return err;
	sim->ets.willing = ets->willing;
	for (i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
		bool used = i < num_tc;

		sim->ets.tc_tsa[i] = used ? ets->tc_tsa[i] : IEEE_8021QAZ_TSA_STRICT;
		/* A class that is not ETS has no share: report 0, as mlx5 does. */
		sim->ets.tc_tx_bw[i] = used && ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS ?
				       ets->tc_tx_bw[i] : 0;
		sim->ets.prio_tc[i] = ets->prio_tc[i];
	}
	return 0;
}

static int dcbsim_getmaxrate(struct net_device *dev, struct ieee_maxrate *maxrate)
{
	struct dcbsim *sim = netdev_priv(dev);

	*maxrate = sim->maxrate;
	return 0;
}

static int dcbsim_setmaxrate(struct net_device *dev, struct ieee_maxrate *maxrate)
{
	struct dcbsim *sim = netdev_priv(dev);
	int i, err = dcbsim_host_managed(dev);

	if (err)
		return err;
	for (i = num_tc; i < IEEE_8021QAZ_MAX_TCS; i++)
		if (maxrate->tc_maxrate[i])
			return -EINVAL;
	sim->maxrate = *maxrate;
	return 0;
}

static int dcbsim_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbsim *sim = netdev_priv(dev);

	*pfc = sim->pfc;
	return 0;
}

static int dcbsim_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbsim *sim = netdev_priv(dev);
	int err;

	if (fail_setpfc)
		return -EIO;
	err = dcbsim_host_managed(dev);
	if (err)
		return err;
	if (hweight8(pfc->pfc_en) > sim->pfc.pfc_cap) {
		netdev_info(dev, "PFC: %d priorities enabled, at most %u\n",
			    hweight8(pfc->pfc_en), sim->pfc.pfc_cap);
		return -EINVAL;
	}
	sim->pfc.pfc_en = pfc->pfc_en;
	sim->pfc.mbc = pfc->mbc;
	sim->pfc.delay = pfc->delay;
	return 0;
}

static int dcbsim_validate_app(const struct dcb_app *app)
{
	if (app->priority >= IEEE_8021QAZ_MAX_TCS)
		return -EINVAL;
	switch (app->selector) {
	case IEEE_8021QAZ_APP_SEL_DSCP:
		return app->protocol < 64 ? 0 : -EINVAL;
	case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
		/* 0 is the default priority */
		return !app->protocol || app->protocol >= ETH_P_802_3_MIN ? 0 : -EINVAL;
	case IEEE_8021QAZ_APP_SEL_STREAM:
	case IEEE_8021QAZ_APP_SEL_DGRAM:
	case IEEE_8021QAZ_APP_SEL_ANY:
		return app->protocol ? 0 : -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
}

static void dcbsim_forget_app(struct dcbsim *sim, const struct dcb_app *app)
{
	int i;

	for (i = 0; i < sim->napps; i++) {
		if (sim->apps[i].selector == app->selector &&
		    sim->apps[i].protocol == app->protocol &&
		    sim->apps[i].priority == app->priority) {
			sim->apps[i] = sim->apps[--sim->napps];
			return;
		}
	}
}

/* mlx5: the DSCP's old mapping leaves the kernel's table when a new one comes. */
static void dcbsim_drop_dscp(struct net_device *dev, struct dcbsim *sim, const struct dcb_app *app)
{
	int i = 0;

	while (i < sim->napps) {
		struct dcb_app old = sim->apps[i];

		if (old.selector != IEEE_8021QAZ_APP_SEL_DSCP || old.protocol != app->protocol ||
		    old.priority == app->priority) {
			i++;
			continue;
		}
		dcb_ieee_delapp(dev, &old);
		dcbsim_forget_app(sim, &old);
	}
}

static int dcbsim_setapp(struct net_device *dev, struct dcb_app *app)
{
	struct dcbsim *sim = netdev_priv(dev);
	int err = dcbsim_host_managed(dev);

	if (!err)
		err = dcbsim_validate_app(app);
	if (err)
		return err;
	if (dscp_exclusive && app->selector == IEEE_8021QAZ_APP_SEL_DSCP)
		dcbsim_drop_dscp(dev, sim, app);
	if (sim->napps >= DCBSIM_MAX_APPS)
		return -ENOSPC;
	err = dcb_ieee_setapp(dev, app);
	if (!err)
		sim->apps[sim->napps++] = *app;
	return err;
}

static int dcbsim_delapp(struct net_device *dev, struct dcb_app *app)
{
	struct dcbsim *sim = netdev_priv(dev);
	int err = dcbsim_host_managed(dev);

	if (!err)
		err = dcb_ieee_delapp(dev, app);
	if (!err)
		dcbsim_forget_app(sim, app);
	return err;
}

static u8 dcbsim_getdcbx(struct net_device *dev)
{
	struct dcbsim *sim = netdev_priv(dev);

	return sim->dcbx;
}

/* Returns 0 when the mode is taken, 1 when refused (the dcbnl convention). */
static u8 dcbsim_setdcbx(struct net_device *dev, u8 mode)
{
	struct dcbsim *sim = netdev_priv(dev);
	bool host = mode & DCB_CAP_DCBX_HOST, lld = mode & DCB_CAP_DCBX_LLD_MANAGED;

	/* One manager, IEEE only (no CEE ops here). */
	if (host == lld || !(mode & DCB_CAP_DCBX_VER_IEEE) || (mode & DCB_CAP_DCBX_VER_CEE))
		return 1;
	sim->dcbx = mode;
	return 0;
}

#ifdef DCBSIM_HAVE_APPTRUST
static int dcbsim_setapptrust(struct net_device *dev, u8 *selectors, int nselectors)
{
	struct dcbsim *sim = netdev_priv(dev);
	int i, err = dcbsim_host_managed(dev);

	if (err)
		return err;
	/* The kernel refused duplicates already: this leaves at most two. */
	for (i = 0; i < nselectors; i++) {
		if (selectors[i] != IEEE_8021QAZ_APP_SEL_DSCP && selectors[i] != DCB_APP_SEL_PCP) {
			netdev_info(dev, "apptrust: selector %u not supported\n", selectors[i]);
			return -EOPNOTSUPP;
		}
	}
	if (nselectors > DCBSIM_MAX_TRUST)
		return -EINVAL;
	memcpy(sim->trust, selectors, nselectors);
	sim->ntrust = nselectors;
	return 0;
}

static int dcbsim_getapptrust(struct net_device *dev, u8 *selectors, int *nselectors)
{
	struct dcbsim *sim = netdev_priv(dev);

	memcpy(selectors, sim->trust, sim->ntrust);
	*nselectors = sim->ntrust;
	return 0;
}
#endif

static const struct dcbnl_rtnl_ops dcbsim_dcbnl_template = {
	.ieee_getets = dcbsim_getets,
	.ieee_setets = dcbsim_setets,
	.ieee_getmaxrate = dcbsim_getmaxrate,
	.ieee_setmaxrate = dcbsim_setmaxrate,
	.ieee_getpfc = dcbsim_getpfc,
	.ieee_setpfc = dcbsim_setpfc,
	.ieee_setapp = dcbsim_setapp,
	.ieee_delapp = dcbsim_delapp,
	.getdcbx = dcbsim_getdcbx,
	.setdcbx = dcbsim_setdcbx,
#ifdef DCBSIM_HAVE_APPTRUST
	.dcbnl_setapptrust = dcbsim_setapptrust,
	.dcbnl_getapptrust = dcbsim_getapptrust,
#endif
};

/* The template less what the parameters leave out. */
static struct dcbnl_rtnl_ops dcbsim_dcbnl_ops;

static void dcbsim_pick_ops(void)
{
	dcbsim_dcbnl_ops = dcbsim_dcbnl_template;
	if (no_setets)
		dcbsim_dcbnl_ops.ieee_setets = NULL;
	if (no_setpfc)
		dcbsim_dcbnl_ops.ieee_setpfc = NULL;
#ifdef DCBSIM_HAVE_APPTRUST
	if (no_setapptrust || no_apptrust)
		dcbsim_dcbnl_ops.dcbnl_setapptrust = NULL;
	if (no_apptrust)
		dcbsim_dcbnl_ops.dcbnl_getapptrust = NULL;
#endif
}

/* ---- ethtool ---- */

static void dcbsim_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
}

static int dcbsim_get_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec,
			       struct netlink_ext_ack *extack)
{
	struct dcbsim *sim = netdev_priv(dev);

	ec->rx_coalesce_usecs = sim->rx_usecs;
	ec->rx_max_coalesced_frames = sim->rx_frames;
	ec->tx_coalesce_usecs = sim->tx_usecs;
	ec->tx_max_coalesced_frames = sim->tx_frames;
	ec->use_adaptive_rx_coalesce = sim->adaptive_rx;
	ec->use_adaptive_tx_coalesce = sim->adaptive_tx;
	return 0;
}

static int dcbsim_set_coalesce(struct net_device *dev, struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec,
			       struct netlink_ext_ack *extack)
{
	struct dcbsim *sim = netdev_priv(dev);

	if (ec->rx_coalesce_usecs > DCBSIM_COAL_USECS_MAX ||
	    ec->tx_coalesce_usecs > DCBSIM_COAL_USECS_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "usecs above 4095");
		return -ERANGE;
	}
	if (ec->rx_max_coalesced_frames > DCBSIM_COAL_FRAMES_MAX ||
	    ec->tx_max_coalesced_frames > DCBSIM_COAL_FRAMES_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "frames above 65535");
		return -ERANGE;
	}
	sim->rx_usecs = ec->rx_coalesce_usecs;
	sim->rx_frames = ec->rx_max_coalesced_frames;
	sim->tx_usecs = ec->tx_coalesce_usecs;
	sim->tx_frames = ec->tx_max_coalesced_frames;
	sim->adaptive_rx = ec->use_adaptive_rx_coalesce;
	sim->adaptive_tx = ec->use_adaptive_tx_coalesce;
	return 0;
}

static void dcbsim_get_ringparam(struct net_device *dev, struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	struct dcbsim *sim = netdev_priv(dev);

	ring->rx_max_pending = DCBSIM_RING_MAX;
	ring->tx_max_pending = DCBSIM_RING_MAX;
	ring->rx_pending = sim->rx_ring;
	ring->tx_pending = sim->tx_ring;
}

static int dcbsim_set_ringparam(struct net_device *dev, struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct dcbsim *sim = netdev_priv(dev);

	/* The core refused sizes above the maxima already. */
	if (ring->rx_mini_pending || ring->rx_jumbo_pending)
		return -EINVAL;
	if (!ring->rx_pending || !ring->tx_pending) {
		NL_SET_ERR_MSG_MOD(extack, "a ring needs at least one entry");
		return -EINVAL;
	}
	sim->rx_ring = ring->rx_pending;
	sim->tx_ring = ring->tx_pending;
	return 0;
}

static void dcbsim_get_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pause)
{
	struct dcbsim *sim = netdev_priv(dev);

	pause->autoneg = AUTONEG_DISABLE;
	pause->rx_pause = sim->rx_pause;
	pause->tx_pause = sim->tx_pause;
}

static int dcbsim_set_pauseparam(struct net_device *dev, struct ethtool_pauseparam *pause)
{
	struct dcbsim *sim = netdev_priv(dev);

	if (pause->autoneg)
		return -EINVAL;
	sim->rx_pause = pause->rx_pause;
	sim->tx_pause = pause->tx_pause;
	return 0;
}

static const struct ethtool_ops dcbsim_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS | ETHTOOL_COALESCE_MAX_FRAMES |
				     ETHTOOL_COALESCE_USE_ADAPTIVE,
	.get_drvinfo = dcbsim_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_coalesce = dcbsim_get_coalesce,
	.set_coalesce = dcbsim_set_coalesce,
	.get_ringparam = dcbsim_get_ringparam,
	.set_ringparam = dcbsim_set_ringparam,
	.get_pauseparam = dcbsim_get_pauseparam,
	.set_pauseparam = dcbsim_set_pauseparam,
};

/* ---- netdev ---- */

static int dcbsim_open(struct net_device *dev)
{
	netif_start_queue(dev);
	return 0;
}

static int dcbsim_stop(struct net_device *dev)
{
	netif_stop_queue(dev);
	return 0;
}

/* Nothing leaves: every packet is counted as dropped. */
static netdev_tx_t dcbsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	DEV_STATS_INC(dev, tx_dropped);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/*
 * Unlisted and under RTNL: no DCB op can run any more. Newer kernels flush
 * the APP table of an unregistered device themselves (then this finds
 * nothing); older ones keep the entries, so take ours out.
 */
static void dcbsim_uninit(struct net_device *dev)
{
	struct dcbsim *sim = netdev_priv(dev);

	while (sim->napps > 0)
		dcb_ieee_delapp(dev, &sim->apps[--sim->napps]);
}

static const struct net_device_ops dcbsim_netdev_ops = {
	.ndo_open = dcbsim_open,
	.ndo_stop = dcbsim_stop,
	.ndo_start_xmit = dcbsim_xmit,
	.ndo_uninit = dcbsim_uninit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static int __init dcbsim_init(void)
{
	struct net_device *dev;
	int err;

	if (num_tc < 1 || num_tc > IEEE_8021QAZ_MAX_TCS) {
		pr_err("num_tc must be 1-%d\n", IEEE_8021QAZ_MAX_TCS);
		return -EINVAL;
	}
	dcbsim_pick_ops();
	dev = alloc_netdev(sizeof(struct dcbsim), "dcbsim%d", NET_NAME_ENUM, ether_setup);
	if (!dev)
		return -ENOMEM;
	dev->netdev_ops = &dcbsim_netdev_ops;
	dev->ethtool_ops = &dcbsim_ethtool_ops;
	dev->dcbnl_ops = &dcbsim_dcbnl_ops;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = DCBSIM_MAX_MTU;
	eth_hw_addr_random(dev);
	dcbsim_defaults(netdev_priv(dev));
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	dcbsim_dev = dev;
	return 0;
}

static void __exit dcbsim_exit(void)
{
	unregister_netdev(dcbsim_dev);
	free_netdev(dcbsim_dev);
}

module_init(dcbsim_init);
module_exit(dcbsim_exit);
MODULE_DESCRIPTION("Purlin test: simulated Ethernet device with IEEE DCB and ethtool tuning ops");
MODULE_LICENSE("GPL");
