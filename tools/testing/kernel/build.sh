#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kernel KVER=7.2: build the patched 7.x guest kernel (patches/7.x on
# Debian's linux-source, Debian's own config reduced as kernel/KVER.config
# says) and print its build directory. Every 7.x guest target calls this.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

mp_patched_tree "${1:-7.2}"
