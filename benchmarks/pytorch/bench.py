"""PyTorch reference for the README's speed table: the same training step as the Go benchmark
`models` BenchmarkTrainStep/batch=1024 and the same ranking as `metrics` BenchmarkRecallAtK,
on the CPU, so that both can be measured in one run on one machine (benchmarks/pytorch/run.sh).

The step: 100,000-row query and item id tables of dimension 64 (sparse gradients), towers
[256, 64] (Linear, ReLU, Linear) and the L2 normalisation of each output row, the in-batch
softmax at temperature 0.05 with the logQ correction of Yi et al. 2019 (Eq. 3: s_c(x_i, y_j) =
s(x_i, y_j) - log p_j, with p_j the item's frequency in the training data), the reward-weighted
mean of the rows' cross-entropies, Adam (lr 0.001) on the towers and SparseAdam (lazy: only the
batch's rows) on the tables, float32; B = 1024 over 64 batches of Zipf(1.1)-popular items,
uniformly random queries and rewards uniform in (0, 1], as the Go benchmark draws them.

The ranking: Recall@100 of 10,000 queries (one test pair each) against 100,000 items of
dimension 64 with Gaussian embeddings, exactly: the pair's rank is 1 + the number of other items
whose score is at least the pair's (ties count against it, as in the Go code), computed from
blocks of the score matrix (matmul, then a comparison and a count per row). "topk" ranks with
torch.topk instead (the usual PyTorch idiom), for scale.

The SASRec step (`models` BenchmarkSASRecStep/impl=fused, the same setup: the Go benchmark draws
its sequences as this one does and trains them through the workbench's trainer): 128 sequences
of 200 items (Zipf(1.1) over --sasrec-items items, no padding), width 64, Kang & McAuley's encoder as their code writes it
(item embedding scaled by sqrt(d) plus a learned positional embedding, dropout 0.2, two blocks of
causal single-head self-attention whose residual adds the normalised queries and a point-wise
feed-forward layer with residual, layer normalisation, a final layer normalisation; the output
table tied to the input one), every position a row of the step with its next item as the
positive and 256 negatives, Khrylchenko et al.'s sampler: 128 distinct items of the batch's
targets shared by every position and 128 uniform items drawn for each position alone; the
sampled softmax with a log Q subtracted from every candidate (the correction's cost); Adam on every parameter
(dense, as gSASRec's and Khrylchenko et al.'s code train it: with 25,600 positions × 257
candidates a step touches most rows of the table, and SparseAdam's coalescing measured slower),
float32. It reports positions/s. The one difference: the Go step's Adam is lazy (it updates the
rows of the tables the step touches, as the workbench trains), this one's is dense.

It prints one line per measurement, the median of --repeats runs with the range:
    step examples/s 25000 (24000-26000)
and fails (exit status 1) if the two rankings disagree on the recall: with Gaussian embeddings
ties have probability 0, so both must find the same hits.
"""

import argparse
import statistics
import sys
import time

import torch


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=2, help="torch.set_num_threads (default 2)")
    p.add_argument("--repeats", type=int, default=5, help="measurements per figure (default 5)")
    p.add_argument("--steps", type=int, default=40, help="timed training steps per measurement")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--rows", type=int, default=100_000, help="rows of each id table")
    p.add_argument("--queries", type=int, default=10_000, help="queries ranked per measurement")
    p.add_argument("--items", type=int, default=100_000, help="items of the ranked corpus")
    p.add_argument("--block", type=int, default=1000, help="queries per block of the score matrix")
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--sasrec-steps", type=int, default=5, help="timed SASRec steps per measurement")
    p.add_argument("--sasrec-batch", type=int, default=128, help="sequences per SASRec step")
    p.add_argument("--sasrec-length", type=int, default=200, help="positions per sequence")
    p.add_argument("--sasrec-items", type=int, default=100_000, help="items of the SASRec corpus")
    a = p.parse_args()
    for name in ("threads", "repeats", "steps", "batch", "rows", "queries", "items", "block", "k",
                 "sasrec_steps", "sasrec_batch", "sasrec_length", "sasrec_items"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, not {getattr(a, name)}")
    if a.sasrec_items <= 128 + 1:
        p.error(f"--sasrec-items must exceed the 128 shared negatives, not {a.sasrec_items}")
    return a


def tower(dim):
    return torch.nn.Sequential(torch.nn.Linear(dim, 256), torch.nn.ReLU(), torch.nn.Linear(256, 64))


def zipf_items(gen, n, items, s=1.1):
    """n draws of item ranks 0..items-1 with probability proportional to (1+k)^-s."""
    w = torch.arange(1, items + 1, dtype=torch.float64).pow(-s)
    return torch.multinomial(w, n, replacement=True, generator=gen)


def bench_step(a):
    gen = torch.Generator().manual_seed(7)
    dim = 64
    q_emb = torch.nn.Embedding(a.rows, dim, sparse=True)
    i_emb = torch.nn.Embedding(a.rows, dim, sparse=True)
    q_tower, i_tower = tower(dim), tower(dim)
    sparse = torch.optim.SparseAdam(list(q_emb.parameters()) + list(i_emb.parameters()), lr=1e-3)
    dense = torch.optim.Adam(list(q_tower.parameters()) + list(i_tower.parameters()), lr=1e-3)

    n = 64 * a.batch
    queries = torch.randint(0, a.rows, (n,), generator=gen)
    items = zipf_items(gen, n, a.rows)
    rewards = 1 - torch.rand(n, generator=gen)
    counts = torch.bincount(items, minlength=a.rows).float()
    log_p = torch.log(counts.clamp(min=1) / n)
    batches = n // a.batch
    tau = 0.05

    def step(k):
        lo = (k % batches) * a.batch
        q, i, r = queries[lo:lo + a.batch], items[lo:lo + a.batch], rewards[lo:lo + a.batch]
        u = torch.nn.functional.normalize(q_tower(q_emb(q)), dim=1)
        v = torch.nn.functional.normalize(i_tower(i_emb(i)), dim=1)
        logits = u @ v.T / tau - log_p[i].unsqueeze(0)
        ce = torch.nn.functional.cross_entropy(logits, torch.arange(len(q)), reduction="none")
        loss = (r * ce).sum() / r.sum()
        sparse.zero_grad()
        dense.zero_grad()
        loss.backward()
        sparse.step()
        dense.step()
        return loss

    for k in range(3):  # warm up: the optimisers' state
        step(k)
    out = []
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        for k in range(a.steps):
            step(k)
        out.append(a.steps * a.batch / (time.perf_counter() - t0))
    return out


def bench_rank(a, use_topk):
    gen = torch.Generator().manual_seed(8)
    dim = 64
    u = torch.randn(a.queries, dim, generator=gen)
    v = torch.randn(a.items, dim, generator=gen)
    pos = torch.randint(0, a.items, (a.queries,), generator=gen)
    out = []
    with torch.no_grad():
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            hits = 0
            for lo in range(0, a.queries, a.block):
                s = u[lo:lo + a.block] @ v.T
                p = pos[lo:lo + a.block]
                if use_topk:
                    top = torch.topk(s, min(a.k, a.items), dim=1).indices
                    hits += int((top == p.unsqueeze(1)).any(dim=1).sum())
                else:
                    sy = s.gather(1, p.unsqueeze(1))
                    rank = (s >= sy).sum(dim=1)  # 1 + the others at least as high
                    hits += int((rank <= a.k).sum())
            out.append(a.queries / (time.perf_counter() - t0))
    return out, hits / a.queries


class SASRecBlock(torch.nn.Module):
    """One block of Kang & McAuley's encoder as their code writes it: queries from the normalised
    input, keys and values from the input itself, causal attention without output projection,
    the residual added to the normalised queries, then the point-wise feed-forward layer."""

    def __init__(self, d, dropout):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(d, eps=1e-8), torch.nn.LayerNorm(d, eps=1e-8)
        self.q, self.k, self.v = (torch.nn.Linear(d, d) for _ in range(3))
        self.ffn1, self.ffn2 = torch.nn.Linear(d, d), torch.nn.Linear(d, d)
        self.drop = torch.nn.Dropout(dropout)
        self.scale = d ** -0.5

    def forward(self, h, causal):
        q = self.ln1(h)
        w = (self.q(q) @ self.k(h).transpose(1, 2)) * self.scale
        w = self.drop(torch.softmax(w.masked_fill(causal, float("-inf")), dim=-1))
        s = w @ self.v(h) + q
        f = self.ln2(s)
        return self.drop(self.ffn2(self.drop(torch.relu(self.ffn1(f))))) + f


def bench_sasrec(a):
    gen = torch.Generator().manual_seed(9)
    d, b, n, m, shared, per_row = 64, a.sasrec_batch, a.sasrec_length, a.sasrec_items, 128, 128
    items = torch.nn.Embedding(m, d)
    pos = torch.nn.Embedding(n, d)
    torch.nn.init.normal_(items.weight, std=0.05)
    torch.nn.init.normal_(pos.weight, std=0.05)
    blocks = torch.nn.ModuleList(SASRecBlock(d, 0.2) for _ in range(2))
    final = torch.nn.LayerNorm(d, eps=1e-8)
    drop = torch.nn.Dropout(0.2)
    params = [*items.parameters(), *pos.parameters(), *blocks.parameters(), *final.parameters()]
    adam = torch.optim.Adam(params, lr=1e-3)
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    seqs = zipf_items(gen, 16 * b * (n + 1), m).view(16 * b, n + 1)
    positions = torch.arange(n).expand(b, n)
    log_uniform = torch.log(torch.tensor(per_row / m))

    def step(k):
        batch = seqs[(k % 16) * b:(k % 16 + 1) * b]
        x, y = batch[:, :-1], batch[:, 1:].reshape(-1)
        h = drop(items(x) * d ** 0.5 + pos(positions))
        for blk in blocks:
            h = blk(h, causal)
        h = final(h).reshape(b * n, d)
        targets = torch.unique(y)
        pick = targets[torch.randperm(len(targets), generator=gen)[:shared]]
        own = torch.randint(0, m, (b * n, per_row), generator=gen)
        # A log Q subtracted from every candidate, as the correction does; its values (the
        # share of distinct targets kept, the uniform items' per_row/m) stand in for the
        # estimator's: the step's cost does not depend on them.
        lq_shared = torch.log(torch.tensor(len(pick) / len(targets)))
        pos_logit = (h * items(y)).sum(1, keepdim=True) - lq_shared
        shared_logits = h @ items(pick).T - lq_shared
        own_logits = torch.einsum("rd,rkd->rk", h, items(own)) - log_uniform
        logits = torch.cat([pos_logit, shared_logits, own_logits], dim=1)
        loss = torch.nn.functional.cross_entropy(logits, torch.zeros(b * n, dtype=torch.long))
        adam.zero_grad()
        loss.backward()
        adam.step()
        return loss

    for k in range(2):  # warm up: the optimisers' state
        step(k)
    out = []
    for _ in range(a.repeats):
        t0 = time.perf_counter()
        for k in range(a.sasrec_steps):
            step(k)
        out.append(a.sasrec_steps * b * n / (time.perf_counter() - t0))
    return out


def line(name, unit, xs, extra=""):
    med = statistics.median(xs)
    print(f"{name} {unit} {med:.0f} ({min(xs):.0f}-{max(xs):.0f}){extra}")


def main():
    a = parse()
    torch.set_num_threads(a.threads)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch {a.batch}, "
          f"{a.queries} queries x {a.items} items")
    line("step", "examples/s", bench_step(a))
    line("sasrec", "positions/s", bench_sasrec(a))
    recalls = []
    for name, use_topk in (("recall-count", False), ("recall-topk", True)):
        xs, recall = bench_rank(a, use_topk)
        line(name, "queries/s", xs, f" recall@{a.k} {recall:.4f}")
        recalls.append(recall)
    if recalls[0] != recalls[1]:
        print(f"bench.py: the rankings disagree: recall@{a.k} {recalls[0]} by counting, {recalls[1]} by topk",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
