"""Shared fixtures: real server processes on loopback for the probe servers."""

from __future__ import annotations

import os
import signal
import tempfile

import pytest
from probes import probe_server
from signal_bed import signal_bed as start_signal_bed
from signal_bed import space_writer

from wwm.store.pgtemp import TempPostgres


def pytest_configure(config):
    """Runs recorded by the tests (and by the processes they start) go to a throw-away
    database, never to the user's own ~/.local/share/wwm/runs.db."""
    # With pytest-xdist each worker process gets a database of its own (the workers inherit the
    # controller's environment, so a URL the suite made is made again, per worker).
    made_here = os.environ.get("WWM_TEST_DATABASE_MADE") == "1"
    if "WWM_DATABASE_URL" not in os.environ or (made_here and os.environ.get("PYTEST_XDIST_WORKER")):
        folder = tempfile.mkdtemp(prefix="wwm-test-runs-")
        os.environ["WWM_DATABASE_URL"] = f"sqlite:///{folder}/runs.db"
        os.environ["WWM_TEST_DATABASE_MADE"] = "1"
    # The tests send Ctrl-C (SIGINT) to the commands they start, as a terminal would. A suite
    # started as a background job (`cmd &` in a script) inherits SIGINT ignored, and so would
    # every process it starts; a handler of its own here makes them start with the default.
    # What the tests' minds learn (7.3) and the portal's default database go to a throw-away data
    # home too, never the user's ~/.local/share/wwm, and never another test session's.
    if "WWM_TEST_DATA_HOME" not in os.environ or os.environ.get("PYTEST_XDIST_WORKER"):
        home = tempfile.mkdtemp(prefix="wwm-test-data-")
        os.environ["XDG_DATA_HOME"] = os.environ["WWM_TEST_DATA_HOME"] = home
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    """The order the test processes are handed the files in (scripts/test.sh: each file to one
    process, in this order): the files marked ``early`` first (a long chain of steps, which
    handed out late would end the suite on its own), then the files with the most tests (as
    pytest-xdist's own order, which scripts/test.sh turns off for this one)."""
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    ranked = sorted(files.values(), key=lambda tests: (tests[0].get_closest_marker("early") is None, -len(tests)))
    items[:] = [item for tests in ranked for item in tests]


@pytest.fixture(autouse=True)
def knowledge_dir(tmp_path, monkeypatch):
    """Every test keeps what its minds and Action Selection servers learn (7.3) in a folder of
    its own: a learning society recalls what it learnt with the same client in an earlier run,
    so a test must never meet another test's (or an earlier session's) learning."""
    folder = tmp_path / "knowledge"
    monkeypatch.setenv("WWM_KNOWLEDGE_DIR", str(folder))
    return folder


@pytest.fixture(scope="session")
def probe_world():
    with probe_server("ProbeWorld") as server:
        yield server


@pytest.fixture(scope="session")
def probe_mind():
    with probe_server("ProbeMind") as server:
        yield server


@pytest.fixture(scope="session")
def postgres():
    """One throw-away PostgreSQL cluster for the whole session (initdb and pg_ctl in a temp dir,
    on a free loopback port), started by the first test that asks; ``new_schema()`` gives each
    test a fresh database URL in it."""
    with TempPostgres() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def signal_bed():
    """The search's test bed (tests/signal_bed.py): the Signal World, an AS and eight candidate
    minds, each a ``wwm serve`` process; URL by name."""
    with start_signal_bed() as bed:
        yield bed


@pytest.fixture
def space_file(tmp_path, signal_bed):
    """Writes a search space over the Signal World bed (``space_file(**changes)``)."""
    return space_writer(tmp_path, signal_bed)
