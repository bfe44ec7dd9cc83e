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


def send(host, port, data, wait=0.05):
    try:
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


def send_datagram(host, port, data, wait=0.02):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(data, (host, port))
        s.settimeout(wait)
        try:
            s.recv(65536)
        except OSError:
            pass
        s.close()
    except OSError:
        pass


def main_udp(host, port, prog, rounds, rng):
    deadline = time.time() + 60
    for i in range(rounds):
        if time.time() > deadline:
            break
        kind = i % 6
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        elif kind == 1:
            # as big as a datagram gets
            data = call_header(i, prog, 1, 1) + bytes(
                rng.randrange(256) for _ in range(rng.randrange(9000, 65000)))
        elif kind == 2:
            # a reply (msg_type 1) where a call belongs, or half a header
            data = struct.pack(">IIIIII", i, 1, 0, 0, 0, 0)
            if rng.randrange(2):
                data = call_header(i, prog, 1, 1)[:rng.randrange(1, 40)]
        else:
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400)))
            if kind == 4:
                body = struct.pack(">III", rng.choice([0, 1, 0xffffffff, 0x7fffffff]),
                                   rng.randrange(1 << 32), rng.randrange(1 << 32)) + body
            data = call_header(i, prog, rng.choice([1, 1, 2]),
                               rng.randrange(0, 12)) + body
        send_datagram(host, port, data)
    print("sent", rounds, "hostile datagrams")


def main():
    args = sys.argv[1:]
    udp = bool(args) and args[0] == "-u"
    if udp:
        args = args[1:]
    host, port, prog = args[0], int(args[1]), int(args[2], 0)
    rounds = int(args[3]) if len(args) > 3 else 300
    rng = random.Random(int(args[4]) if len(args) > 4 else 1)
    if udp:
        main_udp(host, port, prog, rounds, rng)
        return
    deadline = time.time() + 60
    for i in range(rounds):
        if time.time() > deadline:
            break
        kind = i % 6
        if kind == 0:
            data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
        elif kind == 1:
            # a record that claims to be huge and never arrives
            data = struct.pack(">I", 0xfffffff0) + b"\0" * 16
        elif kind == 2:
            # half a call: the daemon must not wait for the rest
            data = record(call_header(i, prog, 1, 1))[:20]
        else:
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 400)))
            if kind == 4:
                # plausible XDR: counts and lengths that lie
                body = struct.pack(">III", rng.choice([0, 1, 0xffffffff, 0x7fffffff]),
                                   rng.randrange(1 << 32), rng.randrange(1 << 32)) + body
            data = record(call_header(i, prog, rng.choice([1, 1, 2]),
                                      rng.randrange(0, 12)) + body)
        send(host, port, data)
    print("sent", rounds, "hostile requests")


if __name__ == "__main__":
    main()
