#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build movable_pool.ko and the sample modules out of tree against Debian's
# amd64 headers for each version given (default: 5.10 6.1 6.12; 7.x must
# refuse, see Kbuild). For a patched 7.x kernel (KVER 7.2, see
# kernel/build.sh) only the samples are built: the library is in-tree.
# Extra make arguments (W=1, C=1) come from $MP_MAKE_ARGS. Objects go to
# $MP_CACHE/modules-<abi>/, never into the repository.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Print the directory holding the freshly built modules for $1.
mp_build_modules() {
	local kver=$1 hdrs abi dir
	case $kver in
	*-checked|*-kcsan)	# our own builds of Debian's source
		hdrs=$(mp_checked_tree "${kver%-*}" "${kver##*-}") || return 1
		abi=$kver
		;;
	7.*-debian)	# Debian's own 7.x headers: the out-of-tree build refuses
		hdrs=$(mp_headers "${kver%-debian}") || return 1
		abi=$(basename "$hdrs" | sed 's/^linux-headers-//; s/-amd64$//')
		;;
	7.*)
		mp_build_samples "$kver"
		return
		;;
	*)
		hdrs=$(mp_headers "$kver") || return 1
		abi=$(basename "$hdrs" | sed 's/^linux-headers-//; s/-amd64$//')
		;;
	esac
	dir=$MP_CACHE/modules-$abi
	rsync -a --delete --exclude .git "$MP_REPO/" "$dir/" || return 1
	# Debian built 5.10 with gcc-10, which bookworm lacks: gcc 12 it is.
	# make bench's hand-rolled yardstick speaks the 6.x interface only.
	local extra=(CONFIG_MOVABLE_POOL_BENCH=m)
	[ "$kver" = 5.10 ] && extra=(CC=gcc)
	mp_log "building modules for $abi ${MP_MAKE_ARGS:-}"
	# shellcheck disable=SC2086
	make -C "$hdrs" M="$dir" "${extra[@]}" ${MP_MAKE_ARGS:-} \
		CONFIG_MOVABLE_POOL=m CONFIG_MOVABLE_POOL_SAMPLES=m \
		-j"$(nproc)" modules >&2 || return 1
	# the samples without movable_pool: the guests' unmovable baseline
	# shellcheck disable=SC2086
	make -C "$hdrs" M="$dir/samples/movable_pool/unmovable" \
		"${extra[@]}" ${MP_MAKE_ARGS:-} -j"$(nproc)" modules >&2 ||
		return 1
	echo "$dir"
}

# The samples for the patched 7.x kernel $1, whose library is built in;
# prints their directory, laid out as mp_build_modules() lays out its own.
mp_build_samples() {
	local kver=$1 build dir
	build=$(mp_patched_tree "$kver") || return 1
	dir=$MP_CACHE/modules-$kver-mp
	rsync -a --delete --exclude .git "$MP_REPO/" "$dir/" || return 1
	mp_log "building the samples for the patched $kver kernel ${MP_MAKE_ARGS:-}"
	# shellcheck disable=SC2086
	make -C "$build" M="$dir/samples/movable_pool" ${MP_MAKE_ARGS:-} \
		CONFIG_MOVABLE_POOL_SAMPLES=m -j"$(nproc)" modules >&2 || return 1
	# shellcheck disable=SC2086
	make -C "$build" M="$dir/samples/movable_pool/unmovable" \
		${MP_MAKE_ARGS:-} -j"$(nproc)" modules >&2 || return 1
	# make bench's yardstick, without its hand-rolled kind
	# shellcheck disable=SC2086
	make -C "$build" M="$dir/tools/testing/bench" ${MP_MAKE_ARGS:-} \
		CONFIG_MOVABLE_POOL_BENCH=m -j"$(nproc)" modules >&2 || return 1
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
