package mcpconfig

import (
	"net/netip"
	"net/url"
	"strings"
	"unicode"

	"github.com/plugboard/plugboard/backend/issue"
	"github.com/plugboard/plugboard/backend/jsondoc"
	"golang.org/x/net/http/httpguts"
)

// remoteCheck applies the URL and header rules of spec §7.2.1. strict is the portable
// format; the Claude / Cursor shape (a client's native format) makes the rules that only
// matter for portability warnings.
type remoteCheck struct {
	report
	strict bool
}

// soft is the severity of a rule that a lenient (Claude-shape) file only warns about.
func (r remoteCheck) soft() issue.Severity {
	if r.strict {
		return issue.Error
	}
	return issue.Warning
}

// url checks the endpoint. Messages never quote the URL, nor its scheme: its path or
// query may carry a token, and a "scheme" may be a token written where the URL should
// be. Only the host of an http(s) URL, which the summary shows anyway, may be named.
func (r remoteCheck) url(s *Server, obj map[string]any, ptr string) {
	raw, ok := obj["url"].(string)
	if !ok || raw == "" {
		return // a schema leaf or a required-field issue
	}
	ptr += "/url"
	name := q(s.Name)
	u, err := url.Parse(raw)
	switch {
	case !r.strict && strings.Contains(raw, "${") && (err != nil || u.Host == ""):
		r.warnf(&s.Issues, CodeClaudeURLUnchecked, ptr, "server %s: url uses ${…} placeholders, so Plugboard cannot check it", name)
		return
	case err != nil || strings.ContainsFunc(raw, unicode.IsSpace):
		r.errorf(&s.Issues, CodeURLInvalid, ptr, "server %s: url is not a valid URL; write an absolute https:// URL", name)
		return
	case u.Scheme == "":
		r.errorf(&s.Issues, CodeURLInvalid, ptr, "server %s: url is not absolute; write it as https://host/path", name)
		return
	case u.Scheme != "http" && u.Scheme != "https":
		r.errorf(&s.Issues, CodeURLInvalid, ptr, "server %s: url has a scheme other than http or https; only http:// and https:// "+
			"URLs are allowed, so write an https:// URL", name)
		return
	case u.Host == "" || u.Hostname() == "":
		r.errorf(&s.Issues, CodeURLInvalid, ptr, "server %s: url has no host; write it as https://host/path", name)
		return
	}
	if u.User != nil {
		r.add(&s.Issues, r.soft(), CodeURLUserinfo, ptr, "server %s: url contains user information (user:password@); "+
			"remove it, credentials do not belong in package data and the client handles authorization", name)
	}
	if strings.Contains(raw, "#") {
		r.add(&s.Issues, r.soft(), CodeURLFragment, ptr, "server %s: url contains a fragment (#…); remove it", name)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		r.add(&s.Issues, r.soft(), CodeURLInsecure, ptr, "server %s: url uses plain http to %s, which is not a loopback host; "+
			"use https (http is allowed only for localhost and loopback IP addresses)", name, q(u.Hostname()))
	}
}

// loopback reports whether host is exactly "localhost" or a loopback IP literal
// (127.0.0.0/8, ::1, and IPv4-mapped forms of them).
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == "" && a.IsLoopback()
}

// credentialHeaders are header names whose values are credentials by definition.
var credentialHeaders = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true}

// headers checks names and values (never quoting a value) and repeated names ignoring
// case. A name that is not a valid field name is not quoted either, nor put in the
// pointer: it may be a whole "Authorization: Bearer …" line written as the name.
func (r remoteCheck) headers(s *Server, obj map[string]any, ptr string) {
	h, ok := obj["headers"].(map[string]any)
	if !ok {
		return
	}
	name := q(s.Name)
	seen := make(map[string]string, len(h))
	for _, k := range sortedKeys(h) {
		kp := headerPointer(ptr, k)
		if !httpguts.ValidHeaderFieldName(k) {
			r.errorf(&s.Issues, CodeHeaderName, kp, "server %s: a name in \"headers\" is not a valid HTTP field name "+
				"(letters, digits and !#$%%&'*+-.^_`|~ only, no spaces or colons); put only the name in the key and the rest in its value", name)
		}
		if v, ok := h[k].(string); ok && !httpguts.ValidHeaderFieldValue(v) {
			r.errorf(&s.Issues, CodeHeaderValue, kp, "server %s: the value of %s contains a character not allowed "+
				"in an HTTP header (such as CR, LF or NUL); remove it", name, headerLabel(k))
		}
		lower := strings.ToLower(k)
		if first, dup := seen[lower]; dup {
			what := "two names in \"headers\" that are not valid" // case does not change validity
			if httpguts.ValidHeaderFieldName(k) {
				what = "headers " + q(first) + " and " + q(k)
			}
			r.errorf(&s.Issues, CodeHeaderDuplicate, kp, "server %s: %s are the same header (names ignore case); keep one", name, what)
		} else {
			seen[lower] = k
		}
		if r.strict && credentialHeaders[lower] {
			r.warnf(&s.Issues, CodeHeaderSecret, kp, "server %s: header %s carries credentials, but header values are "+
				"visible package data (spec §7.2.1); leave authorization to the client", name, q(k))
		}
	}
}

// headerLabel names header k in a message: by its name when that is a valid field name,
// otherwise without it.
func headerLabel(k string) string {
	if httpguts.ValidHeaderFieldName(k) {
		return "header " + q(k)
	}
	return "a \"headers\" member whose name is not valid"
}

// headerPointer is the pointer of header k of the server at ptr: the member, or the
// headers object when k is not a valid field name (the pointer would show it).
func headerPointer(ptr, k string) string {
	if httpguts.ValidHeaderFieldName(k) {
		return ptr + jsondoc.Pointer("headers", k)
	}
	return ptr + "/headers"
}
