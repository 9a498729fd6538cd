package keystoneservice

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/korc"
)

// Gate is a shared gate that stops every declared block; Reason is empty
// when the registration may proceed (docs/reference/keystoneservice.md, "Conditions").
type Gate = conditions.Gate

// GateOf decides the shared gates in order (docs/reference/keystoneservice.md,
// "Conditions", "Namespace consent"); cp is nil when the reference does not resolve.
func GateOf(ks *c5c3v1alpha1.KeystoneService, cp *c5c3v1alpha1.ControlPlane) Gate {
	if cp == nil {
		return Gate{Reason: c5c3v1alpha1.ReasonControlPlaneNotFound,
			Message: fmt.Sprintf("ControlPlane %s/%s does not exist", ks.ControlPlaneNamespace(), ks.Spec.ControlPlaneRef.Name)}
	}
	if !slices.Contains(controlplane.ConsentedNamespaces(cp), ks.Namespace) {
		return Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAllowed, Message: fmt.Sprintf(
			"ControlPlane %s/%s does not admit registrations from namespace %s: add it to spec.korc.serviceRegistrations.allowedNamespaces",
			cp.Namespace, cp.Name, ks.Namespace)}
	}
	if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
		msg := fmt.Sprintf("ControlPlane %s/%s is not AdminCredentialReady", cp.Namespace, cp.Name)
		if c := meta.FindStatusCondition(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady); c != nil {
			msg += ": " + c.Reason
		}
		return Gate{Reason: c5c3v1alpha1.ReasonWaitingForAdminCredential, Message: msg}
	}
	return Gate{}
}

// CatalogObservation is what one pass learned about the catalog block.
type CatalogObservation struct {
	// Gate is the shared gate.
	Gate Gate
	// Error is a Kubernetes-level failure applying or reading a child.
	Error error
	// ServiceExists is true once the managed Service child exists.
	ServiceExists bool
	// Probe is the probe's verdict while ServiceExists is false.
	Probe korc.ProbeResult
	// Adopt is spec.catalog.adopt.
	Adopt bool
	// Service is the managed Service's state (ServiceExists).
	Service korc.State
	// Endpoints are the declared endpoints' states by interface (absent: no child yet).
	Endpoints map[c5c3v1alpha1.EndpointInterface]korc.State
	// Declared are the declared interfaces.
	Declared []c5c3v1alpha1.EndpointInterface
	// External is true against an External-mode plane.
	External bool
	// OwnedBy names another owner managing the probed row, else "".
	OwnedBy string
}

// catalogReady is the CatalogReady chain of a declared catalog block, first
// match wins (docs/reference/keystoneservice.md, "Conditions").
var catalogReady = conditions.Chain[CatalogObservation]{
	conditions.GateClosed(func(o CatalogObservation) conditions.Gate { return o.Gate }),
	conditions.Failed(c5c3v1alpha1.ReasonCatalogError, func(o CatalogObservation) error { return o.Error }),
	catalogProbe,
	catalogChildren,
}

// CatalogCondition derives CatalogReady from o (catalogReady).
func CatalogCondition(o CatalogObservation, gen int64) metav1.Condition {
	return catalogReady.Condition(c5c3v1alpha1.ConditionCatalogReady, o, gen)
}

// catalogProbe: before the Service exists, a row owned elsewhere, then the probe.
func catalogProbe(o CatalogObservation) (conditions.Verdict, bool) {
	switch {
	case o.ServiceExists:
		return conditions.Next()
	case o.OwnedBy != "":
		return conditions.False(c5c3v1alpha1.ReasonServiceCollision, fmt.Sprintf(
			"the catalog service of this type and name (id %s) is managed by %s; adopt never takes over a row another registration owns: "+
				"remove this registration's catalog block or give it another service name", o.Probe.ID, o.OwnedBy))
	}
	switch korc.DecideProbe(o.Probe, o.Adopt) {
	case korc.ProbeCollide:
		return conditions.False(c5c3v1alpha1.ReasonServiceCollision, fmt.Sprintf(
			"a catalog service of this type and name already exists (id %s); nothing was touched: set catalog.adopt: true to take it over",
			o.Probe.ID))
	case korc.ProbeFail:
		return conditions.False(c5c3v1alpha1.ReasonCatalogFailed, "collision probe: "+o.Probe.Reason+": "+o.Probe.Message)
	}
	msg := "the collision probe has not resolved yet"
	if o.Probe.Message != "" {
		msg += ": " + o.Probe.Message
	}
	// Also on ProbeCreate: the managed Service is not applied yet.
	return conditions.False(c5c3v1alpha1.ReasonProbingForCollision, msg)
}

// catalogChildren: the Service and every declared Endpoint Available.
func catalogChildren(o CatalogObservation) (conditions.Verdict, bool) {
	children := []conditions.Child{{What: "the Service", State: o.Service}}
	for _, i := range o.Declared {
		s, ok := o.Endpoints[i]
		children = append(children, conditions.Child{What: "the " + string(i) + " Endpoint", State: s, Absent: !ok})
	}
	waiting, v, decided := conditions.Available(children, o.External, c5c3v1alpha1.ReasonCatalogFailed)
	switch {
	case decided:
		return v, true
	case len(waiting) > 0:
		return conditions.False(c5c3v1alpha1.ReasonWaitingForCatalog, strings.Join(waiting, "; "))
	}
	return conditions.True(c5c3v1alpha1.ReasonCatalogRegistered, "the service row and every declared endpoint row are registered")
}

// NotDeclaredCatalog is CatalogReady without a catalog block.
func NotDeclaredCatalog(gen int64) metav1.Condition {
	return metav1.Condition{Type: c5c3v1alpha1.ConditionCatalogReady, Status: metav1.ConditionTrue, ObservedGeneration: gen,
		Reason: c5c3v1alpha1.ReasonCatalogNotDeclared, Message: "no catalog block is declared"}
}

// Conditions are CatalogReady, AccountReady and Ready (the aggregate of the
// two, docs/reference/keystoneservice.md, "Conditions").
func Conditions(catalog, account metav1.Condition, gen int64) []metav1.Condition {
	return []metav1.Condition{catalog, account, controlplane.ReadyCondition([]metav1.Condition{catalog, account}, gen)}
}

// PlanEndpoints returns the Endpoint children in existing that are no longer
// declared; declared rows are applied every pass.
func PlanEndpoints(ks *c5c3v1alpha1.KeystoneService, existing []string) (remove []string) {
	want := map[string]bool{}
	if ks.Spec.Catalog != nil {
		for _, e := range ks.Spec.Catalog.Endpoints {
			want[korc.RegistrationChildName(ks.Namespace, ks.Name, korc.EndpointDiscriminator(e.Interface))] = true
		}
	}
	for _, n := range existing {
		if !want[n] {
			remove = append(remove, n)
		}
	}
	slices.Sort(remove)
	return remove
}
