package scenarios_test

import (
	"context"
	"fmt"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
)

// A scenario is TOML: a workload of 600 requests a minute (10 a second)
// sent to a hosted API that allows 300 a minute. LoadBytes decodes it
// strictly and validates it; Config gives the simulation's configuration,
// with any --set overrides applied by name.
func ExampleLoadBytes() {
	src := []byte(`
duration = "10m"
[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
demand = { rate = 600 }

[[provider]]
name = "api"
latency = { ttft = { base = "500ms" }, tpot = { mean = "20ms" } }
price = { input = 3, output = 15 }
limits = { rpm = 300 }
`)
	s, err := scenarios.LoadBytes(src, "sales.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, err := s.Config([]scenarios.Override{{Path: "workload.chat.client.retry", Value: "none"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	sim, err := model.Build(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	q := r.Summary.Requests
	fmt.Printf("offered %d, completed %d, failed %d\n", q.Offered, q.Completed, q.Failed)
	// Output: offered 6014, completed 3285, failed 2716
}

// A mistake is an error that names the file, the line and the key, and
// what is allowed.
func ExampleLoadBytes_error() {
	_, err := scenarios.LoadBytes([]byte(`
[[workload]]
name = "chat"
route = "api"
tokens = { input = 1000, output = 100 }
demand = { rate = 10, arrivals = { kind = "poison" } }

[[provider]]
name = "api"
`), "sales.toml")
	fmt.Println(err)
	// Output: sales.toml:6: workload "chat".demand.arrivals.kind: unknown arrival process "poison"; allowed: poisson, constant, gamma; did you mean "poisson"?
}
