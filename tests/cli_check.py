#!/usr/bin/env python3
"""Runs one tribench command and checks how it ended (tests/robustness.cmake).

Beyond tests/expect_cli.cmake it can interrupt the command as Ctrl-C would (SIGINT once
its stderr, a terminal so that tribench prints progress, matches a pattern, and/or after
N seconds), time how long the command takes to stop, set environment variables, and check
the statuses recorded in the results JSON it wrote.

  cli_check.py --rc N [--err REGEX] [--out REGEX] [--one-line] [--no-file PATH]
               [--json PATH|- [--bench NAME=STATUS[:ERROR_REGEX] ...]] [--still-special PATH ...]
               [--fifo-reader PATH] [--file-match PATH=REGEX ...] [--file-lacks PATH=REGEX ...]
               [--sigint-when REGEX] [--sigint-after SECONDS] [--stop-within SECONDS]
               [--env NAME=VALUE ...] -- COMMAND ARGS...
"""
import argparse
import json
import os
import pty
import re
import signal
import stat
import subprocess
import sys
import threading
import time


def fail(msg, out="", err=""):
    print(f"FAIL: {msg}\n--- stdout ---\n{out}\n--- stderr ---\n{err}", file=sys.stderr)
    sys.exit(1)


def check_results(path, expected, out, err):
    """Each expected NAME=STATUS[:ERROR_REGEX] must match a benchmark of the results file
    (path "-": the results are all of stdout)."""
    try:
        if path == "-":
            doc = json.loads(out)
        else:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path} is not a readable JSON file: {e}", out, err)
    if doc.get("schema") != "tribench-results" or not isinstance(doc.get("benchmarks"), list):
        fail(f"{path} is not a tribench results file", out, err)
    by_name = {b.get("name"): b for b in doc["benchmarks"]}
    for spec in expected:
        name, _, rest = spec.partition("=")
        status, _, error_re = rest.partition(":")
        b = by_name.get(name)
        if b is None:
            fail(f"{path}: no benchmark {name} (has: {', '.join(map(str, by_name))})", out, err)
        if b.get("status") != status:
            fail(f"{path}: {name} has status {b.get('status')!r} ({b.get('error')!r}), expected {status!r}", out, err)
        if error_re and not re.search(error_re, b.get("error", "")):
            fail(f"{path}: {name} error {b.get('error')!r} does not match {error_re!r}", out, err)
        if status != "ok" and b.get("samples_ms"):
            fail(f"{path}: {name} is {status} but reports timing samples", out, err)


def run_interrupted(cmd, env, a):
    """Runs cmd with stderr on a pseudo-terminal; sends SIGINT once stderr matches
    a.sigint_when (if given) and a.sigint_after more seconds have passed."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    chunks = {"out": [], "err": []}

    def pump(read, key):
        while True:
            try:
                data = read()
            except OSError:  # the terminal's other side closed
                break
            if not data:
                break
            chunks[key].append(data)

    readers = [threading.Thread(target=pump, args=(lambda: proc.stdout.read1(65536), "out"), daemon=True),
               threading.Thread(target=pump, args=(lambda: os.read(master, 65536), "err"), daemon=True)]
    for t in readers:
        t.start()

    def text(key):
        return b"".join(chunks[key]).decode("utf-8", "replace").replace("\r\n", "\n")

    def finish():
        proc.wait()
        for t in readers:
            t.join(timeout=5)
        os.close(master)
        return text("out"), text("err")

    deadline = time.monotonic() + a.timeout
    if a.sigint_when:
        while not re.search(a.sigint_when, text("err")):
            if proc.poll() is not None:
                out, err = finish()
                fail(f"the command ended (exit {proc.returncode}) before stderr matched {a.sigint_when!r}", out, err)
            if time.monotonic() > deadline:
                proc.kill()
                out, err = finish()
                fail(f"stderr did not match {a.sigint_when!r} within {a.timeout}s", out, err)
            time.sleep(0.02)
    try:
        proc.wait(timeout=a.sigint_after or 0)
        out, err = finish()
        fail(f"the command ended (exit {proc.returncode}) before it could be interrupted", out, err)
    except subprocess.TimeoutExpired:
        pass
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=a.stop_within)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = finish()
        fail(f"still running {a.stop_within}s after SIGINT", out, err)
    stop_s = time.monotonic() - sent
    out, err = finish()
    return out, err, stop_s, proc.returncode


def start_fifo_reader(path):
    """Makes a FIFO at path and reads it in a thread; returns a function that gives what was
    read once the writer closed it (or unblocks the reader if nobody ever opened it)."""
    if os.path.lexists(path):
        os.remove(path)
    os.mkfifo(path)
    got = []

    def read():
        with open(path, "rb") as f:  # blocks until a writer opens it
            got.append(f.read())

    t = threading.Thread(target=read, daemon=True)
    t.start()

    def result():
        t.join(timeout=5)
        if t.is_alive():  # never opened for writing: open and close a writer to end the read
            os.close(os.open(path, os.O_RDWR))
            t.join(timeout=5)
        return b"".join(got).decode("utf-8", "replace")

    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rc", type=int, required=True)
    ap.add_argument("--err")
    ap.add_argument("--out")
    ap.add_argument("--one-line", action="store_true")
    ap.add_argument("--no-file", action="append", default=[])
    ap.add_argument("--json")
    ap.add_argument("--bench", action="append", default=[])
    ap.add_argument("--sigint-when")
    ap.add_argument("--sigint-after", type=float)
    ap.add_argument("--stop-within", type=float, default=10.0)
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--still-special", action="append", default=[],
                    help="a device or FIFO that must still be one afterwards (not replaced by a file)")
    ap.add_argument("--fifo-reader", help="make this FIFO and read it while the command runs: it must "
                                          "receive a results file")
    ap.add_argument("--timeout", type=float, default=600)
    # A file the command writes (removed first): its text must match, or must not match, REGEX.
    ap.add_argument("--file-match", action="append", default=[])
    ap.add_argument("--file-lacks", action="append", default=[])
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")

    # Start clean, so a file left by an earlier run cannot pass for this run's.
    # An interrupted run keeps its journal (FILE.journal), which a new run would refuse to overwrite.
    file_checks = [(kv.partition("=")[0], kv.partition("=")[2], True) for kv in a.file_match] + \
                  [(kv.partition("=")[0], kv.partition("=")[2], False) for kv in a.file_lacks]
    for p in a.no_file + [path for path, _, _ in file_checks] + \
             ([a.json, a.json + ".journal"] if a.json and a.json != "-" else []):
        if os.path.lexists(p):
            os.remove(p)
    env = dict(os.environ)
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v

    fifo = start_fifo_reader(a.fifo_reader) if a.fifo_reader else None
    if a.sigint_when is None and a.sigint_after is None:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        try:
            out, err = proc.communicate(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            fail(f"timed out after {a.timeout}s", out, err)
        stop_s, rc = None, proc.returncode
    else:
        out, err, stop_s, rc = run_interrupted(cmd, env, a)

    if rc != a.rc:
        fail(f"exit code {rc}, expected {a.rc}", out, err)
    if a.err and not re.search(a.err, err):
        fail(f"stderr does not match {a.err!r}", out, err)
    if a.out and not re.search(a.out, out):
        fail(f"stdout does not match {a.out!r}", out, err)
    if a.one_line and err.count("\n") != 1:
        fail(f"expected a one-line error, got {err.count(chr(10))} lines", out, err)
    for p in a.no_file:
        if os.path.lexists(p):
            fail(f"{p} should not exist", out, err)
    if fifo:
        got = fifo()
        try:
            doc = json.loads(got)
        except ValueError as e:
            fail(f"{a.fifo_reader} received no results JSON ({e}): {got[:200]!r}", out, err)
        if doc.get("schema") != "tribench-results":
            fail(f"{a.fifo_reader} received JSON that is not a results file", out, err)
    for p in a.still_special:
        if not os.path.exists(p) or stat.S_ISREG(os.stat(p).st_mode):
            fail(f"{p} is no longer a device or FIFO: the output replaced it", out, err)
        if os.path.lexists(p + ".journal"):
            fail(f"{p}.journal was made: a journal belongs beside a results file only", out, err)
    # No temporary of an atomic write may be left next to the output either.
    for p in a.no_file + ([a.json] if a.json and a.json != "-" else []) + a.still_special:
        folder, base = os.path.split(os.path.abspath(p))
        left = [f for f in os.listdir(folder) if f.startswith(base + ".tmp") or f.startswith(base + ".probe")]
        if left:
            fail(f"temporary files left next to {p}: {left}", out, err)
    for path, regex, wanted in file_checks:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            fail(f"cannot read {path}: {e}", out, err)
        if bool(re.search(regex, text)) != wanted:
            fail(f"{path} {'does not match' if wanted else 'matches'} {regex!r}", out, err)
    if a.json:
        check_results(a.json, a.bench, out, err)
    if stop_s is not None:
        print(f"stopped {stop_s:.2f}s after SIGINT")


if __name__ == "__main__":
    main()
