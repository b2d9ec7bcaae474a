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
		{"s", Estimate{Mean: -1.2, Lo: -1.5, Hi: -0.9, N: 5}, true, "-1.2s ± 0.3s"},
		{"req/s", Estimate{Mean: -0.67, Lo: -0.6744, Hi: -0.6656, N: 10}, true, "-0.67 ± <0.01"},
		{"%", Estimate{Mean: 91.9, Lo: 91.851, Hi: 91.949, N: 10}, false, "91.9% ± <0.1%"},
		{"USD", Estimate{Mean: 632, Lo: 631.239, Hi: 632.761, N: 10}, false, "$632 ± $1"},
		{"USD", Estimate{Mean: -1.14e-14, Lo: -5.7e-14, Hi: 3.4e-14, N: 10}, true, "$0.00 ± 0"}, // float dust: no spread, said as ± 0
		{"requests", Estimate{Mean: 357171, Lo: 356819, Hi: 357523, N: 10}, false, "357,171 ± 352"},
		{"requests", Estimate{Mean: 29007, Lo: 29007, Hi: 29007, N: 10}, true, "+29,007 ± 0"}, // the same in every replication
		{"%", Estimate{Mean: 95.4, Lo: 94.9, Hi: 95.9, N: 2}, false, "95.4% ± 0.5%"},
		{"USD", Estimate{Mean: 10.66, Lo: 10.343, Hi: 10.977, N: 2}, false, "$10.66 ± $0.32"},
		{"USD", Estimate{Mean: 0.471, Lo: 0.3917, Hi: 0.5503, N: 3}, false, "$0.47 ± $0.08"},
		{"requests", Estimate{Mean: 105, Lo: 88.7, Hi: 121.3, N: 3}, false, "105 ± 16"},
		{"s", Estimate{Mean: 593, Lo: 580.2, Hi: 605.8, N: 3}, false, "9m53s ± 13s"},
		{"s", Estimate{Mean: 86340, Lo: 86339.97, Hi: 86340.03, N: 2}, false, "23h59m ± <1s"},
		{"tok/s", Estimate{Mean: 1274, Lo: 1272, Hi: 1276, N: 1}, false, "1274"},
	} {
		if got := estimateText(c.unit, c.e, c.signed); got != c.want {
			t.Errorf("estimateText(%q, %+v, %v) = %q, want %q", c.unit, c.e, c.signed, got, c.want)
		}
	}
}
