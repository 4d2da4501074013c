#!/usr/bin/env bash
# End-to-end test of the Slurm launcher on a real one-node Slurm cluster on localhost: installs
# Debian's slurm-wlm and munge when missing (as root), starts munged, slurmctld and slurmd with a
# private configuration in a temporary directory, submits configs/smoke.toml with the shipped
# launch/slurm-submit.sh (an array of one task per run, then the report step), waits (bounded),
# and checks that the merged metrics.csv is byte-identical to a plain local run's. Every step has
# a time bound; a failure names its step and prints the daemons' and jobs' logs. Whatever it
# started is stopped at exit.
#
#   bash .ci/slurm-e2e.sh          (root; about a minute once the packages are installed)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
step=start
fail() {
	echo "slurm-e2e: FAILED at step: $step${1:+ ($1)}" >&2
	for f in "$work"/log/*.log "$work"/out/*.out; do
		[ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
	done
	exit 1
}
trap 'fail "command failed: line $LINENO"' ERR
say() { step=$*; echo "== slurm-e2e: $step"; }

[ "$(id -u)" = 0 ] || { echo "slurm-e2e: needs root (installs packages, starts daemons)" >&2; exit 1; }
work=$(mktemp -d -t slurm-e2e.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/log" "$work/out" "$work/state" "$work/spool"
started_munged=
cleanup() {
	set +e
	[ -n "${SLURM_CONF:-}" ] && command -v scancel >/dev/null && scancel --quiet --user=root 2>/dev/null
	for f in "$work"/slurmd.pid "$work"/slurmctld.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	[ -n "$started_munged" ] && [ -f /run/munge/munged.pid ] && kill "$(cat /run/munge/munged.pid)" 2>/dev/null
	sleep 1
	[ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT

say "install slurm-wlm and munge"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	timeout 600 apt-get update -qq
	timeout 900 apt-get install -y -qq slurm-wlm munge >"$work/log/apt.log" 2>&1 || fail "apt-get install; see apt.log"
fi

say "start munged"
if ! timeout 10 munge -n 2>/dev/null | timeout 10 unmunge >/dev/null 2>&1; then
	if [ ! -s /etc/munge/munge.key ]; then
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	fi
	chown munge:munge /etc/munge/munge.key
	chmod 400 /etc/munge/munge.key
	mkdir -p /run/munge /var/log/munge /var/lib/munge
	chown munge:munge /run/munge /var/log/munge /var/lib/munge
	su -s /bin/sh munge -c /usr/sbin/munged
	started_munged=1
	for _ in $(seq 50); do
		munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
		sleep 0.2
	done
	munge -n | unmunge >/dev/null || fail "munged does not answer"
fi

say "configure a one-node cluster"
host=$(hostname -s)
mem=$(( $(free -m | awk '/^Mem:/ {print $2}') - 1024 ))
port=$(( 16817 + RANDOM % 1000 ))
export SLURM_CONF=$work/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=e2e
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1000))
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ReturnToService=2
MinJobAge=600
NodeName=$host CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=e2e Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$work/cgroup.conf" <<CONF
CgroupPlugin=cgroup/v1
IgnoreSystemd=yes
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
CONF

say "start slurmctld and slurmd"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
ready=
for _ in $(seq 60); do
	if timeout 5 sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then ready=1; break; fi
	sleep 1
done
[ -n "$ready" ] || fail "the node did not become idle within 60 s: $(sinfo 2>&1 | tr '\n' ' ')"

say "build the command"
timeout 600 go build -o "$work/experiments" ./experiments
export EXPERIMENTS=$work/experiments

say "plain local run of configs/smoke.toml"
timeout 600 "$EXPERIMENTS" -config configs/smoke.toml -out "$work/local" >"$work/log/local.log" 2>&1 || fail "see local.log"

say "submit the smoke grid with launch/slurm-submit.sh"
cd "$work/out"
ids=$(timeout 60 "$repo/launch/slurm-submit.sh" "$repo/configs/smoke.toml" -out "$work/sharded" -jobs 1)
echo "$ids"
grid=$(echo "$ids" | sed -n 's/^grid \([0-9]*\) .*/\1/p')
report=$(echo "$ids" | sed -n 's/.*report \([0-9]*\)$/\1/p')
tasks=$(echo "$ids" | sed -n 's/^grid [0-9]* (\([0-9]*\) tasks).*/\1/p')
[ -n "$grid" ] && [ -n "$report" ] && [ "$tasks" = 4 ] || fail "unexpected submission output: $ids"

say "wait for the array and the report (at most 600 s)"
deadline=$(( $(date +%s) + 600 ))
while [ -n "$(squeue -h -j "$grid,$report" 2>/dev/null)" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || fail "jobs still queued or running after 600 s: $(squeue 2>&1 | tr '\n' ' ')"
	sleep 2
done
for j in "$grid" "$report"; do
	states=$(scontrol -o show job "$j" | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
	[ "$states" = "JobState=COMPLETED " ] || fail "job $j ended as: $states"
done
cd "$repo"

say "compare metrics.csv with the local run's"
[ -f "$work/sharded/metrics.csv" ] || fail "the report wrote no metrics.csv"
for i in 0 1 2 3; do
	grep -q "shard $i/4" "$work"/out/slurm-"$grid"_*.out || fail "no task ran shard $i/4"
done
cmp "$work/local/metrics.csv" "$work/sharded/metrics.csv" || fail "metrics.csv differs from the local run's"
for f in summary.md recall_at_10.png loss_curves.png; do
	[ -f "$work/sharded/$f" ] || fail "the report wrote no $f"
done
say "a failing task cancels the report job instead of leaving it pending"
cat >"$work/failing" <<SH
#!/bin/sh
# -list answers as the command does; every task fails.
case " \$* " in *" -list "*) exec "$work/experiments" "\$@" ;; esac
exit 3
SH
chmod 755 "$work/failing"
cd "$work/out"
ids=$(EXPERIMENTS=$work/failing timeout 60 "$repo/launch/slurm-submit.sh" "$repo/configs/smoke.toml" -out "$work/failed")
grid=$(echo "$ids" | sed -n 's/^grid \([0-9]*\) .*/\1/p')
report=$(echo "$ids" | sed -n 's/.*report \([0-9]*\)$/\1/p')
[ -n "$grid" ] && [ -n "$report" ] || fail "unexpected submission output: $ids"
deadline=$(( $(date +%s) + 120 ))
while [ -n "$(squeue -h -j "$grid,$report" 2>/dev/null)" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || fail "jobs still queued after 120 s: $(squeue 2>&1 | tr '\n' ' ')"
	sleep 2
done
states=$(scontrol -o show job "$report" | grep -o 'JobState=[A-Z_]*' | sort -u | tr '\n' ' ')
[ "$states" = "JobState=CANCELLED " ] || fail "the report job of a failed grid ended as: $states"
cd "$repo"

echo "slurm-e2e: ok (4 array tasks and the report; metrics.csv identical to the local run's; a failed task cancels the report)"
