package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// stdoutName is the output name that means standard output.
const stdoutName = "-"

// errWriteInterrupted is returned when the user interrupts while the
// outputs are being written.
var errWriteInterrupted = errors.New("interrupted while writing the outputs; no file was written or replaced")

// outputSet writes a set of output files whole or not at all, and as a
// set: add writes each regular file into a temporary file beside it;
// commit then writes the streams (standard output, devices, pipes) and
// renames every temporary file over its target. If anything fails or the
// user interrupts before commit, every temporary file is removed and no
// target is touched.
//
// Targets are resolved as report/RESULTS.md says (section 8.1): "-" is standard
// output; a symbolic link is followed and the file it points to replaced
// (the link stays); a character device or a named pipe is written
// through, never replaced; a directory, a socket or a dangling link is
// refused.
type outputSet struct {
	ctx     context.Context
	stdout  io.Writer
	staged  []stagedFile
	streams []stream
}

type stagedFile struct{ tmp, path string }

type stream struct {
	path  string // "-" for standard output
	write func(w *bufio.Writer) error
}

// newOutputSet returns an empty set; writing stops when ctx is done.
func newOutputSet(ctx context.Context, stdout io.Writer) *outputSet {
	return &outputSet{ctx: ctx, stdout: stdout}
}

// add stages the output path, written by write.
func (s *outputSet) add(path string, write func(w *bufio.Writer) error) error {
	if err := s.ctx.Err(); err != nil {
		return errWriteInterrupted
	}
	if path == stdoutName {
		s.streams = append(s.streams, stream{path, write})
		return nil
	}
	real, kind, err := resolveOutput(path)
	if err != nil {
		return err
	}
	if kind == outStream {
		s.streams = append(s.streams, stream{real, write})
		return nil
	}
	dir := filepath.Dir(real)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(real)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	s.staged = append(s.staged, stagedFile{tmp.Name(), real})
	err = func() error {
		defer tmp.Close()
		bw := bufio.NewWriterSize(ctxWriter{s.ctx, tmp}, 1<<16)
		if err := write(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := tmp.Sync(); err != nil {
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Chmod(tmp.Name(), 0o644)
	}()
	if s.ctx.Err() != nil {
		return errWriteInterrupted
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// commit writes the streams, then moves every staged file into place. A
// stream that fails (a full device, a closed pipe) leaves every file as it
// was.
func (s *outputSet) commit() error {
	for _, st := range s.streams {
		if err := s.writeStream(st); err != nil {
			return err
		}
	}
	for i, f := range s.staged {
		if err := os.Rename(f.tmp, f.path); err != nil {
			s.staged = s.staged[i:]
			return fmt.Errorf("write %s: %w", f.path, err)
		}
	}
	s.staged = nil
	return nil
}

func (s *outputSet) writeStream(st stream) error {
	var w io.Writer = s.stdout
	name := "standard output"
	if st.path != stdoutName {
		f, err := os.OpenFile(st.path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", st.path, err)
		}
		defer f.Close()
		w, name = f, st.path
	}
	bw := bufio.NewWriterSize(ctxWriter{s.ctx, w}, 1<<16)
	err := st.write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if s.ctx.Err() != nil {
		return errWriteInterrupted
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err // it names the file already
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}

// discard removes what was staged and not committed.
func (s *outputSet) discard() {
	for _, f := range s.staged {
		os.Remove(f.tmp)
	}
	s.staged = nil
}

// ctxWriter fails its writes once ctx is done, so a long write stops at
// an interruption.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Output kinds.
const (
	outFile   = iota // a regular file, new or replaced
	outStream        // a character device or a named pipe, written through
)

// resolveOutput says where output path goes: following symbolic links,
// the real path and whether it is a file to replace or a stream to write
// through. It refuses what it must not replace.
func resolveOutput(path string) (string, int, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, outFile, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("write %s: %w", path, err)
	}
	real := path
	if st.Mode()&fs.ModeSymlink != 0 {
		// Stat follows the link, also the kernel's (/dev/stdout to a pipe).
		if st, err = os.Stat(path); err != nil {
			target, _ := os.Readlink(path)
			return "", 0, fmt.Errorf("write %s: it is a symbolic link to %s, which cannot be followed (%w); give the target's path, or remove the link", path, target, err)
		}
		if st.Mode().IsRegular() {
			// The file the link points to is replaced; the link stays.
			if real, err = filepath.EvalSymlinks(path); err != nil {
				return "", 0, fmt.Errorf("write %s: %w", path, err)
			}
		}
	}
	switch m := st.Mode(); {
	case m.IsRegular():
		return real, outFile, nil
	case m.IsDir():
		return "", 0, fmt.Errorf("write %s: it is a directory", path)
	case m&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		return real, outStream, nil
	}
	return "", 0, fmt.Errorf("write %s: it is not a regular file, a device or a pipe (%v); it is left as it is", path, st.Mode().Type())
}

// writeOutputs writes files with an outputSet under an interrupt handler:
// an interruption while writing leaves every target as it was.
func writeOutputs(stdout io.Writer, files func(s *outputSet) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newOutputSet(ctx, stdout)
	defer s.discard()
	if err := files(s); err != nil {
		return err
	}
	return s.commit()
}

// writeFileAtomic writes one file whole or not at all (see outputSet).
func writeFileAtomic(path string, write func(w *bufio.Writer) error) error {
	return writeOutputs(os.Stdout, func(s *outputSet) error { return s.add(path, write) })
}

// checkOutputs fails before any simulation when an output could not be
// written, rather than after a long run. It creates nothing: each output
// is resolved as outputSet would (standard output, a link followed, a
// device or pipe written through; a directory, socket or dangling link
// refused), and for a file the nearest directory that exists on its path
// is checked for room to make one. Empty names are skipped; "-" may name
// one file output, not a directory.
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
	stdouts := 0
	for _, p := range files {
		if p == "" {
			continue
		}
		if p == stdoutName {
			if stdouts++; stdouts > 1 {
				return badInput("only one output can go to standard output (-)")
			}
			continue
		}
		real, kind, err := resolveOutput(p)
		if err != nil {
			return err
		}
		if kind == outFile {
			if err := try(p, filepath.Dir(real)); err != nil {
				return err
			}
		}
	}
	for _, d := range dirs {
		switch d {
		case "":
		case stdoutName:
			return badInput("--csv names a directory for run and compare (it gets several files); standard output (-) cannot hold them")
		default:
			if err := try(d, d); err != nil {
				return err
			}
		}
	}
	return nil
}
