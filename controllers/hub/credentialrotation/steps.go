package credentialrotation

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

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
