"""An LLM rules on borderline merges: is this report the same happening as that event?

The clusterer asks only when a score sits within `arbiter_band` of its threshold, at most
`arbiter_budget` times a run; the ruling and its reason are stored on the member row.
"""

from __future__ import annotations

from newsdesk.cluster.events import Arbiter
from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import LLMError
from newsdesk.llm.prompts import messages

# The reason comes first: a model writes what is the same or what differs, then rules on it. Its length
# is capped so a grammar-bound model (the embedded one) cannot run past max_tokens and cut the JSON off.
SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string", "maxLength": 160}, "same_event": {"type": "boolean"}},
    "required": ["reason", "same_event"],
}


def llm_arbiter(llm: ChatModel) -> Arbiter:
    def rule(event_text: str, item_text: str) -> tuple[bool, str] | None:
        # write/prompts/arbitrate.md: the instructions are a byte-identical prefix for every ruling.
        asked = messages("arbitrate.md", event=event_text, item=item_text)
        try:
            reply = llm.chat(asked, output="arbitrate", schema=SCHEMA, max_tokens=200, temperature=0.0)
        except LLMError:
            return None  # unreachable endpoint or spent budget: the score decides, nothing is lost
        return bool(reply.data["same_event"]), str(reply.data["reason"]).strip()[:300]

    return rule
