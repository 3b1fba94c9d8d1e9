# SPDX-License-Identifier: GPL-2.0
#
# User entry points. The kernel build itself reads Kbuild.
#
#   make demo              the main job: huge pages with and without movable_pool, in a VM
#   make check             every test: KUnit (UML), module builds, lint, VM tests
#   make modules [KVER=]   build movable_pool.ko and samples against Debian headers
#                          (KVER=7.2 refuses: 6.17+ needs patches/7.x)
#   make kunit [KVER=]     KUnit suite under UML with KASAN, lockdep, DEBUG_VM
#                          (7.2: patches/7.x applied, two CPUs)
#   make dkms-check        install through DKMS for 6.1 and 6.12 in a throwaway
#                          root, build a driver against it, load both in guests
#   make deb               movable-pool-dkms_<version>_all.deb (lintian-clean),
#                          in the cache; the version is MOVABLE_POOL_VERSION
#   make deb-check         the package in a throwaway Debian 12 root: apt install
#                          with 6.1 and 6.12 headers, a driver built against it,
#                          both loaded in guests, apt remove --purge leaves nothing
#   make docs              the guide as HTML (Sphinx + kernel-doc), in the cache
#   make series            regenerate patches/7.x from these sources
#   make series-check      every patch of patches/7.x builds on its own (x86,
#                          mm/ and the balloon's users; make check: the patch
#                          the newest change touched first)
#   make kernel [KVER=7.2] the patched 7.x guest kernel: patches/7.x on Debian's
#                          source with Debian's config, reduced (cached);
#                          KVER=7.2-plain: the same without patches/7.x
#   make lint              checkpatch, kernel-doc, W=1 + sparse builds
#   make vmtest [KVER=]    gfxbuf tests in qemu guests running Debian kernels
#                          (KVER=6.12-checked: our KASAN/lockdep/kmemleak build;
#                          KVER=7.2: the patched kernel of make kernel)
#   make stress [KVER=] [DURATION=600]
#                          everything at once on four vCPUs: BO churn, mmap,
#                          fork, engine pins, compaction, offlining, rmmod
#                          attempts, then the fuzzer (6.1, 6.12 and
#                          6.12-checked with fault injection; ~45 min;
#                          KVER=6.12-kcsan: our KCSAN build, KVER=7.2 the
#                          patched one; neither in the default)
#   make bench             side by side with hand-rolled, anon and unmovable
#                          memory in guests on 6.1, 6.12 and the patched 7.2,
#                          mp_balloon against virtio_balloon, and 7.2's balloon
#                          before and after patches/7.x; writes bench/RESULTS.md
#   make clean             drop modules, initramfs images and guest logs built from this tree
#
# KVER is 5.10, 6.1, 6.12 or 7.2 (the patched kernel; 7.2-plain is the same
# source and config without patches/7.x, for the balloon's before and
# after; 7.2-debian is Debian's own image); unset means all that apply.
# Caches live in ~/.cache/movable_pool
# (override with MP_CACHE=).

KVER ?=
DURATION ?= 600
T := tools/testing
MP_CACHE_DIR := $(or $(MP_CACHE),$(HOME)/.cache/movable_pool)

.PHONY: all demo check modules kunit lint vmtest stress bench docs dkms-check deb deb-check series series-check kernel clean

all: modules

demo:
	@bash $(T)/vm/demo.sh

check:
	@bash $(T)/check.sh

modules:
	@bash $(T)/modules.sh $(KVER)

kunit:
	@bash $(T)/kunit.sh $(KVER)

lint:
	@bash $(T)/lint.sh

vmtest:
	@bash $(T)/vm/vmtest.sh $(KVER)

stress:
	@DURATION=$(DURATION) MP_STRESS_BOOTS=$${MP_STRESS_BOOTS:-8} bash $(T)/vm/stress.sh $(KVER)

bench:
	@bash $(T)/bench/bench.sh

docs:
	@bash tools/docs/docs.sh

series-check:
	@bash tools/upstream/series-check.sh

kernel:
	@bash $(T)/kernel/build.sh $(or $(KVER),7.2)

dkms-check:
	@bash $(T)/dkms.sh

deb:
	@bash tools/deb/build.sh

deb-check:
	@bash $(T)/deb-check.sh

series:
	@bash tools/upstream/series.sh

# Built from this tree; kernel sources, downloads and UML builds stay cached.
clean:
	rm -rf $(MP_CACHE_DIR)/modules-* $(MP_CACHE_DIR)/initramfs-* $(MP_CACHE_DIR)/*.log
