package keystoneuser

import (
	"crypto/sha256"
	"testing"
	"time"
)

// TestRefusalHolds: a refused password is asked again only once per
// interval, unless the user id, generation or password changed.
func TestRefusalHolds(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	last := Refusal{Subject: "u1/2", Password: sha256.Sum256([]byte("pw")), At: t0}
	for _, tc := range []struct {
		name string
		next Refusal
		want bool
	}{
		{"same, within the interval", Refusal{Subject: "u1/2", Password: last.Password, At: t0.Add(9 * time.Minute)}, true},
		{"same, interval passed", Refusal{Subject: "u1/2", Password: last.Password, At: t0.Add(10 * time.Minute)}, false},
		{"a new generation", Refusal{Subject: "u1/3", Password: last.Password, At: t0.Add(time.Minute)}, false},
		{"another user id", Refusal{Subject: "u2/2", Password: last.Password, At: t0.Add(time.Minute)}, false},
		{"another password", Refusal{Subject: "u1/2", Password: sha256.Sum256([]byte("other")), At: t0.Add(time.Minute)}, false},
	} {
		if got := last.Holds(tc.next, 10*time.Minute); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}
