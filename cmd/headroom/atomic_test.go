package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", "b", "out.txt")
	if err := writeFileAtomic(path, func(w *bufio.Writer) error { _, err := w.WriteString("first"); return err }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Fatalf("got %q", data)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}

	// A writer that fails half way: the old file stays whole, no temp left.
	boom := errors.New("boom")
	err := writeFileAtomic(path, func(w *bufio.Writer) error {
		w.WriteString("half of the second")
		w.Flush()
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v does not wrap the writer's", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "first" {
		t.Errorf("a failed write changed the file: %q", data)
	}
	assertNoTempFiles(t, filepath.Dir(path))

	// Replacing works and leaves no temp.
	if err := writeFileAtomic(path, func(w *bufio.Writer) error { _, err := w.WriteString("second"); return err }); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "second" {
		t.Errorf("got %q", data)
	}
	assertNoTempFiles(t, filepath.Dir(path))
}

// TestUnwritableOutputFailsBeforeRunning: an output that cannot be
// written is reported before any simulation (so nothing is printed first).
func TestUnwritableOutputFailsBeforeRunning(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"run", "--json", "/proc/headroom-test/x.json"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "write /proc/headroom-test/x.json") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("it ran first: %q", out.String())
	}
}
