package testhome

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// make test runs the tests with no network but loopback (build/linux/offline.sh): here a
// connection to another host fails at once (network unreachable), a name does not
// resolve, and loopback works. Run otherwise (go test by hand, not root), it cannot be
// checked; under CI that fails.
func TestTestsRunOffline(t *testing.T) {
	if os.Getenv("PLUGBOARD_TEST_OFFLINE") == "" {
		CannotRun(t, "not run through build/linux/offline.sh (make test)")
	}
	start := time.Now()
	_, err := net.DialTimeout("tcp", "192.0.2.1:80", 5*time.Second) // TEST-NET-1
	if !errors.Is(err, syscall.ENETUNREACH) {
		t.Errorf("a connection to 192.0.2.1 gave %v after %v, want network unreachable at once", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if addrs, err := net.DefaultResolver.LookupHost(ctx, "example.com"); err == nil {
		t.Errorf("example.com resolved to %v", addrs)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("loopback: %v", err)
	}
	defer l.Close()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("loopback: %v", err)
	}
	c.Close()
}
