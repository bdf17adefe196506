"""Fixtures that run the real `tandem` binary (TANDEM_BIN) on 127.0.0.1 with a fresh database per test."""
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = os.environ.get("TANDEM_BIN", str(REPO / ".build" / "debug" / "tandem"))


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
    def __init__(self, tmp_path, config=None, env=None):
        self.tmp_path = tmp_path
        self.db = tmp_path / "db" / "tandem.sqlite"
        cfg = {"listen": "127.0.0.1:0", "http": {"threads": 4}, "database": {"path": str(self.db)},
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
