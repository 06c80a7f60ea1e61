/* The optimizer's clock and its start-up watch (layout_internal.h): the time budget and the stop
 * request of tsr_layout_optimize, polled by the start-up work between its steps. */
#include "layout/layout_internal.h"

#include "core/ctx.h"

#include <string.h>
#include <time.h>

double tsr__layout_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tsr__watch_init(tsr__watch *w, tsr_ctx *ctx, const tsr_layout_optimize_options *opt, double t0)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->opt = opt;
    w->t0 = t0;
}

/* Asks the progress callback (the options', else the context's) whether to stop. */
static int asks_stop(tsr__watch *w, double elapsed)
{
    const tsr_layout_optimize_options *opt = w->opt;
    if (opt->progress) {
        tsr_layout_progress p;
        memset(&p, 0, sizeof p);
        p.elapsed = elapsed;
        p.time_limit = opt->time_limit;
        p.phase = 0;
        p.chain = -1; /* no chain yet */
        return opt->progress(opt->progress_user, &p) != 0;
    }
    if (!w->ctx->opt.progress) /* tsr__progress would fail the context on a stop */
        return 0;
    return w->ctx->opt.progress(w->ctx->opt.progress_user, "layout", elapsed, opt->time_limit) != 0;
}

tsr__stop tsr__watch_poll(tsr__watch *w)
{
    if (!w || w->stop != TSR__STOP_NONE)
        return w ? w->stop : TSR__STOP_NONE;
    const double elapsed = tsr__layout_now() - w->t0;
    if (w->opt->time_limit > 0 && elapsed >= w->opt->time_limit) {
        w->late = 1;
        if (!w->need_valid)
            return w->stop = TSR__STOP_DEADLINE;
    }
    if (elapsed - w->last_report >= w->opt->progress_interval) {
        w->last_report = elapsed;
        if (asks_stop(w, elapsed))
            w->stop = TSR__STOP_REQUEST;
    }
    return w->stop;
}
