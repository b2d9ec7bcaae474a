package main

import (
	"errors"
	"io"
)

func cmdCalibrate(args []string, stdout, stderr io.Writer) error {
	return usageError{errors.New("calibrate: not built yet")}
}
