#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS post-build hook, run in the build directory: keep Module.symvers
# beside the built module ($dkms_tree/movable_pool/<version>/<kernel>/<arch>),
# so a driver module can be built against it (KBUILD_EXTRA_SYMBOLS).
set -e
cp Module.symvers "../$1/$2/Module.symvers"
