"""The FCM fake (Tests/peers/fcm_fake.py) for black-box tests: its TLS certificate, a service account with a
fresh RSA key whose `token_uri` is the fake's, and the `providers.push.fcm` configuration pointing at it."""
import datetime
import ipaddress
import json
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID

from provider_support import Peer, read_json_lines

PROJECT_ID = "tandem-test"
CLIENT_EMAIL = "tandem@tandem-test.iam.gserviceaccount.com"
KEY_ID = "0123456789abcdef0123456789abcdef01234567"


def _write_certificate(directory):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
                   .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                               x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    cert, key_path = directory / "cert.pem", directory / "key.pem"
    cert.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert, key_path


class FCM:
    """fcm_fake.py with --allow-bare-data (data-only pushes carry no Tandem identifiers), one JSON line per request."""

    def __init__(self, directory):
        self.directory = Path(directory) / "fcm"
        self.directory.mkdir(parents=True, exist_ok=True)
        self.cert, key = _write_certificate(self.directory)
        account_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = self.directory / "account.pub"
        public.write_bytes(account_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                                 serialization.PublicFormat.SubjectPublicKeyInfo))
        self.log_path = self.directory / "fcm.jsonl"
        self.peer = Peer("fcm_fake.py", ["--cert", str(self.cert), "--key", str(key), "--public-key", str(public),
                                         "--client-email", CLIENT_EMAIL, "--key-id", KEY_ID, "--project-id", PROJECT_ID,
                                         "--log", str(self.log_path), "--allow-bare-data"], directory, "fcm")
        self.url = f"https://127.0.0.1:{self.peer.port}"
        self.service_account = self.directory / "service-account.json"
        private = account_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                            serialization.NoEncryption()).decode()
        self.service_account.write_text(json.dumps({
            "type": "service_account", "project_id": PROJECT_ID, "private_key_id": KEY_ID, "private_key": private,
            "client_email": CLIENT_EMAIL, "token_uri": self.url + "/token"}))

    def config(self):
        return {"baseURL": self.url, "http": {"caFile": str(self.cert), "timeout": "5s", "maxAttempts": 2}}

    def sends(self):
        return [r for r in read_json_lines(self.log_path) if r.get("kind") == "send"]

    def stop(self):
        self.peer.stop()
