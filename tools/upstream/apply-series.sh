#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# apply-series.sh KVER: apply patches/7.x to a copy of Debian's
# linux-source-KVER in the cache ($MP_CACHE/linux-KVER-mp), rewriting only
# the files whose content changes so UML builds stay incremental. Fails when
# patches/7.x is not what make-series.py makes of the current sources
# (run `make series`), or when the series does not apply.
set -u
. "$(dirname "$0")/../testing/lib.sh"

kver=${1:?usage: apply-series.sh KVER}
series=$MP_REPO/patches/7.x
pristine=$(mp_kernel_tree "$kver") || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$MP_REPO/tools/upstream/make-series.py" "$pristine" "$work/series" \
	"$kver" > /dev/null || exit 1
if ! diff -r -q "$series" "$work/series" > /dev/null 2>&1; then
	mp_log "patches/7.x is stale or missing: run 'make series' and commit it"
	diff -ru "$series" "$work/series" 2>&1 | head -20 >&2
	exit 1
fi

tree=$MP_CACHE/linux-$kver-mp
mp_apply_series "$pristine" "$tree" || exit 1
mp_log "patches/7.x applied to $tree"
