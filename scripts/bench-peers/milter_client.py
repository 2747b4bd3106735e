#!/usr/bin/env python3
"""A milter client: plays the MTA's side of the Sendmail milter protocol (version 6, as libmilter
speaks it) against any milter on inet:PORT@HOST, with N concurrent connections.

usage: milter_client.py --socket inet:PORT@127.0.0.1 [--connections N] JOBS.tsv

JOBS.tsv holds one message a line: `FILE<TAB>SENDER<TAB>RECIPIENT[,RECIPIENT...]`, optionally
`<TAB>CONNECTION` (0 to N-1). Without it the jobs are dealt to the connections in turn (job i to
connection i mod N). Each connection sends its jobs in their order in the file. For each message it prints `ms<TAB>FILE<TAB>RECIPIENTS<TAB>REPLY<TAB>FIELDS`: the
time from the message's first packet to the milter's end-of-message reply, that reply's command
byte, and the header changes asked for (name: value, `|`-separated). A last line `total
SECONDS MESSAGES` is the wall time of the whole run.

Packets (libmilter's mfdef.h): a 4-byte big-endian length, the command byte, its data.
"""
import argparse, socket, struct, sys, threading, time

SMFI_VERSION = 6
SMFIC_ABORT, SMFIC_BODY, SMFIC_CONNECT, SMFIC_MACRO = b"A", b"B", b"C", b"D"
SMFIC_BODYEOB, SMFIC_HELO, SMFIC_HEADER, SMFIC_MAIL = b"E", b"H", b"L", b"M"
SMFIC_EOH, SMFIC_OPTNEG, SMFIC_QUIT, SMFIC_RCPT = b"N", b"O", b"Q", b"R"
SMFIR_ACCEPT, SMFIR_CONTINUE, SMFIR_PROGRESS, SMFIR_SKIP = b"a", b"c", b"p", b"s"
FINAL = set(b"acdrty")  # accept, continue, discard, reject, tempfail, reply code
SMFI_CURR_ACTS = 0x000001FF
SMFIP_NOCONNECT, SMFIP_NOHELO, SMFIP_NOMAIL, SMFIP_NORCPT = 0x1, 0x2, 0x4, 0x8
SMFIP_NOBODY, SMFIP_NOHDRS, SMFIP_NOEOH, SMFIP_NR_HDR = 0x10, 0x20, 0x40, 0x80
SMFIP_SKIP = 0x400
SMFIP_NR_CONN, SMFIP_NR_HELO, SMFIP_NR_MAIL, SMFIP_NR_RCPT = 0x1000, 0x2000, 0x4000, 0x8000
SMFIP_NR_EOH, SMFIP_NR_BODY = 0x40000, 0x80000
# Everything an MTA may offer but the data-size flags (we send chunks of at most 64 KB).
OFFERED = 0x001FFFFF
MAX_CHUNK = 65535


class Milter:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""
        self.send(SMFIC_OPTNEG, struct.pack(">III", SMFI_VERSION, SMFI_CURR_ACTS, OFFERED))
        cmd, data = self.read()
        if cmd != SMFIC_OPTNEG or len(data) < 12:
            raise RuntimeError(f"option negotiation refused: {cmd!r}")
        _, self.actions, self.protocol = struct.unpack(">III", data[:12])

    def send(self, cmd, data=b""):
        self.sock.sendall(struct.pack(">I", len(data) + 1) + cmd + data)

    def _exact(self, n):
        while len(self.buf) < n:
            # A milter writes the changes it asks for and its final reply as separate packets;
            # acknowledging at once keeps Nagle's algorithm on its side from holding the reply
            # for a delayed ACK (40 ms on Linux), which would time the TCP stack, not the milter.
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("the milter closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read(self):
        (n,) = struct.unpack(">I", self._exact(4))
        packet = self._exact(n)
        return packet[:1], packet[1:]

    def reply(self):
        """The next reply that is not `progress`."""
        while True:
            cmd, data = self.read()
            if cmd != SMFIR_PROGRESS:
                return cmd, data

    def step(self, cmd, data, skip_flag, no_reply_flag):
        """Sends one step unless the milter asked not to get it; returns its reply (b"c" when none is due)."""
        if self.protocol & skip_flag:
            return SMFIR_CONTINUE
        self.send(cmd, data)
        if self.protocol & no_reply_flag:
            return SMFIR_CONTINUE
        return self.reply()[0]

    def connect(self, client="client.example", address="192.0.2.25"):
        r = self.step(SMFIC_CONNECT, client.encode() + b"\0" + b"4" + struct.pack(">H", 25) + address.encode() + b"\0",
                      SMFIP_NOCONNECT, SMFIP_NR_CONN)
        self.step(SMFIC_HELO, client.encode() + b"\0", SMFIP_NOHELO, SMFIP_NR_HELO)
        return r

    def message(self, raw, sender, recipients, queue_id):
        """One message; returns (final reply byte, [(change, name, value)])."""
        self.send(SMFIC_MACRO, SMFIC_MAIL + b"i\0" + queue_id.encode() + b"\0")
        r = self.step(SMFIC_MAIL, b"<" + sender.encode() + b">\0", SMFIP_NOMAIL, SMFIP_NR_MAIL)
        if r == SMFIR_ACCEPT:
            return "a", []
        for rcpt in recipients:
            self.step(SMFIC_RCPT, b"<" + rcpt.encode() + b">\0", SMFIP_NORCPT, SMFIP_NR_RCPT)
        header, body = split(raw)
        for name, value in header:
            r = self.step(SMFIC_HEADER, name + b"\0" + value + b"\0", SMFIP_NOHDRS, SMFIP_NR_HDR)
            if r == SMFIR_ACCEPT:
                return "a", []
        r = self.step(SMFIC_EOH, b"", SMFIP_NOEOH, SMFIP_NR_EOH)
        if r == SMFIR_ACCEPT:
            return "a", []
        if not self.protocol & SMFIP_NOBODY:
            for i in range(0, len(body), MAX_CHUNK):
                r = self.step(SMFIC_BODY, body[i:i + MAX_CHUNK], 0, SMFIP_NR_BODY)
                if r in (SMFIR_ACCEPT, SMFIR_SKIP):
                    break
        self.send(SMFIC_BODYEOB)
        changes = []
        while True:
            cmd, data = self.reply()
            if cmd[0] in FINAL:
                return cmd.decode(), changes
            changes.append((cmd.decode(), data))

    def abort(self):
        self.send(SMFIC_ABORT)

    def quit(self):
        try:
            self.send(SMFIC_QUIT)
        finally:
            self.sock.close()


def split(raw):
    """The header fields (name, value with folds as LF, the leading space dropped, as Postfix
    passes them) and the body with CRLF line ends, as an MTA hands a message to a milter."""
    raw = raw.replace(b"\r\n", b"\n")
    head, sep, body = raw.partition(b"\n\n")
    if not sep:
        head, body = raw, b""
    fields = []
    for line in head.split(b"\n"):
        if line[:1] in (b" ", b"\t") and fields:
            fields[-1][1] += b"\n" + line
        elif b":" in line:
            name, value = line.split(b":", 1)
            fields.append([name, value[1:] if value[:1] == b" " else value])
    return [(n, v) for n, v in fields], body.replace(b"\n", b"\r\n")


def describe(changes):
    out = []
    for cmd, data in changes:
        if cmd in ("h", "i", "m"):
            if cmd in ("i", "m"):
                data = data[4:]  # index
            name, _, value = data.partition(b"\0")
            value = value.rstrip(b"\0").decode("utf-8", "replace").replace("\n", " ").replace("\t", " ")
            out.append(f"{cmd}:{name.decode()}: {value}")
        else:
            out.append(cmd)
    return "|".join(out)


def worker(host, port, jobs, results, errors, index):
    try:
        m = Milter(host, port)
        m.connect()
        for n, (path, sender, rcpts) in enumerate(jobs):
            with open(path, "rb") as f:
                raw = f.read()
            start = time.perf_counter()
            reply, changes = m.message(raw, sender, rcpts, f"Q{index:02d}{n:06d}")
            results.append(((time.perf_counter() - start) * 1000, path, ",".join(rcpts), reply, describe(changes)))
            m.abort()
        m.quit()
    except Exception as e:  # reported, counted as lost messages
        errors.append(f"connection {index}: {e}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--socket", required=True, help="inet:PORT@HOST")
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("jobs")
    args = p.parse_args()
    kind, _, rest = args.socket.partition(":")
    if kind != "inet":
        sys.exit("milter_client: only inet:PORT@HOST")
    port, _, host = rest.partition("@")
    jobs = []
    with open(args.jobs) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                connection = (int(parts[3]) if len(parts) > 3 else len(jobs)) % args.connections
                jobs.append((connection, (parts[0], parts[1], parts[2].split(","))))
    shares = [[job for k, job in jobs if k == i] for i in range(args.connections)]
    results, errors = [], []
    threads = [threading.Thread(target=worker, args=(host or "127.0.0.1", int(port), share, results, errors, i))
               for i, share in enumerate(shares)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    for r in results:
        print(f"{r[0]:.3f}\t{r[1]}\t{r[2]}\t{r[3]}\t{r[4]}")
    print(f"total\t{wall:.3f}\t{len(results)}")
    for e in errors:
        print("milter_client: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
