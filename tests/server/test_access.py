"""The owner's rules of who may use a server (section 4.3 item 2), over real ``wwm serve``
processes: clients blocked or allowed by their client URL (client-blocked), and an access token
(authentication-required when missing or wrong); the server goes on serving after each
refusal, and the World or Mind never sees the token."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request

import pytest
from probes import PROBE_ENV

from wwm import Refusal
from wwm.client import RemoteMind, RemoteWorld
from wwm.server.process import ServerProcess, json_card

SECRET = "s3cret-token-for-the-test"


@pytest.fixture(scope="module")
def guarded_world():
    extra = ["--allow-clients", "urn:good:*,urn:also:*", "--block-clients", "urn:good:evil", "--tcp-port", "0"]
    with ServerProcess("probes:ProbeWorld", env=PROBE_ENV, extra=extra) as server:
        yield server


@pytest.fixture(scope="module")
def token_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("access") / "token"
    path.write_text(SECRET + "\n")
    return path


@pytest.fixture(scope="module")
def locked_mind(token_file):
    with ServerProcess("probes:ProbeMind", env=PROBE_ENV, extra=["--token-file", str(token_file)]) as server:
        yield server


async def refused(remote, code: str) -> str:
    with pytest.raises(Refusal) as caught:
        await remote.new_run()
    assert caught.value.code == code, caught.value
    return caught.value.text


@pytest.mark.parametrize(("encoding", "transport"), [("xml", "http"), ("json", "http"), ("json", "ws")])
async def test_clients_are_blocked_or_allowed_by_their_url(guarded_world, encoding, transport):
    url = guarded_world.url if transport == "http" else guarded_world.url.replace("http://", "ws://") + "ws"
    async with RemoteWorld(url, client_url="urn:good:one", encoding=encoding, transport=transport) as good:
        await good.new_run()
        for client in ("urn:bad:x", "urn:good:evil", None):   # not allowed; allowed but blocked; unnamed
            async with RemoteWorld(url, client_url=client, encoding=encoding, transport=transport) as other:
                text = await refused(other, "client-blocked")
                assert (client or "client URL") in text
            assert (await good.execute_action("+1")).state.startswith("n=")  # the allowed run goes on
        async with RemoteWorld(url, client_url="urn:also:two", encoding=encoding, transport=transport) as also:
            await also.new_run()
            await also.end_run()
        await good.end_run()


def test_every_binding_and_query_is_guarded(guarded_world):
    # a query of a run in progress, sent by a blocked client over TCP frames, is refused too
    tcp = json_card(guarded_world.url)["bindings"]["tcp"]

    async def go() -> None:
        async with RemoteWorld(guarded_world.url, client_url="urn:good:one") as good:
            await good.new_run()
            async with RemoteWorld(tcp, transport="tcp", client_url="urn:bad:x") as thief:
                thief.run_id = good.run_id  # even with a run ID it learnt
                with pytest.raises(Refusal) as caught:
                    await thief.get_state()
                assert caught.value.code == "client-blocked"
            await good.end_run()

    asyncio.run(go())


@pytest.mark.parametrize("encoding", ["xml", "json"])
async def test_a_token_is_needed_and_never_seen_by_the_mind(locked_mind, encoding):
    async with RemoteMind(locked_mind.url, encoding=encoding, token=SECRET) as mind:
        await mind.new_run()
        for token, words in ((None, "needs its access token"), ("wrong", "is not this server's")):
            async with RemoteMind(locked_mind.url, encoding=encoding, token=token) as other:
                text = await refused(other, "authentication-required")
                assert words in text and SECRET not in text
            # the open-ended items of Get action reach the mind: the token is not among them
            assert (await mind.get_action("s")).action == "echo:s"
        await mind.end_run()


def test_the_card_says_a_token_is_needed_never_which(locked_mind, guarded_world):
    card = json_card(locked_mind.url)
    assert card["access"] == {"token_required": True, "token_item": "access token", "clients_restricted": False}
    assert json_card(guarded_world.url)["access"]["clients_restricted"] is True
    with urllib.request.urlopen(locked_mind.url, timeout=10) as page:
        html = page.read().decode()
    assert "access token" in html and SECRET not in html and SECRET not in json.dumps(card)
    request = urllib.request.Request(locked_mind.url, json.dumps({"query": "New run"}).encode(),
                                     {"Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as caught:  # over HTTP: 401
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 401


def _wwm(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "160", "PYTHONPATH": PROBE_ENV["PYTHONPATH"]}
    return subprocess.run([sys.executable, "-m", "wwm.cli.main", *args], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.slow
def test_wwm_run_sends_the_token(locked_mind, probe_world, token_file):
    # the world asks for no token: the item reaches it and is set aside, not refused
    base = ["run", "--mind", locked_mind.url, "--world", probe_world.url, "--steps", "3", "--no-record", "--json"]
    done = _wwm(*base, "--token-file", str(token_file))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steps"] == 3
    without = _wwm(*base)
    assert without.returncode == 1 and "authentication-required" in without.stderr


def test_an_unusable_token_file_stops_the_server_with_one_line(tmp_path):
    empty = tmp_path / "empty"
    empty.write_text("\n")
    for path, words in ((tmp_path / "missing", "cannot read the token file"), (empty, "is empty")):
        done = _wwm("serve", "probes:ProbeWorld", "--port", "0", "--token-file", str(path))
        assert done.returncode == 2
        assert words in done.stderr and str(path) in done.stderr and "Traceback" not in done.stderr


@pytest.fixture(scope="module")
def action_selection():
    with ServerProcess("wwm.selection.mind_as:ActionSelectionMind", env=PROBE_ENV) as server:
        yield server


async def test_an_action_selection_server_sends_its_member_the_token_given_for_it(action_selection, locked_mind):
    """A member whose server asks for a token is ``{url, token}``: the AS sends it with every
    query to that member, and shows it nowhere; without it the member refuses the AS."""
    member = {"url": locked_mind.url, "token": SECRET}
    async with RemoteMind(action_selection.url, minds=[json.dumps(member)], min_members=1) as society:
        await society.new_run()
        assert (await society.get_action("s")).action == "echo:s"   # the locked mind answered
        await society.end_run()
    with urllib.request.urlopen(action_selection.url, timeout=10) as page:
        assert SECRET not in page.read().decode()
    async with RemoteMind(action_selection.url, minds=[locked_mind.url], min_members=1) as society:
        text = await refused(society, "too-few-minds")
        assert "needs its access token" in text and SECRET not in text


@pytest.mark.slow
def test_a_society_document_gives_a_member_its_token_file(action_selection, locked_mind, probe_world,
                                                           token_file, tmp_path):
    def society(member: dict) -> str:
        path = tmp_path / "society.json"
        path.write_text(json.dumps({"mind": {"url": action_selection.url, "args": {"minds": [member],
                                                                                    "min_members": 1}},
                                    "world": {"url": probe_world.url}}))
        return str(path)

    done = _wwm("run", society({"url": locked_mind.url, "token-file": str(token_file)}), "--steps", "3",
                "--no-record", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["steps"] == 3
    missing = _wwm("run", society({"url": locked_mind.url, "token-file": str(tmp_path / "nowhere")}), "--steps", "3",
                   "--no-record")
    assert missing.returncode == 2 and "mind.args.minds[0].token-file: cannot read the token file" in missing.stderr


def test_a_snapshot_keeps_a_member_s_token_and_never_shows_it():
    """A restarted --state server reconnects to its members' runs with their tokens."""
    import pickle

    from wwm.kit.region import freeze, thaw

    mind = RemoteMind("http://127.0.0.1:9/", token=SECRET, client_url="urn:c")
    mind.run_id = "r1"
    for kept in (freeze(mind), mind):          # a wrapper's reference, an AS's remote mind
        back = pickle.loads(pickle.dumps(kept))
        back = thaw(back) if not isinstance(back, RemoteMind) else back
        assert back.token == SECRET and back.run_id == "r1"
        assert SECRET not in repr(kept)
