package orders

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// Plane reads the ControlPlane ref resolves to (PlaneKey); nil and no error
// when it does not exist. Errors: any other read failure.
func Plane(ctx context.Context, hub client.Reader, ref c5c3v1alpha1.ControlPlaneRefSpec, orderNamespace string) (*c5c3v1alpha1.ControlPlane, error) {
	ns, name := PlaneKey(ref, orderNamespace)
	cp, err := GetOrNil[c5c3v1alpha1.ControlPlane](ctx, hub, ns, name)
	if err != nil {
		return nil, fmt.Errorf("read ControlPlane %s/%s: %w", ns, name, err)
	}
	return cp, nil
}

// DeliveredAuthURL is the Keystone URL delivered to an order on cluster, and
// KeystoneNotPublished when a target cluster cannot reach one
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret contract").
func DeliveredAuthURL(cp *c5c3v1alpha1.ControlPlane, cluster string) (string, conditions.Gate) {
	if cluster == ManagementCluster || controlplane.IsExternal(cp) {
		return controlplane.AuthURL(cp), conditions.Gate{}
	}
	if k := cp.Spec.Services.Keystone; k != nil {
		if k.PublicEndpoint != "" {
			return k.PublicEndpoint, conditions.Gate{}
		}
		if k.Gateway != nil && k.Gateway.Hostname != "" {
			return "https://" + k.Gateway.Hostname + "/v3", conditions.Gate{}
		}
	}
	return "", conditions.Gate{Reason: c5c3v1alpha1.ReasonKeystoneNotPublished, Message: fmt.Sprintf(
		"the order lives on cluster %q, which cannot reach the in-cluster Keystone of ControlPlane %s/%s, and the plane publishes no endpoint: "+
			"set spec.services.keystone.publicEndpoint or spec.services.keystone.gateway on the ControlPlane", cluster, cp.Namespace, cp.Name)}
}
