"""A digest from a podcast-length recording, end to end and offline: a real meeting transcript
from tests/fixtures/transcripts/qmsum-val.jsonl is spoken by espeak-ng (one voice per
speaker, a short pause between turns) into one WAV file of at least --minutes, then
`newsdesk episode FILE.wav` runs as a user would run it, with [write] by = "extractive" and
the offline Whisper tiny.en (asr.threads CPU threads): transcript, then the extractive digest
in zh and en, no model call.

Prints the audio's length, the command's wall time, the transcription's real-time factor (as the
command reports it: seconds spent transcribing, the model's load included, / seconds of audio),
the machine's load, the WER of the transcript against the text that was spoken (synthetic speech:
a check that the long file was heard whole, not a measure of accuracy on human speech), and the
digest's sections, bullets and findings. Needs espeak-ng (apt-get install espeak-ng).

    .venv/bin/python benchmarks/podcast_audio.py [--minutes 10] [--meeting 2] [--threads 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEETINGS = ROOT / "tests/fixtures/transcripts/qmsum-val.jsonl"
VOICES = ["en-us", "en-gb+m3", "en-us+f3", "en-gb-x-rp+m4", "en-us+f4"]  # one per speaker, in order of appearance
PAUSE = 0.4  # seconds of silence between turns


def meeting_turns(meeting: int) -> list[tuple[str, str]]:
    """(speaker, text) turns of one qmsum-val meeting, its {vocalsound}-style marks dropped."""
    with MEETINGS.open(encoding="utf-8") as fh:
        record = json.loads(fh.readlines()[meeting])
    turns = [
        (t["speaker"], " ".join(re.sub(r"\{[^}]*\}", " ", t["content"]).split())) for t in record["meeting_transcripts"]
    ]
    return [(speaker, text) for speaker, text in turns if len(text.split()) >= 2]


def speak(turns: list[tuple[str, str]], path: Path, minutes: float) -> tuple[float, list[tuple[str, str]]]:
    """One WAV file of the turns spoken in order until it lasts `minutes`; its seconds and the turns spoken."""
    if not shutil.which("espeak-ng"):
        sys.exit("espeak-ng not found: apt-get install espeak-ng")
    voices: dict[str, str] = {}
    frames, rate, seconds, spoken = [], 0, 0.0, []
    with tempfile.TemporaryDirectory() as folder:
        for n, (speaker, text) in enumerate(turns):
            if seconds >= minutes * 60:
                break
            voice = voices.setdefault(speaker, VOICES[len(voices) % len(VOICES)])
            part = Path(folder) / f"{n}.wav"
            subprocess.run(["espeak-ng", "-v", voice, "-w", str(part), text], check=True)
            with wave.open(str(part), "rb") as clip:
                rate = rate or clip.getframerate()
                frames.append(clip.readframes(clip.getnframes()))
                seconds += clip.getnframes() / rate + PAUSE
            frames.append(b"\0\0" * int(PAUSE * rate))
            spoken.append((speaker, text))
    if seconds < minutes * 60:
        sys.exit(f"the meeting gives only {seconds / 60:.1f} min of speech; pick a longer one or fewer --minutes")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(b"".join(frames))
    with wave.open(str(path), "rb") as done:
        return done.getnframes() / done.getframerate(), spoken


def run_episode(audio: Path, folder: Path, threads: int) -> tuple[float, subprocess.CompletedProcess]:
    """`newsdesk episode AUDIO` as a user runs it, offline; returns (wall seconds, the process)."""
    config = folder / "newsdesk.toml"
    config.write_text(
        f'data_dir = "{folder / "data"}"\n[write]\nby = "extractive"\n[asr]\nthreads = {threads}\n', encoding="utf-8"
    )
    env = {**os.environ, "NEWSDESK_CONFIG": str(config), "PYTHONPATH": os.environ.get("PYTHONPATH", str(ROOT / "src"))}
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "newsdesk", "episode", str(audio), "--title", "Podcast test"],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    return time.perf_counter() - started, done


def transcript_text(folder: Path) -> str:
    cached = next((folder / "data" / "transcripts").glob("*.json"))
    return " ".join(t["text"] for t in json.loads(cached.read_text(encoding="utf-8"))["turns"])


def main() -> None:
    from newsdesk.ingest.audio import word_error_rate

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--meeting", type=int, default=2, help="line of qmsum-val.jsonl (0-based)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the audio and the data_dir here")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="podcast-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        audio = folder / "podcast.wav"
        started = time.perf_counter()
        seconds, turns = speak(meeting_turns(args.meeting), audio, args.minutes)
        print(
            f"audio      {audio.name}: {seconds / 60:.1f} min, {len(turns)} turns of qmsum-val meeting {args.meeting}, "
            f"spoken by espeak-ng in {time.perf_counter() - started:.0f} s"
        )
        wall, done = run_episode(audio, folder, args.threads)
        if done.returncode != 0:
            sys.exit(f"newsdesk episode exited {done.returncode}:\n{done.stderr[-3000:]}")
        reported = re.search(r"real-time factor ([\d.]+)", done.stderr)
        spoken = " ".join(text for _, text in turns)
        print(
            f"episode    `newsdesk episode {audio.name}`: {wall:.0f} s wall ({wall / seconds:.3f} of the audio's length)"
        )
        print(
            f"transcribe real-time factor {reported.group(1) if reported else '?'} (Whisper tiny.en, int8, "
            f"{args.threads} threads; {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})"
        )
        print(
            f"WER        {word_error_rate(spoken, transcript_text(folder)):.3f} against the spoken text "
            f"({len(spoken.split())} words; synthetic speech)"
        )
        for line in done.stderr.splitlines():
            if line.startswith(("episode ", "podcast", "extractive")) or "chunks" in line:
                print(f"  {line}")
        sections = len(re.findall(r"^## ", done.stdout, flags=re.MULTILINE))
        print(f"digest     {len(done.stdout.splitlines())} lines printed, {sections} headings")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
