#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything `make check` runs. Each step prints RESULT lines; this script
# counts them and ends with "N passed, N failed". Exit status 1 on any
# failure. Steps: KUnit (UML, every kernel), module builds, lint, docs, VM
# tests (7.2: the patched kernel, make kernel), a 60-second stress on 6.12
# and 7.2, the Debian package, the virtio balloon sample and, on the
# patched 7.2, the kernel's own balloon against QEMU's device, and one
# point of make bench.
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
# bisectable: the patch the newest change to patches/7.x touched first
step series-check bash "$here/../upstream/series-check.sh" --last
step docs bash "$here/../docs/docs.sh"
if [ -x "$here/vm/vmtest.sh" ]; then
	step vmtest bash "$here/vm/vmtest.sh" "$MP_KVERS_ALL"
	# the short version of make stress: the newest Debian kernel and the
	# patched one (make stress covers the rest)
	step stress env DURATION=60 bash "$here/vm/stress.sh" \
		"$(mp_newest "$MP_KVERS_OOT") $(mp_newest "$MP_KVERS_ALL")"
	# the Debian package in a Debian 12 root, DKMS, a driver built against
	# it, guests (make dkms-check, DKMS from this tree, is not repeated)
	step deb-check bash "$here/deb-check.sh"
	# mp_balloon against QEMU's virtio-balloon device, 256 MiB balloon;
	# on 7.x the kernel's virtio_balloon, on movable_pool since patches/7.x
	step balloon bash "$here/vm/balloon.sh"
	step balloon-7.x bash "$here/vm/balloon.sh" --drivers=virtio \
		"$(mp_newest "$MP_KVERS_ALL")"
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
