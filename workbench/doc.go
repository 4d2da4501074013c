// Package workbench is the experiment engine of the sampling-bias workbench, the library behind
// the experiments command: it loads and checks a TOML config (strictly: unknown keys, wrong
// types, out-of-range values and explicit zeros that would be replaced by a default are errors
// naming the file, line and key; runs that would overflow a count or exceed the machine's memory
// are refused before anything is allocated), expands its ablation grid over seeds, runs every run
// resumably, mid-training included (training two-tower models with each loss variant
// and evaluating full-corpus Recall@K, NDCG@K and MRR by head, torso and tail items, or Yi et
// al.'s frequency-estimation simulation), and writes metrics.csv, summary.md and the figures.
//
// Main is the command itself, callable from Go: a program that registers its own loss variants
// and then calls Main is the experiments command with those variants added.
package workbench
