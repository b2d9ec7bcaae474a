package model

import "github.com/headroom-sim/headroom/workloads"

func fieldErr(key, msg string) error { return &workloads.FieldError{Key: key, Msg: msg} }
