"""Sends COUNT Default pushes (allowedChannels Push) to +316 numbers FIRST..FIRST+COUNT-1, 1,000 recipients per
CM request, from 2 senders; every request must be answered 200. Used by the memory and recovery benchmarks.
Usage: python3 bench-send-pushes.py URL PRODUCT_TOKEN APP_KEY FIRST COUNT [REFERENCE]"""
import http.client
import json
import sys
import threading
import urllib.parse

url, token, key, first, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
reference = sys.argv[6] if len(sys.argv) > 6 else "memory"
host = urllib.parse.urlsplit(url)


def body(start):
    return json.dumps({"messages": {"authentication": {"producttoken": token}, "msg": [
        {"from": "Bench", "to": [{"number": "+316%08d" % i} for i in range(start, start + 1000)],
         "body": {"content": "Your parcel arrives tomorrow between 10:00 and 12:00"}, "appKey": key,
         "appMessageType": "Default", "allowedChannels": ["Push"], "reference": reference}]}})


starts = list(range(first, first + count, 1000))


def sender(mine):
    connection = http.client.HTTPConnection(host.hostname, host.port, timeout=120)
    for start in mine:
        connection.request("POST", "/v1.0/message", body(start), {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        assert response.status == 200, response.status


threads = [threading.Thread(target=sender, args=(starts[i::2],)) for i in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
