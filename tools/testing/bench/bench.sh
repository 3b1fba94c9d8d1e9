#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: movable_pool side by side with the other ways to hold memory,
# in the same 1 GiB guests (Debian's 5.10, 6.1 and 6.12 kernels and the
# patched 7.2, qemu TCG):
#   none        nothing held: the ceiling
#   anon        a process holding anonymous memory (LRU pages)
#   handrolled  bench_driver.ko with its own movable_operations (5.10: an
#               inode's address_space_operations; none on 7.x)
#   pool        bench_driver.ko on movable_pool
#   unmovable   bench_driver.ko with alloc_page(GFP_KERNEL)
# Each kind holds 10, 20, 40 and 60% of RAM with random holes, three boots
# per point (bench_run.c says what one boot does), and on 7.x anon at 40%
# with bench_driver.ko loaded idle: there the first module loaded fills
# execmem's cache of module text with a 2 MiB block, which the driver
# kinds pay for and anon does not; then, three boots per kind each: at 40%
# held, a process faults in THPs with direct compaction, and 8 GiB guests
# ask for 1 GiB pages (on 7.x also from a hugetlb_cma= area); guests
# holding 30% give a virtio-mem device's memory back to the host (the
# device onlined to the normal zone, then to ZONE_MOVABLE).
# Then alloc+free and pin+unpin per page on every vCPU of guests with 1, 2
# and 4 vCPUs, each operation's cost in pools of 1k, 64k and 1M pages (6
# GiB guests, three boots), and the KUnit microbenchmarks without debug
# options. Then the virtio balloon: samples/movable_pool/mp_balloon.c
# against Debian's virtio_balloon in 2 GiB guests with a 1 GiB balloon,
# one run per seed and driver (tools/testing/vm/balloon.sh). Writes
# bench/RESULTS.md, bench/results/latest.json and the plots
# (tools/testing/bench/report.py).
#
# Knobs: MP_BENCH_BOOTS (3), MP_BENCH_PCTS ("10 20 40 60"),
# MP_BENCH_THP_PCTS (40), MP_BENCH_THP_BOOTS (3), MP_BENCH_GIG_PCTS (40),
# MP_BENCH_GIG_MEM (8192), MP_BENCH_GIG_CMA (2G), MP_BENCH_GIG_BOOTS (3),
# MP_BENCH_UNPLUG_PCTS (30), MP_BENCH_UNPLUG_MIB (1024),
# MP_BENCH_UNPLUG_BOOTS (3) (MP_BENCH_BOOTS is the huge-page scenario's),
# MP_BENCH_SCENARIOS ("huge thp gigantic unplug"), MP_KVERS,
# MP_BENCH_SMPS ("1 2 4"), MP_BENCH_MICRO_BOOTS (3), MP_BENCH_SCALE_BOOTS
# (3), MP_BENCH_SCALE_SIZES (1024:65536:1048576), MP_BENCH_SCALE_MEM (6144),
# MP_BENCH_KUNIT_RUNS (3),
# MP_BENCH_BALLOON_SEEDS ("1 2 3"; empty: no balloon runs),
# MP_BENCH_BALLOON_MICRO_BOOTS (3 on each 7.x kernel, with the series and
# without; 0: none), MP_BENCH_OUT
# (bench/ of this repository), MP_BENCH_WORK (guest logs; $MP_CACHE/bench:
# two runs at once need one each), MP_BENCH_RESUME (unset).
# Raw figures: a file per phase (one scenario, the KUnit runs, ... on one
# kernel) in MP_BENCH_OUT/results/raw, the report's only input, kept
# beside it. A run starts by deleting them; with MP_BENCH_RESUME=1 it
# keeps the phases an earlier run finished and runs the others, so a run
# longer than one sitting can be finished in several, one after another
# (phases.txt: when, in which run and at which commit each phase ran, and
# how long it took).
# --smoke: one boot per kind at 40% on 6.12 for huge pages, one pool boot
# each for THP faults, 1 GiB pages and virtio-mem unplug, one scale boot
# (1k and 64k pages), report under the cache, and RESULT lines for make
# check (every boot ok, pool above unmovable in huge pages, THPs, 1 GiB
# pages and unplugged memory granted beside the pool's pages, every size
# timed, their sections).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
# the kernels whose figures bench/RESULTS.md reports
MP_KVERS=${MP_KVERS:-"5.10 6.1 6.12 7.2"}
. "$here/../modules.sh"
. "$here/../vm/vm.sh"

BOOTS=${MP_BENCH_BOOTS:-3}
PCTS=${MP_BENCH_PCTS:-"10 20 40 60"}
THP_PCTS=${MP_BENCH_THP_PCTS:-40}
THP_BOOTS=${MP_BENCH_THP_BOOTS:-3}
GIG_PCTS=${MP_BENCH_GIG_PCTS:-40}
GIG_BOOTS=${MP_BENCH_GIG_BOOTS:-3}
# 8 GiB: a no-driver 6.12 guest can have 4 pages of 1 GiB (4 GiB: none)
GIG_MEM=${MP_BENCH_GIG_MEM:-8192}
# an 8 GiB guest could not reserve 4G (7.2: "cma: Failed to reserve")
GIG_CMA=${MP_BENCH_GIG_CMA:-2G}
# unplug: what must fit in boot memory once the device is empty
UNPLUG_PCTS=${MP_BENCH_UNPLUG_PCTS:-30}
UNPLUG_MIB=${MP_BENCH_UNPLUG_MIB:-1024}
# two to three minutes a boot, more when the device keeps some memory
UNPLUG_BOOTS=${MP_BENCH_UNPLUG_BOOTS:-3}
SCENARIOS=${MP_BENCH_SCENARIOS:-"huge thp gigantic unplug"}
KUNIT_RUNS=${MP_BENCH_KUNIT_RUNS:-3}
SMPS=${MP_BENCH_SMPS:-"1 2 4"}
MICRO_BOOTS=${MP_BENCH_MICRO_BOOTS:-3}
SCALE_BOOTS=${MP_BENCH_SCALE_BOOTS:-3}
SCALE_SIZES=${MP_BENCH_SCALE_SIZES:-1024:65536:1048576}
# a pool of 1M pages is 4 GiB
SCALE_MEM=${MP_BENCH_SCALE_MEM:-6144}
BALLOON_SEEDS=${MP_BENCH_BALLOON_SEEDS-"1 2 3"}
BALLOON_MICRO_BOOTS=${MP_BENCH_BALLOON_MICRO_BOOTS:-3}
OUT=${MP_BENCH_OUT:-$MP_REPO/bench}
WORK=${MP_BENCH_WORK:-$MP_CACHE/bench}
RESUME=
[ "${MP_BENCH_RESUME:-}" != 1 ] || RESUME=1
KINDS="anon handrolled pool unmovable"
SMOKE=
if [ "${1:-}" = --smoke ]; then
	SMOKE=1
	BOOTS=1 PCTS=40 KUNIT_RUNS=0 MICRO_BOOTS=0 MP_KVERS=6.12 BALLOON_SEEDS=
	BALLOON_MICRO_BOOTS=0
	SCALE_BOOTS=1 SCALE_SIZES=1024:65536 SCALE_MEM=1024
	SCENARIOS=huge
	WORK=$MP_CACHE/bench-smoke
	OUT=$WORK/report
	RESUME=
fi
RAW=$OUT/results/raw

# run_kernel KVER SCENARIO OUT: one kernel's boots of one scenario, one
# guest at a time, a line per boot in OUT:
#   huge          huge pages after compact_memory, every held share, 1 GiB
#                 guests (points-KVER.txt)
#   thp           THP faults at THP_PCTS (thp-KVER.txt)
#   gigantic      1 GiB pages at GIG_PCTS in GIG_MEM guests
#                 (gigantic-KVER.txt)
#   gigantic-cma  the same from a hugetlb_cma= area only (kernels with CMA;
#                 hugetlb_cma_only=1, or hugetlb would fall back elsewhere),
#                 without the unmovable kind, which cannot enter it
#                 (gigantic-cma-KVER.txt)
#   unplug        virtio-mem unplug at UNPLUG_PCTS, the device's memory
#                 onlined to the normal zone (unplug-KVER.txt)
#   unplug-movable  the same in ZONE_MOVABLE, without the unmovable kind
#                 (unplug-movable-KVER.txt)
#   idle          huge pages, anon at 40% with bench_driver.ko loaded idle
#                 (bench_run --idle-driver): what the driver kinds pay for
#                 loading a module and the anon kind does not
#                 (idle-KVER.txt)
run_kernel() {
	local kver=$1 scenario=$2 pts=$3 pct boot kind log
	local pcts=$PCTS none=none args='' failed=''
	local guest=$scenario mem=1024 cmdline='' tag="kernel=$kver"
	local n=0 total kinds=$KINDS boots=$BOOTS fields

	case $scenario in
	thp) pcts=$THP_PCTS boots=$THP_BOOTS ;;
	gigantic)
		pcts=$GIG_PCTS mem=$GIG_MEM tag="$tag area=normal"
		boots=$GIG_BOOTS
		;;
	gigantic-cma)
		guest=gigantic pcts=$GIG_PCTS mem=$GIG_MEM tag="$tag area=cma"
		boots=$GIG_BOOTS
		cmdline="hugetlb_cma=$GIG_CMA hugetlb_cma_only=1"
		kinds=${KINDS/ unmovable/}
		;;
	unplug)
		pcts=$UNPLUG_PCTS tag="$tag area=normal" boots=$UNPLUG_BOOTS
		cmdline=memhp_default_state=online_kernel
		;;
	unplug-movable)
		guest=unplug pcts=$UNPLUG_PCTS tag="$tag area=movable"
		boots=$UNPLUG_BOOTS
		cmdline=memhp_default_state=online_movable
		kinds=${KINDS/ unmovable/}
		;;
	idle)
		guest=huge pcts=40 kinds=anon none='' args=,--idle-driver
		# the guest's line says so; a failed boot's line must too
		failed=' idle_driver=1'
		;;
	esac
	# from 6.17 no module can hand-roll movable pages
	case $kver in 7.*) kinds=${kinds/handrolled /} ;; esac
	total=$((boots * ($(echo "$none" | wc -w) +
		$(echo "$kinds" | wc -w) * $(echo "$pcts" | wc -w))))
	for boot in $(seq 1 "$boots"); do
		for pct in $none $pcts; do
			for kind in $kinds; do
				if [ "$pct" = none ]; then
					kind=none
					pct=0
				fi
				n=$((n + 1))
				log=$WORK/$kver-$scenario-$kind-$pct-$boot.log
				mp_log "$kver $scenario [$n/$total]: $kind, $pct% held, boot $boot"
				if fields=$(bench_boot "$kver" "$guest" \
				   "--scenario=$guest,--kind=$kind,--held-pct=$pct,--seed=$boot$args" \
				   "$log" "$mem" "$cmdline"); then
					echo "$tag $fields" >> "$pts"
				else
					echo "$tag status=failed kind=$kind held_pct=$pct seed=$boot$failed log=$log" >> "$pts"
				fi
				[ "$kind" = none ] && break
			done
		done
	done
}

# bench_boot KVER SCENARIO ARGS LOG MEM CMDLINE: one guest of run_kernel;
# prints its BENCH_RESULT fields. For unplug, the guest has a virtio-mem
# device of UNPLUG_MIB plugged at boot, and the host's side of it
# (tools/testing/vm/unplug_host.py) adds its fields.
bench_boot() {
	local kver=$1 scenario=$2 args=$3 log=$4 mem=$5 cmdline=$6
	local sock=$4.qmp host=$4.host hpid ok=1 result

	if [ "$scenario" != unplug ]; then
		MP_VM_MEM=$mem mp_boot "$kver" bench "$args" "$log" "$cmdline" ||
			return 1
		sed -n 's/^BENCH_RESULT //p' "$log"
		return
	fi
	# the host must not read an older run's lines
	rm -f "$sock" "$log"
	python3 "$here/../vm/unplug_host.py" --log "$log" --qmp "$sock" \
		--device vm0 > "$host" 2>&1 &
	hpid=$!
	# plug, hold and unplug may take 15 minutes under a loaded TCG
	MP_VM_TIMEOUT=1200 MP_VM_MEM="$mem,maxmem=$((mem + 2 * UNPLUG_MIB))M" \
	MP_QEMU_ARGS="-object memory-backend-ram,id=m0,size=${UNPLUG_MIB}M
		-device virtio-mem-pci,id=vm0,memdev=m0,requested-size=${UNPLUG_MIB}M
		-qmp unix:$sock,server=on,wait=off" \
		mp_boot "$kver" bench "$args" "$log" "$cmdline" || ok=0
	wait "$hpid" || ok=0
	result=$(sed -n 's/^UNPLUG_HOST requested_mib=/requested_mib=/p' "$host")
	# all of the device plugged before the request, or it measured less
	if [ $ok = 0 ] || [ "${result%% *}" != "requested_mib=$UNPLUG_MIB" ]; then
		sed 's/^/[unplug host] /' "$host" >&2
		return 1
	fi
	echo "$(sed -n 's/^BENCH_RESULT //p' "$log") $result"
}

# Per-CPU alloc+free and pin+unpin with 1, 2 and 4 vCPUs. These guests
# run multi-threaded TCG, one host thread per vCPU (the host has 2 cores:
# 4 vCPUs measure contention, not speed-up). A guest that dies before its
# test starts, as multi-threaded TCG boots sometimes did while the kernel
# patched its text, is retried (twice at most) and counted.
run_smp() {
	local kver=$1 pts=$2 smp boot try log
	for smp in $SMPS; do
		for boot in $(seq 1 "$MICRO_BOOTS"); do
			for try in 1 2 3; do
				log=$WORK/$kver-micro-$smp-$boot-$try.log
				mp_log "$kver: $smp vCPUs, multi-threaded TCG, boot $boot, try $try"
				if MP_TCG_THREAD=multi MP_VM_SMP=$smp \
				   mp_boot "$kver" bench --kind=micro "$log"; then
					sed -n "s/^BENCH_MICRO /kernel=$kver smp=$smp boot=$boot try=$try /p" \
						"$log" >> "$pts"
					break
				fi
				if grep -q '^MP_GUEST ' "$log"; then
					echo "kernel=$kver smp=$smp boot=$boot status=failed log=$log" >> "$pts"
					break
				fi
				mp_log "$kver: the guest died before its test started"
				echo "kernel=$kver smp=$smp boot=$boot try=$try status=died-before-test log=$log" >> "$pts"
			done
		done
	done
}

# Each operation's cost by pool size (bench_scale.c), a boot at a time.
run_scale() {
	local kver=$1 pts=$2 boot log
	for boot in $(seq 1 "$SCALE_BOOTS"); do
		log=$WORK/$kver-scale-$boot.log
		mp_log "$kver: operations by pool size ($SCALE_SIZES pages), boot $boot"
		if MP_VM_MEM=$SCALE_MEM mp_boot "$kver" bench \
		   "--kind=scale,--scale=$SCALE_SIZES" "$log"; then
			sed -n "s/^BENCH_SCALE /kernel=$kver boot=$boot status=ok /p" \
				"$log" >> "$pts"
		else
			# with what bench_driver/scale said went wrong, if it did
			echo "kernel=$kver boot=$boot status=failed log=$log" \
				"$(grep -o ' error=.*' "$log" | head -1)" >> "$pts"
		fi
	done
}

# Both balloon drivers on one kernel, a guest per seed and driver; the
# BALLOON_RUN lines go to balloon-KVER.txt, the rest to a log per seed.
# On 7.x also the kernel's own virtio_balloon on Debian's unpatched
# kernel: the balloon before patches/7.x put it on movable_pool.
run_balloon() {
	local kver=$1 out=$2 seed
	for seed in $BALLOON_SEEDS; do
		mp_log "$kver: balloon drivers, seed $seed"
		MP_BALLOON_MEM=2048 MP_BALLOON_MIB=1024 MP_BALLOON_TRIES=3 \
		MP_BALLOON_SEED=$seed bash "$here/../vm/balloon.sh" \
			--drivers="mp virtio" "$kver" 2> "$WORK/balloon-$kver-$seed.log" |
			grep '^BALLOON_RUN'
		# 7.x: the kernel's balloon without the series, the same source
		# and config otherwise (7.2-plain, lib.sh), is the before
		case $kver in
		7.*)
			MP_BALLOON_MEM=2048 MP_BALLOON_MIB=1024 MP_BALLOON_TRIES=3 \
			MP_BALLOON_SEED=$seed bash "$here/../vm/balloon.sh" \
				--drivers=virtio "$kver-plain" \
				2> "$WORK/balloon-$kver-plain-$seed.log" |
				grep '^BALLOON_RUN'
			;;
		esac
	done > "$out"
}

# The balloon API's cost per page on a 7.x kernel with the series and on
# the same kernel without it (bench/balloon_micro.sh).
run_balloon_micro() {
	local kver=$1 out=$2
	MP_MICRO_BOOTS=$BALLOON_MICRO_BOOTS bash "$here/balloon_micro.sh" \
		"$kver-plain $kver" 2> "$WORK/balloon-micro-$kver.log" |
		grep '^BALLOON_MICRO' > "$out"
}

# The KUnit microbenchmarks in the UML build without debug options.
run_kunit() {
	local kver=$1 out=$2 i
	for i in $(seq 1 "$KUNIT_RUNS"); do
		MP_BENCH_ONLY=1 MP_BENCH_KVERS=$kver bash "$here/../kunit.sh" "$kver" 2>&1 >/dev/null |
			sed -n 's/^\[\([0-9.]*\), no debug\] bench: /kernel=\1 run='"$i"' /p'
	done > "$out"
}

# phase NAME FUNCTION ARGS...: FUNCTION ARGS OUT writes phase NAME's raw
# figures to OUT, which becomes RAW/NAME.txt once FUNCTION has returned
# (whatever its status: a failed boot is a line of its own), so that
# MP_BENCH_RESUME=1 keeps a phase that finished and runs one cut short.
phase() {
	local name=$1 t0
	shift
	if [ -n "$RESUME" ] && [ -e "$RAW/$name.txt" ]; then
		mp_log "$name: kept from an earlier run"
		return
	fi
	t0=$(date +%s)
	: > "$RAW/$name.txt.part"
	"$@" "$RAW/$name.txt.part"
	mv "$RAW/$name.txt.part" "$RAW/$name.txt"
	echo "phase=$name seconds=$(($(date +%s) - t0))" \
		"finished=$(date -u +%FT%TZ) run=$RUN commit=$COMMIT" \
		>> "$RAW/phases.txt"
}

mp_need_vm_tools
mp_need_pkgs gnuplot-nox python3
# the code measured: a change to bench/ (this run's output) is none
COMMIT=$(git -C "$MP_REPO" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$MP_REPO" diff --quiet HEAD -- . ':(exclude)bench' 2>/dev/null ||
	COMMIT=$COMMIT-dirty
RUN=$(date -u +%Y%m%dT%H%M%S)
mkdir -p "$WORK" "$RAW"
# this run's raw figures only (the guests' logs stay until overwritten)
if [ -z "$RESUME" ]; then
	for f in points idle thp gigantic unplug micro scale balloon kunit; do
		rm -f "$RAW/$f"-*.txt "$RAW/$f"-*.part
	done
	rm -f "$RAW/phases.txt"
fi
# stop every lane and guest with the run, or they would go on writing RAW
trap 'trap - INT TERM; kill $(mp_below $$) 2>/dev/null; exit 130' INT TERM
shopt -s nullglob
t0=$(date +%s)
for kver in $MP_KVERS; do
	mp_initramfs "$kver" >/dev/null || mp_die "cannot build the $kver initramfs"
done
mp_log "KUnit microbenchmarks, $KUNIT_RUNS runs per kernel"
for kver in $MP_KVERS; do
	# the kernels the issue's microbenchmark targets are for
	case " ${MP_BENCH_KVERS:-6.1 6.12 7.2} " in
	*" $kver "*) phase "kunit-$kver" run_kunit "$kver" ;;
	esac
done
# a lane per kernel, each guest one TCG thread (with the four kernels,
# four guests on this machine's two cores)
for kver in $MP_KVERS; do
	for scenario in $SCENARIOS; do
		case $scenario in
		gigantic*) continue ;;
		huge)
			phase "points-$kver" run_kernel "$kver" huge
			# 7.x: a module's text fills execmem's cache 2 MiB at a time
			case $kver in
			7.*) phase "idle-$kver" run_kernel "$kver" idle ;;
			esac
			;;
		unplug)
			phase "unplug-$kver" run_kernel "$kver" unplug
			phase "unplug-movable-$kver" run_kernel "$kver" unplug-movable
			;;
		*) phase "$scenario-$kver" run_kernel "$kver" "$scenario" ;;
		esac
	done &
done
wait
# One boot of SCENARIO on 6.12, the pool kind with PCT% held, in a guest
# of MEM MiB booted with CMDLINE, its line (tagged TAG) in
# SCENARIO-6.12.txt: the smoke of the newer scenarios.
smoke_one() {
	local scenario=$1 pct=$2 mem=$3 tag=$4 cmdline=${5:-} fields
	local log=$WORK/6.12-$1-pool-smoke.log
	if fields=$(bench_boot 6.12 "$scenario" \
		"--scenario=$scenario,--kind=pool,--held-pct=$pct,--seed=1" \
		"$log" "$mem" "$cmdline"); then
		echo "$tag $fields"
	else
		echo "$tag status=failed kind=pool held_pct=$pct seed=1 log=$log"
	fi >> "$RAW/$scenario-6.12.txt"
}

# The 1 GiB-page guests (8 GiB, one at a time: the host has 24 GiB; for
# --smoke, the newer scenarios' boots) and the pool-size guests (one at a
# time), a core each.
gigantic_lane() {
	local kver
	if [ -n "$SMOKE" ]; then
		smoke_one thp 40 1024 kernel=6.12
		smoke_one gigantic 40 "$GIG_MEM" "kernel=6.12 area=normal"
		smoke_one unplug "$UNPLUG_PCTS" 1024 "kernel=6.12 area=normal" \
			memhp_default_state=online_kernel
		return
	fi
	[[ " $SCENARIOS " == *" gigantic "* ]] || return 0
	for kver in $MP_KVERS; do
		phase "gigantic-$kver" run_kernel "$kver" gigantic
		# Debian builds 6.x without CMA; the patched 7.x has it
		case $kver in
		7.*) phase "gigantic-cma-$kver" run_kernel "$kver" gigantic-cma ;;
		esac
	done
}

scale_lane() {
	local kver
	[ "$SCALE_BOOTS" -gt 0 ] || return 0
	for kver in $MP_KVERS; do
		phase "scale-$kver" run_scale "$kver"
	done
}

gigantic_lane &
scale_lane &
wait
# the SMP guests take both cores: after the others
[ "$MICRO_BOOTS" -gt 0 ] && for kver in $MP_KVERS; do
	phase "micro-$kver" run_smp "$kver"
done
[ -n "$BALLOON_SEEDS" ] && for kver in $MP_KVERS; do
	phase "balloon-$kver" run_balloon "$kver" &
done
wait
# timings: alone
[ "$BALLOON_MICRO_BOOTS" -gt 0 ] && for kver in $MP_KVERS; do
	case $kver in
	7.*) phase "balloon-micro-$kver" run_balloon_micro "$kver" ;;
	esac
done
mp_log "guests done in $(($(date +%s) - t0)) s"
if [ -z "$SMOKE" ]; then
	# the whole's time only if this run made every phase
	secs=$(($(date +%s) - t0))
	! grep -qv " run=$RUN " "$RAW/phases.txt" || secs=0
	exec python3 "$here/report.py" --out "$OUT" --kunit "$RAW"/kunit-*.txt \
		--seconds "$secs" --phases "$RAW/phases.txt" "$RAW"/points-*.txt \
		--micro "$RAW"/micro-*.txt --balloon "$RAW"/balloon-*.txt \
		--balloon-micro "$RAW"/balloon-micro-*.txt \
		--thp "$RAW"/thp-*.txt --gigantic "$RAW"/gigantic-*.txt \
		--unplug "$RAW"/unplug-*.txt --scale "$RAW"/scale-*.txt \
		--idle "$RAW"/idle-*.txt
fi

if python3 "$here/report.py" --out "$OUT" "$RAW"/points-*.txt \
	--thp "$RAW"/thp-*.txt --gigantic "$RAW"/gigantic-*.txt \
	--unplug "$RAW"/unplug-*.txt --scale "$RAW"/scale-*.txt \
	> "$WORK/report.log" 2>&1; then
	mp_result pass bench-smoke/report
else
	tail -20 "$WORK/report.log" >&2
	mp_result fail bench-smoke/report
fi
# the pool's boot of each newer scenario: THPs granted at fault, 1 GiB
# pages granted (40% held in 8 GiB on 6.12: no driver 4, movable_pool 3,
# unmovable 0), memory unplugged, and their report sections written
if grep -q ' status=ok .* thp_alloc=[1-9]' "$RAW/thp-6.12.txt" &&
   grep -q '^## THP at fault time' "$OUT/RESULTS.md"; then
	mp_result pass bench-smoke/thp
else
	cat "$RAW/thp-6.12.txt" >&2
	mp_result fail bench-smoke/thp
fi
if grep -q ' status=ok .* gigantic_pages=[1-9]' "$RAW/gigantic-6.12.txt" &&
   grep -q '^## 1 GiB pages at run time' "$OUT/RESULTS.md"; then
	mp_result pass bench-smoke/gigantic
else
	cat "$RAW/gigantic-6.12.txt" >&2
	mp_result fail bench-smoke/gigantic
fi
# virtio-mem: the pool's pages moved out of at least 90% of the device
if awk '/ status=ok / { for (i = 1; i <= NF; i++) { split($i, kv, "=");
	v[kv[1]] = kv[2] } } END { exit !(v["requested_mib"] > 0 &&
	v["unplugged_mib"] * 10 >= v["requested_mib"] * 9) }' \
	"$RAW/unplug-6.12.txt" &&
   grep -q '^## Memory unplug with virtio-mem' "$OUT/RESULTS.md"; then
	mp_result pass bench-smoke/unplug
else
	cat "$RAW/unplug-6.12.txt" >&2
	mp_result fail bench-smoke/unplug
fi
# every size measured, every operation timed, the section written
if [ "$(grep -c ' take_ns=[1-9]' "$RAW/scale-6.12.txt")" = 2 ] &&
   ! grep -q 'error=\|status=failed' "$RAW/scale-6.12.txt" &&
   grep -q '^## Operation cost by pool size' "$OUT/RESULTS.md"; then
	mp_result pass bench-smoke/scale
else
	cat "$RAW/scale-6.12.txt" >&2
	mp_result fail bench-smoke/scale
fi
# each boot verified its data; and movable pages must beat unmovable ones
pool=$(sed -n 's/.* kind=pool .*huge_pages=\([0-9]*\).*/\1/p' "$RAW"/points-*.txt /dev/null)
unmovable=$(sed -n 's/.* kind=unmovable .*huge_pages=\([0-9]*\).*/\1/p' "$RAW"/points-*.txt /dev/null)
mp_log "smoke: pool $pool huge pages, unmovable $unmovable"
if [ -n "$pool" ] && [ -n "$unmovable" ] && [ "$pool" -gt "$unmovable" ]; then
	mp_result pass bench-smoke/pool-beats-unmovable
else
	mp_result fail bench-smoke/pool-beats-unmovable
fi
