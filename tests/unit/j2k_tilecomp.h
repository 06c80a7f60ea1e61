/* Tests' helper: the codec's resolution geometry of one tile-component, as tsr__tcd_init gives
 * it to the decoder and the encoder (shared by the device transform tests). */
#ifndef TSR_TEST_J2K_TILECOMP_H
#define TSR_TEST_J2K_TILECOMP_H

#include "j2k/decode_stages.h"

#include <stdio.h>
#include <string.h>

/* The geometry of a w x h tile-component at (x0, y0) with `levels` decomposition levels: one
 * tile, one component, through tsr__tcd_init; out->data NULL. 0 (with a note) on failure. */
static int j2k_test_geometry(tsr_ctx *ctx, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                             uint32_t levels, int rev, tsr__j2k_tilecomp *out)
{
    tsr__j2k_comp comp = {1, 1, 8, 0};
    tsr__j2k_cs cs;
    memset(&cs, 0, sizeof cs);
    cs.x0 = x0;
    cs.y0 = y0;
    cs.x1 = x0 + w;
    cs.y1 = y0 + h;
    cs.tw = cs.x1;
    cs.th = cs.y1;
    cs.ntx = cs.nty = cs.ntiles = 1;
    cs.ncomps = 1;
    cs.comps = &comp;
    static tsr__j2k_tccp tccp;
    memset(&tccp, 0, sizeof tccp);
    tccp.numres = (uint8_t)(levels + 1);
    tccp.xcb = tccp.ycb = 6;
    memset(tccp.prcw, 15, sizeof tccp.prcw);
    memset(tccp.prch, 15, sizeof tccp.prch);
    tccp.qmfbid = (uint8_t)rev;
    tccp.qntsty = 0;
    tccp.numgbits = 2;
    tccp.nsteps = (uint8_t)(3 * levels + 1);
    for (uint32_t i = 0; i < tccp.nsteps; i++)
        tccp.steps[i].expn = 8;
    tsr__j2k_tcp tcp;
    memset(&tcp, 0, sizeof tcp);
    tcp.numlayers = 1;
    tcp.tccps = &tccp;
    tsr__j2k_window win = {cs.x0, cs.y0, cs.x1, cs.y1};
    tsr__j2k_tile t;
    if (tsr__tcd_init(ctx, &cs, &tcp, 0, 0, NULL, &win, &t) != TSR_OK) {
        fprintf(stderr, "tsr__tcd_init: %s\n", tsr_ctx_last_error(ctx));
        return 0;
    }
    *out = t.comps[0];
    out->data = NULL;
    tsr__tcd_free(ctx, &t);
    return 1;
}

#endif
