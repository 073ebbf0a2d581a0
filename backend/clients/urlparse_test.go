package clients

import (
	"sort"
	"testing"
)

// What claude 2.1.197 (zod's url(), a WHATWG parser) says of each homepage, as a
// plugin loading or refused; the fixtures manifest-homepage-* run a few of them through
// the real claude on every test run.
var claudeURLs = map[string]bool{
	"https://example.com":                   true,
	"https://example.com:8443/docs?a=b#c":   true,
	"http://user:pw@example.com":            true,
	"http:/x":                               true,
	"https:///x":                            true,
	`http:\\example.com\docs`:               true,
	"http://example.com:":                   true,
	"http://[::1]:8080/":                    true,
	"http://[::ffff:1.2.3.4]/":              true,
	"http://1.2.3.4/":                       true,
	"http://0x7f.1/":                        true,
	"http://%65xample.com/":                 true,
	"http://ex%41mple.com":                  true,
	"  https://example.com  ":               true,
	"https://exa\tmple.com":                 true,
	"https://bücher.example":                true,
	"file:///usr/share/doc":                 true,
	"file://host/share":                     true,
	"mailto:jane@example.com":               true,
	"foo:":                                  true,
	"javascript:alert(1)":                   true,
	"foo://host:123/x":                      true,
	"localhost:3000":                        true,
	"example.com/docs":                      false,
	"/docs":                                 false,
	"https:":                                false,
	"http://":                               false,
	"1http://example.com":                   false,
	"http://example.com:99999":              false,
	"http://example.com:65536":              false,
	"http://example.com:abc":                false,
	"http://example.com:+80":                false,
	"http://[::1]:99999":                    false,
	"http://[::1":                           false,
	"http://[::1]x":                         false,
	"http://[]":                             false,
	"http://[1.2.3.4]":                      false,
	"http://[1:2:3:4:5:6:7:8:9]":            false,
	"http://1.2.3.256":                      false,
	"http://1.2.3.4.5":                      false,
	"http://99999999999":                    false,
	"http://09.1.1.1":                       false,
	"http://example.123":                    false,
	"http://example.123.":                   false,
	"http://foo.0x1":                        false,
	"http://a[b":                            false,
	"http://a]b":                            false,
	"http://a\u007fb":                       false,
	"http://a\u0001b":                       false,
	"http://\u00ad":                         false,
	"http://a\u00a0b.com":                   false,
	"http://a.com\u00a0":                    false,
	"\u00a0http://a.com":                    false,
	"http://a.com\u3000":                    false,
	"http://a.com\u0085":                    false,
	"http://exa mple.com":                   false,
	"http://%zz.com":                        false,
	"foo://a b":                             false,
	"foo://a<b":                             false,
	"foo://[::1":                            false,
	"foo://h:p":                             false,
	"git+ssh://git@github.com:org/repo.git": false,
	"file://host:80/":                       false,
	"file://:80":                            false,
	"file://a b/x":                          false,
}

func TestIsURLAsClaudeParses(t *testing.T) {
	for s, want := range claudeURLs {
		if got := isURL(s); got != want {
			t.Errorf("isURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// What new URL() says in Bun 1.4.5 (the runtime claude is built on) of hosts where the
// URL library alone, or the home-made parser isURL replaced, went wrong: each of
// domainHost's mends, and IDNA, which Bun applies (ZWJ, U+2100, bad punycode refused).
// Left out, as a Bun quirk that neither the standard nor Node shares: Bun refuses
// "http://42949672950x" (and "http://42949672950x7f"), which isURL takes.
var bunURLs = map[string]bool{
	"http://a_b.bücher.example":             true,
	"http://ex~ample.bücher":                true,
	"https://my_site.xn--bcher-kva.example": true,
	"http://xn--.example":                   false,
	"http://xn--bcher-kvaß-":                false,
	"http://ＸＮ--bcher-kva.example":          true,
	"http://xn--bcher-kva\u00ad.example":    true,
	"http://-1.2.3.4":                       false,
	"http://+1.2.3.4":                       false,
	"http://1.-2.3.4":                       false,
	"http://-1":                             true,
	"http://a.+1":                           true,
	"http://0x-1":                           true,
	"http://42949672964294967296(":          true,
	"http://a\u200db.example":               false,
	"http://\u2100.example":                 false,
	"http://xn--a.com":                      false,
	"http://xn--bcher-kva-.example":         false,
	"http://例え.テスト":                         true,
	"http://bücher\u00ad.example":           true,
	"foo://a@":                              false,
	"foo://a@/x":                            false,
	"foo://:":                               false,
	"file:1<":                               true,
	"file:///.09:/":                         true,
}

func TestIsURLAsBunParses(t *testing.T) {
	for s, want := range bunURLs {
		if got := isURL(s); got != want {
			t.Errorf("isURL(%q) = %v, want %v", s, got, want)
		}
	}
}

// BenchmarkIsURL is one isURL call, over the cases above in turn.
func BenchmarkIsURL(b *testing.B) {
	cases := make([]string, 0, len(claudeURLs))
	for s := range claudeURLs {
		cases = append(cases, s)
	}
	sort.Strings(cases)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		isURL(cases[i%len(cases)])
	}
}
