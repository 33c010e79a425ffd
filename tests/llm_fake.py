"""A loopback OpenAI-compatible endpoint whose replies a test scripts: the faults a real provider produces."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(text: str, *, finish_reason: str = "stop", prompt_tokens: int = 100, completion_tokens: int = 20,
               cached_tokens: int = 0, model: str = "fake-model") -> dict:
    return {
        "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens,
                  "prompt_tokens_details": {"cached_tokens": cached_tokens}},
    }


class FakeEndpoint:
    """Each request takes the next scripted step; with the script empty, `default(request)` answers.

    Steps: ("reply", body_dict) · ("status", code, headers) · ("sleep", seconds) then the next step · ("garbage",)
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
                payload = json.dumps(step[1]).encode()
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
