package controlplane

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/lifecycle"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
)

// ControllerName names the controller, its field owner and its event source.
const ControllerName = "orderhub-controlplane"

// CACertKey is the Secret key K-ORC reads a CA bundle from
// (orcv1alpha1.CloudCredencialsCASecretKey, spelled as upstream).
const CACertKey = "cacert"

// OpenBao is where the per-namespace SecretStores point and how they log in
// (docs/reference/openbao.md); the hub holds no OpenBao credential.
type OpenBao struct {
	// Address is the OpenBao URL (http or https).
	Address string
	// Mount is the KV v2 mount (default kv-v2).
	Mount string
	// AuthMount is the Kubernetes auth method's mount (default kubernetes).
	AuthMount string
	// Role is the OpenBao role the stores log in as (default eso-tenant).
	Role string
	// ServiceAccount is the one the role binds in every consented namespace
	// (default eso-tenant-auth).
	ServiceAccount string
}

// Options configure the reconciler.
type Options struct {
	// OpenBao, when set, provisions a SecretStore per consented namespace.
	OpenBao *OpenBao
	// Verifier requests the admin token; default KeystoneVerifier{}.
	Verifier Verifier
	// RetryInterval is the requeue after a failed pass (default 20 s).
	RetryInterval time.Duration
	// RecheckInterval re-verifies a ready credential (default 5 min).
	RecheckInterval time.Duration
	// FailureConfirmation is how long a Ready plane's transient failure must
	// persist to be reported (HoldTransient; default DefaultFailureConfirmation).
	FailureConfirmation time.Duration
}

// Reconciler is the ControlPlane kind of lifecycle.Loop.
type Reconciler struct {
	client   client.Client
	recorder recorder.EventRecorder
	opts     Options
	now      func() time.Time
	failing  failureClock
}

// holdTransient applies HoldTransient to the pass's AdminCredentialReady and
// logs a held failure.
func (r *Reconciler) holdTransient(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, want metav1.Condition) (metav1.Condition, bool) {
	prev := meta.FindStatusCondition(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
	got, since, held := HoldTransient(prev, want, r.failing.get(cp.UID), r.now(), r.opts.FailureConfirmation)
	r.failing.set(cp.UID, since)
	if held {
		log.FromContext(ctx).Info("admin credential check failed; AdminCredentialReady stays True unless the failure persists",
			"reason", want.Reason, "message", want.Message, "failingSince", since, "confirmAfter", r.opts.FailureConfirmation)
	}
	return got, held
}

// New is an empty ControlPlane (lifecycle.Kind).
func (r *Reconciler) New() *c5c3v1alpha1.ControlPlane { return &c5c3v1alpha1.ControlPlane{} }

// Pass fulfils the plane contract for cp (lifecycle.Kind): the duplicate
// guard, then observe, then the conditions to write.
func (r *Reconciler) Pass(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) (*planeStatus, lifecycle.Progress) {
	older, err := r.olderPlane(ctx, cp)
	if err != nil {
		return nil, lifecycle.Failed(err)
	}
	if older != nil {
		return r.update(cp, DuplicateConditions(cp, older, cp.Generation)), lifecycle.After(DuplicateRecheckInterval)
	}
	o, errs := r.observe(ctx, cp)
	admin, held := r.holdTransient(ctx, cp, AdminCredentialCondition(o, cp.Generation))
	conds := Conditions(admin, cp.Generation)
	u := r.update(cp, conds)
	if cp.Status.ObservedGeneration != cp.Generation {
		u.Written = func() { r.warnTenantConsent(cp) }
	}
	if err := errors.Join(errs...); err != nil {
		return u, lifecycle.Failed(err)
	}
	return u, lifecycle.After(r.requeue(held, conds[len(conds)-1].Status == metav1.ConditionTrue))
}

// planeStatus is what a pass writes: conditions only.
type planeStatus = lifecycle.StatusUpdate[c5c3v1alpha1.ControlPlaneStatus]

func (r *Reconciler) update(cp *c5c3v1alpha1.ControlPlane, conds []metav1.Condition) *planeStatus {
	return &planeStatus{Fields: cp.Status, Conditions: conds, Now: metav1.NewTime(r.now())}
}

// statusWriter is the plane's only status writer (optimistic lock).
func statusWriter(rec recorder.EventRecorder) lifecycle.StatusWriter[*c5c3v1alpha1.ControlPlane, c5c3v1alpha1.ControlPlaneStatus] {
	return lifecycle.StatusWriter[*c5c3v1alpha1.ControlPlane, c5c3v1alpha1.ControlPlaneStatus]{Kind: "ControlPlane",
		Recorder: rec, OptimisticLock: true,
		Fields: func(cp *c5c3v1alpha1.ControlPlane) (*c5c3v1alpha1.ControlPlaneStatus, *[]metav1.Condition, *int64) {
			return &cp.Status, &cp.Status.Conditions, &cp.Status.ObservedGeneration
		}}
}

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

// requeue is the delay before the next unprompted pass.
func (r *Reconciler) requeue(held, ready bool) time.Duration {
	switch {
	case held:
		return r.opts.FailureConfirmation
	case !ready:
		return r.opts.RetryInterval
	}
	return r.opts.RecheckInterval
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

// writeClouds writes the admin password cloud into both clouds.yaml Secrets.
func (r *Reconciler) writeClouds(ctx context.Context, cp *c5c3v1alpha1.ControlPlane, password string, ca []byte) error {
	doc, err := cloudsyaml.Render(AdminOf(cp).CloudName, PasswordCloud(cp, password))
	if err != nil {
		return err
	}
	data := map[string][]byte{cloudsyaml.Key: doc}
	if len(ca) > 0 {
		data[CACertKey] = ca
	}
	owner := ownerRef(cp)
	for _, name := range CloudsSecretNames(cp) {
		if _, err := apply.Deliver(ctx, r.client, ControllerName, apply.Secret{Namespace: cp.Namespace, Name: name,
			Data: data, Labels: Labels(cp), Owner: &owner}); err != nil {
			return err
		}
	}
	return nil
}

// applyDomainImport applies the admin Domain import, owned by the plane.
func (r *Reconciler) applyDomainImport(ctx context.Context, cp *c5c3v1alpha1.ControlPlane) error {
	d := DomainImport(cp)
	d.OwnerReferences = []metav1.OwnerReference{ownerRef(cp)}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: m}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	unstructured.RemoveNestedField(u.Object, "status")
	if err := r.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner(ControllerName),
		client.ForceOwnership); err != nil {
		return fmt.Errorf("apply the admin Domain import %s/%s: %w", d.Namespace, d.Name, err)
	}
	return nil
}

// warnTenantConsent emits EventTenantNamespaceConsented per tenant namespace
// cp also consents for KeystoneServices, once per observed generation.
func (r *Reconciler) warnTenantConsent(cp *c5c3v1alpha1.ControlPlane) {
	for _, ns := range cp.ConsentedTenantNamespaces() {
		r.recorder.Eventf(cp, nil, corev1.EventTypeWarning, c5c3v1alpha1.EventTenantNamespaceConsented, "Reconcile",
			"namespace %s is a tenant namespace (spec.namespaceAssignments) and is consented for KeystoneServices "+
				"(spec.korc.serviceRegistrations.allowedNamespaces): whoever may create a KeystoneService there is, in effect, "+
				"cloud admin, whatever its allowedRoles; remove it from allowedNamespaces unless every creator there is trusted", ns)
	}
}

func ownerRef(cp *c5c3v1alpha1.ControlPlane) metav1.OwnerReference {
	t := true
	return metav1.OwnerReference{APIVersion: c5c3v1alpha1.GroupVersion.String(), Kind: "ControlPlane",
		Name: cp.Name, UID: cp.UID, Controller: &t}
}
