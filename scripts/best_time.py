"""Runs a command REPS times and prints its best wall time and its best CPU
time (user + system), in seconds to the millisecond.

Usage: best_time.py REPS OUT ERR COMMAND [ARG...]

The command's standard output goes to OUT and its standard error to ERR
(the last run's). Wall time is time.perf_counter around the process; CPU
time is the child's own resource usage from os.wait4, which counts every
thread, to the microsecond (GNU time's %U and %S count in 10 ms steps,
a tenth of Headroom's whole run). Exits 1, with the command's stderr, if
any run fails.
"""

import os
import subprocess
import sys
import time


def main():
    reps, out, err, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    best_wall = best_cpu = float("inf")
    for _ in range(reps):
        with open(out, "wb") as o, open(err, "wb") as e:
            start = time.perf_counter()
            p = subprocess.Popen(cmd, stdout=o, stderr=e)
            _, status, usage = os.wait4(p.pid, 0)
            wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.stderr.write("failed: %s\n" % " ".join(cmd))
            sys.stderr.write(open(err).read())
            sys.exit(1)
        best_wall = min(best_wall, wall)
        best_cpu = min(best_cpu, usage.ru_utime + usage.ru_stime)
    print("%.3f %.3f" % (best_wall, best_cpu))


if __name__ == "__main__":
    main()
