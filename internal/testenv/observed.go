package testenv

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ObservedMarker starts the log lines ObservedCondition and ObservedEvent
// write. hack/reasons reads them from the `go test -v` log: a condition
// (kind, type, reason) or an event (kind, reason) a docs/reference page
// lists counts as live only when a test that passed logged it.
const ObservedMarker = "reasons-observed:"

// ObservedCondition logs that the running test asserted condition c on obj
// and the assertion held: "reasons-observed: condition <test> <Kind> <Type>
// <Status> <Reason>". Call it from a wait helper once its wait succeeded,
// with the condition it read, never before.
func ObservedCondition(t testing.TB, obj client.Object, c metav1.Condition) {
	t.Helper()
	t.Logf("%s condition %s %s %s %s %s", ObservedMarker, t.Name(), KindOf(obj), c.Type, c.Status, c.Reason)
}

// ObservedEvent logs that the running test saw an event of eventType
// (Normal, Warning) and reason on obj: "reasons-observed: event <test>
// <Kind> <Type> <Reason>".
func ObservedEvent(t testing.TB, obj client.Object, eventType, reason string) {
	t.Helper()
	t.Logf("%s event %s %s %s %s", ObservedMarker, t.Name(), KindOf(obj), eventType, reason)
}

// KindOf is obj's kind: its TypeMeta's when set (an unstructured object),
// else the name of its Go type (a typed client clears TypeMeta on reads).
func KindOf(obj client.Object) string {
	if k := obj.GetObjectKind().GroupVersionKind().Kind; k != "" {
		return k
	}
	return reflect.Indirect(reflect.ValueOf(obj)).Type().Name()
}
