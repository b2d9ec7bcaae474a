package report

// Estimate is one summary figure over replications: the mean and its 95%
// confidence interval (Student's t). With one replication Lo and Hi equal
// Mean and N is 1.
type Estimate struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	N    int     `json:"n"`
}

// Figure is one key figure of a variant, such as "ttft_p95_s".
type Figure struct {
	Name  string `json:"name"`  // stable key, snake case with its unit
	Label string `json:"label"` // words for tables and charts
	Unit  string `json:"unit"`  // "s", "req/s", "USD", "%", …
	Estimate
	// DiffVsBase is this variant minus the base variant, paired by
	// replication (common random numbers), with its own interval; nil for
	// the base itself.
	DiffVsBase *Estimate `json:"diff_vs_base,omitempty"`
}

// VariantSummary is the key figures of one variant over its replications.
type VariantSummary struct {
	Variant string   `json:"variant"`
	Figures []Figure `json:"figures"`
}
