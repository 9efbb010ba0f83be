#!/usr/bin/env bash
# Runs a sharded tribench suite through a real Slurm cluster of one node started here:
# munged, slurmctld and slurmd in the foreground with a generated slurm.conf in a temporary
# folder (CPU only, no gres), then scripts/slurm/submit.sh's job array on PoCL with tiny
# datasets, the merge job, and a check that the merged benchmarks are exactly those of an
# unsharded run. Exit 0 passed, 1 failed, 77 skipped (Slurm or munge missing or unable to
# start; the line starting SKIPPED says why). Daemons are stopped on every exit.
# Usage: tests/slurm/run_slurm_test.sh TRIBENCH [SOURCE_DIR]
set -uo pipefail
tribench=${1:?usage: run_slurm_test.sh TRIBENCH [SOURCE_DIR]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
deadline_jobs=${TRIBENCH_SLURM_TEST_SECONDS:-90}  # the first jobs' bound; they take ~15 s here

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; show_logs; exit 1; }

for tool in munged slurmctld slurmd sbatch squeue sinfo scancel python3; do
  command -v "$tool" >/dev/null || skip "$tool not found (scripts/setup.sh installs slurm-wlm and munge)"
done
[[ -x $tribench ]] || fail "no tribench binary at $tribench"

# Jobs inherit the environment: an enclosing Slurm job's variables would confuse sbatch.
while IFS='=' read -r name _; do [[ $name == SLURM_* ]] && unset "$name"; done < <(env)

# munged refuses a socket unless every folder above it lets all users pass (o+x), and its
# path must fit a sockaddr_un (108 bytes): the first temporary folder that allows both.
world_searchable() {
  local d
  d=$(cd "$1" 2>/dev/null && pwd -P) || return 1
  while :; do
    (($(stat -c %a "$d") % 2 == 1)) || return 1
    [[ $d == / ]] && return 0
    d=$(dirname "$d")
  done
}
base=
for candidate in "${TMPDIR:-}" /tmp /var/tmp /dev/shm; do
  [[ -n $candidate && ${#candidate} -le 60 ]] && world_searchable "$candidate" && { base=$candidate; break; }
done
[[ -n $base ]] || skip "no temporary folder that all users may pass through (munged needs one for its socket): ${TMPDIR:-/tmp} is $(stat -c %A "${TMPDIR:-/tmp}")"
tmp=$(mktemp -d "$base/tribench-slurm.XXXXXX")
chmod 755 "$tmp"  # munged wants the socket's folder reachable by all
pids=()
jobs_submitted=()
cleanup() {
  if ((${#jobs_submitted[@]})); then scancel "${jobs_submitted[@]}" 2>/dev/null; fi
  # Stop our daemons (by pid, newest first) and wait for them, at most 10 s.
  for ((i = ${#pids[@]} - 1; i >= 0; --i)); do kill "${pids[i]}" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.2
  done
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

show_logs() {
  for f in "$tmp"/*.log "$tmp"/results/*.log "$tmp"/results/slurm-*.out "$tmp"/limit/*.log "$tmp"/limit/slurm-*.out; do
    [[ -f $f ]] && { echo "--- $f (last 20 lines)"; tail -n 20 "$f"; }
  done
}

# munge: a fresh key, and a socket of our own.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/results"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
mkdir -m 755 "$tmp/sock"
munged -F --socket="$tmp/sock/munge.sock" --key-file="$tmp/munge/munge.key" --pid-file="$tmp/munge/munged.pid" \
  --seed-file="$tmp/munge/seed" --log-file="$tmp/munged.log" >"$tmp/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S $tmp/sock/munge.sock ]] && break; sleep 0.1; done
[[ -S $tmp/sock/munge.sock ]] || skip "munged did not start: $(tail -n 1 "$tmp/munged.out.log")"

# Two free ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
user=$(id -un)
node=tbnode  # slurmd -N names it; slurmctld must be this host's short name
cpus=$(nproc)
export SLURM_CONF="$tmp/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=tribench-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
CredType=cred/munge
# cred_expire: also how long a requeued job waits to start again (120 s by default)
AuthInfo=socket=$tmp/sock/munge.sock,cred_expire=10
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/slurmd.out.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 100); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
  [[ $state == idle ]] && break
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
  sleep 0.2
done
if [[ $state != idle ]]; then
  why=$(cat "$tmp/slurmctld.out.log" "$tmp/slurmd.out.log" 2>/dev/null | grep -iE 'fatal' | tail -n 1)
  skip "the Slurm node did not come up within 20 s (state '${state:-none}'${why:+; $why})"
fi
echo "slurm: node $node idle ($cpus CPUs, slurmctld port $ctld_port)"

# Tiny PoCL datasets: 2 mandelbrot + 6 spmv benchmarks in 3 shards.
run_args=(--program mandelbrot,spmv --dataset 128x128,512x512,poisson2d-s,fem-s,random-s --backend opencl
          --min-time 0.01 --timeout 0.2 --min-samples 2 --no-calibrate)
submitted=$("$src/scripts/slurm/submit.sh" --shards 3 --no-gpu --out "$tmp/results" --tribench "$tribench" \
  -- "${run_args[@]}") || fail "submit.sh failed"
echo "slurm: $submitted"
read -r array merge < <(sed -E 's/^array job ([0-9]+) .* merge job ([0-9]+) .*/\1 \2/' <<<"$submitted")
[[ $array =~ ^[0-9]+$ && $merge =~ ^[0-9]+$ ]] || fail "cannot read job ids from: $submitted"
jobs_submitted=("$array" "$merge")

# The unsharded reference run meanwhile, outside Slurm.
"$tribench" run "${run_args[@]}" --out "$tmp/full.json" >"$tmp/full.log" 2>&1
full_rc=$?
((full_rc <= 1)) || fail "unsharded run exited with $full_rc"

for ((t = 0; t < deadline_jobs * 5; ++t)); do
  [[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]] && break
  sleep 0.2
done
[[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]] && jobs_submitted=() ||
  fail "jobs still queued or running after ${deadline_jobs} s: $(squeue -h -j "$array,$merge" -o '%i %T %r' | tr '\n' ';')"
[[ -s $tmp/results/merged.json ]] || fail "the merge job wrote no merged.json"

python3 - "$tmp/full.json" "$tmp/results" <<'PY' || fail "merged results do not match the unsharded run"
import json, sys, glob, os
full = json.load(open(sys.argv[1]))
merged = json.load(open(os.path.join(sys.argv[2], "merged.json")))
want = sorted(b["name"] for b in full["benchmarks"])
got = sorted(b["name"] for b in merged["benchmarks"])
assert got == want, f"merged {got} != unsharded {want}"
assert sorted(merged["selection"]) == want, "selection differs"
assert len(merged["merged_from"]) == 3, "expected 3 shards"
shards = sorted((m["shard"]["index"], m["shard"]["count"]) for m in merged["merged_from"])
assert shards == [(1, 3), (2, 3), (3, 3)], shards
jobs = [m["shard"]["batch_job"] for m in merged["merged_from"]]
assert all(j for j in jobs), f"a shard did not record its Slurm job: {jobs}"
per_shard = [m["benchmarks"] for m in merged["merged_from"]]
assert sum(per_shard) == len(want), per_shard
print(f"slurm: merged {len(got)} benchmarks from shards of {per_shard} (jobs {', '.join(jobs)}) = unsharded run")
PY
"$tribench" compare "$tmp/full.json" "$tmp/results/merged.json" >"$tmp/compare.log" 2>&1
rc=$?
((rc <= 1)) || fail "compare refused the merged file (exit $rc): $(tail -n 1 "$tmp/compare.log")"

# --- A shard cut by its time limit resumes, and the merge completes -------------------------
# One shard of ~48 s of sampling (8 benchmarks of 6 s) under a 1-minute limit, warned 50 s
# before it: slurmctld checks limits every 30 s, so SIGTERM comes 10-40 s in, tribench writes
# what it finished, the task requeues itself and resumes, as often as it takes.
tl_args=(--program spmv --variant scalar --small --backend opencl --min-time 6 --timeout 6 --max-noise 0.000001
         --min-samples 2 --max-samples 100000000 --budget 0 --no-calibrate --no-batch)
mkdir -p "$tmp/limit"
submitted=$(TRIBENCH_MAX_REQUEUES=8 POCL_MAX_PTHREAD_COUNT=1 "$src/scripts/slurm/submit.sh" --shards 1 --no-gpu \
  --out "$tmp/limit" --tribench "$tribench" --sbatch --time=1 --sbatch --signal=B:TERM@50 -- "${tl_args[@]}") ||
  fail "submit.sh failed (time limit)"
echo "slurm: time limit: $submitted"
read -r array merge < <(sed -E 's/^array job ([0-9]+) .* merge job ([0-9]+) .*/\1 \2/' <<<"$submitted")
jobs_submitted=("$array" "$merge")
limit_deadline=${TRIBENCH_SLURM_LIMIT_SECONDS:-300}
for ((t = 0; t < limit_deadline * 5; ++t)); do
  [[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]] && break
  sleep 0.2
done
[[ -z $(squeue -h -j "$array,$merge" 2>/dev/null) ]] && jobs_submitted=() ||
  fail "time limit: jobs still queued or running after ${limit_deadline} s: $(squeue -h -j "$array,$merge" -o '%i %T %r' | tr '\n' ';')"
log="$tmp/limit/shard-1-of-1.log"
grep -q "stopped by SIGTERM" "$log" || fail "time limit: the shard was never stopped by SIGTERM (see $log)"
grep -q "requeued to resume" "$tmp"/limit/slurm-*_1.out || fail "time limit: the shard did not requeue itself"
grep -q "^tribench: resuming .*: [1-9][0-9]* of 8 benchmarks finished before" "$log" ||
  fail "time limit: no start resumed finished benchmarks"
[[ ! -e $tmp/limit/shard-1-of-1.json.journal ]] || fail "time limit: the journal outlived the completed shard"
python3 - "$tmp/limit/merged.json" <<'PY' || fail "time limit: the merged results are not complete"
import json, sys
merged = json.load(open(sys.argv[1]))
status = {b["name"]: b["status"] for b in merged["benchmarks"]}
assert len(status) == 8 and all(s == "ok" for s in status.values()), status
PY
starts=$(grep -c "^shard 1/1 on .* start" "$tmp"/limit/slurm-*_1.out)
echo "slurm: time limit: 8 benchmarks ok after $starts starts of the shard, merged"
echo "PASSED"
