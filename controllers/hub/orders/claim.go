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

// Claim is a Keystone identity name an order is about to own: a user or a
// project name in a domain. Two orders in different namespaces may order
// the same name; a collision probe alone cannot tell them apart, because
// both probe before either creates, and K-ORC's managed create then adopts
// the row the first one made (breaker H2/H3: two orders shared one Keystone
// user, and deleting one deleted the other's). A claim serializes them: the
// first order to create the claim object owns the name, the other reads a
// collision naming it.
//
// The claim object is a coordination.k8s.io Lease in the ControlPlane's
// namespace: a create-only object whose AlreadyExists is the arbiter (the
// API server's name uniqueness is the only atomic check-and-set available
// across reconcilers and namespaces). Names are compared as Keystone
// compares them (keystone.FoldName), so "Reports" and "reports" claim the
// same row.
type Claim struct {
	// Kind is "user" or "project".
	Kind string
	// Domain and Name are the Keystone domain and object names.
	Domain, Name string
}

// ObjectName is the Lease's name: "claim-<kind>-<8hex>-<8hex>" of the
// folded domain and name.
func (c Claim) ObjectName() string {
	return "claim-" + c.Kind + "-" + korc.ShortHash(keystone.FoldName(c.Domain)) + "-" + korc.ShortHash(keystone.FoldName(c.Name))
}

// holderIdentity is the Lease's holder: "<Kind>/<cluster>/<namespace>/<name>".
func holderIdentity(o Order) string {
	return o.Kind + "/" + o.Cluster + "/" + o.Namespace + "/" + o.Name
}

// Acquire takes claim for order o in planeNamespace through c (the
// management cluster), or confirms o already holds it. It returns the
// empty string when o holds the claim, else the holder for the collision
// message (DescribeHolder). The claim is read first and created only when
// it does not exist, so a holder's later passes write nothing; two orders
// that both read none still race on the create, whose AlreadyExists is the
// arbiter.
// c's reads should bypass the cache (e.g. the manager's APIReader wrapped
// into a client): the hub's RBAC on leases is get, create and delete, so a
// cached Get would start an informer that needs list and watch. Errors: a
// Kubernetes read or write failure.
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
	return DescribeHolder(*cur.Spec.HolderIdentity), nil
}

// DescribeHolder renders a claim's holder identity
// ("<Kind>/<cluster>/<namespace>/<name>") for a condition message:
// "KeystoneUser tenant-a/reports (management cluster)" or
// "KeystoneUser tenant-a/reports (cluster edge-1)". An identity of another
// shape is returned as it is.
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

// Release deletes claim when order o holds it; another holder's claim, or
// none, is left alone. Call it last in o's teardown, once the Keystone
// object is gone. Errors: a Kubernetes read or delete failure.
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
	// Preconditions: delete exactly the Lease read above, never one another
	// order created after it went.
	uid, rv := cur.UID, cur.ResourceVersion
	if err := c.Delete(ctx, &cur, client.Preconditions{UID: &uid, ResourceVersion: &rv}); err != nil &&
		!apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("release the claim of %s %q: %w", claim.Kind, claim.Name, err)
	}
	return nil
}

// ClaimClient is the management cluster's client for claims: writes go
// through Client, reads straight to the API server through Reader (a
// claim must be read as it is, and the hub's RBAC on leases is get, create
// and delete: no list or watch for an informer).
type ClaimClient struct {
	client.Client
	Reader client.Reader
}

// Get reads obj through Reader, bypassing the cache.
func (c ClaimClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	return c.Reader.Get(ctx, key, obj, opts...)
}
