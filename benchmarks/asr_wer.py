"""Speech recognition: word error rate and real-time factor of the offline models on the real
recordings in tests/fixtures/audio:

- jfk.flac against jfk.txt;
- the English part of multilingual.mp3 against the MIT licence text. The file is two
  recordings joined by a run of digital silence (samples exactly 0): the permission paragraph
  read in English, then a German rendering. The English part is everything before the longest
  run of zero samples; the benchmark prints where that run lies and, with the multilingual model
  installed, the language Whisper base detects on each side of it. The reference is LICENSE's
  text from "Permission is hereby granted" to the first "portions of the Software."

Models: Whisper tiny.en (English) and, when its packages are installed, the multilingual Whisper
base with the language detected (asr.embedded_model = "base", asr.language = ""). Each
repetition transcribes into a fresh data_dir (no cache) with --threads CPU threads; the models
are loaded once, before timing. Real-time factor = seconds spent / seconds of audio (below 1 is
faster than real time), the median over --reps runs, printed with the machine's load.

    .venv/bin/python benchmarks/asr_wer.py [--reps 3] [--threads 2] [--models tiny.en,base]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np

from newsdesk.core.config import ASRSettings, Settings
from newsdesk.ingest.audio import (
    AudioError,
    _embedded_model,
    transcribe,
    word_error_rate,
)

AUDIO = Path(__file__).resolve().parents[1] / "tests/fixtures/audio"
RATE = 16000


def licence_reference() -> str:
    """The licence text the English reading follows, cut from the LICENSE file beside the audio."""
    text = " ".join((AUDIO / "LICENSE").read_text(encoding="utf-8").split())
    found = re.search(r"Permission is hereby granted.*?portions of the Software\.", text)
    if not found:
        sys.exit(f"{AUDIO / 'LICENSE'}: no permission paragraph found")
    return found.group(0)


def silent_run(samples: np.ndarray, shortest: float = 0.5) -> tuple[float, float]:
    """Start and end (seconds) of the longest run of exactly-zero samples, at least `shortest` long."""
    zero = np.concatenate(([0], (samples == 0).astype(np.int8), [0]))
    edges = np.flatnonzero(np.diff(zero))
    starts, ends = edges[::2], edges[1::2]
    if not len(starts) or (ends - starts).max() < shortest * RATE:
        sys.exit("multilingual.mp3: no run of digital silence where the two recordings join")
    longest = int(np.argmax(ends - starts))
    return starts[longest] / RATE, ends[longest] / RATE


def write_wav(samples: np.ndarray, path: Path) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())
    return path


def english_part(folder: Path, models: list[str], threads: int) -> Path:
    from faster_whisper import decode_audio

    samples = decode_audio(str(AUDIO / "multilingual.mp3"), sampling_rate=RATE)
    start, end = silent_run(samples)
    print(
        f"multilingual.mp3: {len(samples) / RATE:.1f} s; digital silence {start:.2f}-{end:.2f} s; "
        f"English part 0-{start:.2f} s"
    )
    if "base" in models:  # a check that the cut is where the language changes
        model = _embedded_model(threads, "base")
        for name, part in (("before", samples[: int(start * RATE)]), ("after", samples[int(end * RATE) :])):
            language, probability, _ = model.detect_language(part)
            print(f"  Whisper base detects {language} ({probability:.3f}) {name} the silence")
    return write_wav(samples[: int(start * RATE)], folder / "multilingual-english.wav")


def measure(audio: Path, reference: str, model: str, reps: int, threads: int) -> None:
    factors, text = [], ""
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as folder:
            result = transcribe(
                audio, Settings(data_dir=folder, asr=ASRSettings(threads=threads, embedded_model=model))
            )
        factors.append(result.real_time_factor)
        text = " ".join(t.text for t in result.turns)
    print(f"\n{audio.name} ({result.audio_seconds:.1f} s), Whisper {model}, {len(result.turns)} chunks")
    print(f"  transcript  {text}")
    print(f"  reference   {reference}")
    print(f"  WER         {word_error_rate(reference, text):.3f} ({len(reference.split())} reference words)")
    print(
        f"  RTF         median {statistics.median(factors):.3f} over {reps} runs on {threads} threads "
        f"(min {min(factors):.3f}, max {max(factors):.3f}; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--models", default="tiny.en,base", help="comma-separated: tiny.en, base")
    args = parser.parse_args()
    if not (AUDIO / "jfk.flac").is_file():
        sys.exit(f"{AUDIO} missing: run from a full checkout of the project")
    models = []
    for model in args.models.split(","):
        try:
            _embedded_model(args.threads, model)  # load (and verify) once, outside the timing
            models.append(model)
        except AudioError as exc:
            print(f"Whisper {model} skipped: {exc}")
    with tempfile.TemporaryDirectory() as folder:
        recordings = [
            (AUDIO / "jfk.flac", (AUDIO / "jfk.txt").read_text(encoding="utf-8").strip()),
            (english_part(Path(folder), models, args.threads), licence_reference()),
        ]
        for model in models:
            for audio, reference in recordings:
                measure(audio, reference, model, args.reps, args.threads)


if __name__ == "__main__":
    main()
