"""The portal under load (issue 14): page latency (p50, p99) of the combination page and the
run page while ``--runs`` runs are in progress and ``--viewers`` viewers follow them live, and
the delay from a step (published by the run loop) to its arrival in a viewer, beside the same
portal answering a static file in the same run: the baseline. Every figure is printed as a
ratio to that baseline (its p50 to the baseline's p50, its p99 to the baseline's p99), and the
issue's criterion, the combination and run pages' p99 within 2x of the static file's p99, is
checked as a ratio; the baseline itself is printed once, so the ratios can be read back.
The benchmark fails (exit status 1, saying what) if its own parts did not work: a server or the
portal gone, a viewer process that died or viewers that never connected, a page that did not
answer 200, runs that made no step while the pages were measured.

    python benchmarks/portal.py [--runs 20] [--viewers 200] [--seconds 20]

Everything is real: ``wwm serve`` processes for the World and the Mind, ``wwm portal`` as a
process of its own (the runs execute in it, as they do by default), viewers as SSE clients in
``--viewer-processes`` processes (so parsing 200 streams does not share the page client's core),
and the page client in this process, one request at a time. Pages are measured once every
viewer has its record (the 200 records are read first, and are not what is measured).

The runs step as fast as the World and Mind answer (nothing paces them), so the portal's event
loop is busy all the time and the figures depend on the CPU the portal gets: the report says
how many steps the runs made a second, and (on Linux) how the machine's CPU was shared
during the pages among the portal, the servers, the viewers, the page client and the rest of
the machine (other programs on a shared machine make the figures vary from run to run).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parents[1] / "src"
sys.path.insert(0, str(SRC))

import aiohttp  # noqa: E402

from wwm.portal.store import PortalStore  # noqa: E402
from wwm.server.process import ServerProcess  # noqa: E402


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def start_portal(db: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen([sys.executable, "-m", "wwm.portal", "--port", "0", "--db", db, "--check-every", "0",
                              "--rate-limit", "run=10000/60"],   # every run from this one address
                             stdout=subprocess.PIPE, text=True, env=env)
    assert child.stdout is not None
    for line in child.stdout:
        found = re.search(r"^serving the portal at (http://\S+?)/? ", line)
        if found:
            return child, found.group(1)
    raise SystemExit("the portal did not start")


# ---- viewers (in processes of their own) -------------------------------------------------------
EVENT = re.compile(rb"^event: ?(\w+)", re.M)
AT = re.compile(rb'"at": ([0-9.eE+-]+)')


async def _view(url: str, seconds: float, delays: list[float], counts: dict[str, int], ready: Any) -> None:
    """Follow one run's stream until told to stop: each step's delay from its ``at`` (taken by a
    regular expression, not a JSON parse: a viewer is a load generator here, kept cheap)."""
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as reply:
        counts["connected"] += reply.status == 200
        deadline = time.monotonic() + seconds
        measuring = False
        buffer = b""
        while time.monotonic() < deadline and ready.value != -2:
            try:
                raw = await asyncio.wait_for(reply.content.readany(), deadline - time.monotonic())
            except TimeoutError:
                break
            if not raw:
                break
            arrived = time.time()
            *blocks, buffer = (buffer + raw).split(b"\r\n\r\n")
            for block in blocks:
                found = EVENT.search(block)
                event = found.group(1) if found else b""
                if event == b"record":
                    with ready.get_lock():
                        if ready.value >= 0:
                            ready.value += 1
                elif not measuring:
                    measuring = ready.value == -1   # the page client has started: count from now
                if not measuring:
                    continue
                if event == b"step":
                    at = AT.findall(block)
                    if at:
                        delays.append((arrived - float(at[-1])) * 1000)
                    counts["steps"] += 1
                elif event == b"gap":
                    counts["gaps"] += 1


def viewers(urls: list[str], seconds: float, out: Any, ready: Any, nice: int) -> None:
    if nice:
        os.nice(nice)   # browsers run elsewhere: the stand-ins yield the CPU to the portal
    delays: list[float] = []
    counts = {"connected": 0, "steps": 0, "gaps": 0}

    async def main() -> None:
        await asyncio.gather(*(_view(u, seconds, delays, counts, ready) for u in urls), return_exceptions=True)

    asyncio.run(main())
    out.put((delays, counts))


# ---- pages -------------------------------------------------------------------------------------
async def pages(base: str, paths: dict[str, list[str]], seconds: float,
                failures: list[str]) -> dict[str, list[float]]:
    """One request at a time, round robin over the kinds: each kind's latencies (ms)."""
    found: dict[str, list[float]] = {kind: [] for kind in paths}
    statuses: dict[str, set[int]] = {kind: set() for kind in paths}
    deadline = time.monotonic() + seconds
    i = 0
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            for kind, options in paths.items():
                started = time.perf_counter()
                async with session.get(base + options[i % len(options)]) as reply:
                    await reply.read()
                    statuses[kind].add(reply.status)
                found[kind].append((time.perf_counter() - started) * 1000)
            i += 1
    for kind, seen in statuses.items():
        if seen != {200}:
            failures.append(f"the {kind} answered HTTP {sorted(seen)}, not only 200: its figure is not that page's")
    return found


# ---- where the CPU went (Linux) ----------------------------------------------------------------
def cpu_ticks(pids: dict[str, list[int]]) -> tuple[dict[str, int], int, int] | None:
    """CPU ticks (user + system) used so far by each group of processes, and the machine's
    busy and total ticks (all cores), from /proc; None where there is no /proc."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return None
    busy, total = sum(fields) - fields[3] - fields[4], sum(fields)   # all but idle and iowait
    used = {}
    for group, members in pids.items():
        used[group] = 0
        for pid in members:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            used[group] += int(stat[11]) + int(stat[12])
    return used, busy, total


def cpu_report(before: Any, after: Any, seconds: float) -> str:
    if before is None or after is None:
        return ""
    hz, cores = os.sysconf("SC_CLK_TCK"), os.cpu_count() or 1
    share = {g: (after[0][g] - before[0][g]) / hz / seconds * 100 for g in after[0]}
    busy = (after[1] - before[1]) / max(1, after[2] - before[2]) * cores * 100
    parts = ", ".join(f"{g} {v:.0f}%" for g, v in share.items())
    return (f"CPU during the pages (100% = one core; {cores} cores): {parts}; everything else on the machine "
            f"{max(0.0, busy - sum(share.values())):.0f}%; machine busy {busy:.0f}% of {cores * 100}%")


def steps_recorded(db: str) -> int:
    from sqlalchemy import create_engine, func, select

    from wwm.store import schema

    engine = create_engine(db)
    try:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(schema.steps)).scalar_one())
    finally:
        engine.dispose()


async def start_runs(base: str, cid: int, n: int) -> list[str]:
    paths = []
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as session:
        for make_identity in (True, False):   # a GET makes no identity; the token is bound to the one a POST makes
            async with session.get(base + "/me") as reply:
                csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', await reply.text()).group(1)  # type: ignore[union-attr]
            if make_identity:
                async with session.post(base + "/me/recovery", data={"csrf": csrf}) as reply:
                    assert reply.status == 200, await reply.text()
        for _ in range(n):
            async with session.post(f"{base}/combination/{cid}/runs", data={"csrf": csrf, "steps": "until ended"},
                                    allow_redirects=False) as reply:
                assert reply.status == 303, await reply.text()
                paths.append(reply.headers["location"])
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--viewers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long pages are measured")
    parser.add_argument("--viewer-processes", type=int, default=4)
    parser.add_argument("--viewer-nice", type=int, default=0,
                        help="niceness of the viewer processes (stand-ins for browsers on other machines), "
                             "so that they do not take the portal's CPU; 0: the same priority as the portal")
    args = parser.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="wwm-portal-bench-")
    db = f"sqlite:///{Path(tmp.name) / 'portal.db'}"
    world, mind = ServerProcess("wwm.kit.grid:GridWorld"), ServerProcess("wwm.kit.grid_minds:FoodSeeker")
    world.start()
    mind.start()
    store = PortalStore(db)
    author = store.new_user().user
    combination = store.save_combination(author_id=author.id, title="bench", world_url=world.url, document={
        "world": {"url": world.url, "args": {"size": 8}}, "mind": {"url": mind.url}, "run": {"timeout": 5.0}})
    store.close()
    portal, base = start_portal(db)
    procs: list[multiprocessing.Process] = []
    try:
        failures: list[str] = []
        run_pages = asyncio.run(start_runs(base, combination.id, args.runs))
        live = [f"{base}/run/{p.rsplit('/', 1)[1]}/live" for p in run_pages]
        per_viewer = [live[i % len(live)] for i in range(args.viewers)]
        ctx = multiprocessing.get_context("spawn")
        out = ctx.Queue()
        ready = ctx.Value("i", 0)        # viewers with their record; -1 once the pages start
        k = args.viewer_processes
        watch = args.seconds + 60.0
        t0 = time.monotonic()
        for j in range(k):
            proc = ctx.Process(target=viewers, args=(per_viewer[j::k], watch, out, ready, args.viewer_nice),
                               daemon=True)
            proc.start()
            procs.append(proc)
        while ready.value < args.viewers and time.monotonic() - t0 < 60:
            time.sleep(0.05)
        connected_in = time.monotonic() - t0
        if ready.value < args.viewers:
            failures.append(f"only {ready.value} of {args.viewers} viewers had their run's record after 60 s")
        ready.value = -1
        time.sleep(1.0)                  # the records' bursts are over
        kinds = {"static file (floor)": ["/static/portal.css"],
                 "combination page": [f"/combination/{combination.id}"],
                 "run page": run_pages}
        groups = {"portal": [portal.pid], "World+Mind servers": [world.process.pid, mind.process.pid],
                  "viewers": [p.pid for p in procs if p.pid is not None], "page client": [os.getpid()]}
        steps_before, cpu_before, t1 = steps_recorded(db), cpu_ticks(groups), time.monotonic()
        latencies = asyncio.run(pages(base, kinds, args.seconds, failures))
        steps_after, cpu_after, elapsed = steps_recorded(db), cpu_ticks(groups), time.monotonic() - t1
        for name, process in (("the portal", portal), ("the World server", world.process),
                              ("the Mind server", mind.process)):
            if process.poll() is not None:
                failures.append(f"{name} exited (status {process.returncode}) during the benchmark")
        ready.value = -2                 # the viewers stop counting and leave
        results = []
        for _ in procs:
            try:
                results.append(out.get(timeout=60))
            except queue.Empty:
                break
        for proc in procs:
            proc.join(10)
        dead = [proc.exitcode for proc in procs if proc.exitcode != 0]
        if dead or len(results) < len(procs):
            failures.append(f"{len(procs) - len(results)} of {len(procs)} viewer processes reported nothing "
                            f"(exit statuses {dead})")
        delays = [d for r in results for d in r[0]]
        counts = {key: sum(r[1][key] for r in results) for key in ("connected", "steps", "gaps")}
    finally:
        portal.send_signal(signal.SIGTERM)
        try:
            portal.wait(20)
        except subprocess.TimeoutExpired:
            portal.kill()
        for proc in procs:
            proc.join(5)
        world.stop()
        mind.stop()
        tmp.cleanup()

    if counts["connected"] < args.viewers:
        failures.append(f"{counts['connected']} of {args.viewers} viewers connected")
    if steps_after <= steps_before or not delays:
        failures.append(f"the runs made {steps_after - steps_before} steps and viewers saw {len(delays)} while "
                        "the pages were measured: the load was not there")
    if failures:
        for failure in failures:
            print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    floor = statistics.median(latencies["static file (floor)"])
    floor99 = pct(latencies["static file (floor)"], 0.99)
    print(f"portal under load: {args.runs} runs in progress, {counts['connected']}/{args.viewers} live viewers "
          f"(all with their record {connected_in:.1f} s after the first connected), {args.seconds:g} s of pages")
    print(f"load during the pages: {(steps_after - steps_before) / elapsed:,.0f} steps/s recorded by the runs, "
          f"{counts['steps'] / elapsed:,.0f} steps/s pushed to viewers, {counts['gaps']} gaps")
    report = cpu_report(cpu_before, cpu_after, elapsed)
    if report:
        print(report)
    print(f"baseline, the static file: p50 {floor:.2f} ms, p99 {floor99:.2f} ms (each figure below is a "
          "ratio to it)")
    print(f"{'':24}{'n':>6}{'p50/baseline':>14}{'p99/baseline':>14}")
    for kind, values in latencies.items():
        if kind != "static file (floor)":
            print(f"{kind:24}{len(values):>6}{statistics.median(values) / floor:>14.1f}"
                  f"{pct(values, 0.99) / floor99:>14.1f}")
    print(f"{'step to viewer':24}{len(delays):>6}{statistics.median(delays) / floor:>14.1f}"
          f"{pct(delays, 0.99) / floor99:>14.1f}")
    worst = max(pct(latencies["combination page"], 0.99), pct(latencies["run page"], 0.99)) / floor99
    print(f"the combination and run pages' p99 within 2x of the static file's: {'yes' if worst <= 2 else 'no'} "
          f"({worst:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
