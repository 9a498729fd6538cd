package credentialrotation

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-credentialrotation"

// WaitInterval is how often a waiting rotation looks again (upstream's
// credentialRotationWaitInterval).
const WaitInterval = 10 * time.Second

// +kubebuilder:rbac:groups=c5c3.io,resources=credentialrotations,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=credentialrotations/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices,verbs=get;list;watch;patch

// Reconciler is the CredentialRotation kind of lifecycle.Loop.
type Reconciler struct {
	client   client.Client
	recorder recorder.EventRecorder
}

// New is an empty CredentialRotation (lifecycle.Kind).
func (r *Reconciler) New() *c5c3v1alpha1.CredentialRotation {
	return &c5c3v1alpha1.CredentialRotation{}
}

// Pass decides cr against the KeystoneService it names (Decide), nudges it
// when due, and returns the Ready condition to write (lifecycle.Kind).
func (r *Reconciler) Pass(ctx context.Context, cr *c5c3v1alpha1.CredentialRotation) (
	*lifecycle.StatusUpdate[c5c3v1alpha1.CredentialRotationStatus], lifecycle.Progress) {
	ks, err := r.keystoneService(ctx, cr)
	if err != nil {
		return nil, lifecycle.Failed(err)
	}
	d := Decide(cr, ks)
	if d.Action == Done {
		return nil, lifecycle.Watch()
	}
	if d.Action == Nudge {
		if err := r.nudge(ctx, cr, ks); err != nil {
			return nil, lifecycle.Failed(err)
		}
	}
	st := cr.Status
	if d.Action == Nudge || d.Action == Refuse {
		st.LastTriggeredGeneration = cr.Generation
	}
	u := &lifecycle.StatusUpdate[c5c3v1alpha1.CredentialRotationStatus]{Fields: st,
		Conditions: []metav1.Condition{d.Ready}, Now: metav1.Now()}
	if d.Action == Wait {
		return u, lifecycle.After(WaitInterval)
	}
	return u, lifecycle.Watch()
}

func statusFields(cr *c5c3v1alpha1.CredentialRotation) (*c5c3v1alpha1.CredentialRotationStatus, *[]metav1.Condition, *int64) {
	return &cr.Status, &cr.Status.Conditions, &cr.Status.ObservedGeneration
}
