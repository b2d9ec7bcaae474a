package htmlreport

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// TestOfferedNote: the demand chart says offered demand is the same in
// every variant only when it is; a closed loop whose variants offered
// different requests is said to differ.
func TestOfferedNote(t *testing.T) {
	r := func(offered ...int64) *model.Results {
		return &model.Results{Series: model.Series{Offered: offered}}
	}
	if got := offeredNote([]*model.Results{r(5, 6), r(5, 6)}); !strings.Contains(got, "is the same in every variant") {
		t.Errorf("same: %q", got)
	}
	if got := offeredNote([]*model.Results{r(5, 6), r(5, 9)}); strings.Contains(got, "same in every") || !strings.Contains(got, "the variants offered different demand") {
		t.Errorf("different: %q", got)
	}
	if got := offeredNote([]*model.Results{r(5)}); strings.Contains(got, "variant") {
		t.Errorf("one: %q", got)
	}
}
