# SPDX-License-Identifier: GPL-2.0
"""make bench's virtio-mem scenario (bench_run --scenario=unplug): a guest
of 1 GiB boot memory and a virtio-mem device plugged at boot; while a kind
holds memory with holes, the host asks for all of the device's memory
back over QMP. The table, the JSON rows (scenario "unplug" or
"unplug_movable"), the targets and one plot, from the
unplug-*KVER.txt points."""

import os

from report_common import (KINDS, LABEL, area_points, bar_chart, fmt,
                           kernel_key, summary)

AREAS = ("normal", "movable")
# QEMU's virtio-mem-pci block size here: the unit the device unplugs in
BLOCK_MIB = 2
# name, unit, value of one boot
METRICS = (
    ("unplugged", "MiB", lambda p: p["unplugged_mib"]),
    ("unplugged_share", "%",
     lambda p: 100 * p["unplugged_mib"] / max(1, p["requested_mib"])),
    ("unplug_seconds", "s", lambda p: p["unplug_s"]),
    ("unplug_migrated", "pages", lambda p: p["pass_migrated"]),
)


def collect(points):
    """{(kernel, area, kind): {metric: summary}}, and JSON rows. One held
    share per run (UNPLUG_PCTS is one value unless asked otherwise): a run
    with several keeps the largest."""
    table, rows = {}, []
    for k, area, kind, pct, ps in area_points(points, AREAS):
        cell = {}
        for name, unit, fn in METRICS:
            cell[name] = summary([fn(p) for p in ps])
            rows.append(dict(
                metric=name, kernel=k, kind=kind, held_pct=pct, unit=unit,
                scenario="unplug" if area == "normal" else "unplug_movable",
                **cell[name]))
        cell["requested"] = summary([p["requested_mib"] for p in ps])
        cell["held_pct"] = pct
        table[(k, area, kind)] = cell
    return table, rows


def groups(table):
    return sorted({(k, a) for k, a, _ in table},
                  key=lambda g: (kernel_key(g[0]), AREAS.index(g[1])))


def plot(table, out_dir):
    """Bars: MiB unplugged per kernel (and zone) and kind."""
    if not table:
        return None
    kinds = [x for x in KINDS if any(t[2] == x for t in table)]
    return bar_chart(
        out_dir, "unplug",
        "virtio-mem: MiB given back of the device's (median of boots)",
        ['set yrange [0:*]', 'set ylabel "MiB unplugged"'], kinds,
        [(k + (" (movable)" if a == "movable" else ""),
          {x: table[(k, a, x)]["unplugged"]["median"] for x in kinds
           if (k, a, x) in table}) for k, a in groups(table)])


def targets(table):
    """Markdown rows of the Targets table: movable_pool unplugs as much as
    anon and hand-rolled (to one device block), and >= 95% of what the
    no-driver guest does."""
    out = []
    for k, a in groups(table):
        got = {x: table[(k, a, x)]["unplugged"]["median"]
               for x in KINDS if (k, a, x) in table}
        if "pool" not in got:
            continue
        where = "%s, %s zone" % (k, a)
        if "none" in got:
            share = 100 * got["pool"] / max(1, got["none"])
            out.append("| virtio-mem unplug ≥ 95%% of no driver | %s | "
                       "%.1f%% (%.0f of %.0f MiB) | %s |" % (
                           where, share, got["pool"], got["none"],
                           "met" if share >= 95 else "**not met**"))
        for other in ("anon", "handrolled"):
            if other in got:
                out.append("| virtio-mem unplug as much as %s (to one "
                           "%d MiB block) | %s | %.0f vs %.0f MiB | %s |" % (
                               LABEL[other], BLOCK_MIB, where, got["pool"],
                               got[other],
                               "met" if got["pool"] + BLOCK_MIB >= got[other]
                               else "**not met**"))
    return out


def section(table, png, w):
    if not table:
        return
    w("")
    w("## Memory unplug with virtio-mem")
    w("")
    w("Guests of 1 GiB boot memory and a `virtio-mem-pci` device of 1 GiB "
      "that Debian's `virtio_mem` plugs at boot, onlined to the normal "
      "zone (`memhp_default_state=online_kernel`: unmovable allocations "
      "prefer it, the hard case) or to ZONE_MOVABLE (`online_movable`: "
      "the unmovable kind cannot enter it and is not run there). Each kind "
      "then holds its share of all memory with random holes, so held "
      "pages land in the device's memory too, and the host sets the "
      "device's `requested-size` to 0 over QMP and reads its `size` until "
      "it reaches 0 or has not changed for 65 s (longer than the driver's "
      "first retry). **Unplugged**: MiB the device got back, of the MiB "
      "requested; **seconds**: from the request to the last change; "
      "**migrated**: pages the kernel migrated meanwhile. Median (min–max) "
      "over the boots.")
    w("")
    w("| kernel | zone | held | kind | unplugged (MiB) | of requested | "
      "seconds | migrated |")
    w("|---|---|---|---|---|---|---|---|")
    for k, a in groups(table):
        for x in KINDS:
            c = table.get((k, a, x))
            if not c:
                continue
            w("| %s | %s | %d%% | %s | %s | %s%% | %s | %s |" % (
                k, a, c["held_pct"], LABEL[x], fmt(c["unplugged"]),
                fmt(c["unplugged_share"], 1), fmt(c["unplug_seconds"], 1),
                fmt(c["unplug_migrated"])))
    if png:
        w("")
        w("![virtio-mem unplug](results/%s)" % os.path.basename(png))
