# SPDX-License-Identifier: GPL-2.0
"""make bench's cost of each operation by pool size (bench_scale.c, read by
bench_run --kind=scale): the table, the JSON rows (scenario "scale"), the
targets and one plot, from the scale-KVER.txt lines."""

import os

from report_common import bar_chart, fmt, kernel_key, summary

# field, what it times
OPS = (
    ("fill_ns", "alloc, filling the pool"),
    ("alloc_ns", "alloc at size"),
    ("free_ns", "free at size"),
    ("pin_unpin_ns", "pin+unpin at size"),
    ("take_ns", "take_pages at size"),
    ("destroy_ns", "teardown: free_pages, destroy"),
    ("base_fill_ns", "baseline: alloc_page, as many"),
    ("base_free_ns", "baseline: __free_page, each"),
)
FLAT = 1.5
# the page allocator's own figure for the same pages
BASE = {"fill_ns": "base_fill_ns", "destroy_ns": "base_free_ns"}


def collect(points):
    """{(kernel, op): {pages: summary}}, and JSON rows."""
    table, rows = {}, []
    for k in sorted({p["kernel"] for p in points}, key=kernel_key):
        for op, _ in OPS:
            cell = {}
            for n in sorted({int(p["pages"]) for p in points
                             if p["kernel"] == k}):
                vals = [p[op] for p in points
                        if p["kernel"] == k and p["pages"] == n]
                cell[n] = summary(vals)
                rows.append(dict(metric="scale_" + op[:-3], kernel=k,
                                 kind="pool", held_pct=None, unit="ns/page",
                                 scenario="scale", pool_pages=n, **cell[n]))
            table[(k, op)] = cell
    return table, rows


def growth(cell):
    """The largest pool's median over the smallest's."""
    sizes = sorted(cell)
    return cell[sizes[-1]]["median"] / max(1, cell[sizes[0]]["median"])


def targets(table):
    """Flat: growth ≤ FLAT, or for filling and teardown, which touch every
    page as the allocator does, no more than the allocator's own."""
    out = []
    for (k, op), cell in table.items():
        if len(cell) < 2 or op.startswith("base_"):
            continue
        g = growth(cell)
        base = table.get((k, BASE.get(op)))
        limit = max(FLAT, growth(base)) if base else FLAT
        out.append("| %s flat from %d to %d pages (≤ %.1f×%s) | %s | "
                   "%.2f×%s | %s |" % (
                       op[:-3], min(cell), max(cell), FLAT,
                       ", or as the allocator" if base else "", k, g,
                       " (the allocator alone: %.2f×)" % growth(base)
                       if base else "",
                       "met" if g <= limit else "**not met**"))
    return out


def plot(table, out_dir):
    """Bars: each per-page operation's cost at each size, per kernel."""
    if not table:
        return None
    kernels = sorted({k for k, _ in table}, key=kernel_key)
    sizes = sorted({n for c in table.values() for n in c})
    groups = [("%s %s" % (k, op[:-3]),
               {str(n): table[(k, op)][n]["median"]
                for n in sizes if n in table[(k, op)]})
              for k in kernels for op, _ in OPS if not op.startswith("base_")]
    return bar_chart(out_dir, "scale",
                     "ns per operation by pool size (median of boots)",
                     ['set yrange [0:*]', 'set ylabel "ns"',
                      'set xtics rotate by -30'],
                     [str(n) for n in sizes], groups,
                     {str(n): "%d pages" % n for n in sizes})


def section(table, png, w):
    if not table:
        return
    sizes = sorted({n for c in table.values() for n in c})
    w("")
    w("## Operation cost by pool size")
    w("")
    w("`bench_driver/scale` (tools/testing/bench/bench_scale.c), one guest "
      "per boot: a pool of its own filled one `movable_pool_alloc_page()` "
      "at a time to each size; at that size, 256 more pages allocated and "
      "freed one by one, one page pinned and unpinned 256 times, and "
      "`take_pages()` of 256 (given back with `add_page()`, untimed), each "
      "the best of 20 runs; then the driver's teardown: `free_pages()` of "
      "every page, 256 at a time, and `destroy()`. Filling and teardown "
      "are timed whole, best of three rounds at every size, beside "
      "the page allocator alone on as many pages (**baseline**), which "
      "meets the same caches and TLBs. Guest memory is touched once "
      "before, so QEMU's first-touch faults stay out of it. The "
      "pool's routine refuses to move pages meanwhile. **Growth**: the "
      "largest pool's median over the smallest's; flat means ≤ %.1f×, or "
      "for filling and teardown no more than the allocator's own. "
      "Median (min–max) over the boots, ns per page, under TCG." % FLAT)
    w("")
    w("| kernel | operation | " + " | ".join("%d pages" % n for n in sizes)
      + " | growth |")
    w("|---|---|" + "---|" * len(sizes) + "---|")
    for (k, op), cell in table.items():
        w("| %s | %s | %s | %.2f× |" % (
            k, dict(OPS)[op], " | ".join(fmt(cell.get(n)) for n in sizes),
            growth(cell)))
    if png:
        w("")
        w("![Operation cost by pool size](results/%s)" %
          os.path.basename(png))
