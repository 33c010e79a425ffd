"""extract_article: a real-looking article page gives its text; paywall pages never do."""

from __future__ import annotations

import pytest

from newsdesk.ingest.fulltext import extract_article

PARAGRAPHS = [
    "Anthropic on Thursday released a new version of its Claude model family, saying the largest model now "
    "handles tasks that take a human engineer several hours, from reading a codebase to shipping a fix.",
    "The company said the model was trained with a new reinforcement-learning setup that rewards finishing "
    "long tasks rather than answering single questions, and that it uses tools more sparingly than before.",
    "Pricing is unchanged for the mid-sized model, while the smallest model becomes cheaper per million "
    "tokens, a move analysts read as a response to price cuts by rival labs earlier in the summer.",
    "Independent benchmark results were not yet available. Researchers who had early access described the "
    "model as noticeably better at keeping track of long documents, but said it still invents citations.",
    "The release comes as regulators in Europe prepare guidance on general-purpose models, which will require "
    "providers to publish summaries of their training data and to report serious incidents.",
]

ARTICLE = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Anthropic releases new Claude models | AI Wire</title>
<script>window.dataLayer = [];</script><style>.nav {{ color: red }}</style></head>
<body>
<header><nav><a href="/">Home</a> <a href="/ai">AI</a> <a href="/newsletter">Newsletter</a></nav></header>
<main><article>
<h1>Anthropic releases new Claude models</h1>
<p class="byline">By Jane Reporter · August 21, 2026</p>
{"".join(f"<p>{p}</p>" for p in PARAGRAPHS)}
</article>
<aside class="related"><h3>Related</h3><ul><li><a href="/a">Another story</a></li><li><a href="/b">More news</a></li></ul></aside>
</main>
<footer><p>© 2026 AI Wire. <a href="/subscribe">Subscribe to our newsletter</a>.</p></footer>
</body></html>"""

PAYWALL_JSONLD = f"""<!DOCTYPE html><html><head><title>Inside the chip race</title>
<script type="application/ld+json">{{"@context": "https://schema.org", "@type": "NewsArticle",
"headline": "Inside the chip race", "isAccessibleForFree": "False",
"hasPart": {{"@type": "WebPageElement", "isAccessibleForFree": "False", "cssSelector": ".paywalled"}}}}</script>
</head><body><article><h1>Inside the chip race</h1>
{"".join(f"<p>{p}</p>" for p in PARAGRAPHS[:2])}
<div class="paywalled"><p>{PARAGRAPHS[2]}</p></div></article></body></html>"""

PAYWALL_PROMPT = f"""<!DOCTYPE html><html><head><title>The quiet collapse of AI startup valuations</title></head>
<body><article><h1>The quiet collapse of AI startup valuations</h1>
<p>{PARAGRAPHS[0][:160]}</p>
<div class="article-gate"><h2>Subscribe to continue reading</h2>
<p>Get unlimited access to our journalism for $1 a week. Already a subscriber? <a href="/login">Sign in</a></p>
<button>Subscribe now</button></div></article></body></html>"""

PAYWALL_MARKUP = f"""<!DOCTYPE html><html><head><title>Exclusive: the lab's next model</title></head>
<body><article><h1>Exclusive: the lab's next model</h1><p>{PARAGRAPHS[1]}</p>
<div id="piano-offer" class="paywall"></div></article></body></html>"""

PAYWALL_ZH = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>大模型价格战背后</title></head>
<body><article><h1>大模型价格战背后：谁在赔本赚吆喝</h1>
<p>过去三个月，国内多家大模型厂商相继宣布降价，部分模型的调用价格下降超过九成。</p>
<p>业内人士表示，这场价格战的真正目的，是争夺开发者生态与企业客户。</p>
<div class="pay-box"><p>本文为付费内容，剩余 85% 未读</p><p>开通会员后阅读全文，或登录后查看</p></div>
</article></body></html>"""

ZH_ARTICLE = (
    "<html><head><meta charset='utf-8'><title>机器之心</title></head><body><article><h1>智谱发布新模型</h1>"
    + "".join(
        f"<p>{p}</p>"
        for p in [
            "8月21日，智谱正式发布新一代开源大模型，参数规模达到千亿级别，并在多项中文评测中取得领先成绩。",
            "据介绍，新模型采用混合专家架构，推理成本较上一代下降约六成，同时支持长达十二万八千字的上下文窗口。",
            "智谱表示，模型权重将以宽松许可证开放下载，开发者可以免费用于商业场景，这一做法引发业内广泛关注。",
            "多位研究者在社交媒体上分享了早期测试结果，认为新模型在代码生成与数学推理方面进步明显。",
        ]
    )
    + "</article></body></html>"
)


def test_article_page_gives_full_text():
    material, body = extract_article(ARTICLE.encode("utf-8"), "https://aiwire.example.com/2026/08/claude")
    assert material == "full"
    for paragraph in PARAGRAPHS:
        assert paragraph in body
    assert "Another story" not in body and "dataLayer" not in body  # navigation, asides and scripts left out
    assert body.count("\n\n") >= len(PARAGRAPHS) - 1  # paragraphs stay paragraphs


def test_chinese_article_gives_full_text():
    material, body = extract_article(ZH_ARTICLE.encode("utf-8"), "https://www.jiqizhixin.com/articles/1")
    assert material == "full" and "混合专家架构" in body


@pytest.mark.parametrize(
    "page", [PAYWALL_JSONLD, PAYWALL_PROMPT, PAYWALL_MARKUP, PAYWALL_ZH], ids=["jsonld", "prompt", "markup", "zh"]
)
def test_paywall_pages_are_never_a_body(page):
    assert extract_article(page.encode("utf-8"), "https://news.example.com/story") == ("paywalled", None)


def test_subscribe_footer_on_a_free_article_is_not_a_paywall():
    # ARTICLE ends with "Subscribe to our newsletter": a real article page, not a wall
    assert extract_article(ARTICLE, "https://aiwire.example.com/x")[0] == "full"


@pytest.mark.parametrize(
    "page",
    [b"", b"<html><body><nav><a href='/'>Home</a></nav></body></html>", b"\x89PNG\r\n\x1a\n\x00\x00binary"],
    ids=["empty", "no-article", "binary"],
)
def test_pages_without_an_article_fail(page):
    assert extract_article(page, "https://example.com/") == ("failed", None)
