#!/usr/bin/env bash
# Submits an experiment's grid to Slurm as a job array of one task per run (launch/slurm.sbatch),
# then its report step, which runs once every task has succeeded (and is cancelled if one fails or
# is cancelled, rather than left pending for ever). Prints the two job ids.
#
#   launch/slurm-submit.sh CONFIG [experiments flags, e.g. -out DIR]
#
# EXPERIMENTS names the command (default bin/experiments); extra sbatch options can be given in
# SBATCH_OPTS (e.g. "--partition=gpu --time=02:00:00").
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: launch/slurm-submit.sh CONFIG [experiments flags...]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
exe=${EXPERIMENTS:-bin/experiments}
if ! command -v "$exe" >/dev/null 2>&1; then
	echo "slurm-submit: $exe is not built: go build -o bin/experiments ./experiments (or set EXPERIMENTS to the command)" >&2
	exit 1
fi
# without NAMES ARGS... sets kept to ARGS without the flags NAMES (space-separated) as -name,
# --name or -name=value, and the value after -name for any but force: the tasks take every flag,
# -list and -report refuse those that would not apply to them (-force, -jobs; -only for -report).
without() {
	local names=" $1 " skip= a n
	shift
	kept=()
	for a in "$@"; do
		if [ -n "$skip" ]; then
			skip=
			continue
		fi
		n=${a#-}
		n=${n#-}
		n=${n%%=*}
		if [[ $a == -* ]] && [[ $names == *" $n "* ]]; then
			[ "$n" != force ] && [[ $a != *=* ]] && skip=1
			continue
		fi
		kept+=("$a")
	done
}
without "force jobs" "$@"
list_args=("${kept[@]}")
without "force jobs only" "$@"
report_args=("${kept[@]}")
if ! list=$("$exe" -list -config "${list_args[@]}"); then
	echo "slurm-submit: $exe -list -config ${list_args[*]} failed (its error is above)" >&2
	exit 1
fi
# The last line of -list is the count: "# 1 run" or "# N runs".
n=$(printf '%s\n' "$list" | sed -n 's/^# \([0-9][0-9]*\) runs\{0,1\}$/\1/p')
if [ -z "$n" ] || [ "$n" -lt 1 ]; then
	echo "slurm-submit: $exe -list -config ${list_args[*]} printed no count of runs" >&2
	exit 1
fi
# shellcheck disable=SC2086 # SBATCH_OPTS is a list of options
grid=$(sbatch --parsable ${SBATCH_OPTS:-} --array=0-$((n - 1)) "$here/slurm.sbatch" "$@")
grid=${grid%%;*}
report=$(sbatch --parsable ${SBATCH_OPTS:-} --job-name=workbench-report --dependency=afterok:"$grid" \
	--kill-on-invalid-dep=yes --output=slurm-%j-report.out --wrap "$(printf '%q ' "$exe" -config "${report_args[@]}" -report)")
echo "grid $grid ($n tasks), report $report"
