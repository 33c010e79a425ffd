"""The static site: every stored edition rendered to HTML, Markdown and feeds under settings.site_dir.

Layout (all links relative, so the folder works from file:// or any web server path):

    index.html, style.css
    {lang}/index.html                      every edition in that language
    {lang}/daily/{date}.html               the 全部 tab; {date}-{tab}.html for the others; {date}.md
    {lang}/events/{id}.html                one event card with its sources and analysis
    {lang}/weekly/{week}.html, .md
    {lang}/episodes/{key}.html, .md
    {lang}/daily.xml|json, {lang}/weekly.xml|json   RSS 2.0 and JSON Feed 1.1

Publishing is incremental: a manifest records a hash of every input (editions, templates,
settings) and of every file written. Same inputs: nothing is rendered. Otherwise only the
files whose bytes changed are written, and files no longer produced are removed.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from jinja2 import ChoiceLoader, Environment, PackageLoader, select_autoescape
from sqlalchemy import select
from sqlalchemy.engine import Engine

from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.core.labels import LABELS, Labels, text_only
from newsdesk.editions.cards import day_headlines, event_path, headline_member
from newsdesk.publish.feeds import Feed, FeedEntry, json_feed, rss
from newsdesk.publish.manifest import inside, read_manifest, refused_line, write_atomic, write_manifest
from newsdesk.publish.outputs import EDITION_KINDS, KINDS, EditionKind
from newsdesk.store.edition_rows import public_meta
from newsdesk.store.schema import editions
from newsdesk.text.html import markdown_html, publishable, safe_url
from newsdesk.text.language import detect_language

SITE_FORMAT = 1


@dataclass
class PublishStats:
    pages: int = 0  # files the site consists of
    written: int = 0  # files whose bytes changed
    unchanged: int = 0
    removed: int = 0
    skipped: bool = False  # inputs unchanged since the last publish: nothing rendered
    site_dir: str = ""
    warnings: list[str] = field(default_factory=list)  # one line each; the site was published all the same


def safe_name(key: str) -> str:
    """A file name from an edition or tab key (keys come from feeds and users)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", key).strip("-.") or "untitled"


def paragraphs(text: str | None) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n", text or "") if p.strip()]


def _environment() -> Environment:
    env = Environment(
        # The event card is shared with the web app; it lives with the card builder.
        loader=ChoiceLoader(
            [PackageLoader("newsdesk.publish", "templates"), PackageLoader("newsdesk.editions", "templates")]
        ),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=text_only,  # a label shadowed by a method fails the build, not the reader
    )
    env.filters.update(
        link=safe_url,
        paragraphs=paragraphs,
        markdown=markdown_html,
        safe_name=safe_name,
        written=detect_language,  # a text's language, for the marks on parts in another language
    )
    env.globals["headline_member"] = headline_member  # the report a card's headline is, as the Markdown picks it
    return env


def _load(engine: Engine) -> list[dict]:
    with engine.connect() as conn:
        # Only what passed its checks is published: a flagged edition stays in the store, unpublished.
        rows = conn.execute(
            select(editions)
            .where(editions.c.status == "clean", editions.c.kind.in_(EDITION_KINDS))
            .order_by(editions.c.kind, editions.c.key.desc(), editions.c.language)
        )
        # One cleaning for every file published; the writers' notes stay in the store.
        return [publishable({**r._mapping, "meta": public_meta(r.meta)}) for r in rows]


def _inputs_key(rows: list[dict], settings: Settings) -> str:
    h = hashlib.sha256()
    facts = [SITE_FORMAT, settings.site_name, settings.site_url, settings.timezone, settings.languages, LABELS]
    facts += [
        (r["kind"], r["key"], r["language"], r["material_key"], r["status"], str(r["updated_at"]), r["title"])
        for r in rows
    ]
    h.update(json.dumps(facts, ensure_ascii=False, default=str).encode("utf-8"))
    for package in ("newsdesk.publish", "newsdesk.editions"):
        templates = resources.files(package).joinpath("templates")
        for entry in sorted(templates.iterdir(), key=lambda e: e.name):
            h.update(entry.name.encode())
            h.update(entry.read_bytes())
    return h.hexdigest()


def edition_path(edition: dict, lang: str | None = None) -> str:
    folder = EDITION_KINDS[edition["kind"]].folder
    return f"{lang or edition['language']}/{folder}/{safe_name(edition['key'])}.html"


def _root(path: str) -> str:
    return "../" * path.count("/")


class _Site:
    def __init__(self, rows: list[dict], settings: Settings):
        self.settings = settings
        self.env = _environment()
        self.rows = rows
        self.base_url = settings.site_url.rstrip("/") + "/"
        self.files: dict[str, bytes] = {}
        self.by = {(r["kind"], r["key"], r["language"]): r for r in rows}
        self.languages = list(dict.fromkeys([*settings.languages, *(r["language"] for r in rows)]))

    def page(self, path: str, template: str, **context) -> None:
        lang = context.get("lang", "zh")
        root = _root(path)
        html = self.env.get_template(template).render(
            root=root,
            site_name=self.settings.site_name,
            t=Labels(lang),
            path=path,
            base_url=self.base_url,
            event_url=lambda event_id: root + event_path(lang, event_id),
            **context,
        )
        self.files[path] = html.encode("utf-8")

    def twin(self, edition: dict) -> str | None:
        """The same edition in another language, as a path relative to the site root."""
        for other in self.languages:
            if other != edition["language"] and (edition["kind"], edition["key"], other) in self.by:
                return edition_path(self.by[(edition["kind"], edition["key"], other)])
        return None

    def of(self, kind: str, lang: str | None = None) -> list[dict]:
        """The stored editions of a kind, in one language or in any, newest key first."""
        return [r for r in self.rows if r["kind"] == kind and lang in (None, r["language"])]

    def build(self) -> dict[str, bytes]:
        self.files["style.css"] = resources.files("newsdesk.publish").joinpath("templates", "style.css").read_bytes()
        for r in self.rows:
            kind = EDITION_KINDS[r["kind"]]
            self.tabbed(r) if kind.cards else self.one(r, kind)
            self.files[edition_path(r)[: -len(".html")] + ".md"] = kind.markdown(r, self.settings.timezone).encode()
        for lang in self.languages:
            feeds = [kind.name for kind in KINDS if kind.feed and self.of(kind.name, lang)]
            for name in feeds:
                self.feed(EDITION_KINDS[name], lang)
            self.page(
                f"{lang}/index.html",
                "language.html",
                lang=lang,
                # A kind written in one language only (the weekly) is listed on every language's page.
                sections=[(kind, self.of(kind.name, lang) or self.of(kind.name)) for kind in KINDS],
                feeds=feeds,
                edition_path=edition_path,
                other=next((o for o in self.languages if o != lang), None),
            )
        self.page(
            "index.html",
            "index.html",
            lang=self.languages[0] if self.languages else "zh",
            kinds=KINDS,
            # The newest of each kind whose keys are days or weeks (an episode's key is a name: no order).
            languages=[
                (lang, Labels(lang), [rows[0] for k in KINDS if k.key.last_day and (rows := self.of(k.name, lang))])
                for lang in self.languages
            ],
            edition_path=edition_path,
        )
        return self.files

    def tabbed(self, r: dict) -> None:
        """An edition of event cards (the daily): a page per tab, and a page per card."""
        meta, lang, day = r["meta"], r["language"], r["key"]
        cards = {c["event_id"]: c for c in meta.get("cards", [])}
        top = day_headlines(meta.get("cards", []))
        tabs = meta.get("tabs") or [{"id": "all", "label": Labels(lang).all, "events": list(cards)}]
        base = edition_path(r)[: -len(".html")]
        tab_paths = {
            t["id"]: (f"{base}.html" if t["id"] == "all" else f"{base}-{safe_name(t['id'])}.html") for t in tabs
        }
        for tab in tabs:
            self.page(
                tab_paths[tab["id"]],
                EDITION_KINDS[r["kind"]].page,
                lang=lang,
                edition=r,
                day=day,
                tab=tab,
                tabs=tabs,
                tab_paths=tab_paths,
                cards=[cards[i] for i in tab["events"] if i in cards],
                top=top,
                top_link=lambda event_id: f"#event-{event_id}",
                twin=self.twin(r) if tab["id"] == "all" else None,
            )
        for card in cards.values():
            self.page(
                event_path(lang, card["event_id"]), "event.html", lang=lang, card=card, day=day, day_path=f"{base}.html"
            )

    def one(self, r: dict, kind: EditionKind) -> None:
        """An edition on one page: its kind's template."""
        page = dict(edition=r, meta=r["meta"], body=kind.body(r), twin=self.twin(r))
        self.page(edition_path(r), kind.page, lang=r["language"], **page)

    def feed(self, kind: EditionKind, lang: str) -> None:
        entries = []
        for r in sorted(self.of(kind.name, lang), key=lambda r: r["key"], reverse=True)[:30]:
            url = self.base_url + edition_path(r)
            assert kind.feed is not None  # only the kinds with a feed get one
            content = self.env.get_template(kind.feed).render(
                root=self.base_url, edition=r, meta=r["meta"], t=Labels(lang)
            )
            entries.append(
                FeedEntry(
                    id=url,
                    title=r["title"],
                    url=url,
                    updated=kind.time(r, self.settings.timezone),
                    summary=kind.summary(r),
                    content_html=content,
                )
            )
        name = Labels(lang)[kind.name]
        feed = Feed(
            title=f"{self.settings.site_name} · {name}",
            home_url=self.base_url + f"{lang}/index.html",
            feed_url=self.base_url + f"{lang}/{kind.name}.xml",
            language=lang,
            description=f"{self.settings.site_name} {name}",
            entries=entries,
        )
        self.files[f"{lang}/{kind.name}.xml"] = rss(feed)
        feed.feed_url = self.base_url + f"{lang}/{kind.name}.json"
        self.files[f"{lang}/{kind.name}.json"] = json_feed(feed)


def publish_site(engine: Engine, settings: Settings) -> PublishStats:
    """Render every edition into settings.site_dir; writes only what changed."""
    try:
        return _publish(engine, settings)
    except OSError as exc:
        raise NewsdeskError(
            f"cannot write the site to {settings.site_dir!r} ({exc.strerror})", "check site_dir and its permissions"
        ) from None


def _publish(engine: Engine, settings: Settings) -> PublishStats:
    site_dir = Path(settings.site_dir)
    stats = PublishStats(site_dir=str(site_dir))
    rows = _load(engine)
    key = _inputs_key(rows, settings)
    old, damaged = read_manifest(site_dir)
    if damaged:
        stats.warnings.append(damaged)
    if old.get("key") == key and all((t := inside(site_dir, p)) and t.exists() for p in old.get("files", {})):
        stats.skipped, stats.pages, stats.unchanged = True, len(old["files"]), len(old["files"])
        return stats

    files = _Site(rows, settings).build()
    for path, data in files.items():
        target = site_dir / path
        if target.exists() and target.read_bytes() == data:
            stats.unchanged += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(target, data)  # readers never see half a page
        stats.written += 1
    refused: list[str] = []
    for path in sorted(set(old.get("files", {})) - set(files)):
        gone = inside(site_dir, path)
        if gone is None:  # the manifest is not ours to trust: nothing outside the site is removed
            refused.append(path)
            continue
        gone.unlink(missing_ok=True)
        stats.removed += 1
    if refused:
        stats.warnings.append(refused_line(refused, site_dir))
    manifest = {"key": key, "files": {p: hashlib.sha256(d).hexdigest() for p, d in sorted(files.items())}}
    write_manifest(site_dir, manifest)
    stats.pages = len(files)
    return stats
