"""TIBCO BWMI on a running `tandem serve`, against the APNs fake (Tests/peers/apns_fake.py) and the FCM fake
(Tests/peers/fcm_fake.py): BWMI apps register their tokens under /bwmi/{appKey}/, an enterprise sends
managed and fire-and-forget notifications, the devices acknowledge them and pull their pending ones — and,
with the app's `bwmi.trustPhones` on, a Critical CM message to the device's phone is a managed push whose
acknowledgement within the policy's window is the read receipt (no SMS), else one SMS at the window."""
import json
import time
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from conftest import REPO, run_tandem, wait_for
from device_support import error_lines
from gateway_support import create_account, create_app, http, message_view, send_message
from provider_support import APNs, Peer, read_json_lines, set_apns, wait_quiet

PROJECT = "tandem-bwmi"
CLIENT_EMAIL = "tandem@tandem-bwmi.iam.gserviceaccount.com"
KEY_ID = "0123456789abcdef0123456789abcdef01234567"
SHORT_POLICIES = str(REPO / "Tests" / "integration" / "policies")  # Critical: 3 s windows
IOS_TOKEN = "ok" + "d7a9876f73f84725914a11a25b89c3769f213d453b62ec7d38d241b2fc10a8445"[2:]  # 65 characters, as the spec's
ANDROID_TOKEN = "okGPA91bEthw8OzOYyDykm1Lvvcd3gP7oe52C9fiYobOVPems10fGmgQpkTpJIht9UplhsygL2zUwa2B5YjpsP3MexPb6hmv-2E9AkJKQyeB"
PHONE = "+19883999901"


class FCM:
    """Tests/peers/fcm_fake.py with its own service account (an RSA key made here), serving TLS with the APNs
    fake's self-signed certificate."""

    def __init__(self, directory, apns):
        directory = Path(directory)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
        public = directory / "fcm-account.pub"
        public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                         serialization.PublicFormat.SubjectPublicKeyInfo))
        self.log_path = directory / "fcm.jsonl"
        self.peer = Peer("fcm_fake.py", ["--cert", str(apns.cert), "--key", str(apns.directory / "key.pem"),
                                         "--public-key", str(public), "--client-email", CLIENT_EMAIL, "--key-id", KEY_ID,
                                         "--project-id", PROJECT, "--log", str(self.log_path)], directory, "fcm")
        self.url = f"https://127.0.0.1:{self.peer.port}"
        self.service_account = directory / "service-account.json"
        self.service_account.write_text(json.dumps({
            "type": "service_account", "project_id": PROJECT, "private_key_id": KEY_ID, "private_key": pem,
            "client_email": CLIENT_EMAIL, "token_uri": self.url + "/token"}))

    def sends(self):
        return [r for r in read_json_lines(self.log_path) if r.get("kind") == "send"]

    def stop(self):
        self.peer.stop()


@pytest.fixture
def apns(tmp_path):
    peer = APNs(tmp_path)
    yield peer
    peer.stop()


@pytest.fixture
def fcm(tmp_path, apns):
    peer = FCM(tmp_path, apns)
    yield peer
    peer.stop()


def push_config(apns, fcm=None, policies=None):
    push = {"apns": {"productionURL": apns.url, "sandboxURL": apns.url, "http": {"caFile": str(apns.cert), "timeout": "5s"}}}
    if fcm is not None:
        push["fcm"] = {"baseURL": fcm.url, "http": {"caFile": str(apns.cert), "timeout": "5s"}}
    config = {"providers": {"push": push}}
    if policies:
        config["policies"] = policies
    return config


def bwmi_app(server, token, apns, fcm=None, name="Airline"):
    app_key = create_app(server, token, name)
    set_apns(server, app_key, apns, sandbox=True)
    if fcm is not None:
        out = run_tandem("app", "set-fcm", app_key, "--service-account", str(fcm.service_account),
                         "--config", str(server.config_path))
        assert out.returncode == 0, out.stderr
    return app_key


def call(server, method, path, body=None, headers=None):
    """(status, parsed JSON body or the raw bytes when empty)."""
    data = json.dumps(body) if isinstance(body, (dict, list)) else body
    status, raw, _ = http(server, method, path, data, {"Content-Type": "application/json; charset=UTF-8", **(headers or {})})
    return status, (json.loads(raw) if raw else raw)


def register(server, app_key, token, kind, phone=PHONE, email="abc@yahoo.com"):
    status, body = call(server, "PUT", f"/bwmi/{app_key}/devices",
                        {"deviceId": token, "type": kind, "user": {"phone": phone, "email": email}})
    assert (status, body) == (201, b""), body


def notify(server, product_token, app_key, body):
    status, reply = call(server, "POST", f"/bwmi/{app_key}/notifications", body, {"X-CM-PRODUCTTOKEN": product_token})
    assert status == 201, reply
    return reply


def pending(server, app_key, token):
    status, body = call(server, "GET", f"/bwmi/{app_key}/devices/{token}/notifications")
    assert status == 200, body
    return body["ns"]


def ack(server, app_key, nid, token, bid=None):
    return call(server, "PUT", f"/bwmi/{app_key}/acks", {"nid": nid, "did": token, "bid": bid})


def apns_payloads(apns, token):
    """The payloads pushed to `token`, each asserted accepted by the fake (a valid payload)."""
    requests = [r for r in apns.requests() if r.get("token") == token]
    assert all(r["violation"] is None for r in requests), requests
    return [r["payload"] for r in requests]


def fcm_messages(fcm, token):
    """The messages sent to `token`, each asserted accepted by the fake."""
    sends = [r for r in fcm.sends() if r.get("token") == token]
    assert all(r["violation"] is None and r["status"] == 200 for r in sends), sends
    return [r["message"] for r in sends]


def test_bwmi_devices_managed_notifications_acks_and_pending(apns, fcm, serve):
    server = serve(push_config(apns, fcm))
    product_token = create_account(server, "Acme")
    app_key = bwmi_app(server, product_token, apns, fcm)
    register(server, app_key, IOS_TOKEN, "IOS")
    register(server, app_key, ANDROID_TOKEN, "ANDROID")
    register(server, app_key, ANDROID_TOKEN, "ANDROID")  # again: the same device, updated

    # A managed notification to both: badge 1 each, pending on each.
    sent_at = int(time.time() * 1000)
    reply = notify(server, product_token, app_key, {"to": [{"deviceId": IOS_TOKEN}, {"deviceId": ANDROID_TOKEN}],
                                                    "text": "Boarding announced at Terminal 1, Gate B67", "bid": "GATE_CHANGE",
                                                    "faf": False})
    assert reply["unreached"] == [] and [(n["deviceId"], n["badge"]) for n in reply["notifications"]] == [
        (IOS_TOKEN, 1), (ANDROID_TOKEN, 1)], reply
    ios_nid1, android_nid1 = (n["nid"] for n in reply["notifications"])
    [ios_push] = wait_for(lambda: apns_payloads(apns, IOS_TOKEN), what="the iOS push")
    assert ios_push == {"aps": {"alert": "Boarding announced at Terminal 1, Gate B67", "badge": 1}, "nid": ios_nid1,
                        "bid": "GATE_CHANGE", "faf": "false"}, ios_push
    [android_push] = wait_for(lambda: fcm_messages(fcm, ANDROID_TOKEN), what="the Android push")
    data = android_push["data"]
    assert set(android_push) == {"token", "data", "android"}, android_push  # data only: no notification block
    assert list(data) == ["text", "timestamp", "nid", "bid", "faf", "badge"], data
    assert (data["text"], data["nid"], data["bid"], data["faf"], data["badge"]) == (
        "Boarding announced at Terminal 1, Gate B67", android_nid1, "GATE_CHANGE", "false", "1"), data
    assert abs(int(data["timestamp"]) - sent_at) < 5_000, data
    [[nid, at, text, bid]] = pending(server, app_key, IOS_TOKEN)
    assert (nid, at, text, bid) == (ios_nid1, data["timestamp"], "Boarding announced at Terminal 1, Gate B67", "GATE_CHANGE")

    # A second one (no business id): badge 2; pending lists both, oldest first, the second without bid.
    reply = notify(server, product_token, app_key, {"to": [{"deviceId": IOS_TOKEN}, {"deviceId": ANDROID_TOKEN}],
                                                    "text": "Flight delayed", "faf": False})
    ios_nid2, android_nid2 = (n["nid"] for n in reply["notifications"])
    assert [n["badge"] for n in reply["notifications"]] == [2, 2], reply
    wait_for(lambda: len(apns_payloads(apns, IOS_TOKEN)) == 2 and len(fcm_messages(fcm, ANDROID_TOKEN)) == 2, what="2nd pushes")
    assert apns_payloads(apns, IOS_TOKEN)[1] == {"aps": {"alert": "Flight delayed", "badge": 2}, "nid": ios_nid2, "faf": "false"}
    assert fcm_messages(fcm, ANDROID_TOKEN)[1]["data"]["badge"] == "2"
    ns = pending(server, app_key, ANDROID_TOKEN)
    assert [entry[0] for entry in ns] == [android_nid1, android_nid2] and len(ns[1]) == 3, ns

    # Acknowledging the first: 201, a badge-only update "1", and it leaves pending. The same ack again: 201, no push.
    for token, nid, platform in ((IOS_TOKEN, ios_nid1, "ios"), (ANDROID_TOKEN, android_nid1, "android")):
        assert ack(server, app_key, nid, token, "GATE_CHANGE") == (201, b"")
    wait_for(lambda: len(apns_payloads(apns, IOS_TOKEN)) == 3 and len(fcm_messages(fcm, ANDROID_TOKEN)) == 3, what="badge updates")
    assert apns_payloads(apns, IOS_TOKEN)[2] == {"aps": {"badge": 1}}
    assert fcm_messages(fcm, ANDROID_TOKEN)[2]["data"] == {"badge": "1"}
    assert [entry[0] for entry in pending(server, app_key, IOS_TOKEN)] == [ios_nid2]
    assert ack(server, app_key, ios_nid1, IOS_TOKEN) == (201, b"")

    # Acknowledging the second: badge "0", nothing pending.
    assert ack(server, app_key, ios_nid2, IOS_TOKEN) == (201, b"")
    assert ack(server, app_key, android_nid2, ANDROID_TOKEN) == (201, b"")
    wait_for(lambda: len(apns_payloads(apns, IOS_TOKEN)) == 4 and len(fcm_messages(fcm, ANDROID_TOKEN)) == 4, what="badge 0")
    assert apns_payloads(apns, IOS_TOKEN)[3] == {"aps": {"badge": 0}}
    assert fcm_messages(fcm, ANDROID_TOKEN)[3]["data"] == {"badge": "0"}
    assert pending(server, app_key, IOS_TOKEN) == [] and pending(server, app_key, ANDROID_TOKEN) == []

    # A nid of another device, or none at all → 404.
    assert ack(server, app_key, android_nid1, IOS_TOKEN)[0] == 404
    assert ack(server, app_key, "b8ba7a54-92dc-4978-b125-53bfe57daa6c", IOS_TOKEN)[0] == 404

    # Fire-and-forget to the phone both claim: the badge and sound as given, never pending.
    reply = notify(server, product_token, app_key, {"to": [{"phone": PHONE}], "text": "Salary deposited", "faf": True,
                                                    "sound": "default", "badge": 1})
    assert sorted(n["deviceId"] for n in reply["notifications"]) == sorted([IOS_TOKEN, ANDROID_TOKEN]), reply
    wait_for(lambda: len(apns_payloads(apns, IOS_TOKEN)) == 5 and len(fcm_messages(fcm, ANDROID_TOKEN)) == 5, what="faf")
    assert apns_payloads(apns, IOS_TOKEN)[4] == {"aps": {"alert": "Salary deposited", "sound": "default", "badge": 1},
                                                 "faf": "true"}
    faf = fcm_messages(fcm, ANDROID_TOKEN)[4]["data"]
    assert (list(faf), faf) == (["text", "faf", "sound", "badge"],
                                {"text": "Salary deposited", "faf": "true", "sound": "default", "badge": "1"})
    assert pending(server, app_key, IOS_TOKEN) == [] and pending(server, app_key, ANDROID_TOKEN) == []

    # Another app's base path sees none of it.
    other = create_app(server, product_token, "Other")
    assert call(server, "GET", f"/bwmi/{other}/devices/{IOS_TOKEN}/notifications")[0] == 404
    assert ack(server, other, ios_nid1, IOS_TOKEN)[0] == 404
    status, reply = call(server, "POST", f"/bwmi/{other}/notifications", {"to": [{"deviceId": IOS_TOKEN}], "text": "x",
                                                                          "faf": True}, {"X-CM-PRODUCTTOKEN": product_token})
    assert status == 201 and reply["notifications"] == [] and reply["unreached"][0]["error"] == "no device of this app", reply

    # A deregistered device gets nothing (DELETE is idempotent); registering again brings it back.
    for _ in range(2):
        status, body = call(server, "DELETE", f"/bwmi/{app_key}/devices",
                            {"deviceId": ANDROID_TOKEN, "type": "ANDROID", "user": {"phone": PHONE, "email": "abc@yahoo.com"}})
        assert (status, body) == (200, b"")
    reply = notify(server, product_token, app_key, {"to": [{"deviceId": ANDROID_TOKEN}], "text": "Gone?", "faf": False})
    assert reply["notifications"] == [] and len(reply["unreached"]) == 1, reply
    assert len(wait_quiet(lambda: fcm_messages(fcm, ANDROID_TOKEN))) == 5

    # Bad requests: 400 with a JSON error naming the problem; an unknown token's pending → 404.
    assert call(server, "PUT", f"/bwmi/{app_key}/devices", "{not json") [0] == 400
    status, body = call(server, "PUT", f"/bwmi/{app_key}/devices", {"deviceId": IOS_TOKEN, "type": "WINDOWS"})
    assert (status, body) == (400, {"error": 'type must be IOS or ANDROID, not "WINDOWS"'})
    assert call(server, "PUT", f"/bwmi/{app_key}/acks", {"did": IOS_TOKEN}) == (400, {"error": "nid is required"})
    assert call(server, "GET", f"/bwmi/{app_key}/devices/unknown-token/notifications") == (
        404, {"error": "no device with this token is registered for this app"})
    assert call(server, "POST", f"/bwmi/{app_key}/notifications", {"to": [], "text": "x", "faf": True})[0] == 401
    assert error_lines(server) == []


def test_bwmi_apns_410_invalidates_the_device_and_the_admin_static_key(apns, serve):
    admin = {"Authorization": "Bearer bwmi-admin-token-0123"}
    server = serve(push_config(apns), env={"TANDEM_ADMIN_TOKEN": "bwmi-admin-token-0123"})
    product_token = create_account(server, "Acme")
    app_key = bwmi_app(server, product_token, apns)
    assert call(server, "GET", f"/admin/apps/{app_key}/bwmi", headers=admin) == (200, {
        "appKey": app_key, "basePath": f"/bwmi/{app_key}", "trustPhones": False, "staticKeyRequired": False})
    status, body = call(server, "PUT", f"/admin/apps/{app_key}/bwmi", {"trustPhones": False, "staticKey": "k" * 16}, admin)
    assert (status, body["staticKeyRequired"]) == (200, True), body
    assert call(server, "PUT", f"/admin/apps/{app_key}/bwmi", {"staticKey": "short"}, admin)[0] == 400
    dead = "gone" + "0f1e2d3c" * 8
    body = {"deviceId": dead, "type": "IOS"}
    assert call(server, "PUT", f"/bwmi/{app_key}/devices", body) == (
        401, {"error": "this app requires its key in the X-BWMI-Key header"})
    assert call(server, "PUT", f"/bwmi/{app_key}/devices", body, {"X-BWMI-Key": "k" * 15 + "x"})[0] == 401
    assert call(server, "PUT", f"/bwmi/{app_key}/devices", body, {"X-BWMI-Key": "k" * 16}) == (201, b"")
    assert call(server, "PUT", f"/admin/apps/{app_key}/bwmi", {"staticKey": None}, admin)[1]["staticKeyRequired"] is False
    reply = notify(server, product_token, app_key, {"to": [{"deviceId": dead}], "text": "Hello", "faf": False})
    assert len(reply["notifications"]) == 1, reply
    [request] = apns.wait_for_requests(1)
    assert (request["status"], request["reason"]) == (410, "Unregistered"), request
    # Invalid: no longer pending, no longer sent to.
    wait_for(lambda: pending(server, app_key, dead) == [], what="the dead device's pending list to empty")
    reply = notify(server, product_token, app_key, {"to": [{"deviceId": dead}], "text": "Again", "faf": False})
    assert reply["notifications"] == [] and "invalid" in reply["unreached"][0]["error"], reply
    assert len(wait_quiet(apns.requests)) == 1


def test_bwmi_trusted_phone_critical_fallback(apns, serve):
    server = serve(push_config(apns, policies=SHORT_POLICIES))
    product_token = create_account(server, "Acme")
    app_key = bwmi_app(server, product_token, apns)
    register(server, app_key, IOS_TOKEN, "IOS")
    cm = PHONE.replace("+", "00")

    def recipient(message_id):
        return message_view(server, product_token, message_id)["recipients"][0]

    def sms_events(message_id):
        return [e for e in recipient(message_id)["events"] if e["event"] == "smsSubmitted"]

    # trustPhones off (the default): the phone is not a verified number, so the message goes by SMS at once.
    line = send_message(server, product_token, [cm], "Critical alert", appKey=app_key, appMessageType="Critical")
    wait_for(lambda: sms_events(line["messageId"]), what="the SMS")
    assert apns.requests() == []

    out = run_tandem("app", "bwmi", app_key, "--trust-phones", "on", "--config", str(server.config_path))
    assert out.returncode == 0 and "trust phones:  on" in out.stdout, out.stderr

    # On: a managed push; acknowledged inside the 3 s window → the read receipt, and no SMS ever.
    line = send_message(server, product_token, [cm], "Critical acked", appKey=app_key, appMessageType="Critical")
    [request] = apns.wait_for_requests(1)
    nid = str(recipient(line["messageId"])["updateId"])
    assert request["violation"] is None and request["payload"] == {"aps": {"alert": "Critical acked"}, "nid": nid,
                                                                   "faf": "false"}, request
    assert ack(server, app_key, nid, IOS_TOKEN) == (201, b"")
    assert ack(server, app_key, nid, IOS_TOKEN) == (201, b"")  # again: still 201
    time.sleep(4.5)  # past the window (3 s)
    assert sms_events(line["messageId"]) == []
    assert [e["event"] for e in recipient(line["messageId"])["events"] if e["event"] == "readReported"] == ["readReported"]

    # Not acknowledged: one SMS, at the window.
    line = send_message(server, product_token, [cm], "Critical unacked", appKey=app_key, appMessageType="Critical")
    pushed = time.time()
    wait_for(lambda: sms_events(line["messageId"]), timeout=10, what="the fallback SMS")
    assert time.time() - pushed >= 2.9
    time.sleep(1)
    assert len(sms_events(line["messageId"])) == 1
