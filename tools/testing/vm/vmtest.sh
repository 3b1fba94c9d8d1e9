#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gfxbuf in qemu guests on Debian's 5.10, 6.1 and 6.12 kernels: memory held in
# BOs with random holes, engine jobs and mmap traffic during compaction;
# every byte checked; pages must really move with gfxbuf; modules must
# unload cleanly; every bad ioctl/mmap input gets its errno, an
# unprivileged user's with no warning in the kernel log; with
# movablecore=, ZONE_MOVABLE full of pool pages goes offline. RESULT lines
# per kernel and scenario.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../modules.sh"
. "$here/vm.sh"

ARGS=${MP_VMTEST_ARGS:---alloc-mib=400,--keep-pct=50,--tries=1}
# the short fuzz pass of make check: calls per guest, and a fresh seed
# each run unless given (the log and the RESULT line name it)
FUZZ_CALLS=${MP_FUZZ_CALLS:-100000}
FUZZ_SEED=${MP_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}

mp_need_vm_tools
status=0
for kver in ${1:-$MP_KVERS_OOT}; do
	if ! mp_initramfs "$kver" >/dev/null; then
		mp_result fail "vmtest-$kver/initramfs"
		status=1
		continue
	fi
	for scenario in movable unmovable offline; do
		log=$MP_CACHE/vmtest-$kver-$scenario.log
		cmdline="mpuapi=1 mpfuzz=$FUZZ_CALLS:$FUZZ_SEED"
		# offline: a ZONE_MOVABLE for pool pages, then offline it
		[ $scenario = offline ] && cmdline=movablecore=512M
		mp_log "booting $kver guest: $scenario"
		if mp_boot "$kver" "$scenario" "$ARGS" "$log" "$cmdline"; then
			sed -n 's/^GFXBUF_RESULT /[movable_pool] '"$kver"': /p' "$log" >&2
			mp_result pass "vmtest-$kver/$scenario"
		else
			mp_result fail "vmtest-$kver/$scenario"
			status=1
		fi
		[ $scenario = offline ] && continue
		# the uapi checks and the fuzzer ran in the same guest
		if [ "$(mp_field status "$log" uapi)" = ok ]; then
			mp_result pass "vmtest-$kver/$scenario-uapi"
		else
			mp_result fail "vmtest-$kver/$scenario-uapi"
			status=1
		fi
		mp_fuzz_result "$log" "vmtest-$kver/$scenario-fuzz" "$FUZZ_SEED" ||
			status=1
	done
done
exit $status
