"""Black-box tests of `tandem serve`: real process, real sockets, 127.0.0.1 only."""
import http.client
import json
import socket
import threading

from prometheus_client.parser import text_string_to_metric_families

from conftest import wait_for


def get(server, path, method="GET", body=None, headers=None):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_healthz_reports_status_version_uptime_and_database(serve):
    server = serve()
    status, headers, body = get(server, "/healthz")
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    document = json.loads(body)
    assert document["status"] == "ok"
    assert document["database"] == "ok"
    assert document["version"]
    assert isinstance(document["uptimeSeconds"], (int, float)) and document["uptimeSeconds"] >= 0
    assert server.db.exists(), "the database file is created on first run"


def test_metrics_parse_with_the_reference_prometheus_parser(serve):
    server = serve()
    for _ in range(5):
        assert get(server, "/healthz")[0] == 200
    assert get(server, "/nope")[0] == 404
    # The access record is written when the request completes; wait for the counter rather than sleeping.
    def scrape():
        status, headers, body = get(server, "/metrics")
        assert status == 200
        assert headers["Content-Type"].startswith("text/plain; version=0.0.4")
        families = {family.name: family for family in text_string_to_metric_families(body.decode())}
        samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                   for family in families.values() for s in family.samples}
        healthz = samples.get(("tandem_http_requests_total",
                               (("method", "GET"), ("route", "/healthz"), ("status", "200"))), 0)
        return (families, samples) if healthz >= 5 else None
    families, samples = wait_for(scrape, what="five /healthz requests in the counter")
    assert samples[("tandem_http_requests_total", (("method", "GET"), ("route", "unmatched"), ("status", "404")))] == 1
    assert families["tandem_http_request_duration_seconds"].type == "histogram"
    assert samples[("tandem_http_request_duration_seconds_count", (("route", "/healthz"),))] >= 5
    assert samples[("tandem_http_request_duration_seconds_bucket", (("le", "+Inf"), ("route", "/healthz")))] >= 5
    assert samples[("process_resident_memory_bytes", ())] > 1_000_000


def test_metrics_can_require_a_bearer_token(serve):
    server = serve(config={"metrics": {"bearerToken": {"env": "TEST_METRICS_TOKEN"}}},
                   env={"TEST_METRICS_TOKEN": "sesame"})
    status, headers, _ = get(server, "/metrics")
    assert status == 401
    assert headers["WWW-Authenticate"].startswith("Bearer")
    assert get(server, "/metrics", headers={"Authorization": "Bearer wrong"})[0] == 401
    assert get(server, "/metrics", headers={"Authorization": "Bearer sesame"})[0] == 200


def test_keep_alive_serves_many_requests_on_one_connection(serve):
    server = serve()
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    connection.connect()
    first_socket = connection.sock
    local_port = first_socket.getsockname()[1]
    for _ in range(5):
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert response.status == 200
        assert (response.getheader("Connection") or "").lower() != "close"
        response.read()
        assert connection.sock is first_socket, "http.client reconnected: keep-alive was not honoured"
    assert connection.sock.getsockname()[1] == local_port
    connection.close()


def test_unknown_path_is_404_and_wrong_method_is_405_with_allow(serve):
    server = serve()
    status, _, body = get(server, "/no/such/thing")
    assert status == 404
    status, headers, _ = get(server, "/healthz", method="DELETE")
    assert status == 405
    assert [m.strip() for m in headers["Allow"].split(",")] == ["GET", "HEAD"]
    assert get(server, "/healthz", method="HEAD")[0] == 200


def test_body_over_the_limit_is_413(serve):
    server = serve(config={"http": {"maxBodyBytes": 1024}})
    status, _, _ = get(server, "/healthz", method="POST", body=b"x" * 2048)
    assert status == 413


def test_two_hundred_concurrent_requests_are_all_answered(serve):
    server = serve()
    results = []
    lock = threading.Lock()

    def one():
        status, _, body = get(server, "/healthz")
        with lock:
            results.append((status, json.loads(body)["status"]))

    threads = [threading.Thread(target=one) for _ in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(results) == 200
    assert all(result == (200, "ok") for result in results)


def test_sigterm_during_a_slow_request_lets_it_finish_and_exits_zero(serve):
    server = serve()
    slow = socket.create_connection((server.host, server.port), timeout=10)
    body = b"y" * 100_000
    slow.sendall(b"POST /healthz HTTP/1.1\r\nHost: t\r\nContent-Type: application/octet-stream\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body[:50_000])
    # Wait until the server has the request in flight: the gauge counts the scrape itself too.
    def in_flight():
        _, _, text = get(server, "/metrics")
        for family in text_string_to_metric_families(text.decode()):
            if family.name == "tandem_http_requests_in_flight":
                return family.samples[0].value >= 2
        raise AssertionError("no in-flight gauge")
    wait_for(in_flight, what="the slow request to be in flight")
    server.terminate()
    wait_for(lambda: "shutting down" in server.stderr(), what="the shutdown to start")

    def refused():
        try:
            probe = socket.create_connection((server.host, server.port), timeout=1)
        except (ConnectionRefusedError, OSError):
            return True
        probe.close()
        return False
    wait_for(refused, what="the listening socket to close")
    assert server.process.poll() is None, "the server exited before the in-flight request finished"

    slow.sendall(body[50_000:])
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = slow.recv(65536)
        assert chunk, "connection closed without a response"
        response += chunk
    head = response.split(b"\r\n\r\n", 1)[0].decode()
    assert head.startswith("HTTP/1.1 405")
    slow.close()
    assert server.wait(timeout=30) == 0
    messages = [line["msg"] for line in server.log_lines()]
    assert "stopped" in messages


def test_access_log_has_one_json_line_per_request(serve):
    server = serve()
    get(server, "/healthz")
    get(server, "/missing")
    def access_lines():
        lines = [line for line in server.log_lines() if line.get("log") == "access"]
        return lines if len(lines) >= 2 else None
    lines = wait_for(access_lines, what="two access-log lines")
    # Each line is written when its response completes, on the server thread that served it: two requests
    # in a row may be logged in either order.
    assert sorted((l["method"], l["route"], l["status"]) for l in lines[:2]) == [("GET", "/healthz", 200), ("GET", "unmatched", 404)]
    assert all(l["durationMs"] >= 0 for l in lines)
