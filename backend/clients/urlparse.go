package clients

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// isURL reports whether s parses as a URL the way the WHATWG URL standard's parser (the
// one zod's url(), and so Claude's manifest schema, uses) takes it, in the parts a
// manifest's URL can get wrong: a scheme; for http, https, ws, wss and ftp a host; a port
// of digits up to 65535; a host that is a valid IPv6 address in brackets, a valid IPv4
// address when its last label is a number, else a name without a forbidden character
// (percent escapes decoded first; a space of any kind, a control character, and
// # % / : < > ? @ [ \ ] ^ | are forbidden). Internationalised names are taken as they are
// (no IDNA check, as Bun does not make one either).
func isURL(s string) bool {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	i := strings.IndexByte(s, ':')
	if i <= 0 || !urlScheme().MatchString(s[:i]) {
		return false
	}
	scheme, rest := strings.ToLower(s[:i]), s[i+1:]
	switch scheme {
	case "http", "https", "ws", "wss", "ftp", "file":
	default:
		// Another scheme: a path (mailto:…) takes anything; an authority (//…) is
		// checked as an opaque host.
		after, ok := strings.CutPrefix(rest, "//")
		if !ok {
			return true
		}
		host, port, ok := splitAuthority(after, "/?#")
		if !ok || !validPort(port) {
			return false
		}
		if strings.HasPrefix(host, "[") {
			return validIPv6(host)
		}
		return !strings.ContainsAny(host, "\x00 #/:<>?@[\\]^|")
	}
	rest = strings.TrimLeft(rest, "/\\")
	if scheme == "file" {
		// The file host has no user nor port: an '@' or ':' in it is a forbidden character.
		host := rest
		if j := strings.IndexAny(rest, "/\\?#"); j >= 0 {
			host = rest[:j]
		}
		return host == "" || validHost(host)
	}
	host, port, ok := splitAuthority(rest, "/\\?#")
	return ok && host != "" && validPort(port) && validHost(host)
}

var urlScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`) })

// splitAuthority cuts the authority at the first of ends, drops the user information
// (up to its last '@') and splits host and port (after the first ':' outside brackets).
func splitAuthority(s, ends string) (host, port string, ok bool) {
	if j := strings.IndexAny(s, ends); j >= 0 {
		s = s[:j]
	}
	if j := strings.LastIndexByte(s, '@'); j >= 0 {
		s = s[j+1:]
	}
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", "", false
		}
		host, s = s[:end+1], s[end+1:]
		if s == "" {
			return host, "", true
		}
		if s[0] != ':' {
			return "", "", false
		}
		return host, s[1:], true
	}
	host, port, _ = strings.Cut(s, ":")
	return host, port, true
}

func validPort(p string) bool {
	if p == "" {
		return true
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	n, err := strconv.Atoi(strings.TrimLeft(p, "0") + "0")
	return err == nil && n/10 <= 65535
}

func validIPv6(h string) bool {
	inner := strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	a, err := netip.ParseAddr(inner)
	return err == nil && a.Is6() && a.Zone() == "" && !strings.Contains(inner, "%")
}

// validHost checks a special URL's host: IPv6, IPv4, or a domain.
func validHost(h string) bool {
	if strings.HasPrefix(h, "[") {
		return validIPv6(h)
	}
	if d, err := url.PathUnescape(h); err == nil {
		h = d
	}
	if !utf8.ValidString(h) {
		return false
	}
	mapped := strings.Builder{}
	for _, r := range h {
		switch {
		case r == '\u00ad': // ignored by the IDNA mapping
			continue
		case r < 0x20 || r == 0x7f || strings.ContainsRune(" #%/:<>?@[\\]^|", r):
			return false
		case r >= 0x80 && (unicode.IsSpace(r) || unicode.IsControl(r)):
			return false
		}
		mapped.WriteRune(unicode.ToLower(r))
	}
	h = mapped.String()
	if h == "" {
		return false
	}
	if endsInNumber(h) {
		return validIPv4(h)
	}
	return true
}

// endsInNumber is the standard's test for a host that must be an IPv4 address: its last
// label (before a final dot) is decimal digits or 0x and hex digits.
func endsInNumber(h string) bool {
	labels := strings.Split(h, ".")
	if labels[len(labels)-1] == "" && len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	last := labels[len(labels)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := ipv4Number(last)
	return ok && (strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X"))
}

func validIPv4(h string) bool {
	labels := strings.Split(h, ".")
	if labels[len(labels)-1] == "" && len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	if len(labels) > 4 {
		return false
	}
	for i, l := range labels {
		n, ok := ipv4Number(l)
		if !ok {
			return false
		}
		if i < len(labels)-1 && n > 255 {
			return false
		}
		if i == len(labels)-1 && n >= 1<<(8*(5-len(labels))) {
			return false
		}
	}
	return true
}

// ipv4Number parses one IPv4 label: decimal, 0x hex or 0-led octal.
func ipv4Number(l string) (uint64, bool) {
	if l == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(l) >= 2 && (l[:2] == "0x" || l[:2] == "0X"):
		l, base = l[2:], 16
		if l == "" {
			return 0, true
		}
	case len(l) >= 2 && l[0] == '0':
		l, base = l[1:], 8
	}
	n, err := strconv.ParseUint(l, base, 64)
	return n, err == nil
}
