"""Publish only what passes (issue 11's acceptance): on the demo pack, nothing a reader can reach
carries a flagged part.

Offline (no model, the default), every published file (site pages, RSS / JSON Feed, Markdown)
and every public API route is walked: 0 flagged parts; every daily card has a lead sentence from
its own material; the weekly has at least 3 themes whose items all belong to them; the episode
digest has 5–9 summary bullets and at least 2 sections whose quotes are in the transcript.

Then the same walk over a run whose scripted model returns junk (the prompt echoed back, a
sentence in a loop, briefs about the wrong event, an invented quote): what readers get is the
extractive version of every failed part, marked; the drafts stay in the store with their findings
and the operator's "drafts that failed" page lists them.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PACK
from fakes import CopyingBackend, EpisodeFake, FakeReply
from fastapi.testclient import TestClient
from sqlalchemy import select

from newsdesk.cluster import event_brief
from newsdesk.core.config import Settings
from newsdesk.core.labels import Labels
from newsdesk.core.model import Turn
from newsdesk.llm.client import LLM, Reply
from newsdesk.publish.markdown import split_front_matter
from newsdesk.run.pipeline import run_pipeline
from newsdesk.serve.app import create_app
from newsdesk.store import open_store
from newsdesk.store.schema import (
    analyses,
    editions,
    failed_drafts,
    stories,
    transcripts,
)
from newsdesk.text.sentences import length, sentences
from newsdesk.write.digest import parse_digest
from newsdesk.write.extractive.card import extractive_card, member_text, says_headline_only
from newsdesk.write.extractive.english import HEADLINE_ONLY, english_members, states_news
from newsdesk.write.extractive.segment import SegmentOptions
from newsdesk.write.transcript import find_quotes

TOKEN = "operator-token"
ECHO = "上一稿没有通过核对，问题如下。重写整篇，请写这个事件的分析。"
LOOP = "This is the most important release of the year."
# What only a failed draft says: none of it may reach a reader.
JUNK = [ECHO, LOOP, "987.65", "quantum teleporter"]


class JunkModel:
    """A scripted model whose every draft is junk, first draft and rewrite alike: an analysis echoes
    its prompt and loops; the weekly's briefs are about the next event, with an invented figure;
    the episode digest's summary loops and quotes a line nobody said."""

    model = "junk-model"

    def __init__(self, engine):
        self.weekly = LLM(CopyingBackend(defects={"number", "repeat", "swap"}, stubborn=True), engine, concurrency=1)
        self.episode = EpisodeFake(section_count=5)
        self.calls = 0

    def chat(self, messages, *, output, schema=None, max_tokens=None, temperature=None):
        self.calls += 1
        if output == "weekly":
            return self.weekly.chat(messages, output=output, schema=schema, max_tokens=max_tokens)
        if output == "translation" and "headline" in (schema or {}).get("required", []):  # a card's translation
            junk = {"headline": LOOP, "lead": " ".join([LOOP] * 6)}
            return FakeReply(json.dumps(junk, ensure_ascii=False), junk)
        if output in ("episode", "translation"):  # the digest and its English edition
            reply = self.episode.chat(messages, output=output, schema=schema, max_tokens=max_tokens)
            for bullet in (reply.data or {}).get("bullets", []) if output == "episode" else []:
                if "thesis" in bullet:  # the summary: one sentence in a loop, and a quote nobody said
                    bullet["thesis"] = LOOP
                    bullet["evidence"] = (
                        " ".join([LOOP] * 6) + " 他说“we will ship the quantum teleporter on Tuesday”。"
                    )
            return FakeReply(json.dumps(reply.data, ensure_ascii=False), reply.data)
        assert output == "analysis", output
        text = "# " + messages[-1]["content"][:400] + "\n\n" + ECHO + "\n\n" + " ".join([LOOP] * 12)
        return Reply(text, None, self.model, 0, 0, 0, False, 0)


def _run(tmp: Path, llm_factory=None):
    s = Settings(data_dir=str(tmp), site_dir=str(tmp / "site"), web_token=TOKEN)
    engine = open_store(s.database)
    report = run_pipeline(engine, s, source=PACK, llm=llm_factory(engine) if llm_factory else None)
    assert report.problems == []
    return s, engine, report


@pytest.fixture(scope="module")
def offline(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("offline"))


@pytest.fixture(scope="module")
def junk(tmp_path_factory):
    return _run(tmp_path_factory.mktemp("junk"), JunkModel)


# --- what a reader can reach ----------------------------------------------------------------------

FLAG_MARKS = re.compile(
    r"⚠|未通过核查|failed the checks|failed the automatic checks|^flagged: true|status: Flagged", re.MULTILINE
)


def published_files(site: Path) -> dict[str, str]:
    files = {
        p.relative_to(site).as_posix(): p.read_text("utf-8")
        for p in site.rglob("*")
        if p.is_file() and p.suffix in (".html", ".xml", ".json", ".md")
    }
    assert {Path(p).suffix for p in files} == {".html", ".xml", ".json", ".md"}
    return files


def flagged_in_json(value, where: str = "") -> list[str]:
    """Every part of an API answer that says it failed its checks."""
    found = []
    if isinstance(value, dict):
        if value.get("status") == "flagged" or value.get("check") == "flagged":
            found.append(where)
        for k, v in value.items():
            found += flagged_in_json(v, f"{where}.{k}")
    elif isinstance(value, list):
        for n, v in enumerate(value):
            found += flagged_in_json(v, f"{where}[{n}]")
    return found


def public_routes(client: TestClient, engine) -> dict[str, object]:
    """Every public GET route of the JSON API, with every value its parameters take in this store."""
    with engine.connect() as conn:
        event_ids = [r.event_id for r in conn.execute(select(analyses.c.event_id).distinct())]
        keys = conn.execute(select(editions.c.kind, editions.c.key).distinct()).all()
        story_ids = [r.id for r in conn.execute(select(stories.c.id))]
    days = sorted({k for kind, k in keys if kind == "daily"})
    urls = [f"/api/events?day={d}&lang={lang}" for d in days for lang in ("zh", "en")]
    urls += [f"/api/events/{i}?lang={lang}" for i in event_ids for lang in ("zh", "en")]
    urls += [f"/api/stories/{i}?lang={lang}" for i in story_ids for lang in ("zh", "en")]
    urls += [f"/api/editions/{kind}" for kind in ("daily", "weekly", "episode")]
    urls += [f"/api/editions/{kind}/{key}?lang={lang}" for kind, key in keys for lang in ("zh", "en")]
    urls += [
        "/api/sources",
        "/api/status",
        "/api/usage",
        "/api/search?q=Claude",
        "/api/search?q=DeepSeek",
        "/api/search?q=模型",
    ]
    covered = {re.sub(r"\?.*", "", u) for u in urls}
    paths = client.get("/openapi.json").json()["paths"]
    # A new public route must be walked here too; a route that answers 401 without the
    # operator's token (push subscriptions hold channel credentials) is not public.
    gets = {p for p, ops in paths.items() if "get" in ops and ("{" in p or client.get(p).status_code != 401)}
    assert story_ids, "the demo pack threads at least one story"
    assert {re.sub(r"\{\w+\}", "X", p) for p in gets} == {
        re.sub(
            r"/api/(events|stories)/\d+",
            r"/api/\1/X",
            re.sub(
                r"/api/editions/\w+/[^/]+$",
                "/api/editions/X/X",
                re.sub(r"/api/editions/(daily|weekly|episode)$", "/api/editions/X", u),
            ),
        )
        for u in covered
    }
    answers = {}
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, (url, r.text[:200])
        answers[url] = r.json()
    return answers


def reader_view(settings, engine) -> tuple[dict[str, str], dict[str, object]]:
    files = published_files(Path(settings.site_dir))
    with TestClient(create_app(engine, settings)) as client:
        answers = public_routes(client, engine)
        pages = {url: client.get(url).text for url in ("/", "/weekly", "/episodes", "/search?q=Claude")}
    return {**files, **{f"web {u}": t for u, t in pages.items()}}, answers


def assert_nothing_flagged(settings, engine) -> tuple[dict[str, str], dict[str, object]]:
    texts, answers = reader_view(settings, engine)
    marked = {path: FLAG_MARKS.findall(text) for path, text in texts.items()}
    assert {p: m for p, m in marked.items() if m} == {}
    assert {url: flagged_in_json(a) for url, a in answers.items() if flagged_in_json(a)} == {}
    for path, text in texts.items():
        if path.endswith(".md"):
            fields, _ = split_front_matter(text)
            assert fields.get("status") == "Published" and "flagged" not in fields, path
    return texts, answers


# --- the offline newsroom -----------------------------------------------------------------------------


def test_offline_nothing_flagged_is_published_anywhere(offline):
    s, engine, report = offline
    assert report.model_calls == 0
    texts, answers = assert_nothing_flagged(s, engine)
    assert len([p for p in texts if p.endswith(".html")]) > 50 and len(answers) > 60
    with engine.connect() as conn:
        assert conn.execute(select(failed_drafts)).all() == []
    # Every edition is in the site, and each says it was chosen by code.
    site = Path(s.site_dir)
    for lang in ("zh", "en"):
        assert list((site / lang / "daily").glob("*.html")) and list((site / lang / "episodes").glob("*.html"))
    weekly = next((site / "zh" / "weekly").glob("*.html")).read_text("utf-8")
    assert "未经模型撰写" in weekly
    assert "not written by a model" in next((site / "en" / "episodes").glob("*.html")).read_text("utf-8")
    assert "未经模型撰写" in next((site / "zh" / "daily").glob("*.html")).read_text("utf-8")


def test_offline_every_daily_card_leads_with_a_sentence_of_its_own_material(offline):
    _, engine, _ = offline
    with engine.connect() as conn:
        dailies = conn.execute(
            select(editions.c.key, editions.c.language, editions.c.meta).where(editions.c.kind == "daily")
        ).all()
        briefs = {}
        cards = 0
        for d in dailies:
            for card in d.meta["cards"]:
                cards += 1
                assert card["analysis"] and card["analysis"]["extractive"], (d.key, card["event_id"])
                brief = briefs.setdefault(card["event_id"], event_brief(conn, card["event_id"]))
                body = card["analysis"]["body"]
                own = [x for m in brief["members"] for x in sentences(member_text(m)) if length(x) >= 4]
                if d.language == "en" and body.startswith(HEADLINE_ONLY.split(":")[0]):
                    # English headlines only over another language's text (DeepGEMM: a Hacker News title and
                    # InfoQ's Chinese report, one event): the English card says so in one line (english.py).
                    assert card["headline"] in [m["title"].strip() for m in english_members(brief["members"])]
                    assert not any(member_text(m).strip() for m in english_members(brief["members"]))
                elif own:  # a sentence of the members' own text leads the card, or in English another
                    # outlet's headline that states the news (english.py states_news)
                    stated = [m["title"].strip() for m in english_members(brief["members"]) if states_news(m["title"])]
                    stated = stated if d.language == "en" else []
                    assert any(x in body for x in own + stated), (d.language, card["event_id"], body[:200])
                else:  # titles only: the headline is a member's own, and the card says in one line it is all we know
                    assert card["headline"] in [m["title"].strip() for m in brief["members"]]
                    assert says_headline_only(body), (d.language, card["event_id"], body[:200])
                    assert any(b["kind"] == "level" for b in card["badges"])
    assert cards >= 20 and len(dailies) >= 10


def test_offline_weekly_themes_hold_only_their_own_events(offline):
    _, engine, _ = offline
    with engine.connect() as conn:
        meta = conn.execute(
            select(editions.c.meta).where(editions.c.kind == "weekly", editions.c.language == "zh")
        ).scalar_one()
        # At least three lead events, each alone gathered with the others into one section of the week's leads
        # (the demo's other section was FlashMLA's Chinese and English reports, two events until the clusterer
        # joined them on the name both headlines write).
        assert meta["extractive"] and len(meta["sections"]) >= 1
        assert sum(len(s["events"]) for s in meta["sections"]) >= 3 and not meta["left_out"]
        for section in meta["sections"]:
            heading, *paragraphs = section["text"].split("\n\n")
            paragraphs = [p for p in paragraphs if p not in section["story_lines"]]  # a story's line: no item
            assert len(paragraphs) == len(section["events"]) >= 1
            for event_id, paragraph in zip(section["events"], paragraphs):
                card = extractive_card(event_brief(conn, event_id), "zh")
                members = event_brief(conn, event_id)["members"]
                material = "\n".join(f"{m['title']}\n{member_text(m)}" for m in members)
                assert paragraph.startswith(card.headline) and card.headline in material
                told = paragraph.split("）", 1)[1]
                for said in sentences(told):
                    assert said in material or said in card.only_line or said in card.disclosure, (event_id, said)
            # Named from its events' own headlines.
            headlines = " ".join(
                extractive_card(event_brief(conn, i), "zh").headline.lower() for i in section["events"]
            )

            # A heading is clauses of its lead's headline, the company put in front where they do not name
            # it (run into a clause that opens on what it did); the section of the leads has its label.
            def said(term: str, headlines: str = headlines) -> bool:
                t = term.lower()
                return t in headlines or any(
                    t[:k] in headlines and t[k:].strip() in headlines for k in range(2, len(t))
                )

            if heading not in (Labels("zh").weekly_leads, Labels("zh").weekly_more):
                assert all(said(term) for term in re.split("[、,，：:] ?", heading) if term), heading


def test_offline_episode_digest_quotes_the_transcript(offline):
    _, engine, _ = offline
    with engine.connect() as conn:
        turns = [Turn(**t) for t in conn.execute(select(transcripts.c.turns)).scalar_one()]
        rows = conn.execute(select(editions.c.language, editions.c.body).where(editions.c.kind == "episode")).all()
    spoken = " ".join(" ".join(t.text.split()) for t in turns)
    assert {r.language for r in rows} == {"zh", "en"}
    for r in rows:
        digest = parse_digest(r.body, r.language)
        assert 5 <= len(digest.summary) <= 9 and len(digest.sections) >= SegmentOptions().min_sections
        quotes = [q for _, _, q in find_quotes(r.body)]
        assert len(quotes) >= len(digest.summary) + len(digest.sections)
        assert [q for q in quotes if " ".join(q.split()) not in spoken] == []


# --- a model that writes junk -------------------------------------------------------------------------


def test_junk_drafts_are_never_published_and_the_operator_sees_them(junk):
    s, engine, report = junk
    assert report.facts["analyses_flagged"] == report.facts["analyses_written"] > 0  # every draft failed
    texts, answers = assert_nothing_flagged(s, engine)
    everything = "\n".join(texts.values()) + json.dumps(answers, ensure_ascii=False)
    assert [j for j in JUNK if j in everything] == []
    with engine.connect() as conn:
        written = conn.execute(select(analyses.c.model, analyses.c.status)).all()
        drafts = conn.execute(select(failed_drafts)).all()
        episode = conn.execute(select(editions.c.language, editions.c.meta).where(editions.c.kind == "episode")).all()
        weekly = conn.execute(
            select(editions.c.meta).where(editions.c.kind == "weekly", editions.c.language == "zh")
        ).scalar_one()
    # Readers get the extractive versions, marked as standing in for a failed draft.
    assert {(w.model, w.status) for w in written} == {("extractive", "clean")}
    assert "模型写的稿件没有通过核查" in "".join(t for p, t in texts.items() if p.startswith("zh/daily/"))
    assert all(m["extractive"] for _, m in episode) and any(m.get("replaces_failed") for _, m in episode)
    assert weekly.get("extractive_parts") or weekly.get("extractive")
    # The drafts stay in the store, with their findings, every output.
    outputs = {d.output for d in drafts}
    assert {"analysis", "weekly", "episode"} <= outputs and all(d.findings for d in drafts)
    assert len([d for d in drafts if d.output == "analysis"]) == len(written)
    assert any(ECHO in d.text for d in drafts) and any("987.65" in d.text for d in drafts)
    with TestClient(create_app(engine, s)) as client:
        assert client.get("/drafts", follow_redirects=False).status_code == 303  # readers are sent to the login
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
        client.post("/login", data={"token": TOKEN, "name": "op", "csrf": csrf, "next": "/drafts"})
        page = client.get("/drafts").text
    assert page.count('class="failed-draft"') == len(drafts)
    assert LOOP in page and "987.65" in page and ECHO in page and "written 12 times" in page  # drafts and findings


# --- the demo, as a newcomer runs it ---------------------------------------------------------------


def test_demo_command_is_offline_says_what_was_extractive_and_its_wall_time(tmp_path):
    """`newsdesk demo --model` in a fresh directory, through the real CLI (what `make demo` runs)."""
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "NEWSDESK_CONFIG": "", "COLUMNS": "200"}
    out = subprocess.run(
        [sys.executable, "-m", "newsdesk", "demo", "--out", str(tmp_path / "demo"), "--model"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    said = " ".join(out.stdout.split())
    assert "0 model calls" in said and "written by a model: nothing" in said
    assert re.search(
        r"extractive \(chosen from the material by code, no model\): \d+ event cards \(en\); \d+ event "
        r"cards \(zh\); episode .+ \(en\); episode .+ \(zh\); weekly 2025-W09 \(en\); weekly 2025-W09 \(zh\)",
        said,
    )
    assert "--model: no narrow task of the embedded model has been measured to serve yet" in said
    assert 'backend = "openai"' in said and "base_url" in said
    seconds = float(re.search(r"demo wall time: ([\d.]+)s", said).group(1))
    assert seconds <= 180  # the bound for 2 cores
    site = tmp_path / "demo" / "site"
    assert (site / "zh" / "weekly" / "2025-W09.html").is_file()
    for lang in ("zh", "en"):
        assert len(list((site / lang / "daily").glob("*.md"))) == 7 and list((site / lang / "episodes").glob("*.html"))
