"""Arguments travel down the chain through the protocol (section 3.5: a Mind_M calls an AS
"with arguments (strong M4, weak M5)"), at any depth: a society document three levels deep,

    client -> AS1 (Mind_AS) -> [M1, MM (Mind_M region) -> [AS2 (Mind_AS) -> [M4, M5], M1]]

run from Python over servers hosted in this process (the in-process binding: the protocol is
the point, not the sockets), and as ``wwm run society.yaml`` over real server processes on
loopback, each server writing down the arguments its New run brought it: each gets exactly
those written for it. A member of the wrong shape is refused with one line naming its path,
by ``wwm run`` (before any server is touched) and by the server it is sent to."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml
from nested_probes import read_log

from wwm import Refusal
from wwm.client.inprocess import host
from wwm.client.remote import RemoteMind
from wwm.client.session import run_society
from wwm.client.society import SocietyError, parse
from wwm.server import make_app
from wwm.server.process import ServerProcess
from wwm.targets import load_target

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[1] / "src"
PATH = os.pathsep.join(filter(None, [str(HERE), str(HERE.parent), str(SRC), os.environ.get("PYTHONPATH")]))

SERVERS = {  # name -> what it serves
    "W": "nested_probes:RecordedWorld",
    "AS1": "nested_probes:RecordedAS",
    "M1": "nested_probes:ArgsMind",
    "MM": "nested_probes:RecordedRegion",
    "AS2": "nested_probes:RecordedAS",
    "M4": "nested_probes:ArgsMind",
    "M5": "nested_probes:ArgsMind",
}


class Servers:
    """One process per server, each writing its New runs' arguments to its own log."""

    def __init__(self, folder: Path) -> None:
        self.logs = {name: folder / f"{name}.jsonl" for name in SERVERS}
        self.procs = {name: ServerProcess(target, env={"PYTHONPATH": PATH, "WWM_ARGS_LOG": str(self.logs[name])})
                      for name, target in SERVERS.items()}
        self.url = {name: p.url for name, p in self.procs.items()}

    def __enter__(self) -> Servers:
        with ThreadPoolExecutor(len(self.procs)) as pool:
            list(pool.map(lambda p: p.start(), self.procs.values()))
        return self

    def __exit__(self, *exc: Any) -> None:
        for p in self.procs.values():
            p.stop()

    def received(self, name: str) -> list[dict[str, Any]]:
        """The arguments of each New run the server got, members read back from their JSON."""
        path = self.logs[name]
        return [_members_read(args) for args in read_log(path)] if path.exists() else []


class Hosted:
    """The same servers, hosted in this process (no socket), writing to one log by URL."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch, names: list[str] | None = None,
                 prefix: str = "nested") -> None:
        self.log = folder / "args.jsonl"
        monkeypatch.setenv("WWM_ARGS_LOG", str(self.log))
        self.names = names or list(SERVERS)
        self.url = {name: f"http://{name.rpartition(':')[2].lower()}.{prefix}.inprocess.test/" for name in self.names}
        self._stack = contextlib.AsyncExitStack()

    async def __aenter__(self) -> Hosted:
        for name in self.names:
            target = SERVERS.get(name) or name
            await self._stack.enter_async_context(host(make_app(load_target(target), url=self.url[name])))
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.aclose()

    def received(self, name: str) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [_members_read(args) for args in read_log(self.log, server=self.url[name])]


def _members_read(args: dict[str, Any]) -> dict[str, Any]:
    out = dict(args)
    if "minds" in out:
        out["minds"] = [_member_read(m) for m in out["minds"]]
    return out


def _member_read(entry: Any) -> Any:
    if isinstance(entry, str) and entry.startswith("{"):
        entry = json.loads(entry)
    if isinstance(entry, dict):
        return {"url": entry["url"], "args": _members_read(entry.get("args", {}))}
    return entry


def document(url: dict[str, str]) -> dict[str, Any]:
    """Three levels, each server with arguments of its own (none equal to its defaults)."""
    return {
        "name": "three levels deep",
        "world": {"url": url["W"], "args": {"start": 2, "label": "nested"}},
        "mind": {"url": url["AS1"], "args": {
            "method": "rotation", "timeout": 3.5,
            "minds": [
                {"url": url["M1"], "args": {"greed": 0.3}},
                {"url": url["MM"], "args": {
                    "region": "n<1000", "timeout": 7.5,
                    "minds": [
                        {"url": url["AS2"], "args": {
                            "method": "most-popular", "timeout": 2.5,
                            "minds": [{"url": url["M4"], "args": {"strength": "strong"}},
                                      {"url": url["M5"], "args": {"strength": "weak"}}]}},
                        {"url": url["M1"]},           # the same server again, with no arguments
                    ]}},
            ]}},
        "run": {"steps": 6, "timeout": 10, "keepalive": None},
    }


def expected(url: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    as2 = {"method": "most-popular", "timeout": 2.5,
           "minds": [{"url": url["M4"], "args": {"strength": "strong"}},
                     {"url": url["M5"], "args": {"strength": "weak"}}]}
    mm = {"region": "n<1000", "timeout": 7.5, "minds": [{"url": url["AS2"], "args": as2}, url["M1"]]}
    return {
        "W": [{"start": 2, "label": "nested"}],
        "AS1": [{"method": "rotation", "timeout": 3.5,
                 "minds": [{"url": url["M1"], "args": {"greed": 0.3}}, {"url": url["MM"], "args": mm}]}],
        "MM": [mm],
        "AS2": [as2],
        "M1": [{}, {"greed": 0.3}],   # two runs: under AS1 with its arguments, under MM bare
        "M4": [{"strength": "strong"}],
        "M5": [{"strength": "weak"}],
    }


def assert_each_got_its_own(servers: Servers | Hosted) -> None:
    want = expected(servers.url)
    got = {name: servers.received(name) for name in SERVERS}
    got["M1"] = sorted(got["M1"], key=len)
    assert got == want


async def test_from_python_each_server_receives_exactly_its_own_arguments_three_levels_deep(tmp_path, monkeypatch):
    async with Hosted(tmp_path, monkeypatch) as servers:
        society = parse(document(servers.url))
        result = await run_society(society)
        assert result.status == "completed" and len(result.steps) == 6, result
        assert all(s.action == "+1" for s in result.steps)
        assert_each_got_its_own(servers)


@pytest.mark.slow
def test_wwm_run_society_yaml_gives_each_server_exactly_its_own_arguments(tmp_path):
    with Servers(tmp_path) as servers:
        path = tmp_path / "society.yaml"
        path.write_text(yaml.safe_dump(document(servers.url), sort_keys=False))
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", str(path), "--no-record", "--json"],
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": PATH})
        assert done.returncode == 0, done.stderr + done.stdout
        summary = json.loads(done.stdout)
        assert summary["status"] == "completed", summary
        assert_each_got_its_own(servers)


# ---- members of the wrong shape --------------------------------------------------------------

BAD = [  # (where in the AS's own arguments, the member, what the error says)
    ("args not a mapping", {"url": "http://127.0.0.1:9/", "args": [1, 2]},
     "minds[1].args: the mind's New run arguments are a mapping"),
    ("unknown key", {"url": "http://127.0.0.1:9/", "arg": {}}, "minds[1]: unknown key 'arg'"),
    ("deeper", {"url": "http://127.0.0.1:9/", "args": {"minds": [{"url": "http://127.0.0.1:9/", "args": "weak"}]}},
     "minds[1].args.minds[0].args: the mind's New run arguments are a mapping"),
    ("url not text", {"url": 5}, "minds[1].url: a mind needs its URL as text"),
]


@pytest.mark.parametrize(("case", "member", "says"), BAD, ids=[b[0] for b in BAD])
def test_a_member_of_the_wrong_shape_is_one_line_naming_its_path_in_a_document(case, member, says):
    doc = {"world": {"url": "http://127.0.0.1:9/"},
           "mind": {"url": "http://127.0.0.1:9/", "args": {"minds": ["http://127.0.0.1:9/", member]}}}
    with pytest.raises(SocietyError) as info:
        parse(doc, source="society.yaml")
    text = str(info.value)
    assert "\n" not in text
    if case == "url not text":  # the document's own check: a server's url is a URL
        assert text.startswith("society.yaml: mind.args.minds[1].url")
    elif case == "unknown key":
        assert text.startswith("society.yaml: mind.args.minds[1].arg:") and "Extra inputs" in text
    else:
        assert text.startswith("society.yaml: mind.args." + says.split(":")[0]), text


def test_a_member_that_is_not_a_mind_is_named_in_a_document():
    doc = {"world": {"url": "http://127.0.0.1:9/"},
           "mind": {"url": "http://127.0.0.1:9/", "args": {"minds": [{"url": "http://127.0.0.1:9/", "args": {
               "minds": [42]}}]}}}
    with pytest.raises(SocietyError, match=r"^society: mind\.args\.minds\[0\]\.args\.minds\[0\]: a mind is a URL"):
        parse(doc)
    doc["mind"]["args"]["minds"][0]["args"]["minds"] = [{"class": "probes:ProbeMind"}]
    with pytest.raises(SocietyError, match=r"minds\[0\]\.args\.minds\[0\]: a remote mind's minds must be URLs"):
        parse(doc)


@pytest.mark.slow
def test_wwm_run_refuses_a_bad_member_in_one_line_before_any_server_is_touched(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("world: {url: 'http://127.0.0.1:9/'}\n"
                    "mind:\n  url: 'http://127.0.0.1:9/'\n  args:\n    minds:\n"
                    "      - {url: 'http://127.0.0.1:9/', args: {minds: [{url: 'http://127.0.0.1:9/', args: weak}]}}\n")
    done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", str(path), "--no-record"],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": PATH})
    assert done.returncode == 2
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "mind.args.minds[0].args.minds[0].args" in lines[0] and "Traceback" not in done.stderr


@pytest.mark.parametrize(("case", "member", "says"), BAD, ids=[b[0] for b in BAD])
async def test_an_as_server_refuses_a_member_of_the_wrong_shape_naming_its_path(case, member, says):
    app = make_app(load_target("wwm.selection.mind_as:ActionSelectionMind"), url="http://as.shape.inprocess.test/")
    async with host(app):
        mind = RemoteMind(app.url, minds=["http://127.0.0.1:9/", member])
        try:
            with pytest.raises(Refusal) as info:
                await mind.new_run()
        finally:
            await mind.aclose()
    assert info.value.code == "bad-parameters"
    assert says in info.value.text and "\n" not in info.value.text, info.value.text


async def test_a_refusal_deep_down_comes_back_up_with_the_path_of_each_level(tmp_path, monkeypatch):
    """AS1 -> MM -> [...]: AS1 checks the shape of its members all the way down and names the
    path at once; what only MM can judge (its region) MM refuses, and AS1 passes that on
    naming which of its minds it was."""
    hosted = Hosted(tmp_path, monkeypatch, ["wwm.selection.mind_as:ActionSelectionMind", "wwm.kit.region:RegionMind",
                                            "nested_probes:ArgsMind"], prefix="deep")
    top, region, leaf = (hosted.url[name] for name in hosted.names)

    async def refusal(member: dict[str, Any]) -> Refusal:
        mind = RemoteMind(top, minds=[leaf, member])  # as a Python client would send it
        try:
            with pytest.raises(Refusal) as info:
                await mind.new_run()
        finally:
            await mind.aclose()
        assert "\n" not in info.value.text
        return info.value

    async with hosted:
        bad_shape = await refusal({"url": region, "args": {
            "region": "n<3", "minds": [leaf, {"url": leaf, "args": "weak"}]}})
        assert bad_shape.code == "bad-parameters"
        assert "minds[1].args.minds[1].args: the mind's New run arguments are a mapping" in bad_shape.text
        bad_region = await refusal({"url": region, "args": {"region": "n<<3", "minds": [leaf, leaf]}})
        assert bad_region.code == "mind-url-invalid"
        assert bad_region.text.startswith(f"minds[1] {region}: ") and "n<<3" in bad_region.text, bad_region.text


@pytest.mark.slow
def test_the_nested_example_runs_against_its_servers(tmp_path):
    """examples/societies/nested-args.yaml, its servers started as its comment says."""
    root = HERE.parents[1]
    text = (root / "examples/societies/nested-args.yaml").read_text()
    targets = re.findall(r"wwm serve (\S+) --port (\d+)", text)
    assert len(targets) == 7
    procs = [ServerProcess(target, env={"PYTHONPATH": PATH}) for target, _ in targets]
    with ThreadPoolExecutor(len(procs)) as pool:
        list(pool.map(lambda p: p.start(), procs))
    try:
        for (_, port), proc in zip(targets, procs, strict=True):
            text = text.replace(f"http://127.0.0.1:{port}/", proc.url)
        path = tmp_path / "nested.yaml"
        path.write_text(text)
        done = subprocess.run([sys.executable, "-m", "wwm.cli.main", "run", str(path), "--steps", "20",
                               "--no-record", "--json"], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": PATH})
        assert done.returncode == 0, done.stderr + done.stdout
        assert json.loads(done.stdout)["status"] in ("completed", "ended by world")
    finally:
        for p in procs:
            p.stop()


async def test_a_member_with_arguments_travels_in_the_xml_encoding_too(tmp_path, monkeypatch):
    hosted = Hosted(tmp_path, monkeypatch, ["AS1", "M1"], prefix="xml")
    top, leaf = hosted.url["AS1"], hosted.url["M1"]
    async with hosted:
        member = {"url": leaf, "args": {"strength": "strong", "greed": 0.3}}
        async with RemoteMind(top, encoding="xml", minds=[member, leaf]) as mind:
            await mind.new_run()
            assert (await mind.get_action("n=0")).action == "+1"
            await mind.end_run()
    (as_args,) = read_log(hosted.log, server=top)
    assert [_member_read(m) for m in as_args["minds"]] == [member, leaf]
    assert sorted(read_log(hosted.log, server=leaf), key=len) == [{}, {"strength": "strong", "greed": 0.3}]
