"""`/metrics` after a known set of sends, read by prometheus_client's own parser and checked by Prometheus's own
`promtool check metrics` (taken from Debian's prometheus package by scripts/bootstrap.sh): every `_total` is a counter,
and the delivery counters equal what the server's message views say happened — the same deliveries, channels
and final statuses, the fallback and its cause, the pushes and SMS, the receipts the simulated app sent."""
import shutil
import subprocess
import urllib.request
from collections import Counter

from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO, Server, wait_for
from gateway_support import add_verified_device, create_account, create_app, final_recipient, message_view, send_message

POLICIES = REPO / "Tests" / "integration" / "policies"  # Critical windows of 3 s


def scrape(server):
    with urllib.request.urlopen(server.url + "/metrics", timeout=10) as response:
        text = response.read().decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}
    return families, text


def promtool():
    """promtool on PATH, else the one scripts/bootstrap.sh took out of Debian's prometheus package."""
    found = shutil.which("promtool") or REPO / ".build" / "tools" / "promtool"
    assert found and shutil.which(str(found)), "promtool missing: run scripts/bootstrap.sh test (make test does)"
    return str(found)


def samples(families, name, suffix="_total"):
    """{labels tuple (sorted items): value} of a family's samples named name + suffix."""
    family = families.get(name)
    if family is None:
        return {}
    return {tuple(sorted(sample.labels.items())): sample.value for sample in family.samples if sample.name == name + suffix}


def test_delivery_metrics_match_what_happened(tmp_path):
    server = Server(tmp_path, config={"policies": str(POLICIES)})
    try:
        token = create_account(server)
        app = create_app(server, token, "MetricsApp")
        add_verified_device(server, app, "+31600000101", token="okA")      # the simulator acks and reads
        add_verified_device(server, app, "+31600000102", token="noack-1")  # never acks: a Critical push falls back
        ids = [send_message(server, token, [number], "sms only")["messageId"]
               for number in ("+31600000201", "+31600000202", "+31600000203")]
        ids.append(send_message(server, token, ["+31600000101"], "push", appKey=app)["messageId"])
        ids.append(send_message(server, token, ["+31600000102"], "critical", appKey=app, appMessageType="Critical")["messageId"])
        finals = [final_recipient(server, token, message_id, timeout=30) for message_id in ids]
        views = [message_view(server, token, message_id)["recipients"][0] for message_id in ids]

        def settled():
            families, _ = scrape(server)
            finished = samples(families, "tandem_deliveries_finished")
            return families if sum(finished.values()) == len(ids) else None
        families = wait_for(settled, timeout=10, what="every final status counted")

        # Types: every *_total family is a counter (prometheus_client strips the suffix from counter names).
        _, text = scrape(server)
        for line in text.splitlines():
            if line.startswith("# TYPE ") and line.split()[2].endswith("_total"):
                assert line.split()[3] == "counter", line

        # Prometheus's own linter: exposition syntax, types, HELP text, counter and unit naming conventions.
        checked = subprocess.run([promtool(), "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0 and checked.stdout.strip() == "" and checked.stderr.strip() == "", \
            f"promtool check metrics: exit {checked.returncode}\n{checked.stdout}{checked.stderr}"

        assert samples(families, "tandem_messages_accepted") == {(("api", "cm"),): 5.0}
        assert samples(families, "tandem_deliveries_started") == {(("channel", "sms"),): 3.0, (("channel", "push"),): 2.0}
        expected = Counter(((("channel", (view["channel"] or "none").lower()), ("status", view["status"])))
                           for view in views)
        assert samples(families, "tandem_deliveries_finished") == {key: float(count) for key, count in expected.items()}
        assert [view["smsCause"] for view in views if view["fallback"]] == ["noDeliveryAck"]
        assert samples(families, "tandem_fallbacks") == {(("cause", "noDeliveryAck"),): 1.0}
        assert samples(families, "tandem_pushes") == {(("outcome", "accepted"), ("provider", "apns")): 2.0}
        sms = samples(families, "tandem_sms")
        assert sms[(("outcome", "submitted"),)] == 4.0  # three SMS-only and the Critical fallback
        assert sms.get((("outcome", "delivered"),), 0) == sum(1 for f in finals if f["channel"] == "SMS" and f["status"] == "Delivered")
        receipts = samples(families, "tandem_receipts")
        assert receipts.get((("kind", "delivered"),), 0) >= 1  # the okA install acked (and read, if before its final status)
        durations = families["tandem_delivery_duration_seconds"]
        counts = {sample.labels["channel"]: sample.value for sample in durations.samples if sample.name.endswith("_count")}
        assert sum(counts.values()) == 5
        in_flight = [s.value for s in families["tandem_deliveries_in_flight"].samples]
        assert in_flight == [0.0]
        assert {s.labels["horizon"] for s in families["tandem_timers_pending"].samples} == {"le_1m", "le_10m", "le_1h", "le_1d", "gt_1d"}
        # The backlogs are sampled once a second: the last report's delivery shows within two.
        wait_for(lambda: [s.value for s in scrape(server)[0]["tandem_outbox_backlog"].samples] == [0.0], timeout=5,
                 what="the sampled outbox backlog to reach 0")
    finally:
        server.stop()
