#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's half of make bench's virtio-mem scenario (bench_run.c,
--scenario=unplug), as a cloud host taking memory back.

Follows the guest's serial log; on "MP_HOST unplug=MIB" it lowers the
virtio-mem-pci device's requested-size to MIB through QMP (qom-set), then
reads the device's plugged size (qom-get) until it reaches the request or
has not changed for SETTLE seconds (MAX at most). Prints
"UNPLUG_HOST requested_mib=... unplugged_mib=... unplug_s=..." (unplug_s:
from the request to the last change of size) and waits for QEMU to exit.
The request is made once: after QEMU exits, mp_boot rewrites the log,
which QMP.guest_lines() then reads again from the start.
"""
import argparse
import sys
import time

from qmp import QMP

# virtio_mem retries a failed unplug after 50 s: wait longer than that
SETTLE = 65
MAX = 360
MIB = 1 << 20


def unplug(qmp, dev, want_mib):
    path = "/machine/peripheral/" + dev
    before = qmp.cmd("qom-get", path=path, property="size")
    qmp.cmd("qom-set", path=path, property="requested-size",
            value=want_mib * MIB)
    start = moved = time.time()
    size = before
    while size > want_mib * MIB and time.time() - moved < SETTLE and \
            time.time() - start < MAX:
        time.sleep(0.2)
        now = qmp.cmd("qom-get", path=path, property="size")
        if now != size:
            size, moved = now, time.time()
    print(f"UNPLUG_HOST requested_mib={(before >> 20) - want_mib} "
          f"unplugged_mib={(before - size) >> 20} "
          f"unplug_s={moved - start:.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--qmp", required=True)
    ap.add_argument("--device", required=True, help="virtio-mem-pci id")
    args = ap.parse_args()
    done = False
    try:
        qmp = QMP(args.qmp)
        for line in qmp.guest_lines(args.log):
            if line.startswith("MP_HOST unplug=") and not done:
                unplug(qmp, args.device, int(line.split("=")[1]))
                done = True
            elif line.startswith("MP_EXIT "):
                qmp.wait_exit()
                return 0
    except (OSError, EOFError, RuntimeError) as err:
        # QEMU gone after the measurement: the guest's exit decides
        if done and isinstance(err, (EOFError, OSError)):
            return 0
        print(f"UNPLUG_HOST status=fail why='{err}'")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
