#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb-check: the Debian package as a user meets it. make deb (the
# package, lintian-clean), then, in a throwaway Debian 12 root made with
# mmdebstrap from the mirrors the host's apt reads, holding Debian's 6.1
# and 6.12 kernels and headers (the ABIs the rest of the harness boots):
#  - apt installs movable-pool-dkms_<version>_all.deb; DKMS must build and
#    install the module for both kernels, and keep Module.symvers and the
#    header beside it;
#  - the minimal sample, copied out as a driver of its own with the Kbuild
#    the README shows, builds in the root against that alone;
#  - the DKMS module and that driver load, compact and unload in a guest
#    of each kernel;
#  - apt remove --purge leaves no file behind: the root's file list after
#    the purge equals the one before the install, but for the logs and
#    state files of apt and dpkg that any install touches ($ignore below).
#
# Cached: the root with the two kernels, their headers, dkms and the
# compiler installed, in $MP_CACHE/deb-root-<key>; the key hashes the
# mmdebstrap command (package list with the ABIs), its version and the
# host's apt sources, and the root is made again only when it is missing
# (about 1.5 GB; older keys are removed). Each run works on an overlay of
# it ($MP_CACHE/deb-run/upper), mounted in a private mount namespace, so
# the cached root never changes and nothing stays mounted; no host path
# is written outside the cache.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/modules.sh"
. "$here/vm/vm.sh"

kvers=${1:-6.1 6.12}
ver=$(mp_version)
run=$MP_CACHE/deb-run
start=$SECONDS
status=0

# Paths an install and purge through apt may leave changed in any root:
# apt's and dpkg's logs, apt's caches and the directory where apt lists
# a local .deb it installs, debconf's and dpkg's backups of their
# databases, and dpkg's trigger state. Nothing else may differ.
ignore='/var/log/(apt/(eipp\.log\.xz|history\.log|term\.log)|dpkg\.log|alternatives\.log)'
ignore+='|/var/cache/apt/(pkgcache|srcpkgcache)\.bin|/var/lib/apt/lists/auxfiles'
ignore+='|/var/cache/debconf/(config|passwords|templates)\.dat-old'
ignore+='|/var/lib/dpkg/((status|diversions|statoverride)-old|triggers/.*)'

# The host's apt sources, read now and never written anywhere: the root
# reads the same mirrors and suites, where mp_abi found the ABIs.
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		if [ -f "$f" ] && grep -q '^[[:space:]]*[^#[:space:]]' "$f"; then
			echo "$f"
		fi
	done
}

# No rm -rf of a directory anything is mounted under (a root whose /dev
# is the host's would take the host's with it).
safe_rm() {
	local d
	for d in "$@"; do
		if grep -q " ${d}[/ ]" /proc/mounts; then
			mp_die "$d has mounts under it; not removing it"
		fi
		rm -rf "$d"
	done
}

# The cached root for these kernels; prints its path.
deb_root() {
	# xz-utils: priority standard, so on any installed Debian system, and
	# DKMS compresses the module with it where the kernel's own modules
	# are (6.12's)
	local pkgs=(debian-archive-keyring dkms xz-utils) kver abi key base sources
	for kver in $kvers; do
		abi=$(mp_abi "$kver") || return 1
		# -unsigned: the very images the guests boot (mp_vmlinuz)
		pkgs+=("linux-image-$abi-amd64-unsigned" "linux-headers-$abi-amd64")
	done
	mapfile -t sources < <(host_sources)
	[ ${#sources[@]} -gt 0 ] || mp_die "no apt sources on the host to make the root from"
	# The root's running kernel is the host's, which has no headers there:
	# DKMS's postinst then builds for no kernel ("belongs to a chroot's
	# host"). Booted into either kernel it builds for the running and the
	# newest one, both here; autoinstall_all_kernels does the same in the
	# root. No recommends: linux-headers-amd64 would bring a third kernel.
	# (the hook's $1 is the root: mmdebstrap runs it with sh -c)
	# shellcheck disable=SC2016
	local mm=(--mode=root --variant=apt --format=directory
		--aptopt='APT::Install-Recommends "false"'
		--include="$(IFS=,; echo "${pkgs[*]}")"
		--customize-hook='echo autoinstall_all_kernels=yes >> "$1/etc/dkms/framework.conf"')
	key=$({ printf '%s\n' "${mm[@]}"; mmdebstrap --version; cat "${sources[@]}"; } |
		sha256sum | cut -c1-16)
	base=$MP_CACHE/deb-root-$key
	if [ ! -f "$base.ready" ]; then
		mp_log "making the Debian 12 root for ${pkgs[*]} (mmdebstrap; minutes, once)"
		local old
		for old in "$MP_CACHE"/deb-root-*; do
			case $old in *.ready) rm -f "$old" ;; *) safe_rm "$old" ;; esac
		done
		# its own mount namespace: a mount mmdebstrap leaves dies with it
		if ! unshare -m --propagation private mmdebstrap "${mm[@]}" bookworm \
			"$base.tmp" "${sources[@]}" > "$MP_CACHE/deb-root.log" 2>&1; then
			tail -30 "$MP_CACHE/deb-root.log" >&2
			return 1
		fi
		mv "$base.tmp" "$base"
		touch "$base.ready"
	fi
	echo "$base"
}

# in_root SCRIPT: run SCRIPT with bash -euo pipefail in the throwaway
# root: the cached root overlaid with $run/upper, in a private mount
# namespace with the host's /proc and /dev, and $run/io at /mnt to pass
# files in and out. The mounts vanish with the namespace.
in_root() {
	# the script expands in the namespace's shell, from its arguments
	# shellcheck disable=SC2016
	unshare -m --propagation private bash -euc '
		base=$1 run=$2 r=$2/root
		mount -t overlay overlay \
			-o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$r"
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mount --bind "$run/io" "$r/mnt"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			/bin/bash -euo pipefail -c "$3"' in_root "$base" "$run" "$1"
}

# file_list OUT: every path in the root with its type, sorted; /proc, /dev
# and /mnt are other file systems and stay out (-xdev)
file_list() {
	in_root 'find / -xdev -printf "%y %p\n" | LC_ALL=C sort' > "$1"
}

mp_need_vm_tools
mp_need_pkgs mmdebstrap xz-utils zstd

bash "$MP_REPO/tools/deb/build.sh" || exit 1
deb=movable-pool-dkms_${ver}_all.deb

if ! base=$(deb_root); then
	mp_result fail deb-root
	exit 1
fi
safe_rm "$run"
mkdir -p "$run/upper" "$run/work" "$run/root" "$run/io"
cp "$MP_CACHE/deb/$deb" "$run/io/"
file_list "$run/files-before"

# what a user types: apt install ./movable-pool-dkms_<v>_all.deb
if in_root "apt-get install -y /mnt/$deb && dkms status" > "$MP_CACHE/deb-install.log" 2>&1; then
	grep -E '^movable_pool/' "$MP_CACHE/deb-install.log" | sed 's/^/[movable_pool] dkms: /' >&2 || true
	mp_result pass deb-install
else
	tail -30 "$MP_CACHE/deb-install.log" >&2
	mp_result fail deb-install
	exit 1
fi

for kver in $kvers; do
	abi=$(mp_abi "$kver")-amd64
	# installed by DKMS where modprobe looks, for the kernel it was built
	# for; what drivers build against kept beside it
	if in_root "
		abi=$abi ver=$ver
		dkms status -m movable_pool -v \$ver -k \$abi | grep -q ': installed\$'
		ko=\$(ls /lib/modules/\$abi/updates/dkms/movable_pool.ko*)
		[ \"\$(modinfo -F vermagic \"\$ko\" | cut -d' ' -f1)\" = \$abi ]
		grep -q '^updates/dkms/movable_pool.ko' /lib/modules/\$abi/modules.dep
		kept=/var/lib/dkms/movable_pool/kernel-\$abi-\$(uname -m)
		[ -f \$kept/Module.symvers ] && [ -f \$kept/include/linux/movable_pool.h ]
		rm -rf /mnt/ko-\$abi && mkdir /mnt/ko-\$abi && cp \"\$ko\" /mnt/ko-\$abi/
		" > "$MP_CACHE/deb-$kver-dkms.log" 2>&1; then
		mp_result pass "deb-$kver/dkms"
	else
		cat "$MP_CACHE/deb-$kver-dkms.log" >&2
		mp_result fail "deb-$kver/dkms"
		status=1
		continue
	fi
	ko=$(printf '%s\n' "$run/io/ko-$abi"/movable_pool.ko*)

	# a driver of its own, built in the root with the root's compiler
	# against the kernel's headers and what the package installed; its
	# calls must resolve to the library (modpost only warns otherwise)
	mp_driver_src "$run/io/driver-$kver"
	if in_root "
		make -C /lib/modules/$abi/build M=/mnt/driver-$kver modules 2>&1 |
			tee /mnt/driver-$kver.log
		if grep -q 'undefined!' /mnt/driver-$kver.log; then exit 1; fi
		modinfo -F depends /mnt/driver-$kver/movable_pool_minimal.ko | grep -qw movable_pool
		" > "$MP_CACHE/deb-$kver-driver.log" 2>&1; then
		mp_result pass "deb-$kver/driver-build"
	else
		cat "$MP_CACHE/deb-$kver-driver.log" >&2
		mp_result fail "deb-$kver/driver-build"
		status=1
		continue
	fi

	if mp_dkms_guest deb "$kver" "$ko" "$run/io/driver-$kver/movable_pool_minimal.ko"; then
		mp_result pass "deb-$kver/guest"
	else
		mp_result fail "deb-$kver/guest"
		status=1
	fi
done

# apt remove --purge: DKMS removes the module from every kernel, dpkg the
# sources; the file list must be the one before the install
if in_root 'apt-get remove --purge -y movable-pool-dkms' > "$MP_CACHE/deb-purge.log" 2>&1; then
	file_list "$run/files-after"
	# paths that appeared (+) or went away (-)
	diff "$run/files-before" "$run/files-after" | sed -n 's/^> /+ /p; s/^< /- /p' \
		> "$run/files-diff" || true
	grep -E "^[+-] . ($ignore)\$" "$run/files-diff" | sed 's/^/[movable_pool] ignored: /' >&2 || true
	if grep -Ev "^[+-] . ($ignore)\$" "$run/files-diff" > "$run/files-left"; then
		mp_log "apt remove --purge left the root changed:"
		head -40 "$run/files-left" >&2
		mp_result fail deb-purge
		status=1
	else
		mp_result pass deb-purge
	fi
else
	tail -30 "$MP_CACHE/deb-purge.log" >&2
	mp_result fail deb-purge
	status=1
fi
mp_log "deb-check took $((SECONDS - start)) s"
exit $status
