package orders

import (
	"context"
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

// ObjectName is "claim-<kind>-<8hex>-<8hex>" of the folded domain and name.
func (c Claim) ObjectName() string {
	return "claim-" + c.Kind + "-" + korc.ShortHash(keystone.FoldName(c.Domain)) + "-" + korc.ShortHash(keystone.FoldName(c.Name))
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
	key := types.NamespacedName{Namespace: planeNamespace, Name: claim.ObjectName()}
	var cur coordinationv1.Lease
	err := c.Get(ctx, key, &cur)
	if apierrors.IsNotFound(err) {
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: planeNamespace, Name: claim.ObjectName(), Labels: ChildLabels(o)},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: &me},
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

// Release deletes claim when o holds it. Call it last in o's teardown.
// Errors: Kubernetes failures.
func Release(ctx context.Context, c client.Client, planeNamespace string, claim Claim, o Order) error {
	var cur coordinationv1.Lease
	err := c.Get(ctx, types.NamespacedName{Namespace: planeNamespace, Name: claim.ObjectName()}, &cur)
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
