"""Where an episode's sections start and end.

1. Each passage of the transcript (transcript.passages: lines that fit the model's context)
   is noted as points, each tied to the line where it starts.
2. The model proposes the sections over the points (start line + topic); a long episode's
   points go in windows, each asked for its share.
3. Code, not the model, has the last word: plan_sections validates the boundaries and splits
   or merges until the count and the sizes are right.

    spans, topics = plan_episode(llm, lines, options)   [(first line, last line)], a topic hint each
"""

from __future__ import annotations

from dataclasses import dataclass

from newsdesk.llm.chat import ChatModel
from newsdesk.llm.client import in_parallel
from newsdesk.write.digest import clean_field
from newsdesk.write.kit import ask_json, messages
from newsdesk.write.transcript import Line, estimate_tokens, passages


@dataclass
class EpisodeOptions:
    passage_tokens: int = 1800  # a passage (and a section) fits the model's context with room to answer
    min_sections: int = 5
    max_sections: int = 40
    tokens_per_section: int = 1200  # a two-hour talk gets about 32 sections, as the reference digest has
    summary_min: int = 5
    summary_max: int = 9
    summary_target: int = 7
    max_bullets: int = 4
    max_tokens: int = 900  # per answer


def plan_sections(
    lines: list[Line], starts: list[int], *, min_sections: int, max_sections: int, max_tokens: int
) -> list[tuple[int, int]]:
    """Turn proposed start lines into valid (first, last) spans: ordered, covering every line,
    no section tiny, none over max_tokens, between min and max sections where lines allow."""
    n = len(lines)
    if n == 0:
        return []
    cost = [estimate_tokens(ln.render()) for ln in lines]
    bounds = sorted({s for s in starts if isinstance(s, int) and 0 < s < n})
    spans = [(a, b - 1) for a, b in zip([0, *bounds], [*bounds, n])]

    def size(span: tuple[int, int]) -> int:
        return sum(cost[span[0] : span[1] + 1])

    def split(span: tuple[int, int]) -> list[tuple[int, int]]:
        a, b = span
        half, run, cut = size(span) / 2, 0, a + 1
        for i in range(a, b):
            run += cost[i]
            cut = i + 1
            if run >= half:
                break
        # Prefer a cut where the speaker changes, near the middle.
        for delta in range(0, max(1, (b - a) // 4)):
            for c in (cut + delta, cut - delta):
                if a < c <= b and lines[c].speaker != lines[c - 1].speaker:
                    return [(a, c - 1), (c, b)]
        return [(a, cut - 1), (cut, b)]

    # Tiny sections (a line or two of talk) join the section before them.
    floor = max(1, min(120, sum(cost) // (max_sections * 4)))
    merged: list[tuple[int, int]] = []
    for span in spans:
        if merged and size(span) < floor:
            merged[-1] = (merged[-1][0], span[1])
        else:
            merged.append(span)
    spans = merged
    while len(spans) > max_sections:
        i = min(range(len(spans) - 1), key=lambda k: size(spans[k]) + size(spans[k + 1]))
        spans[i : i + 2] = [(spans[i][0], spans[i + 1][1])]
    while True:
        oversize = [i for i, s in enumerate(spans) if size(s) > max_tokens and s[1] > s[0]]
        if not oversize and len(spans) >= min_sections:
            break
        splittable = [i for i, s in enumerate(spans) if s[1] > s[0]]
        if not splittable:
            break
        i = oversize[0] if oversize else max(splittable, key=lambda k: size(spans[k]))
        spans[i : i + 1] = split(spans[i])
    return spans


def points_schema(max_points: int) -> dict:
    # maxItems bounds a grammar-constrained model's answer, not only the prompt's wish.
    item = {
        "type": "object",
        "properties": {"line": {"type": "integer"}, "point": {"type": "string", "maxLength": 160}},
        "required": ["line", "point"],
    }
    return {
        "type": "object",
        "properties": {"points": {"type": "array", "minItems": 1, "maxItems": max_points, "items": item}},
        "required": ["points"],
    }


def sections_schema(max_sections: int) -> dict:
    item = {
        "type": "object",
        "properties": {"start_line": {"type": "integer"}, "topic": {"type": "string", "maxLength": 40}},
        "required": ["start_line", "topic"],
    }
    return {
        "type": "object",
        "properties": {"sections": {"type": "array", "minItems": 1, "maxItems": max_sections, "items": item}},
        "required": ["sections"],
    }


def passage_points(llm: ChatModel, lines: list[Line], options: EpisodeOptions) -> list[tuple[int, str]]:
    """(line, point) for every passage, read side by side; a passage the model gives nothing for
    is marked by its opening words."""
    chunks = passages(lines, options.passage_tokens)

    def note(job) -> list[tuple[int, str]]:
        k, chunk = job
        ids = {ln.id for ln in chunk}
        most = max(2, min(8, len(chunk) // 4))  # a point per few lines; a long turn is one line
        asked = messages(
            "episode_passage.md",
            passage_no=k,
            passage_count=len(chunks),
            first_line=chunk[0].id,
            last_line=chunk[-1].id,
            lines="\n".join(ln.render() for ln in chunk),
            min_points=min(3, most),
            max_points=most,
        )
        data = ask_json(llm, asked, output="episode", schema=points_schema(most), max_tokens=options.max_tokens)
        got = [
            (p["line"], clean_field(p.get("point")))
            for p in data.get("points", [])
            if isinstance(p, dict)
            and isinstance(p.get("line"), int)
            and p["line"] in ids
            and clean_field(p.get("point"))
        ]
        if not got:  # the passage still needs a marker: its opening words stand in
            got = [(chunk[0].id, f"{chunk[0].speaker}: {' '.join(chunk[0].text.split()[:25])}")]
        return sorted(set(got))

    return [p for got in in_parallel(llm, note, enumerate(chunks, 1)) for p in got]


def _windows(points: list[tuple[int, str]], tokens: int) -> list[list[tuple[int, str]]]:
    """A long episode's points do not fit one prompt: consecutive windows of at most `tokens`."""
    windows: list[list[tuple[int, str]]] = [[]]
    for point in points:
        if windows[-1] and estimate_tokens("\n".join(t for _, t in windows[-1] + [point])) > tokens:
            windows.append([])
        windows[-1].append(point)
    return windows


def plan_episode(llm: ChatModel, lines: list[Line], options: EpisodeOptions) -> tuple[list[tuple[int, int]], list[str]]:
    """The sections' line spans, in the conversation's order, and a topic hint for each ("" when none)."""
    o = options
    points = passage_points(llm, lines, o)
    cost = {ln.id: estimate_tokens(ln.render()) for ln in lines}
    total = sum(cost.values())
    target = max(o.min_sections, min(o.max_sections, round(total / o.tokens_per_section)))
    # The model proposes where topics change; it may not cut a short talk into two-line
    # sections (a 0.5B model proposed 36 for 71 turns): at most half again the target.
    most = min(o.max_sections, target + max(2, target // 2))
    # Each window is asked for its share of the sections; code joins the boundaries and fixes the count.
    windows = _windows(points, 2 * o.passage_tokens)
    proposed: list[dict] = []
    for k, window in enumerate(windows):
        upto = windows[k + 1][0][0] if k + 1 < len(windows) else len(lines)
        share = sum(c for i, c in cost.items() if window[0][0] <= i < upto) / max(1, total)
        want = target if len(windows) == 1 else max(1, round(target * share))
        cap = most if len(windows) == 1 else max(1, round(most * share))
        asked = messages(
            "episode_sections.md",
            target=want,
            min_sections=1 if len(windows) > 1 else o.min_sections,
            max_sections=cap,
            first_line=window[0][0],
            points=window,
        )
        data = ask_json(llm, asked, output="episode", schema=sections_schema(cap), max_tokens=o.max_tokens)
        proposed += [
            s for s in data.get("sections", []) if isinstance(s, dict) and isinstance(s.get("start_line"), int)
        ]
        if k > 0:  # a window boundary is a candidate boundary too; plan_sections may merge it away
            proposed.append({"start_line": window[0][0], "topic": ""})
    hints = {s["start_line"]: clean_field(s.get("topic")) for s in proposed if clean_field(s.get("topic"))}
    spans = plan_sections(
        lines,
        [s["start_line"] for s in proposed],
        min_sections=o.min_sections,
        max_sections=most,
        max_tokens=o.passage_tokens,
    )
    topics = [
        next((h for start, h in sorted(hints.items()) if span[0] <= start <= span[1] and h), "") for span in spans
    ]
    return spans, topics
