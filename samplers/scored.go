package samplers

import (
	"fmt"

	"github.com/samplingbias/workbench/internal/setting"
)

// undefinedErr is the error of key, which needs the law of sampler kind, whose probabilities are
// undefined: why says what the key would do.
func undefinedErr(key string, kind Kind, why string) error {
	return fmt.Errorf("%s: sampler %s draws by the model's scores, so its columns have no probability law (Q undefined): %s", key, kind, why)
}

// resolveMined fills and checks the keys of the samplers that rank candidates by the model's
// scores: pool, pool_size and false_negative_margin of hard, buckets and bucket_rows of sce; each
// must be left unset for any other kind.
func (s *Settings) resolveMined() error {
	hard, sce := s.Kind == KindHard, s.Kind == KindSCE
	if hard {
		setting.Default(&s.Pool, DefaultPool)
		if s.Pool == PoolUniform {
			setting.Default(&s.PoolSize, DefaultPoolSize)
		}
	}
	if sce {
		setting.Default(&s.Buckets, DefaultBuckets)
		setting.Default(&s.BucketRows, DefaultBucketRows)
	}
	margin := s.FalseNegativeMargin
	uniformPool := hard && s.Pool == PoolUniform
	return setting.First(
		setting.EnumFor("pool", s.Pool, pools, hard, "only for hard, not sampler %s; leave it empty", s.Kind),
		setting.OnlyFor("pool_size", s.PoolSize != 0, uniformPool,
			"only for hard with pool = %q, not sampler %s (pool %q); leave it 0, got %d", PoolUniform, s.Kind, s.Pool, s.PoolSize),
		setting.Require("pool_size", s.PoolSize >= 0, "must be > 0, got %d", s.PoolSize),
		setting.Require("negatives", !uniformPool || s.Negatives < s.PoolSize,
			"hard keeps the %d highest-scoring of its pool of pool_size = %d items, which must be larger (lower sampler.negatives or raise sampler.pool_size)",
			s.Negatives, s.PoolSize),
		setting.OnlyFor("false_negative_margin", margin != 0, hard,
			"only for hard, not sampler %s; leave it 0, got %v", s.Kind, margin),
		setting.Require("false_negative_margin", margin >= 0 && margin <= 1,
			"must be in (0, 1] (a share of the positive's score; NV-Retriever uses 0.95), or 0 for no guard, got %v", margin),
		setting.OnlyFor("buckets", s.Buckets != 0, sce, "only for sce, not sampler %s; leave it 0, got %d", s.Kind, s.Buckets),
		setting.Require("buckets", s.Buckets >= 0, "must be > 0, got %d", s.Buckets),
		setting.OnlyFor("bucket_rows", s.BucketRows != 0, sce, "only for sce, not sampler %s; leave it 0, got %d", s.Kind, s.BucketRows),
		setting.Require("bucket_rows", s.BucketRows >= 0, "must be > 0, got %d", s.BucketRows),
	)
}

// needTowers is the error of a sampler that ranks candidates by the model's scores (what says
// how) given no towers: no model, or a query tower that reads histories, whose rows are
// positions of their windows rather than queries a tower embeds by id.
func needTowers(d *Data, what string) error {
	if d.Towers != nil {
		return nil
	}
	return fmt.Errorf("kind: sampler %s, and the step gives no towers to score with (samplers.Data.Towers: no model, or a query tower that reads histories, model.sequence, whose rows are positions of their windows)", what)
}
