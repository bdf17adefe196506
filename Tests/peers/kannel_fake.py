"""A stand-in for Kannel's smsbox, written from Kannel's user guide and gw/dlr.h (not from Tandem's code).

  kannel_fake.py --username U --password P [--dlr-type N] [--dlr-reply TEXT] [--fire JSON --results FILE]

GET /cgi-bin/sendsms checks username/password (403 "Authorization failed for sendsms" otherwise) and `to`
(400 "Missing receiver number"), records every parameter, and answers 202 "0: Accepted for delivery".
When the request asks for DLR type N (dlr-mask & N) and has a dlr-url, it then calls the dlr-url the way
smsbox does: escape codes replaced (%d type, %A reply, %T time, %p receiver, %P sender), each value
URL-encoded, then a GET; the callback's answer is recorded.
GET /_dlr-sink records its query and answers 200 (a test may point the dlr-url here).
GET /_received answers {"sendsms": [{name: [values]}], "callbacks": [{url, status, body}], "sink": [{...}]}.
--fire JSON: after start, performs these callbacks in order without any sendsms: a list of
{"url": template, "type": n, "reply": text, "to": number}; appends {"status", "body"} lines to FILE.
"""
import argparse
import json
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, quote, urlparse

import peerlib

ARGS = None
LOCK = threading.Lock()
SENDSMS, CALLBACKS, SINK = [], [], []


def expand(template, values):
    """smsbox's escape codes: '%' and one letter; unknown codes stay as written."""
    out, i = [], 0
    while i < len(template):
        if template[i] == "%" and i + 1 < len(template) and template[i + 1] in values:
            out.append(quote(values[template[i + 1]], safe="-_.!~*'()"))
            i += 2
        else:
            out.append(template[i])
            i += 1
    return "".join(out)


def call_back(template, dlr_type, reply, receiver, sender):
    url = expand(template, {"d": str(dlr_type), "A": reply, "T": str(int(time.time())), "p": receiver, "P": sender})
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            result = {"url": url, "status": response.status, "body": response.read().decode()}
    except urllib.error.HTTPError as error:
        result = {"url": url, "status": error.code, "body": error.read().decode()}
    except Exception as error:  # noqa: BLE001 - recorded for the test to see
        result = {"url": url, "status": 0, "body": str(error)}
    return result


class Handler(peerlib.Handler):
    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query, keep_blank_values=True)
        if url.path == "/cgi-bin/sendsms":
            self.sendsms(query)
        elif url.path == "/_dlr-sink":
            with LOCK:
                SINK.append(query)
            self.reply(200, "OK")
        elif url.path == "/_received":
            with LOCK:
                self.reply_json({"sendsms": SENDSMS, "callbacks": CALLBACKS, "sink": SINK})
        else:
            self.reply(404, "not found")

    def sendsms(self, query):
        with LOCK:
            SENDSMS.append(query)
        one = lambda name: (query.get(name) or [None])[0]
        if one("username") != ARGS.username or one("password") != ARGS.password:
            self.reply(403, "Authorization failed for sendsms")
            return
        if not one("to"):
            self.reply(400, "Missing receiver number")
            return
        self.reply(202, "0: Accepted for delivery")
        mask, dlr_url = int(one("dlr-mask") or 0), one("dlr-url")
        if ARGS.dlr_type and dlr_url and mask & ARGS.dlr_type:
            def later():
                result = call_back(dlr_url, ARGS.dlr_type, ARGS.dlr_reply, one("to"), one("from") or "")
                with LOCK:
                    CALLBACKS.append(result)
            threading.Thread(target=later, daemon=True).start()


def fire(_port):
    for entry in json.loads(ARGS.fire):
        result = call_back(entry["url"], entry["type"], entry.get("reply", ""), entry.get("to", ""), "Tandem")
        with open(ARGS.results, "a") as results:
            results.write(json.dumps({"status": result["status"], "body": result["body"]}) + "\n")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--username", default="tandem")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--dlr-type", type=int, default=0)
    parser.add_argument("--dlr-reply", default="")
    parser.add_argument("--fire")
    parser.add_argument("--results")
    ARGS = parser.parse_args()
    peerlib.serve(Handler, after_start=fire if ARGS.fire else None)
