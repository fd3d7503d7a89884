/* The XML side of a WWM mind in C (section 11.2.1): read one query from stdin, its data items
 * by name, and write responses and refusals on stdout. Shared by the C examples
 * (examples/exec/mind.c, examples/gym/cartpole_mind.c): include it, then call read_query()
 * until it returns 0. Header only (static functions), so each example stays one command to build.
 */
#ifndef WWM_XML_H
#define WWM_XML_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXT 65536
#define MAX_ITEMS 32

struct item { char name[128]; char value[MAX_TEXT]; };
static struct item items[MAX_ITEMS];
static int n_items;
static char query[128];

static void decode(char *s) { /* XML entities, in place; then trim white space */
    static const char *from[] = {"&lt;", "&gt;", "&quot;", "&apos;", "&amp;"};
    static const char to[] = {'<', '>', '"', '\'', '&'};
    char *r = s, *w = s;
    while (*r) {
        int k, done = 0;
        for (k = 0; k < 5 && !done; k++) {
            size_t n = strlen(from[k]);
            if (strncmp(r, from[k], n) == 0) { *w++ = to[k]; r += n; done = 1; }
        }
        if (!done) *w++ = *r++;
    }
    *w = 0;
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r') memmove(s, s + 1, strlen(s));
    w = s + strlen(s);
    while (w > s && (w[-1] == ' ' || w[-1] == '\n' || w[-1] == '\t' || w[-1] == '\r')) *--w = 0;
}

static void append(char *dst, const char *src) { /* append, truncating at MAX_TEXT */
    size_t have = strlen(dst), add = strlen(src);
    if (add > MAX_TEXT - 1 - have) add = MAX_TEXT - 1 - have;
    memcpy(dst + have, src, add);
    dst[have + add] = 0;
}

static const char *get(const char *name) {
    int i;
    for (i = 0; i < n_items; i++) if (strcmp(items[i].name, name) == 0) return items[i].value;
    return "";
}

/* Read one query; return 0 at end of input. Values may span lines until </data>. */
static int read_query(void) {
    static char line[MAX_TEXT];
    struct item *open = NULL;
    n_items = 0;
    query[0] = 0;
    while (fgets(line, sizeof line, stdin)) {
        char *p = line, *q;
        if (open) {
            q = strstr(p, "</data>");
            if (q) *q = 0;
            append(open->value, p);
            if (q) { decode(open->value); open = NULL; }
            continue;
        }
        if ((q = strstr(p, "<query name=\"")) != NULL) {
            sscanf(q + 13, "%127[^\"]", query);
        }
        while ((q = strstr(p, "<data name=\"")) != NULL && n_items < MAX_ITEMS) {
            struct item *it = &items[n_items++];
            char *end;
            it->value[0] = 0;
            sscanf(q + 12, "%127[^\"]", it->name);
            p = strchr(q + 12, '>');
            if (!p) break;
            p++;
            end = strstr(p, "</data>");
            if (end) {
                size_t n = (size_t)(end - p) < MAX_TEXT - 1 ? (size_t)(end - p) : MAX_TEXT - 1;
                memcpy(it->value, p, n);
                it->value[n] = 0;
                decode(it->value);
                p = end + 7;
            } else {
                append(it->value, p);
                open = it;
                break;
            }
        }
        if (strncmp(line, "</xml>", 6) == 0) return 1;
    }
    return query[0] != 0;
}

static void respond_start(const char *name) { printf("<xml>\n<response name=\"%s\">\n", name); }
static void respond_end(void) { printf("</response>\n</xml>\n"); fflush(stdout); }
static void refuse(const char *code, const char *text) {
    respond_start(query);
    printf("<refusal code=\"%s\">%s</refusal>\n", code, text);
    respond_end();
}

#endif
