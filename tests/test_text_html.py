"""text/html.py's short cut: a fragment with no tag, entity, carriage return, NUL or byte-order mark
skips the sanitizer, and must come out exactly as nh3 would give it (a reader's page byte for byte)."""

from __future__ import annotations

import html
import json

import nh3
from hypothesis import given, settings
from hypothesis import strategies as st

from newsdesk.text import html as render


def _parsed_clean(fragment: str) -> str:
    return nh3.clean(
        fragment,
        tags=render._TAGS,
        attributes=render._ATTRIBUTES,
        url_schemes=render._SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def _parsed_plain(fragment: str) -> str:
    return html.unescape(nh3.clean(fragment, tags=set(), strip_comments=True)).strip()


def _same_as_the_parser(fragment: str) -> None:
    if not fragment:
        return
    assert str(render.clean_html(fragment)) == _parsed_clean(fragment)
    assert render.plain_text(fragment) == _parsed_plain(fragment)


# Text of every kind, markup's own characters included: a fragment holding one goes to nh3 anyway.
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)) | st.sampled_from(list("<>&\"'\r\n\t\xa0\ufeff\x00 中")),
    max_size=40,
)


@settings(max_examples=3000, deadline=None)
@given(TEXT)
def test_text_without_markup_comes_out_as_the_sanitizer_gives_it(fragment):
    _same_as_the_parser(fragment)


def test_the_harvests_titles_and_summaries_come_out_as_the_sanitizer_gives_them(fixtures):
    shortcut = 0
    for line in (fixtures / "news/ai-daily-harvest.jsonl").open(encoding="utf-8"):
        news = json.loads(line)
        for field in ("title", "summary", "core_point"):
            if isinstance(news.get(field), str):
                _same_as_the_parser(news[field])
                shortcut += not render._NEEDS_PARSER.search(news[field])
    assert shortcut > 1000  # most of them take the short cut


# --- markdown_html's short cut: paragraphs of text skip the Markdown parser and the sanitizer --------


def _parsed_markdown(body: str) -> str:
    return str(render.clean_html(render._markdown.render(body)))


# Paragraph text with what a block or inline rule reads in it, and the spaces it strips or breaks on.
PARAGRAPHS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",))
    | st.sampled_from(list("\"' \n\n\n\xa0\u3000\u2028\x85中a1.)#-=+>:!|*_`[]<&\t")),
    max_size=80,
)


@settings(max_examples=5000, deadline=None)
@given(PARAGRAPHS)
def test_markdown_of_paragraphs_of_text_comes_out_as_the_parser_gives_it(body):
    plain = render._plain_paragraphs(body)
    if plain is not None:
        assert plain == _parsed_markdown(body)
    if body:
        assert str(render.markdown_html(body)) == _parsed_markdown(body)


def test_an_analysis_of_plain_paragraphs_skips_the_parser_and_markdown_does_not():
    analysis = (
        "OpenAI 推出了 GPT-5.4（包括 GPT-5.4 Thinking 和 GPT-5.4 Pro）。（Ars Technica — AI）\n"
        '它说 "可用"\xa0了。\n\n9 个来源报道（OpenAI、腾讯科技）'
    )
    assert render._plain_paragraphs(analysis) == _parsed_markdown(analysis)
    assert render._plain_paragraphs(analysis).count("<p>") == 2
    for markdown in (
        "**粗体**",
        "- 一条\n- 两条",
        "1. 第一",
        "标题\n===",
        "    代码",
        "行尾两个空格  \n下一行",
        "a | b\n--|--",
    ):
        assert render._plain_paragraphs(markdown) is None, markdown
        assert str(render.markdown_html(markdown)) == _parsed_markdown(markdown)
