// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl status: the running target at a glance, as a tree (like
 * nvmetcli's ls): subsystems with their namespaces (device, size, state),
 * allowed hosts and connected controllers; ports with address and state;
 * hosts and who allows them. -j gives the same as one JSON object.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cfs.h"
#include "cli.h"
#include "print.h"

/* "key=value" of a controllers line, or NULL. */
static char *ctrl_field(const char *line, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = line; p && *p; p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == '=')
			return xasprintf("%.*s", (int)strcspn(p + klen + 1, " \n"), p + klen + 1);
	return NULL;
}

static void print_ctrl_num(const char *line, const char *key, const char *jkey, const char *fmt)
{
	char *v = ctrl_field(line, key);
	long long n;

	if (v && pl_parse_long(v, 10, &n))
		pl_print_u64(PL_ANY, jkey, fmt, (unsigned long long)n);
	free(v);
}

/* The subsystem's live controllers (Purlin's read-only "controllers" file). */
static void print_controllers(const struct pl_node *subsys)
{
	char *path = xasprintf("subsystems/%s/controllers", subsys->id), *text = NULL;

	if (cfs_read(path, &text) || !*text) {
		free(path);
		free(text);
		return;
	}
	pl_print_text("    controllers\n");
	pl_print_open_array("controllers");
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *host = ctrl_field(line, "host"), *addr = ctrl_field(line, "addr");

		pl_print_open_object(NULL);
		print_ctrl_num(line, "cntlid", "cntlid", "      cntlid %llu");
		pl_print_string(PL_ANY, "host", "  host %s", host);
		pl_print_string(PL_ANY, "addr", "  from %s", addr);
		print_ctrl_num(line, "port", "port", "  port %llu");
		print_ctrl_num(line, "queues", "queues", "  queues %llu");
		print_ctrl_num(line, "kato_ms", "kato_ms", "  kato %llu ms");
		pl_print_nl();
		pl_print_close_object();
		free(host);
		free(addr);
	}
	pl_print_close_array();
	free(text);
	free(path);
}

static void print_namespace(const struct pl_node *ns)
{
	const char *path = pl_get(ns, "device_path");
	const char *enable = pl_get(ns, "enable");
	bool on = enable && !strcmp(enable, "1");
	struct stat st;

	pl_print_open_object(NULL);
	pl_print_text("    ns %-4s", ns->id);
	pl_print_u64(PL_JSON, "nsid", NULL, strtoull(ns->id, NULL, 10));
	pl_print_string(PL_ANY, "path", "  %s", path && *path ? path : "(no device)");
	if (path && *path == '/' && !cfs_stat_device(path, &st)) {
		char *size = pl_human_size(st.st_size);

		pl_print_u64(PL_JSON, "size", NULL, (unsigned long long)st.st_size);
		pl_print_text("  %s", size);
		free(size);
	}
	pl_print_bool(PL_JSON, "enabled", NULL, on);
	pl_print_text("  %s\n", on ? "enabled" : "disabled");
	pl_print_close_object();
}

static void print_subsys(const struct pl_node *live, const struct pl_node *s)
{
	const struct pl_nodes *nss = &s->kids[0];
	const char *any = pl_get(s, "attr_allow_any_host");
	bool any_host = any && !strcmp(any, "1");
	struct strv ports = { 0 };
	const struct pl_nodes *all = pl_kids((struct pl_node *)live, PL_PORT);

	for (size_t i = 0; i < all->n; i++)
		if (strv_has(&all->v[i]->links, s->id))
			strv_add(&ports, all->v[i]->id);
	pl_print_open_object(NULL);
	pl_print_string(PL_ANY, "nqn", "  %s", s->id);
	pl_print_string(PL_ANY, "model", "  model %s", pl_get(s, "attr_model"));
	pl_print_string(PL_ANY, "serial", "  serial %s", pl_get(s, "attr_serial"));
	pl_print_bool(PL_JSON, "allow_any_host", NULL, any_host);
	pl_print_nl();
	pl_print_text("    ports    ");
	pl_print_strv("ports", &ports, ", ", "none: not exported");
	pl_print_nl();
	pl_print_text("    hosts    ");
	if (any_host) {
		pl_print_text("any host");
		pl_print_open_array("allowed_hosts");
		pl_print_close_array();
	} else {
		pl_print_strv("allowed_hosts", &s->links, ", ", "none: no host can connect");
	}
	pl_print_nl();
	pl_print_open_array("namespaces");
	if (!nss->n)
		pl_print_text("    no namespaces\n");
	for (size_t i = 0; i < nss->n; i++)
		print_namespace(nss->v[i]);
	pl_print_close_array();
	print_controllers(s);
	pl_print_close_object();
	strv_free(&ports);
}

static void print_port(const struct pl_node *live, const struct pl_node *p)
{
	const char *fam = pl_get(p, "addr_adrfam");
	const char *addr = pl_get(p, "addr_traddr");
	bool v6 = fam && !strcmp(fam, "ipv6");

	pl_print_open_object(NULL);
	pl_print_text("  %-5s", p->id);
	pl_print_u64(PL_JSON, "portid", NULL, strtoull(p->id, NULL, 10));
	pl_print_string(PL_ANY, "trtype", " %s", pl_get(p, "addr_trtype"));
	pl_print_string(PL_ANY, "adrfam", " %s", fam);
	pl_print_string(PL_JSON, "traddr", NULL, addr);
	pl_print_string(PL_JSON, "trsvcid", NULL, pl_get(p, "addr_trsvcid"));
	pl_print_text(v6 ? " [%s]:%s" : " %s:%s", addr && *addr ? addr : "(no address)",
		      pl_get(p, "addr_trsvcid") ? pl_get(p, "addr_trsvcid") : "");
	pl_print_string(PL_ANY, "state", "  %s\n",
			p->links.n ? "listening" : "idle (exports nothing)");
	pl_print_text("    exports  ");
	pl_print_strv("subsystems", &p->links, ", ", "-");
	pl_print_nl();
	pl_print_close_object();
	(void)live;
}

static void print_host(const struct pl_node *live, const struct pl_node *h)
{
	const struct pl_nodes *subs = pl_kids((struct pl_node *)live, PL_SUBSYS);
	struct strv by = { 0 };

	for (size_t i = 0; i < subs->n; i++)
		if (strv_has(&subs->v[i]->links, h->id))
			strv_add(&by, subs->v[i]->id);
	pl_print_open_object(NULL);
	pl_print_string(PL_ANY, "nqn", "  %s", h->id);
	pl_print_text("  allowed by ");
	pl_print_strv("allowed_by", &by, ", ", "no subsystem");
	pl_print_nl();
	pl_print_close_object();
	strv_free(&by);
}

/* "subsystems (N)" and each object of type, under the JSON key of its directory. */
static void print_section(const struct pl_node *live, enum pl_type type,
			  void (*print)(const struct pl_node *live, const struct pl_node *node))
{
	const struct pl_nodes *list = pl_kids((struct pl_node *)live, type);
	const char *dir = pl_spec(type)->dir;

	pl_print_text("%s (%zu)\n", dir, list->n);
	pl_print_open_array(dir);
	for (size_t i = 0; i < list->n; i++)
		print(live, list->v[i]);
	pl_print_close_array();
}

static int status_run(struct pl_ctx *ctx, int argc, char **argv)
{
	const char *disc;
	struct pl_node *live;

	if (argc)
		return pl_usage_error("status", "unexpected argument '%s'", argv[0]);
	if (pl_open(ctx, &live))
		return PL_EXIT_TARGET;
	disc = pl_get(live, "discovery_nqn");
	pl_print_start(ctx->json);
	pl_print_open_object(NULL);
	pl_print_string(PL_ANY, "target", "%s", ctx->target);
	pl_print_string(PL_TEXT, NULL, " at %s", cfs_root());
	pl_print_string(PL_ANY, "discovery_nqn", ", discovery NQN %s", disc);
	pl_print_nl();
	print_section(live, PL_SUBSYS, print_subsys);
	print_section(live, PL_PORT, print_port);
	print_section(live, PL_HOST, print_host);
	pl_print_close_object();
	pl_print_end();
	pl_node_free(live);
	return PL_EXIT_OK;
}

const struct pl_object pl_obj_status = {
	.name = "status",
	.run = status_run,
	.usage = "",
	.summary = "the running target at a glance: subsystems, namespaces, ports, hosts, controllers",
	.examples = "  purlinctl status\n  purlinctl -j status\n",
};
