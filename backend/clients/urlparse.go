package clients

import (
	"strings"
	"sync"
	"unicode/utf8"

	wurl "github.com/nlnwa/whatwg-url/url"
	"golang.org/x/net/idna"
)

// isURL reports whether s parses as a URL by the WHATWG URL standard, the way new URL(s)
// takes it in Bun, which claude runs on: zod's url(), and so Claude's manifest schema
// (homepage and the other URL fields), is that call. The parser is
// github.com/nlnwa/whatwg-url's, but for a special URL's domain, which domainHost checks.
func isURL(s string) bool {
	_, err := urlParser().Parse(s)
	return err == nil
}

var urlParser = sync.OnceValue(func() wurl.Parser {
	var p wurl.Parser
	p = wurl.NewParser(wurl.WithPreParseHostFunc(func(u *wurl.Url, host string) string {
		if !u.IsSpecialScheme() || host == "" || host[0] == '[' {
			return host // an opaque host, none, or IPv6: the library's parse is the standard's
		}
		return domainHost(p.(percentDecoder).DecodePercentEncoded(host))
	}))
	return p
})

type percentDecoder interface{ DecodePercentEncoded(string) string }

// domainIDNA is domain to ASCII as the standard (and Bun) runs it: UTS #46 without the
// STD3 rules, hyphens unchecked, no DNS length limit.
var domainIDNA = idna.New(idna.MapForLookup(), idna.StrictDomainName(false), idna.BidiRule(),
	idna.CheckHyphens(false), idna.CheckJoiners(true), idna.Transitional(false), idna.VerifyDNSLength(false))

// domainHost checks the domain of a special URL (percent-decoded) as the standard does,
// and hands the library a host of the same verdict: "%" (a forbidden code point, so
// failure), "x" (a valid domain), or, when the standard reads it as an IPv4 address, the
// host for the library to parse as one. The library's own domain checks depart from
// the standard, and from Bun 1.4.5, in three places:
//   - Its domain to ASCII applies the STD3 rules: "http://a_b.bücher.example" and
//     "http://ex~ample.bücher" fail in it; Bun takes them.
//   - It takes "http://xn--.example" (an empty xn-- label) and "http://xn--bcher-kvaß-"
//     (an xn-- label that is not ASCII), which UTS #46 and Bun refuse.
//   - Its test of a number is strconv's, which takes a sign and stops at an overflow:
//     it reads "http://-1.2.3.4" as an address (Bun refuses it), and "http://a.+1" and
//     "http://42949672964294967296(" as addresses that fail (Bun takes them: domains).
func domainHost(d string) string {
	if !isASCII(d) || hasACELabel(d) {
		if !utf8.ValidString(d) || !aceLabelsValid(d) {
			return "%"
		}
		a, err := domainIDNA.ToASCII(d)
		if err != nil || a == "" {
			return "%"
		}
		d = a
	} // else domain to ASCII only lowers the case
	for i := 0; i < len(d); i++ {
		if wurl.ForbiddenDomainCodePoint.Test(uint(d[i])) {
			return "%"
		}
	}
	labels := strings.Split(d, ".")
	if len(labels) > 1 && labels[len(labels)-1] == "" {
		labels = labels[:len(labels)-1]
	}
	if !isNumber(labels[len(labels)-1]) {
		return "x"
	}
	if strings.ContainsAny(d, "+-") {
		return "%"
	}
	return d
}

// isNumber is the standard's test of a host's last label: digits, or 0x and hex digits.
func isNumber(l string) bool {
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		return strings.Trim(l[2:], "0123456789abcdefABCDEF") == ""
	}
	return l != "" && strings.Trim(l, "0123456789") == ""
}

// aceLabelsValid says whether each label that starts with xn-- once mapped (ＸＮ-- is
// one) is ASCII and more than the prefix.
func aceLabelsValid(d string) bool {
	var mapped strings.Builder
	for _, r := range d {
		m, _ := domainIDNA.ToUnicode(string(r)) // one rune: mapped, never decoded
		mapped.WriteString(m)
	}
	for _, l := range strings.Split(mapped.String(), ".") {
		if strings.HasPrefix(l, "xn--") && (l == "xn--" || !isASCII(l)) {
			return false
		}
	}
	return true
}

func hasACELabel(d string) bool {
	for _, l := range strings.Split(d, ".") {
		if len(l) >= 4 && strings.EqualFold(l[:4], "xn--") {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
