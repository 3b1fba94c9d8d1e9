// SPDX-License-Identifier: GPL-2.0
/*
 * bench_run: one point of `make bench`, inside a guest.
 *
 *   bench_run --kind=none|anon|handrolled|pool|unmovable --held-pct=P
 *             [--seed=S] [--tries=T]
 *             [--scenario=huge|thp|gigantic|unplug] [--idle-driver]
 *   bench_run --kind=micro
 *   bench_run --kind=scale [--scale=PAGES:PAGES:...]
 *
 * Holds P% of the guest's RAM with random holes: it allocates twice that
 * (or what free memory allows, less 128 MiB) and keeps each page with the
 * probability that leaves P% held, the same xorshift sequence for every
 * kind. "anon" holds anonymous memory in this process (holes punched with
 * MADV_DONTNEED); the kernel kinds load bench_driver.ko. Then it records
 * MemFree and SUnreclaim, times one compaction pass, asks for huge pages
 * (best of T), checks every held page, unloads the driver, and prints
 * "BENCH_RESULT key=value ...".
 *
 * --idle-driver, with none or anon only, also loads bench_driver.ko,
 * holding one pool page, where a driver kind loads it: what a loaded
 * module costs without its held pages, for the kinds that load none.
 * Where x86 keeps module text in execmem's ROX cache (7.2, not 6.12),
 * the first module loaded fills that cache with a 2 MiB block.
 *
 * --scenario=thp asks no compaction and no hugetlb pages: a process
 * faults in transparent huge pages of a MADV_HUGEPAGE region with
 * defrag=always instead, so a fault that finds no free 2 MiB block
 * compacts in the faulting task (async, then sync-light, with retries)
 * as a user of THP meets it. It tries as many as free memory less 64 MiB
 * could hold, one fault per 2 MiB, and prints how many were huge
 * (thp_fault_alloc) or fell back (thp_fault_fallback), the compaction
 * stalls, and the latency of all faults and of the huge ones (each fault
 * is timed alone; the counters are read between faults). khugepaged is
 * kept out of it, and THP is off again before the held pages are checked.
 *
 * --scenario=gigantic asks for 1 GiB hugetlb pages instead, with no
 * compaction first: each comes from alloc_contig_range() over a whole
 * aligned GiB, which one unmovable page spoils. It asks for as many as
 * free memory less 512 MiB could hold, again while granted.
 *
 * --scenario=unplug gives memory back to the host through virtio-mem:
 * before the kind holds its share, it loads virtio_mem (and the virtio
 * core where it is modular) and waits for the device's memory to be
 * plugged and onlined, so the held pages land there too (the zone is the
 * kernel command line's memhp_default_state=). Then it asks the host to
 * unplug all of it ("MP_HOST unplug=0": unplug_host.py lowers the
 * device's requested-size over QMP and measures the device's side) and
 * watches MemTotal come down until it is back where it was before the
 * plug, or has not moved for UNPLUG_SETTLE_S seconds: longer than the
 * host waits, and than virtio_mem's first retry after a failed attempt.
 *
 * "micro" reads bench_driver/micro on every online CPU at once, one
 * process pinned to each, and prints a "BENCH_MICRO" line per CPU: the
 * per-page cost of alloc+free and pin+unpin when all CPUs hammer one pool.
 *
 * "scale" reads bench_driver/scale once per pool size (default 1024,
 * 65536 and 1048576 pages) and prints a "BENCH_SCALE" line per size: the
 * cost of each operation as the pool grows.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <glob.h>
#include <sched.h>
#include <sys/wait.h>

#define GUEST_NAME	"bench_run"
#define GUEST_RESULT	"BENCH_RESULT"
#include "../vm/guest.h"

static struct anon_hold anon;

static struct {
	const char *kind;
	unsigned int held_pct, tries;
	unsigned long seed;
	const char *scale;
	int idle_driver;
	enum {
		SCENARIO_HUGE, SCENARIO_THP, SCENARIO_GIGANTIC, SCENARIO_UNPLUG
	} scenario;
} opt = { NULL, 40, 3, 1, "1024:65536:1048576", 0, SCENARIO_HUGE };

struct thp_result {
	long tried, alloc, fallback, stall;
	double median_us, p99_us, huge_median_us, huge_p99_us;
};

/* MemTotal in kB as virtio-mem plugs and unplugs, from before the plug */
struct unplug_result {
	long base_kb, plugged_kb, left_kb;
	double seconds;
};

/* seconds MemTotal must stay put before the unplug counts as over */
#define UNPLUG_SETTLE_S	80
#define UNPLUG_MAX_S	400

static void run(const char *cmd)
{
	say("%s", cmd);
	if (system(cmd))
		die(cmd);
}

/* The library is a module, or built in (7.x, where it is in-tree). */
static void lib_load(void)
{
	if (!access("/movable_pool.ko", F_OK))
		run("insmod /movable_pool.ko");
}

static void lib_unload(void)
{
	if (!access("/movable_pool.ko", F_OK))
		run("rmmod movable_pool");
}

static void driver_hold(unsigned long pages, unsigned int keep_pct)
{
	char cmd[256];

	/* bench_driver.ko links against it, whatever its kind */
	lib_load();
	snprintf(cmd, sizeof(cmd),
		 "insmod /bench_driver.ko kind=%s pages=%lu keep_pct=%u seed=%lu",
		 opt.kind, pages, keep_pct, opt.seed);
	run(cmd);
}

/* bench_driver.ko on a pool of @pages, all kept: for micro, scale, idle */
static void driver_load_pool(unsigned long pages)
{
	char cmd[128];

	lib_load();
	snprintf(cmd, sizeof(cmd),
		 "insmod /bench_driver.ko kind=pool pages=%lu keep_pct=100",
		 pages);
	run(cmd);
}

static void driver_unload(void)
{
	run("rmmod bench_driver");
	lib_unload();
}

/*
 * The pool's refusals and failures over the whole boot, from its debugfs
 * stats, as " pool_NAME=N" fields read before the driver goes: where
 * movable_pool got less than the hand-rolled driver, they say whether its
 * pages refused to move. None if they cannot be read: the boot's other
 * figures stand without them.
 */
static char pool_fields[256];

static void pool_stats(void)
{
	static const char *const keep[] = {
		"putback", "migrate_failed", "pin_refused", "routine_busy",
		"routine_failed",
	};
	unsigned long value;
	size_t i, len = 0;
	char name[32];
	glob_t g;
	FILE *f;

	/* bench_driver's pool, not bench_scale.c's ("bench-scale-<id>") */
	if (glob("/sys/kernel/debug/movable_pool/bench-[0-9]*/stats", 0, NULL,
		 &g))
		return;
	f = g.gl_pathc == 1 ? fopen(g.gl_pathv[0], "r") : NULL;
	globfree(&g);
	if (!f)
		return;
	while (fscanf(f, "%31s %lu", name, &value) == 2)
		for (i = 0; i < ARRAY_SIZE(keep); i++)
			if (!strcmp(name, keep[i]) && len < sizeof(pool_fields))
				len += snprintf(pool_fields + len,
						sizeof(pool_fields) - len,
						" pool_%s=%lu", name, value);
	fclose(f);
}

/* "checked=N mismatches=M migrated=K" from the driver. */
static void driver_verify(unsigned long *checked, unsigned long *bad,
			  unsigned long *migrated)
{
	FILE *f = fopen("/sys/kernel/debug/bench_driver/verify", "r");

	if (!f || fscanf(f, "checked=%lu mismatches=%lu migrated=%lu",
			 checked, bad, migrated) != 3)
		die("bench_driver/verify");
	fclose(f);
	if (!strcmp(opt.kind, "pool"))
		pool_stats();
	driver_unload();
}

/* Every CPU reads bench_driver/micro at the same time. */
static int run_micro(void)
{
	int cpu, ncpu = sysconf(_SC_NPROCESSORS_ONLN), status, bad = 0;
	char line[256];
	cpu_set_t set;
	ssize_t n;
	int fd;

	driver_load_pool(256);
	for (cpu = 0; cpu < ncpu; cpu++) {
		if (fork())
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
		n = snprintf(line, sizeof(line), "BENCH_MICRO cpus=%d ", ncpu);
		fd = open("/sys/kernel/debug/bench_driver/micro", O_RDONLY);
		if (fd < 0)
			die("bench_driver/micro");
		n += read(fd, line + n, sizeof(line) - n - 1);
		/* one write per line: the CPUs' lines must not interleave */
		if (write(1, line, n) != n)
			_exit(1);
		_exit(0);
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	driver_unload();
	printf("BENCH_RESULT status=%s kind=micro cpus=%d\n", bad ? "fail" : "ok",
	       ncpu);
	return bad;
}

/*
 * Guest RAM that QEMU has not touched yet costs a fault in the host at
 * first use, which would land in whichever figure touched it first:
 * touch it all once.
 */
static void prefault(void)
{
	size_t len = (size_t)(read_meminfo("MemFree") - 256 * 1024) << 10;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("prefault");
	munmap(p, len);
}

/* bench_driver/scale at each size of --scale, a line each. */
static int run_scale(void)
{
	static const char param[] = "/sys/module/bench_driver/parameters/scale_pages";
	char sizes[128], line[512], *size, *save;
	int bad = 0;
	FILE *f;

	prefault();
	driver_load_pool(16);
	snprintf(sizes, sizeof(sizes), "%s", opt.scale);
	for (size = strtok_r(sizes, ":", &save); size;
	     size = strtok_r(NULL, ":", &save)) {
		say("scale: a pool of %s pages", size);
		if (write_file(param, size))
			die(param);
		f = fopen("/sys/kernel/debug/bench_driver/scale", "r");
		if (!f || !fgets(line, sizeof(line), f))
			die("bench_driver/scale");
		fclose(f);
		bad |= !!strstr(line, "error=");
		printf("BENCH_SCALE %s", line);
	}
	driver_unload();
	printf("BENCH_RESULT status=%s kind=scale\n", bad ? "fail" : "ok");
	return bad;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The p-th percentile of the n sorted values at v (0 when n is 0). */
static double percentile(const double *v, long n, int p)
{
	return n ? v[n * p / 100] : 0;
}

/* --scenario=thp: see the top of the file. */
static void thp_faults(struct thp_result *r)
{
	static const char thp[] = "/sys/kernel/mm/transparent_hugepage/";
	const size_t huge = (size_t)HUGE_MIB << 20;
	long free_kb = read_meminfo("MemFree") + read_pcp_kb();
	long alloc0, fallback0, stall0, i, n_huge = 0, before;
	double *lat, *lat_huge, t;
	char path[128], *map, *base;

	snprintf(path, sizeof(path), "%skhugepaged/max_ptes_none", thp);
	write_file(path, "0");
	snprintf(path, sizeof(path), "%senabled", thp);
	if (write_file(path, "always"))
		die(path);
	snprintf(path, sizeof(path), "%sdefrag", thp);
	if (write_file(path, "always"))
		die(path);
	r->tried = (free_kb / 1024 - 64) / HUGE_MIB;
	if (r->tried <= 0)
		die("no free memory to fault huge pages into");
	map = mmap(NULL, (r->tried + 1) * huge, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	lat = calloc(r->tried, sizeof(*lat));
	lat_huge = calloc(r->tried, sizeof(*lat_huge));
	if (map == MAP_FAILED || !lat || !lat_huge)
		die("thp region");
	base = (char *)(((uintptr_t)map + huge - 1) & ~(huge - 1));
	if (madvise(base, r->tried * huge, MADV_HUGEPAGE))
		die("MADV_HUGEPAGE");
	alloc0 = read_vmstat("thp_fault_alloc");
	fallback0 = read_vmstat("thp_fault_fallback");
	stall0 = read_vmstat("compact_stall");
	for (i = 0; i < r->tried; i++) {
		before = read_vmstat("thp_fault_alloc");
		t = now();
		base[i * huge] = 1;
		lat[i] = (now() - t) * 1e6;
		if (read_vmstat("thp_fault_alloc") > before)
			lat_huge[n_huge++] = lat[i];
	}
	r->alloc = read_vmstat("thp_fault_alloc") - alloc0;
	r->fallback = read_vmstat("thp_fault_fallback") - fallback0;
	r->stall = read_vmstat("compact_stall") - stall0;
	snprintf(path, sizeof(path), "%senabled", thp);
	write_file(path, "never");
	qsort(lat, r->tried, sizeof(*lat), cmp_double);
	qsort(lat_huge, n_huge, sizeof(*lat_huge), cmp_double);
	r->median_us = percentile(lat, r->tried, 50);
	r->p99_us = percentile(lat, r->tried, 99);
	r->huge_median_us = percentile(lat_huge, n_huge, 50);
	r->huge_p99_us = percentile(lat_huge, n_huge, 99);
	munmap(map, (r->tried + 1) * huge);
	free(lat_huge);
	free(lat);
	say("thp: %ld faults, %ld huge, %ld fell back", r->tried, r->alloc,
	    r->fallback);
}

static void thp_print(const struct thp_result *r)
{
	printf(" scenario=thp thp_tried=%ld thp_alloc=%ld thp_fallback=%ld",
	       r->tried, r->alloc, r->fallback);
	printf(" compact_stall=%ld fault_us_median=%.0f fault_us_p99=%.0f",
	       r->stall, r->median_us, r->p99_us);
	printf(" huge_fault_us_median=%.0f huge_fault_us_p99=%.0f",
	       r->huge_median_us, r->huge_p99_us);
}

/* --scenario=gigantic: see the top of the file. */
static long gigantic_pages(void)
{
	static const char nr[] =
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages";
	long free_kb, want, got = 0, prev;
	int round = 0;
	char buf[32];

	do {
		prev = got;
		free_kb = read_meminfo("MemFree") + read_pcp_kb();
		want = got + (free_kb / 1024 - 512) / 1024;
		if (want <= got)
			break;
		snprintf(buf, sizeof(buf), "%ld", want);
		if (write_file(nr, buf))
			die(nr);
		got = read_long(nr);
		say("asked for %ld 1 GiB pages, got %ld", want, got);
	} while (got > prev && ++round < 8);
	write_file(nr, "0");
	return got;
}

/*
 * Wait until MemTotal has not moved for @settle seconds (or, with a
 * @target, has come down to it), at most @max seconds; return the seconds
 * until its last move.
 */
static double memtotal_settle(long target_kb, int settle, int max)
{
	long last = read_meminfo("MemTotal"), cur;
	double t0 = now(), moved = t0;

	while (now() - moved < settle && now() - t0 < max) {
		if (target_kb && last <= target_kb)
			break;
		usleep(250000);
		cur = read_meminfo("MemTotal");
		if (cur != last) {
			last = cur;
			moved = now();
		}
	}
	return moved - t0;
}

/* --scenario=unplug, before the hold: the device's memory, plugged */
static void unplug_plug(struct unplug_result *u)
{
	double t0;

	u->base_kb = read_meminfo("MemTotal");
	run("for m in /virtio/core-*.ko; do [ ! -e $m ] || insmod $m; done");
	run("insmod /virtio/virtio_mem.ko");
	/* it plugs in steps as it onlines: wait for the first, then the rest */
	for (t0 = now(); read_meminfo("MemTotal") == u->base_kb; usleep(100000))
		if (now() - t0 > 120)
			die("virtio-mem plugged nothing in 120 s");
	memtotal_settle(0, 20, 300);
	u->plugged_kb = read_meminfo("MemTotal") - u->base_kb;
	say("virtio-mem: %ld MiB plugged", u->plugged_kb >> 10);
}

/* --scenario=unplug, while held: all of it back to the host */
static void unplug_all(struct unplug_result *u)
{
	printf("MP_HOST unplug=0\n");
	fflush(stdout);
	u->seconds = memtotal_settle(u->base_kb, UNPLUG_SETTLE_S, UNPLUG_MAX_S);
	u->left_kb = read_meminfo("MemTotal") - u->base_kb;
	/* reached at once: give the host a moment to see the same */
	if (u->left_kb <= 0)
		sleep(2);
	say("virtio-mem: %ld of %ld MiB unplugged in %.1f s",
	    (u->plugged_kb - u->left_kb) >> 10, u->plugged_kb >> 10, u->seconds);
}

/* the guest's view; the host's is unplug_host.py's */
static void unplug_print(const struct unplug_result *u)
{
	printf(" scenario=unplug plugged_mib=%ld", u->plugged_kb >> 10);
	printf(" guest_unplugged_mib=%ld guest_unplug_s=%.1f",
	       (u->plugged_kb - u->left_kb) >> 10, u->seconds);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "kind", 1, 0, 'k' }, { "held-pct", 1, 0, 'p' },
		{ "seed", 1, 0, 's' }, { "tries", 1, 0, 't' },
		{ "scenario", 1, 0, 'S' }, { "scale", 1, 0, 'z' },
		{ "idle-driver", 0, 0, 'i' }, { 0, 0, 0, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'k':
			opt.kind = optarg;
			break;
		case 'p':
			opt.held_pct = atoi(optarg);
			break;
		case 's':
			opt.seed = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opt.tries = atoi(optarg);
			break;
		case 'z':
			opt.scale = optarg;
			break;
		case 'i':
			opt.idle_driver = 1;
			break;
		case 'S':
			if (!strcmp(optarg, "thp"))
				opt.scenario = SCENARIO_THP;
			else if (!strcmp(optarg, "gigantic"))
				opt.scenario = SCENARIO_GIGANTIC;
			else if (!strcmp(optarg, "unplug"))
				opt.scenario = SCENARIO_UNPLUG;
			else if (strcmp(optarg, "huge"))
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (opt.kind && opt.held_pct < 100 && opt.tries &&
	    (!strcmp(opt.kind, "none") || !strcmp(opt.kind, "micro") ||
	     !strcmp(opt.kind, "scale") || !strcmp(opt.kind, "anon") ||
	     !strcmp(opt.kind, "handrolled") || !strcmp(opt.kind, "pool") ||
	     !strcmp(opt.kind, "unmovable")) &&
	    (!opt.idle_driver || !strcmp(opt.kind, "none") ||
	     !strcmp(opt.kind, "anon")))
		return;
usage:
	fprintf(stderr, "usage: bench_run --kind=none|anon|handrolled|pool|unmovable\n"
		"                 --held-pct=P [--seed=S] [--tries=T]\n"
		"                 [--scenario=huge|thp|gigantic|unplug]\n"
		"                 [--idle-driver] (none and anon only)\n"
		"       bench_run --kind=micro\n"
		"       bench_run --kind=scale [--scale=PAGES:PAGES:...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long pages = 0, kept = 0, checked = 0, bad = 0, migrated = 0;
	long total_kb, free_kb, pcp_kb, alloc_kb, held_kb, sunreclaim_kb;
	long cma_free_kb;
	long mig0, mig1, fail0, huge = 0, gigantic = 0;
	struct thp_result thp = { 0 };
	struct unplug_result unplug = { 0 };
	unsigned int keep_pct = 0;
	double t0, compact_s;
	int none;

	parse(argc, argv);
	if (!strcmp(opt.kind, "micro"))
		return run_micro();
	if (!strcmp(opt.kind, "scale"))
		return run_scale();
	none = !strcmp(opt.kind, "none");
	rng_state = opt.seed * 0x2545f4914f6cdd1dull | 1;
	if (opt.scenario == SCENARIO_UNPLUG)
		unplug_plug(&unplug);
	total_kb = read_meminfo("MemTotal");
	free_kb = read_meminfo("MemFree");
	held_kb = total_kb / 100 * opt.held_pct;
	alloc_kb = 2 * held_kb;
	if (alloc_kb > free_kb - 128 * 1024)
		alloc_kb = free_kb - 128 * 1024;
	if (opt.idle_driver)
		driver_load_pool(1);
	if (!none) {
		if (alloc_kb < held_kb)
			die("not enough free memory for the held share");
		pages = alloc_kb / 4;
		keep_pct = (100 * held_kb + alloc_kb / 2) / alloc_kb;
		say("%s: %lu pages, keeping %u%%", opt.kind, pages, keep_pct);
		if (!strcmp(opt.kind, "anon"))
			kept = anon_hold(&anon, pages, keep_pct, opt.seed);
		else
			driver_hold(pages, keep_pct);
	}

	/* what the held memory costs besides itself (the log keeps it all) */
	if (system("cat /proc/meminfo >&2"))
		say("no /proc/meminfo");
	free_kb = read_meminfo("MemFree");
	pcp_kb = read_pcp_kb();
	sunreclaim_kb = read_meminfo("SUnreclaim");
	/* with hugetlb_cma=: what the held pages left of the CMA area */
	cma_free_kb = read_meminfo("CmaFree");

	mig0 = read_vmstat("pgmigrate_success");
	fail0 = read_vmstat("pgmigrate_fail");
	t0 = now();
	if (opt.scenario == SCENARIO_THP)
		thp_faults(&thp);
	else if (opt.scenario == SCENARIO_GIGANTIC)
		gigantic = gigantic_pages();
	else if (opt.scenario == SCENARIO_UNPLUG)
		unplug_all(&unplug);
	else
		write_file("/proc/sys/vm/compact_memory", "1");
	compact_s = now() - t0;
	mig1 = read_vmstat("pgmigrate_success");
	if (opt.scenario == SCENARIO_HUGE)
		huge = hugepages_best(opt.tries);

	if (!strcmp(opt.kind, "anon")) {
		bad = anon_mismatches(&anon);
		checked = kept;
	} else if (!none) {
		driver_verify(&checked, &bad, &migrated);
	}
	printf("BENCH_RESULT status=%s kind=%s held_pct=%u held_mib=%lu",
	       bad ? "fail" : "ok", opt.kind, opt.held_pct,
	       checked * PAGE_SZ >> 20);
	if (opt.idle_driver)
		printf(" idle_driver=1");
	if (opt.scenario == SCENARIO_GIGANTIC)
		printf(" scenario=gigantic gigantic_pages=%ld cma_free_kb=%ld",
		       gigantic, cma_free_kb);
	if (opt.scenario == SCENARIO_THP)
		thp_print(&thp);
	if (opt.scenario == SCENARIO_UNPLUG)
		unplug_print(&unplug);
	printf(" alloc_mib=%lu keep_pct=%u huge_pages=%ld mem_free_kb=%ld",
	       pages * PAGE_SZ >> 20, keep_pct, huge, free_kb);
	printf(" pcp_free_kb=%ld sunreclaim_kb=%ld compact_ms=%.0f",
	       pcp_kb, sunreclaim_kb, compact_s * 1000);
	printf(" pass_migrated=%ld", mig1 - mig0);
	printf(" pgmigrate_success=%ld driver_migrated=%lu checked=%lu",
	       read_vmstat("pgmigrate_success") - mig0, migrated, checked);
	/* from before the request on, like pgmigrate_success */
	printf(" pgmigrate_fail=%ld%s", read_vmstat("pgmigrate_fail") - fail0,
	       pool_fields);
	printf(" mismatches=%lu seed=%lu\n", bad, opt.seed);
	return bad ? 1 : 0;
}
