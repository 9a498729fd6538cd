//go:build integration

package keystoneservice

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/delivery/openbao"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// accountRegistration is a KeystoneService in ns declaring an account block
// (project project, created when create), and no catalog block.
func accountRegistration(ns, name, project string, create bool, roles ...string) *c5c3v1alpha1.KeystoneService {
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{
				Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: c5c3v1alpha1.KeystoneName(project), Create: create}}}}
	if ns == planeNS {
		ks.Spec.ControlPlaneRef.Namespace = ""
	}
	for _, r := range roles {
		ks.Spec.Account.Roles = append(ks.Spec.Account.Roles, c5c3v1alpha1.KeystoneName(r))
	}
	return ks
}

func create(t *testing.T, obj client.Object) {
	t.Helper()
	if err := kube.Create(context.Background(), obj); err != nil {
		t.Fatal(err)
	}
}

// deliveredCloud reads the consumer Secret <name>-credentials and parses
// its clouds.yaml; it also checks that the password key agrees.
func deliveredCloud(ks *c5c3v1alpha1.KeystoneService) (cloudsyaml.Cloud, error) {
	var s corev1.Secret
	if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name + "-credentials"}, &s); err != nil {
		return cloudsyaml.Cloud{}, err
	}
	c, err := cloudsyaml.ParseCloud(s.Data["clouds.yaml"], ks.Name)
	if err != nil {
		return c, err
	}
	if c.AuthInfo.Password != string(s.Data["password"]) {
		return c, errors.New("the password key and the clouds.yaml disagree")
	}
	return c, nil
}

// authenticate requests a token with a password cloud, as a consumer would.
func authenticate(ctx context.Context, c cloudsyaml.Cloud) error {
	a := cloudsyaml.AuthOf(c)
	_, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: a.AuthURL, Username: a.Username,
		Password: a.Password, DomainName: a.UserDomainName,
		Scope: &gophercloud.AuthScope{ProjectName: a.ProjectName, DomainName: a.ProjectDomainName}})
	return err
}

func keystoneUser(t *testing.T, name string) *users.User {
	t.Helper()
	return testenv.First(testenv.KeystoneList(t, users.List(identity, users.ListOpts{Name: name}), users.ExtractUsers))
}

func keystoneProject(t *testing.T, name string) *projects.Project {
	t.Helper()
	return testenv.First(testenv.KeystoneList(t, projects.List(identity, projects.ListOpts{Name: name}), projects.ExtractProjects))
}

// ensureRole creates the Keystone role name unless it exists and returns its id.
func ensureRole(t *testing.T, name string) string {
	t.Helper()
	return testenv.KeystoneEnsureRole(t, identity, name)
}

func assignedRoles(t *testing.T, userID, projectID string) map[string]bool {
	t.Helper()
	return testenv.KeystoneAssignedRoles(t, identity, userID, projectID)
}

func baoKV(t *testing.T) *openbao.KV {
	t.Helper()
	c, err := openbao.NewClient(openbao.Config{Address: stack.OpenBao.Addr, Token: stack.OpenBao.Token})
	if err != nil {
		t.Fatal(err)
	}
	return openbao.NewKV(c, stack.OpenBao.KVMount)
}

// labelledChildren counts the objects of kinds labelled as ks's children in
// the plane's namespace and in ks's own.
func labelledChildren(t *testing.T, ks *c5c3v1alpha1.KeystoneService) int {
	t.Helper()
	n := 0
	for _, ns := range []string{planeNS, ks.Namespace} {
		for _, l := range []client.ObjectList{&orcv1alpha1.UserList{}, &orcv1alpha1.ProjectList{}, &orcv1alpha1.RoleList{},
			&orcv1alpha1.DomainList{}, &corev1.SecretList{}, eso.NewList(eso.PushSecretGVK), eso.NewList(eso.ExternalSecretGVK),
			&orcv1alpha1.ServiceList{}, &orcv1alpha1.EndpointList{}} {
			if err := kube.List(context.Background(), l, client.InNamespace(ns), client.MatchingLabels(ChildLabels(ks))); err != nil {
				t.Fatal(err)
			}
			n += meta.LenList(l)
		}
	}
	return n
}

// TestAccountProvisionedRotatedAndTornDown drives the workflow
// example of docs/reference/keystoneservice.md end to end: both blocks
// registered, the consumer Secret authenticating, the role bound, the backup in
// OpenBao; a rotation during which a consumer authenticates continuously with
// whatever the Secret holds; and a deletion that leaves nothing in Keystone,
// OpenBao or Kubernetes.
func TestAccountProvisionedRotatedAndTornDown(t *testing.T) {
	ctx := context.Background()
	serviceRole := ensureRole(t, "service")
	ks := accountRegistration(planeNS, "workflow", "service-workflow", true, "service")
	ks.Spec.Catalog = &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "workflow", Endpoints: []c5c3v1alpha1.KeystoneServiceEndpointSpec{
		{Interface: "public", URL: "https://workflow-api.example.com:8989/v2"},
		{Interface: "internal", URL: "http://workflow-api.openstack.svc.cluster.local:8989/v2"}}}
	create(t, ks)
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	// The account in Keystone, its role, its consumer Secret and backup.
	u := keystoneUser(t, "workflow")
	p := keystoneProject(t, "service-workflow")
	if u == nil || p == nil {
		t.Fatalf("Keystone user %v / project %v missing", u, p)
	}
	if a := got.Status.Account; a == nil || a.UserID != u.ID || a.ProjectID != p.ID || a.PasswordGeneration != 1 ||
		a.SecretName != "workflow-credentials" {
		t.Fatalf("status.account = %+v, want user %s project %s generation 1", a, u.ID, p.ID)
	}
	if !assignedRoles(t, u.ID, p.ID)[serviceRole] {
		t.Fatal("the service role is not assigned to the user on the project")
	}
	cloud, err := deliveredCloud(ks)
	if err != nil {
		t.Fatal(err)
	}
	if cloud.AuthInfo.Username != "workflow" || cloud.AuthInfo.ProjectName != "service-workflow" || cloud.AuthInfo.UserDomainName != "Default" ||
		cloud.AuthInfo.ProjectDomainName != "Default" || cloud.AuthInfo.AuthURL != stack.Keystone.URL {
		t.Fatalf("delivered clouds.yaml names %+v", cloud.AuthInfo)
	}
	if err := authenticate(ctx, cloud); err != nil {
		t.Fatalf("the delivered clouds.yaml does not authenticate: %v", err)
	}
	path, _ := openbao.ServiceAccountCredentialsPath(planeNS, "workflow")
	if pw, _, err := baoKV(t).ReadProperty(ctx, path, openbao.PropertyPassword); err != nil || pw != cloud.AuthInfo.Password {
		t.Fatalf("OpenBao %s holds a different password (err %v)", path, err)
	}
	var consumer corev1.Secret
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: "workflow-credentials"}, &consumer); err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(&consumer); ref == nil || ref.Kind != "ExternalSecret" {
		t.Fatalf("the consumer Secret's controller is %v, want its ExternalSecret (CreationPolicy Owner)", ref)
	}

	// A rotation while a consumer authenticates with whatever the Secret
	// holds. A password user has one password in Keystone, so a consumer
	// that has not re-read the Secret yet fails between Keystone applying
	// the new generation and ESO delivering it; what must hold is that the
	// Secret only ever switches to a password Keystone accepts and that the
	// superseded one stops working.
	type sample struct {
		password string
		err      error
	}
	var (
		mu      sync.Mutex
		samples []sample
	)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			c, err := deliveredCloud(ks)
			if err != nil {
				mu.Lock()
				samples = append(samples, sample{err: fmt.Errorf("read the Secret: %w", err)})
				mu.Unlock()
				continue
			}
			err = authenticate(ctx, c)
			mu.Lock()
			samples = append(samples, sample{password: c.AuthInfo.Password, err: err})
			mu.Unlock()
		}
	}()
	start := time.Now()
	create(t, &c5c3v1alpha1.CredentialRotation{ObjectMeta: metav1.ObjectMeta{Name: "rotate-workflow", Namespace: planeNS},
		Spec: c5c3v1alpha1.CredentialRotationSpec{Target: c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword,
			KeystoneService: "workflow"}})
	eventually(t, waitTimeout, "password generation 2 delivered", func() error {
		var cur c5c3v1alpha1.KeystoneService
		if err := kube.Get(ctx, client.ObjectKeyFromObject(ks), &cur); err != nil {
			return err
		}
		if a := cur.Status.Account; a == nil || a.PasswordGeneration != 2 || a.LastPasswordRotation == nil {
			return fmt.Errorf("status.account = %+v", a)
		}
		return nil
	})
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	t.Logf("rotation: CredentialRotation created -> generation 2 delivered and Ready in %s", time.Since(start).Round(100*time.Millisecond))
	close(stop)
	<-done
	rotated, err := deliveredCloud(ks)
	if err != nil {
		t.Fatal(err)
	}
	if rotated.AuthInfo.Password == cloud.AuthInfo.Password {
		t.Fatal("the consumer Secret still holds the old password")
	}
	if err := authenticate(ctx, rotated); err != nil {
		t.Fatalf("the rotated password does not authenticate: %v", err)
	}
	if err := authenticate(ctx, cloud); err == nil {
		t.Fatal("the superseded password still authenticates")
	}
	// The Secret switched only to passwords Keystone accepted: the first
	// attempt with each newly seen password succeeded, and it never read
	// empty or missing. The superseded password authenticated before the
	// rotation (above); the sampler's first read of it may already come
	// after Keystone applied its successor, so it is not newly seen.
	seen := map[string]bool{cloud.AuthInfo.Password: true}
	failures := 0
	for _, s := range samples {
		if s.password == "" {
			t.Fatalf("a consumer read of the Secret failed: %v", s.err)
		}
		if !seen[s.password] {
			seen[s.password] = true
			if s.err != nil {
				t.Fatalf("the Secret switched to a password Keystone rejected: %v", s.err)
			}
		}
		if s.err != nil {
			failures++
		}
	}
	if len(seen) != 2 {
		t.Fatalf("the consumer saw %d distinct passwords, want the old and the new", len(seen))
	}
	t.Logf("rotation: %d authentications, %d rejected (the superseded password, before ESO delivered its successor)", len(samples), failures)
	var cr c5c3v1alpha1.CredentialRotation
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: "rotate-workflow"}, &cr); err != nil {
		t.Fatal(err)
	}
	if c := findCondition(cr.Status.Conditions, c5c3v1alpha1.ConditionReady); c == nil || c.Reason != c5c3v1alpha1.ReasonRotationTriggered {
		t.Fatalf("CredentialRotation Ready = %+v", c)
	}
	// Superseded password Secrets are gone.
	var pws corev1.SecretList
	if err := kube.List(ctx, &pws, client.InNamespace(planeNS), client.MatchingLabels(ChildLabels(ks)),
		client.HasLabels{korc.LabelPasswordGeneration}); err != nil {
		t.Fatal(err)
	}
	if len(pws.Items) != 1 {
		t.Fatalf("%d password Secrets remain, want only generation 2", len(pws.Items))
	}

	// Teardown: nothing left in Keystone, OpenBao or Kubernetes.
	deleteAndWaitGone(t, ks, "workflow")
	if keystoneUser(t, "workflow") != nil || keystoneProject(t, "service-workflow") != nil {
		t.Fatal("the user or the created project is still in Keystone")
	}
	if _, err := baoKV(t).Read(ctx, path); !errors.Is(err, openbao.ErrNotFound) {
		t.Fatalf("OpenBao %s after the teardown: %v, want not found", path, err)
	}
	eventually(t, waitTimeout, "consumer Secret garbage-collected", func() error {
		err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS, Name: "workflow-credentials"}, &corev1.Secret{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
	if n := labelledChildren(t, ks); n != 0 {
		t.Fatalf("%d labelled children left", n)
	}
}

// TestAccountCollisionThenAdopt: a pre-existing user collides and is left
// untouched; adopt takes it over and its password is replaced on the first
// pass (docs/reference/keystoneservice.md, "Collision and adoption": the
// takeover is not delayed by K-ORC issue #920).
func TestAccountCollisionThenAdopt(t *testing.T) {
	ctx := context.Background()
	proj, err := projects.Create(ctx, identity, projects.CreateOpts{Name: "adoptee-project", DomainID: "default"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	old, err := users.Create(ctx, identity, users.CreateOpts{Name: "adoptee", DomainID: "default", Password: "old-password-1",
		Enabled: gophercloud.Enabled}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	memberRole := ensureRole(t, "member")
	if err := roles.Assign(ctx, identity, memberRole, roles.AssignOpts{UserID: old.ID, ProjectID: proj.ID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	oldCloud := cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: stack.Keystone.URL, Username: "adoptee", Password: "old-password-1",
		UserDomainName: "Default", ProjectName: "adoptee-project", ProjectDomainName: "Default"})
	ks := accountRegistration(planeNS, "adoptee", "adoptee-project", false, "member")
	create(t, ks)
	c := waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision)
	t.Logf("collision: %s", findCondition(c.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message)
	if err := authenticate(ctx, oldCloud); err != nil {
		t.Fatalf("the colliding user was touched: %v", err)
	}
	if err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS,
		Name: korc.RegistrationChildName(planeNS, "adoptee", korc.DiscUser)}, &orcv1alpha1.User{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a managed User child exists while colliding (%v)", err)
	}

	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) { k.Spec.Account.Adopt = true })
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if a := got.Status.Account; a == nil || a.UserID != old.ID {
		t.Fatalf("status.account = %+v, want the adopted user %s", a, old.ID)
	}
	cloud, err := deliveredCloud(ks)
	if err != nil {
		t.Fatal(err)
	}
	if err := authenticate(ctx, cloud); err != nil {
		t.Fatalf("the delivered password of the adopted user does not authenticate: %v", err)
	}
	if err := authenticate(ctx, oldCloud); err == nil {
		t.Fatal("the adopted user's pre-existing password still works: the generated one was not applied")
	}

	// Adoption means ownership: deletion removes the user, keeps the
	// referenced project.
	deleteAndWaitGone(t, ks, "none")
	if keystoneUser(t, "adoptee") != nil {
		t.Fatal("the adopted user is still in Keystone after the teardown")
	}
	if keystoneProject(t, "adoptee-project") == nil {
		t.Fatal("the referenced (create: false) project was deleted")
	}
}

// TestProjectCollisionChangesNothing: a create: true project that exists
// parks the account before the user is created.
func TestProjectCollisionChangesNothing(t *testing.T) {
	ctx := context.Background()
	if _, err := projects.Create(ctx, identity, projects.CreateOpts{Name: "taken-project", DomainID: "default"}).Extract(); err != nil {
		t.Fatal(err)
	}
	ks := accountRegistration(planeNS, "projcollide", "taken-project", true)
	create(t, ks)
	c := waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision)
	if m := findCondition(c.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message; !containsAll(m, "create: false") {
		t.Fatalf("message %q does not name the remedy", m)
	}
	if keystoneUser(t, "projcollide") != nil {
		t.Fatal("the user was created although the project collided")
	}
	deleteAndWaitGone(t, ks, "none")
	if keystoneProject(t, "taken-project") == nil {
		t.Fatal("the colliding project was deleted by a registration that never owned it")
	}
}

// TestAdminIdentityNeverRegistrable: Admin, ADMIN and admín resolve to the
// plane's admin user under Keystone's folding; each is refused ahead of the
// probe and nothing is projected.
func TestAdminIdentityNeverRegistrable(t *testing.T) {
	for i, name := range []string{"Admin", "ADMIN", "admín"} {
		ks := accountRegistration(planeNS, fmt.Sprintf("admin-variant-%d", i), "admin", false)
		ks.Spec.Account.UserName = c5c3v1alpha1.OpenStackName(name)
		create(t, ks)
		c := waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision)
		if m := findCondition(c.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message; !containsAll(m, "admin identity", "re-create") {
			t.Fatalf("%s: message %q", name, m)
		}
		if n := labelledChildren(t, ks); n != 0 {
			t.Fatalf("%s: %d children projected for a refused admin identity", name, n)
		}
		deleteAndWaitGone(t, ks, "none")
	}
	// The admin still authenticates.
	if err := authenticate(context.Background(), cloudsyaml.Password(cloudsyaml.PasswordParams{AuthURL: stack.Keystone.URL,
		Username: stack.Keystone.AdminUser, Password: stack.Keystone.AdminPassword, UserDomainName: "Default",
		ProjectName: stack.Keystone.AdminProject, ProjectDomainName: "Default"})); err != nil {
		t.Fatal(err)
	}
}

// TestAccountConsent: registrations from the plane's service namespace and
// an allowlisted namespace deliver there; an unlisted one holds at
// NamespaceNotAllowed with nothing projected; de-listing freezes without
// tearing down, and re-listing resumes.
func TestAccountConsent(t *testing.T) {
	ctx := context.Background()
	for _, ns := range []string{serviceNS, allowedNS} {
		ks := accountRegistration(ns, "consented", "consented-"+ns, true, "member")
		ks.Spec.Account.UserName = c5c3v1alpha1.OpenStackName("consented-" + ns)
		create(t, ks)
		waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
		cloud, err := deliveredCloud(ks)
		if err != nil {
			t.Fatalf("%s: %v", ns, err)
		}
		if err := authenticate(ctx, cloud); err != nil {
			t.Fatalf("%s: %v", ns, err)
		}
	}
	denied := accountRegistration("team-not-allowed", "denied", "denied-project", true)
	create(t, denied)
	waitForCondition(t, denied, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonNamespaceNotAllowed)
	if n := labelledChildren(t, denied); n != 0 {
		t.Fatalf("%d children projected for an unlisted namespace", n)
	}

	// De-list allowedNS: the registration freezes, its user and Secret stay.
	allowed := accountRegistration(allowedNS, "consented", "", true)
	setAllowlist(t, nil)
	waitForCondition(t, allowed, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonNamespaceNotAllowed)
	cloud, err := deliveredCloud(allowed)
	if err != nil {
		t.Fatalf("the consumer Secret went with the de-listing: %v", err)
	}
	if err := authenticate(ctx, cloud); err != nil {
		t.Fatalf("de-listing invalidated the delivered credential: %v", err)
	}
	if keystoneUser(t, "consented-"+allowedNS) == nil {
		t.Fatal("de-listing deleted the user")
	}
	setAllowlist(t, []string{allowedNS})
	waitForCondition(t, allowed, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	deleteAndWaitGone(t, allowed, "none")
	deleteAndWaitGone(t, denied, "none")
	deleteAndWaitGone(t, accountRegistration(serviceNS, "consented", "", true), "none")
}

// TestAccountBlockRemovedAlone: removing the account block tears down the
// account and leaves the catalog entry.
func TestAccountBlockRemovedAlone(t *testing.T) {
	ks := accountRegistration(planeNS, "blocks", "blocks-project", true)
	ks.Spec.Catalog = &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "blocks"}
	create(t, ks)
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) { k.Spec.Account = nil })
	waitForCondition(t, ks, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonAccountNotDeclared)
	if keystoneUser(t, "blocks") != nil || keystoneProject(t, "blocks-project") != nil {
		t.Fatal("the account is still in Keystone after its block was removed")
	}
	if len(keystoneServices(t, "blocks")) != 1 {
		t.Fatal("removing the account block touched the catalog entry")
	}
	deleteAndWaitGone(t, ks, "blocks")
}

func setAllowlist(t *testing.T, namespaces []string) {
	t.Helper()
	eventually(t, waitTimeout, "update the allowlist", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces = namespaces
		return kube.Update(context.Background(), &cp)
	})
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// TestAdoptNeverTakesAnotherRegistrationsRows: adopt consents to taking over
// rows nobody manages; a second registration naming the catalog row and the
// user a first one manages is held at the collision reasons even with adopt
// set, and the first registration is untouched.
func TestAdoptNeverTakesAnotherRegistrationsRows(t *testing.T) {
	ensureRole(t, "member")
	first := accountRegistration(planeNS, "owner-first", "owner-project", true, "member")
	first.Spec.Catalog = &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "owned", ServiceName: "owned"}
	first.Spec.Account.UserName = "owned-user"
	create(t, first)
	waitForCondition(t, first, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	second := accountRegistration(allowedNS, "owner-second", "owner-project", false)
	second.Spec.Catalog = &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: "owned", ServiceName: "owned", Adopt: true}
	second.Spec.Account.UserName = "owned-user"
	second.Spec.Account.Adopt = true
	create(t, second)
	c := waitForCondition(t, second, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonServiceCollision)
	if m := findCondition(c.Status.Conditions, c5c3v1alpha1.ConditionCatalogReady).Message; !strings.Contains(m, "KeystoneService "+planeNS+"/owner-first") {
		t.Fatalf("CatalogReady message %q does not name the owner", m)
	}
	c = waitForCondition(t, second, c5c3v1alpha1.ConditionAccountReady, c5c3v1alpha1.ReasonServiceAccountCollision)
	if m := findCondition(c.Status.Conditions, c5c3v1alpha1.ConditionAccountReady).Message; !strings.Contains(m, "KeystoneService "+planeNS+"/owner-first") {
		t.Fatalf("AccountReady message %q does not name the owner", m)
	}
	cloud, err := deliveredCloud(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := authenticate(context.Background(), cloud); err != nil {
		t.Fatalf("the first registration's credential stopped working: %v", err)
	}
	deleteAndWaitGone(t, second, "none")
	if len(keystoneServices(t, "owned")) != 1 || keystoneUser(t, "owned-user") == nil {
		t.Fatal("deleting the refused registration removed the first one's rows")
	}
	deleteAndWaitGone(t, first, "owned")
}

// TestRoleGrantsFollowTheSpec: a role added to account.roles is granted, a
// role removed is revoked in Keystone and its import released, and a grant
// revoked out of band is repaired.
func TestRoleGrantsFollowTheSpec(t *testing.T) {
	ctx := context.Background()
	member, service := ensureRole(t, "member"), ensureRole(t, "service")
	ks := accountRegistration(planeNS, "grants", "grants-project", true, "member")
	create(t, ks)
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	userID, projectID := got.Status.Account.UserID, got.Status.Account.ProjectID
	waitRoles := func(want map[string]bool) {
		t.Helper()
		eventually(t, waitTimeout, fmt.Sprintf("Keystone assignments %v", want), func() error {
			if have := assignedRoles(t, userID, projectID); !maps.Equal(have, want) {
				return fmt.Errorf("assigned %v", have)
			}
			return nil
		})
	}
	waitRoles(map[string]bool{member: true})

	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) { k.Spec.Account.Roles = []c5c3v1alpha1.KeystoneName{"service"} })
	waitRoles(map[string]bool{service: true})
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	eventually(t, waitTimeout, "the member role import released", func() error {
		err := kube.Get(ctx, types.NamespacedName{Namespace: planeNS,
			Name: korc.RegistrationChildName(planeNS, "grants", korc.RoleDiscriminator("member"))}, &orcv1alpha1.Role{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})

	// Revoked out of band: the next pass grants it again (a resync is
	// forced by touching the registration).
	if err := roles.Unassign(ctx, identity, service, roles.UnassignOpts{UserID: userID, ProjectID: projectID}).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) {
		if k.Annotations == nil {
			k.Annotations = map[string]string{}
		}
		k.Annotations["test.orderhub/resync"] = "1"
	})
	waitRoles(map[string]bool{service: true})
	deleteAndWaitGone(t, ks, "none")
	if keystoneRole := ensureRole(t, "member"); keystoneRole != member {
		t.Fatal("the teardown deleted a global role")
	}
}
