/* Tag-tree encoding (T.800 B.10.2): the mirror of tgt.c's decoder. From the root down to the
 * leaf, each node's lower bound is raised to its parent's, then one 0 bit per step of the
 * bound below the threshold while it is below the node's value and one 1 bit when the bound
 * reaches the value (once per node: the node is then known). */
#include "j2k/encode_stages.h"

void tsr__tgt_set_value(tsr__tgt *t, uint32_t leaf, int32_t value)
{
    int32_t n = (int32_t)leaf;
    t->nodes[n].value = value;
    while ((n = t->nodes[n].parent) >= 0 && t->nodes[n].value > value)
        t->nodes[n].value = value;
}

void tsr__tgt_encode(tsr__biow *w, tsr__tgt *t, uint32_t leaf, int32_t threshold)
{
    int32_t path[TSR__TGT_MAX_DEPTH + 1];
    int32_t low = 0;
    for (int k = tsr__tgt_path(t, leaf, path) - 1; k >= 0; k--) {
        tsr__tgt_node *node = &t->nodes[path[k]];
        low = tsr__tgt_raise_low(node, low);
        while (low < threshold) {
            if (low >= node->value) {
                if (!node->known) {
                    tsr__biow_bit(w, 1);
                    node->known = 1;
                }
                break;
            }
            tsr__biow_bit(w, 0);
            low++;
        }
        node->low = low;
    }
}
