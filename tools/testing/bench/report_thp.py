# SPDX-License-Identifier: GPL-2.0
"""make bench's THP-at-fault scenario (bench_run --scenario=thp): while a
kind holds memory with holes, a process faults in 2 MiB transparent huge
pages with defrag=always, so compaction runs in the faulting task. The
table, the JSON rows (scenario "thp_fault") and one plot, from the
thp-KVER.txt points."""

import os
import subprocess

from report_common import KINDS, LABEL, fmt, kernel_key, summary

SCENARIO = "thp_fault"

# name, unit, value of one boot
METRICS = (
    ("thp_success", "%",
     lambda p: 100 * p["thp_alloc"] / max(1, p["thp_alloc"] + p["thp_fallback"])),
    ("thp_faulted_huge", "pages", lambda p: p["thp_alloc"]),
    ("fault_latency_median", "us", lambda p: p["fault_us_median"]),
    ("fault_latency_p99", "us", lambda p: p["fault_us_p99"]),
    ("compact_stalls", "stalls", lambda p: p["compact_stall"]),
)


def collect(points):
    """{(kernel, kind): {metric: summary}}, and the rows for latest.json."""
    table, rows = {}, []
    for k in sorted({p["kernel"] for p in points}, key=kernel_key):
        for kind in KINDS:
            ps = [p for p in points if p["kernel"] == k and p["kind"] == kind]
            if not ps:
                continue
            cell = {"held_pct": int(ps[0]["held_pct"])}
            for name, unit, fn in METRICS:
                cell[name] = summary([fn(p) for p in ps])
                rows.append(dict(metric=name, kernel=k, kind=kind,
                                 held_pct=cell["held_pct"], unit=unit,
                                 scenario=SCENARIO, **cell[name]))
            table[(k, kind)] = cell
    return table, rows


def plot(table, out_dir):
    """Bars: the share of faults that got a huge page, per kernel and kind."""
    if not table:
        return None
    kernels = sorted({k for k, _ in table}, key=kernel_key)
    kinds = [x for x in KINDS if any((k, x) in table for k in kernels)]
    dat = os.path.join(out_dir, "thp-fault.dat")
    with open(dat, "w") as f:
        f.write("kernel " + " ".join('"%s"' % LABEL[x] for x in kinds) + "\n")
        for k in kernels:
            f.write(k + " " + " ".join(
                "%g" % table[(k, x)]["thp_success"]["median"]
                if (k, x) in table else "-" for x in kinds) + "\n")
    png = os.path.join(out_dir, "thp-fault.png")
    script = "\n".join([
        'set terminal png size 900,500 noenhanced',
        'set output "%s"' % png,
        'set title "Faults that got a THP, defrag=always (median of boots)"',
        'set style data histograms',
        'set style histogram clustered gap 1',
        'set style fill solid 0.8 border -1',
        'set datafile missing "-"',
        'set yrange [0:100]',
        'set ylabel "% of faults"',
        'set key outside right top',
        'set grid ytics',
        'plot for [i=2:%d] "%s" using i:xtic(1) title columnheader'
        % (len(kinds) + 1, dat),
    ])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(dat)
    return png


def section(table, png, w):
    if not table:
        return
    w("")
    w("## THP at fault time")
    w("")
    w("No `compact_memory` and no hugetlb request here: with "
      "`transparent_hugepage/enabled` and `defrag` set to `always`, a "
      "process faults in 2 MiB THPs, as many as free memory less 64 MiB "
      "could hold, one fault per 2 MiB, each timed, so direct compaction "
      "runs in the faulting task (async, then sync-light). **huge** is "
      "`thp_fault_alloc` against `thp_fault_alloc + thp_fault_fallback`; "
      "latency is per fault, a fallback's included (the compaction it tried "
      "first). Median (min–max) over the boots.")
    w("")
    w("| kernel | kind | held | huge at fault | THPs | fault latency, median (µs) | p99 (µs) | compaction stalls |")
    w("|---|---|---|---|---|---|---|---|")
    for (k, kind), c in table.items():
        w("| %s | %s | %d%% | %s%% | %s | %s | %s | %s |" % (
            k, LABEL[kind], c["held_pct"], fmt(c["thp_success"]),
            fmt(c["thp_faulted_huge"]), fmt(c["fault_latency_median"]),
            fmt(c["fault_latency_p99"]), fmt(c["compact_stalls"])))
    if png:
        w("")
        w("![THP at fault time](results/%s)" % os.path.basename(png))
