"""The device (app) REST API v1.0 against the real `tandem serve` (spec: "Hybrid Messaging API"): an install's
journey from registration through PIN verification to its inbox and receipts, the MAC signature's variants
and refusals, the PIN abuse limits and the voice call, and tenant isolation between apps."""
import json
import re
import time
import uuid

from conftest import wait_for
from device_support import (ANDROID_UA, IOS_UA, Device, create_app_with_secret, error_lines, pin_deliveries, send,
                            verify, wait_for_pin)
from gateway_support import create_account, final_recipient, message_view, send_message

# The simulated app never acknowledges: these tests send the receipts themselves.
FAST = {"simulator": {"push": {"latency": "1ms", "default": {"behaviour": "neverAck"}},
                      "sms": {"latency": "1ms", "reportAfter": "50ms"}},
        "statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}}
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$")  # the spec's format: UTC, no zone letter
GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def inbox_when(device, predicate, query=""):
    """The device's inbox once `predicate(messages)` holds."""
    def poll():
        reply = device.messages(query)
        assert reply.status == 200, reply
        messages = reply.json()
        return messages if predicate(messages) else None
    return wait_for(poll, timeout=5, what="the inbox")


def assert_unauthorized(reply, message):
    assert reply.status == 401, reply
    assert reply.json() == {"Message": message}
    assert reply.header("WWW-Authenticate") == "MAC"


def test_device_journey_register_verify_receive_and_acknowledge(serve):
    server = serve(FAST)
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "MyApp")
    device = Device(server, app_key, secret, ANDROID_UA)

    reply = device.register({"PushToken": "fcm-token-1"})
    assert reply.status == 200, reply
    registration = reply.json()
    assert GUID.match(registration["DeviceID"]) and ISO.match(registration["Created"]), registration
    assert {k: v for k, v in registration.items() if k not in ("DeviceID", "Created")} == {
        "Msisdn": None, "Platform": "Android", "RegistrationStatus": "Unverified", "RegisteredForPushNotification": False,
        "AppKey": app_key, "AppName": "MyApp", "UserAgent": ANDROID_UA, "NotificationsEnabled": True,
        "Development": False}

    # The number: a PIN goes out by SMS (the simulator logs it, with the number masked).
    reply = device.update({"Msisdn": "0031612345678"})
    assert reply.status == 200, reply
    assert (reply.json()["Msisdn"], reply.json()["RegistrationStatus"], reply.json()["RegisteredForPushNotification"]) == (
        "0031612345678", "WaitingForPin", False)
    delivered = wait_for_pin(server, 1, "sms")
    pin = delivered["pin"]
    assert re.fullmatch(r"\d{6}", pin) and delivered["text"] == f"Your MyApp verification code is {pin}"
    assert delivered["msisdn"] != "+31612345678" and "612345678" not in delivered["msisdn"]

    wrong = f"{(int(pin) + 1) % 1_000_000:06d}"
    reply = device.update({"VerificationCode": wrong})
    assert reply.status == 200, reply
    assert (reply.json()["RegistrationStatus"], reply.json()["RegisteredForPushNotification"]) == (
        "LastPinVerificationFailed", False)
    reply = device.update({"VerificationCode": pin})
    assert reply.status == 200, reply
    assert (reply.json()["RegistrationStatus"], reply.json()["RegisteredForPushNotification"]) == ("PinVerified", True)
    shown = device.show()
    assert shown.status == 200 and shown.json() == {**registration, "Msisdn": "0031612345678",
                                                    "RegistrationStatus": "PinVerified", "RegisteredForPushNotification": True}

    # A Default message through the gateway with the app key is pushed to the install and listed in its inbox.
    message_id = send_message(server, token, ["0031612345678"], "Your parcel is on its way", sender="MyShop",
                              appKey=app_key, reference="journey-1")["messageId"]
    messages = inbox_when(device, lambda found: len(found) == 1 and found[0]["Status"] == "Accepted")
    listed = messages[0]
    update_id = listed["UpdateID"]
    assert isinstance(update_id, str) and update_id.isdigit(), listed
    assert ISO.match(listed["DateTime"]), listed
    assert {k: v for k, v in listed.items() if k not in ("UpdateID", "DateTime")} == {
        "ID": message_id, "Recipient": "0031612345678", "Sender": "MyShop", "Body": "Your parcel is on its way",
        "Status": "Accepted"}
    recipient = message_view(server, token, message_id)["recipients"][0]
    assert (recipient["updateId"], recipient["status"], recipient["final"]) == (int(update_id), "Accepted", False)

    # The delivery receipt: 204, and the sender sees the recipient Delivered by push (final).
    ack_body = json.dumps({"UpdateID": update_id, "Status": "Delivered"})
    ack_headers = device.headers("PUT", "/v1.0/messages")
    reply = send(server, "PUT", "/v1.0/messages", ack_body, ack_headers)
    assert (reply.status, reply.body) == (204, b""), reply
    recipient = final_recipient(server, token, message_id)
    assert (recipient["status"], recipient["channel"], recipient["fallback"], recipient["smsCause"]) == (
        "Delivered", "Push", False, None), recipient
    events = [event["event"] for event in recipient["events"]]
    assert "smsSubmitted" not in events, events
    assert device.messages().json()[0]["Status"] == "Delivered"

    # The very same request again (signature, DeviceID, body, User-Agent, address) is a replay...
    assert_unauthorized(send(server, "PUT", "/v1.0/messages", ack_body, ack_headers), "this signature was already used")
    # ...a re-signed one is not: a later second, or an earlier one still inside the ±300 s window.
    assert device.receipt(ack_body).status == 204
    assert device.receipt(ack_body, ts=int(time.time()) - 120).status == 204
    # Acks of a final delivery are logged in its timeline and change nothing; the replay was not logged.
    final = message_view(server, token, message_id)["recipients"][0]
    assert (final["status"], final["channel"], final["final"], final["updatedAt"]) == (
        "Delivered", "Push", True, recipient["updatedAt"])
    assert [(event["event"], event["detail"]) for event in final["events"][1:]] == [
        ("pushAccepted", device.device_id)] + [("deliveryAcknowledged", device.device_id)] * 3
    assert final["events"][0]["event"] == "routed" and device.device_id in final["events"][0]["detail"]

    # Read receipt (the app displayed it), then notifications off, then a SIM change.
    reply = device.receipt({"UpdateID": update_id, "ReadByRecipient": "2026-11-21T10:00:00.000"})
    assert (reply.status, reply.body) == (204, b""), reply
    events = message_view(server, token, message_id)["recipients"][0]["events"]
    assert (events[-1]["event"], events[-1]["detail"], len(events)) == ("readReported", device.device_id, 6)
    reply = device.update({"NotificationsEnabled": False, "PushToken": "fcm-token-2"})
    assert reply.status == 200 and reply.json()["NotificationsEnabled"] is False
    assert reply.json()["RegistrationStatus"] == "PinVerified"
    reply = device.reset()
    assert reply.status == 200, reply
    assert (reply.json()["DeviceID"], reply.json()["Msisdn"], reply.json()["RegistrationStatus"]) == (
        device.device_id, None, "Unverified")
    assert device.messages().json() == []
    assert device.receipt({"UpdateID": update_id, "Status": "Delivered"}).status == 404
    assert len(pin_deliveries(server)) == 1
    assert error_lines(server) == []


def test_signature_variants_and_refusals(serve):
    server = serve({**FAST, "deviceAPI": {"hosts": ["sdk.example.test"]}})
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "MyApp")
    other_key, other_secret = create_app_with_secret(server, token, "OtherApp")

    # Host: the Host header (127.0.0.1:PORT) or a configured host; not any other.
    device = Device(server, app_key, secret, IOS_UA)
    reply = device.register({"PushToken": "apns-token-1"}, sign_host="sdk.example.test")
    assert reply.status == 200, reply
    assert (reply.json()["Platform"], reply.json()["RegistrationStatus"], reply.json()["UserAgent"]) == (
        "iOS", "Unverified", IOS_UA)
    assert device.show().status == 200
    assert device.show(sign_host="sdk.example.test").status == 200
    assert_unauthorized(device.show(sign_host="api.cmtelecom.com"), "mac does not match the request")

    # The query: sent percent-encoded, signed either as sent or decoded.
    verify(device, "0031612345678", server)
    for sender in ("A B", "Other"):
        send_message(server, token, ["0031612345678"], f"from {sender}", sender=sender, appKey=app_key)
    inbox_when(device, lambda found: len(found) == 2)
    encoded = "/v1.0/messages?$filter=Sender%20eq%20%27A%20B%27"
    decoded = "/v1.0/messages?$filter=Sender eq 'A B'"
    for signed in (encoded, decoded):
        reply = device.call("GET", encoded, sign_target=signed)
        assert reply.status == 200, (signed, reply)
        assert [(m["Sender"], m["Body"]) for m in reply.json()] == [("A B", "from A B")], signed
    assert_unauthorized(device.call("GET", encoded, sign_target="/v1.0/messages"), "mac does not match the request")
    reply = device.messages("?$orderby=Sender%20desc&$top=1&$select=Sender,Body")
    assert reply.status == 200 and reply.json() == [{"Sender": "Other", "Body": "from Other"}], reply

    # 401: wrong secret, another app's secret, unknown kid, ts outside the window either way, no header.
    assert_unauthorized(device.show(secret="not-the-secret"), "mac does not match the request")
    assert_unauthorized(device.show(secret=other_secret), "mac does not match the request")
    assert_unauthorized(device.show(kid=str(uuid.uuid4())), "kid names no app")
    assert_unauthorized(device.show(ts=int(time.time()) - 400), "ts is outside the allowed window")
    assert_unauthorized(device.show(ts=int(time.time()) + 400), "ts is outside the allowed window")
    headers = device.headers("GET", "/v1.0/deviceregistrations")
    del headers["Authorization"]
    assert_unauthorized(send(server, "GET", "/v1.0/deviceregistrations", None, headers), "the Authorization header is missing")
    headers = device.headers("GET", "/v1.0/deviceregistrations")
    headers["Authorization"] = headers["Authorization"].replace('mac="', 'sig="')
    reply = send(server, "GET", "/v1.0/deviceregistrations", None, headers)
    assert reply.status == 401 and reply.header("WWW-Authenticate") == "MAC", reply

    # 400: a User-Agent without the platform, or none; DeviceID missing, garbled, unknown, another app's.
    for agent in ("curl/8.5.0", "MyApp/1.0 (Linux; x86_64)", None):
        reply = device.show(user_agent=agent)
        assert reply.status == 400 and "User-Agent" in reply.json()["Message"], (agent, reply)
        reply = device.register(user_agent=agent)
        assert reply.status == 400, (agent, reply)
    assert device.show(user_agent="Foo/1 (Windows Phone 8.1; Nokia; Lumia 930)").status == 200
    for route in (device.show, device.messages, device.reset):
        reply = route(device_id=None)
        assert reply.status == 400 and "DeviceID" in reply.json()["Message"], reply
    assert device.update({"Msisdn": "0031612345679"}, device_id=None).status == 400
    assert device.receipt({"UpdateID": "1", "Status": "Delivered"}, device_id=None).status == 400
    assert device.show(device_id="not-a-guid").status == 400
    assert device.show(device_id=str(uuid.uuid4())).status == 400
    other = Device(server, other_key, other_secret, ANDROID_UA)
    assert other.register().status == 200
    for route in (device.show, device.messages):
        reply = route(device_id=other.device_id)
        assert reply.status == 400 and reply.json() == {"Message": "the DeviceID is not known for this app"}, reply
    reply = other.show(device_id=device.device_id)
    assert reply.status == 400 and reply.json() == {"Message": "the DeviceID is not known for this app"}, reply
    # None of the refusals changed the registration.
    assert device.show().json()["RegistrationStatus"] == "PinVerified"
    assert error_lines(server) == []


def test_pin_abuse_limit_and_voice_call(serve):
    server = serve({**FAST, "deviceAPI": {"limits": {"pinPerMSISDN": {"limit": 3, "window": "1h"}}}})
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "MyApp")
    device = Device(server, app_key, secret, ANDROID_UA)
    assert device.register({"PushToken": "fcm-token-1"}).status == 200

    # A voice call reads out the PIN sent by SMS: not before there is one.
    reply = device.voice_call()
    assert reply.status == 400 and "SMS first" in reply.json()["Message"], reply
    assert pin_deliveries(server) == []

    assert device.update({"Msisdn": "0031612345678"}).json()["RegistrationStatus"] == "WaitingForPin"   # PIN 1 of 3
    pin = wait_for_pin(server, 1, "sms")["pin"]
    reply = device.update({"Msisdn": "0031612345678"})                                                 # 2 of 3: resent
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "WaitingForPin", reply
    assert wait_for_pin(server, 2, "sms")["pin"] == pin
    reply = device.voice_call()                                                                        # 3 of 3
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "WaitingForPin", reply
    voice = wait_for_pin(server, 3, "voice")
    assert voice["pin"] == pin and voice["msisdn"] == wait_for_pin(server, 1, "sms")["msisdn"]
    assert reply.json()["Msisdn"] == "0031612345678"
    reply = device.voice_call({"Msisdn": "0031612345679"})
    assert reply.status == 400, reply

    # The number's budget is spent: any PIN to it is refused with a Retry-After, from any install.
    for attempt in (lambda: device.update({"Msisdn": "0031612345678"}), device.voice_call):
        reply = attempt()
        assert reply.status == 429 and reply.json() == {"Message": "too many PIN requests; try again later"}, reply
        assert re.fullmatch(r"\d+", reply.header("Retry-After") or ""), reply.headers
        assert 1 <= int(reply.header("Retry-After")) <= 3600
    second = Device(server, app_key, secret, IOS_UA)
    assert second.register().status == 200
    reply = second.update({"Msisdn": "0031612345678"})
    assert reply.status == 429 and 1 <= int(reply.header("Retry-After")) <= 3600, reply
    assert second.show().json()["RegistrationStatus"] == "Unverified"
    # Another number still gets its PIN; and the refusals sent nothing and changed nothing.
    assert second.update({"Msisdn": "0031612345670"}).json()["RegistrationStatus"] == "WaitingForPin"
    assert wait_for_pin(server, 4, "sms")["msisdn"] != voice["msisdn"]
    time.sleep(0.1)
    assert len(pin_deliveries(server)) == 4
    reply = device.update({"VerificationCode": pin})
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "PinVerified", reply
    assert [line for line in server.log_lines() if line.get("msg") == "PIN request refused by an abuse limit"] != []
    assert error_lines(server) == []


def test_tenant_isolation_between_apps_on_one_number(serve):
    server = serve(FAST)
    alice, bob = create_account(server, "Alice"), create_account(server, "Bob")
    alice_key, alice_secret = create_app_with_secret(server, alice, "AliceApp")
    bob_key, bob_secret = create_app_with_secret(server, bob, "BobApp")
    alice_device = Device(server, alice_key, alice_secret, ANDROID_UA)
    bob_device = Device(server, bob_key, bob_secret, IOS_UA)
    verify(alice_device, "0031612345678", server)
    # Bob's install registers with its token and number at once: the PIN goes out straight away.
    reply = bob_device.register({"PushToken": "apns-bob", "Msisdn": "0031612345678"})
    assert reply.status == 200, reply
    assert (reply.json()["Msisdn"], reply.json()["RegistrationStatus"], reply.json()["AppName"]) == (
        "0031612345678", "WaitingForPin", "BobApp")
    delivered = wait_for_pin(server, 2, "sms")
    assert delivered["text"] == f"Your BobApp verification code is {delivered['pin']}"
    reply = bob_device.update({"VerificationCode": delivered["pin"]})
    assert (reply.json()["RegistrationStatus"], reply.json()["RegisteredForPushNotification"]) == ("PinVerified", True)

    message_id = send_message(server, alice, ["0031612345678"], "For Alice's app only", appKey=alice_key)["messageId"]
    update_id = inbox_when(alice_device, lambda found: len(found) == 1)[0]["UpdateID"]
    assert message_view(server, alice, message_id)["recipients"][0]["updateId"] == int(update_id)

    # Bob's install on the same number sees nothing and cannot acknowledge or read Alice's message.
    assert bob_device.messages().json() == []
    assert bob_device.messages(f"?$filter=UpdateID%20eq%20{update_id}").json() == []
    assert alice_device.messages(f"?$filter=UpdateID%20eq%20{update_id}").json()[0]["UpdateID"] == update_id
    for receipt in ({"UpdateID": update_id, "Status": "Delivered"},
                    {"UpdateID": update_id, "ReadByRecipient": "2026-11-21T10:00:00.000"}):
        reply = bob_device.receipt(receipt)
        assert reply.status == 404, reply
        assert reply.json() == {"Message": f"no message with UpdateID {update_id} for this device"}
    # Nor can Bob's app use Alice's install (the DeviceID is another app's).
    reply = bob_device.receipt({"UpdateID": update_id, "Status": "Delivered"}, device_id=alice_device.device_id)
    assert reply.status == 400 and reply.json() == {"Message": "the DeviceID is not known for this app"}, reply
    recipient = message_view(server, alice, message_id)["recipients"][0]
    assert (recipient["status"], recipient["final"]) == ("Accepted", False), recipient

    # Alice's own install, on another number, does not see it either; an unknown UpdateID is 404 as well.
    elsewhere = Device(server, alice_key, alice_secret, ANDROID_UA)
    verify(elsewhere, "0031612345679", server)
    assert elsewhere.messages().json() == []
    assert elsewhere.receipt({"UpdateID": update_id, "Status": "Delivered"}).status == 404
    assert alice_device.receipt({"UpdateID": str(int(update_id) + 1000), "Status": "Delivered"}).status == 404

    # The install it was pushed to can.
    assert alice_device.receipt({"UpdateID": update_id, "Status": "Delivered"}).status == 204
    recipient = final_recipient(server, alice, message_id)
    assert (recipient["status"], recipient["channel"]) == ("Delivered", "Push")
    assert bob_device.messages().json() == []
    assert error_lines(server) == []
