"""A podcast-length recording to a digest, end to end and offline: 10 minutes of a real meeting
transcript spoken by espeak-ng, then `newsdesk episode FILE.wav` in a subprocess with the
offline Whisper tiny.en and [write] by = "extractive" (benchmarks/podcast_audio.py measures
the same run)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import require

from newsdesk.ingest.audio import word_error_rate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import podcast_audio  # noqa: E402  (the benchmark's own speech synthesis and command run)

pytestmark = pytest.mark.slow


def test_a_ten_minute_recording_becomes_a_digest(tmp_path):
    require("espeak-ng", None if shutil.which("espeak-ng") else "not installed (apt-get install espeak-ng)")
    audio = tmp_path / "podcast.wav"
    seconds, turns = podcast_audio.speak(podcast_audio.meeting_turns(2), audio, minutes=10)
    assert 600 <= seconds < 660

    wall, done = podcast_audio.run_episode(audio, tmp_path, threads=2)
    assert done.returncode == 0, done.stderr[-2000:]
    heard = re.search(r"podcast.wav: (\d+)s of audio, (\d+) chunks, whisper-tiny.en-ct2", done.stderr)
    assert heard and int(heard.group(1)) >= 600 and int(heard.group(2)) > 100, done.stderr
    assert "episode podcast-test [zh]" in done.stderr and "episode podcast-test [en]" in done.stderr
    assert "0 model calls" in done.stderr

    cached = json.loads(next((tmp_path / "data/transcripts").glob("*.json")).read_text(encoding="utf-8"))
    assert cached["turns"][-1]["end"] > seconds - 60  # heard to the end, not stopped after a window
    spoken = " ".join(text for _, text in turns)
    assert word_error_rate(spoken, " ".join(t["text"] for t in cached["turns"])) < 0.4  # measured 0.22

    # Both editions quote the recording with time codes inside it.
    codes = [int(m) * 60 + int(s) for m, s in re.findall(r"[（(](\d\d):(\d\d)[）)]", done.stdout)]
    assert len(codes) >= 10 and max(codes) <= seconds
    assert "摘要" in done.stdout and "Summary" in done.stdout
