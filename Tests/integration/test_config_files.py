"""Configuration files: relative paths count from the file's directory, strict JSON syntax, the text log format."""
import json
import re
import shutil
import signal
import subprocess
import urllib.request

from conftest import BIN, REPO, run_tandem, wait_for


def site(tmp_path, **overrides):
    """tmp/site/conf/config.json with paths relative to conf/, and an unrelated working directory tmp/elsewhere."""
    conf = tmp_path / "site" / "conf"
    conf.mkdir(parents=True)
    shutil.copytree(REPO / "Policies", conf / "policies")
    cfg = {"listen": "127.0.0.1:0", "database": {"path": "../data/t.sqlite"}, "policies": "policies"}
    cfg.update(overrides)
    (conf / "config.json").write_text(json.dumps(cfg, indent=2))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    return conf / "config.json", elsewhere


def test_relative_paths_count_from_the_config_files_directory_not_the_working_directory(tmp_path):
    config, elsewhere = site(tmp_path, log={"format": "text"})
    stdout, stderr = tmp_path / "serve.out", tmp_path / "serve.err"
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        # The config named relative to the working directory, its paths relative to its own directory.
        process = subprocess.Popen([BIN, "serve", "--config", "../site/conf/config.json"],
                                   stdout=out, stderr=err, cwd=elsewhere)
    try:
        def url():
            if process.poll() is not None:
                raise AssertionError(f"tandem serve exited {process.returncode}: {stderr.read_text()}")
            found = re.search(r"http://127\.0\.0\.1:\d+", stdout.read_text())
            return found.group(0) if found else None
        base = wait_for(url, timeout=30, what="the server to print its URL")
        with urllib.request.urlopen(base + "/healthz", timeout=10) as response:
            assert response.status == 200
        assert (tmp_path / "site" / "data" / "t.sqlite").exists()
        assert not (tmp_path / "data").exists() and not (elsewhere / "data").exists()
        lines = stderr.read_text().splitlines()
        opened = [line for line in lines if " store open " in line]
        assert opened, lines
        # log.format text: `hh:mm:ss.mmm info  store open backend=sqlite path=… schemaVersion=…`, not JSON.
        assert re.match(r"\d\d:\d\d:\d\d\.\d{3} info  store open backend=sqlite path=\S+/site/data/t\.sqlite schemaVersion=\d+$",
                        opened[0]), opened[0]
        assert not any(line.startswith("{") for line in lines)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def test_an_administration_command_finds_the_same_database(tmp_path):
    config, elsewhere = site(tmp_path)
    result = run_tandem("account", "create", "Acme", "--config", str(config), cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "data" / "t.sqlite").exists()


def test_a_trailing_comma_stops_start_up_with_file_line_column(tmp_path):
    config, elsewhere = site(tmp_path)
    config.write_text('{\n  "listen": "127.0.0.1:0",\n  "policies": "policies",\n}\n')
    result = run_tandem("serve", "--config", str(config), cwd=elsewhere)
    assert result.returncode == 78
    assert f"{config}:3:25: trailing comma before '}}'" in result.stderr


def test_a_trailing_comma_in_a_policy_file_is_named_too(tmp_path):
    config, elsewhere = site(tmp_path)
    otp = config.parent / "policies" / "otp.json"
    otp.write_text(otp.read_text().rstrip().removesuffix("}") + ",}\n")
    result = run_tandem("serve", "--config", str(config), cwd=elsewhere)
    assert result.returncode == 78
    assert re.search(re.escape(str(otp)) + r":\d+:\d+: trailing comma before '}'", result.stderr), result.stderr


def test_a_missing_directory_is_named_as_written_and_as_resolved(tmp_path):
    config, elsewhere = site(tmp_path, policies="Policy")
    result = run_tandem("serve", "--config", str(config), cwd=elsewhere)
    assert result.returncode == 78
    resolved = tmp_path / "site" / "conf" / "Policy"
    assert f'{config}: policies: no such directory "Policy" (resolved against the file\'s directory: {resolved})' \
        in result.stderr


def test_the_shipped_default_config_keeps_the_repositorys_policies(tmp_path):
    # `make run` from the repository root: Config/tandem.json's ../Policies is the repository's Policies/.
    result = run_tandem("account", "create", "Acme", env={"TANDEM_CONFIG": str(REPO / "Config" / "tandem.json"),
                                                          "TANDEM_DB": str(tmp_path / "t.sqlite")}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "t.sqlite").exists()
