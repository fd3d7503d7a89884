"""The scripted A, taking a tenth of a second to think of each line: a person-paced A, so a
test can kill the Meta(A) server in the middle of a question. Served with ``wwm serve
slow_mind:SlowScriptedMind`` (tests put this folder on PYTHONPATH)."""

from __future__ import annotations

import asyncio

from wwm.meta.mind import ScriptedMind
from wwm.protocol.results import Suggestion


class SlowScriptedMind(ScriptedMind):
    async def get_action(self, state: str) -> Suggestion:
        await asyncio.sleep(0.1)
        return await super().get_action(state)
