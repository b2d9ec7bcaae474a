package report

import (
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
)

// The first limit to bind leads the limit lines even when its backend's
// limits are listed after another's that refused too.
func TestFirstToBindLeads(t *testing.T) {
	r := bound()
	l := r.Backends[0].Limits
	l[0], l[1] = l[1], l[0] // OTPM listed first; ITPM still bound first
	v := Verdict(r)
	if !strings.HasPrefix(v[1], "First to bind: sonnet ITPM") {
		t.Errorf("second line (the first limit line) = %q, want the first to bind:\n%s", v[1], strings.Join(v, "\n"))
	}
	if !strings.HasPrefix(v[2], "sonnet OTPM") {
		t.Errorf("third line = %q, want the other limit", v[2])
	}
}

// Counts carry thousands separators and the singular for one; a large
// headroom reads as a count, and a use that rounds to 0% keeps a figure.
func TestVerdictNumberWords(t *testing.T) {
	r := bound()
	r.Findings.Backlog = &model.Backlog{Peak: 19682, PeakIntervalS: 3600, ClearedS: 6000}
	r.Summary.Attempts.Retries = 1
	r.Backends[1].Cluster.Preemptions = 1
	got := strings.Join(Verdict(r), "\n")
	for _, want := range []string{
		"Backlog peaks at 19,682 waiting requests in the interval from 09:00 and clears by 09:40.",
		"Clients retried 1 time (",
		", 1 preemption (KV memory ran out)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verdict lacks %q:\n%s", want, got)
		}
	}

	q := &model.Results{StartClock: "00:00", IntervalS: 300, DurationS: 3600}
	q.Summary.Requests = model.RequestCounts{Offered: 10, Completed: 10}
	q.Backends = []model.BackendResult{{Name: "fast", Limits: []model.LimitResult{{Scope: "org", Dimension: "rpm", Limit: 1000, FirstRejectS: -1, PeakUse: 0.0003, PeakDemand: 0.0003}}}}
	q.Findings.Tightest = &model.LimitRef{Backend: "fast", Scope: "org", Dimension: "rpm"}
	if got := strings.Join(Verdict(q), "\n"); !strings.Contains(got, "fast RPM at 0.03% of its limit at peak (headroom 3,333×)") {
		t.Errorf("verdict:\n%s", got)
	}
}

// A queue of about one request that lingers for hours is said to be a
// short standing queue, not a backlog draining; a real one is a backlog.
func TestBacklogSentence(t *testing.T) {
	r := &model.Results{StartClock: "00:00", IntervalS: 300, DurationS: 86400}
	for _, c := range []struct {
		b    model.Backlog
		want string
	}{
		{model.Backlog{Peak: 1.2, PeakIntervalS: 39600, ClearedS: 57600},
			"A short queue forms: at most 1 waiting request on average, in the interval from 11:00; it averages half a request or more until 16:00."},
		{model.Backlog{Peak: 3, PeakIntervalS: 39600, ClearedS: -1},
			"A short queue forms: at most 3 waiting requests on average, in the interval from 11:00; it still averages half a request or more at the end of the run."},
		{model.Backlog{Peak: 6795, PeakIntervalS: 36000, ClearedS: 40800},
			"Backlog peaks at 6,795 waiting requests in the interval from 10:00 and clears by 11:20."},
		{model.Backlog{Peak: 222482, PeakIntervalS: 86100, ClearedS: -1},
			"Backlog peaks at 222,482 waiting requests in the interval from 23:55 and has not cleared by the end of the run."},
	} {
		if got := BacklogSentence(r, &c.b); got != c.want {
			t.Errorf("BacklogSentence(%+v)\n got %s\nwant %s", c.b, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int64]string{0: "0 preemptions", 1: "1 preemption", 2: "2 preemptions", 1234: "1,234 preemptions"} {
		if got := Plural(n, "preemption", "preemptions"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

// A column of costs keeps one style: whole dollars, or cents throughout.
func TestUSDColumn(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want string
	}{
		{[]float64{57.6, 86.4, 115.2, 144}, "$58 $86 $115 $144"},
		{[]float64{0.48, 12.5, 144}, "$0.48 $12.50 $144.00"},
		{[]float64{1.5, 57.6}, "$1.50 $57.60"},
		{[]float64{2328, 2412, 0}, "$2,328 $2,412 $0"},
		{[]float64{4.1, 1030.99}, "$4.10 $1,030.99"},
	} {
		if got := strings.Join(USDColumn(c.in), " "); got != c.want {
			t.Errorf("USDColumn(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
