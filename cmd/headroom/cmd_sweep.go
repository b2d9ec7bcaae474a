package main

import (
	"errors"
	"io"
)

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	return usageError{errors.New("sweep: not built yet")}
}
