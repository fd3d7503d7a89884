"""Sequence numbers on the server (wwm.protocol.sequence): a numbered query that changes a
run is acted on once; sent again with its number it is answered from what was kept (marked
``repeated``), on the short way and the general way, in JSON and XML, while it is still being
acted on, and after a restart from the ``--state`` file; a query without a number is answered
as before."""

from __future__ import annotations

import asyncio
import json

import pytest

from wwm import Outcome, RunStarted, World
from wwm.protocol import jsoncodec, xmlcodec
from wwm.protocol.context import current_server
from wwm.server.dispatch import Dispatcher
from wwm.server.runs import RunTable
from wwm.server.snapshots import SnapshotFile


class Counter(World):
    """n counts the actions executed; "wait" waits for the class's gate first."""

    gate: asyncio.Event | None = None

    def __init__(self) -> None:
        self.n = 0

    async def new_run(self, client_url: str | None = None) -> RunStarted:
        return RunStarted()

    async def get_state(self) -> str:
        return f"n={self.n}"

    async def execute_action(self, action: str) -> Outcome:
        if action == "wait" and Counter.gate is not None:
            await Counter.gate.wait()
        self.n += 1
        return Outcome(f"n={self.n}", 1.0)

    async def reset(self) -> None:
        self.n = 0


def dispatcher(snapshots: SnapshotFile | None = None) -> Dispatcher:
    return Dispatcher(Counter, url="http://127.0.0.1:1/", runs=RunTable(Counter, snapshots=snapshots))


async def new_run(d: Dispatcher) -> str:
    _, response = await d.answer_bytes(b'{"query": "New run"}')
    assert response.refusal is None and response.data["sequence numbers"] is True
    return str(response.data["world run ID"])


def execute(run_id: str, action: str = "+1", number: object = None) -> bytes:
    data: dict[str, object] = {"world run ID": run_id, "action": action}
    if number is not None:
        data["sequence number"] = number
    return json.dumps({"wwm": "1.0", "query": "Execute action", "data": data}).encode()


async def payload(d: Dispatcher, raw: bytes) -> dict:
    token = current_server.set(d.trail)
    try:
        return json.loads(await d.answer_payload(raw))
    finally:
        current_server.reset(token)


async def test_a_numbered_query_sent_again_is_answered_from_what_was_kept():
    d = dispatcher()
    run_id = await new_run(d)
    first = await payload(d, execute(run_id, number=7))          # the short way
    again = await payload(d, execute(run_id, number=7))          # a repeat: the general way
    assert first["data"] == {"state": "n=1", "score": 1}
    assert again["data"] == {"state": "n=1", "score": 1, "repeated": True}
    assert (await payload(d, execute(run_id, number=8)))["data"] == {"state": "n=2", "score": 1}
    # in XML, its number as text: the same kept answer
    xml = xmlcodec.encode(xmlcodec.Query("Execute action", {"world run ID": run_id, "action": "+1",
                                                            "sequence number": "8"}))
    codec, response = await d.answer_bytes(xml, "application/xml")
    assert codec is xmlcodec and response.data == {"state": "n=2", "score": 1, "repeated": True}
    assert d.runs.runs[run_id].obj.n == 2


async def test_the_last_four_answers_are_kept_and_older_numbers_are_acted_on():
    d = dispatcher()
    run_id = await new_run(d)
    for number in range(1, 7):
        await payload(d, execute(run_id, number=number))
    assert (await payload(d, execute(run_id, number=3)))["data"]["repeated"] is True
    assert "repeated" not in (await payload(d, execute(run_id, number=2)))["data"]  # no longer kept
    assert d.runs.runs[run_id].obj.n == 7


async def test_queries_without_numbers_act_each_time():
    d = dispatcher()
    run_id = await new_run(d)
    answers = [await payload(d, execute(run_id)) for _ in range(3)]
    assert [a["data"]["state"] for a in answers] == ["n=1", "n=2", "n=3"]


@pytest.mark.parametrize("number", ["seven", -1, 1.5, True, 2**53, [1]])
async def test_a_bad_number_is_refused_naming_the_item(number):
    d = dispatcher()
    run_id = await new_run(d)
    answer = await payload(d, execute(run_id, number=number))
    assert answer["refusal"]["code"] in ("bad-parameters", "malformed-message")
    assert "sequence number" in answer["refusal"]["text"] or answer["refusal"]["code"] == "malformed-message"
    assert d.runs.runs[run_id].obj.n == 0


async def test_a_number_kept_for_another_query_is_refused():
    d = dispatcher()
    run_id = await new_run(d)
    await payload(d, execute(run_id, number=1))
    reset = {"wwm": "1.0", "query": "Reset", "data": {"world run ID": run_id, "sequence number": 1}}
    answer = await payload(d, json.dumps(reset).encode())
    assert answer["refusal"]["code"] == "bad-parameters" and "execute_action" in answer["refusal"]["text"]
    assert d.runs.runs[run_id].obj.n == 1


async def test_a_repeat_that_comes_while_the_first_is_acted_on_waits_for_its_answer():
    Counter.gate = asyncio.Event()
    try:
        d = dispatcher()
        run_id = await new_run(d)
        first = asyncio.ensure_future(payload(d, execute(run_id, "wait", number=5)))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(payload(d, execute(run_id, "wait", number=5)))
        await asyncio.sleep(0)
        assert not first.done() and not second.done()
        Counter.gate.set()
        answers = await asyncio.gather(first, second)
        assert answers[0]["data"] == {"state": "n=1", "score": 1}
        assert answers[1]["data"] == {"state": "n=1", "score": 1, "repeated": True}
    finally:
        Counter.gate = None


async def test_kept_answers_outlive_a_restart_with_the_state_file(tmp_path):
    """Saved in the same row as the run's state: a server started again on the file answers
    the last numbered query from it, and has not acted on it twice."""
    first = SnapshotFile(tmp_path / "runs.db")
    d = dispatcher(first)
    run_id = await new_run(d)
    await payload(d, execute(run_id, number=41))
    await payload(d, execute(run_id, number=42))
    first.close()  # (a kill -9 leaves the same rows: each is written before its answer goes)
    again = SnapshotFile(tmp_path / "runs.db")
    table = RunTable(Counter, snapshots=again)
    assert table.restore() == 1
    d2 = Dispatcher(Counter, url="http://127.0.0.1:1/", runs=table)
    assert (await payload(d2, execute(run_id, number=42)))["data"] == {"state": "n=2", "score": 1, "repeated": True}
    assert (await payload(d2, execute(run_id, number=43)))["data"] == {"state": "n=3", "score": 1}
    again.close()


def test_a_state_file_written_before_sequence_numbers_is_taken_up(tmp_path):
    """An older file's runs table has no answers column: it is added, its runs restored."""
    import pickle
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, client_url TEXT, display_token TEXT, "
               "saved REAL, object BLOB)")
    db.execute("INSERT INTO runs VALUES ('r1', NULL, 'tok', 0, ?)", (pickle.dumps(Counter()),))
    db.commit()
    db.close()
    snapshots = SnapshotFile(path)
    ((run_id, _, _, obj, answers),) = snapshots.load_runs()
    assert run_id == "r1" and isinstance(obj, Counter) and answers is None
    snapshots.close()


def test_the_json_codec_carries_the_items():
    message = jsoncodec.decode(b'{"query": "Execute action", "data": {"world run ID": "r", '
                               b'"action": "a", "sequence number": 3}}')
    assert message.data["sequence number"] == 3
