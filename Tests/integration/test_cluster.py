"""Several `tandem serve` nodes on one PostgreSQL database (docs/cluster.md), black-box.

The nodes share the 256 partitions by leases; each accepts messages into the partitions it holds and runs their
timers. These tests use short leases (renewed every 300 ms, 2 s lifetime, 500 ms margin) and the test policies
(Critical: SMS when a push is not read within 3 s), the push simulator (`noread…` tokens are acknowledged and never
read) and the SMS simulator, and read the outcome from the shared database.
"""
import json
import os
import signal
import time
import uuid
from collections import defaultdict

import pytest

from conftest import REPO, PostgresCluster, Server, wait_for
from gateway_support import create_account, create_app, http, messages_request, msg
from provider_support import SMSC, SMPP_PASSWORD_ENV, providers_config, smsc_number

SECRET_ENV = "TANDEM_TEST_CLUSTER_SECRET"
LIFETIME_MS = 2_000
WINDOW_MS = 3_000
# A round (300 ms) to notice the expiry, the claim, the load and the wheel's tick, on a loaded two-core machine.
TAKEOVER_SLACK_MS = 1_500


def cluster_config(node):
    return {"cluster": {"node": node, "secret": {"env": SECRET_ENV}, "renewInterval": "300ms", "leaseLifetime": "2s",
                        "safetyMargin": "500ms"},
            "policies": str(REPO / "Tests" / "integration" / "policies")}


def health(server):
    status, body, _ = http(server, "GET", "/healthz")
    assert status == 200, body
    return json.loads(body)


def held(server):
    """The partitions the node holds, from /healthz (answered 503 while its database check is stale, e.g. just after
    a pause: the cluster part is there either way)."""
    _, body, _ = http(server, "GET", "/healthz")
    return set(json.loads(body)["cluster"]["held"])


@pytest.fixture
def nodes(tmp_path):
    """Starts `count` nodes on one fresh database; stops them all at the end."""
    os.environ[SECRET_ENV] = "a-cluster-secret-of-at-least-32-bytes"
    cluster = PostgresCluster.shared()
    url = cluster.url(cluster.create_database())
    started = []

    def start(names, extra=None):
        for name in names:
            directory = tmp_path / name
            directory.mkdir()
            started.append(Server(directory, config={**cluster_config(name), **(extra or {})}, database_url=url))
        return started[-len(names):]

    yield start
    for server in started:
        server.stop()


def wait_balanced(servers, timeout=20):
    """Until the live nodes hold every partition between them, each its share, none twice."""
    def balanced():
        sets = [held(s) for s in servers]
        union = set().union(*sets)
        share = 256 // len(servers)
        return len(union) == 256 and sum(map(len, sets)) == 256 and all(share <= len(s) <= share + 1 for s in sets)
    wait_for(balanced, timeout=timeout, what="the partitions to be shared out")


def critical_load(server, nodes, token, app_key, count, start):
    """`count` Critical single-recipient messages to numbers with a `noread` install, spread round-robin over
    `nodes`; returns {msisdn: (node name, accepted at)}."""
    rows = []
    for i in range(start, start + count):
        rows.append((str(uuid.uuid4()), app_key, "+3161%07d" % i, "noread-%d" % i))
    server.query("""INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
                    VALUES (?, (SELECT id FROM apps WHERE app_key = ?), ?, 'Android', ?, 'PinVerified', 0, 0)""", many=rows)
    accepted = {}
    for n, (_, _, msisdn, _) in enumerate(rows):
        node = nodes[n % len(nodes)]
        before = time.time()
        status, body, _ = http(node, "POST", "/v1.0/message", messages_request(token, msg(
            ["00" + msisdn[1:]], "Alarm %s" % msisdn, sender="Plant", appKey=app_key, appMessageType="Critical")))
        assert status == 200, body
        line = json.loads(body)["messages"][0]
        assert line["status"] == "Accepted", line
        accepted[msisdn] = (node, before)
    return accepted


def events_by_number(server):
    events = defaultdict(list)
    for msisdn, kind, at in server.query("""SELECT d.msisdn, e.kind, e.at FROM delivery_events e
                                            JOIN deliveries d ON d.id = e.delivery_id ORDER BY e.id"""):
        events[msisdn].append((kind, at))
    return events


def test_nodes_share_partitions_and_accept_into_their_own(nodes):
    a, b, c = nodes(["a", "b", "c"])
    wait_balanced([a, b, c])
    token = create_account(a, "Plant")
    app_key = create_app(a, token, "Alarms", "Critical")
    accepted = critical_load(a, [a, b, c], token, app_key, 30, 0)
    # The operator's view, from the database.
    from conftest import run_tandem
    out = run_tandem("cluster", "status", "--config", str(a.config_path))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "cluster: 3 live nodes, 256 partitions, 0 free", out.stdout
    rows = {line.split()[0]: line.split() for line in lines[2:]}
    assert set(rows) == {"a", "b", "c"}, out.stdout
    assert sum(int(row[-3]) for row in rows.values()) == 256 and all(row[4] == "yes" for row in rows.values()), out.stdout
    assert sum(int(row[-1]) for row in rows.values()) == 30, out.stdout  # every delivery still in flight (3 s windows)
    # Every delivery is in a partition its accepting node holds (keys n × 256 + partition).
    partitions = {msisdn: key % 256 for key, msisdn in a.query("SELECT id, msisdn FROM deliveries")}
    for msisdn, (node, _) in accepted.items():
        assert partitions[msisdn] in held(node), (msisdn, node.url)
    # Each falls back once, not before its window.
    wait_for(lambda: a.query("SELECT count(*) FROM delivery_events WHERE kind = 'smsSubmitted'") == [(30,)], timeout=20,
             what="30 fallbacks")
    for msisdn, history in events_by_number(a).items():
        kinds = [kind for kind, _ in history]
        assert kinds.count("smsSubmitted") == 1, (msisdn, kinds)
        fired = next(at for kind, at in history if kind == "timerFired")
        assert fired >= history[0][1] + WINDOW_MS, (msisdn, history)


def test_kill_9_a_node_its_fallbacks_fire_on_the_others_in_time(nodes):
    a, b, c = nodes(["a", "b", "c"])
    wait_balanced([a, b, c])
    token = create_account(a, "Plant")
    app_key = create_app(a, token, "Alarms", "Critical")
    accepted = critical_load(a, [a, b, c], token, app_key, 60, 1_000)
    killed_at = time.time()
    a.process.kill()
    a.process.wait()
    assert time.time() - killed_at < WINDOW_MS / 1_000, "the load took too long: the fallbacks were due before the kill"
    wait_balanced([b, c], timeout=LIFETIME_MS / 1_000 + 10)
    wait_for(lambda: a.query("SELECT count(*) FROM delivery_events WHERE kind = 'smsSubmitted'") == [(60,)], timeout=30,
             what="60 fallbacks")
    events = events_by_number(a)
    late = []
    for msisdn, (node, _) in accepted.items():
        history = events[msisdn]
        kinds = [kind for kind, _ in history]
        assert kinds.count("smsSubmitted") == 1, (msisdn, kinds)
        routed_at = history[0][1]
        fired = next(at for kind, at in history if kind == "timerFired")
        deadline = routed_at + WINDOW_MS
        assert fired >= deadline, (msisdn, history)
        if node is a:
            # Taken over: no later than its deadline (or the kill) plus a lease lifetime and the slack.
            late.append(fired - deadline)
            assert fired <= max(deadline, killed_at * 1_000) + LIFETIME_MS + TAKEOVER_SLACK_MS, (msisdn, history)
        else:
            assert fired <= deadline + TAKEOVER_SLACK_MS, (msisdn, history)
    assert late, "node a accepted none of the messages"
    print(f"taken-over fallbacks: {len(late)}, lateness max {max(late)} ms, median {sorted(late)[len(late) // 2]} ms "
          f"(lease lifetime {LIFETIME_MS} ms)")


def test_graceful_shutdown_moves_partitions_at_once(nodes):
    a, b = nodes(["a", "b"])
    wait_balanced([a, b])
    a.terminate(signal.SIGTERM)
    assert a.wait(timeout=30) == 0
    stopped_at = time.monotonic()
    # Released at shutdown, its heartbeat gone: nothing waits for the leases to expire.
    assert a.query("SELECT count(*) FROM partition_leases WHERE owner = 'a'") == [(0,)]
    assert a.query("SELECT count(*) FROM cluster_nodes WHERE node = 'a'") == [(0,)]
    # b claims them in its next rounds (64 a round, every 300 ms).
    wait_for(lambda: len(held(b)) == 256, timeout=10, what="b to hold every partition")
    print(f"b held all 256 partitions {time.monotonic() - stopped_at:.2f} s after a stopped (lease lifetime {LIFETIME_MS} ms)")


def test_receipts_sent_to_a_node_that_does_not_own_the_delivery_are_forwarded(nodes):
    """BWMI acknowledgements (read receipts) posted to a node other than the delivery's owner: forwarded, applied by
    the owner before its fallback timer, answered 201 only after that; no SMS for them, one for each of the others."""
    a, b, c = nodes(["a", "b", "c"])
    wait_balanced([a, b, c])
    token = create_account(a, "Airline")
    app_key = create_app(a, token, "Airline")
    from conftest import run_tandem
    out = run_tandem("app", "bwmi", app_key, "--trust-phones", "on", "--config", str(a.config_path))
    assert out.returncode == 0, out.stderr
    device, phone = "noread-ios-1", "+31612340000"
    status, body, _ = http(b, "PUT", f"/bwmi/{app_key}/devices",
                           json.dumps({"deviceId": device, "type": "IOS", "user": {"phone": phone}}),
                           {"Content-Type": "application/json"})
    assert status == 201, body
    servers = [a, b, c]
    lines = []
    for i in range(12):
        status, body, _ = http(servers[i % 3], "POST", "/v1.0/message", messages_request(token, msg(
            ["0031612340000"], "Gate change %d" % i, sender="Airline", appKey=app_key, appMessageType="Critical")))
        assert status == 200, body
        lines.append(json.loads(body)["messages"][0])
    keys = {line["messageId"]: key for key, line_id in a.query(
        "SELECT d.id, m.message_id FROM deliveries d JOIN messages m ON m.id = d.message_id") for line in lines
        if str(line_id) == line["messageId"]}
    assert len(keys) == 12
    holders = {s: held(s) for s in servers}
    acked = []
    for line in lines[::2]:
        key = keys[line["messageId"]]
        stranger = next(s for s in servers if key % 256 not in holders[s])
        status, body, _ = http(stranger, "PUT", f"/bwmi/{app_key}/acks", json.dumps({"nid": str(key), "did": device}),
                               {"Content-Type": "application/json"})
        assert status == 201, (status, body)
        acked.append(key)
    # Applied by the owner once answered: the read is in the event log already.
    for key in acked:
        kinds = [kind for (kind,) in a.query("SELECT kind FROM delivery_events WHERE delivery_id = ?", (key,))]
        assert "readReported" in kinds, (key, kinds)
    wait_for(lambda: a.query("SELECT count(*) FROM delivery_events WHERE kind = 'smsSubmitted'") == [(6,)], timeout=15,
             what="6 fallbacks")
    time.sleep(0.5)
    submitted = {d for (d,) in a.query("SELECT delivery_id FROM delivery_events WHERE kind = 'smsSubmitted'")}
    assert submitted == set(keys.values()) - set(acked)


def test_a_node_paused_past_its_lease_sends_and_commits_nothing_for_the_partitions_it_lost(nodes, tmp_path):
    """SIGSTOP node a with Critical fallbacks pending in its partitions; b takes them over and sends each SMS once at
    its deadline; a, resumed after the deadlines, finds its leases gone: it sends nothing (counted at the SMSC) and
    commits nothing for them, then rejoins."""
    os.environ[SMPP_PASSWORD_ENV] = "s3cret"
    smsc = SMSC(tmp_path, dlr="none")
    try:
        a, b = nodes(["a", "b"], providers_config(smsc=smsc))
        wait_balanced([a, b])
        token = create_account(a, "Plant")
        app_key = create_app(a, token, "Alarms", "Critical")
        accepted = critical_load(a, [a], token, app_key, 20, 2_000)
        a.process.send_signal(signal.SIGSTOP)
        paused_at = time.time()
        try:
            wait_for(lambda: len(held(b)) == 256, timeout=10, what="b to take a's partitions over")
            wait_for(lambda: len(smsc.submits()) >= 20, timeout=15, what="20 fallbacks at the SMSC")
            time.sleep(max(0.0, paused_at + 6 - time.time()))
        finally:
            a.process.send_signal(signal.SIGCONT)
        resumed_at = time.time()
        wait_balanced([a, b], timeout=20)  # a rejoined, with new leases
        time.sleep(1.0)
        submits = defaultdict(int)
        for submit in smsc.submits():
            submits[submit.destination_addr] += 1
        assert {smsc_number(m): n for m, n in submits.items() if n != 1} == {}
        assert set(submits) == {smsc_number(m) for m in accepted}
        events = events_by_number(a)
        for msisdn in accepted:
            kinds = [kind for kind, _ in events[msisdn]]
            assert kinds.count("smsSubmitted") == 1 and kinds.count("timerFired") == 1, (msisdn, kinds)
            fired = next(at for kind, at in events[msisdn] if kind == "timerFired")
            assert fired < resumed_at * 1_000, "a fallback was fired after a resumed: by a, which had lost its lease"
        dropped = [line for line in a.log_lines() if line.get("msg") == "partitions reconciled" and line.get("dropped")]
        assert dropped, "a never dropped the partitions it lost"
    finally:
        smsc.stop()
