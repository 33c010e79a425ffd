"""The cluster stage over a real store (SQLite and PostgreSQL) with the embedded USE model."""

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from newsdesk.cluster import cluster_new_items, event_brief
from newsdesk.cluster.embed import UseEmbedder, ensure_vectors
from newsdesk.cluster.events import ClusterConfig
from newsdesk.core.config import Settings
from newsdesk.core.model import Item, Source
from newsdesk.store.items import sync_sources, upsert_item
from newsdesk.store.schema import event_members, events, item_vectors

T0 = datetime(2026, 4, 20, 8, 0, tzinfo=UTC)

SOURCES = [
    Source("openai-blog", "OpenAI Blog", "https://openai.com/blog/rss.xml", tier=1, weight=1.5, category="official"),
    Source("the-verge", "The Verge", "https://www.theverge.com/rss", tier=2),
    Source("jiqizhixin", "机器之心", "https://www.jiqizhixin.com/rss", language="zh", tier=2),
    Source("qbitai", "量子位", "https://www.qbitai.com/feed", language="zh", tier=3),
    Source("arxiv-cs-cl", "arXiv cs.CL", "https://rss.arxiv.org/rss/cs.CL", kind="arxiv", tier=2, category="paper"),
    Source("arxiv-cs-lg", "arXiv cs.LG", "https://rss.arxiv.org/rss/cs.LG", kind="arxiv", tier=2, category="paper"),
    Source("arxiv-cs-ai", "arXiv cs.AI", "https://rss.arxiv.org/rss/cs.AI", kind="arxiv", tier=2, category="paper"),
    Source("hf-papers-takara", "HF papers (Takara)", "https://hf.example/papers.xml", tier=3, category="paper"),
]

PAPER = (
    "HalluScope: measuring how far hallucinations spread in vision-language models",
    "We introduce HalluScope, a benchmark of 12,000 image-question pairs that measures the scope of "
    "hallucinations in vision-language models, and show that grounding loss reduces them by 31%.",
)

ITEMS = [
    # (source, guid, hours after T0, title, summary, language, url)
    (
        "openai-blog",
        "https://openai.com/index/gpt-5-5",
        0,
        "Introducing GPT-5.5",
        "GPT-5.5 is our new flagship model: better at coding and agentic tasks, with a 1M-token context window, "
        "available today in ChatGPT and the API at half the price of GPT-5.",
        "en",
        "https://openai.com/index/gpt-5-5",
    ),
    (
        "jiqizhixin",
        "jqzx-1",
        5,
        "OpenAI 发布 GPT-5.5：编程与智能体能力大幅提升，价格减半",
        "OpenAI 今天发布新旗舰模型 GPT-5.5，编程和智能体任务更强，上下文窗口达到 100 万 token，"
        "已在 ChatGPT 和 API 上线，价格是 GPT-5 的一半。",
        "zh",
        "https://www.jiqizhixin.com/articles/gpt-5-5",
    ),
    (
        "the-verge",
        "verge-1",
        7,
        "OpenAI's GPT-5.5 is here, and it is cheaper",
        "OpenAI released GPT-5.5, a new flagship model with stronger coding and agent skills and a one million "
        "token context window, priced at half of GPT-5.",
        "en",
        "https://www.theverge.com/ai/gpt-5-5",
    ),
    # A different OpenAI announcement the same week: a small model, not the flagship.
    (
        "openai-blog",
        "https://openai.com/index/gpt-4o-mini-update",
        30,
        "Introducing GPT-4o mini updates",
        "GPT-4o mini gets faster and cheaper: our small model is now better at coding and agentic tasks, "
        "available today in ChatGPT and the API.",
        "en",
        "https://openai.com/index/gpt-4o-mini-update",
    ),
    # One arXiv paper in three category feeds and a Hugging Face papers mirror.
    ("arxiv-cs-cl", "oai:arXiv.org:2604.12345", 10, *PAPER, "en", "https://arxiv.org/abs/2604.12345"),
    ("arxiv-cs-lg", "oai:arXiv.org:2604.12345", 10, *PAPER, "en", "https://arxiv.org/abs/2604.12345"),
    ("arxiv-cs-ai", "oai:arXiv.org:2604.12345v1", 10, *PAPER, "en", "https://arxiv.org/abs/2604.12345v1"),
    ("hf-papers-takara", "hf-2604.12345", 20, PAPER[0], PAPER[1], "en", "https://huggingface.co/papers/2604.12345"),
    # Unrelated.
    (
        "qbitai",
        "qbit-1",
        12,
        "宇树科技完成新一轮融资，估值超过 100 亿元",
        "人形机器人公司宇树科技完成新一轮融资，投后估值超过 100 亿元人民币。",
        "zh",
        "https://www.qbitai.com/1",
    ),
]


@pytest.fixture(scope="module")
def embedder():
    return UseEmbedder(threads=2)


def _store(engine, rows=ITEMS):
    with engine.begin() as conn:
        sync_sources(conn, SOURCES)
        for src, guid, hours, title, summary, lang, url in rows:
            upsert_item(
                conn,
                Item(src, guid, url, title, summary, language=lang, published_at=T0 + timedelta(hours=hours)),
                now=T0 + timedelta(days=1),
            )


def _by_title(engine):
    with engine.connect() as conn:
        rows = conn.execute(
            select(
                event_members.c.event_id,
                event_members.c.role,
                event_members.c.origin_item_id,
                event_members.c.reason,
                event_members.c.item_id,
            )
        ).all()
        from newsdesk.store.schema import items

        titles = dict(conn.execute(select(items.c.id, items.c.source_id)).all())
    return rows, titles


def _snapshot(engine):
    with engine.connect() as conn:
        ev = conn.execute(select(events).order_by(events.c.id)).all()
        mem = conn.execute(select(event_members).order_by(event_members.c.item_id)).all()
        vec = conn.execute(select(item_vectors.c.item_id, item_vectors.c.vector).order_by(item_vectors.c.item_id)).all()
    return ev, mem, vec


def test_store_path_joins_languages_keeps_versions_apart_and_collapses_one_paper(engine, embedder):
    _store(engine)
    stats = cluster_new_items(engine, Settings(), embedder=embedder)
    assert stats.items == len(ITEMS)
    with engine.connect() as conn:
        from newsdesk.store.schema import items

        ids = {r.guid: r.id for r in conn.execute(select(items.c.guid, items.c.id))}
        event_of = dict(conn.execute(select(event_members.c.item_id, event_members.c.event_id)).all())
        flagship = event_of[ids["https://openai.com/index/gpt-5-5"]]
        # zh and en reports of one release join; the GPT-4o mini post the same week stays apart.
        assert event_of[ids["jqzx-1"]] == flagship
        assert event_of[ids["verge-1"]] == flagship
        assert event_of[ids["https://openai.com/index/gpt-4o-mini-update"]] != flagship
        assert event_of[ids["qbit-1"]] not in (flagship,)
        brief = event_brief(conn, flagship)
        assert brief["members"][0]["source_id"] == "openai-blog" and brief["members"][0]["role"] == "lead"
        assert (brief["outlets"], brief["independent_outlets"]) == (3, 3)
        assert brief["languages"] == ["en", "zh"]
        assert "model:gpt-5.5" in brief["anchors"]
        assert {m["title"] for m in brief["members"]} >= {
            "Introducing GPT-5.5",
            "OpenAI's GPT-5.5 is here, and it is cheaper",
        }
        zh = next(m for m in brief["members"] if m["language"] == "zh")
        assert "gpt-5.5" in zh["reason"] or "cosine" in zh["reason"]
        # The paper: four feeds, one origin. The two that carry its very link are duplicates, shown
        # as no link of their own, so they count as no outlet: the card's count is its links'.
        paper = event_of[ids["oai:arXiv.org:2604.12345"]]
        paper_brief = event_brief(conn, paper)
        assert paper_brief["item_count"] == 4
        shown = [m for m in paper_brief["members"] if m["role"] != "duplicate"]
        assert (
            (paper_brief["outlets"], paper_brief["independent_outlets"])
            == (len({m["source_id"] for m in shown}), 1)
            == (2, 1)
        )
        roles = sorted(m["role"] for m in paper_brief["members"])
        assert roles.count("lead") == 1 and set(roles) <= {"lead", "duplicate", "syndicated"}
        copies = [m for m in paper_brief["members"] if m["role"] != "lead"]
        assert all(m["origin_item_id"] is not None for m in copies)
        # Each item embedded once, kept in the store.
        assert conn.execute(select(item_vectors.c.item_id)).all().__len__() == len(ITEMS)


def test_a_companys_second_channel_on_its_own_launch_is_no_independent_outlet(engine, embedder):
    """OpenAI's developer blog on the GPT-5.5 launch is OpenAI speaking again (the catalog's owner):
    four outlets, still three independent; the owner is read from the store's sources."""
    from dataclasses import replace

    developer = Source("openai-developer", "OpenAI Developer Blog", "https://developers.openai.com/rss.xml",
                       tier=1, category="lab", owner="OpenAI")  # fmt: skip
    post = (
        "openai-developer", "dev-1", 2, "GPT-5.5 in the API: a guide for developers",
        "GPT-5.5 is available in the API today with a 1M-token context window at half the price of GPT-5; "
        "here is how to migrate from GPT-5.", "en", "https://developers.openai.com/blog/gpt-5-5",
    )  # fmt: skip
    with engine.begin() as conn:
        sync_sources(conn, [replace(SOURCES[0], owner="OpenAI"), *SOURCES[1:], developer])
        for src, guid, hours, title, summary, lang, url in [*ITEMS[:3], post]:
            item = Item(src, guid, url, title, summary, language=lang, published_at=T0 + timedelta(hours=hours))
            upsert_item(conn, item, now=T0 + timedelta(days=1))
    cluster_new_items(engine, Settings(), embedder=embedder)
    with engine.connect() as conn:
        from newsdesk.store.schema import items

        ids = {r.guid: r.id for r in conn.execute(select(items.c.guid, items.c.id))}
        event_of = dict(conn.execute(select(event_members.c.item_id, event_members.c.event_id)).all())
        flagship = event_of[ids["https://openai.com/index/gpt-5-5"]]
        assert event_of[ids["dev-1"]] == flagship
        brief = event_brief(conn, flagship)
        assert (brief["outlets"], brief["independent_outlets"]) == (4, 3)


def test_rerun_changes_nothing_and_a_later_item_resumes_into_its_event(engine, embedder):
    _store(engine)
    cluster_new_items(engine, Settings(), embedder=embedder)
    before = _snapshot(engine)
    again = cluster_new_items(engine, Settings(), embedder=embedder)
    assert again.items == 0
    assert _snapshot(engine) == before
    # A new report two days later, in a fresh run: the open event is read back from the store.
    late = [
        (
            "qbitai",
            "qbit-2",
            50,
            "GPT-5.5 实测：编程能力提升明显，上下文达到 100 万 token",
            "我们实测了 OpenAI 新发布的 GPT-5.5 旗舰模型，编程和智能体任务更强，价格是 GPT-5 的一半。",
            "zh",
            "https://www.qbitai.com/2",
        )
    ]
    _store(engine, late)
    stats = cluster_new_items(engine, Settings(), embedder=embedder)
    assert (stats.items, stats.opened) == (1, 0)
    with engine.connect() as conn:
        from newsdesk.store.schema import items

        ids = {r.guid: r.id for r in conn.execute(select(items.c.guid, items.c.id))}
        event_of = dict(conn.execute(select(event_members.c.item_id, event_members.c.event_id)).all())
        assert event_of[ids["qbit-2"]] == event_of[ids["https://openai.com/index/gpt-5-5"]]
        assert event_brief(conn, event_of[ids["qbit-2"]])["item_count"] == 4


def test_arbiter_decides_borderline_merges_and_its_reason_is_stored(sqlite_engine, embedder):
    _store(sqlite_engine, ITEMS[:3])
    asked = []

    def arbiter(event_text, item_text):
        asked.append((event_text, item_text))
        return False, "different outlets' angles but one release? no: test arbiter splits"

    # A wide band sends every candidate match to the arbiter; the budget caps the calls.
    config = ClusterConfig(arbiter_band=1.0, arbiter_budget=1)
    stats = cluster_new_items(sqlite_engine, Settings(), embedder=embedder, arbiter=arbiter, config=config)
    assert stats.arbitrated == 1 and len(asked) == 1
    assert asked[0][0].startswith("Introducing GPT-5.5")
    with sqlite_engine.connect() as conn:
        reasons = [r.reason for r in conn.execute(select(event_members.c.reason).order_by(event_members.c.item_id))]
        n_events = len(conn.execute(select(events.c.id)).all())
    assert "arbiter: split (different outlets' angles" in reasons[1]
    assert n_events == 2  # split by the arbiter, then the third item joined on the merits (budget spent)


def test_ensure_vectors_embeds_each_item_once(sqlite_engine, embedder):
    _store(sqlite_engine, ITEMS[:2])
    calls = []

    class Counting:
        model, dim = embedder.model, embedder.dim

        def embed(self, texts):
            calls.append(len(texts))
            return embedder.embed(texts)

    with sqlite_engine.begin() as conn:
        first = ensure_vectors(conn, Counting(), [1, 2])
        second = ensure_vectors(conn, Counting(), [1, 2])
    assert calls == [2]
    assert all((first[i] == second[i]).all() for i in (1, 2))
    assert abs(float(first[1] @ first[1]) - 1.0) < 1e-5


def test_the_model_rules_on_borderline_merges_through_the_llm_layer(sqlite_engine, embedder):
    """llm_arbiter over the real LLM client and a loopback endpoint; no ruling when it is down."""
    import json

    from fakes import FakeEndpoint, completion

    from newsdesk.cluster.arbiter import llm_arbiter
    from newsdesk.llm import open_llm
    from newsdesk.store.schema import llm_usage

    _store(sqlite_engine, ITEMS[:3])
    fake = FakeEndpoint(lambda req: completion(json.dumps({"same_event": False, "reason": "a different announcement"})))
    s = Settings()
    s.llm.backend, s.llm.base_url, s.llm.model, s.llm.timeout, s.llm.backoff_base = (
        "openai",
        fake.base_url,
        "m",
        1.0,
        0.05,
    )
    try:
        config = ClusterConfig(arbiter_band=1.0, arbiter_budget=1)
        stats = cluster_new_items(
            sqlite_engine, s, embedder=embedder, arbiter=llm_arbiter(open_llm(s, sqlite_engine)), config=config
        )
    finally:
        fake.close()
    assert stats.arbitrated == 1 and len(fake.requests) == 1
    with sqlite_engine.connect() as conn:
        reasons = [r.reason for r in conn.execute(select(event_members.c.reason).order_by(event_members.c.item_id))]
        assert conn.execute(select(llm_usage.c.output)).scalars().all() == ["arbitrate"]
    assert "arbiter: split (a different announcement)" in reasons[1]

    # An endpoint that is down gives no ruling: the score decides and clustering goes on.
    s.llm.base_url, s.llm.retries = "http://127.0.0.1:9/v1", 1
    assert llm_arbiter(open_llm(s, sqlite_engine))("event", "item") is None
