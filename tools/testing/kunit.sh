#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suites under UML against Debian's kernel source for each
# version given (default: all, see MP_KVERS in lib.sh), with KASAN (SLUB
# debugging on 5.10), lockdep and DEBUG_VM on; 7.x with patches/7.x applied
# and two CPUs.
# Prints one RESULT line per test case, one for the kernel log check, and
# the benchmark lines the suite reported; then, on 6.1 and 6.12
# (MP_BENCH_KVERS; make bench adds 7.2), runs the benchmark suite again in
# a build without debug options, on one CPU (MP_NO_BENCH=1 skips that,
# MP_BENCH_ONLY=1 runs only that);
# and on 6.12 (MP_LOCKDEP_KVERS) the lockdep suite in a build of its own.
set -u
. "$(dirname "$0")/lib.sh"

# A log line that means something went wrong in the kernel.
BAD='WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU|Kernel panic|Oops|Call Trace:|kmemleak'

# Print the offending lines of $1, skipping the expected ones: UML's
# virt-pci WARNING at boot, and the WARN_ONCE()s of the misuse cases, whose
# message ("movable_pool: misuse: ...") precedes the WARNING line. Each of
# those cases asserts the misuse count its pool keeps, so a warning that
# does not come fails the case; the log shows only a call site's first.
# The balloon's suite (7.x) suppresses and counts the warnings it provokes
# (kunit_warning_suppress()), so none of them may show here.
log_problems() {
	awk -v bad="$BAD" '
		function flush() {
			if (!ok)
				for (i = 0; i < n; i++)
					if (buf[i] ~ bad)
						print buf[i]
			n = 0; ok = 0; inwarn = 0
		}
		# 5.10 cannot halt after the tests: its panic for want of a
		# root fs follows this line, where kunit.py stops reading too
		/List of all partitions:/ { exit }
		/------------\[ cut here \]------------/ { flush(); inwarn = 1; next }
		inwarn && /---\[ end trace/ { flush(); next }
		inwarn {
			if ($0 ~ /movable_pool: misuse:|virt-pci\.c/)
				ok = 1
			buf[n++] = $0
			next
		}
		$0 ~ bad { print }
		END { flush() }
	' "$1"
}

# Print the source tree to run KUnit in for $1: Debian's tree with this
# repository linked in, or for 7.x Debian's tree with patches/7.x applied.
kunit_tree() {
	local kver=$1 tree
	case $kver in
	7.*)
		bash "$MP_REPO/tools/upstream/apply-series.sh" "$kver" || return 1
		echo "$MP_CACHE/linux-$kver-mp"
		;;
	*)
		tree=$(mp_kernel_tree "$kver") || return 1
		mp_link_tree "$tree"
		echo "$tree"
		;;
	esac
}

# kunit_run KVER TREE BUILD KUNITCONFIG GLOB: run kunit.py, output in
# BUILD/kunit-run.txt, the kernel log in BUILD/test.log.
kunit_run() {
	local kver=$1 tree=$2 build=$3 config=$4 glob=$5 args=() debug=()
	# the debug build's extras (the benchmark build goes without)
	[ "$(basename "$config")" = bench.kunitconfig ] ||
		debug=(--kconfig_add CONFIG_DEBUG_ATOMIC_SLEEP=y)
	mkdir -p "$build"
	# make goes by mtimes: objects another clone built, maybe after this
	# one's sources were written, would be taken for current
	if [ "$(cat "$build/.mp-repo" 2>/dev/null)" != "$MP_REPO" ]; then
		rm -rf "$build/drivers/misc/movable_pool"
		echo "$MP_REPO" > "$build/.mp-repo"
	fi
	case $kver in
	5.10)
		# this kunit.py reads BUILD/.kunitconfig and runs every suite
		# built in; UML KASAN only came in 5.14, SLUB debugging stands in
		grep -v '^CONFIG_KASAN' "$config" > "$build/.kunitconfig"
		[ ${#debug[@]} -eq 0 ] ||
			echo CONFIG_SLUB_DEBUG_ON=y >> "$build/.kunitconfig"
		;;
	6.1)
		# UML on 6.1 has no preemption, so DEBUG_ATOMIC_SLEEP is refused
		args=(--kunitconfig="$config" "$glob")
		;;
	7.*)
		# UML SMP: two host threads, so the concurrency cases overlap;
		# it needs the seccomp userspace mode (ptrace mode is UP only).
		# The benchmarks run on one CPU, as on 6.x: with SMP every
		# interrupt toggle is a host sigprocmask() (bench/NOTES.md).
		# The balloon's suite exists only in the series.
		args=(--kunitconfig="$config" "$glob" "${debug[@]}")
		[ "$(basename "$config")" = bench.kunitconfig ] ||
			args+=(--kconfig_add CONFIG_SMP=y
			       --kconfig_add CONFIG_NR_CPUS=4 --kernel_args ncpus=2
			       --kernel_args seccomp=on)
		[ "$(basename "$config")" != .kunitconfig ] ||
			args+=(--kconfig_add CONFIG_BALLOON_KUNIT_TEST=y)
		;;
	*)
		args=(--kunitconfig="$config" "$glob" "${debug[@]}")
		;;
	esac
	(cd "$tree" && ./tools/testing/kunit/kunit.py run "${args[@]}" \
		--build_dir="$build" --jobs="$(nproc)" --timeout=600) \
		> "$build/kunit-run.txt" 2>&1
}

# The figures the benchmark cases report in log $1, as "bench: ..." lines
# (not the suite's own "movable_pool_bench: pass:2 ..." summary).
bench_lines() {
	sed -n 's/.*: bench: /bench: /p' "$1"
}

# The suites kunit/.kunitconfig builds for $1: all but the lockdep one, and
# on 7.x the balloon's.
kunit_suites() {
	local files=("$MP_REPO"/kunit/movable_pool_*_kunit.c)
	case $1 in 7.*) files+=("$MP_REPO/mainline/mm/tests/balloon_kunit.c") ;; esac
	sed -n 's/^\t\.name = "\(movable_pool_[a-z_]*\)",$/\1/p' "${files[@]}" |
		grep -vx movable_pool_lockdep
}

run_one() {
	local kver=$1 tree build out rc suite missing=
	tree=$(kunit_tree "$kver") || { mp_result fail "kunit-$kver/tree"; return 1; }
	build=$MP_CACHE/uml-$kver
	out=$build/kunit-run.txt
	mkdir -p "$build"
	touch "$build/.mp-stamp"
	mp_log "KUnit on UML $kver (first build takes several minutes)"
	kunit_run "$kver" "$tree" "$build" "$MP_REPO/kunit/.kunitconfig" \
		'movable_pool*'
	rc=$?
	# a build or boot failure, or a crash, leaves a suite without a result
	for suite in $(kunit_suites "$kver"); do
		grep -Eq "^(not )?ok [0-9]+ (- )?$suite( |\$)" "$build/test.log" \
			2>/dev/null || missing="$missing $suite"
	done
	if [ -n "$missing" ] || ! [ "$build/test.log" -nt "$build/.mp-stamp" ]; then
		tail -40 "$out" >&2
		[ -z "$missing" ] || mp_log "no result for:$missing"
		mp_result fail "kunit-$kver/build-and-boot"
		return 1
	fi
	# KTAP: "    ok 3 test_name" ("    ok 3 - test_name" on 5.10),
	# "    not ok 3 test_name", "# SKIP"
	awk -v k="$kver" '
		/^    (not )?ok [0-9]+ (- )?test_/ {
			# fields start at the first word: $1 is "ok" or "not"
			sub(/ - /, " ")
			name = ($1 == "not") ? $4 : $3
			if ($0 ~ /# SKIP/) print "RESULT: skip kunit-" k "/" name
			else if ($1 == "not") print "RESULT: fail kunit-" k "/" name
			else print "RESULT: pass kunit-" k "/" name
		}' "$build/test.log"
	bench_lines "$build/test.log" | sed "s/^/[$kver] /" >&2
	grep -a 'Testing complete' "$out" | sed "s/^/[$kver] /" >&2
	local problems
	problems=$(log_problems "$build/test.log")
	if [ -n "$problems" ]; then
		mp_log "kernel log problems on $kver:"
		printf '%s\n' "$problems" | head -40 >&2
		mp_result fail "kunit-$kver/kernel-log-clean"
	else
		mp_result pass "kunit-$kver/kernel-log-clean"
	fi
	[ $rc -eq 0 ]
}

# The benchmark suite in a build without debug instrumentation.
bench_one() {
	local kver=$1 tree build
	tree=$(kunit_tree "$kver") || return 1
	build=$MP_CACHE/uml-$kver-bench
	mp_log "KUnit benchmarks on UML $kver without debug options"
	if ! kunit_run "$kver" "$tree" "$build" \
		"$MP_REPO/kunit/bench.kunitconfig" movable_pool_bench; then
		tail -40 "$build/kunit-run.txt" >&2
		mp_result fail "kunit-$kver/bench-nodebug"
		return 1
	fi
	bench_lines "$build/test.log" | sed "s/^/[$kver, no debug] /" >&2
	mp_result pass "kunit-$kver/bench-nodebug"
}

# The lockdep suite provokes one report on purpose, a driver allocating
# under its routine's lock; lockdep switches itself off after it, so the
# suite runs in a build of its own, and the report must be in the log.
lockdep_one() {
	local kver=$1 tree build log
	tree=$(kunit_tree "$kver") || return 1
	build=$MP_CACHE/uml-$kver-lockdep
	log=$build/test.log
	mp_log "KUnit on UML $kver: lockdep must report the driver's bug"
	kunit_run "$kver" "$tree" "$build" "$MP_REPO/kunit/lockdep.kunitconfig" \
		'movable_pool_lockdep*'
	if grep -Eq '^    ok [0-9]+ (- )?test_lockdep_sees_alloc_under_routine_lock' "$log" &&
	   grep -q 'possible circular locking dependency detected' "$log" &&
	   grep -q 'mpl_driver_lock' "$log" && grep -q 'fs_reclaim' "$log"; then
		grep -m1 -A3 'possible circular locking dependency detected' "$log" |
			sed "s/^/[$kver, expected] /" >&2
		mp_result pass "kunit-$kver/lockdep-reports-alloc-under-routine-lock"
	else
		tail -40 "$build/kunit-run.txt" >&2
		mp_result fail "kunit-$kver/lockdep-reports-alloc-under-routine-lock"
		return 1
	fi
}

mp_need_build_tools
status=0
for kver in ${1:-$MP_KVERS_ALL}; do
	[ -n "${MP_BENCH_ONLY:-}" ] || run_one "$kver" || status=1
	case " ${MP_LOCKDEP_KVERS:-6.12} " in
	*" $kver "*) [ -n "${MP_BENCH_ONLY:-}" ] || lockdep_one "$kver" || status=1 ;;
	esac
	case " ${MP_BENCH_KVERS:-6.1 6.12} " in
	*" $kver "*) [ -n "${MP_NO_BENCH:-}" ] || bench_one "$kver" || status=1 ;;
	esac
done
exit $status
