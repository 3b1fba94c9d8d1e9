// SPDX-License-Identifier: GPL-2.0
/*
 * gfxbuf_stress: everything at once, for --duration seconds, on every CPU
 * of the guest, with every byte checked as it goes.
 *
 *  - a ballast thread keeps --ballast-mib of small BOs with random holes,
 *    and churns them: create, fill by engine job, check by engine checksum
 *    or through a fresh mmap, destroy;
 *  - a churn thread writes and destroys 2 MiB BOs, so releases race
 *    migrations;
 *  - user threads own small BOs they rewrite through mmap, move with
 *    mremap(), cut with a partial munmap(), and hand to fork()ed children,
 *    which keep checking the mapping after the parent destroyed the BO;
 *  - two engine threads keep large FILL, COPY and CHECKSUM jobs queued, so
 *    pages stay pinned while the VM tries to move them, and an info thread
 *    reads those BOs' page frames (under the BO lock) over and over;
 *  - a compaction thread makes bounded huge page requests and writes
 *    compact_memory; a THP thread faults in anonymous huge pages (async
 *    compaction); an offline thread cycles ZONE_MOVABLE memory blocks
 *    (boot with movablecore=) offline and online;
 *  - an rmmod thread tries to unload gfxbuf and movable_pool, which must
 *    be refused while all this runs.
 *
 * The last line on stdout is "STRESS_RESULT key=value ...": operations per
 * kind, the pool's counters, and mismatches. Exit status 0 when every byte
 * and every checksum was right and no step failed unexpectedly; which
 * contended paths must have been taken is the harness's call.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../../../samples/movable_pool/gfxbuf_uapi.h"

#define GUEST_NAME	"gfxbuf_stress"
#define GUEST_RESULT	"STRESS_RESULT"
#include "guest.h"

#define WORDS		(PAGE_SZ / 4)
#define MAX_USER_BOS	16
#define MAX_CHILDREN	4
#define ENGINE_PAGES	1024
#define BALLAST_PAGES	8
#define CHURN_PAGES	512

/* Shared with fork()ed children: they count into the same place. */
struct counters {
	unsigned long creates, destroys, enomem, jobs, job_pages;
	unsigned long pages_verified, mismatches, failures;
	unsigned long mmaps, mremaps, partial_munmaps, forks;
	unsigned long compactions, huge_requests, huge_got, thp_rounds;
	unsigned long offline_ok, offline_busy, online;
	unsigned long rmmod_refused, pool_opens, infos;
};

static struct counters *cnt;

static unsigned long count(unsigned long *c, unsigned long n)
{
	return __atomic_add_fetch(c, n, __ATOMIC_RELAXED);
}

static struct {
	unsigned int duration, ballast_mib, user_threads, seed, inject;
} opt = { 60, 0, 2, 1, 0 };
static int fd = -1;
static int ready;	/* the ballast is in place: the clock runs */
static int huge_held;	/* the compaction thread holds the free 2 MiB blocks */
static int stop;
static struct bo *engine_bo[4];	/* two per engine thread, made by main() */

/* A BO and what it must hold: word w of page p is pattern(seed + gen[p]). */
struct bo {
	uint32_t handle, npages, seed;
	uint64_t offset;
	uint32_t *map;
	uint32_t *gen;
};

static int stopping(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/* Threads that take memory away wait until the ballast is in place. */
static int wait_ready(void)
{
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) && !stopping())
		usleep(100000);
	return !stopping();
}

/* An unexpected errno: count it, and say what it was (a few times). */
static void failed(const char *what)
{
	if (count(&cnt->failures, 1) <= 10)
		say("%s: %s", what, strerror(errno));
}

/* ENOMEM is what a full guest or injection gives: counted, not a failure. */
static void failed_unless_enomem(const char *what)
{
	if (errno == ENOMEM)
		count(&cnt->enomem, 1);
	else
		failed(what);
}

static uint32_t expect_word(struct bo *b, uint32_t page, uint32_t w)
{
	return gfxbuf_pattern(b->seed + b->gen[page], page, w);
}

static uint64_t expect_csum(struct bo *b)
{
	uint64_t h = GFXBUF_CSUM_INIT;
	uint32_t p, w;

	for (p = 0; p < b->npages; p++)
		for (w = 0; w < WORDS; w++)
			h = gfxbuf_csum(h, expect_word(b, p, w));
	return h;
}

/* Compare page @p as seen at @base; no stdio, so children may call it. */
static void verify_page(struct bo *b, const uint32_t *base, uint32_t p)
{
	const uint32_t *q = base + (size_t)p * WORDS;
	uint32_t w;

	for (w = 0; w < WORDS && q[w] == expect_word(b, p, w); w++)
		;
	if (w < WORDS && count(&cnt->mismatches, 1) <= 10) {
		char msg[160];
		int n = snprintf(msg, sizeof(msg), "[" GUEST_NAME
				 "] MISMATCH bo %u page %u word %u: %08x, want %08x\n",
				 b->handle, p, w, q[w], expect_word(b, p, w));
		ssize_t said = write(2, msg, n);	/* the count matters, not this */

		(void)said;
	}
	count(&cnt->pages_verified, 1);
}

static void write_page(struct bo *b, uint32_t *base, uint32_t p)
{
	uint32_t *q = base + (size_t)p * WORDS;
	uint32_t w;

	b->gen[p]++;
	for (w = 0; w < WORDS; w++)
		q[w] = expect_word(b, p, w);
}

static struct bo *bo_create(uint32_t npages)
{
	struct gfxbuf_create c = { .pages = npages };
	struct bo *b;

	if (ioctl(fd, GFXBUF_IOC_CREATE, &c)) {
		failed_unless_enomem("GFXBUF_IOC_CREATE");
		return NULL;
	}
	count(&cnt->creates, 1);
	b = calloc(1, sizeof(*b));
	if (b)
		b->gen = calloc(npages, sizeof(*b->gen));
	if (!b || !b->gen)
		die("calloc");
	b->handle = c.handle;
	b->npages = npages;
	b->offset = c.mmap_offset;
	return b;	/* all zero: seed 0, gen 0 is not the pattern */
}

static void bo_unmap(struct bo *b)
{
	if (b->map && munmap(b->map, (size_t)b->npages * PAGE_SZ))
		failed("munmap");
	b->map = NULL;
}

static void bo_destroy(struct bo *b)
{
	bo_unmap(b);
	if (ioctl(fd, GFXBUF_IOC_DESTROY, &b->handle))
		failed("GFXBUF_IOC_DESTROY");
	else
		count(&cnt->destroys, 1);
	free(b->gen);
	free(b);
}

static int bo_map(struct bo *b)
{
	void *p = mmap(NULL, (size_t)b->npages * PAGE_SZ,
		       PROT_READ | PROT_WRITE, MAP_SHARED, fd, b->offset);

	if (p == MAP_FAILED) {
		failed_unless_enomem("mmap");
		return -1;
	}
	count(&cnt->mmaps, 1);
	b->map = p;
	return 0;
}

/* Queue a job over whole BOs; 0 when it could not be queued (counted). */
static uint64_t submit(uint32_t op, struct bo *src, struct bo *dst,
		       uint32_t seed)
{
	struct gfxbuf_submit s = {
		.op = op, .seed = seed,
		.pages = (dst ? dst : src)->npages,
		.src = src ? src->handle : 0, .dst = dst ? dst->handle : 0,
	};

	if (ioctl(fd, GFXBUF_IOC_SUBMIT, &s)) {
		failed_unless_enomem("GFXBUF_IOC_SUBMIT");
		return 0;
	}
	count(&cnt->jobs, 1);
	count(&cnt->job_pages, s.pages);
	if (dst) {
		/* what a FILL or COPY job leaves behind, once it has run */
		if (op == GFXBUF_OP_FILL) {
			dst->seed = seed;
			memset(dst->gen, 0, dst->npages * sizeof(*dst->gen));
		} else {
			dst->seed = src->seed;
			memcpy(dst->gen, src->gen, dst->npages * sizeof(*dst->gen));
		}
	}
	return s.fence;
}

static int wait_fence(uint64_t fence, uint64_t *result)
{
	struct gfxbuf_wait w = { .fence = fence, .timeout_ms = 120000 };

	if (ioctl(fd, GFXBUF_IOC_WAIT, &w)) {
		failed("GFXBUF_IOC_WAIT");
		return -1;
	}
	if (result)
		*result = w.result;
	return 0;
}

/* Check @b with an engine CHECKSUM job: the engine pins every page. */
static void engine_verify(struct bo *b)
{
	uint64_t fence = submit(GFXBUF_OP_CHECKSUM, b, NULL, 0), h;

	if (!fence || wait_fence(fence, &h))
		return;
	if (h != expect_csum(b) && count(&cnt->mismatches, 1) <= 10)
		say("MISMATCH bo %u: engine checksum %016llx", b->handle,
		    (unsigned long long)h);
	count(&cnt->pages_verified, b->npages);
}

/* A new BO holding its pattern, filled by the engine; NULL if none. */
static struct bo *bo_filled(uint32_t npages, uint32_t seed)
{
	struct bo *b = bo_create(npages);
	uint64_t fence;

	if (!b)
		return NULL;
	fence = submit(GFXBUF_OP_FILL, NULL, b, seed);
	if (!fence || wait_fence(fence, NULL)) {
		bo_destroy(b);
		return NULL;
	}
	return b;
}

/* Write all of @b through a mapping of its own; false if it could not. */
static int bo_write_all(struct bo *b)
{
	uint32_t p;

	if (bo_map(b))
		return 0;
	for (p = 0; p < b->npages; p++)
		write_page(b, b->map, p);
	bo_unmap(b);
	return 1;
}

/* A new BO written through a mapping of its own; NULL if none. */
static struct bo *bo_written(uint32_t npages)
{
	struct bo *b = bo_create(npages);

	if (b && !bo_write_all(b)) {
		bo_destroy(b);
		return NULL;
	}
	return b;
}

/*
 * The ballast: small BOs over --ballast-mib, every other one destroyed, so
 * the survivors and the holes spread through memory, then churned. The
 * engine serves every file in order, so the CPU fills them; an engine
 * checksum now and then pins a few.
 */
static void *ballast_thread(void *arg)
{
	unsigned int n = opt.ballast_mib * 256 / BALLAST_PAGES, i;
	struct bo **slot = calloc(n, sizeof(*slot));
	unsigned int seed = opt.seed * 3 + 1;

	(void)arg;
	if (!slot)
		die("calloc");
	for (i = 0; i < n && !stopping(); i++)
		slot[i] = bo_create(BALLAST_PAGES);
	for (i = 0; i < n; i++) {
		if (slot[i] && (rand_r(&seed) % 2 || !bo_write_all(slot[i]))) {
			bo_destroy(slot[i]);
			slot[i] = NULL;
		}
	}
	say("ballast: %u slots of %u pages, half of them kept", n, BALLAST_PAGES);
	__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	while (!stopping()) {
		struct bo **s = &slot[rand_r(&seed) % n];
		unsigned int op = rand_r(&seed) % 8;
		uint32_t p;

		if (!*s) {
			*s = bo_written(BALLAST_PAGES);
		} else if (op < 3) {
			bo_destroy(*s);
			*s = NULL;
		} else if (op == 3) {
			engine_verify(*s);
		} else if (!bo_map(*s)) {
			/* a fresh mapping faults in wherever the pages are now */
			for (p = 0; p < (*s)->npages; p++)
				verify_page(*s, (*s)->map, p);
			write_page(*s, (*s)->map, rand_r(&seed) % (*s)->npages);
			bo_unmap(*s);
		}
	}
	for (i = 0; i < n; i++)
		if (slot[i])
			bo_destroy(slot[i]);
	free(slot);
	return NULL;
}

/* The child's side of a fork: check and rewrite what it inherited. */
static void child_run(struct bo *b, unsigned int seed)
{
	uint32_t p, round;

	for (round = 0; round < 50; round++) {
		for (p = 0; p < b->npages; p++)
			verify_page(b, b->map, p);
		write_page(b, b->map, rand_r(&seed) % b->npages);
		usleep(2000);
	}
	_exit(0);
}

/*
 * Hand @b to a child that keeps the mapping, then drop the handle and our
 * own mapping: the child's VMA alone keeps the pages alive and movable.
 * @kids holds the thread's children; each thread waits for its own.
 */
static void fork_off(struct bo *b, unsigned int *seed, pid_t *kids)
{
	int i;

	for (i = 0; i < MAX_CHILDREN && kids[i]; i++)
		;
	if (i < MAX_CHILDREN) {
		kids[i] = fork();
		if (kids[i] < 0) {
			failed("fork");
			kids[i] = 0;
		} else if (kids[i] == 0) {
			child_run(b, *seed);
		} else {
			count(&cnt->forks, 1);
		}
	}
	bo_destroy(b);
}

static void reap(pid_t *kids, int block)
{
	int i, status;

	for (i = 0; i < MAX_CHILDREN; i++) {
		if (!kids[i] ||
		    waitpid(kids[i], &status, block ? 0 : WNOHANG) != kids[i])
			continue;
		kids[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed("child");
	}
}

/* Move the mapping elsewhere; the pages must follow. */
static void move_map(struct bo *b)
{
	size_t len = (size_t)b->npages * PAGE_SZ;
	void *to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *p;

	if (to == MAP_FAILED) {
		failed("mmap reserve");
		return;
	}
	p = mremap(b->map, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
	if (p == MAP_FAILED) {
		failed("mremap");
		munmap(to, len);
		return;
	}
	count(&cnt->mremaps, 1);
	b->map = p;
}

/* Unmap the middle page: the VMA splits; both halves still work. */
static void cut_map(struct bo *b)
{
	uint32_t p, mid = b->npages / 2;

	if (b->npages < 3)
		return;
	if (munmap(b->map + (size_t)mid * WORDS, PAGE_SZ)) {
		failed("partial munmap");
		return;
	}
	count(&cnt->partial_munmaps, 1);
	for (p = 0; p < b->npages; p++)
		if (p != mid)
			verify_page(b, b->map, p);
	munmap(b->map, (size_t)mid * PAGE_SZ);
	munmap(b->map + (size_t)(mid + 1) * WORDS,
	       (size_t)(b->npages - mid - 1) * PAGE_SZ);
	b->map = NULL;
	if (bo_map(b))
		return;
	for (p = 0; p < b->npages; p++)
		verify_page(b, b->map, p);
}

/* A file of our own for a moment: a pool created and destroyed. */
static void reopen(void)
{
	int f = open("/dev/gfxbuf", O_RDWR);

	if (f < 0) {
		failed_unless_enomem("open");
		return;
	}
	count(&cnt->pool_opens, 1);
	close(f);
}

static void *user_thread(void *arg)
{
	unsigned int seed = opt.seed * 7 + (uintptr_t)arg;
	struct bo *bos[MAX_USER_BOS] = { NULL };
	pid_t kids[MAX_CHILDREN] = { 0 };
	int i;

	wait_ready();	/* the ballast goes faster alone */
	while (!stopping()) {
		struct bo **s = &bos[rand_r(&seed) % MAX_USER_BOS];
		unsigned int op = rand_r(&seed) % 16;
		uint32_t p;

		reap(kids, 0);
		if (!*s) {
			*s = bo_written(1 + rand_r(&seed) % 32);
			continue;
		}
		if (!(*s)->map && bo_map(*s))
			continue;
		if (op == 0) {
			fork_off(*s, &seed, kids);
			*s = NULL;
		} else if (op == 1) {
			bo_destroy(*s);
			*s = NULL;
		} else if (op == 2) {
			move_map(*s);
		} else if (op == 3) {
			cut_map(*s);
		} else if (op == 4) {
			engine_verify(*s);
		} else if (op == 5) {
			reopen();
		} else {
			p = rand_r(&seed) % (*s)->npages;
			verify_page(*s, (*s)->map, p);
			write_page(*s, (*s)->map, p);
		}
	}
	for (i = 0; i < MAX_USER_BOS; i++)
		if (bos[i])
			bo_destroy(bos[i]);
	reap(kids, 1);
	return NULL;
}

/*
 * Large BOs written and destroyed at once, over and over: a release walks
 * hundreds of pages while compaction and offlining hold some of them, so
 * pages get freed while isolated and routines find their page gone.
 */
static void *churn_thread(void *arg)
{
	struct bo *b;

	(void)arg;
	while (wait_ready()) {
		b = bo_written(CHURN_PAGES);
		if (!b)
			continue;
		if (!bo_map(b))
			verify_page(b, b->map, b->npages - 1);
		bo_destroy(b);
	}
	return NULL;
}

/* Long jobs, several queued: their pages stay pinned while the VM looks. */
static void *engine_thread(void *arg)
{
	unsigned int seed = opt.seed * 11 + (uintptr_t)arg;
	struct bo *a = engine_bo[(uintptr_t)arg % 2 * 2];
	struct bo *b = engine_bo[(uintptr_t)arg % 2 * 2 + 1];
	uint64_t fill, copy, sum, h;

	wait_ready();	/* the ballast goes faster alone */
	/*
	 * Jobs run in submission order and submit() books what each will
	 * leave behind, so a job that could not be queued changes nothing.
	 */
	while (!stopping()) {
		fill = submit(GFXBUF_OP_FILL, NULL, a, rand_r(&seed));
		copy = submit(GFXBUF_OP_COPY, a, b, 0);
		sum = submit(GFXBUF_OP_CHECKSUM, b, NULL, 0);
		if (fill)
			wait_fence(fill, NULL);
		if (copy)
			wait_fence(copy, NULL);
		if (!sum || wait_fence(sum, &h))
			continue;
		if (h != expect_csum(b) && count(&cnt->mismatches, 1) <= 10)
			say("MISMATCH: engine copy checksum %016llx",
			    (unsigned long long)h);
		count(&cnt->pages_verified, b->npages);
	}
	return NULL;
}

/*
 * Read the engine BOs' page frames, over and over: the driver takes the
 * BO's lock for that, so an async migration of one of their pages finds
 * it taken now and then, and its routine must return -EAGAIN.
 */
static void *info_thread(void *arg)
{
	static uint64_t pfns[ENGINE_PAGES];
	unsigned int seed = opt.seed * 13;
	struct gfxbuf_bo_info info;

	(void)arg;
	memset(pfns, 0, sizeof(pfns));	/* fewer page faults in the ioctl */
	wait_ready();
	while (!stopping()) {
		info.handle = engine_bo[rand_r(&seed) % 4]->handle;
		info.pages = ENGINE_PAGES;
		info.pfns = (uintptr_t)pfns;
		if (!ioctl(fd, GFXBUF_IOC_BO_INFO, &info))
			count(&cnt->infos, 1);
		/* or a fault on @pfns that needed an allocation we failed */
		else if (opt.inject && errno == EFAULT)
			count(&cnt->enomem, 1);
		else
			failed_unless_enomem("GFXBUF_IOC_BO_INFO");
	}
	return NULL;
}

/*
 * Bounded huge page requests (direct compaction, async first) held for
 * a second, and every fourth round compact_memory (the whole node,
 * synchronously).
 */
static void *compact_thread(void *arg)
{
	char buf[32];
	long want, got;

	(void)arg;
	while (wait_ready()) {
		if (cnt->huge_requests % 4 == 0) {
			if (write_file("/proc/sys/vm/compact_memory", "1"))
				failed("compact_memory");
			else
				count(&cnt->compactions, 1);
		}
		/*
		 * All that is free but a margin: more than the free 2 MiB
		 * blocks hold, so compaction must run, yet nobody runs out
		 */
		want = (read_meminfo("MemFree") / 1024 - 256) / HUGE_MIB;
		want = want < 0 ? 0 : want;
		snprintf(buf, sizeof(buf), "%ld", want);
		write_file("/proc/sys/vm/nr_hugepages", buf);
		got = read_long("/proc/sys/vm/nr_hugepages");
		/* held for a moment: THP faults then must compact too */
		__atomic_store_n(&huge_held, 1, __ATOMIC_RELEASE);
		usleep(1000000);
		__atomic_store_n(&huge_held, 0, __ATOMIC_RELEASE);
		write_file("/proc/sys/vm/nr_hugepages", "0");
		count(&cnt->huge_requests, 1);
		count(&cnt->huge_got, got > 0 ? got : 0);
		usleep(50000);
	}
	return NULL;
}

/*
 * Anonymous memory in transparent huge pages (the guest's init turns them
 * on). While the compaction thread holds the free 2 MiB blocks, a fault
 * compacts in MIGRATE_ASYNC mode, where a routine must not wait for its
 * locks; 6.1 migrates pool pages asynchronously in no other path here.
 */
static void *thp_thread(void *arg)
{
	const size_t len = 32 << 20;
	char *p;

	(void)arg;
	while (wait_ready()) {
		if (!__atomic_load_n(&huge_held, __ATOMIC_ACQUIRE)) {
			usleep(10000);
			continue;
		}
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			failed("mmap anon");
			break;
		}
		memset(p, 1, len);
		munmap(p, len);
		count(&cnt->thp_rounds, 1);
	}
	return NULL;
}

/* Names of the memory blocks in ZONE_MOVABLE; how many there are. */
static int movable_blocks(char names[][32], int max)
{
	static const char root[] = "/sys/devices/system/memory";
	char path[300], buf[64];
	struct dirent *de;
	int n = 0, f, len;
	DIR *d = opendir(root);

	if (!d)
		return 0;
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "memory", 6))
			continue;
		snprintf(path, sizeof(path), "%s/%s/valid_zones", root, de->d_name);
		f = open(path, O_RDONLY);
		if (f < 0)
			continue;
		len = read(f, buf, sizeof(buf) - 1);
		close(f);
		buf[len > 0 ? len : 0] = 0;
		if (!strncmp(buf, "Movable", 7))
			snprintf(names[n++], 32, "%.31s", de->d_name);
	}
	closedir(d);
	return n;
}

/*
 * Offline one block. The kernel retries until it succeeds or a fatal
 * signal arrives, so a child does it under alarm(): a block pinned for
 * longer than that counts as busy.
 */
static int offline_block(const char *state)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(20);
		_exit(write_file(state, "offline") ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

static void *offline_thread(void *arg)
{
	char names[64][32], state[300];
	int n = movable_blocks(names, 64), i = 0;

	(void)arg;
	say("%d memory blocks in ZONE_MOVABLE", n);
	while (n && wait_ready()) {
		snprintf(state, sizeof(state), "/sys/devices/system/memory/%s/state",
			 names[i++ % n]);
		if (offline_block(state)) {
			count(&cnt->offline_busy, 1);
		} else {
			count(&cnt->offline_ok, 1);
			if (write_file(state, "online_movable"))
				failed("online_movable");
			else
				count(&cnt->online, 1);
		}
		usleep(200000);
	}
	return NULL;
}

/* Unloading must be refused while a file is open and pages are out. */
static void *rmmod_thread(void *arg)
{
	static const char *const mods[] = { "gfxbuf", "movable_pool" };
	/* the library is built in where it is in-tree (7.x) */
	int i, n = access("/movable_pool.ko", F_OK) ? 1 : 2;

	(void)arg;
	while (!stopping()) {
		for (i = 0; i < n; i++) {
			if (!syscall(SYS_delete_module, mods[i], O_NONBLOCK)) {
				say("%s unloaded while in use", mods[i]);
				count(&cnt->failures, 1);
				continue;
			}
			if (errno == EWOULDBLOCK || errno == EBUSY)
				count(&cnt->rmmod_refused, 1);
			else
				failed("delete_module");
		}
		usleep(500000);
	}
	return NULL;
}

static const char *const fail_attrs[] = { "failslab", "fail_page_alloc" };
#define INJECT_TIMES	1000000000L

static void fail_attr(const char *attr, const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s", attr, knob);
	if (write_file(path, val))
		die(path);
}

/*
 * Fail @pct percent of the allocations made with gfxbuf or movable_pool on
 * the stack, and no others: the range covers both modules' text (they are
 * the only modules loaded). Sleeping and highmem allocations included.
 */
static void inject_on(unsigned int pct)
{
	unsigned long long lo = ~0ull, hi = 0, base;
	unsigned long size;
	char name[64], buf[32], line[256];
	FILE *f = fopen("/proc/modules", "r");
	unsigned int i;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu %*s %*s %*s %llx", name, &size, &base) == 3 &&
		    (!strcmp(name, "gfxbuf") || !strcmp(name, "movable_pool"))) {
			lo = base < lo ? base : lo;
			hi = base + size > hi ? base + size : hi;
		}
	if (f)
		fclose(f);
	if (!hi || !lo)
		die("module addresses in /proc/modules");
	for (i = 0; i < 2; i++) {
		const char *a = fail_attrs[i];

		snprintf(buf, sizeof(buf), "%#llx", lo);
		fail_attr(a, "require-start", buf);
		snprintf(buf, sizeof(buf), "%#llx", hi);
		fail_attr(a, "require-end", buf);
		fail_attr(a, "task-filter", "N");
		fail_attr(a, "ignore-gfp-wait", "N");
		fail_attr(a, "verbose", "0");
		fail_attr(a, "interval", "1");
		snprintf(buf, sizeof(buf), "%ld", INJECT_TIMES);
		fail_attr(a, "times", buf);
		snprintf(buf, sizeof(buf), "%u", pct);
		fail_attr(a, "probability", buf);
	}
	fail_attr("fail_page_alloc", "ignore-gfp-highmem", "N");
	fail_attr("fail_page_alloc", "min-order", "0");
	say("failing %u%% of allocations from %#llx to %#llx", pct, lo, hi);
}

/* Stop injecting; how many allocations failed by injection. */
static long inject_off(const char *attr)
{
	char path[128];

	fail_attr(attr, "probability", "0");
	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/times", attr);
	return INJECT_TIMES - read_long(path);
}

/* The rest of the result line: what ran, and the pool's counters. */
static void report(struct gfxbuf_stats st, long migrations, long thp_faults,
		   long injected_slab, long injected_page)
{
	const struct { const char *name; unsigned long long val; } f[] = {
		{ "creates", cnt->creates }, { "destroys", cnt->destroys },
		{ "jobs", cnt->jobs }, { "job_pages", cnt->job_pages },
		{ "mmaps", cnt->mmaps }, { "mremaps", cnt->mremaps },
		{ "partial_munmaps", cnt->partial_munmaps },
		{ "forks", cnt->forks }, { "infos", cnt->infos },
		{ "pool_opens", cnt->pool_opens },
		{ "compactions", cnt->compactions },
		{ "huge_requests", cnt->huge_requests },
		{ "huge_got", cnt->huge_got },
		{ "thp_rounds", cnt->thp_rounds },
		{ "thp_faults", thp_faults },
		{ "offline_ok", cnt->offline_ok },
		{ "offline_busy", cnt->offline_busy },
		{ "online", cnt->online },
		{ "rmmod_refused", cnt->rmmod_refused },
		{ "migrated", st.migrated },
		{ "pgmigrate_success", migrations },
		{ "migrate_failed", st.migrate_failed },
		{ "putback", st.putback }, { "pin_refused", st.pin_refused },
		{ "pin_busy", st.pin_busy }, { "routine_busy", st.routine_busy },
		{ "routine_failed", st.routine_failed },
		{ "freed_isolated", st.freed_isolated },
		{ "injected_slab", injected_slab },
		{ "injected_page", injected_page },
		{ "bytes_verified", cnt->pages_verified * PAGE_SZ },
		{ "mismatches", cnt->mismatches },
		{ "failures", cnt->failures }, { "enomem", cnt->enomem },
		{ "pages_left", st.pages },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f); i++)
		printf(" %s=%llu", f[i].name, f[i].val);
	putchar('\n');
}

static void parse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "ballast-mib", required_argument, NULL, 'b' },
		{ "user-threads", required_argument, NULL, 'u' },
		{ "seed", required_argument, NULL, 's' },
		{ "inject", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt.duration = atoi(optarg);
			break;
		case 'b':
			opt.ballast_mib = atoi(optarg);
			break;
		case 'u':
			opt.user_threads = atoi(optarg);
			break;
		case 's':
			opt.seed = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			opt.inject = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [--duration=S] [--ballast-mib=M]\n"
				"\t[--user-threads=N] [--seed=N] [--inject=PCT]\n",
				argv[0]);
			exit(2);
		}
	}
	/*
	 * Half of RAM, a quarter once the holes are punched: fragmented
	 * enough that huge page requests need direct compaction
	 */
	if (!opt.ballast_mib)
		opt.ballast_mib = read_meminfo("MemTotal") / 1024 / 2;
}

int main(int argc, char **argv)
{
	void *(*const fixed[])(void *) = {
		ballast_thread, engine_thread, engine_thread, info_thread,
		compact_thread, thp_thread, offline_thread, rmmod_thread,
		churn_thread,
	};
	unsigned int nfixed = ARRAY_SIZE(fixed), i, nthreads;
	long migrated0 = read_vmstat("pgmigrate_success");
	long thp0 = read_vmstat("thp_fault_alloc");
	long injected_slab = 0, injected_page = 0;
	struct gfxbuf_stats st;
	pthread_t *tid;
	double t0, setup;

	parse(argc, argv);
	say("seed %u, %u s, ballast %u MiB, %u user threads, %ld CPUs",
	    opt.seed, opt.duration, opt.ballast_mib, opt.user_threads,
	    sysconf(_SC_NPROCESSORS_ONLN));
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/gfxbuf", O_RDWR);
	if (cnt == MAP_FAILED || fd < 0)
		die("setup");
	nthreads = nfixed + opt.user_threads;
	tid = calloc(nthreads, sizeof(*tid));
	if (!tid)
		die("calloc");
	/* before injection starts: a 1024-page BO would hardly ever make it */
	for (i = 0; i < 4; i++) {
		engine_bo[i] = bo_filled(ENGINE_PAGES, i + 1);
		if (!engine_bo[i])
			die("engine BOs");
	}
	t0 = now();
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tid[i], NULL,
				   i < nfixed ? fixed[i] : user_thread,
				   (void *)(uintptr_t)i))
			die("pthread_create");
	/* --duration counts from when everything runs */
	while (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		usleep(100000);
	setup = now() - t0;
	if (opt.inject)
		inject_on(opt.inject);
	t0 = now();
	while (now() - t0 < opt.duration)
		sleep(1);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < 4; i++)
		bo_destroy(engine_bo[i]);
	if (opt.inject) {
		injected_slab = inject_off("failslab");
		injected_page = inject_off("fail_page_alloc");
	}
	if (ioctl(fd, GFXBUF_IOC_STATS, &st))
		die("GFXBUF_IOC_STATS");
	close(fd);

	printf(GUEST_RESULT " status=%s seconds=%.0f setup_seconds=%.0f seed=%u",
	       cnt->mismatches || cnt->failures ? "fail" : "ok", now() - t0,
	       setup, opt.seed);
	report(st, read_vmstat("pgmigrate_success") - migrated0,
	       read_vmstat("thp_fault_alloc") - thp0, injected_slab,
	       injected_page);
	return cnt->mismatches || cnt->failures || st.pages ? 1 : 0;
}
