"""`tandem serve` on PostgreSQL: what a wrong database.url, an unreachable server, a refused login and a second
server on the same database get (one line; exit status 78 for the configuration's faults), and a healthy one."""
import json
import subprocess
import time
import urllib.request

from conftest import BIN, REPO, PostgresCluster, Server


def serve_once(tmp_path, database, timeout=60):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"listen": "127.0.0.1:0", "database": database, "policies": str(REPO / "Policies")}))
    started = time.monotonic()
    result = subprocess.run([BIN, "serve", "--config", str(config)], capture_output=True, text=True, timeout=timeout)
    return result, time.monotonic() - started


def test_a_bad_url_an_unreachable_server_and_a_missing_database_are_one_line_and_exit_78(tmp_path):
    result, _ = serve_once(tmp_path, {"url": "postgres://127.0.0.1/tandem?nosuchoption=1"})
    assert result.returncode == 78 and "database.url" in result.stderr and "nosuchoption" in result.stderr, result.stderr

    result, _ = serve_once(tmp_path, {"url": "postgres://tandem:secret@127.0.0.1/tandem"})
    assert result.returncode == 78 and "must not contain the password" in result.stderr, result.stderr

    nowhere = tmp_path / "no-server"
    nowhere.mkdir()
    result, waited = serve_once(tmp_path, {"url": f"postgresql:///tandem?host={nowhere}", "connectTimeout": "1s"})
    assert result.returncode == 78, result.stderr
    assert "cannot open the PostgreSQL database" in result.stderr and "waited up to 1" in result.stderr, result.stderr
    assert waited >= 1.0
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr

    cluster = PostgresCluster.shared()
    result, _ = serve_once(tmp_path, {"url": cluster.url("no_such_database"), "connectTimeout": "1s"})
    assert result.returncode == 78 and 'database "no_such_database" does not exist' in result.stderr, result.stderr


def test_one_server_per_database_and_a_healthy_server_reports_its_database(tmp_path):
    (tmp_path / "first").mkdir()
    first = Server(tmp_path / "first", store="postgresql")
    try:
        with urllib.request.urlopen(first.url + "/healthz", timeout=10) as response:
            health = json.loads(response.read())
        assert health["status"] == "ok" and health["database"] == "ok" and health["writes"] == "ok", health
        opened = [line for line in first.log_lines() if line.get("msg") == "store open"]
        assert opened and opened[0]["backend"] == "postgresql" and "password" not in json.dumps(opened[0]), opened

        result, _ = serve_once(tmp_path, {"url": first.database_url})
        assert result.returncode == 1, result.stderr
        assert "another tandem serve is using this database (tandem serve at local socket" in result.stderr, result.stderr
    finally:
        first.stop()


def test_a_server_whose_serving_lock_is_lost_stops(tmp_path):
    """The lock lives on a connection of its own: when that session ends (here terminated by an operator), nothing
    keeps a second server off the database any more, so the server stops within seconds, through its normal
    shutdown."""
    (tmp_path / "server").mkdir()
    server = Server(tmp_path / "server", store="postgresql")
    try:
        terminated = server.query("""SELECT pg_terminate_backend(pid) FROM pg_locks
                                     WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())""")
        assert terminated == [(True,)], terminated
        assert server.wait(timeout=20) == 0
        lost = [line for line in server.log_lines() if line.get("msg") == "serving lock lost"]
        assert lost and lost[0]["level"] == "error", server.stderr()
        assert any(line.get("msg") == "stopped" for line in server.log_lines())
    finally:
        server.stop()
