#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series: write patches/7.x from this repository's sources against
# Debian's linux-source-7.2 (fetched into the cache if needed).
set -u
. "$(dirname "$0")/../testing/lib.sh"

kver=7.2
tree=$(mp_kernel_tree "$kver") || exit 1
python3 "$MP_REPO/tools/upstream/make-series.py" "$tree" \
	"$MP_REPO/patches/7.x" "$kver" || exit 1
git -C "$MP_REPO" diff --stat -- patches/7.x | tail -1
