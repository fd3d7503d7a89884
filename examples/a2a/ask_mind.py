"""Ask a wwm Mind for actions as an A2A client would, with the a2a-sdk library alone.

    wwm serve food-seeker --port 8102 --a2a &
    python examples/a2a/ask_mind.py http://127.0.0.1:8102/ "size=8 step=0 x=4 y=4 fd=2 hd=3 food=6,4;1,7 hazard=4,1"

It reads the mind's Agent Card (at /.well-known/agent-card.json), sends the state in a
SendMessage and prints the action the mind answers; states given one after another go in one
context, which is one run of the mind.
"""

from __future__ import annotations

import asyncio
import sys
import uuid

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers import get_data_parts, get_message_text, new_text_part
from a2a.types import Message, Role, SendMessageRequest


async def main(url: str, states: list[str]) -> int:
    context = uuid.uuid4().hex  # one conversation: one run of the mind
    async with httpx.AsyncClient(timeout=10) as http:
        card = await A2ACardResolver(http, url).get_agent_card()  # /.well-known/agent-card.json
        print(f"agent: {card.name}: {card.description}")
        client = ClientFactory(ClientConfig(streaming=False, httpx_client=http)).create(card)
        for state in states:
            message = Message(role=Role.ROLE_USER, message_id=uuid.uuid4().hex, context_id=context,
                              parts=[new_text_part(state)])
            async for reply in client.send_message(SendMessageRequest(message=message)):
                if reply.HasField("message"):
                    data = get_data_parts(reply.message.parts)[0]
                    print(f"{state!r} -> {get_message_text(reply.message)} (Q {data.get('q')})")
                else:  # a task: the mind could not suggest an action
                    print(f"{state!r} -> {get_message_text(reply.task.status.message)}")
        await client.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: ask_mind.py AGENT_URL STATE [STATE ...]")
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2:])))
