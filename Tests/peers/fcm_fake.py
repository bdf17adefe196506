#!/usr/bin/env python3
"""A local FCM HTTP v1 and Google OAuth2 token endpoint for Tandem's provider tests (HTTPS, HTTP/1.1).

POST /token checks the JWT-bearer grant: `grant_type`, the RS256 assertion's signature (PyJWT, with the
service account's public key), `kid`, `iss` (the client e-mail), `scope` (FCM's), `aud` (this endpoint's
URL), `iat`/`exp` (a lifetime of at most an hour, not expired, not issued in the future). It answers
{"access_token","expires_in","token_type"} or 400 {"error":"invalid_grant"}.

POST /v1/projects/<id>/messages:send checks the bearer token (issued here, not expired or revoked), the
project and the message (`token`; `data` of strings with `messageId` and `updateId`,
or a TIBCO BWMI payload: with `faf`, or `badge` alone; `notification`
strings (with --allow-bare-data a message without `notification` may carry its data alone: a data-only
push such as a cospace event); `android.priority` HIGH/NORMAL, `android.ttl` "<n>s" <= 28 days, `android.collapse_key`;
`data` + `notification` <= 4096 bytes), then answers by the registration token's prefix:
  ok…         200 {"name":"projects/<id>/messages/<n>"}
  unreg…      404 UNREGISTERED                 invalid…    400 INVALID_ARGUMENT on message.token
  quota…      429 QUOTA_EXCEEDED with Retry-After: 1 the first time for the token, then 200
  internal…   500 INTERNAL the first time for the token, then 200
  down…       503 UNAVAILABLE with Retry-After: 2, always
  mismatch…   403 SENDER_ID_MISMATCH           thirdparty… 401 THIRD_PARTY_AUTH_ERROR
  revoke…     the first time for the token: revokes the bearer token used and answers 401
              UNAUTHENTICATED; then 200
  anything else: 200
A failed check is answered as Google would and logged as a `violation` (the sender did something wrong).

--log FILE appends one JSON object per request (kind "token" or "send").
Prints `PORT <n>` (or `ERROR <text>`) as its only stdout line; exits when its parent process dies.
"""
import argparse
import http.server
import json
import os
import re
import secrets
import signal
import ssl
import sys
import threading
import time
import urllib.parse

import jwt
from cryptography.hazmat.primitives import serialization

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
TTL_PATTERN = re.compile(r"^[0-9]+(\.[0-9]{1,9})?s$")


def google_error(code, status, message, error_code=None, field=None):
    details = []
    if error_code:
        details.append({"@type": FCM_ERROR, "errorCode": error_code})
    if field:
        details.append({"@type": "type.googleapis.com/google.rpc.BadRequest",
                        "fieldViolations": [{"field": field, "description": message}]})
    error = {"code": code, "message": message, "status": status}
    if details:
        error["details"] = details
    return {"error": error}


class Violation(Exception):
    def __init__(self, status, body):
        super().__init__(json.dumps(body))
        self.status = status
        self.body = body


class FakeFCM:
    def __init__(self, args, public_key):
        self.args = args
        self.public_key = public_key
        self.lock = threading.Lock()
        self.tokens = {}        # access token -> expiry (time.time())
        self.revoked = set()
        self.seen = {}          # registration token -> requests so far
        self.sent = 0
        self.audience = None
        self.log = open(args.log, "a", buffering=1) if args.log else None

    def write(self, record):
        if self.log:
            with self.lock:
                self.log.write(json.dumps(record) + "\n")

    # --- POST /token -------------------------------------------------------------------------------
    def token(self, headers, body):
        record = {"kind": "token", "time": time.time(), "violation": None}
        try:
            if headers.get("Content-Type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
                raise Violation(400, {"error": "invalid_request", "error_description": "content type"})
            form = urllib.parse.parse_qs(body.decode("ascii"), strict_parsing=True)
            if form.get("grant_type") != [GRANT]:
                raise Violation(400, {"error": "unsupported_grant_type"})
            assertion = (form.get("assertion") or [""])[0]
            record["assertion"] = assertion
            header = jwt.get_unverified_header(assertion)
            record["header"] = header
            if header.get("alg") != "RS256" or (self.args.key_id and header.get("kid") != self.args.key_id):
                raise Violation(400, {"error": "invalid_grant", "error_description": "alg or kid"})
            claims = jwt.decode(assertion, self.public_key, algorithms=["RS256"], audience=self.audience,
                                options={"require": ["iss", "scope", "aud", "iat", "exp"], "verify_iat": False})
            record["claims"] = claims
            now = time.time()
            if claims["iss"] != self.args.client_email:
                raise Violation(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
            if SCOPE not in str(claims["scope"]).split(" "):
                raise Violation(400, {"error": "invalid_scope"})
            if not (0 < claims["exp"] - claims["iat"] <= 3600) or claims["iat"] > now + 60:
                raise Violation(400, {"error": "invalid_grant", "error_description": "Invalid JWT: iat/exp"})
        except jwt.PyJWTError as error:
            record.update(status=400, violation=f"assertion: {error}")
            self.write(record)
            return 400, [], {"error": "invalid_grant", "error_description": str(error)}
        except (Violation, UnicodeDecodeError, ValueError) as error:
            body = error.body if isinstance(error, Violation) else {"error": "invalid_request"}
            record.update(status=400, violation=body)
            self.write(record)
            return 400, [], body
        access = "ya29.fake-" + secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[access] = time.time() + self.args.expires_in
        record.update(status=200, access_token=access)
        self.write(record)
        return 200, [], {"access_token": access, "expires_in": self.args.expires_in, "token_type": "Bearer"}

    # --- POST /v1/projects/<id>/messages:send ----------------------------------------------------------
    def send(self, project, headers, body):
        record = {"kind": "send", "time": time.time(), "violation": None, "project": project}
        authorization = headers.get("Authorization", "")
        bearer = authorization[len("Bearer "):] if authorization.startswith("Bearer ") else None
        record["bearer"] = bearer
        try:
            with self.lock:
                expiry = self.tokens.get(bearer)
                valid = expiry is not None and expiry > time.time() and bearer not in self.revoked
            if not valid:
                record["unauthenticated"] = True
                raise Violation(401, google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
            if project != self.args.project_id:
                raise Violation(404, google_error(404, "NOT_FOUND", "Requested entity was not found."))
            message = self.check_message(body, record)
        except Violation as violation:
            if not record.get("unauthenticated"):
                record["violation"] = violation.body
            record["status"] = violation.status
            self.write(record)
            return violation.status, [], violation.body
        status, extra, answer = self.answer(message["token"], bearer, project)
        record.update(status=status, retry_after=dict(extra).get("Retry-After"),
                      error_code=((answer.get("error") or {}).get("details") or [{}])[0].get("errorCode"))
        self.write(record)
        return status, extra, answer

    def check_message(self, body, record):
        def invalid(field, why):
            return Violation(400, google_error(400, "INVALID_ARGUMENT", why, "INVALID_ARGUMENT", field))
        try:
            envelope = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise invalid("message", "Invalid JSON payload received.")
        message = envelope.get("message") if isinstance(envelope, dict) else None
        if not isinstance(message, dict) or set(envelope) != {"message"}:
            raise invalid("message", "message is required")
        record["message"] = message
        if not isinstance(message.get("token"), str) or not message["token"]:
            raise invalid("message.token", "token is required")
        record["token"] = message["token"]
        data = message.get("data")
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise invalid("message.data", "data values must be strings")
        # TIBCO BWMI's payloads (Tandem's /bwmi API) carry exactly BWMI's keys: `faf`, or a badge update alone.
        bwmi = "faf" in data or set(data) == {"badge"}
        notification = message.get("notification")
        bare = self.args.allow_bare_data and notification is None
        if not bare and not bwmi and (not isinstance(data.get("messageId"), str) or not isinstance(data.get("updateId"), str)):
            raise invalid("message.data", "Tandem's messageId and updateId are missing")
        if notification is not None and (not isinstance(notification, dict)
                                         or not all(isinstance(v, str) for v in notification.values())):
            raise invalid("message.notification", "notification values must be strings")
        android = message.get("android")
        if not isinstance(android, dict):
            raise invalid("message.android", "android config missing")
        if android.get("priority") not in ("HIGH", "NORMAL"):
            raise invalid("message.android.priority", "bad priority")
        ttl = android.get("ttl")
        if not isinstance(ttl, str) or not TTL_PATTERN.match(ttl) or float(ttl[:-1]) > 2419200:
            raise invalid("message.android.ttl", "bad ttl")
        if not isinstance(android.get("collapse_key"), str):
            raise invalid("message.android.collapse_key", "collapse_key missing")
        size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
        if notification is not None:
            size += len(json.dumps(notification, ensure_ascii=False, separators=(",", ":")).encode())
        record["payload_size"] = size
        if size > 4096:
            raise invalid("message", "Message is too big")
        return message

    def answer(self, token, bearer, project):
        with self.lock:
            attempt = self.seen.get(token, 0) + 1
            self.seen[token] = attempt
            self.sent += 1
            name = {"name": f"projects/{project}/messages/{self.sent}"}
        if token.startswith("unreg"):
            return 404, [], google_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED")
        if token.startswith("invalid"):
            return 400, [], google_error(400, "INVALID_ARGUMENT",
                                         "The registration token is not a valid FCM registration token",
                                         "INVALID_ARGUMENT", "message.token")
        if token.startswith("quota") and attempt == 1:
            return 429, [("Retry-After", "1")], google_error(
                429, "RESOURCE_EXHAUSTED", "Quota exceeded for the device.", "QUOTA_EXCEEDED")
        if token.startswith("internal") and attempt == 1:
            return 500, [], google_error(500, "INTERNAL", "Internal error encountered.", "INTERNAL")
        if token.startswith("down"):
            return 503, [("Retry-After", "2")], google_error(503, "UNAVAILABLE", "The service is unavailable.",
                                                             "UNAVAILABLE")
        if token.startswith("mismatch"):
            return 403, [], google_error(403, "PERMISSION_DENIED", "SenderId mismatch", "SENDER_ID_MISMATCH")
        if token.startswith("thirdparty"):
            return 401, [], google_error(401, "UNAUTHENTICATED", "Auth error from APNS or Web Push Service",
                                         "THIRD_PARTY_AUTH_ERROR")
        if token.startswith("revoke") and attempt == 1:
            with self.lock:
                self.revoked.add(bearer)
            return 401, [], google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        return 200, [], name


def handler_for(fake):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            match = re.fullmatch(r"/v1/projects/([^/]+)/messages:send", self.path)
            if self.path == "/token":
                status, headers, answer = fake.token(self.headers, body)
            elif match:
                status, headers, answer = fake.send(urllib.parse.unquote(match.group(1)), self.headers, body)
            else:
                status, headers, answer = 404, [], google_error(404, "NOT_FOUND", "no such path")
            payload = json.dumps(answer).encode()
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json; charset=UTF-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def watch_parent(parent):
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cert", required=True, help="TLS certificate (PEM)")
    parser.add_argument("--key", required=True, help="TLS private key (PEM)")
    parser.add_argument("--public-key", required=True, help="the service account key's public half (PEM)")
    parser.add_argument("--client-email", required=True)
    parser.add_argument("--key-id", help="the service account's private_key_id (the assertion's kid)")
    parser.add_argument("--project-id", required=True)
    parser.add_argument("--audience", help="the assertion's expected aud (default https://127.0.0.1:<port>/token)")
    parser.add_argument("--expires-in", type=int, default=3600)
    parser.add_argument("--log", help="append one JSON line per request to this file")
    parser.add_argument("--allow-bare-data", action="store_true",
                        help="accept data messages without notification whose data lacks messageId/updateId")
    args = parser.parse_args()
    try:
        with open(args.public_key, "rb") as source:
            fake = FakeFCM(args, serialization.load_pem_public_key(source.read()))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler_for(fake))
        server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["http/1.1"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        port = server.server_address[1]
        fake.audience = args.audience or f"https://127.0.0.1:{port}/token"
    except Exception as error:  # reported to the launcher on the one stdout line
        print(f"ERROR {error}", flush=True)
        return 1
    print(f"PORT {port}", flush=True)
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
