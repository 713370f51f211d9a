#!/usr/bin/env python3
"""flood.py: a connection flood and a slowloris against an HTTPS server, from one loopback
address, for tests/api/test-flood.sh. Loopback only, bounded in count and time.

From --source (e.g. 127.0.0.2) it opens --slowloris TLS connections that complete their
handshake and then send a request head one byte per second, never finishing it, then --idle
plain TCP connections that never send a byte (the quick ones last, so that both kinds are held
together even when the handshakes are slow). It prints one line "READY {json}" when they are all
open (how many the server kept), then opens --extra more idle connections (past a per-address
limit the server should close them at once: a close within --refused-within seconds counts as a
refusal) and keeps trickling. It watches every connection
for the server closing it and, once all are closed or --max-seconds passed, prints
"DONE {json}" with how many each kind had closed and how long after its start (the accept for
idle ones, the end of the handshake for slowloris ones) the server closed them.
"""
import argparse
import json
import selectors
import socket
import ssl
import sys
import time

HEAD = (b"GET /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: flood\r\n"
        b"User-Agent: slowloris\r\nAccept: application/json\r\nX-Pad: " + b"a" * 4096)


class Conn:
    def __init__(self, kind, sock, start):
        self.kind = kind
        self.sock = sock
        self.start = start
        self.closed_after = None
        self.sent = 0


def open_plain(args):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((args.source, 0))
    s.settimeout(5)
    s.connect((args.host, args.port))
    s.setblocking(False)
    return s


def open_tls(args, ctx):
    s = open_plain(args)
    s.setblocking(True)
    s.settimeout(5)
    t = ctx.wrap_socket(s, server_hostname=args.host)
    t.setblocking(False)
    return t


def closed_by_server(c):
    """True when the peer closed (EOF, reset, TLS alert); reads and drops anything else."""
    try:
        while True:
            data = c.sock.recv(65536)
            if not data:
                return True
    except (ssl.SSLWantReadError, ssl.SSLWantWriteError, BlockingIOError):
        return False
    except (OSError, ssl.SSLError):
        return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--source", default="127.0.0.2")
    ap.add_argument("--idle", type=int, default=2000)
    ap.add_argument("--slowloris", type=int, default=1000)
    ap.add_argument("--extra", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=60)
    ap.add_argument("--refused-within", type=float, default=5,
                    help="a close this soon after the connect counts as a refusal")
    args = ap.parse_args()

    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    t0 = time.monotonic()
    sel = selectors.DefaultSelector()
    conns = []
    failed = {"idle": 0, "slowloris": 0, "extra": 0}

    def add(kind, sock):
        c = Conn(kind, sock, time.monotonic())
        conns.append(c)
        sel.register(sock, selectors.EVENT_READ, c)

    def poll(timeout):
        for key, _ in sel.select(timeout):
            c = key.data
            if closed_by_server(c):
                c.closed_after = time.monotonic() - c.start
                sel.unregister(c.sock)
                c.sock.close()

    for i in range(args.slowloris):
        try:
            add("slowloris", open_tls(args, ctx))
        except (OSError, ssl.SSLError):
            failed["slowloris"] += 1
        if i % 50 == 0:
            poll(0)  # closes are timed as they come, not when the handshakes are over
    for _ in range(args.idle):
        try:
            add("idle", open_plain(args))
        except OSError:
            failed["idle"] += 1

    poll(0.2)
    held = {k: sum(1 for c in conns if c.kind == k and c.closed_after is None)
            for k in ("idle", "slowloris")}
    print("READY " + json.dumps({"held": held, "failed": failed,
                                 "seconds": round(time.monotonic() - t0, 2)}), flush=True)

    for _ in range(args.extra):
        try:
            add("extra", open_plain(args))
        except OSError:
            failed["extra"] += 1

    deadline = t0 + args.max_seconds
    next_byte = time.monotonic()
    while time.monotonic() < deadline and any(c.closed_after is None for c in conns):
        now = time.monotonic()
        if now >= next_byte:
            for c in conns:
                if c.kind == "slowloris" and c.closed_after is None and c.sent < len(HEAD):
                    try:
                        c.sock.send(HEAD[c.sent:c.sent + 1])
                        c.sent += 1
                    except (ssl.SSLWantWriteError, BlockingIOError):
                        pass
                    except (OSError, ssl.SSLError):
                        pass  # closed: the selector reports it
            next_byte = now + 1.0
        poll(max(0.0, min(next_byte, deadline) - time.monotonic()))

    report = {"failed": failed}
    for kind in ("idle", "slowloris", "extra"):
        mine = [c for c in conns if c.kind == kind]
        done = [c.closed_after for c in mine if c.closed_after is not None]
        report[kind] = {
            "opened": len(mine),
            "closed": len(done),
            "refused": sum(1 for d in done if d <= args.refused_within),
            "min_s": round(min(done), 2) if done else None,
            "max_s": round(max(done), 2) if done else None,
            "max_bytes_sent": max((c.sent for c in mine), default=0),
        }
    report["seconds"] = round(time.monotonic() - t0, 2)
    print("DONE " + json.dumps(report), flush=True)
    for c in conns:
        if c.closed_after is None:
            c.sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
