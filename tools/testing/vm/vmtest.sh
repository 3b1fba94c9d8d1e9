#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# gfxbuf in qemu guests on Debian's 5.10, 6.1 and 6.12 kernels: memory held in
# BOs with random holes, engine jobs and mmap traffic during compaction;
# every byte checked; pages must really move with gfxbuf; modules must
# unload cleanly; every bad ioctl/mmap input gets its errno, an
# unprivileged user's with no warning in the kernel log; with
# movablecore=, ZONE_MOVABLE full of pool pages goes offline; the device
# hot-unplugged while threads fault on its mappings. RESULT lines per
# kernel and scenario.
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
# unplugs per driver in the unplug scenario, each with faults in flight
UNPLUG_ROUNDS=${MP_UNPLUG_ROUNDS:-10}
# MP_VMTEST_SCENARIOS="movable unplug" boots only those

mp_need_vm_tools
status=0
for kver in ${1:-$MP_KVERS_OOT}; do
	if ! mp_initramfs "$kver" >/dev/null; then
		mp_result fail "vmtest-$kver/initramfs"
		status=1
		continue
	fi
	for scenario in ${MP_VMTEST_SCENARIOS:-movable unmovable offline unplug}; do
		log=$MP_CACHE/vmtest-$kver-$scenario.log
		args=$ARGS
		cmdline="mpuapi=1 mpfuzz=$FUZZ_CALLS:$FUZZ_SEED"
		case $scenario in
		offline)
			# a ZONE_MOVABLE for pool pages, then offline it
			cmdline=$(mp_movablecore 512M)
			;;
		unplug)
			# Pool pages in a ZONE_MOVABLE whose blocks the test
			# takes offline and online again: they move under the
			# faults. A fault or mmap() that reaches a destroyed
			# pool reads freed memory: init_on_free makes that an
			# oops, not a read of stale fields, and the oops ends
			# the guest at once. With preempt=full the unplugging
			# thread preempts a fault anywhere (5.10 has no
			# preempt=).
			args=--rounds=$UNPLUG_ROUNDS
			cmdline="$(mp_movablecore 256M) init_on_free=1 oops=panic"
			[ "$kver" = 5.10 ] || cmdline="$cmdline preempt=full"
			;;
		esac
		mp_log "booting $kver guest: $scenario"
		if mp_boot "$kver" "$scenario" "$args" "$log" "$cmdline"; then
			sed -n 's/^GFXBUF_RESULT /[movable_pool] '"$kver"': /p' "$log" >&2
			mp_result pass "vmtest-$kver/$scenario"
		else
			mp_result fail "vmtest-$kver/$scenario"
			status=1
		fi
		case $scenario in offline | unplug) continue ;; esac
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
