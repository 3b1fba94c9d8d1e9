# SPDX-License-Identifier: GPL-2.0
"""make bench's 1 GiB page scenario (bench_run --scenario=gigantic): while a
kind holds memory with holes in an 8 GiB guest, ask for as many 1 GiB
hugetlb pages as free memory allows, from anywhere ("normal") or, on
kernels with CMA, from a hugetlb_cma= area ("cma"). The table, the JSON
rows (scenario "gigantic" or "gigantic_cma") and one plot, from the
gigantic-*KVER.txt points."""

import os

from report_common import (KINDS, LABEL, area_points, bar_chart, fmt,
                           kernel_key, summary)

AREAS = ("normal", "cma")


def collect(points):
    """{(kernel, area, kind): summary of 1 GiB pages}, and JSON rows. One
    held share per run (GIG_PCTS is one value unless asked otherwise): a
    run with several keeps the largest."""
    table, rows = {}, []
    for k, area, kind, pct, ps in area_points(points, AREAS):
        s = summary([p["gigantic_pages"] for p in ps])
        table[(k, area, kind)] = s
        rows.append(dict(
            metric="gigantic_pages", kernel=k, kind=kind, held_pct=pct,
            unit="pages",
            scenario="gigantic" if area == "normal" else "gigantic_cma",
            **s))
    return table, rows


def targets(table):
    """Markdown rows of the Targets table: movable_pool gets as many 1 GiB
    pages as anon and hand-rolled, in each area (with the no-driver
    figure: where that is 0 too, or every held kind gets 0, the row says
    little)."""
    out = []
    for k, area, kind in sorted(table, key=lambda x: kernel_key(x[0])):
        if kind != "pool":
            continue
        ours = table[(k, area, kind)]["median"]
        none = table.get((k, area, "none"), {}).get("median")
        for other in ("anon", "handrolled"):
            if (k, area, other) not in table:
                continue
            theirs = table[(k, area, other)]["median"]
            out.append("| 1 GiB pages ≥ %s | %s, %s | %g vs %g%s | %s |" % (
                LABEL[other], k, "hugetlb_cma area only" if area == "cma"
                else "anywhere", ours, theirs,
                "" if none is None else " (no driver %g)" % none,
                "met" if ours >= theirs else "**not met**"))
    return out


def plot(table, out_dir):
    """Bars: 1 GiB pages per kernel (and area) and kind."""
    if not table:
        return None
    keys = sorted({(k, a) for k, a, _ in table},
                  key=lambda g: (kernel_key(g[0]), AREAS.index(g[1])))
    kinds = [x for x in KINDS if any(t[2] == x for t in table)]
    groups = [(k + ("" if a == "normal" else " (CMA)"),
               {x: table[(k, a, x)]["median"] for x in kinds
                if (k, a, x) in table}) for k, a in keys]
    return bar_chart(
        out_dir, "gigantic",
        "1 GiB pages obtained, 8 GiB guest (median of boots)",
        ['set yrange [0:*]', 'set ylabel "1 GiB pages"', 'set ytics 1'],
        kinds, groups)


def section(table, png, w):
    if not table:
        return
    w("")
    w("## 1 GiB pages at run time")
    w("")
    w("In 8 GiB guests, no compaction first: each kind holds its share with "
      "random holes, then the guest asks for as many 1 GiB hugetlb pages as "
      "free memory less 512 MiB could hold, again while granted. Each comes "
      "from `alloc_contig_range()` over a whole aligned GiB, which one "
      "unmovable page spoils. **CMA**: the kernel booted with "
      "`hugetlb_cma=` and `hugetlb_cma_only=1`, so the pages come only "
      "from a CMA area that movable pages (the pool's among them) were "
      "allowed to occupy; the area holds as many pages as its size in "
      "GiB, and the unmovable kind cannot enter it and is not run there. "
      "Median (min–max) over the boots.")
    w("")
    w("| kernel | area | " + " | ".join(LABEL[x] for x in KINDS) + " |")
    w("|---|---|" + "---|" * len(KINDS))
    for k, a in sorted({(k, a) for k, a, _ in table},
                       key=lambda g: (kernel_key(g[0]), AREAS.index(g[1]))):
        w("| %s | %s | %s |" % (k, "CMA" if a == "cma" else "any", " | ".join(
            fmt(table[(k, a, x)]) if (k, a, x) in table else "-"
            for x in KINDS)))
    if png:
        w("")
        w("![1 GiB pages](results/%s)" % os.path.basename(png))
