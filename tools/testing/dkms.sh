#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: install movable_pool through DKMS (Debian's dkms) for
# Debian's 6.1 and 6.12 headers, build a second driver (the minimal sample,
# as a driver author would: the header and Module.symvers DKMS keeps for
# that kernel, with the Kbuild the README shows) against it, then load both
# in a guest of that kernel. The quick loop on the host; make deb-check
# does the same through the Debian package in a Debian root.
#
# DKMS runs in a private mount namespace where /etc/dkms is a throwaway
# directory whose framework.conf points DKMS's source, build and install
# trees into a throwaway root under the cache; depmod runs on that root.
# The host's own trees and running kernel are never touched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/modules.sh"
. "$here/vm/vm.sh"

VER=$(mp_version)
root=$MP_CACHE/dkms-root
# the arch DKMS builds for when given none, and so names its trees with
ARCH=$(uname -m)

# dkms_run KVER...: add, build and install for each kernel, in the namespace
dkms_run() {
	local args=() kver hdrs abi
	for kver in "$@"; do
		hdrs=$(mp_headers "$kver") || return 1
		abi=$(mp_abi "$kver")-amd64
		args+=("$abi" "$hdrs")
		# what the kernel and headers packages leave in a real root
		mkdir -p "$root/lib/modules/$abi"
		ln -sfn "$hdrs" "$root/lib/modules/$abi/build"
	done
	printf 'source_tree="%s"\ndkms_tree="%s"\ninstall_tree="%s"\n' \
		"$root/usr/src" "$root/var/lib/dkms" "$root/lib/modules" \
		> "$root/etc/dkms/framework.conf"
	# the script expands in the namespace's shell, from its arguments
	# shellcheck disable=SC2016
	unshare -m bash -euc '
		root=$1 ver=$2
		shift 2
		mount --bind "$root/etc/dkms" /etc/dkms
		dkms add -m movable_pool -v "$ver"
		while [ $# -gt 0 ]; do
			dkms build -m movable_pool -v "$ver" -k "$1" --kernelsourcedir "$2"
			dkms install -m movable_pool -v "$ver" -k "$1" --kernelsourcedir "$2" --no-depmod
			depmod -b "$root" "$1"
			shift 2
		done
		dkms status' dkms "$root" "$VER" "${args[@]}"
}

# driver_build KVER DIR: the minimal sample as an out-of-tree driver of its
# own, against what DKMS keeps for that kernel; prints the module's path
driver_build() {
	local kver=$1 dir=$2 hdrs
	hdrs=$(mp_headers "$kver") || return 1
	mp_driver_src "$dir" "$root/var/lib/dkms"
	make -C "$hdrs" M="$dir" modules >&2 || return 1
	echo "$dir/movable_pool_minimal.ko"
}

mp_need_build_tools
mp_need_vm_tools
mp_need_pkgs dkms
status=0
kvers=${1:-6.1 6.12}
rm -rf "$root"
mkdir -p "$root/usr/src" "$root/var/lib/dkms" "$root/lib/modules" "$root/etc/dkms"
mp_export "$root/usr/src/movable_pool-$VER"
# what dh_dkms -V does for the package
sed -i "s/#MODULE_VERSION#/$VER/" "$root/usr/src/movable_pool-$VER/dkms.conf"
# shellcheck disable=SC2086
if dkms_run $kvers > "$MP_CACHE/dkms.log" 2>&1; then
	grep 'installed' "$MP_CACHE/dkms.log" | sed 's/^/[movable_pool] dkms: /' >&2 || true
else
	tail -30 "$MP_CACHE/dkms.log" >&2
	mp_result fail dkms-install
	exit 1
fi
for kver in $kvers; do
	abi=$(mp_abi "$kver")-amd64
	ko=$root/lib/modules/$abi/updates/dkms/movable_pool.ko
	kept=$root/var/lib/dkms/movable_pool/kernel-$abi-$ARCH
	# installed where modprobe looks, for the kernel it was built for, and
	# what drivers build against kept beside it
	if [ -f "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$abi" ] &&
	   grep -q '^updates/dkms/movable_pool.ko' "$root/lib/modules/$abi/modules.dep" &&
	   [ -f "$kept/Module.symvers" ] && [ -f "$kept/include/linux/movable_pool.h" ]; then
		mp_result pass "dkms-$kver/install"
	else
		mp_result fail "dkms-$kver/install"
		status=1
		continue
	fi
	if ! driver=$(driver_build "$kver" "$MP_CACHE/dkms-driver-$kver" 2>"$MP_CACHE/dkms-driver-$kver.log"); then
		cat "$MP_CACHE/dkms-driver-$kver.log" >&2
		mp_result fail "dkms-$kver/driver-build"
		status=1
		continue
	fi
	mp_result pass "dkms-$kver/driver-build"
	# the usual guest, with the DKMS module and the driver built above
	if mp_dkms_guest dkms "$kver" "$ko" "$driver"; then
		mp_result pass "dkms-$kver/guest"
	else
		mp_result fail "dkms-$kver/guest"
		status=1
	fi
done
exit $status
