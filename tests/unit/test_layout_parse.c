/* Layout readers: must-accept and must-reject lists (JSON, GraphML, edge list), messages that
 * name the place, ids of any kind mapped internally, unknown keys ignored, and a JSON round trip.
 */
#define _XOPEN_SOURCE 700
#include "testlib.h"

#include "tessera/layout.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tsr_ctx *ctx;

static tsr_layout *parse(const char *text)
{
    tsr_layout *l = NULL;
    tsr_status st = tsr_layout_parse(ctx, text, strlen(text), "t.json", &l);
    if (st != TSR_OK) {
        fprintf(stderr, "unexpected rejection: %s\n  %s\n", tsr_ctx_last_error(ctx), text);
        CHECK(0);
    }
    return l;
}

/* Must fail with `want` and a message containing `where`. */
static void reject(const char *text, tsr_status want, const char *where)
{
    tsr_layout *l = NULL;
    tsr_status st = tsr_layout_parse(ctx, text, strlen(text), "t.json", &l);
    CHECK(l == NULL);
    if (st != want || (where && !strstr(tsr_ctx_last_error(ctx), where))) {
        fprintf(stderr, "for %s\n  got %s: %s (want %s, '%s')\n", text, tsr_status_name(st),
                tsr_ctx_last_error(ctx), tsr_status_name(want), where ? where : "");
        CHECK(0);
    }
    tsr_layout_free(ctx, l);
}

static void test_accept(void)
{
    tsr_layout *l = parse("{\"nodes\":[{\"id\":\"a\",\"x\":1,\"y\":2,\"color\":[1,{\"z\":null}]},"
                          "{\"id\":-7,\"x\":0,\"y\":0}],\"edges\":[{\"source\":\"a\",\"target\":-7,"
                          "\"w\":1.5}],\"points\":true}");
    if (l) {
        CHECK(l->num_nodes == 2 && l->num_edges == 1 && l->has_coordinates);
        CHECK(l->width == TSR_LAYOUT_DEFAULT_CANVAS && l->height == TSR_LAYOUT_DEFAULT_CANVAS);
        CHECK(strcmp(l->node_id[1], "-7") == 0 && !l->node_id_is_string[1]);
        CHECK(l->node_id_is_string[0] && l->edge_u[0] == 0 && l->edge_v[0] == 1);
        /* round trip through the writer */
        char path[] = "/tmp/tsr_layout_rt_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        close(fd);
        CHECK_OK(ctx, tsr_layout_write_json(ctx, l, path));
        tsr_layout *r = NULL;
        CHECK_OK(ctx, tsr_layout_read(ctx, path, &r));
        CHECK(r && r->num_nodes == 2 && r->x[0] == 1 && r->y[0] == 2 &&
              strcmp(r->node_id[0], "a") == 0 && r->node_id_is_string[0]);
        tsr_layout_free(ctx, r);
        unlink(path);
        tsr_layout_free(ctx, l);
    }
    l = parse("{\"width\":5,\"height\":0,\"edges\":[],\"nodes\":[{\"id\":\"\\u00e9\\\"\",\"x\":5,"
              "\"y\":0}]}");
    if (l) {
        CHECK(l->width == 5 && l->height == 0 && strcmp(l->node_id[0], "\xc3\xa9\"") == 0);
        tsr_layout_free(ctx, l);
    }
    /* GraphML without coordinates, entities, comments; edge list with comments and weights */
    l = parse("<?xml version=\"1.0\"?><!-- c --><graphml><key id=\"d0\"/><graph>"
              "<node id=\"n&amp;0\"><data key=\"d0\">x</data></node><node id='n1'/>"
              "<edge source=\"n&amp;0\" target=\"n1\"/></graph></graphml>");
    if (l) {
        CHECK(l->num_nodes == 2 && l->num_edges == 1 && !l->has_coordinates);
        CHECK(strcmp(l->node_id[0], "n&0") == 0);
        tsr_layout_free(ctx, l);
    }
    l = parse("# comment\n1 2\n2 3 0.5\n\n7\n");
    if (l) {
        CHECK(l->num_nodes == 4 && l->num_edges == 2 && !l->has_coordinates);
        tsr_layout_free(ctx, l);
    }
}

static void test_reject(void)
{
    const tsr_status C = TSR_ERR_CORRUPT, L = TSR_ERR_LIMIT;
    reject("", C, "empty");
    reject("{", C, "t.json:1:2");
    reject("{\"nodes\":[],\"edges\":[]", C, "t.json:1:");
    reject("{\"nodes\":[{\"id\":0,\"x\":1.5,\"y\":0}],\"edges\":[]}", C, "must be an integer");
    reject("{\"nodes\":[{\"id\":0,\"x\":1e3,\"y\":0}],\"edges\":[]}", C, "must be an integer");
    reject("{\"nodes\":[{\"id\":0,\"x\":\"1\",\"y\":0}],\"edges\":[]}", C, "must be an integer");
    reject("{\"nodes\":[{\"id\":0,\"x\":1}],\"edges\":[]}", C, "only one of x, y");
    reject("{\"nodes\":[{\"x\":1,\"y\":1}],\"edges\":[]}", C, "without \"id\"");
    reject("{\"nodes\":[{\"id\":0,\"x\":1,\"y\":1},{\"id\":0,\"x\":2,\"y\":1}],\"edges\":[]}", C,
           "appears twice");
    reject("{\"nodes\":[{\"id\":0,\"x\":1,\"y\":1}],\n\"edges\":[{\"source\":0,\"target\":9}]}", C,
           "t.json:2:10: edge 0 names unknown node id '9'");
    reject("{\"nodes\":[{\"id\":0,\"x\":1,\"y\":1}],\"edges\":[{\"source\":0}]}", C,
           "without \"target\"");
    reject("{\"nodes\":[{\"id\":1.5,\"x\":1,\"y\":1}],\"edges\":[]}", C, "integer or a string");
    reject("{\"nodes\":[{\"id\":true,\"x\":1,\"y\":1}],\"edges\":[]}", C, "integer or a string");
    reject("{\"nodes\":[],\"edges\":[],\"width\":-1}", C, "negative");
    reject("{\"nodes\":[],\"edges\":[],\"width\":2147483648}", L, "exceeds");
    reject("{\"nodes\":[{\"id\":0,\"x\":0,\"y\":0},{\"id\":1,\"x\":0,\"y\":0},{\"id\":2,\"x\":0,"
           "\"y\":0}],\"edges\":[],\"width\":1,\"height\":0}",
           L, "fewer grid points");
    reject("{\"nodes\":[{\"id\":0,\"x\":-5,\"y\":0}],\"edges\":[]}", L, "outside");
    reject("{\"nodes\":[{\"id\":0,\"x\":1,\"y\":1},{\"id\":1}],\"edges\":[]}", C, "some nodes");
    reject("{\"edges\":[]}", C, "no \"nodes\"");
    reject("{\"nodes\":[]}", C, "no \"edges\"");
    reject("{\"nodes\":{},\"edges\":[]}", C, "must be an array");
    reject("{\"nodes\":[],\"edges\":[]} x", C, "after the JSON");
    reject("{\"nodes\":[],\"edges\":[],}", C, "object key");
    reject("{\"nodes\":[],\"edges\":[],\"a\":\"\\q\"}", C, "invalid escape");
    reject("{\"nodes\":[],\"edges\":[],\"a\":\"x\ny\"}", C, "control character");
    reject("{\"nodes\":[],\"edges\":[],\"a\":tru}", C, "invalid value");
    reject("{\"nodes\":[],\"edges\":[],\"a\":01}", C, NULL);
    reject("{\"nodes\":[],\"edges\":[],\"a\":\"\\ud800\"}", C, "surrogate");
    reject("[1,2]", C, "array");
    {
        char deep[2000];
        strcpy(deep, "{\"nodes\":[],\"edges\":[],\"a\":");
        for (int i = 0; i < 600; i++)
            strcat(deep, "[");
        reject(deep, C, "nesting");
    }
    reject("<graphml><graph><node id=\"a\"/><edge source=\"a\" target=\"b\"/></graph></graphml>", C,
           "t.json:1: edge 0 names unknown node id 'b'");
    reject("<graphml><graph><node/></graph></graphml>", C, "<node> without the id attribute");
    reject("<graphml><graph><node id=a/></graph></graphml>", C, "must be quoted");
    reject("<graphml><graph></graphml>", C, "does not match");
    reject("<graphml><graph>", C, "end of file");
    reject("<graph></graph>", C, "root element must be <graphml>");
    reject("<graphml><!-- x", C, "unterminated comment");
    reject("<graphml><graph>\n<node id=\"a\"/>\n<node id=\"a\"/></graph></graphml>", C,
           "t.json:3: node id 'a' appears twice");
    reject("<graphml><node id=\"&bogus;\"/></graphml>", C, "bad or too long id");
    reject("# only a comment\n", C, "no edges or nodes");
}

int main(void)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_REFERENCE;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    test_accept();
    test_reject();
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_parse");
}
