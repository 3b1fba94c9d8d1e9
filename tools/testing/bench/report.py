#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn make bench's raw points into bench/RESULTS.md, results/latest.json
and one plot per kernel.

Input: lines "kernel=K status=ok kind=... held_pct=... key=value ..." (one
per guest boot, from bench_run) and the KUnit microbenchmark lines. Every
figure in the report is computed here from those lines; nothing is typed
in by hand.
"""

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys

from report_common import KINDS, LABEL, fmt, kernel_key, parse_points, \
    record, summary
import report_gigantic
import report_scale
import report_thp
import report_unplug


class Bench:
    def __init__(self, points):
        self.points = points
        self.kernels = sorted({p["kernel"] for p in points}, key=kernel_key)
        self.pcts = sorted({int(p["held_pct"]) for p in points
                            if p["kind"] != "none"})
        self.metrics = []

    def kinds(self, kernel):
        """The held kinds measured on @kernel: no hand-rolled one on 7.x."""
        return [k for k in KINDS[1:] if self.select(kernel, k)]

    def select(self, kernel, kind, pct=None):
        return [p for p in self.points if p["kernel"] == kernel and
                p["kind"] == kind and (pct is None or p["held_pct"] == pct)]

    def ceiling(self, kernel):
        return statistics.median(
            p["huge_pages"] for p in self.select(kernel, "none"))

    def limit(self, kernel, p):
        """Huge pages left once held memory is taken away from the ceiling."""
        return self.ceiling(kernel) - p["held_mib"] / 2

    def stat(self, kernel, kind, pct, metric, unit, fn):
        values = [fn(p) for p in self.select(kernel, kind, pct)]
        values = [v for v in values if v is not None]
        if not values:
            return None
        s = summary(values)
        self.metrics.append(dict(metric=metric, kernel=kernel, kind=kind,
                                 held_pct=pct, unit=unit, scenario="huge",
                                 **s))
        return s

    def collect(self):
        """Every metric per kernel, kind and held share."""
        table = {}
        for k in self.kernels:
            table[(k, "none", 0)] = {
                "huge": self.stat(k, "none", 0, "huge_pages", "pages",
                                  lambda p: p["huge_pages"]),
                "free": self.stat(k, "none", 0, "mem_free", "MiB",
                                  lambda p: p["mem_free_kb"] / 1024),
                "sunreclaim": self.stat(k, "none", 0, "sunreclaim", "MiB",
                                        lambda p: p["sunreclaim_kb"] / 1024),
            }
            for kind in self.kinds(k):
                for pct in self.pcts:
                    lim = lambda p, k=k: self.limit(k, p)
                    table[(k, kind, pct)] = {
                        "huge": self.stat(k, kind, pct, "huge_pages", "pages",
                                          lambda p: p["huge_pages"]),
                        "limit": self.stat(k, kind, pct, "limit", "pages", lim),
                        "pct_limit": self.stat(
                            k, kind, pct, "pct_of_limit", "%",
                            lambda p: 100 * p["huge_pages"] / lim(p)),
                        "held": self.stat(k, kind, pct, "held", "MiB",
                                          lambda p: p["held_mib"]),
                        "free": self.stat(k, kind, pct, "mem_free", "MiB",
                                          lambda p: p["mem_free_kb"] / 1024),
                        "sunreclaim": self.stat(
                            k, kind, pct, "sunreclaim", "MiB",
                            lambda p: p["sunreclaim_kb"] / 1024),
                        "compact_ms": self.stat(k, kind, pct, "compaction_time",
                                                "ms", lambda p: p["compact_ms"]),
                        "migrated": self.stat(
                            k, kind, pct, "pages_migrated", "pages",
                            lambda p: p["pgmigrate_success"]),
                        "us_per_page": self.stat(
                            k, kind, pct, "compaction_us_per_migrated_page",
                            "us", lambda p: (1000 * p["compact_ms"] /
                                             p["pass_migrated"]
                                             if p["pass_migrated"] > 0
                                             else None)),
                    }
        return table


def parse_kunit(paths):
    """{kernel: {what: [ratio, ...], ...}} and the ns figures behind them."""
    out = {}
    pat = re.compile(r"kernel=(\S+) run=\d+ (.+?) (\d+) ns/page, (.+?) "
                     r"(\d+) ns/page, ratio ([0-9.]+)x")
    for path in paths:
        with open(path) as f:
            for line in f:
                m = pat.match(line.strip())
                if not m:
                    continue
                k, what, ours, base_name, base, ratio = m.groups()
                key = "%s vs %s" % (what, base_name)
                out.setdefault(k, {}).setdefault(key, []).append(
                    (int(ours), int(base), float(ratio)))
    return out


def parse_micro(paths):
    """Per-CPU lines of the vCPU sweep, and the boots that died first."""
    lines, died, failed = [], [], []
    for path in paths:
        with open(path) as f:
            for line in f:
                rec = record(line)
                if rec.get("status") == "died-before-test":
                    died.append(rec)
                elif rec.get("status"):
                    failed.append(rec)
                else:
                    lines.append(rec)
    return lines, died, failed


def parse_balloon(paths):
    """BALLOON_RUN lines of tools/testing/vm/balloon.sh, per kernel."""
    runs = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if not line.startswith("BALLOON_RUN "):
                    continue
                rec = record(line)
                runs.setdefault(rec["kver"], []).append(rec)
    return runs


def parse_balloon_micro(paths):
    """BALLOON_MICRO lines of bench/balloon_micro.sh: {kver: [records]}."""
    runs = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.startswith("BALLOON_MICRO "):
                    rec = record(line)
                    runs.setdefault(rec["kver"], []).append(rec)
    return runs


# what balloon_micro.ko times, in its order: (field, what it is)
BALLOON_MICRO_ROWS = (
    ("enqueue", "`balloon_page_enqueue()` (every driver)"),
    ("dequeue", "`balloon_page_dequeue()`, a page per call "
                "(virtio_balloon before patch 8, cmm)"),
    ("list_dequeue", "`balloon_page_list_dequeue()`, 256 per call "
                     "(vmw_balloon; virtio_balloon from patch 8)"),
    ("free", "`put_page()` of a deflated page"),
    ("pool_add", "`movable_pool_add_page()`, which enqueue calls"),
    ("pool_take1", "`movable_pool_take_owner_pages()`, 1 per call, "
                   "which a dequeue of one page calls"),
    ("pool_take16", "`movable_pool_take_owner_pages()`, 16 per call"),
    ("page_lock_pair", "`trylock_page()` + `unlock_page()`"),
    ("irqsave_pair", "`spin_lock_irqsave()` + `spin_unlock_irqrestore()`"),
)


def balloon_micro_pairs(runs):
    """(kernel with the series, the same without) for each 7.x measured."""
    return [(k, k + "-plain") for k in sorted(runs)
            if not k.endswith("-plain") and k + "-plain" in runs]


BALLOON_MICRO_CLOCKS = (
    ("icount", "QEMU's `-icount shift=0`: the guest's clock advances a "
               "nanosecond per instruction executed, so these count "
               "instructions, whatever the host's load"),
    ("host", "the host's clock: what the calls took under TCG, on a "
             "host shared with other work"),
)


def balloon_micro_table(runs):
    """{(kver, clock, field): summary} over every boot and round."""
    table = {}
    for k, recs in runs.items():
        for clock, _ in BALLOON_MICRO_CLOCKS:
            for field, _ in BALLOON_MICRO_ROWS:
                vals = [int(r[field + "_ns"]) for r in recs
                        if r.get("clock") == clock and field + "_ns" in r
                        and "status" not in r]
                if vals:
                    table[(k, clock, field)] = summary(vals)
    return table


def balloon_micro_section(runs, w):
    pairs = balloon_micro_pairs(runs)
    if not pairs:
        return
    t = balloon_micro_table(runs)
    w("")
    w("## The balloon API per page, with and without the series")
    w("")
    w("`tools/testing/bench/balloon_micro.sh`: a module "
      "(`balloon_micro.ko`) inflates a fake balloon device by 65,536 pages "
      "and deflates it, timing each kind of call over all the pages "
      "(`ktime_get_ns()` around the loop, divided by the pages), in 1 GiB "
      "guests with one vCPU under TCG (proactive compaction off), 3 rounds "
      "per boot, on the patched "
      "kernel and on the same source and config without the series "
      "(7.2-plain). On the patched kernel it also times the library calls "
      "the balloon makes, on its own pool, and on both the primitives "
      "they are made of. The kernels take turns, boot by boot. Under "
      "`-icount` the figures repeat from boot to boot; the first round of "
      "a boot runs more instructions than the later ones, on both "
      "kernels, which the ranges show. Nanoseconds per page, median "
      "(min–max) over every boot and round (%s)." %
      ", ".join("%s: %d" % (k, len(runs[k])) for k in sorted(runs)))
    for k, plain in pairs:
        for clock, how in BALLOON_MICRO_CLOCKS:
            if not any(key[:2] == (k, clock) for key in t):
                continue
            w("")
            w("Linux %s, clock: %s." % (k, how))
            w("")
            w("| call (ns per page) | %s with the series | %s without | "
              "with / without |" % (k, k))
            w("|---|---|---|---|")
            for field, what in BALLOON_MICRO_ROWS:
                a = t.get((k, clock, field))
                b = t.get((plain, clock, field))
                if not a and not b:
                    continue
                ratio = "%.2f×" % (a["median"] / b["median"]) \
                    if a and b and b["median"] else "-"
                w("| %s | %s | %s | %s |" % (what, fmt(a), fmt(b), ratio))


def parse_phases(path):
    """bench.sh's phases.txt: a line per phase that finished."""
    if not path or not os.path.exists(path):
        return []
    keys = {"phase", "seconds", "finished", "run", "commit"}
    with open(path) as f:
        return [r for r in map(record, f) if keys <= r.keys()]


def phases_section(phases, w):
    if not phases:
        return
    runs = len({p["run"] for p in phases})
    w("")
    w("## Phases")
    w("")
    w("Each phase's raw figures are results/raw/<phase>.txt; its minutes "
      "are its wall time, with the phases scheduled beside it "
      "(tools/testing/bench/bench.sh) sharing the cores. From %d run%s, "
      "at %s." % (runs, "" if runs == 1 else "s",
                  ", ".join(sorted({p["commit"] for p in phases}))))
    w("")
    w("| phase | minutes | finished (UTC) | commit |")
    w("|---|---|---|---|")
    for p in phases:
        w("| %s | %.1f | %s | %s |" % (p["phase"], int(p["seconds"]) / 60,
                                      p["finished"], p["commit"]))


def balloon_table(runs):
    """Per kernel and driver: summaries of what the balloon runs measured."""
    table = {}
    for k, recs in runs.items():
        for drv in ("mp", "virtio"):
            ok = [r for r in recs if r.get("driver") == drv and
                  r.get("status") == "ok" and r.get("host_status") == "ok"]
            total = [r for r in recs if r.get("driver", drv) == drv]
            if not ok:
                table[(k, drv)] = dict(ok=0, runs=len(total))
                continue
            gib = float(ok[0]["size_mib"]) / 1024
            secs = [[float(x) for x in r["host_s"].split(",")] for r in ok]
            table[(k, drv)] = dict(
                ok=len(ok), runs=len(total),
                huge=summary([int(r["huge_pages"]) for r in ok]),
                inflate=summary([t[i] / gib for t in secs for i in (0, 2)]),
                deflate=summary([t[i] / gib for t in secs for i in (1, 3)]),
                compaction=summary([int(r["compaction_migrated"]) for r in ok]),
                migrated=summary([int(r["migrated"]) for r in ok]))
    return table


def balloon_section(runs, w):
    if not runs:
        return
    t = balloon_table(runs)
    w("")
    w("## Virtio balloon: mp_balloon, virtio_balloon, and the balloon on movable_pool")
    w("")
    w("`tools/testing/vm/balloon.sh --drivers=\"mp virtio\"` in 2 GiB "
      "guests with QEMU's `virtio-balloon-pci`, one run per seed and "
      "driver, the same seed for both drivers. The guest holds anonymous "
      "memory with random holes; the host inflates the balloon to 1 GiB "
      "through QMP (`balloon`), so balloon pages land all over memory; the "
      "guest frees the anonymous memory, compacts and asks for huge pages "
      "(best of 3), fills what is still available and checks it, then the "
      "host deflates, inflates again and deflates. **mp_balloon** is "
      "`samples/movable_pool/mp_balloon.c`; **virtio_balloon** is the "
      "kernel's own driver with balloon compaction. Inflate and deflate "
      "times are the host's, from the `balloon` command until "
      "`query-balloon` reports the size (both inflations and both "
      "deflations of each run). Migrations: balloon pages moved during the "
      "compaction and huge page requests, and over the whole run. Neither "
      "driver keeps a record per page: mp_balloon deflates with "
      "`movable_pool_take_pages()`, virtio_balloon links its pages through "
      "`page->lru`. Runs count as passed only "
      "with the host's frame checks (balloon_host.py) passed too. On 7.2 "
      "the same in-tree virtio_balloon runs on the patched kernel, where "
      "patches/7.x puts the balloon on movable_pool, and on the same "
      "Debian source built with the same config without the series "
      "(`mm/balloon.c`, 7.2-plain; `make kernel` without patches/7.x), "
      "so the two differ by the series only. Median (min–max).")
    for title, a, b in balloon_pairs(runs):
        balloon_pair_table(t, title, a, b, w)


BALLOON_ROWS = (("huge pages while inflated", "huge", 0),
                ("inflate, s per GiB", "inflate", 2),
                ("deflate, s per GiB", "deflate", 2),
                ("balloon pages migrated (compaction)", "compaction", 0),
                ("balloon pages migrated (whole run)", "migrated", 0))


def balloon_pairs(runs):
    """What is compared with what: (title, (kernel, driver, name) x 2).
    mp_balloon against virtio_balloon on each kernel that ran both, and on
    7.x virtio_balloon on the patched kernel (the balloon on movable_pool)
    against the same source and config without the series (mm/balloon.c:
    KVER-plain; an older run's Debian image, KVER-debian, if that is all
    there is)."""
    pairs = []
    for k in sorted(runs):
        drivers = {r.get("driver") for r in runs[k]}
        if {"mp", "virtio"} <= drivers:
            pairs.append(("Linux %s: mp_balloon against virtio_balloon" % k,
                          (k, "mp", "mp_balloon (movable_pool)"),
                          (k, "virtio", "virtio_balloon")))
        if k + "-plain" in runs:
            pairs.append(("Linux %s: the kernel's balloon on movable_pool "
                          "(patches/7.x) against the same kernel without "
                          "the series" % k,
                          (k, "virtio", "virtio_balloon, balloon on "
                           "movable_pool"),
                          (k + "-plain", "virtio", "virtio_balloon, "
                           "mm/balloon.c, same config")))
        elif k + "-debian" in runs:
            pairs.append(("Linux %s: the kernel's balloon on movable_pool "
                          "(patches/7.x) against Debian's own" % k,
                          (k, "virtio", "virtio_balloon, balloon on "
                           "movable_pool"),
                          (k + "-debian", "virtio", "virtio_balloon, Debian's "
                           "mm/balloon.c")))
    return pairs


def balloon_pair_table(t, title, a, b, w):
    w("")
    w(title)
    w("")
    w("| | %s | %s |" % (a[2], b[2]))
    w("|---|---|---|")
    ra, rb = t[a[:2]], t[b[:2]]
    w("| runs passed | %d of %d | %d of %d |" % (
        ra["ok"], ra["runs"], rb["ok"], rb["runs"]))
    if not (ra["ok"] and rb["ok"]):
        return
    for what, key, digits in BALLOON_ROWS:
        w("| %s | %s | %s |" % (what, fmt(ra[key], digits),
                                fmt(rb[key], digits)))


def balloon_targets(runs):
    """Equal huge pages and no slower, each within the runs' spread."""
    rows = []
    t = balloon_table(runs)
    for title, a, b in balloon_pairs(runs):
        ra, rb = t[a[:2]], t[b[:2]]
        name_a, name_b = a[2], b[2]
        if not (ra["ok"] and rb["ok"]):
            rows.append("| %s runs | %s | %d of %d passed | %s |" % (
                name_a, a[0], ra["ok"], ra["runs"], "**not met**"))
            continue
        for what, key, better in (
                ("huge pages while inflated", "huge", max),
                ("inflate time per GiB", "inflate", min),
                ("deflate time per GiB", "deflate", min)):
            m, v = ra[key]["median"], rb[key]
            # within the spread: not worse than the other's worst run
            worst = v["min"] if better is max else v["max"]
            ok = better(m, worst) == m
            rows.append("| %s: %s ≈ %s (median within its range, or "
                        "better) | %s | %.4g vs %.4g (%.4g–%.4g) | %s |"
                        % (what, name_a, name_b, a[0], m, v["median"],
                           v["min"], v["max"], "met" if ok else "**not met**"))
    return rows


def micro_section(micro, w):
    lines, died, failed = micro
    if not lines:
        return
    w("")
    w("## Allocation and pinning with 1, 2 and 4 vCPUs")
    w("")
    w("`bench_run --kind=micro`: every vCPU reads `bench_driver/micro` at "
      "once (a process pinned to each), which times, on that CPU, 256 pages "
      "of movable_pool_alloc_page()+movable_pool_free_page(), the bulk pair, "
      "and alloc_page()+__free_page(), best of 20 repetitions, and 256 "
      "pin+unpin of one page. All CPUs share one pool. Guests run "
      "multi-threaded TCG (one host thread per vCPU). The host has 2 cores, "
      "so 4 vCPUs measure contention, not speed-up. Debian's kernels zero "
      "every page they allocate (init_on_alloc), which TCG emulates slowly: "
      "that dominates each figure here, so the UML figures above are the "
      "ones that show the library's own cost. Figures: median (min–max) "
      "over every CPU of every boot, in ns per page.")
    w("")
    w("| kernel | vCPUs | boots | alloc+free | bulk alloc+free | alloc_page+__free_page | ratio | bulk ratio | pin+unpin |")
    w("|---|---|---|---|---|---|---|---|---|")
    keys = sorted({(r["kernel"], int(r["smp"])) for r in lines},
                  key=lambda x: ([int(v) for v in x[0].split(".")], x[1]))
    for k, smp in keys:
        rs = [r for r in lines if r["kernel"] == k and int(r["smp"]) == smp]
        get = lambda key: summary([float(r[key]) for r in rs if key in r])
        ratio = summary([float(r["alloc_free_ns"]) / float(r["alloc_page_ns"])
                         for r in rs])
        bratio = summary([float(r["bulk_ns"]) / float(r["alloc_page_ns"])
                          for r in rs])
        w("| %s | %d | %d | %s | %s | %s | %s× | %s× | %s |" % (
            k, smp, len({r["boot"] for r in rs}), fmt(get("alloc_free_ns")),
            fmt(get("bulk_ns")), fmt(get("alloc_page_ns")), fmt(ratio, 2),
            fmt(bratio, 2), fmt(get("pin_unpin_ns"))))
    boots = len({(r["kernel"], r["smp"], r["boot"]) for r in lines})
    attempts = boots + len(died) + len(failed)
    w("")
    w("Multi-threaded TCG boots: %d attempts, %d died before their test "
      "started (retried), %d failed in the test." % (attempts, len(died),
                                                    len(failed)))
    for d in died + failed:
        w("- %s" % " ".join("%s=%s" % kv for kv in d.items()))


def plot(bench, table, out_dir):
    """One PNG per kernel: huge pages against held share, with the limit."""
    pngs = []
    for k in bench.kernels:
        dat = os.path.join(out_dir, "huge-pages-%s.dat" % k)
        with open(dat, "w") as f:
            f.write("# held_pct limit " + " ".join(bench.kinds(k)) + "\n")
            for pct in bench.pcts:
                row = [str(pct), "%.1f" % table[(k, "pool", pct)]["limit"]["median"]]
                for kind in bench.kinds(k):
                    row.append("%g" % table[(k, kind, pct)]["huge"]["median"])
                f.write(" ".join(row) + "\n")
        png = os.path.join(out_dir, "huge-pages-%s.png" % k)
        lines = ['"%s" using 1:2 with lines dashtype 2 lw 2 lc rgb "black" '
                 'title "limit (no driver - held)"' % dat]
        for i, kind in enumerate(bench.kinds(k)):
            lines.append('"%s" using 1:%d with linespoints lw 2 pt %d '
                         'title "%s"' % (dat, i + 3, i + 5, LABEL[kind]))
        script = "\n".join([
            'set terminal png size 800,500 noenhanced',
            'set output "%s"' % png,
            'set title "Linux %s, 1 GiB guest: huge pages after compaction '
            '(median of boots)"' % k,
            'set xlabel "memory held with random holes (% of RAM)"',
            'set ylabel "2 MiB huge pages obtained"',
            'set key bottom left',
            'set grid',
            'set xtics (%s)' % ", ".join(str(p) for p in bench.pcts),
            'plot ' + ", \\\n     ".join(lines),
        ])
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        os.remove(dat)
        pngs.append(png)
    return pngs


def idle_summaries(points):
    """{(kernel, held_pct): summary of huge pages} of the anon boots with
    bench_driver.ko loaded idle (idle-KVER.txt)."""
    by = {}
    for p in points:
        by.setdefault((p["kernel"], int(p["held_pct"])), []).append(
            p["huge_pages"])
    return {key: summary(v) for key, v in by.items()}


def targets(bench, table, kunit, idle):
    rows = []

    # a note goes in the verdict's cell: a fifth cell would not show
    def row(what, kernel, got, ok, note=""):
        rows.append("| %s | %s | %s | %s%s |" % (
            what, kernel, got, "met" if ok else "**not met**",
            ": " + note if note else ""))

    for k in bench.kernels:
        t = lambda kind: table[(k, kind, 40)]
        if 40 not in bench.pcts:
            continue
        has_hand = "handrolled" in bench.kinds(k)
        pool, anon, unmov = (t(x)["huge"]["median"] for x in
                             ("pool", "anon", "unmovable"))
        if has_hand:
            hand = t("handrolled")["huge"]["median"]
            row("movable_pool ≥ hand-rolled (40% held, median huge pages)",
                k, "%g vs %g" % (pool, hand), pool >= hand)
        note = ""
        if pool < anon and (k, 40) in idle:
            got = idle[(k, 40)]["median"]
            note = "anon LRU with bench_driver.ko loaded idle got %g" % got
            if got <= pool:
                note += (": the cost of loading a module, which the driver "
                         "kinds pay and anon does not (see Huge pages)")
        row("movable_pool ≥ anon LRU (40% held)", k,
            "%g vs %g" % (pool, anon), pool >= anon, note)
        pl = t("pool")["pct_limit"]["median"]
        row("movable_pool ≥ 95% of the limit (40% held)", k, "%.1f%%" % pl,
            pl >= 95)
        lim = t("pool")["limit"]["median"]
        row("movable_pool ≥ 4× unmovable (40% held)", k,
            "%.1f×" % (pool / unmov if unmov else float("inf")),
            unmov == 0 or pool >= 4 * unmov,
            "movable_pool is at the limit (%.0f); 4× would need unmovable "
            "≤ %.0f, it got %g" % (lim, lim / 4, unmov))
        if has_hand:
            sp = t("pool")["sunreclaim"]["median"]
            sh = t("handrolled")["sunreclaim"]["median"]
            row("SUnreclaim: movable_pool ≤ hand-rolled + 1 MiB (40% held)",
                k, "%.1f vs %.1f MiB" % (sp, sh), sp <= sh + 1)
        up, ua = t("pool")["us_per_page"], t("anon")["us_per_page"]
        if up and ua:
            r = up["median"] / ua["median"]
            row("migration ≤ 1.0× anon page migration (compaction pass, "
                "time per migrated page, 40% held)", k,
                "%.2f vs %.2f µs: %.2f×" % (up["median"], ua["median"], r),
                r <= 1.0)
    for k, m in sorted(kunit.items()):
        for key, limit in (("alloc+free vs alloc_page+__free_page", 1.5),
                           ("bulk alloc+free vs "
                            "alloc_pages_bulk+release_pages", 1.5),
                           ("migrate vs copy_highpage", 1.5)):
            if key in m:
                r = statistics.median(x[2] for x in m[key])
                row("%s ≤ %g× (UML, no debug options)" % (key, limit), k,
                    "%.2f×" % r, r <= limit,
                    "" if r <= limit else kunit_floor_note(m, key))
    return rows


def kunit_floor_note(m, key):
    """What test_bench_floor and the migration floor say of a missed
    ratio: the part of it no bookkeeping of ours could remove."""
    def ns(what, i=0):
        return statistics.median(x[i] for x in m[what]) if what in m else None

    lock = ns("page lock at alloc and free vs alloc_page+__free_page")
    if key.startswith("alloc+free"):
        irq = ns("two irq-safe lock pairs vs alloc_page+__free_page")
        if lock is None or irq is None:
            return ""
        ours, base = ns(key), ns(key, 1)
        return ("of our %g ns against the baseline's %g: the page lock %g "
                "ns, the two irq-safe pool-lock pairs %g ns, the rest %g ns "
                "(test_bench_floor)" % (ours, base, lock, irq,
                                        ours - base - lock - irq))
    if key.startswith("bulk"):
        what = "page lock at alloc and free vs alloc_pages_bulk+release_pages"
        if what not in m:
            return ""
        return ("the page lock alone costs %g ns a page, the kernel's pair "
                "%g ns (test_bench_floor)" % (ns(what), ns(what, 1)))
    floor = "migrate vs alloc_page+copy_highpage+__free_page"
    alone = "alloc+copy+free vs copy_highpage"
    if floor not in m or alone not in m:
        return ""
    return ("any migration allocates, copies and frees: that floor is "
            "%.2f× copy_highpage, and migrate is %.2f× the floor" %
            (ns(alone, 2), ns(floor, 2)))


def mp_kernels(bench, args):
    """" 5.10, 6.1, ...": the kernels of every scenario this report has."""
    ks = set(bench.kernels) | {x[0] for t in (
        args.thp_table, args.gig_table, args.unplug_table, args.scale_table)
        for x in t}
    return " " + ", ".join(sorted(ks, key=kernel_key)) if ks else ""


def huge_sections(bench, table, idle, pngs, w):
    """The huge-page scenario's tables: huge pages obtained, what the held
    pages cost besides themselves, compaction and migration cost."""
    w("## Huge pages obtained")
    for k in bench.kernels:
        w("")
        w("Linux %s; no driver: %s huge pages, MemFree %s MiB, SUnreclaim "
          "%s MiB (%d boots)." % (
              k, fmt(table[(k, "none", 0)]["huge"]),
              fmt(table[(k, "none", 0)]["free"]),
              fmt(table[(k, "none", 0)]["sunreclaim"], 1),
              table[(k, "none", 0)]["huge"]["runs"]))
        w("")
        kinds = bench.kinds(k)
        w("| held | limit | " + " | ".join(LABEL[x] for x in kinds) + " |")
        w("|---|---|" + "---|" * len(kinds))
        for pct in bench.pcts:
            cells = []
            for kind in kinds:
                c = table[(k, kind, pct)]
                cells.append("%s (%.0f%%)" % (fmt(c["huge"]),
                                             c["pct_limit"]["median"]))
            c = table[(k, "pool", pct)]
            w("| %d%% (%s MiB) | %.0f | %s |" % (
                pct, fmt(c["held"]), c["limit"]["median"], " | ".join(cells)))
        for (ik, pct), c in sorted(idle.items()):
            if ik == k:
                w("")
                w("anon LRU with bench_driver.ko loaded idle, holding one "
                  "pool page (`bench_run --idle-driver`), %d%% held: %s "
                  "huge pages (%d boots). The driver kinds load a module "
                  "and anon does not; on 7.x the first module loaded fills "
                  "execmem's cache of module text with a 2 MiB block."
                  % (pct, fmt(c), c["runs"]))
        w("")
        w("![huge pages, %s](results/%s)" % (k, os.path.basename(pngs[bench.kernels.index(k)])))
    w("")
    w("## Memory the held pages cost besides themselves")
    w("")
    w("SUnreclaim and MemFree after fragmenting (MiB).")
    for k in bench.kernels:
        w("")
        w("Linux %s" % k)
        w("")
        kinds = bench.kinds(k)
        w("| held | " + " | ".join("%s SUnreclaim" % LABEL[x] for x in kinds) + " |")
        w("|---|" + "---|" * len(kinds))
        for pct in bench.pcts:
            w("| %d%% | %s |" % (pct, " | ".join(
                fmt(table[(k, x, pct)]["sunreclaim"], 1) for x in kinds)))
        w("")
        w("| held | " + " | ".join("%s MemFree" % LABEL[x] for x in kinds) + " |")
        w("|---|" + "---|" * len(kinds))
        for pct in bench.pcts:
            w("| %d%% | %s |" % (pct, " | ".join(
                fmt(table[(k, x, pct)]["free"]) for x in kinds)))
    w("")
    w("## Compaction and migration cost")
    w("")
    w("One `compact_memory` pass right after fragmenting: its wall time, the "
      "pages it migrated (`pgmigrate_success`), and time per migrated page. "
      "Pages migrated over the whole run (pass and huge page requests) in "
      "the last column.")
    for k in bench.kernels:
        w("")
        w("Linux %s" % k)
        w("")
        w("| held | kind | pass time (ms) | µs per migrated page | pages migrated (whole run) |")
        w("|---|---|---|---|---|")
        for pct in bench.pcts:
            for kind in bench.kinds(k):
                c = table[(k, kind, pct)]
                w("| %d%% | %s | %s | %s | %s |" % (
                    pct, LABEL[kind], fmt(c["compact_ms"]),
                    fmt(c["us_per_page"], 2), fmt(c["migrated"])))


def markdown(bench, table, kunit, failed, pngs, args):
    L = []
    w = L.append
    w("# make bench: results")
    w("")
    w("Produced by `make bench` (tools/testing/bench/); every figure below "
      "is computed by tools/testing/bench/report.py from the guests' "
      "output. Reproduce with `make bench`%s." %
      (" (about %d minutes here with warm caches)" % round(args.seconds / 60)
       if args.seconds else
       ": this report joins the phases of runs resumed with "
       "`MP_BENCH_RESUME=1` (see Phases), so it has no time for the whole"
       if args.phases_data else
       ": this report was written from the raw files of partial runs, so "
       "it has no time for the whole"))
    w("")
    w("Machine: %s, %d cores; guests: qemu TCG (one thread per guest, "
      "several guests at a time: see each scenario), 2 vCPUs; the huge-page guests "
      "1 GiB with THP off, the other scenarios' sizes in their sections; "
      "kernels"
      "%s: Debian's own, except 7.x, which is patches/7.x on Debian's "
      "source and config (`make kernel`, tools/testing/kernel/). On 7.x "
      "there is no hand-rolled row: from 6.17 only in-tree code can make "
      "pages movable, so no out-of-tree driver can hand-roll it there, and "
      "movable_pool is in-tree." % (platform.machine(), os.cpu_count(),
                                   mp_kernels(bench, args)))
    w("")
    w("## Method")
    w("")
    w("Each boot holds one kind of memory with random holes: it allocates "
      "twice the held share (or what free memory allows, less 128 MiB), "
      "then frees pages at random until the share is left, with the same "
      "seeded sequence for every kind.%s Every held page is checked "
      "afterwards." % (
          " Then it reads MemFree and SUnreclaim, times one `compact_memory` "
          "pass, and asks for as many 2 MiB huge pages as free memory less "
          "48 MiB could hold, best of 3 (each try compacts first)."
          if bench.kernels else ""))
    w("")
    for kind in KINDS:
        w("- **%s**: %s" % (LABEL[kind], {
            "none": "nothing held: the ceiling.",
            "anon": "a process holding anonymous memory, holes punched with "
                    "MADV_DONTNEED (LRU pages; their page tables are "
                    "unmovable).",
            "handrolled": "`bench_driver.ko kind=handrolled`: its own "
                          "`struct movable_operations` (on 5.10 the "
                          "`address_space_operations` of an inode of its "
                          "own), the table slot in `page->private`, "
                          "nothing else per page.",
            "pool": "`bench_driver.ko kind=pool`: the same driver on "
                    "movable_pool.",
            "unmovable": "`bench_driver.ko kind=unmovable`: "
                         "`alloc_page(GFP_KERNEL)`.",
        }[kind]))
    w("")
    w("All three driver kinds keep one pointer per page in a vmalloc'd "
      "table and differ only in where their pages come from and how they "
      "move, so the comparison isolates the library.%s Figures are median "
      "(min–max) over the boots." % (
          " **limit** = the no-driver median less held MiB / 2: what "
          "compaction could reach if held memory were perfectly packed."
          if bench.kernels else ""))
    w("")
    # a partial run may have no huge-page points
    if bench.kernels:
        huge_sections(bench, table, args.idle_data, pngs, w)
    if kunit:
        w("")
        w("## Microbenchmarks (KUnit, UML, build without debug options)")
        w("")
        w("256 pages, best of 20 repetitions inside each run; median "
          "(min–max) over %d runs." % max(len(v) for m in kunit.values()
                                          for v in m.values()))
        w("")
        w("| kernel | what | ours (ns/page) | baseline (ns/page) | ratio |")
        w("|---|---|---|---|---|")
        for k, m in sorted(kunit.items()):
            for key, vals in m.items():
                w("| %s | %s | %s | %s | %s× |" % (
                    k, key, fmt(summary([v[0] for v in vals])),
                    fmt(summary([v[1] for v in vals])),
                    fmt(summary([v[2] for v in vals]), 2)))
    w("")
    w("## Targets")
    w("")
    w("| target | kernel | got | |")
    w("|---|---|---|---|")
    L.extend(targets(bench, table, kunit, args.idle_data))
    L.extend(balloon_targets(args.balloon_data))
    L.extend(report_thp.targets(args.thp_table))
    L.extend(report_gigantic.targets(args.gig_table))
    L.extend(report_unplug.targets(args.unplug_table))
    L.extend(report_scale.targets(args.scale_table))
    report_thp.section(args.thp_table, args.thp_png, w)
    report_gigantic.section(args.gig_table, args.gig_png, w)
    report_unplug.section(args.unplug_table, args.unplug_png, w)
    balloon_section(args.balloon_data, w)
    balloon_micro_section(args.balloon_micro_data, w)
    micro_section(args.micro_data, w)
    report_scale.section(args.scale_table, args.scale_png, w)
    phases_section(args.phases_data, w)
    if failed:
        w("")
        w("## Boots that failed")
        w("")
        for f in failed:
            w("- %s" % " ".join("%s=%s" % kv for kv in f.items()))
    w("")
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("points", nargs="*")
    ap.add_argument("--out", required=True)
    ap.add_argument("--kunit", nargs="*", default=[])
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--phases")
    ap.add_argument("--micro", nargs="*", default=[])
    ap.add_argument("--balloon", nargs="*", default=[])
    ap.add_argument("--balloon-micro", nargs="*", default=[])
    ap.add_argument("--thp", nargs="*", default=[])
    ap.add_argument("--gigantic", nargs="*", default=[])
    ap.add_argument("--unplug", nargs="*", default=[])
    ap.add_argument("--scale", nargs="*", default=[])
    ap.add_argument("--idle", nargs="*", default=[])
    args = ap.parse_args()
    args.micro_data = parse_micro(args.micro)
    args.balloon_data = parse_balloon(args.balloon)
    args.balloon_micro_data = parse_balloon_micro(args.balloon_micro)
    args.phases_data = parse_phases(args.phases)

    points, failed = parse_points(args.points)
    thp_points, thp_failed = parse_points(args.thp)
    gig_points, gig_failed = parse_points(args.gigantic)
    unplug_points, unplug_failed = parse_points(args.unplug)
    scale_points, scale_failed = parse_points(args.scale)
    idle_points, idle_failed = parse_points(args.idle)
    args.idle_data = idle_summaries(idle_points)
    failed += thp_failed + gig_failed + unplug_failed + scale_failed + \
        idle_failed
    bench = Bench(points)
    table = bench.collect()
    args.thp_table, thp_rows = report_thp.collect(thp_points)
    args.gig_table, gig_rows = report_gigantic.collect(gig_points)
    args.unplug_table, unplug_rows = report_unplug.collect(unplug_points)
    args.scale_table, scale_rows = report_scale.collect(scale_points)
    kunit = parse_kunit(args.kunit)
    res = os.path.join(args.out, "results")
    os.makedirs(res, exist_ok=True)
    pngs = plot(bench, table, res)
    args.thp_png = report_thp.plot(args.thp_table, res)
    args.gig_png = report_gigantic.plot(args.gig_table, res)
    args.unplug_png = report_unplug.plot(args.unplug_table, res)
    args.scale_png = report_scale.plot(args.scale_table, res)
    with open(os.path.join(res, "latest.json"), "w") as f:
        json.dump(bench.metrics + thp_rows + gig_rows + unplug_rows + scale_rows + [
            dict(metric="huge_pages", kernel=k, kind="anon", held_pct=pct,
                 unit="pages", scenario="idle", **c)
            for (k, pct), c in sorted(args.idle_data.items())] + [
            dict(metric=key, kernel=k, kind="pool", held_pct=None, unit="x",
                 scenario="kunit", **summary([v[2] for v in vals]))
            for k, m in sorted(kunit.items()) for key, vals in m.items()],
            f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out, "RESULTS.md"), "w") as f:
        f.write(markdown(bench, table, kunit, failed, pngs, args))
    print(open(os.path.join(args.out, "RESULTS.md")).read())
    if failed:
        print("%d boots failed" % len(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
