"""A real Kannel for tests: Debian's bearerbox and smsbox in front of an SMSC made with smpp34's server.

  kannel_stack.py [--http-request-retry N] [--http-queue-delay S] [--hold-receipts]
                             prints "PORT <sendsms> <dlr-sink>", or "ERROR <text>" when Kannel is missing

- The SMSC accepts every submit_sm under a decimal id and, when a receipt is asked for, sends the SMPP
  receipt 50 ms later: `stat:UNDELIV` for numbers ending in 000, `stat:EXPIRED` for 001, else `stat:DELIVRD`.
- bearerbox binds to it as a transceiver; smsbox serves sendsms for user `tandem`, password `secret`.
- GET http://127.0.0.1:<dlr-sink>/<anything>?… records the callback (point the dlr-url there) and answers 200.
- GET http://127.0.0.1:<dlr-sink>/_received answers {"submits": [...], "callbacks": [{"path", "query"}], "receipts": [id…]}
  (receipts: the message ids whose receipt the SMSC has sent).
- --http-request-retry / --http-queue-delay go into the `smsbox` group as written (left out when not given:
  Kannel's defaults, no retry); --hold-receipts keeps each receipt until GET /_release sends those held so far.
- GET /_config answers the Kannel configuration file's path, GET /_smsbox_log smsbox's log so far.

Kannel cannot report a port it picked, so free ports are found first (bind to 0, close, hand them over).
Kannel's logs stay in a temporary directory removed on exit; bearerbox and smsbox are killed when this
script ends (SIGTERM) or its parent is gone.
"""
import argparse
import asyncio
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import parse_qs, urlparse

import peerlib

LOCK = threading.Lock()
SUBMITS, CALLBACKS, RECEIPTS, HELD = [], [], [], []
OPTIONS = None
LOOP = None
CHILDREN = []
WORKDIR = tempfile.mkdtemp(prefix="tandem-kannel-")


def stop_children():
    for child in CHILDREN:
        if child.poll() is None:
            child.kill()
            child.wait()
    shutil.rmtree(WORKDIR, ignore_errors=True)


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for sock in sockets:
        sock.bind(("127.0.0.1", 0))
    ports = [sock.getsockname()[1] for sock in sockets]
    for sock in sockets:
        sock.close()
    return ports


def wait_for_port(port, child, what, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise RuntimeError(f"{what} exited with {child.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.01)
    raise RuntimeError(f"{what} did not listen on {port}")


class Sink(peerlib.Handler):
    def do_GET(self):
        url = urlparse(self.path)
        if url.path == "/_received":
            with LOCK:
                self.reply_json({"submits": SUBMITS, "callbacks": CALLBACKS, "receipts": RECEIPTS})
            return
        if url.path == "/_release":
            with LOCK:
                held = HELD[:]
                HELD.clear()
            for args in held:
                asyncio.run_coroutine_threadsafe(receipt(*args, delay=0), LOOP)
            self.reply_json({"released": len(held)})
            return
        if url.path == "/_config":
            self.reply(200, os.path.join(WORKDIR, "kannel.conf"))
            return
        if url.path == "/_smsbox_log":
            try:
                with open(os.path.join(WORKDIR, "smsbox.log"), errors="replace") as log:
                    self.reply(200, log.read())
            except OSError:
                self.reply(200, "")
            return
        with LOCK:
            CALLBACKS.append({"path": url.path, "query": parse_qs(url.query, keep_blank_values=True)})
        self.reply(200, "OK")


BOUND = threading.Event()


async def smsc(server, ready):
    import smpp34
    await server.start()
    ready.set()
    esme, count = None, 0
    while True:
        event = await server.next()
        if isinstance(event, smpp34.Esme):
            esme = event
            BOUND.set()
        elif isinstance(event, smpp34.SubmitSmEvent):
            count += 1
            message_id = str(1000 + count)
            event.accept(message_id)
            with LOCK:
                SUBMITS.append({"destination": event.destination_addr, "source": event.source_addr,
                                "data_coding": event.data_coding, "registered_delivery": event.registered_delivery,
                                "short_message": event.short_message.hex(), "message_id": message_id})
            if event.registered_delivery & 1 and esme is not None:
                args = (esme, message_id, event.destination_addr, event.source_addr)
                if OPTIONS.hold_receipts:
                    with LOCK:
                        HELD.append(args)
                else:
                    asyncio.ensure_future(receipt(*args))


async def receipt(esme, message_id, destination, source, delay=0.05):
    await asyncio.sleep(delay)
    stat = "UNDELIV" if destination.endswith("000") else "EXPIRED" if destination.endswith("001") else "DELIVRD"
    err = "001" if stat == "UNDELIV" else "000"
    text = (f"id:{message_id} sub:001 dlvrd:{'001' if stat == 'DELIVRD' else '000'} submit date:2611211000"
            f" done date:2611211001 stat:{stat} err:{err} text:hello").encode()
    await esme.deliver_sm(source, text, source_addr=destination, esm_class=0x04)
    with LOCK:
        RECEIPTS.append(message_id)


def retry_settings():
    lines = []
    if OPTIONS.http_request_retry is not None:
        lines.append(f"http-request-retry = {OPTIONS.http_request_retry}")
    if OPTIONS.http_queue_delay is not None:
        lines.append(f"http-queue-delay = {OPTIONS.http_queue_delay}")
    return "\n".join(lines)


def config(admin, box, sendsms, smsc_port):
    return f"""
group = core
admin-port = {admin}
admin-password = "{os.urandom(8).hex()}"
admin-allow-ip = "127.0.0.1"
smsbox-port = {box}
box-allow-ip = "127.0.0.1"
log-file = "{WORKDIR}/bearerbox.log"
log-level = 1
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = sim
host = 127.0.0.1
port = {smsc_port}
transceiver-mode = true
smsc-username = tandem
smsc-password = secret
system-type = ""
msg-id-type = 0x00

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = {sendsms}
log-file = "{WORKDIR}/smsbox.log"
log-level = 1
{retry_settings()}

group = sendsms-user
username = tandem
password = secret
"""


def main():
    global OPTIONS, LOOP
    parser = argparse.ArgumentParser()
    parser.add_argument("--http-request-retry", type=int)
    parser.add_argument("--http-queue-delay", type=int)
    parser.add_argument("--hold-receipts", action="store_true")
    OPTIONS = parser.parse_args()
    peerlib.start(on_exit=stop_children)
    bearerbox, smsbox = shutil.which("bearerbox", path="/usr/sbin:/usr/bin"), shutil.which("smsbox", path="/usr/sbin:/usr/bin")
    if not bearerbox or not smsbox:
        print("ERROR Debian's kannel package is not installed (bearerbox, smsbox)", flush=True)
        return
    try:
        import smpp34
    except ImportError:
        print("ERROR smpp34 is not installed in this Python", flush=True)
        return

    def terminate(*_):
        stop_children()
        os._exit(0)

    signal.signal(signal.SIGTERM, terminate)

    admin, box, sendsms, smsc_port = free_ports(4)
    loop = LOOP = asyncio.new_event_loop()
    ready = threading.Event()
    server = smpp34.Server("127.0.0.1", smsc_port, system_id="smsc")
    threading.Thread(target=lambda: loop.run_until_complete(smsc(server, ready)), daemon=True).start()
    sink = peerlib.Server(("127.0.0.1", 0), Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    conf = os.path.join(WORKDIR, "kannel.conf")
    with open(conf, "w") as out:
        out.write(config(admin, box, sendsms, smsc_port))
    try:
        if not ready.wait(10):
            raise RuntimeError("the SMSC did not start")
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        CHILDREN.append(subprocess.Popen([bearerbox, conf], **quiet))
        wait_for_port(box, CHILDREN[0], "bearerbox")
        CHILDREN.append(subprocess.Popen([smsbox, conf], **quiet))
        wait_for_port(sendsms, CHILDREN[1], "smsbox")
        if not BOUND.wait(10):
            raise RuntimeError("bearerbox did not bind to the SMSC")
    except RuntimeError as error:
        print("ERROR", error, flush=True)
        terminate()
    print("PORT", sendsms, sink.server_address[1], flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
