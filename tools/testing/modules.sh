#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build movable_pool.ko and the sample modules out of tree against Debian's
# amd64 headers for each version given (default: 6.1 6.12). Extra make
# arguments (W=1, C=1) come from $MP_MAKE_ARGS. Objects go to
# $MP_CACHE/modules-<abi>/, never into the repository.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Print the directory holding the freshly built modules for $1.
mp_build_modules() {
	local kver=$1 hdrs abi dir
	hdrs=$(mp_headers "$kver") || return 1
	abi=$(basename "$hdrs" | sed 's/^linux-headers-//; s/-amd64$//')
	dir=$MP_CACHE/modules-$abi
	rsync -a --delete --exclude .git "$MP_REPO/" "$dir/" || return 1
	mp_log "building modules for $abi ${MP_MAKE_ARGS:-}"
	# shellcheck disable=SC2086
	make -C "$hdrs" M="$dir" ${MP_MAKE_ARGS:-} \
		CONFIG_MOVABLE_POOL=m CONFIG_MOVABLE_POOL_SAMPLES=m \
		CONFIG_MOVABLE_POOL_BENCH=m \
		-j"$(nproc)" modules >&2 || return 1
	echo "$dir"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	mp_need_build_tools
	status=0
	for kver in ${1:-$MP_KVERS}; do
		if dir=$(mp_build_modules "$kver"); then
			find "$dir" -name '*.ko' | sort
			mp_result pass "modules-$kver"
		else
			mp_result fail "modules-$kver"
			status=1
		fi
	done
	exit $status
fi
