"""Crash safety, black-box: `kill -9` a loaded `tandem serve` at a random moment, restart it on the same
database, and check what the README promises.

Load: 4,000 recipients in 250-recipient CM requests, alternating Critical messages to numbers with a verified
install (the push simulator acknowledges `noread…` tokens and never reads; `noack…` tokens are never
acknowledged — so every one of them falls back to SMS when its 3 s window ends: Tests/integration/policies)
and Default messages to numbers without the app (SMS at once). SMS goes over SMPP to the smpp34 SMSC, which
answers each submit_sm after 20 ms (so submissions are in flight) and sends a DELIVRD receipt for each; a
receipt the crash cut off is kept by the SMSC and sent again after Tandem binds again, as real SMSCs do.

At the kill, the database is read as the crash left it (the snapshot). After the restart, every delivery must
end, and:
- every recipient of an Accepted response is stored and reaches exactly one final status, with one report;
- every fallback fires at its original deadline — never before it, and at once (on recovery) when the deadline
  passed while the server was down;
- a delivery whose `submit_sm_resp` was stored before the crash is never submitted again; a second submit_sm
  happens only inside the documented window (the SMSC accepted, the crash came before Tandem stored it);
- status reports: none lost; a report is posted again only if it was in flight at the crash (posted, but its
  outcome not yet stored), and then byte for byte the same report.
Set TANDEM_CRASH_SEED to replay a kill moment.
"""
import json
import os
import random
import threading
import time
from collections import defaultdict

import pytest

from conftest import REPO, Server, wait_for
from gateway_support import WebhookReceiver, create_account, create_app, http, messages_request, msg
from provider_support import SMSC, SMPP_PASSWORD_ENV, providers_config, set_webhook, smsc_number, wait_quiet

WINDOW_MS = 3_000   # the test policies' Critical windows
TOLERANCE_MS = 500  # a fallback's lateness allowed after max(deadline, restart)
BATCH = 250
BATCHES = 8         # of each kind: 2,000 Critical push recipients and 2,000 SMS recipients


@pytest.fixture
def seed():
    value = int(os.environ.get("TANDEM_CRASH_SEED", time.time_ns() % 1_000_000_007))
    print(f"TANDEM_CRASH_SEED={value}")
    return value


def push_number(i):
    return "0031610%06d" % i


def sms_number(i):
    return "0031620%06d" % i


def e164(number):
    return "+" + number[2:]


def rows(server, sql, params=()):
    return server.query(sql, params)


class Load:
    """Posts the requests one after another on a thread until told to stop; keeps each request's recipients
    and, when a response came, its lines."""

    def __init__(self, server, token, app_key):
        self.server = server
        self.stop = threading.Event()
        self.answered = threading.Event()  # set at the first response
        self.results = []
        self.requests = []
        for b in range(BATCHES):
            numbers = [push_number(b * BATCH + i) for i in range(BATCH)]
            self.requests.append(messages_request(token, msg(numbers, "Alarm: pump %d stopped" % b, sender="Plant",
                                                             appKey=app_key, appMessageType="Critical")))
            numbers = [sms_number(b * BATCH + i) for i in range(BATCH)]
            self.requests.append(messages_request(token, msg(numbers, "Your order %d has shipped" % b, sender="Shop")))
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        for body in self.requests:
            if self.stop.is_set():
                return
            try:
                status, reply, _ = http(self.server, "POST", "/v1.0/message", body)
                self.results.append((status, json.loads(reply)["messages"]))
                self.answered.set()
            except Exception:  # the kill: no response, so nothing is promised about this request
                return


@pytest.mark.parametrize("spool", [100, 0], ids=["spooled", "direct"])
def test_kill_9_under_load_loses_and_duplicates_nothing(tmp_path, seed, spool):
    """With `spool` 100, each 250-recipient request is spooled (one row, started by the drainer, also after the
    restart); with 0, every recipient's delivery is stored before the reply."""
    os.environ[SMPP_PASSWORD_ENV] = "s3cret"
    smsc = SMSC(tmp_path, dlr="both", extra=["--delay-ms", "20"])
    webhook = WebhookReceiver()
    (tmp_path / "server").mkdir()
    config = providers_config(smsc=smsc)
    config["providers"]["sms"]["smpp"]["window"] = 20
    config.update({"policies": str(REPO / "Tests" / "integration" / "policies"),
                   "scheduler": {"expectedTimers": 20_000}, "gateway": {"spoolRecipients": spool},
                   "statusReports": {"initialRetryDelay": "100ms", "maximumRetryDelay": "1s", "pollInterval": "20ms"}})
    server = Server(tmp_path / "server", config=config)
    try:
        token = create_account(server, "Acme")
        set_webhook(server, token, webhook.url)
        app_key = create_app(server, token, "Alarms")
        # Verified installs for the push numbers (by SQL for speed; the device API's own tests cover the PIN flow).
        server.query("""INSERT INTO registrations (device_id, app_id, msisdn, platform, push_token, status, created_at, updated_at)
                        VALUES (?, (SELECT id FROM apps WHERE app_key = ?), ?, 'Android', ?, 'PinVerified', 0, 0)""",
                     many=[("00000000-0000-4000-8000-%012d" % i, app_key, e164(push_number(i)),
                            ("noread-%d" if i % 2 else "noack-%d") % i) for i in range(BATCHES * BATCH)])

        # Load, and kill -9 at a random moment while it runs.
        load = Load(server, token, app_key)
        rng = random.Random(seed)
        kill_after, downtime = rng.uniform(0.0, 2.0), rng.uniform(0.0, 3.0)
        load.thread.start()
        assert load.answered.wait(timeout=30), "no response to the first request"
        time.sleep(kill_after)  # after the first response: something is always in flight
        server.process.kill()
        server.process.wait()
        load.stop.set()
        load.thread.join(timeout=15)

        # The snapshot: what the crash left in the database.
        persisted_sms = {d for (d,) in rows(server, "SELECT DISTINCT delivery_id FROM delivery_events WHERE kind = 'smsSubmitted'")}
        reported = {d for (d,) in rows(server, "SELECT delivery_id FROM outbox WHERE delivered_at IS NOT NULL")}
        in_flight = rows(server, "SELECT d.id, m.message_type FROM deliveries d JOIN messages m ON m.id = d.message_id WHERE NOT d.final")
        pending_critical = [d for d, kind in in_flight if kind == "Critical"]
        pending_sms = [d for d, kind in in_flight if kind == "Default"]
        queued = rows(server, "SELECT coalesce(sum(total - started), 0) FROM message_spools")[0][0]
        context = (f"seed {seed}, spool {spool}: killed {kill_after:.2f}s after the first response, down {downtime:.2f}s; {len(load.results)} of "
                   f"{len(load.requests)} requests answered; in flight {len(pending_critical)} Critical, {len(pending_sms)} SMS, "
                   f"{queued} recipients spooled")
        print(context)
        assert in_flight or queued, f"the kill came when nothing was in flight ({context})"

        # Down long enough, some deadlines pass meanwhile: those fallbacks must fire at once on recovery.
        time.sleep(downtime)
        # The peers stamp what they receive once they have read it, so something the killed process sent just
        # before SIGKILL can carry a time after the kill (CI saw 4 ms). What they received before the restart
        # can only have come from the killed process.
        relaunched_at = time.time()
        server.launch("serve-after-crash")
        ready_at = time.time()
        wait_for(lambda: rows(server, """SELECT (SELECT count(*) FROM deliveries WHERE NOT final)
                                                   + (SELECT count(*) FROM message_spools)""") == [(0,)], timeout=90,
                 what=f"every recipient started and every delivery final ({context})")
        # Every report posted and marked delivered: a post the loaded machine answered slowly is retried after a
        # backoff of seconds, longer than any quiet spell worth waiting for.
        wait_for(lambda: rows(server, "SELECT count(*) FROM outbox WHERE delivered_at IS NULL") == [(0,)], timeout=90,
                 what=f"every status report delivered ({context})")
        wait_quiet(lambda: (len(webhook.all_posts()), len(smsc.records())), quiet=1.0, timeout=30)

        deliveries = {d: (msisdn, status, kind, message_id) for d, msisdn, status, kind, message_id in rows(
            server, """SELECT d.id, d.msisdn, d.status, m.message_type, m.message_id
                          FROM deliveries d JOIN messages m ON m.id = d.message_id""")}
        events = defaultdict(list)
        for d, kind, detail, at in rows(server, "SELECT delivery_id, kind, detail, at FROM delivery_events ORDER BY id"):
            events[d].append((kind, detail, at))

        # 1. Every Accepted recipient is stored and final, with exactly one report queued and delivered.
        stored = {(message_id, msisdn): d for d, (msisdn, _, _, message_id) in deliveries.items()}
        accepted = [(line["messageId"], e164(line["to"])) for status, lines in load.results for line in lines
                    if status == 200 and line["status"] == "Accepted"]
        assert accepted and all(key in stored for key in accepted), context
        finals = rows(server, "SELECT count(*) FROM deliveries WHERE final")[0][0]
        assert finals == len(deliveries) >= len(accepted), context
        outbox = defaultdict(list)
        for d, delivered_at in rows(server, "SELECT delivery_id, delivered_at FROM outbox"):
            outbox[d].append(delivered_at)
        assert {d: len(v) for d, v in outbox.items() if len(v) != 1} == {} and set(outbox) == set(deliveries), context
        assert all(v[0] is not None for v in outbox.values()), context

        # 2. Status reports: none lost; a repeat only for a report in flight at the crash, and identical.
        posts = defaultdict(list)
        for post in webhook.all_posts():
            report = json.loads(post["body"])["messages"]["msg"]
            posts[report["updateId"]].append((post, report))
        assert set(posts) == set(deliveries), context
        repeated = {d: p for d, p in posts.items() if len(p) > 1}
        for d, copies in repeated.items():
            assert d not in reported and copies[0][0]["t"] < relaunched_at, (d, context)
            assert len({post["body"] for post, _ in copies}) == 1, (d, context)
        for d, copies in posts.items():
            assert copies[0][1]["tandemStatus"] == deliveries[d][1], (d, copies[0][1], context)

        # 3. SMS: every delivery sent by SMS has its submit_sm; none stored as submitted before the crash is
        #    submitted again; a second submit_sm only for a submission the crash caught unstored.
        submits = defaultdict(list)
        for submit in smsc.submits():
            submits[submit.destination_addr].append(submit)
        by_number = {smsc_number(row[0]): d for d, row in deliveries.items()}
        assert set(submits) <= set(by_number), context
        duplicated = {}
        for number, found in submits.items():
            d = by_number[number]
            if d in persisted_sms:
                assert all(s.t < relaunched_at for s in found), (number, found, context)
            if len(found) > 1:
                assert d not in persisted_sms and len(found) == 2 and found[0].t < relaunched_at, (number, found, context)
                duplicated[number] = found
            stored_ids = [detail.split(" ", 1)[1] for kind, detail, _ in events[d] if kind == "smsSubmitted"]
            assert stored_ids == [found[-1].message_id], (number, stored_ids, found, context)
        sent_by_sms = [d for d in deliveries if any(kind == "smsSubmitted" for kind, _, _ in events[d])]
        assert all(smsc_number(deliveries[d][0]) in submits for d in sent_by_sms), context

        # 4. Every Critical fallback at its original deadline: never early; late only by the restart.
        ready_ms = int(ready_at * 1000)
        late, overdue = [], 0
        for d, (msisdn, _, kind, _) in deliveries.items():
            if kind != "Critical":
                continue
            routed = next(at for k, _, at in events[d] if k == "routed")
            deadline = routed + WINDOW_MS
            fired = [at for k, detail, at in events[d] if k == "timerFired" and detail in ("noRead", "noDeliveryAck")]
            assert fired and min(fired) >= deadline, (msisdn, events[d], context)
            assert min(fired) <= max(deadline, ready_ms) + TOLERANCE_MS, (msisdn, min(fired) - deadline, context)
            first_sms = submits[smsc_number(msisdn)][0]
            assert first_sms.t * 1000 >= deadline - 1, (msisdn, first_sms.t * 1000 - deadline, context)
            late.append(min(fired) - deadline)
            overdue += deadline < ready_ms
        print(f"{context}; repeated reports {len(repeated)}, repeated SMS {len(duplicated)}, fallbacks overdue at "
              f"restart {overdue}, fallback lateness max {max(late, default=0)} ms")
    finally:
        server.stop()
        smsc.stop()
        webhook.close()
