"""parse_transcript: the five podcast formats, QMSum's meeting shape, and clear errors."""

from __future__ import annotations

import json

import pytest

from newsdesk.core.model import Turn
from newsdesk.ingest.transcripts import TranscriptError, parse_transcript

# One short exchange, written out in every format a podcast host publishes.
EXPECTED = [
    Turn("Swyx", "Welcome back to the pod. Today we have the team behind the agent lab.", 0.0, 6.5),
    Turn("Alessio", "Thanks for having us. We ship agents for a living.", 6.5, 10.0),
    Turn("Swyx", "So what broke first?", 10.0, 12.0),
]

VTT = """WEBVTT
Kind: captions

NOTE This transcript was generated automatically
and checked by a person.

STYLE
::cue { color: white }

1
00:00:00.000 --> 00:00:03.000 align:start position:10%
<v Swyx>Welcome back to the pod.</v>

2
00:00:03.000 --> 00:00:06.500
<v Swyx>Today we have the team <i>behind</i> the agent lab.

00:00:06.500 --> 00:00:10.000
<v.host Alessio>Thanks for having us. We ship agents for a living.</v>

00:10.000 --> 00:12.000
<v Swyx>So what broke first?</v>
"""

SRT = """1
00:00:00,000 --> 00:00:03,000
Swyx: Welcome back to the pod.

2
00:00:03,000 --> 00:00:06,500
Today we have the team
behind the agent lab.

3
00:00:06,500 --> 00:00:10,000
Alessio: Thanks for having us. We ship agents for a living.

4
00:00:10,000 --> 00:00:12,000
Swyx: So what broke first?
"""

JSON_P20 = json.dumps(
    {
        "version": "1.0.0",
        "segments": [
            {"speaker": "Swyx", "startTime": 0.0, "endTime": 1.2, "body": "Welcome"},
            {"speaker": "Swyx", "startTime": 1.2, "endTime": 3.0, "body": "back to the pod."},
            {
                "speaker": "Swyx",
                "startTime": 3.0,
                "endTime": 6.5,
                "body": "Today we have the team behind the agent lab.",
            },
            {
                "speaker": "Alessio",
                "startTime": 6.5,
                "endTime": 10.0,
                "body": "Thanks for having us. We ship agents for a living.",
            },
            {"speaker": "Swyx", "startTime": 10.0, "endTime": 12.0, "body": "So what broke first?"},
        ],
    }
)

HTML = """<!DOCTYPE html><html><body>
<cite>Swyx:</cite> <time>0:00</time>
<p>Welcome back to the pod. Today we have the team behind the agent lab.</p>
<cite>Alessio:</cite> <time>0:06.5</time>
<p>Thanks for having us. We ship agents for a living.</p>
<cite>Swyx:</cite> <time>0:10</time>
<p>So what broke first?</p>
</body></html>"""

PLAIN = """[00:00:00] Swyx: Welcome back to the pod.
Today we have the team behind the agent lab.
[00:00:06.5] Alessio: Thanks for having us. We ship agents for a living.
[00:00:10] Swyx: So what broke first?
"""


def _words(turns):
    return [(t.speaker, t.text) for t in turns]


@pytest.mark.parametrize(
    ("data", "hint", "fmt"),
    [
        (VTT, "text/vtt", "vtt"),
        (SRT, "application/x-subrip", "srt"),
        (JSON_P20, "application/json", "json"),
        (HTML, "text/html", "html"),
        (PLAIN, "text/plain", "text"),
    ],
)
def test_every_format_gives_the_same_turns(data, hint, fmt):
    got_fmt, turns = parse_transcript(data.encode("utf-8"), fmt=hint, name=f"ep112.{fmt}")
    assert got_fmt == fmt
    assert _words(turns) == _words(EXPECTED)
    # sniffing without a hint lands on the same format
    assert parse_transcript(data, name="ep112")[0] == fmt


def test_timestamps_where_the_format_has_them():
    for data in (VTT, SRT, JSON_P20):
        _, turns = parse_transcript(data)
        assert [(t.start, t.end) for t in turns] == [(0.0, 6.5), (6.5, 10.0), (10.0, 12.0)]
    _, turns = parse_transcript(HTML)
    assert [t.start for t in turns] == [0.0, 6.5, 10.0]
    _, turns = parse_transcript(PLAIN)
    assert [t.start for t in turns] == [0.0, 6.5, 10.0]


def test_suffix_hints():
    assert parse_transcript(SRT, fmt=".srt")[0] == "srt"
    assert parse_transcript(VTT, fmt="episode.vtt")[0] == "vtt"
    assert parse_transcript(PLAIN, fmt="txt")[0] == "text"


def test_chinese_plain_transcript():
    text = "主持人：欢迎收听本期节目。\n今天我们聊聊大模型。\n嘉宾：谢谢邀请。\n"
    fmt, turns = parse_transcript(text.encode("utf-8"), name="ep1.txt")
    assert fmt == "text"
    assert _words(turns) == [("主持人", "欢迎收听本期节目。今天我们聊聊大模型。"), ("嘉宾", "谢谢邀请。")]


def test_qmsum_meeting_shape(fixtures):
    with (fixtures / "transcripts/qmsum-val.jsonl").open(encoding="utf-8") as fh:
        lines = fh.readlines()
    assert len(lines) == 35
    for line in lines:
        meeting = json.loads(line)["meeting_transcripts"]
        fmt, turns = parse_transcript(line, name="qmsum-val.jsonl")
        assert fmt == "json"
        assert sum(len(t.text) for t in turns) > 0.9 * sum(len(" ".join(m["content"].split())) for m in meeting)
        assert all(a.speaker != b.speaker for a, b in zip(turns, turns[1:]))  # consecutive turns merged
    first = json.loads(lines[0])["meeting_transcripts"][0]
    _, turns = parse_transcript(lines[0])
    assert turns[0].speaker == first["speaker"] == "Professor E"
    assert turns[0].text.startswith("So . OK . Doesn't look like it crashed")


@pytest.mark.parametrize(
    ("data", "fmt", "message"),
    [
        (
            "WEBVTT\n\n00:00:01.000 --> soon\n<v A>hi</v>\n",
            "text/vtt",
            "ep9.vtt: cue 2 has a malformed timing line '00:00:01.000 --> soon'",
        ),
        (
            "1\n00:00:01,000 --> 00:00:02,000\nhi\n\n2\nno timing here\n",
            "srt",
            "ep9.vtt: cue 2 ('2') has no 'start --> end' timing line",
        ),
        (
            '{"version": "1.0.0", "segments": [{"speaker": "A", "startTime": 0}',
            "json",
            "ep9.vtt: not valid JSON at line 1",
        ),
        ('{"episode": 9}', "json", "ep9.vtt: JSON without 'segments'"),
        ("Transcript for ep9\n", "text/vtt", "ep9.vtt: not WebVTT"),
        ("   \n", None, "ep9.vtt: empty transcript"),
        (b"\x81\x00\xff\xfe\xfd", None, "ep9.vtt: not UTF-8 text"),
        ("WEBVTT\n\nNOTE only a note\n", None, "ep9.vtt: no spoken text found"),
    ],
)
def test_malformed_transcripts_raise_one_clear_line(data, fmt, message):
    with pytest.raises(TranscriptError) as info:
        parse_transcript(data, fmt=fmt, name="ep9.vtt")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)
