"""Podcast transcripts in the formats podcasts publish them → speaker turns.

Formats: WebVTT (voice tags), SRT, Podcasting 2.0 JSON, HTML (<cite>/<time>/<p>), plain text
("Name: text" lines, optionally "[00:01:02]" stamped), and QMSum's meeting shape. Segments of one
speaker that follow each other merge into one turn, so a word-level JSON transcript and a
sentence-level SRT of the same talk give the same turns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import chardet
import lxml.etree
import lxml.html

from newsdesk.core.config import FetchSettings
from newsdesk.core.errors import NewsdeskError
from newsdesk.core.model import Turn
from newsdesk.ingest.normalize import html_to_text

FORMATS = ("vtt", "srt", "json", "html", "text")
# A three-hour episode is well under 1 MB as VTT and a few MB as word-level JSON; a bigger file is
# not one transcript, and parsing it would cost gigabytes of memory before any model call.
MAX_BYTES = 8_000_000


class TranscriptError(NewsdeskError):
    """One line naming the transcript and what is wrong with it."""


_HINTS = {
    "text/vtt": "vtt", "vtt": "vtt", "webvtt": "vtt",
    "application/x-subrip": "srt", "application/srt": "srt", "text/srt": "srt", "srt": "srt",
    "application/json": "json", "json": "json", "jsonl": "json",
    "text/html": "html", "html": "html", "htm": "html",
    "text/plain": "text", "txt": "text", "text": "text",
}  # fmt: skip


def parse_transcript(data: bytes | str, *, fmt: str | None = None, name: str = "transcript") -> tuple[str, list[Turn]]:
    """(format, turns) for one transcript document; TranscriptError when it holds no usable speech."""
    text = _decode(data, name)
    if not text.strip():
        raise TranscriptError(f"{name}: empty transcript — the file or URL returned no text")
    kind = _from_hint(fmt) or _sniff(text)
    parser = {"vtt": _vtt, "srt": _srt, "json": _json, "html": _html, "text": _plain}[kind]
    turns = _merge(parser(text, name))
    if not turns:
        raise TranscriptError(f"{name}: no spoken text found in this {kind} transcript — check that it is one")
    return kind, turns


def _decode(data: bytes | str, name: str) -> str:
    """Text of a transcript, or a TranscriptError: mojibake sent on to the model costs calls and
    yields nonsense, so an encoding that cannot be told for sure is refused with the fix."""
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > MAX_BYTES:
        raise TranscriptError(
            f"{name}: {size / 1e6:.1f} MB is more than a transcript ({MAX_BYTES // 1_000_000} MB at most) "
            "— give the transcript alone, or split it"
        )
    if isinstance(data, str):
        return data.lstrip("\ufeff")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        encoding = "utf-16"
    elif b"\x00" in data:
        encoding = _utf16_without_bom(data)
        if encoding is None:
            raise TranscriptError(
                f"{name}: binary data, not a text transcript — give a VTT, SRT, JSON, HTML or text file"
            )
    else:
        encoding = "utf-8-sig"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        bad = exc.start
    # Chinese transcripts saved by Windows tools are GB18030; any other legacy encoding is a guess.
    if chardet.detect(data[:20_000])["encoding"] in ("GB2312", "GBK", "GB18030"):
        try:
            return data.decode("gb18030")
        except UnicodeDecodeError:
            pass
    raise TranscriptError(
        f"{name}: not UTF-8 text (bad byte at {bad}; Latin-1 or Windows-1252?) — save the transcript as UTF-8"
    )


def _utf16_without_bom(data: bytes) -> str | None:
    """'utf-16-le' / 'utf-16-be' when the NUL bytes fall as ASCII text in UTF-16 puts them, else None."""
    head = data[:4096]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    half = len(head) // 2
    if odd > 0.4 * half and even < 0.05 * half:
        return "utf-16-le"
    if even > 0.4 * half and odd < 0.05 * half:
        return "utf-16-be"
    return None


def _from_hint(fmt: str | None) -> str | None:
    if not fmt:
        return None
    key = fmt.lower().split(";")[0].strip().rsplit(".", 1)[-1]
    return _HINTS.get(key) or _HINTS.get(fmt.lower().split(";")[0].strip())


def _sniff(text: str) -> str:
    head = text.lstrip()[:400]
    if head.startswith("WEBVTT"):
        return "vtt"
    if head[:1] == "{" or re.match(r"\[\s*[{\]\"]", head):  # "[00:01] Name: …" is plain text
        return "json"
    if re.match(r"\d+\s*\r?\n\s*\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->", head):
        return "srt"
    if re.match(r"<(!doctype|html|body|div|p|cite|section|article|main)\b", head, re.I):
        return "html"
    return "text"


# ---------------------------------------------------------------- helpers


def _seconds(stamp: str) -> float:
    """'01:02:03.500', '02:03,5', '1:02' → seconds."""
    parts = stamp.strip().replace(",", ".").split(":")
    total = 0.0
    for part in parts:
        total = total * 60 + float(part)
    return total


_SPEAKER_PREFIX = re.compile(r"^\s*(?:>>\s*)?([A-Z\u4e00-\u9fff][\w .'\-]{0,38}?)\s*(?:：\s*|:\s+)(?=\S)")


def _split_speaker(line: str) -> tuple[str | None, str]:
    """'Lex Fridman: Hello' → ('Lex Fridman', 'Hello'); a line without a name prefix → (None, line)."""
    m = _SPEAKER_PREFIX.match(line)
    if m and len(m.group(1).split()) <= 4 and not re.fullmatch(r"[\d .:]+", m.group(1)):
        return m.group(1).strip(), line[m.end() :].strip()
    return None, line.strip()


def _join(a: str, b: str) -> str:
    if not a:
        return b
    if not b:
        return a
    # Chinese runs on without spaces; word-level JSON segments of English need one.
    cjk = re.match(r"[\u3000-\u9fff\uff00-\uffef]", b[0]) and re.match(r"[\u3000-\u9fff\uff00-\uffef]", a[-1])
    return a + b if cjk else f"{a} {b}"


def _merge(segments) -> list[Turn]:
    """Segments are (speaker, text, start, end); speaker None means 'not said', i.e. the same voice goes on."""
    turns: list[Turn] = []
    for speaker, text, start, end in segments:
        text = " ".join(text.split())
        if not text:
            continue
        speaker = (turns[-1].speaker if turns else "") if speaker is None else str(speaker).strip()
        if turns and turns[-1].speaker == speaker:
            last = turns[-1]
            last.text = _join(last.text, text)
            if end is not None:
                last.end = end
            continue
        turns.append(Turn(speaker=speaker, text=text, start=start, end=end))
    return turns


# ---------------------------------------------------------------- WebVTT and SRT

_CUE_TIME = re.compile(
    r"^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})(?:\s+.*)?$"
)
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]+)>")
_CUE_TAG = re.compile(r"</?[^>]+>")


def _cue_blocks(text: str):
    for block in re.split(r"\r?\n\s*\r?\n", text.replace("\r\n", "\n")):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if lines:
            yield lines


def _timed_cues(text: str, name: str, kind: str):
    """(start, end, lines) per cue; a cue whose timing line is broken is an error naming the cue."""
    cues = []
    for number, lines in enumerate(_cue_blocks(text), 1):
        first = lines[0].strip()
        if kind == "vtt" and (first.startswith(("WEBVTT", "NOTE", "STYLE", "REGION"))):
            continue
        timing_at = next((i for i, ln in enumerate(lines[:2]) if "-->" in ln), None)
        if timing_at is None:
            if kind == "srt" or len(lines) > 1:
                raise TranscriptError(f"{name}: cue {number} ({first[:40]!r}) has no 'start --> end' timing line")
            continue
        m = _CUE_TIME.match(lines[timing_at])
        if not m:
            raise TranscriptError(
                f"{name}: cue {number} has a malformed timing line {lines[timing_at].strip()[:60]!r} "
                "— expected 'hh:mm:ss.mmm --> hh:mm:ss.mmm'"
            )
        cues.append((_seconds(m.group(1)), _seconds(m.group(2)), lines[timing_at + 1 :]))
    return cues


def _vtt(text: str, name: str):
    if not text.lstrip().startswith("WEBVTT"):
        raise TranscriptError(f"{name}: not WebVTT (first line must be 'WEBVTT') — give the right format")
    for start, end, lines in _timed_cues(text, name, "vtt"):
        body = " ".join(lines)
        voice = _VOICE.search(body)
        speaker, said = (
            (voice.group(1).strip(), _CUE_TAG.sub("", body)) if voice else _split_speaker(_CUE_TAG.sub("", body))
        )
        yield speaker, said, start, end


def _srt(text: str, name: str):
    for start, end, lines in _timed_cues(text, name, "srt"):
        speaker, said = _split_speaker(_CUE_TAG.sub("", " ".join(lines)))
        yield speaker, said, start, end


# ---------------------------------------------------------------- JSON (Podcasting 2.0, QMSum)


def _json(text: str, name: str):
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(
            f"{name}: not valid JSON at line {exc.lineno}, column {exc.colno} ({exc.msg}) — fix the file"
        ) from None
    if isinstance(doc, dict) and isinstance(doc.get("segments"), list):
        for i, seg in enumerate(doc["segments"]):
            if not isinstance(seg, dict) or "body" not in seg:
                raise TranscriptError(
                    f"{name}: segment {i} has no 'body' — each segment needs speaker, startTime, body"
                )
            start, end = seg.get("startTime"), seg.get("endTime")
            yield seg.get("speaker"), str(seg["body"]), _num(start), _num(end)
        return
    if isinstance(doc, dict) and isinstance(doc.get("meeting_transcripts"), list):
        for i, turn in enumerate(doc["meeting_transcripts"]):
            if not isinstance(turn, dict) or "content" not in turn:
                raise TranscriptError(f"{name}: meeting_transcripts[{i}] has no 'content'")
            yield turn.get("speaker"), str(turn["content"]), None, None
        return
    raise TranscriptError(
        f"{name}: JSON without 'segments' (Podcasting 2.0) or 'meeting_transcripts' — not a transcript this reads"
    )


def _num(value) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return _seconds(value) if isinstance(value, str) and ":" in value else None


# ---------------------------------------------------------------- HTML and plain text


def _html(text: str, name: str):
    try:
        root = lxml.html.fromstring(text)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise TranscriptError(f"{name}: unreadable HTML ({exc})") from None
    if root.find(".//cite") is None and root.find(".//time") is None:
        yield from _plain(html_to_text(text), name)  # a plain page: its paragraphs are "Name: text" lines
        return
    speaker, start = None, None
    for el in root.iter("cite", "time", "p"):
        words = " ".join(el.text_content().split())
        if el.tag == "cite":
            speaker = words.rstrip(":：").strip()
        elif el.tag == "time":
            try:
                start = _seconds(el.get("datetime") or words)
            except ValueError:
                start = None
        elif words:
            yield speaker, words, start, None


_STAMP = re.compile(r"^\s*[\[(]?((?:\d+:)?\d{1,2}:\d{2}(?:[.,]\d+)?)[\])]?\s*[-–]?\s*")


def _plain(text: str, name: str):
    speaker = None
    for line in text.splitlines():
        if not line.strip():
            continue
        start = None
        m = _STAMP.match(line)
        if m:
            start, line = _seconds(m.group(1)), line[m.end() :]
        who, said = _split_speaker(line)
        if who is not None:
            speaker = who
        yield speaker, said, start, None


# --- a transcript a user names -----------------------------------------------------------

TRANSCRIPT_ACCEPT = "text/vtt, application/x-subrip, application/json, text/html, text/plain, */*;q=0.5"


def load_transcript(source: str, fetch_settings: FetchSettings) -> tuple[str, list[Turn]]:
    """(default title, turns) from a file, one line of a .jsonl file (FILE.jsonl#N, QMSum's shape)
    or an http(s) URL; TranscriptError names what could not be read and the fix."""
    if source.startswith(("http://", "https://")):
        import asyncio

        from newsdesk.ingest.fetch import Fetcher

        async def get():
            async with Fetcher(fetch_settings) as fetcher:
                return await fetcher.get(source, accept=TRANSCRIPT_ACCEPT)

        result = asyncio.run(get())
        if not result.ok:
            raise TranscriptError(result.error or f"{source}: no transcript came back")
        hint = (result.headers.get("content-type") or "").split(";")[0].strip() or source.rsplit(".", 1)[-1]
        name, data = source, result.body
        title = source.rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    else:
        path, _, line = source.partition("#")
        file = Path(path)
        if not file.is_file():
            raise TranscriptError(
                f"{file}: no such transcript file", "give a VTT, SRT, JSON, HTML or text file, or an http(s) URL"
            )
        data, name, hint, title = file.read_bytes(), str(file), file.suffix.lstrip(".").lower(), file.stem
        if hint == "jsonl":  # one transcript per line: FILE.jsonl#N picks line N
            rows = [r for r in data.decode("utf-8", "replace").splitlines() if r.strip()]
            n = int(line) if line.isdigit() else 1
            if not 1 <= n <= len(rows):
                raise TranscriptError(
                    f"{file}: has {len(rows)} lines", f"pick one with {path}#N, N from 1 to {len(rows)}"
                )
            data, name, title = rows[n - 1].encode(), f"{file} line {n}", f"{file.stem} #{n}"
    _, turns = parse_transcript(data, fmt=hint or None, name=name)
    return title, turns
