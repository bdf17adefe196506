#!/usr/bin/env python3
"""The summary table at the end of `make bench`.

Reads the KEY=VALUE lines that scripts/bench*.sh recorded in WORKDIR/results.env during the same run and
prints the conditions and one row per figure: what was measured, its reference measured in the same run,
and the target set by the earlier issues (with met / MISSED where a target exists). A figure that was not
recorded shows as "n/a (reason)". Nothing here measures or estimates anything.

Usage: scripts/bench-table.py WORKDIR/results.env
"""
import sys


class Missing(Exception):
    pass


def load(path):
    values = {}
    with open(path, encoding="utf-8") as results:
        for line in results:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                values[key] = value  # the last record of a key wins
    return values


R = load(sys.argv[1])

# Which section recorded which figure, so that a failed section's error can be named in its cells.
SECTION = {"healthz": "healthz", "single": "gateway", "scg": "gateway", "bulk": "gateway", "receipts": "receipts", "bwmi": "bwmi",
           "mymspsend": "mymsp", "mymspget": "mymsp",
           "timers": "timers", "apns": "providers", "h2load": "providers", "smpp50": "providers",
           "smpp1": "providers", "memory": "memory", "recovery": "recovery", "pg": "postgres"}


def get(key):
    value = R.get(key, "")
    if value == "":
        prefix = key.split("_")[0]
        reason = R.get(f"{prefix}_error") or R.get(f"{SECTION.get(prefix, prefix)}_error")
        raise Missing(reason or f"{key} not recorded")
    return value


def num(key):
    text = get(key)
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise Missing(f"{key} is not a number: {text!r}")


def ms(key):
    """A wrk latency ("950.00us", "2.95ms", "1.02s", "1.50m") in milliseconds."""
    text = get(key)
    for unit, scale in (("us", 1e-3), ("ms", 1.0), ("s", 1e3), ("m", 6e4)):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * scale
            except ValueError:
                break
    raise Missing(f"{key} is not a latency: {text!r}")


def cell(build):
    try:
        return build()
    except Missing as missing:
        return f"n/a ({missing})"


def verdict(passed):
    return "met" if passed else "MISSED"


def grouped(value, digits=0):
    return f"{value:,.{digits}f}"


def mib(value):
    return f"{value / 1048576:.1f} MiB"


def healthz():
    return f"GET /healthz {grouped(num('healthz_rps'))} req/s, p99 {ms('healthz_p99'):.2f} ms"


def checks(prefix, stored_key, per_request=1):
    """Extra words when a wrk run had non-2xx answers or fewer stored rows than 2xx answers."""
    notes = []
    bad = int(num(f"{prefix}_non2xx"))
    if bad:
        notes.append(f"{grouped(bad)} non-2xx!")
    good = (int(num(f"{prefix}_requests")) - bad) * per_request
    stored = int(num(stored_key))
    notes.append(f"{grouped(stored)} stored" + ("" if stored >= good else f" < {grouped(good)} accepted!"))
    return "; ".join(notes)


rows = []


def row(figure, measured, reference, target):
    rows.append((figure, cell(measured), cell(reference), cell(target)))


# 1. single-recipient accept
row("1 single-recipient accept",
    lambda: f"{grouped(num('single_rps'))} req/s, p99 {ms('single_p99'):.2f} ms ({checks('single', 'single_stored')})",
    lambda: f"{healthz()} (ratio {num('single_rps') / num('healthz_rps'):.2f})",
    lambda: f"≥ 20,000 req/s [{verdict(num('single_rps') >= 20_000)}], p99 < 10 ms [{verdict(ms('single_p99') < 10)}]")

# 1'. the same through the SCG API, beside the CM figure of the same run
row("1' SCG single-recipient accept",
    lambda: f"{grouped(num('scg_rps'))} req/s, p99 {ms('scg_p99'):.2f} ms ({checks('scg', 'scg_stored')})",
    lambda: f"CM single-recipient {grouped(num('single_rps'))} req/s (ratio {num('scg_rps') / num('single_rps'):.2f})",
    lambda: f"≥ 0.9× CM [{verdict(num('scg_rps') >= 0.9 * num('single_rps'))}]")

# 2. bulk accept
row("2 bulk accept",
    lambda: f"{grouped(num('bulk_recipients_per_s'))} recipients/s accepted (p99 {ms('bulk_p99'):.0f} ms; "
            f"{checks('bulk', 'bulk_stored', 1000)}); spool drained at {grouped(num('bulk_drain_per_s'))} deliveries started/s",
    lambda: healthz(),
    lambda: f"≥ 200,000 recipients/s [{verdict(num('bulk_recipients_per_s') >= 200_000)}]")


# 3. receipts
def receipts_measured():
    answered = int(num("receipts_requests")) - int(num("receipts_non2xx"))
    dropped = max(0, answered - int(num("receipts_acked")))
    bad = int(num("receipts_non2xx"))
    return (f"{grouped(num('receipts_rps'))} receipts/s, p99 {ms('receipts_p99'):.2f} ms; "
            + (f"{grouped(dropped)} of {grouped(answered)} 2xx NOT RECORDED" if dropped else f"all {grouped(answered)} 2xx recorded")
            + (f", {grouped(bad)} REFUSED (non-2xx)" if bad else "")
            + (f"; a first run held up ({R['receipts_held_up']}) was measured again" if R.get("receipts_held_up") else ""))


def receipts_target():
    answered = int(num("receipts_requests")) - int(num("receipts_non2xx"))
    none_dropped = int(num("receipts_non2xx")) == 0 and int(num("receipts_acked")) >= answered
    return f"≥ 50,000/s [{verdict(num('receipts_rps') >= 50_000)}], none dropped or refused [{verdict(none_dropped)}]"


row("3 receipts (delivery acks)", receipts_measured,
    lambda: f"{healthz()} (ratio {num('receipts_rps') / num('healthz_rps'):.2f})", receipts_target)

# 1-PG … 3-PG: rows 1–3 with the store on a PostgreSQL server on the same machine, beside the SQLite figures.
def pg_checks(prefix, stored_key, per_request=1):
    return checks("pg_" + prefix, "pg_" + stored_key, per_request)


row("1-PG single-recipient accept, PostgreSQL",
    lambda: f"{grouped(num('pg_single_rps'))} req/s, p99 {ms('pg_single_p99'):.2f} ms ({pg_checks('single', 'single_stored')}); "
            f"PostgreSQL used {get('pg_single_dbcpu')}",
    lambda: f"SQLite {grouped(num('single_rps'))} req/s (ratio {num('pg_single_rps') / num('single_rps'):.2f})",
    lambda: f"≥ 5,000 req/s [{verdict(num('pg_single_rps') >= 5_000)}], p99 < 50 ms [{verdict(ms('pg_single_p99') < 50)}]")
row("2-PG bulk accept and drain, PostgreSQL",
    lambda: f"{grouped(num('pg_bulk_recipients_per_s'))} recipients/s accepted ({pg_checks('bulk', 'bulk_stored', 1000)}; "
            f"PostgreSQL used {get('pg_bulk_dbcpu')}); drained at {grouped(num('pg_bulk_drain_per_s'))} deliveries started/s "
            f"(PostgreSQL used {get('pg_drain_dbcpu')})",
    lambda: f"SQLite {grouped(num('bulk_recipients_per_s'))} recipients/s, drain {grouped(num('bulk_drain_per_s'))}/s",
    lambda: f"drain ≥ 10,000 deliveries/s [{verdict(num('pg_bulk_drain_per_s') >= 10_000)}]")


def pg_receipts_measured():
    answered = int(num("pg_receipts_requests")) - int(num("pg_receipts_non2xx"))
    dropped = max(0, answered - int(num("pg_receipts_acked")))
    return (f"{grouped(num('pg_receipts_rps'))} receipts/s, p99 {ms('pg_receipts_p99'):.2f} ms; "
            + (f"{grouped(dropped)} of {grouped(answered)} 2xx NOT RECORDED" if dropped else f"all {grouped(answered)} 2xx recorded")
            + f"; PostgreSQL used {get('pg_receipts_dbcpu')}")


row("3-PG receipts, PostgreSQL", pg_receipts_measured,
    lambda: f"SQLite {grouped(num('receipts_rps'))} receipts/s (ratio {num('pg_receipts_rps') / num('receipts_rps'):.2f})",
    lambda: f"≥ 10,000/s [{verdict(num('pg_receipts_rps') >= 10_000)}]")

# 3b. BWMI acknowledgements
def bwmi_measured():
    answered = int(num("bwmi_acks_requests")) - int(num("bwmi_acks_non2xx"))
    lost = max(0, answered - int(num("bwmi_acks_acked")))
    bad = int(num("bwmi_acks_non2xx"))
    return (f"{grouped(num('bwmi_acks_rps'))} acks/s, p99 {ms('bwmi_acks_p99'):.2f} ms; "
            + (f"{grouped(lost)} of {grouped(answered)} 201 NOT RECORDED" if lost else f"all {grouped(answered)} 201 recorded")
            + (f", {grouped(bad)} REFUSED (non-2xx)" if bad else ""))


def bwmi_target():
    answered = int(num("bwmi_acks_requests")) - int(num("bwmi_acks_non2xx"))
    none_lost = int(num("bwmi_acks_non2xx")) == 0 and int(num("bwmi_acks_acked")) >= answered
    return (f"≥ 0.4× /healthz [{verdict(num('bwmi_acks_rps') >= 0.4 * num('healthz_rps'))}], "
            f"none lost [{verdict(none_lost)}]")


row("3b BWMI PUT /acks", bwmi_measured,
    lambda: f"{healthz()} (ratio {num('bwmi_acks_rps') / num('healthz_rps'):.2f})", bwmi_target)

# 3c. myMSP send and get
row("3c myMSP send (1 recipient)",
    lambda: f"{grouped(num('mymspsend_rps'))} req/s, p99 {ms('mymspsend_p99'):.2f} ms, {int(num('mymspsend_non2xx'))} non-2xx",
    lambda: f"{healthz()} (ratio {num('mymspsend_rps') / num('healthz_rps'):.2f})",
    lambda: f"≥ 0.2× /healthz [{verdict(num('mymspsend_rps') >= 0.2 * num('healthz_rps'))}]")
row("3d myMSP get",
    lambda: f"{grouped(num('mymspget_rps'))} req/s, p99 {ms('mymspget_p99'):.2f} ms, {int(num('mymspget_non2xx'))} non-2xx",
    lambda: f"{healthz()} (ratio {num('mymspget_rps') / num('healthz_rps'):.2f})",
    lambda: f"≥ 0.4× /healthz [{verdict(num('mymspget_rps') >= 0.4 * num('healthz_rps'))}]")

# 4. timers
def timers_target():
    if get("timers_size") != "10M":
        return f"≤ 150 ns at 10M [not judged: measured at {get('timers_size')}]"
    return f"≤ 150 ns at 10M [{verdict(num('timers_wheel_ns') <= 150)}]"


row("4 timer schedule+cancel",
    lambda: f"wheel {num('timers_wheel_ns'):.1f} ns/op at {get('timers_size')} pending "
            f"({get('timers_size')}/1k ratio {get('timers_ratio')}, {get('timers_wheel_bytes')} B/timer)",
    lambda: f"binary heap {num('timers_heap_ns'):.1f} ns/op (ratio {get('timers_heap_ratio')})", timers_target)


# 5. lateness
def lateness(queue):
    fields = get(f"timers_late_{queue}").split()
    if len(fields) != 9:
        raise Missing(f"timers_late_{queue} malformed")
    tick50, tick99, tickmax, p50, p99, late_max, least, never_early, complete = fields
    return dict(p50=float(p50), p99=float(p99), max=float(late_max), tick=f"{tick50} / {tick99} / {tickmax}",
                least=float(least), never_early=never_early == "yes", complete=complete == "complete")


def lateness_text(queue):
    late = lateness(queue)
    return (f"{queue} {late['p50']:.2f} / {late['p99']:.2f} / {late['max']:.2f} ms, "
            + ("never early" if late["never_early"] else f"EARLY (min {late['least']} ms)")
            + ("" if late["complete"] else ", NOT ALL FIRED"))


def lateness_target():
    late = lateness("wheel")
    return (f"never early [{verdict(late['never_early'] and late['complete'])}], "
            f"p99 ≤ 12 ms (tick + 2 ms) [{verdict(late['p99'] <= 12)}]")


row("5 fallback lateness p50/p99/max",
    lambda: lateness_text("wheel"), lambda: lateness_text("heap"), lateness_target)


# 6. memory
def memory_measured():
    n = int(num("memory_n"))
    in_flight = int(num("memory_in_flight"))
    return (f"{grouped(num('memory_bytes_per_delivery'))} B (ΔRSS {mib(num('memory_full_rss') - num('memory_idle_rss'))} / "
            f"{grouped(n)}; 2nd half {grouped(num('memory_second_half_bytes'))} B); "
            + (f"{grouped(n)} in flight" if in_flight == n else f"ONLY {grouped(in_flight)} of {grouped(n)} in flight"))


row("6 RSS per in-flight delivery", memory_measured,
    lambda: f"SQLite db + WAL {grouped(num('memory_disk_bytes_per_delivery'))} B/delivery; idle RSS {mib(num('memory_idle_rss'))}",
    lambda: "no target set by earlier issues; reported")

# 6b. recovery after kill -9
def recovery_measured():
    return (f"listening {get('recovery_listen_s')} s, new message accepted {get('recovery_accept_s')} s, "
            f"{grouped(num('recovery_in_flight'))} back in memory {get('recovery_full_s')} s; RSS "
            f"{mib(num('recovery_rss_before'))} → {mib(num('recovery_rss_after'))} "
            f"({num('recovery_rss_after') / num('recovery_rss_before') * 100 - 100:+.1f}%)")


row("6b start-up after kill -9, 1M in flight", recovery_measured,
    lambda: f"plain SELECT of the same rows: {get('recovery_select_s')} s",
    lambda: (f"accept ≤ 2 s [{verdict(num('recovery_accept_s') <= 2)}], loaded ≤ 5 s [{verdict(num('recovery_full_s') <= 5)}], "
             f"RSS ≤ +10% [{verdict(num('recovery_rss_after') <= num('recovery_rss_before') * 1.1)}]"))

# 7. SMPP
row("7 SMPP submits/s, window 50",
    lambda: f"{grouped(num('smpp50_per_s'))} submits/s ({grouped(num('smpp50_submitted'))} accepted"
            + (f", {R['smpp50_rejected']} rejected" if R.get("smpp50_rejected") else "") + ")",
    lambda: f"window 1: {grouped(num('smpp1_per_s'))}/s (50/1 = {num('smpp50_per_s') / num('smpp1_per_s'):.2f}×)",
    lambda: "no target set by earlier issues; reported")

# 8. APNs
row("8 APNs pushes/s, 1 connection",
    lambda: f"{grouped(num('apns_pushes_per_s'))} pushes/s ({grouped(num('apns_accepted'))}/{grouped(num('apns_pushes'))} "
            f"accepted, ≤ {get('apns_streams')} streams)",
    lambda: f"h2load: {grouped(num('h2load_rps'))} req/s ({grouped(num('h2load_2xx'))} × 2xx; ratio "
            f"{num('apns_pushes_per_s') / num('h2load_rps'):.2f})",
    lambda: "no target set by earlier issues; reported")


def conditions():
    def value(key, default="n/a"):
        return R.get(key) or default

    def tick(queue):
        fields = R.get(f"timers_late_{queue}", "").split()
        return " / ".join(fields[:3]) + " ms" if len(fields) >= 3 else "n/a"

    loads = ", ".join(f"{name} {R[f'load_{name}']}" for name in
                      ("healthz", "gateway", "receipts", "store", "timers", "providers", "memory", "recovery") if f"load_{name}" in R)
    return [
        f"machine: {value('cores')} cores ({value('cpu')}), {value('memory')} RAM, {value('kernel')}; load generators "
        "and protocol peers run on the same machine and share its cores",
        f"build: {value('build')}; commit {value('commit')}; {value('date')}; "
        f"load average at start {value('load_start')}, at end {value('load_end')}",
        f"load average (1 min) as each section started: {loads or 'n/a'} (other work on the machine shows here)",
        "servers: tandem serve, http.threads 2, SQLite WAL synchronous=NORMAL, simulator providers (defaults: SMS "
        "answered after 5 ms, delivery report 500 ms later; simulator.logEvents off), access log off (on for /healthz)",
        f"1-3 reference: GET /healthz, {value('healthz_conditions')}",
        f"1: {value('single_conditions')}",
        f"1': {value('scg_conditions')}",
        f"2: {value('bulk_conditions')}",
        f"3: {value('receipts_conditions')}",
        f"1-PG..3-PG: the same loads; {value('pg_conditions')}",
        f"4: tandem bench timers, wheel and heap in one process, the scheduler's pattern (ids row × 4 + kind, "
        f"background 48 h timers, each op schedules a 30 s timer and cancels the one 2,000 ops earlier, clock "
        f"advanced inside the loop, presized) at {value('timers_size')} pending",
        f"5: {value('timers_late_timers')} timers due over {value('timers_late_seconds')} s on the real clock, 10 ms "
        f"ticks; lateness vs the exact (unrounded) deadline; vs the tick deadline: wheel {tick('wheel')}, "
        f"heap {tick('heap')}",
        f"6: {value('memory_conditions')}",
        f"7: {value('smpp_conditions')}",
        f"8: {value('apns_conditions')}; h2load sends one pre-signed request, 1 connection, 100 streams",
    ]


def table():
    header = ("figure", "measured", "reference (same run)", "target")
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(4)]

    def line(cells):
        return "| " + " | ".join(text.ljust(width) for text, width in zip(cells, widths)) + " |"

    out = [line(header), "|" + "|".join("-" * (width + 2) for width in widths) + "|"]
    out += [line(cells) for cells in rows]
    return out


print("== Summary: every figure measured in this run")
for text in conditions():
    print(f"   {text}")
print()
for text in table():
    print(text)
