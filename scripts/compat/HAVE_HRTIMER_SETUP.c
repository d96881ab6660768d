// SPDX-License-Identifier: GPL-2.0
/* 6.13+: hrtimer_setup() sets the callback with the clock (hrtimer_init() went in 6.15). */
#include <linux/hrtimer.h>

static enum hrtimer_restart probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

static void __maybe_unused probe(struct hrtimer *t)
{
	hrtimer_setup(t, probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
}
