// SPDX-License-Identifier: GPL-2.0
/*
 * balloon_guest: the guest's half of the balloon test (balloon.sh).
 *
 *   balloon_guest --driver=mp|virtio --size=MIB [--seed=S] [--tries=T]
 *
 * Whenever it prints "MP_HOST balloon=MIB", the host (balloon_host.py)
 * sets that balloon size through QEMU's monitor; this program then waits
 * until MemTotal shows it (both drivers take ballooned pages out of the
 * managed count, as neither has deflate-on-OOM here). In order:
 *  1. hold anonymous memory with random holes, so that the balloon inflates
 *     into pages spread over all of memory;
 *  2. inflate to SIZE, check and free the anonymous memory: what is free
 *     now lies scattered between balloon pages;
 *  3. compact and ask for huge pages (best of T): only if balloon pages
 *     move can the guest get them;
 *  4. fill all but 32 MiB of the memory still available, check it, free
 *     it: the guest must live with the balloon under pressure, and the
 *     balloon must keep its size;
 *  5. deflate, inflate again, deflate.
 * After each step it prints the driver's counters ("MP_BALLOON_STATE"):
 * for mp_balloon also the count, sum and xor of the frames it holds, which
 * the host matches against the frames it was told of. It ends with
 * "BALLOON_RESULT key=value ...".
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <glob.h>

#define GUEST_NAME	"balloon_guest"
#define GUEST_RESULT	"BALLOON_RESULT"
#include "guest.h"

static struct {
	const char *driver;
	unsigned long size_mib, seed;
	unsigned int tries;
} opt = { NULL, 0, 1, 3 };

static long base_kb;	/* MemTotal with an empty balloon */

struct counters {
	unsigned long inflated, deflated, migrated;
};

/* Print the driver's state after STEP and return its counters. */
static struct counters driver_state(const char *step)
{
	unsigned long pages, pool_pages;
	struct counters c = { 0 };
	char line[512] = "";
	glob_t g;
	FILE *f;

	if (!strcmp(opt.driver, "virtio")) {
		/* the kernel's balloon compaction counts in vmstat */
		c.inflated = read_vmstat("balloon_inflate");
		c.deflated = read_vmstat("balloon_deflate");
		c.migrated = read_vmstat("balloon_migrate");
		snprintf(line, sizeof(line), "inflated=%lu deflated=%lu migrated=%lu\n",
			 c.inflated, c.deflated, c.migrated);
	} else {
		if (glob("/sys/kernel/debug/mp_balloon/*/state", 0, NULL, &g) ||
		    g.gl_pathc != 1)
			die("one mp_balloon state file");
		f = fopen(g.gl_pathv[0], "r");
		if (!f || !fgets(line, sizeof(line), f))
			die("mp_balloon state");
		fclose(f);
		globfree(&g);
		if (sscanf(line, "pages=%lu pool_pages=%lu", &pages, &pool_pages) != 2 ||
		    sscanf(strstr(line, "inflated="), "inflated=%lu deflated=%lu migrated=%lu",
			   &c.inflated, &c.deflated, &c.migrated) != 3)
			die("mp_balloon state format");
		/* what the device was told of is what the pool holds */
		if (pages != pool_pages)
			die("mp_balloon's count differs from its pool's");
	}
	printf("MP_BALLOON_STATE step=%s %s", step, line);
	fflush(stdout);
	return c;
}

/* Ask the host for a balloon of MIB and return how long it took to show. */
static double resize(unsigned long mib)
{
	long want = base_kb - (long)mib * 1024, total;
	double t0 = now();

	printf("MP_HOST balloon=%lu\n", mib);
	fflush(stdout);
	while ((total = read_meminfo("MemTotal")) != want) {
		if (now() - t0 > 900)
			die("balloon never reached its size");
		usleep(10000);
	}
	say("balloon at %lu MiB after %.2f s", mib, now() - t0);
	return now() - t0;
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "driver", 1, 0, 'd' }, { "size", 1, 0, 'm' },
		{ "seed", 1, 0, 's' }, { "tries", 1, 0, 't' },
		{ 0, 0, 0, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt.driver = optarg;
			break;
		case 'm':
			opt.size_mib = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opt.seed = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.tries = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (opt.driver && opt.size_mib && opt.tries &&
	    (!strcmp(opt.driver, "mp") || !strcmp(opt.driver, "virtio")))
		return;
usage:
	fprintf(stderr, "usage: balloon_guest --driver=mp|virtio --size=MIB\n"
		"                     [--seed=S] [--tries=T]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const long margin_kb = 128 * 1024;
	struct anon_hold hog, fill;
	struct counters c0, c1, c2;
	double inflate_s, deflate_s, reinflate_s, last_s;
	long free_kb, keep_pct, mig0, huge;
	unsigned long bad, compaction_migrated;

	parse(argc, argv);
	rng_state = opt.seed * 0x2545f4914f6cdd1dull | 1;
	base_kb = read_meminfo("MemTotal");
	c0 = driver_state("loaded");

	/* 1: keep what leaves room for the balloon and a margin */
	free_kb = read_meminfo("MemFree");
	keep_pct = 100 * (free_kb - (long)opt.size_mib * 1024 - 2 * margin_kb) /
		   (free_kb - margin_kb);
	if (keep_pct < 10)
		die("not enough memory for this balloon");
	say("holding %ld%% of %ld MiB", keep_pct, (free_kb - margin_kb) >> 10);
	anon_hold(&hog, (free_kb - margin_kb) / 4, keep_pct, opt.seed);

	/* 2 */
	inflate_s = resize(opt.size_mib);
	bad = anon_mismatches(&hog);
	anon_release(&hog);
	driver_state("inflated");

	/* 3 */
	mig0 = read_vmstat("pgmigrate_success");
	c1 = driver_state("before-compaction");
	huge = hugepages_best(opt.tries);
	c2 = driver_state("compacted");
	compaction_migrated = c2.migrated - c1.migrated;

	/* 4 */
	free_kb = read_meminfo("MemAvailable") - 32 * 1024;
	say("pressure: filling %ld MiB", free_kb >> 10);
	anon_hold(&fill, free_kb / 4, 100, opt.seed + 1);
	bad += anon_mismatches(&fill);
	anon_release(&fill);
	if (read_meminfo("MemTotal") != base_kb - (long)opt.size_mib * 1024)
		die("the balloon changed size under pressure");
	driver_state("pressure");

	/* 5 */
	deflate_s = resize(0);
	driver_state("deflated");
	reinflate_s = resize(opt.size_mib);
	driver_state("reinflated");
	last_s = resize(0);
	c1 = driver_state("end");

	printf("BALLOON_RESULT status=%s driver=%s size_mib=%lu huge_pages=%ld",
	       bad ? "fail" : "ok", opt.driver, opt.size_mib, huge);
	printf(" compaction_migrated=%lu pgmigrate=%ld", compaction_migrated,
	       read_vmstat("pgmigrate_success") - mig0);
	printf(" inflated=%lu deflated=%lu migrated=%lu",
	       c1.inflated - c0.inflated, c1.deflated - c0.deflated,
	       c1.migrated - c0.migrated);
	printf(" inflate_s=%.2f deflate_s=%.2f reinflate_s=%.2f last_deflate_s=%.2f",
	       inflate_s, deflate_s, reinflate_s, last_s);
	printf(" mismatches=%lu seed=%lu\n", bad, opt.seed);
	return bad ? 1 : 0;
}
