#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# $args and $mods are lists, split on purpose; "a && b || rc=1" marks a
# failure of either.
# shellcheck shell=sh disable=SC2086,SC2015
# /init of the test guest. The kernel command line picks the scenario:
#   mptest=boot|none|movable|unmovable|offline|unplug|stress|dkms|balloon|
#          balloon_micro|bench
#   mpargs=--opt=val,--opt=val
#   mpuapi=1 also runs the uapi checks after the main test, and then
#   mpfuzz=CALLS:SEED calls of gfxbuf_fuzz (4 threads) against the same limits
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
echo never > /sys/kernel/mm/transparent_hugepage/enabled
# one mapping per BO: the tests map up to ~200k of them
echo 1000000 > /proc/sys/vm/max_map_count

arg() { tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p"; }
scenario=$(arg mptest)
args=$(arg mpargs | tr ',' ' ')
uapi=$(arg mpuapi)
fuzz=$(arg mpfuzz)
echo "MP_GUEST kernel=$(uname -r) scenario=$scenario cpus=$(nproc) mem_kb=$(sed -n 's/MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"

rc=0
# the library: a module, or built in (7.x, where it is in-tree)
lib_in() { [ ! -e /movable_pool.ko ] || insmod /movable_pool.ko; }
lib_out() { [ ! -e /movable_pool.ko ] || rmmod movable_pool; }
# gfxbuf, or unmovable_gfxbuf: the same driver without movable_pool
drv=gfxbuf
load() {
	# the scenarios hold up to 7/8 of RAM (gfxbuf's default limit is 3/4)
	limit=$(($(sed -n 's/MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo) * 7 / 32))
	lib_in && insmod /$drv.ko max_total_pages=$limit ||
		{ echo "MP_STEP insmod=fail"; rc=1; }
}
# bad input and closing with jobs queued, then the fuzzer, under a small
# page limit
uapi() {
	rmmod $drv && insmod /$drv.ko max_total_pages=1024 max_bo_pages=256 &&
		/gfxbuf_test --uapi || rc=1
	[ -z "$fuzz" ] ||
		/gfxbuf_fuzz --calls="${fuzz%%:*}" --seed="${fuzz#*:}" || rc=1
}
unload() {
	# every BO was freed when the test exited; the pools must be empty
	rmmod $drv && lib_out && echo "MP_STEP rmmod=ok" ||
		{ echo "MP_STEP rmmod=fail"; rc=1; }
}

case $scenario in
boot)
	# make stress counts boots that die before this point
	;;
none)
	/gfxbuf_test --no-driver $args || rc=1
	;;
movable)
	load
	# the library's tracepoints must see the migrations too
	mount -t tracefs tracefs /sys/kernel/tracing
	echo 1 > /sys/kernel/tracing/events/movable_pool/movable_pool_migrate/enable
	[ $rc = 0 ] && { /gfxbuf_test --expect-moved $args || rc=1; }
	echo 0 > /sys/kernel/tracing/events/movable_pool/movable_pool_migrate/enable
	events=$(grep -c 'movable_pool_migrate:.* rc=0$' /sys/kernel/tracing/trace)
	echo "MP_STEP trace_migrate_ok=$events"
	[ "$events" -gt 0 ] || rc=1
	# the smallest sample loads and unloads too
	insmod /movable_pool_minimal.ko && rmmod movable_pool_minimal ||
		{ echo "MP_STEP minimal=fail"; rc=1; }
	[ -z "$uapi" ] || uapi
	unload
	;;
offline)
	# booted with movablecore=: pool pages fill ZONE_MOVABLE, then it goes
	load
	[ $rc = 0 ] && { /gfxbuf_test --offline --expect-moved $args || rc=1; }
	unload
	;;
unmovable)
	drv=unmovable_gfxbuf
	load
	[ $rc = 0 ] && { /gfxbuf_test $args || rc=1; }
	[ -z "$uapi" ] || uapi
	unload
	;;
unplug)
	# hot-unplug while threads fault on the BOs: gfxbuf, then its twin
	for drv in gfxbuf unmovable_gfxbuf; do
		load
		[ $rc = 0 ] && { /gfxbuf_test --unplug $args || rc=1; }
		unload
	done
	;;
stress)
	# everything at once on every CPU (gfxbuf_stress.c), then the uapi
	# checks and the fuzzer; at the end both modules must unload
	load
	# THP faults compact in MIGRATE_ASYNC mode, where routines must not
	# block; the stress has a thread making them
	echo always > /sys/kernel/mm/transparent_hugepage/enabled
	echo always > /sys/kernel/mm/transparent_hugepage/defrag
	# migrations by mode (0 is MIGRATE_ASYNC) and result, for the log
	mount -t tracefs tracefs /sys/kernel/tracing
	ev=/sys/kernel/tracing/events/movable_pool/movable_pool_migrate
	echo 'hist:keys=mode,rc' > $ev/trigger
	[ $rc = 0 ] && { /gfxbuf_stress $args || rc=1; }
	if [ -r $ev/hist ]; then
		grep -E '^\{|^Hits' $ev/hist
		echo "MP_STEP async_migrate_calls=$(awk '/mode: +0,/ { n += $NF } END { print n + 0 }' $ev/hist)"
	else
		echo "MP_STEP async_migrate_calls=unknown"	# no HIST_TRIGGERS
	fi
	grep -E '^(compact_(stall|fail|success)|thp_fault_(alloc|fallback)) ' /proc/vmstat
	# before the module goes: it owns the event
	echo '!hist:keys=mode,rc' > $ev/trigger
	echo never > /sys/kernel/mm/transparent_hugepage/enabled
	[ -z "$uapi" ] || uapi
	unload
	;;
dkms)
	# make dkms-check put the DKMS-built library and a driver built
	# against it here: load them, compact, read the pool's counters
	lib_in && insmod /movable_pool_minimal.ko || rc=1
	echo 1 > /proc/sys/vm/compact_memory
	stats=$(cat /sys/kernel/debug/movable_pool/minimal-*/stats 2>/dev/null)
	echo "MP_STEP dkms_pages=$(echo "$stats" | sed -n 's/^pages //p') dkms_migrated=$(echo "$stats" | sed -n 's/^migrated //p')"
	[ -n "$stats" ] && rmmod movable_pool_minimal && lib_out || rc=1
	[ $rc = 0 ] && echo "MP_STEP dkms=ok"
	;;
balloon)
	# the virtio core where Debian builds it as modules, then one balloon
	# driver: ours (--driver=mp) or the kernel's (--driver=virtio)
	for m in /virtio/core-*.ko; do
		[ -e "$m" ] && { insmod "$m" || rc=1; }
	done
	case $args in
	*--driver=virtio*) mods=virtio_balloon; insmod /virtio/virtio_balloon.ko || rc=1 ;;
	*) mods=mp_balloon; lib_in && insmod /mp_balloon.ko || rc=1 ;;
	esac
	[ $rc = 0 ] && { /balloon_guest $args || rc=1; }
	# on 7.x with patches/7.x the kernel's balloon keeps its pages in a
	# movable_pool: its counters show the library moved them
	for f in /sys/kernel/debug/movable_pool/balloon-*/stats; do
		[ -r "$f" ] || continue
		echo "MP_STEP balloon_pool_pages=$(sed -n 's/^pages //p' "$f") balloon_pool_migrated=$(sed -n 's/^migrated //p' "$f") balloon_pool_misuse=$(sed -n 's/^misuse //p' "$f")"
	done
	# both must let go of the device and their pages
	for m in $mods; do rmmod $m || rc=1; done
	[ "$mods" = virtio_balloon ] || lib_out || rc=1
	;;
balloon_micro)
	# the per-page cost of the balloon API (bench/balloon_micro.sh); its
	# figures are in the kernel log, its parameters are $args. No
	# proactive compaction: it would try to move the pages being timed.
	echo 0 > /proc/sys/vm/compaction_proactiveness
	insmod /balloon_micro.ko $args && rmmod balloon_micro || rc=1
	dmesg | sed -n 's/.*\(BALLOON_MICRO .*\)/\1/p'
	;;
bench)
	# one point of make bench; bench_run loads and unloads what it needs
	/bench_run $args || rc=1
	;;
*)
	echo "MP_STEP scenario=unknown"
	rc=1
	;;
esac
# a checked kernel: what kmemleak found (it needs two scans to be sure)
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan > /sys/kernel/debug/kmemleak
	sleep 1
	echo scan > /sys/kernel/debug/kmemleak
	leaks=$(grep -c 'unreferenced object' /sys/kernel/debug/kmemleak)
	echo "MP_STEP kmemleak_leaks=$leaks"
	[ "$leaks" = 0 ] || { cat /sys/kernel/debug/kmemleak; rc=1; }
fi
echo "MP_EXIT rc=$rc"
poweroff -f
