#!/usr/bin/env python3
"""Send the collector one machine ad as a COLLECTOR_UPDATE datagram, as a
startd does, or call another procedure over UDP and print the
accept_stat of the reply (0 SUCCESS, 1 PROG_UNAVAIL, 3 PROC_UNAVAIL,
4 GARBAGE_ARGS; "none" if nothing came back within 5 s).  With -k
KEYFILE the datagram is signed with the pool key, as a daemon signs it
(see rpccall.py); without, it goes unauthenticated.

usage: udpupdate.py [-s SOURCE_IP] [-p PROC] [-k KEYFILE] HOST PORT
                    'Name = "x"' ...
"""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rpccall import signed_call  # noqa: E402

PROG_COLLECTOR = 0x2c0d0001
ADTYPE_STARTD = 1


def xdr_string(s):
    b = s.encode()
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)


def main():
    args = sys.argv[1:]
    source, proc, key = None, 1, None
    while args and args[0] in ("-s", "-p", "-k"):
        if args[0] == "-s":
            source = args[1]
        elif args[0] == "-k":
            key = args[1]
        else:
            proc = int(args[1])
        args = args[2:]
    host, port, attrs = args[0], int(args[1]), args[2:]
    body = struct.pack(">II", ADTYPE_STARTD, len(attrs))
    for a in attrs:
        name, text = (x.strip() for x in a.split("=", 1))
        body += xdr_string(name) + xdr_string(text)
    if key:
        msg = signed_call(0x5eed, PROG_COLLECTOR, 1, proc, body, {"k": key})
    else:
        # xid, CALL, RPC version 2, program, version 1, procedure, no auth
        msg = struct.pack(">IIIIIIIIII", 0x5eed, 0, 2, PROG_COLLECTOR, 1,
                          proc, 0, 0, 0, 0) + body
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if source:
        s.bind((source, 0))
    s.sendto(msg, (host, port))
    if proc == 1:
        return
    s.settimeout(5)
    try:
        reply = s.recv(65536)
    except OSError:
        print("none")
        return
    # xid, REPLY, MSG_ACCEPTED, verifier (flavor, length 0), accept_stat
    print(struct.unpack(">I", reply[20:24])[0] if len(reply) >= 24 else "short")


if __name__ == "__main__":
    main()
