package controlplane

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// observe runs the plane's steps, each only after the one before succeeded;
// failures to report go into the observation, errors are returned.
func (r *Reconciler) observe(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) (Observation, []error) {
	var o Observation
	var errs []error
	password, ca := r.readInputs(ctx, cp, &o)
	if o.PasswordMissing == "" && o.CABundleMissing == "" {
		o.WriteError = r.writeClouds(ctx, cp, password, ca)
	}
	if o.PasswordMissing == "" && o.CABundleMissing == "" && o.WriteError == nil {
		a := AdminOf(cp)
		err := r.opts.Verifier.Verify(ctx, TokenRequest{AuthURL: AuthURL(cp), User: a.User, Password: password,
			Domain: a.Domain, Project: a.Project, Region: Region(cp), Interface: EndpointType(cp), CABundle: ca})
		if err != nil {
			o.AuthReason, o.AuthMessage = Classify(err)
		}
		if err := r.applyDomainImport(ctx, cp); err != nil {
			errs = append(errs, err)
		}
	}
	if r.opts.OpenBao != nil {
		notReady, err := r.ensureStores(ctx, cp)
		o.StoreNotReady = notReady
		if err != nil {
			errs = append(errs, err)
			if o.StoreNotReady == "" {
				o.StoreNotReady = err.Error()
			}
		}
	}
	return o, errs
}

// olderPlane is the older ControlPlane of cp's namespace that parks cp
// (Duplicate), nil when none. Errors: the list failed.
func (r *Reconciler) olderPlane(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) (*c5c3v1alpha1.ControlPlane, error) {
	var list c5c3v1alpha1.ControlPlaneList
	if err := r.client.List(ctx, &list, client.InNamespace(cp.Namespace)); err != nil {
		return nil, fmt.Errorf("list the ControlPlanes of namespace %s: %w", cp.Namespace, err)
	}
	return Duplicate(cp, list.Items), nil
}

// readInputs reads the admin password and the optional CA bundle, recording
// what is missing in o. Neither value is ever logged.
func (r *Reconciler) readInputs(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, o *Observation) (password string, ca []byte) {
	a := AdminOf(cp)
	v, why := r.secretKey(ctx, cp.Namespace, a.PasswordSecret, a.PasswordKey)
	if why != "" {
		o.PasswordMissing = "admin password: " + why
		return "", nil
	}
	password = string(v)
	if name, key, ok := CABundleRef(cp); ok {
		ca, why = r.secretKey(ctx, cp.Namespace, name, key)
		if why != "" {
			o.CABundleMissing = "Keystone CA bundle: " + why
		}
	}
	return password, ca
}

// secretKey returns the non-empty value of key in Secret ns/name, or why it
// has none.
func (r *Reconciler) secretKey(ctx context.Context, ns, name, key string) ([]byte, string) {
	var s corev1.Secret
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &s); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Sprintf("Secret %s/%s does not exist", ns, name)
		}
		return nil, fmt.Sprintf("reading Secret %s/%s: %v", ns, name, err)
	}
	if len(s.Data[key]) == 0 {
		return nil, fmt.Sprintf("Secret %s/%s has no key %q", ns, name, key)
	}
	return s.Data[key], ""
}
