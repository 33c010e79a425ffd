"""The demo pack clustered: one event per happening its README lists (issue 29's acceptance line)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from newsdesk.store.schema import event_members, items

# Each happening of the pack's README (src/newsdesk/data/demo/README.md), by words its reports'
# headlines carry; every item of the pack is one happening's. DeepSeek's DeepEP, DeepGEMM and 3FS
# share a row there but are three releases on three days, so three events (eval/clusters/GUIDE.md).
HAPPENINGS = {
    "claude-3.7": ("Claude 3.7",),
    "flashmla": ("FlashMLA",),
    "deepep": ("DeepEP",),
    "deepgemm": ("DeepGEMM",),
    "3fs": ("3FS",),
    "off-peak": ("off-peak",),
    "wan-2.1": ("Wan 2.1", "万相2.1"),
    "phi-4": ("Phi-4",),
    "alexa+": ("Alexa",),
    "chain-of-draft": ("Chain of Draft",),
    "gpt-4.5": ("GPT-4.5",),
    "margin": ("545%", "economics of its AI"),
    "podcast": ("open infrastructure week",),
}


@pytest.fixture(scope="module")
def placed(demo_briefs) -> dict[str, list[tuple[str, str, int]]]:
    """happening -> its items as (source, headline, event)."""
    _, engine, _ = demo_briefs
    with engine.connect() as conn:
        rows = conn.execute(
            select(items.c.source_id, items.c.title, event_members.c.event_id).join(
                event_members, event_members.c.item_id == items.c.id
            )
        ).all()
    found: dict[str, list[tuple[str, str, int]]] = {}
    for source, title, event in rows:
        which = [h for h, needles in HAPPENINGS.items() if any(n in title for n in needles)]
        assert len(which) == 1, f"{source}: {title!r} is of {which or 'no happening'}"
        found.setdefault(which[0], []).append((source, title, event))
    assert set(found) == set(HAPPENINGS)
    return found


def _check_one_event(placed, happening: str) -> None:
    mine = placed[happening]
    events = {event for _, _, event in mine}
    assert len(events) == 1, f"{happening} split: {sorted(mine, key=lambda m: m[2])}"
    others = [(h, m) for h, ms in placed.items() if h != happening for m in ms if m[2] in events]
    assert not others, f"{happening} glued to {others}"


@pytest.mark.parametrize("happening", [h for h in HAPPENINGS if h != "margin"])
def test_each_happening_of_the_demo_is_one_event_of_its_own(placed, happening):
    _check_one_event(placed, happening)


def test_the_margin_reports_with_material_are_one_event_in_both_languages(placed):
    """量子位's report, 36Kr's copy of it and TechCrunch's share the figures (545%, $562,027, $87,072)."""
    told = [m for m in placed["margin"] if m[0] != "ft-technology"]
    assert {source for source, _, _ in told} == {"qbitai", "36kr", "techcrunch-ai"}
    assert len({event for _, _, event in told}) == 1, told


@pytest.mark.xfail(
    strict=True,
    reason="the FT's title-only headline ('DeepSeek lifts the lid on the economics of its AI models') "
    "shares no anchor, name or rare word with the margin reports and sits at cosine 0.18 to "
    "TechCrunch's (0.28 to the off-peak discount, 0.34 to a GPT-4.5 report): no general evidence "
    "joins it yet. Strict: when it joins, this fails and the mark comes off",
)
def test_the_margin_happening_is_one_event_with_the_title_only_ft_headline(placed):
    _check_one_event(placed, "margin")
