"""Article page → full text with trafilatura, or an honest material level when there is none.

A paywall page must never become an item's body: its "text" is a teaser plus a subscribe
prompt, and an analysis written from it would present a sales pitch as the news. So the
page is checked for the signs publishers use (schema.org isAccessibleForFree=false, paywall /
meter markup, subscribe or sign-in walls in English and Chinese) before the text is trusted.
"""

from __future__ import annotations

import re

import trafilatura
from trafilatura.utils import decode_file

from newsdesk.ingest.normalize import html_to_text

MIN_CHARS_LATIN, MIN_CHARS_CJK = 250, 100  # less than this is not an article, whatever trafilatura says
TEASER_CHARS_LATIN, TEASER_CHARS_CJK = 1500, 600  # a wall's visible teaser is shorter than this

_NOT_FREE = re.compile(r"""["']isAccessibleForFree["']\s*:\s*["']?(false|no)\b""", re.I)
_WALL_MARKUP = re.compile(
    r"""\b(?:class|id)\s*=\s*["'][^"']*?(?<![\w-])(paywall|paywalled|pay-wall|regwall|reg-wall|meter|metered|"""
    r"""metered-content|piano-offer|tp-modal|subscriber-only|subscribers-only|premium-content|premium-article|"""
    r"""article-locked|content-locked|locked-content)(?![\w-])""",
    re.I,
)
_WALL_PROMPT = re.compile(
    r"(?:subscribe|sign in|log in|login|register|become a (?:member|subscriber))[^.!?\n]{0,50}?"
    r"(?:to (?:continue|keep) reading|to read (?:the|this|more|on)|to unlock|for (?:full|unlimited) access)"
    r"|already (?:a subscriber|have an account)\?"
    r"|this (?:article|story|content|post) is (?:only )?(?:available )?(?:exclusively )?(?:for|to) (?:paid |paying )?(?:subscribers|members)"
    r"|(?:subscribers?|members?)[- ]only (?:content|article|story)"
    r"|you(?:'ve| have) reached your (?:free )?(?:article|story) limit"
    r"|to continue reading,? (?:please )?(?:subscribe|sign in|log in|register)"
    r"|订阅(?:后|以|即可)?(?:阅读|查看|解锁)|付费(?:阅读|内容|会员|订阅|专栏)|登录后(?:阅读|查看|可见)"
    r"|开通会员|成为会员(?:后)?(?:阅读|查看)|购买后(?:阅读|查看)|会员专享|剩余\s*\d+\s*%\s*未读",
    re.I,
)
_CJK = re.compile(r"[\u3400-\u9fff]")


def _is_cjk(text: str) -> bool:
    return len(_CJK.findall(text[:600])) > 60


def extract_article(html: bytes | str, url: str) -> tuple[str, str | None]:
    """('full', text) | ('paywalled', None) | ('failed', None) for one fetched article page."""
    if not html:
        return "failed", None
    page = decode_file(html) if isinstance(html, bytes) else html
    try:
        text = trafilatura.extract(
            page, url=url, output_format="txt", include_comments=False, include_tables=True, favor_precision=True
        )
    except Exception:  # noqa: BLE001 — trafilatura on hostile markup: this item fails, the run goes on
        text = None
    text = "\n\n".join(line.strip() for line in (text or "").splitlines() if line.strip())
    cjk = _is_cjk(text or page)
    teaser = len(text) < (TEASER_CHARS_CJK if cjk else TEASER_CHARS_LATIN)

    if _NOT_FREE.search(page):
        return "paywalled", None  # the publisher says so in its own structured data
    if teaser and (_WALL_MARKUP.search(page) or _WALL_PROMPT.search(html_to_text(page)[:20000])):
        return "paywalled", None
    if text and _WALL_PROMPT.search(text) and len(text) < 3 * (TEASER_CHARS_CJK if cjk else TEASER_CHARS_LATIN):
        return "paywalled", None  # the wall's own words made it into the extraction
    if len(text) < (MIN_CHARS_CJK if cjk else MIN_CHARS_LATIN):
        return "failed", None
    return "full", text
