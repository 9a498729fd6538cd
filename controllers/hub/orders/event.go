package orders

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Event records an event on obj through rec, management cluster only: an
// order on a target cluster gets none (docs/hub.md, "Target clusters"). A nil rec records nothing.
func Event(rec recorder.EventRecorder, ord Order, obj runtime.Object, typ, reason, action, note string, args ...any) {
	if rec == nil || ord.OnTargetCluster() {
		return
	}
	rec.Eventf(obj, nil, typ, reason, action, note, args...)
}
