// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test harness: temporary roots, snapshots, in-process CLI runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cfs.h"
#include "cli.h"
#include "harness.h"

#ifndef TEST_DATA_DIR
#define TEST_DATA_DIR "data"
#endif

char *cli_out;
char *cli_err;
char test_root[256];
static char scratch_dir[256];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void tree_rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int root_setup(void **state)
{
	static const char *const tops[] = { "hosts", "ports", "subsystems", "controllers" };
	char base[] = "/tmp/purlinctl-ut-XXXXXX";

	(void)state;
	if (!mkdtemp(base))
		return -1;
	snprintf(test_root, sizeof(test_root), "%s/root", base);
	snprintf(scratch_dir, sizeof(scratch_dir), "%s/scratch", base);
	if (mkdir(test_root, 0755) || mkdir(scratch_dir, 0755))
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(tops); i++) {
		char *p;

		if (asprintf(&p, "%s/%s", test_root, tops[i]) < 0 || mkdir(p, 0755))
			return -1;
		free(p);
	}
	tree_write("discovery_nqn", "nqn.2014-08.org.nvmexpress.discovery");
	fake_target = FAKE_PURLIN;
	fake_old_nvmet = false;
	fakecfs_install();
	cfs_fail_nth(0, 0);
	return 0;
}

int root_teardown(void **state)
{
	char *base = strdup(test_root);

	(void)state;
	*strrchr(base, '/') = '\0';
	tree_rm_rf(base);
	free(base);
	free(cli_out);
	free(cli_err);
	cli_out = cli_err = NULL;
	cfs_fail_nth(0, 0);
	return 0;
}

/* Split on blanks, except inside the %s arguments (marked by \x01 pairs). */
static int split_args(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	while (*p && argc < max - 1) {
		char *w;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		w = p;
		for (bool quoted = false; *p && (quoted || *p != ' '); p++)
			if (*p == '\x01')
				quoted = !quoted;
		if (*p)
			*p++ = '\0';
		/* drop the markers */
		char *r = w, *o = w;

		for (; *r; r++)
			if (*r != '\x01')
				*o++ = *r;
		*o = '\0';
		argv[argc++] = w;
	}
	argv[argc] = NULL;
	return argc;
}

static char *mark_args(const char *fmt)
{
	/* wrap each %s in \x01 so blanks inside it stay in one word */
	size_t len = strlen(fmt);
	char *out = malloc(len * 3 + 1), *o = out;

	for (const char *f = fmt; *f; f++) {
		if (f[0] == '%' && f[1] == 's') {
			*o++ = '\x01';
			*o++ = '%';
			*o++ = 's';
			*o++ = '\x01';
			f++;
		} else {
			*o++ = *f;
		}
	}
	*o = '\0';
	return out;
}

static int exec_line(bool with_root, const char *line)
{
	char *argv[64], *full;
	size_t outlen, errlen;
	int argc, ret;

	/* The target purlinctl is told is the one the fake behaves as. */
	if (with_root) {
		if (asprintf(&full, "purlinctl --root \x01%s\x01%s %s", test_root,
			     fake_target == FAKE_NVMET || fake_old_nvmet ? " --target nvmet" : "",
			     line) < 0)
			abort();
	} else if (asprintf(&full, "purlinctl %s", line) < 0) {
		abort();
	}
	argc = split_args(full, argv, 64);
	fakecfs_root_as_target();
	free(cli_out);
	free(cli_err);
	pl_out = open_memstream(&cli_out, &outlen);
	pl_errs = open_memstream(&cli_err, &errlen);
	ret = pl_main(argc, argv);
	fclose(pl_out);
	fclose(pl_errs);
	pl_out = pl_errs = NULL;
	free(full);
	return ret;
}

static int run_line(bool with_root, const char *fmt, va_list ap)
{
	char *marked = mark_args(fmt), *line;
	int ret;

	if (vasprintf(&line, marked, ap) < 0)
		abort();
	free(marked);
	ret = exec_line(with_root, line);
	free(line);
	return ret;
}

int run_cli_line(const char *line)
{
	return exec_line(true, line);
}

int run_cli(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = run_line(true, fmt, ap);
	va_end(ap);
	return ret;
}

int run_cli_raw(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = run_line(false, fmt, ap);
	va_end(ap);
	return ret;
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, len + 1);
	if (fread(buf, 1, len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static struct strv snap;

static int snap_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *rel = path + strlen(test_root);
	char target[512], *line = NULL, *val;
	ssize_t n;

	(void)ftw;
	if (!*rel)
		return 0;
	if (flag == FTW_SL) {
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		if (asprintf(&line, "l %s -> %s", rel, target) < 0)
			abort();
	} else if (S_ISDIR(st->st_mode)) {
		if (asprintf(&line, "d %s", rel) < 0)
			abort();
	} else {
		val = slurp(path);
		if (asprintf(&line, "f %s = %s", rel, val ? pl_rstrip(val) : "?") < 0)
			abort();
		free(val);
	}
	strv_add(&snap, line);
	free(line);
	return 0;
}

char *tree_snapshot(void)
{
	size_t len = 1;
	char *out;

	nftw(test_root, snap_entry, 16, FTW_PHYS);
	strv_sort(&snap);
	for (size_t i = 0; i < snap.n; i++)
		len += strlen(snap.v[i]) + 1;
	out = calloc(1, len);
	for (size_t i = 0; i < snap.n; i++) {
		strcat(out, snap.v[i]);
		strcat(out, "\n");
	}
	strv_free(&snap);
	return out;
}

char *tree_read(const char *rel)
{
	char *path, *val;

	if (asprintf(&path, "%s/%s", test_root, rel) < 0)
		abort();
	val = slurp(path);
	free(path);
	return val ? pl_rstrip(val) : NULL;
}

bool tree_exists(const char *rel)
{
	struct stat st;
	char *path;
	bool ok;

	if (asprintf(&path, "%s/%s", test_root, rel) < 0)
		abort();
	ok = !lstat(path, &st);
	free(path);
	return ok;
}

void tree_write(const char *rel, const char *val)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", test_root, rel) < 0)
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(val, f);
	fclose(f);
	free(path);
}

char *scratch_file(const char *name, const char *text)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/%s", scratch_dir, name) < 0)
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	return path;
}

char *data_file(const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", TEST_DATA_DIR, name) < 0)
		abort();
	return path;
}

void assert_file(const char *rel, const char *want)
{
	char *val = tree_read(rel);

	if (!val)
		fail_msg("%s: missing", rel);
	if (strcmp(val, want))
		fail_msg("%s: '%s', expected '%s'", rel, val, want);
	free(val);
}
