"""The CM MESSAGES gateway against the real `tandem serve`: CM's own Python SDK, idempotency, status reports
through a flaky webhook, tenant isolation, OTP manual fallback, the XML and GET forms."""
import json
import time

from cm_text import TextClient

from conftest import wait_for
from gateway_support import (WebhookReceiver, add_verified_device, create_account, create_app, http, messages_request,
                             msg, query)

# The simulated app never acknowledges: these tests send the receipts themselves.
FAST = {"simulator": {"push": {"latency": "1ms", "default": {"behaviour": "neverAck"}},
                      "sms": {"latency": "1ms", "reportAfter": "50ms"}},
        "statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}}


def view(server, token, id_or_reference):
    status, body, _ = http(server, "GET", f"/v1.0/message/{id_or_reference}", headers={"X-CM-PRODUCTTOKEN": token})
    return status, (json.loads(body) if body else None)


def test_cm_python_sdk_single_and_multi_recipient(serve):
    server = serve(FAST)
    token = create_account(server)
    client = TextClient(apikey=token, gateway=server.url + "/v1.0/message")
    response = client.SendSingleMessage(message="Hello from the SDK", from_="Tandem", to=["0031612345678"], reference="sdk-1")
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["errorCode"] == 0 and reply["details"] == "Created 1 message(s)"
    assert [(line["to"], line["status"], line["reference"], line["parts"]) for line in reply["messages"]] == [
        ("0031612345678", "Accepted", "sdk-1", 1)]

    client = TextClient(apikey=token, gateway=server.url + "/v1.0/message")
    client.AddMessage(message="To two people " + "x" * 150, from_="Tandem", to=["0031612345670", "+31612345671"], reference="sdk-2")
    client.AddMessage(message="Ünïcödé ✓", from_="Tandem", to=["0044791112345"], reference="sdk-3")
    response = client.send()
    assert response.status_code == 200, response.text
    lines = response.json()["messages"]
    assert [(line["to"], line["status"], line["parts"]) for line in lines] == [
        ("0031612345670", "Accepted", 2), ("+31612345671", "Accepted", 2), ("0044791112345", "Accepted", 1)]

    rows = query(server, """SELECT m.reference, d.msisdn, m.allowed_channels, m.custom_grouping3, a.name
                            FROM deliveries d JOIN messages m ON m.id = d.message_id JOIN accounts a ON a.id = m.account_id
                            ORDER BY d.id""")
    assert [row[:2] for row in rows] == [("sdk-1", "+31612345678"), ("sdk-2", "+31612345670"), ("sdk-2", "+31612345671"),
                                         ("sdk-3", "+44791112345")]
    assert {row[2] for row in rows} == {'["SMS"]'} and {row[4] for row in rows} == {"Acme"}
    assert all(row[3].startswith("text-sdk-python") for row in rows)
    # The simulated SMSC delivers each one; the sender can poll the outcome.
    status, body = wait_for(lambda: (lambda r: r if r[1]["recipients"][0]["final"] else None)(view(server, token, "sdk-1")))
    assert status == 200 and body["recipients"][0]["status"] == "Delivered" and body["recipients"][0]["channel"] == "SMS"


def test_idempotency_key_replays_the_first_response(serve):
    server = serve(FAST)
    token = create_account(server)
    request = messages_request(token, msg(["0031612345678", "0031612345679"]))
    first = http(server, "POST", "/v1.0/message", request, {"Idempotency-Key": "order-77"})
    again = http(server, "POST", "/v1.0/message", request, {"Idempotency-Key": "order-77"})
    assert first[0] == again[0] == 200 and first[1] == again[1]
    assert query(server, "SELECT count(*) FROM deliveries") == [(2,)]
    different = http(server, "POST", "/v1.0/message", messages_request(token, msg(["0031612345600"])),
                     {"Idempotency-Key": "order-77"})
    assert different[0] == 422
    assert query(server, "SELECT count(*) FROM deliveries") == [(2,)]


def test_status_reports_survive_a_flaky_webhook_exactly_once_per_final_status(serve):
    receiver = WebhookReceiver(failures=2)
    try:
        server = serve(FAST)
        token = create_account(server)
        from conftest import run_tandem
        out = run_tandem("account", "set-webhook", token, receiver.url, "--config", str(server.config_path))
        assert out.returncode == 0, out.stderr
        status, body, _ = http(server, "POST", "/v1.0/message",
                               messages_request(token, msg(["0031612345678"], reference="dlr-1")))
        assert status == 200 and json.loads(body)["errorCode"] == 0
        wait_for(lambda: receiver.delivered(), timeout=15, what="a delivered status report")
        time.sleep(1.0)  # room for a duplicate to show up, if there were one
        posts = receiver.all_posts()
        assert [post["status"] for post in posts] == [503, 503, 200]
        assert len({post["body"] for post in posts}) == 1
        report = receiver.delivered()[0]["messages"]["msg"]
        assert report["to"] == "0031612345678" and report["reference"] == "dlr-1"
        assert report["status"]["code"] == "2" and report["tandemStatus"] == "Delivered" and report["channel"] == "SMS"
        assert report["fallback"] is False
        assert query(server, "SELECT attempts, delivered_at IS NOT NULL FROM outbox") == [(3, 1)]
        assert [line for line in server.log_lines() if line.get("level") == "error"] == []
    finally:
        receiver.close()


def test_tenant_isolation(serve):
    server = serve(FAST)
    alice, bob = create_account(server, "Alice"), create_account(server, "Bob")
    bob_app = create_app(server, bob, "Bob's app")
    status, body, _ = http(server, "POST", "/v1.0/message", messages_request(alice, msg(["0031612345678"], reference="private")))
    message_id = json.loads(body)["messages"][0]["messageId"]
    assert view(server, alice, message_id)[0] == 200
    assert view(server, bob, message_id)[0] == 404
    assert view(server, bob, "private")[0] == 404
    assert http(server, "POST", f"/v1.0/message/{message_id}/fallback", b"", {"X-CM-PRODUCTTOKEN": bob})[0] == 404
    assert view(server, "00000000-0000-4000-8000-000000000000", message_id)[0] == 401
    status, body, _ = http(server, "POST", "/v1.0/message", messages_request(alice, msg(["0031612345678"], appKey=bob_app)))
    line = json.loads(body)["messages"][0]
    assert (line["status"], line["messageErrorCode"]) == ("Rejected", 403)


def test_otp_manual_fallback_by_endpoint_and_by_fallback_for(serve):
    receiver = WebhookReceiver()
    try:
        server = serve(FAST)
        token = create_account(server)
        from conftest import run_tandem
        assert run_tandem("account", "set-webhook", token, receiver.url, "--config", str(server.config_path)).returncode == 0
        app = create_app(server, token, "Bank", "OTP")
        add_verified_device(server, app, "+31612345678")

        # 1. The explicit call: the OTP's push is terminated and its own SMS goes out, once.
        status, body, _ = http(server, "POST", "/v1.0/message",
                               messages_request(token, msg(["0031612345678"], "Code 111111", appKey=app, reference="otp-1")))
        otp_id = json.loads(body)["messages"][0]["messageId"]
        wait_for(lambda: any(e["event"] == "pushAccepted" for e in view(server, token, otp_id)[1]["recipients"][0]["events"]))
        status, body, _ = http(server, "POST", f"/v1.0/message/{otp_id}/fallback", b"", {"X-CM-PRODUCTTOKEN": token})
        assert status == 200 and json.loads(body)["recipients"] == [{"to": "+31612345678", "fallback": "smsRequested"}]
        recipient = wait_for(lambda: (lambda r: r if r["final"] else None)(view(server, token, otp_id)[1]["recipients"][0]))
        assert recipient["status"] == "Delivered" and recipient["channel"] == "SMS" and recipient["pushTerminated"] is True
        assert recipient["fallback"] is True and recipient["smsCause"] == "manual"
        assert [e["event"] for e in recipient["events"]].count("smsSubmitted") == 1

        # 2. fallbackFor: the sender's own SMS message withdraws the earlier push (Cancelled) and is the one SMS.
        status, body, _ = http(server, "POST", "/v1.0/message",
                               messages_request(token, msg(["0031612345678"], "Code 222222", appKey=app, reference="otp-2")))
        wait_for(lambda: any(e["event"] == "pushAccepted" for e in view(server, token, "otp-2")[1]["recipients"][0]["events"]))
        status, body, _ = http(server, "POST", "/v1.0/message", messages_request(
            token, msg(["0031612345678"], "Code 222222", reference="otp-2-sms", allowedChannels=["SMS"], fallbackFor="otp-2")))
        assert status == 200 and json.loads(body)["messages"][0]["status"] == "Accepted"
        earlier = view(server, token, "otp-2")[1]["recipients"][0]
        assert earlier["status"] == "Cancelled" and earlier["resolution"] == "withdrawn" and earlier["pushTerminated"] is True
        assert "smsSubmitted" not in [e["event"] for e in earlier["events"]]
        sms = wait_for(lambda: (lambda r: r if r["final"] else None)(view(server, token, "otp-2-sms")[1]["recipients"][0]))
        assert sms["status"] == "Delivered" and sms["channel"] == "SMS"

        # One final report per delivery: otp-1 Delivered, otp-2 Cancelled, otp-2-sms Delivered.
        wait_for(lambda: len(receiver.delivered()) == 3, what="three status reports")
        time.sleep(0.5)
        reports = sorted((r["messages"]["msg"]["reference"], r["messages"]["msg"]["tandemStatus"]) for r in receiver.delivered())
        assert reports == [("otp-1", "Delivered"), ("otp-2", "Cancelled"), ("otp-2-sms", "Delivered")]
        assert [line for line in server.log_lines() if line.get("level") == "error"] == []
    finally:
        receiver.close()


def test_xml_and_get_forms(serve):
    server = serve(FAST)
    token = create_account(server)
    xml = f"""<?xml version="1.0"?>
<MESSAGES><AUTHENTICATION><PRODUCTTOKEN>{token}</PRODUCTTOKEN></AUTHENTICATION>
<MSG><FROM>Company</FROM><TO>00447911123456</TO><TO>00447911123457</TO><BODY><![CDATA[Hi <there> & you]]></BODY></MSG></MESSAGES>"""
    status, body, _ = http(server, "POST", "/gateway.ashx", xml, {"Content-Type": "application/xml"})
    assert (status, body) == (200, b"")
    xxe = """<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><MESSAGES>&e;</MESSAGES>"""
    status, body, _ = http(server, "POST", "/gateway.ashx", xxe)
    assert status == 400 and body.startswith(b"Error: ERROR ")
    status, body, _ = http(server, "GET", f"/gateway.ashx?producttoken={token}&body=Hello+there&to=0031612345678,0031612345679&from=Acme&reference=get-1")
    assert (status, body) == (200, b"")
    assert query(server, "SELECT count(*) FROM deliveries") == [(4,)]
    status, body, _ = http(server, "GET", "/gateway.ashx?producttoken=nope&body=x&to=0031612345678&from=Acme")
    assert status == 400 and body.startswith(b"Error: ERROR ")


def test_bulk_message_is_spooled_then_started_in_order(serve):
    """A msg with at least gateway.spoolRecipients accepted recipients is answered once its recipient list is
    stored; the server's drainer then starts every recipient once, in request order, and the lookup shows them."""
    server = serve({**FAST, "gateway": {"spoolRecipients": 3, "spoolChunk": 2}})
    token = create_account(server)
    numbers = ["00316200000%02d" % i for i in range(7)]
    status, reply, _ = http(server, "POST", "/v1.0/message", messages_request(token, msg(numbers + ["garbage"], reference="bulk")))
    lines = json.loads(reply)["messages"]
    assert status == 200 and [line["status"] for line in lines] == ["Accepted"] * 7 + ["Rejected"]
    message_id = lines[0]["messageId"]
    wait_for(lambda: query(server, "SELECT count(*) FROM deliveries") == [(7,)], what="every spooled recipient started")
    assert query(server, "SELECT msisdn FROM deliveries ORDER BY id") == [("+" + n[2:],) for n in numbers]
    assert query(server, "SELECT count(*) FROM message_spools") == [(0,)]
    status, body = view(server, token, message_id)
    assert status == 200 and [r["to"] for r in body["recipients"]] == ["+" + n[2:] for n in numbers]
    assert all(r["queued"] is False and isinstance(r["updateId"], int) for r in body["recipients"])
    # Sampled once a second.
    wait_for(lambda: "tandem_spool_backlog 0" in http(server, "GET", "/metrics")[1].decode(), timeout=5,
             what="the sampled spool backlog to reach 0")


def test_hostile_xml_senders_with_punctuation_and_control_characters(serve):
    server = serve(FAST)
    token = create_account(server)
    # 200,000 attributes on one element (1.6 MB, no product token): refused at the 33rd attribute.
    bomb = "<MESSAGES" + "".join(f' a{i}=""' for i in range(200_000)) + "><MSG/></MESSAGES>"
    status, body, _ = http(server, "POST", "/gateway.ashx", bomb)
    assert status == 400 and body.startswith(b"Error: ERROR ") and b"has more than 32 attributes" in body, body[:200]
    # A sender with punctuation is accepted and reaches the SMS as sent.
    status, body, _ = http(server, "POST", "/v1.0/message", messages_request(token, msg(["0031612345678"], sender="ACME corp.",
                                                                                        reference="acme")))
    assert status == 200 and json.loads(body)["errorCode"] == 0, body
    assert query(server, "SELECT sender FROM messages WHERE reference = 'acme'") == [("ACME corp.",)]
    # A control character in a body is 304 in every form, and nothing is stored.
    status, body, _ = http(server, "POST", "/v1.0/message", messages_request(token, msg(["0031612345678"], body="a\u0000b")))
    assert status == 400 and [line["messageErrorCode"] for line in json.loads(body)["messages"]] == [304], body
    xml = (f"<MESSAGES><AUTHENTICATION><PRODUCTTOKEN>{token}</PRODUCTTOKEN></AUTHENTICATION>"
           "<MSG><FROM>Shop</FROM><TO>0031612345678</TO><BODY>a\u0001b</BODY></MSG></MESSAGES>")
    status, body, _ = http(server, "POST", "/gateway.ashx", xml)
    assert (status, body) == (400, b"Error: ERROR body contains the control character U+0001; "
                                   b"only tab, line feed and carriage return are allowed"), body
    status, body, _ = http(server, "GET", f"/gateway.ashx?producttoken={token}&body=a%07b&to=0031612345678&from=Shop")
    assert status == 400 and b"U+0007" in body, body
    assert query(server, "SELECT count(*) FROM messages") == [(1,)]
