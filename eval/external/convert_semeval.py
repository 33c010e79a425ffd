"""Convert SemEval-2022 Task 8 (multilingual news article similarity) into compact JSON Lines: one
line per rated pair of news articles with both languages, the seven ratings, a derived `same_event`
label, and (where the article texts are at hand) both titles and the first 1,500 characters of
both texts.

    PYTHONPATH=src python eval/external/convert_semeval.py \
        /work/.mirror/cicl-iscl+multinewssimilarity/repo eval/external/data \
        [--articles REPO --articles-folder output_dir] [--keep-missing] \
        [--hfl /work/.mirror/GeekDream-x+SemEval2022-Task8-TonyX/repo]

LABELS is a copy of the task's labelled pair lists: the train batch CSV and the gold file of the
evaluation set (`final_evaluation_data.csv`), found as `uncleaned_data/train/train_data.csv` and
`data/final_evaluation_data.csv` in github cicl-iscl/multinewssimilarity. `--articles` is a folder in
the layout of the task's downloader (`semeval-8-2022-ia-downloader`): the article with id N is
`<folder>/<last two digits of N>/N.json`, with `title` and `text` (--articles-folder names the folder
inside a fetched git directory or checkout). The official release ships no texts (copyright), so a pair is written only when both its
articles are found, unless --keep-missing writes it with null titles and texts.

--hfl is the task winner's repository (HFL, github GeekDream-x/SemEval2022-Task8-TonyX): its
`data/training_set.csv` and `data/testing_set.csv` are two samples of the task's training pairs with
both texts as HFL prepared them (title and the head of the article, about 1,000 characters), plus
HFL's machine-translated copies of training pairs (a language suffix on an article id,
`1484012813zh_1483937746`: the English article put into Chinese). They give
`semeval_train_texts.jsonl.gz`: the en/zh pairs with both texts, `translated` marking HFL's copies.

same_event: the task's "Overall" asks whether the two articles cover the same news story, on 1
("very similar") … 4 ("very dissimilar"), averaged over annotators. A pair is one happening when
Overall <= 1.5: every annotator, or all but a split, said "very similar".
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

from external_common import Source, write_jsonl_gz

SPLITS = {
    # the task's training set: to learn from
    "train": "uncleaned_data/train/train_data.csv",
    # the task's evaluation set with its gold ratings: a validation set, never tuned on
    "eval": "data/final_evaluation_data.csv",
}
# The two files spell the rating columns differently.
RATINGS = {
    "geography": ("Geography", "GEO"),
    "entities": ("Entities", "ENT"),
    "time": ("Time", "TIME"),
    "narrative": ("Narrative", "NAR"),
    "overall": ("Overall", "OVERALL"),
    "style": ("Style", "STYLE"),
    "tone": ("Tone", "TONE"),
}
SAME_EVENT_MAX_OVERALL = 1.5
TEXT_CHARS = 1500
HFL_FILES = ("data/training_set.csv", "data/testing_set.csv")
# The languages newsdesk reads; HFL's other pairs (de, es, tr, …) are left in its repository.
TEXT_LANGS = {"en", "zh"}


class Articles:
    """Scraped articles in the downloader's layout, from a folder or a fetched git directory."""

    def __init__(self, root: str | Path, folder: str = ""):
        self.source = Source(root)
        self.folder = folder.strip("/")
        self.cache: dict[str, list[str]] = {}

    def get(self, article_id: str) -> dict | None:
        bucket = f"{self.folder}/{article_id[-2:]}".lstrip("/")
        if bucket not in self.cache:
            try:
                self.cache[bucket] = self.source.list(bucket)
            except (FileNotFoundError, subprocess.CalledProcessError):  # no such bucket: none was scraped
                self.cache[bucket] = []
        name = f"{article_id}.json"
        if name not in self.cache[bucket]:
            return None
        data = json.loads(self.source.read(f"{bucket}/{name}"))
        if not (data.get("text") or "").strip():
            return None
        return data


def same_event(overall: float) -> bool:
    return overall <= SAME_EVENT_MAX_OVERALL


def _rating(row: dict, names: tuple[str, ...]) -> float | None:
    for name in names:
        if row.get(name) not in (None, ""):
            return round(float(row[name]), 4)
    return None


def convert_rows(csv_text: str, articles: Articles | None, keep_missing: bool) -> tuple[list[dict], int]:
    """The labelled pairs of one split, and how many were left out for want of a text."""
    rows, missing = [], 0
    for row in csv.DictReader(io.StringIO(csv_text)):
        ratings = {key: _rating(row, names) for key, names in RATINGS.items()}
        if ratings["overall"] is None:
            raise ValueError(f"pair {row.get('pair_id')}: no Overall rating; is this a labelled split?")
        id1, id2 = row["pair_id"].split("_")
        a1 = articles.get(id1) if articles else None
        a2 = articles.get(id2) if articles else None
        if (a1 is None or a2 is None) and not keep_missing:
            missing += 1
            continue
        rows.append(
            {
                "pair_id": row["pair_id"],
                "lang1": row["url1_lang"],
                "lang2": row["url2_lang"],
                "url1": row["link1"],
                "url2": row["link2"],
                "title1": (a1 or {}).get("title"),
                "title2": (a2 or {}).get("title"),
                "text1": (a1 or {}).get("text", "")[:TEXT_CHARS] or None,
                "text2": (a2 or {}).get("text", "")[:TEXT_CHARS] or None,
                **ratings,
                "same_event": same_event(ratings["overall"]),
            }
        )
    return rows, missing


def hfl_rows(csv_texts: list[str]) -> list[dict]:
    """The en/zh training pairs of HFL's samples with both texts, once each (the two samples overlap).
    An article id with a language suffix is HFL's machine translation of that article."""
    csv.field_size_limit(1 << 24)
    out, seen = [], set()
    for csv_text in csv_texts:
        for row in csv.DictReader(io.StringIO(csv_text)):
            pair_id, lang1, lang2 = row["pair_id"], row["lang1"], row["lang2"]
            text1, text2 = (row.get("text1") or "").strip(), (row.get("text2") or "").strip()
            if pair_id in seen or not {lang1, lang2} <= TEXT_LANGS or not (text1 and text2):
                continue
            seen.add(pair_id)
            ratings = {key: _rating(row, names) for key, names in RATINGS.items()}
            out.append(
                {
                    "pair_id": pair_id,
                    "lang1": lang1,
                    "lang2": lang2,
                    "translated": not pair_id.replace("_", "").isdigit(),
                    "text1": text1[:TEXT_CHARS],
                    "text2": text2[:TEXT_CHARS],
                    **ratings,
                    "same_event": same_event(ratings["overall"]),
                }
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", help="a fetched git dir or checkout holding the labelled CSVs (see above)")
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--articles", help="the scraped articles: a folder, or a fetched git dir or checkout")
    parser.add_argument("--articles-folder", default="", help="the downloader's output folder inside --articles")
    parser.add_argument("--keep-missing", action="store_true", help="write pairs without texts too")
    parser.add_argument("--hfl", help="HFL's repository (fetched git dir or checkout): training pairs with texts")
    args = parser.parse_args(argv)
    labels = Source(args.labels)
    articles = Articles(args.articles, args.articles_folder) if args.articles else None
    for split, path in SPLITS.items():
        rows, missing = convert_rows(labels.read(path), articles, args.keep_missing)
        out = args.out_dir / f"semeval_{split}.jsonl.gz"
        write_jsonl_gz(out, rows)
        with_text = sum(1 for r in rows if r["text1"] and r["text2"])
        print(
            f"semeval {split}: {len(rows)} pairs ({with_text} with both texts), {missing} left out -> {out}",
            file=sys.stderr,
        )
    if args.hfl:
        hfl = Source(args.hfl)
        rows = hfl_rows([hfl.read(path) for path in HFL_FILES])
        out = args.out_dir / "semeval_train_texts.jsonl.gz"
        write_jsonl_gz(out, rows)
        translated = sum(r["translated"] for r in rows)
        print(
            f"semeval train texts (HFL at {hfl.commit()[:7]}): {len(rows)} en/zh pairs, {translated} translated "
            f"-> {out}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
