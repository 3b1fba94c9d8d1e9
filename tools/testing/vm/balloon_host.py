#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's half of the balloon test (balloon.sh), as a hypervisor.

Follows the guest's serial log; for every "MP_HOST balloon=MIB" line it
sets that balloon size through QMP ("balloon"), polls "query-balloon" until
the guest reports it, times that, and reads the monitor's "info balloon".
When QEMU has exited it replays QEMU's trace of the balloon queues (which
frame went to which queue) and checks the guest against it:
  - no frame is inflated while the host holds it, nor deflated when the
    host does not hold it, nor refused as a bad address;
  - the host holds nothing after the final deflate;
  - frames inflated == pages inflated + pages migrated, and frames deflated
    == pages deflated + pages migrated, from the guest's own counters: each
    migration told the host both frames;
  - every "MP_BALLOON_STATE" snapshot with frames/sum/xor (mp_balloon's)
    equals, in order, the host's holdings at some point of the replay.
Prints "BALLOON_HOST ..." lines and a final "BALLOON_HOST_RESULT status=...".
"""
import argparse
import re
import sys
import time

from qmp import QMP

TIMEOUT = 900


def resize(qmp, ram_mib, mib, failures):
    want = (ram_mib - mib) << 20
    start = time.time()
    qmp.cmd("balloon", value=want)
    while qmp.cmd("query-balloon")["actual"] != want:
        if time.time() - start > TIMEOUT:
            failures.append(f"balloon={mib}: guest never got there")
            return
        time.sleep(0.01)
    secs = time.time() - start
    info = qmp.cmd("human-monitor-command",
                   **{"command-line": "info balloon"}).strip()
    if info != f"balloon: actual={ram_mib - mib}":
        failures.append(f"balloon={mib}: info balloon says '{info}'")
    print(f"BALLOON_HOST resize={mib} seconds={secs:.3f} info='{info}'",
          flush=True)


def drive(args, failures):
    """Serve the guest's requests; return its log lines of interest."""
    qmp = QMP(args.qmp)
    seen = []
    for line in qmp.guest_lines(args.log):
        if line.startswith(("MP_BALLOON_STATE ", "BALLOON_RESULT ")):
            seen.append(line)
        match = re.match(r"MP_HOST balloon=(\d+)$", line)
        if match:
            resize(qmp, args.ram, int(match.group(1)), failures)
        if line.startswith("MP_EXIT "):
            qmp.wait_exit()
            return seen
    return seen


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def replay(trace, snapshots, failures):
    """Replay the queues; return (inflated, deflated, most held, matched)."""
    queues, cur = {}, None
    held = set()
    count = total = xor = 0
    inflated = deflated = most = matched = 0
    notify = re.compile(r"virtio_queue_notify vdev \S+ n (\d+) vq (\S+)")
    pop = re.compile(r"virtqueue_pop vq (\S+) ")
    out = re.compile(r"virtio_balloon_handle_output .* gpa: 0x([0-9a-f]+)")

    def check_snapshot():
        nonlocal matched
        while matched < len(snapshots) and \
                snapshots[matched] == (count, total, xor):
            matched += 1

    check_snapshot()
    with open(trace, errors="replace") as log:
        for line in log:
            if m := out.search(line):
                frame = int(m.group(1), 16) >> 12
                if cur == 0:
                    if frame in held:
                        failures.append(f"frame {frame:#x} inflated twice")
                    held.add(frame)
                    inflated += 1
                    count, total, xor = count + 1, total + frame, xor ^ frame
                elif cur == 1:
                    if frame not in held:
                        failures.append(f"frame {frame:#x} deflated, not held")
                    held.discard(frame)
                    deflated += 1
                    count, total, xor = count - 1, total - frame, xor ^ frame
                else:
                    failures.append(f"frame {frame:#x} on queue {cur}")
                most = max(most, count)
                check_snapshot()
            elif m := pop.search(line):
                cur = queues.get(m.group(1))
            elif m := notify.search(line):
                queues[m.group(2)] = int(m.group(1))
            elif "virtio_balloon_bad_addr" in line:
                failures.append("device refused a frame: " + line.strip())
    if held:
        failures.append(f"{len(held)} frames still held at the end")
    return inflated, deflated, most, matched


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--ram", type=int, required=True, help="guest MiB")
    args = ap.parse_args()
    failures = []
    try:
        seen = drive(args, failures)
    except (OSError, EOFError, RuntimeError) as err:
        print(f"BALLOON_HOST_RESULT status=fail why='{err}'")
        return 1
    result = [fields(s) for s in seen if s.startswith("BALLOON_RESULT ")]
    snapshots = [(int(f["frames"]), int(f["sum"]), int(f["xor"]))
                 for f in map(fields, seen) if "frames" in f]
    inflated, deflated, most, matched = replay(args.trace, snapshots,
                                               failures)
    if not result:
        failures.append("no BALLOON_RESULT from the guest")
    else:
        g = {k: int(result[0][k]) for k in ("inflated", "deflated",
                                            "migrated")}
        if inflated != g["inflated"] + g["migrated"]:
            failures.append(f"host saw {inflated} frames inflated, guest "
                            f"{g['inflated']} + {g['migrated']} migrated")
        if deflated != g["deflated"] + g["migrated"]:
            failures.append(f"host saw {deflated} frames deflated, guest "
                            f"{g['deflated']} + {g['migrated']} migrated")
    if matched != len(snapshots):
        failures.append(f"guest snapshot {matched + 1} of {len(snapshots)} "
                        "never matched what the host held")
    for why in failures[:10]:
        print(f"BALLOON_HOST problem: {why}")
    print(f"BALLOON_HOST_RESULT status={'fail' if failures else 'ok'} "
          f"inflated_frames={inflated} deflated_frames={deflated} "
          f"most_held={most} snapshots={matched}/{len(snapshots)} "
          f"problems={len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
