"""The command line: bad configuration, account and app creation, help and exit codes."""
import json
import re
import socket
import sqlite3
import urllib.request

import pytest

from conftest import REPO, run_tandem


def config_file(tmp_path, **overrides):
    cfg = {"listen": "127.0.0.1:0", "database": {"path": str(tmp_path / "t.sqlite")}, "policies": str(REPO / "Policies")}
    cfg.update(overrides)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    return path


def test_bad_configuration_stops_start_up_with_file_key_problem(tmp_path):
    path = config_file(tmp_path, database={"path": str(tmp_path / "t.sqlite"), "comitWindow": "2ms"})
    result = run_tandem("serve", "--config", str(path))
    assert result.returncode == 78
    assert f'{path}: database.comitWindow: unknown key (did you mean "commitWindow"?)' in result.stderr


def test_bad_policy_stops_start_up_with_file_key_problem(tmp_path):
    policies = tmp_path / "Policies"
    policies.mkdir()
    for name in ("default.json", "otp.json", "critical.json"):
        (policies / name).write_text((REPO / "Policies" / name).read_text())
    otp = json.loads((policies / "otp.json").read_text())
    otp["fallback"]["afterNoRead"] = "45s"
    (policies / "otp.json").write_text(json.dumps(otp))
    path = config_file(tmp_path, policies=str(policies))
    result = run_tandem("serve", "--config", str(path))
    assert result.returncode == 78
    assert f"{policies}/otp.json: fallback.afterNoRead: must be shorter than lifetime (30s)" in result.stderr


def test_missing_config_file_and_environment_overrides(tmp_path):
    result = run_tandem("serve", "--config", str(tmp_path / "absent.json"))
    assert result.returncode == 78
    assert "absent.json: (document): cannot be read" in result.stderr
    path = config_file(tmp_path)
    result = run_tandem("serve", env={"TANDEM_CONFIG": str(path), "TANDEM_LISTEN": "not-an-address"})
    assert result.returncode == 78
    assert "TANDEM_LISTEN: listen: expected host:port" in result.stderr


def test_account_and_app_creation(tmp_path):
    path = config_file(tmp_path)
    account = run_tandem("account", "create", "Acme B.V.", "--config", str(path))
    assert account.returncode == 0, account.stderr
    token = re.search(r"product token: ([0-9a-f-]{36})", account.stdout).group(1)

    app = run_tandem("app", "create", "Acme App", "--account", token, "--type", "otp", "--config", str(path))
    assert app.returncode == 0, app.stderr
    key = re.search(r"app key:\s+([0-9a-f-]{36})", app.stdout).group(1)
    secret = re.search(r"app secret:\s+(\S+)", app.stdout).group(1)
    assert "default type: OTP" in app.stdout
    assert len(secret) == 43

    db = sqlite3.connect(tmp_path / "t.sqlite")
    rows = db.execute("SELECT a.name, p.name, p.app_key, p.app_secret, p.default_message_type "
                      "FROM apps p JOIN accounts a ON a.id = p.account_id").fetchall()
    assert rows == [("Acme B.V.", "Acme App", key, secret, "OTP")]
    assert db.execute("SELECT product_token FROM accounts").fetchall() == [(token,)]


def test_app_creation_refuses_unknown_accounts_and_bad_arguments(tmp_path):
    path = config_file(tmp_path)
    unknown = run_tandem("app", "create", "X", "--account", "00000000-0000-0000-0000-000000000000", "--config", str(path))
    assert unknown.returncode == 65
    assert "no active account" in unknown.stderr
    assert run_tandem("app", "create", "X", "--account", "not-a-token", "--config", str(path)).returncode == 64
    assert run_tandem("app", "create", "X", "--config", str(path)).returncode == 64
    bad_type = run_tandem("app", "create", "X", "--account", "00000000-0000-0000-0000-000000000000",
                          "--type", "Urgent", "--config", str(path))
    assert bad_type.returncode == 64
    assert "--type must be Default, OTP or Critical" in bad_type.stderr


def test_help_and_usage_errors():
    assert run_tandem("--help").returncode == 0
    assert "account create NAME" in run_tandem("--help").stdout
    for command in (["serve"], ["account"], ["app"], ["bench"], ["kannel"]):
        result = run_tandem(*command, "--help")
        assert result.returncode == 0 and "usage: tandem" in result.stdout, command
    assert run_tandem().returncode == 64
    assert run_tandem("frobnicate").returncode == 64
    assert run_tandem("serve", "--port", "1").returncode == 64
    assert run_tandem("account", "create").returncode == 64
    assert run_tandem("version").stdout.startswith("tandem ")


def test_kannel_check_smsbox(tmp_path):
    """`tandem kannel check-smsbox FILE`: 0 when every smsbox group retries failed DLR callbacks, 78 (and why) when
    one does not, 1 when the file cannot be read."""
    retrying = tmp_path / "kannel.conf"
    retrying.write_text('group = core\nadmin-port = 13000\n\ninclude = "smsbox.conf"\n')
    (tmp_path / "smsbox.conf").write_text("group = smsbox\nbearerbox-host = 127.0.0.1\nhttp-request-retry = 60\nhttp-queue-delay = 10\n")
    result = run_tandem("kannel", "check-smsbox", str(retrying))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{retrying}: smsbox: retries a failed DLR callback 60 times, 10 s apart (a restart of up to about 600 s loses no DLR)\n"

    default = tmp_path / "default.conf"
    default.write_text("group = smsbox\nbearerbox-host = localhost\nsendsms-port = 13013\n")
    result = run_tandem("kannel", "check-smsbox", str(default))
    assert result.returncode == 78, result
    assert result.stdout.startswith(f"{default}: smsbox: http-request-retry is not set (Kannel's default 0)"), result.stdout
    assert "Kannel may drop DLRs made while Tandem is down" in result.stderr

    result = run_tandem("kannel", "check-smsbox", str(tmp_path / "missing.conf"))
    assert result.returncode == 1 and "cannot be read" in result.stderr, result
    assert run_tandem("kannel", "check-smsbox").returncode == 64
    assert run_tandem("kannel", "frobnicate", str(default)).returncode == 64


# --- account administration, app deletion, send, status (issue 25 §4) ---------------------------------------------

ZERO_TOKEN = "00000000-0000-0000-0000-000000000000"


def create_account(path, name="Acme"):
    result = run_tandem("account", "create", name, "--config", str(path))
    assert result.returncode == 0, result.stderr
    return re.search(r"product token: ([0-9a-f-]{36})", result.stdout).group(1)


def create_app(path, token, name="Acme App"):
    result = run_tandem("app", "create", name, "--account", token, "--config", str(path))
    assert result.returncode == 0, result.stderr
    return re.search(r"app key:\s+([0-9a-f-]{36})", result.stdout).group(1)


def test_help_lists_every_command():
    text = run_tandem("--help").stdout
    for command in ("send NUMBER", "status", "account list", "account disable | enable | rotate-token",
                    "account set-webhook", "app delete KEY", "69 no server answers"):
        assert command in text, command
    for command in (["send"], ["status"]):
        result = run_tandem(*command, "--help")
        assert result.returncode == 0 and "usage: tandem" in result.stdout, command
    account_usage = run_tandem("account", "--help").stdout
    for sub in ("account list", "account disable", "account enable", "account rotate-token", "account set-webhook"):
        assert sub in account_usage, sub
    assert "tandem app delete APP_KEY" in run_tandem("app", "--help").stdout


def test_account_list_disable_enable_and_rotate_token(tmp_path):
    path = config_file(tmp_path)
    assert run_tandem("account", "list", "--config", str(path)).stdout.startswith("no accounts")
    first = create_account(path, "Acme B.V.")
    second = create_account(path, "Beta")

    listing = run_tandem("account", "list", "--config", str(path))
    assert listing.returncode == 0, listing.stderr
    lines = listing.stdout.splitlines()
    assert lines[0].split() == ["PRODUCT", "TOKEN", "STATE", "CREATED", "(UTC)", "NAME"]
    assert re.match(rf"{first}  active    \d{{4}}-\d\d-\d\dT\d\d:\d\d:\d\dZ  Acme B\.V\.$", lines[1]), lines[1]
    assert lines[2].startswith(f"{second}  active") and lines[2].endswith("Beta")

    disabled = run_tandem("account", "disable", first, "--config", str(path))
    assert disabled.returncode == 0 and "disabled" in disabled.stdout, disabled
    assert f"{first}  disabled" in run_tandem("account", "list", "--config", str(path)).stdout
    refused = run_tandem("app", "create", "X", "--account", first, "--config", str(path))
    assert refused.returncode == 65 and "no active account" in refused.stderr
    assert run_tandem("account", "enable", first, "--config", str(path)).returncode == 0
    assert f"{first}  active" in run_tandem("account", "list", "--config", str(path)).stdout
    app_key = create_app(path, first)

    rotated = run_tandem("account", "rotate-token", first, "--config", str(path))
    assert rotated.returncode == 0, rotated.stderr
    new = re.search(r"product token: ([0-9a-f-]{36})", rotated.stdout).group(1)
    assert new != first
    db = sqlite3.connect(tmp_path / "t.sqlite")
    assert db.execute("SELECT product_token, disabled FROM accounts WHERE name = 'Acme B.V.'").fetchall() == [(new, 0)]
    # The app stays with the account under its new token.
    assert db.execute("SELECT a.product_token FROM apps p JOIN accounts a ON a.id = p.account_id WHERE p.app_key = ?",
                      (app_key,)).fetchall() == [(new,)]
    old = run_tandem("account", "set-webhook", first, "http://127.0.0.1:9/hook", "--config", str(path))
    assert old.returncode == 65 and f"no account has product token {first}" in old.stderr
    assert run_tandem("account", "set-webhook", new, "http://127.0.0.1:9/hook", "--config", str(path)).returncode == 0


def test_account_commands_refuse_unknown_tokens_and_bad_arguments(tmp_path):
    path = config_file(tmp_path)
    for sub in ("disable", "enable", "rotate-token"):
        result = run_tandem("account", sub, ZERO_TOKEN, "--config", str(path))
        assert result.returncode == 65, (sub, result)
        assert f"no account has product token {ZERO_TOKEN}" in result.stderr
        assert run_tandem("account", sub, "not-a-token", "--config", str(path)).returncode == 64
        assert run_tandem("account", sub, "--config", str(path)).returncode == 64
    assert run_tandem("account", "list", "extra", "--config", str(path)).returncode == 64
    assert run_tandem("account", "frobnicate", "--config", str(path)).returncode == 64


def test_app_delete_removes_an_unused_app_with_its_registrations(tmp_path):
    path = config_file(tmp_path)
    token = create_account(path)
    keep = create_app(path, token, "Keep")
    gone = create_app(path, token, "Gone")
    db = sqlite3.connect(tmp_path / "t.sqlite")
    app_id = db.execute("SELECT id FROM apps WHERE app_key = ?", (gone,)).fetchone()[0]
    db.execute("INSERT INTO registrations (device_id, app_id, platform, status, created_at, updated_at) "
               "VALUES ('dev-1', ?, 'Android', 'Unverified', 0, 0)", (app_id,))
    db.commit()
    db.close()

    result = run_tandem("app", "delete", gone, "--config", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"app {gone} deleted, with 1 device registration\n"
    db = sqlite3.connect(tmp_path / "t.sqlite")
    assert db.execute("SELECT app_key FROM apps").fetchall() == [(keep,)]
    assert db.execute("SELECT count(*) FROM registrations").fetchone() == (0,)
    again = run_tandem("app", "show", gone, "--config", str(path))
    assert again.returncode == 65
    missing = run_tandem("app", "delete", gone, "--config", str(path))
    assert missing.returncode == 65 and f"no app has key {gone}" in missing.stderr
    assert run_tandem("app", "delete", "nope", "--config", str(path)).returncode == 64


def test_set_apns_warns_when_the_key_variable_is_not_set(tmp_path):
    path = config_file(tmp_path)
    key = create_app(path, create_account(path))
    args = ("app", "set-apns", key, "--key-env", "TANDEM_TEST_UNSET_APNS_KEY", "--key-id", "ABC123DEFG",
            "--team-id", "DEF123GHIJ", "--topic", "com.acme.app", "--config", str(path))
    unset = run_tandem(*args)
    assert unset.returncode == 0, unset.stderr
    assert "warning: the environment variable TANDEM_TEST_UNSET_APNS_KEY is not set here" in unset.stderr
    assert "TANDEM_TEST_UNSET_APNS_KEY" in unset.stdout  # the app shows the reference it now has
    set_ = run_tandem(*args, env={"TANDEM_TEST_UNSET_APNS_KEY": "-----BEGIN PRIVATE KEY-----"})
    assert set_.returncode == 0 and "warning" not in set_.stderr, set_.stderr


ADMIN_TOKEN = "cli-test-admin-token"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """One server for the commands that talk to a running server: an SMSC that never reports SMS to numbers
    ending 999 (they stay in flight), the admin API on."""
    from conftest import Server
    directory = tmp_path_factory.mktemp("cli-live")
    server = Server(directory, config={"simulator": {"sms": {"rules": [
        {"msisdnSuffix": "000", "outcome": "failed"}, {"msisdnSuffix": "999", "outcome": "none"}]}}},
        env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
    token = create_account(server.config_path)
    yield server, token
    server.stop()


def test_send_prints_the_outcome_and_follows_the_timeline(live):
    server, token = live
    result = run_tandem("send", "0031612345678", "--token", token, "--url", server.url, "--reference", "cli-1",
                        "--follow", "--timeout", "20s")
    assert result.returncode == 0, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert re.match(r"0031612345678: Accepted, message [0-9a-f-]{36}, 1 SMS part if sent as SMS$", lines[0]), lines[0]
    events = [line.split()[2] for line in lines[1:-1]]
    assert events[0] == "routed" and "smsSubmitted" in events and events[-1] == "smsPartReported", lines
    assert all(re.match(r"\d\d:\d\d:\d\d\.\d{3}  \+31612345678  ", line) for line in lines[1:-1]), lines
    assert re.match(r"\+31612345678: Delivered by SMS \(updateId \d+\)$", lines[-1]), lines[-1]
    # What it printed is what the status lookup holds.
    view = json.loads(urllib.request.urlopen(urllib.request.Request(
        f"{server.url}/v1.0/message/cli-1", headers={"X-CM-PRODUCTTOKEN": token})).read())
    assert [e["event"] for e in view["recipients"][0]["events"]] == events


def test_send_reports_failures_and_the_token_from_the_environment(live):
    server, token = live
    failed = run_tandem("send", "0031612345000", "--url", server.url, "--follow", "--timeout", "20s",
                        env={"TANDEM_PRODUCT_TOKEN": token})
    assert failed.returncode == 1, failed
    assert failed.stdout.splitlines()[-1].startswith("+31612345000: Failed by SMS")
    rejected = run_tandem("send", "12", "--token", token, "--url", server.url)
    assert rejected.returncode == 1
    assert rejected.stdout.startswith("12: Rejected (303:"), rejected.stdout


def test_send_refuses_an_unknown_account(live):
    server, _ = live
    result = run_tandem("send", "0031612345678", "--token", ZERO_TOKEN, "--url", server.url)
    assert result.returncode == 65, result
    assert "the server refused the product token" in result.stderr
    assert run_tandem("send", "0031612345678", "--url", server.url).returncode == 64  # no token at all
    assert run_tandem("send", "--token", ZERO_TOKEN, "--url", server.url).returncode == 64  # no number
    assert run_tandem("send", "1", "--token", ZERO_TOKEN, "--url", server.url, "--type", "OTP").returncode == 64


def test_commands_say_when_no_server_answers(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    send = run_tandem("send", "0031612345678", "--token", ZERO_TOKEN, "--url", closed)
    assert send.returncode == 69, send
    assert f"no Tandem server answers at {closed}" in send.stderr and "is `tandem serve` running?" in send.stderr
    status = run_tandem("status", "--url", closed, env={"TANDEM_ADMIN_TOKEN": "x"})
    assert status.returncode == 69 and f"no Tandem server answers at {closed}" in status.stderr
    # Without --url the configuration's listen address is used: port 0 names no server.
    path = config_file(tmp_path)
    zero = run_tandem("send", "0031612345678", "--token", ZERO_TOKEN, "--config", str(path))
    assert zero.returncode == 64 and "listens on port 0" in zero.stderr


def test_the_server_url_comes_from_the_configuration(live):
    server, token = live
    result = run_tandem("send", "0031612345678", "--token", token, "--config", str(server.config_path),
                        env={"TANDEM_LISTEN": f"127.0.0.1:{server.port}"})
    assert result.returncode == 0, result
    assert result.stdout.startswith("0031612345678: Accepted")


def test_status_shows_a_running_servers_figures(live):
    server, token = live
    stuck = run_tandem("send", "0031612345999", "--token", token, "--url", server.url)  # never reported: stays in flight
    assert stuck.returncode == 0, stuck
    result = run_tandem("status", "--url", server.url, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})
    assert result.returncode == 0, result
    fields = dict(line.split(":", 1) for line in result.stdout.splitlines() if line)
    assert fields["version"].strip() == run_tandem("version").stdout.split()[1]
    assert re.fullmatch(r"(\d+m )?\d+s", fields["uptime"].strip()), fields["uptime"]
    assert fields["providers"].strip() == "push=simulator sms=simulator voice=simulator"
    assert fields["SMPP binds"].strip() == "none (SMS does not go over SMPP)"
    document = json.loads(run_tandem("status", "--json", "--url", server.url, env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN}).stdout)
    assert document["deliveriesInFlight"] >= 1 and document["timersPending"] >= 1, document
    assert f"in flight:  {document['deliveriesInFlight']} deliver" in result.stdout
    assert document["spoolRecipientsQueued"] == 0 and document["smpp"] is None


def test_status_refusals(live, serve):
    server, _ = live
    wrong = run_tandem("status", "--url", server.url, env={"TANDEM_ADMIN_TOKEN": "wrong"})
    assert wrong.returncode == 1 and "refused the admin token" in wrong.stderr
    missing = run_tandem("status", "--url", server.url, env={"TANDEM_ADMIN_TOKEN": ""})
    assert missing.returncode == 64 and "set TANDEM_ADMIN_TOKEN" in missing.stderr
    off = serve()  # no admin token: the admin API is off
    result = run_tandem("status", "--url", off.url, env={"TANDEM_ADMIN_TOKEN": "x"})
    assert result.returncode == 1 and "admin API off" in result.stderr


def test_app_delete_refuses_an_app_that_messages_name(live):
    server, token = live
    key = create_app(server.config_path, token, "Sent")
    sent = run_tandem("send", "0031612345678", "--token", token, "--app", key, "--url", server.url)
    assert sent.returncode == 0, sent
    result = run_tandem("app", "delete", key, "--config", str(server.config_path))
    assert result.returncode == 1
    assert f"app {key} is not deleted: 1 message names it" in result.stderr
    assert run_tandem("app", "show", key, "--config", str(server.config_path)).returncode == 0
