package serve

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// floatNoise is a figure printed with the float error of its arithmetic:
// a run of ten 0s or 9s after the point (1000.0000000000001, 0.19999999999999996).
var floatNoise = regexp.MustCompile(`\.\d*(0{10}|9{10})\d*`)

// TestMetricsPrintTidyFigures: limits that are whole numbers in the
// scenario print as whole numbers, and no figure carries float error;
// the text stays valid Prometheus (scrape parses it).
func TestMetricsPrintTidyFigures(t *testing.T) {
	s := start(t, hosted, Options{Speed: 1})
	body := `{"model":"sonnet","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`
	if r, b := post(t, s.URL+"/v1/chat/completions", body); r.StatusCode != 200 {
		t.Fatalf("%d %s", r.StatusCode, b)
	}
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(raw)
	for _, want := range []string{
		`headroom_limit_capacity{backend="sonnet",dimension="rpm",scope="org"} 1000` + "\n",
		`headroom_limit_rate{backend="sonnet",dimension="rpm",scope="org"} 1000` + "\n",
		`headroom_limit_capacity{backend="sonnet",dimension="itpm",scope="org"} 1e+06` + "\n",
		`headroom_limit_capacity{backend="sonnet",dimension="otpm",scope="org"} 200000` + "\n",
		`headroom_modelled_ttft_seconds_sum{endpoint="sonnet"} 0.2` + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", strings.TrimSpace(want))
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		if v := line[strings.LastIndexByte(line, ' ')+1:]; floatNoise.MatchString(v) {
			t.Errorf("a figure with float error: %s", line)
		}
	}
	s.scrape(t) // valid Prometheus text
}
