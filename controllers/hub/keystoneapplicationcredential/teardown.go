package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/applicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/korc"
)

// TeardownRequeue is how soon a teardown that waits on K-ORC or ESO looks
// again when no watched event arrives.
const TeardownRequeue = 10 * time.Second

// Child lists of the order's children in the plane's namespace, indexed by
// owner (orders.IndexChildren): the credential generations, the Secrets
// (source, mint-cloud, secret-v<N>) and the PushSecret (its metadata, which
// the watch caches).
var (
	credentialList = func() client.ObjectList { return &orcv1alpha1.ApplicationCredentialList{} }
	secretList     = func() client.ObjectList { return &corev1.SecretList{} }
	pushList       = func() client.ObjectList { return eso.NewMetadataList(eso.PushSecretGVK) }
	// roleList and serviceList hold the scope's K-ORC imports (scope.go).
	roleList    = func() client.ObjectList { return &orcv1alpha1.RoleList{} }
	serviceList = func() client.ObjectList { return &orcv1alpha1.ServiceList{} }
)

// childSets are the kinds IndexChildren indexes for the order.
var childSets = []orders.ChildSet{{List: credentialList}, {List: secretList}, {List: pushList},
	{List: roleList}, {List: serviceList}}

// teardown is the c5c3.io/keystoneapplicationcredential-teardown deletion
// path of q's order in two phases
// (docs/reference/keystoneapplicationcredential.md, "Deletion Semantics"):
// first the PushSecret (the OpenBao path), every credential-v<N> (K-ORC
// deletes it in Keystone through mint-cloud), every secret-v<N> and the
// source Secret; once none is listed, mint-cloud, the scope's Role and
// Service imports and the delivered Secret.
// The mint-cloud document is not rebuilt here (a user password rotated
// during the teardown strands the finalizer, as that page says).
func (q *pass) teardown() orders.Teardown[orderObj] {
	ownChild := func(o client.Object) bool {
		gen, ok := applicationcredential.GenerationOfChild(q.prefix, o.GetName())
		return ok && o.GetName() == q.child(korc.CredentialDiscriminator(gen))
	}
	generational := func(o client.Object) bool {
		_, ok := applicationcredential.GenerationOfChild(q.prefix, o.GetName())
		return ok || o.GetName() == q.child(korc.DiscSource)
	}
	return orders.Teardown[orderObj]{
		Finalizer: c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown,
		Forget: func(*orders.Pass[orderObj]) {
			q.r.probes.Delete(q.prefix)
			q.r.logins.Delete(q.prefix)
			q.r.rest.Forget(q.prefix)
		},
		Phases: []orders.Phase[orderObj]{
			{Sets: []orders.ChildSet{{List: pushList}, {List: credentialList, Select: ownChild},
				{List: secretList, Select: generational}}},
			{Sets: []orders.ChildSet{{List: secretList}, {List: roleList}, {List: serviceList}}, After: q.deleteDelivered},
		},
		WaitRequeue: TeardownRequeue,
	}
}

// deleteDelivered deletes the delivered Secret on the order's cluster
// unless it is foreign (no controller reference to the order) or already
// being deleted. NotFound is success.
func (q *pass) deleteDelivered(ctx context.Context, _ *orders.Pass[orderObj]) error {
	delivered, foreign, err := q.readDelivered(ctx)
	if err != nil || delivered == nil || foreign || !delivered.DeletionTimestamp.IsZero() {
		return err
	}
	if err := q.oc.Delete(ctx, delivered); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("delete the delivered Secret: %w", err)
	}
	return nil
}
