"""cospace's push API against one real `tandem serve` whose push providers are the APNs fake (HTTP/2, TLS, ES256;
its production URL the fake's root, its sandbox URL the same fake under `/sandbox`, so each request shows which
environment it went to) and the FCM fake (OAuth2 + HTTP v1): app users and their bearer tokens (`tandem app
user`), `GET`/`POST /api/push`, the seed's five push events through `POST /v1.0/push-events`, dead tokens, the
CM SDKs' `Development` flag and `tandem app show`. One server for the module; each test uses its own users."""
import json
import re
import uuid
from pathlib import Path

import pytest

from conftest import Server, run_tandem, wait_for
from device_support import IOS_UA, Device, create_app_with_secret, verify
from fcm_support import FCM
from gateway_support import create_account, http, message_view, query, send_message
from provider_support import APNS_TEAM_ID, APNS_TOPIC, APNs, set_apns

SEED = json.loads((Path(__file__).parent / "cospace_seed_events.json").read_text())
APPLICATION_ID = f"{APNS_TEAM_ID}.{APNS_TOPIC}"
ADMIN_TOKEN = "cospace-admin-" + uuid.uuid4().hex


class Cospace:
    def __init__(self, tmp):
        self.apns = APNs(tmp, delay_ms=1)
        self.fcm = FCM(tmp)
        config = {"providers": {"push": {
            "apns": {"productionURL": self.apns.url, "sandboxURL": self.apns.url + "/sandbox",
                     "http": {"caFile": str(self.apns.cert), "timeout": "5s", "maxAttempts": 2}},
            "fcm": self.fcm.config()}}}
        (tmp / "server").mkdir()
        self.server = Server(tmp / "server", config=config, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
        self.product_token = create_account(self.server, "Cospace")
        self.app_key, self.secret = create_app_with_secret(self.server, self.product_token, "Cospace App")
        set_apns(self.server, self.app_key, self.apns, sandbox=False)
        out = run_tandem("app", "set-fcm", self.app_key, "--service-account", str(self.fcm.service_account),
                         "--config", str(self.server.config_path))
        assert out.returncode == 0, out.stderr
        out = run_tandem("app", "set-sender-id", self.app_key, "4815162342", "--config", str(self.server.config_path))
        assert out.returncode == 0, out.stderr

    def tandem(self, *args):
        return run_tandem(*args, "--config", str(self.server.config_path))

    def add_user(self, user_id=None):
        out = self.tandem("app", "user", "add", self.app_key, *([user_id] if user_id else []))
        assert out.returncode == 0, out.stderr
        fields = dict(re.findall(r"^(user id|bearer token):\s+(\S+)$", out.stdout, re.M))
        return fields["user id"], fields["bearer token"]

    def stop(self):
        self.server.stop()
        self.apns.stop()
        self.fcm.stop()


@pytest.fixture(scope="module")
def cospace(tmp_path_factory):
    setup = Cospace(tmp_path_factory.mktemp("cospace"))
    yield setup
    setup.stop()


def api(cospace, method, token, body=None):
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    status, reply, response_headers = http(cospace.server, method, "/api/push",
                                           None if body is None else json.dumps(body), headers)
    return status, json.loads(reply), response_headers


def hex_token(prefix=""):
    return (prefix + uuid.uuid4().hex + uuid.uuid4().hex)[:64]


def post_event(cospace, owner, message, data, token=None):
    status, reply, _ = http(cospace.server, "POST", "/v1.0/push-events",
                            json.dumps({"appKey": cospace.app_key, "owner": owner, "message": message, "data": data}),
                            {"X-CM-PRODUCTTOKEN": token or cospace.product_token, "Content-Type": "application/json"})
    return status, json.loads(reply)


def test_tokens_round_trip_per_user_and_isolation(cospace):
    _, alice = cospace.add_user()
    _, bob = cospace.add_user()
    empty = {"gcm": {"sender_id": "4815162342", "registration_ids": []}, "apns": {"device_tokens": {}}}
    assert api(cospace, "GET", alice)[:2] == (200, empty)

    gcm = "APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx" + uuid.uuid4().hex
    sandboxed, production = hex_token("a6"), hex_token("b7")
    for body in ({"system": "gcm", "action": "add", "registration_id": gcm},
                 {"system": "apns", "action": "add", "device_token": sandboxed, "sandbox": True, "application_id": APPLICATION_ID},
                 {"system": "apns", "action": "add", "device_token": production.upper(), "sandbox": False,
                  "application_id": APPLICATION_ID, "apns_topic": APNS_TOPIC + ".voip"}):
        assert api(cospace, "POST", alice, body)[:2] == (200, {}), body
    expected = {"gcm": {"sender_id": "4815162342", "registration_ids": [gcm]},
                "apns": {"device_tokens": {
                    sandboxed: {"application_id": APPLICATION_ID, "sandbox": True},
                    production: {"application_id": APPLICATION_ID, "sandbox": False, "apns_topic": APNS_TOPIC + ".voip"}}}}
    assert api(cospace, "GET", alice)[:2] == (200, expected)

    # Bob sees none of Alice's tokens, and deleting them as Bob changes nothing (200 {}, as for any absent one).
    assert api(cospace, "GET", bob)[:2] == (200, empty)
    assert api(cospace, "POST", bob, {"system": "gcm", "action": "delete", "registration_id": gcm})[:2] == (200, {})
    assert api(cospace, "POST", bob, {"system": "apns", "action": "delete", "device_token": sandboxed})[:2] == (200, {})
    assert api(cospace, "GET", alice)[:2] == (200, expected)

    # Adding again updates; deleting removes (an APNs delete needs the device token only).
    assert api(cospace, "POST", alice, {"system": "apns", "action": "add", "device_token": sandboxed,
                                         "application_id": APPLICATION_ID})[:2] == (200, {})
    expected["apns"]["device_tokens"][sandboxed] = {"application_id": APPLICATION_ID, "sandbox": False}  # the app's
    assert api(cospace, "GET", alice)[:2] == (200, expected)
    assert api(cospace, "POST", alice, {"system": "gcm", "action": "delete", "registration_id": gcm})[:2] == (200, {})
    assert api(cospace, "POST", alice, {"system": "apns", "action": "delete", "device_token": production})[:2] == (200, {})
    assert api(cospace, "POST", alice, {"system": "apns", "action": "delete", "device_token": production})[:2] == (200, {})
    assert api(cospace, "GET", alice)[1] == {"gcm": {"sender_id": "4815162342", "registration_ids": []},
                                              "apns": {"device_tokens": {sandboxed: {"application_id": APPLICATION_ID,
                                                                                     "sandbox": False}}}}


def test_bearer_tokens_missing_wrong_or_revoked_are_401(cospace):
    user, token = cospace.add_user()
    assert api(cospace, "GET", token)[0] == 200
    for presented in (None, "", "0" * 64, token[:-1]):
        status, reply, headers = api(cospace, "GET", presented)
        assert status == 401 and "error" in reply, (presented, reply)
        assert headers.get("WWW-Authenticate") == 'Bearer realm="cospace"'
    out = cospace.tandem("app", "user", "revoke", cospace.app_key, user)
    assert out.returncode == 0, out.stderr
    for method, body in (("GET", None), ("POST", {"system": "gcm", "action": "add", "registration_id": "x" * 20})):
        status, reply, _ = api(cospace, method, token, body)
        assert (status, reply) == (401, {"error": "the bearer token was revoked"})
    assert user in cospace.tandem("app", "user", "list", cospace.app_key).stdout


@pytest.mark.parametrize("body, expected", [
    ({"system": "gcm", "action": "add", "registration_id": "x" * 9}, {"field": "registration_id"}),
    ({"system": "gcm", "action": "add", "registration_id": "x" * 251}, {"field": "registration_id"}),
    ({"system": "apns", "action": "add", "device_token": "a" * 63, "application_id": APPLICATION_ID}, {"field": "device_token"}),
    ({"system": "apns", "action": "add", "device_token": "g" * 64, "application_id": APPLICATION_ID}, {"field": "device_token"}),
    ({"system": "apns", "action": "add", "device_token": "a" * 64, "application_id": "SHORT.com.x"}, {"status": "invalid-appid"}),
    ({"system": "apns", "action": "add", "device_token": "a" * 64, "application_id": APPLICATION_ID, "apns_topic": "a.b"},
     {"status": "invalid-apns-topic"}),
    ({"system": "apns", "action": "add", "device_token": "a" * 64, "application_id": "ABCDEFGHIJ.com.other.app"},
     {"status": "unknown-appid"}),
    ({"system": "apns", "action": "delete", "device_token": "a" * 64, "sandbox": True}, {"field": "sandbox"}),
    ({"system": "gcm", "action": "add"}, {"field": "registration_id"}),
    ({"system": "apns", "action": "add", "device_token": "a" * 64, "sandbox": "yes", "application_id": APPLICATION_ID},
     {"field": "sandbox"}),
    ({"system": "sms", "action": "add"}, {"field": "system"}),
])
def test_post_refusals_are_400(cospace, body, expected):
    _, token = cospace.add_user()
    status, reply, _ = api(cospace, "POST", token, body)
    assert status == 400, reply
    assert {key: reply[key] for key in expected} == expected, reply
    assert api(cospace, "GET", token)[1]["apns"]["device_tokens"] == {}


def test_the_seed_events_reach_apns_and_fcm_as_documented(cospace):
    owner = SEED["owner"]
    _, token = cospace.add_user(owner)
    gcm = "ok-cospace-" + uuid.uuid4().hex
    production, sandboxed = hex_token("0a"), hex_token("1b")
    for body in ({"system": "gcm", "action": "add", "registration_id": gcm},
                 {"system": "apns", "action": "add", "device_token": production, "application_id": APPLICATION_ID},
                 {"system": "apns", "action": "add", "device_token": sandboxed, "sandbox": True,
                  "application_id": APPLICATION_ID}):
        assert api(cospace, "POST", token, body)[:2] == (200, {})
    devices = {}
    for event in SEED["events"]:
        status, reply = post_event(cospace, owner, event["message"], event["data"])
        assert status == 200, reply
        assert [line["platform"] for line in reply["deliveries"]] == ["gcm", "apns", "apns"], reply
        assert all(re.fullmatch(r"[0-9]+", line["updateId"]) for line in reply["deliveries"]), reply
        view = message_view(cospace.server, cospace.product_token, reply["messageId"])
        assert sorted(str(r["updateId"]) for r in view["recipients"]) == sorted(l["updateId"] for l in reply["deliveries"])
        devices[event["message"]] = reply

    def at_fcm():
        found = [s for s in cospace.fcm.sends() if s.get("token") == gcm and s.get("status") == 200]
        return found if len(found) >= 5 else None

    def at_apns():
        found = [r for r in cospace.apns.requests() if r.get("token") in (production, sandboxed) and r.get("status") == 200]
        return found if len(found) >= 10 else None

    fcm_sends = wait_for(at_fcm, what="five FCM sends")
    apns_requests = wait_for(at_apns, what="ten APNs requests")
    for event in SEED["events"]:
        [send] = [s for s in fcm_sends if s["message"]["data"].get("message") == event["message"]]
        assert send["message"]["data"] == event["gcm"], send
        assert "notification" not in send["message"] and send["violation"] is None
        pushes = [r for r in apns_requests if r["payload"].get("message") == event["message"]]
        assert sorted((r["token"], r["prefix"]) for r in pushes) == sorted([(production, ""), (sandboxed, "sandbox")])
        for push in pushes:
            assert push["payload"] == event["apns"], push
            assert (push["headers"]["apns-push-type"], push["headers"]["apns-priority"], push["headers"]["apns-topic"],
                    push["violation"]) == ("background", "5", APNS_TOPIC, None), push


def test_push_event_refusals(cospace):
    owner, _ = cospace.add_user()
    assert post_event(cospace, owner, "fax_new", {}, token=str(uuid.uuid4()))[0] == 401
    assert post_event(cospace, str(uuid.uuid4()), "fax_new", {})[0] == 404
    status, reply = post_event(cospace, owner, "fax_new", {"aps": 1})
    assert (status, reply.get("field")) == (400, "data.aps")
    assert post_event(cospace, owner, "fax_new", {"fax": "x"}) == (200, {"messageId": None, "deliveries": []})


def test_dead_tokens_leave_the_registry(cospace):
    owner, token = cospace.add_user()
    dead_apns, dead_fcm, live = hex_token("dead"), "unreg-" + uuid.uuid4().hex, hex_token("cc")
    for body in ({"system": "gcm", "action": "add", "registration_id": dead_fcm},
                 {"system": "apns", "action": "add", "device_token": dead_apns, "application_id": APPLICATION_ID},
                 {"system": "apns", "action": "add", "device_token": live, "application_id": APPLICATION_ID}):
        assert api(cospace, "POST", token, body)[:2] == (200, {})
    status, reply = post_event(cospace, owner, "recording_new", {"recording": str(uuid.uuid4()), "phone": "+492215587412"})
    assert status == 200 and len(reply["deliveries"]) == 3, reply

    def pruned():
        tokens = api(cospace, "GET", token)[1]
        return tokens if tokens["gcm"]["registration_ids"] == [] and list(tokens["apns"]["device_tokens"]) == [live] else None

    wait_for(pruned, what="the APNs 410 and FCM UNREGISTERED tokens to leave GET /api/push")
    # One registry: the registrations themselves are Invalid, for every API.
    rows = query(cospace.server, "SELECT push_token, status FROM registrations WHERE push_token IN (?, ?, ?)",
                 (dead_apns, dead_fcm, live))
    assert sorted(rows) == sorted([(dead_apns, "Invalid"), (dead_fcm, "Invalid"), (live, "Unverified")])


def test_cm_install_in_development_mode_is_pushed_through_the_sandbox(cospace):
    device = Device(cospace.server, cospace.app_key, cospace.secret, IOS_UA)
    token = "ok-dev-" + uuid.uuid4().hex
    assert device.register({"PushToken": token}).status == 200
    reply = device.update({"Development": True})
    assert reply.status == 200 and reply.json()["Development"] is True, reply
    msisdn = "0031612340001"
    verify(device, msisdn, cospace.server)
    assert device.show().json()["Development"] is True
    send_message(cospace.server, cospace.product_token, [msisdn], "Hello, sandbox", appKey=cospace.app_key)
    [push] = wait_for(lambda: [r for r in cospace.apns.requests() if r.get("token") == token] or None, what="the push")
    assert (push["prefix"], push["status"], push["headers"]["apns-push-type"]) == ("sandbox", 200, "alert"), push

    # Leaving development mode returns the install to the app's (production) environment.
    assert device.update({"Development": False}).json()["Development"] is False
    send_message(cospace.server, cospace.product_token, [msisdn], "Hello, production", appKey=cospace.app_key)
    pushes = wait_for(lambda: (lambda found: found if len(found) == 2 else None)(
        [r for r in cospace.apns.requests() if r.get("token") == token]), what="the second push")
    assert pushes[1]["prefix"] == "", pushes[1]


def test_app_show_counts_cospace_tokens(cospace):
    _, token = cospace.add_user()
    before = cospace.tandem("app", "show", cospace.app_key).stdout
    count = lambda text: int(re.search(r"^cospace:\s+\d+ users, (\d+) push tokens$", text, re.M).group(1))
    assert api(cospace, "POST", token, {"system": "gcm", "action": "add", "registration_id": "count-" + uuid.uuid4().hex})[0] == 200
    after = cospace.tandem("app", "show", cospace.app_key).stdout
    assert count(after) == count(before) + 1, after
    registrations = lambda text: int(re.search(r"^registrations:\s+(\d+)", text, re.M).group(1))
    assert registrations(after) == registrations(before) + 1, after


def admin(cospace, method, path, body=None):
    status, reply, _ = http(cospace.server, method, path, None if body is None else json.dumps(body),
                            {"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"})
    return status, json.loads(reply) if reply else None


def test_admin_api_users_and_sender_id(cospace):
    base = f"/admin/apps/{cospace.app_key}"
    user = str(uuid.uuid4())
    status, created = admin(cospace, "POST", base + "/users", {"userId": user.upper()})
    assert status == 201 and created["userId"] == user and re.fullmatch(r"[0-9a-f]{64}", created["token"]), created
    assert admin(cospace, "POST", base + "/users", {"userId": user})[0] == 409
    assert api(cospace, "GET", created["token"])[0] == 200
    status, listed = admin(cospace, "GET", base + "/users")
    assert status == 200 and {"userId": user, "revokedAt": None} in [
        {k: u[k] for k in ("userId", "revokedAt")} for u in listed["users"]], listed
    assert "token" not in json.dumps(listed)

    # A random id when none is given; the token is shown once and works at once.
    status, random_user = admin(cospace, "POST", base + "/users")
    assert status == 201 and uuid.UUID(random_user["userId"]) and api(cospace, "GET", random_user["token"])[0] == 200

    assert admin(cospace, "DELETE", f"{base}/users/{user}")[0] == 204
    assert admin(cospace, "DELETE", f"{base}/users/{user}")[0] == 404
    assert api(cospace, "GET", created["token"])[0] == 401
    assert admin(cospace, "POST", base + "/users", {"userId": "bob"})[0] == 400

    status, app = admin(cospace, "PUT", base + "/sender-id", {"senderId": "1234567890"})
    assert status == 200 and app["senderId"] == "1234567890", app
    assert api(cospace, "GET", random_user["token"])[1]["gcm"]["sender_id"] == "1234567890"
    assert admin(cospace, "PUT", base + "/sender-id", {"senderId": "has space"})[0] == 400
    status, app = admin(cospace, "PUT", base + "/sender-id", {"senderId": "4815162342"})
    assert status == 200 and app["senderId"] == "4815162342"
