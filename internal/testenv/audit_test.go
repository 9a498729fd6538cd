package testenv

import (
	"strings"
	"testing"
)

func TestFindCredentials(t *testing.T) {
	root := "root-0123456789abcdef01234567"
	for text, want := range map[string]int{
		"condition changed type=Ready":                                 0,
		"SecretStore is not Ready: permission denied":                  0,
		"token " + root + " leaked":                                    1,
		"vault token hvs.CAESIJ0123456789abcdefghijklmnopqrstuv":       1,
		"legacy s.0123456789abcdefghijklmn token":                      1,
		"jwt eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJrOHMifQ.c2lnbmF0dXJlc2ln": 1,
		"a sha256:0123456789abcdef0123456789abcdef hash":               0,
	} {
		got := FindCredentials("log", text, root)
		if len(got) != want {
			t.Errorf("%q: %d findings %v, want %d", text, len(got), got, want)
		}
		for _, f := range got {
			if strings.Contains(f, root) || strings.Contains(f, "hvs.C") {
				t.Errorf("finding carries the value: %s", f)
			}
		}
	}
}
