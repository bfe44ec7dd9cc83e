#!/usr/bin/env python3
"""Call one procedure of a daemon's Sun RPC program over TCP, optionally
from a chosen local address (127.0.0.2 is loopback too, but not
127.0.0.1), and print what came back: the accept_stat of the reply
(0 SUCCESS, 1 PROG_UNAVAIL, 3 PROC_UNAVAIL, 4 GARBAGE_ARGS), then,
when the call succeeded and its result opens with "int code" (as
status_x and every query result of the daemons do), that code, and the
message string that follows it (quoted, as Python writes a string),
and the number after that (the count of ads in a query reply).

Arguments are written one XDR item each: i:N (int), h:N (hyper),
s:TEXT (string).

A call refused before it ran (MSG_DENIED) prints "denied" and the
auth_stat (1 BADCRED, 2 REJECTEDCRED, 4 REJECTEDVERF, 5 TOOWEAK,
7 FAILED).

The call goes unauthenticated unless it is signed as condor(7)'s
AUTH_CONDOR credential says (src/common/auth.c): -k KEYFILE as the pool
("condor_pool"), -t TOKENFILE as the token's identity.  For attacks:
-m flips a bit of the MAC, -o SECONDS moves the call's time, -r sends
the very same signed call again on a new connection and prints both
outcomes, -i IDENTITY claims another identity than the key's or token's.
-g WORD adds "has WORD" or "lacks WORD" after the outcome: whether WORD
(an attribute's name, say) is anywhere in the reply's bytes.
"--then PROC ARG..." after the arguments makes a second call, of the
same program and version, on the same connection (a server that trusts
a connection once a call on it was accepted), unsigned; its outcome
follows the first's after " ; ".

HOST:PORT may be the path of a Unix-domain socket instead.

usage: rpccall.py [-s SOURCE_IP] [-k KEYFILE | -t TOKENFILE] [-m] [-r]
                  [-o SECONDS] [-i IDENTITY] [-g WORD] HOST:PORT PROGRAM VERSION PROC
                  [ARG...]
   e.g. rpccall.py -s 127.0.0.2 127.0.0.1:4000 0x2c0d0001 1 2 i:1 s: s:
"""
import hashlib
import hmac
import os
import socket
import struct
import sys
import time

AUTH_CONDOR = 0x2c0d
BY_POOL, BY_TOKEN = 2, 3


def xdr_string(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)


def credential(method, identity, issued=0, expiry=0, tid=b"\0" * 8,
               offset=0):
    return (struct.pack(">IIq", 1, method, int(time.time()) + offset) +
            os.urandom(16) + xdr_string(identity.encode()) +
            struct.pack(">qq", issued, expiry) + tid)


def signed_call(xid, prog, vers, proc, body, opts):
    """The call with an AUTH_CONDOR credential and its wrapped body."""
    if "k" in opts:
        key = bytes.fromhex(open(opts["k"]).read().split()[0])
        cred = credential(BY_POOL, opts.get("i", "condor_pool"),
                          offset=opts.get("o", 0))
    else:
        f = open(opts["t"]).read().split()
        ident, issued, expiry = f[1], int(f[2]), int(f[3])
        tid, key = bytes.fromhex(f[4]), bytes.fromhex(f[5])
        cred = credential(BY_TOKEN, opts.get("i", ident), issued, expiry,
                          tid, opts.get("o", 0))
    mac = hmac.new(key, b"condor-rpc-1\0" + cred +
                   struct.pack(">III", prog, vers, proc) + body,
                   hashlib.sha256).digest()
    if opts.get("m"):
        mac = bytes([mac[0] ^ 1]) + mac[1:]
    return (struct.pack(">IIIIII", xid, 0, 2, prog, vers, proc) +
            struct.pack(">I", AUTH_CONDOR) + xdr_string(cred) +
            struct.pack(">II", 0, 0) + xdr_string(body) + mac)


def xdr_arg(a):
    kind, _, val = a.partition(":")
    if kind == "i":
        return struct.pack(">i", int(val, 0))
    if kind == "h":
        return struct.pack(">q", int(val, 0))
    if kind == "s":
        b = val.encode()
        return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)
    raise SystemExit("bad argument " + a)


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def recv_record(s):
    data = b""
    while True:
        mark = struct.unpack(">I", recv_exact(s, 4))[0]
        data += recv_exact(s, mark & 0x7fffffff)
        if mark & 0x80000000:
            return data


def outcome(reply):
    # xid, REPLY, MSG_DENIED, AUTH_ERROR, auth_stat
    if len(reply) >= 20 and struct.unpack(">I", reply[8:12])[0] == 1:
        return "denied %d" % struct.unpack(">I", reply[16:20])[0]
    # xid, REPLY, MSG_ACCEPTED, verifier (flavor, length 0), accept_stat
    if len(reply) < 24:
        return "short"
    stat = struct.unpack(">I", reply[20:24])[0]
    out = [str(stat)]
    rest = reply[24:]
    if stat == 0 and len(rest) >= 4:
        out.append(str(struct.unpack(">i", rest[:4])[0]))
        if len(rest) >= 8:
            n = struct.unpack(">I", rest[4:8])[0]
            end = 8 + n + (-n % 4)
            if 8 + n <= len(rest):
                out.append(repr(rest[8:8 + n].decode(errors="replace")))
            if end + 4 <= len(rest):
                out.append(str(struct.unpack(">I", rest[end:end + 4])[0]))
    return " ".join(out)


def send(host, port, source, call, grep=None, then=None):
    if host is None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(20)
        s.connect(port)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.settimeout(20)
        if source:
            s.bind((source, 0))
        s.connect((host, int(port)))
    s.sendall(struct.pack(">I", len(call) | 0x80000000) + call)
    try:
        replies = [recv_record(s)]
        if then is not None:
            s.sendall(struct.pack(">I", len(then) | 0x80000000) + then)
            replies.append(recv_record(s))
        outs = []
        for reply in replies:
            o = outcome(reply)
            if grep is not None:
                o += (" has " if grep.encode() in reply
                      else " lacks ") + grep
            outs.append(o)
        return " ; ".join(outs)
    except (EOFError, OSError):
        return "none"
    finally:
        s.close()


def main():
    args = sys.argv[1:]
    source = None
    opts = {}
    while args and args[0] in ("-s", "-k", "-t", "-m", "-r", "-o", "-i",
                               "-g"):
        flag = args.pop(0)[1]
        if flag in "mr":
            opts[flag] = True
        elif flag == "s":
            source = args.pop(0)
        elif flag == "o":
            opts["o"] = int(args.pop(0))
        else:
            opts[flag] = args.pop(0)
    if args[0].startswith("/"):
        host, port = None, args[0]      # a Unix-domain socket
    else:
        host, _, port = args[0].strip("<>").rpartition(":")
    prog, vers, proc = (int(x, 0) for x in args[1:4])
    then = None
    if "--then" in args:
        i = args.index("--then")
        tproc = int(args[i + 1], 0)
        tbody = b"".join(xdr_arg(a) for a in args[i + 2:])
        then = struct.pack(">IIIIIIIIII", 0x5eee, 0, 2, prog, vers, tproc,
                           0, 0, 0, 0) + tbody
        args = args[:i]
    body = b"".join(xdr_arg(a) for a in args[4:])
    if "k" in opts or "t" in opts:
        call = signed_call(0x5eed, prog, vers, proc, body, opts)
    else:
        # xid, CALL, RPC version 2, program, version, procedure, no auth
        call = struct.pack(">IIIIIIIIII", 0x5eed, 0, 2, prog, vers, proc,
                           0, 0, 0, 0) + body
    out = send(host, port, source, call, opts.get("g"), then)
    if opts.get("r"):
        out += " | " + send(host, port, source, call)
    print(out)


if __name__ == "__main__":
    main()
