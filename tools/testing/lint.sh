#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Style and static checks, each a RESULT line:
#  - scripts/checkpatch.pl --strict --no-tree on every C source and header
#  - scripts/kernel-doc -none -Wall on every C source and header
#  - shellcheck on every shell script
#  - W=1 and sparse (C=1) builds, warning-free, out of tree against Debian's
#    5.10, 6.1 and 6.12 headers, and in tree (with the KUnit suite) under UML
#  - for 7.x: checkpatch --strict on every patch of patches/7.x, and W=1 and
#    sparse on mm/movable_pool*.o in the patched UML tree
#  - a driver calling the bulk functions in API level 1's order fails to
#    build
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/modules.sh"

mp_need_build_tools
mp_need_pkgs shellcheck
tree=$(mp_kernel_tree 6.12)
cd "$MP_REPO" || exit 1
mapfile -t srcs < <(git ls-files -co --exclude-standard '*.c' '*.h' 2>/dev/null ||
	find . -name '*.[ch]')
status=0

check() {	# check NAME OUTPUT: pass when OUTPUT is empty
	if [ -z "$2" ]; then
		mp_result pass "$1"
	else
		printf '%s\n' "$2" | head -30 >&2
		mp_result fail "$1"
		status=1
	fi
}

# CAMELCASE: __SetPageMovable() and friends are the kernel's names; a
# checkpatch run inside a tree knows them, --no-tree does not.
# LINUX_VERSION_CODE: allowed in the compat headers (the library's and
# the samples'), nowhere else.
# OPEN_ENDED_LINE, PARENTHESIS_ALIGNMENT: the TRACE_EVENT() layout every
# header under include/trace/events/ uses (compaction.h has 56 of them).
out=$(for f in "${srcs[@]}"; do
	ignore=CAMELCASE
	case $f in
	# and the old kernels' kmap_atomic() fallback, there too
	lib/movable_pool_compat.h | samples/movable_pool/samples_compat.h)
		ignore=$ignore,LINUX_VERSION_CODE,DEPRECATED_API ;;
	include/trace/events/*) ignore=$ignore,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;;
	esac
	"$tree/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--ignore "$ignore" -f "$f"
done 2>&1)
check checkpatch "$out"

out=$(for f in "${srcs[@]}"; do
	"$tree/scripts/kernel-doc" -none -Wall "$f"
done 2>&1)
check kernel-doc "$out"

# Every script, sourced ones too, each checked on its own (SC1091: the
# sources are found at run time, shellcheck need not follow them).
out=$(git ls-files -co --exclude-standard '*.sh' .ci/run tools/testing/vm/init.sh |
	sort -u | xargs shellcheck -e SC1091 2>&1)
check shellcheck "$out"

# Warnings only: the build logs list every compiled file too.
# In tree, make also rebuilds a few UML helpers with W=1: only our files
# (under drivers/misc/movable_pool/) count there.
# Lines of the build log on stdin that warn, in files matching any of the
# arguments (any file without one).
warnings() {
	local pats=() p
	for p in "${@:-}"; do pats+=(-e "$p"); done
	grep -E 'warning|error' | grep -v '^make' | grep "${pats[@]}"
}

# uml_w1 KVER TREE TARGETS FILTER...: rebuild TARGETS in KVER's KUnit build
# with W=1 and sparse; warnings in files matching a FILTER fail.
uml_w1() {
	local kver=$1 tree=$2 targets=$3 build=$MP_CACHE/uml-$1 log f
	shift 3
	if [ ! -f "$build/.config" ]; then
		mp_log "no UML build for $kver yet: run tools/testing/kunit.sh first"
		mp_result fail "w1-sparse-uml-$kver"
		status=1
		return
	fi
	for f in "$@"; do
		find "$build" -path "*$f*.o" -delete 2>/dev/null
	done
	# shellcheck disable=SC2086
	log=$(make -C "$tree" ARCH=um O="$build" W=1 C=1 -j"$(nproc)" \
		$targets 2>&1) || log="$log
build failed"
	check "w1-sparse-uml-$kver" "$(printf '%s\n' "$log" | warnings "$@")"
}

# api_order CALL...: build a module making CALL against 6.12's headers.
api_order() {
	local dir hdrs rc
	hdrs=$(mp_headers 6.12) || return 1
	dir=$(mktemp -d)
	cat > "$dir/order.c" <<-EOF
	#include <linux/module.h>
	#include <linux/movable_pool.h>

	int order_test(struct movable_pool *pool, struct page **pages);
	int order_test(struct movable_pool *pool, struct page **pages)
	{
		return $1;
	}
	MODULE_LICENSE("GPL");
	MOVABLE_POOL_IMPORT_NS();
	EOF
	echo 'obj-m := order.o' > "$dir/Kbuild"
	make -C "$hdrs" M="$dir" ccflags-y="-I$MP_REPO/include" \
		KBUILD_MODPOST_WARN=1 modules > "$dir/log" 2>&1
	rc=$?
	rm -rf "$dir"
	return $rc
}

# The bulk calls in API level 1's order (the array before its length) must
# not build (NEWS, level 4): gcc 12 only warns, and the module crashes. The
# same module in today's order builds, so the refusal is the order's.
if api_order 'movable_pool_alloc_pages(pool, GFP_KERNEL, NULL, 0, pages, 4) +
		movable_pool_take_pages(pool, pages, 4)' &&
   ! api_order 'movable_pool_alloc_pages(pool, GFP_KERNEL, NULL, 0, 4, pages)' &&
   ! api_order 'movable_pool_take_pages(pool, 4, pages)'; then
	mp_result pass api-old-bulk-order-refused
else
	mp_result fail api-old-bulk-order-refused
	status=1
fi

for kver in $MP_KVERS_OOT; do
	log=$(MP_BUILD_TAG=lint MP_MAKE_ARGS="W=1 C=1" mp_build_modules "$kver" \
		2>&1 >/dev/null)
	rc=$?
	[ $rc -eq 0 ] || log="$log
build failed"
	check "w1-sparse-modules-$kver" "$(printf '%s\n' "$log" | warnings)"

	# in tree, as linked for KUnit: the suite itself is only built there
	ktree=$(mp_kernel_tree "$kver")
	mp_link_tree "$ktree"
	uml_w1 "$kver" "$ktree" drivers/misc/movable_pool/ drivers/misc/movable_pool/
done
# 7.x: the series as it would be posted, and the code as the tree builds it
for kver in $MP_KVERS_ALL; do
	case $kver in 7.*) ;; *) continue ;; esac
	ktree=$(mp_kernel_tree "$kver")
	out=$(for p in "$MP_REPO"/patches/7.x/0*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		# as for the sources above, plus FILE_PATH_CHANGES: patch 2
		# adds "F: mm/movable_pool*" to MAINTAINERS, which patch 3's
		# new file falls under
		(cd "$ktree" && scripts/checkpatch.pl --strict --quiet \
			--ignore CAMELCASE,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT,FILE_PATH_CHANGES \
			"$p")
	done 2>&1)
	check "checkpatch-series-$kver" "$out"

	if ! bash "$MP_REPO/tools/upstream/apply-series.sh" "$kver"; then
		mp_result fail "w1-sparse-uml-$kver"
		status=1
		continue
	fi
	# the library, the balloon and every KUnit object the series adds
	uml_w1 "$kver" "$MP_CACHE/linux-$kver-mp" \
		"mm/movable_pool.o mm/balloon.o mm/tests/balloon_kunit.o $(
			cd "$MP_CACHE/linux-$kver-mp" &&
			echo mm/movable_pool*_kunit.c | sed 's/\.c/.o/g')" \
		mm/movable_pool mm/balloon mm/tests/balloon

done
exit $status
