#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The virtio balloon test: a guest with QEMU's virtio-balloon-pci device,
# driven from the host through QMP as a hypervisor would
# (balloon_host.py), while the guest (balloon_guest.c) fragments its memory,
# compacts, fills what is left and checks it. Both sides must agree on
# every frame the device was told of.
#
# balloon.sh [--drivers="mp virtio"] ["KVER ..."]
#   mp is samples/movable_pool/mp_balloon.c, virtio Debian's virtio_balloon.
#   MP_BALLOON_MEM (guest MiB, default 1024), MP_BALLOON_MIB (balloon size,
#   default 256), MP_BALLOON_TRIES (huge page requests, default 1) and
#   MP_BALLOON_SEED set the run; make check runs the defaults with mp, make
#   bench 2048/1024/3 with both.
# RESULT lines per kernel and driver; "BALLOON_RUN kver=... key=value ..."
# lines on stdout for make bench.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../modules.sh"
. "$here/vm.sh"

drivers=mp
case ${1:-} in
--drivers=*)
	drivers=${1#--drivers=}
	shift
	;;
esac
MEM=${MP_BALLOON_MEM:-1024}
SIZE=${MP_BALLOON_MIB:-256}
TRIES=${MP_BALLOON_TRIES:-1}
SEED=${MP_BALLOON_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
# which frame went to which queue, for balloon_host.py
TRACE="-trace virtio_queue_notify -trace virtqueue_pop -trace virtio_balloon_handle_output -trace virtio_balloon_bad_addr"

# balloon_run KVER DRIVER: one guest; RESULT line, BALLOON_RUN line
balloon_run() {
	local kver=$1 driver=$2 name=balloon-$1-$2 log sock trace host hpid
	local ok=1 guest secs pool
	log=$MP_CACHE/$name.log
	sock=$MP_CACHE/$name.qmp
	trace=$MP_CACHE/$name.trace
	host=$MP_CACHE/$name.host.log
	rm -f "$sock" "$trace" "$log"
	python3 "$here/balloon_host.py" --log "$log" --qmp "$sock" \
		--trace "$trace" --ram "$MEM" > "$host" 2>&1 &
	hpid=$!
	mp_log "booting $kver guest: $driver balloon of $SIZE MiB in $MEM MiB (seed $SEED)"
	MP_VM_MEM=$MEM MP_QEMU_ARGS="-device virtio-balloon-pci -qmp unix:$sock,server=on,wait=off $TRACE -D $trace" \
		mp_boot "$kver" balloon \
		"--driver=$driver,--size=$SIZE,--tries=$TRIES,--seed=$SEED" "$log" ||
		ok=0
	wait "$hpid" || ok=0
	sed 's/^/[balloon host] /' "$host" >&2
	guest=$(sed -n 's/^BALLOON_RESULT //p' "$log")
	[ -n "$guest" ] && mp_log "$kver $driver: $guest"
	rm -f "$trace"	# up to a few hundred MB; the checks are in $host
	# the host's time for each resize, in order: inflate, deflate,
	# inflate again, deflate
	secs=$(sed -n 's/^BALLOON_HOST resize=[0-9]* seconds=\([0-9.]*\).*/\1/p' "$host" | paste -sd,)
	echo "BALLOON_RUN kver=$kver $guest host_s=$secs $(sed -n 's/^BALLOON_HOST_RESULT //p' "$host" | sed 's/\([a-z_]*\)=/host_\1=/g')"
	# the pages must have moved, or nothing above was tested
	case $guest in *" migrated=0 "* | "") ok=0 ;; esac
	# the kernel's balloon on a patched 7.x: through movable_pool, which
	# must have moved them itself and seen no misuse
	case $kver:$driver in
	7.*-debian:* | 7.*-plain:*) ;;
	7.*:virtio)
		pool=$(sed -n 's/^MP_STEP balloon_pool_/pool_/p' "$log" |
			sed 's/ balloon_pool_/ pool_/g')
		mp_log "$kver: kernel balloon's pool: ${pool:-none}"
		case $pool in
		*"pool_migrated=0 "* | "" | *"pool_misuse="[1-9]*) ok=0 ;;
		esac
		;;
	esac
	if [ $ok = 1 ]; then
		mp_result pass "balloon-$kver/$driver"
	else
		mp_result fail "balloon-$kver/$driver seed=$SEED"
		return 1
	fi
}

mp_need_vm_tools
mp_need_pkgs python3
status=0
for kver in ${1:-6.1 6.12}; do
	if ! mp_initramfs "$kver" >/dev/null; then
		mp_result fail "balloon-$kver/initramfs"
		status=1
		continue
	fi
	for driver in $drivers; do
		balloon_run "$kver" "$driver" || status=1
	done
done
exit $status
