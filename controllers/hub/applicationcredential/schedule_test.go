package applicationcredential

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }

func TestScheduleOf(t *testing.T) {
	t.Parallel()
	rot := func(i, g *metav1.Duration) *c5c3v1alpha1.KeystoneApplicationCredentialSpec {
		return &c5c3v1alpha1.KeystoneApplicationCredentialSpec{Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: i, GracePeriod: g}}
	}
	tests := []struct {
		name string
		spec *c5c3v1alpha1.KeystoneApplicationCredentialSpec
		want Schedule
		on   bool
	}{
		{"nil spec", nil, Schedule{720 * time.Hour, 24 * time.Hour}, true},
		{"no rotation block", &c5c3v1alpha1.KeystoneApplicationCredentialSpec{}, Schedule{720 * time.Hour, 24 * time.Hour}, true},
		{"empty block (schema default {})", rot(nil, nil), Schedule{720 * time.Hour, 24 * time.Hour}, true},
		{"interval only", rot(dur(48*time.Hour), nil), Schedule{48 * time.Hour, 24 * time.Hour}, true},
		{"grace only", rot(nil, dur(time.Hour)), Schedule{720 * time.Hour, time.Hour}, true},
		{"0s interval is off, not defaulted", rot(dur(0), nil), Schedule{0, 24 * time.Hour}, false},
		{"0s grace kept", rot(dur(10*time.Minute), dur(0)), Schedule{10 * time.Minute, 0}, true},
		{"negative read as 0", rot(dur(-time.Hour), dur(-time.Minute)), Schedule{0, 0}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ScheduleOf(tc.spec)
			if got != tc.want || got.On() != tc.on {
				t.Errorf("ScheduleOf = %+v (on %t), want %+v (on %t)", got, got.On(), tc.want, tc.on)
			}
		})
	}
}

func TestDesiredGeneration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec *c5c3v1alpha1.KeystoneApplicationCredentialSpec
		want int64
	}{
		{nil, 1},
		{&c5c3v1alpha1.KeystoneApplicationCredentialSpec{}, 1},
		{&c5c3v1alpha1.KeystoneApplicationCredentialSpec{CredentialGeneration: -3}, 1},
		{&c5c3v1alpha1.KeystoneApplicationCredentialSpec{CredentialGeneration: 1}, 1},
		{&c5c3v1alpha1.KeystoneApplicationCredentialSpec{CredentialGeneration: 7}, 7},
	} {
		if got := DesiredGeneration(tc.spec); got != tc.want {
			t.Errorf("DesiredGeneration(%+v) = %d, want %d", tc.spec, got, tc.want)
		}
	}
}

func TestExpiresAt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    Schedule
		want *time.Time
	}{
		{"defaults: creation + 720h + 2×24h", Schedule{720 * time.Hour, 24 * time.Hour}, at(768 * time.Hour)},
		{"zero grace: the headroom floor", Schedule{time.Hour, 0}, at(time.Hour + MinExpiryHeadroom)},
		// Found by hack/soak (docs/soak.md): with interval 1m and grace 30s
		// a headroom of one grace period (expiry 2m after creation) let a
		// 30 s apiserver outage around the scheduled rotation run the
		// delivered credential into its expiry before its successor was
		// delivered; the floor keeps it valid 5 min past creation + 1m30s.
		{"short schedule: the headroom floor", Schedule{time.Minute, 30 * time.Second}, at(390 * time.Second)},
		{"grace just above the floor: twice the grace", Schedule{time.Hour, 6 * time.Minute}, at(72 * time.Minute)},
		{"largest interval stays in range", Schedule{87600 * time.Hour, 87599 * time.Hour}, at(262798 * time.Hour)},
		{"schedule off: no expiry", Schedule{0, 24 * time.Hour}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assertTime(t, "ExpiresAt", tc.s.ExpiresAt(t0), tc.want)
		})
	}
}

func TestNextRotation(t *testing.T) {
	t.Parallel()
	def := Schedule{720 * time.Hour, 24 * time.Hour}
	tests := []struct {
		name    string
		s       Schedule
		last    time.Time
		expires *time.Time
		want    *time.Time
	}{
		{"minted at the switch: last + interval = expiry - grace", def, t0, at(744 * time.Hour), at(720 * time.Hour)},
		{"switched 2h after creation: expiry - grace is earlier", def, t0.Add(2 * time.Hour), at(744 * time.Hour), at(720 * time.Hour)},
		{"interval lengthened to 2000h: expiry - grace caps it", Schedule{2000 * time.Hour, 24 * time.Hour}, t0, at(744 * time.Hour), at(720 * time.Hour)},
		{"interval shortened to 10h: last + interval", Schedule{10 * time.Hour, time.Hour}, t0, at(744 * time.Hour), at(10 * time.Hour)},
		{"grace lengthened: rotates before expiry - new grace", Schedule{720 * time.Hour, 100 * time.Hour}, t0, at(744 * time.Hour), at(644 * time.Hour)},
		{"schedule turned on for a credential without expiry", def, t0, nil, at(720 * time.Hour)},
		{"schedule off: absent", Schedule{0, 24 * time.Hour}, t0, at(744 * time.Hour), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assertTime(t, "NextRotation", tc.s.NextRotation(tc.last, tc.expires), tc.want)
		})
	}
}

func TestDeleteAtAndExpired(t *testing.T) {
	t.Parallel()
	if got := (Schedule{720 * time.Hour, 24 * time.Hour}).DeleteAt(t0); !got.Equal(t0.Add(24 * time.Hour)) {
		t.Errorf("DeleteAt = %s, want t0+24h", got)
	}
	if got := (Schedule{0, 3 * time.Hour}).DeleteAt(t0); !got.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("DeleteAt with the schedule off = %s, want t0+3h", got)
	}
	for _, tc := range []struct {
		exp  *time.Time
		now  time.Time
		want bool
	}{
		{nil, t0.Add(100000 * time.Hour), false},
		{at(time.Hour), t0, false},
		{at(time.Hour), t0.Add(time.Hour - time.Nanosecond), false},
		{at(time.Hour), t0.Add(time.Hour), true},
		{at(time.Hour), t0.Add(2 * time.Hour), true},
	} {
		if got := Expired(tc.exp, tc.now); got != tc.want {
			t.Errorf("Expired(%v, %s) = %t, want %t", tc.exp, tc.now, got, tc.want)
		}
	}
}

func TestSwitch(t *testing.T) {
	t.Parallel()
	s := Schedule{720 * time.Hour, 24 * time.Hour}
	mt := func(d time.Duration) *metav1.Time { m := metav1.NewTime(t0.Add(d)); return &m }
	t.Run("first credential", func(t *testing.T) {
		t.Parallel()
		st := c5c3v1alpha1.KeystoneApplicationCredentialStatus{ObservedGeneration: 4}
		got := Switch(st, s, t0.Add(time.Minute), 1, "id-1", at(744*time.Hour))
		want := c5c3v1alpha1.KeystoneApplicationCredentialStatus{ObservedGeneration: 4,
			CredentialID: "id-1", CredentialGeneration: 1, CredentialExpiresAt: mt(744 * time.Hour),
			LastRotation: mt(time.Minute), NextRotation: mt(720 * time.Hour)}
		assertStatus(t, got, want)
	})
	t.Run("successor moves the current to previous", func(t *testing.T) {
		t.Parallel()
		st := c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialID: "id-1", CredentialGeneration: 1,
			CredentialExpiresAt: mt(744 * time.Hour), LastRotation: mt(0), NextRotation: mt(720 * time.Hour),
			SecretName: "a-credentials", SecretKeys: []string{"clouds.yaml"}}
		now := t0.Add(721 * time.Hour)
		got := Switch(st, s, now, 2, "id-2", at(1440*time.Hour))
		want := c5c3v1alpha1.KeystoneApplicationCredentialStatus{
			CredentialID: "id-2", CredentialGeneration: 2, CredentialExpiresAt: mt(1440 * time.Hour),
			LastRotation: mt(721 * time.Hour), NextRotation: mt(1416 * time.Hour),
			PreviousCredentialID: "id-1", PreviousCredentialGeneration: 1, PreviousCredentialDeleteAt: mt(745 * time.Hour)}
		assertStatus(t, got, want)
		if st.CredentialGeneration != 1 || st.SecretName != "a-credentials" {
			t.Errorf("Switch modified its input: %+v", st)
		}
	})
	t.Run("schedule off: no expiry, no next rotation", func(t *testing.T) {
		t.Parallel()
		st := c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialID: "id-2", CredentialGeneration: 2}
		got := Switch(st, Schedule{0, time.Hour}, t0, 3, "id-3", nil)
		want := c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialID: "id-3", CredentialGeneration: 3,
			LastRotation: mt(0), PreviousCredentialID: "id-2", PreviousCredentialGeneration: 2, PreviousCredentialDeleteAt: mt(time.Hour)}
		assertStatus(t, got, want)
	})
}

func assertTime(t *testing.T, what string, got, want *time.Time) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s = %v, want %v", what, got, want)
	case !got.Equal(*want):
		t.Errorf("%s = t0+%s, want t0+%s", what, got.Sub(t0), want.Sub(t0))
	}
}

func assertStatus(t *testing.T, got, want c5c3v1alpha1.KeystoneApplicationCredentialStatus) {
	t.Helper()
	if !equality.Semantic.DeepEqual(got, want) {
		t.Errorf("status =\n%+v\nwant\n%+v", got, want)
	}
}

// TestWithNextRotation: status.nextRotation follows the schedule on every
// pass, not only at a switch (chainsaw finding F1: a schedule turned off
// kept reporting the old nextRotation).
func TestWithNextRotation(t *testing.T) {
	t.Parallel()
	mt := func(d time.Duration) *metav1.Time { m := metav1.NewTime(t0.Add(d)); return &m }
	st := c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialGeneration: 2, CredentialID: "id-2",
		CredentialExpiresAt: mt(90 * time.Second), LastRotation: mt(0), NextRotation: mt(60 * time.Second)}
	tests := []struct {
		name string
		st   c5c3v1alpha1.KeystoneApplicationCredentialStatus
		s    Schedule
		want *metav1.Time
	}{
		{"schedule turned off: absent", st, Schedule{0, 30 * time.Second}, nil},
		{"interval lengthened: capped by expiry - grace", st, Schedule{time.Hour, 30 * time.Second}, mt(60 * time.Second)},
		{"interval shortened: earlier", st, Schedule{40 * time.Second, 10 * time.Second}, mt(40 * time.Second)},
		{"grace lengthened: expiry - grace", st, Schedule{time.Minute, 50 * time.Second}, mt(40 * time.Second)},
		{"no credential yet: absent", c5c3v1alpha1.KeystoneApplicationCredentialStatus{NextRotation: mt(0)}, Schedule{time.Minute, time.Second}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := WithNextRotation(tc.st, tc.s)
			if (got.NextRotation == nil) != (tc.want == nil) || got.NextRotation != nil && !got.NextRotation.Equal(tc.want) {
				t.Errorf("nextRotation = %v, want %v", got.NextRotation, tc.want)
			}
			want := *tc.st.DeepCopy()
			want.NextRotation = got.NextRotation
			assertStatus(t, got, want)
		})
	}
}

// TestMarkDelivered: the grace period of the superseded generation runs
// from when the delivered Secret switched (breaker: a backup outage longer
// than the grace period let the previous generation be deleted 2s after
// the Secret switched).
func TestMarkDelivered(t *testing.T) {
	t.Parallel()
	s := Schedule{time.Hour, 20 * time.Second}
	mt := func(d time.Duration) *metav1.Time { m := metav1.NewTime(t0.Add(d)); return &m }
	switched := c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialGeneration: 2, CredentialID: "id-2",
		PreviousCredentialGeneration: 1, PreviousCredentialID: "id-1", PreviousCredentialDeleteAt: mt(20 * time.Second)}
	t.Run("delivered long after the status switch: deleteAt moves to delivery + grace", func(t *testing.T) {
		t.Parallel()
		got := MarkDelivered(switched, s, t0.Add(5*time.Minute), "a-credentials")
		want := *switched.DeepCopy()
		want.PreviousCredentialDeleteAt = mt(5*time.Minute + 20*time.Second)
		want.SecretName, want.SecretKeys = "a-credentials", DeliveredKeys
		assertStatus(t, got, want)
	})
	t.Run("never earlier than recorded", func(t *testing.T) {
		t.Parallel()
		st := *switched.DeepCopy()
		st.PreviousCredentialDeleteAt = mt(time.Hour)
		got := MarkDelivered(st, s, t0.Add(time.Second), "a-credentials")
		if !got.PreviousCredentialDeleteAt.Equal(mt(time.Hour)) {
			t.Errorf("deleteAt = %v, want %v", got.PreviousCredentialDeleteAt, mt(time.Hour))
		}
	})
	t.Run("already seen delivered: a later pass (or a repaired edit) does not extend", func(t *testing.T) {
		t.Parallel()
		st := *switched.DeepCopy()
		st.SecretName = "a-credentials"
		got := MarkDelivered(st, s, t0.Add(5*time.Minute), "a-credentials")
		if !got.PreviousCredentialDeleteAt.Equal(mt(20 * time.Second)) {
			t.Errorf("deleteAt = %v, want unchanged", got.PreviousCredentialDeleteAt)
		}
	})
	t.Run("no previous generation: nothing to extend", func(t *testing.T) {
		t.Parallel()
		st := c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialGeneration: 1}
		got := MarkDelivered(st, s, t0, "a-credentials")
		if got.PreviousCredentialDeleteAt != nil || got.SecretName != "a-credentials" || len(got.SecretKeys) != 3 {
			t.Errorf("got %+v", got)
		}
	})
}
