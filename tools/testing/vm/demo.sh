#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: what movable_pool buys, in three 6.12 guests.
# Each guest fills ~40% of its RAM with gfxbuf BOs (or nothing), frees a
# random half of them, then compacts and asks for as many huge pages as free
# memory could hold, while mmap and engine traffic goes on. Every byte is
# checked afterwards.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../modules.sh"
. "$here/vm.sh"

KVER=${KVER:-6.12}
[ -n "$KVER" ] || KVER=6.12
ALLOC=${MP_DEMO_ALLOC_MIB:-800}
ARGS="--alloc-mib=$ALLOC,--keep-pct=50,--bo-pages=${MP_DEMO_BO_PAGES:-1},--tries=3"

mp_need_vm_tools
say() { printf '==> %s\n' "$*"; }
label() {
	case $1 in
	none) echo "no driver" ;;
	movable) echo "gfxbuf" ;;
	unmovable) echo "unmovable_gfxbuf" ;;
	esac
}
t0=$(date +%s)

say "preparing Debian $KVER kernel, modules and initramfs (cached after the first run)"
mp_vmlinuz "$KVER" >/dev/null || exit 1
mp_initramfs "$KVER" >/dev/null || exit 1

declare -A huge migrated verified status
fail=0
for scenario in none movable unmovable; do
	what=$(label "$scenario")
	say "booting a 1 GiB guest: $what (about a minute under TCG)"
	log=$MP_CACHE/demo-$KVER-$scenario.log
	if mp_boot "$KVER" "$scenario" "$ARGS" "$log"; then
		status[$scenario]=ok
	else
		status[$scenario]=FAILED
		fail=1
	fi
	huge[$scenario]=$(mp_field huge_pages "$log")
	migrated[$scenario]=$(mp_field migrated "$log")
	if [ "$scenario" = none ]; then
		verified[$scenario]="-"
	elif [ "$(mp_field verify_errors "$log")" = 0 ] &&
	     [ "$(mp_field csum_errors "$log")" = 0 ] &&
	     [ "$(mp_field user_errors "$log")" = 0 ] &&
	     [ "$(mp_field engine_errors "$log")" = 0 ]; then
		verified[$scenario]="yes, $(mp_field held_mib "$log") MiB"
	else
		verified[$scenario]="NO"
		fail=1
	fi
	say "$what: ${huge[$scenario]:-?} huge pages"
done

held=$(mp_field held_mib "$MP_CACHE/demo-$KVER-movable.log")
echo
echo "movable_pool demo: Debian $(mp_abi "$KVER") kernel, 1 GiB qemu guest (TCG, 2 vCPUs)"
echo "gfxbuf allocated $ALLOC MiB of BOs and freed a random half (${held:-?} MiB kept);"
echo "then compaction and huge page requests (best of 3) during mmap and engine traffic."
echo
printf '%-20s %12s %16s %22s %8s\n' "" "huge pages" "pages migrated" "data verified" "guest"
for scenario in none movable unmovable; do
	what=$(label "$scenario")
	m=${migrated[$scenario]:-}
	[ "$scenario" = none ] && m="-"
	printf '%-20s %12s %16s %22s %8s\n' "$what" "${huge[$scenario]:-?}" \
		"${m:-?}" "${verified[$scenario]}" "${status[$scenario]}"
done
echo
if [ -n "${huge[movable]:-}" ] && [ -n "${huge[unmovable]:-}" ] &&
   [ "${huge[unmovable]}" -gt 0 ]; then
	ratio=$(awk -v a="${huge[movable]}" -v b="${huge[unmovable]}" 'BEGIN { printf "%.1f", a / b }')
	limit=$(awk -v a="${huge[movable]}" -v b="${huge[none]:-0}" 'BEGIN { if (b) printf "%d%%", 100 * a / b; else print "?" }')
	echo "gfxbuf recovers ${ratio}x the huge pages of unmovable_gfxbuf ($limit of the no-driver figure)."
fi
echo "Guest logs: $MP_CACHE/demo-$KVER-*.log   ($(($(date +%s) - t0)) s)"
exit $fail
