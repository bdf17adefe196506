"""One real `tandem serve` against real protocol peers named in its `providers` config: SMS over SMPP 3.4 to
the smpp34 SMSC behind its recording wire tap (Tests/peers/smpp_smsc.py, which answers every submit_sm that
asks for one with a DELIVRD receipt), and push over APNs — HTTP/2, TLS, ES256 provider tokens — to the APNs
fake (Tests/peers/apns_fake.py, which answers by the device token's prefix: `ok…` 200, `gone…` 410
Unregistered). Each test checks both sides: what the peers got on the wire, and what Tandem reports (the
message view, the device API, the sender's webhook)."""
import time

import pytest

from conftest import wait_for
from device_support import create_app_with_secret, error_lines
from gateway_support import WebhookReceiver, create_account, final_recipient, message_view, send_message
from provider_support import (APNS_KEY_ID, APNS_TEAM_ID, APNS_TOPIC, APNs, SMSC, SMPP_PASSWORD_ENV, providers_config,
                              registered_ios_device, set_apns, set_webhook, wait_quiet)

FAST = {"statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}}
THIRTY_DAYS = 30 * 24 * 3600  # the push TTL of the Default policy ("providerMaximum")


# The peers are requested before `serve` in every test so that they are torn down after the server: Tandem
# unbinds from a live SMSC at shutdown instead of seeing the connection drop.

@pytest.fixture(autouse=True)
def smpp_password(monkeypatch):
    """The SMPP password the config names, in this process's environment: `tandem serve` needs it, and so do
    the CLI commands run with the same config (every secret is resolved when a config is loaded)."""
    monkeypatch.setenv(SMPP_PASSWORD_ENV, "s3cret")  # SMPP 3.4: at most 8 characters


@pytest.fixture
def smsc(tmp_path):
    peer = SMSC(tmp_path, dlr="both")
    yield peer
    peer.stop()


@pytest.fixture
def apns(tmp_path):
    peer = APNs(tmp_path)
    yield peer
    peer.stop()


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


def events(recipient, kind):
    return [(e["event"], e["detail"]) for e in recipient["events"] if e["event"] == kind]


def test_sms_over_smpp_with_delivery_receipts(smsc, webhook, serve):
    server = serve({**FAST, **providers_config(smsc=smsc)})
    token = create_account(server, "Acme")
    set_webhook(server, token, webhook.url)

    # One part: a CM message to a number without an app goes out as one submit_sm, asking for a receipt.
    line = send_message(server, token, ["0031612345678"], "Hello over SMPP", reference="smpp-1")
    assert line["parts"] == 1
    [submit] = smsc.wait_for_submits("31612345678", 1)
    assert (submit.source_addr, submit.source_addr_ton, submit.source_addr_npi) == ("Acme", 5, 0), submit.fields
    assert (submit.dest_addr_ton, submit.dest_addr_npi, submit.registered_delivery) == (1, 1, 1), submit.fields
    assert (submit.esm_class, submit.data_coding, submit.text) == (0, 0, "Hello over SMPP"), submit.fields

    # The SMSC's DELIVRD receipt (answered deliver_sm_resp OK) makes the recipient Delivered by SMS.
    recipient = final_recipient(server, token, line["messageId"])
    assert (recipient["status"], recipient["resolution"], recipient["channel"], recipient["fallback"],
            recipient["smsCause"]) == ("Delivered", "deliveredBySMS", "SMS", False, "noAppKey"), recipient
    assert events(recipient, "smsSubmitted") == [("smsSubmitted", f"smpp {submit.message_id}")]
    assert events(recipient, "smsPartReported") == [("smsPartReported", f"{submit.message_id} delivered")]
    assert [(r["message_id"], r["state"]) for r in smsc.receipts_sent()] == [(submit.message_id, 2)]
    wait_for(lambda: [r["status"] for r in smsc.tap("c2s", "deliver_sm_resp")] == [0], what="the deliver_sm_resp")

    # The sender's webhook gets the final status, once.
    reports = wait_quiet(webhook.delivered)
    assert len(reports) == 1, reports
    report = reports[0]["messages"]["msg"]
    assert (report["to"], report["reference"], report["messageId"]) == ("0031612345678", "smpp-1", line["messageId"])
    assert (report["status"]["code"], report["tandemStatus"], report["channel"], report["fallback"]) == (
        "2", "Delivered", "SMS", False), report

    # Two parts: 200 GSM characters go as two concatenated submit_sm (esm_class 0x40, UDH 05 00 03 ref 02 n,
    # 153 + 47 septets), each with its own SMSC message id and its own receipt; the message is Delivered once
    # both parts are reported delivered. (The peer cannot hold one part's receipt back, so "not before the
    # second receipt" is covered by the timeline naming both parts, not by observing the state in between.)
    text = ("Parcel 4711: " + "abcdefghij" * 20)[:200]
    line = send_message(server, token, ["0031612345679"], text, reference="smpp-2")
    assert line["parts"] == 2
    parts = smsc.wait_for_submits("31612345679", 2)
    assert len(parts) == 2, parts
    reference = parts[0].udh[3]
    assert [p.udh for p in parts] == [bytes([5, 0, 3, reference, 2, 1]), bytes([5, 0, 3, reference, 2, 2])], parts
    assert [(p.esm_class, p.data_coding, p.registered_delivery) for p in parts] == [(0x40, 0, 1)] * 2
    assert [(p.source_addr, p.source_addr_ton, p.destination_addr) for p in parts] == [("Acme", 5, "31612345679")] * 2
    assert [len(p.payload) for p in parts] == [153, 47] and parts[0].text + parts[1].text == text
    ids = [p.message_id for p in parts]
    assert len(set(ids)) == 2, ids

    recipient = final_recipient(server, token, line["messageId"])
    assert (recipient["status"], recipient["channel"], recipient["fallback"]) == ("Delivered", "SMS", False), recipient
    assert events(recipient, "smsSubmitted") == [("smsSubmitted", f"smpp {','.join(ids)}")]
    assert sorted(events(recipient, "smsPartReported")) == sorted(("smsPartReported", f"{i} delivered") for i in ids)
    assert recipient["updatedAt"] >= max(e["at"] for e in recipient["events"] if e["event"] == "smsPartReported")
    assert sorted(r["message_id"] for r in smsc.receipts_sent() if r["message_id"] in ids) == sorted(ids)
    reports = wait_quiet(webhook.delivered)
    assert len(reports) == 2, reports
    report = reports[1]["messages"]["msg"]
    assert (report["reference"], report["tandemStatus"], report["channel"]) == ("smpp-2", "Delivered", "SMS"), report
    assert error_lines(server) == []

    # At shutdown Tandem unbinds: `unbind` is the last PDU it writes. (smpp34's unbind_resp is not asserted:
    # its server often closes the connection before writing it.)
    server.stop()
    assert server.process.returncode == 0, server.stderr()
    written = [r for r in smsc.records() if r.get("tap") == "c2s"]
    assert written[-1]["command"] == "unbind" and len(smsc.tap("c2s", "unbind")) == 1, written[-3:]


def test_device_journey_over_smpp_and_apns(smsc, apns, serve):
    # The app uses the APNs sandbox; the production URL leads nowhere.
    server = serve({**FAST, **providers_config(smsc=smsc, apns=apns, apns_environment="sandbox")})
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "MyApp")
    set_apns(server, app_key, apns, sandbox=True)
    push_token = "ok" + "a1b2c3d4" * 8
    device = registered_ios_device(server, smsc, app_key, secret, "MyApp", "0031612345678", push_token)

    sent_at = time.time()
    line = send_message(server, token, ["0031612345678"], "Your parcel is on its way", sender="MyShop", appKey=app_key,
                        reference="push-1")
    message_id = line["messageId"]

    # One POST /3/device/<token> that the fake accepted: provider token, headers and payload all valid.
    [request] = apns.wait_for_requests(1)
    assert (request["status"], request["reason"], request["violation"]) == (200, None, None), request
    assert request["token"] == push_token and request["authority"] == f"127.0.0.1:{apns.port}", request
    headers = request["headers"]
    assert (headers["apns-topic"], headers["apns-push-type"], headers["apns-priority"], headers["apns-collapse-id"]) == (
        APNS_TOPIC, "alert", "5", message_id), headers
    assert abs(int(headers["apns-expiration"]) - (sent_at + THIRTY_DAYS)) < 60, headers
    jwt_header, claims = apns.verify_jwt(request["jwt"])   # the signature checked here too, with the .p8's key
    assert (jwt_header["alg"], jwt_header["kid"], claims["iss"]) == ("ES256", APNS_KEY_ID, APNS_TEAM_ID), jwt_header
    assert abs(claims["iat"] - sent_at) < 60, claims
    recipient = message_view(server, token, message_id)["recipients"][0]
    payload = request["payload"]
    assert (payload["messageId"], payload["updateId"]) == (message_id, str(recipient["updateId"])), payload
    assert payload["aps"]["alert"] == {"title": "MyShop", "body": "Your parcel is on its way"}, payload
    wait_for(lambda: events(message_view(server, token, message_id)["recipients"][0], "pushAccepted"), what="pushAccepted")
    assert device.messages().json()[0]["UpdateID"] == payload["updateId"]

    # The app acknowledges with the UpdateID from the push: Delivered by push, final.
    reply = device.receipt({"UpdateID": payload["updateId"], "Status": "Delivered"})
    assert (reply.status, reply.body) == (204, b""), reply
    recipient = final_recipient(server, token, message_id)
    assert (recipient["status"], recipient["resolution"], recipient["channel"], recipient["fallback"],
            recipient["smsCause"]) == ("Delivered", "deliveredByPush", "Push", False, None), recipient
    assert events(recipient, "pushAccepted") == [("pushAccepted", device.device_id)]
    assert events(recipient, "deliveryAcknowledged") == [("deliveryAcknowledged", device.device_id)]
    assert events(recipient, "smsSubmitted") == []

    # Exactly one push, and no SMS to that number but the PIN.
    assert len(wait_quiet(apns.requests)) == 1
    assert [s.registered_delivery for s in smsc.submits("31612345678")] == [0]
    assert smsc.receipts_sent() == []
    assert error_lines(server) == []


def test_dead_apns_token_invalidates_the_registration_and_falls_back_to_sms(smsc, apns, serve):
    # The app uses APNs production; the sandbox URL leads nowhere.
    server = serve({**FAST, **providers_config(smsc=smsc, apns=apns, apns_environment="production")})
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "MyApp")
    set_apns(server, app_key, apns, sandbox=False)
    push_token = "gone" + "0f1e2d3c" * 8
    device = registered_ios_device(server, smsc, app_key, secret, "MyApp", "0031612345670", push_token)

    line = send_message(server, token, ["0031612345670"], "Your order has shipped", appKey=app_key, reference="dead-1")
    message_id = line["messageId"]
    [request] = apns.wait_for_requests(1)
    assert (request["status"], request["reason"], request["violation"], request["token"]) == (
        410, "Unregistered", None, push_token), request

    # The SMS fallback reaches the SMSC, whose receipt makes it Delivered by SMS.
    sms = smsc.wait_for_submits("31612345670", 2)[1]
    assert (sms.text, sms.source_addr, sms.source_addr_ton, sms.registered_delivery) == (
        "Your order has shipped", "Acme", 5, 1), sms.fields
    recipient = final_recipient(server, token, message_id)
    assert (recipient["status"], recipient["channel"], recipient["fallback"], recipient["smsCause"]) == (
        "Delivered", "SMS", True, "pushFailed"), recipient
    assert events(recipient, "pushRejected") == [("pushRejected", f"{device.device_id} tokenDead")]
    assert events(recipient, "smsSubmitted") == [("smsSubmitted", f"smpp {sms.message_id}")]
    assert events(recipient, "smsPartReported") == [("smsPartReported", f"{sms.message_id} delivered")]

    # The registration is Invalid now, and out of routing: the next message goes straight to SMS, no push.
    reply = device.show()
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "Invalid", reply
    line = send_message(server, token, ["0031612345670"], "Second message", appKey=app_key, reference="dead-2")
    recipient = final_recipient(server, token, line["messageId"])
    assert (recipient["status"], recipient["channel"], recipient["fallback"]) == ("Delivered", "SMS", False), recipient
    assert (recipient["smsCause"], events(recipient, "routed")) == (
        "noPushableDevice", [("routed", "sms (noPushableDevice) as Default")]), recipient
    assert [s.text for s in smsc.submits("31612345670")][1:] == ["Your order has shipped", "Second message"]
    assert len(wait_quiet(apns.requests)) == 1
    assert error_lines(server) == []
