#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build movable_pool.ko and the sample modules out of tree against Debian's
# amd64 headers for each version given (default: 5.10 6.1 6.12; 7.x must
# refuse, see Kbuild). For a patched 7.x kernel (KVER 7.2, see
# kernel/build.sh) only the samples are built: the library is in-tree.
# Extra make arguments (W=1, C=1) come from $MP_MAKE_ARGS. Objects go to
# $MP_CACHE/modules-<abi>[-$MP_BUILD_TAG]/, never into the repository.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# mp_make_modules KDIR DIR ARGS...: build DIR's modules against KDIR (a
# kernel build or Debian's headers), with $MP_MAKE_ARGS.
mp_make_modules() {
	local kdir=$1 dir=$2
	shift 2
	# shellcheck disable=SC2086	# MP_MAKE_ARGS is a list of arguments
	make -C "$kdir" M="$dir" "$@" ${MP_MAKE_ARGS:-} -j"$(nproc)" modules >&2
}

# Print the directory holding the freshly built modules for $1. For a
# patched 7.x kernel, whose library is built in, only the samples and make
# bench's yardstick (without its hand-rolled kind) are built, laid out the
# same way.
mp_build_modules() {
	local kver=$1 kdir abi dir extra=(CONFIG_MOVABLE_POOL_BENCH=m)
	case $kver in
	*-checked|*-kcsan)	# our own builds of Debian's source
		kdir=$(mp_checked_tree "${kver%-*}" "${kver##*-}") || return 1
		abi=$kver
		;;
	7.*-debian)	# Debian's own 7.x headers: the out-of-tree build refuses
		kdir=$(mp_headers "${kver%-debian}") || return 1
		;;
	7.*)
		kdir=$(mp_patched_tree "$kver") || return 1
		abi=$kver-mp
		;;
	*)
		kdir=$(mp_headers "$kver") || return 1
		;;
	esac
	[ -n "${abi:-}" ] ||
		abi=$(basename "$kdir" | sed 's/^linux-headers-//; s/-amd64$//')
	# Debian built 5.10 with gcc-10, which bookworm lacks: gcc 12 it is.
	[ "$kver" = 5.10 ] && extra+=(CC=gcc)
	# MP_BUILD_TAG: modules (and guests' initramfs, vm.sh) of their own,
	# for lint's W=1 builds and make check's builds lane, which run beside
	# the guests lane
	dir=$MP_CACHE/modules-$abi${MP_BUILD_TAG:+-$MP_BUILD_TAG}
	rsync -a --delete --exclude .git "$MP_REPO/" "$dir/" || return 1
	mp_log "building modules for $abi ${MP_MAKE_ARGS:-}"
	case $abi in
	*-mp)
		mp_make_modules "$kdir" "$dir/samples/movable_pool" \
			CONFIG_MOVABLE_POOL_SAMPLES=m &&
		mp_make_modules "$kdir" "$dir/tools/testing/bench" "${extra[@]}" ||
			return 1
		;;
	*)
		mp_make_modules "$kdir" "$dir" "${extra[@]}" \
			CONFIG_MOVABLE_POOL=m CONFIG_MOVABLE_POOL_SAMPLES=m || return 1
		;;
	esac
	# the samples without movable_pool: the guests' unmovable baseline
	mp_make_modules "$kdir" "$dir/samples/movable_pool/unmovable" \
		"${extra[@]}" || return 1
	echo "$dir"
}

# Linux 6.17+ must refuse the out-of-tree build at once, pointing to
# patches/7.x; RESULT line for make check.
mp_check_refusal() {
	local kver=$1 out start
	out=$(mktemp)
	start=$SECONDS
	if mp_build_modules "$kver-debian" > /dev/null 2> "$out"; then
		mp_log "the out-of-tree build for $kver did not fail"
		mp_result fail "modules-$kver/refused"
	elif grep -q 'patches/7.x' "$out" && [ $((SECONDS - start)) -lt 60 ]; then
		grep -m1 'patches/7.x' "$out" | sed 's/^/[movable_pool] expected: /' >&2
		mp_result pass "modules-$kver/refused"
	else
		tail -20 "$out" >&2
		mp_result fail "modules-$kver/refused"
	fi
	rm -f "$out"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	mp_need_build_tools
	status=0
	for kver in ${1:-$MP_KVERS_OOT}; do
		if dir=$(mp_build_modules "$kver"); then
			find "$dir" -name '*.ko' | sort
			mp_result pass "modules-$kver"
		else
			mp_result fail "modules-$kver"
			status=1
		fi
	done
	# make check: the 7.x kernels must say where to go instead
	if [ -z "${1:-}" ]; then
		for kver in $MP_KVERS_ALL; do
			case $kver in 7.*) mp_check_refusal "$kver" ;; esac
		done
	fi
	exit $status
fi
