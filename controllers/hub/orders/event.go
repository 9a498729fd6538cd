package orders

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Event records an event on obj, the order ord names, through rec, which
// writes to the management cluster only. An order on a target cluster gets
// none: the API server refuses an event in a namespace only the target has,
// and where the management cluster has a namespace of the same name the
// event would point at an object it does not hold. The order's conditions
// carry the same information (docs/hub.md). A nil rec records nothing.
func Event(rec recorder.EventRecorder, ord Order, obj runtime.Object, typ, reason, action, note string, args ...any) {
	if rec == nil || ord.OnTargetCluster() {
		return
	}
	rec.Eventf(obj, nil, typ, reason, action, note, args...)
}
