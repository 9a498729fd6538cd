package keystoneservice

import (
	"context"
	"errors"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/korc"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-keystoneservice"

// Reconciler reconciles KeystoneServices. writeStatus is its only status
// writer.
type Reconciler struct {
	client   client.Client
	recorder recorder.EventRecorder
	now      func() metav1.Time
}

// Reconcile runs one pass for a KeystoneService.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ks c5c3v1alpha1.KeystoneService
	if err := r.client.Get(ctx, req.NamespacedName, &ks); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cp, err := r.plane(ctx, &ks)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !ks.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.teardown(ctx, &ks, cp)
	}
	if !controllerutil.ContainsFinalizer(&ks, c5c3v1alpha1.FinalizerKeystoneServiceTeardown) {
		base := ks.DeepCopy()
		controllerutil.AddFinalizer(&ks, c5c3v1alpha1.FinalizerKeystoneServiceTeardown)
		if err := r.client.Patch(ctx, &ks, client.MergeFrom(base)); err != nil {
			return ctrl.Result{}, err
		}
	}
	gate := GateOf(&ks, cp)
	var catalog metav1.Condition
	var catStatus *c5c3v1alpha1.KeystoneServiceCatalogStatus
	var errs []error
	switch {
	case ks.Spec.Catalog == nil:
		catalog = NotDeclaredCatalog(ks.Generation)
		if gate.Passed() {
			// A removed block is swept; its condition waits for the sweep.
			left, err := r.sweep(ctx, &ks, cp.Namespace)
			if err != nil {
				errs = append(errs, err)
			}
			if left > 0 {
				catalog = CatalogCondition(CatalogObservation{ServiceExists: true,
					Service: korc.State{Phase: korc.PhaseProgressing, Message: "removing the catalog children"}}, ks.Generation)
			}
		}
	case !gate.Passed():
		catalog = CatalogCondition(CatalogObservation{Gate: gate}, ks.Generation)
		catStatus = ks.Status.Catalog
	default:
		o := r.catalog(ctx, &ks, cp)
		catalog = CatalogCondition(o, ks.Generation)
		catStatus = catalogStatus(&ks, o)
	}
	account := AccountCondition(&ks, gate, ks.Generation)
	if err := r.writeStatus(ctx, &ks, Conditions(catalog, account, ks.Generation), catStatus); err != nil {
		errs = append(errs, err)
	}
	return ctrl.Result{}, errors.Join(errs...)
}

// plane reads the referenced ControlPlane; nil when it does not exist.
func (r *Reconciler) plane(ctx context.Context, ks *c5c3v1alpha1.KeystoneService) (*c5c3v1alpha1.ControlPlane, error) {
	var cp c5c3v1alpha1.ControlPlane
	err := r.client.Get(ctx, types.NamespacedName{Namespace: ks.ControlPlaneNamespace(), Name: ks.Spec.ControlPlaneRef.Name}, &cp)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &cp, nil
}

// catalog projects the catalog block: probe until the managed Service
// exists, then the Service and its Endpoints, and sweeps undeclared rows.
func (r *Reconciler) catalog(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) CatalogObservation {
	cat := ks.Spec.Catalog
	o := CatalogObservation{Adopt: cat.Adopt, Endpoints: map[c5c3v1alpha1.EndpointInterface]korc.State{}}
	for _, e := range cat.Endpoints {
		o.Declared = append(o.Declared, e.Interface)
	}
	ns := cp.Namespace
	svcName := korc.RegistrationChildName(ks.Namespace, ks.Name, korc.DiscService)
	probeName := korc.RegistrationChildName(ks.Namespace, ks.Name, korc.DiscServiceProbe)
	managed := korc.Child{Namespace: ns, Labels: ChildLabels(ks), Credentials: orcv1alpha1.CloudCredentialsReference{
		SecretName: korc.AdminPasswordCloudSecretName(cp.Name), CloudName: controlplane.AdminOf(cp).CloudName}}

	var svc orcv1alpha1.Service
	err := r.client.Get(ctx, types.NamespacedName{Namespace: ns, Name: svcName}, &svc)
	switch {
	case err == nil:
		o.ServiceExists = true
	case !apierrors.IsNotFound(err):
		o.Error = err
		return o
	}
	if !o.ServiceExists {
		// Seed 001 "Collision and adoption": probe before the managed create.
		pc := korc.Child{Name: probeName, Namespace: ns, Labels: ChildLabels(ks), Credentials: controlplane.Credentials(cp)}
		probe := korc.ServiceProbe(pc, cat.ServiceType, ks.EffectiveServiceName())
		if err := applyTyped(ctx, r.client, probe); err != nil {
			o.Error = err
			return o
		}
		o.Probe = korc.Probe(probe)
		if DecideProbe(o.Probe, cat.Adopt) != ProbeCreate {
			return o
		}
		r.recorder.Eventf(ks, nil, corev1.EventTypeNormal, "CatalogCreate", "Create",
			"probe verdict %s (adopt %t): creating the managed Service %s/%s", o.Probe.Outcome, cat.Adopt, ns, svcName)
		o.ServiceExists = true
	}
	// The managed Service, applied every pass.
	n := orcv1alpha1.OpenStackName(ks.EffectiveServiceName())
	managed.Name = svcName
	want := korc.ManagedService(managed, orcv1alpha1.ServiceResourceSpec{Name: &n, Type: cat.ServiceType})
	if err := applyTyped(ctx, r.client, want); err != nil {
		o.Error = err
		return o
	}
	o.Service = korc.StateOf(want)
	if err := r.deleteIfExists(ctx, &orcv1alpha1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: probeName}}); err != nil {
		o.Error = err
		return o
	}
	for _, e := range cat.Endpoints {
		managed.Name = korc.RegistrationChildName(ks.Namespace, ks.Name, korc.EndpointDiscriminator(e.Interface))
		ep := korc.ManagedEndpoint(managed, orcv1alpha1.EndpointResourceSpec{Interface: string(e.Interface), URL: e.URL,
			ServiceRef: orcv1alpha1.KubernetesNameRef(svcName)})
		if err := applyTyped(ctx, r.client, ep); err != nil {
			o.Error = err
			return o
		}
		o.Endpoints[e.Interface] = korc.StateOf(ep)
	}
	var eps orcv1alpha1.EndpointList
	if err := r.client.List(ctx, &eps, client.InNamespace(ns), client.MatchingLabels(ChildLabels(ks))); err != nil {
		o.Error = err
		return o
	}
	names := make([]string, 0, len(eps.Items))
	for _, e := range eps.Items {
		names = append(names, e.Name)
	}
	for _, name := range PlanEndpoints(ks, names) {
		if err := r.deleteIfExists(ctx, &orcv1alpha1.Endpoint{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
			o.Error = err
			return o
		}
	}
	return o
}

// catalogStatus is status.catalog for o.
func catalogStatus(ks *c5c3v1alpha1.KeystoneService, o CatalogObservation) *c5c3v1alpha1.KeystoneServiceCatalogStatus {
	s := &c5c3v1alpha1.KeystoneServiceCatalogStatus{}
	if o.Service.Phase == korc.PhaseAvailable {
		s.ServiceID = o.Service.ID
	}
	for _, e := range ks.Spec.Catalog.Endpoints {
		es := c5c3v1alpha1.KeystoneServiceEndpointStatus{Interface: e.Interface}
		if st, ok := o.Endpoints[e.Interface]; ok && st.Phase == korc.PhaseAvailable {
			es.ID = st.ID
		}
		s.Endpoints = append(s.Endpoints, es)
	}
	return s
}

// children lists ks's K-ORC Service and Endpoint children in ns.
func (r *Reconciler) children(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, ns string) ([]client.Object, error) {
	var svcs orcv1alpha1.ServiceList
	var eps orcv1alpha1.EndpointList
	sel := []client.ListOption{client.InNamespace(ns), client.MatchingLabels(ChildLabels(ks))}
	if err := r.client.List(ctx, &svcs, sel...); err != nil {
		return nil, err
	}
	if err := r.client.List(ctx, &eps, sel...); err != nil {
		return nil, err
	}
	var out []client.Object
	for i := range eps.Items {
		out = append(out, &eps.Items[i])
	}
	for i := range svcs.Items {
		out = append(out, &svcs.Items[i])
	}
	return out, nil
}

// sweep deletes every catalog child of ks in ns and returns how many were
// still listed.
func (r *Reconciler) sweep(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, ns string) (int, error) {
	kids, err := r.children(ctx, ks, ns)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, k := range kids {
		if k.GetDeletionTimestamp().IsZero() {
			errs = append(errs, r.deleteIfExists(ctx, k))
		}
	}
	return len(kids), errors.Join(errs...)
}

// teardown runs the finalizer (seed 001 "Deletion Semantics"): delete every
// child; while the ControlPlane exists keep the finalizer until none is
// listed (patient), once it is gone release it at once (fail-open).
func (r *Reconciler) teardown(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) error {
	if !controllerutil.ContainsFinalizer(ks, c5c3v1alpha1.FinalizerKeystoneServiceTeardown) {
		return nil
	}
	left, err := r.sweep(ctx, ks, ks.ControlPlaneNamespace())
	if cp != nil && (err != nil || left > 0) {
		return err // patient: the children's deletion events bring us back
	}
	base := ks.DeepCopy()
	controllerutil.RemoveFinalizer(ks, c5c3v1alpha1.FinalizerKeystoneServiceTeardown)
	if perr := r.client.Patch(ctx, ks, client.MergeFrom(base)); perr != nil {
		return perr
	}
	if cp == nil && left > 0 {
		r.recorder.Eventf(ks, nil, corev1.EventTypeWarning, "TeardownFailOpen", "Delete",
			"ControlPlane is gone: released with %d catalog children still terminating", left)
	}
	return nil
}

func (r *Reconciler) deleteIfExists(ctx context.Context, o client.Object) error {
	if err := r.client.Delete(ctx, o); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %T %s/%s: %w", o, o.GetNamespace(), o.GetName(), err)
	}
	return nil
}

// writeStatus sets the conditions and status.catalog and emits an event per
// condition whose status or reason changed.
func (r *Reconciler) writeStatus(ctx context.Context, ks *c5c3v1alpha1.KeystoneService, conds []metav1.Condition,
	cat *c5c3v1alpha1.KeystoneServiceCatalogStatus) error {
	base := ks.DeepCopy()
	changed := controlplane.SetConditions(&ks.Status.Conditions, conds, r.now())
	ks.Status.ObservedGeneration = ks.Generation
	ks.Status.Catalog = cat
	if err := r.client.Status().Patch(ctx, ks, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("write KeystoneService status: %w", err)
	}
	for _, c := range changed {
		typ := corev1.EventTypeNormal
		if c.Status != metav1.ConditionTrue {
			typ = corev1.EventTypeWarning
		}
		r.recorder.Eventf(ks, nil, typ, c.Reason, "Reconcile", "%s=%s: %s", c.Type, c.Status, c.Message)
	}
	return nil
}

// applyTyped server-side applies a typed K-ORC object under ControllerName
// and decodes the server's answer (with its status) back into obj.
func applyTyped(ctx context.Context, c client.Client, obj client.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(ControllerName), client.ForceOwnership); err != nil {
		return fmt.Errorf("apply %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj)
}
