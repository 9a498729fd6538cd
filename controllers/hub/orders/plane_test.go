package orders

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestDeliveredAuthURL(t *testing.T) {
	t.Parallel()
	plane := func(k *c5c3v1alpha1.ServiceKeystoneSpec) *c5c3v1alpha1.ControlPlane {
		return &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "openstack"},
			Spec: c5c3v1alpha1.ControlPlaneSpec{Services: c5c3v1alpha1.ServicesSpec{Keystone: k}}}
	}
	external := plane(&c5c3v1alpha1.ServiceKeystoneSpec{Mode: c5c3v1alpha1.KeystoneModeExternal,
		External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: "https://keystone.example.com:5000/v3"}})
	managed := plane(nil)
	published := plane(&c5c3v1alpha1.ServiceKeystoneSpec{PublicEndpoint: "https://id.example.com/v3",
		Gateway: &c5c3v1alpha1.GatewaySpec{Hostname: "gw.example.com"}})
	gateway := plane(&c5c3v1alpha1.ServiceKeystoneSpec{Gateway: &c5c3v1alpha1.GatewaySpec{Hostname: "gw.example.com"}})
	for _, tc := range []struct {
		name    string
		cp      *c5c3v1alpha1.ControlPlane
		cluster string
		want    string
		reason  string
	}{
		{"management cluster, Managed: the in-cluster Service", managed, ManagementCluster, "http://cp-keystone.openstack.svc:5000/v3", ""},
		{"management cluster, published Managed: still the in-cluster Service", published, ManagementCluster, "http://cp-keystone.openstack.svc:5000/v3", ""},
		{"management cluster, External: external.authURL", external, ManagementCluster, "https://keystone.example.com:5000/v3", ""},
		{"target cluster, External: external.authURL", external, "edge-1", "https://keystone.example.com:5000/v3", ""},
		{"target cluster, publicEndpoint wins over the gateway", published, "edge-1", "https://id.example.com/v3", ""},
		{"target cluster, gateway hostname", gateway, "edge-1", "https://gw.example.com/v3", ""},
		{"target cluster, Managed publishing nothing", managed, "edge-1", "", c5c3v1alpha1.ReasonKeystoneNotPublished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, g := DeliveredAuthURL(tc.cp, tc.cluster)
			if got != tc.want || g.Reason != tc.reason {
				t.Fatalf("DeliveredAuthURL = %q, %q; want %q, %q", got, g.Reason, tc.want, tc.reason)
			}
			if g.Reason != "" && (!strings.Contains(g.Message, "publicEndpoint") || !strings.Contains(g.Message, tc.cluster)) {
				t.Fatalf("the message must name the cluster and the remedy: %q", g.Message)
			}
		})
	}
}
