# Sources of purlinctl's library part, shared with tests/unit/Makefile.
# main.c stays out: it is only the entry point.
PURLINCTL_LIB_SRCS := util.c cfs.c target.c validate.c schema.c model.c scan.c \
	conf.c plan.c planner.c cli.c verbs.c subsys.c ns.c port.c referral.c host.c dhchap.c config.c status.c stats.c iostat.c top.c \
	print.c nl.c nl-dcb.c nl-ethtool.c nl-link.c netsys.c netcfg.c netexec.c netprofile.c netshow.c net.c
PURLINCTL_PKGS := libnl-3.0 libnl-route-3.0 libnl-genl-3.0 json-c
