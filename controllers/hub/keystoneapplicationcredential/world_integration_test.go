//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// world is what the KeystoneUser, KeystoneProject and KeystoneRoleAssignment
// reconcilers would have produced for one test, prepared by hand because
// those reconcilers are not part of this suite: a real Keystone user (with
// a known password), project and role grant made with the tests' admin
// client; the K-ORC User the user order would own, here an unmanaged import
// of that user under exactly the user order's child name (so K-ORC resolves
// the credentials' userRef); the user order's password-v1 Secret; and the
// three order objects with hand-written status.
type world struct {
	ns                string
	user, project     string // order names (Keystone names alike)
	userID, projectID string
	roleID            string
	password          string
}

// ensureNamespace creates ns unless it exists and assigns it on the
// management cluster in ControlPlane cp.
func ensureNamespace(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	setAssigned(t, ns, true)
}

// setAssigned adds (or removes) the namespaceAssignments entry of ns on the
// management cluster.
func setAssigned(t *testing.T, ns string, assigned bool) {
	t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		var out []c5c3v1alpha1.NamespaceAssignment
		for _, a := range cp.Spec.NamespaceAssignments {
			if a.Namespace != ns || a.Cluster != "" {
				out = append(out, a)
			}
		}
		if assigned {
			out = append(out, c5c3v1alpha1.NamespaceAssignment{Namespace: ns})
		}
		cp.Spec.NamespaceAssignments = out
		return kube.Update(context.Background(), &cp)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// newWorld prepares the user and project of prefix in ns (see world). The
// role grant and its order come with grantRole.
func newWorld(t *testing.T, ns, prefix string) *world {
	t.Helper()
	return newWorldIn(t, ns, prefix, planeNS)
}

// newWorldIn is newWorld for the ControlPlane "cp" of namespace plane: the
// Keystone user and project, the K-ORC User and Project imports standing in
// for the orders' children (the credential reads their ids from there), the
// password Secret, and the two orders with their status written by hand.
func newWorldIn(t *testing.T, ns, prefix, plane string) *world {
	t.Helper()
	ctx := context.Background()
	w := &world{ns: ns, user: prefix + "-user", project: prefix + "-project", password: "pw-" + prefix + "-Secret1"}
	p, err := projects.Create(ctx, identity, projects.CreateOpts{Name: w.project, DomainID: "default"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	w.projectID = p.ID
	enabled := true
	u, err := users.Create(ctx, identity, users.CreateOpts{Name: w.user, DomainID: "default", Password: w.password, Enabled: &enabled}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	w.userID = u.ID

	// The K-ORC User and Project the orders would own, imported by name.
	var cp c5c3v1alpha1.ControlPlane
	if err := kube.Get(ctx, types.NamespacedName{Namespace: plane, Name: "cp"}, &cp); err != nil {
		t.Fatal(err)
	}
	domain := korc.AdminDomainImportName("cp", controlplane.DefaultAdminDomain)
	testenv.ImportKORCUser(t, kube, korc.Child{Name: orders.UserChildName("", ns, w.user), Namespace: plane, Credentials: controlplane.Credentials(&cp)},
		w.user, domain, w.userID, waitTimeout)
	testenv.ImportKORCProject(t, kube, korc.Child{Name: orders.ProjectChildName("", ns, w.project), Namespace: plane, Credentials: controlplane.Credentials(&cp)},
		w.project, domain, w.projectID, waitTimeout)
	// The user order's password generation 1.
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: PasswordSecretName("", ns, w.user, 1), Namespace: plane,
		Labels: map[string]string{korc.LabelPasswordGeneration: "1"}}, Data: map[string][]byte{korc.PasswordKey: []byte(w.password)}})

	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane}
	uo := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: w.user, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: ref}}
	create(t, uo)
	uo.Status = c5c3v1alpha1.KeystoneUserStatus{UserID: w.userID, UserName: w.user, PasswordGeneration: 1,
		Conditions: []metav1.Condition{{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue, Reason: "UserProvisioned",
			Message: "hand-written by the test", LastTransitionTime: metav1.Now()}}}
	if err := kube.Status().Update(ctx, uo); err != nil {
		t.Fatal(err)
	}
	po := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: w.project, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: ref}}
	create(t, po)
	po.Status = c5c3v1alpha1.KeystoneProjectStatus{ProjectID: w.projectID, ProjectName: w.project,
		Conditions: []metav1.Condition{{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionTrue, Reason: "ProjectProvisioned",
			Message: "hand-written by the test", LastTransitionTime: metav1.Now()}}}
	if err := kube.Status().Update(ctx, po); err != nil {
		t.Fatal(err)
	}
	return w
}

// grantRole assigns the Keystone role member to the user on the project and
// creates the KeystoneRoleAssignment order reporting its status.roleID.
func (w *world) grantRole(t *testing.T) {
	t.Helper()
	w.grantRoleIn(t, planeNS)
}

// grantRoleIn is grantRole with the order naming the ControlPlane "cp" of
// namespace plane.
func (w *world) grantRoleIn(t *testing.T, plane string) {
	t.Helper()
	ctx := context.Background()
	w.roleID = testenv.KeystoneRoleID(t, identity, "member")
	if err := roles.Assign(ctx, identity, w.roleID, roles.AssignOpts{UserID: w.userID, ProjectID: w.projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	ra := &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: w.user + "-member", Namespace: w.ns},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: plane},
			UserRef: c5c3v1alpha1.OrderRef{Name: w.user}, ProjectRef: c5c3v1alpha1.OrderRef{Name: w.project}, Role: "member"}}
	create(t, ra)
	ra.Status = c5c3v1alpha1.KeystoneRoleAssignmentStatus{RoleID: w.roleID, UserID: w.userID, ProjectID: w.projectID}
	if err := kube.Status().Update(ctx, ra); err != nil {
		t.Fatal(err)
	}
}

// order is a KeystoneApplicationCredential of the world's user and project
// with the given schedule.
func (w *world) order(name string, interval, grace time.Duration) *c5c3v1alpha1.KeystoneApplicationCredential {
	return &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{
			ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			UserRef:         c5c3v1alpha1.OrderRef{Name: w.user}, ProjectRef: c5c3v1alpha1.OrderRef{Name: w.project},
			Rotation: &c5c3v1alpha1.ApplicationCredentialRotationSpec{Interval: &metav1.Duration{Duration: interval},
				GracePeriod: &metav1.Duration{Duration: grace}}}}
}

// keystoneCredentials lists the user's application credentials in Keystone
// (the admin may list them).
func (w *world) keystoneCredentials(ctx context.Context) ([]applicationcredentials.ApplicationCredential, error) {
	return testenv.KeystoneApplicationCredentials(ctx, identity, w.userID)
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// get reads the order again.
func get(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential) *c5c3v1alpha1.KeystoneApplicationCredential {
	t.Helper()
	var got c5c3v1alpha1.KeystoneApplicationCredential
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(ac), &got); err != nil {
		t.Fatal(err)
	}
	return &got
}

// condition returns the order's condition typ ("" reason when absent).
func condition(ac *c5c3v1alpha1.KeystoneApplicationCredential, typ string) metav1.Condition {
	if c := meta.FindStatusCondition(ac.Status.Conditions, typ); c != nil {
		return *c
	}
	return metav1.Condition{Type: typ}
}

// waitReason waits until the order's condition typ reads status/reason.
func waitReason(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, typ string, status metav1.ConditionStatus, reason string) {
	t.Helper()
	eventually(t, waitTimeout, fmt.Sprintf("%s=%s/%s", typ, status, reason), func() error {
		c := condition(get(t, ac), typ)
		if c.Status != status || c.Reason != reason {
			return fmt.Errorf("%s=%s/%s: %s", typ, c.Status, c.Reason, c.Message)
		}
		testenv.ObservedCondition(t, ac, c)
		return nil
	})
}

// delivered reads <name>-credentials and parses its clouds.yaml, checking
// that the two single keys agree with it.
func delivered(ctx context.Context, ac *c5c3v1alpha1.KeystoneApplicationCredential) (cloudsyaml.Cloud, *corev1.Secret, error) {
	var s corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: ac.Namespace, Name: orders.SecretName(ac.Name)}, &s); err != nil {
		return cloudsyaml.Cloud{}, nil, err
	}
	c, err := cloudsyaml.ParseCloud(s.Data[cloudsyaml.Key], ac.Name)
	if err != nil {
		return c, &s, err
	}
	if c.AuthInfo.ApplicationCredentialID != string(s.Data[openbao.PropertyApplicationCredentialID]) ||
		c.AuthInfo.ApplicationCredentialSecret != string(s.Data[openbao.PropertyApplicationCredentialSecret]) {
		return c, &s, errors.New("the id/secret keys and the clouds.yaml disagree")
	}
	return c, &s, nil
}

// authenticate requests a token with cloud, as a consumer would, and returns
// the project the token is scoped to.
func authenticate(ctx context.Context, c cloudsyaml.Cloud) (string, error) {
	tok, err := testenv.Authenticate(ctx, c)
	if err != nil {
		return "", err
	}
	p, err := tokens.Get(ctx, identity, tok).ExtractProject()
	if err != nil {
		return "", fmt.Errorf("read the token's scope: %w", err)
	}
	if p == nil {
		return "", errors.New("the token is not project-scoped")
	}
	return p.ID, nil
}

// baoKV is a KV client of the stack's OpenBao with the root token.
func baoKV(t *testing.T) *openbao.KV {
	t.Helper()
	kv, err := stack.KV()
	if err != nil {
		t.Fatal(err)
	}
	return kv
}

// backupPath is the order's OpenBao path
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract", Backing path).
func backupPath(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential) string {
	t.Helper()
	prefix := korc.ChildPrefix(ac.Name, korc.OrderKey("", ac.Namespace, ac.Name), korc.InfixApplicationCredential)
	p, err := openbao.ApplicationCredentialPath(planeNS, prefix[:len(prefix)-1])
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// kORCCredentials lists the order's K-ORC ApplicationCredentials.
func kORCCredentials(ctx context.Context, ac *c5c3v1alpha1.KeystoneApplicationCredential) ([]orcv1alpha1.ApplicationCredential, error) {
	var list orcv1alpha1.ApplicationCredentialList
	err := kube.List(ctx, &list, client.InNamespace(planeNS), client.MatchingLabels(orders.ChildLabels(orders.Order{
		Kind: orders.KindKeystoneApplicationCredential, Namespace: ac.Namespace, Name: ac.Name})))
	return list.Items, err
}

// waitEvent waits for an event of reason on order ac (events are written
// asynchronously) and logs its message.
func waitEvent(t *testing.T, ac *c5c3v1alpha1.KeystoneApplicationCredential, reason string) {
	t.Helper()
	eventually(t, waitTimeout, "the "+reason+" event", func() error {
		var events corev1.EventList
		if err := kube.List(context.Background(), &events, client.InNamespace(ac.Namespace)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.InvolvedObject.Name == ac.Name && e.Reason == reason {
				t.Logf("event %s: %s", e.Reason, e.Message)
				testenv.ObservedEvent(t, ac, e.Type, e.Reason)
				return nil
			}
		}
		return fmt.Errorf("no %s event among %d", reason, len(events.Items))
	})
}
