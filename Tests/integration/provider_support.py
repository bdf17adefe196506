"""Helpers for the provider tests: the protocol peers in Tests/peers run as child processes (the SMPP SMSC
behind its wire tap, the APNs fake), their recordings read back, and the `providers` configuration that
points `tandem serve` at them."""
import json
import re
import select
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization

from conftest import REPO, run_tandem, wait_for
from device_support import IOS_UA, Device

PEERS = REPO / "Tests" / "peers"
SMPP_PASSWORD_ENV = "TANDEM_TEST_SMPP_PASSWORD"

# apns_fake.py's defaults (--key-id, --team-id, --topic, --push-type), used with --generate.
APNS_KEY_ID = "BENCHKEY01"
APNS_TEAM_ID = "BENCHTEAM1"
APNS_TOPIC = "com.example.tandem.bench"

# GSM 03.38 default alphabet, by septet value (Tandem sends GSM-7 unpacked: one septet per octet).
GSM7 = ("@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
        "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà")
assert len(GSM7) == 128


class Peer:
    """One peer script run with this interpreter (the venv's: smpp34, h2, PyJWT); its first stdout line is
    `PORT <n>` (or `ERROR <text>`). It also exits on its own once this process is gone."""

    def __init__(self, script, args, directory, name):
        self.name = name
        self.stderr_path = Path(directory) / f"{name}.err"
        self.stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen([sys.executable, str(PEERS / script), *args], stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True, cwd=directory)
        ready, _, _ = select.select([self.process.stdout], [], [], 20)
        line = self.process.stdout.readline().strip() if ready else ""
        if not line.startswith("PORT "):
            self.stop()
            raise AssertionError(f"{name} did not start: {line!r} {self.stderr_path.read_text()}")
        self.port = int(line.split()[1])
        self.line = line

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()
        self.stderr.close()


def read_json_lines(path):
    if not Path(path).exists():
        return []
    # A line still being written has no newline yet: only whole lines count.
    return [json.loads(line) for line in Path(path).read_text().split("\n")[:-1] if line.strip()]


def decode_gsm7(octets):
    out, escape = [], False
    for octet in octets:
        if escape:
            out.append({0x0A: "\f", 0x14: "^", 0x28: "{", 0x29: "}", 0x2F: "\\", 0x3C: "[", 0x3D: "~", 0x3E: "]",
                        0x40: "|", 0x65: "€"}.get(octet, "?"))
            escape = False
        elif octet == 0x1B:
            escape = True
        else:
            out.append(GSM7[octet])
    return "".join(out)


class Submit:
    """One `submit_sm` as the SMSC's wire tap saw it, with the message id the SMSC answered."""

    def __init__(self, entry, message_id):
        self.fields = entry["fields"]
        self.conn = entry["conn"]
        self.seq = entry["seq"]
        self.message_id = message_id
        self.t = entry.get("t")  # when the SMSC's tap saw it (Unix seconds)
        raw = bytes.fromhex(self.fields["short_message"])
        self.udh = b""
        if self.fields["esm_class"] & 0x40:
            self.udh, raw = raw[:raw[0] + 1], raw[raw[0] + 1:]
        self.payload = raw
        coding = self.fields["data_coding"]
        self.text = decode_gsm7(raw) if coding == 0 else raw.decode("utf-16-be") if coding == 8 else None

    def __getattr__(self, name):
        """The decoded submit_sm fields as attributes: `submit.source_addr_ton`, `submit.registered_delivery`…"""
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __repr__(self):
        return f"Submit({self.fields['destination_addr']}, {self.text!r}, udh={self.udh.hex()}, id={self.message_id})"


class SMSC:
    """Tests/peers/smpp_smsc.py (PyPI's smpp34 behind a recording wire tap); `dlr` is its --dlr form."""

    def __init__(self, directory, dlr="both", extra=()):
        self.record_path = Path(directory) / "smsc.jsonl"
        self.peer = Peer("smpp_smsc.py", ["--record", str(self.record_path), "--dlr", dlr, *extra], directory, "smsc")
        self.port = self.peer.port

    def records(self):
        return read_json_lines(self.record_path)

    def tap(self, direction, command):
        return [r for r in self.records() if r.get("tap") == direction and r.get("command") == command]

    def submits(self, destination=None):
        """Every submit_sm Tandem wrote, oldest first, with the SMSC's message id once answered."""
        records = self.records()
        answers = {(r["conn"], r["seq"]): r for r in records if r.get("tap") == "s2c" and r.get("command") == "submit_sm_resp"}
        out = []
        for entry in records:
            if entry.get("tap") == "c2s" and entry.get("command") == "submit_sm":
                answer = answers.get((entry["conn"], entry["seq"]))
                submit = Submit(entry, answer["message_id"] if answer and answer["status"] == 0 else None)
                if destination is None or submit.destination_addr == destination:
                    out.append(submit)
        return out

    def receipts_sent(self):
        """The delivery receipts the SMSC sent: {"message_id", "form", "state"}."""
        return [r for r in self.records() if r.get("smsc") == "dlr"]

    def wait_for_submits(self, destination, count, timeout=10):
        def ready():
            found = self.submits(destination)
            return found if len(found) >= count and all(s.message_id for s in found[:count]) else None
        return wait_for(ready, timeout=timeout, what=f"{count} submit_sm to {destination} at the SMSC")

    def stop(self):
        self.peer.stop()


class KannelStack:
    """Tests/peers/kannel_stack.py: Debian's bearerbox and smsbox in front of an smpp34 SMSC. `retry` and `delay`
    become smsbox's http-request-retry and http-queue-delay (None leaves them out: Kannel's defaults, no retry);
    with `hold`, each delivery receipt waits at the SMSC until ``release()``."""

    def __init__(self, directory, retry=None, delay=None, hold=False):
        args = []
        if retry is not None:
            args += ["--http-request-retry", str(retry)]
        if delay is not None:
            args += ["--http-queue-delay", str(delay)]
        if hold:
            args.append("--hold-receipts")
        self.peer = Peer("kannel_stack.py", args, directory, "kannel")
        self.sendsms_port, self.control_port = (int(part) for part in self.peer.line.split()[1:3])
        self.sendsms_url = f"http://127.0.0.1:{self.sendsms_port}/cgi-bin/sendsms"
        self.config_path = self._get("/_config")

    def _get(self, path):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.control_port}{path}", timeout=5) as reply:
            return reply.read().decode()

    def received(self):
        """{"submits": [...], "receipts": [message id...]}: what the SMSC took and the receipts it sent."""
        return json.loads(self._get("/_received"))

    def release(self):
        """Sends the receipts held so far; returns how many."""
        return json.loads(self._get("/_release"))["released"]

    def smsbox_log(self):
        return self._get("/_smsbox_log")

    def stop(self):
        self.peer.stop()


class APNs:
    """Tests/peers/apns_fake.py with --generate: its TLS certificate and the .p8 provider key in `directory`,
    one JSON line per request in its log."""

    def __init__(self, directory, delay_ms=5):
        self.directory = Path(directory) / "apns"
        self.log_path = Path(directory) / "apns.jsonl"
        self.peer = Peer("apns_fake.py", ["--generate", str(self.directory), "--log", str(self.log_path),
                                          "--delay-ms", str(delay_ms)], directory, "apns")
        self.port = self.peer.port
        self.url = f"https://127.0.0.1:{self.port}"
        self.cert = self.directory / "cert.pem"
        self.auth_key = self.directory / "AuthKey.p8"

    def requests(self):
        return read_json_lines(self.log_path)

    def wait_for_requests(self, count, timeout=10):
        return wait_for(lambda: (lambda found: found if len(found) >= count else None)(self.requests()),
                        timeout=timeout, what=f"{count} request(s) at the APNs fake")

    def verify_jwt(self, token):
        """The provider token's header and claims, its ES256 signature checked here too (with the .p8's key)."""
        key = serialization.load_pem_private_key(self.auth_key.read_bytes(), password=None).public_key()
        claims = jwt.decode(token, key, algorithms=["ES256"], options={"verify_exp": False, "require": ["iss", "iat"]})
        return jwt.get_unverified_header(token), claims

    def stop(self):
        self.peer.stop()


# Where no APNs listens (port 1 on loopback refuses connections): the URL of the environment a test must not use.
UNREACHABLE = "https://127.0.0.1:1"


def providers_config(smsc=None, apns=None, apns_environment=None):
    """The `providers` section for `tandem serve`: SMPP to `smsc` (password from SMPP_PASSWORD_ENV), APNs to
    `apns` trusting its certificate. `apns_environment` "sandbox" or "production" points only that URL at the
    fake and the other at UNREACHABLE (so a push to the wrong one fails); None points both at the fake. A
    peer left out stays simulated."""
    providers = {}
    if smsc is not None:
        providers["sms"] = {"smpp": {"host": "127.0.0.1", "port": smsc.port, "systemId": "tandem",
                                     "password": {"env": SMPP_PASSWORD_ENV}, "window": 10, "responseTimeout": "2s",
                                     "reconnectMin": "50ms", "reconnectMax": "500ms"}}
    if apns is not None:
        production = UNREACHABLE if apns_environment == "sandbox" else apns.url
        sandbox = UNREACHABLE if apns_environment == "production" else apns.url
        providers["push"] = {"apns": {"productionURL": production, "sandboxURL": sandbox,
                                      "http": {"caFile": str(apns.cert), "timeout": "5s", "maxAttempts": 2}}}
    return {"providers": providers}


def set_apns(server, app_key, apns, sandbox=True):
    """`tandem app set-apns` with the fake's key file, key id, team id and topic."""
    args = ["app", "set-apns", app_key, "--key-file", str(apns.auth_key), "--key-id", APNS_KEY_ID,
            "--team-id", APNS_TEAM_ID, "--topic", APNS_TOPIC, "--config", str(server.config_path)]
    out = run_tandem(*args, *(["--sandbox"] if sandbox else []))
    assert out.returncode == 0, out.stderr
    return out


def set_webhook(server, token, url):
    out = run_tandem("account", "set-webhook", token, url, "--config", str(server.config_path))
    assert out.returncode == 0, out.stderr


def wait_quiet(probe, quiet=0.5, timeout=5):
    """Waits until `probe()` has not changed for `quiet` seconds, and returns it: used before asserting that
    something happened exactly once (a duplicate would have to show up within the quiet period)."""
    deadline = time.monotonic() + timeout
    last, since = probe(), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = probe()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return now
    raise AssertionError(f"{probe} kept changing for {timeout}s")


def smsc_number(msisdn):
    """The destination_addr Tandem writes for a "00…" or "+…" number: international digits, TON 1."""
    return msisdn[2:] if msisdn.startswith("00") else msisdn.lstrip("+")


def registered_ios_device(server, smsc, app_key, secret, app_name, msisdn, push_token):
    """An iOS install registered with its push token and number at once, then verified with the PIN read from
    the submit_sm that reached the SMSC (the next SMS to that number)."""
    destination = smsc_number(msisdn)
    before = len(smsc.submits(destination))
    device = Device(server, app_key, secret, IOS_UA)
    reply = device.register({"PushToken": push_token, "Msisdn": msisdn})
    assert reply.status == 200, reply
    assert (reply.json()["Platform"], reply.json()["RegistrationStatus"]) == ("iOS", "WaitingForPin"), reply
    submit = smsc.wait_for_submits(destination, before + 1)[before]
    found = re.fullmatch(rf"Your {app_name} verification code is (\d{{6}})", submit.text or "")
    assert found, submit
    # A PIN SMS asks for no receipt and goes from the configured sender (alphanumeric: TON 5, NPI 0).
    assert (submit.registered_delivery, submit.source_addr, submit.source_addr_ton, submit.source_addr_npi,
            submit.dest_addr_ton, submit.dest_addr_npi) == (0, "Verify", 5, 0, 1, 1), submit.fields
    reply = device.update({"VerificationCode": found.group(1)})
    assert reply.status == 200, reply
    assert (reply.json()["RegistrationStatus"], reply.json()["RegisteredForPushNotification"]) == ("PinVerified", True), reply
    return device
