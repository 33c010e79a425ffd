"""The test suite's fakes, in one place: stand-ins for a model (scripted, or answering from the
prompt's own text) and for the sources' servers, so the real client, fetcher, checker and stores
around them run as they do. Fixtures more than one module uses are in conftest.py.

- FakeEndpoint / completion: a loopback OpenAI-compatible endpoint with scripted replies and faults
- EpisodeFake: the episode and translation writer's model, answering from the transcript lines
- CopyingBackend / copying_llm: the weekly's model, copying sentences from the material
- StageFake: one scripted writer per pipeline stage
- Untouchable: a model that fails the test if anything uses it
- FaultyFeeds / quick_fetch_settings: a loopback feed server with one path per fault a source has
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from loopback import Replies, serve_http

from newsdesk.core.config import Settings
from newsdesk.llm.chat import RawReply
from newsdesk.llm.client import LLM, Reply
from newsdesk.write.transcript import find_quotes

# --- a loopback OpenAI-compatible endpoint ----------------------------------------------------


def completion(
    text: str,
    *,
    finish_reason: str = "stop",
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    cached_tokens: int = 0,
    model: str = "fake-model",
) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }


class FakeEndpoint:
    """Each request takes the next scripted step; with the script empty, `default(request)` answers.

    Steps: ("reply", body_dict) · ("status", code, headers) · ("sleep", seconds) then the next step ·
    ("garbage", body_bytes): HTTP 200, content-type application/json, and a body that is not JSON
    """

    def __init__(self, default=None):
        self.steps: deque = deque()
        self.requests: list[dict] = []
        self.default = default or (lambda req: completion("ok"))
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                fake.requests.append(body)
                step = fake.steps.popleft() if fake.steps else ("reply", fake.default(body))
                while step[0] == "sleep":
                    time.sleep(step[1])
                    step = fake.steps.popleft() if fake.steps else ("reply", fake.default(body))
                if step[0] == "status":
                    payload = json.dumps({"error": {"message": f"injected {step[1]}", "type": "fake"}}).encode()
                    self.send_response(step[1])
                    for k, v in (step[2] if len(step) > 2 else {}).items():
                        self.send_header(k, v)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                payload = step[1] if step[0] == "garbage" else json.dumps(step[1]).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the episode and translation writer -------------------------------------------------------


LINE = re.compile(r"^\[(\d+)\] ([^:]+): (.*)$", re.M)

STEMS = "甲乙丙丁戊己庚辛壬癸"


@dataclass
class FakeReply:
    text: str
    data: dict
    model: str = "fake"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    cache_hit: bool = False
    latency_ms: int = 0


def first_sentence(text: str, words: int = 14) -> str:
    return " ".join(text.split()[:words])


class CardTranslator:
    """Answers the card translation prompt (write/translate.py translate_cards) with scripted drafts,
    one per call, the last one repeated; keeps every call's messages."""

    model = "fake-translator"

    def __init__(self, *drafts: dict):
        self.drafts, self.calls = list(drafts), []

    def chat(self, messages, *, output, schema=None, max_tokens=None, temperature=None):
        assert output == "translation" and "headline" in schema["required"]
        self.calls.append(messages)
        draft = self.drafts[min(len(self.calls), len(self.drafts)) - 1]
        return FakeReply(json.dumps(draft, ensure_ascii=False), draft, self.model)


class EpisodeFake:
    """Answers each prompt of the episode and translation stages from the prompt's own text."""

    model = "fake-model"

    def __init__(self, *, translation_faults: int = 0, section_count: int = 3):
        self.calls: list[str] = []
        self.prompts: list[str] = []
        self.translation_faults = translation_faults  # first N translation answers drop a bullet
        self.section_count = section_count

    def chat(self, messages, *, output, schema=None, max_tokens=None, temperature=None):
        system, user = messages[0]["content"], messages[1]["content"]
        self.calls.append(output)
        self.prompts.append(system + "\n" + user)
        if "note what is said" in system:
            data = self._points(user)
        elif "divide a long conversation" in system:
            data = self._sections(user)
        elif "write one section" in system:
            data = self._section(user)
        elif "write the summary" in system:
            data = self._summary(user)
        elif "translate" in system:
            data = self._translate(system, user, retry=len(messages) > 2)
        else:
            raise AssertionError("unknown prompt: " + system[:80])
        return FakeReply(json.dumps(data, ensure_ascii=False), data)

    def _points(self, user):
        lines = LINE.findall(user)
        step = max(1, len(lines) // 4)
        return {"points": [{"line": int(i), "point": f"{s} says {first_sentence(t, 8)}"} for i, s, t in lines[::step]]}

    def _sections(self, user):
        starts = [int(m) for m in re.findall(r"^\[(\d+)\]", user, re.M)]
        step = max(1, len(starts) // self.section_count)
        picked = starts[::step][: self.section_count]
        return {"sections": [{"start_line": s, "topic": f"议题{STEMS[k % 10]}"} for k, s in enumerate(picked)]}

    def _section(self, user):
        lines = sorted(LINE.findall(user), key=lambda x: -len(x[2].split()))
        (_, s0, t0), rest = lines[0], lines[1:] or lines
        exact = first_sentence(t0, 12)
        words = first_sentence(rest[0][2], 12).split()
        near = " ".join(words[:-1] + ["zzz"]) if len(words) >= 6 else " ".join(words)  # one word misheard
        bullets = [
            {"label": "观点", "text": f"{s0}的判断是“{exact}”，这是本段的核心。"},
            {
                "label": "",
                "text": f"{rest[0][1]}补充说“{near}”。他还说“we will ship the quantum teleporter on Tuesday morning”。",
            },
        ]
        if len(lines) > 2:
            bullets.append({"label": "", "text": f"{lines[2][1]}回应：“{first_sentence(lines[2][2], 10)}”。"})
        topic = re.search(r"working topic: ([^)]+)\)", user)
        first = re.search(r"Transcript lines (\d+)", user).group(1)
        fallback = "议题" + "".join(STEMS[int(d)] for d in first)
        return {
            "topic": topic.group(1) if topic else fallback,
            "hook": f"{s0}从{' '.join(exact.split()[:4])}谈起",
            "bullets": bullets,
        }

    def _summary(self, user):
        blocks = re.findall(r"^\d+\. ([^：\n]+)：.*?\n• (.+)$", user, re.M)
        bullets = []
        for topic, bullet in blocks[:7]:
            quote = find_quotes(bullet)
            evidence = f"依据是开头那句“{' '.join(quote[0][2].split()[:7])}”。" if quote else "依据见精读。"
            bullets.append({"thesis": f"{topic}这一段值得注意", "evidence": evidence})
        return {"bullets": bullets}

    def _translate(self, system, user, retry):
        def english(zh: str) -> str:
            # Keep quotes and numbers, put English words around them.
            quotes = [f"“{inner}”" for _, _, inner in find_quotes(zh)]
            body = " and ".join(quotes) or "nothing quotable"
            hedge = " That may be so." if re.search("可能|也许", zh) else ""
            digits = " ".join(re.findall(r"\d+(?:\.\d+)?", re.sub("“[^”]*”", "", zh)))
            return f"The speaker says {body}.{hedge}" + (f" Numbers: {digits}." if digits else "")

        def stems(zh: str) -> str:
            return " ".join(chr(ord("A") + STEMS.index(c)) for c in zh if c in STEMS) or "general"

        bullets = re.findall(r"^\d+\. (.+)$", user, re.M)
        if "translate the title" in system:
            out = {"title": "Episode: " + re.search(r"^Title: (.+)$", user, re.M).group(1), "bullets": []}
        else:
            topic = re.search(r"^Topic: (.*)$", user, re.M).group(1)
            out = {"topic": f"Item {stems(topic)}", "hook": f"the part about item {stems(topic)}", "bullets": []}
        if "translate the title" in system:
            out["bullets"] = [f"In summary, the discussion of {stems(b)} matters. " + english(b) for b in bullets]
        else:
            out["bullets"] = [english(b) for b in bullets]
        if self.translation_faults and not retry:
            self.translation_faults -= 1
            out["bullets"] = out["bullets"][:-1]  # one bullet short: the check must catch it
        return out


# --- the weekly's writer ----------------------------------------------------------------------


def _blocks(material: str) -> dict[int, str]:
    """[n] 来源：… blocks of the material, by number."""
    parts = re.split(r"^\[(\d+)\] 来源：", material, flags=re.M)
    return {int(n): body for n, body in zip(parts[1::2], parts[2::2])}


def _first_sentence(text: str) -> str:
    m = re.search(r"[^。！？!?]{4,}[。！？!?]", text)
    return m.group(0).strip() if m else text.strip()[:40].rstrip("，,、") + "。"


def _summary_of(block: str) -> str:
    m = re.search(r"摘要：(.+)", block)
    return _first_sentence(m.group(1) if m else re.search(r"标题：(.+)", block).group(1))


def _title_of(block: str) -> str:
    return re.search(r"标题：(.+)", block).group(1).strip()


class CopyingBackend:
    """Answers each weekly schema with text lifted from the material. `defects` plants errors
    in first drafts: 'number' (a figure not in the material), 'repeat' (overview copies the summary),
    'swap' (each brief about the next event)."""

    name = "fake"
    model = "copying-writer-1"

    def __init__(self, defects=(), stubborn=False):
        self.defects = set(defects)
        self.stubborn = stubborn  # plant the defect in rewrites too
        self.calls = 0

    def chat(self, messages, *, max_tokens, temperature, schema):
        self.calls += 1
        user = messages[1]["content"]
        material = user.split("材料：\n\n", 1)[1]
        rewrite = len(messages) > 2 and not self.stubborn
        required = schema["required"]
        if "thesis" in required:
            blocks = _blocks(material)
            out = {
                "thesis": "本节几条材料指向同一个方向，值得合起来看。",
                "items": [
                    {
                        "n": n,
                        "name": _title_of(b),
                        "problem": _summary_of(b),
                        "method": "方法细节材料未披露。",
                        "numbers": "材料未给出具体数字。",
                        "assessment": "证据只有摘要，属于报道称。",
                    }
                    for n, b in blocks.items()
                ],
                "synthesis": "这几条放在一起看，材料都停留在摘要层面，结论还需要正文确认。",
            }
            if "number" in self.defects and not rewrite:
                out["items"][0]["numbers"] = "官方称准确率提升 987.65%。"
        elif "summary" in required:
            heads = re.findall(r"^\[(\d+)\] (?!来源：)(.+)$", material, flags=re.M)
            names = [h for _, h in heads]
            summary = f"本周最清晰的信号是：{names[0]}。第二条主线是{names[1 % len(names)]}。第三条是{names[-1]}。"
            overview = [{"n": int(n), "text": f"先看{h}这一组的来龙去脉。"} for n, h in heads]
            if "repeat" in self.defects and not rewrite:
                overview[0]["text"] = f"本周最清晰的信号是：{names[0]}。"
            out = {"summary": summary, "overview": overview}
            if "cut-summary" in self.defects:  # cut off at max_tokens, every time: no usable answer
                text = json.dumps(out, ensure_ascii=False)[:40]
                return RawReply(
                    text=text,
                    finish_reason="length",
                    model=self.model,
                    prompt_tokens=len(user) // 2,
                    completion_tokens=100,
                    cached_tokens=0,
                    latency_ms=1,
                )
        else:
            blocks = _blocks(material)
            out = {"briefs": [{"n": n, "text": _summary_of(b)} for n, b in blocks.items()]}
            if "swap" in self.defects and not rewrite:  # each brief written from the next event's material
                out["briefs"] = [{"n": n, "text": _summary_of(blocks[n % len(blocks) + 1])} for n in blocks]
        return RawReply(
            text=json.dumps(out, ensure_ascii=False),
            finish_reason="stop",
            model=self.model,
            prompt_tokens=len(user) // 2,
            completion_tokens=100,
            cached_tokens=0,
            latency_ms=1,
        )


class Untouchable:
    """Stands where the LLM would: any use of it fails the test (an unchanged week must not open the model)."""

    def __getattr__(self, name):
        raise AssertionError(f"the model was touched ({name}) although nothing changed")


def copying_llm(engine, **kwargs) -> LLM:
    return LLM(CopyingBackend(**kwargs), engine, concurrency=1)


# --- one writer per pipeline stage ------------------------------------------------------------


class StageFake:
    """One scripted writer per stage; counts every call that reaches it."""

    model = "fake-model"

    def __init__(self, engine):
        self.calls: list[str] = []
        self.episode = EpisodeFake(section_count=5)
        self.weekly = LLM(CopyingBackend(), engine)

    def chat(self, messages, *, output, schema=None, max_tokens=None, temperature=None):
        self.calls.append(output)
        if output == "weekly":
            return self.weekly.chat(messages, output=output, schema=schema, max_tokens=max_tokens)
        if output in ("episode", "translation"):
            return self.episode.chat(messages, output=output, schema=schema, max_tokens=max_tokens)
        assert output == "analysis", output
        text = "标题给了发布消息，正文没披露价格和基准分数，材料只有 RSS 摘要级别。\n\n我的判断：先等正文。"
        return Reply(text, None, self.model, 0, 0, 0, False, 0)


# --- a loopback feed server with one path per fault --------------------------------------------


RSS = """<?xml version="1.0" encoding="{enc}"?>
<rss version="2.0"><channel><title>{title}</title>
{items}
</channel></rss>"""
ITEM = "<item><title>{t}</title><link>http://127.0.0.1:{port}/a/{n}</link><guid>{g}</guid><description>{d}</description><pubDate>Mon, 24 Feb 2025 10:00:00 GMT</pubDate></item>"


def feed_xml(port: int, title: str, n: int, enc: str = "utf-8", zh: bool = False) -> bytes:
    body = "".join(
        ITEM.format(
            t=f"第{i}条：大模型发布" if zh else f"Story {i}",
            port=port,
            n=f"{title}-{i}",
            g=f"{title}-{i}",
            d=("国产大模型在推理基准上领先" if zh else "A model was released"),
        )
        for i in range(n)
    )
    return RSS.format(enc=enc, title=title, items=body).encode(enc)


class FaultyFeeds:
    """A loopback feed server with one path per fault a real source has: /good.xml (an ETag, then 304),
    /flaky.xml (500 once), /limited.xml (429 once), /broken.xml, /gb2312.xml, /huge.xml, /loop.xml,
    /stall.xml; /a/… are the articles. `calls` counts the requests per path."""

    def __init__(self):
        self.calls: dict[str, int] = {}
        outer = self

        class Handler(Replies):
            def do_GET(self):
                path = self.path
                outer.calls[path] = outer.calls.get(path, 0) + 1
                n = outer.calls[path]
                port = outer.port
                if path == "/good.xml":
                    if self.headers.get("If-None-Match") == '"v1"':
                        self.send_response(304)
                        self.end_headers()
                        return
                    return self.reply(200, feed_xml(port, "good", 3), {"ETag": '"v1"'})
                if path == "/flaky.xml":
                    if n == 1:
                        return self.reply(500, b"oops")
                    return self.reply(200, feed_xml(port, "flaky", 2))
                if path == "/limited.xml":
                    if n == 1:
                        return self.reply(429, b"slow down", {"Retry-After": "1"})
                    return self.reply(200, feed_xml(port, "limited", 1))
                if path == "/broken.xml":
                    return self.reply(200, b"<rss><channel><title>x</title><item><title>unclosed")
                if path == "/gb2312.xml":
                    return self.reply(
                        200, feed_xml(port, "gb", 2, enc="gb2312", zh=True), {"Content-Type": "application/rss+xml"}
                    )
                if path == "/huge.xml":
                    return self.reply(200, b"<rss>" + b" " * 300_000 + b"</rss>")
                if path == "/loop.xml":
                    self.send_response(302)
                    self.send_header("Location", "/loop.xml")
                    self.end_headers()
                    return
                if path == "/stall.xml":
                    time.sleep(3)
                    return self.reply(200, feed_xml(port, "stall", 1))
                if path.startswith("/a/"):
                    return self.reply(200, b"<html><body><p>short</p></body></html>", {"Content-Type": "text/html"})
                self.reply(404, b"no")

        self.httpd = serve_http(Handler)
        self.port = self.httpd.server_address[1]

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"


def quick_fetch_settings(allow_private: bool = True) -> Settings:
    """Fetch settings that fit FaultyFeeds: short timeouts (its stall outlasts them), fast retries."""
    s = Settings()
    f = s.fetch
    f.allow_private, f.read_timeout, f.total_timeout, f.connect_timeout = allow_private, 1.0, 2.5, 1.0
    f.max_bytes, f.retries, f.backoff_base, f.per_host_delay, f.per_host_concurrency = 100_000, 2, 0.05, 0.0, 8
    return s
