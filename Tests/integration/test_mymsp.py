"""myMSP Device Push Notifications end to end: one real `tandem serve` pushing through the APNs fake
(Tests/peers/apns_fake.py: `ok…` tokens 200, `gone…` 410 Unregistered) and the FCM fake
(Tests/peers/fcm_fake.py, with a service account made here), and an HTTP receiver for the user's events.
The sequence is the issue's acceptance: subscribe → send to ids and a group → get (the delivery is
acknowledged) → updatekey reactivates → unsubscribe keeps it active → unsubscribeall deactivates it (a send to
it alone → 28) → an APNs 410 makes ACTION_UNSUB_ALL → the poll with clean=true."""
import json
import time
import urllib.parse

import pytest

from conftest import run_tandem, wait_for
from gateway_support import WebhookReceiver, create_account, create_app, http, message_view, query
from fcm_support import FCM
from provider_support import APNs, set_apns

PASSWORD_ENV = "TANDEM_TEST_MYMSP_PASSWORD"
PASSWORD = "correct horse battery staple"
FAST = {"statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}}


@pytest.fixture
def apns(tmp_path):
    peer = APNs(tmp_path)
    yield peer
    peer.stop()


@pytest.fixture
def fcm(tmp_path):
    peer = FCM(tmp_path)
    yield peer
    peer.stop()


@pytest.fixture
def events():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


def call(server, method, verb="POST", **parameters):
    """One myMSP request (a form POST, or GET with a query string); returns (status, body lines, headers)."""
    encoded = urllib.parse.urlencode(parameters)
    path = "/external/notifications/" + method
    if verb == "GET":
        status, body, headers = http(server, "GET", path + "?" + encoded)
    else:
        status, body, headers = http(server, "POST", path, encoded,
                                     {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"})
    assert headers.get("Content-Type") == "text/plain; charset=utf-8", headers
    return status, body.decode(), headers


def accepted(server, method, **parameters):
    status, body, _ = call(server, method, **parameters)
    assert status == 200 and body.startswith("A\n"), (method, body)
    return body.split("\n")[1:-1]


def refused(server, method, **parameters):
    status, body, _ = call(server, method, **parameters)
    assert status == 200 and body.startswith("N\n"), (method, body)
    return int(body.split("\n")[1])


def event_forms(receiver):
    return [dict(urllib.parse.parse_qsl(post["body"].decode(), keep_blank_values=True)) for post in receiver.all_posts()
            if post["status"] == 200]


def test_mymsp_end_to_end(apns, fcm, events, serve, monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    server = serve({**FAST, "mymsp": {"getsPerClientIP": None},
                    "providers": {"push": {
                        "apns": {"productionURL": apns.url, "sandboxURL": apns.url,
                                 "http": {"caFile": str(apns.cert), "timeout": "5s", "maxAttempts": 2}},
                        "fcm": {"baseURL": fcm.url, "http": {"caFile": str(fcm.cert), "timeout": "5s", "maxAttempts": 2}}}}})
    token = create_account(server, "Acme")
    app_key = create_app(server, token, "NewsApp")
    set_apns(server, app_key, apns, sandbox=True)
    out = run_tandem("app", "set-fcm", app_key, "--service-account", str(fcm.service_account), "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr
    out = run_tandem("app", "set-mymsp", app_key, "--user", "dpnuser", "--password-env", PASSWORD_ENV,
                     "--event-url", events.url, "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr

    # Errors before anything exists: no user 23, empty 22, unknown 7; send without pwd 25, wrong pwd 7.
    assert refused(server, "subscribe", spid="apns", key="ok1") == 23
    assert refused(server, "subscribe", user="", spid="apns", key="ok1") == 22
    assert refused(server, "subscribe", user="nobody", spid="apns", key="ok1") == 7
    assert refused(server, "send", user="dpnuser", message="x", recipients="1") == 25
    assert refused(server, "send", user="dpnuser", pwd="wrong", message="x", recipients="1") == 7
    assert refused(server, "subscribe", user="dpnuser", spid="c2dm", key="ok1") == 60
    assert refused(server, "subscribe", user="dpnuser", spid="apns", key="ok1", recipientid="999") == 46

    # subscribe: A and the new recipient id (an iPhone over APNs, an Android over FCM); each makes ACTION_SUB.
    ios_token, android_token = "ok" + "a1" * 32, "ok-android-" + "b" * 20
    [ios] = accepted(server, "subscribe", user="dpnuser", spid="apns", key=ios_token, message="Msg A")
    status, body, _ = call(server, "subscribe", verb="GET", user="dpnuser", spid="fcm", key=android_token, message="Msg B")
    assert status == 200 and body.startswith("A\n"), body
    android = body.split("\n")[1]
    assert int(android) > int(ios) > 2_000_000
    forms = wait_for(lambda: (lambda f: f if len(f) >= 2 else None)(event_forms(events)), what="two ACTION_SUB events")
    assert [(f["messageType"], f["creatorName"], f["initialId"], f["originatorText"], f["destination"], f["subject"])
            for f in forms] == [("DPN", "dpnuser", "ACTION_SUB", ios, "/external/notifications/subscribe", "Msg A"),
                                ("DPN", "dpnuser", "ACTION_SUB", android, "/external/notifications/subscribe", "Msg B")]
    assert int(forms[1]["msgNo"]) > int(forms[0]["msgNo"])
    assert len(forms[0]["createTime"]) == 16 and forms[0]["createTime"][4] == "-"
    assert all(post["content_type"].startswith("application/x-www-form-urlencoded") for post in events.all_posts())
    poll = accepted(server, "received", user="dpnuser", pwd=PASSWORD, lastMsgId="0")
    assert [line.split("\t")[3:] for line in poll] == [["ACTION_SUB", "DPN", "null", ios, "Msg A", "Msg A"],
                                                       ["ACTION_SUB", "DPN", "null", android, "Msg B", "Msg B"]]
    assert all(line.startswith(";;") for line in poll)

    # One registry: the recipients are registrations of the app.
    out = run_tandem("app", "show", app_key, "--config", str(server.config_path))
    assert out.returncode == 0 and "myMSP user:   dpnuser" in out.stdout and "2 active, 0 inactive" in out.stdout, out.stdout
    assert query(server, "SELECT origin, platform FROM registrations ORDER BY id") == [("mymsp", "iOS"), ("mymsp", "Android")]

    # A group (CLI) and a send to an id and the group: one msgno, a push to each carrying it.
    out = run_tandem("app", "mymsp-group", app_key, "everyone", "--short-name", "all", "--recipients", f"{ios},{android}",
                     "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr
    long_text = "Breaking: " + "x" * 3_990
    assert len(long_text.encode()) == 4_000
    sent_at = time.time()
    [msgno] = accepted(server, "send", user="dpnuser", pwd=PASSWORD, message=long_text, recipients=f"{ios}, all",
                       collapsekey="news", timetolive="600", delaywhileidle="true", restrictedpackagename="com.example.news")
    assert int(msgno) > int(forms[1]["msgNo"])
    [push] = apns.wait_for_requests(1)
    assert push["status"] == 200 and push["token"] == ios_token, push
    assert push["payload"]["msgno"] == int(msgno), push["payload"]
    assert push["headers"]["apns-collapse-id"] == "news", push["headers"]
    assert sent_at + 590 <= int(push["headers"]["apns-expiration"]) <= time.time() + 600, push["headers"]
    assert push["payload_size"] <= 4096 and len(push["payload"]["aps"]["alert"]["body"]) < 4_000
    [fcm_send] = wait_for(lambda: fcm.sends() or None, what="the FCM send")
    message = fcm_send["message"]
    assert fcm_send["status"] == 200 and fcm_send["violation"] is None, fcm_send
    assert message["token"] == android_token and message["data"]["msgno"] == msgno, message
    assert (message["android"]["collapse_key"], message["android"]["ttl"], message["android"]["priority"],
            message["android"]["restricted_package_name"]) == ("news", "600s", "NORMAL", "com.example.news"), message
    assert len(message["data"]["body"] if "body" in message["data"] else "") < 4_000

    # get: the whole text, once per msgno; it counts as the delivery acknowledgement.
    lines = accepted(server, "get", user="dpnuser", recipientid=ios, lastmsgno="0")
    assert len(lines) == 1 and lines[0].split("\t")[0] == msgno and lines[0].split("\t")[2] == long_text, lines
    assert len(lines[0].split("\t")[1]) == 17
    assert accepted(server, "get", user="dpnuser", recipientid=ios, lastmsgno=msgno) == []
    assert accepted(server, "get", user="dpnuser", recipientid=ios, lastmsgno="0", sentafter="29991231235959999") == []
    assert refused(server, "get", user="dpnuser", recipientid=ios) == 392
    assert refused(server, "get", user="dpnuser", recipientid=ios, lastmsgno="x") == 391
    message_id = push["payload"]["messageId"]

    def acknowledged():
        view = message_view(server, token, message_id)
        mine = [r for r in view["recipients"] if any(e["event"] == "deliveryAcknowledged" for e in r["events"])]
        return mine or None
    [recipient] = wait_for(acknowledged, what="the get to acknowledge the iOS delivery")
    assert recipient["status"] in ("Delivered", "Read"), recipient

    # updatekey on an inactive recipient reactivates it; unsubscribe keeps it active; unsubscribeall does not.
    [third] = accepted(server, "subscribe", user="dpnuser", spid="apns", key="ok" + "c3" * 32)
    assert accepted(server, "unsubscribeall", user="dpnuser", recipientid=third, spid="apns", message="bye") == [third]
    assert accepted(server, "updatekey", user="dpnuser", recipientid=third, spid="apns", key="ok" + "d4" * 32) == [third, "reactivated"]
    assert accepted(server, "updatekey", user="dpnuser", recipientid=third, spid="apns", key="ok" + "d4" * 32) == [third]
    assert accepted(server, "unsubscribe", user="dpnuser", recipientid=third, spid="apns", message="less") == [third]
    assert len(accepted(server, "send", user="dpnuser", pwd=PASSWORD, message="still here", recipients=third)) == 1
    assert accepted(server, "unsubscribeall", user="dpnuser", recipientid=third, spid="apns") == [third]
    assert refused(server, "send", user="dpnuser", pwd=PASSWORD, message="gone?", recipients=third) == 28
    assert refused(server, "send", user="dpnuser", pwd=PASSWORD, message="x", recipients="123, nogroup") == 28
    # An inactive recipient's unsubscribe makes no event.
    assert accepted(server, "unsubscribeall", user="dpnuser", recipientid=third, spid="apns") == [third]

    # A dead key: APNs answers 410; the recipient is deactivated with an ACTION_UNSUB_ALL of its own.
    [dead] = accepted(server, "subscribe", user="dpnuser", spid="apns", key="gone" + "e5" * 30)
    accepted(server, "send", user="dpnuser", pwd=PASSWORD, message="are you there?", recipients=dead)

    def unsub_event():
        return [f for f in event_forms(events) if f["originatorText"] == dead and f["initialId"] == "ACTION_UNSUB_ALL"] or None
    [gone] = wait_for(unsub_event, what="the ACTION_UNSUB_ALL of the dead key")
    assert (gone["destination"], gone["subject"]) == ("", f"unsub [{dead}]"), gone
    assert refused(server, "send", user="dpnuser", pwd=PASSWORD, message="again", recipients=dead) == 28
    assert query(server, "SELECT status FROM registrations WHERE push_token = ?", ("gone" + "e5" * 30,)) == [("Invalid",)]

    # Events arrived in msgno order, each once; the poll has them all, cleaned on request.
    forms = event_forms(events)
    numbers = [int(f["msgNo"]) for f in forms]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), numbers
    actions = [(f["initialId"], f["originatorText"]) for f in forms if f["originatorText"] == third]
    assert actions == [("ACTION_SUB", third), ("ACTION_UNSUB_ALL", third), ("ACTION_UNSUB", third),
                       ("ACTION_UNSUB_ALL", third)], actions
    accepted(server, "subscribe", user="dpnuser", spid="apns", key="ok" + "f6" * 32, message="two\r\nlines\tand tab")
    status, raw, _ = call(server, "received", user="dpnuser", pwd=PASSWORD, lastMsgId=str(numbers[-1]))
    assert status == 200 and raw.endswith("\ttwo\r\nlines\tand tab\ttwo\r\nlines\tand tab\n"), raw  # not cleaned
    [clean] = accepted(server, "received", user="dpnuser", pwd=PASSWORD, lastMsgId=str(numbers[-1]), clean="true")
    fields = clean[2:].split("\t")
    assert fields[3:] == ["ACTION_SUB", "DPN", "null", fields[6], "two n lines and tab", "two n lines and tab"], fields
    assert refused(server, "received", user="dpnuser", pwd=PASSWORD) == 392
    assert refused(server, "received", user="dpnuser", pwd=PASSWORD, lastMsgId="-1") == 391

    # The groups as the CLI lists them.
    out = run_tandem("app", "mymsp-groups", app_key, "--config", str(server.config_path))
    assert out.stdout.strip() == f"everyone (all): {ios},{android}", out.stdout


def test_mymsp_admin_api_and_subscribe_limit(serve):
    admin = {"Authorization": "Bearer admin-token", "Content-Type": "application/json"}
    server = serve({"mymsp": {"subscribesPerClientIP": {"limit": 2, "window": "1h"}}}, env={"TANDEM_ADMIN_TOKEN": "admin-token"})
    token = create_account(server, "Acme")
    app_key = create_app(server, token, "NewsApp")
    # The admin API binds the user (the password is taken, never shown) and manages its groups.
    status, body, _ = http(server, "PUT", f"/admin/apps/{app_key}/mymsp", json.dumps({"user": "u1", "password": PASSWORD}), admin)
    assert (status, json.loads(body)) == (200, {"user": "u1", "eventUrl": None}), body
    status, body, _ = http(server, "PUT", f"/admin/apps/{app_key}/mymsp", json.dumps({"user": "u1", "pwd": "x"}), admin)
    assert status == 400, body
    [first] = accepted(server, "subscribe", user="u1", spid="fcm", key="k1")
    [second] = accepted(server, "subscribe", user="u1", spid="gcm", key="k2")
    status, body, _ = http(server, "PUT", f"/admin/apps/{app_key}/mymsp/groups/team",
                           json.dumps({"shortName": "t", "recipients": f"{first}, {second}"}), admin)
    assert (status, json.loads(body)) == (200, {"name": "team", "shortName": "t", "recipients": [int(first), int(second)]}), body
    # Short names are unique per user: another group asking for "t" is 409, and nothing changes.
    status, body, _ = http(server, "PUT", f"/admin/apps/{app_key}/mymsp/groups/other",
                           json.dumps({"shortName": "t", "recipients": f"{first}"}), admin)
    assert status == 409 and "short name" in json.loads(body)["error"], body
    status, body, _ = http(server, "GET", f"/admin/apps/{app_key}/mymsp", headers=admin)
    assert status == 200 and PASSWORD not in body.decode(), body
    assert json.loads(body)["groups"] == [{"name": "team", "shortName": "t", "recipients": [int(first), int(second)]}]
    status, _, _ = http(server, "DELETE", f"/admin/apps/{app_key}/mymsp/groups/team", headers=admin)
    assert status == 204
    status, _, _ = http(server, "DELETE", f"/admin/apps/{app_key}/mymsp/groups/team", headers=admin)
    assert status == 404
    # A third subscribe from this address within the hour: 429 with Retry-After, N / 13, and no event.
    status, body, headers = call(server, "subscribe", user="u1", spid="fcm", key="k3")
    assert (status, body) == (429, "N\n13\n") and int(headers["Retry-After"]) > 0, (status, body, headers)
    # Without an event URL the events are polled: the two subscribes, in msgno order.
    poll = accepted(server, "received", user="u1", pwd=PASSWORD, lastMsgId="0")
    assert [line.split("\t")[6] for line in poll] == [first, second], poll
    assert int(poll[1][2:].split("\t")[0]) > int(poll[0][2:].split("\t")[0])
