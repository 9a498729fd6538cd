package conditions

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func cond(typ string, st metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: msg}
}

const (
	user     = c5c3v1alpha1.ConditionUserReady
	delivery = c5c3v1alpha1.ConditionDeliveryReady
	ready    = c5c3v1alpha1.ConditionReady
	yes      = metav1.ConditionTrue
	no       = metav1.ConditionFalse
)

var (
	userWaiting = cond(user, no, c5c3v1alpha1.ReasonWaitingForKeystoneUser, "the User is not Available yet")
	userDone    = cond(user, yes, c5c3v1alpha1.ReasonUserProvisioned, "provisioned")
	userFailed  = cond(user, no, c5c3v1alpha1.ReasonUserFailed, "User: boom")
	delWaiting  = cond(delivery, no, c5c3v1alpha1.ReasonBackupNotSynced, "not pushed yet")
	delDone     = cond(delivery, yes, c5c3v1alpha1.ReasonDelivered, "delivered")
	delRefused  = cond(delivery, no, c5c3v1alpha1.ReasonDeliveryRefused, "a Secret of that name exists")
	notReady    = cond(ready, no, c5c3v1alpha1.ReasonNotAllReady, "UserReady is ...")
	allReady    = cond(ready, yes, c5c3v1alpha1.ReasonAllReady, "all conditions are True")
)

func warning(c metav1.Condition) Event {
	return Event{Type: corev1.EventTypeWarning, Reason: c.Reason, Note: c.Type + "=" + string(c.Status) + ": " + c.Message}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	readyEvent := Event{Type: corev1.EventTypeNormal, Reason: c5c3v1alpha1.ReasonAllReady, Note: "Ready=True: all conditions are True"}
	rotationWaits := cond(ready, no, c5c3v1alpha1.ReasonKeystoneServiceNotFound, "KeystoneService x does not exist")
	rotationRefused := cond(ready, no, c5c3v1alpha1.ReasonUnknownServiceAccount, "no account block")
	rotationPending := cond(ready, no, c5c3v1alpha1.ReasonWaitingForServiceAccount, "no applied password yet")
	dup := cond(c5c3v1alpha1.ConditionAdminCredentialReady, no, c5c3v1alpha1.ReasonDuplicateControlPlane, "parked")
	dupReady := cond(ready, no, c5c3v1alpha1.ReasonDuplicateControlPlane, "parked")
	tests := []struct {
		name         string
		before, want []metav1.Condition
		changed      []metav1.Condition // nil: every condition of want
		events       []Event
	}{
		{"a first write: one Warning carrying the deciding condition", nil,
			[]metav1.Condition{userWaiting, delWaiting, notReady}, nil, []Event{warning(userWaiting)}},
		{"the deciding condition passes to the next wait: progress, none",
			[]metav1.Condition{userWaiting, delWaiting, notReady},
			[]metav1.Condition{userDone, delWaiting, notReady}, []metav1.Condition{userDone}, nil},
		{"Ready turns True: one Normal event, AllReady",
			[]metav1.Condition{userDone, delWaiting, notReady},
			[]metav1.Condition{userDone, delDone, allReady}, []metav1.Condition{delDone, allReady}, []Event{readyEvent}},
		{"a first write already True: the Normal event alone", nil,
			[]metav1.Condition{userDone, delDone, allReady}, nil, []Event{readyEvent}},
		{"Ready turns False on a failure: one Warning with the failure",
			[]metav1.Condition{userDone, delDone, allReady},
			[]metav1.Condition{userFailed, delDone, notReady}, []metav1.Condition{userFailed, notReady}, []Event{warning(userFailed)}},
		{"Ready turns False on progress: one Warning with the wait",
			[]metav1.Condition{userDone, delDone, allReady},
			[]metav1.Condition{userDone, delWaiting, notReady}, []metav1.Condition{delWaiting, notReady}, []Event{warning(delWaiting)}},
		{"a failure under a Ready that stays False: a Warning",
			[]metav1.Condition{userWaiting, delWaiting, notReady},
			[]metav1.Condition{userFailed, delWaiting, notReady}, []metav1.Condition{userFailed}, []Event{warning(userFailed)}},
		{"a failure of a condition that does not decide Ready: a Warning",
			[]metav1.Condition{userWaiting, delWaiting, notReady},
			[]metav1.Condition{userWaiting, delRefused, notReady}, []metav1.Condition{delRefused}, []Event{warning(delRefused)}},
		{"a second failure beside the one Ready's event carries: a Warning each", nil,
			[]metav1.Condition{userFailed, delRefused, notReady}, nil, []Event{warning(userFailed), warning(delRefused)}},
		{"the same failure on several blocks: said once", nil,
			[]metav1.Condition{userFailed, cond(delivery, no, c5c3v1alpha1.ReasonUserFailed, "User: boom"), notReady}, nil,
			[]Event{warning(userFailed)}},
		{"recovering from a failure to a wait: none",
			[]metav1.Condition{userFailed, delWaiting, notReady},
			[]metav1.Condition{userWaiting, delWaiting, notReady}, []metav1.Condition{userWaiting}, nil},
		{"nothing changed: none",
			[]metav1.Condition{userDone, delDone, allReady},
			[]metav1.Condition{userDone, delDone, allReady}, []metav1.Condition{}, nil},
		{"Ready alone: a changed failure reason is a Warning",
			[]metav1.Condition{rotationWaits}, []metav1.Condition{rotationRefused}, []metav1.Condition{rotationRefused},
			[]Event{warning(rotationRefused)}},
		{"Ready alone: a changed progress reason is none",
			[]metav1.Condition{rotationRefused}, []metav1.Condition{rotationPending}, []metav1.Condition{rotationPending}, nil},
		{"a duplicate plane: one Warning", nil, []metav1.Condition{dup, dupReady}, nil, []Event{warning(dup)}},
		{"a write without Ready: failures only",
			[]metav1.Condition{userWaiting, delWaiting, notReady},
			[]metav1.Condition{userFailed, delDone}, []metav1.Condition{userFailed, delDone}, []Event{warning(userFailed)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			changed := tc.changed
			if changed == nil {
				changed = tc.want
			}
			if got := Events(tc.before, tc.want, changed); !reflect.DeepEqual(got, tc.events) {
				t.Errorf("Events =\n%+v\nwant\n%+v", got, tc.events)
			}
		})
	}
}

// Every False reason is either progress or a failure; the progress reasons
// are the waits.
func TestProgress(t *testing.T) {
	t.Parallel()
	for reason, want := range map[string]bool{
		c5c3v1alpha1.ReasonWaitingForCredential:    true,
		c5c3v1alpha1.ReasonNoRoleOnProject:         true,
		c5c3v1alpha1.ReasonControlPlaneNotFound:    true,
		c5c3v1alpha1.ReasonCredentialFailed:        false,
		c5c3v1alpha1.ReasonNamespaceNotAssigned:    false,
		c5c3v1alpha1.ReasonUserNotFound:            false,
		c5c3v1alpha1.ReasonDeliveryRefused:         false,
		c5c3v1alpha1.ReasonEndpointUnreachable:     false,
		c5c3v1alpha1.ReasonKeystoneServiceNotFound: false,
	} {
		if got := Progress(reason); got != want {
			t.Errorf("Progress(%s) = %v, want %v", reason, got, want)
		}
	}
}
