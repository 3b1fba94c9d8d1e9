#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# balloon_micro.sh ["KVER ..."]: what each call of the kernel's balloon API
# costs per page in a guest (balloon_micro/balloon_micro.c), on the patched
# 7.x (7.2: the balloon on movable_pool) and on the same source and config
# without the series (7.2-plain: Debian's mm/balloon.c); default both.
# Each boot runs under one of two clocks: "icount" (QEMU's -icount
# shift=0: the guest's clock advances one nanosecond per instruction it
# executes, so its figures count instructions and do not move with the
# host's load) and "host" (the guest's clock is the host's: the time TCG
# took, which is what a deflate costs here). The kernels take turns, boot
# by boot, so a change in the host's load falls on both. Prints one line
# per round and boot:
#   BALLOON_MICRO kver=KVER clock=icount|host boot=B round=R pages=N
#     kernel=mp|plain name_ns=...
# MP_MICRO_BOOTS (default 3 per kernel and clock), MP_MICRO_PAGES (65536),
# MP_MICRO_ROUNDS (3) and MP_MICRO_CLOCKS ("icount host") set the run.
# Guests are 1 GiB with one vCPU (QEMU's -icount clock counts every
# vCPU's instructions, so a second one's work would count too; and with
# one, nothing else runs while a loop is timed), single-threaded TCG.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../modules.sh"
. "$here/../vm/vm.sh"

BOOTS=${MP_MICRO_BOOTS:-3}
PAGES=${MP_MICRO_PAGES:-65536}
ROUNDS=${MP_MICRO_ROUNDS:-3}
CLOCKS=${MP_MICRO_CLOCKS:-"icount host"}

# micro_module KVER: build balloon_micro.ko against KVER's kernel build;
# print its path
micro_module() {
	local kver=$1 kdir dir=$MP_CACHE/balloon_micro-$1
	case $kver in
	7.*-plain) kdir=$(mp_plain_tree "${kver%-plain}") ;;
	7.*) kdir=$(mp_patched_tree "$kver") ;;
	*) mp_die "balloon_micro runs on a 7.x kernel built here, not $kver" ;;
	esac
	rm -rf "$dir"
	cp -r "$here/balloon_micro" "$dir"
	make -C "$kdir" M="$dir" -j"$(nproc)" modules >&2
	echo "$dir/balloon_micro.ko"
}

# micro_boot KVER CLOCK BOOT: one guest; its lines, and a RESULT line
micro_boot() {
	local kver=$1 clock=$2 boot=$3 log qemu=
	log=$MP_CACHE/balloon_micro-$kver-$clock-$boot.log
	[ "$clock" = host ] || qemu="-icount shift=0,sleep=off"
	if MP_INITRD=$MP_CACHE/initramfs-balloon_micro-$kver.cpio.gz \
	   MP_QEMU_ARGS=$qemu MP_VM_SMP=1 mp_boot "$kver" balloon_micro \
		"pages=$PAGES,rounds=$ROUNDS" "$log" &&
	   grep -q '^BALLOON_MICRO ' "$log" &&
	   ! grep -q '^BALLOON_MICRO .*status=failed' "$log"; then
		sed -n "s/^BALLOON_MICRO /BALLOON_MICRO kver=$kver clock=$clock boot=$boot /p" "$log"
		mp_result pass "balloon_micro-$kver/$clock-$boot" >&2
	else
		mp_result fail "balloon_micro-$kver/$clock-$boot" >&2
		return 1
	fi
}

mp_need_vm_tools
kvers=${1:-7.2-plain 7.2}
for kver in $kvers; do
	ko=$(micro_module "$kver")
	dir=$MP_CACHE/initramfs-balloon_micro-$kver
	mp_initramfs "$kver" "$dir" > /dev/null
	cp "$ko" "$dir/"
	(cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) > "$dir.cpio.gz"
done
status=0
for boot in $(seq 1 "$BOOTS"); do
	for clock in $CLOCKS; do
		for kver in $kvers; do
			micro_boot "$kver" "$clock" "$boot" || status=1
		done
	done
done
exit $status
