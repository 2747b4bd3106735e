#!/usr/bin/env python3
"""Times short commands in interleaved rounds: every round starts each command once, in a
random order (seeded, the same from run to run), so a change in the machine's load reaches
every command alike and no command always follows the same other one (timing one command's runs, then the next command's, measures the load's drift
as much as the commands). Each run is a fresh process started with posix_spawn, its standard
input the given file, its output discarded; the wall time from spawn to exit is recorded.

usage: bench-interleave.py --input FILE --runs N [--warmup W] --export JSON -- 'command' ...

A command is a shell-like word list (split with shlex), optionally led by NAME=value
assignments for its environment; no shell runs. The JSON holds, per command, the wall times in
milliseconds and their median, mean, minimum and tenth and ninetieth percentiles.
"""
import argparse
import json
import os
import random
import shlex
import shutil
import statistics
import sys
import time


def parse_command(text):
    words = shlex.split(text)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("="):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    program = shutil.which(words[0]) or words[0]
    return program, words, env


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--export", required=True)
    parser.add_argument("commands", nargs="+")
    args = parser.parse_args()
    commands = [parse_command(c) for c in args.commands]
    devnull = os.open(os.devnull, os.O_WRONLY)
    times = [[] for _ in commands]
    order = list(range(len(commands)))
    shuffler = random.Random(1)
    for round_number in range(args.warmup + args.runs):
        shuffler.shuffle(order)
        for index in order:
            program, argv, env = commands[index]
            source = os.open(args.input, os.O_RDONLY)
            start = time.perf_counter()
            pid = os.posix_spawn(program, argv, env, file_actions=[
                (os.POSIX_SPAWN_DUP2, source, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
            os.waitpid(pid, 0)
            elapsed = time.perf_counter() - start
            os.close(source)
            if round_number >= args.warmup:
                times[index].append(elapsed * 1000)
    results = []
    for text, samples in zip(args.commands, times):
        ordered = sorted(samples)
        results.append({
            "command": text, "times_ms": samples,
            "median": statistics.median(ordered), "mean": statistics.mean(ordered), "min": ordered[0],
            "p10": ordered[len(ordered) // 10], "p90": ordered[len(ordered) * 9 // 10],
        })
    with open(args.export, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    sys.exit(main())
