/* A grid-world mind in C. It reads queries on stdin (each ends with the line </xml>) and
 * writes one response per query on stdout, in the XML of section 11.2.1, until its input
 * ends. Its state (steps and points per run) is saved to disk after every query, in a file
 * named after the run ID it mints, so it serves in either mode of section 11.4:
 *
 *   cc -O2 -o mind examples/exec/mind.c          (or: make -C examples/exec)
 *   wwm serve-exec --mode per-query  --port 8103 -- examples/exec/mind
 *   wwm serve-exec --mode persistent --port 8104 -- examples/exec/mind
 *
 * It heads for the nearest food, and steps away when a hazard is next to it (see
 * src/wwm/kit/grid.py for the state and action formats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wwm_xml.h"

#define MAX_CELLS 1024

static int valid_id(const char *id) {
    if (!*id || strlen(id) > 40) return 0;
    for (; *id; id++) if (!((*id >= '0' && *id <= '9') || (*id >= 'a' && *id <= 'z'))) return 0;
    return 1;
}

static int load(const char *id, long *steps, double *points) {
    char path[64];
    FILE *f;
    int ok;
    snprintf(path, sizeof path, "c-run-%s", id);
    if (!(f = fopen(path, "r"))) return 0;
    ok = fscanf(f, "%ld %lf", steps, points) == 2;
    fclose(f);
    return ok;
}

static void save(const char *id, long steps, double points) {
    char path[64];
    FILE *f;
    snprintf(path, sizeof path, "c-run-%s", id);
    if ((f = fopen(path, "w"))) { fprintf(f, "%ld %.17g\n", steps, points); fclose(f); }
}

static int cells(const char *text, int xy[][2]) {
    int n = 0;
    while (*text && n < MAX_CELLS) {
        if (sscanf(text, "%d,%d", &xy[n][0], &xy[n][1]) == 2) n++;
        text = strchr(text, ';');
        if (!text) break;
        text++;
    }
    return n;
}

static int dist(int ax, int ay, int bx, int by) { return abs(ax - bx) + abs(ay - by); }

static const char *choose(const char *state) {
    static const char *names[] = {"stay", "north", "south", "east", "west"};
    static const int dx[] = {0, 0, 0, 1, -1}, dy[] = {0, 1, -1, 0, 0};
    static int food[MAX_CELLS][2], hazard[MAX_CELLS][2];
    static char copy[MAX_TEXT];
    int size = 0, x = 0, y = 0, nf = 0, nh = 0, a, i, best = 0;
    long best_cost = -1;
    char *tok;
    copy[0] = 0;
    append(copy, state);
    for (tok = strtok(copy, " \n\t"); tok; tok = strtok(NULL, " \n\t")) {
        if (strncmp(tok, "size=", 5) == 0) size = atoi(tok + 5);
        else if (strncmp(tok, "x=", 2) == 0) x = atoi(tok + 2);
        else if (strncmp(tok, "y=", 2) == 0) y = atoi(tok + 2);
        else if (strncmp(tok, "food=", 5) == 0) nf = cells(tok + 5, food);
        else if (strncmp(tok, "hazard=", 7) == 0) nh = cells(tok + 7, hazard);
    }
    for (a = 0; a < 5; a++) {
        int cx = x + dx[a], cy = y + dy[a], near_food = 0, near_hazard = 1000;
        long cost;
        if (cx < 0) cx = 0;
        if (cy < 0) cy = 0;
        if (size && cx >= size) cx = size - 1;
        if (size && cy >= size) cy = size - 1;
        for (i = 0; i < nf; i++) {
            int d = dist(cx, cy, food[i][0], food[i][1]);
            if (i == 0 || d < near_food) near_food = d;
        }
        for (i = 0; i < nh; i++) {
            int d = dist(cx, cy, hazard[i][0], hazard[i][1]);
            if (d < near_hazard) near_hazard = d;
        }
        cost = near_food + (near_hazard <= 1 ? 50 : 0);
        if (best_cost < 0 || cost < best_cost) { best_cost = cost; best = a; }
    }
    return names[best];
}

int main(void) {
    static unsigned counter;
    while (read_query()) {
        const char *id = get("mind run ID");
        long steps = 0;
        double points = 0;
        if (strcmp(query, "New run") == 0) {
            char fresh[40];
            FILE *r = fopen("/dev/urandom", "rb");
            unsigned long long v = 0;
            if (r) { if (fread(&v, sizeof v, 1, r) != 1) v = 0; fclose(r); }
            snprintf(fresh, sizeof fresh, "%016llx%x", v, counter++);
            save(fresh, 0, 0);
            respond_start(query);
            printf("<data name=\"mind run ID\">%s</data>\n", fresh);
            respond_end();
            continue;
        }
        if (!valid_id(id) || !load(id, &steps, &points)) {
            refuse("unknown-run", "no run with this ID here");
            continue;
        }
        if (strcmp(query, "Get action") == 0) {
            const char *action = choose(get("state"));
            save(id, steps + 1, points);
            respond_start(query);
            printf("<data name=\"action\">%s</data>\n", action);
            respond_end();
        } else if (strcmp(query, "Inform it about state") == 0) {
            save(id, steps, points + atof(get("score")));
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
            if (strcmp(query, "End run") == 0) {
                char path[64];
                snprintf(path, sizeof path, "c-run-%s", id);
                remove(path);
            }
        } else if (strcmp(query, "Reset score") == 0) {
            save(id, steps, 0);
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
