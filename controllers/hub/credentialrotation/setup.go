package credentialrotation

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
)

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
