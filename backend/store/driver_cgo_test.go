//go:build cgo

package store

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// This file names the driver's error type, which only a cgo build has (see
// driver_cgo.go), so that the package's tests still compile with CGO_ENABLED=0.

func TestMapErr(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"no rows", sql.ErrNoRows, ErrNotFound},
		{"busy", sqlite3.Error{Code: sqlite3.ErrBusy}, ErrBusy},
		{"locked", sqlite3.Error{Code: sqlite3.ErrLocked}, ErrBusy},
		{"other", sqlite3.Error{Code: sqlite3.ErrConstraint}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mapErr(tt.err)
			if tt.want != nil && !errors.Is(got, tt.want) {
				t.Errorf("mapErr(%v) = %v, want it to wrap %v", tt.err, got, tt.want)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("mapErr(%v) = %v, lost the driver error", tt.err, got)
			}
		})
	}
}
