"""docs/openapi.json against the real server: the document is a valid OpenAPI 3.1 document (PyPI
openapi-spec-validator), the server serves it byte for byte at /openapi.json, it names every route the sources
register, and PyPI schemathesis sends every operation requests generated from it — valid and invalid — with
credentials supplied (product token, admin and metrics bearer tokens, the Kannel DLR token, and the device API's
MAC signature computed per request from the prepared request, as an SDK computes it): no answer may be a 5xx,
and every answer must be documented (status code, content type, headers, body schema).

Generated ids rarely name anything real, so the answers a real account, app, install and message get are also
checked: each documented operation is called once with real ids and its answer validated against the document.

The server sends its SMS (PINs included) through a stand-in for Kannel's smsbox (an HTTP/1.1 server here that
accepts every sendsms and keeps the texts), so the Kannel DLR route exists and PINs can be read back."""
import http.server
import json
import os
import re
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate as validate_spec
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, response_headers_conformance,
                                               response_schema_conformance, status_code_conformance)

from conftest import REPO, Server
from device_support import ANDROID_UA, authorization

DOCUMENT = REPO / "docs" / "openapi.json"
ADMIN_TOKEN = "openapi-admin-token"
METRICS_TOKEN = "openapi-metrics-token"
DLR_TOKEN = "openapi-dlr-token"
VERIFIED_NUMBER = "0031612345678"
BWMI_TOKEN = "ok-openapi-bwmi-device"
BWMI_KEY = "openapi-bwmi-static-key"
MYMSP_USER = "openapi-dpn"
MYMSP_PASSWORD = "openapi-dpn-password"
MYMSP = "/external/notifications/"
FORM = "application/x-www-form-urlencoded"
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance]
# Examples per operation: ~60 operations, about a minute on two loaded cores (TANDEM_OPENAPI_EXAMPLES for a longer hunt).
EXAMPLES = int(os.environ.get("TANDEM_OPENAPI_EXAMPLES", "25"))
ROUTED_METHODS = {"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"}
# libmicrohttpd's memory per connection as TandemHTTP sets it: http.maxURLBytes + http.maxHeaderBytes + 8 KiB.
CONNECTION_MEMORY = 4096 + 8192 + 8192

schema = schemathesis.openapi.from_path(DOCUMENT)


class FakeSmsbox(http.server.ThreadingHTTPServer):
    """Kannel smsbox's sendsms as Tandem uses it: every submit is accepted (202 `0: Accepted for delivery`)."""
    daemon_threads = True

    def __init__(self):
        self.texts = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go in two writes: no 40 ms delayed-ACK stall per answer

            def do_GET(self):
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
                outer.texts.append((query.get("to", [""])[0], query.get("text", [""])[0]))
                body = b"0: Accepted for delivery"
                self.send_response(202)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def sendsms_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/cgi-bin/sendsms"

    def pin_for(self, number, before):
        """The digits of the first PIN text to `number` after the first `before` submits."""
        def found():
            for to, text in self.texts[before:]:
                if to.lstrip("+0") == number.lstrip("+0"):
                    match = re.search(r"\b(\d{4,10})\b", text)
                    if match:
                        return match.group(1)
            return None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            pin = found()
            if pin:
                return pin
            time.sleep(0.02)
        raise AssertionError(f"no PIN SMS to {number}: {self.texts[before:]}")


class MACAuth(requests.auth.AuthBase):
    """Signs a prepared request as the SDKs do: over its method, its request-target exactly as it will be sent
    (`path_url`), the Host and a timestamp. Each request gets a later second than the one before, so that two
    identical generated requests are not replays of each other (the server's window is widened to allow it)."""

    def __init__(self, app_key, secret, device_id):
        self.app_key = app_key
        self.secret = secret
        self.device_id = device_id
        self.last_ts = 0
        self.lock = threading.Lock()

    def next_ts(self):
        with self.lock:
            self.last_ts = max(int(time.time()), self.last_ts + 1)
            return self.last_ts

    def __call__(self, request):
        host = urllib.parse.urlsplit(request.url).netloc
        request.headers["Authorization"] = authorization(self.app_key, self.secret, request.method, request.path_url,
                                                         host, self.next_ts())
        request.headers["User-Agent"] = ANDROID_UA
        creates = request.method == "POST" and request.path_url.split("?")[0] == "/v1.0/deviceregistrations"
        if self.device_id is not None and not creates:
            # The install's, not a generated one: a random DeviceID only ever gets 400 (test_device_api covers it).
            request.headers["DeviceID"] = self.device_id
        return request


class API:
    """One server with an account, an app, a verified install and a message pushed to it."""

    def __init__(self, tmp_path):
        self.smsbox = FakeSmsbox()
        high = {"limit": 1_000_000, "window": "1h"}
        self.server = Server(tmp_path, config={
            "metrics": {"bearerToken": {"env": "OPENAPI_METRICS_TOKEN"}},
            "providers": {"sms": {"kannel": {"sendsmsURL": self.smsbox.sendsms_url, "username": "tandem",
                                             "password": {"env": "OPENAPI_KANNEL_PASSWORD"},
                                             "dlrURL": "http://127.0.0.1:9/kannel/dlr",
                                             "dlrToken": {"env": "OPENAPI_DLR_TOKEN"}}}},
            "deviceAPI": {"timestampWindow": "1h",
                          "limits": {name: high for name in ("pinPerMSISDN", "pinPerApp", "pinPerClientIP",
                                                             "verifyPerClientIP", "registrationsPerClientIP",
                                                             "registrationsPerApp")},
                          "protection": {"pinPerPrefix": high, "pinPerMSISDNDaily": high}},
            "mymsp": {name: high for name in ("subscribesPerClientIP", "subscribesPerUser", "getsPerClientIP", "getsPerUser")},
        }, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN, "OPENAPI_METRICS_TOKEN": METRICS_TOKEN,
                "OPENAPI_KANNEL_PASSWORD": "secret", "OPENAPI_DLR_TOKEN": DLR_TOKEN})
        self.url = self.server.url
        self.plain = requests.Session()
        self.keys = 0
        admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
        account = self.plain.post(f"{self.url}/admin/accounts", json={"name": "OpenAPI"}, headers=admin)
        assert account.status_code == 201, account.text
        self.token = account.json()["productToken"]
        app = self.plain.post(f"{self.url}/admin/apps", json={"name": "OpenAPI App", "account": self.token,
                                                               "defaultMessageType": "OTP"}, headers=admin)
        assert app.status_code == 201, app.text
        self.app_key, secret = app.json()["appKey"], app.json()["appSecret"]
        scg = self.plain.post(f"{self.url}/admin/accounts/{self.token}/scg-tokens", json={"label": "openapi"}, headers=admin)
        assert scg.status_code == 201, scg.text
        self.scg_token = scg.json()["token"]
        # The install: registered and verified with the PIN the stand-in smsbox received.
        self.device = requests.Session()
        self.device.auth = MACAuth(self.app_key, secret, None)
        registered = self.device.post(f"{self.url}/v1.0/deviceregistrations", json={"PushToken": "noread-openapi"})
        assert registered.status_code == 200, registered.text
        self.device_id = registered.json()["DeviceID"]
        self.device.auth.device_id = self.device_id
        self.verify()
        # A message pushed to it (acknowledged, never read: "noread"), so the inbox and the lookup have content.
        sent = self.plain.post(f"{self.url}/v1.0/message", headers={"X-CM-PRODUCTTOKEN": self.token}, json={
            "messages": {"msg": [{"from": "OpenAPI", "to": [{"number": VERIFIED_NUMBER}], "body": {"content": "Code 1234"},
                                  "appKey": self.app_key, "appMessageType": "OTP", "reference": "openapi-1"}]}})
        assert sent.status_code == 200 and sent.json()["errorCode"] == 0, sent.text
        self.message_id = sent.json()["messages"][0]["messageId"]
        self.update_id = str(self.lookup()["recipients"][0]["updateId"])
        # A TIBCO BWMI device of the app with one managed notification, so that its pending list and the
        # acknowledgement have a real nid.
        bwmi = f"{self.url}/bwmi/{self.app_key}"
        device = self.plain.put(f"{bwmi}/devices", json={"deviceId": BWMI_TOKEN, "type": "ANDROID",
                                                          "user": {"phone": "+31612345679", "email": "openapi@example.com"}})
        assert device.status_code == 201, device.text
        notified = self.plain.post(f"{bwmi}/notifications", headers={"X-CM-PRODUCTTOKEN": self.token},
                                   json={"to": [{"deviceId": BWMI_TOKEN}], "text": "Managed", "bid": "openapi-b1", "faf": False})
        assert notified.status_code == 201 and len(notified.json()["notifications"]) == 1, notified.text
        self.bwmi_nid = notified.json()["notifications"][0]["nid"]
        # A myMSP user bound to the app, with one recipient (an FCM key of the simulator), a notification sent to it
        # and a group, so that get, send, the poll and the group routes have real ids.
        bound = self.plain.put(f"{self.url}/admin/apps/{self.app_key}/mymsp", headers=admin,
                               json={"user": MYMSP_USER, "password": MYMSP_PASSWORD})
        assert bound.status_code == 200, bound.text
        subscribed = self.plain.post(f"{self.url}{MYMSP}subscribe",
                                     data={"user": MYMSP_USER, "spid": "fcm", "key": "ok-openapi-mymsp", "message": "hello"})
        assert subscribed.status_code == 200 and subscribed.text.startswith("A\n"), subscribed.text
        self.mymsp_recipient = subscribed.text.split("\n")[1]
        sent = self.plain.post(f"{self.url}{MYMSP}send", data={"user": MYMSP_USER, "pwd": MYMSP_PASSWORD,
                                                                "message": "New content", "recipients": self.mymsp_recipient})
        assert sent.status_code == 200 and sent.text.startswith("A\n"), sent.text

    def verify(self):
        """Verifies the install for VERIFIED_NUMBER (again: generated requests reset it and change its number)."""
        before = len(self.smsbox.texts)
        waiting = self.device.put(f"{self.url}/v1.0/deviceregistrations", json={"Msisdn": VERIFIED_NUMBER})
        if waiting.json()["RegistrationStatus"] == "PinVerified":
            return
        assert waiting.json()["RegistrationStatus"] == "WaitingForPin", waiting.text
        pin = self.smsbox.pin_for(VERIFIED_NUMBER, before)
        verified = self.device.put(f"{self.url}/v1.0/deviceregistrations", json={"VerificationCode": pin})
        assert verified.json()["RegistrationStatus"] == "PinVerified", verified.text

    def lookup(self):
        return self.plain.get(f"{self.url}/v1.0/message/{self.message_id}", headers={"X-CM-PRODUCTTOKEN": self.token}).json()

    def make_usable(self, case):
        """A product token generated into a body or query (it wins over the header) is replaced by the account's, so
        that generated messages get past authentication; tokens of another type are left to be refused."""
        body, query = case.body, case.query
        if isinstance(body, dict):
            envelope = body.get("messages")
            authentication = envelope.get("authentication") if isinstance(envelope, dict) else body.get("AUTHENTICATION")
            for key in ("producttoken", "PRODUCTTOKEN"):
                if isinstance(authentication, dict) and isinstance(authentication.get(key), str):
                    authentication[key] = self.token
        if isinstance(query, dict) and isinstance(query.get("producttoken"), str):
            query["producttoken"] = self.token
        # Hypothesis reuses a few keys across different requests, which makes most sends a 422; a valid key is made
        # unique (test_gateway covers the 422), an invalid one is left to be refused.
        # A myMSP user or password generated into a query or form is replaced by the real ones, so that generated
        # requests get past authentication (an empty one is left to be refused with 22 or 24).
        if case.operation.path.startswith(MYMSP):
            for fields in (query, body):
                if isinstance(fields, dict):
                    for name, real in (("user", MYMSP_USER), ("pwd", MYMSP_PASSWORD)):
                        if isinstance(fields.get(name), str) and fields[name]:
                            fields[name] = real
        key = (case.headers or {}).get("Idempotency-Key")
        if isinstance(key, str) and re.fullmatch(r"[ -~]{1,200}", key):
            self.keys += 1
            case.headers["Idempotency-Key"] = f"{key}-{self.keys}"

    def credentials(self, path):
        """(session, headers, query) that authenticate a request to `path`."""
        if path.startswith("/v1.0/deviceregistrations") or path.startswith("/v1.0/messages"):
            return self.device, {}, {}
        if path.startswith("/admin/"):
            return self.plain, {"Authorization": f"Bearer {ADMIN_TOKEN}"}, {}
        if path.startswith("/scg-external-api/"):
            return self.plain, {"Authorization": f"Bearer {self.scg_token}"}, {}
        if path == "/metrics":
            return self.plain, {"Authorization": f"Bearer {METRICS_TOKEN}"}, {}
        if path == "/kannel/dlr":
            return self.plain, {}, {"token": DLR_TOKEN}
        if path.startswith(MYMSP):
            return self.plain, {}, {}
        return self.plain, {"X-CM-PRODUCTTOKEN": self.token}, {}

    def call(self, case):
        session, headers, query = self.credentials(case.operation.path)
        self.make_usable(case)
        return case.call(base_url=self.url, session=session, headers=headers, params=query or None, timeout=30)


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    api = API(tmp_path_factory.mktemp("openapi"))
    yield api
    api.server.stop()
    api.smsbox.shutdown()


def routes_in_sources():
    """(METHOD, path) of every `router.add(.METHOD, "path", …)` in Sources/."""
    found = set()
    for source in (REPO / "Sources").rglob("*.swift"):
        for method, path in re.findall(r'router\.add\(\.(\w+), "([^"]+)"', source.read_text()):
            found.add((method.upper(), path))
    return found


def test_the_document_is_valid_openapi_3_1():
    document = json.loads(DOCUMENT.read_text())
    validate_spec(document)
    assert document["openapi"] == "3.1.0"


def test_the_document_names_every_route_the_server_registers():
    document = json.loads(DOCUMENT.read_text())
    documented = {(method.upper(), path) for path, item in document["paths"].items() for method in item
                  if method in ("get", "put", "post", "delete", "patch")}
    registered = routes_in_sources() | {("GET", "/kannel/dlr")}   # KannelDLREndpoint: the configured dlrURL's path
    assert registered - documented == set(), "routes missing from docs/openapi.json"
    assert documented - registered == set(), "documented routes the server does not register"


def test_the_server_serves_the_document_byte_for_byte(api):
    reply = requests.get(f"{api.url}/openapi.json", timeout=10)
    assert reply.status_code == 200
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.content == DOCUMENT.read_bytes()


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.data_too_large])
def test_generated_requests_get_documented_answers_and_no_5xx(case, api):
    response = api.call(case)
    target = len(response.request.path_url.encode())
    if target > CONNECTION_MEMORY - 4096:
        # A request line that with its headers passes a connection's memory never reaches Tandem: libmicrohttpd refuses it itself with 414
        # and an HTML page of its own (no Content-Type), whatever the route. Long myMSP queries (a 4,000-byte
        # message, percent-encoded) get there; Tandem's own 414 below that limit is checked as documented.
        assert response.status_code == 414, f"{case.method} {case.operation.path}: {response.status_code}"
        return
    if case.method.upper() != case.operation.method.upper():
        # Schemathesis also tries methods the document does not list for the path. Methods Tandem routes on are 405
        # with `Allow`; others (TRACE, CONNECT, …) are 501 on every path, as RFC 9110 §9.1 prescribes for methods the
        # server does not implement (TandemHTTP's HTTPMethod): the one 5xx that is the correct answer.
        if response.status_code == 414 and target > 4096:
            # The request-target is over http.maxURLBytes (4 KiB): refused before any route is looked up.
            assert response.json() == {"error": "uri too long"}
        elif case.method.upper() in ROUTED_METHODS:
            assert response.status_code == 405, f"{case.method} {case.formatted_path}: {response.status_code}"
            allow = {name.lower(): value for name, value in response.headers.items()}["allow"]
            assert case.operation.method.upper() in (allow[0] if isinstance(allow, list) else allow).split(", ")
        else:
            assert (response.status_code, response.json()) == (501, {"error": "method not implemented"})
        return
    case.validate_response(response, checks=CHECKS)


def real_cases(api):
    """One request per operation with real ids, and the status code each must get."""
    op = lambda path, method: schema[path][method]  # noqa: E731
    cm = {"X-CM-PRODUCTTOKEN": api.token}
    return [
        (op("/v1.0/message", "POST").Case(headers=cm, body={"messages": {"msg": [
            {"from": "OpenAPI", "to": [{"number": VERIFIED_NUMBER}, {"number": "12"}], "body": {"content": "Code 5678"},
             "appKey": api.app_key, "appMessageType": "OTP", "reference": "openapi-2"}]}}), 200),
        (op("/v1.0/message/{id}", "GET").Case(path_parameters={"id": api.message_id}, headers=cm), 200),
        (op("/v1.0/message/{id}", "GET").Case(path_parameters={"id": "openapi-1"}, headers=cm), 200),
        (op("/v1.0/message", "GET").Case(query={"reference": "openapi-1"}, headers=cm), 200),
        (op("/v1.0/messages", "GET").Case(headers={"DeviceID": api.device_id},
                                          query={"$filter": "Status ne 'Failed'", "$orderby": "DateTime desc"}), 200),
        (op("/v1.0/messages", "PUT").Case(headers={"DeviceID": api.device_id},
                                          body={"UpdateID": api.update_id, "Status": "Delivered"}), 204),
        (op("/v1.0/message/{id}/fallback", "POST").Case(path_parameters={"id": api.message_id}, headers=cm), 200),
        (op("/v1.0/deviceregistrations", "GET").Case(headers={"DeviceID": api.device_id}), 200),
        (op("/v1.0/deviceregistrations", "PUT").Case(headers={"DeviceID": api.device_id},
                                                     body={"NotificationsEnabled": True, "PushToken": "noread-openapi"}), 200),
        (op("/v1.0/deviceregistrations", "POST").Case(body={"PushToken": "noread-openapi-2"}), 200),
        (op("/v1.0/deviceregistrations/voicecall", "POST").Case(headers={"DeviceID": api.device_id}, body={}), 400),
        (op("/gateway.ashx", "GET").Case(query={"producttoken": api.token, "from": "OpenAPI", "to": "0031612345670",
                                                "body": "GET form"}), 200),
        (op("/gateway.ashx", "POST").Case(media_type="application/xml", body={
            "AUTHENTICATION": {"PRODUCTTOKEN": api.token},
            "MSG": [{"FROM": "OpenAPI", "TO": ["0031612345671", "0031612345672"], "BODY": "XML form"}]}), 200),
        (op("/gateway.ashx", "POST").Case(media_type="application/xml", body={
            "AUTHENTICATION": {"PRODUCTTOKEN": api.token}, "MSG": [{"FROM": "OpenAPI", "TO": ["12"], "BODY": "x"}]}), 400),
        (op("/bwmi/{appKey}/devices/{deviceToken}/notifications", "GET").Case(
            path_parameters={"appKey": api.app_key, "deviceToken": BWMI_TOKEN}), 200),
        (op("/bwmi/{appKey}/acks", "PUT").Case(path_parameters={"appKey": api.app_key},
                                               body={"nid": api.bwmi_nid, "did": BWMI_TOKEN, "bid": "openapi-b1"}), 201),
        (op("/bwmi/{appKey}/acks", "PUT").Case(path_parameters={"appKey": api.app_key},
                                               body={"nid": "1", "did": "ok-openapi-unknown"}), 404),
        (op("/bwmi/{appKey}/notifications", "POST").Case(path_parameters={"appKey": api.app_key}, body={
            "to": [{"phone": "+31612345679"}, {"email": "nobody@example.com"}], "text": "Fire and forget",
            "faf": True, "badge": 3, "sound": "default", "options": {"messageType": "Default"}}), 201),
        (op("/bwmi/{appKey}/notifications", "POST").Case(path_parameters={"appKey": api.app_key},
                                                         body={"to": [], "text": "x", "faf": False}), 400),
        (op("/admin/apps/{appKey}/bwmi", "PUT").Case(path_parameters={"appKey": api.app_key},
                                                     body={"trustPhones": True, "staticKey": BWMI_KEY}), 200),
        (op("/admin/apps/{appKey}/bwmi", "GET").Case(path_parameters={"appKey": api.app_key}), 200),
        (op("/bwmi/{appKey}/devices", "PUT").Case(path_parameters={"appKey": api.app_key},
                                                  body={"deviceId": BWMI_TOKEN, "type": "ANDROID"}), 401),
        (op("/bwmi/{appKey}/devices", "PUT").Case(path_parameters={"appKey": api.app_key}, headers={"X-BWMI-Key": BWMI_KEY},
                                                  body={"deviceId": BWMI_TOKEN, "type": "ios"}), 201),
        (op("/bwmi/{appKey}/devices", "DELETE").Case(path_parameters={"appKey": api.app_key}, headers={"X-BWMI-Key": BWMI_KEY},
                                                     body={"deviceId": BWMI_TOKEN, "type": "IOS"}), 200),
        (op("/admin/apps/{appKey}/bwmi", "PUT").Case(path_parameters={"appKey": api.app_key}, body={}), 200),
        (op("/kannel/dlr", "GET").Case(query={"ref": "unknown-ref", "type": 1, "reply": "id:1 stat:DELIVRD"}), 200),
        (op("/admin/apps/{appKey}", "GET").Case(path_parameters={"appKey": api.app_key}), 200),
        (op("/admin/apps/{appKey}/sms-protection", "PUT").Case(path_parameters={"appKey": api.app_key},
                                                               body={"mode": "monitor", "deny": ["CU"], "pinLength": 6}), 200),
        (op("/admin/apps/{appKey}/sms-blocks", "GET").Case(path_parameters={"appKey": api.app_key}), 200),
        (op("/admin/apps/{appKey}/sms-blocks/{prefix}", "DELETE").Case(
            path_parameters={"appKey": api.app_key, "prefix": "+3161234"}), 404),
        (op("/admin/apps/{appKey}/type", "PUT").Case(path_parameters={"appKey": api.app_key},
                                                     body={"defaultMessageType": "Critical"}), 200),
        (op("/admin/apps/{appKey}/apns", "PUT").Case(path_parameters={"appKey": api.app_key},
                                                     body={"keyEnv": "OPENAPI_APNS_KEY", "keyId": "ABC123DEFG",
                                                           "teamId": "DEF123GHIJ", "topic": "com.example.openapi"}), 200),
        (op("/admin/apps/{appKey}/fcm", "PUT").Case(path_parameters={"appKey": api.app_key},
                                                    body={"serviceAccountFile": str(DOCUMENT)}), 200),
        (op("/admin/accounts", "POST").Case(body={"name": "OpenAPI 2"}), 201),
        (op("/admin/apps", "POST").Case(body={"name": "OpenAPI App 2", "account": api.token}), 201),
        (op("/admin/apps", "GET").Case(), 200),
        (op("/admin/accounts", "GET").Case(), 200),
        (op("/admin/accounts/{productToken}/sms-countries", "PUT").Case(path_parameters={"productToken": api.token},
                                                                       body={"allow": ["NL", "BE"]}), 200),
        (op("/admin/messages", "GET").Case(query={"id": api.message_id}), 200),
        (op("/admin/messages", "GET").Case(query={"msisdn": VERIFIED_NUMBER}), 200),
        (op("/admin/messages", "GET").Case(query={"reference": "openapi-1"}), 200),
        (op("/healthz", "GET").Case(), 200),
        (op("/metrics", "GET").Case(), 200),
        (op("/openapi.json", "GET").Case(), 200),
        (op("/v1.0/deviceregistrations", "DELETE").Case(headers={"DeviceID": api.device_id}), 200),
        (op("/admin/apps/{appKey}/rotate-secret", "POST").Case(path_parameters={"appKey": api.app_key}), 200),
    ]


def mymsp_cases(api):
    """(case, status, first line of a myMSP answer): each myMSP method by GET and by form POST with the real user and
    recipient, and the admin myMSP routes (first line None)."""
    op = lambda path, method: schema[path][method]  # noqa: E731
    user, pwd, recipient = {"user": MYMSP_USER}, {"user": MYMSP_USER, "pwd": MYMSP_PASSWORD}, api.mymsp_recipient
    calls = [
        ("subscribe", dict(user, recipientid=recipient, spid="fcm", key="ok-openapi-mymsp", message="again"), "A"),
        ("updatekey", dict(user, recipientid=recipient, spid="fcm", key="ok-openapi-mymsp"), "A"),
        ("get", dict(user, recipientid=recipient, lastmsgno="0"), "A"),
        ("get", dict(user, recipientid=recipient, lastmsgno="0", sentafter="20200101000000000"), "A"),
        ("send", dict(pwd, message="More content", recipients=f"{recipient}, openapi-group", collapsekey="news",
                      timetolive=3600, delaywhileidle="true", restrictedpackagename="com.example.openapi"), "A"),
        ("send", dict(pwd, message="x", recipients="1"), "N"),
        ("received", dict(pwd, lastMsgId="0", clean="true"), "A"),
        ("received", dict(pwd, lastMsgId="0"), "A"),
        ("unsubscribe", dict(user, recipientid=recipient, spid="fcm", message="less"), "A"),
        ("get", dict(user, recipientid="99999999", lastmsgno="0"), "N"),
        ("unsubscribeall", dict(user, recipientid=recipient, spid="fcm"), "A"),
    ]
    cases = []
    for method, parameters, first in calls:
        cases.append((op(MYMSP + method, "GET").Case(query=parameters), 200, first))
        cases.append((op(MYMSP + method, "POST").Case(media_type=FORM, body=parameters), 200, first))
    app, group = {"appKey": api.app_key}, {"appKey": api.app_key, "name": "openapi-group"}
    return [
        (op("/admin/apps/{appKey}/mymsp", "GET").Case(path_parameters=app), 200, None),
        (op("/admin/apps/{appKey}/mymsp", "PUT").Case(path_parameters=app, body={
            "user": MYMSP_USER, "password": MYMSP_PASSWORD, "eventUrl": None}), 200, None),
        (op("/admin/apps/{appKey}/mymsp/groups/{name}", "PUT").Case(path_parameters=group, body={
            "shortName": "og", "recipients": f"{api.mymsp_recipient}, 1"}), 200, None),
        (op("/admin/apps/{appKey}/mymsp/groups/{name}", "PUT").Case(
            path_parameters={"appKey": api.app_key, "name": "other"}, body={"shortName": "og", "recipients": ""}), 409, None),
        (op("/admin/apps/{appKey}/mymsp", "GET").Case(path_parameters=app), 200, None),
    ] + cases + [
        (op("/admin/apps/{appKey}/mymsp/groups/{name}", "DELETE").Case(path_parameters=group), 204, None),
        (op("/admin/apps/{appKey}/mymsp/groups/{name}", "DELETE").Case(path_parameters=group), 404, None),
    ]


def test_answers_about_real_accounts_apps_installs_and_messages_conform(api):
    """Runs after the generated requests (pytest keeps file order): it resets the install and rotates the secret."""
    api.verify()
    for case, status in real_cases(api):
        response = api.call(case)
        label = f"{case.operation.method.upper()} {case.operation.path}"
        assert response.status_code == status, f"{label}: {response.status_code} {response.text[:300]}"
        case.validate_response(response, checks=CHECKS)


def test_mymsp_answers_with_a_real_user_conform(api):
    """After the generated requests, which may have deactivated the recipient: updatekey reactivates it first."""
    for case, status, first in mymsp_cases(api):
        response = api.call(case)
        label = f"{case.operation.method.upper()} {case.operation.path}"
        assert response.status_code == status, f"{label}: {response.status_code} {response.text[:300]}"
        if first is not None:
            assert response.text.split("\n")[0] == first, f"{label}: {response.text[:300]}"
        case.validate_response(response, checks=CHECKS)
