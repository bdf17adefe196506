/// The Python helper the tests run as their peer. Two modes, both printing `PORT <n>` (or
/// `ERROR <text>`) as their first stdout line and exiting when their parent dies:
///
/// - `http [--tls CERT KEY]`: an HTTP/1.1 `http.server` (protocol_version "HTTP/1.1", so
///   keep-alive works — a plain `python3 -m http.server` speaks HTTP/1.0), on 127.0.0.1:0.
/// - `supervise PROGRAM ARGS…`: runs PROGRAM (nghttpd on port 0, which it cannot report),
///   finds its listening port in /proc, prints it, and kills PROGRAM when it is terminated.
enum PeerScript {
    static let source = #"""
import http.server, os, signal, socketserver, ssl, subprocess, sys, threading, time
from urllib.parse import urlparse, parse_qs

PARENT = os.getppid()
# Swift's worker threads block most signals and the spawned child inherits the mask: unblock
# them, or SIGTERM from the test would never arrive.
signal.pthread_sigmask(signal.SIG_SETMASK, [])

def watch_parent(on_exit):
    def loop():
        while os.getppid() == PARENT:
            time.sleep(0.2)
        on_exit()
        os._exit(0)
    threading.Thread(target=loop, daemon=True).start()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = url.path
        if path == "/echo":
            seen = lambda name: self.headers.get(name, "<none>")
            self.reply(200, body, [
                ("X-Method", self.command),
                ("X-Client-Port", str(self.client_address[1])),
                ("X-Seen-Content-Type", seen("Content-Type")),
                ("X-Seen-Content-Length", seen("Content-Length")),
                ("X-Seen-Expect", seen("Expect")),
                ("X-Seen-Test", seen("X-Test")),
                ("X-Seen-Empty", seen("X-Empty")),
            ])
        elif path.startswith("/status/"):
            self.reply(int(path.split("/")[2]), b"status body")
        elif path == "/slow":
            time.sleep(int(query["ms"][0]) / 1000)
            self.reply(200, b"slow", [("X-Client-Port", str(self.client_address[1]))])
        elif path == "/big":
            self.reply(200, b"x" * int(query["n"][0]))
        elif path == "/chunked":
            remaining = int(query["n"][0])
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while remaining > 0:
                size = min(remaining, 1000)
                self.wfile.write(b"%x\r\n" % size + b"y" * size + b"\r\n")
                remaining -= size
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/interim":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n")
            self.reply(200, b"final", [("X-Final", "yes")])
        elif path == "/headers":
            self.reply(200, b"", [("X-Mixed-Case", "Value With Spaces"), ("Set-Cookie", "a=1"),
                                  ("Set-Cookie", "b=2"), ("X-Empty", "")])
        else:
            self.reply(404, b"not found")

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = handle_any

class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    def handle_error(self, request, client_address):
        pass  # clients that time out or cancel leave broken pipes behind

def serve_http(args):
    server = Server(("127.0.0.1", 0), Handler)
    if args[:1] == ["--tls"]:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args[1], args[2])
        context.set_alpn_protocols(["http/1.1"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    watch_parent(lambda: None)
    print("PORT", server.server_address[1], flush=True)
    server.serve_forever()

def listening_port(pid):
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    for table in ("tcp", "tcp6"):
        with open("/proc/%d/net/%s" % (pid, table)) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    return int(fields[1].split(":")[1], 16)
    return None

def supervise(args):
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    def stop(*_):
        # Not child.wait(): the main thread is inside it, holding its (non-reentrant) lock.
        child.kill()
        try:
            os.waitpid(child.pid, 0)
        except ChildProcessError:
            pass
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    watch_parent(lambda: child.kill())
    deadline = time.monotonic() + 10
    port = None
    while port is None and time.monotonic() < deadline:
        if child.poll() is not None:
            print("ERROR", args[0], "exited:", child.stderr.read().decode(errors="replace").strip(), flush=True)
            return
        try:
            port = listening_port(child.pid)
        except (FileNotFoundError, ProcessLookupError):
            pass
        if port is None:
            time.sleep(0.01)
    if port is None:
        print("ERROR", args[0], "did not listen", flush=True)
        child.kill()
        return
    print("PORT", port, flush=True)
    child.wait()

if __name__ == "__main__":
    if sys.argv[1] == "http":
        serve_http(sys.argv[2:])
    else:
        supervise(sys.argv[2:])
"""#
}
