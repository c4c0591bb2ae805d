#!/bin/bash
# Sourced by scripts/check-slurm.sh and benches/hunk4j/shards.sh: a real single-node
# Slurm cluster on this machine (munged, slurmctld, slurmd on localhost) whose files live
# in $W (a path without spaces: slurm.conf cannot hold one). Needs root and the packages
# slurm-wlm and munge. The caller defines not_run MESSAGE (print and exit non-zero);
# every daemon started here is stopped when the caller's shell exits. Exports SLURM_CONF.
rm -rf "$W"
mkdir -p "$W/state" "$W/spool"
STARTED_MUNGE=""
cleanup() {
  set +e
  if [ -f "$W/ctld.pid" ]; then scancel --quiet -u root 2>/dev/null; fi
  for pidfile in "$W/d.pid" "$W/ctld.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
  done
  [ -n "$STARTED_MUNGE" ] && kill "$STARTED_MUNGE" 2>/dev/null
  sleep 1
  for pidfile in "$W/d.pid" "$W/ctld.pid"; do
    [ -f "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null
  done
  return 0
}
trap cleanup EXIT

# 1. munge: a key if there is none, munged unless one already answers.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
    chown munge:munge /etc/munge/munge.key 2>/dev/null || true
    chmod 400 /etc/munge/munge.key
  fi
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  munged --force --pid-file="$W/munged.pid" 2>"$W/munged.err" || true
  for _ in $(seq 50); do [ -s "$W/munged.pid" ] && break; sleep 0.1; done
  STARTED_MUNGE=$(cat "$W/munged.pid" 2>/dev/null || true)
  munge -n | unmunge | grep -q "STATUS: *Success" || { echo "slurm check: munged does not work: $(cat "$W/munged.err")" >&2; exit 1; }
fi

# 2. the configuration (the machine's hostname as controller and only node).
HOST=$(hostname)
CPUS=$(nproc)
MEM=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
cat > "$W/slurm.conf" <<CONF
ClusterName=hunkgencheck
SlurmctldHost=$HOST
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldLogFile=$W/ctld.log
SlurmdLogFile=$W/d.log
SlurmctldPidFile=$W/ctld.pid
SlurmdPidFile=$W/d.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$W/slurm.conf"

# 3. the daemons; the node must come up idle.
slurmctld || not_run "slurmctld did not start: $(tail -3 "$W/ctld.log" 2>/dev/null)"
for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.2; done
slurmd || not_run "slurmd did not start: $(tail -3 "$W/d.log" 2>/dev/null)"
for _ in $(seq 150); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 0.2; done
sinfo -h -o %t | grep -q idle || not_run "the node did not come up: $(tail -5 "$W/d.log")"
