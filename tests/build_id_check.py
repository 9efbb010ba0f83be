#!/usr/bin/env python3
"""cmake/WriteBuildId.cmake, which writes the commit results files record at every build: in a
git repository the HEAD commit, rewritten after a new commit and left untouched (its time
included, so nothing recompiles) when the commit is the same; -DFIXED_COMMIT wins; a tree
without .git says unknown. Usage: build_id_check.py CMAKE WRITE_BUILD_ID.cmake WORKDIR"""
import os
import shutil
import subprocess
import sys

cmake, script, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
repo = os.path.join(work, "repo")
os.makedirs(repo)
out = os.path.join(work, "build_id.cpp")
failures = []
git_env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1", "HOME": work}


def git(*args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True, env=git_env).stdout.strip()


def write(source_dir, *extra):
    # The ceiling keeps git from finding a repository above WORKDIR (a build folder inside a checkout).
    subprocess.run([cmake, f"-DSOURCE_DIR={source_dir}", f"-DOUT={out}", "-DVERSION=9.8.7", *extra, "-P", script],
                   check=True, capture_output=True, text=True, env={**os.environ, "GIT_CEILING_DIRECTORIES": work})
    with open(out) as f:
        return f.read()


def check(cond, what):
    if not cond:
        failures.append(what)


git("init", "-q")
git("commit", "-q", "--allow-empty", "-m", "one")
first = git("rev-parse", "--short=12", "HEAD")
text = write(repo)
check(f'return "{first}";' in text and 'return "9.8.7";' in text, f"first commit {first} not written:\n{text}")
os.utime(out, (1, 1))
write(repo)
check(os.stat(out).st_mtime == 1, "the same commit rewrote the file (every build would recompile it)")
git("commit", "-q", "--allow-empty", "-m", "two")
second = git("rev-parse", "--short=12", "HEAD")
text = write(repo)
check(f'return "{second}";' in text and os.stat(out).st_mtime != 1, f"a new commit {second} was not written:\n{text}")
check('return "abc123";' in write(repo, "-DFIXED_COMMIT=abc123"), "-DFIXED_COMMIT was not written")
plain = os.path.join(work, "plain")
os.makedirs(plain)
check('return "unknown";' in write(plain), "a tree without .git did not say unknown")

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print("WriteBuildId.cmake: all checks passed")
