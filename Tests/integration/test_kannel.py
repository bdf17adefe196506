"""One real `tandem serve` sending SMS through a real Kannel (Debian's bearerbox and smsbox in front of an smpp34
SMSC, Tests/peers/kannel_stack.py) while the SMSC's delivery receipt arrives with Tandem stopped: smsbox's
dlr-url callback then fails to connect. With `http-request-retry` (and `http-queue-delay`) in its smsbox group
smsbox tries again and the restarted Tandem gets the DLR; with Debian's default smsbox settings the DLR is
dropped for good, and the delivery ends by its SMS validity plus `scheduler.smsReportWait`, Failed as
`smsReportMissing`. `providers.sms.kannel.smsboxConfig` makes Tandem say which case it is in at start-up."""
import shutil
import socket
import urllib.request
from urllib.parse import urlencode

import pytest

from conftest import wait_for
from gateway_support import WebhookReceiver, create_account, final_recipient, message_view, send_message
from provider_support import KannelStack, set_webhook, wait_quiet

pytestmark = pytest.mark.skipif(not (shutil.which("bearerbox", path="/usr/sbin:/usr/bin")
                                     and shutil.which("smsbox", path="/usr/sbin:/usr/bin")),
                                reason="Debian's kannel package is not installed")

PASSWORD_ENV = "TANDEM_TEST_KANNEL_PASSWORD"
FAST = {"statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}}


@pytest.fixture(autouse=True)
def kannel_password(monkeypatch):
    monkeypatch.setenv(PASSWORD_ENV, "secret")   # kannel_stack.py's sendsms-user


@pytest.fixture
def webhook():
    receiver = WebhookReceiver()
    yield receiver
    receiver.close()


def free_port():
    """A port for Tandem to keep across its restart: the dlr-url Kannel stored names it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def kannel_config(kannel, port, **extra):
    return {"listen": f"127.0.0.1:{port}",
            "providers": {"sms": {"kannel": {"sendsmsURL": kannel.sendsms_url, "username": "tandem",
                                             "password": {"env": PASSWORD_ENV},
                                             "dlrURL": f"http://127.0.0.1:{port}/kannel/dlr",
                                             "smsboxConfig": kannel.config_path}}},
            **extra}


def lines(server, message):
    return [line for line in server.log_lines() if line.get("msg") == message]


def events(recipient, kind):
    return [(e["event"], e["detail"]) for e in recipient["events"] if e["event"] == kind]


def stop_while_the_receipt_arrives(server, kannel, destination):
    """Waits for the SMS at the SMSC, stops Tandem, lets the SMSC send its receipt and waits until smsbox's dlr-url
    call has failed at least once (its log says "Couldn't fetch"), then starts Tandem again on the same port."""
    wait_for(lambda: [s for s in kannel.received()["submits"] if s["destination"] == destination], what="the submit at the SMSC")
    server.stop()
    assert server.process.returncode == 0, server.stderr()
    assert kannel.release() == 1
    wait_for(lambda: "Couldn't fetch <http://127.0.0.1:%d/kannel/dlr" % server.port in kannel.smsbox_log(),
             what="smsbox's failed dlr-url call")
    server.launch("serve-again")


def test_a_dlr_made_while_tandem_restarts_arrives_when_smsbox_retries(tmp_path, serve):
    kannel = KannelStack(tmp_path, retry=30, delay=1, hold=True)
    try:
        port = free_port()
        server = serve({**FAST, **kannel_config(kannel, port)})
        [checked] = lines(server, "Kannel smsbox retries failed DLR callbacks")
        assert (checked["httpRequestRetry"], checked["httpQueueDelay"], checked["coversSeconds"]) == (30, 1, 30), checked
        assert lines(server, "Kannel smsbox does not retry DLR callbacks: set http-request-retry and http-queue-delay in its smsbox group") == []

        token = create_account(server, "Acme")
        line = send_message(server, token, ["0031612345678"], "Hello through Kannel", reference="kannel-1")
        stop_while_the_receipt_arrives(server, kannel, "31612345678")
        assert server.port == port

        recipient = final_recipient(server, token, line["messageId"], timeout=20)
        assert (recipient["status"], recipient["resolution"], recipient["channel"]) == ("Delivered", "deliveredBySMS", "SMS"), recipient
        [(_, submitted)] = events(recipient, "smsSubmitted")
        reference = submitted.split()[1]
        assert events(recipient, "smsPartReported") == [("smsPartReported", f"{reference} delivered")], recipient
    finally:
        kannel.stop()


def test_with_debians_default_smsbox_the_lost_dlr_ends_the_delivery_by_its_validity(tmp_path, serve, webhook):
    kannel = KannelStack(tmp_path, hold=True)   # no http-request-retry: Kannel's default, as Debian ships it
    try:
        port = free_port()
        server = serve({**FAST, **kannel_config(kannel, port, gateway={"defaultSMSValidity": "2s"},
                                                scheduler={"smsReportWait": "1s"})})
        [warning] = lines(server, "Kannel smsbox does not retry DLR callbacks: set http-request-retry and http-queue-delay in its smsbox group")
        assert warning["level"] == "warning" and warning["problem"].startswith("http-request-retry is not set"), warning
        assert warning["file"] == kannel.config_path, warning

        token = create_account(server, "Acme")
        set_webhook(server, token, webhook.url)
        line = send_message(server, token, ["0031612345679"], "Hello through Kannel", reference="kannel-2")
        stop_while_the_receipt_arrives(server, kannel, "31612345679")

        # The DLR is gone: the delivery ends when the SMS's validity (2 s) and the report wait (1 s) are over.
        recipient = final_recipient(server, token, line["messageId"], timeout=20)
        assert (recipient["status"], recipient["resolution"], recipient["channel"]) == ("Failed", "smsReportMissing", "SMS"), recipient
        assert events(recipient, "timerFired") == [("timerFired", "smsValidity")], recipient
        assert events(recipient, "smsPartReported") == [], recipient
        [(_, submitted)] = events(recipient, "smsSubmitted")
        reference = submitted.split()[1]
        [ended] = [l for l in server.log_lines() if l.get("delivery") == recipient["updateId"] and "references" in l]
        assert (ended["provider"], ended["references"]) == ("kannel", reference), ended

        # Reported once, as Failed (CM code 3) with the resolution as the error description.
        [report] = [r["messages"]["msg"] for r in wait_quiet(webhook.delivered)]
        assert (report["reference"], report["status"]["code"], report["status"]["errorDescription"], report["tandemStatus"]) == (
            "kannel-2", "3", "smsReportMissing", "Failed"), report

        # A DLR that comes after all (as Kannel would call it) is logged; the final status stays as it is.
        query = urlencode({"ref": reference, "type": 1, "reply": "id:1001 stat:DELIVRD err:000", "to": "+31612345679"})
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/kannel/dlr?{query}", timeout=5) as reply:
            assert reply.status == 200
        recipient = message_view(server, token, line["messageId"])["recipients"][0]
        assert (recipient["status"], recipient["resolution"]) == ("Failed", "smsReportMissing"), recipient
        assert events(recipient, "smsPartReported") == [("smsPartReported", f"{reference} delivered")], recipient
        assert len(wait_quiet(webhook.delivered)) == 1
    finally:
        kannel.stop()
