//go:build integration

package keystoneservice

import (
	"context"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// TestReasons_ProbingForCollision: while the apiserver refuses K-ORC's
// status writes on a registration's collision-probe imports (the catalog
// service probe and the account's user probe; an admission policy), the
// probes never resolve: CatalogReady and AccountReady read
// ProbingForCollision (docs/reference/keystoneservice.md, "Conditions")
// and Keystone holds neither the service nor the user nor the project.
// Once the refusal is lifted both blocks are provisioned.
func TestReasons_ProbingForCollision(t *testing.T) {
	const name, serviceType, project = "probing", "probing-it", "probing-project"
	ks := registration(planeNS, name, serviceType, false, map[string]string{"public": "http://probing.example"})
	ks.Spec.Account = accountRegistration(planeNS, name, project, true).Spec.Account
	serviceProbe := korc.RegistrationChildName(planeNS, name, korc.DiscServiceProbe)
	userProbe := korc.RegistrationChildName(planeNS, name, korc.DiscUserProbe)
	lift := testenv.Refuse(t, kube, testenv.Refusal{Namespace: planeNS, Group: "openstack.k-orc.cloud",
		Resources:  []string{"services/status", "users/status"},
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
		Allow:      `object.metadata.name != "` + serviceProbe + `" && object.metadata.name != "` + userProbe + `"`})
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonProbingForCollision)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonProbingForCollision)
	if n := len(keystoneServices(t, serviceType)); n != 0 {
		t.Errorf("%d %s services registered while the catalog probe is unresolved", n, serviceType)
	}
	if u := keystoneUser(t, ks.EffectiveUserName()); u != nil {
		t.Errorf("user %s created while the user probe is unresolved", u.ID)
	}
	if p := keystoneProject(t, project); p != nil {
		t.Errorf("project %s created while the user probe is unresolved", p.ID)
	}
	lift()
	touchKORC(t, &orcv1alpha1.Service{}, serviceProbe)
	touchKORC(t, &orcv1alpha1.User{}, userProbe)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonCatalogRegistered)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonAccountProvisioned)
	if n := len(keystoneServices(t, serviceType)); n != 1 {
		t.Errorf("%d %s services once the probe resolved, want 1", n, serviceType)
	}
	deleteAndWaitGone(t, ks, serviceType)
}

// touchKORC changes an annotation on the K-ORC object name in planeNS, so
// K-ORC reconciles it now rather than after its back-off; an object already
// gone (the probe resolved and was deleted) is fine.
func touchKORC(t *testing.T, obj client.Object, name string) {
	t.Helper()
	eventually(t, waitTimeout, "touch "+name, func() error {
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: name}, obj); err != nil {
			return client.IgnoreNotFound(err)
		}
		p := client.MergeFrom(obj.DeepCopyObject().(client.Object))
		a := obj.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a["test.orderhub/touch"] = metav1.Now().String()
		obj.SetAnnotations(a)
		return kube.Patch(context.Background(), obj, p)
	})
}
