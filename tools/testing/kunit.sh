#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the KUnit suite under UML against Debian's kernel source for each
# version given (default: 6.1 6.12), with KASAN, lockdep and DEBUG_VM on.
# Prints one RESULT line per test case, one for the kernel log check, and
# the benchmark lines the suite reported; then runs the benchmark cases
# again in a build without debug options (MP_NO_BENCH=1 skips that,
# MP_BENCH_ONLY=1 runs only that).
set -u
. "$(dirname "$0")/lib.sh"

# A log line that means something went wrong in the kernel.
BAD='WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU|Kernel panic|Oops|Call Trace:|kmemleak'

# Print the offending lines of $1, skipping the expected ones: UML's
# virt-pci WARNING at boot, and the WARN_ONCE()s of the misuse tests, whose
# message ("movable_pool: misuse: ...") precedes the WARNING line.
log_problems() {
	awk -v bad="$BAD" '
		function flush() {
			if (!ok)
				for (i = 0; i < n; i++)
					if (buf[i] ~ bad)
						print buf[i]
			n = 0; ok = 0; inwarn = 0
		}
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

run_one() {
	local kver=$1 tree build extra=() out rc
	tree=$(mp_kernel_tree "$kver") || return 1
	build=$MP_CACHE/uml-$kver
	mp_link_tree "$tree"
	# UML on 6.1 has no preemption, so kunit.py refuses this option there
	[ "$kver" = 6.1 ] || extra=(--kconfig_add CONFIG_DEBUG_ATOMIC_SLEEP=y)
	out=$build/kunit-run.txt
	mkdir -p "$build"
	touch "$build/.mp-stamp"
	mp_log "KUnit on UML $kver (first build takes several minutes)"
	(cd "$tree" && ./tools/testing/kunit/kunit.py run \
		--kunitconfig="$MP_REPO/kunit" "${extra[@]}" \
		--build_dir="$build" --jobs="$(nproc)" --timeout=600 \
		'movable_pool*') > "$out" 2>&1
	rc=$?
	# a build or boot failure leaves no result for the suite
	if ! grep -Eq '^(not )?ok [0-9]+ movable_pool' "$build/test.log" 2>/dev/null ||
	   ! [ "$build/test.log" -nt "$build/.mp-stamp" ]; then
		tail -40 "$out" >&2
		mp_result fail "kunit-$kver/build-and-boot"
		return 1
	fi
	# KTAP: "    ok 3 test_name" or "    not ok 3 test_name", "# SKIP"
	awk -v k="$kver" '
		/^    (not )?ok [0-9]+ test_/ {
			name = ($2 == "not") ? $4 : $3
			if ($0 ~ /# SKIP/) print "RESULT: skip kunit-" k "/" name
			else if ($2 == "not") print "RESULT: fail kunit-" k "/" name
			else print "RESULT: pass kunit-" k "/" name
		}' "$build/test.log"
	grep -o 'bench: .*' "$build/test.log" | sed "s/^/[$kver] /" >&2
	grep 'Testing complete' "$out" | sed "s/^/[$kver] /" >&2
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

# The benchmark cases in a build without debug instrumentation.
bench_one() {
	local kver=$1 tree build out
	tree=$(mp_kernel_tree "$kver") || return 1
	build=$MP_CACHE/uml-$kver-bench
	out=$build/kunit-run.txt
	mkdir -p "$build"
	mp_link_tree "$tree"
	mp_log "KUnit benchmarks on UML $kver without debug options"
	(cd "$tree" && ./tools/testing/kunit/kunit.py run \
		--kunitconfig="$MP_REPO/kunit/bench.kunitconfig" \
		--build_dir="$build" --jobs="$(nproc)" --timeout=600 \
		'movable_pool.test_bench*') > "$out" 2>&1
	if [ $? -ne 0 ]; then
		tail -40 "$out" >&2
		mp_result fail "kunit-$kver/bench-nodebug"
		return 1
	fi
	grep -o 'bench: .*' "$build/test.log" | sed "s/^/[$kver, no debug] /" >&2
	mp_result pass "kunit-$kver/bench-nodebug"
}

mp_need_build_tools
status=0
for kver in ${1:-$MP_KVERS}; do
	[ -n "${MP_BENCH_ONLY:-}" ] || run_one "$kver" || status=1
	[ -n "${MP_NO_BENCH:-}" ] || bench_one "$kver" || status=1
done
exit $status
