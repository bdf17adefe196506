"""Helpers for the gateway's black-box tests: accounts, apps and devices, a webhook receiver, HTTP calls."""
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from conftest import run_tandem, wait_for


def create_account(server, name="Acme"):
    out = run_tandem("account", "create", name, "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr
    return next(line.split()[-1] for line in out.stdout.splitlines() if line.startswith("product token"))


def create_app(server, token, name="App", message_type="Default"):
    out = run_tandem("app", "create", name, "--account", token, "--type", message_type, "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr
    return next(line.split()[-1] for line in out.stdout.splitlines() if line.startswith("app key"))


def add_verified_device(server, app_key, msisdn, token=None):
    """A PIN-verified registration with a push token, written straight to the database (quicker than a PIN
    round trip; test_device_api.py covers the real flow); the server reads registrations on every message."""
    device = str(uuid.uuid4())
    server.query("""INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
                    VALUES (?, (SELECT id FROM apps WHERE app_key = ?), ?, 'iOS', ?, 'PinVerified', 0, 0)""",
                 (device, app_key, msisdn, token or f"token-{device}"))
    return device


def query(server, sql, params=()):
    return server.query(sql, params)


def http(server, method, path, body=None, headers=None):
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(server.url + path, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)


def messages_request(token, *msgs):
    return json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": list(msgs)}})


def msg(to, body="Hello", sender="Tandem", **extra):
    return {"from": sender, "to": [{"number": number} for number in to], "body": {"content": body}, **extra}


def send_message(server, token, to, body, sender="Acme", **extra):
    """POSTs one CM `msg`; returns its response line, asserted Accepted (its deliveries are durable then)."""
    status, reply, _ = http(server, "POST", "/v1.0/message", messages_request(token, msg(to, body, sender=sender, **extra)))
    assert status == 200, reply
    line = json.loads(reply)["messages"][0]
    assert line["status"] == "Accepted", line
    return line


def message_view(server, token, id_or_reference):
    """`GET /v1.0/message/{id}` as the sender sees it, asserted 200."""
    status, body, _ = http(server, "GET", f"/v1.0/message/{id_or_reference}", headers={"X-CM-PRODUCTTOKEN": token})
    assert status == 200, body
    return json.loads(body)


def final_recipient(server, token, message_id, timeout=10):
    """The message's first recipient once its delivery is final."""
    return wait_for(lambda: (lambda r: r if r["final"] else None)(message_view(server, token, message_id)["recipients"][0]),
                    timeout=timeout, what=f"message {message_id} to be final")


class WebhookReceiver:
    """An HTTP/1.1 webhook receiver on 127.0.0.1:0 that answers 503 to the first `failures` posts."""

    def __init__(self, failures=0):
        self.failures = failures
        self.posts = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    fail = receiver.failures > 0
                    if fail:
                        receiver.failures -= 1
                    receiver.posts.append({"body": body, "status": 503 if fail else 200, "t": time.time(),
                                           "content_type": self.headers.get("Content-Type")})
                self.send_response(503 if fail else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/reports"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def delivered(self):
        with self.lock:
            return [json.loads(post["body"]) for post in self.posts if post["status"] == 200]

    def all_posts(self):
        with self.lock:
            return list(self.posts)

    def close(self):
        self.server.shutdown()
