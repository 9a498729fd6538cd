package orders

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConditionEvents(t *testing.T) {
	t.Parallel()
	changed := []metav1.Condition{
		{Type: "UserReady", Status: metav1.ConditionTrue, Reason: "UserReady", Message: "user is ready"},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NotAllReady", Message: "waiting"},
		{Type: "Odd", Status: metav1.ConditionUnknown, Reason: "Unknown", Message: ""},
	}
	want := []ConditionEvent{
		{Type: corev1.EventTypeNormal, Reason: "UserReady", Note: "UserReady=True: user is ready"},
		{Type: corev1.EventTypeWarning, Reason: "NotAllReady", Note: "Ready=False: waiting"},
		{Type: corev1.EventTypeWarning, Reason: "Unknown", Note: "Odd=Unknown: "},
	}
	if got := ConditionEvents(changed); !reflect.DeepEqual(got, want) {
		t.Errorf("ConditionEvents =\n%+v\nwant\n%+v", got, want)
	}
	if got := ConditionEvents(nil); len(got) != 0 {
		t.Errorf("ConditionEvents(nil) = %+v, want none", got)
	}
}
