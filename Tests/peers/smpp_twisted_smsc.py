"""An SMSC that authenticates binds: `smpp.twisted3`'s SMPPServerFactory with a Twisted cred portal.

    smpp_twisted_smsc.py --record FILE --system-id ID --password PW

Prints `PORT <n>` (127.0.0.1) as its only stdout line and exits when its parent process is gone.
Only ID with PW may bind (wrong password: ESME_RINVPASWD; unknown system id: ESME_RINVSYSID). Every
`submit_sm` is accepted with message id `tw-<n>`.

Record: JSON lines appended to FILE: {"bind": system_id, "ok": bool} per bind attempt (from the portal's
verdict), {"submit": hex short_message, "message_id": id, "source_addr": …, "source_addr_ton": n}.
"""
import argparse
import json
import logging
import os
import signal

from twisted.cred.checkers import InMemoryUsernamePasswordDatabaseDontUse
from twisted.cred.portal import IRealm, Portal
from twisted.internet import reactor, task
from zope.interface import implementer

from smpp.pdu.pdu_types import CommandStatus
from smpp.twisted.config import SMPPServerConfig
from smpp.twisted.protocol import DataHandlerResponse
from smpp.twisted.server import IAuthenticatedSMPP, SMPPServerFactory

PARENT = os.getppid()
# The Swift test process blocks most signals and children inherit the mask: unblock them.
signal.pthread_sigmask(signal.SIG_SETMASK, [])


@implementer(IRealm)
class Realm:
    def requestAvatar(self, avatar_id, mind, *interfaces):
        return IAuthenticatedSMPP, avatar_id, lambda: None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", required=True)
    parser.add_argument("--system-id", required=True)
    parser.add_argument("--password", required=True)
    args = parser.parse_args()
    logging.basicConfig(level=logging.CRITICAL)
    out = open(args.record, "a", buffering=1)

    def record(**entry):
        out.write(json.dumps(entry, sort_keys=True) + "\n")

    submitted = [0]

    def handle(system_id, smpp, pdu):
        submitted[0] += 1
        message_id = "tw-%d" % submitted[0]
        params = pdu.params
        record(submit=params["short_message"].hex(), message_id=message_id,
               source_addr=params["source_addr"].decode(), source_addr_ton=str(params["source_addr_ton"]))
        return DataHandlerResponse(status=CommandStatus.ESME_ROK, message_id=message_id)

    # smpp.twisted passes the system id and password as str; the checker's constructor keys users by bytes.
    checker = InMemoryUsernamePasswordDatabaseDontUse()
    checker.addUser(args.system_id, args.password)
    portal = Portal(Realm(), [checker])
    config = SMPPServerConfig(msgHandler=handle, systems={args.system_id: {"max_bindings": 4}})
    factory = SMPPServerFactory(config, auth_portal=portal)

    login = factory.login

    def recorded_login(system_id, password, client_ip_address):
        deferred = login(system_id, password, client_ip_address)

        def succeeded(result):
            record(bind=system_id, ok=True)
            return result

        def failed(failure):
            record(bind=system_id, ok=False)
            return failure

        return deferred.addCallbacks(succeeded, failed)

    factory.login = recorded_login

    def watch_parent():
        if os.getppid() != PARENT:
            os._exit(0)

    task.LoopingCall(watch_parent).start(0.2)
    port = reactor.listenTCP(0, factory, interface="127.0.0.1")
    print("PORT", port.getHost().port, flush=True)
    reactor.run()


if __name__ == "__main__":
    main()
