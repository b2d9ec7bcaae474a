package report

import (
	"math"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

func TestPeakFigures(t *testing.T) {
	p := func(p95, att float64) *model.PeakWindow {
		return &model.PeakWindow{SLOAttainment: att, TTFT: model.Quantiles{P95: p95}}
	}
	fs := PeakFigures([]*model.PeakWindow{p(1, 0.9), p(2, 0.8), p(3, 1)})
	if len(fs) != 2 || fs[0].N != 3 || fs[0].Mean != 2 || math.Abs(fs[1].Mean-90) > 1e-9 || fs[0].Unit != "s" || fs[1].Unit != "%" {
		t.Fatalf("%+v", fs)
	}
	if PeakFigures([]*model.PeakWindow{p(1, 1), nil}) != nil || PeakFigures(nil) != nil {
		t.Error("figures without a busiest hour in every replication")
	}
}

// TestItemBytesCoversTheFigures: the memory estimate per work item counts
// every figure a Collector keeps.
func TestItemBytesCoversTheFigures(t *testing.T) {
	if need := 8*(len(keyFigures)+2) + 64 + 1; ItemBytes < need {
		t.Errorf("ItemBytes %d, a work item keeps %d", ItemBytes, need)
	}
}
