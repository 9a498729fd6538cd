package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/korc"
)

// TeardownRequeue is how soon a teardown that waits on K-ORC or ESO looks
// again when no watched event arrives.
const TeardownRequeue = 10 * time.Second

// teardown runs the c5c3.io/keystoneapplicationcredential-teardown
// finalizer in two phases (docs/reference/keystoneapplicationcredential.md,
// "Deletion Semantics"):
//
//   - while any K-ORC ApplicationCredential of the order is listed: delete
//     the PushSecret (which removes the OpenBao path), every
//     credential-v<N> (K-ORC deletes it in Keystone through mint-cloud),
//     every secret-v<N> and the source Secret;
//   - once none is listed: delete mint-cloud and the delivered Secret, and
//     release the finalizer when nothing the order owns is listed any more.
//
// With the ControlPlane gone, one pass issues every delete and releases the
// finalizer (fail-open). The mint-cloud document is not rebuilt here: a
// user password rotated during the teardown strands the finalizer until
// the credentials are removed by hand
// (docs/reference/keystoneapplicationcredential.md, "Deletion Semantics").
func (p *pass) teardown(ctx context.Context) (ctrl.Result, error) {
	p.r.probes.forget(p.prefix)
	p.r.logins.forget(p.prefix)
	if !controllerutil.ContainsFinalizer(p.ac, c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown) {
		return ctrl.Result{}, nil
	}
	if err := p.listCredentials(ctx); err != nil {
		return ctrl.Result{}, err
	}
	secrets, err := p.listed(ctx, &corev1.SecretList{})
	if err != nil {
		return ctrl.Result{}, err
	}
	pushes, err := p.listed(ctx, eso.NewMetadataList(eso.PushSecretGVK))
	if err != nil {
		return ctrl.Result{}, err
	}
	var errs []error
	phase1 := func() {
		for _, o := range pushes {
			errs = append(errs, p.deleteObj(ctx, o))
		}
		for _, o := range p.credObjs {
			errs = append(errs, p.deleteObj(ctx, o))
		}
		for _, o := range secrets {
			if _, ok := applicationcredential.GenerationOfChild(p.prefix, o.GetName()); ok || o.GetName() == p.child(korc.DiscSource) {
				errs = append(errs, p.deleteObj(ctx, o))
			}
		}
	}
	phase2 := func() {
		for _, o := range secrets {
			errs = append(errs, p.deleteObj(ctx, o)) // mint-cloud and any leftover
		}
		delivered, foreign, err := p.readDelivered(ctx)
		switch {
		case err != nil:
			errs = append(errs, err)
		case delivered != nil && !foreign && delivered.DeletionTimestamp.IsZero():
			if err := p.oc.Delete(ctx, delivered); client.IgnoreNotFound(err) != nil {
				errs = append(errs, fmt.Errorf("delete the delivered Secret: %w", err))
			}
		}
	}
	if p.cp == nil {
		phase1()
		phase2()
		if err := errors.Join(errs...); err != nil {
			return ctrl.Result{}, err
		}
		left := len(p.credObjs) + len(secrets) + len(pushes)
		if err := p.release(ctx); err != nil {
			return ctrl.Result{}, err
		}
		if left > 0 {
			p.event(corev1.EventTypeWarning, EventTeardownFailOpen, "Delete",
				"ControlPlane is gone: released with %d children still listed; K-ORC has nothing left to reach Keystone with", left)
		}
		return ctrl.Result{}, nil
	}
	if len(p.credObjs) > 0 {
		phase1()
		return ctrl.Result{RequeueAfter: TeardownRequeue}, errors.Join(errs...)
	}
	phase2()
	if err := errors.Join(errs...); err != nil {
		return ctrl.Result{}, err
	}
	if len(secrets)+len(pushes) > 0 {
		return ctrl.Result{RequeueAfter: TeardownRequeue}, nil // held until nothing is listed
	}
	return ctrl.Result{}, p.release(ctx)
}

// childLists are the kinds of the order's children in the plane's
// namespace, indexed by owner (orders.IndexChildren): the credential
// generations, the Secrets (source, mint-cloud, secret-v<N>) and the
// PushSecret (its metadata, which the watch caches).
func childLists() []client.ObjectList {
	return []client.ObjectList{&orcv1alpha1.ApplicationCredentialList{}, &corev1.SecretList{}, eso.NewMetadataList(eso.PushSecretGVK)}
}

// listed lists the order's children of list's kind in the plane's
// namespace from the cache (orders.ListChildren by ChildLabels). A kind
// whose CRD is not installed lists nothing.
func (p *pass) listed(ctx context.Context, list client.ObjectList) ([]client.Object, error) {
	return orders.ListChildren(ctx, p.r.children, list, p.ns, p.lbl)
}

// deleteObj deletes o on the management cluster unless it is already being
// deleted; NotFound is success.
func (p *pass) deleteObj(ctx context.Context, o client.Object) error {
	if !o.GetDeletionTimestamp().IsZero() {
		return nil
	}
	if err := p.r.local.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete %s/%s: %w", o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// release removes the teardown finalizer.
func (p *pass) release(ctx context.Context) error {
	base := p.ac.DeepCopy()
	controllerutil.RemoveFinalizer(p.ac, c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown)
	if err := p.oc.Patch(ctx, p.ac, client.MergeFrom(base)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("release the teardown finalizer: %w", err)
	}
	return nil
}
