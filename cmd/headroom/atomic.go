package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic writes a file whole or not at all: it writes a temporary
// file in the same directory, syncs it and renames it over path.
func writeFileAtomic(path string, write func(w *bufio.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := write(bw); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	return nil
}

// checkOutputs fails before any simulation when an output could not be
// written, rather than after a long run. It creates nothing: for each
// output it finds the nearest directory that exists on its path and
// checks that a file can be made there (and that a file output is not a
// directory). Empty names are skipped.
func checkOutputs(files, dirs []string) error {
	try := func(out, dir string) error {
		for {
			st, err := os.Stat(dir)
			if err == nil {
				if !st.IsDir() {
					return fmt.Errorf("write %s: %s is not a directory", out, dir)
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return fmt.Errorf("write %s: %w", out, err)
			}
			dir = parent
		}
		f, err := os.CreateTemp(dir, ".headroom-check-*")
		if err != nil {
			return fmt.Errorf("write %s: %w", out, err)
		}
		f.Close()
		return os.Remove(f.Name())
	}
	for _, p := range files {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return fmt.Errorf("write %s: it is a directory", p)
		}
		if err := try(p, filepath.Dir(p)); err != nil {
			return err
		}
	}
	for _, d := range dirs {
		if d != "" {
			if err := try(d, d); err != nil {
				return err
			}
		}
	}
	return nil
}
