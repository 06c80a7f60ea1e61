/* Tag trees (T.800 B.10.2): a quad-tree of minima over a precinct's code-blocks, used for the
 * inclusion layer and the number of zero bit-planes. Decoding reads one bit per "is the value
 * equal to the current lower bound" question, from the root down to a leaf, sharing the known
 * lower bounds between leaves. */
#include "j2k/decode_stages.h"

#include <limits.h>

size_t tsr__tgt_size(uint32_t w, uint32_t h)
{
    size_t n = 0;
    while (w > 1 || h > 1) {
        n += (size_t)w * h;
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    return n + 1;
}

void tsr__tgt_init(tsr__tgt *t, uint32_t w, uint32_t h, tsr__tgt_node *storage)
{
    t->w = w;
    t->h = h;
    t->nodes = storage;
    t->nnodes = (uint32_t)tsr__tgt_size(w, h);
    /* Level by level: the parent of (x, y) at one level is (x/2, y/2) at the next. */
    size_t base = 0;
    uint32_t lw = w, lh = h;
    while (lw > 1 || lh > 1) {
        uint32_t pw = (lw + 1) / 2, ph = (lh + 1) / 2;
        size_t pbase = base + (size_t)lw * lh;
        for (uint32_t y = 0; y < lh; y++)
            for (uint32_t x = 0; x < lw; x++)
                storage[base + (size_t)y * lw + x].parent =
                    (int32_t)(pbase + (size_t)(y / 2) * pw + x / 2);
        base = pbase;
        lw = pw;
        lh = ph;
    }
    storage[base].parent = -1;
    tsr__tgt_reset(t);
}

int tsr__tgt_path(const tsr__tgt *t, uint32_t leaf, int32_t path[TSR__TGT_MAX_DEPTH + 1])
{
    int len = 0;
    int32_t n = (int32_t)leaf;
    path[len++] = n;
    while (t->nodes[n].parent >= 0 && len <= TSR__TGT_MAX_DEPTH) {
        n = t->nodes[n].parent;
        path[len++] = n;
    }
    return len;
}

void tsr__tgt_reset(tsr__tgt *t)
{
    for (uint32_t i = 0; i < t->nnodes; i++) {
        t->nodes[i].value = INT32_MAX;
        t->nodes[i].low = 0;
        t->nodes[i].known = 0;
    }
}

int tsr__tgt_decode(tsr__bio *b, tsr__tgt *t, uint32_t leaf, int32_t threshold)
{
    int32_t path[TSR__TGT_MAX_DEPTH + 1];
    int32_t low = 0;
    for (int k = tsr__tgt_path(t, leaf, path) - 1; k >= 0; k--) {
        tsr__tgt_node *node = &t->nodes[path[k]];
        low = tsr__tgt_raise_low(node, low);
        while (low < threshold && low < node->value) {
            if (tsr__bio_bit(b))
                node->value = low;
            else
                low++;
            if (b->overrun)
                break;
        }
        node->low = low;
    }
    return t->nodes[leaf].value < threshold;
}

int32_t tsr__tgt_decode_value(tsr__bio *b, tsr__tgt *t, uint32_t leaf, int32_t cap)
{
    int32_t th = 1;
    while (!tsr__tgt_decode(b, t, leaf, th)) {
        if (th > cap || b->overrun)
            return cap + 1;
        th++;
    }
    return t->nodes[leaf].value;
}
