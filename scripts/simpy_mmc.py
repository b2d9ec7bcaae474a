#!/usr/bin/python3
"""M/M/c queue in SimPy 3, the twin of testdata/perf/mmc.toml.

Poisson arrivals at rate LAMBDA, a simpy.Resource of capacity C (the
servers), exponential service with mean 1/MU, run until HOURS of simulated
time. Written the idiomatic SimPy way: a source process that spawns one
process per customer, each of which requests the resource, records its wait
in queue and holds the resource for its service time. Like Headroom, the
mean wait is taken over the customers who completed service by the horizon.

Usage: /usr/bin/python3 scripts/simpy_mmc.py [--lambda 2.8] [--mu 1]
       [--c 4] [--hours 100] [--seed 1]
Prints one line: served=N mean_wait=W elapsed=S (S is the wall time of
env.run, in seconds).
"""
import argparse
import random
import time

import simpy


def customer(env, server, mu, rng, stats):
    arrived = env.now
    with server.request() as req:
        yield req
        wait = env.now - arrived
        yield env.timeout(rng.expovariate(mu))
    stats[0] += 1
    stats[1] += wait


def source(env, server, lam, mu, rng, stats):
    while True:
        yield env.timeout(rng.expovariate(lam))
        env.process(customer(env, server, mu, rng, stats))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lambda", dest="lam", type=float, default=2.8, help="arrivals per second")
    p.add_argument("--mu", type=float, default=1.0, help="services per second per server")
    p.add_argument("--c", type=int, default=4, help="servers")
    p.add_argument("--hours", type=float, default=100.0, help="simulated horizon in hours")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()

    rng = random.Random(a.seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=a.c)
    stats = [0, 0.0]  # customers served, total wait in queue
    env.process(source(env, server, a.lam, a.mu, rng, stats))
    t0 = time.perf_counter()
    env.run(until=a.hours * 3600)
    elapsed = time.perf_counter() - t0
    served, total = stats
    print("served=%d mean_wait=%.5f elapsed=%.3f" % (served, total / served if served else 0.0, elapsed))


if __name__ == "__main__":
    main()
