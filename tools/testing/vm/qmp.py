# SPDX-License-Identifier: GPL-2.0
"""What the host-side drivers of guests (balloon_host.py, unplug_host.py)
share: a QMP client, and a reader of the guest's serial log as it grows."""
import json
import socket
import time


class QMP:
    def __init__(self, path):
        deadline = time.time() + 120
        while True:
            try:
                sock = socket.socket(socket.AF_UNIX)
                sock.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.io = sock.makefile("rw")
        json.loads(self.io.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.io.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        self.io.flush()
        while True:
            line = self.io.readline()
            if not line:
                raise EOFError("QEMU has gone")
            reply = json.loads(line)
            if "error" in reply:
                raise RuntimeError(f"{name}: {reply['error']}")
            if "return" in reply:
                return reply["return"]

    def guest_lines(self, path):
        """Yield the guest's serial log lines from @path as they come;
        while there are none, ask QEMU every 2 s whether it is still there.
        Once it has gone, yield what the log still holds (the guest's last
        lines may land just before QEMU exits), then raise EOFError."""
        last_poll, gone = time.time(), False
        for line in follow(path):
            if line is not None:
                yield line
                continue
            if gone:
                raise EOFError("QEMU has gone")
            if time.time() - last_poll > 2:
                try:
                    self.cmd("query-status")
                except (OSError, EOFError):
                    gone = True
                    continue
                last_poll = time.time()
            time.sleep(0.05)

    def wait_exit(self):
        try:
            while self.io.readline():
                pass
        except OSError:
            pass    # gone already


def follow(path):
    """Yield the log's new lines as they come; None when idle."""
    pos, part = 0, ""
    while True:
        try:
            with open(path, errors="replace") as log:
                log.seek(0, 2)
                if log.tell() < pos:    # rewritten: start again
                    pos, part = 0, ""
                log.seek(pos)
                data = log.read()
                pos = log.tell()
        except FileNotFoundError:
            data = ""
        part += data
        *lines, part = part.split("\n")
        for line in lines:
            yield line.strip("\r")
        if not lines:
            yield None
