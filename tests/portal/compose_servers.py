"""A Mind_AS whose arguments carry what the compose form reads (descriptions, ranges, a list
of methods each with a sentence, an advanced mark) in a small set the tests can name, and one
whose arguments carry nothing (``PLAIN``); each served by a real ``wwm serve`` process
(``ServerProcess(TUNED, env=TESTS_ON_PATH)``) for the compose tests."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from wwm.selection.mind_as import ActionSelectionMind

HERE = Path(__file__).resolve().parent
TUNED = "compose_servers:TunedSelector"
TESTS_ON_PATH = {"PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)}

METHOD_SENTENCES = {
    "w=q": "Each mind's say is how much it would lose by not being obeyed, learnt as it goes.",
    "hierarchical-q": "It learns which member to obey in each state, from the reward.",
    "min-worst-unhappiness": "The action least bad for the unhappiest member.",
}


class TunedSelector(ActionSelectionMind):
    """An Action Selection server whose arguments say, for a person, what each one does: see
    :class:`wwm.selection.mind_as.ActionSelectionMind` (``method`` is one of a few)."""

    title = "Tuned Action Selection (test)"

    def __init__(
            self,
            minds: Sequence[str | Mapping[str, Any]] | str | None = None,
            method: Annotated[Literal["w=q", "hierarchical-q", "min-worst-unhappiness"], Field(
                description="How the members' suggestions are weighed against each other.",
                json_schema_extra={"x-choices": METHOD_SENTENCES})] = "w=q",
            q_temperature: Annotated[float, Field(
                description="How freely it explores: 0 always takes the best action.", ge=0, le=5)] = 1.0,
            remember: Annotated[bool, Field(description="Keep what it learnt for this client's next run.",
                                            json_schema_extra={"x-advanced": True})] = False,
            seed: Annotated[int | None, Field(description="Where its dice start.",
                                              json_schema_extra={"x-advanced": True})] = None) -> None:
        super().__init__(minds=minds, method=method, q_temperature=q_temperature, remember=remember, seed=seed)


PLAIN = "compose_servers:PlainSelector"


class PlainSelector(ActionSelectionMind):
    """An Action Selection server declared as one written without metadata would be: plain types
    and defaults, nothing said for a person (the compose form must still work with it)."""

    title = "Plain Action Selection (test)"

    def __init__(self, minds: Sequence[str | Mapping[str, Any]] | str | None = None, method: str = "w=q",
                 q_temperature: float = 1.0, w_run_length: float | None = None) -> None:
        super().__init__(minds=minds, method=method, q_temperature=q_temperature, w_run_length=w_run_length)
