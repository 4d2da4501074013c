#!/usr/bin/env bash
# The README's speed table in one run: models' BenchmarkTrainStep/batch=1024, BenchmarkWikiStep
# and BenchmarkSASRecStep/impl=fused (SASRec's whole step at every position, in positions/s) and
# metrics' BenchmarkRecallAtK from the pure-Go and the -tags openblas test binaries, and
# PyTorch's same steps and ranking (benchmarks/pytorch/bench.py), run in turn ROUNDS times
# (default 5), so that a drift of the machine's speed touches all of them alike; it prints the CPU
# and each figure's median with its range.
#
#   bash benchmarks/speed.sh [ROUNDS]
#
# What it needs and lacks it installs with apt-get (as root): Debian's libopenblas-dev and
# python3-torch (PyTorch 1.13 on Debian 12). PyTorch runs under Debian's /usr/bin/python3, the
# interpreter that package installs into.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
case $rounds in
'' | *[!0-9]* | 0) echo "speed.sh: ROUNDS must be a positive whole number, not \"$rounds\"" >&2; exit 2 ;;
esac

python=/usr/bin/python3
need=()
# grep reads the whole list (-q would stop at the match and, under pipefail, ldconfig's SIGPIPE
# would count as a miss).
ldconfig -p | grep 'libopenblas\.so ' >/dev/null || need+=(libopenblas-dev)
{ [ -x $python ] && $python -c 'import torch' 2>/dev/null; } || need+=(python3-torch)
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq "${need[@]}" >/dev/null
fi

bin=$(mktemp -d -t speed.XXXXXX)
trap 'rm -rf "$bin"' EXIT
for build in pure openblas; do
	tags=()
	[ $build = openblas ] && tags=(-tags openblas)
	go test "${tags[@]}" -c -o "$bin/models-$build" ./models/
	go test "${tags[@]}" -c -o "$bin/metrics-$build" ./metrics/
done

# figures BUILD prints each examples/s, positions/s and queries/s figure of go test -bench's
# output on its input as "BENCHMARK/BUILD VALUE".
figures() {
	awk -v b="$1" '{ for (i = 2; i < NF; i++) if ($(i+1) == "examples/s" || $(i+1) == "positions/s" || $(i+1) == "queries/s") print $1 "/" b, $i }'
}

for r in $(seq "$rounds"); do
	echo "round $r of $rounds"
	for build in pure openblas; do
		for bench in '^BenchmarkTrainStep$/^batch=1024$' '^BenchmarkWikiStep$'; do
			(cd models && "$bin/models-$build" -test.run '^$' -test.bench "$bench" -test.benchtime 3s) |
				figures $build >>"$bin/figures"
		done
		(cd models && "$bin/models-$build" -test.run '^$' -test.bench '^BenchmarkSASRecStep$/^impl=fused$' -test.benchtime 5x) |
			figures $build >>"$bin/figures"
		(cd metrics && "$bin/metrics-$build" -test.run '^$' -test.bench '^BenchmarkRecallAtK$' -test.benchtime 5x) |
			figures $build >>"$bin/figures"
	done
	$python benchmarks/pytorch/bench.py --repeats 1 |
		awk '$2 ~ /\/s$/ { print "PyTorch/" $1, $3 }' >>"$bin/figures"
done

echo
# The model name alone ("AMD EPYC") does not tell the generations apart: family, model and the
# widest vector instructions do.
cpu=$(awk -F': *' '
	/^cpu family/ && !f { f = $2 }
	/^model[ \t]*:/ && !m { m = $2 }
	/^flags/ && !v { v = $2 ~ /(^| )avx512f( |$)/ ? "AVX-512" : $2 ~ /(^| )avx2( |$)/ ? "AVX2, no AVX-512" : "no AVX2" }
	END { printf "family %s model %s, %s", f, m, v }' /proc/cpuinfo)
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p') ($cpu), $(nproc) cores; $(date -u +%Y-%m-%d); $rounds rounds; $($python -c 'import torch; print("torch", torch.__version__)')"
sort -k1,1 -k2,2n "$bin/figures" | awk '
	function flush() {
		if (n == 0) return
		med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		printf "%-45s median %8.0f  (%.0f-%.0f, %d runs)\n", name, med, v[1], v[n], n
	}
	$1 != name { flush(); name = $1; n = 0 }
	{ v[++n] = $2 }
	END { flush() }'
