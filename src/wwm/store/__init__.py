"""The run records (issue 2, item 5): every run the client drives, with its servers,
arguments, steps, states, actions, scores, timings and events, in a database -- an SQLite
file by default, any SQLAlchemy URL (PostgreSQL) when configured. ``wwm runs`` reads them.

The contract the client's run loop uses::

    from wwm.store import RunStore, StepRecord
    store = RunStore(url=None)   # None: $WWM_DATABASE_URL, else the SQLite file
                                 # $XDG_DATA_HOME/wwm/runs.db (~/.local/share/wwm/runs.db);
                                 # any SQLAlchemy URL otherwise (postgresql:// uses psycopg 3)
    run_id = store.start_run(mind_url=..., world_url=..., society={...}, settings={...})
    store.record_step(run_id, StepRecord(index, state, action, new_state, score, mind_q,
                      seconds_get_state, seconds_get_action, seconds_execute,
                      seconds_inform, note))     # queued: in the database within ~0.5 s
    store.record_event(run_id, step_index, kind, text)   # "timeout", "world-down", ...
    store.finish_run(run_id, status, total_score, steps) # writes the queue first
    store.list_runs(limit=20) -> list[RunSummary]
    store.get_run(run_id) -> RunDetail                   # .steps, .events
    store.close()                                        # or use ``with RunStore() as store``

A client that can carry a run on after it restarts (the portal) keeps what it needs in the
run's row (``store.set_resume(run_id, {...})``, ``store.resume_of(run_id)``), leaves the run
unfinished with ``store.suspend_run(run_id, "suspended at step k")`` and takes it up again,
in the same or another process, with ``store.adopt_run(run_id, status=...)``. The run store
is the one place a run's status lives (issue 26, item 8): ``store.states(ids)`` reads many
runs' states at once (``RunState``: live status, steps, scores), ``store.running(limit)`` the
runs being written now, ``store.unfinished(like=...)`` the runs left behind and
``store.close_left(run_id, status, kind, text, current=...)`` finishes one (:mod:`.states`).

``StoreRecorder(store, mind_url=..., world_url=..., society=..., settings=...)`` plugs the
store into :class:`wwm.client.runner.Runner` as its ``recorder``.

Safety: a background thread commits queued rows every 0.25 s (or every 1,000 rows), so a
process killed mid-run loses at most the last ~0.5 s of steps; what was committed is
readable at once from other processes (SQLite runs in WAL mode). A run whose writer died
reads as "interrupted" (its process is gone from this host, or its heartbeat, written every
5 s, is older than 30 s); one still being written reads as "running".
Text is stored as given, except NUL (stored as U+FFFD, since PostgreSQL text cannot hold it)
and lone surrogates (stored as backslash escapes); a NaN score is stored as None.
"""

from .engine import ENV_VAR, NoStore, StoreError, default_path, resolve_url
from .recorder import StoreRecorder
from .records import EventRecord, RunDetail, RunSummary, StepRecord
from .states import RunState, Unfinished
from .store import RunStore, UnknownRun

__all__ = ["ENV_VAR", "EventRecord", "NoStore", "RunDetail", "RunState", "RunStore", "RunSummary", "StepRecord",
           "StoreError", "StoreRecorder", "Unfinished", "UnknownRun", "default_path", "resolve_url"]
