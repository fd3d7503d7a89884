/* A CartPole mind in C, for `wwm serve gym:CartPole-v1` (the Gymnasium environment served
 * as a World: the state is the observation as JSON, [x, x', angle, angle'], the action 0
 * (push left) or 1 (push right)). It pushes the cart the way the pole is falling, looking
 * half a step ahead. It reads queries on stdin (the XML of section 11.2.1, each ending with
 * the line </xml>) and writes one response per query, one process per run:
 *
 *   cc -O2 -std=c99 -o cartpole_mind examples/gym/cartpole_mind.c
 *   wwm serve gym:CartPole-v1 --port 8200 &
 *   wwm serve-exec --mode persistent --port 8201 -- ./cartpole_mind
 *   wwm run --mind http://127.0.0.1:8201/ --world http://127.0.0.1:8200/ --steps 500
 */
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

static const char *choose(const char *state) {
    double x = 0, v = 0, angle = 0, spin = 0;
    if (sscanf(state, " [ %lf , %lf , %lf , %lf ]", &x, &v, &angle, &spin) != 4) return NULL;
    return angle + 0.5 * spin > 0 ? "1" : "0";
}

int main(void) {
    static char run_id[40];
    double points = 0;
    while (read_query()) {
        if (strcmp(query, "New run") == 0) {
            FILE *r = fopen("/dev/urandom", "rb");
            unsigned long long v = 0;
            if (r) { if (fread(&v, sizeof v, 1, r) != 1) v = 0; fclose(r); }
            snprintf(run_id, sizeof run_id, "%016llx", v);
            points = 0;
            respond_start(query);
            printf("<data name=\"mind run ID\">%s</data>\n", run_id);
            respond_end();
            continue;
        }
        if (!run_id[0] || strcmp(get("mind run ID"), run_id) != 0) {
            refuse("unknown-run", "no run with this ID here");
            continue;
        }
        if (strcmp(query, "Get action") == 0) {
            const char *action = choose(get("state"));
            if (!action) { refuse("bad-parameters", "the state is not a CartPole observation [x, x', angle, angle']"); continue; }
            respond_start(query);
            printf("<data name=\"action\">%s</data>\n", action);
            respond_end();
        } else if (strcmp(query, "Inform it about state") == 0) {
            points += atof(get("score"));
            respond_start(query);
            respond_end();
        } else if (strcmp(query, "Ready to suggest action?") == 0) {
            respond_start(query);
            printf("<data name=\"ready\">true</data>\n");
            respond_end();
        } else if (strcmp(query, "Get current score") == 0 || strcmp(query, "End run") == 0) {
            respond_start(query);
            printf("<data name=\"score\">%g</data>\n", points);
            respond_end();
        } else if (strcmp(query, "Reset score") == 0) {
            points = 0;
            respond_start(query);
            respond_end();
        } else if (strcmp(query, "No operation") == 0 || strcmp(query, "Get display URL") == 0) {
            respond_start(query);
            respond_end();
        } else {
            refuse("unknown-query", "this C mind does not answer that query");
        }
    }
    return 0;
}
