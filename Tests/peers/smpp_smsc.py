"""An SMSC for the SMPP client tests: PyPI's `smpp34` server (Rust-backed) behind a small wire tap.

    smpp_smsc.py [--record FILE] [--dlr none|tlv|text|both|alternate] [--enroute] [--mo]
                 [--throttle-every N] [--drop-after N] [--delay-ms D] [--no-tap]

Prints `PORT <n>` (the wire tap's port on 127.0.0.1) as its only stdout line, and exits when its parent
process is gone. `--no-tap` prints smpp34's own port instead (no wire records, no drops): for benchmarks.

smpp34's `Server` does the SMPP work: binds (it accepts any password), `enquire_link`, `generic_nack`,
`unbind`, `submit_sm` answered through `SubmitSmEvent.accept(message_id)` / `.reject(status)`, and
`deliver_sm` pushed with `Esme.deliver_sm(...)`. The tap in front of it only frames PDUs by their
16-octet header and forwards them unchanged; it exists because smpp34's server cannot do three things the
tests need: drop a connection (`Server.stop()` leaves sessions open; an `Esme` has no close), tell an
unbind from a disconnect (both yield `Unbound`), and show the wire fields `SubmitSmEvent` leaves out
(`validity_period`, sequence numbers, what was in flight). Full PDUs it decodes with `smpp34.decode`.

Record: one JSON object per line, appended to FILE:
- the tap: {"tap": "c2s"|"s2c", "conn": k, "command": name, "status": n, "seq": n, ...} for every PDU
  (submit_sm adds "fields" decoded by smpp34 and "inflight", the submit_sm on that connection without a
  response, this one included; submit_sm_resp adds "message_id"); {"tap": "drop", "conn": k} when it cuts.
- the server: {"smsc": "submit", "text": hex, "result": "accepted"|"throttled", "message_id": id} and
  {"smsc": "dlr", "message_id": id, "form": ...}; {"smsc": "dlr_queued", ...} when a receipt could not be
  delivered (no bound session, or the connection went before its deliver_sm_resp): like a real SMSC it is
  stored and sent again to the next session that binds ({"smsc": "dlr", ..., "redelivery": true}); one the ESME
  refuses (a deliver_sm_resp with an error status, e.g. ESME_RX_T_APPN) is recorded as {"smsc": "dlr_refused", ...}
  and sent again a second later, to whichever session is bound then.
Every record has "t": the wall-clock time (Unix seconds) it was written, for timing assertions.

--drop-after N closes the connection right after forwarding the Nth submit_sm_resp to the client (once):
everything forwarded before reached the client, nothing after did.
DLR state by destination: ending in 000 → UNDELIV (5), in 999 → EXPIRED (3), else DELIVRD (2).
"""
import argparse
import asyncio
import json
import os
import signal
import struct
import sys
import threading
import time

import smpp34

PARENT = os.getppid()
# The Swift test process blocks most signals and children inherit the mask: unblock them, or the
# test's SIGTERM would never arrive.
signal.pthread_sigmask(signal.SIG_SETMASK, [])

NAMES = {
    0x80000000: "generic_nack", 0x00000004: "submit_sm", 0x80000004: "submit_sm_resp",
    0x00000005: "deliver_sm", 0x80000005: "deliver_sm_resp", 0x00000006: "unbind", 0x80000006: "unbind_resp",
    0x00000009: "bind_transceiver", 0x80000009: "bind_transceiver_resp", 0x00000015: "enquire_link",
    0x80000015: "enquire_link_resp",
}
STATES = {2: "DELIVRD", 3: "EXPIRED", 5: "UNDELIV", 1: "ENROUTE"}


def watch_parent():
    def loop():
        while os.getppid() == PARENT:
            time.sleep(0.2)
        os._exit(0)
    threading.Thread(target=loop, daemon=True).start()


class Recorder:
    def __init__(self, path):
        self.file = open(path, "a", buffering=1) if path else None
        self.lock = threading.Lock()

    def __call__(self, **entry):
        if self.file is None:
            return
        entry["t"] = time.time()
        with self.lock:
            self.file.write(json.dumps(entry, sort_keys=True) + "\n")


def listening_ports():
    """Ports this process listens on (smpp34's Server does not say which port 0 became)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        with open("/proc/self/net/" + table) as lines:
            next(lines)
            for line in lines:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:
                    ports.add(int(fields[1].split(":")[1], 16))
    return ports


class SMSC:
    def __init__(self, args, record):
        self.args = args
        self.record = record
        self.sessions = {}
        self.submits = 0
        self.next_id = 0x1A2B0000
        self.dlrs = 0
        self.undelivered = []  # receipts waiting for a session: (event, message_id, state, form)

    async def run(self, server):
        while True:
            event = await server.next()
            if isinstance(event, smpp34.Esme):
                self.sessions[event.session_id] = event
                waiting, self.undelivered = self.undelivered, []
                for receipt in waiting:
                    asyncio.create_task(self.receipt(event, *receipt, redelivery=True))
                if self.args.mo:
                    asyncio.create_task(self.mobile_originated(event))
            elif isinstance(event, smpp34.Unbound):
                self.sessions.pop(event.session_id, None)
            elif isinstance(event, smpp34.SubmitSmEvent):
                self.submits += 1
                if self.args.delay_ms:
                    asyncio.create_task(self.answer_later(event, self.submits))
                else:
                    self.answer(event, self.submits)

    async def answer_later(self, event, number):
        await asyncio.sleep(self.args.delay_ms / 1000)
        self.answer(event, number)

    def answer(self, event, number):
        text = event.short_message.hex()
        if self.args.throttle_every and number % self.args.throttle_every == 0:
            self.record(smsc="submit", text=text, result="throttled")
            event.reject(smpp34.ESME_RTHROTTLED)
            return
        self.next_id += 1
        message_id = "%08x" % self.next_id
        self.record(smsc="submit", text=text, result="accepted", message_id=message_id,
                    registered_delivery=event.registered_delivery)
        event.accept(message_id)
        if self.args.dlr != "none" and event.registered_delivery & 1:
            asyncio.create_task(self.receipts(event, message_id))

    async def receipts(self, event, message_id):
        esme = self.sessions.get(event.session_id)
        destination = event.destination_addr
        state = 5 if destination.endswith("000") else 3 if destination.endswith("999") else 2
        if self.args.enroute:
            await self.receipt(esme, event, message_id, 1, "both")
        form = self.args.dlr
        if form == "alternate":
            self.dlrs += 1
            form = "tlv" if self.dlrs % 2 else "text"
        await self.receipt(esme, event, message_id, state, form)

    async def receipt(self, esme, event, message_id, state, form, redelivery=False):
        if esme is None or esme.session_id not in self.sessions:
            esme = next(iter(self.sessions.values()), None)  # any live session of the ESME
        if esme is None:
            self.undelivered.append((event, message_id, state, form))
            self.record(smsc="dlr_queued", message_id=message_id, reason="no session")
            return
        stat = STATES[state]
        err = "000" if state == 2 else "001"
        text = b""
        tlvs = []
        if form in ("text", "both"):
            text = ("id:%s sub:001 dlvrd:%s submit date:2401011200 done date:2401011201 stat:%s err:%s text:"
                    % (message_id, "001" if state == 2 else "000", stat, err)).encode()
        if form in ("tlv", "both"):
            tlvs = [smpp34.Tlv(smpp34.TLV_RECEIPTED_MESSAGE_ID, message_id.encode() + b"\0"),
                    smpp34.Tlv(smpp34.TLV_MESSAGE_STATE, bytes([state]))]
        self.record(smsc="dlr", message_id=message_id, form=form, state=state, redelivery=redelivery)
        try:
            response = await esme.deliver_sm(event.source_addr, text, source_addr=event.destination_addr,
                                             source_addr_ton=1, source_addr_npi=1, dest_addr_ton=event.source_addr_ton,
                                             dest_addr_npi=event.source_addr_npi, esm_class=0x04, tlvs=tlvs)
        except Exception as error:  # the connection went before the deliver_sm_resp: keep it for the next bind
            self.sessions.pop(esme.session_id, None)
            self.undelivered.append((event, message_id, state, form))
            self.record(smsc="dlr_queued", message_id=message_id, reason=str(error))
            return
        if not response.is_success:
            # Refused (ESME_RX_T_APPN: the ESME cannot take it now): like a real SMSC, send it again a second later,
            # to whichever session of the ESME is bound then.
            self.record(smsc="dlr_refused", message_id=message_id, status=response.command_status)
            await asyncio.sleep(1.0)
            await self.receipt(None, event, message_id, state, form, redelivery=True)

    async def mobile_originated(self, esme):
        await asyncio.sleep(0.05)
        try:
            await esme.deliver_sm("Acme", b"STOP", source_addr="31612345678", source_addr_ton=1, source_addr_npi=1)
            self.record(smsc="mo")
        except Exception as error:
            self.record(smsc="mo_failed", error=str(error))


class Tap:
    def __init__(self, args, record, upstream):
        self.args = args
        self.record = record
        self.upstream = upstream
        self.connections = 0
        self.responses = 0
        self.dropped = False

    async def handle(self, client_reader, client_writer):
        self.connections += 1
        conn = self.connections
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            client_writer.close()
            return
        state = {"inflight": 0, "closed": False}
        writers = (client_writer, server_writer)

        def close_both():
            state["closed"] = True
            for writer in writers:
                writer.close()

        async def pump(reader, writer, direction):
            try:
                while not state["closed"]:
                    header = await reader.readexactly(16)
                    length, command, status, seq = struct.unpack(">IIII", header)
                    body = await reader.readexactly(length - 16)
                    entry = {"tap": direction, "conn": conn, "command": NAMES.get(command, hex(command)),
                             "status": status, "seq": seq}
                    if command == 0x00000004:
                        state["inflight"] += 1
                        entry["inflight"] = state["inflight"]
                        pdu = smpp34.decode(header + body)
                        entry["fields"] = {
                            "source_addr": pdu.source_addr, "source_addr_ton": pdu.source_addr_ton,
                            "source_addr_npi": pdu.source_addr_npi, "destination_addr": pdu.destination_addr,
                            "dest_addr_ton": pdu.dest_addr_ton, "dest_addr_npi": pdu.dest_addr_npi,
                            "esm_class": pdu.esm_class, "data_coding": pdu.data_coding,
                            "registered_delivery": pdu.registered_delivery, "validity_period": pdu.validity_period,
                            "short_message": pdu.short_message.hex(),
                        }
                    elif command == 0x80000004:
                        state["inflight"] -= 1
                        entry["message_id"] = body.split(b"\0")[0].decode() if body else ""
                    self.record(**entry)
                    writer.write(header + body)
                    await writer.drain()
                    if direction == "s2c" and command == 0x80000004:
                        self.responses += 1
                        if self.args.drop_after and self.responses == self.args.drop_after and not self.dropped:
                            self.dropped = True
                            self.record(tap="drop", conn=conn)
                            close_both()
            except (asyncio.IncompleteReadError, ConnectionError, OSError):
                pass
            finally:
                close_both()

        await asyncio.gather(pump(client_reader, server_writer, "c2s"), pump(server_reader, client_writer, "s2c"))


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record")
    parser.add_argument("--dlr", choices=["none", "tlv", "text", "both", "alternate"], default="none")
    parser.add_argument("--enroute", action="store_true")
    parser.add_argument("--mo", action="store_true")
    parser.add_argument("--throttle-every", type=int, default=0)
    parser.add_argument("--drop-after", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--no-tap", action="store_true")
    args = parser.parse_args()
    watch_parent()
    record = Recorder(args.record)

    before = listening_ports()
    server = smpp34.Server("127.0.0.1", 0, system_id="SMPP34")
    await server.start()
    upstream = (listening_ports() - before).pop()
    smsc = SMSC(args, record)
    asyncio.create_task(smsc.run(server))

    if args.no_tap:
        print("PORT", upstream, flush=True)
        await asyncio.Event().wait()
    tap = Tap(args, record, upstream)
    listener = await asyncio.start_server(tap.handle, "127.0.0.1", 0)
    print("PORT", listener.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # tell the test why instead of a silent exit
        print("ERROR", error, flush=True)
        sys.exit(1)
