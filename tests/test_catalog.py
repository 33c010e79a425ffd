"""The source catalog: packaged file, user overrides, one-line errors, bridge, OPML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from newsdesk.core.config import Settings
from newsdesk.core.model import LANGUAGES, SOURCE_KINDS, Source
from newsdesk.ingest.catalog import CATEGORIES, CatalogError, load_catalog, read_opml, write_opml


def _settings(tmp_path: Path, **kw) -> Settings:
    # data_dir in tmp so a developer's own data/sources.toml never leaks into a test.
    return Settings(data_dir=str(tmp_path / "data"), **kw)


def _by_id(sources: list[Source]) -> dict[str, Source]:
    return {s.id: s for s in sources}


def test_packaged_catalog_loads_clean(tmp_path):
    sources, errors = load_catalog(_settings(tmp_path))
    assert errors == []
    assert len(sources) >= 60
    ids = _by_id(sources)
    assert len(ids) == len(sources)
    for required in (
        "arxiv-cs-cl",
        "arxiv-cs-lg",
        "arxiv-cs-ai",
        "hf-papers-takara",
        "hn-frontpage",
        "reddit-localllama",
        "reddit-machinelearning",
        "openai-news",
        "anthropic-news",
        "google-deepmind",
        "meta-ai",
        "mistral",
        "huggingface-blog",
        "simon-willison",
        "jiqizhixin",
        "qbitai",
        "36kr",
        "the-verge-ai",
        "techcrunch-ai",
    ):
        assert required in ids, required
    for s in sources:
        assert s.kind in SOURCE_KINDS and s.language in LANGUAGES and s.category in CATEGORIES
        assert s.url.startswith(("http://", "https://")) and "{" not in s.url
        assert s.origin == "catalog"
    assert ids["arxiv-cs-cl"].kind == "arxiv" and ids["arxiv-cs-cl"].fulltext is False
    assert ids["hn-frontpage"].fulltext is False and ids["openai-news"].fulltext is True
    assert {s.language for s in sources} >= {"zh", "en"}
    assert len({s.category for s in sources}) >= 8
    # Each tier is used, and tier 1 holds the primary sources.
    assert {s.tier for s in sources} == {1, 2, 3}
    assert ids["openai-news"].tier == 1 and ids["reddit-localllama"].tier == 3


def test_fixture_feed_ids_are_catalog_ids(tmp_path, fixtures):
    """Replaying tests/fixtures/feeds/ai-blogs lands on catalog sources (feed_x_y.xml -> x-y)."""
    sources, _ = load_catalog(_settings(tmp_path))
    ids = _by_id(sources)
    stems = {p.stem.removeprefix("feed_").replace("_", "-") for p in (fixtures / "feeds/ai-blogs").glob("*/*.xml")}
    assert stems, "no ai-blogs fixtures found"
    assert stems <= set(ids), sorted(stems - set(ids))


def test_one_companys_channels_name_their_owner(tmp_path):
    """Anthropic News, Claude Blog and Anthropic Research are Anthropic speaking (cluster/independence.py);
    a user's file names the owner of a source it adds."""
    user = tmp_path / "mine.toml"
    user.write_text(
        '[[source]]\nid = "acme-changelog"\nname = "Acme Changelog"\nurl = "https://acme.example/feed"\n'
        'category = "company"\nowner = " Acme "\n',
        encoding="utf-8",
    )
    ids = _by_id(load_catalog(_settings(tmp_path, sources_file=str(user)))[0])
    assert {ids[i].owner for i in ("anthropic-news", "claude", "anthropic-research")} == {"Anthropic"}
    assert ids["windsurf-blog"].owner == ids["windsurf-next-changelog"].owner == "Windsurf"
    assert ids["the-verge-ai"].owner is None  # a medium is its own voice
    assert ids["acme-changelog"].owner == "Acme"


def test_user_file_overrides_and_adds(tmp_path):
    user = tmp_path / "mine.toml"
    user.write_text(
        """
[[source]]
id = "hn-frontpage"
url = "https://hnrss.org/frontpage?points=100"
weight = 0.5

[[source]]
id = "reddit-localllama"
enabled = false

[[source]]
id = "my-lab"
name = "My Lab"
url = "https://example.org/feed.xml"
category = "lab"
tier = 1
""",
        encoding="utf-8",
    )
    packaged, _ = load_catalog(_settings(tmp_path))
    sources, errors = load_catalog(_settings(tmp_path, sources_file=str(user)))
    assert errors == []
    ids = _by_id(sources)
    assert len(sources) == len(packaged) + 1
    hn = ids["hn-frontpage"]
    assert hn.url == "https://hnrss.org/frontpage?points=100" and hn.weight == 0.5
    assert hn.name == "Hacker News: Front Page" and hn.kind == "hn"  # untouched fields kept
    assert hn.origin == "user"
    assert ids["reddit-localllama"].enabled is False
    mine = ids["my-lab"]
    assert (mine.tier, mine.category, mine.kind, mine.language, mine.origin) == (1, "lab", "rss", "en", "user")
    # user_file= wins over the setting
    again, _ = load_catalog(_settings(tmp_path), user_file=user)
    assert _by_id(again)["my-lab"].name == "My Lab"


def test_bad_user_entries_are_reported_one_line_each(tmp_path):
    user = tmp_path / "bad.toml"
    user.write_text(
        """
[[source]]
id = "good-one"
name = "Good"
url = "https://good.example/feed"

[[source]]
id = "bad-url"
name = "Bad URL"
url = "ftp://files.example/feed"

[[source]]
id = "bad-kind"
name = "Bad kind"
url = "https://x.example/feed"
kind = "twitter"

[[source]]
id = "bad-field"
name = "Typo"
url = "https://y.example/feed"
catgory = "lab"

[[source]]
id = "openai-news"
tier = 7
""",
        encoding="utf-8",
    )
    sources, errors = load_catalog(_settings(tmp_path, sources_file=str(user)))
    ids = _by_id(sources)
    assert "good-one" in ids
    assert not {"bad-url", "bad-kind", "bad-field"} & set(ids)
    # The broken override leaves the packaged entry as it was.
    assert ids["openai-news"].tier == 1
    assert len(errors) == 4, errors
    for e in errors:
        assert "\n" not in e and e.startswith(str(user) + ": entry '")
    joined = "\n".join(errors)
    assert "entry 'bad-url' field 'url': must be an http(s) URL" in joined
    assert re.search(r"entry 'bad-kind' field 'kind': 'twitter' is not one of rss, atom", joined)
    assert "entry 'bad-field' field 'catgory': unknown field" in joined
    assert "entry 'openai-news' field 'tier': must be 1, 2 or 3" in joined


@pytest.mark.parametrize(
    "entry, field",
    [
        ('id = "Has Caps"\nname = "x"\nurl = "https://a.example/"', "id"),
        ('name = "no id"\nurl = "https://a.example/"', "id"),
        ('id = "no-url"\nname = "x"', "url"),
        ('id = "w"\nname = "x"\nurl = "https://a.example/"\nweight = 0', "weight"),
        ('id = "l"\nname = "x"\nurl = "https://a.example/"\nlanguage = "fr"', "language"),
        ('id = "c"\nname = "x"\nurl = "https://a.example/"\ncategory = "blog"', "category"),
        ('id = "f"\nname = "x"\nurl = "https://a.example/"\nfulltext = "yes"', "fulltext"),
        ('id = "t"\nname = "x"\nurl = "https://a.example/"\ntier = true', "tier"),
        ('id = "p"\nname = "x"\nurl = "{bridgE}/x"', "url"),
        ('id = "s"\nname = "x"\nurl = "https:// spaced.example/"', "url"),
        ('id = "o"\nname = "x"\nurl = "https://a.example/"\nowner = 3', "owner"),
        ('id = "e"\nname = "x"\nurl = "https://a.example/"\nowner = "  "', "owner"),
    ],
)
def test_each_field_is_validated(tmp_path, entry, field):
    user = tmp_path / "one.toml"
    user.write_text(f"[[source]]\n{entry}\n", encoding="utf-8")
    sources, errors = load_catalog(_settings(tmp_path, sources_file=str(user)))
    assert len(errors) == 1 and f"field '{field}'" in errors[0] and str(user) in errors[0], errors
    assert len(sources) >= 60  # the packaged catalog still loads


def test_duplicate_ids_and_broken_toml(tmp_path):
    dup = tmp_path / "dup.toml"
    dup.write_text(
        '[[source]]\nid="a"\nname="A"\nurl="https://a.example/"\n'
        '[[source]]\nid="a"\nname="A2"\nurl="https://a2.example/"\n',
        encoding="utf-8",
    )
    sources, errors = load_catalog(_settings(tmp_path), user_file=dup)
    assert _by_id(sources)["a"].name == "A"
    assert len(errors) == 1 and "entry 'a' field 'id': duplicate" in errors[0]

    broken = tmp_path / "broken.toml"
    broken.write_text('[[source]]\nid = "a\n', encoding="utf-8")
    sources, errors = load_catalog(_settings(tmp_path), user_file=broken)
    assert len(errors) == 1 and errors[0].startswith(f"{broken}: not valid TOML")
    assert len(sources) >= 60

    missing = tmp_path / "nope.toml"
    sources, errors = load_catalog(_settings(tmp_path), user_file=missing)
    assert len(errors) == 1 and "not found" in errors[0] and len(sources) >= 60


def test_bridge_base_is_substituted(tmp_path):
    sources, errors = load_catalog(_settings(tmp_path, rss_bridge_base="http://bridge.lan:1200/"))
    assert errors == []
    bridged = [s for s in sources if s.url.startswith("http://bridge.lan:1200/")]
    assert bridged, "the packaged catalog has bridged sources"
    assert all("//" not in s.url.removeprefix("http://") for s in bridged)
    assert _by_id(sources)["huxiu"].url == "http://bridge.lan:1200/huxiu/article"

    user = tmp_path / "u.toml"
    user.write_text('[[source]]\nid = "jiqizhixin"\nurl = "{bridge}/jiqizhixin/daily"\n', encoding="utf-8")
    sources, errors = load_catalog(_settings(tmp_path, rss_bridge_base="https://rss.example"), user_file=user)
    assert errors == [] and _by_id(sources)["jiqizhixin"].url == "https://rss.example/jiqizhixin/daily"


def test_data_dir_catalog_is_the_fallback_user_file(tmp_path):
    settings = _settings(tmp_path)
    Path(settings.data_dir).mkdir()
    (Path(settings.data_dir) / "sources.toml").write_text(
        '[[source]]\nid = "x-lab"\nname = "X Lab"\nurl = "https://x.example/rss"\n', encoding="utf-8"
    )
    sources, errors = load_catalog(settings)
    assert errors == [] and "x-lab" in _by_id(sources)


def test_opml_round_trip(tmp_path):
    sources, _ = load_catalog(_settings(tmp_path))
    path = tmp_path / "out.opml"
    write_opml(sources, path)
    back = read_opml(path)
    assert [(s.name, s.url) for s in back] == [
        (s.name, s.url)
        for s in sorted(sources, key=lambda s: list(dict.fromkeys(x.category for x in sources)).index(s.category))
    ]
    orig = _by_id(sources)
    for s in back:
        o = orig[s.id]  # ids survive the trip too
        assert (s.kind, s.language, s.tier, s.weight, s.category, s.fulltext, s.owner) == (
            o.kind,
            o.language,
            o.tier,
            o.weight,
            o.category,
            o.fulltext,
            o.owner,
        )
        assert s.origin == "import"


def test_read_typical_reader_export(tmp_path):
    """Nested folders, no newsdesk attributes, a CJK title, a duplicate title, a non-feed outline."""
    path = tmp_path / "feedly.opml"
    path.write_text(
        """<?xml version="1.0" encoding="UTF-8"?>
<opml version="1.0">
  <head><title>Subscriptions in Feedly</title></head>
  <body>
    <outline text="AI" title="AI">
      <outline type="rss" text="Simon Willison's Weblog" title="Simon Willison's Weblog"
               xmlUrl="https://simonwillison.net/atom/everything/" htmlUrl="https://simonwillison.net/"/>
      <outline text="Papers">
        <outline type="rss" text="cs.CL updates on arXiv.org" xmlUrl="https://rss.arxiv.org/rss/cs.CL"/>
      </outline>
      <outline type="rss" text="机器之心" title="机器之心" xmlUrl="https://www.jiqizhixin.com/rss"/>
      <outline type="rss" text="Blog" xmlUrl="https://a.example/feed"/>
      <outline type="rss" text="Blog" xmlUrl="https://b.example/feed"/>
    </outline>
    <outline type="link" text="Just a bookmark" url="https://example.com/"/>
    <outline text="Hacker News" xmlUrl="https://hnrss.org/frontpage" language="en-US"/>
    <outline text="newsletter">
      <outline text="Import AI" xmlUrl="https://importai.substack.com/feed"/>
    </outline>
  </body>
</opml>
""",
        encoding="utf-8",
    )
    got = read_opml(path)
    ids = _by_id(got)
    assert [s.url for s in got] == [
        "https://simonwillison.net/atom/everything/",
        "https://rss.arxiv.org/rss/cs.CL",
        "https://www.jiqizhixin.com/rss",
        "https://a.example/feed",
        "https://b.example/feed",
        "https://hnrss.org/frontpage",
        "https://importai.substack.com/feed",
    ]
    assert ids["simon-willison-s-weblog"].language == "en"
    assert ids["cs-cl-updates-on-arxiv-org"].kind == "arxiv"
    zh = next(s for s in got if s.name == "机器之心")
    assert zh.language == "zh" and zh.category == "zh-media"
    assert re.fullmatch(r"[a-z0-9][a-z0-9-]*", zh.id)
    assert ids["blog"].url == "https://a.example/feed" and ids["blog-2"].url == "https://b.example/feed"
    assert ids["hacker-news"].kind == "hn"
    assert ids["import-ai"].category == "newsletter"  # folder named like a category


def test_bad_opml_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.opml"
    bad.write_text("<opml><body><outline text='x'></body>", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"bad\.opml: not valid OPML"):
        read_opml(bad)
    html = tmp_path / "page.opml"
    html.write_text("<html><body/></html>", encoding="utf-8")
    with pytest.raises(CatalogError, match="not <opml>"):
        read_opml(html)


def test_import_opml_appends_new_feeds_once(tmp_path):
    from newsdesk.ingest.catalog import import_opml

    settings = _settings(tmp_path)
    opml = tmp_path / "in.opml"
    opml.write_text(
        '<?xml version="1.0"?><opml version="1.0"><body><outline text="AI">'
        '<outline type="rss" text="Simon Willison" xmlUrl="https://simonwillison.net/atom/everything/"/>'
        '<outline type="rss" text="OpenAI News" xmlUrl="https://new.example/openai-mirror"/>'
        '<outline type="rss" text="新智元" xmlUrl="https://bridge.example/wechat/aiera"/>'
        "</outline></body></opml>",
        encoding="utf-8",
    )
    target = Path(settings.data_dir) / "sources.toml"
    target.parent.mkdir()
    target.write_text("# my sources\n", encoding="utf-8")
    report = import_opml(settings, opml)
    added = report.added
    assert report.target == target and len(report.already) == 1 and report.skipped == []
    assert "'Simon Willison'" in report.already[0] and "already in the catalog as 'simon-willison'" in report.already[0]
    assert [s.url for s in added] == ["https://new.example/openai-mirror", "https://bridge.example/wechat/aiera"]
    assert added[0].id == "openai-news-2"  # the catalog already has openai-news
    assert target.read_text(encoding="utf-8").startswith("# my sources\n")  # the user's text is kept
    sources, errors = load_catalog(settings)
    ids = _by_id(sources)
    assert errors == [] and ids["openai-news-2"].origin == "user" and ids["openai-news"].origin == "catalog"
    zh = next(s for s in sources if s.name == "新智元")
    assert zh.language == "zh"
    again = import_opml(settings, opml)
    assert again.added == [] and len(again.already) == 3


def test_cli_export_then_import(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from newsdesk import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSDESK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setattr(cli, "_state", {})
    runner = CliRunner()
    result = runner.invoke(cli.app, ["sources", "export", "all.opml"])
    assert result.exit_code == 0, result.output
    enabled = [s for s in load_catalog(_settings(tmp_path))[0] if s.enabled]
    assert f"exported {len(enabled)} sources" in result.output
    assert len(read_opml(tmp_path / "all.opml")) == len(enabled)
    monkeypatch.setattr(cli, "_state", {})
    result = runner.invoke(cli.app, ["sources", "import", "all.opml"])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # Rich wraps long lines
    assert f"imported 0 sources into {tmp_path / 'data' / 'sources.toml'} ({len(enabled)} already" in out
    monkeypatch.setattr(cli, "_state", {})
    result = runner.invoke(cli.app, ["sources", "import", "missing.opml"])
    assert result.exit_code == 2 and "missing.opml: cannot read" in " ".join(result.output.split())
