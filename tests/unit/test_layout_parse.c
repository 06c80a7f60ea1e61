/* Layout readers: must-accept and must-reject lists (JSON, GraphML, DOT, CSV, edge list), messages
 * that name the place, ids of any kind mapped internally, unknown keys ignored, GraphML x/y data
 * and DOT pos as coordinates, and JSON and GraphML round trips.
 */
#define _XOPEN_SOURCE 700
#include "testlib.h"

#include "tessera/layout.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tsr_ctx *ctx;

/* Parses text under the file name `name` (which may choose the format by its extension). */
static tsr_layout *parse_as(const char *name, const char *text)
{
    tsr_layout *l = NULL;
    tsr_status st = tsr_layout_parse(ctx, text, strlen(text), name, &l);
    if (st != TSR_OK) {
        fprintf(stderr, "unexpected rejection: %s\n  %s\n", tsr_ctx_last_error(ctx), text);
        CHECK(0);
    }
    return l;
}

static tsr_layout *parse(const char *text)
{
    return parse_as("t.json", text);
}

/* Must fail with `want` and a one-line message containing `where`, under the file name `name`. */
static void reject_as(const char *name, const char *text, tsr_status want, const char *where)
{
    tsr_layout *l = NULL;
    tsr_status st = tsr_layout_parse(ctx, text, strlen(text), name, &l);
    CHECK(strchr(tsr_ctx_last_error(ctx), '\n') == NULL);
    CHECK(l == NULL);
    if (st != want || (where && !strstr(tsr_ctx_last_error(ctx), where))) {
        fprintf(stderr, "for %s\n  got %s: %s (want %s, '%s')\n", text, tsr_status_name(st),
                tsr_ctx_last_error(ctx), tsr_status_name(want), where ? where : "");
        CHECK(0);
    }
    tsr_layout_free(ctx, l);
}

static void reject(const char *text, tsr_status want, const char *where)
{
    reject_as("t.json", text, want, where);
}

/* Whether node v has id `id` and edge e joins nodes u and w (in either order). */
static int node_is(const tsr_layout *l, int32_t v, const char *id)
{
    return v < l->num_nodes && strcmp(l->node_id[v], id) == 0;
}
static int edge_is(const tsr_layout *l, int32_t e, int32_t u, int32_t w)
{
    return e < l->num_edges &&
           ((l->edge_u[e] == u && l->edge_v[e] == w) || (l->edge_u[e] == w && l->edge_v[e] == u));
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
    reject("{\"nodes\":[{\"id\":0,\"x\":1.0,\"y\":0}],\"edges\":[]}", C,
           "t.json:1:11: node '0': \"x\" must be an integer, not 1.0");
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
    reject("{\"nodes\":[],\"edges\":[],}", C, "t.json:1:24: string or '}' expected");
    reject("{\"nodes\":[],\"edges\":[],\"a\":\"\\q\"}", C, "invalid escape");
    reject("{\"nodes\":[],\"edges\":[],\"a\":\"x\ny\"}", C, "t.json:1:29: unexpected newline");
    reject("{\"nodes\":[],\"edges\":[],\"a\":tru}", C, "invalid token");
    reject("{\"nodes\":[],\"edges\":[],\"a\":01}", C, NULL);
    reject("{\"nodes\":[],\"edges\":[],\"a\":\"\\ud800\"}", C, "invalid Unicode");
    reject("[1,2]", C, "array");
    {
        char deep[2000];
        strcpy(deep, "{\"nodes\":[],\"edges\":[],\"a\":");
        for (int i = 0; i < 600; i++)
            strcat(deep, "[");
        reject(deep, C, "nesting");
    }
    reject("<graphml><graph><node id=\"a\"/><edge source=\"a\" target=\"b\"/></graph></graphml>", C,
           "t.json:1:31: edge 0 names unknown node id 'b'");
    reject("<graphml><graph><node/></graph></graphml>", C, "<node> without the id attribute");
    reject("<graphml><graph><node id=a/></graph></graphml>", C, "t.json:1:26: not well-formed");
    reject("<graphml><graph></graphml>", C, "t.json:1:19: mismatched tag");
    reject("<graphml><graph>", C, "t.json:1:17: no element found");
    reject("<graph></graph>", C, "root element must be <graphml>");
    reject("<graphml><!-- x", C, "t.json:1:10: unclosed token");
    reject("<graphml><graph>\n<node id=\"a\"/>\n<node id=\"a\"/></graph></graphml>", C,
           "t.json:3:1: node id 'a' appears twice");
    reject("<graphml><node id=\"&bogus;\"/></graphml>", C, "t.json:1:10: undefined entity");
    reject("# only a comment\n", C, "no edges or nodes");
}

/* DOT through Graphviz's cgraph: undirected and directed graphs, attributes, subgraphs, strict
 * graphs, comments before the header, pos="x,y" as coordinates; edges in the order of the file. */
static void test_dot(void)
{
    tsr_layout *l = parse("graph G {\n  a -- b [weight=2, color=red];\n"
                          "  subgraph cluster_0 { label=\"s\"; c -- d }\n  a -- c; e\n}\n");
    if (l) {
        CHECK(l->num_nodes == 5 && l->num_edges == 3 && !l->has_coordinates);
        CHECK(node_is(l, 0, "a") && node_is(l, 1, "b") && node_is(l, 2, "c") &&
              node_is(l, 3, "d") && node_is(l, 4, "e"));
        CHECK(edge_is(l, 0, 0, 1) && edge_is(l, 1, 2, 3) && edge_is(l, 2, 0, 2));
        tsr_layout_free(ctx, l);
    }
    l = parse("// drawn by hand\n/* two nodes */ digraph \"D\" {\n"
              "  a [pos=\"1,2\"]; b [pos=\"30,40!\"]; a -> b; b -> a\n}");
    if (l) {
        CHECK(l->num_nodes == 2 && l->num_edges == 2 && l->has_coordinates);
        CHECK(l->x[0] == 1 && l->y[0] == 2 && l->x[1] == 30 && l->y[1] == 40);
        CHECK(edge_is(l, 0, 0, 1) && edge_is(l, 1, 0, 1));
        tsr_layout_free(ctx, l);
    }
    l = parse("strict graph { a -- b; b -- a; \"x y\" -- a }");
    if (l) {
        CHECK(l->num_nodes == 3 && l->num_edges == 2 && node_is(l, 2, "x y"));
        tsr_layout_free(ctx, l);
    }
    /* the extension chooses DOT even where the content would not say so */
    l = parse_as("g.gv", "GRAPH { n1 -- n2 }");
    if (l) {
        CHECK(l->num_nodes == 2 && l->num_edges == 1 && node_is(l, 0, "n1"));
        tsr_layout_free(ctx, l);
    }
    const tsr_status C = TSR_ERR_CORRUPT;
    reject_as("t.dot", "graph {\n  a -- b\n  c -- }\n", C, "t.dot:3: DOT syntax error near '}'");
    reject_as("t.dot", "graph { a -- b", C, "t.dot:1: DOT syntax error");
    /* a failed parse leaves nothing behind for the next one (cgraph's scanner is reset) */
    l = parse_as("t.dot", "graph { c }");
    if (l) {
        CHECK(l->num_nodes == 1 && node_is(l, 0, "c"));
        tsr_layout_free(ctx, l);
    }
    reject_as("t.dot", "graph { a } graph { b }", C, "t.dot: more than one graph");
    reject_as("t.dot", "graph { a [pos=\"1.5,2\"]; b [pos=\"1,1\"] }", C,
              "t.dot: node 'a': pos \"1.5,2\" is not two integers");
    reject_as("t.dot", "graph { a [pos=\"1,1\"]; b }", C, "some nodes");
    reject_as("t.dot", "/* only a comment */", C, "t.dot: no graph");
}

/* CSV edge lists (RFC 4180 fields): "u,v[,more]" per record, a first record source,target or
 * from,to (any case) is a header, quoted fields may hold commas and "" quotes. */
static void test_csv(void)
{
    tsr_layout *l = parse("source,target\na,b\nb,c\n");
    if (l) {
        CHECK(l->num_nodes == 3 && l->num_edges == 2 && !l->has_coordinates);
        CHECK(node_is(l, 0, "a") && node_is(l, 2, "c") && edge_is(l, 1, 1, 2));
        tsr_layout_free(ctx, l);
    }
    l = parse_as("e.csv", "1,2,0.5\r\n2, 3\r\n\"x,\"\"y\"\"\",1\r\n\r\n4\r\n");
    if (l) {
        CHECK(l->num_nodes == 5 && l->num_edges == 3);
        CHECK(node_is(l, 2, "3") && node_is(l, 3, "x,\"y\"") && node_is(l, 4, "4"));
        CHECK(edge_is(l, 2, 3, 0));
        tsr_layout_free(ctx, l);
    }
    const tsr_status C = TSR_ERR_CORRUPT;
    reject_as("e.csv", "a,b\n\"c,d\n", C, "e.csv:2:1: unterminated quoted field");
    reject_as("e.csv", "a,b\nc,\n", C, "e.csv:2:3: empty field");
    reject_as("e.csv", "a,b\n\"c\"d,e\n", C, "e.csv:2:4: text after a quoted field");
    reject_as("e.csv", "From,To\n", C, "no edges or nodes");
}

/* GraphML: x/y data keys (attr.name x and y, for nodes; <default> applies) are coordinates;
 * namespaces are understood; a drawing written as GraphML reads back with its coordinates. */
static void test_graphml_coordinates(void)
{
    tsr_layout *l =
        parse("<?xml version=\"1.0\"?>\n<graphml xmlns=\"http://graphml.graphdrawing.org/"
              "xmlns\">\n<key id=\"kx\" for=\"node\" attr.name=\"x\" attr.type=\"int\"/>"
              "<key id=\"ky\" for=\"node\" attr.name=\"y\"><default>7</default></key>"
              "<key id=\"kc\" for=\"node\" attr.name=\"color\"/><graph>"
              "<node id=\"a\"><data key=\"kx\">3</data><data key=\"ky\">4</data>"
              "<data key=\"kc\">12.5</data></node>"
              "<node id=\"b\"><data key=\"kx\"> 5 </data></node>"
              "<edge source=\"a\" target=\"b\"/></graph></graphml>");
    if (l) {
        CHECK(l->num_nodes == 2 && l->num_edges == 1 && l->has_coordinates);
        CHECK(l->x[0] == 3 && l->y[0] == 4 && l->x[1] == 5 && l->y[1] == 7);
        char path[] = "/tmp/tsr_layout_rt_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        close(fd);
        CHECK_OK(ctx, tsr_layout_write_graphml(ctx, l, path));
        tsr_layout *r = NULL;
        CHECK_OK(ctx, tsr_layout_read(ctx, path, &r));
        CHECK(r && r->has_coordinates && r->num_nodes == 2 && r->x[0] == 3 && r->y[0] == 4 &&
              r->x[1] == 5 && r->y[1] == 7 && node_is(r, 1, "b"));
        tsr_layout_free(ctx, r);
        unlink(path);
        tsr_layout_free(ctx, l);
    }
    l = parse("<g:graphml xmlns:g=\"http://graphml.graphdrawing.org/xmlns\" xmlns:y=\"urn:y\">"
              "<g:graph><g:node id=\"a\"><y:node id=\"not a node\"/></g:node><![CDATA[<node "
              "id=\"b\"/>]]></g:graph></g:graphml>");
    if (l) {
        CHECK(l->num_nodes == 1 && node_is(l, 0, "a"));
        tsr_layout_free(ctx, l);
    }
    const tsr_status C = TSR_ERR_CORRUPT;
    reject("<graphml><key id=\"kx\" attr.name=\"x\"/><key id=\"ky\" attr.name=\"y\"/><graph>\n"
           "<node id=\"a\"><data key=\"kx\">1.5</data><data key=\"ky\">1</data></node>"
           "</graph></graphml>",
           C, "t.json:2:1: node 'a': \"x\" must be an integer, not '1.5'");
}

/* GraphML in UTF-16 (expat converts), and an entity expansion bomb refused by expat's limit. */
static void test_graphml_encodings(void)
{
    const char *text =
        "<?xml version=\"1.0\" encoding=\"UTF-16\"?><graphml><graph><node id=\"a\"/>"
        "<node id=\"\xc3\xa9\"/><edge source=\"a\" target=\"\xc3\xa9\"/></graph></graphml>";
    char u16[512];
    size_t n = 0;
    u16[n++] = '\xFF'; /* UTF-16LE byte-order mark, then each UTF-8 byte below 0x80 as one unit */
    u16[n++] = '\xFE';
    for (const char *p = text; *p; p++) {
        unsigned c = (unsigned char)*p;
        if (c == 0xc3) { /* U+00E9, the only non-ASCII character here */
            c = 0xe9;
            p++;
        }
        u16[n++] = (char)c;
        u16[n++] = 0;
    }
    tsr_layout *l = NULL;
    CHECK_OK(ctx, tsr_layout_parse(ctx, u16, n, "u16.graphml", &l));
    CHECK(l && l->num_nodes == 2 && l->num_edges == 1 && node_is(l, 1, "\xc3\xa9"));
    tsr_layout_free(ctx, l);
    char bomb[2048] = "<?xml version=\"1.0\"?><!DOCTYPE g [<!ENTITY e0 \"lol\">";
    for (int k = 1; k < 10; k++) {
        size_t at = strlen(bomb);
        snprintf(bomb + at, sizeof bomb - at, "<!ENTITY e%d \"", k);
        for (int r = 0; r < 10; r++) {
            at = strlen(bomb);
            snprintf(bomb + at, sizeof bomb - at, "&e%d;", k - 1);
        }
        strcat(bomb, "\">");
    }
    strcat(bomb, "]><graphml><graph><node id=\"&e9;\"/></graph></graphml>");
    reject(bomb, TSR_ERR_CORRUPT, "amplification");
}

/* Errors name file:line:column where the reader knows them. */
static void test_positions(void)
{
    const tsr_status C = TSR_ERR_CORRUPT;
    reject("<graphml>\n <graph>\n  <node id=\"a\"/>\n  <edge source=\"a\" target=\"zz\"/>\n"
           "</graph></graphml>",
           C, "t.json:4:3: edge 0 names unknown node id 'zz'");
    reject("<graphml>\n<graph><node id=a/></graph></graphml>", C, "t.json:2:17: ");
    reject("{\"nodes\": [\n  {\"id\": 0, \"x\": 1, \"y\": 1},\n  {\"id\": 1, \"x\": 2}\n],"
           "\"edges\": []}",
           C, "t.json:3:3: node '1' has only one of x, y");
    reject("{\"nodes\": [], \"edges\": [\n  {\"source\": 0, \"target\": 1}, 7]}", C,
           "t.json:2:31: each edge must be an object");
    /* a top-level key spelt with an escape is still "nodes" */
    reject("{\"\\u006eodes\":[{\"id\":0,\"x\":1}],\"edges\":[]}", C,
           "t.json:1:16: node '0' has only one of x, y");
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
    test_dot();
    test_csv();
    test_graphml_coordinates();
    test_graphml_encodings();
    test_positions();
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_parse");
}
