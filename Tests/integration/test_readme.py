"""The README's quick start, run as a newcomer would run it on a fresh clone, and its promises checked.

The README marks its quick-start shell blocks: `<!-- quickstart:server -->` before the block that starts the
server (`make run 2>&1 | tee tandem.log`) and `<!-- quickstart -->` before each block typed in the second
terminal. This test

- makes a fresh checkout of what the quick start uses — the tracked files of `Config/` and `Policies/`, and the
  binary where `make run` puts it (`.build/release/tandem`, here a link to the debug binary of TANDEM_BIN: the
  test never builds) — in a temporary directory, so there is no `data/` and no `tandem.log` yet;
- starts the server as the Makefile's `run` recipe does (its command is read from the Makefile), in that
  directory, with its output in `tandem.log` as the README's `tee` keeps it. One override: `TANDEM_LISTEN=
  127.0.0.1:0`, because port 8080 may be taken on a test machine (and tests bind only to port 0); the README's
  `BASE=${BASE:-127.0.0.1:8080}` is there for exactly this, so the test sets `BASE` to the port the server got;
- runs the marked blocks, verbatim and in order, in one bash, as pasted into one terminal;
- checks what the README promises: the answers it names, the timeline it prints, and the log lines it quotes,
  in its order.
"""
import json
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from conftest import BIN, REPO, wait_for

README = REPO / "README.md"


def quickstart_blocks():
    """(server block, [terminal blocks]) — the fenced blocks right after the quick-start markers."""
    text = README.read_text()
    pattern = re.compile(r"<!-- (quickstart(?::server)?) -->\n```sh\n(.*?)\n```", re.S)
    server, blocks = None, []
    for marker, body in pattern.findall(text):
        if marker == "quickstart:server":
            server = body
        else:
            blocks.append(body)
    return server, blocks


def make_run_command():
    """The `run` recipe of the Makefile with its variables expanded (`TANDEM_CONFIG=Config/tandem.json
    .build/release/tandem serve`)."""
    makefile = (REPO / "Makefile").read_text()
    variables = dict(re.findall(r"(?m)^([A-Z_]+)\s*[:?]?=\s*(.*?)\s*$", makefile))
    recipe = re.search(r"(?m)^run:.*\n\t(.+)$", makefile).group(1)
    return re.sub(r"\$\(([A-Z_]+)\)", lambda m: variables[m.group(1)], recipe)


def fresh_checkout(directory):
    """What a clone holds of `Config/` and `Policies/`: the tracked files (every file when this is no git checkout)."""
    try:
        tracked = subprocess.run(["git", "ls-files", "-z", "Config", "Policies"], cwd=REPO, capture_output=True, check=True)
        names = [name for name in tracked.stdout.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        names = [str(path.relative_to(REPO)) for folder in ("Config", "Policies") for path in (REPO / folder).rglob("*")
                 if path.is_file()]
    assert "Config/tandem.json" in names
    for name in names:
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, directory / name)
    (directory / ".build" / "release").mkdir(parents=True)
    (directory / ".build" / "release" / "tandem").symlink_to(Path(BIN).resolve())


def test_the_markers_pick_the_documented_steps():
    server, blocks = quickstart_blocks()
    assert server == "make run 2>&1 | tee tandem.log"
    assert len(blocks) == 4, blocks
    assert blocks[0].startswith("BASE=${BASE:-127.0.0.1:8080}\n")
    # One variable for the URL and the signed host.
    assert 'printf \'%s %s HTTP/1.1\\n%s\\n%s\\n\' "$1" "$2" "$BASE" "$ts"' in blocks[0]
    assert '"http://$BASE$2"' in blocks[0]
    recipe = make_run_command()
    assert recipe == "TANDEM_CONFIG=Config/tandem.json .build/release/tandem serve", recipe


def test_the_quick_start_runs_verbatim_and_keeps_its_promises(tmp_path):
    server_block, blocks = quickstart_blocks()
    clone = tmp_path / "tandem"
    clone.mkdir()
    fresh_checkout(clone)
    assert not (clone / "data").exists()

    # The server, as `make run 2>&1 | tee tandem.log` starts it (the build step is TANDEM_BIN's).
    assignments, command = re.match(r"((?:[A-Z_]+=\S+ )*)(.*)", make_run_command()).groups()
    env = dict(os.environ)
    env.update(dict(pair.split("=", 1) for pair in assignments.split()))
    env["TANDEM_LISTEN"] = "127.0.0.1:0"
    log_path = clone / "tandem.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command.split(), cwd=clone, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        def listening():
            if server.poll() is not None:
                raise AssertionError(f"the server exited {server.returncode}: {log_path.read_text()}")
            return re.search(r"Tandem \S+ listening on http://(127\.0\.0\.1:\d+)\n", log_path.read_text())
        base = wait_for(listening, timeout=30, what="the server to listen").group(1)
        assert "Try: curl -s http://" in log_path.read_text()

        script = "\n".join(blocks) + "\n"
        shell_env = {key: value for key, value in os.environ.items() if not key.startswith("TANDEM_")}
        shell_env["BASE"] = base
        result = subprocess.run(["bash", "-c", script], cwd=clone, env=shell_env, capture_output=True, text=True,
                                timeout=120)
        out = result.stdout
        (tmp_path / "quickstart.out").write_text(out)
        assert result.returncode == 0, (out, result.stderr)
        check_terminal(out)
        check_log(log_path.read_text())
        assert (clone / "data" / "tandem.sqlite").exists()  # where the README says `make run` keeps it
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def check_terminal(out):
    readme = README.read_text()
    assert '"status":"ok"' in out.splitlines()[0], out
    assert re.search(r"^install [0-9a-f-]{36}$", out, re.M), out
    assert '"RegistrationStatus":"PinVerified"' in out, out
    # `send try-1`: accepted, then read in time: Read by push, no SMS.
    accepted = re.search(r'^\{"details":"Created 1 message\(s\)","errorCode":0,.*"reference":"try-1".*$', out, re.M)
    assert accepted and '"status":"Accepted"' in accepted.group(0), out
    view_line = next(line for line in out.splitlines() if line.startswith('{"id":') and '"reference":"try-1"' in line)
    recipient = json.loads(view_line)["recipients"][0]
    assert (recipient["status"], recipient["channel"], recipient["fallback"]) == ("Read", "Push", False), recipient
    assert not any(event["event"].startswith("sms") for event in recipient["events"]), recipient["events"]
    assert f'`try-1` is `"status":"{recipient["status"]}","channel":"{recipient["channel"]}"`' in README.read_text()

    # `tandem send … --follow`: the timeline the README prints, event by event, and its last line.
    follow = [line for line in out.splitlines()
              if re.match(r"\d\d:\d\d:\d\d\.\d{3}  \+31612345678  ", line) or re.match(r"\+?0{0,2}31612345678: ", line)]
    assert re.match(r"0031612345678: Accepted, message [0-9a-f-]{36}, 1 SMS part if sent as SMS$", follow[0]), follow
    events = [line.split()[2] for line in follow[1:-1]]
    documented = re.search(r"```\n0031612345678: Accepted.*?\n(.*?)\n\+31612345678: (.*?)\n```", README.read_text(), re.S)
    assert events == [line.split()[2] for line in documented.group(1).splitlines()], (events, documented.group(1))
    timer = next(line for line in follow if line.split()[2] == "timerFired")
    assert timer.split()[3] == "noRead"
    # The SMS went out once the 30 s read window of the Critical policy had passed, not before.
    seconds = {line.split()[2]: seconds_of_day(line.split()[0]) for line in follow[1:-1]}
    assert 30.0 <= (seconds["timerFired"] - seconds["routed"]) % 86_400 < 31.0, seconds
    final = re.escape(documented.group(2)).replace(r"updateId\ 2", r"updateId\ \d+")
    assert re.fullmatch(r"\+31612345678: " + final, follow[-1]), (follow[-1], documented.group(2))


def seconds_of_day(clock):
    hours, minutes, seconds = clock.split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def check_log(log):
    """The log lines the README quotes appear in the server's log, in the README's order."""
    documented = re.search(r"The server's log tells the same story in words:\n\n```\n(.*?)\n```", README.read_text(), re.S)
    messages = [re.search(r'"msg":"(.*?)"', line).group(1) for line in documented.group(1).splitlines()]
    assert len(messages) == 5, messages
    lines = [json.loads(line) for line in log.splitlines() if line.startswith("{")]
    pin = [line for line in lines if line["msg"] == "simulated PIN delivered"]
    documented_pin = re.search(r'`(\{"ts":…,"level":"info","msg":"simulated PIN delivered".*?\})`', README.read_text()).group(1)
    assert set(re.findall(r'"(\w+)":', documented_pin)) == set(pin[0]), (documented_pin, pin[0])
    assert pin and re.fullmatch(r"\d{6}", pin[0]["pin"]) and pin[0]["text"] == f"Your Acme Alerts verification code is {pin[0]['pin']}"
    # The try-2 push is the second push: its story starts after the first push's acceptance.
    pushes = [index for index, line in enumerate(lines) if line["msg"].startswith("simulated push accepted")]
    assert len(pushes) == 2, pushes
    position = pushes[1]
    for message in messages:
        found = next((index for index in range(position, len(lines)) if lines[index]["msg"] == message), None)
        assert found is not None, (message, [line["msg"] for line in lines[position:]])
        position = found
    fallback = next(line for line in lines if line["msg"].startswith("falling back to SMS"))
    assert fallback["cause"] == "noRead"


def test_documentation_links_stay_inside_the_repository():
    """Every Markdown link of README.md and docs/ names a file of the repository (and, with an anchor, a heading
    of it) — never an address outside it."""
    def anchors(path):
        return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
                for heading in re.findall(r"(?m)^#+ (.*)$", path.read_text())}

    pages = [README, *sorted((REPO / "docs").glob("*.md"))]
    checked = 0
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            assert "://" not in target and not target.startswith(("mailto:", "//")), (page, target)
            path_part, _, anchor = target.partition("#")
            linked = (page.parent / path_part).resolve() if path_part else page
            assert linked.exists() and REPO in linked.parents, (page, target)
            if anchor:
                assert anchor in anchors(linked), (page, target, sorted(anchors(linked)))
            checked += 1
    assert checked >= 10
    assert (REPO / "docs" / "deploy" / "tandem.service").exists()


def test_the_documented_backup_commands_copy_a_live_database(serve, tmp_path):
    """docs/operations.md's two ways to back up a live database give a consistent copy while `tandem serve` runs
    and writes (the commands as documented, with the database and backup paths of this test)."""
    operations = (REPO / "docs" / "operations.md").read_text()
    commands = re.findall(r"(?m)^(sqlite3 /var/lib/tandem/tandem\.sqlite .*)$", operations)
    assert len(commands) == 2 and "VACUUM INTO" in commands[0] and ".backup" in commands[1], commands
    server = serve()
    token = None
    for name in ("Acme", "Globex"):
        created = subprocess.run([BIN, "account", "create", name, "--config", str(server.config_path)],
                                 capture_output=True, text=True)
        assert created.returncode == 0, created.stderr
        token = re.search(r"product token: (\S+)", created.stdout).group(1)
    backups = tmp_path / "backups"
    backups.mkdir()
    for index, command in enumerate(commands):
        command = command.replace("/var/lib/tandem/tandem.sqlite", str(server.db))
        command = command.replace("/var/backups/tandem/tandem-$(date -u +%Y%m%dT%H%M%SZ).sqlite", str(backups / f"copy-{index}.sqlite"))
        result = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
        assert result.returncode == 0, (command, result.stderr)
        copy = backups / f"copy-{index}.sqlite"
        check = subprocess.run(["sqlite3", str(copy), "PRAGMA integrity_check", "SELECT product_token FROM accounts ORDER BY id"],
                               capture_output=True, text=True)
        assert check.stdout.splitlines()[0] == "ok", check
        assert check.stdout.splitlines()[-1] == token  # the latest commit is in the copy, though it may still be in the WAL
    assert server.process.poll() is None  # the server ran on


def test_the_shipped_systemd_unit_is_valid(tmp_path):
    """`systemd-analyze verify` accepts docs/deploy/tandem.service without a complaint (ExecStart pointed at the
    binary under test, since /usr/local/bin/tandem is not installed here)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    unit = (REPO / "docs" / "deploy" / "tandem.service").read_text()
    assert "ExecStart=/usr/local/bin/tandem serve" in unit and "User=tandem" in unit and "StateDirectory=tandem" in unit
    copy = tmp_path / "tandem.service"
    copy.write_text(unit.replace("/usr/local/bin/tandem", str(Path(BIN).resolve())))
    result = subprocess.run([analyze, "verify", str(copy)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stderr.strip() == "", result.stderr
