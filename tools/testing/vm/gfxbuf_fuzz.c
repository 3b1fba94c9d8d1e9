// SPDX-License-Identifier: GPL-2.0
/*
 * gfxbuf_fuzz: hostile input for the gfxbuf sample's uapi, in a guest.
 *
 * Several threads share one /dev/gfxbuf file (and now and then reopen their
 * own) and issue random calls: every ioctl but GFXBUF_IOC_UNPLUG, and
 * unknown ones, argument structs of random bytes or boundary values (0, 1,
 * limits, overflow), live, stale and unknown handles, double destroys,
 * mmap at random offsets and lengths, reads and writes through whatever is
 * mapped, munmap of part of a mapping. So destroy races mmap, faults and
 * jobs. Every failure must carry one of the errnos gfxbuf documents, and
 * no access to a mapping may fault. Seeded and reproducible: the seed is
 * printed.
 *
 *   gfxbuf_fuzz [--seed=N] [--calls=N] [--threads=N]
 *
 * Ends with "FUZZ_RESULT status=ok|fail calls=... seed=...".
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "../../../samples/movable_pool/gfxbuf_uapi.h"

#define GUEST_NAME	"gfxbuf_fuzz"
#define GUEST_RESULT	"FUZZ_RESULT"
#include "guest.h"

#define PAGE_SZ		4096ul
#define HANDLES		64	/* remembered per thread, live or stale */
#define MAPS		8
#define MAX_BO_PAGES	16384	/* gfxbuf's largest max_bo_pages default */

struct fuzzer {
	uint64_t rng;
	int fd;
	uint32_t handles[HANDLES];
	struct { char *addr; size_t len; } maps[MAPS];
	unsigned long calls, errors, bad_errno, faults;
	unsigned long per_errno[160];
	/* BO_INFO writes up to the BO's size, whatever count it is told */
	uint64_t pfns[MAX_BO_PAGES];
};

static int shared_fd;
static unsigned long calls_per_thread = 20000;
static __thread sigjmp_buf fault_jmp;
static __thread int in_access;		/* atomics: the handler reads it */

static uint32_t next(struct fuzzer *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return f->rng >> 32;
}

/* A value callers get wrong: 0, 1, a limit, just past it, or noise. */
static uint64_t boundary(struct fuzzer *f)
{
	static const uint64_t v[] = {
		0, 1, 2, 255, 256, 257, 16383, 16384, 16385, 65536,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
		~0ull, 1ull << 50, (1ull << 50) - PAGE_SZ,
	};

	if (next(f) % 4 == 0)
		return ((uint64_t)next(f) << 32) | next(f);
	return v[next(f) % ARRAY_SIZE(v)];
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	if (__atomic_load_n(&in_access, __ATOMIC_RELAXED))
		siglongjmp(fault_jmp, sig);
	fprintf(stderr, "[" GUEST_NAME "] signal %d at %p outside a mapping access\n",
		sig, si->si_addr);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Did the call fail the way gfxbuf's documentation allows? */
static void check(struct fuzzer *f, long ret, const char *what)
{
	int e = errno;

	f->calls++;
	if (ret >= 0)
		return;
	f->errors++;
	if (e > 0 && e < 160)
		f->per_errno[e]++;
	switch (e) {
	case EINVAL: case E2BIG: case ENOMEM: case ENOSPC: case ENOENT:
	case EBUSY: case ETIME: case EFAULT: case ENOTTY: case EAGAIN:
		return;
	case EOVERFLOW:	/* mmap(2): offset plus length past the end */
		if (!strcmp(what, "mmap"))
			return;
	}
	f->bad_errno++;
	say("%s: undocumented errno %d (%s)", what, e, strerror(e));
}

static uint32_t some_handle(struct fuzzer *f)
{
	if (next(f) % 8 == 0)
		return boundary(f);	/* unknown */
	return f->handles[next(f) % HANDLES];	/* live, stale or 0 */
}

static void fill_random(struct fuzzer *f, void *p, size_t len)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = next(f);
}

static void do_create(struct fuzzer *f)
{
	struct gfxbuf_create c;

	if (next(f) % 2)
		fill_random(f, &c, sizeof(c));
	else
		memset(&c, 0, sizeof(c));
	c.pages = next(f) % 3 ? 1 + next(f) % 64 : boundary(f);
	if (next(f) % 4)
		c.flags = 0;
	errno = 0;
	check(f, ioctl(f->fd, GFXBUF_IOC_CREATE, &c), "create");
	if (!errno)
		f->handles[next(f) % HANDLES] = c.handle;
}

static void do_submit(struct fuzzer *f)
{
	struct gfxbuf_submit s;

	fill_random(f, &s, sizeof(s));
	s.op = next(f) % 5;	/* 0 and 4 are unknown */
	s.src = some_handle(f);
	s.dst = some_handle(f);
	if (next(f) % 2) {
		s.src_page = next(f) % 64;
		s.dst_page = next(f) % 64;
		s.pages = next(f) % 8;
	}
	check(f, ioctl(f->fd, GFXBUF_IOC_SUBMIT, &s), "submit");
	if (next(f) % 2) {
		struct gfxbuf_wait w = { .fence = s.fence, .timeout_ms = 50 };

		if (next(f) % 4 == 0)
			w.fence = boundary(f);
		check(f, ioctl(f->fd, GFXBUF_IOC_WAIT, &w), "wait");
	}
}

static void do_info(struct fuzzer *f)
{
	struct gfxbuf_bo_info i = {
		.handle = some_handle(f),
		.pages = next(f) % 3 ? next(f) % 9 : boundary(f),
		.pfns = (uintptr_t)f->pfns,
	};

	if (next(f) % 8 == 0)
		i.pfns = boundary(f);	/* a bad user pointer */
	check(f, ioctl(f->fd, GFXBUF_IOC_BO_INFO, &i), "bo_info");
}

static void do_other_ioctl(struct fuzzer *f)
{
	unsigned char buf[64];
	unsigned long cmd;

	fill_random(f, buf, sizeof(buf));
	switch (next(f) % 4) {
	case 0:		/* an unknown command */
		cmd = _IOC(next(f) % 4, next(f) % 2 ? 'G' : next(f) & 0xff,
			   next(f) & 0xff, next(f) % 64);
		/* it would take the device from every file: gfxbuf_test's */
		if (cmd == GFXBUF_IOC_UNPLUG)
			cmd = GFXBUF_IOC_STATS;
		break;
	case 1:
		cmd = GFXBUF_IOC_STATS;
		break;
	case 2:		/* the stats ioctl, told to write to a bad pointer */
		check(f, ioctl(f->fd, GFXBUF_IOC_STATS, (void *)8), "stats");
		return;
	default: {
		uint32_t h = some_handle(f);

		check(f, ioctl(f->fd, GFXBUF_IOC_DESTROY, &h), "destroy");
		return;
	}
	}
	check(f, ioctl(f->fd, cmd, buf), "ioctl");
}

/* Touch a mapping: it must never fault, whatever happened to its BO. */
static void touch(struct fuzzer *f, char *addr, size_t len)
{
	size_t off;

	if (!len)
		return;
	/* mappings are whole pages: see do_mmap() */
	off = (next(f) % (len / PAGE_SZ)) * PAGE_SZ + (next(f) % PAGE_SZ & ~3ul);
	__atomic_store_n(&in_access, 1, __ATOMIC_RELAXED);
	if (sigsetjmp(fault_jmp, 1)) {
		__atomic_store_n(&in_access, 0, __ATOMIC_RELAXED);
		f->faults++;
		say("fault touching %p+%zu", addr, off);
		return;
	}
	/* atomic accesses: the compiler must really make them */
	if (next(f) % 2)
		__atomic_store_n((uint32_t *)(addr + off), next(f), __ATOMIC_RELAXED);
	else
		(void)__atomic_load_n((uint32_t *)(addr + off), __ATOMIC_RELAXED);
	__atomic_store_n(&in_access, 0, __ATOMIC_RELAXED);
}

static void do_mmap(struct fuzzer *f)
{
	unsigned int slot = next(f) % MAPS;
	uint64_t off, len;
	void *p;

	if (f->maps[slot].addr) {
		/* all of it, or a part: a partial munmap splits the VMA */
		size_t cut = next(f) % 2 ? f->maps[slot].len : PAGE_SZ;

		touch(f, f->maps[slot].addr, f->maps[slot].len);
		check(f, munmap(f->maps[slot].addr + f->maps[slot].len - cut,
				cut), "munmap");
		f->maps[slot].len -= cut;
		if (!f->maps[slot].len)
			f->maps[slot].addr = NULL;
		return;
	}
	len = next(f) % 4 ? (1 + next(f) % 8) * PAGE_SZ : boundary(f);
	off = next(f) % 4 ? (uint64_t)(next(f) % 80) * 256 * PAGE_SZ +
			    (next(f) % 8) * PAGE_SZ :
			    boundary(f) & ~(PAGE_SZ - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 next(f) % 8 ? MAP_SHARED : MAP_PRIVATE, f->fd, off);
	if (p == MAP_FAILED) {
		check(f, -1, "mmap");
		return;
	}
	check(f, 0, "mmap");
	f->maps[slot].addr = p;
	f->maps[slot].len = (len + PAGE_SZ - 1) & ~(PAGE_SZ - 1);
	touch(f, p, f->maps[slot].len);
}

static void *fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;
	unsigned long i;
	unsigned int m;

	f->fd = shared_fd;
	for (i = 0; i < calls_per_thread; i++) {
		switch (next(f) % 16) {
		case 0 ... 3:
			do_create(f);
			break;
		case 4 ... 6:
			do_submit(f);
			break;
		case 7 ... 8:
			do_info(f);
			break;
		case 9 ... 11:
			do_other_ioctl(f);
			break;
		case 12 ... 14:
			do_mmap(f);
			break;
		default:
			/* a file of its own for a while, or back to the shared one */
			if (f->fd != shared_fd) {
				check(f, close(f->fd), "close");
				f->fd = shared_fd;
			} else {
				f->fd = open("/dev/gfxbuf", O_RDWR);
				check(f, f->fd, "open");
				if (f->fd < 0)
					f->fd = shared_fd;
			}
			break;
		}
	}
	for (m = 0; m < MAPS; m++)
		if (f->maps[m].addr)
			munmap(f->maps[m].addr, f->maps[m].len);
	if (f->fd != shared_fd)
		close(f->fd);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'c' },
		{ "threads", required_argument, NULL, 't' },
		{}
	};
	unsigned long seed = time(NULL), calls = 0, errors = 0, bad = 0;
	unsigned long faults = 0, by_errno[160] = {};
	unsigned int threads = 4, i, e;
	struct sigaction sa = {};
	struct fuzzer *f;
	pthread_t *tid;
	double t0;
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			calls_per_thread = strtoul(optarg, NULL, 0);
			break;
		case 't':
			threads = strtoul(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	calls_per_thread /= threads ? threads : 1;
	say("seed %lu, %u threads, %lu calls each", seed, threads,
	    calls_per_thread);
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	shared_fd = open("/dev/gfxbuf", O_RDWR);
	if (shared_fd < 0)
		die("open /dev/gfxbuf");
	f = calloc(threads, sizeof(*f));
	tid = calloc(threads, sizeof(*tid));
	if (!f || !tid)
		die("calloc");
	t0 = now();
	for (i = 0; i < threads; i++) {
		f[i].rng = (seed + 1) * 0x9e3779b97f4a7c15ull + i;
		if (pthread_create(&tid[i], NULL, fuzz_thread, &f[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		calls += f[i].calls;
		errors += f[i].errors;
		bad += f[i].bad_errno;
		faults += f[i].faults;
		for (e = 0; e < 160; e++)
			by_errno[e] += f[i].per_errno[e];
	}
	close(shared_fd);
	for (e = 0; e < 160; e++)
		if (by_errno[e])
			say("errno %u (%s): %lu", e, strerror(e), by_errno[e]);
	printf(GUEST_RESULT " status=%s calls=%lu errors=%lu", bad || faults ?
	       "fail" : "ok", calls, errors);
	printf(" bad_errno=%lu faults=%lu seed=%lu seconds=%.1f\n", bad, faults,
	       seed, now() - t0);
	return bad || faults ? 1 : 0;
}
