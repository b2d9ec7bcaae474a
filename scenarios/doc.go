// Package scenarios turns TOML scenario files into validated, complete
// model configurations: strict decoding (unknown keys are errors), defaults,
// validation with file, line and key path in every message, overrides by
// key path (--set and [[variant]] blocks), and the embedded example library.
package scenarios
