package controlplane

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/eso"
)

// ensureStores provisions the tenant ServiceAccount and SecretStore of every
// store namespace, sweeps the rest, and returns why the own-namespace store is
// not Ready ("" when it is or for a ClusterSecretStore)
// (docs/reference/controlplane.md, "Tenant objects are never taken over").
func (r *Reconciler) ensureStores(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) (string, error) {
	ob := *r.opts.OpenBao
	store, provisions := StoreName(cp)
	var errs []error
	namespaces, sweepTenants, err := r.storeNamespaces(ctx, cp, provisions)
	if err != nil {
		errs = append(errs, err)
	}
	var foreign []Foreign
	for _, ns := range namespaces {
		f, err := r.provisionNamespace(ctx, cp, ob, store, ns)
		if err != nil {
			errs = append(errs, err)
		}
		if f != nil {
			foreign = append(foreign, *f)
		}
	}
	if err := r.sweep(ctx, cp, sweepTenants, namespaces); err != nil {
		errs = append(errs, err)
	}
	if !provisions {
		return "", errors.Join(errs...)
	}
	if msg := ForeignMessage(foreign); msg != "" {
		return msg, errors.Join(errs...)
	}
	own := eso.New(eso.SecretStoreGVK)
	if err := r.client.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: store}, own); err != nil {
		return fmt.Sprintf("SecretStore %s/%s: %v", cp.Namespace, store, err), errors.Join(errs...)
	}
	if c := eso.ReadyCondition(own); !c.True() {
		return StoreNotReadyMessage(cp.Namespace, store, ob, c), errors.Join(errs...)
	}
	return "", errors.Join(errs...)
}

// storeNamespaces are the consented namespaces and those a KeystoneService
// teardown still needs (none for a ClusterSecretStore); without the
// KeystoneService list, sweepTenants is false for the pass.
func (r *Reconciler) storeNamespaces(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, provisions bool) (
	namespaces []string, sweepTenants bool, err error) {
	if !provisions {
		return nil, false, nil
	}
	namespaces = ConsentedNamespaces(cp)
	var services c5c3v1alpha1.KeystoneServiceList
	if err := r.client.List(ctx, &services); err != nil {
		return namespaces, false, fmt.Errorf("list KeystoneServices: %w", err)
	}
	return StoreNamespaces(namespaces, TearingDown(cp, services.Items)), true, nil
}

// provisionNamespace writes ns's ServiceAccount and SecretStore once the
// namespace exists and is not being deleted; a foreign object is returned as
// Foreign and the namespace then gets neither.
func (r *Reconciler) provisionNamespace(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, ob OpenBao, store, ns string) (*Foreign, error) {
	var n corev1.Namespace
	if err := r.client.Get(ctx, types.NamespacedName{Name: ns}, &n); err != nil || !n.DeletionTimestamp.IsZero() {
		return nil, nil
	}
	f, err := r.applyServiceAccount(ctx, cp, ns, ob.ServiceAccount)
	if err != nil {
		return nil, err
	}
	if f != nil {
		return f, nil
	}
	return r.applyStore(ctx, cp, TenantStore(cp, ob, store, ns))
}

// applyServiceAccount writes the store's ServiceAccount, owned by the plane
// in its own namespace; a foreign one (NotOurs) is returned as Foreign.
func (r *Reconciler) applyServiceAccount(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, ns, name string) (*Foreign, error) {
	ac := func() *corev1ac.ServiceAccountApplyConfiguration {
		sa := corev1ac.ServiceAccount(name, ns).WithLabels(Labels(cp))
		if ns == cp.Namespace {
			o := ownerRef(cp)
			sa.WithOwnerReferences(metav1ac.OwnerReference().WithAPIVersion(o.APIVersion).WithKind(o.Kind).
				WithName(o.Name).WithUID(o.UID).WithController(true))
		}
		return sa
	}
	var cur corev1.ServiceAccount
	err := r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &cur)
	switch {
	case apierrors.IsNotFound(err):
		// Created, not applied: one appearing concurrently is not taken over.
		cur = corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: Labels(cp)}}
		if ns == cp.Namespace {
			cur.OwnerReferences = []metav1.OwnerReference{ownerRef(cp)}
		}
		if err := r.client.Create(ctx, &cur, client.FieldOwner(ControllerName)); err != nil {
			return nil, fmt.Errorf("create ServiceAccount %s/%s: %w", ns, name, err)
		}
	case err != nil:
		return nil, fmt.Errorf("read ServiceAccount %s/%s: %w", ns, name, err)
	default:
		if why := NotOurs(cp, &cur); why != "" {
			return &Foreign{Kind: "ServiceAccount", Namespace: ns, Name: name, Why: why}, nil
		}
	}
	// UID and resourceVersion preconditions: a replaced object is a Conflict.
	if err := r.client.Apply(ctx, ac().WithUID(cur.UID).WithResourceVersion(cur.ResourceVersion),
		client.FieldOwner(ControllerName), client.ForceOwnership); err != nil {
		return nil, fmt.Errorf("apply ServiceAccount %s/%s: %w", ns, name, err)
	}
	return nil, nil
}

// applyStore writes the tenant SecretStore s with applyServiceAccount's guard.
func (r *Reconciler) applyStore(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, s eso.SecretStore) (*Foreign, error) {
	build := func() (*unstructured.Unstructured, error) {
		u, err := s.Build()
		if err != nil {
			return nil, err
		}
		if s.Namespace == cp.Namespace {
			u.SetOwnerReferences([]metav1.OwnerReference{ownerRef(cp)})
		}
		return u, nil
	}
	cur := eso.New(eso.SecretStoreGVK)
	err := r.client.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: s.Name}, cur)
	switch {
	case apierrors.IsNotFound(err):
		if cur, err = build(); err != nil {
			return nil, err
		}
		if err := r.client.Create(ctx, cur, client.FieldOwner(ControllerName)); err != nil {
			return nil, fmt.Errorf("create SecretStore %s/%s: %w", s.Namespace, s.Name, err)
		}
	case err != nil:
		return nil, fmt.Errorf("read SecretStore %s/%s: %w", s.Namespace, s.Name, err)
	default:
		if why := NotOurs(cp, cur); why != "" {
			return &Foreign{Kind: "SecretStore", Namespace: s.Namespace, Name: s.Name, Why: why}, nil
		}
	}
	u, err := build()
	if err != nil {
		return nil, err
	}
	u.SetUID(cur.GetUID())
	u.SetResourceVersion(cur.GetResourceVersion())
	return nil, eso.Apply(ctx, r.client, ControllerName, u)
}

// sweep deletes the plane's tenant objects Stale names and every legacy token
// copy (IsLegacyTokenCopy); tenants is false for a ClusterSecretStore plane.
func (r *Reconciler) sweep(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, tenants bool, namespaces []string) error {
	var errs []error
	if tenants {
		errs = append(errs, r.sweepTenantObjects(ctx, cp, namespaces))
	}
	var secrets corev1.SecretList
	if err := r.client.List(ctx, &secrets, client.MatchingLabels(Labels(cp))); err != nil {
		errs = append(errs, fmt.Errorf("list the plane's Secrets: %w", err))
	} else {
		for _, s := range secrets.Items {
			if IsLegacyTokenCopy(cp, Placed{s.Namespace, s.Name}) {
				errs = append(errs, r.delete(ctx, "Secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.Name}}, s.UID))
			}
		}
	}
	return errors.Join(errs...)
}

// sweepTenantObjects deletes the plane's SecretStores and ServiceAccounts
// (labelled and, by NotOurs, the plane's) outside the consented namespaces.
func (r *Reconciler) sweepTenantObjects(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, consented []string) error {
	var errs []error
	stores := eso.NewList(eso.SecretStoreGVK)
	if err := r.client.List(ctx, stores, client.MatchingLabels(Labels(cp))); err != nil {
		errs = append(errs, fmt.Errorf("list the plane's SecretStores: %w", err))
	} else {
		var found []Placed
		uids := map[Placed]types.UID{}
		for _, s := range stores.Items {
			if NotOurs(cp, &s) != "" {
				continue
			}
			p := Placed{s.GetNamespace(), s.GetName()}
			found, uids[p] = append(found, p), s.GetUID()
		}
		for _, p := range Stale(consented, found) {
			u := eso.New(eso.SecretStoreGVK)
			u.SetNamespace(p.Namespace)
			u.SetName(p.Name)
			errs = append(errs, r.delete(ctx, "SecretStore", u, uids[p]))
		}
	}
	var sas corev1.ServiceAccountList
	if err := r.client.List(ctx, &sas, client.MatchingLabels(Labels(cp))); err != nil {
		errs = append(errs, fmt.Errorf("list the plane's ServiceAccounts: %w", err))
	} else {
		var found []Placed
		uids := map[Placed]types.UID{}
		for i := range sas.Items {
			s := &sas.Items[i]
			if NotOurs(cp, s) != "" {
				continue
			}
			p := Placed{s.Namespace, s.Name}
			found, uids[p] = append(found, p), s.UID
		}
		for _, p := range Stale(consented, found) {
			errs = append(errs, r.delete(ctx, "ServiceAccount",
				&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}, uids[p]))
		}
	}
	return errors.Join(errs...)
}

// delete deletes o (a kind), absent being success. A non-empty uid is a
// precondition: an object replaced since it was listed is not deleted.
func (r *Reconciler) delete(ctx context.Context, kind string, o client.Object, uid types.UID) error {
	var opts []client.DeleteOption
	if uid != "" {
		opts = append(opts, client.Preconditions{UID: &uid})
	}
	if err := r.client.Delete(ctx, o, opts...); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete %s %s/%s: %w", kind, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}
