#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write patches/7.x: movable_pool as an in-tree series for Linux 7.x.

The series is generated from this repository's sources, so there is one
copy of the code. lib/movable_pool_compat.h becomes mm/movable_pool_vm.h
with every kernel-version condition resolved for the target kernel; the
other files are copied as they are, with include paths adjusted. Files
that exist only in the series (the balloon on movable_pool and its KUnit
suite) are under mainline/, at their paths in the tree.

usage: make-series.py KERNEL_TREE OUT_DIR [VERSION]
  KERNEL_TREE  an unpatched tree (Debian's linux-source-7.2)
  OUT_DIR      where the git format-patch files go (emptied first)
  VERSION      the tree's version, default 7.2.0
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DATE = '2026-12-04 00:00:00 +0000'	# fixed: the same sources give the same series


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def replace(text, old, new, what):
    """Replace old by new once; the tree must look as expected."""
    if text.count(old) != 1:
        sys.exit(f'make-series: {what}: anchor not found once: {old!r}')
    return text.replace(old, new)


# --- resolving the compat header for one kernel version -------------------

VERSION_TEST = re.compile(
    r'KERNEL_VERSION\((\d+),\s*(\d+),\s*(\d+)\)\s*(<=|>=|<|>|==|!=)\s*'
    r'LINUX_VERSION_CODE')


def kv(a, b, c):
    return (int(a) << 16) + (int(b) << 8) + int(c)


def truth(cond, code):
    """True/False when the version tests decide cond, else None."""
    def term(t):
        t = t.strip()
        neg = t.startswith('!')
        m = VERSION_TEST.fullmatch(t.lstrip('!').strip())
        if not m:
            return None
        lhs = kv(*m.groups()[:3])
        val = {'<': lhs < code, '>': lhs > code, '<=': lhs <= code,
               '>=': lhs >= code, '==': lhs == code,
               '!=': lhs != code}[m.group(4)]
        return (not val) if neg else val

    cond = re.sub(r'\\\n', ' ', cond)
    ors = []
    for alt in cond.split('||'):
        terms = [term(t) for t in alt.split('&&')]
        if False in terms:
            ors.append(False)
        elif all(t is True for t in terms):
            ors.append(True)
        else:
            ors.append(None)
    if True in ors:
        return True
    if all(o is False for o in ors):
        return False
    return None


def tree_defines(tree, name):
    """Whether the target tree's headers #define @name."""
    return subprocess.run(['grep', '-rqsE', r'^#\s*define\s+%s\b' % name,
                           os.path.join(tree, 'include')]).returncode == 0


def resolve(text, code, tree):
    """unifdef for version tests and for #ifdef/#ifndef of macros the
    target tree defines: keep what this kernel compiles."""
    lines = text.split('\n')
    # join continued directive lines
    joined = []
    for line in lines:
        if joined and joined[-1].endswith('\\') and joined[-1].lstrip().startswith('#'):
            joined[-1] = joined[-1] + '\n' + line
        else:
            joined.append(line)
    out = []
    # one entry per open #if: 'resolved' (the directive goes) or not (it
    # stays, with both branches), 'emit' for the current branch, 'taken'
    # once a resolved branch was kept, 'parent' whether the enclosing
    # branches emit
    stack = []

    def emitting():
        return all(e['emit'] for e in stack)

    for line in joined:
        s = line.strip()
        m = re.match(r'#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)', s, re.S)
        if not m:
            if emitting():
                out.append(line)
            continue
        kind, cond = m.group(1), m.group(2)
        if kind in ('if', 'ifdef', 'ifndef'):
            if kind == 'if':
                val = truth(cond, code)
            elif tree_defines(tree, cond.strip()):
                # a kernel facility the tree has: #ifdef kept, #ifndef dropped
                val = kind == 'ifdef'
            else:
                val = None
            parent = emitting()
            stack.append({'resolved': val is not None, 'emit': val is not False,
                          'taken': bool(val), 'parent': parent})
            if val is None and parent:
                out.append(line)
        elif kind == 'elif':
            e = stack[-1]
            if not e['resolved']:
                sys.exit('make-series: #elif after an undecided #if')
            val = truth(cond, code)
            if val is None:
                sys.exit(f'make-series: undecided #elif {cond.strip()}')
            e['emit'] = (not e['taken']) and val
            e['taken'] = e['taken'] or val
        elif kind == 'else':
            e = stack[-1]
            if e['resolved']:
                e['emit'] = not e['taken']
                e['taken'] = True
            elif e['parent']:
                out.append(line)
        elif kind == 'endif':
            e = stack.pop()
            if not e['resolved'] and emitting():
                out.append(line)
    text = '\n'.join(out)
    return re.sub(r'\n{3,}', '\n\n', text)


# --- the in-tree files -----------------------------------------------------

VM_HEADER_INTRO = '''/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How movable_pool pages meet the migration core: a page type of their own
 * (PGTY_movable_pool) plus PG_movable_ops, one struct movable_operations
 * registered with set_movable_ops(), and ->mapping pointing at the pool's
 * address_space (so code that dumps the page finds a real one). Also the
 * wrappers the KUnit suites use. Generated from movable_pool's compat
 * header; nothing else belongs here.
 */
'''


def vm_header(code, tree):
    text = resolve(read(os.path.join(REPO, 'lib/movable_pool_compat.h')), code,
                   tree)
    body = text[text.index('#ifndef _MOVABLE_POOL_COMPAT_H'):]
    body = body.replace('_MOVABLE_POOL_COMPAT_H', '_MM_MOVABLE_POOL_VM_H')
    body = body.replace('#include <linux/version.h>\n', '')
    return VM_HEADER_INTRO + body


def library_c():
    text = read(os.path.join(REPO, 'lib/movable_pool.c'))
    return replace(text, '#include "movable_pool_compat.h"',
                   '#include "movable_pool_vm.h"', 'lib/movable_pool.c')


def kunit_objects():
    """The KUnit objects the repository's Kbuild lists, in link order."""
    text = read(os.path.join(REPO, 'Kbuild'))
    m = re.search(r'^obj-\$\(CONFIG_MOVABLE_POOL_KUNIT_TEST\) \+=((?:.*\\\n)*.*)',
                  text, re.M)
    if not m:
        sys.exit('make-series: no KUnit objects in Kbuild')
    return re.findall(r'kunit/(\S+)\.o', m.group(1))


def kunit_files():
    """The KUnit sources as mm/ holds them: the suites and their fixtures."""
    names = [o + '.c' for o in kunit_objects()] + ['movable_pool_kunit.h']
    files = {}
    for name in names:
        files['mm/' + name] = read(os.path.join(REPO, 'kunit', name))
    files['mm/movable_pool_kunit.h'] = replace(
        files['mm/movable_pool_kunit.h'],
        '#include "../lib/movable_pool_compat.h"',
        '#include "movable_pool_vm.h"', 'kunit/movable_pool_kunit.h')
    return files


def make_list(head, words):
    """head followed by words, as a Makefile line continued to fit 80 columns."""
    lines, line = [], head
    for w in words:
        if len(line.expandtabs()) + 1 + len(w) + 2 > 80:
            lines.append(line + ' \\')
            line = '\t' + w
        else:
            line += ' ' + w
    return '\n'.join(lines + [line]) + '\n'


def kconfig_block(name):
    """One config entry of the repository's Kconfig, as written there."""
    text = read(os.path.join(REPO, 'Kconfig'))
    m = re.search(r'^config %s\n(?:(?:\t.*)?\n)*' % name, text, re.M)
    if not m:
        sys.exit(f'make-series: no config {name} in Kconfig')
    return m.group(0).rstrip('\n') + '\n'


def insert(tree, files, path, edits):
    """Insert each (anchor, text) right after its anchor in @path, reading
    the file from @files if an earlier step changed it, else from @tree."""
    text = files.get(path) or read(os.path.join(tree, path))
    for anchor, added in edits:
        text = replace(text, anchor, anchor + added, path)
    files[path] = text


PAGE_TYPE = {
    'include/linux/page-flags.h': [
        ('\tPGTY_large_kmalloc\t= 0xf8,\n', '\tPGTY_movable_pool\t= 0xf9,\n'),
        ('PAGE_TYPE_OPS(Zsmalloc, zsmalloc, zsmalloc)\n',
         '\n/*\n * Pages of a movable_pool (mm/movable_pool.c): driver pages'
         ' that\n * compaction, CMA and offlining may migrate.\n */\n'
         'PAGE_TYPE_OPS(MovablePool, movable_pool, movable_pool)\n'),
        ('\t       (PageOffline(page) || PageZsmalloc(page)',
         ' ||\n\t\tPageMovablePool(page)'),
    ],
    'mm/migrate.c': [
        ('static const struct movable_operations *zsmalloc_movable_ops;\n',
         'static const struct movable_operations *movable_pool_movable_ops;\n'),
        ('\t\tzsmalloc_movable_ops = ops;\n\t\tbreak;\n',
         '\tcase PGTY_movable_pool:\n'
         '\t\tif (movable_pool_movable_ops && ops)\n'
         '\t\t\treturn -EBUSY;\n'
         '\t\tmovable_pool_movable_ops = ops;\n\t\tbreak;\n'),
        ('\tif (PageZsmalloc(page))\n\t\treturn zsmalloc_movable_ops;\n',
         '\tif (PageMovablePool(page))\n\t\treturn movable_pool_movable_ops;\n'),
    ],
    'mm/debug.c': [
        ('\tDEF_PAGETYPE_NAME(unaccepted),\n', '\tDEF_PAGETYPE_NAME(movable_pool),\n'),
    ],
}


def page_type(tree):
    """Patch 1: the page type, and the migration core accepting it."""
    files = {}
    for path, edits in PAGE_TYPE.items():
        insert(tree, files, path, edits)
    return files


def library(tree, code, author):
    """Patch 2: the library, its documentation and Kconfig entry."""
    files = {
        'mm/movable_pool.c': library_c(),
        'mm/movable_pool_vm.h': vm_header(code, tree),
        'include/linux/movable_pool.h':
            read(os.path.join(REPO, 'include/linux/movable_pool.h')),
        'include/trace/events/movable_pool.h':
            read(os.path.join(REPO, 'include/trace/events/movable_pool.h')),
        'Documentation/core-api/movable_pool.rst':
            read(os.path.join(REPO, 'Documentation/core-api/movable_pool.rst')),
    }
    # from 6.17 movable_ops pages need MIGRATION only (before, __SetPageMovable()
    # needed COMPACTION), so BALLOON_MIGRATION can select the library. And
    # built in only: the ops set_movable_ops() registers must outlive every
    # page of the type, and a page taken from a pool keeps it until freed.
    block = kconfig_block('MOVABLE_POOL')
    for old, new in (('depends on MMU && MIGRATION && COMPACTION',
                      'depends on MIGRATION'),
                     ('tristate "Movable page pools for drivers"',
                      'bool "Movable page pools for drivers"'),
                     ('say M or Y; otherwise N.', 'say Y; otherwise N.')):
        block = replace(block, old, new, 'config MOVABLE_POOL')
    files['mm/Kconfig'] = replace(read(os.path.join(tree, 'mm/Kconfig')),
                                  'config BALLOON\n',
                                  block + '\nconfig BALLOON\n', 'mm/Kconfig')
    insert(tree, files, 'mm/Makefile', [
        ('obj-$(CONFIG_ZSMALLOC)\t+= zsmalloc.o\n',
         'obj-$(CONFIG_MOVABLE_POOL) += movable_pool.o\n')])
    insert(tree, files, 'Documentation/core-api/index.rst', [
        ('   memory-allocation\n', '   movable_pool\n')])
    mt = read(os.path.join(tree, 'MAINTAINERS'))
    entry = ('MOVABLE_POOL DRIVER PAGE MIGRATION LIBRARY\n'
             f'M:\t{author}\n'
             'L:\tlinux-mm@kvack.org\n'
             'S:\tMaintained\n'
             'F:\tDocumentation/core-api/movable_pool.rst\n'
             'F:\tinclude/linux/movable_pool.h\n'
             'F:\tinclude/trace/events/movable_pool.h\n'
             'F:\tmm/movable_pool*\n\n')
    # entries are sorted by title: go in before the first that sorts after
    titles = re.finditer(r'^([A-Z0-9][^\n]*)\n[A-Z]:\t', mt, re.M)
    pos = next((m.start() for m in titles
                if m.group(1) > entry.split('\n')[0]), None)
    if pos is None:
        sys.exit('make-series: cannot place the MAINTAINERS entry')
    files['MAINTAINERS'] = mt[:pos] + entry + mt[pos:]
    return files


def mainline(path):
    """A file of the series that this repository keeps under mainline/."""
    return read(os.path.join(REPO, 'mainline', path))


# mainline/ holds the balloon as the last balloon patch leaves it. The
# patches after the conversion change it for reasons of their own, so the
# files of each earlier patch are derived from it: every later patch lists
# here what it wrote and what stood there before, and undoing the later
# patches, newest first, gives an earlier one's files. Each text must be
# found exactly once.
BALLOON_LATER = [
    ('warn', {
        'mm/balloon.c': [
            (""" * NULL while the device has pages in the balloon (balloon_page_count())
 * means they are being migrated: the driver may try again. A driver that
 * asks for a page of a device with none has lost count of its pages, which
 * never come back: it gets NULL and a warning, once, and must stop asking.
""", """ * NULL while the device has pages in the balloon (balloon_page_count())
 * means they are being migrated: the driver may try again. A driver that
 * asks for a page of a device with none has lost count of its pages.
"""),
            ("""		/* pages lost: the driver must stop, see balloon_page_count() */
		WARN_ONCE(!balloon_page_count(b_dev_info),
			  "balloon: dequeue from an empty balloon\\n");
		return NULL;
""", """		/*
		 * If we are unable to dequeue a balloon page because the page
		 * list is empty and there are no isolated pages, then something
		 * went out of track and some balloon pages are lost.
		 * BUG() here, otherwise the balloon driver may get stuck in
		 * an infinite loop while attempting to release all its pages.
		 */
		if (unlikely(!balloon_page_count(b_dev_info)))
			BUG();
		return NULL;
"""),
        ],
    }),
    ('enqueue', {
        'mm/balloon.c': [
            ("""/**
 * balloon_page_enqueue - inflate the balloon by a page
 * @b_dev_info: the balloon device
 * @page: a page from balloon_page_alloc(), off any list
 *
 * From now on the page is PageOffline() and, with
 * CONFIG_BALLOON_MIGRATION, may move: the driver must not touch page->lru
 * until it has dequeued the page again.
 *
 * With CONFIG_BALLOON_MIGRATION the balloon's movable_pool may refuse the
 * page, which only a page that is not one balloon_page_alloc() gave (or
 * balloon_page_list_dequeue() gave back) can cause, with a warning. The
 * page is then still the driver's, off any list and counted nowhere: the
 * driver must not tell its host of it.
 *
 * Context: process context; may sleep.
 * Return: true if the page is in the balloon, false if it was refused.
 */
bool balloon_page_enqueue(struct balloon_dev_info *b_dev_info,
			  struct page *page)
{
	/*
	 * Counted first: from the moment it is in the pool the page may move
	 * to another zone, or leave the balloon (->migratepage's -ENOENT)
	 * and be freed, and either counts it out of the balloon.
	 */
	balloon_page_inflated(b_dev_info, page);
	if (balloon_insert(b_dev_info, page))
		return true;
	/* never published: nobody else has seen it counted */
	balloon_page_count_in(b_dev_info, page, -1);
	count_vm_events(BALLOON_INFLATE, -1);
	return false;
}
""", """/* False only for a page the library refused, with a warning. */
static bool balloon_page_enqueue_one(struct balloon_dev_info *b_dev_info,
				     struct page *page)
{
	if (!balloon_insert(b_dev_info, page))
		return false;
	balloon_page_inflated(b_dev_info, page);
	return true;
}

/**
 * balloon_page_enqueue - inflate the balloon by a page
 * @b_dev_info: the balloon device
 * @page: a page from balloon_page_alloc(), off any list
 *
 * From now on the page is PageOffline() and, with
 * CONFIG_BALLOON_MIGRATION, may move: the driver must not touch page->lru
 * until it has dequeued the page again.
 *
 * Context: process context; may sleep.
 */
void balloon_page_enqueue(struct balloon_dev_info *b_dev_info,
			  struct page *page)
{
	balloon_page_enqueue_one(b_dev_info, page);
}
"""),
            (""" * @pages: pages from balloon_page_alloc(), linked through page->lru
 *
 * balloon_page_enqueue() on each page. The pages it refused stay on
 * @pages, in their order, still the driver's; the list is empty on return
 * unless it says fewer pages than were listed.
""", """ * @pages: pages from balloon_page_alloc(), linked through page->lru;
 *	the list is empty on return
 *
 * balloon_page_enqueue() on each page.
"""),
            ("""	struct page *page, *tmp;
	LIST_HEAD(refused);
	size_t n_pages = 0;

	list_for_each_entry_safe(page, tmp, pages, lru) {
		list_del(&page->lru);
		if (balloon_page_enqueue(b_dev_info, page))
			n_pages++;
		else
			list_add_tail(&page->lru, &refused);
	}
	list_splice(&refused, pages);
	return n_pages;
""", """	struct page *page, *tmp;
	size_t n_pages = 0;

	list_for_each_entry_safe(page, tmp, pages, lru) {
		list_del(&page->lru);
		n_pages += balloon_page_enqueue_one(b_dev_info, page);
	}
	return n_pages;
"""),
        ],
        'include/linux/balloon.h': [
            ("""bool balloon_page_enqueue(struct balloon_dev_info *b_dev_info,
""", """void balloon_page_enqueue(struct balloon_dev_info *b_dev_info,
"""),
        ],
    }),
]


def balloon_files(step):
    """mm/balloon.c and include/linux/balloon.h as patch @step leaves them:
    'convert' (the conversion) or a name in BALLOON_LATER."""
    files = {path: mainline(path) for path in
             ('mm/balloon.c', 'include/linux/balloon.h')}
    names = [name for name, _ in BALLOON_LATER]
    later = names[names.index(step) + 1:] if step in names else names
    for name, edits in reversed(BALLOON_LATER):
        if name not in later:
            continue
        for path, pairs in edits.items():
            for new, old in pairs:
                files[path] = replace(files[path], new, old,
                                      f'{path} before the {name} patch')
    return files


def edit(tree, files, path, pairs):
    """Replace each (old, new) once in @path, reading it from @files if an
    earlier patch changed it, else from @tree."""
    text = files.get(path) or read(os.path.join(tree, path))
    for old, new in pairs:
        text = replace(text, old, new, path)
    files[path] = text


VIRTIO_LOST = [
    ("""static unsigned int leak_balloon(struct virtio_balloon *vb, size_t num)
""", """/*
 * The balloon has none of the pages we count: they were lost (a bug) and
 * never come back. Stop counting them, or every caller that deflates until
 * vb->num_pages is zero (removal, freezing) would wait for them for ever.
 * The host keeps the frames; we never use them again.
 */
static void virtballoon_lost_pages(struct virtio_balloon *vb)
{
	dev_warn_once(&vb->vdev->dev,
		      "%u balloon pages lost, not waiting for them\\n",
		      vb->num_pages);
	vb->num_pages = 0;
}

static unsigned int leak_balloon(struct virtio_balloon *vb, size_t num)
"""),
    ("""	for (vb->num_pfns = 0; vb->num_pfns < num;
	     vb->num_pfns += VIRTIO_BALLOON_PAGES_PER_PAGE) {
		page = balloon_page_dequeue(vb_dev_info);
""", """	for (vb->num_pfns = 0; vb->num_pfns < num;
	     vb->num_pfns += VIRTIO_BALLOON_PAGES_PER_PAGE) {
		if (!balloon_page_count(vb_dev_info)) {
			virtballoon_lost_pages(vb);
			break;
		}
		page = balloon_page_dequeue(vb_dev_info);
"""),
]


def virtio_lost(tree):
    """virtio_balloon stops waiting for pages the balloon lost."""
    files = {}
    edit(tree, files, 'drivers/virtio/virtio_balloon.c', VIRTIO_LOST)
    return files


VIRTIO_LIST = [
    ("""	for (vb->num_pfns = 0; vb->num_pfns < num;
	     vb->num_pfns += VIRTIO_BALLOON_PAGES_PER_PAGE) {
		if (!balloon_page_count(vb_dev_info)) {
			virtballoon_lost_pages(vb);
			break;
		}
		page = balloon_page_dequeue(vb_dev_info);
		if (!page)
			break;
		set_page_pfns(vb, vb->pfns + vb->num_pfns, page);
		list_add(&page->lru, &pages);
		vb->num_pages -= VIRTIO_BALLOON_PAGES_PER_PAGE;
	}
""", """	/* the balloon takes pages out of its pool a batch at a time */
	balloon_page_list_dequeue(vb_dev_info, &pages,
				  DIV_ROUND_UP(num, VIRTIO_BALLOON_PAGES_PER_PAGE));
	vb->num_pfns = 0;
	list_for_each_entry(page, &pages, lru) {
		set_page_pfns(vb, vb->pfns + vb->num_pfns, page);
		vb->num_pfns += VIRTIO_BALLOON_PAGES_PER_PAGE;
		vb->num_pages -= VIRTIO_BALLOON_PAGES_PER_PAGE;
	}
	/* fewer than asked for, and none left: the rest are lost */
	if (vb->num_pfns < num && !balloon_page_count(vb_dev_info))
		virtballoon_lost_pages(vb);
"""),
]


def virtio_list(tree, prev):
    """virtio_balloon deflates a list of pages per call."""
    path = 'drivers/virtio/virtio_balloon.c'
    files = {path: prev[path]}
    edit(tree, files, path, VIRTIO_LIST)
    return files


ENQUEUE_CALLERS = {
    'drivers/virtio/virtio_balloon.c': [
        ("""		list_del(&page->lru);
		balloon_page_enqueue(&vb->vb_dev_info, page);
""", """		list_del(&page->lru);
		/* refused, with a warning: the host never hears of it */
		if (!balloon_page_enqueue(&vb->vb_dev_info, page)) {
			put_page(page);
			continue;
		}
"""),
    ],
    'drivers/misc/vmw_balloon.c': [
        ("""	struct page *page;

	if (page_size == VMW_BALLOON_4K_PAGE) {
		balloon_page_list_enqueue(&b->b_dev_info, pages);
	} else {
""", """	struct page *page, *tmp;

	if (page_size == VMW_BALLOON_4K_PAGE) {
		balloon_page_list_enqueue(&b->b_dev_info, pages);
		/*
		 * The host holds the pages the balloon refused (with a
		 * warning): never free them, and stop counting them, or
		 * popping the balloon would wait for them for ever.
		 */
		list_for_each_entry_safe(page, tmp, pages, lru) {
			list_del(&page->lru);
			atomic64_dec(&b->size);
		}
	} else {
"""),
    ],
    'arch/powerpc/platforms/pseries/cmm.c': [
        ("""		balloon_page_enqueue(&b_dev_info, page);
		atomic_long_inc(&loaned_pages);
""", """		if (!balloon_page_enqueue(&b_dev_info, page)) {
			/* refused, with a warning */
			plpar_page_set_active(page);
			__free_page(page);
			break;
		}
		atomic_long_inc(&loaned_pages);
"""),
    ],
}


def enqueue_callers(tree, prev):
    files = {}
    for path, pairs in ENQUEUE_CALLERS.items():
        files[path] = prev.get(path) or read(os.path.join(tree, path))
        edit(tree, files, path, pairs)
    return files


def balloon(tree, prev_kconfig, prev_migrate):
    """Patch 4: the balloon on movable_pool."""
    files = balloon_files('convert')
    files['mm/Kconfig'] = prev_kconfig
    insert(tree, files, 'mm/Kconfig', [
        ('\tdepends on MIGRATION && BALLOON\n', '\tselect MOVABLE_POOL\n')])
    files['mm/migrate.c'] = replace(
        prev_migrate,
        '/* Only balloon page migration sets PageOffline pages movable. */',
        '/* Only movable_pool (the balloon) sets PageOffline pages movable. */',
        'mm/migrate.c')
    return files


BALLOON_KUNIT_KCONFIG = """
config BALLOON_KUNIT_TEST
	bool "KUnit tests for the memory balloon" if !KUNIT_ALL_TESTS
	depends on KUNIT=y
	select BALLOON
	default KUNIT_ALL_TESTS
	help
	  Tests the memory balloon with a fake device: inflating and
	  deflating with the balloon's accounting, two devices, and with
	  BALLOON_MIGRATION, migration of inflated pages through the
	  device's migratepage callback. Built in only, because the
	  migration core entry points it calls are not exported.
"""


def balloon_kunit(prev_kconfig, prev_makefile, prev_maintainers):
    """The balloon's KUnit suite, the series' last patch."""
    anchor = '\t  migrated for memory defragmentation purposes by memory compaction.\n'
    line = 'obj-$(CONFIG_BALLOON) += balloon.o\n'
    entry = 'F:\tinclude/linux/balloon.h\nF:\tmm/balloon.c\n'
    return {
        'MAINTAINERS': replace(prev_maintainers, entry,
                               entry + 'F:\tmm/tests/balloon_kunit.c\n',
                               'MAINTAINERS balloon test'),
        'mm/tests/balloon_kunit.c': mainline('mm/tests/balloon_kunit.c'),
        'mm/Kconfig': replace(prev_kconfig, anchor,
                              anchor + BALLOON_KUNIT_KCONFIG,
                              'mm/Kconfig balloon test'),
        'mm/Makefile': replace(prev_makefile, line,
                               line + 'obj-$(CONFIG_BALLOON_KUNIT_TEST) += tests/balloon_kunit.o\n',
                               'mm/Makefile balloon test'),
    }


def kunit(prev_kconfig, prev_makefile):
    """Patch 3: the KUnit suites."""
    files = kunit_files()
    block = kconfig_block('MOVABLE_POOL_KUNIT_TEST')
    files['mm/Kconfig'] = replace(prev_kconfig, 'config BALLOON\n',
                                  block + '\nconfig BALLOON\n', 'mm/Kconfig test')
    files['mm/Makefile'] = replace(
        prev_makefile, 'obj-$(CONFIG_MOVABLE_POOL) += movable_pool.o\n',
        'obj-$(CONFIG_MOVABLE_POOL) += movable_pool.o\n' +
        make_list('obj-$(CONFIG_MOVABLE_POOL_KUNIT_TEST) +=',
                  [o + '.o' for o in kunit_objects()]),
        'mm/Makefile test')
    return files


# --- messages ----------------------------------------------------------------

def bench_rows():
    """The huge pages per kind at 40% held in bench/RESULTS.md, one dict per
    kernel: kver, none, boots, limit, huge ({kind label: median}) and idle
    (anon with the benchmark's module loaded idle, where measured)."""
    text = read(os.path.join(REPO, 'bench/RESULTS.md'))
    out = []
    for m in re.finditer(r'^Linux (\S+); no driver: (\d+)[^\n]*huge pages'
                         r'[^\n]*\((\d+) boots\)\.\n\n(\| held \|[^\n]*)\n'
                         r'\|[-|]*\n(?:\|[^\n]*\n)*?(\| 40% [^\n]*)\n'
                         r'((?:[^!\n][^\n]*\n|\n)*)', text, re.M):
        kinds = [c.strip() for c in m.group(4).strip('|').split('|')][2:]
        cells = [c.strip().split()[0]
                 for c in m.group(5).strip('|').split('|')][1:]
        idle = re.search(r'^anon LRU with bench_driver\.ko loaded idle.*?'
                         r'40% held: (\d+)', m.group(6), re.M)
        out.append(dict(kver=m.group(1), none=m.group(2), boots=m.group(3),
                        limit=cells[0], huge=dict(zip(kinds, cells[1:])),
                        idle=idle and idle.group(1)))
    if not any(r['kver'].startswith('7.') for r in out):
        sys.exit('make-series: no 40% row for 7.x in bench/RESULTS.md')
    return out


def bench72_figures(rows):
    """The patched 7.x rows of make bench: huge pages per kind at 40% held,
    and the balloon before and after."""
    out = []
    for r in rows:
        if not r['kver'].startswith('7.'):
            continue
        out += ['On the patched %s itself (the same guests, %s boots; from '
                '6.17 no module\ncan hand-roll movable pages, so there is no '
                'such row):' % (r['kver'], r['boots']), '',
                '  none %s, limit %s, ' % (r['none'], r['limit']) +
                ', '.join('%s %s' % kv for kv in r['huge'].items())]
        if r['idle']:
            out += ['', 'and anon LRU with the benchmark\'s module loaded '
                    'idle %s: there the first\nmodule loaded fills x86\'s '
                    'execmem cache of module text with a 2 MiB\nblock, which '
                    'the driver kinds pay for and anon LRU does not.'
                    % r['idle']]
    return '\n'.join(out + ['', balloon_figures()]).replace('–', '-') + '\n'


def results_md():
    return read(os.path.join(REPO, 'bench/RESULTS.md'))


def table_rows(block):
    """The body rows of the markdown table @block, as lists of cells."""
    return [[c.strip() for c in row.strip().strip('|').split('|')]
            for row in block.strip().splitlines()[2:]]


def balloon_before_after():
    """make bench's virtio_balloon on the patched 7.x and on the same
    kernel without the series: (kernel, rows)."""
    b = re.search(r'^Linux (7\.\d+): the kernel\'s balloon on movable_pool'
                  r' \(patches/7\.x\) against the same kernel without the '
                  r'series\n\n((?:\|[^\n]*\n)+)', results_md(), re.M)
    if not b:
        sys.exit('make-series: no 7.x balloon table against the same kernel '
                 'without the series in bench/RESULTS.md')
    return b.group(1), table_rows(b.group(2))


# balloon_micro's rows the cover letter shows: (how the row begins, label)
MICRO_LABELS = (
    ('`balloon_page_enqueue()`', 'balloon_page_enqueue()'),
    ('`balloon_page_dequeue()`', 'balloon_page_dequeue(), 1 per call'),
    ('`balloon_page_list_dequeue()`', 'balloon_page_list_dequeue(), 256'),
    ('`movable_pool_take_owner_pages()`, 1 per',
     'movable_pool_take_owner_pages(), 1'),
    ('`movable_pool_take_owner_pages()`, 16 per',
     'movable_pool_take_owner_pages(), 16'),
    ('`trylock_page()`', 'trylock_page() + unlock_page()'),
    ('`spin_lock_irqsave()`', 'spin_lock_irqsave() + unlock'),
)


def balloon_micro(clock):
    """bench/balloon_micro.sh's table for @clock ('icount' or 'host'):
    {label: (with the series, without)}, medians as printed."""
    m = re.search(r'^Linux 7\.\d+, clock: ' + {
        'icount': "QEMU's `-icount", 'host': "the host's clock"}[clock] +
        r'[^\n]*\n\n((?:\|[^\n]*\n)+)', results_md(), re.M)
    if not m:
        sys.exit('make-series: no balloon_micro %s table in '
                 'bench/RESULTS.md' % clock)
    out = {}
    for c in table_rows(m.group(1)):
        for start, label in MICRO_LABELS:
            if c[0].startswith(start):
                out[label] = (c[1].split()[0], c[2].split()[0])
    return out


def micro_lines(icount, host):
    """A line per balloon_micro row: after, before; after, before."""
    out = []
    for _, label in MICRO_LABELS:
        if label in icount:
            a, b = icount[label]
            ha, hb = host.get(label, ('-', '-'))
            out.append('  %-36s %6s %6s  %6s %6s' % (label + ':', a,
                                                      b.replace('-', 'n/a'),
                                                      ha,
                                                      hb.replace('-', 'n/a')))
    return out


BALLOON_INTRO = """\
virtio_balloon against QEMU's virtio-balloon-pci, 1 GiB balloon in 2 GiB
guests, on {kver} from Debian's source and the config `make kernel` uses,
with this series (after) and without it (before), median (min-max) of
both inflations and both deflations of each of 3 runs, in seconds per
GiB from the host's request until the guest reports the size:"""

BALLOON_WHY = """\
Why deflating was slower. virtio_balloon's leak_balloon() dequeued a page
per balloon_page_dequeue() call. On the pool such a call is
movable_pool_take_owner_pages() of one page, which with the library's
earlier core, measured here, took the pool's lock twice with interrupts
off (to take the page out, then to detach it) and the page's lock once,
where mm/balloon.c took one spinlock: {deq_after}
instructions per page against {deq_before} without the series, of which the
page lock is {lock}; and under TCG, which runs interrupt toggling and
atomics slowly, {deq_host_after} ns against {deq_host_before}
(bench/balloon_micro.sh, 65,536 pages, one-vCPU guests; below). Patch 8
makes virtio_balloon ask for its whole batch in one
balloon_page_list_dequeue(), which takes pages out of the pool 16 per
lock round trip: {list_after} instructions per page against {list_before},
{list_host_after} ns against {list_host_before}. What is left is the pool's
per-page bookkeeping. The core in this series takes no page lock and its
pool lock with interrupts on, once per call (an atomic state word per
page); these balloon figures are yet to be measured again with it. A
deflated page costs about
{page_us} us here in all (the host handles each frame, the guest frees
the page), so the balloon's calls are a small part of it. Most of each
balloon call, with the series or without, is adjust_managed_page_count(),
which recomputes every zone's lowmem_reserve for each page.

An earlier version of this letter had deflating 42% slower: it compared
the patched kernel with Debian's image, built with Debian's full config,
while the guests of three other kernels ran beside them. Built alike and
run in turns, the two kernels deflate within each other's range, and they
get the same huge pages while inflated (the 445 against 431 then was the
config)."""


def fill(text):
    """@text's paragraphs, each filled to 72 columns."""
    return '\n\n'.join(textwrap.fill(' '.join(p.split()), 72,
                                     break_on_hyphens=False)
                       for p in text.split('\n\n'))


def balloon_figures():
    """The cover letter's balloon: before and after, and why."""
    kver, rows = balloon_before_after()
    out = [fill(BALLOON_INTRO.format(kver=kver)), '']
    for c in rows:
        if c[0] == 'runs passed':
            continue
        out.append('  %s:' % c[0])
        out.append('    after %s, before %s' % (c[1], c[2]))
    deflate = next(c for c in rows if c[0].startswith('deflate'))
    icount, host = balloon_micro('icount'), balloon_micro('host')
    deq, lst = 'balloon_page_dequeue(), 1 per call', \
        'balloon_page_list_dequeue(), 256'
    out += ['', fill(BALLOON_WHY.format(
        deq_after=icount[deq][0], deq_before=icount[deq][1],
        deq_host_after=host[deq][0], deq_host_before=host[deq][1],
        list_after=icount[lst][0], list_before=icount[lst][1],
        list_host_after=host[lst][0], list_host_before=host[lst][1],
        lock=icount['trylock_page() + unlock_page()'][0],
        page_us='%.0f' % (float(deflate[1].split()[0]) / 262144 * 1e6))),
        '', 'Per page, after and before: instructions (QEMU\'s -icount, '
        'whatever the\nhost\'s load), then ns under TCG (the host\'s clock), '
        'medians:', '']
    out += micro_lines(icount, host)
    return '\n'.join(out)


def virtio_list_figures():
    """Patch 8's figures: a page dequeued one per call and 256 per call."""
    icount, host = balloon_micro('icount'), balloon_micro('host')
    keep = ('balloon_page_dequeue(), 1 per call',
            'balloon_page_list_dequeue(), 256')
    return ('With the series and without it, per page: instructions '
            '(QEMU\'s -icount),\nthen ns under TCG, in one-vCPU guests '
            '(bench/balloon_micro.sh, 65,536\npages, medians in '
            'bench/RESULTS.md):\n\n' + '\n'.join(
                micro_lines({k: v for k, v in icount.items() if k in keep},
                            {k: v for k, v in host.items() if k in keep})))


def maintainers(tree, patches):
    """The Cc list scripts/get_maintainer.pl gives for the series."""
    run = subprocess.run(['perl', 'scripts/get_maintainer.pl', '--no-git',
                          '--no-git-fallback', '--no-rolestats'] + patches,
                         cwd=tree, capture_output=True, text=True)
    if run.returncode:
        sys.exit('make-series: get_maintainer.pl failed: ' + run.stderr)
    return [l for l in run.stdout.splitlines() if l.strip()]


def cover_letter(n, cc):
    figures = bench_rows()
    kinds = ('anon LRU', 'hand-rolled movable_ops', 'movable_pool',
             'unmovable')
    # the kernels where a module can still hand-roll movable pages
    hand = [r for r in figures if kinds[1] in r['huge']]
    if not hand:
        sys.exit('make-series: no hand-rolled row in bench/RESULTS.md')
    table = '\n'.join(
        f"  {r['kver']:5} {r['none']:>4}  {r['limit']:>5}  "
        f"{r['huge'][kinds[0]]:>4}  {r['huge'][kinds[1]]:>10}  "
        f"{r['huge'][kinds[2]]:>12}  {r['huge'][kinds[3]]:>9}" for r in hand)
    boots = '/'.join(sorted({r['boots'] for r in hand}))
    return f'''Subject: [PATCH 0/{n}] mm: movable_pool, driver pages that compaction can move

Drivers that keep many order-0 pages for a long time (GPU buffer objects,
compressed pools, firmware scratch) scatter unmovable pages across memory,
and one such page in a pageblock is enough to deny compaction a huge page,
a CMA allocation or an offlinable block. Since 6.17 only two page types can
be movable (balloon and zsmalloc pages, registered with set_movable_ops()),
so a driver outside mm/ has no way to make its pages movable at all.

This series adds movable_pool, the library Gioh Kim's 2015 "Making kernel
pages movable" asked for. A driver supplies one routine that copies a page
and repoints its own references; the library owns the rest: the page type
and movable_ops registration, isolate/putback/migrate and their locking,
pinning (a page a device is using never moves), user mappings through the
pool's address_space (zapped before a page moves), teardown against
concurrent compaction, statistics and trace events. It allocates nothing
per page: what it knows of a page lives in the page's own struct page.

Patch 1 adds PGTY_movable_pool and teaches set_movable_ops() and
page_movable_ops() about it. Patch 2 adds the library and its
documentation. Patch 3 adds KUnit suites that drive the real migration
core: isolate_movable_ops_page(), migrate_pages(), putback_movable_pages()
and alloc_contig_range() on pageblocks they fragment themselves, pins
racing migration on two CPUs, and destroy racing the VM. Patch 4 moves
the memory balloon (mm/balloon.c) onto the library, so the kernel's other
user of driver-page migration shares its code: the balloon's own isolate,
putback and migrate code goes, and its drivers (virtio_balloon,
vmw_balloon, cmm) build unchanged; it keeps upstream's BUG() for a
driver that dequeues pages it lost. Patch 5 makes virtio_balloon stop
waiting for such pages (its removal would otherwise rely on the BUG()),
patch 6 turns the BUG() into a warning, and patch 7 counts a page before
the pool publishes it and gives a refused page back to the driver
(balloon_page_enqueue() returns bool; its three callers are updated).
Patch 8 makes virtio_balloon deflate a list of pages per call, which
takes them out of the pool a batch at a time. Patch 9 adds KUnit tests
for the balloon.

The same sources build out of tree for 5.10 (address_space_operations),
and 6.1 and 6.12 (struct movable_operations in ->mapping); this series is
generated from them. Measured there (qemu guests, 1 GiB, 40% of memory
held with random holes, huge pages obtained after compact_memory, median
of {boots} boots; "limit" is what perfect packing of the held memory allows):

  linux none  limit  anon  hand-rolled  movable_pool  unmovable
{table}

so pool pages cost compaction what anonymous memory does, against a
third of the huge pages for the same memory held unmovable.

{bench72_figures(figures)}
What a pool page keeps, given where movable_ops pages are going. The
6.17 rework of movable_ops migration said such pages "will not have
->mapping, ->lru, and likely no refcount and no page lock. But they will
have a type and flags" (David Hildenbrand, cover letter of "mm/migration:
rework movable_ops page migration (part 1)", v2, July 2025).
The library takes no page lock of its own: a pool page's state is an
atomic word in __folio_index, and its KUnit suites migrate with and
without the core's page lock around the callbacks. A pool page uses the
words zsmalloc's struct zpdesc (mm/zpdesc.h) uses, one for one: flags
(PG_movable_ops), page_type (the library's type), ->lru (the pool's list
while the page is not isolated; the core's own list while it is, as
include/linux/migrate.h still requires), the word at ->mapping (the
pool's address_space, which only the library and dump_page() read; the
core finds the ops by the type), __folio_index, private (the driver's
cookie) and the refcount the core takes and drops. So a memdesc for pool
pages is zpdesc's shape; where the core stops using ->lru or the
refcount, the library follows it as zsmalloc will. This series does not
stop the core taking the page lock for these pages: the core sets
PG_movable_ops_isolated under it, and zsmalloc's migration relies on it
(mm/zpdesc.h); dropping it is a change to every movable_ops type at
once, which the library is ready for.

Tested with the KUnit suites on UML (2 CPUs, KASAN, lockdep, DEBUG_VM),
and booted: Debian's 7.2 source and config with this series, in qemu, ran
a sample GPU-like driver (every byte checked while its pages migrate,
offlining, a fuzzer, a 4-CPU stress) and the in-tree virtio_balloon
against QEMU's device, every frame it told the host checked. Each patch
builds on its own.

Cc list (scripts/get_maintainer.pl --no-git --no-rolestats):
{chr(10).join('Cc: ' + c for c in cc)}

'''


MESSAGES = [
    ('mm: add a page type for movable_pool pages', '''\
Since 6.17 the migration core finds the movable_operations of a page
through its type, and accepts only balloon (PGTY_offline) and zsmalloc
pages. Add PGTY_movable_pool for the pages of the movable_pool library
that follows, so drivers can make the pages they allocate movable:
page_has_movable_ops() and page_movable_ops() learn the type, and
set_movable_ops() accepts it. Name it in dump_page() as well.
'''),
    ('mm: add movable_pool, a library that makes driver pages movable', '''\
A driver that keeps many order-0 pages for a long time blocks compaction,
CMA and memory offlining unless the VM can migrate those pages, and only
the driver knows who points at them. movable_pool lets the driver supply
one copy-and-fixup routine and handles the rest: PGTY_movable_pool and its
movable_operations, isolation, migration and putback with their locking,
pinning, user mappings through a per-pool address_space, teardown while
the VM holds pages isolated, debugfs statistics and trace events.

Nothing is allocated per page; the page's own struct page holds the pool
(->mapping, the pool's address_space), the driver's owner cookie
(->private), index, pin count and state (->index) and the pool's list
(->lru, while not isolated). See Documentation/core-api/movable_pool.rst.

A pool may keep PageOffline() pages instead (MOVABLE_POOL_OFFLINE_PAGES),
for balloons: kdump, /proc/kcore and memory offlining tell inflated pages
by that type. The library then registers its movable_operations for
PGTY_offline as well, and tells its pages from other PageOffline() users
by PG_movable_ops and the pool's pseudo-fs behind ->mapping. Until the
balloon moves onto the library (patch 4), the balloon holds PGTY_offline
and such pools are refused with -EOPNOTSUPP.
'''),
    ('mm: movable_pool: add KUnit suites', '''\
One suite per topic (movable_pool_alloc, _layout, _pins, _migration,
_bulk, _take, _adopt, _offline, _destroy, _user_mapping, _fault_injection,
_concurrency and _bench), sharing the test driver in movable_pool_kunit.c.
The cases call the migration core directly (isolate_movable_ops_page(),
migrate_pages(), putback_movable_pages(), alloc_contig_range() on a
pageblock the test fragments with random holes), so the option is bool
and needs KUNIT=y.
A case that provokes a misuse warning asserts the count the pool keeps of
them. Run with two CPUs, pin/unpin and migration race for real:
tools/testing/kunit/kunit.py run --kconfig_add CONFIG_SMP=y
--kernel_args ncpus=2 with mm/.kunitconfig-style options MOVABLE_POOL=y,
MOVABLE_POOL_KUNIT_TEST=y, COMPACTION=y, CMA=y, DEBUG_FS=y.
'''),
    ('mm: balloon: keep inflated pages in a movable_pool', '''\
The balloon had its own isolate, putback and migrate callbacks, page list,
lock and teardown rules: what movable_pool does for every driver. Keep
inflated pages in a movable_pool instead; the balloon keeps only what is
its own: having the host swap pages through the device's migratepage, and
its accounting.

One pool for all devices, created at boot, with each page's owner cookie
its device: balloon_devinfo_init() is a static inline void and no driver
calls a teardown, so a pool per device would change every driver's probe
and remove (and their error paths) to create and destroy it. No
hypervisor offers two balloon devices today, but the balloon supports
several, and a device must never dequeue another's page (it would tell
its host of a frame that host never took): dequeue takes pages with
movable_pool_take_owner_pages(), which passes over other owners' pages.

What stays as it was:
- The API drivers call, with its signatures: virtio_balloon, vmw_balloon
  and cmm build unchanged. struct balloon_dev_info's isolated_pages,
  which only mm/balloon.c read, becomes inflated, the count of the
  device's pages in the balloon, isolated or not (balloon_page_count()):
  the pool lists every device's pages, so "the device's list is empty
  and none are isolated" is "the count is zero" now.
- The BUG() when a driver dequeues from a device with no pages left,
  with upstream's comment: patches 5 and 6 deal with it.
- Inflated pages are PageOffline() until freed (the pool has
  MOVABLE_POOL_OFFLINE_PAGES; movable_pool, not the balloon, registers
  the PGTY_offline movable_operations now) and allocated with
  GFP_HIGHUSER_MOVABLE. page->lru is the driver's until enqueue and again
  after dequeue. vmw_balloon may enqueue again what its host refused to
  take back: movable_pool_add_page() accepts a page taken from the pool.
- BALLOON_INFLATE, BALLOON_DEFLATE and BALLOON_MIGRATE, NR_BALLOON_PAGES
  and adjust_managed_page_count(), with its fixup when a page moves to
  another zone.
- migratepage's -ENOENT (vmw_balloon: the host gave the old page back but
  did not take the new one) becomes MOVABLE_POOL_MIGRATE_DROP: the old
  page leaves the balloon and is freed, the new one is not used, and the
  VM sees success.
- Without BALLOON_MIGRATION nothing moves, and the kernel may lack
  MIGRATION, which movable_pool needs: each device lists its pages under
  a lock as before. BALLOON_MIGRATION selects MOVABLE_POOL.

What changes:
- NR_BALLOON_PAGES followed neither a page dropped on -ENOENT nor a page
  that moved to another node; it does now.
- Enqueueing runs in process context, preemptible (the pool's lock is
  never taken in interrupts); every caller is. Dequeueing may return
  fewer pages than requested while pages are isolated, as it did.
- The pool is created by a subsys_initcall_sync(), after movable_pool's
  subsys_initcall() and before any balloon driver's initcall.
- The balloon's statistics are in
  /sys/kernel/debug/movable_pool/balloon-<id>/stats.
'''),
    ('virtio_balloon: stop waiting for pages the balloon lost', '''\
remove_common() and freezing deflate until vb->num_pages is zero, and
the update worker requeues itself until the balloon has its target size.
A page the driver counts but the balloon no longer has (a bug: a page
that left through migration without the driver noticing, or one never
enqueued) is never dequeued, so until now balloon_page_dequeue()'s
BUG() was all that kept them from looping for ever, which is why
upstream kept the BUG().

balloon_page_count() (patch 4) says how many pages the device has in the
balloon, isolated ones included. leak_balloon() asks it before each
dequeue: pages it counts while the balloon holds none for the device are
lost. It says so once, with their number, and stops counting them, so
removal, freezing and the worker end; the host keeps those frames, which
the guest never uses again. While the balloon has pages, a dequeue that
returns nothing still means pages being migrated, and the callers retry
as before. The driver no longer dequeues from an empty balloon at all.
'''),
    ('mm: balloon: warn instead of BUG() when a driver lost pages', '''\
A driver that dequeues from a device with no pages left in the balloon
has lost count of some. Upstream BUG()s, so that a driver deflating until
its own count reaches zero does not loop for ever. No in-tree driver
needs that now: virtio_balloon stops counting lost pages (patch 5), cmm
stops when a dequeue returns nothing, and vmw_balloon uses the list
interface, which never BUG()ed. Warn once and return NULL instead, as
for pages being migrated; the count is per device, so one device's
lost pages are caught while another has pages.
'''),
    ('mm: balloon: count a page before the pool has it, give refused ones back', '''\
Two problems with balloon_page_enqueue() on movable_pool (patch 4):

- It counted a page (managed pages, NR_BALLOON_PAGES, BALLOON_INFLATE)
  after movable_pool_add_page() had published it. From that moment the
  page may be migrated, or given back by ->migratepage's -ENOENT and
  freed (vmw_balloon's routine runs while it inflates), so the count
  could touch a page that moved or was freed. Count it first, and undo
  the count for a page the pool refuses; the device's count
  (balloon_page_count()) goes up first too, so a racing -ENOENT never
  takes it below zero.
- movable_pool_add_page() can refuse a page (one that is not a plain
  order-0 page, with a warning; or a pool being destroyed), and
  balloon_page_enqueue() returned nothing: the driver told its host of a
  page that was in no balloon, and balloon_page_list_enqueue() dropped it
  from the list. balloon_page_enqueue() returns false for it now, and
  balloon_page_list_enqueue() leaves such pages on the list, counted
  nowhere, still the driver's.

The callers: virtio_balloon frees a refused page instead of telling the
host of it; cmm gives it back to the hypervisor's view (active) and frees
it; vmw_balloon enqueues after the host took the pages, so it never frees
a refused page and stops counting it in the balloon's size, as it does
for pages it lost. Only a driver bug causes a refusal today.
'''),
    ('virtio_balloon: deflate with balloon_page_list_dequeue()', '''\
leak_balloon() dequeued one page per balloon_page_dequeue() call, up to
256 a time, and each call is a round trip of the pool's lock. With the
library's earlier core, which also took each page's lock and the pool's
lock with interrupts off, a page's dequeue took over twice as long under
TCG as without the series. balloon_page_list_dequeue() takes the pages
out of the pool 16 per lock round trip (BALLOON_TAKE_BATCH), so ask it
for the whole batch at once. As before, it may return fewer pages than
asked for while pages are being migrated; when it does and the balloon
has none left for the device, the rest are lost (patch 5).

FIGURES

Deflating with virtio_balloon before and after is in the cover letter.
'''),
    ('mm: balloon: add KUnit tests', '''\
A fake device inflates and deflates the balloon. The tests check the
balloon's accounting (vm events, NR_BALLOON_PAGES, managed pages),
PageOffline() on every inflated page until it is freed, enqueueing pages
again after a dequeue (vmw_balloon), and, with BALLOON_MIGRATION,
migration of inflated pages through the device's migratepage
(isolate_movable_ops_page() and migrate_pages(), as compaction calls
them), migratepage's -ENOENT and -EAGAIN, dequeueing everything while the
VM holds a page, and two devices that never get each other's pages. A
dequeue from an empty balloon warns once and returns NULL, also while
another device has pages, and a removal that deflates until the driver's
own count reaches zero ends when the balloon lost a page of it. A page
the pool refuses is given back, counted nowhere, and every page is
counted before a migration racing its enqueue on another CPU sees it.
The warnings the tests cause on purpose are suppressed and counted
(kunit_warning_suppress()).
'''),
]


def git(cwd, *args, env=None):
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run(['git', *args], cwd=cwd, check=True, env=e,
                          stdout=subprocess.PIPE, text=True).stdout


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tree, out = sys.argv[1], os.path.abspath(sys.argv[2])
    major, minor = (sys.argv[3] if len(sys.argv) > 3 else '7.2').split('.')[:2]
    code = kv(major, minor, 0)
    author = git(REPO, 'log', '-1', '--format=%an <%ae>', '--',
                 'lib/movable_pool.c').strip()
    name, email = re.match(r'(.*) <(.*)>', author).groups()
    ident = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': email,
             'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': email,
             'GIT_AUTHOR_DATE': DATE, 'GIT_COMMITTER_DATE': DATE}

    p1 = page_type(tree)
    p2 = library(tree, code, author)
    p3 = kunit(p2['mm/Kconfig'], p2['mm/Makefile'])
    p4 = balloon(tree, p3['mm/Kconfig'], p1['mm/migrate.c'])
    p5 = virtio_lost(tree)
    p6 = balloon_files('warn')
    p7 = balloon_files('enqueue')
    p7.update(enqueue_callers(tree, p5))
    p8 = virtio_list(tree, p7)
    p9 = balloon_kunit(p4['mm/Kconfig'], p3['mm/Makefile'],
                       p2['MAINTAINERS'])
    patches = [p1, p2, p3, p4, p5, p6, p7, p8, p9]

    with tempfile.TemporaryDirectory() as work:
        git(work, 'init', '-q')
        git(work, 'config', 'core.autocrlf', 'false')
        base = sorted({f for p in patches for f in p})
        for f in base:
            src = os.path.join(tree, f)
            if os.path.exists(src):
                write(os.path.join(work, f), read(src))
        git(work, 'add', '-A')
        git(work, 'commit', '-q', '-m', 'base', env=ident)
        messages = [(subject, body.replace('FIGURES\n', virtio_list_figures() + '\n'))
                    for subject, body in MESSAGES]
        for files, (subject, body) in zip(patches, messages):
            for f, text in files.items():
                write(os.path.join(work, f), text)
            git(work, 'add', '-A')
            msg = f'{subject}\n\n{body}\nSigned-off-by: {author}\n'
            git(work, 'commit', '-q', '-m', msg, env=ident)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        git(work, 'format-patch', '-q', '--cover-letter', '--no-signature',
            '--zero-commit', '-o', out, 'HEAD~%d' % len(patches), env=ident)

    cover = os.path.join(out, '0000-cover-letter.patch')
    cc = maintainers(tree, sorted(os.path.join(out, f) for f in os.listdir(out)
                                  if f != '0000-cover-letter.patch'))
    text = read(cover)
    head, rest = text.split('Subject: ', 1)
    rest = rest.split('\n*** BLURB HERE ***\n', 1)[1]
    write(cover, head + cover_letter(len(patches), cc) + rest.lstrip('\n'))
    print(out)


if __name__ == '__main__':
    main()
