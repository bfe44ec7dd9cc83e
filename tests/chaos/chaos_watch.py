#!/usr/bin/env python3
"""chaos_watch.py POOL OUT: while the file OUT.stop does not exist,
look at every process four times a second and append to OUT one line
per look: the time and every execute directory some process is working
in ("host:N" for POOL/host/execute/dir_N).  Two directories of one job
in the same line are two copies of the job running at once
(chaos_check.py maps directories to jobs from the StarterLogs)."""
import os
import re
import sys
import time

pool, out = sys.argv[1], sys.argv[2]
pat = re.compile(re.escape(pool) + r'/([^/]+)/execute/dir_([0-9]+)(/|$)')
with open(out, 'a') as f:
    while not os.path.exists(out + '.stop'):
        dirs = set()
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                cwd = os.readlink('/proc/%s/cwd' % pid)
            except OSError:
                continue
            m = pat.match(cwd)
            if m:
                dirs.add('%s:%s' % (m.group(1), m.group(2)))
        if dirs:
            f.write('%.2f %s\n' % (time.time(), ' '.join(sorted(dirs))))
            f.flush()
        time.sleep(0.25)
