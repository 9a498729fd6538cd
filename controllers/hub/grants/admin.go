package grants

import (
	"context"
	"fmt"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/korc"
)

// AdminCredentials reads, through c (the management cluster), the plane's
// admin password cloud a Granter authenticates with: the Secret
// korc.AdminPasswordCloudSecretName(cp.Name) in the plane's namespace, its
// clouds.yaml cloud controlplane.AdminOf(cp).CloudName and its optional CA
// bundle (key cacert). Errors: the Secret unreadable or the cloud absent.
func AdminCredentials(ctx context.Context, c client.Reader, cp *c5c3v1alpha1.ControlPlane) (Credentials, error) {
	var s corev1.Secret
	name := korc.AdminPasswordCloudSecretName(cp.Name)
	if err := c.Get(ctx, types.NamespacedName{Namespace: cp.Namespace, Name: name}, &s); err != nil {
		return Credentials{}, fmt.Errorf("read the plane's admin password cloud %s/%s: %w", cp.Namespace, name, err)
	}
	cloud, err := cloudsyaml.ParseCloud(s.Data[cloudsyaml.Key], controlplane.AdminOf(cp).CloudName)
	if err != nil {
		return Credentials{}, fmt.Errorf("the plane's admin password cloud %s/%s: %w", cp.Namespace, name, err)
	}
	return Credentials{Cloud: cloud, CABundle: s.Data[orcv1alpha1.CloudCredencialsCASecretKey], Plane: cp.Namespace + "/" + cp.Name}, nil
}
