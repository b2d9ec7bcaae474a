package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/headroom-sim/headroom/report"
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

func writeString(s string) func(w *bufio.Writer) error {
	return func(w *bufio.Writer) error { _, err := w.WriteString(s); return err }
}

// A set of outputs is replaced as a set: when one of them fails, none is.
func TestOutputSetAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.csv")
	os.WriteFile(a, []byte("old a"), 0o644)
	os.WriteFile(b, []byte("old b"), 0o644)
	boom := errors.New("boom")
	err := writeOutputs(io.Discard, func(s *outputSet) error {
		if err := s.add(a, writeString("new a")); err != nil {
			return err
		}
		return s.add(b, func(w *bufio.Writer) error { w.WriteString("half"); return boom })
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	for p, want := range map[string]string{a: "old a", b: "old b"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s: %q after a failed set, want %q", p, got, want)
		}
	}
	assertNoTempFiles(t, dir)
	// A stream that fails (a full device) leaves the files as they were.
	if _, err := os.Stat("/dev/full"); err == nil {
		err := writeOutputs(io.Discard, func(s *outputSet) error {
			if err := s.add(a, writeString("new a")); err != nil {
				return err
			}
			return s.add("/dev/full", writeString("x"))
		})
		if err == nil || !strings.Contains(err.Error(), "write /dev/full: no space left on device") {
			t.Errorf("/dev/full: %v", err)
		}
		if got, _ := os.ReadFile(a); string(got) != "old a" {
			t.Errorf("a.json %q after a failed stream", got)
		}
		if st, _ := os.Stat("/dev/full"); st.Mode()&os.ModeCharDevice == 0 {
			t.Fatal("/dev/full was replaced")
		}
		assertNoTempFiles(t, dir)
	}
}

// An interrupt while the outputs are written stops the writing, says so,
// and leaves every file as it was.
func TestOutputSetInterrupted(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.html")
	os.WriteFile(a, []byte("old a"), 0o644)
	err := writeOutputs(io.Discard, func(s *outputSet) error {
		if err := s.add(a, writeString("new a")); err != nil {
			return err
		}
		return s.add(b, func(w *bufio.Writer) error {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			for i := 0; i < 1e6; i++ {
				if _, err := w.WriteString("a long report "); err != nil {
					return err
				}
				if i%1000 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			return nil
		})
	})
	if !errors.Is(err, errWriteInterrupted) || !strings.Contains(err.Error(), "no file was written or replaced") {
		t.Fatalf("err %v", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old a" {
		t.Errorf("a.json %q after an interrupt", got)
	}
	if _, err := os.Stat(b); err == nil {
		t.Error("b.html written after an interrupt")
	}
	assertNoTempFiles(t, dir)
}

// Outputs that are not regular files: a link is followed (its target
// replaced, the link kept), a dangling link, a directory and a socket are
// refused before the run, a device and a named pipe are written through,
// "-" is standard output.
func TestOutputTargets(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real.json"), filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o644)
	os.Symlink("real.json", link)
	var out bytes.Buffer
	if err := writeOutputs(&out, func(s *outputSet) error {
		if err := s.add(link, writeString("new")); err != nil {
			return err
		}
		return s.add(stdoutName, writeString("to stdout"))
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(real); string(got) != "new" || out.String() != "to stdout" {
		t.Errorf("through the link %q, stdout %q", got, out.String())
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink("nowhere.json", dangling)
	sock := filepath.Join(dir, "s.sock")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
	}
	for p, want := range map[string]string{dangling: "symbolic link to nowhere.json, which cannot be followed", dir: "it is a directory", sock: "not a regular file, a device or a pipe"} {
		if err := checkOutputs([]string{p}, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", p, err, want)
		}
	}
	if err := checkOutputs([]string{"-", "-"}, nil); err == nil {
		t.Error("two outputs to standard output")
	}
	// A named pipe is written through.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	got := make(chan string)
	go func() {
		f, _ := os.Open(fifo)
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := writeOutputs(io.Discard, func(s *outputSet) error { return s.add(fifo, writeString("piped")) }); err != nil {
		t.Fatal(err)
	}
	if g := <-got; g != "piped" {
		t.Errorf("read %q from the pipe", g)
	}
	if st, _ := os.Lstat(fifo); st.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the pipe was replaced")
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		if code, _, errs := cli(t, "run", "--set", `duration="10m"`, "--json", "/dev/null", "--html", "/dev/null", "-q"); code != 0 {
			t.Errorf("--json /dev/null: exit %d, %s", code, errs)
		}
		if st, _ := os.Stat("/dev/null"); st.Mode()&os.ModeCharDevice == 0 {
			t.Fatal("/dev/null was replaced")
		}
	}
	// --json - carries the JSON alone on standard output.
	code, stdout, _ := cli(t, "run", "--set", `duration="10m"`, "--json", "-")
	var doc map[string]any
	if code != 0 || json.Unmarshal([]byte(stdout), &doc) != nil || doc["schema"] != report.Schema {
		t.Errorf("--json -: exit %d, stdout %.200q", code, stdout)
	}
}

// Variants' series files are unique and bounded, whatever their names.
func TestSeriesFileNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	got := seriesFileNames([]string{"base", "A b", "a-b", "a-b-2", long, long, "☃"})
	want := []string{"series-base.csv", "series-a-b.csv", "series-a-b-2.csv", "series-a-b-2-2.csv",
		"series-" + long[:64] + ".csv", "series-" + long[:64] + "-2.csv", "series-variant.csv"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
