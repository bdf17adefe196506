#!/usr/bin/env python3
"""A local APNs for Tandem's provider tests and `make bench`: HTTP/2 over TLS on `h2`, provider tokens
checked with PyJWT.

Every request is checked the way Apple documents it: the ES256 provider token (signature with the .p8's
public key, `kid`, `iss`, `iat` no older than an hour), `apns-topic`, `apns-push-type`, `apns-priority`,
`apns-expiration`, `apns-collapse-id` (<= 64 bytes), `apns-id` (a UUID) and the payload (<= 4096 bytes,
a JSON object with `aps.alert` and Tandem's `messageId`/`updateId`, or a TIBCO BWMI payload: `aps.alert`
a string with `faf`, or `aps.badge` alone). A `background` push (accepted beside
--push-type) must have priority 5 and `aps` exactly `{"content-available": 1}` (no alert, sound or badge;
its other members are the app's data). A failed check is answered with Apple's status and reason and
logged as a `violation` (the sender did something wrong).

The path may start with one extra segment (`/sandbox/3/device/<token>`): a base URL with a path, so that
one fake serves as both APNs environments and the log tells them apart (`prefix`, "" without one).

A request that passes is answered by the device token's prefix:
  ok…       200                                 bad…     400 BadDeviceToken
  gone…     410 Unregistered (+ timestamp)      notopic… 400 DeviceTokenNotForTopic
  dead…     410 Unregistered too (a prefix that is hex, for 64-hex-digit tokens)
  busy…     429 TooManyRequests                 fail…    500 InternalServerError
  flaky…    503 ServiceUnavailable the first time for the token, then 200
  expired…  403 ExpiredProviderToken while the request carries the provider token that first reached
            this device token (a stale token), 200 with any other
  toomany…  429 TooManyProviderTokenUpdates     refuse…  403 Forbidden
  anything else: 200
Responses wait --delay-ms first, so concurrent streams overlap.

GET /stats answers {"requests","connections","max_concurrent_streams"} (the most push streams open at
once on one connection, as this server saw them) for `tandem bench apns`.

--log FILE appends one JSON object per request: conn, stream, concurrent (requests open on that
connection when this one ended, itself included), authority, prefix, token, jwt, iat, headers,
payload_size, payload, status, reason, violation.

Standalone (for `make bench`): --generate DIR writes DIR/cert.pem, DIR/key.pem and DIR/AuthKey.p8 (and
uses them) with the default key id, team id and topic.

Prints `PORT <n>` (or `ERROR <text>`) as its only stdout line; exits when its parent process dies.
"""
import argparse
import asyncio
import datetime
import ipaddress
import json
import os
import re
import signal
import ssl
import sys
import time
import urllib.parse
import uuid

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

UUID_PATTERN = re.compile(r"^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$")
PUSH_TYPES = {"alert", "background", "voip", "complication", "fileprovider", "mdm", "liveactivity",
              "location", "pushtotalk", "widgets", "controls"}
MAX_PAYLOAD = 4096


class Rejection(Exception):
    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class FakeAPNs:
    def __init__(self, args, public_key):
        self.args = args
        self.public_key = public_key
        self.verified = {}          # provider token -> (reason or None, claims)
        self.first_jwt = {}         # device token -> the provider token that first reached it
        self.attempts = {}          # device token -> requests so far
        self.connections = 0
        self.requests = 0
        self.most_in_flight = 0     # the most request streams open at once on one connection
        self.log = open(args.log, "a", buffering=1) if args.log else None

    def provider_token(self, token):
        """(reason, claims): reason is None for a valid, fresh token."""
        if token not in self.verified:
            self.verified[token] = self.verify(token)
        reason, claims = self.verified[token]
        if reason is None:
            now = time.time()
            if claims["iat"] < now - 3600:
                reason = "ExpiredProviderToken"
            elif claims["iat"] > now + 60:
                reason = "InvalidProviderToken"
        return reason, claims

    def verify(self, token):
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "ES256" or header.get("kid") != self.args.key_id:
                return "InvalidProviderToken", {}
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"],
                                options={"verify_iat": False, "verify_exp": False, "require": ["iss", "iat"]})
        except jwt.PyJWTError:
            return "InvalidProviderToken", {}
        if claims.get("iss") != self.args.team_id or type(claims.get("iat")) is not int:
            return "InvalidProviderToken", claims
        return None, claims

    def check(self, headers, body, record):
        """Raises Rejection for what Apple would refuse; returns the device token."""
        fields = {}
        for name, value in headers:
            if name in fields:
                raise Rejection(400, "DuplicateHeaders")
            fields[name] = value
        record["headers"] = {k: v for k, v in fields.items() if not k.startswith(":") and k != "authorization"}
        record["authority"] = fields.get(":authority")
        if fields.get(":method") != "POST":
            raise Rejection(405, "MethodNotAllowed")
        match = re.fullmatch(r"(/[A-Za-z0-9_-]+)?/3/device/([^/?#]+)", fields.get(":path", ""))
        if not match:
            raise Rejection(404, "BadPath")
        record["prefix"] = (match.group(1) or "")[1:]
        device = urllib.parse.unquote(match.group(2))
        record["token"] = device
        authorization = fields.get("authorization", "")
        if not authorization.startswith("bearer "):
            raise Rejection(403, "MissingProviderToken")
        token = authorization[len("bearer "):]
        record["jwt"] = token
        reason, claims = self.provider_token(token)
        record["iat"] = claims.get("iat")
        if reason:
            raise Rejection(403, reason)
        if "apns-topic" not in fields:
            raise Rejection(400, "MissingTopic")
        if fields["apns-topic"] != self.args.topic:
            raise Rejection(400, "TopicDisallowed")
        push_type = fields.get("apns-push-type")
        if push_type not in PUSH_TYPES or push_type not in (self.args.push_type, "background"):
            raise Rejection(400, "InvalidPushType")
        if push_type == "background" and fields.get("apns-priority") != "5":
            raise Rejection(400, "BadPriority")
        if fields.get("apns-priority") not in ("10", "5", "1"):
            raise Rejection(400, "BadPriority")
        if not re.fullmatch(r"[0-9]+", fields.get("apns-expiration", "")):
            raise Rejection(400, "BadExpirationDate")
        collapse = fields.get("apns-collapse-id")
        if collapse is None or not (0 < len(collapse.encode()) <= 64):
            raise Rejection(400, "BadCollapseId")
        if not UUID_PATTERN.match(fields.get("apns-id", "")):
            raise Rejection(400, "BadMessageId")
        record["payload_size"] = len(body)
        if not body:
            raise Rejection(400, "PayloadEmpty")
        if len(body) > MAX_PAYLOAD:
            raise Rejection(413, "PayloadTooLarge")
        try:
            payload = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise Rejection(400, "BadPayload")
        record["payload"] = payload
        aps = payload.get("aps") if isinstance(payload, dict) else None
        if push_type == "background":
            if aps != {"content-available": 1}:
                raise Rejection(400, "BadPayload")
            return device, token
        alert = aps.get("alert") if isinstance(aps, dict) else None
        # TIBCO BWMI's payloads (Tandem's /bwmi API): `aps.alert` a string with `faf`, or a badge update alone.
        bwmi = ((isinstance(alert, str) and payload.get("faf") in ("true", "false"))
                or (isinstance(aps, dict) and set(aps) == {"badge"} and set(payload) == {"aps"}
                    and isinstance(aps["badge"], int)))
        if not bwmi and (not isinstance(alert, dict) or not isinstance(alert.get("title"), str)
                or not isinstance(alert.get("body"), str) or aps.get("mutable-content") != 1
                or not isinstance(payload.get("messageId"), str) or not isinstance(payload.get("updateId"), str)):
            raise Rejection(400, "BadPayload")
        return device, token

    def answer(self, device, token):
        attempt = self.attempts.get(device, 0) + 1
        self.attempts[device] = attempt
        if device.startswith("bad"):
            return 400, "BadDeviceToken"
        if device.startswith("gone") or device.startswith("dead"):
            return 410, "Unregistered"
        if device.startswith("notopic"):
            return 400, "DeviceTokenNotForTopic"
        if device.startswith("busy"):
            return 429, "TooManyRequests"
        if device.startswith("fail"):
            return 500, "InternalServerError"
        if device.startswith("flaky"):
            return (503, "ServiceUnavailable") if attempt == 1 else (200, None)
        if device.startswith("expired"):
            stale = self.first_jwt.setdefault(device, token)
            return (403, "ExpiredProviderToken") if token == stale else (200, None)
        if device.startswith("toomany"):
            return 429, "TooManyProviderTokenUpdates"
        if device.startswith("refuse"):
            return 403, "Forbidden"
        return 200, None

    def stats(self):
        body = json.dumps({"requests": self.requests, "connections": self.connections,
                           "max_concurrent_streams": self.most_in_flight}).encode()
        return 200, [("content-type", "application/json")], body

    def handle(self, headers, body):
        self.requests += 1
        record = {"time": time.time(), "violation": None}
        try:
            device, token = self.check(headers, body, record)
            status, reason = self.answer(device, token)
        except Rejection as rejection:
            status, reason = rejection.status, rejection.reason
            if reason != "ExpiredProviderToken":
                record["violation"] = reason
        record["status"] = status
        record["reason"] = reason
        apns_id = dict(headers).get("apns-id") or str(uuid.uuid4()).upper()
        response_headers = [("apns-id", apns_id)]
        body = b""
        if reason:
            error = {"reason": reason}
            if status == 410:
                error["timestamp"] = int(time.time() * 1000)
            body = json.dumps(error).encode()
            response_headers.append(("content-type", "application/json"))
        return status, response_headers, body, record

    def write(self, record):
        if self.log:
            self.log.write(json.dumps(record) + "\n")


class H2Protocol(asyncio.Protocol):
    def __init__(self, fake):
        self.fake = fake
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.local_settings = h2.settings.Settings(
            client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: fake.args.max_streams})
        self.streams = {}
        self.in_flight = 0
        self.transport = None
        self.id = 0

    def connection_made(self, transport):
        self.transport = transport
        self.fake.connections += 1
        self.id = self.fake.connections
        self.conn.initiate_connection()
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(data)

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = (event.headers, bytearray())
                self.in_flight += 1
                self.fake.most_in_flight = max(self.fake.most_in_flight, self.in_flight)
            elif isinstance(event, h2.events.DataReceived):
                entry = self.streams.get(event.stream_id)
                if entry is not None:
                    entry[1].extend(event.data)
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                asyncio.get_running_loop().create_task(self.respond(event.stream_id, self.in_flight))
            elif isinstance(event, h2.events.StreamReset):
                if self.streams.pop(event.stream_id, None) is not None:
                    self.in_flight -= 1
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.transport.close()
        self.flush()

    async def respond(self, stream_id, concurrent):
        if self.fake.args.delay_ms > 0:
            await asyncio.sleep(self.fake.args.delay_ms / 1000)
        entry = self.streams.pop(stream_id, None)
        if entry is None:
            return
        self.in_flight -= 1
        if (":method", "GET") in entry[0] and (":path", "/stats") in entry[0]:
            status, headers, body = self.fake.stats()
        else:
            status, headers, body, record = self.fake.handle(entry[0], bytes(entry[1]))
            record.update(conn=self.id, stream=stream_id, concurrent=concurrent)
            self.fake.write(record)
        try:
            self.conn.send_headers(stream_id, [(":status", str(status))] + headers
                                   + [("content-length", str(len(body)))], end_stream=not body)
            if body:
                self.conn.send_data(stream_id, body, end_stream=True)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass
        self.flush()


def generate(directory):
    """A self-signed certificate for 127.0.0.1/localhost and an APNs-style .p8 key, in `directory`."""
    os.makedirs(directory, exist_ok=True)
    tls_key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
                   .public_key(tls_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                               x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(tls_key, hashes.SHA256()))
    pkcs8 = serialization.PrivateFormat.PKCS8
    paths = {"cert": os.path.join(directory, "cert.pem"), "key": os.path.join(directory, "key.pem"),
             "auth_key": os.path.join(directory, "AuthKey.p8")}
    with open(paths["cert"], "wb") as out:
        out.write(certificate.public_bytes(serialization.Encoding.PEM))
    with open(paths["key"], "wb") as out:
        out.write(tls_key.private_bytes(serialization.Encoding.PEM, pkcs8, serialization.NoEncryption()))
    with open(paths["auth_key"], "wb") as out:
        out.write(ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, pkcs8, serialization.NoEncryption()))
    return paths


def load_public_key(path):
    data = open(path, "rb").read()
    try:
        return serialization.load_pem_public_key(data)
    except ValueError:
        return serialization.load_pem_private_key(data, password=None).public_key()


async def watch_parent(parent):
    while os.getppid() == parent:
        await asyncio.sleep(0.5)
    os._exit(0)


def main():
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cert", help="TLS certificate (PEM)")
    parser.add_argument("--key", help="TLS private key (PEM)")
    parser.add_argument("--auth-key", help="the .p8 key (private) or its public key, PEM")
    parser.add_argument("--generate", metavar="DIR", help="write cert.pem, key.pem, AuthKey.p8 to DIR and use them")
    parser.add_argument("--key-id", default="BENCHKEY01")
    parser.add_argument("--team-id", default="BENCHTEAM1")
    parser.add_argument("--topic", default="com.example.tandem.bench")
    parser.add_argument("--push-type", default="alert")
    parser.add_argument("--log", help="append one JSON line per request to this file")
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--max-streams", type=int, default=1000)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    try:
        if args.generate:
            paths = generate(args.generate)
            args.cert, args.key, args.auth_key = paths["cert"], paths["key"], paths["auth_key"]
        if not (args.cert and args.key and args.auth_key):
            raise ValueError("give --cert, --key and --auth-key, or --generate DIR")
        fake = FakeAPNs(args, load_public_key(args.auth_key))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols(["h2"])
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        server = loop.run_until_complete(
            loop.create_server(lambda: H2Protocol(fake), "127.0.0.1", args.port, ssl=context))
    except Exception as error:  # reported to the launcher on the one stdout line
        print(f"ERROR {error}", flush=True)
        return 1
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    loop.create_task(watch_parent(os.getppid()))
    loop.run_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
