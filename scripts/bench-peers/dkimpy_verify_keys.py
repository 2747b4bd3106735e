#!/usr/bin/python3
"""dkimpy peer for scripts/bench: verify every DKIM-Signature of every file, keys from a
zone-file subset (the same file `reservoir --keys` reads), answers cached.
Prints: dkimpy MESSAGES BYTES SECONDS MSGS/S MB/S PASSED"""
import sys, time
import dkim

keys = {}
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if line and line[0] not in ";#" and " TXT " in line:
        name, rest = line.split(" TXT ", 1)
        keys[name.strip().rstrip(".") + "."] = "".join(rest.split('"')[1::2]).encode()
dnsfunc = lambda name, timeout=5: keys.get(name.decode() if isinstance(name, bytes) else name)

messages = size = passed = 0
t0 = time.perf_counter()
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        raw = f.read()
    messages += 1
    size += len(raw)
    d = dkim.DKIM(raw)
    count = sum(1 for name, _ in d.headers if name.lower() == b"dkim-signature")
    for index in range(count):
        try:
            passed += bool(d.verify(idx=index, dnsfunc=dnsfunc))
        except dkim.DKIMException:
            pass
s = time.perf_counter() - t0
print("dkimpy %d %d %.3f %.0f %.1f %d" % (messages, size, s, messages / s, size / 1e6 / s, passed))
