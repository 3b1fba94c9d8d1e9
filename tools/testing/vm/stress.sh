#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make stress [KVER=...] [DURATION=600]: gfxbuf_stress on four vCPUs
# (multi-threaded TCG) with a ZONE_MOVABLE to cycle offline, then the uapi
# checks and the fuzzer, then both modules must unload. On the checked
# kernel (6.12-checked: KASAN, lockdep, DEBUG_VM, kmemleak) a share of the
# allocations made by our modules fails by injection (MP_STRESS_INJECT
# percent). On the KCSAN kernel (6.12-kcsan, not in the default list) no
# data race report may name our modules; the others are counted. Every
# contended path must have been taken at least once.
# MP_STRESS_BOOTS=N boots each kernel N times first, to measure how often
# a multi-threaded TCG boot dies (make stress: 8). make check runs it for
# 60 s on the stock kernels.
#
# stress.sh ["KVER ..."]: RESULT lines per kernel, a summary on stderr.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
. "$here/../modules.sh"
. "$here/vm.sh"

DURATION=${DURATION:-600}
INJECT=${MP_STRESS_INJECT:-2}
SEED=${MP_STRESS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
FUZZ_CALLS=${MP_FUZZ_CALLS:-100000}
# the counters that prove each contended path ran; routine_busy only
# where the VM migrated pool pages in MIGRATE_ASYNC mode at all (gfxbuf's
# routine waits for its lock in every other mode): 6.1's guests never
# enter direct compaction here (compact_stall stays 0), so there it is
# reported as not reachable
CONTENDED="migrated pin_refused pin_busy routine_failed putback freed_isolated offline_ok rmmod_refused"
# a minute (make check) is too short for the rarest two on 5.10 and 6.1
# (pin_busy 4, routine_failed 0 in one 60-s 5.10 run; 175 and 17 in 600 s
# on 6.1): there they are reported, and required from 300 s on
RARE="pin_busy routine_failed"

export MP_TCG_THREAD=multi MP_VM_SMP=4 MP_VM_MEM=2048 MP_BOOT_RETRIES=3
# boots, the fuzzer and a KASAN kernel's teardown on top of the run
export MP_VM_TIMEOUT=$((DURATION * 2 + 1200))
export MP_BOOT_STATS=$MP_CACHE/stress-boots.log
: > "$MP_BOOT_STATS"

# mp_kcsan_result LOG NAME: the KCSAN reports in LOG; NAME fails if one
# names a function of movable_pool or the samples.
mp_kcsan_result() {
	local counts
	counts=$(awk '
		/BUG: KCSAN:/ { if (inrep) done(); inrep = 1; ours = 0; title = $0; next }
		inrep && / \[(movable_pool|gfxbuf|mp_balloon)\]$/ { ours = 1 }
		inrep && /^=+$/ { done() }
		function done() { n++; if (ours) { m++; print title > "/dev/stderr" } inrep = 0 }
		END { if (inrep) done(); printf "%d %d\n", n, m }' "$1")
	mp_log "$2: ${counts% *} data race reports, ${counts#* } naming our code"
	if [ "${counts#* }" = 0 ]; then
		mp_result pass "$2"
	else
		mp_result fail "$2"
		return 1
	fi
}

mp_need_vm_tools
status=0
for kver in ${1:-6.1 6.12 6.12-checked}; do
	if ! mp_initramfs "$kver" >/dev/null; then
		mp_result fail "stress-$kver/initramfs"
		status=1
		continue
	fi
	# how often a multi-threaded TCG boot dies before /init runs
	# (and whether one that came up logged anything bad on the way)
	for _ in $(seq "${MP_STRESS_BOOTS:-0}"); do
		MP_BOOT_RETRIES=0 mp_boot "$kver" boot "" \
			"$MP_CACHE/stress-$kver-boot.log" >/dev/null 2>&1 ||
			echo "$kver boot unclean" >> "$MP_BOOT_STATS"
	done
	log=$MP_CACHE/stress-$kver.log
	args="--duration=$DURATION,--seed=$SEED"
	case $kver in
	*-checked)
		args="$args,--inject=$INJECT"
		# an injected failure in kvmalloc()'s vmalloc fallback is
		# reported by warn_alloc(), with a stack: expected here
		export MP_GUEST_OK='vmalloc error|page allocation failure|Call Trace:'
		;;
	*-kcsan)
		# the reports are judged below, by whose code they name
		export MP_GUEST_OK='KCSAN'
		;;
	*) unset MP_GUEST_OK ;;
	esac
	mp_log "stress on $kver: ${DURATION}s, seed $SEED, 4 vCPUs"
	if mp_boot "$kver" stress "$args" "$log" \
		"$(mp_movablecore 512M) mpuapi=1 mpfuzz=$FUZZ_CALLS:$SEED"; then
		mp_result pass "stress-$kver/run"
	else
		mp_result fail "stress-$kver/run seed=$SEED"
		status=1
	fi
	line=$(sed -n 's/^STRESS_RESULT //p' "$log")
	mp_log "$kver: ${line:-no result}"
	missing=
	for key in $CONTENDED; do
		val=$(echo "$line" | tr ' ' '\n' | sed -n "s/^$key=//p")
		[ "${val:-0}" -gt 0 ] && continue
		if [ "$DURATION" -lt 300 ] && [[ " $RARE " == *" $key "* ]]; then
			mp_log "$kver: $key not taken in ${DURATION}s (required from 300 s)"
		else
			missing="$missing $key"
		fi
	done
	if [ -n "$line" ] && [ -z "$missing" ]; then
		mp_result pass "stress-$kver/contended-paths"
	else
		mp_log "$kver: never taken:${missing:- (no result)}"
		mp_result fail "stress-$kver/contended-paths"
		status=1
	fi
	async=$(sed -n 's/^MP_STEP async_migrate_calls=//p' "$log")
	busy=$(echo "$line" | tr ' ' '\n' | sed -n 's/^routine_busy=//p')
	if [ "${busy:-0}" -gt 0 ]; then
		mp_result pass "stress-$kver/routine-eagain"
	elif [ "$async" = 0 ] && [ -n "$line" ]; then
		mp_log "$kver: no MIGRATE_ASYNC call on a pool page in this run: the routine's -EAGAIN could not happen"
		mp_result skip "stress-$kver/routine-eagain"
	elif [ "$async" = unknown ] && [ -n "$line" ]; then
		mp_log "$kver: no hist triggers in this kernel to count MIGRATE_ASYNC calls, and no -EAGAIN seen"
		mp_result skip "stress-$kver/routine-eagain"
	else
		mp_log "$kver: $async async migrate calls, none found the BO lock taken"
		mp_result fail "stress-$kver/routine-eagain"
		status=1
	fi
	mp_fuzz_result "$log" "stress-$kver/fuzz" "$SEED" || status=1
	case $kver in *-kcsan) mp_kcsan_result "$log" "stress-$kver/kcsan" || status=1 ;; esac
	if grep -q '^MP_STEP rmmod=ok' "$log"; then
		mp_result pass "stress-$kver/unload"
	else
		mp_result fail "stress-$kver/unload"
		status=1
	fi
done
mp_log "multi-threaded TCG boots: $(grep -vc " unclean$" "$MP_BOOT_STATS"), died before /init: $(grep -c ' died$' "$MP_BOOT_STATS")"
awk '$3 == "unclean" { u[$1]++; next } { n[$1]++; if ($3 == "died") d[$1]++ }
	END { for (k in n) printf "[movable_pool]   %s: %d boots, %d died, %d with a bad log line\n", k, n[k], d[k] + 0, u[k] + 0 }' \
	"$MP_BOOT_STATS" >&2
exit $status
