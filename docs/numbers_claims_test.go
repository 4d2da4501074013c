package docs

// The claims of README.md and docs/results.md that quote the shipped showcases' numbers, each
// passage as written with its numbers as {} (bold or not), and the source of each number.

// r is Recall@k of a slice as trained; rt the same under post-hoc logit adjustment τ.
func r(slice string, k int) at               { return at{slice, "recall", k, 0} }
func rt(slice string, k int, tau float64) at { return at{slice, "recall", k, tau} }

// Cells of the showcases, by the axis values that select them.
const (
	wiki      = "wiki"
	plain07   = "variant=plain,temperature=0.07"
	plain10   = "variant=plain,temperature=0.1"
	incl07    = "logq_probability=inclusion,temperature=0.07"
	incl10    = "logq_probability=inclusion,temperature=0.1"
	expected  = "logq_probability=expected_count"
	dedupe    = "logq_probability=dedupe"
	wikiFull  = "variant=full"
	samplersS = "samplers"
	kh        = "khrylchenko"
	khCorrLaw = "variant=logq_corrected,declare=law"
	khCorrUni = "variant=logq_corrected,declare=unigram"
	khOldLaw  = "variant=logq,declare=law"
	khOldUni  = "variant=logq,declare=unigram"
	khFull    = "variant=full"
	khPlain   = "variant=plain"
)

// khAudit names the cells of the Khrylchenko showcase in its summary's audit notes.
const (
	khAuditLaw     = "variant=logq_corrected,sampler.kind=mixture,of=in_batch_unique-128+uniform_per_row-128,uncorrected_positive=false,declare=law"
	khAuditUnigram = "variant=logq_corrected,sampler.kind=mixture,of=in_batch_unique-128+uniform_per_row-128,uncorrected_positive=false,declare=unigram"
)

// wikiDiff is a row of the wiki showcase's differences.csv against the full softmax.
func wikiDiff(cell string, a at) paired {
	return paired{file: "differences.csv", cell: cell, base: wikiFull, at: a}
}

// khDiff is a row of the Khrylchenko showcase's differences.csv against the full softmax.
func khDiff(cell string, a at) paired {
	return paired{file: "differences.csv", cell: cell, base: khFull, at: a}
}

// samplerCell selects a cell of the samplers showcase: a sampler and a loss (plain, logq or
// logq_corrected).
func samplerCell(sampler, loss string) string {
	return "sampler.kind=" + sampler + ",variant=" + loss
}

// samplerDiff is a row of the samplers showcase's differences.csv against the full softmax.
func samplerDiff(sampler, loss string, a at) paired {
	return paired{file: "differences.csv", cell: samplerCell(sampler, loss), base: "variant=full", at: a}
}

// meanHalf is a difference's mean and half-width, the "m ± h" of the text.
func meanHalf(show string, p paired) []source { return []source{diff(show, p), half(show, p)} }

// cat joins sources.
func cat(groups ...[]source) []source {
	var out []source
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// quotedNumbers are the claims TestQuotedNumbers checks.
func quotedNumbers() []claim {
	var cs []claim
	add := func(doc, passage string, srcs ...source) { cs = append(cs, claim{doc, passage, srcs}) }
	readme, results := "README.md", "docs/results.md"

	// README: what the main job shows.
	add(readme, "Recall@10 of {} held-out Wikispeedia links", pairs(wiki, "all"))
	add(readme, "the plain batch softmax reaches {} overall, {} on the head.",
		mean(wiki, plain07, r("all", 10)), mean(wiki, plain07, r("head", 10)))
	var ecSlices []source
	for _, sl := range []string{"head", "torso", "tail", "all"} {
		ecSlices = append(ecSlices, diff(wiki, wikiDiff(expected, r(sl, 10))))
	}
	add(readme, "logQ corrected by the expected number of copies in the batch (the default) reaches {} against "+
		"the full softmax's {}: their paired differences of Recall@10 are within ±{} of 0 on every slice",
		mean(wiki, expected, r("all", 10)), mean(wiki, wikiFull, r("all", 10)),
		extreme("the largest |logQ (expected count) − full| of Recall@10 by slice", false, true, ecSlices...))
	add(readme, "while at Recall@100 and @300 it is {} and {} below the full softmax overall",
		negate(diff(wiki, wikiDiff(expected, r("all", 100)))), negate(diff(wiki, wikiDiff(expected, r("all", 300)))))
	add(readme, "logQ with Yi et al.'s inclusion probability as written ({}) saturates", mean(wiki, incl07, r("all", 10)))
	var many, few []source
	for _, loss := range []string{"logq", "logq_corrected"} {
		for _, smp := range []string{"in_batch", "mixed"} {
			many = append(many, diff(samplersS, samplerDiff(smp, loss, r("all", 10))))
		}
		for _, smp := range []string{"in_batch_unique", "uniform", "popularity"} {
			few = append(few, negate(diff(samplersS, samplerDiff(smp, loss, r("all", 10)))))
		}
	}
	add(readme, "(in-batch, mixed: within ±{} of its Recall@10) and fall {}–{} short with 256",
		extreme("the largest |correction − full| of Recall@10, in-batch and mixed", false, true, many...),
		extreme("the least shortfall of Recall@10 with 256 negatives", true, false, few...),
		extreme("the largest shortfall of Recall@10 with 256 negatives", false, false, few...))
	add(readme, "the two corrections differ by at most {} (Recall@100 of the distinct in-batch tail",
		diff(samplersS, paired{file: "contrasts.csv", contrast: "logq_corrected − logQ (expected count)", by: "in_batch_unique", at: r("tail", 100)}))
	add(readme, "the full softmax (Recall@100 {} ± {} and {} ± {} against it) and cannot be told apart ({} ± {})",
		cat(meanHalf(kh, khDiff(khCorrLaw, r("all", 100))), meanHalf(kh, khDiff(khOldLaw, r("all", 100))),
			meanHalf(kh, paired{file: "contrasts.csv", contrast: "corrected − old", by: "law", at: r("all", 100)}))...)
	add(readme, "fails the sampler audit (total variation {}, five times the {} of sampling noise)",
		audit(kh, khAuditUnigram, "tv"), audit(kh, khAuditUnigram, "floor"))
	add(readme, "(Recall@100 head {} ± {}, tail {} ± {} for the corrected loss;",
		cat(meanHalf(kh, khDiff(khCorrUni, r("head", 100))), meanHalf(kh, khDiff(khCorrUni, r("tail", 100))))...)
	add(readme, "and the corrected one is {} ± {} above it on the tail.", meanHalf(kh, khDiff(khCorrLaw, r("tail", 100)))...)

	// docs/results.md: the Wikipedia experiment.
	add(results, "(head: the {} pages that receive the first third of the training links; torso: the next {}; tail: the other {}),",
		items(wiki, "head"), items(wiki, "torso"), items(wiki, "tail"))
	add(results, "Recall@10 of the destination page for {} held-out links", pairs(wiki, "all"))
	for _, row := range []struct{ label, cell string }{
		{"plain batch softmax, τ = 0.07 (Yi eq. 3)", plain07},
		{"logQ, Q = inclusion p̂ (Yi eq. 4 with Algorithm 2 as written), τ = 0.07", incl07},
		{"logQ, Q = expected count (B−1)·q (the default)", expected},
		{"logQ, Q = inclusion p̂ of one column per distinct page (dedupe)", dedupe},
		{"importance weighting (Rawat Table 1)", "variant=importance"},
		{"relative weighting (Rawat Table 1)", "variant=relative"},
		{"constant weighting (Rawat Table 1)", "variant=constant"},
		{"tail weighting (Rawat eq. 14)", "variant=tail"},
		{"MSE + Gramian (Krichene et al.)", "variant=mse_gramian"},
		{"full softmax", wikiFull},
		{"*most popular page (no training)*", "baseline:most_popular"},
		{"*random ranking, K/M*", "baseline:random"},
	} {
		add(results, "| "+row.label+" | {} | {} | {} | {} | {} |",
			mean(wiki, row.cell, r("head", 10)), mean(wiki, row.cell, r("torso", 10)), mean(wiki, row.cell, r("tail", 10)),
			mean(wiki, row.cell, r("all", 10)), mean(wiki, row.cell, r("all", 100)))
	}
	add(results, "overall it is *below* ranking every query's pages by training popularity ({} against {} at K = 10, {} against {} at K = 100)",
		mean(wiki, plain07, r("all", 10)), mean(wiki, "baseline:most_popular", r("all", 10)),
		mean(wiki, plain07, r("all", 100)), mean(wiki, "baseline:most_popular", r("all", 100)))
	add(results, "the paired differences against the full softmax are within ±{} of 0 with intervals that include 0, "+
		"while inclusion-p̂ logQ is {} ± {} below it overall and {} below on the head",
		extreme("the largest |logQ (expected count or dedupe) − full| of Recall@10 by slice", false, true,
			append(ecSlices, diff(wiki, wikiDiff(dedupe, r("head", 10))), diff(wiki, wikiDiff(dedupe, r("torso", 10))),
				diff(wiki, wikiDiff(dedupe, r("tail", 10))), diff(wiki, wikiDiff(dedupe, r("all", 10))))...),
		negate(diff(wiki, wikiDiff(incl07, r("all", 10)))), half(wiki, wikiDiff(incl07, r("all", 10))),
		negate(diff(wiki, wikiDiff(incl07, r("head", 10)))))
	inclExp := func(sl string) paired {
		return paired{file: "contrasts.csv", contrast: "logQ inclusion p̂ − expected count", at: r(sl, 10)}
	}
	add(results, "{} ± {} head, {} ± {} torso, {} ± {} tail, {} ± {} all, every interval away from 0",
		cat(meanHalf(wiki, inclExp("head")), meanHalf(wiki, inclExp("torso")), meanHalf(wiki, inclExp("tail")), meanHalf(wiki, inclExp("all")))...)
	add(results, "adjusted by τ_LA = −1 lands on the full softmax (head {}, tail {}, all {} against {}, {}, {};",
		mean(wiki, plain07, rt("head", 10, -1)), mean(wiki, plain07, rt("tail", 10, -1)), mean(wiki, plain07, rt("all", 10, -1)),
		mean(wiki, wikiFull, r("head", 10)), mean(wiki, wikiFull, r("tail", 10)), mean(wiki, wikiFull, r("all", 10)))
	plainFull := func(sl string) paired {
		return paired{file: "contrasts.csv", contrast: "plain at τ_LA = −1 − full", at: r(sl, 10)}
	}
	fullPlain := func(sl string) paired {
		return paired{file: "contrasts.csv", contrast: "full at τ_LA = 1 − plain", at: r(sl, 10)}
	}
	add(results, "paired by seed: {} ± {} head, {} ± {} tail, {} ± {} all)",
		cat(meanHalf(wiki, plainFull("head")), meanHalf(wiki, plainFull("tail")), meanHalf(wiki, plainFull("all")))...)
	add(results, "the full softmax adjusted by +1 lands on the plain batch softmax ({}, {}, {} against {}, {}, {}; contrast {} ± {}, {} ± {}, {} ± {})",
		cat([]source{mean(wiki, wikiFull, rt("head", 10, 1)), mean(wiki, wikiFull, rt("tail", 10, 1)), mean(wiki, wikiFull, rt("all", 10, 1)),
			mean(wiki, plain07, r("head", 10)), mean(wiki, plain07, r("tail", 10)), mean(wiki, plain07, r("all", 10))},
			meanHalf(wiki, fullPlain("head")), meanHalf(wiki, fullPlain("tail")), meanHalf(wiki, fullPlain("all")))...)
	ratioRow := func(label, cell string) {
		var srcs []source
		for i, k := range []int{10, 50, 100, 300} {
			srcs = append(srcs, ratio(mean(wiki, cell, r("all", k)), mean(wiki, plain07, r("all", k))))
			if i == 0 && cell != "variant=mse_gramian" {
				srcs = append(srcs, mean(wiki, cell, r("all", k)), mean(wiki, plain07, r("all", k)))
			}
		}
		passage := "| " + label + " | {} ({} / {}) | {} | {} | {} |"
		if cell == "variant=mse_gramian" {
			passage = "| " + label + " | {} | {} | {} | {} |"
		}
		add(results, passage, srcs...)
	}
	ratioRow("ours: logQ, inclusion p̂ (their form) / plain", incl07)
	ratioRow("ours: logQ, expected count / plain", expected)
	ratioRow("ours: MSE + uniform Gramian / plain", "variant=mse_gramian")
	add(results, "the plain softmax's best τ of the two tried (0.1) gives {} and inclusion logQ's {}",
		mean(wiki, plain10, r("all", 10)), mean(wiki, incl10, r("all", 10)))

	// docs/results.md: which correction recovers the full softmax under which sampler.
	for _, row := range []struct{ label, sampler string }{
		{"| in-batch | B − 1 = 1,023 |", "in_batch"},
		{"| distinct in-batch | 256 |", "in_batch_unique"},
		{"| mixed | 1,023 + 256 |", "mixed"},
		{"| popularity (β = 0.75) | 256 |", "popularity"},
	} {
		var srcs []source
		for _, loss := range []string{"plain", "logq", "logq_corrected"} {
			for _, sl := range []string{"head", "tail", "all"} {
				srcs = append(srcs, meanHalf(samplersS, samplerDiff(row.sampler, loss, r(sl, 10)))...)
			}
		}
		cell := samplerCell(row.sampler, "logq_corrected")
		srcs = append(srcs, audit(samplersS, auditCell(row.sampler), "tv"), audit(samplersS, auditCell(row.sampler), "floor"))
		_ = cell
		add(results, row.label+" {} ± {} / {} ± {} / {} ± {} | {} ± {} / {} ± {} / {} ± {} | {} ± {} / {} ± {} / {} ± {} | {} / {} |", srcs...)
	}
	var uni []source
	for _, loss := range []string{"plain", "logq_corrected"} {
		for _, sl := range []string{"head", "tail", "all"} {
			uni = append(uni, meanHalf(samplersS, samplerDiff("uniform", loss, r(sl, 10)))...)
		}
	}
	uni = append(uni, audit(samplersS, auditCell("uniform"), "tv"), audit(samplersS, auditCell("uniform"), "floor"))
	add(results, "| uniform | 256 | {} ± {} / {} ± {} / {} ± {} | the same as plain (a constant Q cancels) | {} ± {} / {} ± {} / {} ± {} | {} / {} |", uni...)
	add(results, "the in-batch softmax loses {} of the full softmax's head Recall@10 ({} against {})",
		negate(diff(samplersS, samplerDiff("in_batch", "plain", r("head", 10)))),
		mean(samplersS, samplerCell("in_batch", "plain"), r("head", 10)), mean(samplersS, "variant=full", r("head", 10)))
	add(results, "both corrections recover the full softmax on every slice (within ±{} overall)",
		extreme("the largest |correction − full| of Recall@10, in-batch and mixed", false, true, many...))
	add(results, "both corrections fall {}–{} short of the full softmax overall",
		extreme("the least shortfall of Recall@10 with 256 negatives", true, false, few...),
		extreme("the largest shortfall of Recall@10 with 256 negatives", false, false, few...))
	add(results, "logq_corrected − logQ is within ±{} of 0 on every slice, significant after Holm's adjustment only at Recall@10 of the distinct in-batch torso ({}) and at Recall@100 of the popularity sampler's tail ({})",
		diff(samplersS, paired{file: "contrasts.csv", contrast: "logq_corrected − logQ (expected count)", by: "in_batch_unique", at: r("tail", 100)}),
		diff(samplersS, paired{file: "contrasts.csv", contrast: "logq_corrected − logQ (expected count)", by: "in_batch_unique", at: r("torso", 10)}),
		diff(samplersS, paired{file: "contrasts.csv", contrast: "logq_corrected − logQ (expected count)", by: "popularity", at: r("tail", 100)}))
	add(results, "Uniform ({} against {}) and popularity ({} against {}) draw independently",
		audit(samplersS, auditCell("uniform"), "tv"), audit(samplersS, auditCell("uniform"), "floor"),
		audit(samplersS, auditCell("popularity"), "tv"), audit(samplersS, auditCell("popularity"), "floor"))
	add(results, "in-batch ({} against {}), whose positives", audit(samplersS, auditCell("in_batch"), "tv"), audit(samplersS, auditCell("in_batch"), "floor"))

	// docs/results.md: Khrylchenko et al.'s comparison.
	add(results, "each user's last rating is its test pair ({} pairs,", pairs(kh, "all"))
	for _, row := range []struct{ passage, cell, auditCell string }{
		{"| full softmax | — | {} ± {} | {} ± {} | |", khFull, ""},
		{"| corrected logQ (`logq_corrected`) | the mixture's | {} ± {} | {} ± {} | {} / {} |", khCorrLaw, khAuditLaw},
		{"| corrected logQ | count/N | {} ± {} | {} ± {} | {} / {} |", khCorrUni, khAuditUnigram},
		{"| old logQ (`logq`, `uncorrected_positive`) | the mixture's | {} ± {} | {} ± {} | {} / {} |", khOldLaw, khAuditLaw},
		{"| old logQ | count/N | {} ± {} | {} ± {} | {} / {} |", khOldUni, khAuditUnigram},
		{"| no correction (`plain`) | — | {} ± {} | {} ± {} | |", khPlain, ""},
	} {
		srcs := []source{mean(kh, row.cell, r("all", 10)), meanHalfWidth(kh, row.cell, r("all", 10)),
			mean(kh, row.cell, r("all", 100)), meanHalfWidth(kh, row.cell, r("all", 100))}
		if row.auditCell != "" {
			srcs = append(srcs, audit(kh, row.auditCell, "tv"), audit(kh, row.auditCell, "floor"))
		}
		add(results, row.passage, srcs...)
	}
	add(results, "| most popular (no training) | | {} | {} |", mean(kh, "baseline:most_popular", r("all", 10)), mean(kh, "baseline:most_popular", r("all", 100)))
	add(results, "corrected − full {} ± {} and old − full {} ± {} at Recall@100",
		cat(meanHalf(kh, khDiff(khCorrLaw, r("all", 100))), meanHalf(kh, khDiff(khOldLaw, r("all", 100))))...)
	corrOld := func(q string, k int) []source {
		return meanHalf(kh, paired{file: "contrasts.csv", contrast: "corrected − old", by: q, at: r("all", k)})
	}
	add(results, "(corrected − old {} ± {} at Recall@10 and {} ± {} at Recall@100 with the exact Q, {} ± {} and {} ± {} with count/N;",
		cat(corrOld("law", 10), corrOld("law", 100), corrOld("unigram", 10), corrOld("unigram", 100))...)
	add(results, "(old − none, Recall@100 {} ± {}, head {} ± {},",
		cat(meanHalf(kh, paired{file: "contrasts.csv", contrast: "old − none", at: r("all", 100)}),
			meanHalf(kh, paired{file: "contrasts.csv", contrast: "old − none", at: r("head", 100)}))...)
	add(results, "count/N gives a total variation of {}, {} times what sampling noise alone gives ({})",
		audit(kh, khAuditUnigram, "tv"), ratio(audit(kh, khAuditUnigram, "tv"), audit(kh, khAuditUnigram, "floor")), audit(kh, khAuditUnigram, "floor"))
	add(results, "(worst relative error {})", audit(kh, khAuditUnigram, "worst"))
	add(results, "The mixture's own declaration gives {} against a floor of {}", audit(kh, khAuditLaw, "tv"), audit(kh, khAuditLaw, "floor"))
	add(results, "the count/N cells' Recall@100 head is {} ± {} corrected, {} ± {} old against it,",
		cat(meanHalf(kh, khDiff(khCorrUni, r("head", 100))), meanHalf(kh, khDiff(khOldUni, r("head", 100))))...)
	add(results, "the tail's {} ± {} and {} ± {} (every interval including 0)",
		cat(meanHalf(kh, khDiff(khCorrUni, r("tail", 100))), meanHalf(kh, khDiff(khOldUni, r("tail", 100))))...)
	add(results, "(the corrected loss is even {} ± {} above it on the tail)", meanHalf(kh, khDiff(khCorrLaw, r("tail", 100)))...)
	add(results, "(exact Q − count/N {} ± {} corrected, {} ± {} old)",
		cat(meanHalf(kh, paired{file: "contrasts.csv", contrast: "exact Q − count/N", by: "logq_corrected", at: r("all", 100)}),
			meanHalf(kh, paired{file: "contrasts.csv", contrast: "exact Q − count/N", by: "logq", at: r("all", 100)}))...)
	return cs
}

// auditCell names the logq_corrected cell of a sampler of the samplers showcase in its summary's
// audit notes (every loss of a sampler draws alike).
func auditCell(sampler string) string {
	n := "256"
	if sampler == "in_batch" {
		n = "0"
	}
	return "sampler.kind=" + sampler + ",sampler.negatives=" + n + ",variant=logq_corrected"
}
