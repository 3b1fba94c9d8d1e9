#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kernel KVER=7.2: build the patched 7.x guest kernel (patches/7.x on
# Debian's linux-source, Debian's own config reduced as kernel/KVER.config
# says) and print its build directory. Every 7.x guest target calls this.
# KVER=7.2-plain: the same kernel without patches/7.x.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

case ${1:-7.2} in
*-plain) mp_plain_tree "${1%-plain}" ;;
*) mp_patched_tree "${1:-7.2}" ;;
esac
