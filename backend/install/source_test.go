package install

import (
	"strings"
	"testing"
)

// A URL that does not parse is named without its credentials, in net/url's words too.
func TestUnparsableURLHidesCredentials(t *testing.T) {
	for _, raw := range []string{"https://user:S3CRET@host:port/x", "https://S3CRET@ho st/x", "https://u:S3CRET@host/%zz"} {
		_, err := classify(raw)
		if err == nil || strings.Contains(err.Error(), "S3CRET") || !strings.Contains(err.Error(), "not a URL git can fetch") {
			t.Errorf("classify(%s) = %v", raw, err)
		}
	}
}
