"""``--backend ray``: a sweep over a local Ray cluster returns exactly what a serial run does."""

import pytest

from wwm.lambdastar import sweep

pytestmark = pytest.mark.slow


def test_ray_sweep_equals_serial():
    pytest.importorskip("ray")
    import ray

    jobs = sweep.jobs(["random", "local", "stigmergy"], sizes=[1, 2], grids=[6, 8], seeds=[0, 1],
                      episodes=20, iterations=20)
    serial = sweep.run(jobs)
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        distributed = sweep.run(jobs, backend="ray")
    finally:
        ray.shutdown()
    assert len(distributed) == len(jobs) == 24
    assert sweep.same_results(serial, distributed)
    assert [r.upsilon for r in serial] == [r.upsilon for r in distributed]
