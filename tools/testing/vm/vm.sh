# SPDX-License-Identifier: GPL-2.0
# Helpers for qemu guests running Debian's kernels. Source after lib.sh and
# modules.sh.
# shellcheck shell=bash

mp_need_vm_tools() {
	mp_need_build_tools
	mp_need_pkgs qemu-system-x86 busybox-static libc6-dev
}

# Print the path of the amd64 kernel image for $1: Debian's, or for 7.x
# the patched kernel (7.2) beside Debian's own (7.2-debian) and the same
# source and config as the patched one without the series (7.2-plain).
mp_vmlinuz() {
	local kver=$1 abi root
	case $kver in
	*-checked|*-kcsan)	# our own builds of Debian's source
		root=$(mp_checked_tree "${kver%-*}" "${kver##*-}") || return 1
		echo "$root/arch/x86/boot/bzImage"
		return
		;;
	7.*-debian)	# Debian splits 7.x: the image, and its modules
		kver=${kver%-debian}
		abi=$(mp_abi "$kver")
		mp_fetch_once "$MP_CACHE/image-$abi" "${MP_SUITE[$kver]}" \
			"linux-binary-$abi-amd64" "linux-modules-$abi-amd64" || return 1
		echo "$MP_CACHE/image-$abi/usr/lib/modules/$abi-amd64/vmlinuz"
		return
		;;
	7.*-plain)
		root=$(mp_plain_tree "${kver%-plain}") || return 1
		echo "$root/arch/x86/boot/bzImage"
		return
		;;
	7.*)
		root=$(mp_patched_tree "$kver") || return 1
		echo "$root/arch/x86/boot/bzImage"
		return
		;;
	esac
	abi=$(mp_abi "$kver")
	mp_fetch_once "$MP_CACHE/image-$abi" "${MP_SUITE[$kver]}" \
		"linux-image-$abi-amd64-unsigned" || return 1
	echo "$MP_CACHE/image-$abi/boot/vmlinuz-$abi-amd64"
}

# Copy Debian's virtio modules for $1 into $2: the virtio core where Debian
# builds it as modules (5.10, 6.1), numbered in load order, the kernel's
# own balloon driver to compare with (the balloon test) and virtio_mem
# (make bench's unplug scenario).
mp_virtio_modules() {
	local kver=$1 dir=$2 image m f n=0 out
	case $kver in
	*-checked|*-kcsan) return 0 ;;
	7.*-debian) image=$(mp_vmlinuz "$kver") || return 1; image=${image%/usr/*} ;;
	7.*-plain) image=$(mp_plain_tree "${kver%-plain}") || return 1 ;;
	7.*) image=$(mp_patched_tree "$kver") || return 1 ;;
	*) image=$(mp_vmlinuz "$kver") || return 1; image=${image%/boot/*} ;;
	esac
	mkdir -p "$dir"
	for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev \
		virtio_pci virtio_balloon virtio_mem; do
		f=$(find "$image" -name "$m.ko*" | head -1)
		[ -n "$f" ] || continue
		case $m in
		virtio_balloon | virtio_mem) out=$dir/$m.ko ;;
		*)
			n=$((n + 1))
			out=$dir/core-$n-$m.ko
			;;
		esac
		case $f in
		*.xz) xz -dc "$f" > "$out" ;;
		*) cp "$f" "$out" ;;
		esac || return 1
	done
}

# Copy the modules built for $1 (mp_build_modules) into $2. Debian's 7.x
# and the plain 7.x can run none of them: their guests run the kernel's
# own drivers only.
mp_initramfs_modules() {
	local kver=$1 dir=$2 mods
	case $kver in 7.*-debian | 7.*-plain) return 0 ;; esac
	mods=$(mp_build_modules "$kver" 2>"$dir.modules.log") || {
		cat "$dir.modules.log" >&2
		return 1
	}
	cp "$mods/samples/movable_pool/gfxbuf.ko" \
		"$mods/samples/movable_pool/movable_pool_minimal.ko" \
		"$mods/samples/movable_pool/unmovable/unmovable_gfxbuf.ko" "$dir/" ||
		return 1
	# 7.x has the library built in (init.sh loads it where it is a module)
	case $kver in
	7.*) ;;
	*) cp "$mods/movable_pool.ko" "$dir/" || return 1 ;;
	esac
	# kernels built without virtio have no balloon sample
	cp "$mods/samples/movable_pool/mp_balloon.ko" "$dir/" 2>/dev/null
	# make bench's driver (on 7.x without its hand-rolled kind)
	cp "$mods/tools/testing/bench/bench_driver.ko" "$dir/" 2>/dev/null
	return 0
}

# mp_initramfs KVER [DIR]: build the guest's initramfs for KVER in DIR
# (default $MP_CACHE/initramfs-KVER[-$MP_BUILD_TAG], see modules.sh) and
# print its path, DIR.cpio.gz.
mp_initramfs() {
	local kver=$1 dir=${2:-$MP_CACHE/initramfs-$1${MP_BUILD_TAG:+-$MP_BUILD_TAG}} out
	out=$dir.cpio.gz
	rm -rf "$dir"
	mkdir -p "$dir/bin" "$dir/proc" "$dir/sys" "$dir/dev" "$dir/tmp"
	cp /bin/busybox "$dir/bin/busybox"
	mp_initramfs_modules "$kver" "$dir" || return 1
	mp_virtio_modules "$kver" "$dir/virtio" || return 1
	gcc -static -O2 -pthread -Wall -o "$dir/gfxbuf_test" \
		"$MP_REPO/tools/testing/vm/gfxbuf_test.c" || return 1
	gcc -static -O2 -Wall -o "$dir/bench_run" \
		"$MP_REPO/tools/testing/bench/bench_run.c" || return 1
	gcc -static -O2 -pthread -Wall -o "$dir/gfxbuf_fuzz" \
		"$MP_REPO/tools/testing/vm/gfxbuf_fuzz.c" || return 1
	gcc -static -O2 -pthread -Wall -o "$dir/gfxbuf_stress" \
		"$MP_REPO/tools/testing/vm/gfxbuf_stress.c" || return 1
	gcc -static -O2 -Wall -o "$dir/balloon_guest" \
		"$MP_REPO/tools/testing/vm/balloon_guest.c" || return 1
	install -m 755 "$MP_REPO/tools/testing/vm/init.sh" "$dir/init"
	(cd "$dir" && find . | cpio -o -H newc --quiet | gzip -1) > "$out" ||
		return 1
	echo "$out"
}

# Kernel log lines that mean the guest kernel is unwell.
MP_GUEST_BAD='WARNING:|BUG:|Oops|Kernel panic|general protection|KASAN|Call Trace:|page allocation failure|Out of memory|soft lockup|hung_task|blocked for more than|unreferenced object|Bad page'

# Guests run two vCPUs on one TCG thread: with multi-threaded TCG, QEMU 7.2
# occasionally crashes Debian's kernels at boot (int3 oops while patching
# kernel text on another vCPU), before any test code runs. One thread
# costs a few seconds per boot. MP_TCG_THREAD=multi brings it back (make
# stress needs it); MP_BOOT_RETRIES=N then boots again, up to N times, when
# a guest dies before its /init says hello, and says so. MP_BOOT_STATS=FILE
# gets one line per boot: "KVER SCENARIO started|died".
#
# The checked kernel boots with no5lvl: -cpu max offers 5-level paging, and
# 6.12's identify_cpu() clears the CPU feature bits for a moment, so an
# interrupt taken then makes KASAN see every direct-map address as wild
# (a KASAN report in handle_edge_irq during cpu_detect, before any module).
#
# mp_boot KVER SCENARIO ARGS LOG [CMDLINE]: boot a guest, log its console
# to LOG. Fails (and shows the log) on timeout, panic, or any bad kernel
# line (MP_GUEST_OK, an extended regex, names lines that are expected).
# MP_INITRD replaces the initramfs mp_initramfs() built; MP_QEMU_ARGS adds
# devices and options to QEMU's command line.
mp_boot() {
	local kver=$1 scenario=$2 args=$3 log=$4 extra=${5:-} kernel initrd rc
	local boot=0 bad
	kernel=$(mp_vmlinuz "$kver") || return 1
	initrd=${MP_INITRD:-$MP_CACHE/initramfs-$kver${MP_BUILD_TAG:+-$MP_BUILD_TAG}.cpio.gz}
	case $kver in *-checked|*-kcsan) extra="$extra no5lvl" ;; esac
	while :; do
		boot=$((boot + 1))
		# MP_QEMU_ARGS is a list of options: split on purpose
		# shellcheck disable=SC2086
		timeout "${MP_VM_TIMEOUT:-600}" qemu-system-x86_64 \
			-accel tcg,thread="${MP_TCG_THREAD:-single}" -cpu max \
			-m "${MP_VM_MEM:-1024}" -smp "${MP_VM_SMP:-2}" -nographic -no-reboot \
			-kernel "$kernel" -initrd "$initrd" ${MP_QEMU_ARGS:-} \
			-append "console=ttyS0 panic=-1 loglevel=5 mptest=$scenario mpargs=$args $extra" \
			< /dev/null > "$log" 2>&1
		rc=$?
		tr -d '\r' < "$log" > "$log.tmp" && mv "$log.tmp" "$log"
		if grep -q '^MP_GUEST ' "$log"; then
			[ -z "${MP_BOOT_STATS:-}" ] || echo "$kver $scenario started" >> "$MP_BOOT_STATS"
			break
		fi
		[ -z "${MP_BOOT_STATS:-}" ] || echo "$kver $scenario died" >> "$MP_BOOT_STATS"
		[ "$boot" -le "${MP_BOOT_RETRIES:-0}" ] || break
		cp "$log" "$log.died$boot"
		mp_log "boot $boot of $kver ($scenario) died before the test started; booting again (its log: $log.died$boot):"
		grep -E "$MP_GUEST_BAD" "$log" | head -5 >&2
	done
	if [ $rc -eq 124 ]; then
		mp_log "guest timed out ($kver $scenario); its log:"
		tail -60 "$log" >&2
		return 1
	fi
	bad=$(grep -E "$MP_GUEST_BAD" "$log" | grep -Ev "${MP_GUEST_OK:-^$}")
	if [ -n "$bad" ] || ! grep -q '^MP_EXIT rc=0' "$log"; then
		mp_log "guest failed ($kver $scenario); its log:"
		grep -v '^\[gfxbuf_test\]' "$log" | tail -80 >&2
		return 1
	fi
	return 0
}

# mp_movablecore SIZE: the command line for a guest whose ZONE_MOVABLE (the
# top SIZE of memory) the test takes offline. nokaslr: in one 1 GiB 6.1
# guest a reserved page at pfn 0x37e00, 2 MiB aligned as a randomly placed
# kernel image is, left no block of that zone that could go offline.
mp_movablecore() {
	echo "movablecore=$1 nokaslr"
}

# The value of KEY in the GFXBUF_RESULT line of LOG whose mode is MODE
# (default: the main test's line, not the uapi one).
mp_field() {
	sed -n 's/^GFXBUF_RESULT //p' "$2" |
		if [ -n "${3:-}" ]; then grep " mode=$3 "; else grep -v ' mode=uapi '; fi |
		tr ' ' '\n' | sed -n "s/^$1=//p" | tail -1
}

# mp_fuzz_result LOG NAME SEED: the gfxbuf_fuzz summary in LOG, as the
# RESULT line NAME (with the seed to rerun it when it failed).
mp_fuzz_result() {
	local fuzz
	fuzz=$(sed -n 's/^FUZZ_RESULT //p' "$1")
	mp_log "$2: ${fuzz:-no result}"
	if [ "${fuzz#status=ok }" != "$fuzz" ]; then
		mp_result pass "$2"
	else
		mp_result fail "$2 seed=$3"
		return 1
	fi
}
