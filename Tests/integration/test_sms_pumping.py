"""The defence against SMS pumping and the limits on registrations, against the real `tandem serve`: a pumping
run of 500 PIN requests to one number prefix from 50 client addresses, conversion blocks (stored, reported,
listed and lifted through the admin API), per-app country rules in `enforce` and `monitor` mode, the PIN
length, registration limits and push-token caps (defect 7), and an account's country rule for gateway SMS.

Client addresses: every client here binds its own loopback source address (127.0.0.x; the whole 127/8 is
loopback on Linux), so the server sees 50 distinct addresses; the server itself listens on 127.0.0.1."""
import json
import re
import threading
import time

from conftest import run_tandem, wait_for
from device_support import ANDROID_UA, Device, create_app_with_secret, pin_deliveries, send, wait_for_pin
from gateway_support import WebhookReceiver, create_account, http, messages_request, msg
from test_admin import ADMIN_TOKEN, request as admin

FAST = {"simulator": {"push": {"latency": "1ms", "default": {"behaviour": "neverAck"}},
                      "sms": {"latency": "1ms", "reportAfter": "50ms"}}}
PREFIX = "+3161234"


def metric(server, name, **labels):
    """The value of one sample in /metrics (0 when absent)."""
    status, body, _ = http(server, "GET", "/metrics")
    assert status == 200
    wanted = name + ("{" + ",".join(f'{key}="{value}"' for key, value in labels.items()) + "}" if labels else "")
    for line in body.decode().splitlines():
        if line.startswith(wanted + " "):
            return float(line.split()[-1])
    return 0.0


def log_lines(server, message):
    return [line for line in server.log_lines() if line.get("msg") == message]


def register_with_number(server, app_key, secret, number, source):
    """A new install that sets its number at once (the PIN SMS goes out with the registration)."""
    device = Device(server, app_key, secret, ANDROID_UA, source=source)
    return device, device.register({"PushToken": f"fcm-{number}", "Msisdn": number})


def test_pumping_500_pin_requests_to_one_prefix_from_50_addresses(serve):
    limit = 20
    server = serve({**FAST, "deviceAPI": {
        "limits": {"pinPerApp": {"limit": 1000, "window": "1m"}},          # the defaults allow 10 per address: 50 × 10 = 500
        "protection": {"pinPerPrefix": {"limit": limit, "window": "1h"}, "conversion": None}}})
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "Pumped")
    replies = []
    lock = threading.Lock()

    def attacker(address_index):
        source = f"127.0.0.{address_index + 10}"
        for n in range(10):
            number = "0031612340%03d" % (address_index * 10 + n + 1)  # 500 numbers of +3161234 (none ends in 000: the simulator fails those)
            _, reply = register_with_number(server, app_key, secret, number, source)
            with lock:
                replies.append(reply)

    threads = [threading.Thread(target=attacker, args=(index,)) for index in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(replies) == 500
    accepted = [reply for reply in replies if reply.status == 200]
    refused = [reply for reply in replies if reply.status == 429]
    assert len(accepted) == limit and len(refused) == 500 - limit, sorted({reply.status for reply in replies})
    for reply in refused:
        assert reply.json() == {"Message": "too many PIN requests to this number range; try again later"}, reply
        assert re.fullmatch(r"\d+", reply.header("Retry-After") or "") and 1 <= int(reply.header("Retry-After")) <= 3600
    assert all(reply.json()["RegistrationStatus"] == "WaitingForPin" for reply in accepted)
    time.sleep(0.3)
    assert len(pin_deliveries(server)) == limit                     # exactly the configured number of SMS left
    assert metric(server, "tandem_pin_sms_blocked_total", reason="prefix_velocity", mode="enforce") == 500 - limit
    assert log_lines(server, "PIN request refused by an abuse limit") == []   # no per-address or per-app limit was hit
    assert server.query("SELECT count(*) FROM registrations") == [(limit,)]   # a refusal stores nothing

    # The server saw 50 addresses: each charged its 10 registrations (of 30 an hour per address) to itself,
    # so 127.0.0.10 has 20 left while a fresh address has all 30 (from one address, 470 would have been refused).
    replies = [Device(server, app_key, secret, ANDROID_UA, source="127.0.0.10").register({"PushToken": f"fcm-late-{index}"})
               for index in range(21)]
    assert [reply.status for reply in replies] == [200] * 20 + [429], [reply.status for reply in replies]
    assert replies[-1].json() == {"Message": "too many new registrations; try again later"}
    assert Device(server, app_key, secret, ANDROID_UA, source="127.0.0.200").register().status == 200


def test_low_conversion_blocks_the_prefix_until_the_admin_api_lifts_it(serve):
    hook = WebhookReceiver()
    try:
        server = serve({**FAST, "deviceAPI": {"protection": {
            "conversion": {"window": "1h", "minimumSent": 10, "threshold": 0.5, "blockFor": "1h"}, "webhook": hook.url}}},
            env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
        token = create_account(server, "Acme")
        app_key, secret = create_app_with_secret(server, token, "Pumped")

        # Nine PIN SMS, four of them verified; the tenth makes it 4 of 10 (40 % < 50 %) and blocks the prefix.
        for index in range(1, 10):
            device, reply = register_with_number(server, app_key, secret, "003161234%04d" % index, f"127.0.1.{index}")
            assert reply.status == 200, reply
            pin = wait_for_pin(server, index)["pin"]
            assert len(pin) == 6                                        # the default PIN length
            if index <= 4:
                assert device.update({"VerificationCode": pin}).json()["RegistrationStatus"] == "PinVerified"
        _, reply = register_with_number(server, app_key, secret, "0031612340010", "127.0.1.10")
        assert reply.status == 200, reply
        _, reply = register_with_number(server, app_key, secret, "0031612340011", "127.0.1.11")
        assert reply.status == 429, reply
        assert reply.json() == {"Message": "PIN requests to this number range are suspended; try again later"}
        assert 3500 <= int(reply.header("Retry-After")) <= 3600
        time.sleep(0.2)
        assert len(pin_deliveries(server)) == 10
        assert metric(server, "tandem_pin_conversion_blocks_total", mode="enforce") == 1
        assert metric(server, "tandem_pin_sms_blocked_total", reason="prefix_blocked", mode="enforce") == 1
        [logged] = log_lines(server, "number prefix blocked: too few PINs verified")
        assert (logged["prefix"], logged["sent"], logged["verified"]) == (PREFIX, 10, 4)
        posts = wait_for(lambda: (lambda found: found if len(found) == 2 else None)(hook.delivered()), timeout=5,
                         what="the block and app-conversion webhooks")
        [posted] = [post for post in posts if post["event"] == "prefixBlocked"]
        [alert] = [post for post in posts if post["event"] == "appConversionLow"]    # the app's 4 of 10, all prefixes
        assert (alert["appKey"], alert["sent"], alert["verified"]) == (app_key, 10, 4)
        assert posted["event"] == "prefixBlocked" and posted["appKey"] == app_key and posted["prefix"] == PREFIX
        assert (posted["region"], posted["sent"], posted["verified"], posted["mode"]) == ("NL", 10, 4, "enforce")

        status, _, listed = admin(server, "GET", f"/admin/apps/{app_key}/sms-blocks")
        assert status == 200 and [(b["prefix"], b["region"], b["sent"], b["verified"]) for b in listed["blocks"]] \
            == [(PREFIX, "NL", 10, 4)]
        shown = run_tandem("app", "sms-blocks", app_key, "--config", str(server.config_path))
        assert shown.returncode == 0 and shown.stdout.startswith(f"{PREFIX}  NL  until "), shown.stdout

        # The block survives a restart.
        server.stop()
        server.launch("restarted")
        _, reply = register_with_number(server, app_key, secret, "0031612340012", "127.0.1.12")
        assert reply.status == 429, reply

        status, _, _ = admin(server, "DELETE", f"/admin/apps/{app_key}/sms-blocks/{PREFIX}")
        assert status == 204
        status, _, body = admin(server, "DELETE", f"/admin/apps/{app_key}/sms-blocks/{PREFIX}")
        assert status == 404 and body == {"error": f"app {app_key} has no active block on {PREFIX}"}
        _, reply = register_with_number(server, app_key, secret, "0031612340013", "127.0.1.13")
        assert reply.status == 200 and reply.json()["RegistrationStatus"] == "WaitingForPin", reply
        assert admin(server, "GET", f"/admin/apps/{app_key}/sms-blocks")[2] == {"blocks": []}
    finally:
        hook.close()


def test_denied_country_gets_no_sms_and_monitor_mode_sends_and_logs(serve):
    server = serve(FAST, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
    token = create_account(server, "Acme")
    enforced_key, enforced_secret = create_app_with_secret(server, token, "Enforced")
    monitored_key, monitored_secret = create_app_with_secret(server, token, "Monitored")
    out = run_tandem("app", "set-sms-protection", enforced_key, "--deny", "CU,001", "--pin-length", "4",
                     "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr
    assert "pin sms countries:   anywhere but 001, CU" in out.stdout and "pin length:          4" in out.stdout, out.stdout
    status, _, app = admin(server, "PUT", f"/admin/apps/{monitored_key}/sms-protection", {"mode": "monitor", "deny": ["CU"]})
    assert status == 200 and app["smsProtection"] == {"mode": "monitor", "deny": ["CU"], "pinLength": None}, app
    assert admin(server, "PUT", f"/admin/apps/{monitored_key}/sms-protection", {"deny": ["Cuba"]})[0] == 400

    for number in ("005351234567", "00881612345678"):                 # Cuba, and a non-geographic satellite number
        device, reply = register_with_number(server, enforced_key, enforced_secret, number, "127.0.2.1")
        region = "CU" if number.startswith("0053") else "001"
        assert reply.status == 403, reply
        assert reply.json() == {"Message": f"PIN messages to numbers in {region} are not offered by this app"}
        assert reply.header("Retry-After") is None
    _, reply = register_with_number(server, enforced_key, enforced_secret, "0031612345678", "127.0.2.2")
    assert reply.status == 200, reply
    delivered = wait_for_pin(server, 1)
    assert delivered["msisdn"].startswith("+3161") and len(delivered["pin"]) == 4   # the app's PIN length
    time.sleep(0.2)
    assert len(pin_deliveries(server)) == 1                            # the denied country never got an SMS
    assert metric(server, "tandem_pin_sms_blocked_total", reason="country", mode="enforce") == 2

    _, reply = register_with_number(server, monitored_key, monitored_secret, "005351234567", "127.0.2.3")
    assert reply.status == 200 and reply.json()["RegistrationStatus"] == "WaitingForPin", reply
    assert wait_for_pin(server, 2)["msisdn"].startswith("+5351")      # monitor mode sends…
    [logged] = log_lines(server, "PIN request would be refused by the SMS pumping defence (monitor mode: sent)")
    assert (logged["reason"], logged["region"], logged["mode"]) == ("country", "CU", "monitor")   # …and logs
    assert metric(server, "tandem_pin_sms_blocked_total", reason="country", mode="monitor") == 1


def test_registrations_are_limited_per_address_and_push_tokens_capped(serve):
    """Defect 7: 3,000 installs with 4 KB push tokens from one address grew the database by 61 MB."""
    server = serve({**FAST, "deviceAPI": {"limits": {"registrationsPerClientIP": {"limit": 30, "window": "1h"}}}})
    token = create_account(server, "Acme")
    app_key, secret = create_app_with_secret(server, token, "App")
    big = Device(server, app_key, secret, ANDROID_UA, source="127.0.3.1").register({"PushToken": "f" * 4096})
    assert big.status == 400 and big.json() == {"Message": "PushToken is too long for Android: at most 1024 characters"}
    statuses = [Device(server, app_key, secret, ANDROID_UA, source="127.0.3.2").register({"PushToken": f"fcm-{index}"})
                for index in range(40)]
    assert [reply.status for reply in statuses] == [200] * 30 + [429] * 10
    assert statuses[-1].json() == {"Message": "too many new registrations; try again later"}
    assert 1 <= int(statuses[-1].header("Retry-After")) <= 3600
    other = Device(server, app_key, secret, ANDROID_UA, source="127.0.3.3").register({"PushToken": "fcm-other"})
    assert other.status == 200
    assert server.query("SELECT count(*), max(length(push_token)) FROM registrations") == [(31, 9)]
    assert metric(server, "tandem_device_registrations_limited_total") == 10


def test_account_country_rule_refuses_gateway_sms_per_recipient(serve):
    server = serve(FAST)
    token = create_account(server, "Acme")
    out = run_tandem("account", "set-sms-countries", token, "--allow", "NL,BE", "--config", str(server.config_path))
    assert out.returncode == 0 and out.stdout == "gateway SMS: only BE, NL (enforce)\n", (out.stdout, out.stderr)
    status, body, _ = http(server, "POST", "/v1.0/message",
                           messages_request(token, msg(["005351234567", "0031612345678"], "Hi")))
    reply = json.loads(body)
    assert status == 200 and reply["errorCode"] == 201, reply
    refused, accepted = reply["messages"]
    assert (refused["to"], refused["messageErrorCode"], refused["messageDetails"]) \
        == ("005351234567", 401, "SMS to numbers in CU is not allowed for this account")
    assert accepted["status"] == "Accepted"
    wait_for(lambda: [line for line in server.log_lines() if line.get("msg", "").startswith("simulated SMS submitted")],
             timeout=5, what="the Dutch SMS")
    time.sleep(0.2)
    submitted = [line for line in server.log_lines() if line.get("msg", "").startswith("simulated SMS submitted")]
    assert len(submitted) == 1 and "+5351" not in json.dumps(submitted)
