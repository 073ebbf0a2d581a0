package app

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestCatalogWaitsForRunningScan: a Catalog call during a scan gets that scan, and no
// second scan starts.
func TestCatalogWaitsForRunningScan(t *testing.T) {
	home, pb, _ := fixtureHome(t)
	var updates atomic.Int32
	inScan := make(chan struct{})
	var once sync.Once
	svc := NewService(home, pb, func(name string, _ any) {
		switch name {
		case EventProgress:
			once.Do(func() { close(inScan) }) // the scan holds the scan lock now
		case EventUpdated:
			updates.Add(1)
		}
	})
	done := make(chan struct{})
	go func() { svc.Rescan(); close(done) }()
	<-inScan
	c, _ := svc.Catalog()
	<-done
	if c == nil || len(c.Plugins) == 0 {
		t.Fatal("Catalog returned nothing")
	}
	if n := updates.Load(); n != 1 {
		t.Errorf("%d scans ran, want 1", n)
	}
}
