"""Helpers for the device (app) REST API's black-box tests: apps with their secrets, an independent
implementation of the request signature (spec "Hybrid Messaging API", Authentication), a raw HTTP client
that sends exactly the request-target and headers it is given, and the simulated PINs from the server log."""
import base64
import hashlib
import hmac
import http.client
import json
import time

from conftest import run_tandem, wait_for

ANDROID_UA = "MyApp/1.0 (Android 6.0.1; LGE; Nexus 5X; en_US)"
IOS_UA = "MyApp/2.3 (iOS 17.1; Apple; iPhone15,2; nl_NL)"


def create_app_with_secret(server, token, name="App", message_type="Default"):
    """`tandem app create`: (app key, app secret) from its `app key:` and `app secret:` lines."""
    out = run_tandem("app", "create", name, "--account", token, "--type", message_type, "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr
    fields = dict(line.split(":", 1) for line in out.stdout.splitlines() if ":" in line)
    return fields["app key"].strip(), fields["app secret"].strip()


def mac(secret, method, target, host, ts):
    """base64(HMAC-SHA1(secret, "<METHOD> <target> HTTP/1.1\\n<host>\\n<ts>\\n"))."""
    signed = f"{method} {target} HTTP/1.1\n{host}\n{ts}\n"
    return base64.b64encode(hmac.new(secret.encode(), signed.encode(), hashlib.sha1).digest()).decode()


def authorization(kid, secret, method, target, host, ts):
    return f'MAC kid="{kid}" ts="{ts}" mac="{mac(secret, method, target, host, ts)}"'


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)

    def header(self, name):
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def __repr__(self):
        return f"Reply({self.status}, {self.body[:300]!r})"


def send(server, method, target, body=None, headers=None, source=None):
    """One request on a fresh connection, the request-target sent byte for byte as given; no headers but
    `headers` (plus the `Host` http.client adds when `headers` has none, and Content-Length). `source`: the
    client's own loopback address (any of 127.0.0.0/8), for tests of limits per client address."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10,
                                            source_address=None if source is None else (source, 0))
    try:
        headers = dict(headers or {})
        skip_host = any(name.lower() == "host" for name in headers)
        connection.putrequest(method, target, skip_host=skip_host, skip_accept_encoding=True)
        data = body.encode() if isinstance(body, str) else body
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
            headers["Content-Length"] = str(len(data))
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(data)
        response = connection.getresponse()
        return Reply(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


class Device:
    """One app install: signs every request with its app's key and secret, sends its User-Agent and, once
    registered, its DeviceID."""

    def __init__(self, server, app_key, secret, user_agent=ANDROID_UA, source=None):
        self.server = server
        self.app_key = app_key
        self.secret = secret
        self.user_agent = user_agent
        self.source = source
        self.device_id = None
        self.last_ts = None

    @property
    def host_header(self):
        return f"{self.server.host}:{self.server.port}"

    def next_ts(self):
        """A timestamp not used by this device before, near now: one second on from the previous when they
        would collide, so that two identical requests are distinct signatures."""
        ts = int(time.time())
        if self.last_ts is not None and ts <= self.last_ts:
            ts = self.last_ts + 1
        self.last_ts = ts
        return ts

    def headers(self, method, target, *, ts=None, sign_target=None, sign_host=None, secret=None, kid=None,
                device_id=..., user_agent=...):
        """The headers of a signed request (pass a keyword to change one thing about it)."""
        ts = self.next_ts() if ts is None else ts
        headers = {"Authorization": authorization(kid or self.app_key, secret or self.secret, method,
                                                  sign_target or target, sign_host or self.host_header, ts)}
        agent = self.user_agent if user_agent is ... else user_agent
        if agent is not None:
            headers["User-Agent"] = agent
        device = self.device_id if device_id is ... else device_id
        if device is not None:
            headers["DeviceID"] = device
        return headers

    def call(self, method, target, body=None, **signing):
        payload = None if body is None else (body if isinstance(body, (str, bytes)) else json.dumps(body))
        return send(self.server, method, target, payload, self.headers(method, target, **signing), source=self.source)

    # The API's routes.

    def register(self, body=None, **signing):
        reply = self.call("POST", "/v1.0/deviceregistrations", {} if body is None else body, device_id=None, **signing)
        if reply.status == 200:
            self.device_id = reply.json()["DeviceID"]
        return reply

    def update(self, body, **signing):
        return self.call("PUT", "/v1.0/deviceregistrations", body, **signing)

    def show(self, **signing):
        return self.call("GET", "/v1.0/deviceregistrations", **signing)

    def reset(self, **signing):
        return self.call("DELETE", "/v1.0/deviceregistrations", **signing)

    def voice_call(self, body=None, **signing):
        return self.call("POST", "/v1.0/deviceregistrations/voicecall", body, **signing)

    def messages(self, query="", **signing):
        return self.call("GET", "/v1.0/messages" + query, **signing)

    def receipt(self, body, **signing):
        return self.call("PUT", "/v1.0/messages", body, **signing)


def pin_deliveries(server):
    """The server log's `simulated PIN delivered` lines, oldest first."""
    return [line for line in server.log_lines() if line.get("msg") == "simulated PIN delivered"]


def wait_for_pin(server, count, channel="sms"):
    """The `count`-th simulated PIN delivery (1-based) once it is logged; asserts its channel."""
    lines = wait_for(lambda: (lambda found: found if len(found) >= count else None)(pin_deliveries(server)),
                     timeout=5, what=f"PIN delivery #{count} in the server log")
    line = lines[count - 1]
    assert line["channel"] == channel, line
    return line


def verify(device, msisdn, server):
    """Registers (if needed) and verifies `device` for `msisdn` ("0031…") with the PIN from the log."""
    if device.device_id is None:
        assert device.register({"PushToken": f"token-{time.monotonic_ns()}"}).status == 200
    before = len(pin_deliveries(server))
    reply = device.update({"Msisdn": msisdn})
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "WaitingForPin", reply
    pin = wait_for_pin(server, before + 1)["pin"]
    reply = device.update({"VerificationCode": pin})
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "PinVerified", reply
    return pin


def error_lines(server):
    return [line for line in server.log_lines() if line.get("level") == "error"]
