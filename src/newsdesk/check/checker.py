"""The output checker: deterministic, no LLM. Every number, quote and name in a written output
must be found in the material it was written from; what the writer did not see must be said;
the text must be clean.

    result = check_output(text, material_texts, levels=["full", "title"], language="zh")
    result.passed, [f.detail for f in result.findings]

Numbers are compared as values, not strings: 1万亿 = 1 trillion = 1e12, 82.7% = 82.7 percent,
8000 = 8,000, and a scale or currency changes the value, so "410.08 百万美元" is not the
"$410.08" of the material. A bare number (no unit, no scale, e.g. the first end of a range)
may match the mantissa of a scaled one ("1.05 至 1.15 万亿" against "1.05万亿").

Outside context is allowed when the sentence marks it (我记得 / 我没核实 / from memory ...):
years and names in such a sentence are not required to be in the material; numbers still are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from newsdesk.core.findings import Finding
from newsdesk.text import lexicon
from newsdesk.text.numbers import CLOCK, MONTHS, PUNCT_SPACE, URL, YEAR, Number, extract_numbers, nfkc, prepare, squash


@dataclass
class CheckResult:
    passed: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def summary(self) -> str:
        return "; ".join(f.detail for f in self.errors) or "clean"


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


class _NumberIndex:
    """The material's numbers, looked up by value."""

    def __init__(self, material: str):
        self.nums = extract_numbers(material)
        # "6:15pm" in the material supports "6.15 pm" in the output.
        for m in CLOCK.finditer(prepare(material)):
            v = float(f"{m.group(1)}.{m.group(2)}")
            self.nums.append(Number(m.group(0), v, v, False, "plain", m.start()))
        low = nfkc(material).lower()
        # Dates written with month names ("April 23") support "4 月 23 日".
        self.months = {v for k, v in MONTHS.items() if re.search(rf"\b{k}\b", low)}

    def supports(self, n: Number) -> bool:
        for m in self.nums:
            if _close(m.value, n.value) and _kinds_agree(n.kind, m.kind):
                return True
            # A bare number may be the first end of a range whose scale is written once at the end.
            if (
                not n.scaled
                and n.kind in ("plain", "percent")
                and _close(m.mantissa, n.value)
                and _kinds_agree(n.kind, m.kind)
            ):
                return True
        if n.kind == "plain" and not n.scaled and n.value in self.months:
            return True
        return False


def _kinds_agree(out_kind: str, mat_kind: str) -> bool:
    if out_kind == mat_kind or "plain" in (out_kind, mat_kind):
        return True
    return False


# --- quotes ---------------------------------------------------------------------------

_QUOTE_PAIRS = [("“", "”"), ("「", "」"), ("『", "』"), ("``", "''")]
_STRAIGHT = re.compile(r'"([^"\n]{2,400})"')


def extract_quotes(text: str) -> list[str]:
    text = nfkc(text)
    spans: list[str] = []
    for left, right in _QUOTE_PAIRS:
        spans += re.findall(re.escape(left) + r"([^\n]{1,400}?)" + re.escape(right), text)
    spans += _STRAIGHT.findall(text)
    out = []
    for s in spans:
        s = s.strip()
        cjk = sum(1 for c in s if "\u4e00" <= c <= "\u9fff")
        latin_words = len(re.findall(r"[A-Za-z]+", s))
        # Short scare quotes (“降智”, "vibe working") are a style matter, not a claim.
        if cjk >= 6 or latin_words >= 4:
            out.append(s)
    return out


def _quote_supported(span: str, material_squashed: str) -> bool:
    q = squash(span)
    if not q or q in material_squashed:
        return True
    # Tolerate a changed character or two (typography, a dropped article): 4-gram coverage.
    grams = {q[i : i + 4] for i in range(max(len(q) - 3, 1))}
    found = sum(1 for g in grams if g in material_squashed)
    return found / len(grams) >= 0.9


# --- names ----------------------------------------------------------------------------

_LATIN_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[.\-+][A-Za-z0-9]+)*")
_NAME_STOP = lexicon.words("not-names")  # capitalised, and no product, model or organisation name


def _name_severity(tok: str) -> str:
    """Short all-caps tokens are mostly jargon or units (ASP, PoC, HC, GB): recorded, not failing."""
    return "warn" if tok.isupper() and len(tok) <= 5 and not any(c.isdigit() for c in tok) else "error"


def extract_names(text: str, language: str) -> list[tuple[str, int]]:
    """Product / model / organisation names: Latin tokens that are capitalised mid-sentence, CamelCase, or carry digits."""
    text = URL.sub(" ", nfkc(text))
    out = []
    for m in _LATIN_TOKEN.finditer(text):
        tok = m.group(0)
        if tok in _NAME_STOP or len(tok) < 2:
            continue
        has_digit = any(c.isdigit() for c in tok)
        camel = any(c.isupper() for c in tok[1:]) and any(c.islower() for c in tok)
        capital = tok[0].isupper()
        if language == "en" and capital and not (has_digit or camel):
            before = text[: m.start()].rstrip()
            if not before or before[-1] in ".!?:\"“'(\n—-":
                continue  # sentence-initial capital says nothing
        if has_digit or camel or capital:
            out.append((tok, m.start()))
    return out


# --- sentences and context markers -----------------------------------------------------

_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]?|[^.\n]+(?:\.(?!\d)|$)")
_CONTEXT_MARKERS = re.compile(
    r"我记得|印象里|我印象|没核实|没核过|未核实|我没查|文章外|正文外|材料外|外部参照|外部对比|背景|过去一年|去年|前年|此前|当年|"
    r"as i recall|from memory|i have not verified|i haven't verified|not verified|for context|outside the (?:article|material)|"
    r"last year|previously|in the past",
    re.I,
)


def _sentence_at(text: str, pos: int) -> str:
    start = max(text.rfind(c, 0, pos) for c in "。！？!?\n")
    ends = [i for i in (text.find(c, pos) for c in "。！？!?\n") if i != -1]
    return text[start + 1 : (min(ends) if ends else len(text))]


# --- disclosure and hygiene ------------------------------------------------------------

_DISCLOSE = {
    "title": re.compile(
        r"只有标题|仅有标题|只看到标题|只拿到标题|标题级|仅标题|只有一个标题|没看到正文|没有正文|未见正文|正文未获取|"
        r"未能获取正文|拿不到正文|title only|only the (?:head)?line|only a (?:head)?line|only the title|did not see the (?:body|article|text)|"
        r"no (?:article )?body|without the (?:body|article)|headline alone",
        re.I,
    ),
    "paywalled": re.compile(r"订阅墙|付费墙|paywall", re.I),
    "summary": re.compile(r"摘要|RSS|导语|简介|summary|abstract|excerpt|snippet|teaser", re.I),
}
_ESCAPE = re.compile(r"\\[nrt]|\\u[0-9a-fA-F]{4}|\\\"")
_ENDINGS = tuple("。！？.!?”」』\"'）)…") + ("**",)


def _paragraphs(text: str) -> list[str]:
    return [p.strip() for p in re.split(r"\n\s*\n|\n", text) if p.strip()]


def _shingles(s: str, n: int = 5) -> set[str]:
    s = squash(s)
    return {s[i : i + n] for i in range(max(len(s) - n + 1, 1))}


def _near_same(a: set[str], b: set[str], *, cut: bool = False) -> bool:
    """Two texts' shingles: the same text, word for word or nearly. Most of the shorter is in the longer, and
    what they share is at least half of the longer: a short line that a longer sentence merely contains (a
    theme's heading of names, which each of its items names again among words of its own) is not that
    sentence said again. `cut`: `a` ends the output, where the token limit cuts a repeat off anywhere."""
    shared = len(a & b)
    if shared < 0.8 * max(min(len(a), len(b)), 1):
        return False
    return shared >= 0.5 * max(len(a), len(b)) or (cut and len(a) <= len(b))


_LOW_QUOTED = re.compile(r"„[^„“”\n]*[“”]")


def hygiene(text: str, *, finish_reason: str | None = None) -> list[Finding]:
    out: list[Finding] = []
    stripped = text.rstrip()
    if finish_reason == "length":
        out.append(Finding("truncated", "output was cut off at the token limit", stripped[-40:]))
    elif stripped and not stripped.endswith(_ENDINGS) and not stripped.endswith("..."):
        out.append(Finding("truncated", f"output ends mid-sentence: …{stripped[-30:]!r}", stripped[-40:]))
    elif stripped.endswith("...") or stripped.endswith("……"):
        out.append(Finding("truncated", "output ends with an ellipsis", stripped[-40:]))
    for m in _ESCAPE.finditer(text):
        out.append(
            Finding(
                "escape",
                f"literal escape sequence {m.group(0)!r} in the text",
                text[max(m.start() - 10, 0) : m.end() + 10],
            )
        )
        break
    paras = [p for p in _paragraphs(text) if len(squash(p)) >= 20]
    seen: list[tuple[str, set[str]]] = []
    for n, p in enumerate(paras):
        sh = _shingles(p)
        for _q, qsh in seen:
            if _near_same(sh, qsh, cut=n == len(paras) - 1):
                out.append(Finding("repeat", f"paragraph repeats an earlier one: {p[:40]!r}…", p[:80]))
                break
        seen.append((p, sh))
    # German quotes open low and close high („KI ist kein Werkzeug“, „…”): a pair of them is balanced,
    # whatever its closing mark counts as in English.
    paired = _LOW_QUOTED.sub("", text)
    for left, right in (("“", "”"), ("「", "」"), ("『", "』"), ("（", "）"), ("(", ")")):
        if paired.count(left) != paired.count(right):
            out.append(
                Finding(
                    "quotes",
                    f"unbalanced {left}{right}: {paired.count(left)} opening, {paired.count(right)} closing",
                    left + right,
                )
            )
    if "„" in paired:
        out.append(Finding("quotes", f"unbalanced „“: {paired.count('„')} opening, 0 closing", "„“"))
    if text.count('"') % 2:
        out.append(Finding("quotes", 'odd number of straight double quotes (")', '"'))
    return out


def disclosure(text: str, levels: list[str], language: str) -> list[Finding]:
    """Title-only or paywalled material must be said; so must summary-only when nothing better was there."""
    seen = set(levels)  # the material levels the writer saw
    out: list[Finding] = []
    if not seen or "full" in seen and "paywalled" not in seen:
        return out
    if "paywalled" in seen and not _DISCLOSE["paywalled"].search(text):
        out.append(
            Finding("disclosure", "material includes a paywalled article but the text does not say it hit a paywall")
        )
    if "full" not in seen:
        best = "summary" if "summary" in seen else "title" if seen & {"title", "paywalled", "failed"} else None
        if best == "title" and not (_DISCLOSE["title"].search(text) or _DISCLOSE["paywalled"].search(text)):
            out.append(Finding("disclosure", "only titles were available but the text does not say so"))
        if best == "summary" and not (_DISCLOSE["summary"].search(text) or _DISCLOSE["title"].search(text)):
            out.append(Finding("disclosure", "only summaries were available but the text does not say so"))
    return out


# --- the prompt echoed, a sentence in a loop, a name cut mid-word, another item's facts ---------

# The field labels the material's templates write (analysis_user.md, weekly_event.md): at a line's start, or a
# weekly member line's "｜材料级别：" anywhere (the embedded model copied it into an item's name).
_HEADER_LINE = re.compile(
    r"^[ \t]*(?:[-*•]\s*|\[\d+\]\s*)?(?:标题|链接|正文|事件概况|共同锚点|材料级别|Title|URL|Link)[ \t]*[:：]"
    r"|^\[\d+\][^\n]*·\s*材料：|[|｜]\s*材料级别[:：]",
    re.M | re.I,
)  # NFKC makes ｜ a |
# Template tags, and a prompt's worked example: an example sentence can be right for a like event (its facts
# are held to the material by the number and name checks), so only the instructions count as echoed.
_TEMPLATE_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}|<(示例[^>]*)>.*?</\1>", re.S)
ECHO_GRAM = 8  # squashed characters; the prompt's own words met in a row this long are looked at
ECHO_WEIGHT = 16  # an echo this long (a CJK character counts 1, any other 0.35: ~8 English words) fails
LOOP_TIMES = 3  # the same (or near-same) sentence this often is a loop, not emphasis
LOOP_WEIGHT = 8  # shorter sentences ("正文未披露。") may recur


def _weight(squashed: str) -> float:
    """Length in CJK-character equivalents: an English letter carries about a third of a Chinese character."""
    return sum(1.0 if "\u3400" <= c <= "\u9fff" else 0.35 for c in squashed)


@cache
def _instruction_grams() -> frozenset[str]:
    """Every ECHO_GRAM-long run of the prompts' and the packaged policy's own words (tags and examples dropped)."""
    grams: set[str] = set()
    for entry in (resources.files("newsdesk") / "write" / "prompts").iterdir():
        if entry.name.endswith(".md"):
            for piece in _TEMPLATE_TAG.sub("\0", entry.read_text(encoding="utf-8")).split("\0"):
                s = squash(piece)
                grams.update(s[i : i + ECHO_GRAM] for i in range(len(s) - ECHO_GRAM + 1))
    return frozenset(grams)


def _squash_with_positions(text: str) -> tuple[str, list[int]]:
    norm = nfkc(text).lower()
    kept = [(i, c) for i, c in enumerate(norm) if not PUNCT_SPACE.match(c)]
    return "".join(c for _, c in kept), [i for i, _ in kept]


def echoes(text: str, material: str) -> list[Finding]:
    """The prompt given back as text: the material's header lines (标题：/链接：/Title:/URL:), or a long
    verbatim run of a prompt template's or the policy's words that the material does not also contain."""
    headers = [m.group(0).strip() for m in _HEADER_LINE.finditer(nfkc(text))]
    out = (
        [
            Finding(
                "echo",
                f"{len(headers)} header line(s) of the material copied into the text ({', '.join(dict.fromkeys(headers))}); "
                "write prose about the material, never its list of titles and links",
                headers[0],
            )
        ]
        if headers
        else []
    )
    squashed, where = _squash_with_positions(text)
    grams, in_material = _instruction_grams(), squash(material)
    hits = [i for i in range(len(squashed) - ECHO_GRAM + 1) if squashed[i : i + ECHO_GRAM] in grams]
    runs: list[list[int]] = []
    for i in hits:
        if runs and i <= runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    norm = nfkc(text)
    for start, last in runs:
        run = squashed[start : last + ECHO_GRAM]
        if _weight(run) < ECHO_WEIGHT or run in in_material:
            continue
        span = norm[where[start] : where[last + ECHO_GRAM - 1] + 1]
        out.append(
            Finding(
                "echo",
                f"the instructions are copied into the text: “{span[:60]}”; leave the prompt out "
                "and write only the piece itself",
                span,
            )
        )
    return out


_LOOP_SPLIT = re.compile(r"(?<=[。！？!?；])|\n+|(?<=[.;])\s+")
_TIGHT_LOOP = re.compile(r"(.{6,80}?)\1{2,}")


def loops(text: str) -> list[Finding]:
    """A sentence written LOOP_TIMES times or more, word for word or nearly (a model stuck in a loop).
    Wording the prompts themselves ask for ("材料未给出具体数字") may recur, and so may a stock line
    said once in each of several paragraphs that say other things too (one per item of a section)."""
    grams = _instruction_grams()
    groups: list[tuple[str, set[str], list[int]]] = []  # first sentence, its shingles, the paragraphs it is in
    alone: set[int] = set()  # paragraphs that are one sentence only
    tight = None  # a loop inside one sentence: "…oscar-winning oscar winner oscar-winning oscar winner…"
    paragraphs = _paragraphs(nfkc(text))
    for p, para in enumerate(paragraphs):
        sentences = [s.strip() for s in _LOOP_SPLIT.split(para) if s.strip()]
        if len(sentences) == 1:
            alone.add(p)
        for k, s in enumerate(sentences):
            sq = squash(s)
            tight = tight or _TIGHT_LOOP.search(sq)
            if _weight(sq) < LOOP_WEIGHT or all(
                sq[i : i + ECHO_GRAM] in grams for i in range(max(len(sq) - ECHO_GRAM + 1, 1))
            ):
                continue
            sh = _shingles(s, 4)
            for _first, fsh, where in groups:
                if _near_same(sh, fsh, cut=p == len(paragraphs) - 1 and k == len(sentences) - 1):
                    where.append(p)
                    break
            else:
                groups.append((s, sh, [p]))
    out = [
        Finding("loop", f"one sentence is written {len(where)} times: “{first[:50]}”; say it once and go on", first)
        for first, _, where in groups
        if len(where) >= LOOP_TIMES and (len(set(where)) < len(where) or alone & set(where))
    ]
    if not out and tight and _weight(tight.group(1)) * 3 >= LOOP_WEIGHT:
        out.append(
            Finding(
                "loop",
                f"the same words run in a loop: “{tight.group(1)[:50]}” again and again; say it once and go on",
                tight.group(1),
            )
        )
    return out


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_ENDINGS_EN = ("s", "es", "ed", "er", "ers", "ing", "ly")
_COMMON_WORDS = {w.lower() for w in _NAME_STOP} | lexicon.words("name-parts")


def _part_boundary(word: str, i: int) -> bool:
    """True where a name's parts meet: DeepSeek at 4, GPT4 at 3, GPTModel at 3: a fragment there is a word."""
    a, b = word[i - 1], word[i]
    return (
        (a.islower() and b.isupper())
        or (a.isdigit() != b.isdigit())
        or (a.isupper() and b.isupper() and i + 1 < len(word) and word[i + 1].islower())
    )


def cut_names(text: str, material: str, language: str = "zh") -> list[Finding]:
    """A Latin token that is not in the material but is a strict piece of one of its names, cut mid-word
    ("Cla Code" where the material says "Claude Code"): a name the model broke off."""
    material = URL.sub(" ", nfkc(material))
    known = {w.lower() for w in _WORD.findall(material)}
    names = {w for w in _WORD.findall(material) if len(w) >= 4 and (w[0].isupper() or not w.isalpha())}
    out, seen = [], set()
    for m in _WORD.finditer(URL.sub(" ", nfkc(text))):
        tok = m.group(0)
        if tok in seen or len(tok) < 3 or tok.lower() in known or tok.lower() in _COMMON_WORDS:
            continue
        if language == "en" and tok.islower():
            continue  # an English word, not a name
        for w in sorted(names):
            cut = len(w) - len(tok)
            if cut < 2:
                continue
            head = w.startswith(tok) and not _part_boundary(w, len(tok)) and w[len(tok) :].lower() not in _ENDINGS_EN
            tail = w.endswith(tok) and not _part_boundary(w, cut)
            if head or tail:
                seen.add(tok)
                out.append(
                    Finding(
                        "cut",
                        f"name cut mid-word: {tok} (the material has {w}); write the name whole",
                        _sentence_at(text, m.start()).strip()[:80] or tok,
                    )
                )
                break
    return out


def check_subject(text: str, own: list[str], wider: list[str], *, language: str = "zh") -> list[Finding]:
    """Numbers and names of a part (a brief, an item) that its own item's material lacks but another
    item's has: the part is written about the wrong item. Checked beside check_content against the wider material."""
    own_text, wide_text = "\n".join(own), "\n".join(wider)
    own_index, wide_index = _NumberIndex(own_text), _NumberIndex(wide_text)
    own_sq, wide_sq = squash(own_text), squash(wide_text)
    norm = prepare(text)
    out: list[Finding] = []
    seen: set[str] = set()
    for n in extract_numbers(norm):
        if n.text not in seen and not own_index.supports(n) and wide_index.supports(n):
            seen.add(n.text)
            out.append(
                Finding(
                    "subject",
                    f"{n.text} is another item's number, not this item's; "
                    "write only about this item, with its own facts",
                    n.text,
                )
            )
    for tok, _ in extract_names(norm, language):
        sq = squash(tok)
        if tok not in seen and sq not in own_sq and sq in wide_sq:
            seen.add(tok)
            out.append(
                Finding(
                    "subject",
                    f"{tok} belongs to another item, not this one; write only about this item, with its own facts",
                    tok,
                    _name_severity(tok),
                )
            )
    return out


# --- the check ------------------------------------------------------------------------


def check_content(
    text: str,
    material_texts: list[str],
    *,
    language: str = "zh",
    words: bool = True,
    names: bool = True,
    quotes: bool = True,
) -> list[Finding]:
    """Numbers, quotes and names of `text` looked up in the material."""
    material = "\n".join(material_texts)
    index = _NumberIndex(material)
    squashed = squash(material)
    norm = prepare(text)
    out: list[Finding] = []
    seen: set[str] = set()
    for n in extract_numbers(norm, words=words):
        if index.supports(n) or n.text in seen:
            continue
        if n.kind == "plain" and YEAR.match(n.text) and _CONTEXT_MARKERS.search(_sentence_at(norm, n.start)):
            continue  # a year of outside context, marked as such
        seen.add(n.text)
        out.append(Finding("number", f"number not in the material: {n.text}", n.text))
    if quotes:
        for q in extract_quotes(norm):
            if not _quote_supported(q, squashed):
                out.append(Finding("quote", f"quote not in the material: “{q[:60]}”", q))
    if names:
        for tok, pos in extract_names(norm, language):
            if tok in seen or squash(tok) in squashed:
                continue
            seen.add(tok)
            if _CONTEXT_MARKERS.search(_sentence_at(norm, pos)):
                continue
            out.append(Finding("name", f"name not in the material: {tok}", tok, _name_severity(tok)))
        out += cut_names(text, material, language)
    return out


def check_output(
    text: str,
    material_texts: list[str],
    *,
    levels: list[str] | None = None,
    language: str = "zh",
    finish_reason: str | None = None,
) -> CheckResult:
    findings = check_content(text, material_texts, language=language)
    findings += disclosure(text, levels or [], language)
    findings += hygiene(text, finish_reason=finish_reason)
    findings += echoes(text, "\n".join(material_texts)) + loops(text)
    return CheckResult(passed=not any(f.severity == "error" for f in findings), findings=findings)
