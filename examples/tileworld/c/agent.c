/* A T-World agent in C (POSIX sockets): the seed's seven-step loop over a TCP socket.
 * usage: ./agent [host] [port] [magic]        (defaults 127.0.0.1 3313 c-agent)
 * It pushes the nearest tile toward the nearest hole. The percept is read by looking up the
 * few fields the agent needs ("header", "grid", the agent's "location", "battery", "score"),
 * in JSON or, with a magic string ending in ":prolog", in the Prolog form
 * tw_msg(header(H), data(environment(grid([[' ','T',3,...],...]),...),agent(id(0),...,
 * location(row(R),column(C)),score(S),battery(B),...),builtin_knowledge(...))). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXN 100
static const char *NAMES[4] = {"north", "south", "east", "west"};
static const int DR[4] = {-1, 1, 0, 0}, DC[4] = {0, 0, 1, -1};
static char grid[MAXN][MAXN]; /* ' ' 'T' '#' 'A' 'C', 'H' for a hole cell */
static int rows, cols;

static int walkable(int r, int c) {
    return r >= 0 && c >= 0 && r < rows && c < cols && (grid[r][c] == ' ' || grid[r][c] == 'C');
}

/* Reads "grid":[[...],[...]] (JSON) or grid([[...],[...]]) (Prolog) into grid[][]; returns 0
 * on success. Cells are one-character texts in double (JSON) or single (Prolog) quotes, or hole ids. */
static int parse_grid(const char *line, int prolog) {
    const char *p = strstr(line, prolog ? "grid([" : "\"grid\":[");
    if (!p) return -1;
    p += prolog ? 6 : 8;
    rows = 0;
    while (*p == '[' && rows < MAXN) {
        int c = 0;
        p++;
        while (*p && *p != ']') {
            if (*p == '"' || *p == '\'') {
                grid[rows][c++] = p[1];
                p += 3;
            } else if ((*p >= '0' && *p <= '9') || *p == '-') {
                grid[rows][c++] = 'H';
                while ((*p >= '0' && *p <= '9') || *p == '-') p++;
            } else {
                p++; /* commas */
            }
            if (c >= MAXN) return -1;
        }
        cols = c;
        rows++;
        p++;          /* ']' */
        if (*p == ',') p++;
    }
    return rows > 0 ? 0 : -1;
}

/* The percept's own agent: "agent":{ in JSON; in Prolog the last agent(id( before
 * builtin_knowledge( (the environment's list of agents, which comes first, holds agent terms too). */
static const char *own_agent(const char *line, int prolog) {
    const char *end, *p = line, *found = NULL;
    if (!prolog) return strstr(line, "\"agent\":{");
    end = strstr(line, "builtin_knowledge(");
    while ((p = strstr(p, "agent(id(")) && (!end || p < end)) found = p++;
    return found;
}

static const char *decide(const char *line, int prolog) {
    static int dist[MAXN][MAXN], first[MAXN][MAXN], queue[MAXN * MAXN];
    int me_r, me_c, head = 0, tail = 0, best_cost = 1 << 30, best = -1;
    const char *a = own_agent(line, prolog), *b;
    const char *battery_key = prolog ? "battery(" : "\"battery\":", *location_key = prolog ? "location(" : "\"location\":";
    int battery = 1;
    if (parse_grid(line, prolog) || !a) return "none";
    /* an empty battery (in a run with batteries: its costs are given) stops every move: restore it */
    if ((b = strstr(a, battery_key)) && sscanf(b + strlen(battery_key), "%d", &battery) == 1 && battery <= 0 &&
        strstr(line, "slide_tile"))
        return "restore";
    a = strstr(a, location_key);
    if (!a || sscanf(a, prolog ? "location(row(%d),column(%d))" : "\"location\":{\"row\":%d,\"column\":%d",
                     &me_r, &me_c) != 2)
        return "none";
    /* one breadth-first search from the robot: distance and first move to every cell */
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) dist[r][c] = -1;
    dist[me_r][me_c] = 0;
    first[me_r][me_c] = -1;
    queue[tail++] = me_r * MAXN + me_c;
    while (head < tail) {
        int hr = queue[head] / MAXN, hc = queue[head] % MAXN;
        head++;
        for (int m = 0; m < 4; m++) {
            int r = hr + DR[m], c = hc + DC[m];
            if (walkable(r, c) && dist[r][c] < 0) {
                dist[r][c] = dist[hr][hc] + 1;
                first[r][c] = first[hr][hc] < 0 ? m : first[hr][hc];
                queue[tail++] = r * MAXN + c;
            }
        }
    }
    for (int tr = 0; tr < rows; tr++)
        for (int tc = 0; tc < cols; tc++) {
            if (grid[tr][tc] != 'T') continue;
            for (int hr = 0; hr < rows; hr++)
                for (int hc = 0; hc < cols; hc++) {
                    if (grid[hr][hc] != 'H') continue;
                    int gap = abs(tr - hr) + abs(tc - hc);
                    for (int m = 0; m < 4; m++) {
                        int ar = tr + DR[m], ac = tc + DC[m], sr = tr - DR[m], sc = tc - DC[m];
                        if (abs(ar - hr) + abs(ac - hc) >= gap) continue;
                        if (!(ar == hr && ac == hc) && !walkable(ar, ac)) continue;
                        if (sr < 0 || sc < 0 || sr >= rows || sc >= cols || dist[sr][sc] < 0) continue;
                        if (dist[sr][sc] + gap < best_cost) {
                            best_cost = dist[sr][sc] + gap;
                            best = first[sr][sc] < 0 ? m : first[sr][sc];
                        }
                    }
                }
        }
    if (best >= 0) return NAMES[best];
    for (int m = 0; m < 4; m++)
        if (walkable(me_r + DR[m], me_c + DC[m])) return NAMES[m];
    return "none";
}

int main(int argc, char **argv) {
    const char *host = argc > 1 ? argv[1] : "127.0.0.1";
    int port = argc > 2 ? atoi(argv[2]) : 3313;
    const char *magic = argc > 3 ? argv[3] : "c-agent";
    struct sockaddr_in addr = {0};
    char out[256];
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);

    int sock = socket(AF_INET, SOCK_STREAM, 0);                         /* 0) create socket */
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        fprintf(stderr, "cannot reach the proxy: %s is not an IPv4 address\n", host);
        return 1;
    }
    if (connect(sock, (struct sockaddr *)&addr, sizeof addr) < 0) {   /* 1) connect */
        fprintf(stderr, "cannot reach the proxy at %s:%d: %s\n", host, port, strerror(errno));
        return 1;
    }
    snprintf(out, sizeof out, "CONNECT:%s\n", magic);                 /* 2) connection string */
    send(sock, out, strlen(out), 0);
    for (;;) {
        char *nl;
        const char *h;
        while (!(nl = memchr(buf, '\n', len))) {                      /* 3) receive a percept */
            if (len + 4096 > cap) buf = realloc(buf, cap *= 2);
            ssize_t n = recv(sock, buf + len, cap - len - 1, 0);
            if (n <= 0) {
                fprintf(stderr, "proxy closed the connection\n");
                return 1;
            }
            len += (size_t)n;
        }
        *nl = '\0';
        char header[32] = "";
        int prolog = strncmp(buf, "tw_msg(", 7) == 0;
        if (prolog) sscanf(buf, "tw_msg(header(%31[^)]", header);
        else if ((h = strstr(buf, "\"header\":\""))) sscanf(h, "\"header\":\"%31[^\"]", header);
        if (!strcmp(header, "end")) {                                  /* 6) until "end" */
            const char *a = own_agent(buf, prolog), *score_key = prolog ? "score(" : "\"score\":";
            int score = -1;
            if (a && (a = strstr(a, score_key))) sscanf(a + strlen(score_key), "%d", &score);
            printf("END score=%d form=%s\n", score, prolog ? "prolog" : "json");
            close(sock);
            return 0;
        }
        if (!strcmp(header, "error")) fprintf(stderr, "error from the world: %s\n", buf);
        if (!strcmp(header, "start") || !strcmp(header, "percept") ||
            (!strcmp(header, "ready_for_next_action") && strstr(buf, "grid"))) {
            snprintf(out, sizeof out, "%s\n", decide(buf, prolog));    /* 4) decide */
            send(sock, out, strlen(out), 0);                           /* 5) send the action */
        }
        len -= (size_t)(nl + 1 - buf);
        memmove(buf, nl + 1, len);
    }
}
