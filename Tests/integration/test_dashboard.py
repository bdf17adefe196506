"""The dashboard in a real browser: Debian's chromium, headless, driven by Selenium through Debian's chromium-driver.

ONE `tandem serve` (simulated providers, the scenario suite's policies: Critical falls back after 3 s) with an
admin token carries the module. The page must load and work with no console error; its tiles must show what
`/metrics` shows (checked cell by cell against `prometheus_client`'s reading of an independent scrape, whatever
metrics this server has: a cell whose metric does not exist must show "—"); and the timeline of a Critical
fallback must show its events in order on the time axis with the policy's deadline between the push and the SMS.
Screenshots go to .build/test-artifacts/dashboard/ (gitignored); their paths are printed.
"""
import json
import math
import shutil
import tempfile

import pytest
from prometheus_client.parser import text_string_to_metric_families
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import REPO, Server
from gateway_support import add_verified_device, create_account, create_app, final_recipient, http, send_message

ADMIN_TOKEN = "dashboard-test-admin-token"
POLICIES = REPO / "Tests" / "integration" / "policies"  # Critical: afterNoDeliveryAck = afterNoRead = 3 s
WINDOW_MS = 3000
ARTIFACTS = REPO / ".build" / "test-artifacts" / "dashboard"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CRITICAL_NUMBER = "0031612340901"
SMS_NUMBERS = ["0031612340911", "0031612340912", "0031612340913"]


class World:
    def __init__(self, directory):
        self.server = Server(directory, config={"policies": str(POLICIES)}, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
        self.token = create_account(self.server, "Acme")
        self.app_key = create_app(self.server, self.token, "Alarms", "Critical")
        # A verified install whose (simulated) app never acknowledges: the simulator's `noack…` tokens.
        add_verified_device(self.server, self.app_key, "+31612340901", token="noack-dashboard-0901")
        self.sends = 0
        self.critical = None

    def send(self, to, body, reference, **extra):
        line = send_message(self.server, self.token, to, body, reference=reference, **extra)
        self.sends += 1
        return line

    def admin(self, path, token=ADMIN_TOKEN):
        return http(self.server, "GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    world = World(tmp_path_factory.mktemp("dashboard"))
    yield world
    world.server.stop()


@pytest.fixture(scope="module")
def browser():
    profile = tempfile.mkdtemp(prefix="tandem-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--disable-gpu", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     f"--user-data-dir={profile}", "--no-first-run", "--disable-extensions", "--disable-background-networking"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def console_errors(driver):
    """The browser log's errors since the last call (reading the log empties it)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def screenshot(driver, name):
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path)), path
    print(f"\nscreenshot: {path}")
    return path


def signed_out(driver, world):
    """The dashboard loaded with no token in the tab's session storage: the token form is shown."""
    driver.get(world.server.url + "/dashboard#live")
    driver.execute_script("sessionStorage.clear()")
    driver.refresh()
    return WebDriverWait(driver, 10).until(lambda d: (lambda e: e if e.is_displayed() else None)(d.find_element(By.ID, "token")))


def signed_in(driver, world):
    """Opens the dashboard afresh (no token kept in the tab) and gives the admin token through the page's form."""
    signed_out(driver, world)
    driver.find_element(By.ID, "token").send_keys(ADMIN_TOKEN)
    driver.find_element(By.ID, "login-submit").click()
    WebDriverWait(driver, 10).until(lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-scrapes")) >= 1)


# --- the page's own rules, as the tests read them ------------------------------------------------------------

def samples_of(text):
    """{sample name: [(labels, value)]} read by prometheus_client's parser (not the page's)."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found.setdefault(sample.name, []).append((sample.labels, sample.value))
    return found


def conditions(spec):
    result = []
    for part in filter(None, (spec or "").split(",")):
        negated = "!=" in part
        key, values = part.split("!=" if negated else "=")
        result.append((key, values.split("|"), negated))
    return result


def expected_sum(samples, metric, spec):
    if metric not in samples:
        return None
    conds = conditions(spec)
    return sum(value for labels, value in samples[metric]
               if all((labels.get(key, "") in values) != negated for key, values, negated in conds))


def shown(value):
    if value is None:
        return "\u2014"
    return str(int(value)) if float(value).is_integer() else str(round(value, 3))


def percent(part, whole):
    if part is None or whole is None:
        return "\u2014"
    if whole == 0:
        return "0%"
    return f"{math.floor(1000 * part / whole + 0.5) / 10:g}%"  # JavaScript's Math.round


def scrape(world):
    status, body, _ = http(world.server, "GET", "/metrics")
    assert status == 200, body
    return body.decode()


def shown_by(cells, samples):
    """What each cell that does not move with every scrape must show, read from `samples` (the scrape routes and
    the in-flight requests are volatile: they move with the page's own scrapes and are checked against those)."""
    wanted = []
    for cell in cells:
        if cell["ratio"]:
            wanted.append(percent(expected_sum(samples, cell["ratio"], cell["labels"]),
                                  expected_sum(samples, cell["of"], cell["ofLabels"])))
        elif not cell["volatile"]:
            wanted.append(shown(expected_sum(samples, cell["metric"], cell["labels"])))
        else:
            wanted.append(None)
    return wanted


# --- tests ---------------------------------------------------------------------------------------------------

def test_the_dashboard_and_its_admin_routes_are_off_without_an_admin_token(serve):
    server = serve()
    for path in ("/dashboard", "/dashboard/dashboard.js", "/admin/metrics", "/admin/messages?reference=x"):
        status, body, _ = http(server, "GET", path)
        assert status == 403, (path, status, body)
        assert "TANDEM_ADMIN_TOKEN" in json.loads(body)["error"], body


def test_a_dashboard_token_opens_the_dashboard_reads_and_nothing_else_of_the_admin_api(serve):
    server = serve(config={"dashboard": {"token": {"env": "TANDEM_DASHBOARD_TOKEN"}}},
                   env={"TANDEM_DASHBOARD_TOKEN": "viewer-token", "TANDEM_ADMIN_TOKEN": ""})
    viewer = {"Authorization": "Bearer viewer-token"}
    assert http(server, "GET", "/dashboard")[0] == 200
    status, body, _ = http(server, "GET", "/admin/metrics", headers=viewer)
    assert status == 200 and b"tandem_store_commits_total" in body, body
    assert http(server, "GET", "/admin/messages?reference=x", headers=viewer)[0] == 200
    assert http(server, "GET", "/admin/metrics", headers={"Authorization": "Bearer nope"})[0] == 401
    status, body, _ = http(server, "GET", "/admin/apps", headers=viewer)
    assert status == 403, body  # the admin API stays off: this token only reads what the dashboard shows


def test_admin_messages_refuses_a_wrong_token_and_malformed_searches(world):
    status, _, headers = world.admin("/admin/messages?reference=x", token="wrong")
    assert (status, headers.get("WWW-Authenticate")) == (401, 'Bearer realm="admin"')
    assert world.admin("/admin/metrics", token=None)[0] == 401
    for query, words in [("", "exactly one"), ("?id=x&reference=y", "exactly one"), ("?id=not-a-guid", "GUID"),
                         ("?msisdn=0612345678", "international"), ("?number=%2B31612345678", "unknown parameter"),
                         ("?reference=", "1 to 128")]:
        status, body, _ = world.admin("/admin/messages" + query)
        assert status == 400 and words in json.loads(body)["error"], (query, status, body)
    status, body, _ = world.admin("/admin/messages?reference=nothing-sent-with-this")
    assert (status, json.loads(body)) == (200, {"query": {"by": "reference", "value": "nothing-sent-with-this"}, "messages": []})
    # The page and its files are served (no token needed to load them) with a policy that allows nothing foreign.
    status, body, headers = http(world.server, "GET", "/dashboard")
    assert status == 200 and b"<!doctype html>" in body and "script-src 'self'" in headers["Content-Security-Policy"]
    assert b"http://" not in body and b"https://" not in body  # no CDN: nothing but this server
    assert http(world.server, "GET", "/dashboard/nope.js")[0] == 404


def test_a_critical_fallback_timeline_shows_its_events_in_order_with_the_deadline(world, browser):
    line = world.send([CRITICAL_NUMBER], "Alarm: server room", "dash-critical", appKey=world.app_key, appMessageType="Critical")
    message_id = line["messageId"]
    world.critical = message_id
    recipient = final_recipient(world.server, world.token, message_id, timeout=WINDOW_MS / 1000 + 10)
    assert (recipient["channel"], recipient["fallback"]) == ("SMS", True), recipient
    api_events = [e["event"] for e in recipient["events"]]
    assert api_events[:3] == ["routed", "pushAccepted", "timerFired"] and "smsSubmitted" in api_events, api_events

    # The admin search: by id, by reference, by number — the number shown masked, the deadline from the policy.
    status, body, _ = world.admin(f"/admin/messages?id={message_id}")
    assert status == 200, body
    [found] = json.loads(body)["messages"]
    assert (found["account"], found["appMessageType"], found["recipientCount"]) == ("Acme", "Critical", 1), found
    [admin_recipient] = found["recipients"]
    assert admin_recipient["to"] == "+3161****901" and "31612340901" not in body.decode(), admin_recipient
    assert [e["event"] for e in admin_recipient["events"]] == api_events
    routed_ms = int(admin_recipient["events"][0]["ms"])
    deadlines = {d["timer"]: d for d in admin_recipient["deadlines"]}
    assert int(deadlines["noDeliveryAck"]["ms"]) == routed_ms + WINDOW_MS, deadlines
    assert int(deadlines["noRead"]["ms"]) == routed_ms + WINDOW_MS, deadlines
    assert not deadlines["noDeliveryAck"]["armed"], deadlines
    for query in ("reference=dash-critical", "msisdn=%2B31612340901", "msisdn=0031612340901"):
        status, body, _ = world.admin("/admin/messages?" + query)
        assert [m["id"] for m in json.loads(body)["messages"]] == [message_id], (query, body)

    # The page: search by number, as an operator would.
    signed_in(browser, world)
    browser.find_element(By.ID, "nav-messages").click()
    Select(browser.find_element(By.ID, "search-by")).select_by_value("msisdn")
    browser.find_element(By.ID, "search-value").send_keys("+31612340901")
    browser.find_element(By.ID, "search-submit").click()
    card = WebDriverWait(browser, 10).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, f'section.message[data-message-id="{message_id}"]'))[0]
    block = card.find_element(By.CSS_SELECTOR, ".recipient")
    assert block.get_attribute("data-to") == "+3161****901"
    assert "31612340901" not in browser.find_element(By.ID, "results").text
    why = block.find_element(By.CSS_SELECTOR, ".why").text
    assert why.startswith("SMS fallback:") and recipient["smsCause"] in why, (why, recipient["smsCause"])

    svg = block.find_element(By.CSS_SELECTOR, "svg.timeline")
    drawn = [(g.get_attribute("data-event"), int(g.get_attribute("data-ms")),
              float(g.find_element(By.TAG_NAME, "circle").get_attribute("cx")))
             for g in svg.find_elements(By.CSS_SELECTOR, "g.event")]
    assert [event for event, _, _ in drawn] == api_events  # every event, in the log's order
    xs = [x for _, _, x in drawn]
    assert xs == sorted(xs) and xs[0] < xs[-1], drawn  # on one time axis, left to right
    start, span = float(svg.get_attribute("data-start")), float(svg.get_attribute("data-span"))
    for _, ms, x in drawn:  # placed by time: 60 + 880 · (t − start) / span
        assert abs(x - (60 + 880 * (ms - start) / span)) < 0.01, (ms, x)
    marks = {line.get_attribute("data-deadline"): float(line.get_attribute("x1"))
             for line in svg.find_elements(By.CSS_SELECTOR, "line.deadline")}
    assert {"noDeliveryAck", "noRead"} <= set(marks), marks
    x_of = {event: x for event, _, x in reversed(drawn)}  # the first of each kind
    assert x_of["pushAccepted"] < marks["noDeliveryAck"] <= x_of["timerFired"] + 0.01, (marks, drawn)
    assert marks["noDeliveryAck"] <= x_of["smsSubmitted"], (marks, drawn)
    assert abs(marks["noDeliveryAck"] - (60 + 880 * WINDOW_MS / span)) < 0.01, marks
    labels = [t.text for t in svg.find_elements(By.CSS_SELECTOR, "text.deadline-label")]
    assert "noDeliveryAck, noRead deadline +3s" in labels, labels  # one label for the deadlines at one instant
    assert not browser.find_element(By.ID, "live").is_displayed()  # one view at a time
    browser.execute_script("arguments[0].scrollIntoView()", card)
    screenshot(browser, "critical-fallback-timeline.png")
    assert console_errors(browser) == []


def test_the_tiles_show_what_metrics_shows_after_a_known_number_of_sends(world, browser):
    for index, number in enumerate(SMS_NUMBERS):
        line = world.send([number], f"Parcel {index} has shipped", f"dash-sms-{index}")
        final_recipient(world.server, world.token, line["messageId"])
    if world.critical is None:  # run alone: the Critical message of the timeline test
        line = world.send([CRITICAL_NUMBER], "Alarm", "dash-critical", appKey=world.app_key, appMessageType="Critical")
        final_recipient(world.server, world.token, line["messageId"], timeout=WINDOW_MS / 1000 + 10)

    signed_in(browser, world)
    body = browser.find_element(By.TAG_NAME, "body")
    for _ in range(5):
        before = samples_of(scrape(world))
        scrapes = int(body.get_attribute("data-scrapes"))
        WebDriverWait(browser, 10).until(lambda d: int(body.get_attribute("data-scrapes")) >= scrapes + 2)
        cells, page_scrape = browser.execute_script("""
            return [Array.from(document.querySelectorAll('#live [data-metric], #live [data-ratio]')).map(c => ({
                metric: c.dataset.metric || null, labels: c.dataset.labels || '', volatile: c.dataset.volatile !== undefined,
                ratio: c.dataset.ratio || null, of: c.dataset.of || null, ofLabels: c.dataset.ofLabels || '',
                text: c.textContent})), window.__tandemLastScrape];""")
        truth = samples_of(scrape(world))
        if shown_by(cells, before) == shown_by(cells, truth):  # no traffic moved what the cells show meanwhile
            break
    else:
        pytest.fail("the server's metrics kept changing with no traffic")

    seen_by_page = samples_of(page_scrape)
    for cell, want in zip(cells, shown_by(cells, truth)):
        if want is None:  # volatile: what the page's own scrape said
            want = shown(expected_sum(seen_by_page, cell["metric"], cell["labels"]))
        assert cell["text"] == want, cell
    assert len(cells) >= 30, cells

    # The numbers the sends fix, where the metric exists, and in any case the two this server has always had.
    by_metric = {(c["metric"], c["labels"]): c["text"] for c in cells if c["metric"]}
    assert by_metric[("tandem_http_requests_total", "route=/v1.0/message")] == str(world.sends), by_metric
    assert int(by_metric[("tandem_store_commits_total", "")]) == int(expected_sum(truth, "tandem_store_commits_total", "")) > 0
    if "tandem_messages_accepted_total" in truth:
        assert by_metric[("tandem_messages_accepted_total", "")] == str(world.sends)
    if "tandem_deliveries_started_total" in truth:
        assert (by_metric[("tandem_deliveries_started_total", "channel=sms")],
                by_metric[("tandem_deliveries_started_total", "channel=push")]) == (str(len(SMS_NUMBERS)), "1"), by_metric
    if "tandem_fallbacks_total" in truth:
        assert by_metric[("tandem_fallbacks_total", "")] == "1", by_metric
    if "tandem_deliveries_in_flight" in truth:
        assert by_metric[("tandem_deliveries_in_flight", "")] == "0", by_metric
    assert not browser.find_element(By.ID, "messages").is_displayed()
    screenshot(browser, "dashboard-live.png")
    assert console_errors(browser) == []


# Every series the metrics work agreed on (docs/dashboard.md), as a server that has them all would expose them.
AGREED_METRICS = r"""# TYPE tandem_messages_accepted_total counter
tandem_messages_accepted_total{api="cm"} 40
# TYPE tandem_deliveries_started_total counter
tandem_deliveries_started_total{channel="push"} 25
tandem_deliveries_started_total{channel="sms"} 14
tandem_deliveries_started_total{channel="none"} 1
# TYPE tandem_deliveries_finished_total counter
tandem_deliveries_finished_total{channel="push",status="Delivered"} 12
tandem_deliveries_finished_total{channel="push",status="Read"} 5
tandem_deliveries_finished_total{channel="sms",status="Delivered"} 17
tandem_deliveries_finished_total{channel="none",status="Rejected"} 1
# TYPE tandem_fallbacks_total counter
tandem_fallbacks_total{cause="noDeliveryAck"} 3
tandem_fallbacks_total{cause="noRead"} 2
tandem_fallbacks_total{cause="pushFailed"} 1
# TYPE tandem_pushes_total counter
tandem_pushes_total{provider="apns",outcome="accepted"} 20
tandem_pushes_total{provider="apns",outcome="invalid_token"} 1
tandem_pushes_total{provider="fcm",outcome="accepted"} 4
tandem_pushes_total{provider="fcm",outcome="error"} 1
# TYPE tandem_sms_total counter
tandem_sms_total{outcome="submitted"} 20
tandem_sms_total{outcome="rejected"} 1
tandem_sms_total{outcome="delivered"} 17
tandem_sms_total{outcome="failed"} 2
# TYPE tandem_status_reports_total counter
tandem_status_reports_total{outcome="sent"} 39
tandem_status_reports_total{outcome="given_up"} 1
# TYPE tandem_deliveries_in_flight gauge
tandem_deliveries_in_flight 7
# TYPE tandem_timers_pending gauge
tandem_timers_pending{horizon="le_1m"} 4
tandem_timers_pending{horizon="le_10m"} 1
tandem_timers_pending{horizon="le_1h"} 0
tandem_timers_pending{horizon="le_1d"} 2
tandem_timers_pending{horizon="gt_1d"} 0
# TYPE tandem_spool_backlog gauge
tandem_spool_backlog 250
# TYPE tandem_outbox_backlog gauge
tandem_outbox_backlog 3
# TYPE tandem_smpp_binds_up gauge
tandem_smpp_binds_up 2
# TYPE tandem_push_requests_active gauge
tandem_push_requests_active{provider="apns"} 1
tandem_push_requests_active{provider="fcm"} 0
# TYPE tandem_store_commits_total counter
tandem_store_commits_total 99
# TYPE tandem_store_failed_commits_total counter
tandem_store_failed_commits_total 0
# TYPE tandem_spool_recipients_queued gauge
tandem_spool_recipients_queued 250
# TYPE tandem_http_requests_total counter
tandem_http_requests_total{method="POST",route="/v1.0/message",status="200"} 40
tandem_http_requests_total{method="GET",route="/odd \"route\" {x}",status="404"} 2
# TYPE tandem_http_requests_in_flight gauge
tandem_http_requests_in_flight 1
"""


def test_every_tile_reads_the_agreed_metric_names_when_the_server_has_them(world, browser):
    """Rendered in the page from a full exposition: no cell may stay "—", each shows what prometheus_client reads."""
    signed_in(browser, world)
    cells = browser.execute_script("""
        window.TandemMetrics.render(arguments[0], Date.now());
        return Array.from(document.querySelectorAll('#live [data-metric], #live [data-ratio]')).map(c => ({
            metric: c.dataset.metric || null, labels: c.dataset.labels || '', ratio: c.dataset.ratio || null,
            of: c.dataset.of || null, ofLabels: c.dataset.ofLabels || '', text: c.textContent}));""", AGREED_METRICS)
    truth = samples_of(AGREED_METRICS)
    for cell in cells:
        if cell["ratio"]:
            want = percent(expected_sum(truth, cell["ratio"], cell["labels"]), expected_sum(truth, cell["of"], cell["ofLabels"]))
        else:
            want = shown(expected_sum(truth, cell["metric"], cell["labels"]))
        assert cell["text"] == want != "\u2014", cell
    by_metric = {(c["metric"], c["labels"]): c["text"] for c in cells if c["metric"]}
    by_ratio = {(c["ratio"], c["labels"]): c["text"] for c in cells if c["ratio"]}
    assert by_metric[("tandem_fallbacks_total", "")] == "6" and by_metric[("tandem_fallbacks_total", "cause=noRead")] == "2"
    assert by_ratio[("tandem_fallbacks_total", "")] == "24%"  # 6 of 25 pushes
    assert by_ratio[("tandem_pushes_total", "provider=apns,outcome!=accepted")] == "4.8%"  # 1 of 21
    assert by_metric[("tandem_http_requests_total", 'route=/odd "route" {x}')] == "2"  # escaped label values
    assert by_metric[("tandem_deliveries_finished_total", "channel=push")] == "17"
    bars = {rect.get_attribute("data-horizon"): float(rect.get_attribute("height"))
            for rect in browser.find_elements(By.CSS_SELECTOR, "#timer-bars rect")}
    assert bars == {"le_1m": 80, "le_10m": 20, "le_1h": 0, "le_1d": 40, "gt_1d": 0}, bars
    screenshot(browser, "dashboard-synthetic-agreed-metrics.png")  # the tiles as a server with every metric fills them
    assert console_errors(browser) == []


def test_a_wrong_token_is_refused_in_the_page_and_a_good_one_still_works(world, browser):
    token = signed_out(browser, world)
    token.send_keys("not-the-token")
    browser.find_element(By.ID, "login-submit").click()
    error = WebDriverWait(browser, 10).until(lambda d: d.find_element(By.ID, "login-error").text)
    assert "admin bearer token" in error, error
    assert not browser.find_element(By.ID, "live").is_displayed()
    refused = console_errors(browser)  # the refused requests themselves, and nothing else
    assert refused and all("401" in entry["message"] for entry in refused), refused
    signed_in(browser, world)
    assert browser.find_element(By.ID, "live").is_displayed()
    assert console_errors(browser) == []
