"""What the benchmarks' loopback servers share: an OpenAI chat-completion reply on the
wire, and a threading HTTP server that does not drop bursts of connections."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def send_chat_completion(handler: BaseHTTPRequestHandler, text: str, *, model: str, prompt_tokens: int) -> None:
    """Answer the request ``handler`` is serving with one chat completion holding ``text``."""
    completion_tokens = len(text) // 4
    payload = {
        "id": "chatcmpl-bench", "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    data = json.dumps(payload).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class BurstServer(ThreadingHTTPServer):
    request_queue_size = 512  # the default backlog of 5 drops bursts of 16+ connections
    daemon_threads = True


def serve(handler_cls: type[BaseHTTPRequestHandler]) -> BurstServer:
    """Serve on 127.0.0.1 (a free port) from a daemon thread."""
    server = BurstServer(("127.0.0.1", 0), handler_cls)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
