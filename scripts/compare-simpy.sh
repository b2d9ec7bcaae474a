#!/usr/bin/env bash
# Side-by-side speed comparison of the same M/M/c queue in Headroom
# (testdata/perf/mmc.toml, run through the CLI) and in SimPy 3
# (scripts/simpy_mmc.py): Poisson arrivals at LAMBDA/s, C servers,
# exponential service with mean 1/MU s, HOURS of simulated time.
#
# Each side runs REPS times as a whole process (start-up, simulation and,
# for Headroom, the JSON report included; the HTML report is not written,
# --no-html); the best wall time counts, and the best CPU time (user +
# system) is printed beside it: on a machine shared with other work the
# wall times stretch unevenly, the CPU times much less. Both mean waits in
# queue are printed next to the Erlang C value. Exits non-zero if SimPy's
# best wall time is less than MIN_RATIO times Headroom's.
#
# Parameters come from the environment: LAMBDA (7.2), MU (1), C (8):
# M/M/8 at rho 0.9; HOURS (38.5802, 1M customers), SEED (1), REPS (5),
# MIN_RATIO (60), PYTHON (/usr/bin/python3, Debian's, where python3-simpy3
# installs). Needs go, awk, and apt-get (as root, or with sudo) if SimPy is
# missing; the timing is scripts/best_time.py's.
set -euo pipefail

LAMBDA=${LAMBDA:-7.2}
MU=${MU:-1}
C=${C:-8}
HOURS=${HOURS:-38.5802}
SEED=${SEED:-1}
REPS=${REPS:-5}
MIN_RATIO=${MIN_RATIO:-60}
PYTHON=${PYTHON:-/usr/bin/python3}

cd "$(dirname "$0")/.."

if ! "$PYTHON" -c 'import simpy' 2>/dev/null; then
	echo "installing python3-simpy3 (apt-get)..." >&2
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
	$sudo apt-get update -qq >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-simpy3 >&2
fi
simpy_version=$("$PYTHON" -c 'import simpy; print(simpy.__version__)')
py_version=$("$PYTHON" -c 'import platform; print(platform.python_version())')

load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built as `make build` builds it: static, with the profile in cmd/headroom.
CGO_ENABLED=0 go build -o "$tmp/headroom" ./cmd/headroom

service=$(awk -v mu="$MU" 'BEGIN { printf "%.9gs", 1 / mu }')
headroom=("$tmp/headroom" run testdata/perf/mmc.toml --quiet --base-only
	--set "seed=$SEED" --set "duration=${HOURS}h"
	--set "workload.jobs.demand.rate=$LAMBDA"
	--set "workload.jobs.client.max_concurrency=$C"
	--set "provider.server.latency.ttft.base=\"$service\""
	--json "$tmp/headroom.json" --no-html)
simpy=("$PYTHON" scripts/simpy_mmc.py --lambda "$LAMBDA" --mu "$MU" --c "$C" --hours "$HOURS" --seed "$SEED")

# best_of CMD...: runs CMD $REPS times, its stdout to $tmp/out; prints the
# smallest wall time and the smallest CPU time (user + system), in seconds
# to the millisecond (scripts/best_time.py).
best_of() {
	"$PYTHON" scripts/best_time.py "$REPS" "$tmp/out" "$tmp/err" "$@"
}

read -r t_headroom c_headroom < <(best_of "${headroom[@]}") || exit 1
read -r h_served h_wait < <("$PYTHON" -c '
import json, sys
s = json.load(open(sys.argv[1]))["variants"][0]["summary"]
print(s["requests"]["completed"], "%.5f" % s["latency_s"]["queue_wait"]["mean"])' "$tmp/headroom.json")

read -r t_simpy c_simpy < <(best_of "${simpy[@]}") || exit 1
s_out=$(cat "$tmp/out")
s_served=$(sed -n 's/.*served=\([0-9]*\).*/\1/p' <<<"$s_out")
s_wait=$(sed -n 's/.*mean_wait=\([0-9.]*\).*/\1/p' <<<"$s_out")

# Erlang C: P(wait) = (a^c/c! * c/(c-a)) / (sum_{k<c} a^k/k! + that), a = lambda/mu;
# Wq = P(wait) / (c*mu - lambda).
wq=$(awk -v l="$LAMBDA" -v mu="$MU" -v c="$C" 'BEGIN {
	a = l / mu; term = 1; sum = 1
	for (k = 1; k < c; k++) { term *= a / k; sum += term }
	top = term * a / c * c / (c - a)
	printf "%.5f", top / (sum + top) / (c * mu - l) }')

printf 'M/M/%s  lambda=%s/s  mu=%s/s  rho=%s  horizon=%sh  seed=%s  best of %s runs\n' \
	"$C" "$LAMBDA" "$MU" "$(awk -v l="$LAMBDA" -v mu="$MU" -v c="$C" 'BEGIN { printf "%.3g", l / (c * mu) }')" "$HOURS" "$SEED" "$REPS"
printf '%-30s %10s %14s %10s %10s\n' "" customers "mean wait (s)" "wall (s)" "CPU (s)"
printf '%-30s %10s %14s %10s %10s\n' "Erlang C" "" "$wq" "" ""
printf '%-30s %10s %14s %10s %10s\n' "Headroom (Go CLI)" "$h_served" "$h_wait" "$t_headroom" "$c_headroom"
printf '%-30s %10s %14s %10s %10s\n' "SimPy $simpy_version (Python $py_version)" "$s_served" "$s_wait" "$t_simpy" "$c_simpy"
printf 'load average before: %s\n' "$load"
cpu_ratio=$(awk -v s="$c_simpy" -v h="$c_headroom" 'BEGIN { printf "%.1f", (h > 0) ? s / h : 0 }')
echo "CPU-time ratio SimPy/Headroom: ${cpu_ratio}x"
ratio=$(awk -v s="$t_simpy" -v h="$t_headroom" 'BEGIN { printf "%.1f", s / h }')
if awk -v r="$ratio" -v m="$MIN_RATIO" 'BEGIN { exit !(r >= m) }'; then
	echo "speed ratio SimPy/Headroom: ${ratio}x (>= ${MIN_RATIO}x: PASS)"
else
	echo "speed ratio SimPy/Headroom: ${ratio}x (< ${MIN_RATIO}x: FAIL)"
	exit 1
fi
