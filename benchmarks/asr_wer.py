"""Speech recognition: word error rate and real-time factor of the offline model (Whisper tiny.en,
CTranslate2 int8) on ../shared/fixtures/audio/jfk.flac against its reference jfk.txt.

Each repetition transcribes into a fresh data_dir (no cache) with asr.threads CPU threads; the
model is loaded once, before timing. Prints WER and the median real-time factor (seconds spent /
seconds of audio; below 1 is faster than real time).

    .venv/bin/python benchmarks/asr_wer.py [--reps 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from newsdesk.config import ASRSettings, Settings
from newsdesk.ingest.audio import _embedded_model, transcribe, word_error_rate

SHARED = Path(os.environ.get("NEWSDESK_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    audio, reference = SHARED / "fixtures/audio/jfk.flac", (SHARED / "fixtures/audio/jfk.txt").read_text()
    if not audio.is_file():
        sys.exit(f"{audio} missing: set NEWSDESK_SHARED to the shared folder")
    _embedded_model(args.threads)  # load (and verify) once, outside the timing
    factors, text = [], ""
    for _ in range(args.reps):
        with tempfile.TemporaryDirectory() as folder:
            result = transcribe(audio, Settings(data_dir=folder, asr=ASRSettings(threads=args.threads)))
        factors.append(result.real_time_factor)
        text = " ".join(t.text for t in result.turns)
    print(f"audio       {audio.name}, {result.audio_seconds:.1f} s, {len(result.turns)} chunks")
    print(f"transcript  {text}")
    print(f"reference   {reference.strip()}")
    print(f"WER         {word_error_rate(reference, text):.3f}")
    print(f"RTF         median {statistics.median(factors):.3f} over {args.reps} runs on {args.threads} threads "
          f"(min {min(factors):.3f}, max {max(factors):.3f}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
