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

// TestHeadlineNamesVariantWithoutArticle: "In the base, ..." but a named
// base (compare names variants after their files) takes no article.
func TestHeadlineNamesVariantWithoutArticle(t *testing.T) {
	a, b := &model.Results{Variant: "sales-9am"}, &model.Results{Variant: "tier 4"}
	if got := headline([]*model.Results{a, b}); !strings.HasPrefix(got[0], "In “sales-9am”, ") {
		t.Errorf("headline %q", got[0])
	}
	a.Variant = ""
	if got := headline([]*model.Results{a, b}); !strings.HasPrefix(got[0], "In the base, ") {
		t.Errorf("headline %q", got[0])
	}
}
