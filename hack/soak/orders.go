package main

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

// placed is an order and the cluster it lives on ("" the management
// cluster).
type placed struct {
	cluster string
	obj     client.Object
}

func (p placed) id() string {
	c := p.cluster
	if c == "" {
		c = "management"
	}
	return fmt.Sprintf("%s %s/%s@%s", kindOf(p.obj), p.obj.GetNamespace(), p.obj.GetName(), c)
}

// desiredOrders are the soak's orders: the KeystoneService account in the
// plane's namespace, and on each cluster a user, a project, the member role
// on it and a rotating application credential in tenant-a.
func desiredOrders() []placed {
	out := []placed{{"", &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS, Name: serviceName},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: planeName},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{
				Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "service-soak", Create: true},
				Roles:   []c5c3v1alpha1.KeystoneName{"member"}}}}}}
	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: planeName, Namespace: planeNS}
	for _, cl := range []string{"", targetName} {
		out = append(out,
			placed{cl, &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: orderName(cl, projectBase)},
				Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: ref}}},
			placed{cl, &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: orderName(cl, userBase)},
				Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: ref, DefaultProjectRef: &c5c3v1alpha1.OrderRef{Name: orderName(cl, projectBase)}}}},
			placed{cl, &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: orderName(cl, memberBase)},
				Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: orderName(cl, userBase)},
					ProjectRef: c5c3v1alpha1.OrderRef{Name: orderName(cl, projectBase)}, Role: "member"}}},
			placed{cl, &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: orderName(cl, acBase)},
				Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: orderName(cl, userBase)},
					ProjectRef: c5c3v1alpha1.OrderRef{Name: orderName(cl, projectBase)},
					Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: &metav1.Duration{Duration: acInterval},
						GracePeriod: &metav1.Duration{Duration: acGrace}}}}},
		)
	}
	return out
}

// Kinds of delivered credentials.
const (
	credApplication = "application-credential"
	credPassword    = "password"
)

// delivered is one delivered Secret a consumer reads.
type delivered struct {
	cluster, namespace, name, cloud string
	// kind is credApplication or credPassword.
	kind string
	// rotates: a password the soak rotates (the KeystoneService account).
	rotates bool
}

func (d delivered) id() string {
	c := d.cluster
	if c == "" {
		c = "management"
	}
	return fmt.Sprintf("%s/%s@%s", d.namespace, d.name, c)
}

// consumerSecrets are the delivered Secrets: the account's, and on each
// cluster the user's and the application credential's. The clouds.yaml
// cloud is named after the order (docs/reference/keystoneservice.md,
// "Consumer Secret contract"; docs/reference/keystoneuser.md and
// keystoneapplicationcredential.md, "Delivered Secret contract").
func consumerSecrets() []delivered {
	out := []delivered{{"", planeNS, serviceName + "-credentials", serviceName, credPassword, true}}
	for _, cl := range []string{"", targetName} {
		out = append(out,
			delivered{cl, tenantNS, orderName(cl, acBase) + "-credentials", orderName(cl, acBase), credApplication, false},
			delivered{cl, tenantNS, orderName(cl, userBase) + "-credentials", orderName(cl, userBase), credPassword, false})
	}
	return out
}

func kindOf(o client.Object) string {
	switch o.(type) {
	case *c5c3v1alpha1.KeystoneService:
		return "KeystoneService"
	case *c5c3v1alpha1.KeystoneProject:
		return "KeystoneProject"
	case *c5c3v1alpha1.KeystoneUser:
		return "KeystoneUser"
	case *c5c3v1alpha1.KeystoneRoleAssignment:
		return "KeystoneRoleAssignment"
	case *c5c3v1alpha1.KeystoneApplicationCredential:
		return "KeystoneApplicationCredential"
	case *c5c3v1alpha1.CredentialRotation:
		return "CredentialRotation"
	}
	return fmt.Sprintf("%T", o)
}

func conditionsOf(o client.Object) []metav1.Condition {
	switch o := o.(type) {
	case *c5c3v1alpha1.KeystoneService:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneProject:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneUser:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneRoleAssignment:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneApplicationCredential:
		return o.Status.Conditions
	}
	return nil
}

// childPrefix is the name prefix of the K-ORC children (infix
// korc.InfixUser, korc.InfixApplicationCredential, ...) of the tenant
// namespace's order name on cluster cl ("" the management cluster).
func childPrefix(cl, name, infix string) string {
	return korc.ChildPrefix(name, korc.OrderKey(cl, tenantNS, name), infix)
}
