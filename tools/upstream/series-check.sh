#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make series-check [PATCHES]: every patch of patches/7.x builds on its own,
# so the series bisects. For each patch N given (default: every one), the
# patches up to N are applied to a copy of Debian's linux-source-7.2 and
# built for x86 with the patched guest kernel's config (make kernel):
# mm/, the balloon's users in drivers/, and every other directory whose C
# files the series changes. With --last, only the patch the newest commit
# to patches/7.x changed first: the one a change is most likely to have
# broken (make check). RESULT line per patch.
set -uo pipefail
. "$(dirname "$0")/../testing/lib.sh"

kver=7.2
series=$MP_REPO/patches/7.x
mapfile -t patches < <(printf '%s\n' "$series"/0*.patch | grep -v '/0000-')
case ${1:-} in
--last)
	# the lowest-numbered patch of the newest commit that changed one
	first=$(git -C "$MP_REPO" log --format='commit %H' --name-only -- patches/7.x/ |
		awk '/^commit / { if (found) exit; next }
		     /\/0[0-9]*[1-9][0-9]*-[^\/]*\.patch$/ { found = 1; print }' |
		sort | head -1)
	[ -n "$first" ] || mp_die "no commit touches patches/7.x"
	want=$(basename "$first" | cut -c1-4)
	;;
'') want=$(printf '%s\n' "${patches[@]}" | xargs -n1 basename | cut -c1-4) ;;
*) want=$* ;;
esac

pristine=$(mp_kernel_tree "$kver") || exit 1
full=$(mp_patched_tree "$kver") || exit 1	# its config, and the series' files
tree=$MP_CACHE/linux-$kver-series
build=$MP_CACHE/kernel-$kver-series
mkdir -p "$build"
files=$(grep -h '^diff --git ' "${patches[@]}" | awk '{ print substr($3, 3) }' | sort -u)
dirs=$(printf '%s\n' "$files" | grep '\.c$' | xargs -r -n1 dirname | sort -u |
	grep -v '^arch/' | sed 's|$|/|')
# the balloon's users on this architecture
users=$(cd "$pristine" && grep -rl --include='*.c' 'include <linux/balloon.h>' \
	drivers mm 2>/dev/null | sed 's/\.c$/.o/')

# shellcheck disable=SC2086	# lists of paths
targets=$(printf '%s\n' mm/ $dirs $users | sort -u | tr '\n' ' ')

status=0
for n in $want; do
	# unchanged files keep their times: a second run of the same patch
	# rebuilds nothing
	mp_apply_series "$pristine" "$tree" "$n" || mp_die "the series does not apply"
	cmp -s "$full/.config" "$build/.config" || cp "$full/.config" "$build/.config"
	log=$MP_CACHE/series-check-$n.log
	mp_log "series up to patch $n: building $targets"
	# shellcheck disable=SC2086	# lists of targets
	if make -C "$tree" O="$build" olddefconfig > "$log" 2>&1 &&
	   make -C "$tree" O="$build" -j"$(nproc)" W=1 $targets \
		>> "$log" 2>&1; then
		mp_result pass "series-check-$kver/$n"
	else
		grep -E 'error|warning:' "$log" | head -20 >&2
		mp_result fail "series-check-$kver/$n"
		status=1
	fi
done
exit $status
