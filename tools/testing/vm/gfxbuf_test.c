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
 * gfxbuf loaded with max_total_pages=1024), first as an unprivileged
 * user, with no warning in the kernel log; --unplug hot-unplugs the
 * device under faulting threads, --rounds times. The last line on stdout is
 * "GFXBUF_RESULT key=value ...". Exit status 0 when all data checked out
 * (and, with --expect-moved, pages really moved).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
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
	unsigned int alloc_mib, keep_pct, bo_pages, tries, seed, rounds;
	int no_driver, expect_moved, uapi, offline, unplug;
} opt = { 800, 50, 4, 3, 1, 20, 0, 0, 0, 0, 0 };

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
 * Unprivileged cases: what any user can do to a mapping of the device
 * (open to all, like a GPU render node). Each runs in a child that drops
 * to nobody and opens its own file; wrong errnos count as its failures.
 * A user's mistake must get an errno and nothing else: afterwards the
 * kernel log may hold no warning and no misuse report of the library.
 */
#define NOBODY		65534
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

static __thread sigjmp_buf touch_jmp;
static __thread int touching;		/* atomics: the handler reads it */

static void on_touch_signal(int sig)
{
	if (__atomic_load_n(&touching, __ATOMIC_RELAXED))
		siglongjmp(touch_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_touch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_touch_signal };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

/*
 * Read the word at @p into *@val, or write *@val there: 0, or the signal
 * (SIGBUS, SIGSEGV) the access raised.
 */
static int touch_word(uint32_t *p, int write, uint32_t *val)
{
	int sig;

	__atomic_store_n(&touching, 1, __ATOMIC_RELAXED);
	sig = sigsetjmp(touch_jmp, 1);
	if (!sig) {
		if (write)
			__atomic_store_n(p, *val, __ATOMIC_RELAXED);
		else
			*val = __atomic_load_n(p, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&touching, 0, __ATOMIC_RELAXED);
	return sig;
}

/* An access that must end as @want says (0: no signal). */
static void expect_touch(const char *what, uint32_t *p, int write,
			 uint32_t val, int want)
{
	int sig = touch_word(p, write, &val);

	if (sig != want) {
		uapi_failures++;
		say("uapi: %s: signal %d, want %d", what, sig, want);
	}
}

/* Page @page of a mapping must hold @val in its first word. */
static void expect_word(const char *what, uint32_t *map, unsigned int page,
			uint32_t val)
{
	uint32_t got = 0;
	int sig = touch_word(map + page * WORDS, 0, &got);

	if (sig || got != val) {
		uapi_failures++;
		say("uapi: %s: page %u holds %#x (signal %d), want %#x", what,
		    page, got, sig, val);
	}
}

/* mmap() that must fail with @err; with @err 0, the mapping */
static uint32_t *expect_mmap(const char *what, size_t pages, int prot,
			     int flags, int f, uint64_t off, int err)
{
	void *p = mmap(NULL, pages * PAGE_SZ, prot, flags, f, (off_t)off);

	expect_errno(what, p == MAP_FAILED ? -1 : 0, err);
	if (p != MAP_FAILED && err) {
		munmap(p, pages * PAGE_SZ);
		p = MAP_FAILED;
	}
	return p == MAP_FAILED ? NULL : p;
}

/* A call the kernel may refuse (with any errno) but must survive. */
static void either(const char *what, long ret)
{
	say("uapi: %s: %s", what, ret < 0 ? strerror(errno) : "done");
}

/* A call that must fail with @err1 or @err2. */
static void expect_errno2(const char *what, int ret, int err1, int err2)
{
	expect_errno(what, ret, ret == -1 && errno == err2 ? err2 : err1);
}

/* A refusal with any errno. */
static void expect_refused(const char *what, long ret)
{
	if (ret >= 0) {
		uapi_failures++;
		say("uapi: %s: succeeded, want a refusal", what);
	}
}

/*
 * A BO of the case's own, mapped read-write: page i starts with 0x100 + i.
 * Handle h is at mmap offset h * stride pages.
 */
static uint64_t case_off, case_stride;
static uint32_t case_handle;

/* where handles 64 above the case's BO would be: no BO there */
static uint64_t no_bo_off(void)
{
	return (case_handle + 64) * case_stride;
}

static void case_bo(uint32_t pages)
{
	struct gfxbuf_create c = { .pages = pages };

	if (ioctl(fd, GFXBUF_IOC_CREATE, &c))
		die("GFXBUF_IOC_CREATE");
	case_off = c.mmap_offset;
	case_handle = c.handle;
	case_stride = c.mmap_offset / c.handle;
}

static uint32_t *case_map(uint32_t pages)
{
	uint32_t *map, i;

	case_bo(pages);
	map = expect_mmap("mmap", pages, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, case_off, 0);
	if (!map)
		die("mmap");
	for (i = 0; i < pages; i++)
		map[i * WORDS] = 0x100 + i;
	return map;
}

static void unpriv_mmap_private(void)
{
	uint32_t *map;
	int rofd;

	munmap(case_map(4), 4 * PAGE_SZ);
	expect_mmap("private read-only", 4, PROT_READ, MAP_PRIVATE, fd,
		    case_off, EINVAL);
	expect_mmap("private read-write", 4, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE, fd, case_off, EINVAL);
	expect_mmap("private, no BO there", 1, PROT_READ, MAP_PRIVATE, fd,
		    no_bo_off(), EINVAL);
	map = expect_mmap("shared read-only", 4, PROT_READ, MAP_SHARED, fd,
			  case_off, 0);
	if (map) {
		expect_word("read-only map", map, 3, 0x103);
		expect_touch("write to read-only map", map, 1, 1, SIGSEGV);
		munmap(map, 4 * PAGE_SZ);
	}

	/* shared on a read-only file: no VM_SHARED, and no copy-on-write */
	rofd = open("/dev/gfxbuf", O_RDONLY);
	if (rofd < 0)
		die("open /dev/gfxbuf read-only");
	close(fd);
	fd = rofd;
	case_bo(1);
	expect_mmap("private, read-only file", 1, PROT_READ, MAP_PRIVATE, fd,
		    case_off, EINVAL);
	map = expect_mmap("shared, read-only file", 1, PROT_READ, MAP_SHARED,
			  fd, case_off, 0);
	if (map) {
		expect_word("read-only file's map", map, 0, 0);
		expect_touch("write to read-only file's map", map, 1, 1,
			     SIGSEGV);
		expect_errno("mprotect writable", mprotect(map, PAGE_SZ,
							   PROT_WRITE), EACCES);
		munmap(map, PAGE_SZ);
	}
}

static void unpriv_mmap_offsets(void)
{
	munmap(case_map(4), 4 * PAGE_SZ);
	expect_mmap("longer than the BO", 8, PROT_READ, MAP_SHARED, fd,
		    case_off, EINVAL);
	expect_mmap("past the BO's end", 4, PROT_READ, MAP_SHARED, fd,
		    case_off + 2 * PAGE_SZ, EINVAL);
	expect_mmap("no BO there", 1, PROT_READ, MAP_SHARED, fd,
		    no_bo_off(), ENOENT);
	expect_mmap("beyond 2^50 bytes", 1, PROT_READ, MAP_SHARED, fd,
		    (1ull << 50) + case_stride, EINVAL);
	expect_mmap("at page 2^48 - 1", 1, PROT_READ, MAP_SHARED, fd,
		    ((1ull << 48) - 1) * PAGE_SZ, EINVAL);
	expect_mmap("at page 2^48", 1, PROT_READ, MAP_SHARED, fd,
		    (1ull << 48) * PAGE_SZ, EINVAL);
	expect_mmap("at page 2^51", 1, PROT_READ, MAP_SHARED, fd,
		    (1ull << 51) * PAGE_SZ, EINVAL);
	/* the VM itself may refuse an offset this close to 2^64 */
	expect_errno2("at the last page",
		      mmap(NULL, PAGE_SZ, PROT_READ, MAP_SHARED, fd,
			   (off_t)-PAGE_SZ) == MAP_FAILED ? -1 : 0,
		      EINVAL, EOVERFLOW);
}

static void unpriv_mremap(void)
{
	uint32_t *map = case_map(4), *moved, *hole;

	munmap(map + 2 * WORDS, 2 * PAGE_SZ);
	expect_errno("mremap grow", mremap(map, 2 * PAGE_SZ, 4 * PAGE_SZ, 0) ==
		     MAP_FAILED ? -1 : 0, EFAULT);
	expect_errno("mremap grow, may move",
		     mremap(map, 2 * PAGE_SZ, 4 * PAGE_SZ, MREMAP_MAYMOVE) ==
		     MAP_FAILED ? -1 : 0, EFAULT);
	expect_errno("mremap duplicate",
		     mremap(map, 0, 2 * PAGE_SZ, MREMAP_MAYMOVE) ==
		     MAP_FAILED ? -1 : 0, EFAULT);
	expect_errno("mremap dontunmap",
		     mremap(map, 2 * PAGE_SZ, 2 * PAGE_SZ,
			    MREMAP_MAYMOVE | MREMAP_DONTUNMAP) ==
		     MAP_FAILED ? -1 : 0, EINVAL);
	expect_errno("mremap shrink", mremap(map, 2 * PAGE_SZ, PAGE_SZ, 0) ==
		     map ? 0 : -1, 0);
	hole = mmap(NULL, PAGE_SZ, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		die("mmap");
	moved = mremap(map, PAGE_SZ, PAGE_SZ, MREMAP_MAYMOVE | MREMAP_FIXED,
		       hole);
	expect_errno("mremap move", moved == hole ? 0 : -1, 0);
	if (moved == hole) {
		expect_word("moved mapping", moved, 0, 0x100);
		expect_touch("write moved mapping", moved, 1, 7, 0);
		expect_touch("old place", map, 0, 0, SIGSEGV);
		munmap(moved, PAGE_SZ);
	}
}

static void unpriv_mprotect(void)
{
	uint32_t *map = case_map(2);

	expect_errno("mprotect read", mprotect(map, 2 * PAGE_SZ, PROT_READ), 0);
	expect_touch("write read-only", map, 1, 1, SIGSEGV);
	expect_errno("mprotect none", mprotect(map, PAGE_SZ, PROT_NONE), 0);
	expect_touch("read no-access", map, 0, 0, SIGSEGV);
	expect_errno("mprotect read-write",
		     mprotect(map, 2 * PAGE_SZ, PROT_READ | PROT_WRITE), 0);
	expect_word("after mprotect", map, 0, 0x100);
	expect_touch("write again", map + WORDS, 1, 0x201, 0);
	expect_word("after write", map, 1, 0x201);
	munmap(map, 2 * PAGE_SZ);
}

/* A child of the case: 0 when @fn says all went as expected. */
static int in_grandchild(int (*fn)(uint32_t *map, int sync), uint32_t *map,
			 int sync)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (!pid)
		_exit(fn(map, sync));
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int child_rewrites(uint32_t *map, int sync)
{
	uint32_t v = 0;
	char c;

	/* wait until the parent let go of its BO, mapping and file */
	if (sync >= 0 && read(sync, &c, 1) != 1)
		return 3;
	if (touch_word(map, 0, &v) || v != 0x100)
		return 1;
	v = 0x300;
	return touch_word(map + WORDS, 1, &v) ? 2 : 0;
}

static int child_expects_no_map(uint32_t *map, int sync)
{
	uint32_t v;

	(void)sync;
	return touch_word(map, 0, &v) == SIGSEGV ? 0 : 1;
}

static void unpriv_fork(void)
{
	uint32_t *map = case_map(2), h;
	int sync[2], status = 0;
	pid_t pid;

	expect_errno("child uses the mapping",
		     in_grandchild(child_rewrites, map, -1) ? -1 : 0, 0);
	expect_word("child's write", map, 1, 0x300);
	/* the child's mapping keeps the BO alive without the parent's */
	if (pipe(sync))
		die("pipe");
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(sync[1]);
		close(fd);
		_exit(child_rewrites(map, sync[0]));
	}
	close(sync[0]);
	h = case_handle;
	expect_errno("destroy", ioctl(fd, GFXBUF_IOC_DESTROY, &h), 0);
	munmap(map, 2 * PAGE_SZ);
	close(fd);
	expect_errno("release the child", write(sync[1], "x", 1) == 1 ? 0 : -1, 0);
	close(sync[1]);
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	expect_errno("child outlives BO, mapping and file",
		     WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1, 0);
	fd = open("/dev/gfxbuf", O_RDWR);
	if (fd < 0)
		die("open /dev/gfxbuf");
	map = case_map(1);
	expect_errno("madvise dontfork", madvise(map, PAGE_SZ, MADV_DONTFORK), 0);
	expect_errno("child has no mapping",
		     in_grandchild(child_expects_no_map, map, -1) ? -1 : 0, 0);
	expect_errno("madvise wipeonfork", madvise(map, PAGE_SZ,
						   MADV_WIPEONFORK), EINVAL);
	munmap(map, PAGE_SZ);
}

static void unpriv_madvise(void)
{
	static const struct { int advice; const char *name; } other[] = {
		{ MADV_HUGEPAGE, "hugepage" }, { MADV_NOHUGEPAGE, "nohugepage" },
		{ MADV_COLLAPSE, "collapse" }, { MADV_WILLNEED, "willneed" },
		{ MADV_COLD, "cold" }, { MADV_PAGEOUT, "pageout" },
		{ MADV_FREE, "free" }, { MADV_MERGEABLE, "mergeable" },
		{ MADV_DONTDUMP, "dontdump" }, { MADV_DODUMP, "dodump" },
		{ MADV_POPULATE_READ, "populate_read" },
		{ MADV_POPULATE_WRITE, "populate_write" },
		{ MADV_DONTNEED_LOCKED, "dontneed_locked" },
		{ MADV_RANDOM, "random" }, { MADV_SEQUENTIAL, "sequential" },
	};
	uint32_t *map = case_map(4);
	unsigned int i;

	expect_errno("madvise dontneed", madvise(map, 4 * PAGE_SZ,
						 MADV_DONTNEED), EINVAL);
	/* punching a hole needs fallocate(), which the device has not */
	expect_refused("madvise remove", madvise(map, 4 * PAGE_SZ,
						 MADV_REMOVE));
	for (i = 0; i < ARRAY_SIZE(other); i++) {
		char what[64];

		snprintf(what, sizeof(what), "madvise %s", other[i].name);
		either(what, madvise(map, 4 * PAGE_SZ, other[i].advice));
	}
	for (i = 0; i < 4; i++)
		expect_word("after madvise", map, i, 0x100 + i);
	munmap(map, 4 * PAGE_SZ);
}

/* The mapping as a buffer for other syscalls, and what GUP makes of it. */
static void unpriv_io(void)
{
	uint32_t *map = case_map(2), buf[WORDS];
	struct iovec local, remote;
	int p[2], mem;

	if (pipe(p))
		die("pipe");
	expect_errno("write from mapping", write(p[1], map, PAGE_SZ) ==
		     PAGE_SZ ? 0 : -1, 0);
	expect_errno("read into mapping", read(p[0], map + WORDS, PAGE_SZ) ==
		     PAGE_SZ ? 0 : -1, 0);
	expect_word("piped", map, 1, 0x100);
	local = (struct iovec){ map, PAGE_SZ };
	either("vmsplice from mapping", vmsplice(p[1], &local, 1, 0));
	close(p[0]);
	close(p[1]);

	/* the local side is copy_to/from_user, the remote side GUP */
	memset(buf, 0x5a, sizeof(buf));
	buf[0] = 0x211;
	local = (struct iovec){ map + WORDS, PAGE_SZ };
	remote = (struct iovec){ buf, PAGE_SZ };
	expect_errno("process_vm_readv into mapping",
		     process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
		     PAGE_SZ ? 0 : -1, 0);
	expect_word("process_vm_readv", map, 1, 0x211);
	local = (struct iovec){ buf, PAGE_SZ };
	remote = (struct iovec){ map, PAGE_SZ };
	either("process_vm_readv from mapping (GUP)",
	       process_vm_readv(getpid(), &local, 1, &remote, 1, 0));
	either("process_vm_writev to mapping (GUP)",
	       process_vm_writev(getpid(), &local, 1, &remote, 1, 0));

	mem = open("/proc/self/mem", O_RDWR);
	expect_errno("open /proc/self/mem", mem < 0 ? -1 : 0, 0);
	either("read /proc/self/mem", pread(mem, buf, PAGE_SZ,
					    (off_t)(uintptr_t)map));
	either("write /proc/self/mem", pwrite(mem, buf, PAGE_SZ,
					      (off_t)(uintptr_t)map));
	close(mem);
	either("futex wake", syscall(SYS_futex, map, FUTEX_WAKE, 1, NULL,
				     NULL, 0));
	either("futex wait", syscall(SYS_futex, map, FUTEX_WAIT, 0, NULL,
				     NULL, 0));
	munmap(map, 2 * PAGE_SZ);
}

static void unpriv_munmap_half(void)
{
	uint32_t *map = case_map(4);

	expect_errno("munmap first half", munmap(map, 2 * PAGE_SZ), 0);
	expect_touch("unmapped half", map, 0, 0, SIGSEGV);
	expect_word("other half", map, 3, 0x103);
	munmap(map + 2 * WORDS, 2 * PAGE_SZ);
	map = expect_mmap("map again", 4, PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, case_off, 0);
	if (!map)
		return;
	expect_errno("munmap the middle", munmap(map + WORDS, 2 * PAGE_SZ), 0);
	expect_word("first page", map, 0, 0x100);
	expect_word("last page", map, 3, 0x103);
	munmap(map, PAGE_SZ);
	munmap(map + 3 * WORDS, PAGE_SZ);
}

static void unpriv_ioctls(void)
{
	struct gfxbuf_bo_info info = { .pages = 1, .pfns = (uintptr_t)&info };
	struct gfxbuf_wait w = { .fence = 1, .timeout_ms = 10 };
	struct gfxbuf_stats st;
	struct gfxbuf_submit sub;
	uint32_t h, bad = 12345;

	munmap(case_map(4), 4 * PAGE_SZ);
	h = case_handle;
	uapi_create_errors();
	expect_errno("create pad", ioctl(fd, GFXBUF_IOC_CREATE,
					 &(struct gfxbuf_create){ .pages = 1,
								  .pad = 1 }),
		     EINVAL);
	expect_errno("destroy 0", ioctl(fd, GFXBUF_IOC_DESTROY,
					&(uint32_t){ 0 }), ENOENT);
	expect_errno("destroy U32_MAX", ioctl(fd, GFXBUF_IOC_DESTROY,
					      &(uint32_t){ ~0u }), ENOENT);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_FILL, .dst = h };
	expect_errno("submit 0 pages", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), EINVAL);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_CHECKSUM, .src = h,
				      .src_page = ~0u, .pages = 2 };
	expect_errno("submit wrapping range", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub),
		     EINVAL);
	sub = (struct gfxbuf_submit){ .op = GFXBUF_OP_COPY, .src = h,
				      .dst = bad, .pages = 1 };
	expect_errno("submit bad dst", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), ENOENT);
	expect_errno("submit bad pointer", ioctl(fd, GFXBUF_IOC_SUBMIT, 16),
		     EFAULT);
	expect_errno("wait no job", ioctl(fd, GFXBUF_IOC_WAIT, &w), ENOENT);
	w.pad = 1;
	expect_errno("wait pad", ioctl(fd, GFXBUF_IOC_WAIT, &w), EINVAL);
	info.handle = h;
	expect_errno("bo_info needs CAP_SYS_ADMIN",
		     ioctl(fd, GFXBUF_IOC_BO_INFO, &info), EPERM);
	expect_errno("unplug needs CAP_SYS_ADMIN",
		     ioctl(fd, GFXBUF_IOC_UNPLUG), EPERM);
	expect_errno("stats", ioctl(fd, GFXBUF_IOC_STATS, &st), 0);
	expect_errno("stats bad pointer", ioctl(fd, GFXBUF_IOC_STATS, 8), EFAULT);
	expect_errno("create, wrong size",
		     ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 'G', 0x00, 8), &st),
		     ENOTTY);
	expect_errno("stats, wrong direction",
		     ioctl(fd, _IOC(_IOC_WRITE, 'G', 0x05, sizeof(st)), &st),
		     ENOTTY);
	uapi_close_with_jobs();
}

/*
 * The kernel log since the last call: the number of records that say a
 * warning fired, the kernel oopsed or the library caught a misuse; each
 * is shown.
 */
static int kmsg = -1;

static int kmsg_bad_records(void)
{
	static const char * const bad[] = {
		"WARNING:", "movable_pool: misuse", "BUG:", "Oops",
		"general protection", "Call Trace:",
	};
	char rec[8192], *msg;
	unsigned int i;
	int found = 0;
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before we read them */
		if (n <= 0)
			break;		/* EAGAIN: nothing newer */
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		for (i = 0; i < ARRAY_SIZE(bad); i++)
			if (strstr(msg, bad[i])) {
				say("uapi: kernel: %s", strtok(msg, "\n"));
				found++;
				break;
			}
	}
	return found;
}

/* Run @run as nobody on a file of its own, then check the kernel log. */
static void unprivileged(void (*run)(void))
{
	int status, bad;
	pid_t pid;

	if (kmsg < 0) {
		kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
			die("/dev/kmsg");
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(fd);
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			die("dropping root");
		/* as if it had never been root: /proc/self is its own */
		prctl(PR_SET_DUMPABLE, 1);
		fd = open("/dev/gfxbuf", O_RDWR);
		if (fd < 0)
			die("open /dev/gfxbuf as nobody");
		catch_touch_signals();
		uapi_failures = 0;
		run();
		fflush(NULL);
		_exit(uapi_failures > 99 ? 99 : uapi_failures);
	}
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		uapi_failures += WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		if (!WIFEXITED(status))
			say("uapi: nobody's child died of signal %d",
			    WTERMSIG(status));
	}
	bad = kmsg_bad_records();
	if (bad)
		say("uapi: %d kernel log records of a warning or misuse", bad);
	uapi_failures += bad;
}

/*
 * Named cases, run in order and reported as TAP ("ok 3 - uapi_wait"), as
 * kselftest does; later cases may use what earlier ones set up. A case
 * fails by counting in *fails, the counter its run shares.
 */
struct test_case {
	const char *name;
	void (*run)(void);
	int as_nobody;		/* run through unprivileged() */
};

#define CASE(fn)	{ #fn, fn, 0 }
#define NOBODY_CASE(fn)	{ #fn, fn, 1 }

static int run_cases(const struct test_case *cases, unsigned int n,
		     const int *fails)
{
	unsigned int i, failed = 0;
	int before;

	printf("TAP version 13\n1..%u\n", n);
	for (i = 0; i < n; i++) {
		before = *fails;
		if (cases[i].as_nobody)
			unprivileged(cases[i].run);
		else
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
		/* first: a warning fires once, and must be theirs if any */
		NOBODY_CASE(unpriv_mmap_private),
		NOBODY_CASE(unpriv_mmap_offsets),
		NOBODY_CASE(unpriv_mremap),
		NOBODY_CASE(unpriv_mprotect),
		NOBODY_CASE(unpriv_fork),
		NOBODY_CASE(unpriv_madvise),
		NOBODY_CASE(unpriv_io),
		NOBODY_CASE(unpriv_munmap_half),
		NOBODY_CASE(unpriv_ioctls),
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

/*
 * --unplug: hot-unplug (GFXBUF_IOC_UNPLUG) with faults in flight. The
 * driver frees every page and destroys its pool while files, BOs and
 * mappings stay; every access after that must end in SIGBUS, in the
 * driver's fault handler or, for a fault already inside the library,
 * there; mmap() must fail with ENODEV. Meanwhile the VM moves the pages:
 * compaction, and (booted with movablecore=) ZONE_MOVABLE's blocks going
 * offline and online again, which moves every pool page in them.
 */
#define UNPLUG_THREADS	4
#define UNPLUG_PAGES	32
#define MAX_BLOCKS	64

static struct {
	unsigned int rounds, sigbus, early, late, data_errors, mmap_errors;
	unsigned long remaps, enodev, offlined;
	uint64_t migrated;
	int movable;
} up;
static char block_state[MAX_BLOCKS][300];	/* ZONE_MOVABLE's blocks */
static unsigned int nblocks;
static int unplug_failures;
static int unplugging;		/* set just before the ioctl */
static cpu_set_t all_cpus;	/* the test's own affinity */

struct faulter {
	pthread_t tid;
	uint32_t *map;		/* its BO, mapped before the unplug */
	uint64_t offset;
	unsigned long remaps, enodev;
	unsigned int data_errors, mmap_errors;
	int sig;		/* what ended it: SIGBUS, or 0 if stopped */
	int early;		/* the signal came before the unplug */
};

/* Write then read word 0 of every page: 0 or the signal it raised. */
static int faulter_pass(struct faulter *t, uint32_t *map, uint32_t gen)
{
	uint32_t v;
	unsigned int p;
	int sig;

	for (p = 0; p < UNPLUG_PAGES; p++) {
		v = gen ^ p;
		sig = touch_word(map + p * WORDS, 1, &v);
		if (!sig)
			sig = touch_word(map + p * WORDS, 0, &v);
		if (sig)
			return sig;
		if (v != (gen ^ p))
			t->data_errors++;
	}
	return 0;
}

/*
 * Fault over the BO until a signal ends it: through the mapping made
 * before the unplug (the VM zaps its pages as it moves them), and through
 * a fresh mapping each round, every page of which faults into the
 * library. No new mapping once the unplug has begun: those that race it
 * are the point, later ones unplug_stops_new_work() checks.
 */
static void *faulter_thread(void *arg)
{
	struct faulter *t = arg;
	uint32_t gen = 0, *fresh;
	int sig = 0;

	while (!sig && !__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		sig = faulter_pass(t, t->map, ++gen);
		if (sig || __atomic_load_n(&unplugging, __ATOMIC_RELAXED))
			continue;
		fresh = mmap(NULL, UNPLUG_PAGES * PAGE_SZ,
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd, t->offset);
		if (fresh == MAP_FAILED) {
			if (errno == ENODEV)
				t->enodev++;
			else
				t->mmap_errors++;
			continue;
		}
		sig = faulter_pass(t, fresh, ++gen);
		munmap(fresh, UNPLUG_PAGES * PAGE_SZ);
		t->remaps++;
	}
	t->early = sig && !__atomic_load_n(&unplugging, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t->sig, sig, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The state files of ZONE_MOVABLE's memory blocks, all online now. */
static void find_movable_blocks(void)
{
	static const char root[] = "/sys/devices/system/memory";
	char path[300], buf[64] = "";
	struct dirent *de;
	DIR *d = opendir(root);
	int f;

	for (de = d ? readdir(d) : NULL; de && nblocks < MAX_BLOCKS;
	     de = readdir(d)) {
		if (strncmp(de->d_name, "memory", 6) || !isdigit(de->d_name[6]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/valid_zones", root,
			 de->d_name);
		f = open(path, O_RDONLY);
		if (f < 0)
			continue;
		if (read(f, buf, sizeof(buf) - 1) <= 0)
			buf[0] = 0;
		close(f);
		if (!strncmp(buf, "Movable", 7))
			snprintf(block_state[nblocks++], sizeof(block_state[0]),
				 "%s/%s/state", root, de->d_name);
	}
	if (d)
		closedir(d);
	say("unplug: %u memory blocks in ZONE_MOVABLE", nblocks);
}

/* Move pool pages under the faults, over and over. */
static void *churn_thread(void *arg)
{
	unsigned int i;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		write_file("/proc/sys/vm/compact_memory", "1");
		for (i = 0; i < nblocks; i++) {
			if (!write_file(block_state[i], "offline"))
				__atomic_add_fetch(&up.offlined, 1,
						   __ATOMIC_RELAXED);
			write_file(block_state[i], "online_movable");
		}
	}
	return NULL;
}

/*
 * The unplugging thread: real-time on CPU 0, so that its wakeup preempts
 * a faulting thread there (with preempt=full) anywhere, also between
 * the driver's lookup and the library. Best effort.
 */
static void unplugger_priority(int rt)
{
	struct sched_param sp = { .sched_priority = rt };
	cpu_set_t cpu0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu_set_t), rt ? &cpu0 : &all_cpus);
	pthread_setschedparam(pthread_self(), rt ? SCHED_FIFO : SCHED_OTHER,
			      &sp);
}

/* One round: map, fault from every thread, unplug mid-way, check. */
static void unplug_round(void)
{
	struct faulter t[UNPLUG_THREADS] = {};
	struct gfxbuf_stats st;
	pthread_t ct;
	unsigned int i;
	double deadline;
	int done;

	fd = open("/dev/gfxbuf", O_RDWR);
	if (fd < 0)
		die("open /dev/gfxbuf");
	for (i = 0; i < UNPLUG_THREADS; i++) {
		struct gfxbuf_create c = { .pages = UNPLUG_PAGES };

		if (ioctl(fd, GFXBUF_IOC_CREATE, &c))
			die("GFXBUF_IOC_CREATE");
		t[i].offset = c.mmap_offset;
		t[i].map = mmap(NULL, UNPLUG_PAGES * PAGE_SZ,
				PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				c.mmap_offset);
		if (t[i].map == MAP_FAILED)
			die("mmap");
	}
	__atomic_store_n(&stop, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&unplugging, 0, __ATOMIC_SEQ_CST);
	pthread_create(&ct, NULL, churn_thread, NULL);
	for (i = 0; i < UNPLUG_THREADS; i++)
		pthread_create(&t[i].tid, NULL, faulter_thread, &t[i]);

	unplugger_priority(1);
	/*
	 * Until the VM has moved pages of the BOs under the faults once (an
	 * offline takes seconds here), wait for it; then unplug somewhere
	 * else in the threads' loops each round.
	 */
	deadline = now() + 20;
	do {
		usleep(20000);
		if (ioctl(fd, GFXBUF_IOC_STATS, &st))
			die("GFXBUF_IOC_STATS");
	} while (st.movable && !up.migrated && !st.migrated &&
		 now() < deadline);
	up.movable = st.movable;
	usleep(rnd() % 200000);
	if (!ioctl(fd, GFXBUF_IOC_STATS, &st))
		up.migrated += st.migrated;
	__atomic_store_n(&unplugging, 1, __ATOMIC_SEQ_CST);
	if (ioctl(fd, GFXBUF_IOC_UNPLUG)) {
		unplug_failures++;
		say("unplug: %s", strerror(errno));
	}
	unplugger_priority(0);

	/* every thread must run into SIGBUS soon */
	deadline = now() + 60;
	do {
		usleep(10000);
		for (i = 0, done = 0; i < UNPLUG_THREADS; i++)
			done += __atomic_load_n(&t[i].sig, __ATOMIC_RELAXED) != 0;
	} while (done < UNPLUG_THREADS && now() < deadline);
	__atomic_store_n(&stop, 1, __ATOMIC_SEQ_CST);
	pthread_join(ct, NULL);
	for (i = 0; i < UNPLUG_THREADS; i++) {
		pthread_join(t[i].tid, NULL);
		up.sigbus += t[i].sig == SIGBUS;
		up.early += t[i].early;
		up.late += !t[i].sig;
		up.data_errors += t[i].data_errors;
		up.mmap_errors += t[i].mmap_errors;
		up.remaps += t[i].remaps;
		up.enodev += t[i].enodev;
		if (t[i].sig != SIGBUS || t[i].early)
			say("unplug: thread %u ended with signal %d%s", i,
			    t[i].sig, t[i].early ? " before the unplug" : "");
		munmap(t[i].map, UNPLUG_PAGES * PAGE_SZ);
	}
	close(fd);
	up.rounds++;
}

/* After the unplug: no new work, the old mappings SIGBUS, jobs done. */
static void unplug_stops_new_work(void)
{
	struct gfxbuf_create a = { .pages = 64 }, b = { .pages = 64 };
	struct gfxbuf_submit sub = { .op = GFXBUF_OP_CHECKSUM, .pages = 64 };
	struct gfxbuf_wait w = { .timeout_ms = 60000 };
	uint64_t fences[16], zero = GFXBUF_CSUM_INIT;
	uint32_t *ma, *mb, *m2;
	struct gfxbuf_stats st;
	unsigned int i;
	int fd2;

	fd = open("/dev/gfxbuf", O_RDWR);
	fd2 = open("/dev/gfxbuf", O_RDWR);
	if (fd < 0 || fd2 < 0)
		die("open /dev/gfxbuf");
	uapi_failures = 0;
	expect_errno("create", ioctl(fd, GFXBUF_IOC_CREATE, &a), 0);
	expect_errno("create", ioctl(fd, GFXBUF_IOC_CREATE, &b), 0);
	ma = expect_mmap("mmap", 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 a.mmap_offset, 0);
	mb = expect_mmap("mmap", 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 b.mmap_offset, 0);
	if (!ma || !mb)
		die("mmap");
	for (i = 0; i < 64; i++)
		ma[i * WORDS] = i;
	/* jobs queued when it comes: the unplug waits for them */
	sub.src = b.handle;
	for (i = 0; i < 16; i++) {
		expect_errno("submit", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), 0);
		fences[i] = sub.fence;
	}
	/* another file is unplugged too */
	a.handle = 0;
	expect_errno("create", ioctl(fd2, GFXBUF_IOC_CREATE, &a), 0);
	m2 = expect_mmap("mmap", 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
			 a.mmap_offset, 0);
	if (!m2)
		die("mmap");
	expect_touch("write", m2, 1, 5, 0);

	expect_errno("unplug", ioctl(fd, GFXBUF_IOC_UNPLUG), 0);
	expect_errno("create after", ioctl(fd, GFXBUF_IOC_CREATE, &b), ENODEV);
	expect_errno("submit after", ioctl(fd, GFXBUF_IOC_SUBMIT, &sub), ENODEV);
	expect_errno("stats after", ioctl(fd, GFXBUF_IOC_STATS, &st), ENODEV);
	expect_mmap("mmap after", 64, PROT_READ, MAP_SHARED, fd,
		    b.mmap_offset, ENODEV);
	expect_touch("old mapping", ma, 0, 0, SIGBUS);
	expect_touch("old mapping, write", mb + 63 * WORDS, 1, 1, SIGBUS);
	expect_touch("other file's mapping", m2, 0, 0, SIGBUS);
	expect_errno("other file's create", ioctl(fd2, GFXBUF_IOC_CREATE, &a),
		     ENODEV);
	/* the jobs ran on the BO's pages (zeroes) before they went */
	for (i = 0; i < 64 * WORDS; i++)
		zero = gfxbuf_csum(zero, 0);
	for (i = 0; i < 16; i++) {
		w.fence = fences[i];
		w.result = 0;
		expect_errno("wait", ioctl(fd, GFXBUF_IOC_WAIT, &w), 0);
		if (w.result != zero) {
			uapi_failures++;
			say("unplug: job %u: checksum %#llx, want %#llx", i,
			    (unsigned long long)w.result,
			    (unsigned long long)zero);
		}
	}
	expect_errno("destroy", ioctl(fd, GFXBUF_IOC_DESTROY, &b.handle), 0);
	expect_errno("destroy twice", ioctl(fd, GFXBUF_IOC_DESTROY, &b.handle),
		     ENOENT);
	expect_errno("unplug again", ioctl(fd, GFXBUF_IOC_UNPLUG), 0);
	munmap(ma, 64 * PAGE_SZ);
	munmap(mb, 64 * PAGE_SZ);
	munmap(m2, 64 * PAGE_SZ);
	close(fd);
	close(fd2);
	unplug_failures += uapi_failures;
}

/* faults in flight, round after round */
static void unplug_faults_in_flight(void)
{
	unsigned int i;

	sched_getaffinity(0, sizeof(all_cpus), &all_cpus);
	find_movable_blocks();
	for (i = 0; i < opt.rounds; i++)
		unplug_round();
	for (i = 0; i < nblocks; i++)
		write_file(block_state[i], "online_movable");
	say("unplug: %u rounds, %u threads ended in SIGBUS", up.rounds,
	    up.sigbus);
	say("unplug: %lu remaps, %lu mmap ENODEV, %llu pages migrated, %lu blocks offlined",
	    up.remaps, up.enodev, (unsigned long long)up.migrated,
	    up.offlined);
	/* with movable pages, the VM must have moved some under the faults */
	if (up.sigbus != up.rounds * UNPLUG_THREADS || up.early ||
	    up.data_errors || up.mmap_errors || !up.remaps ||
	    (up.movable && !up.migrated))
		unplug_failures++;
}

/* a file opened afterwards has a device again */
static void unplug_then_reopen(void)
{
	struct gfxbuf_create c = { .pages = 4 };
	uint32_t *map;

	fd = open("/dev/gfxbuf", O_RDWR);
	if (fd < 0)
		die("open /dev/gfxbuf");
	uapi_failures = 0;
	expect_errno("create", ioctl(fd, GFXBUF_IOC_CREATE, &c), 0);
	map = expect_mmap("mmap", 4, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			  c.mmap_offset, 0);
	if (map) {
		expect_touch("write", map + 3 * WORDS, 1, 9, 0);
		expect_word("read", map, 3, 9);
		munmap(map, 4 * PAGE_SZ);
	}
	close(fd);
	unplug_failures += uapi_failures;
}

static int unplug_test(void)
{
	static const struct test_case cases[] = {
		CASE(unplug_faults_in_flight),
		CASE(unplug_stops_new_work),
		CASE(unplug_then_reopen),
	};

	double t0 = now();

	close(fd);
	catch_touch_signals();
	run_cases(cases, ARRAY_SIZE(cases), &unplug_failures);
	printf("GFXBUF_RESULT status=%s mode=unplug failures=%d seconds=%.1f",
	       unplug_failures ? "fail" : "ok", unplug_failures, now() - t0);
	printf(" rounds=%u", up.rounds);
	printf(" sigbus=%u early=%u late=%u data_errors=%u mmap_errors=%u",
	       up.sigbus, up.early, up.late, up.data_errors, up.mmap_errors);
	printf(" remaps=%lu mmap_enodev=%lu migrated=%llu offlined=%lu\n",
	       up.remaps, up.enodev, (unsigned long long)up.migrated,
	       up.offlined);
	return !!unplug_failures;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: gfxbuf_test [--alloc-mib N] [--keep-pct P] [--bo-pages K]\n"
		"                   [--tries T] [--seed S] [--no-driver] [--expect-moved]\n"
		"                   [--offline]\n"
		"       gfxbuf_test --uapi\n"
		"       gfxbuf_test --unplug [--rounds R]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "alloc-mib", 1, 0, 'a' }, { "keep-pct", 1, 0, 'k' },
		{ "bo-pages", 1, 0, 'b' }, { "tries", 1, 0, 't' },
		{ "seed", 1, 0, 's' }, { "no-driver", 0, 0, 'n' },
		{ "expect-moved", 0, 0, 'e' }, { "uapi", 0, 0, 'u' },
		{ "offline", 0, 0, 'o' }, { "unplug", 0, 0, 'p' },
		{ "rounds", 1, 0, 'r' },
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
		case 'p':
			opt.unplug = 1;
			break;
		case 'r':
			opt.rounds = atoi(optarg);
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
	if (opt.unplug)
		return unplug_test();
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
