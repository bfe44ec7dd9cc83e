#!/usr/bin/env python3
"""Sum up a profile kept by bench/throughput_bench.sh (THROUGHPUT_PROFILE=DIR).

    python3 bench/throughput_profile.py DIR
    python3 bench/throughput_profile.py --row DIR   (one row for bench/run)

Reads DIR/logs/<host>/*Log (the pool's daemon logs; or DIR/<host>/log/
for a live pool directory), DIR/procstat.before
and .after (CPU of every daemon, children included), DIR/perftrace.txt
(perf trace -s of the long-lived daemons) and prints:

  - where one job's time goes, stage by stage, from the schedd's match to
    its completion (median, 90th percentile, mean, in ms);
  - how busy the execute hosts were, and how long a machine waits between
    the end of one job and the claim of the next;
  - the negotiation cycles: how many, how far apart, matches per cycle;
  - CPU per daemon type, in total and per job;
  - the long-lived daemons' system calls (fsync and friends).
"""
import os
import re
import statistics
import sys
from collections import defaultdict
from datetime import datetime

LINE = re.compile(r'^(\d\d/\d\d/\d\d \d\d:\d\d:\d\d\.\d+) \[(\d+)\] (.*)$')


def stamp(text):
    return datetime.strptime(text, '%m/%d/%y %H:%M:%S.%f').timestamp()


def read_log(path):
    out = []
    try:
        with open(path, errors='replace') as f:
            for line in f:
                m = LINE.match(line.rstrip('\n'))
                if m:
                    out.append((stamp(m.group(1)), int(m.group(2)), m.group(3)))
    except OSError:
        pass
    return out


def pct(v, p):
    if not v:
        return float('nan')
    v = sorted(v)
    k = min(len(v) - 1, max(0, int(round(p / 100.0 * (len(v) - 1)))))
    return v[k]


def row(name, v, scale=1000.0, unit='ms'):
    if not v:
        print(f'  {name:<46} (none)')
        return
    print(f'  {name:<46} median {pct(v, 50) * scale:8.1f}  p90 {pct(v, 90) * scale:8.1f}  '
          f'mean {statistics.mean(v) * scale:8.1f} {unit}  (n={len(v)})')


def main():
    args = sys.argv[1:]
    row_only = bool(args) and args[0] == '--row'
    if row_only:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    d = args[0]
    logs = os.path.join(d, 'logs')
    if os.path.isdir(logs):
        hosts = sorted(os.listdir(logs))
        logdir = lambda h: os.path.join(logs, h)
    else:
        # a live pool directory (tests/lib/pool.sh): HOST/log/
        hosts = sorted(h for h in os.listdir(d) if os.path.isdir(os.path.join(d, h, 'log')))
        logdir = lambda h: os.path.join(d, h, 'log')
    ev = defaultdict(dict)          # job -> stage -> time
    job_host = {}
    claims = defaultdict(list)      # host -> [(claimed, idle again)]
    cycles = []                     # (time, matches, duration)

    def first(job, key, t):
        ev[job].setdefault(key, t)

    for h in hosts:
        for t, pid, msg in read_log(os.path.join(logdir(h), 'SchedLog')):
            m = re.match(r'job (\d+\.\d+) matched with (\S+)', msg)
            if m:
                first(m.group(1), 'match', t)
                job_host[m.group(1)] = m.group(2)
                continue
            # claim reuse: the next job on a claim, with no match
            m = re.match(r'job (\d+\.\d+) runs on the claim of (\S+)', msg)
            if m:
                first(m.group(1), 'match', t)
                job_host[m.group(1)] = m.group(2)
                continue
            m = re.match(r'job (\d+\.\d+) completed', msg)
            if m:
                first(m.group(1), 'completed', t)
        for t, pid, msg in read_log(os.path.join(logdir(h), 'ShadowLog')):
            m = re.match(r'job (\d+\.\d+): (.*)', msg)
            if not m:
                continue
            j, rest = m.groups()
            if rest.startswith('shadow starting'):
                first(j, 'shadow_up', t)
            elif rest.startswith('claimed '):
                first(j, 'claimed', t)
            elif 'said hello' in rest:
                first(j, 'hello', t)
            elif rest.startswith('the job exited'):
                first(j, 'shadow_done', t)
        for t, pid, msg in read_log(os.path.join(logdir(h), 'NegotiatorLog')):
            m = re.match(r'cycle \d+: (\d+) match\(es\).* ([\d.]+) s$', msg)
            if m:
                cycles.append((t, int(m.group(1)), float(m.group(2))))
                continue
            m = re.match(r'match: \S+ job (\d+\.\d+) -> ', msg)
            if m:
                ev[m.group(1)]['neg_match'] = t
        for t, pid, msg in read_log(os.path.join(logdir(h), 'StarterLog')):
            m = re.match(r'job (\d+\.\d+) (\(vanilla|started|\(pid \d+\) exited)', msg)
            if not m:
                continue
            j, what = m.groups()
            key = {'(vanilla': 'starter_got', 'started': 'job_started'}.get(what, 'job_exited')
            first(j, key, t)
        cur = None
        for t, pid, msg in read_log(os.path.join(logdir(h), 'StartLog')):
            # "claim N: claimed by job C.P", or "reused by" (claim reuse)
            m = re.search(r'(?:claimed|reused) by job (\d+\.\d+)', msg)
            if m:
                first(m.group(1), 'startd_claim', t)
                cur = t
                continue
            m = re.match(r'the starter of job (\d+\.\d+) .*exited', msg)
            if m:
                first(m.group(1), 'starter_gone', t)
                if cur is not None:
                    claims[h].append((cur, t))
                    cur = None

    done = [j for j in ev if 'match' in ev[j] and 'completed' in ev[j]]
    if not done:
        print('no completed job in the logs')
        return
    t_first = min(ev[j]['match'] for j in done)
    t_last = max(ev[j]['completed'] for j in done)
    if row_only:
        # One row for bench/run: how busy the machines were.
        busy, gaps = 0.0, []
        for h, v in claims.items():
            v.sort()
            busy += sum(r - c for c, r in v if t_first <= c <= t_last)
            gaps += [v[i + 1][0] - v[i][1] for i in range(len(v) - 1)]
        span = (t_last - t_first) * max(1, len(claims))
        tot = [ev[j]['completed'] - ev[j].get('neg_match', ev[j]['match']) for j in done]
        print(f'ours: execute hosts claimed, of the run|{100.0 * busy / span:.1f} %|'
              f'one job from its match to completed: {pct(tot, 50) * 1000:.0f} ms; '
              f'a machine idle between jobs: {pct(gaps, 50) * 1000:.0f} ms (medians)')
        return
    run = open(os.path.join(d, 'run')).read().split() if os.path.exists(os.path.join(d, 'run')) else []
    njobs = int(run[0]) if run else len(done)
    wall = float(run[2]) if run else t_last - t_first
    print(f'{len(done)} jobs completed; {wall:.2f} s from submit to the last in the history '
          f'({njobs / wall:.1f} jobs/s); first match to last completion {t_last - t_first:.2f} s')

    stages = [
        ('neg_match', 'match', 'negotiator match -> schedd starts the shadow'),
        ('match', 'shadow_up', 'schedd starts shadow -> shadow running'),
        ('shadow_up', 'startd_claim', 'shadow -> startd claimed (checks, REQUEST_CLAIM)'),
        ('startd_claim', 'claimed', 'startd claimed -> shadow has the answer'),
        ('claimed', 'hello', 'claim -> starter said hello (starter exec)'),
        ('hello', 'job_started', 'hello -> job started (ad, exe, sandbox, fork)'),
        ('job_started', 'job_exited', 'job ran (/bin/true)'),
        ('job_exited', 'shadow_done', 'job exit -> shadow has it (EXIT, flush)'),
        ('shadow_done', 'completed', 'shadow exit -> schedd: completed'),
        ('neg_match', 'completed', 'TOTAL negotiator match -> completed'),
        ('job_exited', 'starter_gone', 'job exit -> startd reaped the starter'),
    ]
    print('\nOne job, stage by stage (from the daemons\' logs, ms resolution):')
    for a, b, name in stages:
        row(name, [ev[j][b] - ev[j][a] for j in done if a in ev[j] and b in ev[j]])

    # Machines: busy (claimed) versus waiting for the next match.
    busy = 0.0
    gaps = []
    for h, v in claims.items():
        v.sort()
        for i, (c, r) in enumerate(v):
            if t_first <= c <= t_last:
                busy += r - c
            if i + 1 < len(v) and t_first <= r <= t_last:
                gaps.append(v[i + 1][0] - r)
    nh = len(claims)
    span = t_last - t_first
    print(f'\nExecute hosts: {nh}; claimed {100.0 * busy / (nh * span) if nh and span else 0:.1f} % of the time '
          f'between the first match and the last completion')
    row('a machine idle between two jobs', gaps)
    # The part of the gap spent before the negotiator's match.
    byhost = defaultdict(list)
    for j in done:
        if 'neg_match' in ev[j] and j in job_host:
            byhost[job_host[j]].append(ev[j]['neg_match'])
    pre = []
    for h, v in claims.items():
        nm = sorted(byhost.get(h, []))
        for c, r in v:
            nxt = [x for x in nm if x >= r]
            if nxt and t_first <= r <= t_last:
                pre.append(nxt[0] - r)
    row('  of which: idle -> the negotiator matches it', pre)
    per = [r - c for v in claims.values() for c, r in v]
    if per and gaps:
        cyc = statistics.mean(per) + statistics.mean(gaps)
        print(f'  one job per machine every {cyc * 1000:.0f} ms: at most {nh / cyc:.1f} jobs/s on {nh} machines')

    cycles = [c for c in cycles if t_first - 1 <= c[0] <= t_last + 1]
    if cycles:
        iv = [b[0] - a[0] for a, b in zip(cycles, cycles[1:])]
        print(f'\nNegotiation: {len(cycles)} cycles, {sum(c[1] for c in cycles)} matches, '
              f'{statistics.mean(c[1] for c in cycles):.2f} matches per cycle '
              f'(max {max(c[1] for c in cycles)})')
        row('between two cycles', iv)
        row('one cycle', [c[2] for c in cycles])
        hist = defaultdict(int)
        for c in cycles:
            hist[c[1]] += 1
        print('  matches per cycle: ' + ', '.join(f'{k}: {hist[k]}' for k in sorted(hist)))

    # CPU from /proc/PID/stat, before and after.
    def procs(name):
        out = {}
        try:
            for line in open(os.path.join(d, name)):
                f = line.split()
                if len(f) == 7:
                    out[f[0]] = (f[1], f[2], [int(x) for x in f[3:]])
        except OSError:
            pass
        return out
    def delta(b, a):
        tot = defaultdict(lambda: [0, 0, 0, 0])
        for pid, (comm, host, v) in a.items():
            v0 = b.get(pid, (comm, host, [0, 0, 0, 0]))[2]
            for i in range(4):
                tot[comm][i] += v[i] - v0[i]
        return tot

    b, a = procs('procstat.before'), procs('procstat.after')
    i0, i1 = procs('procstat.idle0'), procs('procstat.idle1')
    try:
        idle_s = float(open(os.path.join(d, 'idle_seconds')).read())
    except (OSError, ValueError):
        idle_s = 0
    if a:
        hz = os.sysconf('SC_CLK_TCK')
        tot = delta(b, a)
        base = delta(i0, i1) if i1 and idle_s > 0 else {}
        print(f'\nCPU during the run (s; children = reaped shadows, starters and jobs); ms per job,')
        print(f'all of it and less what the pool burns with no job ({idle_s:g} s measured before the submit):')
        print(f'  {"daemon":<16} {"user":>6} {"sys":>6} {"ch.user":>7} {"ch.sys":>6} {"ms/job":>7} {"ch.ms/job":>9} '
              f'{"idle ms/s":>9} {"ms/job less idle":>16}')
        allms = alljob = 0.0
        for comm in sorted(tot):
            u, s, cu, cs = (x / hz for x in tot[comm])
            own = (u + s) * 1000 / njobs
            ch = (cu + cs) * 1000 / njobs
            bl = sum(base.get(comm, [0, 0, 0, 0])) / hz * 1000 / idle_s if base else 0.0
            net = own + ch - bl * wall / njobs
            allms += own + ch
            alljob += net
            print(f'  {comm:<16} {u:6.2f} {s:6.2f} {cu:7.2f} {cs:6.2f} {own:7.2f} {ch:9.2f} {bl:9.1f} {net:16.2f}')
        ncpu = os.cpu_count() or 1
        print(f'  all of it: {allms:.1f} ms of CPU per job ({alljob:.1f} ms less the idle pool): '
              f'at most {ncpu * 1000.0 / alljob if alljob > 0 else 0:.0f} jobs/s on {ncpu} cores '
              f'if nothing waited and the machine were ours alone')
    try:
        cb = [int(x) for x in open(os.path.join(d, 'cpu.before')).read().split()[1:]]
        ca = [int(x) for x in open(os.path.join(d, 'cpu.after')).read().split()[1:]]
        dl = [y - x for x, y in zip(cb, ca)]
        idle = dl[3] + dl[4]
        print(f'  the whole machine meanwhile: {100.0 * (1 - idle / sum(dl)):.0f} % busy '
              f'(every process, other work on the machine included)')
    except (OSError, ValueError, ZeroDivisionError):
        pass

    pt = os.path.join(d, 'perftrace.txt')
    if os.path.exists(pt):
        print('\nSystem calls of the long-lived daemons (perf trace -s), the costliest (waiting in poll left out):')
        comm = {pid: c for pid, (c, h, v) in a.items()} if a else {}
        cur = None
        rows = []
        for line in open(pt):
            m = re.match(r'\s*(\S+) \((\d+)\), (\d+) events', line)
            if m:
                cur = comm.get(m.group(2), m.group(1)) + '[' + m.group(2) + ']'
                continue
            m = re.match(r'\s+(\w+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)', line)
            if m and cur and m.group(1) not in ('poll', 'ppoll', 'epoll_wait', 'select', 'pselect6'):
                rows.append((float(m.group(4)), cur, m.group(1), int(m.group(2)), float(m.group(6))))
        rows.sort(reverse=True)
        for total, who, sc, calls, avg in rows[:25]:
            print(f'  {who:<28} {sc:<16} {calls:7d} calls {calls / njobs:6.2f}/job  '
                  f'total {total:9.1f} ms  avg {avg:7.3f} ms')


if __name__ == '__main__':
    main()
