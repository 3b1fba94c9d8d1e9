#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything `make check` runs. Each step prints RESULT lines; this script
# counts them and ends with "N passed, N failed". Exit status 1 on any
# failure. Steps: KUnit (UML, every kernel), module builds, lint, docs, VM
# tests, a 60-second stress per kernel, the Debian package, the virtio
# balloon sample against QEMU's device, and one point of make bench.
set -uo pipefail
here=$(dirname "$0")
. "$here/lib.sh"

results=$(mktemp)
trap 'rm -f "$results"' EXIT

step() {	# step NAME COMMAND...: run it, keep its RESULT lines
	local name=$1 out rc
	shift
	mp_log "== $name"
	out=$(mktemp)
	"$@" | tee "$out" | grep -v '^RESULT: pass'
	rc=${PIPESTATUS[0]}
	grep '^RESULT: ' "$out" >> "$results"
	# judged on its own lines: a step that failed without naming a
	# failure, or that named no result at all, fails as a whole
	if { [ "$rc" -ne 0 ] && ! grep -q '^RESULT: fail' "$out"; } ||
	   ! grep -q '^RESULT: ' "$out"; then
		mp_result fail "$name" | tee -a "$results"
	fi
	rm -f "$out"
}

mp_need_build_tools
step kunit bash "$here/kunit.sh"
step modules bash "$here/modules.sh"
step lint bash "$here/lint.sh"
step docs bash "$here/../docs/docs.sh"
if [ -x "$here/vm/vmtest.sh" ]; then
	step vmtest bash "$here/vm/vmtest.sh"
	# the short version of make stress, on Debian's own kernels
	step stress env DURATION=60 bash "$here/vm/stress.sh" "$MP_KVERS_OOT"
	# the Debian package in a Debian 12 root, DKMS, a driver built against
	# it, guests (make dkms-check, DKMS from this tree, is not repeated)
	step deb-check bash "$here/deb-check.sh"
	# mp_balloon against QEMU's virtio-balloon device, 256 MiB balloon
	step balloon bash "$here/vm/balloon.sh"
fi
step bench-smoke bash "$here/bench/bench.sh" --smoke

passed=$(grep -c '^RESULT: pass' "$results")
failed=$(grep -c '^RESULT: fail' "$results")
skipped=$(grep -c '^RESULT: skip' "$results")
if [ "$failed" -gt 0 ]; then
	echo "Failed:"
	grep '^RESULT: fail' "$results" | sed 's/^RESULT: fail /  /'
fi
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
