#!/usr/bin/env python3
"""chaos_check.py POOL WORK: the invariants of a chaos run
(tests/chaos/chaos.sh), checked from what it left in WORK, and its
table.  Prints "PASS name" / "FAIL name: why" lines, then the table
(rows "what|value"), and the evidence of any failure.

WORK holds jobs.txt ("TAG UNIVERSE STEPS SPINS MS" a job), expected/TAG
(a native run's output), out/TAG (the job's output under Condor), logs/
(the user logs), history.txt (condor_history: ClusterId ProcId JobStatus
ChaosTag), queue.txt (condor_q, the same columns), out/TAG.err (where a
vanilla job says it found its lock held by another copy of itself),
watch.txt (chaos_watch.py),
kills.txt ("TIME HOST DAEMON PID") and cuts.txt ("TIME HOST SECONDS")."""
import collections
import datetime
import glob
import os
import re
import sys

pool, work = sys.argv[1], sys.argv[2]
fails = 0


def check(name, ok, why=''):
    global fails
    if ok:
        print('PASS ' + name)
    else:
        fails += 1
        print('FAIL %s%s' % (name, ': ' + why if why else ''))


def lines(path):
    try:
        with open(path, errors='replace') as f:
            return [l.rstrip('\n') for l in f]
    except OSError:
        return []


jobs = {}
for l in lines(os.path.join(work, 'jobs.txt')):
    tag, univ, steps, spins, ms = l.split()
    jobs[tag] = (univ, int(steps), int(spins), int(ms))

# The history: a tag's entries, and the job ids behind each tag.
done = collections.Counter()
entries = collections.Counter()
tag_of = {}
for l in lines(os.path.join(work, 'history.txt')):
    f = l.split()
    if len(f) < 4:
        continue
    jid, status, tag = f[0] + '.' + f[1], f[2], f[3].strip('"')
    tag_of[jid] = tag
    entries[jid] += 1
    if status == '4':
        done[tag] += 1
queued = [l for l in lines(os.path.join(work, 'queue.txt')) if l.strip()]

# User logs: 005s per job, and how long each run lasted.
ev = re.compile(r'^(\d{3}) \((\d+)\.(\d+)\.\d+\) (\d\d)/(\d\d) '
                r'(\d\d):(\d\d):(\d\d) ')
year = datetime.date.today().year
terminated = collections.Counter()
runtime = collections.Counter()
start = {}
for path in glob.glob(os.path.join(work, 'logs', '*.log')):
    for l in lines(path):
        m = ev.match(l)
        if not m:
            continue
        code = m.group(1)
        jid = '%d.%d' % (int(m.group(2)), int(m.group(3)))
        t = datetime.datetime(year, *map(int, m.group(4, 5, 6, 7, 8))
                              ).timestamp()
        if code == '001':
            if jid in start:
                runtime[jid] += t - start[jid]
            start[jid] = t
        elif code in ('004', '005', '007', '009', '012', '025'):
            if jid in start:
                runtime[jid] += t - start.pop(jid)
            if code == '005':
                terminated[jid] += 1

# Outputs against the native runs.
wrong = []
for tag in jobs:
    want = lines(os.path.join(work, 'expected', tag))
    got = lines(os.path.join(work, 'out', tag))
    if done[tag] and (not want or got != want):
        wrong.append(tag)

lost = sorted(t for t in jobs if done[t] == 0)
twice_done = sorted(t for t in jobs if done[t] > 1)
twice_done += sorted(tag_of.get(j, j) for j, n in terminated.items() if n > 1)
twice_hist = sorted(j for j, n in entries.items() if n > 1)

# Two copies at once: a tag a second vanilla copy found locked, or two
# execute directories of one job in one look at the processes.
dir_job = {}
for path in glob.glob(os.path.join(pool, '*', 'log', 'StarterLog*')):
    host = path.split(os.sep)[-3]
    for l in lines(path):
        m = re.search(r'\[(\d+)\] .*\bjob (\d+\.\d+)\b', l)
        if m and (host, m.group(1)) not in dir_job:
            dir_job[(host, m.group(1))] = m.group(2)
concurrent = set()
for path in glob.glob(os.path.join(work, 'out', '*.err')):
    for l in lines(path):
        if 'another copy of this job holds' in l:
            concurrent.add(l)
for l in lines(os.path.join(work, 'watch.txt')):
    seen = collections.defaultdict(set)
    for d in l.split()[1:]:
        if d.count(':') != 1:
            continue        # a line cut short
        host, n = d.split(':')
        jid = dir_job.get((host, n))
        if jid:
            seen[jid].add(d)
    for jid, ds in seen.items():
        if len(ds) > 1:
            concurrent.add('%s (%s at %s)' % (tag_of.get(jid, jid),
                                              ' '.join(sorted(ds)),
                                              l.split()[0]))

kills = [l.split() for l in lines(os.path.join(work, 'kills.txt'))]
cuts = lines(os.path.join(work, 'cuts.txt'))
by_daemon = collections.Counter(k[2] for k in kills if len(k) > 2)

# Badput: the time jobs ran (user log, 001 to the run's end) beyond
# what their native runs need, over that need.
good = bad = 0.0
for jid, tag in tag_of.items():
    if tag not in jobs or done[tag] == 0:
        continue
    univ, steps, spins, ms = jobs[tag]
    need = steps * ms / 1000.0
    good += need
    bad += max(0.0, runtime[jid] - need)

check('every job completed (none lost)', not lost,
      '%d lost: %s' % (len(lost), ' '.join(lost[:20])))
check('no job ran twice at once', not concurrent,
      '; '.join(sorted(concurrent)[:10]))
check('no job completed twice', not twice_done and not twice_hist,
      ' '.join(twice_done[:10] + twice_hist[:10]))
check("every job's output identical to its native run's", not wrong,
      '%d differ: %s' % (len(wrong), ' '.join(wrong[:20])))
check('one 005 event per job',
      all(terminated[j] == 1 for j, t in tag_of.items() if done[t])
      and len(terminated) == sum(1 for t in jobs if done[t]),
      'jobs with other than one 005: %s' % ' '.join(
          '%s:%d' % (j, terminated[j]) for j, t in tag_of.items()
          if done[t] and terminated[j] != 1)[:400])
check('the queue is empty at the end', not queued,
      '%d left: %s' % (len(queued), '; '.join(queued[:5])))

print('TABLE kills injected|%d (%s)' % (len(kills), ', '.join(
    '%s %d' % kv for kv in sorted(by_daemon.items()))))
print('TABLE partitions injected|%d' % len(cuts))
print('TABLE jobs submitted|%d (%d vanilla, %d standard)' % (
    len(jobs), sum(1 for j in jobs.values() if j[0] == 'vanilla'),
    sum(1 for j in jobs.values() if j[0] == 'standard')))
print('TABLE jobs completed|%d' % sum(1 for t in jobs if done[t]))
print('TABLE lost|%d' % len(lost))
print('TABLE run twice concurrently|%d' % len(concurrent))
print('TABLE completed twice|%d' % (len(twice_done) + len(twice_hist)))
print('TABLE badput / goodput (slot time)|%.2f (%.0f s / %.0f s)' % (
    bad / good if good else 0.0, bad, good))
sys.exit(1 if fails else 0)
