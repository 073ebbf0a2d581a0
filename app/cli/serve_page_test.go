package cli

import "testing"

// serve warns before it listens anywhere but loopback (the server then refuses
// "localhost" as a Host: app.TestGuardOffLoopback).
func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.2": true, "::1": true, "localhost": true,
		"": false, "0.0.0.0": false, "::": false, "192.168.1.10": false, "example.com": false, "localhost.example.com": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
