/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the programs that run inside the test guests
 * (gfxbuf_test, bench_run): messages, a seeded generator, /proc and /sys
 * access, and the huge page measurement every scenario ends with.
 *
 * Define GUEST_NAME (the message prefix) and GUEST_RESULT (the tag of the
 * result line the harness parses) before including this file.
 */
#ifndef MP_GUEST_H
#define MP_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define HUGE_MIB	2
#define PAGE_SZ		4096ul
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static inline void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "[" GUEST_NAME "] ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static inline void die(const char *what)
{
	fprintf(stderr, "[" GUEST_NAME "] FATAL: %s: %s\n", what,
		strerror(errno));
	printf(GUEST_RESULT " status=error what=\"%s\"\n", what);
	exit(2);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static inline uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state >> 32;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A /proc/meminfo field in kB, or -1. */
static inline long read_meminfo(const char *key)
{
	char line[256];
	long val = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			val = atol(line + strlen(key) + 1);
	fclose(f);
	return val;
}

static inline long read_vmstat(const char *key)
{
	char name[128];
	long val;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %ld", name, &val) == 2)
		if (!strcmp(name, key)) {
			fclose(f);
			return val;
		}
	fclose(f);
	return -1;
}

static inline int write_file(const char *path, const char *val)
{
	int f = open(path, O_WRONLY);
	ssize_t n;

	if (f < 0)
		return -1;
	n = write(f, val, strlen(val));
	close(f);
	return n < 0 ? -1 : 0;
}

static inline long read_long(const char *path)
{
	char buf[64] = "";
	int f = open(path, O_RDONLY);

	if (f < 0)
		return -1;
	if (read(f, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(f);
	return atol(buf);
}

/*
 * Anonymous memory held with random holes: each page is written, then
 * kept with probability keep_pct% (the same xorshift sequence as
 * bench_driver.ko's) or given back with MADV_DONTNEED.
 */
struct anon_hold {
	uint8_t *mem;
	uint8_t *kept;		/* one byte per page, in this process */
	unsigned long pages;
	uint32_t seed;
};

static inline uint32_t anon_word(const struct anon_hold *h,
				 unsigned long slot, unsigned int i)
{
	return (uint32_t)(slot * 2654435761u) ^ (i * 0x9e3779b9u) ^ h->seed;
}

/* Returns how many pages it kept. */
static inline unsigned long anon_hold(struct anon_hold *h, unsigned long pages,
				      unsigned int keep_pct, unsigned long seed)
{
	unsigned long slot, kept = 0;
	unsigned int i;

	h->pages = pages;
	h->seed = seed;
	h->mem = mmap(NULL, pages * PAGE_SZ, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h->kept = calloc(pages, 1);
	if (h->mem == MAP_FAILED || !h->kept)
		die("mmap");
	for (slot = 0; slot < pages; slot++) {
		uint32_t *p = (uint32_t *)(h->mem + slot * PAGE_SZ);

		for (i = 0; i < PAGE_SZ / 4; i++)
			p[i] = anon_word(h, slot, i);
	}
	for (slot = 0; slot < pages; slot++) {
		if (rnd() % 100 < keep_pct) {
			h->kept[slot] = 1;
			kept++;
		} else if (madvise(h->mem + slot * PAGE_SZ, PAGE_SZ,
				   MADV_DONTNEED)) {
			die("madvise");
		}
	}
	return kept;
}

/* Kept pages whose contents changed. */
static inline unsigned long anon_mismatches(const struct anon_hold *h)
{
	unsigned long slot, bad = 0;
	unsigned int i;

	for (slot = 0; slot < h->pages; slot++) {
		uint32_t *p = (uint32_t *)(h->mem + slot * PAGE_SZ);

		if (!h->kept[slot])
			continue;
		for (i = 0; i < PAGE_SZ / 4; i++)
			if (p[i] != anon_word(h, slot, i)) {
				bad++;
				break;
			}
	}
	return bad;
}

static inline void anon_release(struct anon_hold *h)
{
	munmap(h->mem, h->pages * PAGE_SZ);
	free(h->kept);
	h->mem = NULL;
	h->kept = NULL;
}

/*
 * Free pages parked on the per-cpu lists, in kB. MemFree leaves them out,
 * and since 6.7 those lists may grow to an eighth of a zone after many
 * frees; an allocation that finds the buddy lists short drains them.
 */
static inline long read_pcp_kb(void)
{
	char key[64];
	long val, sum = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return 0;
	while (fscanf(f, "%63s", key) == 1)
		if (!strcmp(key, "count:") && fscanf(f, "%ld", &val) == 1)
			sum += val;
	fclose(f);
	return sum * 4;
}

/*
 * Compact, then ask for huge pages until free memory is down to a margin,
 * so the guest never OOMs: each request adds what the free memory seen
 * then could hold, and asking stops when a request brings nothing more
 * (at most 8 rounds). Free memory counts the per-cpu lists too: sized on
 * MemFree alone, every request would succeed without draining them, and
 * the figure would measure the request, not compaction.
 * Returns how many were granted, and gives them back.
 */
static inline long hugepages_once(void)
{
	long free_kb, want, got = 0, prev;
	char buf[32];
	int round = 0;

	write_file("/proc/sys/vm/compact_memory", "1");
	do {
		prev = got;
		free_kb = read_meminfo("MemFree") + read_pcp_kb();
		want = got + (free_kb / 1024 - 48) / HUGE_MIB;
		if (want <= got)
			break;
		snprintf(buf, sizeof(buf), "%ld", want);
		if (write_file("/proc/sys/vm/nr_hugepages", buf))
			die("nr_hugepages");
		got = read_long("/proc/sys/vm/nr_hugepages");
		say("asked for %ld huge pages, got %ld", want, got);
	} while (got > prev && ++round < 8);
	write_file("/proc/sys/vm/nr_hugepages", "0");
	return got;
}

static inline long hugepages_best(unsigned int tries)
{
	long best = 0, got;
	unsigned int i;

	for (i = 0; i < tries; i++) {
		got = hugepages_once();
		if (got > best)
			best = got;
	}
	return best;
}

#endif /* MP_GUEST_H */
