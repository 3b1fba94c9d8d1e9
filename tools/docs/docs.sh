#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make docs: render Documentation/core-api/movable_pool.rst to HTML with
# Sphinx (Debian's package), the API reference pulled from the kernel-doc
# comments by the kernel's own kerneldoc extension (from Debian's 6.12
# linux-source). Any Sphinx or kernel-doc warning fails it. The HTML lands
# in $MP_CACHE/docs/html. Then the guide's lines-of-change table must be
# what tools/docs/lines-of-change.sh measures now.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testing/lib.sh"

mp_need_pkgs python3-sphinx perl
tree=$(mp_kernel_tree 6.12) || mp_die "no 6.12 kernel tree"
out=$MP_CACHE/docs
rm -rf "$out"
mkdir -p "$out"
if MP_KTREE=$tree sphinx-build -q -W --keep-going -b html -c "$here" \
	-d "$out/doctrees" "$MP_REPO/Documentation/core-api" "$out/html" \
	> "$out/sphinx.log" 2>&1; then
	mp_log "HTML: $out/html/movable_pool.html"
	mp_result pass docs
else
	cat "$out/sphinx.log" >&2
	mp_result fail docs
	exit 1
fi
bash "$here/lines-of-change.sh" --check
