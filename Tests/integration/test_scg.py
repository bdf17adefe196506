"""The SCG messaging API (/scg-external-api/api/v1/messaging) through one real `tandem serve`, with push going
to the APNs fake (Tests/peers/apns_fake.py: `ok…` tokens 200, `gone…` 410 Unregistered, each answer after
--delay-ms) and the FCM fake (Tests/peers/fcm_fake.py) and SMS simulated. Bearer tokens come from the CLI
(`tandem scg token …`) and the admin API; the app's sender id from the admin API. One server for the module:
each test uses its own addresses."""
import http.client
import json
import sys
import time

import pytest

from conftest import Server, run_tandem, wait_for
from gateway_support import add_verified_device, create_account, create_app, messages_request, msg, query
from gateway_support import http as call
from fcm_support import FCM
from provider_support import APNs, providers_config, set_apns

ADMIN_TOKEN = "scg-admin-token-51c2"
BASE = "/scg-external-api/api/v1/messaging"
APNS_DELAY_MS = 1500  # long enough to cancel a push in flight


class Stack:
    """The server, its peers, an account with an app (APNs and FCM credentials, sender id `shop-ios`) and an
    SCG bearer token made with the CLI; a second account with its own token."""

    def __init__(self, directory):
        self.apns = APNs(directory, delay_ms=APNS_DELAY_MS)
        self.fcm = FCM(directory)
        config = providers_config(apns=self.apns)
        config["providers"]["push"]["fcm"] = {"baseURL": self.fcm.url, "tokenURL": self.fcm.url + "/token",
                                              "notification": True, "http": {"caFile": str(self.fcm.cert)}}
        (directory / "server").mkdir()
        self.server = Server(directory / "server", config=config, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
        self.account = create_account(self.server, "Shop")
        self.app = create_app(self.server, self.account, "Shop iOS")
        set_apns(self.server, self.app, self.apns, sandbox=True)
        out = run_tandem("app", "set-fcm", self.app, "--service-account", str(self.fcm.service_account),
                         "--config", str(self.server.config_path))
        assert out.returncode == 0, out.stderr
        status, _, app = self.admin("PUT", f"/admin/apps/{self.app}/sender-id", {"senderId": "shop-ios"})
        assert status == 200 and app["senderId"] == "shop-ios", app
        self.token = self.cli_token(self.account, "tests")
        self.other_account = create_account(self.server, "Other")
        self.other_token = self.cli_token(self.other_account, "other")

    def cli_token(self, account, label):
        out = run_tandem("scg", "token", "create", account, "--label", label, "--config", str(self.server.config_path))
        assert out.returncode == 0, out.stderr
        return next(line.split()[-1] for line in out.stdout.splitlines() if line.startswith("token:"))

    def admin(self, method, path, body=None):
        connection = http.client.HTTPConnection(self.server.host, self.server.port, timeout=10)
        try:
            connection.request(method, path, body=None if body is None else json.dumps(body),
                               headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), json.loads(response.read() or b"null")
        finally:
            connection.close()

    def scg(self, method, path, body=None, token=None, raw_auth=None):
        headers = {"Content-Type": "application/json"}
        if raw_auth is not None:
            headers["Authorization"] = raw_auth
        elif token != "":
            headers["Authorization"] = f"Bearer {token or self.token}"
        status, reply, _ = call(self.server, method, BASE + path, None if body is None else json.dumps(body), headers)
        return status, (json.loads(reply) if reply else None)

    def send(self, body, token=None):
        status, reply = self.scg("POST", "/message_requests", body, token)
        assert status == 200, reply
        return reply["id"]

    def messages(self, request_id):
        status, reply = self.scg("GET", f"/message_requests/{request_id}/messages")
        assert status == 200, reply
        return reply["list"]

    def wait_state(self, request_id, states, timeout=15):
        def ready():
            found = self.messages(request_id)
            return found if all(m["state"] in states for m in found) else None
        return wait_for(ready, timeout=timeout, what=f"messages of {request_id} in {states}")

    def stop(self):
        self.server.stop()
        self.apns.stop()
        self.fcm.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    built = Stack(tmp_path_factory.mktemp("scg"))
    yield built
    built.stop()


def apns_requests_for(stack, token):
    return [r for r in stack.apns.requests() if r.get("token") == token]


def test_bearer_tokens_cli_and_admin(stack):
    body = {"from": "Shop", "to": ["+31612345001"], "body": "Hi"}
    for auth in [None, "Basic abc", "Bearer wrong"]:
        status, reply = stack.scg("POST", "/message_requests", body, token="", raw_auth=auth)
        assert status == 401 and reply["error"]["code"] == "UNAUTHORIZED", reply
    assert query(stack.server, "SELECT COUNT(*) FROM messages WHERE api = 'scg'") == [(0,)]

    # Only digests are stored; the CLI lists tokens without them.
    stored = query(stack.server, "SELECT token_sha256 FROM scg_tokens")
    assert all(len(row[0]) == 64 and stack.token not in row[0] for row in stored)
    out = run_tandem("scg", "token", "list", stack.account, "--config", str(stack.server.config_path))
    assert out.returncode == 0 and "tests" in out.stdout and stack.token not in out.stdout, out

    # The admin API makes, lists and revokes tokens; a revoked one is refused within 5 s.
    status, _, created = stack.admin("POST", f"/admin/accounts/{stack.account}/scg-tokens", {"label": "ci"})
    assert status == 201 and created["token"].startswith("scg_"), created
    assert stack.scg("GET", "/message_requests", token=created["token"])[0] == 200
    status, _, listed = stack.admin("GET", f"/admin/accounts/{stack.account}/scg-tokens")
    assert status == 200 and [t["label"] for t in listed["tokens"]] == ["tests", "ci"], listed
    assert "token" not in listed["tokens"][1]
    status, _, _ = stack.admin("DELETE", f"/admin/accounts/{stack.account}/scg-tokens/{created['id']}")
    assert status == 204
    assert stack.admin("DELETE", f"/admin/accounts/{stack.other_account}/scg-tokens/{created['id']}")[0] == 404
    wait_for(lambda: stack.scg("GET", "/message_requests", token=created["token"])[0] == 401, timeout=8,
             what="the revoked token to be refused")
    # A CLI-revoked token too.
    extra = stack.cli_token(stack.account, "short-lived")
    token_id = query(stack.server, "SELECT max(id) FROM scg_tokens")[0][0]
    out = run_tandem("scg", "token", "revoke", stack.account, str(token_id), "--config", str(stack.server.config_path))
    assert out.returncode == 0, out.stderr
    wait_for(lambda: stack.scg("GET", "/message_requests", token=extra)[0] == 401, timeout=8, what="the CLI-revoked token")
    assert stack.scg("GET", "/message_requests")[0] == 200


def test_apn_address_reaches_apns_with_the_mapped_payload(stack):
    token = "ok" + "a1" * 31
    request_id = stack.send({
        "from": "sender_id:shop-ios", "to": [f"psh:apn@shop-ios@{token}"], "body": "Your parcel is here",
        "external_id": "parcel-1", "campaign_id": "spring",
        "options": {"push:badge": "4", "push:sound": "bell.caf", "push:alert:title": "Parcel", "push:alert:subtitle": "Door 3",
                    "push:thread-id": "parcels", "push:category": "PARCEL", "push:appdata:s:orderId": "A-17",
                    "push:appdata:n:seats:1": "9.0", "push:appdata:n:seats:2": 10,
                    "push:appdata:o:address": "{\"zip\":\"223344\",\"apt\":9}", "push:alert:tag": "android-only"}})
    [request] = stack.apns.wait_for_requests(1, timeout=15) and wait_for(lambda: apns_requests_for(stack, token), what="the push")
    assert request["status"] == 200 and request["violation"] is None, request
    payload = request["payload"]
    aps = payload["aps"]
    assert aps["alert"]["title"] == "Parcel" and aps["alert"]["subtitle"] == "Door 3"
    assert aps["alert"]["body"] == "Your parcel is here"
    assert (aps["badge"], aps["sound"], aps["thread-id"], aps["category"]) == (4, "bell.caf", "parcels", "PARCEL"), aps
    assert payload["orderId"] == "A-17" and payload["seats"] == [9.0, 10] and payload["address"] == {"zip": "223344", "apt": 9}
    assert "tag" not in json.dumps(aps)
    assert query(stack.server, "SELECT origin, platform, status FROM registrations WHERE push_token = ?", (token,)) \
        == [("pushAddress", "iOS", "Unverified")]

    [message] = stack.wait_state(request_id, {"SENT"})
    assert (message["id"], message["to_address"], message["from_address"], message["channel"]) \
        == (f"{request_id}-1", f"psh:apn@shop-ios@{token}", "sender_id:shop-ios", "PUSH"), message
    assert message["sent_date"] and message["delivered_date"] is None and message["failure_code"] is None
    status, one = stack.scg("GET", f"/messages/{request_id}-1")
    assert status == 200 and one["state"] == "SENT"
    status, view = stack.scg("GET", f"/message_requests/{request_id}")
    assert status == 200, view
    assert (view["state"], view["recipient_count"], view["sent_count"], view["delivered_count"], view["failed_count"],
            view["canceled_count"]) == ("TRANSMITTING", 1, 1, 0, 0, 0), view
    assert (view["external_id"], view["campaign_id"], view["to"]) == ("parcel-1", "spring", [f"psh:apn@shop-ios@{token}"])
    # Another account sees none of it.
    assert stack.scg("GET", f"/message_requests/{request_id}", token=stack.other_token)[0] == 404
    assert stack.scg("GET", f"/messages/{request_id}-1", token=stack.other_token)[0] == 404


def test_fcm_address_carries_android_keys(stack):
    token = "ok-fcm-" + "b2" * 20
    request_id = stack.send({
        "from": "Shop", "to": [f"psh:fcm@{stack.app}@{token}"], "body": "Sale today",
        "options": {"push:alert:title": "Sale", "push:alert:tag": "sale", "push:alert:click_action": "OPEN_SALE",
                    "push:alert:ticker": "Sale ticker", "push:alert:sticky": True, "push:alert:event_time": 1611014400000,
                    "push:alert:local_only": True, "push:alert:notification_priority": "PRIORITY_MIN",
                    "push:appdata:s:promo": "SPRING"}})
    send = wait_for(lambda: next((s for s in stack.fcm.sends() if s.get("token") == token), None), timeout=15, what="the FCM send")
    assert send["status"] == 200 and send["violation"] is None, send
    notification = send["message"]["android"]["notification"]
    assert (notification["tag"], notification["click_action"], notification["ticker"], notification["sticky"],
            notification["event_time"], notification["local_only"], notification["notification_priority"]) \
        == ("sale", "OPEN_SALE", "Sale ticker", True, "2021-01-19T00:00:00.000Z", True, "PRIORITY_MIN"), notification
    assert send["message"]["data"]["promo"] == "SPRING"
    stack.wait_state(request_id, {"SENT"})
    assert query(stack.server, "SELECT platform FROM registrations WHERE push_token = ?", (token,)) == [("Android",)]


def test_phone_number_without_install_goes_by_sms_and_with_one_by_push(stack):
    token = "ok" + "c3" * 31
    add_verified_device(stack.server, stack.app, "+31612345111", token=token)
    request_id = stack.send({"from": "Shop", "to": ["+31612345110", "31612345111"], "body": "Hello",
                             "application_id": stack.app})
    messages = stack.wait_state(request_id, {"SENT", "DELIVERED"})
    assert [(m["to_address"], m["channel"]) for m in messages] == [("+31612345110", "SMS"), ("31612345111", "PUSH")], messages
    assert wait_for(lambda: apns_requests_for(stack, token), what="the push to the verified install")
    status, view = stack.scg("GET", f"/message_requests/{request_id}")
    assert view["recipient_count"] == 2 and view["sent_count"] == 2, view


def test_gone_token_ends_failed_and_its_registration_invalid(stack):
    token = "gone" + "d4" * 30
    request_id = stack.send({"from": "Shop", "to": [f"psh:apn@{stack.app}@{token}"], "body": "Hi"})
    [message] = stack.wait_state(request_id, {"FAILED"}, timeout=20)
    assert message["failure_code"] == "pushFailed" and "invalid" in message["failure_details"], message
    status, view = stack.scg("GET", f"/message_requests/{request_id}")
    assert (view["state"], view["failed_count"], view["sent_count"]) == ("COMPLETED", 1, 0), view
    assert query(stack.server, "SELECT status FROM registrations WHERE push_token = ?", (token,)) == [("Invalid",)]


def test_cancel_before_the_send_leaves_the_recipient_canceled(stack):
    token = "ok" + "e5" * 31
    request_id = stack.send({"from": "Shop", "to": [f"psh:apn@{stack.app}@{token}"], "body": "Maybe not"})
    status, reply = stack.scg("POST", f"/message_requests/{request_id}", {"state": "PAUSED"})
    assert status == 400 and reply["error"]["field"] == "state", reply
    assert stack.scg("POST", f"/message_requests/{request_id}", {"state": "CANCELED"}, token=stack.other_token)[0] == 404
    status, _ = stack.scg("POST", f"/message_requests/{request_id}", {"state": "CANCELED"})
    assert status == 204
    [message] = stack.wait_state(request_id, {"CANCELED"})
    time.sleep(APNS_DELAY_MS / 1000 + 0.5)  # the fake's answer to the withdrawn push, if any, changes nothing
    [message] = stack.messages(request_id)
    assert message["state"] == "CANCELED" and message["sent_date"] is None, message
    status, view = stack.scg("GET", f"/message_requests/{request_id}")
    assert (view["state"], view["canceled_count"], view["sent_count"]) == ("CANCELED", 1, 0), view


def test_bad_input_listing_and_delete(stack):
    status, reply = stack.scg("POST", "/message_requests", {"from": "Shop", "to": ["psh:apn@nobody@tok"], "body": "Hi"})
    assert status == 400 and reply["error"]["field"] == "to[0]", reply
    status, reply = stack.scg("POST", "/message_requests", {"from": "Shop", "to": ["+31612345678"], "body": "Hi",
                                                            "options": {"push:badge": "x"}})
    assert status == 400 and reply["error"]["field"] == "options.push:badge", reply
    assert stack.scg("GET", "/message_requests/00000000-0000-4000-8000-000000000000")[0] == 404

    first = stack.send({"from": "Shop", "to": ["+31612345201"], "body": "one"}, token=stack.other_token)
    second = stack.send({"from": "Shop", "to": ["+31612345202"], "body": "two"}, token=stack.other_token)
    status, page = stack.scg("GET", "/message_requests?offset=0&limit=1", token=stack.other_token)
    assert status == 200 and page["total"] == 2 and [r["id"] for r in page["list"]] == [second], page
    assert stack.scg("DELETE", f"/message_requests/{first}")[0] == 404  # another account's
    assert stack.scg("DELETE", f"/message_requests/{first}", token=stack.other_token)[0] == 204
    status, page = stack.scg("GET", "/message_requests", token=stack.other_token)
    assert page["total"] == 1 and [r["id"] for r in page["list"]] == [second], page


def test_cm_msg_with_options_reaches_apns_mapped(stack):
    token = "ok" + "f6" * 31
    add_verified_device(stack.server, stack.app, "+31612345300", token=token)
    body = messages_request(stack.account, msg(["+31612345300"], "Hi from CM", sender="Shop", appKey=stack.app,
                                                options={"push:badge": 7, "push:sound": "chime.caf",
                                                         "push:appdata:s:ref": "cm-1"}))
    status, reply, _ = call(stack.server, "POST", "/v1.0/message", body)
    assert status == 200 and json.loads(reply)["messages"][0]["status"] == "Accepted", reply
    [request] = wait_for(lambda: apns_requests_for(stack, token), timeout=15, what="the CM push")
    assert (request["payload"]["aps"]["badge"], request["payload"]["aps"]["sound"], request["payload"]["ref"]) \
        == (7, "chime.caf", "cm-1"), request


def test_sender_ids_cli_and_admin(stack):
    second = create_app(stack.server, stack.account, "Shop Android")
    out = run_tandem("app", "set-fcm", second, "--service-account", str(stack.fcm.service_account),
                     "--config", str(stack.server.config_path))
    assert out.returncode == 0, out.stderr
    status, _, refused = stack.admin("PUT", f"/admin/apps/{second}/sender-id", {"senderId": "shop-ios"})
    assert status == 409 and stack.app in refused["error"], refused
    status, _, refused = stack.admin("PUT", f"/admin/apps/{second}/sender-id", {"senderId": "bad@id"})
    assert status == 400, refused
    out = run_tandem("app", "set-sender-id", second, "shop-ios", "--config", str(stack.server.config_path))
    assert out.returncode == 65 and stack.app in out.stderr, out
    out = run_tandem("app", "set-sender-id", second, "shop-droid", "--config", str(stack.server.config_path))
    assert out.returncode == 0 and "sender id:" in out.stdout and "shop-droid" in out.stdout, out
    # An app of another account may use the same sender id: it names that account's app only.
    other_app = create_app(stack.server, stack.other_account, "Other app")
    assert stack.admin("PUT", f"/admin/apps/{other_app}/sender-id", {"senderId": "shop-droid"})[0] == 200
    token = "ok-fcm-" + "a7" * 20
    request_id = stack.send({"from": "Shop", "to": [f"psh:fcm@shop-droid@{token}"], "body": "Hi"})
    wait_for(lambda: next((s for s in stack.fcm.sends() if s.get("token") == token), None), timeout=15, what="the FCM send")
    assert query(stack.server, """SELECT a.app_key FROM registrations r JOIN apps a ON a.id = r.app_id
                                  WHERE r.push_token = ?""", (token,)) == [(second,)]
    stack.wait_state(request_id, {"SENT"})
    status, _, cleared = stack.admin("PUT", f"/admin/apps/{second}/sender-id", {"senderId": None})
    assert status == 200 and cleared["senderId"] is None, cleared
    status, reply = stack.scg("POST", "/message_requests", {"from": "Shop", "to": [f"psh:fcm@shop-droid@{token}"], "body": "Hi"})
    assert status == 400 and reply["error"]["field"] == "to[0]", reply
