package mcpproxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
)

// ErrRefused marks a request the origin rule stopped before anything was sent: a redirect,
// or a request for another origin.
var ErrRefused = errors.New("refused")

// versionHeader is the header the spec requires on every request after initialization.
const versionHeader = "Mcp-Protocol-Version"

// refuseRedirect is the client's CheckRedirect. The configured URL is the only place a
// header or a body may go; a redirect, even within the origin, asks to be reached
// elsewhere, and the person configuring the server should write the final URL instead.
func refuseRedirect(req *http.Request, _ []*http.Request) error {
	return fmt.Errorf("%w: the server redirected to %s; redirects are never followed, so configure the final URL",
		ErrRefused, originOf(req.URL))
}

// guard is the http.RoundTripper of the bridge's client. It refuses, before anything is
// sent, every request for an origin other than the configured one: CheckRedirect alone
// would miss a legacy SSE "endpoint" event that points elsewhere. Only the requests it lets
// through get the configured headers.
type guard struct {
	base    *http.Transport
	origin  string
	headers http.Header
	version atomic.Pointer[string] // negotiated protocol version, once known
}

func newGuard(origin string, headers map[string]string, logf func(string, ...any)) *guard {
	g := &guard{base: baseTransport(), origin: origin, headers: http.Header{}}
	for _, name := range sortedNames(headers) {
		if reserved(name) {
			logf("header %s from the config is ignored: the transport sets it", name)
			continue
		}
		g.headers.Set(name, headers[name])
	}
	return g
}

// RoundTrip implements http.RoundTripper.
func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if o := originOf(req.URL); o != g.origin {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body even on error
		}
		return nil, fmt.Errorf("%w: a request to %s (only %s is configured)", ErrRefused, o, g.origin)
	}
	req = req.Clone(req.Context()) // a RoundTripper must not change the caller's request
	// Client-generated headers take precedence: a configured header fills only a gap.
	for name, values := range g.headers {
		if _, set := req.Header[name]; !set {
			req.Header[name] = values
		}
	}
	if v := g.version.Load(); v != nil && *v != "" && req.Header.Get(versionHeader) == "" {
		req.Header.Set(versionHeader, *v)
	}
	return g.base.RoundTrip(req)
}

func (g *guard) setVersion(v string) { g.version.Store(&v) }

// reserved reports whether a header belongs to the transport, so that a config cannot set
// it: the MCP headers (the SDK sets some only on some requests, so "fill only a gap" is not
// enough), content negotiation, and the framing and hop-by-hop headers of net/http (a
// configured Accept-Encoding, for one, would turn off its transparent decompression).
func reserved(name string) bool {
	c := http.CanonicalHeaderKey(name)
	if strings.HasPrefix(c, "Mcp-") {
		return true
	}
	switch c {
	case "Last-Event-Id", "Accept", "Content-Type", "Host", "Content-Length", "Transfer-Encoding",
		"Connection", "Accept-Encoding", "Te", "Trailer", "Upgrade", "Keep-Alive", "Proxy-Connection":
		return true
	}
	return false
}

// originOf is scheme://host:port with the default port made explicit, so that
// https://h and https://h:443 compare equal.
func originOf(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// baseTransport is net/http's default transport (environment proxies, timeouts, HTTP/2),
// as a copy of its own so that closing idle connections touches no one else.
func baseTransport() *http.Transport {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return t.Clone()
	}
	return &http.Transport{Proxy: http.ProxyFromEnvironment}
}
