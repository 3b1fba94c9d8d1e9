#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lines-of-change table of Documentation/core-api/movable_pool.rst: how
# many lines each driver adds and removes to make its pages movable.
#   - the samples: diff samples/movable_pool/unmovable/X.c (the same driver
#     without movable_pool) against samples/movable_pool/X.c;
#   - the kernel's own movable drivers in Debian's 6.12 source:
#     diff <(unifdef -UCONFIG_Y file) file, where CONFIG_Y guards their
#     migration code, and the same for the helper code they build on.
# Then the two balloon drivers' migrate routines: the lines of their
# bodies, and those neither blank nor only a comment.
#
#   lines-of-change.sh           print the table (rst)
#   lines-of-change.sh --update  write it into the rst
#   lines-of-change.sh --check   build the unmovable samples against the
#                                6.12 headers, and fail unless the rst
#                                holds this table (make docs runs this)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testing/lib.sh"
. "$here/../testing/modules.sh"

rst=$MP_REPO/Documentation/core-api/movable_pool.rst
samples=$MP_REPO/samples/movable_pool
mp_need_pkgs unifdef
tree=$(mp_kernel_tree 6.12) || mp_die "no 6.12 kernel tree"

# diff OLD NEW: "added removed"
count() {
	diff "$1" "$2" | awk '/^>/ { a++ } /^</ { r++ } END { print a + 0, r + 0 }'
}

# the lines of FILE that only exist with SYMBOL defined
guarded() {
	local out rc
	out=$(mktemp)
	unifdef -U"$2" "$1" > "$out"
	rc=$?
	[ $rc -le 1 ] || mp_die "unifdef $1"
	count "$out" "$1" | cut -d' ' -f1
	rm -f "$out"
}

# FUNCTION in FILE: "all code", the lines between the braces of its
# body, and those of them that are neither blank nor only a comment
routine() {
	awk -v f="$2" '
		$0 ~ "^static int " f "\\(" { sig = 1 }
		sig && /^}/ { exit }
		body { all++; t = $0; sub(/^[ \t]+/, "", t)
		       if (t != "" && t !~ /^(\/\*|\*|\/\/)/) code++ }
		sig && /^{/ { body = 1 }
		END { print all + 0, code + 0 }' "$1"
}

row() {	# row NAME BEFORE AFTER ADDED REMOVED SHARED
	printf '   "%s", %s, %s, %s, %s, "%s"\n' "$@"
}

table() {
	local f a r lib hdr bc_c bc_h zs vb mp vbm
	lib=$(grep -cv '^\s*$' "$MP_REPO/lib/movable_pool.c")
	hdr=$(grep -cv '^\s*$' "$MP_REPO/include/linux/movable_pool.h")
	echo ".. csv-table:: Lines a driver changes to make its pages movable"
	echo '   :header: "Driver", "Lines before", "after", "added", "removed", "Shared code it builds on"'
	echo '   :widths: 24, 10, 8, 8, 8, 42'
	echo
	for f in minimal gfxbuf mp_balloon; do
		read -r a r < <(count "$samples/unmovable/$f.c" "$samples/$f.c")
		row "\`\`samples/movable_pool/$f.c\`\`" \
			"$(wc -l < "$samples/unmovable/$f.c")" \
			"$(wc -l < "$samples/$f.c")" "$a" "$r" \
			"movable_pool: $lib + $hdr non-blank lines (\`\`lib/movable_pool.c\`\`, the header)"
	done
	f=$tree/drivers/virtio/virtio_balloon.c
	vb=$(guarded "$f" CONFIG_BALLOON_COMPACTION)
	bc_c=$(guarded "$tree/mm/balloon_compaction.c" CONFIG_BALLOON_COMPACTION)
	bc_h=$(guarded "$tree/include/linux/balloon_compaction.h" CONFIG_BALLOON_COMPACTION)
	row "\`\`drivers/virtio/virtio_balloon.c\`\` (6.12)" \
		"$(($(wc -l < "$f") - vb))" "$(wc -l < "$f")" "$vb" 0 \
		"balloon compaction: $bc_c + $bc_h lines under CONFIG_BALLOON_COMPACTION (\`\`mm/balloon_compaction.c\`\`, its header)"
	f=$tree/mm/zsmalloc.c
	zs=$(guarded "$f" CONFIG_COMPACTION)
	row "\`\`mm/zsmalloc.c\`\` (6.12)" "$(($(wc -l < "$f") - zs))" \
		"$(wc -l < "$f")" "$zs" 0 "none: its migration code is its own"
	echo
	read -r mp a < <(routine "$samples/mp_balloon.c" mp_balloon_migrate)
	read -r vbm r < <(routine "$tree/drivers/virtio/virtio_balloon.c" virtballoon_migratepage)
	echo "The balloon drivers' migrate routines, lines between the braces of"
	echo "the body (those neither blank nor only a comment):"
	echo "\`\`mp_balloon_migrate()\`\` $mp ($a), 6.12's \`\`virtballoon_migratepage()\`\`"
	echo "$vbm ($r)."
	echo
}

# the rst between its two marker comments
in_rst() {
	sed -n '/^\.\. lines-of-change: begin/,/^\.\. lines-of-change: end/p' "$rst" |
		sed '1d;$d'
}

case ${1:-} in
--update)
	new=$(mktemp)
	table > "$new.table" || exit 1
	awk -v t="$new.table" '
		/^\.\. lines-of-change: end/ { while ((getline l < t) > 0) print l; skip = 0 }
		!skip { print }
		/^\.\. lines-of-change: begin/ { skip = 1 }' "$rst" > "$new"
	mv "$new" "$rst"
	rm -f "$new.table"
	;;
--check)
	hdrs=$(mp_headers 6.12) || mp_die "no 6.12 headers"
	dir=$MP_CACHE/unmovable-6.12
	rsync -a --delete --exclude .git "$MP_REPO/" "$dir/" || exit 1
	if make -C "$hdrs" M="$dir/samples/movable_pool/unmovable" \
		-j"$(nproc)" modules > "$dir.log" 2>&1; then
		mp_result pass docs/unmovable-samples-build
	else
		tail -20 "$dir.log" >&2
		mp_result fail docs/unmovable-samples-build
	fi
	if [ "$(table)" = "$(in_rst)" ]; then
		mp_result pass docs/lines-of-change
	else
		diff <(in_rst) <(table) >&2
		mp_log "the table in $rst is stale: run $0 --update"
		mp_result fail docs/lines-of-change
		exit 1
	fi
	;;
*)
	table
	;;
esac
