package model

// pdState is a disaggregated cluster's pools at run time.
type pdState struct{}
