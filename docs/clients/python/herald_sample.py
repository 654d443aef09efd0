#!/usr/bin/env python3
"""Herald from Python with the standard library only: sends a batch of SMS, sends a cascade, reads a message's
status and verifies a callback's signature. See README.md for the environment it reads."""

import hashlib
import hmac
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid

HERALD_URL = os.environ.get("HERALD_URL", "").rstrip("/")
HERALD_TOKEN = os.environ.get("HERALD_TOKEN", "")
SENDER = os.environ.get("HERALD_SENDER", "Herald")
DESTINATION = os.environ.get("HERALD_DESTINATION", "79161234567")
CALLBACK_URL = os.environ.get("HERALD_CALLBACK_URL")

# The spec's recommended client timeout for sending: at least 70 seconds.
TIMEOUT_S = 70
ATTEMPTS = 3


class HeraldError(Exception):
    """A request Herald refused: the HTTP status and Herald's error body {"error": {"code", "msg"}}."""

    def __init__(self, status, body):
        error = body.get("error", {}) if isinstance(body, dict) else {}
        self.status, self.code, self.msg = status, error.get("code"), error.get("msg", f"HTTP {status}")
        super().__init__(f"{status} {self.code} {self.msg}")


def herald(method, path, body=None, idempotency_key=None):
    """One call of Herald's API. Only a GET or a request with an Idempotency-Key is tried again (on no answer, 5xx
    or 429, never sooner than Retry-After): Herald answers a repeated key with the first answer and stores nothing
    twice. A POST without a key is sent once."""
    # Basic with the whole token: a token is already base64("<keyId>:<secret>").
    headers = {"Authorization": f"Basic {HERALD_TOKEN}", "Accept": "application/json"}
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    attempts = ATTEMPTS if method == "GET" or idempotency_key else 1
    for attempt in range(1, attempts + 1):
        request = urllib.request.Request(HERALD_URL + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                raw = response.read()
                return json.loads(raw) if raw else None
        except urllib.error.HTTPError as refused:
            raw = refused.read()
            try:
                error = HeraldError(refused.code, json.loads(raw))
            except ValueError:
                error = HeraldError(refused.code, None)
            retry_after = refused.headers.get("Retry-After")
            if attempt == attempts or not (refused.code >= 500 or refused.code == 429):
                raise error from None
            time.sleep(max(int(retry_after) if retry_after and retry_after.isdigit() else 0, 2 ** (attempt - 1)))
        except (urllib.error.URLError, TimeoutError, ConnectionError):
            if attempt == attempts:
                raise
            time.sleep(2 ** (attempt - 1))
    raise AssertionError("unreachable")


def verify_signature(secret, raw_body, header, now=None, tolerance_s=300):
    """Whether a callback is Herald's: X-Herald-Signature is t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
    t + "." + raw body)>, no older than tolerance_s. raw_body is the body as received (bytes), before any parsing."""
    parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        signed_at = int(parts["t"])
        given = bytes.fromhex(parts["v1"])
    except (KeyError, ValueError):
        return False
    if abs((time.time() if now is None else now) - signed_at) > tolerance_s:
        return False
    expected = hmac.new(secret.encode(), f"{signed_at}.".encode() + raw_body, hashlib.sha256).digest()
    return hmac.compare_digest(given, expected)


def main():
    if not HERALD_URL or not HERALD_TOKEN:
        print("Set HERALD_URL (https://herald.example.com) and HERALD_TOKEN (an API token, TOKEN_1)", file=sys.stderr)
        return 64
    callback = {"callbackUrl": CALLBACK_URL, "callbackEvents": ["sent", "delivered"]} if CALLBACK_URL else {}

    # 1. A batch of SMS (1 to 1000 messages in one request), with an Idempotency-Key so that it can be retried.
    batch = [
        {"channelType": "SMS", "senderName": SENDER, "destination": DESTINATION, "content": text, **callback}
        for text in ("Your code: 4321", "Your order 1024 has shipped")
    ]
    sent = herald("POST", "/api/v1/message", batch, idempotency_key=str(uuid.uuid4()))
    for item in sent["items"]:
        if "messageUuid" not in item:  # refused inside an accepted batch: errors is true
            print(f"refused: {item['code']} {item.get('msg', '')}")
    uuids = [item["messageUuid"] for item in sent["items"] if "messageUuid" in item]
    print("batch:", " ".join(uuids))

    # 2. A cascade: VK first, SMS when VK does not deliver.
    cascade = [
        {
            "destination": DESTINATION,
            "cascade": [
                {"channelType": "VK", "senderName": "club1", "content": "Your code: 4711", "condition": "not_delivered"},
                {"channelType": "SMS", "senderName": SENDER, "content": "Your code: 4711"},
            ],
            **callback,
        }
    ]
    root = herald("POST", "/api/v1/message/cascade", cascade, idempotency_key=str(uuid.uuid4()))["items"][0]
    print("cascade:", root.get("messageUuid") or f"refused: {root['code']} {root.get('msg', '')}")

    # 3. A message's status.
    if uuids:
        message = herald("GET", f"/api/v1/message/{uuids[0]}")
        print(f"status {message['messageUuid']}: {message['status']}")

    # 4. A callback's signature, as a receiver checks each POST before trusting it.
    secret = os.environ.get("HERALD_CALLBACK_SECRET")
    body_file = os.environ.get("HERALD_CALLBACK_BODY_FILE")
    signature = os.environ.get("HERALD_CALLBACK_SIGNATURE")
    if not (secret and body_file and signature):
        print("callback signature: skipped (HERALD_CALLBACK_SECRET, HERALD_CALLBACK_BODY_FILE, HERALD_CALLBACK_SIGNATURE)")
        return 0
    with open(body_file, "rb") as f:
        raw_body = f.read()
    valid = verify_signature(secret, raw_body, signature)
    print("callback signature:", "valid" if valid else "INVALID")
    for event in json.loads(raw_body) if valid else []:
        print(f"callback event: {event['message_uuid']} {event['callback_event']} {event.get('status', '')}")
    return 0 if valid else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except HeraldError as error:
        print(f"Herald refused: {error}", file=sys.stderr)
        sys.exit(2)
    except (urllib.error.URLError, OSError) as error:
        print(f"No answer from Herald: {error}", file=sys.stderr)
        sys.exit(3)
