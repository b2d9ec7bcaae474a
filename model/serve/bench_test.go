package serve

import (
	"bufio"
	"net/http"
	"net/http/httptrace"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// quick is a provider with a short fixed latency: 50 ms to the first
// token, 1 ms a token after.
const quick = `
name = "quick"
duration = "24h"
[[workload]]
name = "chat"
route = "p"
tokens = { input = 100, output = 20 }
demand = { rate = 1 }

[[provider]]
name = "p"
latency = { ttft = { base = "50ms" }, tpot = { base = "1ms" } }
`

// BenchmarkOverhead measures the wall time a streamed request takes over
// its modelled latency (50 ms + 19 x 1 ms), from the request written to the
// last byte read, with -cpu parallel clients. It reports the p50 and p99
// overhead in ms.
func BenchmarkOverhead(b *testing.B) {
	s := start(b, quick, Options{Speed: 1})
	body := `{"model":"p","stream":true,"max_tokens":20,"messages":[{"role":"user","content":"x"}]}`
	tr := &http.Transport{MaxIdleConnsPerHost: 1024}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var mu sync.Mutex
	var ov []float64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req, _ := http.NewRequest("POST", s.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("X-Headroom-Output-Tokens", "20")
			var t0 time.Time
			req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { t0 = time.Now() }}))
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
			}
			resp.Body.Close()
			d := time.Since(t0).Seconds() - 0.069
			mu.Lock()
			ov = append(ov, d)
			mu.Unlock()
		}
	})
	b.StopTimer()
	sort.Float64s(ov)
	if len(ov) > 0 {
		b.ReportMetric(ov[len(ov)/2]*1000, "p50-overhead-ms")
		b.ReportMetric(ov[(len(ov)*99)/100]*1000, "p99-overhead-ms")
	}
}
