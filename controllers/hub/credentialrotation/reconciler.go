package credentialrotation

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-credentialrotation"

// WaitInterval is how often a waiting rotation looks again (upstream's
// credentialRotationWaitInterval).
const WaitInterval = 10 * time.Second

// +kubebuilder:rbac:groups=c5c3.io,resources=credentialrotations,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=credentialrotations/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices,verbs=get;list;watch;patch

// Reconciler reconciles CredentialRotations.
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
		Complete(r)
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

// Reconcile runs one pass.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cr c5c3v1alpha1.CredentialRotation
	if err := r.client.Get(ctx, req.NamespacedName, &cr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var ks *c5c3v1alpha1.KeystoneService
	if cr.Spec.KeystoneService != "" {
		var k c5c3v1alpha1.KeystoneService
		err := r.client.Get(ctx, types.NamespacedName{Namespace: cr.Namespace, Name: cr.Spec.KeystoneService}, &k)
		switch {
		case err == nil:
			ks = &k
		case !apierrors.IsNotFound(err):
			return ctrl.Result{}, err
		}
	}
	d := Decide(&cr, ks)
	if d.Action == Done {
		return ctrl.Result{}, nil
	}
	if d.Action == Nudge {
		patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
			c5c3v1alpha1.AnnotationPasswordRotationRequest: RequestValue(&cr)}}})
		if err != nil {
			return ctrl.Result{}, err
		}
		if err := r.client.Patch(ctx, ks, client.RawPatch(types.MergePatchType, patch)); err != nil {
			return ctrl.Result{}, fmt.Errorf("request the rotation on KeystoneService %s: %w", ks.Name, err)
		}
		r.recorder.Eventf(&cr, ks, corev1.EventTypeNormal, "RotationNudged", "Rotate",
			"requested a new password generation of KeystoneService %s", ks.Name)
		if cr.Spec.IntervalDays != nil || cr.Spec.PreRotationDays != nil || cr.Spec.GracePeriodDays != nil {
			r.recorder.Eventf(&cr, nil, corev1.EventTypeNormal, c5c3v1alpha1.EventScheduledRotationDeferred, "Rotate",
				"intervalDays, preRotationDays and gracePeriodDays are accepted but scheduling is deferred: this rotation ran once")
		}
	}
	base := cr.DeepCopy()
	meta.SetStatusCondition(&cr.Status.Conditions, d.Ready)
	cr.Status.ObservedGeneration = cr.Generation
	if d.Action == Nudge || d.Action == Refuse {
		cr.Status.LastTriggeredGeneration = cr.Generation
	}
	if err := r.client.Status().Patch(ctx, &cr, client.MergeFrom(base)); err != nil {
		return ctrl.Result{}, err
	}
	if d.Action == Wait {
		return ctrl.Result{RequeueAfter: WaitInterval}, nil
	}
	return ctrl.Result{}, nil
}
