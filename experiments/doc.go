// Command experiments runs a workbench experiment described by a TOML config: a retrieval
// experiment (train two-tower models with each loss variant of an ablation grid, repeated over
// seeds, and evaluate full-corpus Recall@K, NDCG@K and MRR by head, torso and tail items) or Yi et
// al.'s frequency-estimation simulation.
//
//	go run ./experiments -config configs/wiki.toml [-out DIR] [-set key=value ...] [-jobs N] [-only REGEXP] [-force]
//
// The config is decoded strictly (unknown keys, wrong types and out-of-range values are errors
// naming the file, line and key); -set overrides any value with the same checks. Every run writes
// its resolved config, metrics.json, training curve and model under <out>/runs/<id>/; the
// experiment writes metrics.csv, summary.md and PNG figures. Files are written atomically and a
// finished run is never redone unless -force is given, so an interrupted experiment resumes where
// it stopped. See README.md for the config format and the output layout.
package main
