//go:build !linux

package scriptmodel

import (
	"errors"
	"net"
)

// Netns is an empty network namespace; there is none off Linux (see netns_linux.go).
type Netns struct{}

// ErrNoNetns says this process cannot make a network namespace here.
var ErrNoNetns = errors.New("network namespaces are Linux only")

// NewNetns fails off Linux.
func NewNetns() (*Netns, error) { return nil, ErrNoNetns }

// Path is empty off Linux.
func (n *Netns) Path() string { return "" }

// Command returns argv unchanged off Linux.
func (n *Netns) Command(argv ...string) []string { return argv }

// Listen fails off Linux.
func (n *Netns) Listen(string) (net.Listener, error) { return nil, ErrNoNetns }

// Close does nothing off Linux.
func (n *Netns) Close() error { return nil }
