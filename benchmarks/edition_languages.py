"""Whether each daily edition is in its language: for every stored daily edition of a store (or the
given days), the share of en cards whose headline and lead are English, of zh cards Chinese, the
share marked as another language, and the cards with a part in another language left unmarked
(what must be 0); and the main list (the en edition folds events told only in Chinese at the end):
its share with headline and lead in the edition's language, the share of cards whose event has a
report in that language with a headline in it, and how many of the first ten carry another language.
Languages are read from the published text (editions/languages.py), so a store built before the
marks existed is measured alike: run it on a replay built by main, then by a branch.

    .venv/bin/python benchmarks/edition_languages.py DATA_DIR [--day 2026-02-26 ...] [--per-day]
    e.g. benchmarks/replay-real /tmp/real --weeks 2026-W09; then DATA_DIR = /tmp/real/data
    or the demo's store: demo-output (after `make demo`)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from sqlalchemy import select

from newsdesk.editions.languages import EditionLanguages, card_text, edition_languages, unmarked_parts
from newsdesk.store import open_store
from newsdesk.store.schema import editions
from newsdesk.text.language import detect_language


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data_dir", type=Path, help="a data directory holding newsdesk.db")
    parser.add_argument("--day", action="append", default=[], help="only these days (YYYY-MM-DD); default every day")
    parser.add_argument("--show", type=int, default=3, help="print this many unmarked cards per language")
    parser.add_argument("--per-day", action="store_true", help="a line per day and language too")
    args = parser.parse_args()
    engine = open_store(f"sqlite:///{args.data_dir / 'newsdesk.db'}", migrate_schema=False)
    totals: dict[str, EditionLanguages] = {}
    examples: dict[str, list[str]] = {}
    with engine.connect() as conn:
        query = select(editions.c.key, editions.c.language, editions.c.meta).where(editions.c.kind == "daily")
        if args.day:
            query = query.where(editions.c.key.in_(args.day))
        for row in conn.execute(query.order_by(editions.c.key, editions.c.language)):
            cards = (row.meta or {}).get("cards") or []
            total = totals.setdefault(row.language, EditionLanguages(row.language))
            edition_languages(cards, row.language, total)
            if args.per_day:
                print(f"{row.key} {edition_languages(cards, row.language).line()}; {first_ten(cards, row.language)}")
            for card in cards:
                parts = unmarked_parts(card, row.language)
                if parts and len(examples.setdefault(row.language, [])) < args.show:
                    examples[row.language].append(f"  {row.key} {'+'.join(parts)}: {card['headline'][:80]}")
    days = ", ".join(args.day) or "every day"
    print(f"daily editions of {args.data_dir} ({days})")
    for language, total in sorted(totals.items()):
        print(total.line())
        for line in examples.get(language, []):
            print(line)


def first_ten(cards: list[dict], language: str) -> str:
    """How many of the main list's first ten cards show text in another language (what a reader meets first)."""
    main = [c for c in cards if not c.get("folded") and not c.get("other")][:10]
    other = sum(1 for c in main if any(detect_language(t) != language for t in card_text(c).values() if t.strip()))
    return f"first {len(main)} of the main list with text in another language: {other}"


if __name__ == "__main__":
    main()
