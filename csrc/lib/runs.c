/* Runs and the simplest source: slicing a run into blocks, one run as a source;
 * reading a source run by run, and the cancel poll every path makes. */
#include "library.h"

#include <string.h>

sf_run sf_run_slice(const sf_run *run, size_t start, size_t n) {
    sf_run s = *run;
    if (run->bit_packed)
        s.data_bit = run->data_bit + start;
    else
        s.data = (const char *)run->data + (ptrdiff_t)start * run->stride;
    if (run->null_form == SF_NULLS_BITMAP)
        s.null_bit = run->null_bit + start;
    else if (run->null_form == SF_NULLS_BYTES)
        s.nulls = run->nulls + (ptrdiff_t)start * run->null_stride;
    s.n = n;
    s.base = run->base + start;
    return s;
}

int sf_blocks_next(sf_blocks *b, sf_run *block) {
    if (b->done >= b->run.n)
        return 0;
    const size_t left = b->run.n - b->done;
    *block = sf_run_slice(&b->run, b->done, left < b->len ? left : b->len);
    b->done += block->n;
    return 1;
}

static int run_source_next(sf_source *self, sf_run *run) {
    sf_run_source *s = (sf_run_source *)self;
    if (s->taken)
        return 0;
    s->taken = 1;
    *run = s->run;
    return 1;
}

sf_source *sf_run_source_init(sf_run_source *s, const sf_run *run) {
    s->source.next = run_source_next;
    s->run = *run;
    s->taken = 0;
    return &s->source;
}

sf_run_source *sf_run_source_unread(sf_source *src) {
    sf_run_source *s = (sf_run_source *)src;
    return src->next == run_source_next && !s->taken ? s : NULL;
}

/* sf_next_run (library.h). */
int sf_next_run(sf_source *src, sf_run *run) {
    memset(run, 0, sizeof *run);
    return src->next(src, run);
}

/* sf_cancel_due (library.h). */
int sf_cancel_due(const sf_exec *x, size_t *since_cancel, size_t n) {
    *since_cancel += n;
    if (*since_cancel < SF_CANCEL_BLOCK)
        return 0;
    *since_cancel = 0;
    return x->cancel && x->cancel(x->cancel_ctx);
}
