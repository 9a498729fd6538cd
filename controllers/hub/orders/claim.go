package orders

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/korc"
)

// Claim is a Keystone user or project name in a domain an order is about to
// own. Two orders probing the same name would both adopt one row, so the first
// to create the claim's Lease in the ControlPlane's namespace owns the name
// (AlreadyExists is the arbiter). Names compare as keystone.FoldName.
type Claim struct {
	Kind         string
	Domain, Name string
}

// ObjectName is "claim-<kind>-<sha256 hex>" of the folded domain and name:
// a Lease name must be a DNS subdomain, which a Keystone name need not be.
// The Lease records the folded domain and name themselves (Annotations), and
// Acquire compares those, never the hash alone.
func (c Claim) ObjectName() string {
	sum := sha256.Sum256([]byte(keystone.FoldName(c.Domain) + "\x00" + keystone.FoldName(c.Name)))
	return "claim-" + c.Kind + "-" + hex.EncodeToString(sum[:])
}

// legacyObjectName is the claim's Lease name before the full-name claims
// ("claim-<kind>-<8hex>-<8hex>"); Acquire still honours such a Lease, so an
// upgrade frees no name a holder had.
func (c Claim) legacyObjectName() string {
	return "claim-" + c.Kind + "-" + korc.ShortHash(keystone.FoldName(c.Domain)) + "-" + korc.ShortHash(keystone.FoldName(c.Name))
}

// Annotations record the claimed folded domain and name on the Lease
// (c5c3v1alpha1 has no field for them: a Lease carries only a holder).
func (c Claim) Annotations() map[string]string {
	return map[string]string{AnnotationClaimDomain: keystone.FoldName(c.Domain), AnnotationClaimName: keystone.FoldName(c.Name)}
}

const (
	// AnnotationClaimDomain is the claim Lease's folded Keystone domain.
	AnnotationClaimDomain = "c5c3.io/claim-domain"
	// AnnotationClaimName is the claim Lease's folded Keystone name.
	AnnotationClaimName = "c5c3.io/claim-name"
)

// sameClaim reports whether lease records claim c (a Lease without the
// annotations predates them and is taken at its name).
func (c Claim) sameClaim(lease *coordinationv1.Lease) bool {
	a := lease.GetAnnotations()
	d, okD := a[AnnotationClaimDomain]
	n, okN := a[AnnotationClaimName]
	if !okD && !okN {
		return true
	}
	want := c.Annotations()
	return d == want[AnnotationClaimDomain] && n == want[AnnotationClaimName]
}

// holderIdentity is the Lease's holder: "<Kind>/<cluster>/<namespace>/<name>".
func holderIdentity(o Order) string {
	return o.Kind + "/" + o.Cluster + "/" + o.Namespace + "/" + o.Name
}

// Acquire takes claim for o, or confirms o holds it, and returns "" or the
// other holder as o may see it (HolderSeenBy). c's reads MUST bypass the cache: the hub may
// only get, create and delete leases. Errors: Kubernetes failures.
func Acquire(ctx context.Context, c client.Client, planeNamespace string, claim Claim, o Order) (string, error) {
	me := holderIdentity(o)
	if holder, err := legacyHolder(ctx, c, planeNamespace, claim, me); err != nil || holder != "" {
		if holder != "" {
			holder = HolderSeenBy(holder, o)
		}
		return holder, err
	}
	key := types.NamespacedName{Namespace: planeNamespace, Name: claim.ObjectName()}
	var cur coordinationv1.Lease
	err := c.Get(ctx, key, &cur)
	if apierrors.IsNotFound(err) {
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: planeNamespace, Name: claim.ObjectName(), Labels: ChildLabels(o),
				Annotations: claim.Annotations()},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &me},
		}
		switch err = c.Create(ctx, lease); {
		case err == nil:
			return "", nil
		case !apierrors.IsAlreadyExists(err):
			return "", fmt.Errorf("claim %s %q in domain %q: %w", claim.Kind, claim.Name, claim.Domain, err)
		}
		err = c.Get(ctx, key, &cur)
	}
	if err != nil {
		return "", fmt.Errorf("read the claim of %s %q in domain %q: %w", claim.Kind, claim.Name, claim.Domain, err)
	}
	if !claim.sameClaim(&cur) {
		return "", fmt.Errorf("claim Lease %s records %s %q in domain %q, not %q in %q: refusing to share it",
			key, claim.Kind, cur.Annotations[AnnotationClaimName], cur.Annotations[AnnotationClaimDomain], claim.Name, claim.Domain)
	}
	if cur.Spec.HolderIdentity != nil && *cur.Spec.HolderIdentity == me {
		return "", nil
	}
	if cur.Spec.HolderIdentity == nil {
		return "an unknown order", nil
	}
	return HolderSeenBy(*cur.Spec.HolderIdentity, o), nil
}

// HolderOutsideNamespace is how a tenant order's collision message names a
// holder in another namespace or on another cluster: not at all, so a tenant
// learns nothing of what others run (docs/reference/openbao.md, "What a
// tenant can and cannot do").
const HolderOutsideNamespace = "an order or registration outside this namespace (the platform's operators can tell which)"

// platformKind is the kind whose collision messages keep the holder's full
// name: KeystoneService registrations are the platform's own objects.
const platformKind = "KeystoneService"

// HolderSeenBy renders holder identity id for viewer's condition message:
// DescribeHolder's full name when viewer is a platform registration or the
// holder is in viewer's own namespace on viewer's cluster, else
// HolderOutsideNamespace. Pure.
func HolderSeenBy(id string, viewer Order) string {
	parts := strings.SplitN(id, "/", 4)
	if viewer.Kind == platformKind || (len(parts) == 4 && parts[1] == viewer.Cluster && parts[2] == viewer.Namespace) {
		return DescribeHolder(id)
	}
	return HolderOutsideNamespace
}

// DescribeHolder renders a holder identity for a condition message, e.g.
// "KeystoneUser tenant-a/reports (cluster edge-1)"; other shapes pass as is.
func DescribeHolder(id string) string {
	parts := strings.SplitN(id, "/", 4)
	if len(parts) != 4 {
		return id
	}
	where := "management cluster"
	if parts[1] != ManagementCluster {
		where = "cluster " + parts[1]
	}
	return fmt.Sprintf("%s %s/%s (%s)", parts[0], parts[2], parts[3], where)
}

// legacyHolder returns the holder identity of the claim's pre-upgrade Lease
// when another order holds it, else "". Errors: Kubernetes failures.
func legacyHolder(ctx context.Context, c client.Client, planeNamespace string, claim Claim, me string) (string, error) {
	var cur coordinationv1.Lease
	err := c.Get(ctx, types.NamespacedName{Namespace: planeNamespace, Name: claim.legacyObjectName()}, &cur)
	switch {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("read the claim of %s %q in domain %q: %w", claim.Kind, claim.Name, claim.Domain, err)
	case cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity == me:
		return "", nil
	}
	return *cur.Spec.HolderIdentity, nil
}

// ReleaseTenantName is the Teardown.Release of a TenantNamed kind: it
// releases the order's claim of claimKind on the kind's TenantName, through
// c (Base.Claims). Errors: as Release.
func ReleaseTenantName[T client.Object](named TenantNamed[T], c client.Client, claimKind string) func(context.Context, *Pass[T]) error {
	return func(ctx context.Context, p *Pass[T]) error {
		domain, name := named.TenantName(p.Obj, p.Plane)
		return Release(ctx, c, p.PlaneNamespace, Claim{Kind: claimKind, Domain: domain, Name: name}, p.Order)
	}
}

// Release deletes claim (and its pre-upgrade Lease) when o holds it. Call it
// last in o's teardown. Errors: Kubernetes failures.
func Release(ctx context.Context, c client.Client, planeNamespace string, claim Claim, o Order) error {
	if err := releaseLease(ctx, c, planeNamespace, claim.legacyObjectName(), claim, o); err != nil {
		return err
	}
	return releaseLease(ctx, c, planeNamespace, claim.ObjectName(), claim, o)
}

func releaseLease(ctx context.Context, c client.Client, planeNamespace, name string, claim Claim, o Order) error {
	var cur coordinationv1.Lease
	err := c.Get(ctx, types.NamespacedName{Namespace: planeNamespace, Name: name}, &cur)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read the claim of %s %q: %w", claim.Kind, claim.Name, err)
	}
	if cur.Spec.HolderIdentity == nil || *cur.Spec.HolderIdentity != holderIdentity(o) {
		return nil
	}
	// Preconditions: never delete a Lease another order created since the read.
	uid, rv := cur.UID, cur.ResourceVersion
	if err := c.Delete(ctx, &cur, client.Preconditions{UID: &uid, ResourceVersion: &rv}); err != nil &&
		!apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("release the claim of %s %q: %w", claim.Kind, claim.Name, err)
	}
	return nil
}

// ClaimClient writes through Client and reads uncached through Reader.
type ClaimClient struct {
	client.Client
	Reader client.Reader
}

// Get reads obj through Reader, bypassing the cache.
func (c ClaimClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.Reader.Get(ctx, key, obj, opts...)
}
