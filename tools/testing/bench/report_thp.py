# SPDX-License-Identifier: GPL-2.0
"""make bench's THP-at-fault scenario (bench_run --scenario=thp): while a
kind holds memory with holes, a process faults in 2 MiB transparent huge
pages with defrag=always, so compaction runs in the faulting task. The
table, the JSON rows (scenario "thp_fault") and one plot, from the
thp-KVER.txt points."""

import os

from report_common import KINDS, LABEL, bar_chart, fmt, kernel_key, summary

SCENARIO = "thp_fault"

# name, unit, value of one boot
METRICS = (
    ("thp_success", "%",
     lambda p: 100 * p["thp_alloc"] / max(1, p["thp_alloc"] + p["thp_fallback"])),
    ("thp_faulted_huge", "pages", lambda p: p["thp_alloc"]),
    ("fault_latency_median", "us", lambda p: p["fault_us_median"]),
    ("fault_latency_p99", "us", lambda p: p["fault_us_p99"]),
    ("huge_fault_latency_median", "us", lambda p: p["huge_fault_us_median"]),
    ("huge_fault_latency_p99", "us", lambda p: p["huge_fault_us_p99"]),
    ("compact_stalls", "stalls", lambda p: p["compact_stall"]),
)


def collect(points):
    """{(kernel, kind, held_pct): {metric: summary}}, and the rows for
    latest.json."""
    table, rows = {}, []
    keys = {(p["kernel"], p["kind"], int(p["held_pct"])) for p in points}
    for k, kind, pct in sorted(keys, key=lambda x: (
            kernel_key(x[0]), x[2], KINDS.index(x[1]))):
        ps = [p for p in points if p["kernel"] == k and p["kind"] == kind
              and int(p["held_pct"]) == pct]
        cell = {}
        for name, unit, fn in METRICS:
            cell[name] = summary([fn(p) for p in ps])
            rows.append(dict(metric=name, kernel=k, kind=kind, held_pct=pct,
                             unit=unit, scenario=SCENARIO, **cell[name]))
        table[(k, kind, pct)] = cell
    return table, rows


def targets(table):
    """Markdown rows of the Targets table: movable_pool's THP success at
    fault as high as anon's and hand-rolled's (to one fault in a hundred:
    the medians are of ~240 faults)."""
    out = []
    for k, kind, pct in sorted(table, key=lambda x: kernel_key(x[0])):
        if kind != "pool":
            continue
        ours = table[(k, kind, pct)]["thp_success"]["median"]
        for other in ("anon", "handrolled"):
            if (k, other, pct) not in table:
                continue
            theirs = table[(k, other, pct)]["thp_success"]["median"]
            out.append("| THP at fault ≥ %s, to 1 point (%d%% held, huge "
                       "faults) | %s | "
                       "%.0f%% vs %.0f%% | %s |" % (
                           LABEL[other], pct, k, ours, theirs,
                           "met" if ours + 1 >= theirs else "**not met**"))
    return out


def plot(table, out_dir):
    """Bars: the share of faults that got a huge page, per kernel and kind
    (at each kernel's largest held share)."""
    if not table:
        return None
    kinds = [x for x in KINDS if any(t[1] == x for t in table)]
    groups = {}
    for (k, x, _), c in sorted(table.items(), key=lambda i: i[0][2]):
        groups.setdefault(k, {})[x] = c["thp_success"]["median"]
    return bar_chart(
        out_dir, "thp-fault",
        "Faults that got a THP, defrag=always (median of boots)",
        ['set yrange [0:100]', 'set ylabel "% of faults"'], kinds,
        sorted(groups.items(), key=lambda g: kernel_key(g[0])))


def section(table, png, w):
    if not table:
        return
    w("")
    w("## THP at fault time")
    w("")
    w("No `compact_memory` and no hugetlb request here: with "
      "`transparent_hugepage/enabled` and `defrag` set to `always`, a "
      "process faults in 2 MiB THPs of a `MADV_HUGEPAGE` region, as many "
      "as free memory less 64 MiB could hold, one fault per 2 MiB, so a "
      "fault that finds no free 2 MiB block compacts in the faulting task "
      "(async, then sync-light, with retries; khugepaged kept out). "
      "**huge** is `thp_fault_alloc` against `thp_fault_alloc + "
      "thp_fault_fallback`. Each fault is timed alone: all faults (a "
      "fallback's included, with the compaction it tried first), and the "
      "huge ones, which include zeroing 2 MiB under TCG. Median (min–max) "
      "over the boots.")
    w("")
    w("| kernel | kind | held | huge at fault | THPs | compaction stalls | "
      "all faults, median / p99 (µs) | huge faults, median / p99 (µs) |")
    w("|---|---|---|---|---|---|---|---|")
    for (k, kind, pct), c in table.items():
        w("| %s | %s | %d%% | %s%% | %s | %s | %s / %s | %s / %s |" % (
            k, LABEL[kind], pct, fmt(c["thp_success"]),
            fmt(c["thp_faulted_huge"]), fmt(c["compact_stalls"]),
            fmt(c["fault_latency_median"]), fmt(c["fault_latency_p99"]),
            fmt(c["huge_fault_latency_median"]),
            fmt(c["huge_fault_latency_p99"])))
    if png:
        w("")
        w("![THP at fault time](results/%s)" % os.path.basename(png))
