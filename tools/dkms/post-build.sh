#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS post-build hook, run in the build directory with the kernel release
# and the arch DKMS built for (dkms.conf passes ${kernelver} ${arch}).
#
# Keeps what a driver builds against beside the built module, in
# $dkms_tree/movable_pool/<version>/<kernel>/<arch>/: Module.symvers (for
# KBUILD_EXTRA_SYMBOLS) and the public header it was built from. This is
# the convention of Debian's former spl-dkms, whose POST_BUILD kept its
# Module.symvers (and spl_config.h) there for zfs-dkms to build against
# (--with-spl-obj). While the module is installed DKMS links that
# directory as $dkms_tree/movable_pool/kernel-<kernel>-<arch>, a path that
# names no version; "dkms remove" deletes it all.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 KERNELVER ARCH" >&2; exit 1; }
dest=../$1/$2
install -m 0644 Module.symvers "$dest/Module.symvers"
install -D -m 0644 include/linux/movable_pool.h \
	"$dest/include/linux/movable_pool.h"
