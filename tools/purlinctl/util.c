// SPDX-License-Identifier: GPL-2.0
/*
 * purlinctl: allocation, string vectors, messages and random identifiers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

FILE *pl_out;
FILE *pl_errs;
bool pl_verbose;

static void oom(void)
{
	fputs("purlinctl: out of memory\n", stderr);
	exit(PL_EXIT_FAIL);
}

void *xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t len)
{
	void *p = calloc(n ? n : 1, len ? len : 1);

	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t len)
{
	p = realloc(p, len ? len : 1);
	if (!p)
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (ret < 0)
		oom();
	return p;
}

void strv_add(struct strv *sv, const char *s)
{
	sv->v = xrealloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

bool strv_has(const struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return true;
	return false;
}

bool strv_del(struct strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++) {
		if (strcmp(sv->v[i], s))
			continue;
		free(sv->v[i]);
		memmove(&sv->v[i], &sv->v[i + 1], (sv->n - i) * sizeof(*sv->v));
		sv->n--;
		return true;
	}
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(struct strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

void strv_free(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

char *strv_join(const struct strv *sv, const char *sep)
{
	size_t len = 1, seplen = strlen(sep);
	char *out, *p;

	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + seplen;
	out = p = xmalloc(len);
	*p = '\0';
	for (size_t i = 0; i < sv->n; i++)
		p = stpcpy(i ? stpcpy(p, sep) : p, sv->v[i]);
	return out;
}

void pl_err_obj(const char *obj, const char *what, int err)
{
	fprintf(pl_errs, "purlinctl: %s: %s: %s\n", obj, what, strerror(err));
}

void pl_err(const char *fmt, ...)
{
	va_list ap;

	fputs("purlinctl: ", pl_errs);
	va_start(ap, fmt);
	vfprintf(pl_errs, fmt, ap);
	va_end(ap);
	fputc('\n', pl_errs);
}

int pl_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(pl_errs, "purlinctl: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(pl_errs, fmt, ap);
	va_end(ap);
	fprintf(pl_errs, " (see 'purlinctl %.*s help')\n", (int)strcspn(cmd, " "), cmd);
	return PL_EXIT_USAGE;
}

void pl_note(const char *fmt, ...)
{
	va_list ap;

	if (!pl_verbose)
		return;
	fputs("purlinctl: ", pl_errs);
	va_start(ap, fmt);
	vfprintf(pl_errs, fmt, ap);
	va_end(ap);
	fputc('\n', pl_errs);
}

int pl_random(void *buf, size_t len)
{
	size_t done = 0;
	int fd, err = 0;

	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += n;
	}
	close(fd);
	return err;
}

static void hex_encode(char *out, const uint8_t *in, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		*out++ = digits[in[i] >> 4];
		*out++ = digits[in[i] & 0xf];
	}
	*out = '\0';
}

int pl_gen_serial(char *buf)
{
	uint8_t raw[8];
	int ret = pl_random(raw, sizeof(raw));

	if (ret)
		return ret;
	hex_encode(buf, raw, sizeof(raw));
	return 0;
}

int pl_gen_uuid(char *buf)
{
	static const size_t dash_after[] = { 4, 6, 8, 10 };
	uint8_t raw[16];
	size_t d = 0;
	int ret = pl_random(raw, sizeof(raw));

	if (ret)
		return ret;
	raw[6] = (raw[6] & 0x0f) | 0x40;	/* version 4 */
	raw[8] = (raw[8] & 0x3f) | 0x80;	/* RFC 4122 variant */
	for (size_t i = 0; i < sizeof(raw); i++) {
		if (d < ARRAY_SIZE(dash_after) && i == dash_after[d]) {
			*buf++ = '-';
			d++;
		}
		hex_encode(buf, &raw[i], 1);
		buf += 2;
	}
	return 0;
}

static int write_all(int fd, const char *text)
{
	size_t len = strlen(text), done = 0;

	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += n;
	}
	return 0;
}

/* dir and every missing directory above it. */
static int mkdir_p(const char *dir)
{
	char *d = xstrdup(dir);
	int ret = 0;

	for (char *s = d + 1; !ret && *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(d, 0755) && errno != EEXIST)
			ret = -errno;
		*s = '/';
	}
	if (!ret && mkdir(d, 0755) && errno != EEXIST)
		ret = -errno;
	free(d);
	return ret;
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int pl_write_atomic(const char *path, const char *text, mode_t mode)
{
	char *tmp = xasprintf("%s.tmp", path), *copy = xstrdup(path);
	const char *dir = dirname(copy);
	int fd, ret = mkdir_p(dir);

	if (ret)
		goto out;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	ret = write_all(fd, text);
	if (!ret && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	else
		fsync_dir(dir);
out:
	free(tmp);
	free(copy);
	return ret;
}

char *pl_rstrip(char *s)
{
	size_t len = strlen(s);

	while (len && isspace((unsigned char)s[len - 1]))
		s[--len] = '\0';
	return s;
}

bool pl_parse_long(const char *s, int base, long long *out)
{
	char *end;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*out = strtoll(s, &end, base);
	return !errno && !*end;
}

/* 1.5 GiB, 512 MiB, 4 KiB: one decimal below 10 of a unit, as lsblk. */
char *pl_human_size(long long bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	if (bytes < 0)
		return xstrdup("");
	while (v >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		v /= 1024;
		u++;
	}
	if (v < 10 && u)
		return xasprintf("%.1f %s", v, units[u]);
	return xasprintf("%.0f %s", v, units[u]);
}
