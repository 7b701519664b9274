/*
 * The crash report of tests/c/test_kernels.c: what is running (kernel, public
 * function, operation, element kind, length, case number), kept in volatile
 * globals the harness sets around every kernel call, and an async-signal-safe
 * handler for SIGSEGV, SIGBUS, SIGILL and SIGFPE that prints it before the
 * signal takes its course. Included by test_kernels.c after test_common.h.
 */

/* What is running, for the crash handler: a guard page turns an overrun into
 * SIGSEGV, and the report must say which kernel, operation and case did it. */
static const char *volatile cur_kernel = "(setup)";
static const char *volatile cur_call = ""; /* a public function around the kernel, if any */
static volatile sig_atomic_t cur_op = -1, cur_elem = -1, cur_case = -1;
static volatile long cur_n = -1;
static struct sigaction old_segv, old_bus, old_ill, old_fpe;

static void put_str(const char *s) {
    size_t len = strlen(s);
    while (len) {
        ssize_t w = write(STDOUT_FILENO, s, len);
        if (w <= 0)
            return;
        s += w;
        len -= (size_t)w;
    }
}

static void put_num(long v) {
    char buf[32];
    int i = (int)sizeof buf;
    unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;
    buf[--i] = '\0';
    do
        buf[--i] = (char)('0' + u % 10);
    while ((u /= 10) && i > 1);
    if (v < 0)
        buf[--i] = '-';
    put_str(buf + i);
}

/* Async-signal-safe: only write(2) and sigaction(2). Reinstating the previous
 * handler and returning re-runs the faulting instruction under it, so the
 * default action (or ASan's report) still happens. */
static void on_crash(int sig) {
    put_str("\nCRASH: signal ");
    put_num(sig);
    put_str(" in kernel ");
    put_str(cur_kernel);
    put_str(cur_call);
    if (cur_op >= 0 && cur_op < SF_OP_COUNT_OF_OPS) {
        put_str(" op ");
        put_str(op_names[cur_op]);
    }
    if (cur_elem >= 0 && cur_elem < SF_ELEM_COUNT) {
        put_str(" elem ");
        put_str(sf_elem_name((sf_elem)cur_elem));
    }
    put_str(" n=");
    put_num(cur_n);
    put_str(" case #");
    put_num(cur_case);
    put_str(" (a read or write past a buffer end hits a PROT_NONE page)\n");
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    sigaction(SIGILL, &old_ill, NULL);
    sigaction(SIGFPE, &old_fpe, NULL);
}

static void install_crash_handler(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGILL, &sa, &old_ill);
    sigaction(SIGFPE, &sa, &old_fpe);
}
