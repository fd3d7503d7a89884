"""Where a test's time goes: the phases the code marks are collected on demand, exclusive
(a phase inside another pauses it), and add up to no more than the whole."""

import time

from wwm.lambdastar import phases, sweep


def test_phases_of_a_whole_test_add_up():
    jobs = sweep.jobs(["local", "random"], episodes=50, iterations=20, seeds=[11])
    sweep._battery.cache_clear()
    t0 = time.perf_counter()
    with phases.collect() as spent:
        sweep.run(jobs)
    whole = time.perf_counter() - t0
    assert {"patterns", "complexity", "battery", "starts and draws", "agents", "scoring"} <= set(spent)
    assert all(v >= 0 for v in spent.values()) and sum(spent.values()) <= whole
    with phases.collect() as again:  # the battery is cached now: no patterns to make
        sweep.run(jobs)
    assert "patterns" not in again and "agents" in again


def test_nothing_is_collected_unless_asked():
    with phases.phase("agents"):
        pass
    with phases.collect() as spent, phases.phase("outer"), phases.phase("inner"):
        time.sleep(0.02)
    assert spent["inner"] >= 0.02 > spent["outer"] and "agents" not in spent
