"""Shared plumbing for the HTTP/1.1 test peers in this directory: a threading http.server on 127.0.0.1:0
speaking HTTP/1.1 (python's default HTTP/1.0 has no keep-alive), `PORT <n>` as the first and only stdout
line, signals unblocked (the Swift test process starts us with most of them blocked), and exit as soon as
the parent test process is gone."""
import http.server
import json
import os
import signal
import threading
import time

PARENT = os.getppid()


def start(on_exit=None):
    """Unblocks signals and exits (after `on_exit`, if given) once the parent process is gone."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])

    def watch():
        while os.getppid() == PARENT:
            time.sleep(0.2)
        if on_exit:
            on_exit()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # stdout and stderr stay quiet

    def reply(self, status, body=b"", content_type="text/plain; charset=utf-8"):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def reply_json(self, value):
        self.reply(200, json.dumps(value), "application/json")

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # clients that time out leave broken pipes behind


def serve(handler_class, after_start=None):
    start()
    server = Server(("127.0.0.1", 0), handler_class)
    print("PORT", server.server_address[1], flush=True)
    if after_start:
        threading.Thread(target=after_start, args=(server.server_address[1],), daemon=True).start()
    server.serve_forever()
