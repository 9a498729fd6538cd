package password

import (
	"strings"
	"testing"
)

// TestNewOverManyDraws checks every property a consumer relies on over many
// draws: the length, the alphabet (so no draw starts with "-" or holds a
// shell or option character), that draws differ, and that every alphabet
// character occurs in the first position, so the first character is not
// biased toward a subset.
func TestNewOverManyDraws(t *testing.T) {
	t.Parallel()
	const draws = 20000
	seen := make(map[string]bool, draws)
	first := map[byte]int{}
	for i := 0; i < draws; i++ {
		p := string(New())
		if len(p) != Length {
			t.Fatalf("draw %d: %d characters, want %d", i, len(p), Length)
		}
		for j := 0; j < len(p); j++ {
			if !strings.ContainsRune(Alphabet, rune(p[j])) {
				t.Fatalf("draw %d: character %q at %d is outside the alphabet", i, p[j], j)
			}
		}
		if seen[p] {
			t.Fatalf("draw %d repeats an earlier password", i)
		}
		seen[p] = true
		first[p[0]]++
	}
	if len(first) != len(Alphabet) {
		t.Fatalf("first characters seen: %d of %d alphabet characters", len(first), len(Alphabet))
	}
	// Each of 32 first characters is expected 625 times in 20000 draws; a
	// count below 400 or above 900 is more than 9 standard deviations off.
	for c, n := range first {
		if n < 400 || n > 900 {
			t.Fatalf("first character %q drawn %d times of %d: biased", c, n, draws)
		}
	}
}

// TestAlphabetHasNoSpecialCharacter pins the alphabet itself against the
// characters shells, option parsers, URLs and config files treat specially.
func TestAlphabetHasNoSpecialCharacter(t *testing.T) {
	t.Parallel()
	if strings.ContainsAny(Alphabet, "-_+/=$`\\\"' !#&*;|<>(){}[]?~%@:,.\n\t") {
		t.Fatalf("alphabet %q holds a special character", Alphabet)
	}
	// 5 bits a character: the entropy rule is at least 256 bits.
	if Length*5 < 256 {
		t.Fatalf("%d characters of a 32-letter alphabet carry %d bits, want at least 256", Length, Length*5)
	}
}
