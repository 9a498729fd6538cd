package applicationcredential

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/korc"
)

// unauthorized is a K-ORC create failure on a 401 answer.
const unauthorized = "invalid configuration creating resource: Unable to re-authenticate: Expected HTTP response code [201] " +
	"when accessing [POST http://k/v3/users/u/application_credentials], but got 401 instead: {}"

// failed is a Failed credential created at created with message msg, its
// mint-cloud built from password generation pw.
func failed(gen int64, created time.Time, msg string, pw int64) Credential {
	return Credential{Generation: gen, State: korc.State{Phase: korc.PhaseFailed, Message: msg}, Created: created, PasswordGeneration: pw}
}

func cred(gen int64, p korc.Phase) Credential {
	return Credential{Generation: gen, State: korc.State{Phase: p}}
}

// steady is an order on the default schedule holding generation 1, created
// and switched at t0: it expires at t0+744h and rotates next at t0+720h.
// The delivered Secret carries it.
func steady(now time.Time) Input {
	return Input{
		Now: now, Desired: 1, Schedule: Schedule{720 * time.Hour, 24 * time.Hour},
		Current: 1, ExpiresAt: at(744 * time.Hour), LastRotation: at(0),
		Credentials: []Credential{cred(1, korc.PhaseAvailable)}, Delivered: true,
	}
}

// inGrace is steady after the switch to generation 2 at t0+720h: generation
// 1 is deleted at t0+744h.
func inGrace(now time.Time) Input {
	in := steady(now)
	in.Current, in.ExpiresAt, in.LastRotation = 2, at(1440*time.Hour), at(720*time.Hour)
	in.Previous, in.PreviousDeleteAt = 1, at(744*time.Hour)
	in.Credentials = []Credential{cred(1, korc.PhaseAvailable), cred(2, korc.PhaseAvailable)}
	in.DeliveryRecorded = true
	return in
}

func TestDecide_ClocksAndSpecs(t *testing.T) {
	t.Parallel()
	frozen := conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: "m"}
	noRole := conditions.Gate{Reason: c5c3v1alpha1.ReasonNoRoleOnProject, Message: "m"}
	tests := []struct {
		name string
		in   func() Input
		want Decision
	}{
		{"fresh order mints generation 1", func() Input {
			return Input{Now: t0, Desired: 1, Schedule: Schedule{720 * time.Hour, 24 * time.Hour}}
		}, Decision{Action: ActionCreate, Generation: 1, Trigger: TriggerInitial}},
		{"fresh order with credentialGeneration 5 mints 5", func() Input {
			return Input{Now: t0, Desired: 5, Schedule: Schedule{720 * time.Hour, 24 * time.Hour}}
		}, Decision{Action: ActionCreate, Generation: 5, Trigger: TriggerInitial}},
		{"first credential progressing is continued", func() Input {
			return Input{Now: t0, Desired: 1, Credentials: []Credential{cred(1, korc.PhaseProgressing)}}
		}, Decision{Action: ActionContinue, Generation: 1}},
		{"first credential Available is switched to", func() Input {
			return Input{Now: t0, Desired: 1, Credentials: []Credential{cred(1, korc.PhaseAvailable)}}
		}, Decision{Action: ActionSwitch, Generation: 1}},
		{"steady state before due", func() Input { return steady(t0.Add(719 * time.Hour)) },
			Decision{Action: ActionNone}},
		{"one nanosecond before due", func() Input { return steady(t0.Add(720*time.Hour - time.Nanosecond)) },
			Decision{Action: ActionNone}},
		{"due rotates to generation 2", func() Input { return steady(t0.Add(720 * time.Hour)) },
			Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerSchedule}},
		{"interval lengthened: expiry - grace still rotates", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Schedule.Interval = 2000 * time.Hour
			return in
		}, Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerSchedule}},
		{"generation raised rotates immediately to it", func() Input {
			in := steady(t0.Add(time.Hour))
			in.Desired = 4
			return in
		}, Decision{Action: ActionCreate, Generation: 4, Trigger: TriggerGeneration}},
		{"expired in Keystone rotates (schedule off)", func() Input {
			in := steady(t0.Add(744 * time.Hour))
			in.Schedule.Interval = 0
			return in
		}, Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerExpired}},
		{"expiry before the schedule with interval 0", func() Input {
			in := steady(t0.Add(743 * time.Hour))
			in.Schedule.Interval = 0
			return in
		}, Decision{Action: ActionNone}},
		{"secret-v<N> lost rotates", func() Input {
			in := steady(t0.Add(time.Hour))
			in.SecretLost = true
			return in
		}, Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerSecretLost}},
		{"delivered Secret lost is written again, not rotated", func() Input {
			in := steady(t0.Add(time.Hour))
			in.Delivered = false
			return in
		}, Decision{Action: ActionNone, Redeliver: true}},
		{"live credential gone from Keystone rotates", func() Input {
			in := steady(t0.Add(time.Hour))
			in.Credentials = nil
			return in
		}, Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerCredentialGone}},
		{"rotation under way is continued", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Credentials = append(in.Credentials, cred(2, korc.PhaseProgressing))
			return in
		}, Decision{Action: ActionContinue, Generation: 2}},
		{"rotation under way is continued, not restarted, when the generation is raised", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Desired = 9
			in.Credentials = append(in.Credentials, cred(2, korc.PhasePending))
			return in
		}, Decision{Action: ActionContinue, Generation: 2}},
		{"successor Available is switched to", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Credentials = append(in.Credentials, cred(2, korc.PhaseAvailable))
			return in
		}, Decision{Action: ActionSwitch, Generation: 2}},
		{"grace running: nothing to do", func() Input { return inGrace(t0.Add(730 * time.Hour)) },
			Decision{Action: ActionNone}},
		{"grace elapsed deletes previous", func() Input { return inGrace(t0.Add(744 * time.Hour)) },
			Decision{Action: ActionDeletePrevious, Generation: 1}},
		{"grace running, the consumers released it: deletes previous", func() Input {
			in := inGrace(t0.Add(730 * time.Hour))
			in.ConsumersReleased = true
			return in
		}, Decision{Action: ActionDeletePrevious, Generation: 1}},
		{"consumers released, the Secret does not carry the successor: previous kept", func() Input {
			in := inGrace(t0.Add(730 * time.Hour))
			in.ConsumersReleased, in.Delivered, in.DeliveredID = true, false, false
			return in
		}, Decision{Action: ActionNone, Redeliver: true}},
		// Found by hack/soak (docs/soak.md): an outage delayed the delivery of
		// generation 2, so generation 1's grace period ran past the point
		// where generation 2 is within its grace of expiry; the rotation to
		// generation 3 waited for it and generation 2 expired in the
		// consumers' hands before generation 3 was delivered.
		{"delivery delayed: the live credential within its grace of expiry ends the previous grace early", func() Input {
			in := inGrace(t0.Add(1416 * time.Hour)) // generation 2 expires at 1440h, grace 24h
			in.PreviousDeleteAt = at(1430 * time.Hour)
			return in
		}, Decision{Action: ActionDeletePrevious, Generation: 1}},
		{"delivery delayed: before the live credential is within its grace of expiry the previous grace runs", func() Input {
			in := inGrace(t0.Add(1415 * time.Hour))
			in.PreviousDeleteAt = at(1430 * time.Hour)
			return in
		}, Decision{Action: ActionNone}},
		{"delivery delayed, live credential expiring, but the Secret does not carry it: previous kept, no third", func() Input {
			in := inGrace(t0.Add(1416 * time.Hour))
			in.PreviousDeleteAt = at(1430 * time.Hour)
			in.Delivered = false
			return in
		}, Decision{Action: ActionDeferred, Trigger: TriggerSchedule, Redeliver: true}},
		// Found by hack/soak (docs/soak.md): interval 1m, grace 30s, and a
		// 30 s apiserver outage (90 s until the hub and K-ORC acted again)
		// across the scheduled rotation. With an expiry one grace period past
		// creation + interval + grace, generation 2 had expired when the hub
		// resumed and the consumers were refused until generation 3 was
		// delivered; the headroom floor keeps it valid, and the resumed pass
		// rotates on schedule.
		{"short schedule, stall across the scheduled rotation: resumed on schedule, not expired", func() Input {
			s := Schedule{time.Minute, 30 * time.Second}
			in := steady(t0.Add(5*time.Second + time.Minute + 90*time.Second))
			in.Schedule, in.Current, in.ExpiresAt, in.LastRotation = s, 2, s.ExpiresAt(t0), at(5*time.Second)
			in.Credentials = []Credential{cred(2, korc.PhaseAvailable)}
			return in
		}, Decision{Action: ActionCreate, Generation: 3, Trigger: TriggerSchedule}},
		{"grace elapsed but the Secret does not carry the successor yet: previous kept", func() Input {
			in := inGrace(t0.Add(744 * time.Hour))
			in.Delivered = false
			return in
		}, Decision{Action: ActionNone, Redeliver: true}},
		{"grace elapsed, the Secret carries the successor but the status has not recorded the switch: previous kept (its grace restarts from the switch)", func() Input {
			in := inGrace(t0.Add(744 * time.Hour))
			in.DeliveryRecorded = false
			return in
		}, Decision{Action: ActionNone}},
		{"two credentials exist: raised generation waits, no third", func() Input {
			in := inGrace(t0.Add(730 * time.Hour))
			in.Desired = 5
			return in
		}, Decision{Action: ActionDeferred, Trigger: TriggerGeneration}},
		{"two credentials exist: lost secret waits, no third", func() Input {
			in := inGrace(t0.Add(730 * time.Hour))
			in.SecretLost = true
			return in
		}, Decision{Action: ActionDeferred, Trigger: TriggerSecretLost}},
		{"previous still being deleted after its status was cleared counts: no third", func() Input {
			in := inGrace(t0.Add(1420 * time.Hour)) // due at min(720h+720h, 1440h-24h) = 1416h
			in.Previous, in.PreviousDeleteAt = 0, nil
			in.Credentials[0].Deleting = true
			return in
		}, Decision{Action: ActionDeferred, Trigger: TriggerSchedule}},
		{"previous gone after delete: status cleared, then rotation can start", func() Input {
			in := inGrace(t0.Add(1440 * time.Hour))
			in.Credentials = []Credential{cred(2, korc.PhaseAvailable)}
			return in
		}, Decision{Action: ActionDeletePrevious, Generation: 1}},
		{"interval 0: never scheduled", func() Input {
			in := steady(t0.Add(100000 * time.Hour))
			in.Schedule.Interval, in.ExpiresAt = 0, nil
			return in
		}, Decision{Action: ActionNone}},
		{"CredentialFailed successor stays before the schedule is due", func() Input {
			in := steady(t0.Add(100 * time.Hour))
			in.Desired = 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(50*time.Hour), "boom", 0))
			return in
		}, Decision{Action: ActionContinueFailed, Generation: 2}},
		{"CredentialFailed successor is replaced when the schedule is due", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Desired = 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(50*time.Hour), "boom", 0))
			return in
		}, Decision{Action: ActionReplaceFailed, Generation: 2, Replace: ReplaceLiveDying}},
		{"CredentialFailed successor is replaced when the schedule is due again", func() Input {
			in := steady(t0.Add(2000 * time.Hour))
			in.Credentials = append(in.Credentials, failed(2, t0.Add(720*time.Hour), "boom", 0))
			return in
		}, Decision{Action: ActionReplaceFailed, Generation: 2, Replace: ReplaceLiveDying}},
		{"schedule off: failed successor replaced within the grace period of the live expiry", func() Input {
			in := steady(t0.Add(720 * time.Hour)) // expires at 744h, grace 24h
			in.Schedule.Interval, in.Desired = 0, 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(time.Hour), "boom", 0))
			return in
		}, Decision{Action: ActionReplaceFailed, Generation: 2, Replace: ReplaceLiveDying}},
		{"schedule off: failed successor stays before the grace period of the live expiry", func() Input {
			in := steady(t0.Add(719 * time.Hour))
			in.Schedule.Interval, in.Desired = 0, 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(time.Hour), "boom", 0))
			return in
		}, Decision{Action: ActionContinueFailed, Generation: 2}},
		{"failed successor replaced when the live credential is gone from Keystone", func() Input {
			in := steady(t0.Add(100 * time.Hour))
			in.Desired = 2
			in.Credentials = []Credential{failed(2, t0.Add(time.Hour), "boom", 0)}
			return in
		}, Decision{Action: ActionReplaceFailed, Generation: 2, Replace: ReplaceLiveDying}},
		{"failed successor younger than the retry backoff stays even when due", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Credentials = append(in.Credentials, failed(2, t0.Add(720*time.Hour-FailedRetryBackoff+time.Second), "boom", 0))
			return in
		}, Decision{Action: ActionContinueFailed, Generation: 2}},
		{"401 successor replaced at once after the user's password rotated", func() Input {
			in := steady(t0.Add(100 * time.Hour))
			in.Desired, in.PasswordGeneration = 2, 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(100*time.Hour-time.Second), unauthorized, 1))
			return in
		}, Decision{Action: ActionReplaceFailed, Generation: 2, Replace: ReplacePasswordRotated}},
		{"401 successor created with the current password stays", func() Input {
			in := steady(t0.Add(100 * time.Hour))
			in.Desired, in.PasswordGeneration = 2, 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(50*time.Hour), unauthorized, 2))
			return in
		}, Decision{Action: ActionContinueFailed, Generation: 2}},
		{"non-401 successor stays after the user's password rotated", func() Input {
			in := steady(t0.Add(100 * time.Hour))
			in.Desired, in.PasswordGeneration = 2, 2
			in.Credentials = append(in.Credentials, failed(2, t0.Add(50*time.Hour), "409 conflict", 1))
			return in
		}, Decision{Action: ActionContinueFailed, Generation: 2}},
		{"replaced failed successor being deleted: no third credential", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			c := failed(2, t0.Add(50*time.Hour), "boom", 0)
			c.Deleting = true
			in.Credentials = append(in.Credentials, c)
			return in
		}, Decision{Action: ActionDeferred, Trigger: TriggerSchedule}},
		{"replaced failed successor gone: the next generation is created", func() Input {
			return steady(t0.Add(720 * time.Hour))
		}, Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerSchedule}},
		{"secret-v<N> lost in grace: previous deleted after its grace by the delivered id", func() Input {
			in := inGrace(t0.Add(744 * time.Hour))
			in.Delivered, in.DeliveredID, in.SecretLost = false, true, true
			return in
		}, Decision{Action: ActionDeletePrevious, Generation: 1, Redeliver: true}},
		{"secret-v<N> lost in grace: previous gone, the lost secret rotates", func() Input {
			in := inGrace(t0.Add(745 * time.Hour))
			in.Previous, in.PreviousDeleteAt = 0, nil
			in.Credentials = []Credential{cred(2, korc.PhaseAvailable)}
			in.Delivered, in.DeliveredID, in.SecretLost = false, true, true
			return in
		}, Decision{Action: ActionCreate, Generation: 3, Trigger: TriggerSecretLost, Redeliver: true}},
		{"CredentialFailed first credential stays", func() Input {
			return Input{Now: t0, Desired: 1, Credentials: []Credential{cred(1, korc.PhaseFailed)}}
		}, Decision{Action: ActionContinueFailed, Generation: 1}},
		{"generation raised above the failed successor deletes it", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Desired = 3
			in.Credentials = append(in.Credentials, cred(2, korc.PhaseFailed))
			return in
		}, Decision{Action: ActionDeleteFailed, Generation: 2}},
		{"failed successor being deleted: the raised generation waits", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Desired = 3
			in.Credentials = append(in.Credentials, Credential{Generation: 2, State: korc.State{Phase: korc.PhaseFailed}, Deleting: true})
			return in
		}, Decision{Action: ActionDeferred, Trigger: TriggerGeneration}},
		{"failed successor gone: the raised generation is created", func() Input {
			in := steady(t0.Add(720 * time.Hour))
			in.Desired = 3
			return in
		}, Decision{Action: ActionCreate, Generation: 3, Trigger: TriggerGeneration}},
		{"frozen order does nothing, even when due and undelivered", func() Input {
			in := steady(t0.Add(800 * time.Hour))
			in.Gate, in.Delivered = frozen, false
			return in
		}, Decision{Action: ActionHold}},
		{"frozen order does not sweep the previous credential", func() Input {
			in := inGrace(t0.Add(800 * time.Hour))
			in.Gate = frozen
			return in
		}, Decision{Action: ActionHold}},
		{"assignment returns after nextRotation passed: rotates at once", func() Input { return steady(t0.Add(730 * time.Hour)) },
			Decision{Action: ActionCreate, Generation: 2, Trigger: TriggerSchedule}},
		{"refusal pauses the schedule but keeps delivering", func() Input {
			in := steady(t0.Add(800 * time.Hour))
			in.Refusal, in.Delivered = noRole, false
			return in
		}, Decision{Action: ActionHold, Redeliver: true}},
		{"fresh order refused creates nothing", func() Input {
			return Input{Now: t0, Desired: 1, Refusal: noRole}
		}, Decision{Action: ActionHold}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Decide(tc.in()); got != tc.want {
				t.Errorf("Decide = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRequeueAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     Input
		target bool
		want   time.Duration
	}{
		{"management: at nextRotation", steady(t0.Add(700 * time.Hour)), false, 20 * time.Hour},
		{"target: at most 10 minutes", steady(t0.Add(700 * time.Hour)), true, 10 * time.Minute},
		{"target: sooner than 10 minutes kept", steady(t0.Add(720*time.Hour - 3*time.Minute)), true, 3 * time.Minute},
		{"grace: previousCredentialDeleteAt is earlier than nextRotation", inGrace(t0.Add(730 * time.Hour)), false, 14 * time.Hour},
		{"passed instant: minimum requeue", steady(t0.Add(721 * time.Hour)), false, MinRequeue},
		{"schedule off, expiry kept: at the expiry", func() Input {
			in := steady(t0.Add(700 * time.Hour))
			in.Schedule.Interval = 0
			return in
		}(), false, 44 * time.Hour},
		{"schedule off, no expiry: no timed requeue", func() Input {
			in := steady(t0)
			in.Schedule.Interval, in.ExpiresAt = 0, nil
			return in
		}(), false, 0},
		{"schedule off, no expiry, target cluster", func() Input {
			in := steady(t0)
			in.Schedule.Interval, in.ExpiresAt = 0, nil
			return in
		}(), true, 10 * time.Minute},
		{"a due rotation the budget withholds: when the budget frees it", func() Input {
			in := steady(t0.Add(721 * time.Hour))
			in.HeldUntil = at(721*time.Hour + 40*time.Minute)
			return in
		}(), false, 40 * time.Minute},
		{"a withheld raise: when the budget frees it", func() Input {
			in := steady(t0.Add(700 * time.Hour))
			in.Desired = 2
			in.HeldUntil = at(700*time.Hour + 5*time.Minute)
			return in
		}(), false, 5 * time.Minute},
		{"frozen: no schedule", func() Input {
			in := steady(t0.Add(700 * time.Hour))
			in.Gate = conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned}
			return in
		}(), false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := RequeueAfter(tc.in, tc.target); got != tc.want {
				t.Errorf("RequeueAfter = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestInputFrom(t *testing.T) {
	t.Parallel()
	mt := func(d time.Duration) *metav1.Time { m := metav1.NewTime(t0.Add(d)); return &m }
	o := &c5c3v1alpha1.KeystoneApplicationCredential{
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{CredentialGeneration: 0,
			Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: dur(48 * time.Hour)}},
		Status: c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialGeneration: 3, CredentialExpiresAt: mt(72 * time.Hour),
			LastRotation: mt(0), PreviousCredentialGeneration: 2, PreviousCredentialDeleteAt: mt(24 * time.Hour)},
	}
	in := InputFrom(o, t0.Add(time.Hour))
	if in.Desired != 1 || in.Schedule != (Schedule{48 * time.Hour, 24 * time.Hour}) || in.Current != 3 || in.Previous != 2 {
		t.Errorf("InputFrom = %+v", in)
	}
	assertTime(t, "ExpiresAt", in.ExpiresAt, at(72*time.Hour))
	assertTime(t, "LastRotation", in.LastRotation, at(0))
	assertTime(t, "PreviousDeleteAt", in.PreviousDeleteAt, at(24*time.Hour))
	assertTime(t, "NextRotation", in.NextRotation(), at(48*time.Hour))
}
