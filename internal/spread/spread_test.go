package spread

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

func TestDue(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	period := 24 * time.Hour
	for _, uid := range []types.UID{"", "a", "0b7f6c1e-2f0a-4f4b-9a51-1b8c1d2e3f40"} {
		due := Due(at, period, uid)
		if d := due.Sub(at); d < period/2 || d >= period*3/2 {
			t.Errorf("uid %q: due %v after at, want in [period/2, 3·period/2)", uid, d)
		}
		if next := Due(due, period, uid); next.Sub(due) != period {
			t.Errorf("uid %q: steady state %v apart, want one period", uid, next.Sub(due))
		}
	}
	if Due(at, period, "a").Equal(Due(at, period, "b")) {
		t.Error("two UIDs share a phase (the spread does not spread)")
	}
	if due := Due(at, 0, "x"); !due.Equal(at) {
		t.Errorf("period 0: due %v, want at once", due)
	}
}
