"""`tandem db copy`: a stopped server's SQLite database moved into PostgreSQL, where a server finishes what was in
flight — a Critical push nobody acknowledges falls back to SMS at its original deadline, not before."""
from datetime import datetime

from conftest import REPO, PostgresCluster, Server, run_tandem, wait_for
from gateway_support import add_verified_device, create_account, create_app, final_recipient, send_message

POLICIES = REPO / "Tests" / "integration" / "policies"  # Critical windows of 3 s
WINDOW = 3.0


def at(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_copy_moves_in_flight_critical_deliveries_and_their_fallback_fires_at_the_original_deadline(tmp_path):
    (tmp_path / "sqlite").mkdir()
    source = Server(tmp_path / "sqlite", config={"policies": str(POLICIES)}, store="sqlite")
    try:
        token = create_account(source, "Acme")
        app_key = create_app(source, token, "Alarms")
        numbers = ["+3160000%04d" % n for n in range(1, 4)]
        for n, number in enumerate(numbers):
            add_verified_device(source, app_key, number, token=f"noack-copy-{n}")
        ids = [send_message(source, token, [number], "Alarm", reference=f"copy-{n}", appKey=app_key,
                            appMessageType="Critical")["messageId"] for n, number in enumerate(numbers)]
        cluster = PostgresCluster.shared()
        url = cluster.url(cluster.create_database())
        # A server still running on the source: refused, nothing copied.
        busy = run_tandem("db", "copy", "--from", str(source.db), "--to", url)
        assert busy.returncode == 1 and "another tandem serve" in busy.stderr, busy.stderr
        source.process.kill()  # kill -9: the deliveries stay in flight, their timers in the snapshots
        source.wait()
    finally:
        source.stop()

    copied = run_tandem("db", "copy", "--from", str(source.db), "--to", url)
    assert copied.returncode == 0, copied.stderr
    counts = {line.split()[0]: int(line.split()[1]) for line in copied.stdout.splitlines()[1:-1]}
    assert counts["deliveries"] == 3 and counts["accounts"] == 1 and counts["apps"] == 1 and counts["registrations"] == 3, copied.stdout
    again = run_tandem("db", "copy", "--from", str(source.db), "--to", url)
    assert again.returncode == 1 and "not empty" in again.stderr, again.stderr
    bad = run_tandem("db", "copy", "--from", str(source.db), "--to", "postgres://u:secret@h/db")
    assert bad.returncode == 64 and "must not contain the password" in bad.stderr, bad.stderr

    (tmp_path / "pg").mkdir()
    target = Server(tmp_path / "pg", config={"policies": str(POLICIES)}, database_url=url)
    try:
        for message_id in ids:
            recipient = final_recipient(target, token, message_id, timeout=WINDOW + 15)
            events = recipient["events"]
            routed = at(next(e for e in events if e["event"] == "routed")["at"])
            fired = [at(e["at"]) for e in events if e["event"] == "timerFired"]
            assert fired and min(fired) >= routed + WINDOW - 0.0005, events
            assert "smsSubmitted" in [e["event"] for e in events], events
            assert recipient["channel"] == "SMS" and recipient["status"] == "Delivered", recipient
    finally:
        target.stop()
