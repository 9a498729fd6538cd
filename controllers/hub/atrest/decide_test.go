package atrest

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/orderhub/internal/spread"
)

func TestDecide(t *testing.T) {
	const uid = types.UID("0b7f6c1e")
	period := 24 * time.Hour
	login := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	spreadDue := spread.Due(login, period, uid)
	ok := Record{Subject: "u1/3", UID: uid, Fingerprint: "u1|", LoginAt: login, CheckAt: login}
	in := func(mod func(*Input)) Input {
		i := Input{Due: true, Known: true, Record: ok, Subject: "u1/3", UID: uid, Now: login.Add(10 * time.Minute), LoginPeriod: period}
		mod(&i)
		return i
	}
	for _, tc := range []struct {
		name string
		in   Input
		want Action
	}{
		{"resync gate closed: nothing", in(func(i *Input) { i.Due = false }), Nothing},
		{"resync gate closed wins over a failure", in(func(i *Input) { i.Due, i.Record.Failed = false, true }), Nothing},
		{"at rest, confirmed: cheap check", in(func(*Input) {}), Check},
		{"confirmed on delivery, no check yet: cheap check", in(func(i *Input) { i.Record.Fingerprint, i.Record.CheckAt = "", login }), Check},
		{"just before the spread login: cheap check", in(func(i *Input) { i.Now = spreadDue.Add(-time.Second) }), Check},
		{"spread login due", in(func(i *Input) { i.Now = spreadDue }), Login},
		{"the id is unknown", in(func(i *Input) { i.Changed = true }), Login},
		{"nothing remembered (restart)", in(func(i *Input) { i.Known, i.Record = false, Record{} }), Login},
		{"not yet confirmed by a login", in(func(i *Input) { i.Record.LoginAt = time.Time{} }), Login},
		{"another subject (new generation or credential)", in(func(i *Input) { i.Subject = "u1/4" }), Login},
		{"re-created order (UID)", in(func(i *Input) { i.UID = "other" }), Login},
		{"last verification failed", in(func(i *Input) { i.Record.Failed = true }), Login},
		{"period 0: every resync logs in", in(func(i *Input) { i.LoginPeriod = 0 }), Login},
	} {
		if got := Decide(tc.in); got != tc.want {
			t.Errorf("%s: Decide = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestEscalate(t *testing.T) {
	for _, tc := range []struct {
		recorded, seen string
		want           bool
	}{
		{"", "u1|", false},                         // the first check after a login records
		{"u1|", "u1|", false},                      // unchanged
		{"u1|", "u1|2026-03-01T00:00:00Z", true},   // password_expires_at set: a password change
		{"ac1|2027-01-01T00:00:00Z", "ac1|", true}, // another expiry
	} {
		if got := Escalate(Record{Fingerprint: tc.recorded}, tc.seen); got != tc.want {
			t.Errorf("Escalate(%q, %q) = %v, want %v", tc.recorded, tc.seen, got, tc.want)
		}
	}
}
