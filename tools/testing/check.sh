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
#
# The steps run in two lanes at once, since most of them keep one core
# busy: builds (KUnit, lint, series-check, docs, then bench-smoke) and
# guests (everything else that boots qemu, the Debian package last). What
# both lanes read is fetched and built first, one thing at a time
# ("prepare"); after that neither writes what the other uses (lint and
# bench-smoke build modules and initramfs of their own, MP_BUILD_TAG). A
# step's output is printed whole when it ends, with its time.
# MP_CHECK_LANES=1 runs the lanes one after the other.
set -uo pipefail
here=$(dirname "$0")
. "$here/lib.sh"
. "$here/modules.sh"

results=$(mktemp)
trap 'rm -f "$results" "$results.lock"' EXIT

step() {	# step NAME COMMAND...: run it, keep its RESULT lines
	local name=$1 out rc start=$SECONDS
	shift
	out=$(mktemp)
	( "$@" ) > "$out" 2>&1
	rc=$?
	# judged on its own lines: a step that failed without naming a
	# failure, or that named no result at all, fails as a whole
	if { [ "$rc" -ne 0 ] && ! grep -q '^RESULT: fail' "$out"; } ||
	   ! grep -q '^RESULT: ' "$out"; then
		mp_result fail "$name" >> "$out"
	fi
	# one step's lines together, whichever lane finishes first
	(
		flock 9
		mp_log "== $name: $((SECONDS - start)) s"
		grep -v '^RESULT: pass' "$out"
		grep '^RESULT: ' "$out" >> "$results"
	) 9> "$results.lock"
	rm -f "$out"
}

# What both lanes use, made once before they start: the patched 7.x
# kernel (and the series applied for UML), Debian's headers and images.
prepare() {
	local kver
	for kver in $MP_KVERS_ALL; do
		case $kver in
		7.*)
			bash "$here/../upstream/apply-series.sh" "$kver" &&
			mp_patched_tree "$kver" > /dev/null &&
			mp_headers "$kver" > /dev/null || return 1
			[ ! -x "$here/vm/vmtest.sh" ] ||
				mp_vmlinuz "$kver-debian" > /dev/null || return 1
			;;
		*)
			mp_headers "$kver" > /dev/null || return 1
			[ ! -x "$here/vm/vmtest.sh" ] ||
				mp_vmlinuz "$kver" > /dev/null || return 1
			;;
		esac
	done
	mp_result pass prepare
}

lane_builds() {
	step kunit bash "$here/kunit.sh"
	step lint bash "$here/lint.sh"
	# bisectable: the patch the newest change to patches/7.x touched first
	step series-check bash "$here/../upstream/series-check.sh" --last
	step docs bash "$here/../docs/docs.sh"
	# guests too, but with modules and initramfs of their own
	step bench-smoke env MP_BUILD_TAG=builds bash "$here/bench/bench.sh" --smoke
}

lane_guests() {
	step modules bash "$here/modules.sh"
	if [ -x "$here/vm/vmtest.sh" ]; then
		step vmtest bash "$here/vm/vmtest.sh" "$MP_KVERS_ALL"
		# the short version of make stress: the newest Debian kernel
		# and the patched one (make stress covers the rest)
		step stress env DURATION=60 bash "$here/vm/stress.sh" \
			"$(mp_newest "$MP_KVERS_OOT") $(mp_newest "$MP_KVERS_ALL")"
		# mp_balloon against QEMU's virtio-balloon device, 256 MiB
		# balloon; on 7.x the kernel's virtio_balloon, on movable_pool
		# since patches/7.x
		step balloon bash "$here/vm/balloon.sh"
		step balloon-7.x bash "$here/vm/balloon.sh" --drivers=virtio \
			"$(mp_newest "$MP_KVERS_ALL")"
		# the Debian package in a Debian 12 root, DKMS, a driver built
		# against it, guests (make dkms-check, DKMS from this tree, is
		# not repeated)
		step deb-check bash "$here/deb-check.sh"
	fi
}

start=$SECONDS
mp_need_build_tools
[ ! -x "$here/vm/vmtest.sh" ] || . "$here/vm/vm.sh"
step prepare prepare
if grep -q '^RESULT: fail prepare' "$results"; then
	:
elif [ "${MP_CHECK_LANES:-2}" = 1 ]; then
	lane_builds
	lane_guests
else
	# an interrupted make check stops both lanes and all they started
	trap 'trap - INT TERM; kill $(mp_below $$) 2>/dev/null; exit 130' INT TERM
	lane_builds &
	builds=$!
	lane_guests
	# a lane that died left steps without results: that fails too
	wait "$builds" || mp_result fail lane-builds >> "$results"
fi

passed=$(grep -c '^RESULT: pass' "$results")
failed=$(grep -c '^RESULT: fail' "$results")
skipped=$(grep -c '^RESULT: skip' "$results")
if [ "$failed" -gt 0 ]; then
	echo "Failed:"
	grep '^RESULT: fail' "$results" | sed 's/^RESULT: fail /  /'
fi
mp_log "make check took $((SECONDS - start)) s"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
