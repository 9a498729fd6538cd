package credentialrotation

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
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

// SetupWithManager registers the reconciler; it watches CredentialRotations
// and the KeystoneServices they name (a first delivery unblocks a waiting
// rotation).
func SetupWithManager(mgr ctrl.Manager) error {
	r := &Reconciler{client: mgr.GetClient(), recorder: mgr.GetEventRecorder(ControllerName)}
	return ctrl.NewControllerManagedBy(mgr).
		Named("credentialrotation").
		For(&c5c3v1alpha1.CredentialRotation{}).
		Watches(&c5c3v1alpha1.KeystoneService{}, handler.EnqueueRequestsFromMapFunc(r.rotationsOf)).
		Complete(lifecycle.Loop[*c5c3v1alpha1.CredentialRotation, c5c3v1alpha1.CredentialRotationStatus]{
			Client: r.client, Kind: r, Status: lifecycle.StatusWriter[*c5c3v1alpha1.CredentialRotation, c5c3v1alpha1.CredentialRotationStatus]{
				Kind: "CredentialRotation", Recorder: r.recorder, Fields: statusFields}})
}

func (r *Reconciler) rotationsOf(ctx context.Context, o client.Object) []reconcile.Request {
	var list c5c3v1alpha1.CredentialRotationList
	if err := r.client.List(ctx, &list, client.InNamespace(o.GetNamespace())); err != nil {
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		if list.Items[i].Spec.KeystoneService == o.GetName() {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
		}
	}
	return reqs
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

// keystoneService is the KeystoneService cr names, nil when it names none or
// it does not exist.
func (r *Reconciler) keystoneService(ctx context.Context, cr *c5c3v1alpha1.CredentialRotation) (*c5c3v1alpha1.KeystoneService, error) {
	if cr.Spec.KeystoneService == "" {
		return nil, nil
	}
	var ks c5c3v1alpha1.KeystoneService
	err := r.client.Get(ctx, types.NamespacedName{Namespace: cr.Namespace, Name: cr.Spec.KeystoneService}, &ks)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &ks, nil
}

// nudge writes cr's rotation request on ks and records RotationNudged.
func (r *Reconciler) nudge(ctx context.Context, cr *c5c3v1alpha1.CredentialRotation, ks *c5c3v1alpha1.KeystoneService) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		c5c3v1alpha1.AnnotationPasswordRotationRequest: RequestValue(cr)}}})
	if err != nil {
		return err
	}
	if err := r.client.Patch(ctx, ks, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("request the rotation on KeystoneService %s: %w", ks.Name, err)
	}
	r.recorder.Eventf(cr, ks, corev1.EventTypeNormal, "RotationNudged", "Rotate",
		"requested a new password generation of KeystoneService %s", ks.Name)
	if cr.Spec.IntervalDays != nil || cr.Spec.PreRotationDays != nil || cr.Spec.GracePeriodDays != nil {
		r.recorder.Eventf(cr, nil, corev1.EventTypeNormal, c5c3v1alpha1.EventScheduledRotationDeferred, "Rotate",
			"intervalDays, preRotationDays and gracePeriodDays are accepted but scheduling is deferred: this rotation ran once")
	}
	return nil
}

func statusFields(cr *c5c3v1alpha1.CredentialRotation) (*c5c3v1alpha1.CredentialRotationStatus, *[]metav1.Condition, *int64) {
	return &cr.Status, &cr.Status.Conditions, &cr.Status.ObservedGeneration
}
