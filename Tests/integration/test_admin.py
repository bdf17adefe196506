"""The app manager black-box: `tandem app …` against a temporary database, and the admin HTTP API of a real
`tandem serve` (127.0.0.1 only). Both must never show an app secret outside creation and rotation, nor the
contents of a key file."""
import http.client
import json
import re
import sqlite3

from conftest import REPO, run_tandem, wait_for

ADMIN_TOKEN = "integration-admin-token-7f3a"
KEY_PEM = "-----BEGIN PRIVATE KEY-----\nTOP-SECRET-KEY-MATERIAL\n-----END PRIVATE KEY-----\n"


def request(server, method, path, body=None, token=ADMIN_TOKEN):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_admin_api_is_off_without_a_token(serve):
    server = serve()
    status, _, body = request(server, "GET", "/admin/apps")
    assert status == 403
    assert body == {"error": "the admin API is disabled: set TANDEM_ADMIN_TOKEN"}


def test_admin_api_manages_apps_without_leaking_secrets(serve, tmp_path):
    key_file = tmp_path / "AuthKey_ABC123DEFG.p8"
    key_file.write_text(KEY_PEM)
    server = serve(env={"TANDEM_ADMIN_TOKEN": ADMIN_TOKEN})

    status, headers, _ = request(server, "GET", "/admin/apps", token="wrong")
    assert status == 401 and headers["WWW-Authenticate"] == 'Bearer realm="admin"'

    status, _, account = request(server, "POST", "/admin/accounts", {"name": "Acme"})
    assert status == 201
    status, headers, app = request(server, "POST", "/admin/apps",
                                   {"name": "Acme App", "account": account["productToken"], "defaultMessageType": "OTP"})
    assert status == 201 and headers["Location"] == f"/admin/apps/{app['appKey']}"
    key, secret = app["appKey"], app["appSecret"]

    status, _, shown = request(server, "PUT", f"/admin/apps/{key}/apns",
                               {"keyFile": str(key_file), "keyId": "ABC123DEFG", "teamId": "DEF123GHIJ",
                                "topic": "com.acme.app", "sandbox": True})
    assert status == 200, shown
    assert shown["apns"] == {"keyFile": str(key_file), "keyId": "ABC123DEFG", "teamId": "DEF123GHIJ",
                             "topic": "com.acme.app", "sandbox": True}
    status, _, refused = request(server, "PUT", f"/admin/apps/{key}/fcm", {"serviceAccountFile": str(tmp_path / "none.json")})
    assert status == 400 and "must exist on the server" in refused["error"]
    status, _, rotated = request(server, "POST", f"/admin/apps/{key}/rotate-secret")
    assert status == 200 and rotated["appSecret"] != secret

    status, _, listed = request(server, "GET", "/admin/apps")
    assert status == 200 and [entry["appKey"] for entry in listed["apps"]] == [key]
    status, _, detail = request(server, "GET", f"/admin/apps/{key}")
    assert detail["defaultMessageType"] == "OTP" and detail["registrations"]["PinVerified"] == 0
    for document in (listed, detail):
        text = json.dumps(document)
        assert secret not in text and rotated["appSecret"] not in text and "TOP-SECRET" not in text

    assert server.query("SELECT app_secret FROM apps WHERE app_key = ?", (key,)) == [(rotated["appSecret"],)]

    def access_lines():
        lines = [line for line in server.log_lines() if line.get("log") == "access"]
        return lines if len(lines) >= 8 else None
    routes = {line["route"] for line in wait_for(access_lines, what="the access log")}
    assert "/admin/apps/{appKey}/rotate-secret" in routes, "the access log names route patterns, not raw paths"
    log = server.stderr()
    for hidden in (secret, rotated["appSecret"], account["productToken"], ADMIN_TOKEN, "TOP-SECRET"):
        assert hidden not in log


def test_cli_app_manager_round_trip(tmp_path):
    env = {"TANDEM_DB": str(tmp_path / "t.sqlite"), "TANDEM_CONFIG": str(REPO / "Config" / "tandem.json")}
    key_file = tmp_path / "AuthKey.p8"
    key_file.write_text(KEY_PEM)
    account = run_tandem("account", "create", "Acme", env=env)
    token = re.search(r"product token: (\S+)", account.stdout).group(1)
    created = run_tandem("app", "create", "Acme App", "--account", token, env=env)
    key = re.search(r"app key:\s+(\S+)", created.stdout).group(1)
    secret = re.search(r"app secret:\s+(\S+)", created.stdout).group(1)

    missing = run_tandem("app", "set-apns", key, "--key-file", str(tmp_path / "missing.p8"), "--key-id", "ABC123DEFG",
                         "--team-id", "DEF123GHIJ", "--topic", "com.acme.app", env=env)
    assert missing.returncode == 65 and "no file at" in missing.stderr
    apns = run_tandem("app", "set-apns", key, "--key-file", "AuthKey.p8", "--key-id", "ABC123DEFG", "--team-id", "DEF123GHIJ",
                      "--topic", "com.acme.app", "--sandbox", env=env, cwd=tmp_path)
    assert apns.returncode == 0, apns.stderr
    assert f"apns key file:       {key_file}" in apns.stdout and "apns environment:    sandbox" in apns.stdout
    assert run_tandem("app", "set-type", key, "critical", env=env).returncode == 0
    assert run_tandem("app", "set-type", key, "urgent", env=env).returncode == 64
    assert run_tandem("app", "show", "00000000-0000-4000-8000-000000000000", env=env).returncode == 65

    shown = run_tandem("app", "show", key, env=env)
    listed = run_tandem("app", "list", env=env)
    assert "default type:        Critical" in shown.stdout
    assert re.search(rf"{key}\s+Acme App\s+Acme\s+Critical\s+APNs \(sandbox\)", listed.stdout)
    for output in (shown.stdout, listed.stdout, apns.stdout):
        assert secret not in output and "TOP-SECRET" not in output

    rotated = run_tandem("app", "rotate-secret", key, env=env)
    new_secret = re.search(r"app secret:\s+(\S+)", rotated.stdout).group(1)
    assert new_secret != secret
    assert sqlite3.connect(tmp_path / "t.sqlite").execute("SELECT app_secret FROM apps").fetchall() == [(new_secret,)]
