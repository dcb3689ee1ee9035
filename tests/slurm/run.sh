#!/bin/sh
# run.sh - the tuner's launcher path through a real Slurm: a private
# single-node cluster (slurmctld + slurmd of Debian's slurm-wlm, in a
# scratch directory, on ports of its own) is started, `mlcc tune --launcher
# 'srun -N1 -n1'` measures through it, the records it brings back are
# checked and applied, and the cluster is stopped again.
#   sh tests/slurm/run.sh [MLCC]        (`make test-slurm`; root, since the
#                                        daemons run as root)
# Not part of `make test`.  Ends with "N passed, N failed" like the suite.
# Without slurm-wlm it says what it needs and fails (exit 2).
set -u
MLCC=${1:-build/mlcc}
case $MLCC in /*) ;; *) MLCC=$(pwd)/$MLCC ;; esac
module=tests/golden/roundtrip/mm_relu.py

for cmd in slurmctld slurmd srun sinfo; do
  if ! command -v "$cmd" >/dev/null 2>&1 && ! [ -x "/usr/sbin/$cmd" ]; then
    echo "test-slurm: needs Debian's slurm-wlm ($cmd is missing): sh scripts/install-deps.sh --slurm" >&2
    exit 2
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  echo "test-slurm: needs root (slurmd runs jobs as their users, and this cluster's daemons run as root)" >&2
  exit 2
fi
PATH=$PATH:/usr/sbin

dir=$(mktemp -d "${TMPDIR:-/tmp}/mlcc-slurm.XXXXXX") || exit 2
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok $1"; }
fail() { # NAME REASON [FILE]
  failed=$((failed + 1))
  echo "FAIL $1: $2"
  if [ $# -ge 3 ] && [ -s "$3" ]; then head -n 12 "$3" | sed 's/^/    /'; fi
}

# the daemons run in the foreground as this script's children, so it ends
# and reaps exactly them
daemons=''
stop_cluster() {
  for p in $daemons; do kill "$p" 2>/dev/null; done
  for p in $daemons; do wait "$p" 2>/dev/null; done
  rm -rf "$dir"
}
trap stop_cluster EXIT
trap 'exit 130' HUP INT TERM

host=$(hostname -s)
# the node as slurmd sees it (CPUs, sockets, memory)
node=$(slurmd -C 2>/dev/null | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")
[ -n "$node" ] || node="NodeName=$host CPUs=$(getconf _NPROCESSORS_ONLN)"
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<EOF
ClusterName=mlcctest
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
$node State=UNKNOWN
PartitionName=tune Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
SLURM_CONF=$dir/slurm.conf
export SLURM_CONF

slurmctld -D -f "$SLURM_CONF" >"$dir/ctld.out" 2>&1 &
daemons="$daemons $!"
slurmd -D -f "$SLURM_CONF" >"$dir/d.out" 2>&1 &
daemons="$daemons $!"
# up when the node is idle (30 s at most)
up=0
for _ in $(seq 60); do
  if sinfo -h -o %t 2>/dev/null | grep -q idle; then up=1; break; fi
  sleep 0.5
done
if [ $up = 1 ] && srun -N1 -n1 true >"$dir/srun.err" 2>&1; then ok "slurm: a single-node cluster runs srun"
else
  cat "$dir/ctld.out" "$dir/d.out" "$dir/slurmctld.log" "$dir/slurmd.log" >"$dir/why" 2>/dev/null
  fail "slurm: a single-node cluster runs srun" "the cluster did not come up" "$dir/why"
  echo "$passed passed, $failed failed"
  exit 1
fi

# tuning through srun: 4 trials in two batches, each measured by a job step
out=$dir/tune
mkdir -p "$out"
if "$MLCC" tune "$module" -o "$out/db.jsonl" --trials 4 --batch 2 --threads 1 --launcher 'srun -N1 -n1' \
     --workdir "$out" >"$out/tune.out" 2>"$out/tune.err"; then
  ok "slurm: mlcc tune --launcher srun"
else
  fail "slurm: mlcc tune --launcher srun" "failed" "$out/tune.err"
fi
if [ "$(wc -l <"$out/db.jsonl" 2>/dev/null)" = 4 ] && grep -q '"seconds":[0-9]' "$out/db.jsonl" &&
   grep -q 'measured through srun' "$out/tune.err"; then
  ok "slurm: the records came back"
else
  fail "slurm: the records came back" "not 4 records with times" "$out/tune.err"
fi
# the records are for this node (its CPU, the features, one thread), so a
# one-thread build here applies the best (which the tuner checked against
# the reference interpreter before it became the best)
if MLCRT_NUM_THREADS=1 "$MLCC" build "$module" -o "$out/tuned.so" --records "$out/db.jsonl" 2>"$out/build.err" &&
   grep -q '^records: 1 kernel tuned$' "$out/build.err"; then
  ok "slurm: build --records applies what came back"
else
  fail "slurm: build --records applies what came back" "failed" "$out/build.err"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
