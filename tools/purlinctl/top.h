/* SPDX-License-Identifier: GPL-2.0 */
/*
 * purlinctl top: the rows of one refresh, built, sorted and printed by
 * pure functions (unit-tested) over two samples of iostat.h.
 */
#ifndef PURLINCTL_TOP_H
#define PURLINCTL_TOP_H

#include <stdio.h>

#include "iostat.h"

enum top_sort {
	TOP_SORT_IOPS,
	TOP_SORT_MBPS,
	TOP_SORT_MEAN,
	TOP_SORT_P99,
	TOP_SORT_QD,
	TOP_SORT_NAME,
	TOP_SORTS,
};
extern const char *const top_sort_names[TOP_SORTS];

struct top_row {
	const struct io_obj *obj;
	struct io_rate rate;
};

/*
 * A row for each object of cur of the kind, with its rates since prev
 * (secs before): an object missing from prev is new, one missing from
 * cur is gone (no row).  out has room for nc rows; returns how many.
 */
size_t top_rows(const struct io_obj *prev, size_t np, const struct io_obj *cur, size_t nc,
		enum io_kind kind, double secs, struct top_row *out);
/* Busiest first (by key; name: by subsystem and number). */
void top_sort_rows(struct top_row *rows, size_t n, enum top_sort key);
/*
 * The header line, the column titles and the rows; each line cut at
 * width characters when width > 0.
 */
void top_render(FILE *f, const struct top_row *rows, size_t n, enum io_kind kind,
		const char *title, int width);

#endif
