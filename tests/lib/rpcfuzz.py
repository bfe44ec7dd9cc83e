#!/usr/bin/env python3
"""Send hostile Sun RPC traffic to a daemon: garbage bytes, truncated
records, absurd record lengths, and well-formed call headers for every
procedure with random argument bodies.  Bounded in count and time; the
test then checks the daemon still answers.

With -u, the same as UDP datagrams (no record marking), plus datagrams
as big as UDP allows and replies where calls are expected.

usage: rpcfuzz.py [-u] HOST PORT PROGRAM [ROUNDS] [SEED]
"""
import random
import socket
import struct
import sys
import time


def record(payload, last=True):
    n = len(payload) | (0x80000000 if last else 0)
    return struct.pack(">I", n) + payload


def call_header(xid, prog, vers, proc):
    # xid, CALL, rpcvers 2, prog, vers, proc, AUTH_NONE cred and verf
    return struct.pack(">IIIIIIIIII", xid, 0, 2, prog, vers, proc,
                       0, 0, 0, 0)


def send(host, port, data, wait=0.05, udp=False):
    """Send DATA over a new connection (or as one datagram), read what
    comes back within WAIT seconds, and forget it."""
    try:
        if udp:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(data, (host, port))
        else:
            s = socket.create_connection((host, port), timeout=2)
            s.sendall(data)
        s.settimeout(wait)
        try:
            s.recv(65536)
        except OSError:
            pass
        s.close()
    except OSError:
        pass


def hostile(i, prog, rng, udp):
    """The I-th hostile request: over TCP a record, over UDP a datagram."""
    kind = i % 6
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    if kind == 1:
        if udp:
            # as big as a datagram gets
            return call_header(i, prog, 1, 1) + bytes(
                rng.randrange(256) for _ in range(rng.randrange(9000, 65000)))
        # a record that claims to be huge and never arrives
        return struct.pack(">I", 0xfffffff0) + b"\0" * 16
    if kind == 2:
        if not udp:
            # half a call: the daemon must not wait for the rest
            return record(call_header(i, prog, 1, 1))[:20]
        # a reply (msg_type 1) where a call belongs, or half a header
        if rng.randrange(2):
            return call_header(i, prog, 1, 1)[:rng.randrange(1, 40)]
        return struct.pack(">IIIIII", i, 1, 0, 0, 0, 0)
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400)))
    if kind == 4:
        # plausible XDR: counts and lengths that lie
        body = struct.pack(">III", rng.choice([0, 1, 0xffffffff, 0x7fffffff]),
                           rng.randrange(1 << 32), rng.randrange(1 << 32)) + body
    call = call_header(i, prog, rng.choice([1, 1, 2]), rng.randrange(0, 14)) + body
    return call if udp else record(call)


def main():
    args = sys.argv[1:]
    udp = bool(args) and args[0] == "-u"
    if udp:
        args = args[1:]
    host, port, prog = args[0], int(args[1]), int(args[2], 0)
    rounds = int(args[3]) if len(args) > 3 else 300
    rng = random.Random(int(args[4]) if len(args) > 4 else 1)
    deadline = time.time() + 60
    for i in range(rounds):
        if time.time() > deadline:
            break
        send(host, port, hostile(i, prog, rng, udp), 0.02 if udp else 0.05, udp)
    print("sent", rounds, "hostile", "datagrams" if udp else "requests")


if __name__ == "__main__":
    main()
