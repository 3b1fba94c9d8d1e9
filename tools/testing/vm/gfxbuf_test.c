// SPDX-License-Identifier: GPL-2.0
/*
 * gfxbuf_test: drive the gfxbuf sample in a guest and measure what
 * movable pages buy.
 *
 *  1. create BOs worth --alloc-mib, destroy a random (100 - --keep-pct)%
 *     of them: the survivors are scattered through memory;
 *  2. fill the survivors, half through mmap, half with engine FILL jobs;
 *  3. while a "user" thread rewrites pages through mmap and an "engine"
 *     thread runs CHECKSUM jobs, compact memory and ask for huge pages
 *     (bounded by free memory), best of --tries;
 *  4. check every byte and every checksum, count pages whose PFN changed.
 *
 * Each step is a named case (main() lists them), reported as TAP the way
 * kselftest reports its tests; --uapi runs its own cases.
 *
 * --offline replaces step 3's huge page requests with offlining every
 * memory block in ZONE_MOVABLE (boot with movablecore=). --no-driver only
 * measures huge pages; --uapi checks the errno of every bad input (with
 * gfxbuf loaded with max_total_pages=1024). The last line on stdout is
 * "GFXBUF_RESULT key=value ...". Exit status 0 when all data checked out
 * (and, with --expect-moved, pages really moved).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../../samples/movable_pool/gfxbuf_uapi.h"

#define GUEST_NAME	"gfxbuf_test"
#define GUEST_RESULT	"GFXBUF_RESULT"
#include "guest.h"

#define WORDS		(PAGE_SZ / 4)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct bo {
	uint32_t handle;
	uint32_t seed;
	uint32_t *gen;		/* word 0 of each page: the CPU rewrites it */
	uint64_t offset;
	uint32_t *map;
	uint64_t *pfns;
	int kept;
};

static struct {
	unsigned int alloc_mib, keep_pct, bo_pages, tries, seed;
	int no_driver, expect_moved, uapi, offline;
} opt = { 800, 50, 4, 3, 1, 0, 0, 0, 0 };

static int fd = -1;
static struct bo *bos;
static unsigned int nbos, nkept;
static unsigned int *kept;		/* indices of kept BOs */
static int stop;			/* tells the threads to finish */
static unsigned long user_errors, user_rounds, engine_errors, engine_rounds;

/*
 * Offline every online memory block of ZONE_MOVABLE; the pages in it must
 * migrate elsewhere. Returns how many went offline; *tried counts them all.
 */
static int offline_movable_blocks(int *tried)
{
	static const char root[] = "/sys/devices/system/memory";
	char path[300], buf[128];
	struct dirent *de;
	int done = 0, f;
	ssize_t n;
	DIR *d = opendir(root);

	*tried = 0;
	if (!d)
		return 0;
	for (de = readdir(d); de; de = readdir(d)) {
		if (strncmp(de->d_name, "memory", 6) || !isdigit(de->d_name[6]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/valid_zones", root, de->d_name);
		f = open(path, O_RDONLY);
		if (f < 0)
			continue;
		n = read(f, buf, sizeof(buf) - 1);
		close(f);
		buf[n > 0 ? n : 0] = 0;
		if (strncmp(buf, "Movable", 7))
			continue;
		(*tried)++;
		snprintf(path, sizeof(path), "%s/%s/state", root, de->d_name);
		/* a block can be busy for a moment (isolation races): retry */
		for (n = 0; n < 3; n++) {
			if (!write_file(path, "offline")) {
				done++;
				break;
			}
			say("offlining %s: %s", de->d_name, strerror(errno));
		}
	}
	closedir(d);
	say("offlined %d of %d movable memory blocks", done, *tried);
	return done;
}

/* What a page must hold: the FILL pattern, but word 0 is its generation. */
static uint32_t bo_word(struct bo *b, unsigned int page, unsigned int w)
{
	return w ? gfxbuf_pattern(b->seed, page, w) : b->gen[page];
}

static void bo_expect_page(struct bo *b, unsigned int page, uint32_t *out)
{
	unsigned int w;

	for (w = 0; w < WORDS; w++)
		out[w] = bo_word(b, page, w);
}

static uint64_t bo_expect_csum(struct bo *b)
{
	uint64_t h = GFXBUF_CSUM_INIT;
	unsigned int p, w;

	for (p = 0; p < opt.bo_pages; p++)
		for (w = 0; w < WORDS; w++)
			h = gfxbuf_csum(h, bo_word(b, p, w));
	return h;
}

static uint64_t submit(uint32_t op, struct bo *src, struct bo *dst,
		       uint32_t seed)
{
	struct gfxbuf_submit s = {
		.op = op, .seed = seed, .pages = opt.bo_pages,
		.src = src ? src->handle : 0, .dst = dst ? dst->handle : 0,
	};

	if (ioctl(fd, GFXBUF_IOC_SUBMIT, &s))
		die("GFXBUF_IOC_SUBMIT");
	return s.fence;
}

static uint64_t wait_fence(uint64_t fence)
{
	struct gfxbuf_wait w = { .fence = fence, .timeout_ms = 60000 };

	if (ioctl(fd, GFXBUF_IOC_WAIT, &w))
		die("GFXBUF_IOC_WAIT");
	return w.result;
}

static void read_pfns(struct bo *b, uint64_t *pfns)
{
	struct gfxbuf_bo_info info = {
		.handle = b->handle, .pages = opt.bo_pages,
		.pfns = (uintptr_t)pfns,
	};

	if (ioctl(fd, GFXBUF_IOC_BO_INFO, &info))
		die("GFXBUF_IOC_BO_INFO");
}

/*
 * The CPU side: check a random page through mmap and bump its generation
 * word. A write that went to a page the driver no longer uses (a stale
 * mapping after migration) shows up in the engine's final checksums.
 * Works on the even kept BOs; the engine thread reads the odd ones.
 */
static void *user_thread(void *arg)
{
	uint32_t expect[WORDS];
	unsigned int seed = 7;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct bo *b = &bos[kept[(rand_r(&seed) % nkept) & ~1u]];
		unsigned int page = rand_r(&seed) % opt.bo_pages;
		uint32_t *p = b->map + page * WORDS;

		bo_expect_page(b, page, expect);
		if (memcmp(p, expect, PAGE_SZ))
			__atomic_add_fetch(&user_errors, 1, __ATOMIC_RELAXED);
		b->gen[page]++;
		p[0] = b->gen[page];
		user_rounds++;
	}
	return NULL;
}

/* Keep the engine busy: checksums pin pages while compaction runs. */
static void *engine_thread(void *arg)
{
	unsigned int seed = 11;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned int k = rand_r(&seed) % nkept | 1;
		struct bo *b;

		if (k >= nkept)
			continue;
		b = &bos[kept[k]];
		if (wait_fence(submit(GFXBUF_OP_CHECKSUM, b, NULL, 0)) !=
		    bo_expect_csum(b))
			engine_errors++;
		engine_rounds++;
	}
	return NULL;
}

static void get_stats(struct gfxbuf_stats *st)
{
	if (ioctl(fd, GFXBUF_IOC_STATS, st))
		die("GFXBUF_IOC_STATS");
}

/*
 * The library's debugfs file for our pool (the only gfxbuf pool while this
 * runs) must say what the ioctl says. Returns the number of mismatches, or
 * -1 if there is no such file.
 */
static int debugfs_mismatches(const struct gfxbuf_stats *st)
{
	static const char root[] = "/sys/kernel/debug/movable_pool";
	char path[512], name[64];
	struct dirent *de;
	unsigned long long v;
	int found = 0, bad = 0;
	DIR *d = opendir(root);
	FILE *f;

	if (!d)
		return -1;
	for (de = readdir(d); de; de = readdir(d)) {
		if (!strncmp(de->d_name, "gfxbuf-", 7)) {
			snprintf(path, sizeof(path), "%s/%s/stats", root, de->d_name);
			found++;
		}
	}
	closedir(d);
	if (found != 1)
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		const struct { const char *n; uint64_t v; } want[] = {
			{ "pages", st->pages }, { "allocated", st->allocated },
			{ "freed", st->freed }, { "migrated", st->migrated },
			{ "pinned", st->pinned }, { "isolated", st->isolated },
			{ "migrating", st->migrating },
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(want); i++)
			if (!strcmp(name, want[i].n) && v != want[i].v) {
				say("debugfs %s %llu, ioctl %llu", name, v,
				    (unsigned long long)want[i].v);
				bad++;
			}
	}
	fclose(f);
	return bad;
}

/* --uapi: every bad input gets its errno; closing with jobs queued is safe. */
static int uapi_failures;

static void expect_errno(const char *what, int ret, int err)
{
	int ok = err ? ret == -1 && errno == err : ret == 0;

	if (!ok) {
		uapi_failures++;
		say("uapi: %s: got %d (%s), want %s", what, ret,
		    ret ? strerror(errno) : "success", err ? strerror(err) : "success");
	}
}

/* A create that must fail: nothing to clean up. */
static int bad_create(uint32_t pages, uint32_t flags)
{
	struct gfxbuf_create c = { .pages = pages, .flags = flags };

	return ioctl(fd, GFXBUF_IOC_CREATE, &c);
}

/* The two BOs the uapi cases share, created by uapi_submit_errors */
static struct gfxbuf_create uapi_bo[2] = { { .pages = 4 }, { .pages = 4 } };

static void uapi_create_errors(void)
{
	uint32_t bad = 12345;

	expect_errno("create 0 pages", bad_create(0, 0), EINVAL);
	expect_errno("create with flags", bad_create(1, 1), EINVAL);
	expect_errno("create too large", bad_create(1u << 30, 0), E2BIG);
	expect_errno("create bad pointer", ioctl(fd, GFXBUF_IOC_CREATE, NULL),
		     EFAULT);
	expect_errno("unknown ioctl", ioctl(fd, _IO('G', 0x7f)), ENOTTY);
	expect_errno("destroy unknown", ioctl(fd, GFXBUF_IOC_DESTROY, &bad),
		     ENOENT);
}

static void uapi_submit_errors(void)
{
	uint32_t h, bad = 12345;
	struct gfxbuf_submit sub;

	expect_errno("create", ioctl(fd, GFXBUF_IOC_CREATE, &uapi_bo[0]), 0);
	expect_errno("create 2", ioctl(fd, GFXBUF_IOC_CREATE, &uapi_bo[1]), 0);
	h = uapi_bo[0].handle;
	sub = (struct gfxbuf_submit){ .op = 99, .dst = h, .pages = 1 };
	expect_errno("submit bad op", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), EINVAL);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_FILL, .dst = bad, .pages = 1 };
	expect_errno("submit bad handle", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), ENOENT);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_FILL, .dst = h,
				      .dst_page = 3, .pages = 2 };
	expect_errno("submit past the end", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), EINVAL);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_COPY, .src = h,
				      .dst = h, .dst_page = 1, .pages = 2 };
	expect_errno("submit overlapping copy", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), EINVAL);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_FILL, .dst = h,
				      .pages = 1, .pad = 1 };
	expect_errno("submit pad", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), EINVAL);
}

static void uapi_wait(void)
{
	struct gfxbuf_submit sub = { .op = GFXBUF_OP_COPY,
				     .src = uapi_bo[0].handle,
				     .dst = uapi_bo[1].handle, .pages = 4 };
	struct gfxbuf_wait w = { .timeout_ms = 10000 };

	expect_errno("submit copy", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), 0);
	w.fence = sub.fence;
	expect_errno("wait", ioctl(fd, GFXBUF_IOC_WAIT, &w), 0);
	expect_errno("wait twice", ioctl(fd, GFXBUF_IOC_WAIT, &w), ENOENT);
	w.fence = 1000000;
	expect_errno("wait unknown", ioctl(fd, GFXBUF_IOC_WAIT, &w), ENOENT);
}

static void uapi_info_errors(void)
{
	struct gfxbuf_bo_info info = { .handle = uapi_bo[0].handle, .pages = 4,
				       .pfns = 16 };	/* not a user address */

	expect_errno("info bad pointer", ioctl(fd, GFXBUF_IOC_BO_INFO, &info), EFAULT);
}

static void uapi_mmap_errors(void)
{
	uint64_t off = uapi_bo[0].mmap_offset;
	void *map;

	map = mmap(NULL, PAGE_SZ, PROT_READ, MAP_PRIVATE, fd, off);
	expect_errno("mmap private", map == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, 8 * PAGE_SZ, PROT_READ, MAP_SHARED, fd, off);
	expect_errno("mmap past the end", map == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, PAGE_SZ, PROT_READ, MAP_SHARED, fd, 0);
	expect_errno("mmap no BO", map == MAP_FAILED ? -1 : 0, ENOENT);
}

/* the guest loads the driver with max_total_pages=1024 for these */
static void uapi_page_limit(void)
{
	uint32_t handles[64];
	struct gfxbuf_stats st;
	unsigned int n, i;

	for (n = 0; n < 64; n++) {
		struct gfxbuf_create big = { .pages = 256 };

		if (ioctl(fd, GFXBUF_IOC_CREATE, &big))
			break;
		handles[n] = big.handle;
	}
	expect_errno("create over the limit", n < 64 ? -1 : 0, ENOMEM);
	say("uapi: %u BOs of 256 pages fit under the limit", n);
	for (i = 0; i < n; i++)
		expect_errno("destroy", ioctl(fd, GFXBUF_IOC_DESTROY, &handles[i]), 0);
	expect_errno("destroy", ioctl(fd, GFXBUF_IOC_DESTROY, &uapi_bo[0].handle), 0);
	expect_errno("destroy twice", ioctl(fd, GFXBUF_IOC_DESTROY,
					    &uapi_bo[0].handle), ENOENT);
	expect_errno("destroy 2", ioctl(fd, GFXBUF_IOC_DESTROY, &uapi_bo[1].handle), 0);
	get_stats(&st);
	if (st.pages || st.allocated != st.freed || st.pinned || st.isolated) {
		uapi_failures++;
		say("uapi: leak: pages %llu allocated %llu freed %llu",
		    (unsigned long long)st.pages, (unsigned long long)st.allocated,
		    (unsigned long long)st.freed);
	}
}

/* close with jobs queued, and with a BO destroyed under a job */
static void uapi_close_with_jobs(void)
{
	struct gfxbuf_create c = { .pages = 256 };
	struct gfxbuf_submit sub;
	unsigned int i;
	int fd2;

	fd2 = open("/dev/gfxbuf", O_RDWR);
	if (fd2 < 0)
		die("open /dev/gfxbuf");
	expect_errno("create", ioctl(fd2, GFXBUF_IOC_CREATE, &c), 0);
	for (i = 0; i < 32; i++) {
		sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_CHECKSUM,
					      .src = c.handle, .pages = 256 };
		expect_errno("submit", ioctl(fd2, GFXBUF_IOC_SUBMIT, &sub), 0);
	}
	expect_errno("destroy busy BO", ioctl(fd2, GFXBUF_IOC_DESTROY, &c.handle), 0);
	close(fd2);
}

/*
 * Named cases, run in order and reported as TAP ("ok 3 - uapi_wait"), as
 * kselftest does; later cases may use what earlier ones set up. A case
 * fails by counting in *fails, the counter its run shares.
 */
struct test_case {
	const char *name;
	void (*run)(void);
};

#define CASE(fn)	{ #fn, fn }

static int run_cases(const struct test_case *cases, unsigned int n,
		     const int *fails)
{
	unsigned int i, failed = 0;
	int before;

	printf("TAP version 13\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		before = *fails;
		cases[i].run();
		if (*fails != before) {
			failed++;
			printf("not ");
		}
		printf("ok %u - %s\n", i + 1, cases[i].name);
		fflush(stdout);
	}
	return failed;
}

static int uapi_test(void)
{
	static const struct test_case cases[] = {
		CASE(uapi_create_errors),
		CASE(uapi_submit_errors),
		CASE(uapi_wait),
		CASE(uapi_info_errors),
		CASE(uapi_mmap_errors),
		CASE(uapi_page_limit),
		CASE(uapi_close_with_jobs),
	};

	run_cases(cases, ARRAY_SIZE(cases), &uapi_failures);
	printf("GFXBUF_RESULT status=%s mode=uapi failures=%d\n",
	       uapi_failures ? "fail" : "ok", uapi_failures);
	return !!uapi_failures;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: gfxbuf_test [--alloc-mib N] [--keep-pct P] [--bo-pages K]\n"
		"                   [--tries T] [--seed S] [--no-driver] [--expect-moved]\n"
		"                   [--offline]\n"
		"       gfxbuf_test --uapi\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "alloc-mib", 1, 0, 'a' }, { "keep-pct", 1, 0, 'k' },
		{ "bo-pages", 1, 0, 'b' }, { "tries", 1, 0, 't' },
		{ "seed", 1, 0, 's' }, { "no-driver", 0, 0, 'n' },
		{ "expect-moved", 0, 0, 'e' }, { "uapi", 0, 0, 'u' },
		{ "offline", 0, 0, 'o' },
		{ 0, 0, 0, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'a':
			opt.alloc_mib = atoi(optarg);
			break;
		case 'k':
			opt.keep_pct = atoi(optarg);
			break;
		case 'b':
			opt.bo_pages = atoi(optarg);
			break;
		case 't':
			opt.tries = atoi(optarg);
			break;
		case 's':
			opt.seed = atoi(optarg);
			break;
		case 'n':
			opt.no_driver = 1;
			break;
		case 'e':
			opt.expect_moved = 1;
			break;
		case 'u':
			opt.uapi = 1;
			break;
		case 'o':
			opt.offline = 1;
			break;
		default:
			print_usage();
		}
	}
	if (!opt.bo_pages || opt.keep_pct > 100 || !opt.tries)
		print_usage();
}

/* The main test's state, passed from case to case */
static uint64_t *fences;
static struct gfxbuf_stats st;
static unsigned long verify_errors, csum_errors, moved, stats_errors;
static int offlined, offline_tried, main_failures;
static long huge;

static void create_scattered_bos(void)
{
	unsigned int i;

	nbos = (unsigned long)opt.alloc_mib * 256 / opt.bo_pages;
	bos = calloc(nbos, sizeof(*bos));
	kept = calloc(nbos, sizeof(*kept));
	fences = calloc(nbos, sizeof(*fences));
	if (!bos || !kept || !fences)
		die("calloc");

	say("creating %u BOs of %u pages (%u MiB)", nbos, opt.bo_pages,
	    opt.alloc_mib);
	for (i = 0; i < nbos; i++) {
		struct gfxbuf_create c = { .pages = opt.bo_pages };

		if (ioctl(fd, GFXBUF_IOC_CREATE, &c))
			die("GFXBUF_IOC_CREATE");
		bos[i].handle = c.handle;
		bos[i].offset = c.mmap_offset;
		bos[i].seed = c.handle * 2654435761u ^ opt.seed;
	}
	/* random holes: compaction sees through regular patterns */
	for (i = 0; i < nbos; i++) {
		if (rnd() % 100 < opt.keep_pct) {
			bos[i].kept = 1;
			kept[nkept++] = i;
		} else if (ioctl(fd, GFXBUF_IOC_DESTROY, &bos[i].handle)) {
			die("GFXBUF_IOC_DESTROY");
		}
	}
	if (!nkept)
		die("no BO kept");
	say("kept %u BOs (%lu MiB), MemFree %ld MiB", nkept,
	    (unsigned long)nkept * opt.bo_pages / 256, read_meminfo("MemFree") / 1024);
}

/* even BOs by the CPU through mmap, odd ones by the engine */
static void fill_bos(void)
{
	uint32_t expect[WORDS];
	unsigned int i, p;
	double t0 = now();

	for (i = 0; i < nkept; i++) {
		struct bo *b = &bos[kept[i]];

		b->map = mmap(NULL, opt.bo_pages * PAGE_SZ,
			      PROT_READ | PROT_WRITE, MAP_SHARED, fd, b->offset);
		if (b->map == MAP_FAILED)
			die("mmap");
		b->pfns = calloc(opt.bo_pages, sizeof(uint64_t));
		b->gen = calloc(opt.bo_pages, sizeof(uint32_t));
		if (!b->pfns || !b->gen)
			die("calloc");
		for (p = 0; p < opt.bo_pages; p++)
			b->gen[p] = gfxbuf_pattern(b->seed, p, 0);
		if (i & 1) {
			fences[i] = submit(GFXBUF_OP_FILL, NULL, b, b->seed);
		} else {
			for (p = 0; p < opt.bo_pages; p++) {
				bo_expect_page(b, p, expect);
				memcpy(b->map + p * WORDS, expect, PAGE_SZ);
			}
		}
		/* keep the engine's queue within its limit */
		if (i >= 1024 && fences[i - 1024])
			wait_fence(fences[i - 1024]);
	}
	for (i = nkept >= 1024 ? nkept - 1024 : 0; i < nkept; i++)
		if (fences[i])
			wait_fence(fences[i]);
	for (i = 0; i < nkept; i++)
		read_pfns(&bos[kept[i]], bos[kept[i]].pfns);
	say("filled in %.1f s", now() - t0);
}

/* huge pages (or offlining) while the CPU and the engine use every BO */
static void compact_under_traffic(void)
{
	pthread_t ut, et;

	pthread_create(&ut, NULL, user_thread, NULL);
	pthread_create(&et, NULL, engine_thread, NULL);
	if (opt.offline)
		offlined = offline_movable_blocks(&offline_tried);
	else
		huge = hugepages_best(opt.tries);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(ut, NULL);
	pthread_join(et, NULL);
	say("user thread: %lu pages, engine thread: %lu jobs", user_rounds,
	    engine_rounds);
	if (user_errors || engine_errors || (opt.offline && !offlined))
		main_failures++;
}

/* every byte through mmap; and which pages moved */
static void verify_bytes(void)
{
	uint32_t expect[WORDS];
	unsigned int i, p;

	for (i = 0; i < nkept; i++) {
		struct bo *b = &bos[kept[i]];
		uint64_t now_pfns[opt.bo_pages];

		for (p = 0; p < opt.bo_pages; p++) {
			bo_expect_page(b, p, expect);
			if (memcmp(b->map + p * WORDS, expect, PAGE_SZ))
				verify_errors++;
		}
		read_pfns(b, now_pfns);
		for (p = 0; p < opt.bo_pages; p++)
			moved += now_pfns[p] != b->pfns[p];
	}
	if (verify_errors)
		main_failures++;
}

/* every BO through the engine, at most 1024 jobs queued */
static void verify_checksums(void)
{
	unsigned int i;

	for (i = 0; i < nkept; i++) {
		fences[i] = submit(GFXBUF_OP_CHECKSUM, &bos[kept[i]], NULL, 0);
		if (i >= 1024)
			csum_errors += wait_fence(fences[i - 1024]) !=
				bo_expect_csum(&bos[kept[i - 1024]]);
	}
	for (i = nkept >= 1024 ? nkept - 1024 : 0; i < nkept; i++)
		csum_errors += wait_fence(fences[i]) != bo_expect_csum(&bos[kept[i]]);
	if (csum_errors)
		main_failures++;
}

/* nothing is in flight now: the counters must be at rest, and agree */
static void verify_counters(void)
{
	get_stats(&st);
	if (st.pages != st.allocated - st.freed || st.pinned || st.isolated ||
	    st.migrating)
		stats_errors++;
	if (st.movable && debugfs_mismatches(&st))
		stats_errors++;
	if (stats_errors)
		main_failures++;
}

static void pages_moved(void)
{
	if (opt.expect_moved && (!moved || !st.migrated))
		main_failures++;
}

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		CASE(create_scattered_bos),
		CASE(fill_bos),
		CASE(compact_under_traffic),
		CASE(verify_bytes),
		CASE(verify_checksums),
		CASE(verify_counters),
		CASE(pages_moved),
	};
	double t0 = now();

	parse(argc, argv);
	rng_state ^= opt.seed * 0x2545f4914f6cdd1dull;
	if (opt.no_driver) {
		huge = hugepages_best(opt.tries);
		printf("GFXBUF_RESULT status=ok mode=none huge_pages=%ld held_mib=0 seconds=%.1f\n",
		       huge, now() - t0);
		return 0;
	}

	fd = open("/dev/gfxbuf", O_RDWR);
	if (fd < 0)
		die("open /dev/gfxbuf");
	if (opt.uapi)
		return uapi_test();
	run_cases(cases, ARRAY_SIZE(cases), &main_failures);

	printf("GFXBUF_RESULT status=%s mode=%s huge_pages=%ld held_mib=%lu",
	       main_failures ? "fail" : "ok", st.movable ? "movable" : "unmovable",
	       huge, (unsigned long)nkept * opt.bo_pages / 256);
	printf(" bos=%u pages_moved=%lu migrated=%llu migrate_failed=%llu",
	       nkept, moved, (unsigned long long)st.migrated,
	       (unsigned long long)st.migrate_failed);
	printf(" pin_refused=%llu verify_errors=%lu csum_errors=%lu",
	       (unsigned long long)st.pin_refused, verify_errors, csum_errors);
	printf(" user_errors=%lu engine_errors=%lu stats_errors=%lu",
	       user_errors, engine_errors, stats_errors);
	printf(" offlined=%d offline_tried=%d", offlined, offline_tried);
	printf(" pgmigrate_success=%ld seconds=%.1f\n",
	       read_vmstat("pgmigrate_success"), now() - t0);
	fflush(stdout);
	close(fd);	/* BOs still mapped: freed when the mappings go */
	return !!main_failures;
}
