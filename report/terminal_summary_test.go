package report

import "testing"

func TestEstimateText(t *testing.T) {
	for _, c := range []struct {
		unit   string
		e      Estimate
		signed bool
		want   string
	}{
		{"s", Estimate{Mean: 0.645, Lo: 0.633, Hi: 0.657, N: 5}, false, "645ms ± 12ms"},
		{"s", Estimate{Mean: -1.2, Lo: -1.5, Hi: -0.9, N: 5}, true, "-1.2s ± 300ms"},
		{"req/s", Estimate{Mean: -0.67, Lo: -0.6744, Hi: -0.6656, N: 10}, true, "-0.67 ± 0.0044"},
		{"%", Estimate{Mean: 91.9, Lo: 91.851, Hi: 91.949, N: 10}, false, "91.9% ± 0.049%"},
		{"USD", Estimate{Mean: 632, Lo: 631.239, Hi: 632.761, N: 10}, false, "$632 ± $0.761"},
		{"USD", Estimate{Mean: -1.14e-14, Lo: -5.7e-14, Hi: 3.4e-14, N: 10}, true, "$0.00"}, // float dust
		{"requests", Estimate{Mean: 357171, Lo: 356819, Hi: 357523, N: 10}, false, "357,171 ± 352"},
		{"requests", Estimate{Mean: 29007, Lo: 29007, Hi: 29007, N: 10}, true, "+29,007"},
		{"tok/s", Estimate{Mean: 1274, Lo: 1272, Hi: 1276, N: 1}, false, "1274"},
	} {
		if got := estimateText(c.unit, c.e, c.signed); got != c.want {
			t.Errorf("estimateText(%q, %+v, %v) = %q, want %q", c.unit, c.e, c.signed, got, c.want)
		}
	}
}
