# SPDX-License-Identifier: GPL-2.0
"""What report.py and its scenario modules share: the kinds, their labels,
the points parser and the median (min–max) summaries."""

import os
import re
import statistics
import subprocess

KINDS = ["none", "anon", "handrolled", "pool", "unmovable"]
LABEL = {
    "none": "no driver",
    "anon": "anon LRU",
    "handrolled": "hand-rolled movable_ops",
    "pool": "movable_pool",
    "unmovable": "unmovable",
}


def record(line):
    """The key=value fields of a raw line, as a dict of strings."""
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def parse_points(paths):
    points, failed = [], []
    for path in paths:
        with open(path) as f:
            for line in f:
                rec = record(line)
                if rec.get("status") != "ok":
                    failed.append(rec)
                    continue
                for k, v in rec.items():
                    if k not in ("kernel", "kind", "status") and \
                            re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", v):
                        rec[k] = float(v)
                points.append(rec)
    return points, failed


def area_points(points, areas):
    """Yield (kernel, area, kind, held_pct, points) for each kernel, area
    and kind that has points, keeping the largest held share of each: a
    scenario run at one share unless asked otherwise."""
    for k in sorted({p["kernel"] for p in points}, key=kernel_key):
        for area in areas:
            for kind in KINDS:
                ps = [p for p in points if p["kernel"] == k and
                      p["area"] == area and p["kind"] == kind]
                if not ps:
                    continue
                pct = max(int(p["held_pct"]) for p in ps)
                yield k, area, kind, pct, [p for p in ps
                                           if int(p["held_pct"]) == pct]


def summary(values):
    return {
        "runs": len(values),
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
    }


def fmt(s, digits=0):
    if s is None:
        return "-"
    f = "{:.%df}" % digits
    if s["min"] == s["max"]:
        return f.format(s["median"])
    return (f + " ({}–{})").format(s["median"], f.format(s["min"]),
                                   f.format(s["max"]))


def kernel_key(kernel):
    """Sort "5.10" before "6.1" before "6.12" before "7.2"."""
    return [int(x) for x in kernel.split(".")]


def bar_chart(out_dir, name, title, axis, kinds, groups, labels=None):
    """results/NAME.png: a cluster of bars per group, one bar per kind.
    @groups: [(label, {kind: value})]; @axis: gnuplot lines for the y axis;
    @labels: the bars' names by kind (default: LABEL).
    """
    labels = labels or LABEL
    dat = os.path.join(out_dir, name + ".dat")
    with open(dat, "w") as f:
        f.write("group " + " ".join('"%s"' % labels[x] for x in kinds) + "\n")
        for label, values in groups:
            f.write('"%s" ' % label + " ".join(
                "%g" % values[x] if x in values else "-" for x in kinds) +
                "\n")
    png = os.path.join(out_dir, name + ".png")
    script = "\n".join([
        'set terminal png size 900,500 noenhanced',
        'set output "%s"' % png,
        'set title "%s"' % title,
        'set style data histograms',
        'set style histogram clustered gap 1',
        'set style fill solid 0.8 border -1',
        'set datafile missing "-"',
        'set key outside right top',
        'set grid ytics',
    ] + list(axis) + [
        'plot for [i=2:%d] "%s" using i:xtic(1) title columnheader'
        % (len(kinds) + 1, dat),
    ])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.remove(dat)
    return png
