package keystoneuser

import (
	"cmp"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/generations"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/listcache"
)

// Requeue intervals of a not-Ready and a Ready order
// (docs/reference/keystoneuser.md, "Status").
const (
	NotReadyRequeue = 15 * time.Second
	// ReadyResync is 10 minutes less the age a list answering the check may
	// have (listcache.DefaultMaxAge), so a change is seen within 10 minutes.
	ReadyResync = 10*time.Minute - listcache.DefaultMaxAge
)

// EffectiveUserName is spec.userName, or metadata.name when unset.
func EffectiveUserName(u *c5c3v1alpha1.KeystoneUser) string {
	return cmp.Or(string(u.Spec.UserName), u.Name)
}

// EffectiveDomain is spec.domainName, or the plane's admin domain
// (spec.korc.adminCredential.domainName, default "Default") when unset.
func EffectiveDomain(u *c5c3v1alpha1.KeystoneUser, cp *c5c3v1alpha1.ControlPlane) string {
	return controlplane.DomainOr(string(u.Spec.DomainName), cp)
}

// UsesAdminDomain reports whether the effective domain is the plane's admin
// domain under keystone.SameIdentityName (then the plane's Domain import is
// referenced instead of the order's own).
func UsesAdminDomain(u *c5c3v1alpha1.KeystoneUser, cp *c5c3v1alpha1.ControlPlane) bool {
	return keystone.SameIdentityName(EffectiveDomain(u, cp), controlplane.AdminOf(cp).Domain)
}

// IsAdminIdentity reports whether the order resolves to the plane's admin
// user and domain under keystone.SameIdentityName
// (docs/reference/keystoneuser.md, "Consent").
func IsAdminIdentity(u *c5c3v1alpha1.KeystoneUser, cp *c5c3v1alpha1.ControlPlane) bool {
	a := controlplane.AdminOf(cp)
	return keystone.SameIdentityName(EffectiveUserName(u), a.User) && keystone.SameIdentityName(EffectiveDomain(u, cp), a.Domain)
}

// SpecGeneration is spec.passwordGeneration with the schema default (1)
// applied to a zero value.
func SpecGeneration(u *c5c3v1alpha1.KeystoneUser) int64 {
	return max(u.Spec.PasswordGeneration, 1)
}

// Interval is spec.rotation.interval; 0 means the schedule is off.
func Interval(u *c5c3v1alpha1.KeystoneUser) time.Duration {
	if r := u.Spec.Rotation; r != nil && r.Interval != nil && r.Interval.Duration > 0 {
		return r.Interval.Duration
	}
	return 0
}

// NextRotation is last plus interval, or nil with the schedule off or before
// the first delivery (docs/reference/keystoneuser.md, "Rotation").
func NextRotation(last *metav1.Time, interval time.Duration) *metav1.Time {
	if last == nil || interval <= 0 {
		return nil
	}
	t := metav1.NewTime(last.Add(interval))
	return &t
}

// RotationInputs is what the password plan of a pass is decided from.
type RotationInputs struct {
	// Existing are the generations of the password Secrets that exist.
	Existing map[int64]generations.Generation
	// Applied is the generation of the K-ORC User's
	// status.resource.appliedPasswordRef (0: none yet).
	Applied int64
	// Spec is SpecGeneration; Status is status.passwordGeneration (0: none yet).
	Spec, Status int64
	// Due is true when the schedule is on and status.nextPasswordRotation
	// has passed.
	Due bool
	// Held is true while a referencing KeystoneApplicationCredential is being
	// deleted; it holds only the scheduled rotation.
	Held bool
	// StoreBlocked is true when the plane's secret store is not Ready
	// (orders.StoreReady).
	StoreBlocked bool
	// BudgetBlocked is true when the namespace's rotation budget withholds a
	// raised or scheduled rotation or the first password (orders.RotationBudget).
	BudgetBlocked bool
}

// RotationPlan is the password plan of a pass.
type RotationPlan struct {
	// Create is the generation to create (0: none); Scheduled, Raised and
	// First (the order's first password) say why.
	Create                   int64
	Scheduled, Raised, First bool
	// Desired is the generation the K-ORC User's passwordRef names.
	Desired int64
	// Deliverable is the generation K-ORC applied (0: none).
	Deliverable int64
	// Delete are generations older than the applied one, deleted once it is delivered.
	Delete []int64
	// HeldSchedule is true when a due scheduled rotation waits on Held.
	HeldSchedule bool
	// Recovery is true when Create replaces a lost applied generation.
	Recovery bool
	// StoreHeld is true when StoreBlocked withheld a create or a switch; Desired
	// is then the applied generation, or 0 when none exists.
	StoreHeld bool
	// BudgetHeld is true when BudgetBlocked withheld a raised, scheduled or
	// first create; Desired is then the newest existing generation (0: none).
	BudgetHeld bool
}

// PlanRotation decides the password generations of a KeystoneUser on top of
// generations.PlanPassword (docs/reference/keystoneuser.md, "Rotation"). A
// generation K-ORC applied is never created again.
func PlanRotation(in RotationInputs) RotationPlan {
	base := generations.PlanPassword(generations.PasswordInputs{Existing: in.Existing, Applied: in.Applied})
	p := RotationPlan{Deliverable: base.Deliverable, Delete: base.Delete}
	var newest int64
	for g := range in.Existing {
		newest = max(newest, g)
	}
	spec := max(in.Spec, 1)
	_, appliedExists := in.Existing[in.Applied]
	switch {
	case in.Applied > 0 && !appliedExists && newest <= in.Applied:
		p.Create, p.Recovery = max(spec, in.Applied+1, newest+1, in.Status+1), true
	case newest == 0:
		p.Create, p.First = spec, true
	case newest < spec:
		p.Create, p.Raised = spec, true
	case in.Due && newest == in.Status && newest == in.Applied:
		if in.Held {
			p.HeldSchedule = true
		} else {
			p.Create, p.Scheduled = newest+1, true
		}
	}
	if in.BudgetBlocked && (p.Raised || p.Scheduled || p.First) {
		p.BudgetHeld = true
		p.Create, p.Raised, p.Scheduled, p.First = 0, false, false, false
	}
	p.Desired = max(newest, p.Create)
	if in.StoreBlocked && (p.Create > 0 || p.Desired != in.Applied) {
		p.StoreHeld = true
		p.Create, p.Scheduled, p.Raised, p.Recovery, p.First = 0, false, false, false, false
		p.Desired = 0
		if appliedExists && in.Applied > 0 {
			p.Desired = in.Applied
		}
	}
	return p
}

// ScheduleHeldBy returns the names of the credentials in acs that reference
// user and are being deleted.
func ScheduleHeldBy(user string, acs []c5c3v1alpha1.KeystoneApplicationCredential) []string {
	var out []string
	for i := range acs {
		if acs[i].Spec.UserRef.Name == user && !acs[i].DeletionTimestamp.IsZero() {
			out = append(out, acs[i].Name)
		}
	}
	return out
}

// Interface is the catalog interface the delivered clouds.yaml names: public
// on a target cluster, else controlplane.EndpointType.
func Interface(cp *c5c3v1alpha1.ControlPlane, cluster string) string {
	if cluster != orders.ManagementCluster {
		return cloudsyaml.InterfacePublic
	}
	return controlplane.EndpointType(cp)
}

// ProjectScope is the project the delivered clouds.yaml is scoped to: the
// default project's Keystone name and domain name; empty for an order
// without spec.defaultProjectRef.
type ProjectScope struct{ Name, Domain string }

// ScopeOf reads the scope from the KeystoneProject order p (nil: none):
// status.projectName and spec.domainName, else the plane's admin domain.
func ScopeOf(p *c5c3v1alpha1.KeystoneProject, cp *c5c3v1alpha1.ControlPlane) ProjectScope {
	if p == nil {
		return ProjectScope{}
	}
	d := string(p.Spec.DomainName)
	if d == "" {
		d = controlplane.AdminOf(cp).Domain
	}
	return ProjectScope{Name: p.Status.ProjectName, Domain: d}
}

// DeliveredCloud is the v3password clouds.yaml cloud of the delivered Secret,
// without a CA bundle (docs/reference/keystoneuser.md, "Delivered Secret contract").
func DeliveredCloud(cp *c5c3v1alpha1.ControlPlane, cluster, authURL, user, domain string, scope ProjectScope, password []byte) cloudsyaml.Cloud {
	return cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: authURL, Username: user, Password: string(password),
		UserDomainName: domain, ProjectName: scope.Name, ProjectDomainName: scope.Domain,
		Region: controlplane.Region(cp), Interface: Interface(cp, cluster)})
}

// BackupPath is openbao.UserPasswordPath for the order's child prefix
// (korc.ChildPrefix). Errors: an invalid segment.
func BackupPath(planeNamespace, childPrefix string) (string, error) {
	return openbao.UserPasswordPath(planeNamespace, childPrefix)
}

// Requeue is when a pass runs again: NotReadyRequeue backing off with
// orders.NotReadyBackoff while not ready, else ReadyResync or earlier at next
// (at least a second), capped by orders.CapTarget on a target cluster.
func Requeue(ready bool, next *metav1.Time, now time.Time, target bool, notReadyFor time.Duration) time.Duration {
	d := ReadyResync
	if !ready {
		d = orders.NotReadyBackoff(NotReadyRequeue, notReadyFor)
	} else if next != nil {
		d = min(d, max(next.Sub(now), time.Second))
	}
	return orders.CapTarget(d, target)
}
