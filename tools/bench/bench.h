/*
 * Copyright (c) 2026 The odma authors. SPDX-License-Identifier: BSD-3-Clause
 */
/*
 * odma-bench internals: one configuration, one set of buffers shared by every engine
 * measured in a run (odma, plain memcpy, the DPDK skeleton peer), and per-engine results.
 */
#ifndef ODMA_BENCH_H_
#define ODMA_BENCH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <doca_argp.h>

enum bench_mode { BENCH_THROUGHPUT, BENCH_LATENCY, BENCH_EVENT };

struct bench_cfg {
	size_t size;       /* bytes per logical copy (--size) */
	uint32_t depth;    /* tasks in flight (--depth) */
	double seconds;    /* measuring time per size, split over the repetitions */
	int reps;          /* repetitions; medians are reported */
	uint32_t list_len; /* elements per source/destination list (--list-len) */
	enum bench_mode mode;
	bool cold, sweep, crossover, comch, rdma, sync_event, json, csv, peer_dpdk, no_pingpong;
	bool xproc, size_given; /* --xproc; --size was given */
	bool ucx;               /* --transport ucx (with --xproc) */
	bool netns;             /* --netns (with --transport ucx): two network namespaces */
	char engine[16];        /* empty: the library default */
	int workers;            /* 0: the library default */
	size_t footprint;       /* --footprint: bytes of source + destination walked (cold) */
	double busy_ns;         /* --busy-threshold: a ping-pong above it warns "busy" */
	const char *plot;       /* --plot FILE.svg: draw the sweep (NULL: no plot) */
};

/* Source and destination regions, each @len bytes, cut into slots of @stride bytes. */
struct bench_mem {
	uint8_t *src, *dst;
	size_t len;
	size_t task_size; /* bytes one task moves (size capped at max_buf_size) */
	size_t stride;    /* task_size rounded up to a cache line */
	size_t n_slots;   /* a multiple of depth: task t uses slots t, t+depth, ... */
};

/* One engine's figures, medians over the repetitions. */
struct bench_result {
	bool valid;
	double tasks_per_sec, bytes_per_sec, seconds;
	uint64_t tasks;
	double p50_ns, p99_ns; /* latency and event modes */
	bool verified;         /* the first slot's bytes matched the source */
	char error[160];       /* why the engine could not run (valid == false) */
};

/* One repetition's raw numbers (an engine fills it). */
struct bench_rep {
	uint64_t tasks;
	double seconds;
	double p50_ns, p99_ns;
	bool verified;
};

/* --- bench_util.c: command-line helpers shared by odma-bench and odma-advise --- */
/* Registers one doca_argp parameter (short name and argument text may be NULL); 0 or -1. */
int bench_add_param(const char *short_name, const char *long_name, const char *args,
                    const char *desc, enum doca_argp_type type, doca_argp_param_cb_t cb,
                    bool mandatory);
/*
 * Handles what doca_argp does not: -h/--help calls @print_help and exits, and a --json
 * not followed by a readable file sets *json (doca_argp's -j/--json takes a file). Stops
 * at "--". Returns the new argc.
 */
int bench_prefilter(int argc, char **argv, void (*print_help)(void), bool *json);
/* Defines a doca_argp BOOLEAN callback that stores the flag into @lvalue. */
#define BENCH_BOOL_CB(name, lvalue)                                                                \
	static doca_error_t name(void *p, void *c)                                                 \
	{                                                                                          \
		(void)c;                                                                           \
		lvalue = *(bool *)p;                                                               \
		return DOCA_SUCCESS;                                                               \
	}

/* --- bench_util.c: clocks, statistics, sizes, CPU facts, baselines --- */
uint64_t bench_now_ns(void);
double bench_median(double *v, int n);
/* The link the network transport runs on in this run, as doca_caps names it: "tcp" or "ucp". */
const char *bench_link(void);
double bench_percentile_u64(uint64_t *v, size_t n, double pct);
int bench_parse_size(const char *s, size_t *out);
void bench_fmt_size(size_t n, char *buf, size_t len);
size_t bench_llc_size(void);
size_t bench_cold_footprint(void);
int bench_pin_self(int cpu);
double bench_pingpong_ns(void);
/*
 * The default --busy-threshold: the same-run ping-pong of an idle machine is about 0.1 us,
 * a busy one's several us (another process on the CPUs the two threads spin on).
 */
#define BENCH_BUSY_NS 1000.0
/* Whether @pingpong_ns is above @threshold_ns; if so, one warning line on stderr. */
bool bench_busy_check(double pingpong_ns, double threshold_ns);
/*
 * All of @n bytes written to (@wr) or read from @fd, a socket (never SIGPIPE) or a pipe: false
 * when it ended or failed first.
 */
bool bench_full_io(int fd, void *p, size_t n, bool wr);
/* Opens the device at PCI address @pci ("b1:00.0", "03:00.0"), or NULL. */
struct doca_dev *bench_open_pci(const char *pci);
double bench_eventfd_pingpong_ns(void);
void bench_memcpy_rep(const struct bench_mem *m, double seconds, struct bench_rep *r);
int bench_engine_threads(void);
void bench_memcpy_mt_rep(const struct bench_mem *m, double seconds, int threads,
                         struct bench_rep *r);
/* Tasks from this size on also get the streaming baseline (throughput mode). */
#define BENCH_STREAM_MIN (64u << 10)

/* The same with streaming stores (the limit for copies that miss the cache). */
void bench_stream_mt_rep(const struct bench_mem *m, double seconds, int threads,
                         struct bench_rep *r);
double bench_memcpy_oneshot_ns(const struct bench_mem *m, size_t size);
void bench_slot_clear(const struct bench_mem *m);
bool bench_slot_check(const struct bench_mem *m);
int bench_mem_prepare(struct bench_mem *m, const struct bench_cfg *c, size_t max_task_size);
void bench_mem_layout(struct bench_mem *m, const struct bench_cfg *c, size_t size,
                      size_t max_buf_size);
void bench_mem_free(struct bench_mem *m);

/* --- bench_odma.c: the DOCA DMA task API, end to end --- */
struct bench_odma;
int bench_odma_open(struct bench_odma **ob, const struct bench_mem *m, char *err, size_t errlen);
uint64_t bench_odma_max_buf_size(const struct bench_odma *ob);
uint32_t bench_odma_max_list_len(const struct bench_odma *ob);
int bench_odma_rep(struct bench_odma *ob, const struct bench_cfg *c, const struct bench_mem *m,
                   double seconds, struct bench_rep *r, char *err, size_t errlen);
void bench_odma_close(struct bench_odma *ob);
uint64_t bench_odma_probe_max_buf_size(void);
uint64_t bench_odma_probe(uint32_t *max_list_len);

/* --- bench_harness.c: the odma loop's bookkeeping alone (throughput mode) --- */
void bench_harness_rep(const struct bench_cfg *c, const struct bench_mem *m, double seconds,
                       struct bench_rep *r);

/* --- bench_cross.c: the one-shot crossover between a DMA task and memcpy --- */
#define BENCH_CROSS_MAX 16
#define BENCH_CROSS_SLACK 1.10 /* "no longer more expensive": within 10 % of memcpy */
/*
 * The crossover odma advise uses when it measures nothing: `odma bench --crossover` on the
 * reference machine (docs/performance.md, "Crossover for odma advise"). The one place the
 * number lives; `odma advise --measure` measures it on this machine instead.
 */
#define BENCH_CROSS_DEFAULT (1024u * 1024u)
struct bench_cross {
	int n;
	size_t size[BENCH_CROSS_MAX];
	double dma_p50_ns[BENCH_CROSS_MAX], memcpy_p50_ns[BENCH_CROSS_MAX];
	size_t crossover; /* 0: DMA never caught up within the sizes tried */
};
int bench_crossover(double seconds_per_size, struct bench_cross *x, char *err, size_t errlen);

/* --- bench_comch.c: DOCA Comch between two processes, with same-run baselines --- */
#define BENCH_COMCH_SIZE_MAX (256u << 20) /* --comch's --size at most */
struct bench_comch {
	bool valid;
	bool netns;         /* the host side across a veth pair (--netns): Comch over the network */
	size_t size;        /* fast-path, process_vm_writev and DMA bytes per operation */
	double msg_rtt_ns;  /* Comch control path, 64-byte ping-pong round trip */
	double msg_per_sec; /* Comch control path, one-way stream of 64-byte messages */
	double raw_rtt_ns;  /* the same on a raw SOCK_SEQPACKET socketpair (--netns: raw TCP) */
	double raw_msg_per_sec;
	double fp_bytes_per_sec; /* Comch fast path: producer sends into posted buffers, delivered
	                          */
	double vm_writev_bytes_per_sec; /* raw process_vm_writev into the other process (0: netns)
	                                 */
	double raw_tcp_bytes_per_sec;   /* --netns: a TCP stream of SIZE messages into as many slots
	                                 */
	double dma_bytes_per_sec; /* DMA tasks into a buffer the other process exported (0: n/a) */
};
/*
 * Forks the host-side process (a private ODMA_RUNDIR), measures for about @seconds. With
 * @netns (root) as bench_rdma_run: call it from a process of its own. 0 or -1 (@err says why).
 */
int bench_comch_run(size_t size, double seconds, bool netns, struct bench_comch *out, char *err,
                    size_t errlen);

/* --- bench_rdma.c: DOCA RDMA between two processes, with raw TCP of the same run --- */
struct bench_rdma {
	size_t size;                  /* bytes per read and write, and per raw TCP message */
	unsigned int depth;           /* tasks (raw operations, TCP messages) in flight */
	double read_bytes_per_sec;    /* 8 reads in flight */
	double write_bytes_per_sec;   /* 8 writes in flight */
	size_t send_msg_size;         /* min(size, 64 KiB) */
	double send_msgs_per_sec;     /* 8 sends in flight into posted receives */
	double raw_tcp_bytes_per_sec; /* TCP to the responder, 8 messages unacked, one hot buffer */
	double raw_tcp_slots_bytes_per_sec; /* the same from the 8 slots into one sink buffer */
	int reps;                     /* repetitions, interleaved; every figure is their median */
	bool netns;                   /* the responder across a veth pair (--netns) */
	bool raw_ucx;                 /* the raw UCX rows below were measured (UCX built in) */
	double ucx_get_bytes_per_sec; /* ucp_get_nbx, 8 in flight, UCX_TLS=tcp, same slots */
	double ucx_put_bytes_per_sec; /* ucp_put_nbx, 8 in flight, flushed */
	double ucx_am_msgs_per_sec;   /* ucp_am_send_nbx of send_msg_size bytes, 8 in flight */
};
/*
 * Forks the responder, measures with @depth in flight (1..64) in @reps interleaved repetitions
 * (each of the eight figures for @seconds / 4 / @reps in each, medians reported). With
 * @netns (root) this process first moves into a network namespace of its own and the responder
 * into others, joined by a veth pair (bench_netns.c): call it from a process of its own. 0 or -1
 * (@err says why).
 */
#define BENCH_RDMA_SIZE_MAX (64u << 20) /* --rdma's --size at most */
#define BENCH_RDMA_DEPTH_MAX 64         /* and its --depth */
int bench_rdma_run(size_t size, unsigned int depth, double seconds, int reps, bool netns,
                   struct bench_rdma *out, char *err, size_t errlen);

/* --- bench_se.c: a DOCA sync event between two processes over the network transport --- */
#define BENCH_SE_REPS 5
struct bench_se {
	double roundtrip_ns; /* a round: set here, the responder's wait wakes, it sets, ours wakes
	                      */
	uint64_t rounds;     /* rounds measured in all */
	double late_wake_ns; /* an update made 20 ms after the wait began: until the wait returned
	                      */
	double ucx_rtt_ns;   /* a raw UCX get of 8 bytes, one in flight (0: UCX not built in) */
	double pingpong_ns;  /* two threads of this process spinning on one atomic */
	bool netns;          /* the responder across a veth pair (--netns) */
};
/*
 * Forks the responder (with @netns, as bench_rdma_run: call it from a process of its own) and
 * measures for about @seconds. 0 or -1 (@err says why).
 */
int bench_se_run(double seconds, bool netns, struct bench_se *out, char *err, size_t errlen);

/* --- bench_dpdk.c / bench_nodpdk.c: DPDK dmadev with the dma_skeleton driver --- */
bool bench_dpdk_available(void);
void bench_dpdk_set_eal_args(int argc, char **argv);
int bench_dpdk_init(char *err, size_t errlen);
int bench_dpdk_rep(const struct bench_cfg *c, const struct bench_mem *m, double seconds,
                   struct bench_rep *r, char *err, size_t errlen);
void bench_dpdk_fini(void);

/* --- bench_xproc.c: cross-process reads, importer and exporter as two processes --- */
int bench_xproc_run(const struct bench_cfg *c, bool size_given);

/*
 * --- bench_netns.c: --netns, the two sides of --xproc --transport ucx in two network
 * namespaces joined by a veth pair (the exporter also in its own PID namespace) ---
 * enter: this process moves into a new network namespace and makes the pair (needs root;
 * -1 with @err set); child: in the forked exporter, before anything else (the process
 * that returns is the exporter, PID 1 of a new PID namespace); give: the importer's side
 * of the hand-over after the fork; close: deletes the pair.
 */
int bench_netns_enter(char *err, size_t errlen);
void bench_netns_child(int fd);
int bench_netns_give(pid_t child, int fd, char *err, size_t errlen);
void bench_netns_close(void);
/* The exporter's address on the veth pair (dotted IPv4). */
const char *bench_netns_peer(void);
/*
 * Forks a responder joined by a socketpair (*@ctl, this side's end): with @netns, across the
 * pair of namespaces (enter, child, give above); in the child, child(its end, @arg) is the exit
 * status, with an alarm of @alarm_s seconds. Its pid, or -1 with @err set.
 */
pid_t bench_responder_fork(bool netns, unsigned int alarm_s, int (*child)(int ctl, void *arg),
                           void *arg, int *ctl, char *err, size_t errlen);

/*
 * --- bench_tcp.c: the raw TCP baseline of the network rows ---
 * sink_start: a listener on @addr (dotted IPv4; port 0: one the kernel picks, in *@port) whose
 * thread serves each stream until the process ends (0, or -1); stream: connects to it and moves
 * @size-byte messages, @depth unacknowledged, for @seconds, message n sent from slot n %
 * @src_slots of the source's buffer into slot n % @dst_slots of the sink's (1 and 1: one hot
 * buffer each side; at most 256 MiB of slots a side, fewer slots past it): bytes per second
 * (-1 on failure).
 */
int bench_tcp_sink_start(const char *addr, uint16_t *port);
double bench_tcp_stream(const char *addr, uint16_t port, size_t size, unsigned int depth,
                        unsigned int src_slots, unsigned int dst_slots, double seconds);

/*
 * --- bench_ucx.c (bench_noucx.c without UCX): the raw UCX baseline of --transport ucx ---
 * export: in the exporter, maps @buf for RMA and sends {address length, rkey length, buffer
 * address}, the worker address and the rkey over @fd, then serves from a thread; 0 or -1.
 * import: reads that and connects; NULL on failure. rep: DEPTH ucp_get_nbx (@write:
 * ucp_put_nbx) in flight over slots of @size bytes for @seconds; 0 or -1.
 */
struct bench_ucx;
int bench_ucx_export(int fd, void *buf, size_t len);
struct bench_ucx *bench_ucx_import(int fd);
int bench_ucx_rep(struct bench_ucx *u, uint8_t *local, uint64_t remote, size_t size, uint32_t depth,
                  double seconds, bool write, struct bench_rep *r);
void bench_ucx_close(struct bench_ucx *u);
/*
 * rep_op: the same with @op (get, put, or an eager active message of @size bytes into the
 * exporter's sink), slot i at @remote + i * @remote_stride; puts and messages count once an
 * endpoint flush inside the timed window returned. remote_base: the exporter's buffer address.
 */
enum bench_ucx_op { BENCH_UCX_GET, BENCH_UCX_PUT, BENCH_UCX_AM };
int bench_ucx_rep_op(struct bench_ucx *u, enum bench_ucx_op op, uint8_t *local, uint64_t remote,
                     uint64_t remote_stride, size_t size, uint32_t depth, double seconds,
                     struct bench_rep *r);
uint64_t bench_ucx_remote_base(const struct bench_ucx *u);

/* --- bench_plot.c: --plot FILE.svg, the sweep drawn --- */
#define BENCH_PLOT_MAX 16 /* sizes */
struct bench_plot_series {
	char name[48];
	bool dashed;              /* a baseline rather than odma */
	bool has[BENCH_PLOT_MAX]; /* measured at sizes[i] */
	double gbps[BENCH_PLOT_MAX];
};
/*
 * Writes the SVG (size on a log x axis named "@xlabel, bytes (log scale)", GB/s on y, one
 * polyline per series). 0 or -1.
 */
int bench_plot_write(FILE *f, const char *title, const char *xlabel, const char *caption,
                     const size_t *sizes, int n, const struct bench_plot_series *s, int ns);

/* --- bench_progress.c: the live line on a terminal --- */
void bench_progress_start(const char *what, double seconds, double run_seconds);
void bench_progress_tick(uint64_t tasks);
void bench_progress_end(void);

#endif
