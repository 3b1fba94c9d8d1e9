# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the movable_pool harnesses. Source it; do not run it.
# shellcheck shell=bash

MP_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MP_CACHE=${MP_CACHE:-${HOME:-/root}/.cache/movable_pool}
# Kernels the harness covers: out of tree (Debian headers and images) and
# all (7.x only in-tree, through patches/7.x). MP_KVERS narrows both.
# shellcheck disable=SC2034	# used by the scripts that source this
MP_KVERS_OOT=${MP_KVERS:-"5.10 6.1 6.12"}
# shellcheck disable=SC2034
MP_KVERS_ALL=${MP_KVERS:-"5.10 6.1 6.12 7.2"}
mkdir -p "$MP_CACHE"

# Debian ABI names the harness was verified with; the newest available is
# used when a pinned one has left the archive.
declare -A MP_PIN=([5.10]=5.10.0-32 [6.1]=6.1.0-57 [6.12]=6.12.118+deb12
	[7.2]=7.2.13+deb14)

# The Debian suite each kernel comes from; bookworm's come through the
# machine's own apt setup, the others through mp_apt_suite.
declare -A MP_SUITE=([5.10]=bullseye [6.1]=bookworm [6.12]=bookworm [7.2]=sid)

mp_log() { printf '[movable_pool] %s\n' "$*" >&2; }
# The last of the kernel versions in $1 (they are listed oldest first).
mp_newest() { echo "${1##* }"; }
mp_die() { mp_log "error: $*"; exit 1; }

# One line per test outcome; tools/testing/check.sh counts them.
mp_result() { printf 'RESULT: %s %s\n' "$1" "$2"; }

# mp_below PID: every process below PID, at any depth. For an interrupted
# run to stop all it started: the guests too, which timeout(1) puts in
# process groups of their own, out of reach of "kill 0".
mp_below() {
	local child
	for child in $(ps -o pid= --ppid "$1"); do
		echo "$child"
		mp_below "$child"
	done
}

# Install Debian packages that are missing (apt-get only when needed).
mp_need_pkgs() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	mp_log "installing ${missing[*]}"
	# one harness apt at a time (make check runs two lanes); and apt
	# waits for dpkg's lock, should anything else hold it
	(
		flock 9
		[ -n "${MP_APT_UPDATED:-}" ] || apt-get update -qq >&2 || exit 1
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 \
			install -y -qq --no-install-recommends "${missing[@]}" >&2
	) 9> "$MP_CACHE/apt.lock" || mp_die "apt-get install ${missing[*]} failed"
	MP_APT_UPDATED=1
}

mp_need_build_tools() {
	mp_need_pkgs build-essential flex bison bc libelf-dev libssl-dev \
		dwarves sparse python3 xz-utils kmod cpio rsync
}

# Print the path of the kernel source tree for $1 (a key of MP_SUITE),
# unpacking Debian's linux-source package into the cache the first time.
mp_kernel_tree() {
	local kver=$1 tree=$MP_CACHE/linux-source-$1
	local suite=${MP_SUITE[$1]:-} tarball=/usr/src/linux-source-$1.tar.xz
	[ -n "$suite" ] || mp_die "unknown kernel $kver"
	if [ ! -f "$tree/.mp-unpacked" ]; then
		if [ "$suite" = bookworm ]; then
			mp_need_pkgs "linux-source-$kver"
		else
			mp_fetch_deb "linux-source-$kver" "$MP_CACHE/src-$kver" "$suite"
			tarball=$MP_CACHE/src-$kver$tarball
		fi
		mp_log "unpacking linux-source-$kver"
		rm -rf "$tree"
		tar xf "$tarball" -C "$MP_CACHE" ||
			mp_die "cannot unpack linux-source-$kver"
		rm -rf "$MP_CACHE/src-$kver"
		touch "$tree/.mp-unpacked"
	fi
	echo "$tree"
}

# Link this repository into the tree as drivers/misc/movable_pool.
mp_link_tree() {
	local tree=$1
	ln -sfn "$MP_REPO" "$tree/drivers/misc/movable_pool"
	grep -q '^obj-y.*movable_pool/' "$tree/drivers/misc/Makefile" ||
		echo 'obj-y += movable_pool/' >> "$tree/drivers/misc/Makefile"
	if ! grep -q 'drivers/misc/movable_pool/Kconfig' "$tree/drivers/misc/Kconfig"; then
		# before the last endmenu
		tac "$tree/drivers/misc/Kconfig" |
			awk '!done && /^endmenu/ { print; print "source \"drivers/misc/movable_pool/Kconfig\""; done=1; next } { print }' |
			tac > "$tree/drivers/misc/Kconfig.mp" &&
			mv "$tree/drivers/misc/Kconfig.mp" "$tree/drivers/misc/Kconfig"
	fi
}

# The Debian ABI name to use for $1: the pinned one if still in the archive.
mp_abi() {
	local kver=$1 pin=${MP_PIN[$1]:-} suite=${MP_SUITE[$1]:-} pat
	[ -n "$suite" ] || mp_die "unknown kernel $kver"
	if ls "$MP_CACHE/debs/linux-headers-${pin}-amd64_"*.deb >/dev/null 2>&1 ||
	   mp_apt "$suite" apt-cache show "linux-headers-$pin-amd64" >/dev/null 2>&1; then
		echo "$pin"
		return
	fi
	case $kver in
	5.10) pat='^linux-headers-5\.10\.0-[0-9]+-amd64$' ;;
	6.1) pat='^linux-headers-6\.1\.0-[0-9]+-amd64$' ;;
	6.12) pat='^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' ;;
	7.2) pat='^linux-headers-7\.2\.[0-9]+\+deb14-amd64$' ;;
	esac
	mp_apt "$suite" apt-cache search --names-only "$pat" | awk '{print $1}' |
		sort -V | tail -1 | sed 's/^linux-headers-//; s/-amd64$//'
}

# Print apt-get options that read suite $1 from a private sources list and
# lists directory under the cache, written from the machine's own Debian
# URI with the suite replaced. /etc/apt is never touched.
mp_apt_suite() {
	local suite=$1 dir=$MP_CACHE/apt/$1 uri key
	mkdir -p "$dir/lists/partial"
	if [ ! -f "$dir/.mp-updated" ]; then
		uri=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' \
			/etc/apt/sources.list.d/*.sources 2>/dev/null)
		[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 !~ /security/ { print $2; exit }' \
			/etc/apt/sources.list 2>/dev/null)
		[ -n "$uri" ] || mp_die "no Debian URI in /etc/apt to derive $suite from"
		key=/usr/share/keyrings/debian-archive-keyring.gpg
		echo "deb [signed-by=$key] $uri $suite main" > "$dir/sources.list"
		mp_log "apt lists for $suite"
		apt-get -qq -o Dir::Etc::sourcelist="$dir/sources.list" \
			-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$dir/lists" \
			-o APT::Sandbox::User=root \
			update >&2 || mp_die "apt-get update for $suite failed"
		touch "$dir/.mp-updated"
	fi
	echo "-o Dir::Etc::sourcelist=$dir/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$dir/lists"
}

# apt-cache/apt-get for suite $1 (the rest of the arguments), e.g.
# mp_apt bullseye apt-cache show linux-source-5.10
mp_apt() {
	local suite=$1 cmd=$2 opts
	shift 2
	if [ "$suite" = bookworm ]; then
		"$cmd" "$@"
		return
	fi
	opts=$(mp_apt_suite "$suite") || exit 1
	# shellcheck disable=SC2086
	"$cmd" $opts "$@"
}

# Download and unpack a Debian package (no install scripts run) into $2;
# $3 is the suite (default bookworm).
mp_fetch_deb() {
	local pkg=$1 dest=$2 suite=${3:-bookworm} dir=$MP_CACHE/debs
	mkdir -p "$dir" "$dest"
	if ! ls "$dir/${pkg}_"*.deb >/dev/null 2>&1; then
		if [ "$suite" = bookworm ] && [ -z "${MP_APT_UPDATED:-}" ]; then
			apt-get update -qq >&2
			MP_APT_UPDATED=1
		fi
		(cd "$dir" && mp_apt "$suite" apt-get download \
			-o APT::Sandbox::User=root "$pkg" >&2) ||
			mp_die "apt-get download $pkg ($suite) failed"
	fi
	dpkg-deb -x "$(printf '%s\n' "$dir/${pkg}_"*.deb | sort -V | tail -1)" "$dest"
}

# mp_fetch_once ROOT SUITE PKG...: unpack the Debian packages PKG into ROOT,
# unless an earlier call finished doing so.
mp_fetch_once() {
	local root=$1 suite=$2 pkg
	shift 2
	[ -f "$root/.mp-ready" ] && return 0
	mp_log "fetching $*"
	rm -rf "$root"
	for pkg in "$@"; do
		mp_fetch_deb "$pkg" "$root" "$suite" || return 1
	done
	touch "$root/.mp-ready"
}

# Print the build directory of a checked guest kernel for $1 (6.12):
# Debian's linux-source with tools/testing/vm/$2.config, built once and
# cached. $2 is checked (KASAN, lockdep, DEBUG_VM, kmemleak, fault
# injection; the default) or kcsan (the data race detector).
mp_checked_tree() {
	local kver=$1 flavour=${2:-checked} tree build=$MP_CACHE/${2:-checked}-$1
	local frag=$MP_REPO/tools/testing/vm/$flavour.config
	tree=$(mp_kernel_tree "$kver") || return 1
	# Module.symvers comes with the modules: M= builds need it
	if [ -f "$build/.mp-built" ] && [ -f "$build/Module.symvers" ] &&
	   cmp -s "$frag" "$build/.mp-config"; then
		echo "$build"
		return
	fi
	mp_log "building the $flavour $kver guest kernel (about half an hour the first time)"
	mkdir -p "$build"
	if ! { make -C "$tree" O="$build" defconfig >&2 &&
		(cd "$build" && "$tree/scripts/kconfig/merge_config.sh" -m .config "$frag") >&2 &&
		make -C "$tree" O="$build" olddefconfig >&2 &&
		make -C "$tree" O="$build" -j"$(nproc)" bzImage modules \
			> "$build/build.log" 2>&1; }; then
		tail -30 "$build/build.log" >&2
		mp_die "$flavour $kver kernel build failed"
	fi
	cp "$frag" "$build/.mp-config"
	touch "$build/.mp-built"
	echo "$build"
}

# Print the build directory of the patched guest kernel for $1 (7.2):
# patches/7.x applied to Debian's linux-source (tools/upstream/apply-series.sh)
# and built with Debian's own config for that kernel, reduced by
# tools/testing/kernel/$1.modules (localmodconfig keeps only those modules)
# and $1.config. A new series or config rebuilds what changed, in place.
mp_patched_tree() { mp_guest_tree "$1" mp; }

# Print the build directory of the same kernel without the series (7.2-plain):
# Debian's linux-source as it is, configured and built exactly as
# mp_patched_tree() does (CONFIG_MOVABLE_POOL, which the plain tree lacks,
# drops out), so that it and the patched kernel differ by the series only.
# Debian's own image (7.2-debian) is built with the full config instead.
mp_plain_tree() { mp_guest_tree "$1" plain; }

# mp_guest_tree KVER mp|plain: the two above.
mp_guest_tree() {
	local kver=$1 flavour=$2 dir=$MP_REPO/tools/testing/kernel
	local build src abi config key what=$flavour
	case $flavour in
	mp)
		what=patched
		build=$MP_CACHE/kernel-$kver
		src=$MP_CACHE/linux-$kver-mp
		key=$(cat "$MP_REPO"/patches/7.x/0*.patch "$dir/$kver.config" \
			"$dir/$kver.modules" | sha256sum | cut -c1-16)
		;;
	plain)
		build=$MP_CACHE/kernel-$kver-plain
		src=$(mp_kernel_tree "$kver") || return 1
		key=$(cat "$dir/$kver.config" "$dir/$kver.modules" |
			sha256sum | cut -c1-16)
		;;
	*) mp_die "unknown guest kernel flavour $flavour" ;;
	esac
	if [ -f "$build/.mp-key" ] && [ "$(cat "$build/.mp-key")" = "$key" ]; then
		echo "$build"
		return
	fi
	if [ "$flavour" = mp ]; then
		bash "$MP_REPO/tools/upstream/apply-series.sh" "$kver" >&2 || return 1
	fi
	config=$(mp_headers "$kver")/.config || return 1
	mkdir -p "$build"
	if ! cmp -s "$dir/$kver.config" "$build/.mp-config" ||
	   ! cmp -s "$dir/$kver.modules" "$build/.mp-modules"; then
		mp_log "configuring the $what $kver kernel from Debian's config"
		cp "$config" "$build/.config"
		{ make -C "$src" O="$build" \
			LSMOD="$dir/$kver.modules" localmodconfig < /dev/null &&
		  (cd "$build" && "$src/scripts/kconfig/merge_config.sh" \
			-m .config "$dir/$kver.config") &&
		  make -C "$src" O="$build" olddefconfig; } \
			> "$build/config.log" 2>&1 || {
			tail -20 "$build/config.log" >&2
			mp_die "configuring the $kver kernel failed"
		}
		cp "$dir/$kver.config" "$build/.mp-config"
		cp "$dir/$kver.modules" "$build/.mp-modules"
	fi
	mp_log "building the $what $kver kernel (9 to 19 minutes the first time here, on two cores)"
	abi=${MP_PIN[$kver]}
	if ! make -C "$src" O="$build" -j"$(nproc)" \
		LOCALVERSION= KERNELRELEASE="$abi-$flavour" bzImage modules \
		> "$build/build.log" 2>&1; then
		tail -30 "$build/build.log" >&2
		mp_die "$kver kernel build failed"
	fi
	echo "$key" > "$build/.mp-key"
	echo "$build"
}

# mp_apply_series PRISTINE TREE [LAST]: make TREE, a hard-linked copy of
# PRISTINE, hold the files patches/7.x touches as patches 1..LAST (default:
# all) leave them. Files are replaced, never edited (the links), and only
# when their content changes, so the builds in TREE stay incremental.
mp_apply_series() {
	local pristine=$1 tree=$2 last=${3:-9999} stage p f files all
	files=$(grep -h '^diff --git ' "$MP_REPO"/patches/7.x/0*.patch |
		awk '{ print substr($3, 3) }' | sort -u)
	# and the files an earlier series touched: they go back too
	all=$({ printf '%s\n' "$files"; cat "$tree/.mp-series-files" 2>/dev/null; } |
		sort -u)
	# a symlink here would be the pristine tree itself, which the loop
	# below would then patch; "$pristine/." copies what a link to the
	# pristine tree (a cache sharing another's sources) points at
	if [ -L "$tree" ]; then
		mp_log "$tree is a symlink: remove it, it must be a tree of its own"
		return 1
	fi
	if [ ! -d "$tree" ]; then
		mkdir -p "$tree" && cp -al "$pristine/." "$tree/" || return 1
	fi
	stage=$(mktemp -d)
	for f in $all; do
		[ -f "$pristine/$f" ] && install -D -m 644 "$pristine/$f" "$stage/$f"
	done
	for p in "$MP_REPO"/patches/7.x/0*.patch; do
		case $(basename "$p") in 0000-*) continue ;; esac
		[ "$(basename "$p" | cut -c1-4)" \> "$last" ] && break
		if ! patch -s -p1 -d "$stage" < "$p"; then
			mp_log "$(basename "$p") does not apply"
			rm -rf "$stage"
			return 1
		fi
	done
	# missing from the stage: no patch up to LAST made it, or one deleted it
	for f in $all; do
		if [ ! -f "$stage/$f" ]; then
			rm -f "$tree/$f"
		elif ! cmp -s "$stage/$f" "$tree/$f"; then
			rm -f "$tree/$f"
			install -D -m 644 "$stage/$f" "$tree/$f"
		fi
	done
	printf '%s\n' "$files" > "$tree/.mp-series-files"
	rm -rf "$stage"
}

# Print the path of Debian's amd64 headers for $1, ready for M= builds.
mp_headers() {
	local kver=$1 abi root hdrs
	abi=$(mp_abi "$kver")
	[ -n "$abi" ] || mp_die "no Debian headers found for $kver"
	root=$MP_CACHE/debian-$abi
	hdrs=$root/usr/src/linux-headers-$abi-amd64
	if [ ! -f "$root/.mp-ready" ]; then
		mp_log "fetching Debian $abi headers"
		rm -rf "$root"
		local kbuild=linux-kbuild-$abi suite=${MP_SUITE[$kver]}
		case $kver in 5.10|6.1) kbuild=linux-kbuild-$kver ;; esac
		mp_fetch_deb "linux-headers-$abi-amd64" "$root" "$suite"
		mp_fetch_deb "linux-headers-$abi-common" "$root" "$suite"
		mp_fetch_deb "$kbuild" "$root" "$suite"
		# the packages refer to each other by absolute /usr/... paths
		sed -i "s|\([ =]\)/usr/src/|\1$root/usr/src/|g" "$hdrs/Makefile"
		local l t
		while IFS= read -r l; do
			t=$(readlink "$l")
			case $t in
			/*) ln -sfn "$root$t" "$l" ;;
			esac
		done < <(find "$root/usr/src" -maxdepth 2 -type l)
		touch "$root/.mp-ready"
	fi
	echo "$hdrs"
}

# The version, written once: MOVABLE_POOL_VERSION in the public header (the
# API level; lib/movable_pool.c makes it MODULE_VERSION). dkms.conf's
# PACKAGE_VERSION and the Debian package version follow it: make deb fails
# when debian/changelog disagrees.
mp_version() {
	local v
	v=$(sed -n 's/^#define[[:space:]]\{1,\}MOVABLE_POOL_VERSION[[:space:]]\{1,\}\([0-9]\{1,\}\)[[:space:]]*$/\1/p' \
		"$MP_REPO/include/linux/movable_pool.h")
	[ -n "$v" ] || mp_die "no '#define MOVABLE_POOL_VERSION <number>' in include/linux/movable_pool.h"
	echo "$v"
}

# mp_export DEST: copy the files git tracks (and new ones it does not
# ignore) to DEST, so packaging and DKMS work on a copy, never in the tree.
mp_export() {
	mkdir -p "$1"
	git -C "$MP_REPO" ls-files -z -co --exclude-standard |
		rsync -a --from0 --ignore-missing-args --files-from=- "$MP_REPO/" "$1/"
}

# mp_driver_src DIR [DKMS_TREE]: the minimal sample as a driver of its own
# in DIR, with the Kbuild the README's install section shows: the header
# and Module.symvers come from what movable-pool-dkms's DKMS build keeps
# per kernel (tools/dkms/post-build.sh), nothing from this tree. DKMS_TREE
# (default /var/lib/dkms) is for a DKMS tree kept elsewhere.
mp_driver_src() {
	local dir=$1 tree=${2:-/var/lib/dkms}
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$MP_REPO/samples/movable_pool/minimal.c" "$dir/"
	cat > "$dir/Kbuild" <<-KBUILD
	obj-m := movable_pool_minimal.o
	movable_pool_minimal-y := minimal.o

	# movable_pool as DKMS built it for the kernel being built for
	MOVABLE_POOL := $tree/movable_pool/kernel-\$(KERNELRELEASE)-\$(shell uname -m)
	ifeq (\$(wildcard \$(MOVABLE_POOL)/Module.symvers),)
	\$(error movable_pool is not installed for \$(KERNELRELEASE): install movable-pool-dkms and this kernel's headers)
	endif
	ccflags-y += -I\$(MOVABLE_POOL)/include
	KBUILD_EXTRA_SYMBOLS := \$(MOVABLE_POOL)/Module.symvers
	KBUILD
}

# mp_unpack_ko SRC DEST: a module as DKMS installed it (.ko, or compressed
# like the kernel's own) as a plain .ko for the guests' busybox insmod.
mp_unpack_ko() {
	case $1 in
	*.xz) xz -dc "$1" > "$2" ;;
	*.zst) zstd -qdc "$1" > "$2" ;;
	*.gz) gzip -dc "$1" > "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# mp_dkms_guest NAME KVER KO DRIVER: boot a guest of KVER with KO (the
# library as DKMS built it) and DRIVER (a driver built against it) in place
# of the tree's own modules, running tools/testing/vm/init.sh's "dkms" step:
# load both, compact, read the pool's counters, unload. The guest log is
# $MP_CACHE/NAME-KVER.log. Needs vm.sh sourced.
mp_dkms_guest() {
	local name=$1 kver=$2 ko=$3 driver=$4 dir initrd log
	log=$MP_CACHE/$name-$kver.log
	# an initramfs of its own: the other guests' stays as it is
	dir=$MP_CACHE/initramfs-$name-$kver
	initrd=$(mp_initramfs "$kver" "$dir") || return 1
	mp_unpack_ko "$ko" "$dir/movable_pool.ko" || return 1
	cp "$driver" "$dir/movable_pool_minimal.ko" || return 1
	(cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd" ||
		return 1
	MP_INITRD=$initrd mp_boot "$kver" dkms "" "$log" || return 1
	grep -q '^MP_STEP dkms=ok' "$log" || return 1
	sed -n 's/dkms_//g; s/^MP_STEP /[movable_pool] '"$kver"' guest: /p' "$log" |
		grep -v '=ok$' >&2
	return 0
}
