/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of movable_pool. Pools are named by the id that also ends
 * their debugfs directory name ("<name>-<id>").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM movable_pool

#if !defined(_TRACE_MOVABLE_POOL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MOVABLE_POOL_H

#include <linux/tracepoint.h>

TRACE_EVENT(movable_pool_isolate,

	TP_PROTO(unsigned int pool, unsigned long pfn, int result),

	TP_ARGS(pool, pfn, result),

	TP_STRUCT__entry(
		__field(unsigned int, pool)
		__field(unsigned long, pfn)
		__field(int, result)
	),

	TP_fast_assign(
		__entry->pool = pool;
		__entry->pfn = pfn;
		__entry->result = result;
	),

	TP_printk("pool=%u pfn=0x%lx result=%d (%s)",
		  __entry->pool, __entry->pfn, __entry->result,
		  __entry->result == 0 ? "isolated" :
		  __entry->result == -EBUSY ? "pinned" :
		  __entry->result == -EPERM ? "mapped outside the pool" :
		  "pool dying")
);

TRACE_EVENT(movable_pool_migrate,

	TP_PROTO(unsigned int pool, unsigned long src_pfn,
		 unsigned long dst_pfn, int mode, int rc),

	TP_ARGS(pool, src_pfn, dst_pfn, mode, rc),

	TP_STRUCT__entry(
		__field(unsigned int, pool)
		__field(unsigned long, src_pfn)
		__field(unsigned long, dst_pfn)
		__field(int, mode)
		__field(int, rc)
	),

	TP_fast_assign(
		__entry->pool = pool;
		__entry->src_pfn = src_pfn;
		__entry->dst_pfn = dst_pfn;
		__entry->mode = mode;
		__entry->rc = rc;
	),

	TP_printk("pool=%u src_pfn=0x%lx dst_pfn=0x%lx mode=%d rc=%d",
		  __entry->pool, __entry->src_pfn, __entry->dst_pfn,
		  __entry->mode, __entry->rc)
);

DECLARE_EVENT_CLASS(movable_pool_page,

	TP_PROTO(unsigned int pool, unsigned long pfn),

	TP_ARGS(pool, pfn),

	TP_STRUCT__entry(
		__field(unsigned int, pool)
		__field(unsigned long, pfn)
	),

	TP_fast_assign(
		__entry->pool = pool;
		__entry->pfn = pfn;
	),

	TP_printk("pool=%u pfn=0x%lx", __entry->pool, __entry->pfn)
);

/* The VM gave an isolated page back without migrating it. */
DEFINE_EVENT(movable_pool_page, movable_pool_putback,
	TP_PROTO(unsigned int pool, unsigned long pfn),
	TP_ARGS(pool, pfn)
);

/* movable_pool_pin() found the page being migrated and said -EAGAIN. */
DEFINE_EVENT(movable_pool_page, movable_pool_pin_busy,
	TP_PROTO(unsigned int pool, unsigned long pfn),
	TP_ARGS(pool, pfn)
);

/*
 * A driver misused the API (the kernel warned once per kind of misuse, this
 * fires every time). @pool is 0 when the call named no pool, @site the
 * library's check that caught it.
 */
TRACE_EVENT(movable_pool_misuse,

	TP_PROTO(unsigned int pool, unsigned long site),

	TP_ARGS(pool, site),

	TP_STRUCT__entry(
		__field(unsigned int, pool)
		__field(unsigned long, site)
	),

	TP_fast_assign(
		__entry->pool = pool;
		__entry->site = site;
	),

	TP_printk("pool=%u site=%pS", __entry->pool, (void *)__entry->site)
);

#endif /* _TRACE_MOVABLE_POOL_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
