package testhome

import (
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Swap exchanges the paths a and b (renameat2 RENAME_EXCHANGE, atomic) again and again
// in a goroutine until the returned stop is called, which waits for it; stop also runs
// at the end of the test, so a check that fails half-way leaves no swapper behind. It is
// the attacker of the containment tests: a folder swapped for a link while it is read.
func Swap(t testing.TB, a, b string) (stop func()) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	stop = func() { once.Do(func() { close(done); wg.Wait() }) }
	t.Cleanup(stop)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap %s and %s: %v", a, b, err)
				return
			}
		}
	}()
	return stop
}
