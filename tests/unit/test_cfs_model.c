// SPDX-License-Identifier: GPL-2.0
/*
 * The fake configfs against the kernels' rules: tests/vm/data/configfs-ops.txt
 * (the same file the guest test purlin-cfs-model replays on the real Purlin
 * and nvmet trees) replayed on fakecfs.c as Purlin and as nvmet. Every
 * operation must give the listed result, a refused one must leave the tree
 * as it was, and the file must end with an empty tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs.h"
#include "harness.h"

#ifndef CFS_OPS_FILE
#define CFS_OPS_FILE "../vm/data/configfs-ops.txt"
#endif

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "ok", 0 },
	{ "EPERM", EPERM },
	{ "ENOENT", ENOENT },
	{ "ENXIO", ENXIO },
	{ "EACCES", EACCES },
	{ "EBUSY", EBUSY },
	{ "EEXIST", EEXIST },
	{ "ENODEV", ENODEV },
	{ "ENOTDIR", ENOTDIR },
	{ "EISDIR", EISDIR },
	{ "EINVAL", EINVAL },
	{ "ERANGE", ERANGE },
	{ "ENAMETOOLONG", ENAMETOOLONG },
	{ "ENOTEMPTY", ENOTEMPTY },
	{ "EADDRINUSE", EADDRINUSE },
	{ "EADDRNOTAVAIL", EADDRNOTAVAIL },
};

static int errno_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(errnos); i++)
		if (!strcmp(errnos[i].name, name))
			return errnos[i].err;
	return -1;
}

static const char *name_of(int err)
{
	static char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(errnos); i++)
		if (errnos[i].err == err)
			return errnos[i].name;
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

enum op_tag {
	TAG_BOTH,
	TAG_PURLIN,
	TAG_NVMET,
	TAG_IF,			/* if:F: Purlin, and nvmet when it has F */
	TAG_NVMET_IF,		/* nvmet-if:F: nvmet when it has F */
	TAG_NVMET_UNLESS,	/* nvmet-unless:F: nvmet when it lacks F */
};

/*
 * What the reference nvmet may or may not do, probed in the guest
 * (purlin-cfs-model.sh, probe()) on both trees; Purlin has them all
 * but "pi" (nvmet-if/-unless lines only, so Purlin's side never asks).
 * The fake's nvmet is 6.1's, which has those in fake_nvmet_features.
 */
static const char *const features[] = {
	"ieee_oui", "firmware", "max_queue_size", "discovery_nqn", "one_cntlid",
	"version_1_3", "vendor_id", "pi",
};
static const char *const fake_nvmet_features[] = { "version_1_3", "pi" };

static bool fake_nvmet_has(const char *feature)
{
	for (size_t i = 0; i < ARRAY_SIZE(fake_nvmet_features); i++)
		if (!strcmp(feature, fake_nvmet_features[i]))
			return true;
	return false;
}

struct op {
	int line;
	enum op_tag tag;
	const char *feature;	/* for the conditional tags */
	int argc;
	char *argv[5];	/* the operation and its arguments */
};

struct ops {
	struct op *v;
	size_t n;
};

/* Outside quotes: what the guest's shell reads as a plain word. */
static bool plain_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._:/,=+@%-", c);
}

/* Inside double quotes: printable, nothing the shell would expand. */
static bool quoted_char(char c)
{
	return c >= 0x20 && c <= 0x7e && !strchr("\"$`\\", c);
}

/* Split line into words; NULL and a reason when it is not what both parsers read alike. */
static const char *split_words(char *line, char **words, int max, int *n)
{
	char *p = line, *o;

	*n = 0;
	while (*p) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*n == max)
			return "too many words";
		words[(*n)++] = o = p;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '"') {
				for (p++; *p && *p != '"'; p++) {
					if (!quoted_char(*p))
						return "a character the shell would expand in quotes";
					*o++ = *p;
				}
				if (*p != '"')
					return "unterminated quote";
				p++;
			} else if (plain_char(*p)) {
				*o++ = *p++;
			} else {
				return "a character outside quotes that the shell would interpret";
			}
		}
		if (*p)
			p++;
		*o = '\0';
	}
	return NULL;
}

static const struct {
	const char *op;
	int args;	/* after the operation */
	bool err;	/* the last argument is an errno name */
} op_specs[] = {
	{ "mkdir", 2, true }, { "rmdir", 2, true }, { "unlink", 2, true },
	{ "write", 3, true }, { "link", 3, true },  { "read", 2, false },
	{ "exists", 1, false }, { "missing", 1, false },
};

static void load_ops(struct ops *ops)
{
	FILE *f = fopen(CFS_OPS_FILE, "r");
	char buf[1024];
	int lineno = 0;

	if (!f)
		fail_msg("%s: %s", CFS_OPS_FILE, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		char *words[8], *line;
		const char *why;
		struct op op = { .line = ++lineno };
		int n, first = 0;
		size_t s;

		if (!strchr(buf, '\n') && !feof(f))
			fail_msg("configfs-ops.txt:%d: line too long", lineno);
		buf[strcspn(buf, "\n")] = '\0';
		if (!buf[strspn(buf, " \t")] || buf[strspn(buf, " \t")] == '#')
			continue;
		line = strdup(buf);
		why = split_words(line, words, 8, &n);
		if (why)
			fail_msg("configfs-ops.txt:%d: %s", lineno, why);
		if (!strcmp(words[0], "purlin-only"))
			op.tag = TAG_PURLIN;
		else if (!strcmp(words[0], "nvmet-only"))
			op.tag = TAG_NVMET;
		else if (!strncmp(words[0], "if:", 3))
			op.tag = TAG_IF;
		else if (!strncmp(words[0], "nvmet-if:", 9))
			op.tag = TAG_NVMET_IF;
		else if (!strncmp(words[0], "nvmet-unless:", 13))
			op.tag = TAG_NVMET_UNLESS;
		if (op.tag >= TAG_IF) {
			const char *f = strchr(words[0], ':') + 1;

			for (s = 0; s < ARRAY_SIZE(features); s++)
				if (!strcmp(f, features[s]))
					op.feature = features[s];
			if (!op.feature)
				fail_msg("configfs-ops.txt:%d: unknown feature '%s'", lineno, f);
		}
		first = op.tag != TAG_BOTH;
		for (s = 0; s < ARRAY_SIZE(op_specs); s++)
			if (n > first && !strcmp(words[first], op_specs[s].op))
				break;
		if (s == ARRAY_SIZE(op_specs))
			fail_msg("configfs-ops.txt:%d: unknown operation", lineno);
		if (n - first - 1 != op_specs[s].args)
			fail_msg("configfs-ops.txt:%d: %s takes %d arguments", lineno,
				 op_specs[s].op, op_specs[s].args);
		/* the guest writes with echo, which would take these as options */
		if (!strcmp(words[first], "write") && words[first + 2][0] == '-' &&
		    strspn(words[first + 2] + 1, "neE") == strlen(words[first + 2] + 1))
			fail_msg("configfs-ops.txt:%d: echo would read '%s' as options", lineno,
				 words[first + 2]);
		if (op_specs[s].err && errno_of(words[n - 1]) < 0)
			fail_msg("configfs-ops.txt:%d: unknown errno name '%s'", lineno, words[n - 1]);
		op.argc = n - first;
		for (int i = 0; i < op.argc; i++)
			op.argv[i] = strdup(words[first + i]);
		free(line);
		void *grown = realloc(ops->v, (ops->n + 1) * sizeof(*ops->v));

		if (!grown)
			abort();
		ops->v = grown;
		ops->v[ops->n++] = op;
	}
	fclose(f);
}

static void free_ops(struct ops *ops)
{
	for (size_t i = 0; i < ops->n; i++)
		for (int j = 0; j < ops->v[i].argc; j++)
			free(ops->v[i].argv[j]);
	free(ops->v);
}

/* A path for cfs_link(): relative to the root, also when the file gives it absolute. */
static char *link_target(const char *target)
{
	char *rel, *out;

	if (target[0] != '/')
		return strdup(target);
	rel = strdup("");
	if (!rel)
		abort();
	for (const char *p = test_root; *p; p++) {
		if (*p == '/' && p[1]) {
			char *up;

			if (asprintf(&up, "%s../", rel) < 0)
				abort();
			free(rel);
			rel = up;
		}
	}
	if (asprintf(&out, "%s%s", rel, target + 1) < 0)
		abort();
	free(rel);
	return out;
}

struct replay {
	char *report;
	size_t len;
	FILE *out;
	unsigned int done, mismatches;
};

#define mismatch(r, op, ...)                                                     \
	do {                                                                     \
		fprintf((r)->out, "configfs-ops.txt:%d: ", (op)->line);          \
		fprintf((r)->out, __VA_ARGS__);                                  \
		fputc('\n', (r)->out);                                           \
		(r)->mismatches++;                                               \
	} while (0)

static void run_op(struct replay *r, const struct op *op)
{
	const char *what = op->argv[0], *path = op->argc > 1 ? op->argv[1] : "";
	char *before = NULL, *after, *val = NULL, *value;
	int want = -1, got = 0;

	if (!strcmp(what, "read")) {
		got = cfs_read(path, &val);
		if (got)
			mismatch(r, op, "read %s: %s", path, strerror(-got));
		else if (strcmp(val, op->argv[2]))
			mismatch(r, op, "read %s: '%s', expected '%s'", path, val, op->argv[2]);
		free(val);
		return;
	}
	if (!strcmp(what, "exists") || !strcmp(what, "missing")) {
		if (cfs_exists(path) != !strcmp(what, "exists"))
			mismatch(r, op, "%s %s: it is %s", what, path,
				 cfs_exists(path) ? "there" : "missing");
		return;
	}
	want = errno_of(op->argv[op->argc - 1]);
	if (want)
		before = tree_snapshot();
	if (!strcmp(what, "mkdir")) {
		got = cfs_mkdir(path);
	} else if (!strcmp(what, "rmdir")) {
		got = cfs_rmdir(path);
	} else if (!strcmp(what, "unlink")) {
		got = cfs_unlink(path);
	} else if (!strcmp(what, "write")) {
		/* as echo writes it */
		if (asprintf(&value, "%s\n", op->argv[2]) < 0)
			abort();
		got = cfs_write(path, value);
		free(value);
	} else {
		char *target = link_target(op->argv[1]);

		path = op->argv[2];
		got = cfs_link(target, path);
		free(target);
	}
	if (-got != want)
		mismatch(r, op, "%s %s: %s, expected %s", what, path, name_of(-got),
			 name_of(want));
	if (want && got) {
		after = tree_snapshot();
		if (strcmp(before, after))
			mismatch(r, op, "%s %s: refused, but the tree changed", what, path);
		free(after);
	}
	free(before);
}

/* Whether op applies to mine (TAG_PURLIN or TAG_NVMET, the fake's 6.1 nvmet). */
static bool applies(const struct op *op, enum op_tag mine)
{
	switch (op->tag) {
	case TAG_BOTH:
		return true;
	case TAG_IF:
		return mine == TAG_PURLIN || fake_nvmet_has(op->feature);
	case TAG_NVMET_IF:
		return mine == TAG_NVMET && fake_nvmet_has(op->feature);
	case TAG_NVMET_UNLESS:
		return mine == TAG_NVMET && !fake_nvmet_has(op->feature);
	default:
		return op->tag == mine;
	}
}

static void replay(enum op_tag mine, enum fake_target target)
{
	struct ops ops = { 0 };
	struct replay r = { 0 };
	char *end;

	fake_target = target;
	fakecfs_root_as_target();
	assert_int_equal(cfs_set_root(test_root), 0);
	load_ops(&ops);
	r.out = open_memstream(&r.report, &r.len);
	for (size_t i = 0; i < ops.n; i++) {
		if (!applies(&ops.v[i], mine))
			continue;
		run_op(&r, &ops.v[i]);
		r.done++;
	}
	end = tree_snapshot();
	if (strcmp(end, target == FAKE_NVMET ? EMPTY_TREE_NVMET : EMPTY_TREE))
		fprintf(r.out, "the tree is not empty at the end:\n%s", end), r.mismatches++;
	fclose(r.out);
	free(end);
	free_ops(&ops);
	if (r.mismatches)
		fail_msg("%u of %u operations (%s) do not match:\n%s", r.mismatches, r.done,
			 mine == TAG_PURLIN ? "purlin" : "nvmet", r.report);
	print_message("# %u operations replayed as %s\n", r.done,
		      mine == TAG_PURLIN ? "purlin" : "nvmet");
	free(r.report);
}

static void test_ops_file_parses(void **state)
{
	struct ops ops = { 0 };
	size_t refusals = 0, tagged = 0;

	(void)state;
	load_ops(&ops);
	for (size_t i = 0; i < ops.n; i++) {
		const struct op *op = &ops.v[i];

		/* an if: line is a rule both share where nvmet has the feature */
		tagged += op->tag != TAG_BOTH && op->tag != TAG_IF;
		if (strcmp(op->argv[0], "read") && strcmp(op->argv[0], "exists") &&
		    strcmp(op->argv[0], "missing") && strcmp(op->argv[op->argc - 1], "ok"))
			refusals++;
	}
	/* the file is the fake's specification: it must stay substantial */
	if (ops.n < 200 || refusals < 80 || tagged * 2 > ops.n)
		fail_msg("%zu operations, %zu refusals, %zu tagged: too few", ops.n, refusals,
			 tagged);
	free_ops(&ops);
}

static void test_replay_purlin(void **state)
{
	(void)state;
	replay(TAG_PURLIN, FAKE_PURLIN);
}

static void test_replay_nvmet(void **state)
{
	(void)state;
	replay(TAG_NVMET, FAKE_NVMET);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, root_setup, root_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_file_parses),
		T(test_replay_purlin),
		T(test_replay_nvmet),
	};

	return cmocka_run_group_tests_name("cfs-model", tests, NULL, NULL);
}
