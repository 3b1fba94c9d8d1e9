# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of `make docs`: the guide in
# Documentation/core-api/movable_pool.rst, rendered as the kernel renders
# its own documentation, with the kernel's kerneldoc extension and
# scripts/kernel-doc taken from Debian's linux-source (MP_KTREE) and the
# kernel-doc comments taken from this repository.

import os
import sys

ktree = os.environ['MP_KTREE']
repo = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ktree, 'Documentation', 'sphinx'))

project = 'movable_pool'
copyright = 'The movable_pool authors'
root_doc = 'movable_pool'
extensions = ['kerneldoc']
primary_domain = 'c'
highlight_language = 'none'

# what the kernel's conf.py tells Sphinx's C domain about its attributes
c_id_attributes = ['__must_check', '__init', '__exit', 'noinline',
                   '__always_inline', 'notrace']

kerneldoc_bin = os.path.join(ktree, 'scripts', 'kernel-doc')
kerneldoc_srctree = repo

html_theme = 'alabaster'
html_title = 'movable_pool'
