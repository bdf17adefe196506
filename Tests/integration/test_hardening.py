"""Black-box regressions for defects found by probing a running server (the hardening issue)."""
import subprocess

from conftest import BIN, REPO, wait_for
from gateway_support import add_verified_device, create_account, create_app, message_view, send_message

POLICIES = REPO / "Tests" / "integration" / "policies"  # Critical: 3 s windows


def test_a_second_server_on_the_same_database_exits_before_recovery_and_the_first_sends_one_sms_per_fallback(serve):
    first = serve(config={"policies": str(POLICIES)})
    token = create_account(first, "Acme")
    app_key = create_app(first, token, "Alerts", "Critical")
    add_verified_device(first, app_key, "+31612345678", token="noack-two-servers")  # the simulated app never acks
    line = send_message(first, token, ["0031612345678"], "Server room at 41 °C", appKey=app_key,
                        appMessageType="Critical", reference="two-servers")

    # A newcomer's second `tandem serve` on the same configuration (so the same database), on another port.
    second = subprocess.run([BIN, "serve", "--config", str(first.config_path)], capture_output=True, text=True,
                            env={"TANDEM_LISTEN": "127.0.0.1:0", "PATH": "/usr/bin:/bin"}, cwd=REPO, timeout=30)
    assert second.returncode == 1, second
    assert f"another tandem serve (pid {first.process.pid}) is using this database" in second.stderr, second.stderr
    assert "store open" not in second.stderr and "recover" not in second.stderr, second.stderr  # it never opened it

    def final():
        recipient = message_view(first, token, line["messageId"])["recipients"][0]
        return recipient if recipient["final"] else None

    recipient = wait_for(final, timeout=15, what="the Critical fallback to end")
    events = [e["event"] for e in recipient["events"]]
    assert events.count("timerFired") == 1 and events.count("smsSubmitted") == 1, events
    assert (recipient["channel"], recipient["fallback"]) == ("SMS", True), recipient


def test_a_taken_listen_address_is_named_in_words_before_the_database_is_touched(serve, tmp_path):
    first = serve()
    other_db = tmp_path / "other" / "tandem.sqlite"
    taken = subprocess.run([BIN, "serve", "--config", str(first.config_path)], capture_output=True, text=True,
                           env={"TANDEM_LISTEN": f"127.0.0.1:{first.port}", "TANDEM_DB": str(other_db),
                                "PATH": "/usr/bin:/bin"}, cwd=REPO, timeout=30)
    assert taken.returncode == 1, taken
    assert "address already in use" in taken.stderr and "set TANDEM_LISTEN=host:port" in taken.stderr, taken.stderr
    assert not other_db.exists()
