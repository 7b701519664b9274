/*
 * Threads: how many a call gets, and starting them. No state outlives a call:
 * the threads of a call are started once per threaded run (not per block; the
 * driver hands out blocks from a shared counter) and joined before it
 * returns, so there is no pool to make fork-safe or to tear down at exit.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "library.h"

#include <pthread.h>
#ifdef __linux__
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14's value; headers before glibc 2.35 lack it */
#endif
#endif
#ifdef _WIN32
#include <windows.h>
#else
#include <unistd.h>
#endif

int sf_available_cpus(void) {
#ifdef __linux__
    /* The CPUs this process may run on (its affinity mask, as os.sched_getaffinity
     * tells), not all the machine has: a container or taskset may allow fewer. */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int c = CPU_COUNT(&set);
        if (c > 0)
            return c;
    }
#endif
#ifdef _WIN32
    const DWORD c = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
#else
    const long c = sysconf(_SC_NPROCESSORS_ONLN);
#endif
    return c > 0 ? (int)c : 1;
}

/* Input bytes each automatic thread gets at least: a call over less than twice
 * this stays on one thread (and makes no syscall). Why 8 MiB: a threaded call
 * pays its second thread's start, a wake-up of an idle CPU and the join, about
 * 25-40 us more than one thread on a 512 Ki uint32 count on the 2-core AMD
 * EPYC (Zen 3) KVM, while data that fits in the last-level cache is read fast
 * enough that halving the work saves less than that. There, one-thread time
 * over two threads' time, uint32, 10/50/90/100% kept, interleaved best of 7:
 *   1 Mi (4 MiB, in L3):  out= 1.01/1.01/0.68/0.84, count 0.64-0.78
 *   2 Mi (8 MiB, in L3):  out= 1.14/1.06/0.86/0.99, count 0.88-1.12
 *   4 Mi (16 MiB):        out= 1.52/1.12/1.11/1.04, count 1.50-1.70
 * and at 16 MiB of other types: u8, u16, u64, f64 out= 0.97-1.86, count
 * 1.70-2.45 (u16 at 90%, whose uint32 positions are twice its bytes, is the
 * 0.97). The rule was 2 MiB until then, from an estimate of 20-30 us per thread
 * start; the 2-core Intel Xeon (Sapphire Rapids class) KVM gave 1.25-1.53x with
 * out= at 4 Mi uint32 (16 MiB), which this rule keeps on two threads; below
 * that it was not measured there. Blocks are claimed dynamically (team.c),
 * so a thread that lands on a busy core costs little: it takes fewer blocks. */
#define AUTO_BYTES_PER_THREAD ((size_t)8 << 20)

/* Of the `cpus` this process may use, at most those that nothing else wants
 * right now: the online CPUs less the tasks runnable at this instant besides
 * the caller (the fourth field of /proc/loadavg, "runnable/total", counts the
 * caller too), at least 1; 0 when the OS does not tell. The runnable tasks are
 * the whole machine's, hence the online count, not ours: a process pinned to 4
 * of 64 CPUs keeps its 4 while 12 tasks run elsewhere. A thread started on a CPU that another process keeps busy
 * gets half of it at best, and the call then waits at its end for the block
 * that thread holds while the OS runs the other process (a scheduler slice,
 * milliseconds); on a machine with more runnable tasks than CPUs, a new thread
 * may not run at all before the caller is done, and the join still waits for
 * it. So automatic threads take only the idle CPUs.
 *
 * One open, read and close, parsed here, and the online count (which reads
 * /sys) only when other tasks run: on the 2-core Intel Xeon (Sapphire Rapids
 * class) KVM with another process spinning on one core, fopen/fscanf plus an
 * unconditional sysconf(_SC_NPROCESSORS_ONLN) cost a 4 Mi uint32
 * count_in_range ~20 us against threads=1, 0.96x its speed. */
static size_t idle_cpus(size_t cpus) {
#ifdef __linux__
    char buf[128];
    const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    const ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return 0;
    buf[got] = 0;
    /* "0.52 0.58 0.59 2/345 12345": the number after the third space */
    const char *p = buf;
    for (int spaces = 0; *p && spaces < 3; p++)
        spaces += *p == ' ';
    size_t runnable = 0;
    for (; *p >= '0' && *p <= '9'; p++)
        runnable = runnable * 10 + (size_t)(*p - '0');
    if (*p != '/' || runnable < 1)
        return 0;
    const size_t others = runnable - 1;
    if (!others)
        return cpus; /* the common case asks /sys nothing */
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const size_t idle = online > 0 && (size_t)online > others + 1 ? (size_t)online - others : 1;
    return idle < cpus ? idle : cpus;
#else
    (void)cpus;
    return 0;
#endif
}

/* Input bytes per automatic thread when the output is fresh (sf_exec.fresh_out).
 * The OS faults in and zeroes its pages at their first write (2 MiB huge pages
 * with NumPy's madvise). The driver populates a fresh output one 2 MiB stretch
 * ahead of its results (fault_ahead in team.c), so that two threads take
 * those faults side by side instead of one waiting for the other's; what two
 * threads still pay is their start and the staging of their blocks' results.
 * Measured with and without the fault-ahead (lib/README.md has the figures
 * and their CPU): a fresh output gets a second thread from 32 MiB of input;
 * an out= output, whose pages are already there, from 16 MiB
 * (AUTO_BYTES_PER_THREAD).
 * Where the OS cannot populate pages on request (Linux before 5.14, other
 * systems), there is no fault-ahead, and the rule measured without it holds:
 * a thread per 64 MiB.
 * The CPython binding marks no output fresh whose worst case is at most 4 MiB
 * (1 Mi uint32 positions): it stages those in a buffer malloc hands back
 * already faulted from a process's second call on, and copies them out
 * (cpython/result.c has the AMD EPYC Zen 4 figures); such inputs are below
 * these thresholds anyway. */
#define AUTO_BYTES_PER_THREAD_FRESH ((size_t)16 << 20)
#define AUTO_BYTES_PER_THREAD_FRESH_UNPOPULATED ((size_t)64 << 20)

/* Whether this OS populates pages on request, as team.c's fault_ahead asks:
 * a zero-length madvise checks the advice and nothing else (0 from Linux 5.14
 * on, EINVAL before). */
static int populate_works(void) {
#ifdef __linux__
    return madvise(NULL, 0, MADV_POPULATE_WRITE) == 0;
#else
    return 0;
#endif
}

static int auto_threads(size_t nbytes, size_t per_thread) {
    const size_t want = nbytes / per_thread;
    if (want <= 1)
        return 1; /* no CPU count needed: the common, small call makes no syscall */
    size_t cpus = (size_t)sf_available_cpus();
    const size_t idle = idle_cpus(cpus);
    if (idle && idle < cpus)
        cpus = idle;
    return (int)(want < cpus ? want : cpus);
}

int sf_auto_threads(size_t nbytes) { return auto_threads(nbytes, AUTO_BYTES_PER_THREAD); }

int sf_auto_threads_fresh(size_t nbytes) {
    if (nbytes / AUTO_BYTES_PER_THREAD_FRESH <= 1)
        return 1; /* the common, small call makes no syscall */
    return auto_threads(nbytes, populate_works() ? AUTO_BYTES_PER_THREAD_FRESH
                                                 : AUTO_BYTES_PER_THREAD_FRESH_UNPOPULATED);
}

typedef struct task_call {
    void (*task)(void *ctx, size_t i);
    void *ctx;
    size_t i;
} task_call;

static void *run_task(void *arg) {
    task_call *c = (task_call *)arg;
    c->task(c->ctx, c->i);
    return NULL;
}

void sf_parallel_for(size_t n, void (*task)(void *ctx, size_t i), void *ctx) {
    task_call calls[SF_MAX_THREADS];
    pthread_t tids[SF_MAX_THREADS];
    int started[SF_MAX_THREADS] = {0};
    /* Parts past SF_MAX_THREADS (callers ask for none) would run here, in turn. */
    const size_t threaded = n < SF_MAX_THREADS ? n : SF_MAX_THREADS;
    for (size_t i = 1; i < threaded; i++) {
        calls[i] = (task_call){task, ctx, i};
        started[i] = pthread_create(&tids[i], NULL, run_task, &calls[i]) == 0;
    }
    for (size_t i = 0; i < n; i++)
        if (i == 0 || i >= threaded || !started[i])
            task(ctx, i); /* part 0, and any part no thread could be had for */
    for (size_t i = 1; i < threaded; i++)
        if (started[i])
            pthread_join(tids[i], NULL);
}

/* sf_team_size (library.h): never more than one thread per
 * SF_MIN_ELEMENTS_PER_THREAD elements. */
int sf_team_size(size_t n, int threads) {
    size_t want = threads > 1 ? (size_t)threads : 1;
    if (want > SF_MAX_THREADS)
        want = SF_MAX_THREADS;
    if (want > n / SF_MIN_ELEMENTS_PER_THREAD)
        want = n / SF_MIN_ELEMENTS_PER_THREAD;
    return want > 1 ? (int)want : 1;
}
