#!/usr/bin/env python3
"""Python `email` peer for scripts/bench: parse every message file and decode every text part
(policy.default, get_content()), the same work as `reservoir-bench parse`.
Prints: python-email MESSAGES BYTES SECONDS MSGS/S MB/S CHECKSUM"""
import sys, time
from email import policy
from email.parser import BytesParser

parser = BytesParser(policy=policy.default)
messages = size = checksum = 0
t0 = time.perf_counter()
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        raw = f.read()
    messages += 1
    size += len(raw)
    try:
        m = parser.parsebytes(raw)
        checksum += len(str(m["subject"] or ""))
        for part in m.walk():
            if part.get_content_maintype() == "text":
                try:
                    checksum += len(part.get_content())
                except (LookupError, ValueError, AssertionError):
                    pass
    except Exception:  # a peer that raises on a message still counts its time
        pass
s = time.perf_counter() - t0
print("python-email %d %d %.3f %.0f %.1f %d" % (messages, size, s, messages / s, size / 1e6 / s, checksum))
