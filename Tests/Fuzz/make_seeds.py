#!/usr/bin/env python3
"""Writes the seed corpora in Tests/Fuzz/corpus/<harness>/ from the spec examples and the repository's fixtures.

Usage: python3 Tests/Fuzz/make_seeds.py [SPEC.txt]   (SPEC: the CM Hybrid Messaging spec text, optional)

Seeds are named seed-<hash>; files libFuzzer found (crash-…, timeout-…, leak-…, kept as regression inputs) are
left alone. Re-running is idempotent.
"""
import hashlib
import json
import pathlib
import re
import sys
import urllib.parse

root = pathlib.Path(__file__).resolve().parents[2]
corpus = root / "Tests" / "Fuzz" / "corpus"


def put(harness, data):
    if isinstance(data, str):
        data = data.encode()
    directory = corpus / harness
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ("seed-" + hashlib.sha1(data).hexdigest()[:12])).write_bytes(data)


def read(path):
    return (root / path).read_text(encoding="utf-8")


def swift_strings(text):
    """Swift string literals: multi-line (\"\"\" … \"\"\", indentation stripped), raw (#"…"#) and plain ("…")."""
    out = []
    for match in re.finditer(r'#?"""\n(.*?)\n([ \t]*)"""#?', text, re.S):
        indent = match.group(2)
        out.append("\n".join(line[len(indent):] if line.startswith(indent) else line
                             for line in match.group(1).split("\n")))
    text = re.sub(r'#?""".*?"""#?', "", text, flags=re.S)
    out += re.findall(r'#"(.*?)"#', text)
    text = re.sub(r'#".*?"#', "", text)
    for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
        out.append(literal.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\"))
    return out


def url_encode_pairs(pairs):
    return "&".join(urllib.parse.quote(n, safe="$") + "=" + urllib.parse.quote(v, safe="") for n, v in pairs)


def spec_blocks(spec):
    """XML documents and JSON objects from the spec's examples."""
    xml = re.findall(r"(?:<\?xml[^>]*\?>\s*)?<MESSAGES>.*?</MESSAGES>", spec, re.S)
    jsons, depth, start = [], 0, None
    for index, char in enumerate(spec):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                jsons.append(spec[start:index + 1])
    return xml, jsons


# CM JSON and XML: the spec's examples, then the decoding tests' documents.
if len(sys.argv) > 1:
    spec = pathlib.Path(sys.argv[1]).read_text(encoding="utf-8")
    xml, jsons = spec_blocks(spec)
    for block in xml:
        put("cm_xml", block)
    for block in jsons:
        put("cm_json" if '"messages"' in block.lower() else "policy_unused", block)
    for line in spec.splitlines():
        if line.startswith("MAC kid=") or line.startswith("Authorization: MAC"):
            put("mac_header", line.split("Authorization: ", 1)[-1])
        if line.startswith("User-Agent: "):
            put("user_agent", line[len("User-Agent: "):])
    (corpus / "policy_unused").exists() and [p.unlink() for p in (corpus / "policy_unused").iterdir()]
    (corpus / "policy_unused").exists() and (corpus / "policy_unused").rmdir()

for name in ["CMJSONDecodingTests", "CMJSONErrorTests", "CMErrorCoverageTests", "CMPythonSDKTests", "CMGatewayServiceTests"]:
    for literal in swift_strings(read(f"Tests/TandemAPITests/{name}.swift")):
        if literal.lstrip().startswith(("{", "[")) and len(literal) > 8:
            put("cm_json", literal)
for name in ["CMXMLDecodingTests", "CMXMLSecurityTests", "CMErrorCoverageTests"]:
    for literal in swift_strings(read(f"Tests/TandemAPITests/{name}.swift")):
        if literal.lstrip().startswith("<") and len(literal) > 8:
            put("cm_xml", literal)

# GET form: the query tests' pairs as gateway request-targets, plus request-target shapes.
query_tests = read("Tests/TandemAPITests/CMQueryDecodingTests.swift")
for call in re.findall(r"decode\(\[(.*?)\]\)", query_tests, re.S):
    pairs = re.findall(r'\("([^"]*)",\s*"([^"]*)"\)', call)
    if pairs:
        put("query", "/gateway.ashx?" + url_encode_pairs(pairs))
for target in ["/", "/gateway.ashx?producttoken=00000000-0000-0000-0000-000000000000&body=Hello+there&to=0031612345678,"
               "00447911123456&from=Shop&reference=r1", "http://sgw01.cm.nl/gateway.ashx?to=%2B31612345678&body=%E2%82%AC",
               "/v1.0/deviceregistrations/%2Fx/a%20b?a=1&&b&=c", "/a//b/?x=%zz&y=%4", "*"]:
    put("query", target)

# OData: the parser tests' queries as raw query strings.
for name in ["ODataParserValidTests", "ODataParserInvalidTests", "ODataEvaluatorTests", "ODataSQLEquivalenceTests",
             "ODataRenderingTests", "ODataDateTimeTests"]:
    text = read(f"Tests/TandemAPITests/{name}.swift")
    for group in re.findall(r"\[((?:\s*QueryPair\([^()]*\),?)+)\s*\]", text):
        pairs = re.findall(r'QueryPair\(\s*"((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)"\s*\)', group)
        if pairs:
            put("odata", url_encode_pairs([(n, v.replace('\\"', '"')) for n, v in pairs]))
    for option, value in re.findall(r'\.(filter|orderBy|select|top|skip)\(\s*"((?:[^"\\]|\\.)*)"', text):
        put("odata", url_encode_pairs([("$" + option.lower(), value)]))
    for literal in swift_strings(text):
        if any(word in literal for word in [" eq ", " ne ", " gt ", " lt ", " ge ", " le ", "datetime'", "guid'"]):
            put("odata", url_encode_pairs([("$filter", literal)]))

# MAC header and User-Agent: the tests' literals.
for literal in swift_strings(read("Tests/TandemAPITests/MACAuthenticationTests.swift")):
    if "kid" in literal or literal.lower().startswith(("mac", "bearer")):
        put("mac_header", literal)
put("mac_header", 'MAC kid="8eda08f7-5249-40c2-9ef7-ce573f3a8dca" ts="1464242891" mac="dkViwAV9Pi5xiab39VRUq+gU4Co="')
for name in ["UserAgentTests", "DeviceAPIAuthenticationTests"]:
    for literal in swift_strings(read(f"Tests/TandemAPITests/{name}.swift")):
        if re.search(r"(?i)android|ios|iphone|ipad|windows|phone|_[A-Z]{2}\b", literal):
            put("user_agent", literal)

# Kannel DLR: the tests' queries.
for literal in swift_strings(read("Tests/TandemAPITests/KannelDLRTests.swift")):
    literal = literal.replace("\\(type)", "1").replace("\\(reply)", "id%3A1+stat%3ADELIVRD")
    if ("ref=" in literal or "type=" in literal) and "\\(" not in literal:
        put("kannel_dlr", literal.split("?", 1)[-1])
put("kannel_dlr", "ref=0123456789abcdef&type=1&reply=id%3A1+stat%3ADELIVRD+err%3A000&token=s3cret&time=1790000000&to=%2B31612345678")

# myMSP: one request per method as the DPN spec lists its parameters (its example values: "dpnuser", recipient ids
# 2000001/90001, "2000001, 2000002, recipgroupA", "Msg A"), as a query and as a form body would carry them, plus the
# black-box test's requests written with literal values.
mymsp_requests = [
    [("user", "dpnuser"), ("message", "Msg A"), ("spid", "apns"), ("key", "a1b2c3d4e5f6" * 5 + "a1b2")],
    [("user", "dpnuser"), ("message", "Msg B"), ("recipientid", "2000001"), ("spid", "gcm"), ("key", "APA91bH-registration_id:x")],
    [("user", "dpnuser"), ("recipientid", "2000001"), ("spid", "fcm"), ("key", "fcm-token:APA91b")],
    [("user", "dpnuser"), ("message", "bye"), ("recipientid", "90001"), ("spid", "apns")],
    [("user", "dpnuser"), ("recipientid", "2000001"), ("lastmsgno", "0"), ("sentafter", "20120101151600000")],
    [("user", "dpnuser"), ("pwd", "secret"), ("message", "New content: fetch it"), ("recipients", "2000001, 2000002, recipgroupA"),
     ("delaywhileidle", "true"), ("collapsekey", "news"), ("timetolive", "2419200"), ("restrictedpackagename", "se.example.app")],
    [("user", "dpnuser"), ("pwd", "secret"), ("lastMsgId", "12556"), ("clean", "true")],
    [("USER", "dpnuser"), ("Pwd", "secret"), ("message", "two\r\nlines\tand tab"), ("recipients", " 2000001 ,,all ")],
]
for pairs in mymsp_requests:
    put("mymsp", url_encode_pairs(pairs))
    put("mymsp", "&".join(n + "=" + urllib.parse.quote_plus(v) for n, v in pairs))
for call in re.findall(r'(?:accepted|refused|call)\(server, "\w+",(?: verb="\w+",)?((?:\s*\w+="[^"]*",?)+)\s*\)',
                       read("Tests/integration/test_mymsp.py")):
    put("mymsp", url_encode_pairs(re.findall(r'(\w+)="([^"]*)"', call)))

# SMPP: the codec tests' PDUs (hex), plus a stream of several PDUs.
smpp = read("Tests/TandemProvidersTests/SMPPCodecTests.swift") + read("Tests/TandemProvidersTests/SMPPReceiptTests.swift")
pdus = []
for literal in swift_strings(smpp):
    compact = re.sub(r"\s+", "", literal)
    if re.fullmatch(r"(?:[0-9A-Fa-f]{2}){16,}", compact):
        data = bytes.fromhex(compact)
        if int.from_bytes(data[:4], "big") == len(data):
            pdus.append(data)
            put("smpp_pdu", data)
if pdus:
    put("smpp_pdu", b"".join(pdus))


def deliver_sm(text, tlvs=b"", data_coding=0, sequence=7):
    body = (b"\x00" + b"\x01\x01" + b"31612345678\x00" + b"\x05\x00" + b"Acme\x00" + b"\x04\x00\x00" + b"\x00" + b"\x00"
            + b"\x00" + b"\x00" + bytes([data_coding]) + b"\x00" + bytes([len(text)]) + text + tlvs)
    return (16 + len(body)).to_bytes(4, "big") + b"\x00\x00\x00\x05" + b"\x00" * 4 + sequence.to_bytes(4, "big") + body


for literal in swift_strings(smpp):
    if literal.lower().startswith("id:"):
        put("smpp_pdu", deliver_sm(literal.encode("latin-1", "replace")[:254]))
put("smpp_pdu", deliver_sm(b"", tlvs=b"\x04\x24\x00\x1fid:77 stat:EXPIRED err:000 text:x" + b"\x00\x1e\x00\x03A1\x00"))
put("smpp_pdu", deliver_sm("id:1 stat:DELIVRD".encode("utf-16-be"), data_coding=8))

# Configuration and policies: the shipped files, the integration tests' policies, the suites' JSON.
for path in sorted((root / "Config").glob("*.json")):
    put("configuration", path.read_bytes())
for name in ["ConfigurationTests", "ProviderConfigurationTests", "SimulatorConfigurationTests", "AppPushCredentialsTests"]:
    for literal in swift_strings(read(f"Tests/TandemCoreTests/{name}.swift")):
        if literal.lstrip().startswith("{") and len(literal) > 8:
            put("configuration", literal)
for path in sorted((root / "Policies").glob("*.json")) + sorted((root / "Tests/integration/policies").glob("*.json")):
    put("policy", path.read_bytes())
for literal in swift_strings(read("Tests/TandemCoreTests/PolicyTests.swift")):
    if literal.lstrip().startswith("{") and len(literal) > 8:
        put("policy", literal)

# SCG and BWMI: the codec and service tests' JSON bodies (interpolations of a test token made concrete).
token = "d" * 64
for harness, names in (("scg", ["SCGCodecTests", "SCGMessagingServiceTests"]), ("bwmi", ["BWMICodecTests", "BWMIServiceTests"])):
    for name in names:
        for literal in swift_strings(read(f"Tests/TandemAPITests/{name}.swift")):
            literal = re.sub(r"\\#?\((?:Self\.)?token\)", token, literal)
            if literal.lstrip().startswith("{") and "\\(" not in literal:
                put(harness, literal)
put("scg", '{"from":"sender_id:Shop","to":["+31612345678","psh:apn@app@' + token + '"],"body":"Your code is 1234",'
           '"options":{"push:badge":3,"push:sound":"default","push:soundx:critical":true,"push:alert:loc-arg:1":"a",'
           '"push:appdata:n:seats:1":9.0,"push:appdata:o:address":"{\\"zip\\":\\"1\\"}"},"external_id":"x","expiry_time":"2030-01-01T00:00:00Z"}')
put("scg", '{"state":"CANCELED"}')
put("bwmi", '{"deviceId":"' + token + '","type":"IOS","user":{"phone":"+19883999901","email":"a@example.com"}}')
put("bwmi", '{"nid":"42","did":"' + token + '","bid":"b1"}')
put("bwmi", '{"to":[{"deviceId":"' + token + '"},{"phone":"+31612345678"},{"email":"a@example.com"}],"text":"Hi","bid":"b",'
            '"faf":false,"badge":2,"sound":"default","options":{"messageType":"Critical"}}')

for directory in sorted(corpus.iterdir()):
    print(f"{directory.name}: {len(list(directory.iterdir()))} files")
