#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian package movable-pool-dkms_<version>_all.deb and its
# native source package, built with dpkg-buildpackage from a copy of the
# files git tracks (the tree stays clean), into $MP_CACHE/deb/; then
# lintian on both, which must report no error and no warning. RESULT
# lines deb-build and deb-lintian; the .deb's path is logged last.
#
# The version is MOVABLE_POOL_VERSION of include/linux/movable_pool.h; the
# build stops when debian/changelog's newest entry says another.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../testing/lib.sh"

mp_need_pkgs dpkg-dev debhelper dh-dkms lintian rsync git
ver=$(mp_version)
top=$(dpkg-parsechangelog -l "$MP_REPO/debian/changelog" -S Version)
if [ "$top" != "$ver" ]; then
	mp_log "include/linux/movable_pool.h says MOVABLE_POOL_VERSION $ver, debian/changelog's newest entry says $top"
	mp_log "add a debian/changelog entry for version $ver naming the API changes (as in NEWS), e.g. with: dch -v $ver"
	mp_result fail deb-build
	exit 1
fi
if ! grep -q '^PACKAGE_VERSION="#MODULE_VERSION#"$' "$MP_REPO/dkms.conf"; then
	mp_log 'dkms.conf must say PACKAGE_VERSION="#MODULE_VERSION#" (dh_dkms -V fills it in)'
	mp_result fail deb-build
	exit 1
fi

out=$MP_CACHE/deb
src=$out/src/movable-pool-$ver
rm -rf "$out"
mp_export "$src"
log=$out/build.log
mp_log "building movable-pool-dkms $ver (log: $log)"
if ! (cd "$src" && dpkg-buildpackage --no-sign -us -uc) > "$log" 2>&1; then
	tail -30 "$log" >&2
	mp_result fail deb-build
	exit 1
fi
deb=$out/movable-pool-dkms_${ver}_all.deb
mv "$out/src/movable-pool-dkms_${ver}_all.deb" "$deb"
mp_result pass deb-build

# lintian as Debian runs it: errors and warnings fail, info is shown
mp_log "lintian $(lintian --version | awk '{print $2}') on the source and the package"
if lintian --fail-on error,warning --display-info \
	"$out/src/movable-pool_${ver}.dsc" "$deb" >&2; then
	mp_result pass deb-lintian
else
	mp_result fail deb-lintian
	exit 1
fi
mp_log "package: $deb"
