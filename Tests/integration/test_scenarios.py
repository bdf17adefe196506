"""The hybrid scenarios end to end, black-box: ONE real `tandem serve` process carries all of them, over real
sockets, against protocol peers no one here wrote — SMS over SMPP 3.4 to the smpp34 SMSC behind its recording
wire tap (Tests/peers/smpp_smsc.py: a DELIVRD receipt for every submit_sm that asks for one), push over
HTTP/2 + TLS to the h2 APNs fake (Tests/peers/apns_fake.py: verifies the ES256 provider token, answers by
device-token prefix, `ok…` 200 and `gone…` 410), status reports to a webhook receiver. Devices are real
installs: registered through the device API and verified with the PIN read at the SMSC.

Each scenario checks all five views of what happened: what the SMSC received, what the APNs fake received,
the app's own `GET /v1.0/messages`, the sender's status reports, and the delivery's event log (the timeline
of `GET /v1.0/message/{id}`).

The policies are Tests/integration/policies: the shipped ones with the Critical windows and the OTP lifetime
shortened from 30 s to WINDOW. Timing is asserted against the server's own record of when the push was
routed: an SMS fallback is never before the deadline (SMSC arrival time and the timer's event) and arrives
within TOLERANCE after it.
"""
import os
import time
from datetime import datetime

import pytest

from conftest import REPO, Server, wait_for
from device_support import create_app_with_secret, error_lines
from gateway_support import (WebhookReceiver, create_account, final_recipient, http, message_view, query,
                             send_message)
from provider_support import (APNs, SMSC, SMPP_PASSWORD_ENV, providers_config, registered_ios_device, set_apns,
                              set_webhook, smsc_number, wait_quiet)

WINDOW = 3.0     # seconds: Critical afterNoDeliveryAck/afterNoRead and the OTP lifetime in the test policies
TOLERANCE = 0.5  # seconds after a deadline within which its SMS must reach the SMSC (10 ms ticks; measured 2-7 ms, debug build)
POLICIES = REPO / "Tests" / "integration" / "policies"
APP = "MyApp"


def at(text):
    """An ISO 8601 timestamp of the API ("…T10:00:00.123Z") as Unix seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class World:
    """The one server, its peers, one sender account with a webhook, and one app pushing through APNs."""

    def __init__(self, directory):
        self.smsc = SMSC(directory, dlr="both")
        self.apns = APNs(directory)
        self.webhook = WebhookReceiver()
        (directory / "server").mkdir()
        config = {**providers_config(smsc=self.smsc, apns=self.apns, apns_environment="sandbox"),
                  "policies": str(POLICIES),
                  "statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}}
        self.server = Server(directory / "server", config=config)
        self.token = create_account(self.server, "Acme")
        set_webhook(self.server, self.token, self.webhook.url)
        self.app_key, self.secret = create_app_with_secret(self.server, self.token, APP)
        set_apns(self.server, self.app_key, self.apns, sandbox=True)

    def close(self):
        self.server.stop()
        self.apns.stop()
        self.smsc.stop()
        self.webhook.close()

    # Acting as the sender and as the app.

    def device(self, msisdn, push_token):
        return registered_ios_device(self.server, self.smsc, self.app_key, self.secret, APP, msisdn, push_token)

    def send(self, to, body, reference, **extra):
        return send_message(self.server, self.token, to, body, reference=reference, **extra)

    # The five views.

    def recipients(self, message_id):
        return message_view(self.server, self.token, message_id)["recipients"]

    def final(self, message_id, timeout=10):
        return final_recipient(self.server, self.token, message_id, timeout=timeout)

    def when(self, message_id, event):
        """Waits for the first `event` in the recipient's timeline and returns it."""
        return wait_for(lambda: next((e for e in self.recipients(message_id)[0]["events"] if e["event"] == event), None),
                        what=f"{event} for {message_id}")

    def sms(self, msisdn):
        """The message SMS (not PINs: those ask for no receipt) the SMSC received for `msisdn`."""
        return [s for s in self.smsc.submits(smsc_number(msisdn)) if s.registered_delivery == 1]

    def pushes(self, push_token):
        return [r for r in self.apns.requests() if r["token"] == push_token]

    def reports(self, reference):
        """The status reports the webhook accepted for `reference`, once no more arrive for a while."""
        wait_quiet(lambda: len(self.webhook.delivered()))
        return [r["messages"]["msg"] for r in self.webhook.delivered() if r["messages"]["msg"]["reference"] == reference]

    def inbox(self, device, message_id):
        """The message as the app sees it in `GET /v1.0/messages` (None when not listed)."""
        reply = device.messages()
        assert reply.status == 200, reply
        return next((m for m in reply.json() if m["ID"] == message_id), None)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    os.environ[SMPP_PASSWORD_ENV] = "s3cret"  # SMPP 3.4: at most 8 characters
    world = World(tmp_path_factory.mktemp("scenarios"))
    yield world
    world.close()


def events(recipient):
    return [e["event"] for e in recipient["events"]]


def token(prefix, n):
    return prefix + ("%02d" % n) * 32


def accepted_push(world, push_token, message_id, count=1):
    """The `count`-th APNs request for `push_token`, answered 200, carrying `message_id`."""
    request = wait_for(lambda: (lambda found: found[count - 1] if len(found) >= count else None)(world.pushes(push_token)),
                       what=f"push #{count} to {push_token[:8]}…")
    assert (request["status"], request["violation"], request["payload"]["messageId"]) == (200, None, message_id), request
    world.when(message_id, "pushAccepted")
    return request


def assert_fallback_timing(world, message_id, submit, window=WINDOW):
    """The SMS reached the SMSC, and its timer fired, at or after routed + window, and within TOLERANCE of it."""
    recipient = world.recipients(message_id)[0]
    routed = at(next(e for e in recipient["events"] if e["event"] == "routed")["at"])
    deadline = routed + window
    fired = [at(e["at"]) for e in recipient["events"] if e["event"] == "timerFired"]
    assert fired and min(fired) >= deadline - 0.0005, (recipient["events"], deadline)  # ms-rounded log times
    assert deadline <= submit.t <= deadline + TOLERANCE, (submit.t - routed, window)


def test_1_default_push_acknowledged_is_delivered_by_push_without_sms(world):
    number, push_token = "0031600000101", token("ok", 1)
    device = world.device(number, push_token)
    line = world.send([number], "Your parcel is on its way", "s1", appKey=world.app_key)
    push = accepted_push(world, push_token, line["messageId"])
    assert push["payload"]["aps"]["alert"] == {"title": "Acme", "body": "Your parcel is on its way"}

    listed = world.inbox(device, line["messageId"])
    assert (listed["Status"], listed["Body"], listed["Sender"], str(listed["UpdateID"])) == (
        "Accepted", "Your parcel is on its way", "Acme", push["payload"]["updateId"]), listed
    assert device.receipt({"UpdateID": push["payload"]["updateId"], "Status": "Delivered"}).status == 204

    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["resolution"], recipient["channel"], recipient["fallback"]) == (
        "Delivered", "deliveredByPush", "Push", False), recipient
    assert events(recipient) == ["routed", "pushAccepted", "deliveryAcknowledged"]
    assert world.inbox(device, line["messageId"])["Status"] == "Delivered"
    [report] = world.reports("s1")
    assert (report["tandemStatus"], report["status"]["code"], report["channel"], report["fallback"]) == (
        "Delivered", "2", "Push", False), report
    assert world.sms(number) == [] and len(world.pushes(push_token)) == 1


def test_2_default_to_a_number_without_app_goes_by_sms_at_once(world):
    number = "0031600000201"
    line = world.send([number], "Your appointment is at 10:00", "s2")
    [submit] = world.smsc.wait_for_submits(smsc_number(number), 1)
    assert (submit.text, submit.source_addr, submit.registered_delivery) == ("Your appointment is at 10:00", "Acme", 1)

    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["resolution"], recipient["channel"], recipient["fallback"],
            recipient["smsCause"]) == ("Delivered", "deliveredBySMS", "SMS", False, "noAppKey"), recipient
    assert events(recipient) == ["routed", "smsSubmitted", "smsPartReported"]
    assert recipient["events"][2]["detail"] == f"{submit.message_id} delivered"
    assert [r["message_id"] for r in world.smsc.receipts_sent()].count(submit.message_id) == 1
    [report] = world.reports("s2")
    assert (report["tandemStatus"], report["channel"], report["fallback"]) == ("Delivered", "SMS", False), report
    assert not any(r["payload"]["messageId"] == line["messageId"] for r in world.apns.requests())


def test_3_dead_token_invalidates_the_registration_and_later_messages_go_straight_to_sms(world):
    number, push_token = "0031600000301", token("gone", 3)
    device = world.device(number, push_token)
    line = world.send([number], "Your order has shipped", "s3", appKey=world.app_key)
    [push] = wait_for(lambda: world.pushes(push_token), what="the push")
    assert (push["status"], push["reason"]) == (410, "Unregistered"), push

    [submit] = wait_for(lambda: world.sms(number), what="the fallback SMS")
    assert submit.text == "Your order has shipped"
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["channel"], recipient["fallback"], recipient["smsCause"]) == (
        "Delivered", "SMS", True, "pushFailed"), recipient
    assert events(recipient) == ["routed", "pushRejected", "smsSubmitted", "smsPartReported"]
    assert device.show().json()["RegistrationStatus"] == "Invalid"
    [report] = world.reports("s3")
    assert (report["tandemStatus"], report["channel"], report["fallback"], report["fallbackReason"]) == (
        "Delivered", "SMS", True, "pushFailed"), report

    # The next message to that number: no push at all, SMS at once.
    line = world.send([number], "Second message", "s3-next", appKey=world.app_key)
    recipient = world.final(line["messageId"])
    assert (recipient["channel"], recipient["smsCause"], recipient["events"][0]["detail"]) == (
        "SMS", "noPushableDevice", "sms (noPushableDevice) as Default"), recipient
    assert [s.text for s in world.sms(number)] == ["Your order has shipped", "Second message"]
    assert len(world.pushes(push_token)) == 1 and len(world.reports("s3-next")) == 1
    assert world.inbox(device, line["messageId"]) is None  # an Invalid install sees nothing new


def test_4_critical_without_read_falls_back_exactly_after_the_window_and_a_read_inside_it_prevents_sms(world):
    number, push_token = "0031600000401", token("ok", 4)
    device = world.device(number, push_token)

    # No read: the app acknowledges delivery but never reads → SMS at routed + WINDOW, never before.
    line = world.send([number], "Alarm: server room temperature", "s4", appKey=world.app_key, appMessageType="Critical")
    push = accepted_push(world, push_token, line["messageId"])
    assert (push["headers"]["apns-priority"], push["headers"]["apns-push-type"]) == ("10", "alert"), push["headers"]
    assert device.receipt({"UpdateID": push["payload"]["updateId"], "Status": "Delivered"}).status == 204
    [submit] = wait_for(lambda: world.sms(number), timeout=WINDOW + 5, what="the Critical fallback SMS")
    assert submit.text == "Alarm: server room temperature"
    assert_fallback_timing(world, line["messageId"], submit)
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["channel"], recipient["fallback"], recipient["smsCause"]) == (
        "Delivered", "SMS", True, "noRead"), recipient
    assert events(recipient) == ["routed", "pushAccepted", "deliveryAcknowledged", "timerFired", "smsSubmitted",
                                 "smsPartReported"]
    assert world.inbox(device, line["messageId"])["Status"] == "Delivered"
    [report] = world.reports("s4")
    assert (report["tandemStatus"], report["channel"], report["fallbackReason"]) == ("Delivered", "SMS", "noRead"), report

    # Read inside the window: final at once, and no SMS even well after the window.
    line = world.send([number], "Alarm: door open", "s4-read", appKey=world.app_key, appMessageType="Critical")
    push = accepted_push(world, push_token, line["messageId"], count=2)
    read_at = datetime.utcnow().isoformat(timespec="milliseconds") + "Z"
    assert device.receipt({"UpdateID": push["payload"]["updateId"], "ReadByRecipient": read_at}).status == 204
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["resolution"], recipient["channel"]) == ("Read", "readByPush", "Push"), recipient
    routed = at(recipient["events"][0]["at"])
    time.sleep(max(0.0, routed + WINDOW + TOLERANCE - time.time()))
    assert [s.text for s in world.sms(number)] == ["Alarm: server room temperature"]
    assert events(world.recipients(line["messageId"])[0]) == ["routed", "pushAccepted", "readReported"]
    [report] = world.reports("s4-read")
    assert (report["tandemStatus"], report["channel"], report["fallback"]) == ("Read", "Push", False), report


def test_5_otp_manual_fallback_terminates_the_push_and_sends_one_sms(world):
    number, push_token = "0031600000501", token("ok", 5)
    device = world.device(number, push_token)
    line = world.send([number], "Your code is 482913", "s5", appKey=world.app_key, appMessageType="OTP")
    accepted_push(world, push_token, line["messageId"])
    assert world.inbox(device, line["messageId"])["Body"] == "Your code is 482913"

    fallback = world.send([number], "Your code is 482913", "s5-sms", allowedChannels=["SMS"], fallbackFor="s5")
    earlier = world.final(line["messageId"])
    assert (earlier["status"], earlier["resolution"], earlier["pushTerminated"]) == ("Cancelled", "withdrawn", True), earlier
    assert "smsSubmitted" not in events(earlier)
    listed = world.inbox(device, line["messageId"])
    assert listed["Status"] == "Cancelled" and "Body" not in listed, listed  # the code is withheld from the app

    [submit] = wait_for(lambda: world.sms(number), what="the OTP SMS")
    assert submit.text == "Your code is 482913"
    sms = world.final(fallback["messageId"])
    assert (sms["status"], sms["channel"], events(sms)) == (
        "Delivered", "SMS", ["routed", "smsSubmitted", "smsPartReported"]), sms
    assert [r["tandemStatus"] for r in world.reports("s5")] == ["Cancelled"]
    assert [r["tandemStatus"] for r in world.reports("s5-sms")] == ["Delivered"]
    assert len(world.sms(number)) == 1 and len(world.pushes(push_token)) == 1


def test_6_otp_without_ack_expires_after_its_lifetime_without_sms(world):
    number, push_token = "0031600000601", token("ok", 6)
    device = world.device(number, push_token)
    line = world.send([number], "Your code is 100200", "s6", appKey=world.app_key, appMessageType="OTP")
    accepted_push(world, push_token, line["messageId"])

    recipient = world.final(line["messageId"], timeout=WINDOW + 5)
    assert (recipient["status"], recipient["resolution"], recipient["channel"], recipient["smsCause"]) == (
        "Failed", "lifetimeExpired", "Push", None), recipient
    assert events(recipient) == ["routed", "pushAccepted", "timerFired"]
    expired = at(recipient["events"][2]["at"])
    assert at(recipient["events"][0]["at"]) + WINDOW - 0.0005 <= expired, recipient["events"]
    listed = world.inbox(device, line["messageId"])
    assert listed["Status"] == "Cancelled" and "Body" not in listed, listed
    [report] = world.reports("s6")
    assert (report["tandemStatus"], report["fallback"]) == ("Failed", False), report
    assert world.sms(number) == []


def test_7_allowed_channels_are_obeyed(world):
    # Push only, to a number without the app: Rejected, nothing sent anywhere.
    number = "0031600000701"
    line = world.send([number], "Push only", "s7-push", appKey=world.app_key, allowedChannels=["Push"])
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["resolution"], recipient["channel"]) == ("Rejected", "rejected", None), recipient
    assert events(recipient) == ["routed"] and recipient["events"][0]["detail"].startswith("rejected")
    [report] = world.reports("s7-push")
    assert report["tandemStatus"] == "Rejected" and report["status"]["code"] != "2", report
    assert world.sms(number) == []
    assert not any(r["payload"]["messageId"] == line["messageId"] for r in world.apns.requests())

    # SMS only, to a verified device: the SMS goes, the device is not pushed and its app does not list it.
    number, push_token = "0031600000702", token("ok", 7)
    device = world.device(number, push_token)
    line = world.send([number], "SMS only", "s7-sms", appKey=world.app_key, allowedChannels=["SMS"])
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["channel"], recipient["fallback"]) == ("Delivered", "SMS", False), recipient
    assert [s.text for s in world.sms(number)] == ["SMS only"]
    assert world.pushes(push_token) == [] and world.inbox(device, line["messageId"]) is None
    assert [r["channel"] for r in world.reports("s7-sms")] == ["SMS"]


def test_8_a_delivery_ack_after_the_critical_sms_is_recorded_without_a_second_report(world):
    number, push_token = "0031600000801", token("ok", 8)
    device = world.device(number, push_token)
    line = world.send([number], "Alarm: power failure", "s8", appKey=world.app_key, appMessageType="Critical")
    push = accepted_push(world, push_token, line["messageId"])
    [submit] = wait_for(lambda: world.sms(number), timeout=WINDOW + 5, what="the Critical fallback SMS")
    assert_fallback_timing(world, line["messageId"], submit)
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["channel"], recipient["smsCause"]) == ("Delivered", "SMS", "noDeliveryAck")

    # The app's ack turns up late: accepted and logged, but the delivery stays as it was, reported once.
    assert device.receipt({"UpdateID": push["payload"]["updateId"], "Status": "Delivered"}).status == 204
    recipient = wait_for(lambda: (lambda r: r if "deliveryAcknowledged" in events(r) else None)(
        world.recipients(line["messageId"])[0]), what="the late ack in the log")
    assert (recipient["status"], recipient["channel"], recipient["smsCause"]) == ("Delivered", "SMS", "noDeliveryAck")
    assert events(recipient)[-1] == "deliveryAcknowledged"
    [report] = world.reports("s8")
    assert (report["tandemStatus"], report["channel"], report["fallbackReason"]) == (
        "Delivered", "SMS", "noDeliveryAck"), report
    assert len(world.sms(number)) == 1


def test_9_two_devices_on_one_number_are_both_pushed_and_the_first_read_wins(world):
    number = "0031600000901"
    first, second = token("ok", 91), token("ok", 92)
    phone, tablet = world.device(number, first), world.device(number, second)
    line = world.send([number], "Meeting moved to 14:00", "s9", appKey=world.app_key, appMessageType="Critical")
    push_a = accepted_push(world, first, line["messageId"])
    push_b = accepted_push(world, second, line["messageId"])
    assert push_a["payload"]["updateId"] == push_b["payload"]["updateId"]
    assert world.inbox(phone, line["messageId"]) and world.inbox(tablet, line["messageId"])

    now = datetime.utcnow().isoformat(timespec="milliseconds") + "Z"
    assert tablet.receipt({"UpdateID": push_b["payload"]["updateId"], "ReadByRecipient": now}).status == 204
    recipient = world.final(line["messageId"])
    assert (recipient["status"], recipient["resolution"]) == ("Read", "readByPush"), recipient
    assert recipient["events"][-1] == {**recipient["events"][-1], "event": "readReported", "detail": tablet.device_id}
    assert phone.receipt({"UpdateID": push_a["payload"]["updateId"], "ReadByRecipient": now}).status == 204
    recipient = wait_for(lambda: (lambda r: r if events(r).count("readReported") == 2 else None)(
        world.recipients(line["messageId"])[0]), what="the second read in the log")
    assert recipient["status"] == "Read" and recipient["events"][-1]["detail"] == phone.device_id
    time.sleep(max(0.0, at(recipient["events"][0]["at"]) + WINDOW + TOLERANCE - time.time()))
    assert [r["tandemStatus"] for r in world.reports("s9")] == ["Read"]
    assert world.sms(number) == []


def test_10_the_device_journey_register_verify_push_ack_read(world):
    number, push_token = "0031600001001", token("ok", 10)
    # Register with a token, receive the PIN by SMS at the SMSC, verify (registered_ios_device asserts each step).
    device = world.device(number, push_token)
    assert device.show().json()["RegistrationStatus"] == "PinVerified"

    line = world.send([number], "Welcome aboard", "s10", appKey=world.app_key)
    push = accepted_push(world, push_token, line["messageId"])
    jwt_header, claims = world.apns.verify_jwt(push["jwt"])
    assert jwt_header["alg"] == "ES256" and claims["iss"]
    update_id = push["payload"]["updateId"]
    assert device.receipt({"UpdateID": update_id, "Status": "Delivered"}).status == 204
    assert world.final(line["messageId"])["status"] == "Delivered"
    now = datetime.utcnow().isoformat(timespec="milliseconds") + "Z"
    assert device.receipt({"UpdateID": update_id, "ReadByRecipient": now}).status == 204
    recipient = wait_for(lambda: (lambda r: r if "readReported" in events(r) else None)(
        world.recipients(line["messageId"])[0]), what="the read in the log")
    assert events(recipient) == ["routed", "pushAccepted", "deliveryAcknowledged", "readReported"]
    assert world.inbox(device, line["messageId"])["Status"] == "Delivered"
    [report] = world.reports("s10")
    assert (report["tandemStatus"], report["channel"]) == ("Delivered", "Push"), report
    # Only the PIN went by SMS.
    assert [s.registered_delivery for s in world.smsc.submits(smsc_number(number))] == [0]
    assert error_lines(world.server) == []


def test_sigterm_drains_and_unbinds(world):
    """Last: SIGTERM right after a message was accepted — the server stops accepting, lets the SMS it already
    started finish and stores its submission, unbinds from the SMSC, and exits 0."""
    number = "0031600009901"
    line = world.send([number], "Sent while shutting down", "drain")
    world.server.terminate()
    assert world.server.wait() == 0, world.server.stderr()
    [submit] = world.sms(number)
    assert submit.message_id, submit
    stored = query(world.server, """SELECT e.kind, e.detail FROM delivery_events e JOIN deliveries d ON d.id = e.delivery_id
                                    JOIN messages m ON m.id = d.message_id WHERE m.message_id = ? ORDER BY e.id""",
                   (line["messageId"],))
    assert stored[:2] == [("routed", "sms (noAppKey) as Default"), ("smsSubmitted", f"smpp {submit.message_id}")], stored
    # The unbind is the last request Tandem writes (a receipt that crossed it on the wire is still answered).
    written = [r["command"] for r in world.smsc.records() if r.get("tap") == "c2s"]
    unbind = written.index("unbind")
    assert written.count("unbind") == 1 and set(written[unbind + 1:]) <= {"deliver_sm_resp"}, written[-5:]
    log = [line.get("msg") for line in world.server.log_lines()]
    assert "shutting down" in log and log[-1] == "stopped", log[-5:]
    with pytest.raises(OSError):  # no longer accepting
        http(world.server, "GET", "/healthz")
