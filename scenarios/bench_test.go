package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
)

// variantsFile is a small scenario with n variants, each setting one limit.
func variantsFile(n int) []byte {
	var b strings.Builder
	b.WriteString(`[[workload]]
name = "chat"
route = "api"
tokens = { input = { dist = "lognormal", median = 1200, p95 = 4000 }, output = 250, max_tokens = 1024 }
demand = { hourly = [600, 1500, 900], from = "08:00" }
client = { max_concurrency = 64, retry = "openai-python" }

[[provider]]
name = "api"
  [provider.limits]
  rpm = 1000
  itpm = 2_000_000
  otpm = 400_000
  [provider.latency]
  ttft = { base = "400ms", per_input_token = "0.05ms" }
  tpot = { mean = "20ms" }
  [provider.price]
  input = 3
  output = 15
`)
	for i := range n {
		fmt.Fprintf(&b, "\n[[variant]]\nname = \"rpm %d\"\nset = { \"provider.api.limits.rpm\" = %d, \"workload.chat.client.max_concurrency\" = %d }\n", i, 1000+i, 1+i%100)
	}
	return []byte(b.String())
}

// BenchmarkLoadVariants parses, decodes and validates a file with 1,000
// variants (and, for comparison, 10 and 100): the file is parsed once and
// each configuration is decoded from the tree and validated once.
//
//	go test -run XXX -bench LoadVariants -benchmem ./scenarios/
func BenchmarkLoadVariants(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		src := variantsFile(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sc, err := scenarios.LoadBytes(src, "variants.toml")
				if err != nil {
					b.Fatal(err)
				}
				if len(sc.Variants) != n {
					b.Fatalf("%d variants", len(sc.Variants))
				}
			}
		})
	}
}
