#!/usr/bin/env python3
"""netswitch.py RULES PORT...: a user-space Ethernet switch for the
pools of tests/lib/netpool.sh, where the kernel lacks netem: it joins
the interfaces PORT... (the switch's ends of the hosts' veth pairs, in
the switch's namespace) with packet sockets, learns where each MAC
address lives, floods the rest, and applies the impairments of the file
RULES, read again whenever it changes:

    FROM TO DELAY_MS LOSS_PERCENT

one line a direction (FROM and TO are port names, or * for any), the
first line that matches a frame deciding; "100" percent loss is a cut.
Delays keep the frames of one direction in order.  The random losses
come from a generator seeded with NETSWITCH_SEED (default 1).

The hosts' interfaces must not leave checksums or segmentation to the
hardware (ethtool -K ... tx off tso off gso off): a frame read here is
sent on as it is.
"""
import heapq
import os
import random
import select
import socket
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4

rules_path, ports = sys.argv[1], sys.argv[2:]
rng = random.Random(int(os.environ.get('NETSWITCH_SEED', '1')))
socks = {}
for p in ports:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.bind((p, 0))
    s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    socks[p] = s
by_fd = {s.fileno(): p for p, s in socks.items()}
where = {}            # MAC -> port
rules = []            # (from, to, delay s, loss fraction)
rules_mtime = None
queue = []            # (due, seq, port, frame)
last_due = {}         # (from, to) -> due of the last frame delayed
seq = 0


def load_rules():
    global rules, rules_mtime
    try:
        st = os.stat(rules_path)
    except OSError:
        rules, rules_mtime = [], None
        return
    if st.st_mtime_ns == rules_mtime:
        return
    rules_mtime = st.st_mtime_ns
    new = []
    with open(rules_path) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and not w[0].startswith('#'):
                new.append((w[0], w[1], float(w[2]) / 1000.0,
                            float(w[3]) / 100.0))
    rules = new


def impairment(src, dst):
    for f, t, delay, loss in rules:
        if f in ('*', src) and t in ('*', dst):
            return delay, loss
    return 0.0, 0.0


def send(port, frame):
    try:
        socks[port].send(frame)
    except OSError:
        pass        # a port that is down drops the frame


def forward(src, frame, now):
    global seq
    dst_mac, src_mac = frame[0:6], frame[6:12]
    where[src_mac] = src
    if dst_mac in where and not (dst_mac[0] & 1):
        outs = [where[dst_mac]] if where[dst_mac] != src else []
    else:
        outs = [p for p in ports if p != src]
    for out in outs:
        delay, loss = impairment(src, out)
        if loss > 0 and rng.random() < loss:
            continue
        if delay <= 0:
            send(out, frame)
            continue
        due = max(now + delay, last_due.get((src, out), 0.0))
        last_due[(src, out)] = due
        seq += 1
        heapq.heappush(queue, (due, seq, out, frame))


poller = select.poll()
for s in socks.values():
    poller.register(s.fileno(), select.POLLIN)
next_rules = 0.0
while True:
    now = time.monotonic()
    if now >= next_rules:
        load_rules()
        next_rules = now + 0.1
    while queue and queue[0][0] <= now:
        _, _, out, frame = heapq.heappop(queue)
        send(out, frame)
    wait = 0.1
    if queue:
        wait = min(wait, max(0.0, queue[0][0] - now))
    for fd, ev in poller.poll(wait * 1000):
        src = by_fd[fd]
        s = socks[src]
        for _ in range(64):
            try:
                frame, addr = s.recvfrom(65536)
            except BlockingIOError:
                break
            except OSError:
                break
            if addr[2] == PACKET_OUTGOING:
                continue
            forward(src, frame, time.monotonic())
