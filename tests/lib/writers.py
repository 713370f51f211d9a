#!/usr/bin/env python3
"""writers.py: concurrent clients creating ConfigMaps through several API servers, for
tests/e2e/test-durability.sh. Loopback only, bounded in count and time.

Each of --clients threads keeps one keep-alive HTTPS connection to one of --servers (client i
starts on server i mod n) and creates ConfigMaps named w<i>-<seq> in --namespace until
--seconds have passed. A 201 is an acknowledged write: its name, data and the time it was
acknowledged (seconds since the epoch) go to --out as one line "TIME NAME VALUE". Any other
answer or a connection error is not acknowledged; on a connection error or a 5xx the client
moves to the next server (as client-go's failover would), after a short pause. At the end it
prints one line "DONE {json}" with the counts and the first answer of each failing kind.
"""
import argparse
import http.client
import json
import ssl
import sys
import threading
import time
import urllib.parse


def writer(index, args, servers, ctx, lock, out, counts):
    current = index % len(servers)
    conn = None
    seq = 0
    deadline = time.time() + args.seconds
    while time.time() < deadline:
        host, port = servers[current]
        if conn is None:
            conn = http.client.HTTPSConnection(host, port, context=ctx, timeout=10)
        name = "w%d-%d" % (index, seq)
        value = "%d-%d-%d" % (index, seq, current)
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": name}, "data": {"v": value}})
        try:
            conn.request("POST", "/api/v1/namespaces/%s/configmaps" % args.namespace, body,
                         {"Authorization": "Bearer " + args.token,
                          "Content-Type": "application/json",
                          "Accept": "application/json"})
            resp = conn.getresponse()
            answer = resp.read()[:300].decode("utf-8", "replace")
            status = resp.status
        except (OSError, http.client.HTTPException) as e:
            answer = str(e)
            status = 0
        at = time.time()
        with lock:
            if status == 201:
                out.write("%.3f %s %s\n" % (at, name, value))
                counts["acknowledged"] += 1
            else:
                counts["failed"] += 1
                counts["statuses"][str(status)] = counts["statuses"].get(str(status), 0) + 1
                counts["first"].setdefault(str(status), answer)
        if status == 201 or status == 409:
            seq += 1
            continue
        if status == 0 or status >= 500:
            if conn is not None:
                conn.close()
            conn = None
            current = (current + 1) % len(servers)
            time.sleep(0.1)
        else:
            seq += 1
    if conn is not None:
        conn.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--servers", required=True, help="https://host:port,...")
    p.add_argument("--ca", required=True)
    p.add_argument("--token-file", required=True)
    p.add_argument("--namespace", default="default")
    p.add_argument("--clients", type=int, default=64)
    p.add_argument("--seconds", type=float, default=15)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    if not 1 <= args.clients <= 256 or not 0 < args.seconds <= 120:
        sys.exit("writers.py: --clients 1..256 and --seconds up to 120")
    with open(args.token_file) as f:
        args.token = f.read().strip()
    servers = []
    for url in args.servers.split(","):
        u = urllib.parse.urlsplit(url)
        if u.scheme != "https" or u.hostname not in ("127.0.0.1", "localhost", "::1"):
            sys.exit("writers.py: loopback https servers only: %s" % url)
        servers.append((u.hostname, u.port))
    ctx = ssl.create_default_context(cafile=args.ca)
    ctx.check_hostname = False
    lock = threading.Lock()
    counts = {"acknowledged": 0, "failed": 0, "statuses": {}, "first": {}}
    with open(args.out, "w") as out:
        threads = [threading.Thread(target=writer, args=(i, args, servers, ctx, lock, out, counts))
                   for i in range(args.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    print("DONE " + json.dumps(counts), flush=True)


if __name__ == "__main__":
    main()
