package keystone

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/transform"
)

func TestSameIdentityName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		// Case and accents fold (docs/reference/keystoneservice.md, "The admin
		// identity is never registrable").
		{"identical", "admin", "admin", true},
		{"capitalised", "Admin", "admin", true},
		{"upper case", "ADMIN", "admin", true},
		{"acute accent", "admín", "admin", true},
		{"upper case with accents", "ÁDMÍN", "admin", true},
		{"decomposed accent (NFD input)", "admi\u0301n", "admin", true},
		{"several accents", "Àdmîñ", "ADMIN", true},
		{"domain Default", "Default", "default", true},
		{"domain DEFAULT", "DEFAULT", "Default", true},
		{"dotless i weighs as I", "admın", "admin", true},

		// PAD SPACE: trailing spaces are ignored, nothing else is.
		{"trailing space", "admin ", "admin", true},
		{"several trailing spaces", "admin   ", "ADMIN", true},
		{"leading space counts", " admin", "admin", false},
		{"inner space counts", "ad min", "admin", false},
		{"trailing tab counts", "admin\t", "admin", false},

		// ß: one s, no expansion (general_ci, not unicode_ci).
		{"ß is s", "straße", "strase", true},
		{"capital ẞ is s", "STRAẞE", "strase", true},
		{"ß is not ss", "straße", "strasse", false},

		// Supplementary characters all weigh as U+FFFD.
		{"two emoji", "svc-🍣", "svc-🍺", true},

		// Different names stay different.
		{"different names", "admin", "nova", false},
		{"prefix", "admin", "admin2", false},
		{"stroke is not an accent", "ø", "o", false},
		{"different domains", "Default", "service", false},
		{"empty and space", "", " ", true},
		{"empty and admin", "", "admin", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := SameIdentityName(tc.a, tc.b); got != tc.same {
				t.Errorf("SameIdentityName(%q, %q) = %v, want %v (folded %q, %q)", tc.a, tc.b, got, tc.same,
					FoldName(tc.a), FoldName(tc.b))
			}
			if got := SameIdentityName(tc.b, tc.a); got != tc.same {
				t.Errorf("SameIdentityName is not symmetric for %q, %q", tc.a, tc.b)
			}
		})
	}
}

func TestFoldName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"admin":   "admin",
		"ÁDMÍN ":  "admin",
		"Default": "default",
		"Straße":  "strase",
		"ａｄｍｉｎ":   "admin",
		"":        "",
	} {
		if got := FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
		if got := FoldName(FoldName(in)); got != FoldName(in) {
			t.Errorf("FoldName is not idempotent on %q: %q", in, got)
		}
	}
}

// TestFoldName_ConcurrentCallers: reconcilers fold names from many
// goroutines at once; a shared transformer chain corrupted its state and
// panicked (slice bounds out of range) under exactly this load.
func TestFoldName_ConcurrentCallers(t *testing.T) {
	t.Parallel()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				if got := FoldName("ÁDMÍN Straße "); got != "admin strase" {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("FoldName under concurrency = %q, want %q", got, "admin strase")
	}
}

// TestFoldName_ASCIIMatchesTheChain: the ASCII shortcut gives every ASCII
// character, alone and inside a name with trailing and inner spaces, the key
// the full general_ci chain gives it.
func TestFoldName_ASCIIMatchesTheChain(t *testing.T) {
	t.Parallel()
	for b := 0; b < utf8.RuneSelf; b++ {
		for _, in := range []string{string(rune(b)), "Svc " + string(rune(b)) + "x  "} {
			chain, _, err := transform.String(nameFolder(), strings.TrimRight(in, " "))
			if err != nil {
				t.Fatalf("chain on %q: %v", in, err)
			}
			if got := FoldName(in); got != chain {
				t.Errorf("FoldName(%q) = %q, the chain gives %q", in, got, chain)
			}
		}
	}
}
