"""The extractive daily card: an event told by its own material, chosen and arranged by code.

    card = extractive_card(event_brief(conn, event_id), "zh")
    card.analysis()   # {"headline", "body", "status", "flags", "extractive"}: an analysis row's shape

    card = extractive_card(brief, "zh", until=end_of_first_day, growth={"2026-02-13": [item ids]})

What it holds, all taken from the event's members:
- a headline from a member in the edition's language when there is one (the lead first), of the
  event's first day (`until`): a day's card tells what was reported that day;
- 1–3 lead sentences from that day's best material (full text, then the source's structured summary —
  the harvest's core_point and highlights —, then the feed summary; in the edition's language
  first), preferring sentences that carry the event's key facts (numbers, names, the headline's
  terms), the first one telling the headline's event and naming its subject; each fact once (no
  figure, sentence or claim told twice, nor the headline again); never a cut-off sentence, page
  furniture, a list's marker ("③ "), a sentence opening on a word that points back ("这…", "此外…",
  "It …") or on a verb whose subject the cut left out, or a sentence about the article ("深度解读…",
  "本文介绍了…", "this post explores…": it tells what one could read, not what happened); a "他/她…"
  whose text named its subject just before reads as that subject ("吴恩达提出了…"), and a statement
  framed by the article ("文章指出，X") is told without the frame; one claim told once even where a
  second sentence repeats it with a clause added;
- where no sentence can lead (titles only, a summary that is a byline), one line saying only the
  headline is known (`headline_only`; says_headline_only() reads it from a stored body);
- for each later day an outlet first reported it (`growth`), an update paragraph: what that day's
  reports add, never what an earlier day said (editions/cards.py shows it on that day's card);
- the key numbers those sentences and the headline state;
- every source with its material level; how many outlets covered it and how many of those
  look independent (from the event row);
- what the material level allows to be said: only titles, only feed summaries, a paywall.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from newsdesk.rank.happenings import RELEASE, routine_words
from newsdesk.text import lexicon
from newsdesk.text.headlines import mended, shown_headline
from newsdesk.text.sentences import (
    closed,
    cut_tail,
    dangling_opening,
    describes_article,
    figures,
    is_cjk,
    is_complete,
    is_implication,
    is_promotion,
    key_numbers,
    length,
    names_subject,
    near_duplicate,
    numbers,
    resolve_pronoun,
    sentences,
    shingles,
    strip_list_marker,
    subject_of,
    terms,
    unframed,
)

EXTRACTIVE = "extractive"  # the analyses' model column for a card chosen from the material by code
LEVEL_RANK = {"full": 0, "summary": 1, "paywalled": 2, "title": 3, "failed": 4}
# What a member offers to lead with, best first: the article itself, the source's own structured
# summary, the feed summary.
MATERIAL_RANK = {"full": 0, "structured": 1, "summary": 2}
# What a card says of how much of the article it was chosen from, in each edition language.
LEVEL_LABELS: dict[str, dict[str, str]] = lexicon.table("material-levels")
MAX_LEAD = 3
MIN_WORDS, MAX_WORDS = 6, 70  # a lead sentence: long enough to say something, short enough to read


@dataclass
class LeadSentence:
    text: str
    item_id: int
    source: str


@dataclass
class ExtractiveCard:
    event_id: int
    language: str
    headline: str
    headline_item_id: int | None
    lead: list[LeadSentence]
    numbers: list[str]
    members: list[dict]  # editions.cards' member keys: item_id, outlet, title, url, published_at, material_level,
    #                      language, role; and material_label
    outlets: int
    independent_outlets: int
    disclosure: str  # what the material does not let the card say; "" when full text was read
    coverage: str  # outlets and independence in words
    facts: list[str] = field(default_factory=list)  # lines of computed facts (counts), for the checker's material
    # No sentence of the material could lead (titles only, or a summary that is a byline): the card
    # says in one line that only the headline is known (rank/ may read it as such).
    headline_only: bool = False
    only_line: str = ""
    updates: list[tuple[str, str]] = field(default_factory=list)  # (local day, what that day's new reports add)

    def body(self) -> str:
        """The card's prose: the lead with each sentence's source (or the one line saying only the
        headline is known), coverage, disclosure, then each later day's update paragraph."""
        # A title-only event's lead is its headline, which the card already shows. The lead is written
        # as its sentences' language writes (an English lead in the zh edition keeps its spaces).
        said = self.only_line or said_text([s for s in self.lead if s.text != self.headline])
        paragraphs = [said, self.coverage, self.disclosure]
        paragraphs += [update_paragraph(day, text, self.language) for day, text in self.updates]
        return "\n\n".join(p for p in paragraphs if p)

    def analysis(self) -> dict:
        """The card as an analysis (editions.cards' shape: language, headline, body, status,
        flags), so the daily edition and its readers need no second template. `extractive`
        marks it as chosen from the material, not written."""
        return {
            "language": self.language,
            "headline": self.headline,
            "body": self.body(),
            "status": "clean",
            "flags": [],
            "extractive": True,
        }

    def material(self, members: list[dict]) -> list[str]:
        """What the card's text may be checked against: the members' own text and the counts."""
        return [member_material(m) for m in members] + self.facts


def said_text(lead: list[LeadSentence]) -> str:
    """Lead sentences as one paragraph, each followed by its outlet."""
    zh = bool(lead) and _lang(lead[0].text) == "zh"
    return ("" if zh else " ").join(f"{s.text}（{s.source}）" if zh else f"{s.text} ({s.source})" for s in lead)


def _members(brief: dict) -> list[dict]:
    return [m for m in brief.get("members") or [] if m.get("role") != "duplicate"]


def choose_headline(members: list[dict], language: str, fallback: str) -> tuple[str, int | None]:
    """A member's own headline in the edition's language: the lead's, else one that states the news
    before one whose words make it an explainer, an opinion or a how-to ("GPT-5.4正式发布！" before
    "一文读懂GPT-5.4：…"), the best-read first; without its column's label ("[AINews] …":
    text/headlines.py)."""
    own = [m for m in members if m.get("language") == language and (m.get("title") or "").strip()]
    if not own:
        lead = next((m for m in members if m.get("role") == "lead"), members[0] if members else None)
        return (member_headline(lead), lead["item_id"]) if lead and lead.get("title") else (fallback, None)
    best = min(
        own,
        key=lambda m: (
            m.get("role") != "lead",
            bool(routine_words(m["title"])),
            LEVEL_RANK.get(m.get("material_level"), 9),
        ),
    )
    return member_headline(best), best["item_id"]


def member_headline(member: dict) -> str:
    """A report's headline as a card shows it: without its column's label, and a title cut inside a
    word from its text's opening ended where the text's words let it (text/headlines.py `mended`)."""
    return shown_headline(mended(member["title"], member.get("summary") or member.get("body") or ""))


# The harvest's core_point: "① Claim 主张：… ② Evidence 论据：… ③ Implication 启示：…" (or 【主张】…).
_CORE_PART = re.compile(
    r"(?:[①-⑩]\s*)?(?:(?:Claim|Evidence|Implication)\s*)?(?:【(主张|论据包括|论据|启示)】\s*[：:]?"
    r"|(主张|论据包括|论据|启示)\s*[：:])|(?:[①-⑩]\s*)?(Claim|Evidence|Implication)\s*[：:]"
)
_HIGHLIGHT_NO = re.compile(r"^\s*亮点\s*\d+\s*[：:]\s*")


def structured_summary(extra: dict | None) -> str:
    """The source's own structured summary (the harvest's `core_point` and `highlights`), one
    statement a line, labels off. The implication (启示) is the harvester's opinion of what the
    news means, not the news, and is left out."""
    extra = extra or {}
    lines = []
    core = str(extra.get("core_point") or "").strip()
    marks = list(_CORE_PART.finditer(core))
    if not marks:  # unlabelled: its numbered points ("① … ② …") are its statements
        lines += re.split(r"\s*[①-⑩]\s*", core)
    for i, mark in enumerate(marks):
        if (mark.group(1) or mark.group(2) or mark.group(3)) not in ("启示", "Implication"):
            lines.append(core[mark.end() : marks[i + 1].start() if i + 1 < len(marks) else len(core)])
    highlights = extra.get("highlights") or []
    lines += [_HIGHLIGHT_NO.sub("", str(h)) for h in (highlights if isinstance(highlights, list) else [highlights])]
    out = []
    for line in (ln.strip() for ln in lines):
        if line:  # a bullet is a statement even without its full stop
            out.append(line if re.search(r"[。！？!?.]$", line) else line + ("。" if is_cjk(line) else "."))
    return "\n".join(out)


def member_materials(m: dict) -> list[tuple[str, str]]:
    """(kind, text) of what a member gives to quote, best first (MATERIAL_RANK's kinds): the body
    when it was read in full (else the feed summary), and the source's structured summary."""
    out = []
    if m.get("material_level") == "full" and (m.get("body") or "").strip():
        out.append(("full", m["body"]))
    structured = structured_summary(m.get("extra"))
    if structured:
        out.append(("structured", structured))
    read_in_full = bool(out) and out[0][0] == "full"
    if (
        not read_in_full
        and m.get("material_level") in ("full", "summary", "paywalled")
        and (m.get("summary") or "").strip()
    ):
        out.append(("summary", m["summary"]))
    return out


def member_text(m: dict) -> str:
    """A member's text to quote from: its body when read in full, else its summaries."""
    return "\n".join(text for _, text in member_materials(m))


def member_material(m: dict) -> str:
    """All a member says, for the checker: outlet, headline, summaries, body."""
    return "\n".join(
        [
            f"{m.get('source_name') or ''}: {m.get('title') or ''}",
            m.get("summary") or "",
            structured_summary(m.get("extra")),
            m.get("body") or "",
        ]
    )


def lead_sentences(
    members: list[dict],
    language: str,
    key_terms: set[str],
    names: set[str],
    *,
    headline: str = "",
    said: list[str] | None = None,
) -> list[LeadSentence]:
    """Up to MAX_LEAD whole sentences from the best material, the event's facts first: the first one
    about what the headline names (where one is), each stating its facts once, none repeating what
    was `said` before (an update's earlier days), none opening on a word that points back to what the
    cut left out, and a list's marker ("③ ", "1. ") taken off."""
    candidates = _candidates(members, language, key_terms, names, headline)
    if headline:  # the headline again, word for word or nearly, says nothing new (the checker holds it as a repeat)
        candidates = [c for c in candidates if not _restates(shingles(c[1].text), shingles(headline))]
    if candidates:  # the opening: the best sentence (in the best language) that tells the headline's event
        told = set(terms(headline)) | {n.lower() for n in names if n in headline.lower()}

        def fit(c) -> tuple[bool, bool]:  # (shares no word or figure with the headline, names no subject)
            related = not headline or set(terms(c[1].text)) & told or figures(c[1].text) & figures(headline)
            return not related, not names_subject(c[1].text)

        best = min((c for c in candidates if c[0][0] == candidates[0][0][0]), key=fit)
        candidates.remove(best)
        candidates.insert(0, best)
    chosen: list[LeadSentence] = []
    for _, s in candidates:
        # Sentences of one language only: a zh card does not switch to English mid-paragraph.
        if len(chosen) >= MAX_LEAD or chosen and _lang(s.text) != _lang(chosen[0].text):
            continue
        if not says_again(s.text, [c.text for c in chosen], said or [], headline):
            chosen.append(s)
    return chosen


def says_again(sentence: str, chosen: Sequence[str], said: Sequence[str] = (), headline: str = "") -> bool:
    """The sentence tells nothing the `chosen` sentences of its text (or what was `said` before it: an
    update's earlier days) did not: a figure already stated (one fact told twice), nearly the same text,
    a paraphrase; or, against the chosen ones, one claim again with a clause added, a clause told again
    (unless one of the two brings a figure the other lacks: its news), the same measurements, the same
    launch ("单季营收681亿美元，同比增长73%" after the summary said it)."""
    before = [*chosen, *said]
    if figures(sentence) & set().union(*(figures(t) for t in before)):
        return True
    if any(near_duplicate(shingles(sentence), shingles(t)) for t in before) or paraphrases(sentence, before):
        return True
    return any(
        repeats(sentence, c)
        or shares_clause(sentence, c)
        and not figures(sentence) ^ figures(c)
        or shares_measures(sentence, c)
        or retells_release(sentence, c, headline)
        for c in chosen
    )


def paraphrases(sentence: str, said: list[str]) -> bool:
    """Most of a sentence's content words are one said sentence's: the feed's summary telling the
    structured summary's claim again in other words ("加州理工团队通过长周期卫星数据证实，塔克拉玛干沙漠…
    已使其转型为显著的碳汇" after "加州理工团队通过卫星数据证实，…已使其转变为碳汇")."""
    own = set(terms(sentence))
    return bool(own) and any(len(own & set(terms(t))) >= 0.5 * len(own) for t in said)


def repeats(sentence: str, chosen: str) -> bool:
    """Most of the shorter sentence's content words are the other's: one claim told twice in one lead,
    the longer adding a clause ("OpenAI 的 Codex 应用正式登陆 Windows，提供原生 Agent 沙箱支持。" after
    "OpenAI 宣布 Codex 应用现已登陆 Windows 平台。"). paraphrases() measures against the new sentence
    alone, so a restatement that adds a clause passed it; this measures against the shorter, as a reader
    (and eval/cards.py) does. Within one lead only: an update's earlier days are paraphrases()' to judge."""
    own, other = set(terms(sentence)), set(terms(chosen))
    return bool(own and other) and len(own & other) >= 0.6 * min(len(own), len(other))


_CLAUSE = re.compile(r"[，,；;：:。！？!?]")
# A small count with its unit ("9分钟", "零下30度", "3 minutes"): figures() leaves numbers under 100 out,
# but two of them in two sentences are one measurement told twice.
_MEASURE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(分钟|秒|小时|度|℃|倍|毫秒|GB|TB|MB|minutes?|seconds?|hours?|ms|x)(?![A-Za-z])", re.I
)


def _names(text: str) -> set[str]:
    """The Latin-script names a text states, lowercase, a plural's s off ("Agents" is "agent")."""
    return {w.lower().removesuffix("s") for w in re.findall(r"[A-Za-z][A-Za-z0-9.+-]*[A-Za-z0-9]", text)}


def retells_release(sentence: str, chosen: str, headline: str = "") -> bool:
    """Both sentences open on the release of one named thing, and the new one's opening names nothing
    the chosen sentence and the headline did not: the launch told again by another summary ("谷歌开源了
    PaperBanana，…" then "谷歌开源学术配图框架PaperBanana，…"; "亚马逊Bedrock平台推出了…Stateful Runtime
    环境" then "Amazon Bedrock 推出 Agent 有状态运行环境…"). A figure the chosen one lacks is news."""
    ours, theirs = (_CLAUSE.split(text.strip(), maxsplit=1)[0] for text in (sentence, chosen))
    if not (RELEASE.search(ours) and RELEASE.search(theirs)) or figures(sentence) - figures(chosen):
        return False
    # One thing: a name both openings state, or (the new one naming none: "官方推出远程控制功能" after
    # "Claude Code新推出的远程控制功能允许…") two words besides the release.
    named = _names(ours)
    same = named & _names(theirs) or not named and len(set(terms(ours)) & set(terms(theirs))) >= 3
    return bool(same) and named <= _names(chosen) | _names(headline)


def shares_measures(sentence: str, chosen: str) -> bool:
    """Two sentences state two of the same small measurements: "第二代刀片电池实现“9分钟充饱”，…零下30度
    低温充电仅慢3分钟" after "新电池技术实现了9分钟从10%充至97%，且在零下30度低温下仅比常温慢3分钟"."""

    def measures(text: str) -> set[tuple[str, str]]:
        return {(n, unit.lower().rstrip("s")) for n, unit in _MEASURE.findall(text)}

    return len(measures(sentence) & measures(chosen)) >= 2


def shares_clause(sentence: str, chosen: str) -> bool:
    """A clause of one sentence is a clause of the other again: one fact told twice, whatever the rest
    adds ("2010年代开发工具的创新主要集中在“外循环”，…" and "论据是，过去十年开发工具的创新主要集中在
    “外循环”（云端部署、CI/CD），…"). Clauses of a few words ("同比增长") are no statement, nor is the
    subject both open on ("OpenAI API工程负责人Sherwin Wu指出，…" and "…Sherwin Wu以OpenAI内部为例，…")."""

    def clauses(text: str) -> list[set[str]]:
        subject = subject_of(text)
        text = text.strip()[len(subject) :] if subject and text.strip().startswith(subject) else text
        return [shingles(c) for c in _CLAUSE.split(text) if length(c) >= 6]

    ours, theirs = clauses(sentence), clauses(chosen)
    return any(near_duplicate(a, b) for a in ours for b in theirs)


def _restates(a: set[str], b: set[str]) -> bool:
    """The same text nearly: most of the shorter in the longer, and that at least half of the longer
    (a sentence that names the headline's news and adds its facts is not the headline again)."""
    shared = len(a & b)
    return shared >= 0.8 * max(min(len(a), len(b)), 1) and shared >= 0.5 * max(len(a), len(b))


def _candidates(
    members: list[dict], language: str, key_terms: set[str], names: set[str], headline: str = ""
) -> list[tuple[tuple, LeadSentence]]:
    """Every sentence that may lead, with its rank (lower first).

    Under the card's `headline`, a sentence that states an offer the headline states too ("限时免费")
    stands: the offer is the news, not a sales line (without it, "Nous Portal 宣布限时免费提供 Qwen 3.6
    Plus 模型" read in English on the outside editors' 2026-05-11). A sentence pointing back ("该模型…")
    never leads, even where all its text said before it was the headline again: between the headline
    and the lead a card lists its reports' headlines, and `eval cards` counts such an opening as
    dangling (10 Chinese cards of 2026-05 did when it was let through)."""
    candidates: list[tuple[tuple, LeadSentence]] = []
    seen: set[str] = set()
    titles = [shingles(m.get("title") or "") for m in members if (m.get("title") or "").strip()]
    offer = bool(headline) and is_promotion(headline)
    for m in members:
        source = m.get("source_name") or m.get("source_id") or ""
        for kind, text in member_materials(m):
            before: list[str] = []  # this text's sentences so far: the pronoun's antecedent is among them
            said = sentences(text)
            # Where the feed cut its text inside a sentence, that sentence is no statement: closed
            # (a full stop added) it would quote "…the imaging setup that produced the picture makes."
            whole = said[:-1] if cut_tail(text) else said
            for order, raw in enumerate(whole):
                s = closed(strip_list_marker(raw))
                unstopped = s != strip_list_marker(raw)  # a line the feed printed without its full stop
                # "文章指出，X" states X; "他提出了…" after "吴恩达在访谈中呼吁…" is 吴恩达's: each read alone.
                s, told = unframed(s), s
                if s == told and (resolved := resolve_pronoun(s, _antecedent(before))) != s:
                    s = resolved
                before.append(told)
                flat = re.sub(r"\W+", "", s.lower())
                if (
                    flat in seen
                    or not is_complete(s)
                    or not MIN_WORDS <= length(s) <= MAX_WORDS
                    or describes_article(s)
                    or is_implication(s)
                    or is_promotion(s)
                    and not offer
                    or dangling_opening(s)
                    or unstopped
                    and any(near_duplicate(shingles(s), t) for t in titles)  # the headline again
                ):
                    continue
                seen.add(flat)
                # Its facts as its text states them: a subject put for "他" is no fact of its own (it
                # would rank the sentence above the one that named the subject first).
                found = set(terms(told))
                facts = len(numbers(told)) + len(found & key_terms) + sum(1 for n in names if n in told.lower())
                # Full text, then the source's structured summary, then the feed summary: a summary is an
                # abridgement, the body is what was said. The sentence's own language, not the item's: a
                # harvest item under an English headline is summarised in Chinese.
                rank = (_lang(s) != language, unstopped, MATERIAL_RANK[kind], -min(facts, 6), order)
                candidates.append((rank, LeadSentence(s, m["item_id"], source)))
    return sorted(candidates, key=lambda c: c[0])


def _antecedent(before: list[str]) -> str:
    """The subject the nearest earlier sentence named, for a pronoun that points back to it."""
    for sentence in reversed(before):
        if named := subject_of(sentence):
            return named
        if not re.match(r"^(?:他们|她们|他|她)", sentence):  # a sentence about someone else ends the chain
            return ""
    return ""


def _lang(text: str) -> str:
    return "zh" if is_cjk(text) else "en"


def disclosure(members: list[dict], language: str) -> str:
    """What the material level allows to be said, specifically (the checker looks for these words)."""
    zh = language == "zh"
    levels = {m.get("material_level") for m in members}
    walled = [m.get("source_name") or "" for m in members if m.get("material_level") == "paywalled"]
    parts = []
    if walled:
        names = "、".join(dict.fromkeys(walled)) if zh else ", ".join(dict.fromkeys(walled))
        parts.append(
            f"{names} 的正文被订阅墙挡住，只看到标题和导语。"
            if zh
            else f"{names}: behind a paywall; only the headline and standfirst were seen."
        )
    if "full" not in levels:
        if "summary" in levels or "paywalled" in levels:
            parts.append(
                "材料只有 RSS 摘要级别，正文未获取，摘要之外的细节没有披露。"
                if zh
                else "Only feed summaries were available; the full articles were not read, so nothing beyond the summary is known."
            )
        else:
            # Who gave only a title (a first party's feed often does: Anthropic's statements), in one line.
            names = list(dict.fromkeys(m.get("source_name") or "" for m in members if m.get("source_name")))
            who = ("、" if zh else ", ").join(names[:3])
            if zh:
                parts.append(
                    f"材料只有标题：{who} 的 feed 没有给出摘要，正文未获取，这里说不出标题之外的任何细节。"
                    if who
                    else "材料只有标题，正文未获取：这里说不出标题之外的任何细节。"
                )
            else:
                parts.append(
                    f"Title only: {who} gave no summary in the feed and the article was not read, so nothing "
                    "beyond the headline is known."
                    if who
                    else "Title only: no article body was available, so nothing beyond the headline is known."
                )
    return "".join(parts) if zh else " ".join(parts)


def coverage_line(brief: dict, language: str) -> tuple[str, list[str]]:
    outlets, independent = brief.get("outlets") or 0, brief.get("independent_outlets") or 0
    names = list(dict.fromkeys(m.get("source_name") or "" for m in _members(brief)))  # the outlets it links to
    zh = language == "zh"
    if outlets <= 1:
        line = f"只有 {names[0]} 一个来源。" if zh else f"One source: {names[0]}."
    else:
        line = (
            f"{outlets} 个来源报道（{'、'.join(names)}），其中 {independent} 个看起来是独立报道"
            if zh
            else f"{outlets} outlets covered it ({', '.join(names)}); independent of each other: {independent}"
        )
        if independent < outlets:
            line += (
                "，其余更像同一信源的转发、同步或同一公司的另一渠道，不算独立确认。"
                if zh
                else ", the rest look like one origin again (a copy, a repackaging or the same company's "
                "other channel), not independent confirmation."
            )
        else:
            line += "。" if zh else "."
    facts = [f"outlets {outlets}", f"independent outlets {independent}"]
    return line, facts


def extractive_card(
    brief: dict, language: str, *, until: datetime | None = None, growth: dict[str, list[int]] | None = None
) -> ExtractiveCard:
    """The card of one event (a cluster.event_brief) in `language` (zh or en).

    until: the end of the event's first day: its headline and lead come from that day's reports (a
    report of a later day is told on that day, as an update), its coverage from them all.
    growth: {local day: the item ids of that day's new outlets} (store.days.growth_days): each
    such day gets an update paragraph saying what its reports add."""
    members = _members(brief)
    first_day = [m for m in members if until is None or m["published_at"] < until] or members
    headline, headline_item = choose_headline(first_day, language, brief.get("title") or "")
    key_terms = set(terms(" ".join(m.get("title") or "" for m in members)))
    names = {a.split(":", 1)[1].lower() for a in brief.get("anchors") or [] if a.startswith("model:")}
    lead = lead_sentences(first_day, language, key_terms, names, headline=headline)
    only = not lead
    if only:  # titles only: the headline is the one thing the material says
        lead = [
            LeadSentence(
                headline,
                headline_item or 0,
                next((m.get("source_name") or "" for m in members if m["item_id"] == headline_item), ""),
            )
        ]
    figures_ = list(dict.fromkeys(key_numbers(headline) + [n for s in lead for n in key_numbers(s.text)]))
    coverage, facts = coverage_line(brief, language)
    # A headline-only card said nothing but its headline: a later day's card, headed by that day's own
    # report (editions/cards.py), opens on what that report says, its subject named (as english.py's).
    updated = updates(members, language, key_terms, names, growth or {}, [] if only else [s.text for s in lead])
    facts += [f"update {day}" for day, _ in updated]  # the day an update paragraph names is the card's own fact
    return ExtractiveCard(
        event_id=brief["event_id"],
        language=language,
        headline=headline,
        headline_item_id=headline_item,
        lead=lead,
        numbers=figures_,
        members=_shown(members, language),
        outlets=brief.get("outlets") or 0,
        independent_outlets=brief.get("independent_outlets") or 0,
        # What the first day's material does not let the card say (a later day's summary is no part of
        # this card's lead); a title-only card's one line says what its disclosure would: said once.
        disclosure="" if only and _titles_only(first_day) else disclosure(first_day, language),
        coverage=coverage,
        facts=facts,
        headline_only=only,
        only_line=only_line(first_day, language) if only else "",
        updates=updated,
    )


def _shown(members: list[dict], language: str) -> list[dict]:
    labels = LEVEL_LABELS.get(language, LEVEL_LABELS["en"])
    return [
        {
            "item_id": m["item_id"],
            "outlet": m.get("source_name") or "",
            "title": m.get("title") or "",
            "url": m.get("url") or "",
            "published_at": m.get("published_at"),
            "material_level": m.get("material_level"),
            "language": m.get("language"),
            "role": m.get("role"),
            "material_label": labels.get(m.get("material_level"), m.get("material_level") or ""),
        }
        for m in members
    ]


def _titles_only(members: list[dict]) -> bool:
    return not any(m.get("material_level") in ("full", "summary", "paywalled") for m in members)


def only_line(members: list[dict], language: str) -> str:
    """The one line of a card no sentence of the material could lead: only the headline is known,
    and why: no summary; a summary that only tells what the article is ("一份针对小白的…实操教程",
    "This post dives deep into how Claude wrote an exploit for … Firefox": it may name more than the
    headline, so the line does not say it states nothing more); or one that states no fact beyond
    the headline (a byline)."""
    names = list(dict.fromkeys(m.get("source_name") or "" for m in members if m.get("source_name")))
    zh = language == "zh"
    who = ("、" if zh else ", ").join(names[:3])
    said = not _titles_only(members)
    about = said and any(describes_article(s) for m in members for s in sentences(member_text(m)))
    if zh:
        why = (
            ("给出的摘要只是导读" if about else "给出的摘要没有说出标题之外的事实")
            if said
            else "只给出了标题，没有摘要"
        )
        return f"只有标题：{who + ' ' if who else ''}{why}，正文未获取，这里说不出标题之外的细节。"
    why = (
        ("only described the article in its summary" if about else "stated no fact beyond it in its summary")
        if said
        else "gave no summary"
    )
    return f"The headline alone is known: {who or 'the source'} {why}, and the article was not read."


def updates(
    members: list[dict],
    language: str,
    key_terms: set[str],
    names: set[str],
    growth: dict[str, list[int]],
    said: list[str],
    keep: Callable[[str], bool] = lambda text: True,
) -> list[tuple[str, str]]:
    """Each later day's paragraph: what its new reports add, in their own sentences (those `keep`
    takes: the English card's are English), never a sentence or figure said on an earlier day; or
    that they add nothing beyond the earlier reports."""
    out = []
    said = list(said)
    for day in sorted(growth):
        new = [m for m in members if m["item_id"] in set(growth[day])]
        if not new:
            continue
        lead = [s for s in lead_sentences(new, language, key_terms, names, said=said) if keep(s.text)]
        if lead:
            text = said_text(lead)
            said += [s.text for s in lead]
        else:  # the day's reports by outlet; the update's card is headed by one of them (editions/cards.py),
            # so its title quoted again would say the headline twice
            who = ("、" if language == "zh" else ", ").join(dict.fromkeys(m.get("source_name") or "" for m in new))
            text = (
                f"{who} 也有报道，没有超出此前报道的新内容。"
                if language == "zh"
                else f"{who} also reported it, adding nothing beyond the earlier reports."
            )
        out.append((day, text))
    return out


_UPDATE = {"zh": "更新（{day}）：", "en": "Update ({day}): "}
_UPDATE_LINE = re.compile(r"^(?:更新（(\d{4}-\d{2}-\d{2})）：|Update \((\d{4}-\d{2}-\d{2})\): )")


_ONLY_LINE = re.compile(r"^(?:只有标题：|The headline alone is known: )")


def says_headline_only(body: str) -> bool:
    """A stored extractive card (its analysis body) says only the headline is known: for rank/ to rank it
    as such, with no second reading of the material."""
    return bool(_ONLY_LINE.match((body or "").strip()))


def update_paragraph(day: str, text: str, language: str) -> str:
    return _UPDATE.get(language, _UPDATE["en"]).format(day=day) + text


def update_lead(body: str, day: str) -> str | None:
    """What an extractive card's body says a later day's reports add (its update paragraph of `day`,
    without the day's label), or None when it has none."""
    for p in re.split(r"\n\s*\n", body.strip()):
        found = _UPDATE_LINE.match(p.strip())
        if found and day in found.groups():
            return p.strip()[found.end() :]
    return None


# The notes body() adds after the lead: the coverage line and the disclosure. Readers see them as
# a card's badges (editions/cards.py), so the card's prose is the news alone; keep these patterns
# in step with coverage_line() and disclosure() (tests/test_card_badges.py holds them together).
_NOTE = re.compile(
    r"^(只有 .+ 一个来源。|\d+ 个来源报道（|One source: |\d+ outlets covered it \(|材料只有|Only feed summaries were available"
    r"|Title only: )|的正文被订阅墙挡住|: behind a paywall; only the headline"
)


_COVERAGE = re.compile(r"^(?:只有 .+ 一个来源。|\d+ 个来源报道（|One source: |\d+ outlets covered it \()")


def is_coverage_note(note: str) -> bool:
    """A note that is coverage_line()'s (the event's outlets in words), not a disclosure."""
    return bool(_COVERAGE.match(note.strip()))


def split_notes(body: str) -> tuple[str, list[str]]:
    """An extractive card's body as (its lead, its notes): the coverage and disclosure paragraphs. A
    later day's update paragraph is neither: update_lead() reads it for that day's card."""
    lead: list[str] = []
    notes: list[str] = []
    for p in re.split(r"\n\s*\n", body.strip()):
        if _UPDATE_LINE.match(p.strip()):
            continue
        (notes if _NOTE.search(p.strip()) else lead).append(p.strip())
    return "\n\n".join(p for p in lead if p), notes
