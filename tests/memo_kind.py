"""A throwaway edition kind, a memo per day, for tests/test_outputs.py and tests/test_workers.py.

docs/adding-an-output.md's checklist for a kind assembled from what is stored (no writer of its
own) with the one-page template: its entry (publish/outputs.py), its build (editions/build.py),
its name (labels.py) and its sample (test_outputs.SAMPLES). Below, each is what that file would
hold; register() adds them where those files would, and nothing else in the package is touched.
A worker process imports this module and calls register() before it starts (Cluster.start_worker's
`preload`), as it would import a package whose files held the kind.
"""

from __future__ import annotations

from sqlalchemy import select

from newsdesk.core.labels import LABELS
from newsdesk.editions.build import Progress
from newsdesk.publish import markdown as md
from newsdesk.publish.outputs import BY_SEGMENT, DAY, EDITION_KINDS, KINDS, EditionKind
from newsdesk.store.edition_rows import store_edition
from newsdesk.store.schema import editions


def memo_stage(engine, settings, writers, *, caps: dict, progress: Progress) -> dict:
    """editions/build.py's part: a memo per stored daily edition, its lead headline or that it had none."""
    with engine.connect() as conn:
        days = conn.execute(select(editions).where(editions.c.kind == "daily")).all()
    with engine.begin() as conn:
        for day in days:
            lead = next(iter(day.meta.get("cards", [])), {}).get("headline", "—")
            store_edition(
                conn,
                kind="memo",
                key=day.key,
                language=day.language,
                title=f"{day.title} · memo",
                body=f"# {day.title} · memo\n\n{lead}\n",
                meta={"summary": lead},
                status="clean",
                material_key=f"memo-{day.material_key}",
            )
    return {"memos": len(days)}


MEMO = EditionKind(  # publish/outputs.py's part: its entry in KINDS
    "memo",
    segment="memos",
    build=memo_stage,
    body=md.untitled_body,
    summary=lambda edition: edition["meta"].get("summary", ""),
    tool="daily_memo",
    about="The memo of one day: its lead headline.",
    key=DAY,
)


def register() -> EditionKind:
    """The throwaway kind registered as its files would register it."""
    from newsdesk.run import pipeline

    assert MEMO.name not in LABELS and MEMO.name not in EDITION_KINDS, "pick a throwaway name nothing uses"
    KINDS.append(MEMO)
    EDITION_KINDS[MEMO.name], BY_SEGMENT[MEMO.segment] = MEMO, MEMO
    LABELS[MEMO.name] = {"zh": "备忘", "en": "Memos"}  # labels.py's part
    # pipeline.STAGES reads KINDS when it is imported; an entry added at run time is added as it would be.
    pipeline.STAGES.insert(pipeline.STAGE_NAMES.index("publish"), pipeline.kind_stage(MEMO))
    pipeline.STAGE_NAMES[:] = [s.name for s in pipeline.STAGES]
    return MEMO


def unregister() -> None:
    from newsdesk.run import pipeline

    KINDS.remove(MEMO)
    del EDITION_KINDS[MEMO.name], BY_SEGMENT[MEMO.segment], LABELS[MEMO.name]
    pipeline.STAGES[:] = [s for s in pipeline.STAGES if s.name != MEMO.name]
    pipeline.STAGE_NAMES[:] = [s.name for s in pipeline.STAGES]
