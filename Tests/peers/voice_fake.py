"""A voice platform's webhook for tests: records every request (method, path, headers, body) and answers
POST /call with 200 {"callId":"c-1"}, POST /status/<code> with that status and the text
"refused: pin <pin from the request> was not read" (to check the caller masks an echoed PIN).
GET /_received lists what was recorded."""
import json
import threading

import peerlib

LOCK = threading.Lock()
RECEIVED = []


class Handler(peerlib.Handler):
    def do_POST(self):
        body = self.read_body()
        with LOCK:
            RECEIVED.append({"method": self.command, "path": self.path,
                             "headers": {name.lower(): value for name, value in self.headers.items()},
                             "body": body.decode(errors="replace")})
        if self.path == "/call":
            self.reply(200, json.dumps({"callId": "c-1"}), "application/json")
        elif self.path.startswith("/status/"):
            pin = ""
            try:
                pin = json.loads(body).get("pin") or ""
            except ValueError:
                pass
            self.reply(int(self.path.split("/")[2]), f"refused: pin {pin} was not read")
        else:
            self.reply(404, "not found")

    def do_GET(self):
        if self.path == "/_received":
            with LOCK:
                self.reply_json(RECEIVED)
        else:
            self.reply(404, "not found")


if __name__ == "__main__":
    peerlib.serve(Handler)
