package keystoneroleassignment

import (
	"context"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	mchandler "sigs.k8s.io/multicluster-runtime/pkg/handler"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/grants"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneroleassignments,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneroleassignments/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneroleassignments/finalizers,verbs=update
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneusers;keystoneprojects;keystoneapplicationcredentials,verbs=get;list;watch
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=roles,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=users;projects,verbs=get;list;watch

// childSets are the order's children in the plane's namespace (the Role import).
var childSets = []orders.ChildSet{{List: func() client.ObjectList { return &orcv1alpha1.RoleList{} }}}

// Options configure the reconciler; zero values take the defaults.
type Options struct {
	// Granter reads, assigns and revokes roles; default grants.Keystone.
	Granter grants.Granter
}

// SetupWithManager registers the KeystoneRoleAssignment reconciler on the
// hub's multicluster manager; the scheme must hold client-go's, c5c3.io's
// and K-ORC's types.
func SetupWithManager(hub *clusters.Hub, opts Options) error {
	if opts.Granter == nil {
		opts.Granter = grants.Keystone{Sessions: &grants.Sessions{}}
	}
	base, err := orders.NewBase(hub, ControllerName, childSets...)
	if err != nil {
		return err
	}
	r := &Reconciler{Base: base, now: metav1.Now, granter: opts.Granter}
	name := orders.KindKeystoneRoleAssignment
	localOnly := orders.LocalOnly()
	everywhere := mcbuilder.WithEngageWithLocalCluster(true)
	return mcbuilder.ControllerManagedBy(hub.Manager).
		Named("keystoneroleassignment").
		For(&c5c3v1alpha1.KeystoneRoleAssignment{}, everywhere).
		Watches(&orcv1alpha1.Role{}, orders.EnqueueOrderOfChild(name), localOnly...).
		Watches(&c5c3v1alpha1.ControlPlane{}, orders.EnqueueOrdersOfPlane[c5c3v1alpha1.KeystoneRoleAssignmentList](hub, name, kind{}.PlaneRef), localOnly...).
		Watches(&c5c3v1alpha1.KeystoneUser{}, assignmentsReferencing(func(o client.Object) (string, string) {
			return o.GetName(), ""
		}), everywhere).
		Watches(&c5c3v1alpha1.KeystoneProject{}, assignmentsReferencing(func(o client.Object) (string, string) {
			return "", o.GetName()
		}), everywhere).
		Watches(&c5c3v1alpha1.KeystoneApplicationCredential{}, assignmentsReferencing(func(o client.Object) (string, string) {
			ac, ok := o.(*c5c3v1alpha1.KeystoneApplicationCredential)
			if !ok {
				return "", ""
			}
			return ac.Spec.UserRef.Name, ac.Spec.ProjectRef.Name
		}), everywhere, mcbuilder.WithPredicates(orders.HoldChanged)).
		Complete(r)
}

// assignmentsReferencing maps an object to the KeystoneRoleAssignments of
// its namespace and cluster whose user and project refs match refsOf's
// non-empty names; a failing list maps to nothing.
func assignmentsReferencing(refsOf func(client.Object) (user, project string)) mchandler.TypedEventHandlerFunc[client.Object, mcreconcile.Request] {
	return func(name multicluster.ClusterName, cl cluster.Cluster) handler.TypedEventHandler[client.Object, mcreconcile.Request] {
		return mchandler.TypedEnqueueRequestsFromMapFuncWithClusterPreservation(
			func(ctx context.Context, obj client.Object) []mcreconcile.Request {
				user, project := refsOf(obj)
				if user == "" && project == "" {
					return nil
				}
				var list c5c3v1alpha1.KeystoneRoleAssignmentList
				if err := cl.GetClient().List(ctx, &list, client.InNamespace(obj.GetNamespace()), client.UnsafeDisableDeepCopy,
					orders.ReferenceFields(user, project)); err != nil {
					logf.FromContext(ctx).V(1).Info("cannot list KeystoneRoleAssignments for a reference event", "cluster", name, "error", err.Error())
					return nil
				}
				var reqs []mcreconcile.Request
				for i := range list.Items {
					ra := &list.Items[i]
					if (user == "" || ra.Spec.UserRef.Name == user) && (project == "" || ra.Spec.ProjectRef.Name == project) {
						reqs = append(reqs, mcreconcile.Request{ClusterName: name, Request: reconcile.Request{
							NamespacedName: types.NamespacedName{Namespace: ra.Namespace, Name: ra.Name}}})
					}
				}
				return reqs
			})
	}
}
