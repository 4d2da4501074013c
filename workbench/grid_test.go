package workbench

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		name  string
		axes  []Axis
		seeds []int64
		ids   []string
	}{
		{"no axes", nil, []int64{1, 2}, []string{"seed=1", "seed=2"}},
		{
			"product",
			[]Axis{
				{Key: "loss.variant", Values: []any{"plain", "logq"}},
				{Key: "loss.temperature", Values: []any{0.05, 0.1}},
			},
			[]int64{7},
			[]string{
				"variant=plain,temperature=0.05,seed=7", "variant=plain,temperature=0.1,seed=7",
				"variant=logq,temperature=0.05,seed=7", "variant=logq,temperature=0.1,seed=7",
			},
		},
		{
			"zip",
			[]Axis{{Keys: []string{"loss.variant", "loss.temperature"}, Values: []any{
				[]any{"plain", 0.05}, []any{"logq", 0.07},
			}}},
			[]int64{1, 2},
			[]string{
				"variant=plain,temperature=0.05,seed=1", "variant=plain,temperature=0.05,seed=2",
				"variant=logq,temperature=0.07,seed=1", "variant=logq,temperature=0.07,seed=2",
			},
		},
		{
			"zip times axis",
			[]Axis{
				{Keys: []string{"loss.variant", "loss.temperature"}, Values: []any{[]any{"plain", 0.05}, []any{"logq", 0.07}}},
				{Key: "train.batch_size", Values: []any{int64(128), int64(256)}},
			},
			[]int64{3},
			[]string{
				"variant=plain,temperature=0.05,batch_size=128,seed=3", "variant=plain,temperature=0.05,batch_size=256,seed=3",
				"variant=logq,temperature=0.07,batch_size=128,seed=3", "variant=logq,temperature=0.07,batch_size=256,seed=3",
			},
		},
		{
			"shared last component uses full keys",
			[]Axis{
				{Key: "model.hidden", Values: []any{[]any{int64(64), int64(32)}}},
				{Key: "loss.kind", Values: []any{"a/b"}},
				{Key: "estimator.kind", Values: []any{"exact"}},
			},
			[]int64{1},
			[]string{"hidden=64+32,loss.kind=a_b,estimator.kind=exact,seed=1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cells, err := expand(tt.axes, tt.seeds)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, c := range cells {
				ids = append(ids, c.ID)
				want := strings.TrimSuffix(strings.TrimSuffix(c.ID, fmt.Sprintf("seed=%d", c.Seed)), ",")
				if c.Group != want {
					t.Errorf("group of %s = %q, want %q", c.ID, c.Group, want)
				}
			}
			if !reflect.DeepEqual(ids, tt.ids) {
				t.Errorf("ids\n got %q\nwant %q", ids, tt.ids)
			}
		})
	}
}

func TestExpandErrors(t *testing.T) {
	tests := []struct {
		name string
		axes []Axis
		want string
	}{
		{"no key", []Axis{{Values: []any{1.0}}}, "ablation[0]: key is missing"},
		{"both", []Axis{{Key: "a.b", Keys: []string{"a.c"}, Values: []any{1.0}}}, "ablation[0]: set key or keys, not both"},
		{"empty", []Axis{{Key: "a.b"}}, "ablation[0].values: empty"},
		{"bad tuple", []Axis{{Keys: []string{"a.b", "a.c"}, Values: []any{[]any{1.0}}}}, "ablation[0].values: want lists of 2 values (one per key of a.b, a.c); value 1 is [1]"},
		{"repeated key", []Axis{{Key: "a.b", Values: []any{1.0}}, {Key: "a.b", Values: []any{2.0}}}, "ablation[1].key: a.b is already the key of an earlier axis"},
		{"duplicate value", []Axis{{Key: "loss.temperature", Values: []any{1.0, 1.0}}}, "two cells have the same values temperature=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := expand(tt.axes, []int64{1})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
