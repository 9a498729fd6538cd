package keystoneservice

import (
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=c5c3.io,resources=keystoneservices/finalizers,verbs=update
// +kubebuilder:rbac:groups=c5c3.io,resources=controlplanes,verbs=get;list;watch
// +kubebuilder:rbac:groups="";events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=openstack.k-orc.cloud,resources=services;endpoints,verbs=get;list;watch;create;update;patch;delete

// SetupWithManager registers the KeystoneService reconciler. The manager's
// scheme must hold client-go's, c5c3.io's and K-ORC's types. It watches
// KeystoneServices, the ControlPlanes they reference, and K-ORC Services
// and Endpoints mapped to their parent by the ownership labels.
func SetupWithManager(mgr ctrl.Manager) error {
	c := mgr.GetClient()
	r := &Reconciler{client: c, recorder: mgr.GetEventRecorder(ControllerName), now: metav1.Now}
	return ctrl.NewControllerManagedBy(mgr).
		Named("keystoneservice").
		For(&c5c3v1alpha1.KeystoneService{}).
		Watches(&c5c3v1alpha1.ControlPlane{}, handler.EnqueueRequestsFromMapFunc(registrationsOfPlane(c))).
		Watches(&orcv1alpha1.Service{}, handler.EnqueueRequestsFromMapFunc(ownerOfChild)).
		Watches(&orcv1alpha1.Endpoint{}, handler.EnqueueRequestsFromMapFunc(ownerOfChild)).
		Complete(r)
}
