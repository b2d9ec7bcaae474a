package model

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"pgregory.net/rapid"
)

// Regressions. A scenario a property test once failed on is kept as TOML
// in testdata/regressions, named after the property, and replayed through
// that property's checks by TestRegressions. rapid's own fail files
// (testdata/rapid, ignored by git) are not kept: they replay a bit stream
// through the generators, so when a generator gains a draw they silently
// become another scenario or are skipped as no longer valid. A scenario
// stays the scenario it was.
//
// To keep one, run the failing property with -regression.dir, e.g.
//
//	go test ./model -run 'TestFleetInvariants$' -rapid.seed=N -regression.dir=testdata/regressions
//
// which writes the shrunk scenario there; rename it after what it broke
// and say so in its first line.

var regressionDir = flag.String("regression.dir", "", "write the scenario of a failing property test to this directory")

// replays are the checks a kept scenario is replayed through, by property.
var replays = map[string]func(t *testing.T, cfg Config){
	"TestRandomScenarioInvariants":    func(t *testing.T, cfg Config) { checkInvariants(t, cfg) },
	"TestSameSeedSameBytes":           func(t *testing.T, cfg Config) { checkSameBytes(t, cfg) },
	"TestFastSteppingEqualsReference": func(t *testing.T, cfg Config) { sameAcrossModes(t, cfg, false) },
	"TestFleetInvariants":             func(t *testing.T, cfg Config) { checkFleet(t, cfg) },
	"TestFleetSteppingEqualsReference": func(t *testing.T, cfg Config) {
		// A kept scenario is known to have no tie between the pools, so
		// spans are compared on one replica per pool whatever their GPUs.
		cl := &cfg.Clusters[0]
		sameAcrossModes(t, cfg, spansComparable(cl) || onePerPool(cl))
	},
	"TestFleetKeysInGenConfig": func(t *testing.T, cfg Config) {
		if _, err := Build(cfg); err != nil {
			t.Fatalf("build: %v", err)
		}
	},
}

// TestRegressions replays every kept scenario through its property.
func TestRegressions(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "regressions", "*.toml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no kept scenarios (%v)", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		check := replays[strings.SplitN(name, "-", 2)[0]]
		if check == nil {
			t.Fatalf("%s: no property of that name", name)
		}
		t.Run(strings.TrimSuffix(name, ".toml"), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var cfg Config
			md, err := toml.Decode(string(src), &cfg)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if und := md.Undecoded(); len(und) > 0 {
				t.Fatalf("%s: keys no field takes: %v", name, und)
			}
			check(t, cfg)
		})
	}
}

// keeper keeps the scenario a property last failed on and writes it to
// -regression.dir when the test ends failed. rapid replays the shrunk
// failing case last, so that is the one kept.
type keeper struct{ cfg *Config }

// keepFailing returns t's keeper.
func keepFailing(t *testing.T) *keeper {
	k := &keeper{}
	if *regressionDir == "" {
		return k
	}
	t.Cleanup(func() {
		if !t.Failed() || k.cfg == nil {
			return
		}
		src, err := encodeScenario(*k.cfg)
		if err == nil {
			err = os.MkdirAll(*regressionDir, 0o755)
		}
		if err == nil {
			name := t.Name() + "-" + time.Now().Format("20060102150405") + ".toml"
			head := "# Found by " + t.Name() + ": say what it broke.\n"
			err = os.WriteFile(filepath.Join(*regressionDir, name), append([]byte(head), src...), 0o644)
			t.Logf("kept the failing scenario in %s", filepath.Join(*regressionDir, name))
		}
		if err != nil {
			t.Logf("keeping the failing scenario: %v", err)
		}
	})
	return k
}

// watch records cfg if the check t runs on it fails.
func (k *keeper) watch(t *rapid.T, cfg Config) {
	if *regressionDir == "" {
		return
	}
	t.Cleanup(func() {
		if t.Failed() {
			k.cfg = &cfg
		}
	})
}

// encodeScenario writes cfg as TOML without the zero values that decode
// back to what they are (a zero behind a pointer stays).
func encodeScenario(cfg Config) ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		return nil, err
	}
	same := func(lines []string) bool {
		var back Config
		_, err := toml.Decode(strings.Join(lines, "\n"), &back)
		return err == nil && reflect.DeepEqual(back, cfg)
	}
	lines := strings.Split(buf.String(), "\n")
	if !same(lines) {
		return nil, errNoRoundTrip
	}
	zero := regexp.MustCompile(`^\s*[A-Za-z_]+ = (0|0\.0|""|false|"0s"|\[\])$`)
	for i := 0; i < len(lines); i++ {
		if !zero.MatchString(lines[i]) {
			continue
		}
		if try := append(append([]string(nil), lines[:i]...), lines[i+1:]...); same(try) {
			lines = try
			i--
		}
	}
	for i := 0; i+1 < len(lines); i++ { // tables left empty
		h, n := strings.TrimSpace(lines[i]), strings.TrimSpace(lines[i+1])
		if strings.HasPrefix(h, "[") && !strings.HasPrefix(h, "[[") && (n == "" || strings.HasPrefix(n, "[")) {
			if try := append(append([]string(nil), lines[:i]...), lines[i+1:]...); same(try) {
				lines = try
				i = -1
			}
		}
	}
	return []byte(strings.Join(lines, "\n")), nil
}

var errNoRoundTrip = errors.New("the scenario does not decode back to itself")
