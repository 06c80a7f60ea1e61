/* What a picture of a drawing shows, the one description the SVG writer and the raster renderer
 * draw from: the canvas [0,W]x[0,H] inside a margin of 10 units (a unit is max(W, H) / 800),
 * edges in increasing crossing count so that the most crossed lie on top, the edges with the
 * most crossings (count K > 0) red and 2.5 units wide, the others shaded from light grey towards
 * a darker, redder grey by their count and 0.6 to 1.6 units wide, and nodes as dots of radius 2
 * units. Lengths are in canvas units. */
#ifndef TSR_LAYOUT_PICTURE_H
#define TSR_LAYOUT_PICTURE_H

#include "layout/layout_internal.h"

typedef struct tsr__picture {
    const tsr_layout *layout;
    int32_t *counts; /* c(e) for every edge */
    int32_t *order;  /* the edges in drawing order: increasing count */
    tsr_layout_score score;
    double width, height; /* the canvas, at least 1 */
    double unit, margin;
} tsr__picture;

typedef struct tsr__edge_look {
    uint8_t r, g, b;
    double width; /* units */
    int most;     /* 1: one of the most crossed edges */
} tsr__edge_look;

#define TSR__PICTURE_NODE_RADIUS 2.0 /* units */
#define TSR__PICTURE_NODE_RGB 0x22, 0x33, 0x66

/* Counts the crossings (the context's backend: the reference one when asked, else the CPU's
 * threads) and orders the edges. tsr__picture_free releases what it allocated. */
tsr_status tsr__picture_make(tsr_ctx *ctx, const tsr_layout *l, tsr__picture *p);
void tsr__picture_free(tsr_ctx *ctx, tsr__picture *p);
/* Sets p's width, height, unit and margin from l's canvas (tsr__picture_make does too). */
void tsr__picture_geometry(const tsr_layout *l, tsr__picture *p);
tsr__edge_look tsr__picture_edge(const tsr__picture *p, int32_t e);

#endif
