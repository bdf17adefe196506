"""Fixtures that run the real `tandem` binary (TANDEM_BIN) on 127.0.0.1 with a fresh database per test."""
import atexit
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("TANDEM_BIN", str(REPO / ".build" / "debug" / "tandem"))
# Which store the servers run on: "sqlite" (a file per server) or "postgresql" (a database per server on a
# throwaway cluster this session starts and removes).
STORE = os.environ.get("TANDEM_TEST_STORE", "sqlite")


class PostgresCluster:
    """A throwaway PostgreSQL cluster for the session: initdb into a temporary directory, a Unix socket only
    (no TCP port), run as the `postgres` user when root (PostgreSQL refuses to run as root); stopped and removed
    at exit."""
    _shared = None

    @classmethod
    def shared(cls):
        if cls._shared is None:
            cls._shared = PostgresCluster()
            atexit.register(cls._shared.stop)
        return cls._shared

    def __init__(self):
        versions = sorted((int(v) for v in os.listdir("/usr/lib/postgresql") if v.isdigit()), reverse=True)
        if not versions:
            raise RuntimeError("PostgreSQL is not installed (make test installs it)")
        self.bin = f"/usr/lib/postgresql/{versions[0]}/bin"
        self.directory = tempfile.mkdtemp(prefix="tandem-it-pg-")
        if os.getuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        self._run("initdb", "-D", self.directory + "/data", "-U", "tandem", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
        self._run("pg_ctl", "-D", self.directory + "/data", "-l", self.directory + "/server.log", "-w", "-t", "60", "start",
                  "-o", f"-k {self.directory} -c listen_addresses='' -c max_connections=300")

    def _run(self, tool, *args):
        command = [f"{self.bin}/{tool}", *args]
        if os.getuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=120)

    def create_database(self):
        name = "t_" + uuid.uuid4().hex[:12]
        self._run("createdb", "-h", self.directory, "-U", "tandem", name)
        return name

    def url(self, name):
        return f"postgresql:///{name}?host={self.directory}&user=tandem"

    def stop(self):
        try:
            self._run("pg_ctl", "-D", self.directory + "/data", "-m", "immediate", "-w", "stop")
        except Exception:
            pass
        shutil.rmtree(self.directory, ignore_errors=True)


def wait_for(condition, timeout=10.0, interval=0.02, what="condition"):
    """Polls `condition` until it returns a truthy value or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class Server:
    def __init__(self, tmp_path, config=None, env=None, store=None, database_url=None):
        """`store` overrides TANDEM_TEST_STORE for this server; `database_url` puts it on that PostgreSQL
        database instead of a fresh one."""
        self.tmp_path = tmp_path
        self.db = tmp_path / "db" / "tandem.sqlite"
        if database_url or (store or STORE) == "postgresql":
            if database_url is None:
                cluster = PostgresCluster.shared()
                database_url = cluster.url(cluster.create_database())
            self.database_url = database_url
            database = {"url": self.database_url}
        else:
            self.database_url = None
            database = {"path": str(self.db)}
        cfg = {"listen": "127.0.0.1:0", "http": {"threads": 4}, "database": database,
               "policies": str(REPO / "Policies")}
        for key, value in (config or {}).items():
            if isinstance(value, dict) and isinstance(cfg.get(key), dict):
                cfg[key].update(value)
            else:
                cfg[key] = value
        self.config_path = tmp_path / "config.json"
        self.config_path.write_text(json.dumps(cfg))
        self.env = env
        self.launch()

    def launch(self, name="serve"):
        """Starts `tandem serve` on this server's config and database (again, after a crash: `name` names its
        own output files) and waits until it listens."""
        self.stdout_path = self.tmp_path / f"{name}.out"
        self.stderr_path = self.tmp_path / f"{name}.err"
        full_env = dict(os.environ)
        full_env.update(self.env or {})
        with open(self.stdout_path, "wb") as stdout, open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen([BIN, "serve", "--config", str(self.config_path)],
                                            stdout=stdout, stderr=stderr, env=full_env, cwd=REPO)
        match = wait_for(self._url, timeout=30, what="the server to print its URL")
        self.url = match
        self.host, port = re.match(r"http://([\d.]+):(\d+)", match).groups()
        self.port = int(port)

    def _url(self):
        if self.process.poll() is not None:
            raise AssertionError(f"tandem serve exited {self.process.returncode}: {self.stderr()}")
        found = re.search(r"http://127\.0\.0\.1:\d+", self.stdout_path.read_text())
        return found.group(0) if found else None

    def stderr(self):
        return self.stderr_path.read_text()

    def query(self, sql, params=(), many=None):
        """Runs `sql` (`?` placeholders; SQL both stores read alike) on this server's database from outside the
        server, as an operator's tool would; the rows as tuples. `many`: a list of parameter tuples instead."""
        if self.database_url is None:
            with sqlite3.connect(self.db, timeout=30) as db:
                if many is not None:
                    db.executemany(sql, many)
                    return []
                return db.execute(sql, params).fetchall()
        import psycopg
        with psycopg.connect(self.database_url, autocommit=True) as db:
            statement = sql.replace("%", "%%").replace("?", "%s")
            with db.cursor() as cursor:
                if many is not None:
                    cursor.executemany(statement, many)
                    return []
                cursor.execute(statement, params)
                return [tuple(row) for row in cursor.fetchall()] if cursor.description else []

    def log_lines(self):
        return [json.loads(line) for line in self.stderr().splitlines() if line.startswith("{")]

    def terminate(self, sig=signal.SIGTERM):
        self.process.send_signal(sig)

    def wait(self, timeout=30):
        return self.process.wait(timeout=timeout)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def serve(tmp_path):
    servers = []

    def start(config=None, env=None, name="server"):
        directory = tmp_path / name
        directory.mkdir()
        server = Server(directory, config=config, env=env)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def run_tandem(*args, env=None, cwd=REPO, timeout=60):
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, env=full_env, cwd=cwd, timeout=timeout)
