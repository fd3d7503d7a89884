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

#include "../exec/wwm_xml.h"   /* reading queries and writing responses: shared with examples/exec */

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
