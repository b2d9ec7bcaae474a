package model

import (
	"testing"
	"unsafe"
)

// TestRequestRecordIsTwoLines holds the request record to two cache lines,
// with the fields a completion reads in the first (see request).
func TestRequestRecordIsTwoLines(t *testing.T) {
	var r request
	if n := unsafe.Sizeof(r); n != 128 {
		t.Fatalf("request is %d bytes, want 128 (two cache lines)", n)
	}
	for name, off := range map[string]uintptr{"arrival": unsafe.Offsetof(r.arrival), "admitted": unsafe.Offsetof(r.admitted),
		"ttftSvc": unsafe.Offsetof(r.ttftSvc), "wl": unsafe.Offsetof(r.wl), "output": unsafe.Offsetof(r.output),
		"gw": unsafe.Offsetof(r.gw), "orphan": unsafe.Offsetof(r.orphan), "state": unsafe.Offsetof(r.state)} {
		if off >= 64 {
			t.Errorf("request.%s at byte %d, outside the first line", name, off)
		}
	}
}
