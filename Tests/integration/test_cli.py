"""The command line: bad configuration, account and app creation, help and exit codes."""
import json
import re
import sqlite3

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
